#!/usr/bin/env bash
# The console in a real headless Chromium: a live server on a fresh SQLite database whose app is
# named like an XSS payload, with the sample config; Tests/Dashboard/dashboard_test.py signs in and
# checks every page against the admin API, and writes screenshots to .build/dashboard-screenshots/.
# Usage: scripts/dashboard-test.sh [path/to/tollgate]   (default .build/debug/tollgate)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/debug/tollgate}
venv=.build/dashboard-venv
pinned=$(sed -n 's/^selenium==//p' Tests/Dashboard/requirements.txt)
if ! "$venv/bin/python" -c "import selenium, sys; sys.exit(selenium.__version__ != '$pinned')" 2>/dev/null; then
  echo "== installing Selenium $pinned into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r Tests/Dashboard/requirements.txt
fi

work=$(mktemp -d /tmp/tollgate-dashboard.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
database="$work/dashboard.sqlite"
app='<img src=x onerror=alert(1)>'
secret=$("$BIN" keys create --app "$app" --database "$database" | awk '/secret key:/ { print $3 }')
"$BIN" import examples/sample-config.json --app "$app" --database "$database" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" serve --port "$port" --database "$database" --log-level error --apple-ads-url "http://127.0.0.1:9/" &
server=$!
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

echo "== the console in headless Chromium"
"$venv/bin/python" Tests/Dashboard/dashboard_test.py "http://127.0.0.1:$port" "$secret" .build/dashboard-screenshots
