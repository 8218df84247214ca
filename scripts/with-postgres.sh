#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL cluster on a free loopback port, then
# removes the cluster. The command sees TOLLGATE_TEST_POSTGRES_URL (and, for tests that
# restart the database, TOLLGATE_TEST_POSTGRES_{BIN,DATA,OPTS,RUNAS}).
# PostgreSQL refuses to run as root, so as root the cluster runs as the user tollgate-pg.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "with-postgres: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi
dir=$(mktemp -d /tmp/tollgate-pg.XXXXXX)
chmod 755 "$dir"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run_as=""
if [ "$(id -u)" -eq 0 ]; then
  id tollgate-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin tollgate-pg
  chown tollgate-pg "$dir"
  run_as="runuser -u tollgate-pg --"
fi
opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300"
cleanup() {
  $run_as "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT
$run_as "$bin/initdb" -D "$dir/data" -U tollgate --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
$run_as "$bin/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/server.log" -w start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U tollgate tollgate
export TOLLGATE_TEST_POSTGRES_URL="postgres://tollgate@127.0.0.1:$port/tollgate"
export TOLLGATE_TEST_POSTGRES_BIN="$bin" TOLLGATE_TEST_POSTGRES_DATA="$dir/data"
export TOLLGATE_TEST_POSTGRES_OPTS="$opts" TOLLGATE_TEST_POSTGRES_RUNAS="$run_as"
echo "PostgreSQL $(basename "$(dirname "$bin")") for the tests at 127.0.0.1:$port"
"$@"
