#!/usr/bin/env bash
# The console in a real headless Chromium against a live server seeded by `tollgate-dev demo` as
# `make demo` runs it: its default 1600 installs from one address over 14 days (so this is also the
# check that the demo trips none of its own rate limits) through the SDK routes (Apple Ads and
# organic; views, purchases signed like the App Store's, a refund, webhooks; the test then names a
# flow and an audience like an XSS payload), and an app without traffic (the empty states).
# Tests/Dashboard/dashboard_test.py checks every page against the admin API and writes
# screenshots to .build/dashboard-screenshots/.
# Usage: scripts/dashboard-test.sh [path/to/tollgate]   (default .build/debug/tollgate)
# DASHBOARD_SEEDED=DIR: a directory where `tollgate-dev demo --keep DIR/dashboard.sqlite >
# DIR/demo.log` ran already (make test seeds beside the Swift tests); it is used, then removed.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/debug/tollgate}
venv=.build/dashboard-venv
bash scripts/python-venv.sh "$venv" Tests/Dashboard/requirements.txt

work=${DASHBOARD_SEEDED:-$(mktemp -d /tmp/tollgate-dashboard.XXXXXX)}
server=""
apple=""
idp=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$apple" ] && kill "$apple" 2>/dev/null
  [ -n "$idp" ] && kill "$idp" 2>/dev/null
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
database="$work/dashboard.sqlite"
if [ -z "${DASHBOARD_SEEDED:-}" ]; then
  echo "== seeding: tollgate-dev demo --keep $database"
  "$BIN-dev" demo --keep "$database" > "$work/demo.log"
fi
public=$(awk '/^public key:/ { print $3 }' "$work/demo.log")
secret=$(awk '/^secret key:/ { print $3 }' "$work/demo.log")
# A second app as `make run` makes it: the sample configuration and no traffic yet.
"$BIN" keys create --app sample --database "$database" >/dev/null
"$BIN" import examples/sample-config.json --app sample --database "$database" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The way in for people: an owner invitation to each app, for the same person.
invite() {
  "$BIN" users add owner@demo.test --role owner --app "$1" --database "$database" \
    --public-url "http://127.0.0.1:$port" | grep -o 'http://[^ ]*#invitation=[^ ]*'
}
owner_link=$(invite demo)
sample_link=$(invite sample)
# Apple's App Store Server API as the demo left it (its In-App Purchase key, history, an order).
apple_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN-dev" app-store-api-sandbox --state "$work/app-store-api.json" --port "$apple_port" > "$work/apple.log" &
apple=$!
# Single sign-on through the stand-in OpenID Connect provider.
idp_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "console-client-secret" > "$work/sso-secret"
"$BIN-dev" openid-sandbox --client-id tollgate-console --client-secret-file "$work/sso-secret" --port "$idp_port" \
  > "$work/idp.log" &
idp=$!
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$idp_port") 2>/dev/null && break; sleep 0.1; done
"$BIN" sso set --issuer "http://127.0.0.1:$idp_port" --client-id tollgate-console --client-secret-file "$work/sso-secret" \
  --label "Demo IdP" --database "$database" --public-url "http://127.0.0.1:$port" > /dev/null
"$BIN" serve --port "$port" --database "$database" --log-level error --apple-ads-url "http://127.0.0.1:9/" \
  --app-store-api-url "http://127.0.0.1:$apple_port/production/" \
  --app-store-sandbox-api-url "http://127.0.0.1:$apple_port/sandbox/" \
  --app-store-root-ca "$work/storekit-root.pem" 2> "$work/serve.log" &
server=$!
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$apple_port") 2>/dev/null && break; sleep 0.1; done

echo "== the console in headless Chromium"
"$venv/bin/python" Tests/Dashboard/dashboard_test.py "http://127.0.0.1:$port" "$secret" "$public" "$owner_link" "$sample_link" \
  .build/dashboard-screenshots
