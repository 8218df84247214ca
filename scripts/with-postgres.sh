#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL cluster on a free loopback port, then
# removes the cluster (with the settings of TOLLGATE_POSTGRES_CONF, when set). The command sees TOLLGATE_TEST_POSTGRES_URL (and, for tests that
# restart the database, TOLLGATE_TEST_POSTGRES_{BIN,DATA,OPTS,RUNAS}), and, when Debian's
# pgbouncer is installed, TOLLGATE_TEST_PGBOUNCER_URL (no database: tests add their own).
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
# TOLLGATE_POSTGRES_OPTS adds server options (make test: -c fsync=off).
opts="-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 ${TOLLGATE_POSTGRES_OPTS:-}"
cleanup() {
  if [ -f "$dir/pgbouncer.pid" ]; then kill "$(cat "$dir/pgbouncer.pid")" 2>/dev/null || true; fi
  $run_as "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  # In the background: after the test suite the cluster holds the schemas and databases of
  # hundreds of tests, and make test's next stage need not wait for them to leave the disk.
  rm -rf "$dir" </dev/null >/dev/null 2>&1 &
}
trap cleanup EXIT
# --no-sync: the cluster is thrown away with this run, an OS crash before its files reach the disk
# costs nothing.
$run_as "$bin/initdb" --no-sync -D "$dir/data" -U tollgate --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; exit 1; }
# TOLLGATE_POSTGRES_CONF=FILE adds settings to the cluster's postgresql.conf (make bench-scale
# runs with the ones docs/operations.md recommends); without it, the packaged defaults.
if [ -n "${TOLLGATE_POSTGRES_CONF:-}" ]; then
  { echo "# from $TOLLGATE_POSTGRES_CONF"; cat "$TOLLGATE_POSTGRES_CONF"; } >>"$dir/data/postgresql.conf"
fi
$run_as "$bin/pg_ctl" -D "$dir/data" -o "$opts" -l "$dir/server.log" -w start >/dev/null \
  || { cat "$dir/server.log" >&2; exit 1; }
"$bin/createdb" -h 127.0.0.1 -p "$port" -U tollgate tollgate
export TOLLGATE_TEST_POSTGRES_URL="postgres://tollgate@127.0.0.1:$port/tollgate"
export TOLLGATE_TEST_POSTGRES_BIN="$bin" TOLLGATE_TEST_POSTGRES_DATA="$dir/data"
export TOLLGATE_TEST_POSTGRES_OPTS="$opts" TOLLGATE_TEST_POSTGRES_RUNAS="$run_as"
echo "PostgreSQL $(basename "$(dirname "$bin")") for the tests at 127.0.0.1:$port"
# PgBouncer in front of it in transaction pooling mode, handing out its server connections in
# turn (server_round_robin), so a client that kept anything in a session would meet another
# session at its next transaction: the store tests run through it too (any database name is
# passed on to the cluster).
if [ -x /usr/sbin/pgbouncer ]; then
  bouncer_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo '"tollgate" ""' > "$dir/pgbouncer-users.txt"
  cat > "$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = trust
auth_file = $dir/pgbouncer-users.txt
pool_mode = transaction
server_round_robin = 1
default_pool_size = 3
max_client_conn = 2000
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
  chmod 644 "$dir/pgbouncer.ini" "$dir/pgbouncer-users.txt"
  $run_as /usr/sbin/pgbouncer -d -q "$dir/pgbouncer.ini" || { cat "$dir/pgbouncer.log" >&2; exit 1; }
  python3 - "$bouncer_port" <<'WAIT'
import socket, sys, time
for _ in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("with-postgres: PgBouncer did not start")
WAIT
  export TOLLGATE_TEST_PGBOUNCER_URL="postgres://tollgate@127.0.0.1:$bouncer_port"
  echo "PgBouncer $(/usr/sbin/pgbouncer --version | head -1 | awk '{print $2}') (transaction pooling) in front of it at 127.0.0.1:$bouncer_port"
else
  echo "with-postgres: PgBouncer is not installed (apt-get install pgbouncer): the pooled store tests are skipped" >&2
fi
"$@"
