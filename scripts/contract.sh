#!/usr/bin/env bash
# The API contract check: a live server on a fresh SQLite database with the sample config,
# fuzzed by schemathesis against docs/openapi.yaml with every check and at least 100
# examples per operation (SDK and admin routes). Any failure fails the run.
# Usage: scripts/contract.sh [path/to/tollgate]   (default .build/debug/tollgate; CONTRACT_SEED=n
# fuzzes with another seed than the fixed one CI uses)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/debug/tollgate}
EXAMPLES=${CONTRACT_EXAMPLES:-100}
venv=.build/contract-venv
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$(sed -n 's/^schemathesis==//p' Tests/Contract/requirements.txt)"; then
  echo "== installing schemathesis into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r Tests/Contract/requirements.txt
fi

echo "== docs/paywall.schema.json against Fixtures/paywalls"
"$venv/bin/python3" scripts/paywall-schema.py

work=$(mktemp -d /tmp/tollgate-contract.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
database="$work/contract.sqlite"
keys=$("$BIN" keys create --app contract --database "$database")
public=$(echo "$keys" | awk '/public key:/ { print $3 }')
secret=$(echo "$keys" | awk '/secret key:/ { print $3 }')
"$BIN" import examples/sample-config.json --app contract --database "$database" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Long polls held at most 200 ms, so the fuzzer's 10 s request timeout always covers them;
# limits off, so fuzzing's request rate is not what gets tested.
"$BIN" serve --port "$port" --database "$database" --log-level error --max-wait-ms 200 \
  --rate-limit-address off --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off \
  --rate-limit-admin off --apple-ads-url "http://127.0.0.1:9/" &
server=$!
for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
# The profile Tests/Contract/schemathesis.toml names, so routes under a profile find one.
python3 - "http://127.0.0.1:$port/v1/sdk/profiles" "$public" <<'PY'
import sys, urllib.request
request = urllib.request.Request(
    sys.argv[1], data=b'{"profile_id": "00000000-0000-4000-8000-00000000c0de"}', method="POST",
    headers={"Authorization": f"Api-Key {sys.argv[2]}", "Content-Type": "application/json"})
urllib.request.urlopen(request).read()
PY

cp Tests/Contract/schemathesis.toml "$work/schemathesis.toml"
cat >> "$work/schemathesis.toml" <<TOML

[auth.openapi.publicKey]
api_key = "Api-Key $public"

[auth.openapi.secretKey]
bearer = "$secret"
TOML

echo "== schemathesis $(sed -n 's/^schemathesis==//p' Tests/Contract/requirements.txt): all checks, $EXAMPLES examples per operation"
SCHEMATHESIS_HOOKS=Tests/Contract/hooks.py "$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run docs/openapi.yaml \
  --url "http://127.0.0.1:$port" --checks all --max-examples "$EXAMPLES" --request-timeout 10 \
  --workers 2 --seed "${CONTRACT_SEED:-20261129}" --no-color --suppress-health-check too_slow,filter_too_much \
  --report junit --report-dir "${CONTRACT_REPORT_DIR:-.build/contract-report}"
