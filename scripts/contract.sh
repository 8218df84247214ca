#!/usr/bin/env bash
# The API contract check: live servers, each on a fresh SQLite database with the sample config (and
# the App Store, Apple Ads and webhook sections added below), fuzzed by schemathesis against
# docs/openapi.yaml with every check and at least 100 examples per operation (SDK and admin
# routes). Any failure fails the run.
# Usage: scripts/contract.sh [path/to/tollgate]   (default .build/debug/tollgate; CONTRACT_SEED=n
# fuzzes with another seed than the fixed one CI uses)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/debug/tollgate}
EXAMPLES=${CONTRACT_EXAMPLES:-100}
venv=.build/contract-venv
bash scripts/python-venv.sh "$venv" Tests/Contract/requirements.txt

echo "== docs/paywall.schema.json against Fixtures/paywalls"
"$venv/bin/python3" scripts/paywall-schema.py

work=$(mktemp -d /tmp/tollgate-contract.XXXXXX)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# prepare NAME: a server of its own on a fresh SQLite database in $work/NAME, set up as below;
# leaves there the variables the fuzzer's hooks read (env) and its configuration
# (schemathesis.toml).
prepare() {
  local dir="$work/$1"
  mkdir -p "$dir"
  database="$dir/contract.sqlite"
  local keys public secret sessions
  keys=$("$BIN" keys create --app contract --database "$database")
  public=$(echo "$keys" | awk '/public key:/ { print $3 }')
  secret=$(echo "$keys" | awk '/secret key:/ { print $3 }')
  # The sample configuration with the App Store Server API, the Apple Ads API and a webhook, and
  # both keys uploaded: the credentials, recovery, test-notification, import and webhook routes
  # then reach what they act on instead of answering 404. Apple and the webhook's receiver are a
  # closed local port: their jobs fail and retry, as they would with Apple down.
  python3 - "$dir/contract-config.json" <<'PY'
import json, sys
config = json.load(open("examples/sample-config.json"))
config["app_store"]["server_api"] = {"issuer_id": "57246542-96fe-1a63-e053-0824d011072a", "key_id": "2X9R4HXF34"}
config["apple_ads_api"] = {"org_id": 40669820, "client_id": "SEARCHADS.contract", "team_id": "SEARCHADS.contract",
                           "key_id": "contract-key"}
config["webhooks"] = [{"id": "contract-hook", "url": "http://127.0.0.1:9/hook", "events": ["*"]}]
json.dump(config, open(sys.argv[1], "w"))
PY
  "$BIN" import "$dir/contract-config.json" --app contract --database "$database" >/dev/null
  for key in app-store apple-ads; do
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$key.p8" 2>/dev/null
    "$BIN" "$key" credentials --app contract --key "$dir/$key.p8" --database "$database" >/dev/null
  done
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  # Two people, so the session routes are fuzzed signed in: one owner whose session the fuzzer
  # uses throughout (and a second session of theirs that sign-out ends), and another whose
  # sessions sign-out-everywhere ends. They belong to an app of their own: the contract app's
  # secret key, fuzzing the people routes, cannot disable or remove them halfway.
  "$BIN" keys create --app people --database "$database" >/dev/null
  local owner_invitation other_invitation member_invitation removable_invitation
  owner_invitation=$(invitation owner@contract.test owner people)
  other_invitation=$(invitation other@contract.test owner people)
  # Two members of the contract app itself, signed in nowhere, so the routes under
  # /v1/admin/people/{personId} reach a person (role, disable, reset …), not only 404: the fuzzer
  # gets the first one's id; removing them is sent for the second (Tests/Contract/hooks.py), or the
  # first removal would leave every other route nobody to reach.
  member_invitation=$(invitation member@contract.test viewer contract)
  removable_invitation=$(invitation removable@contract.test viewer contract)
  # Long polls held at most 200 ms, so the fuzzer's 10 s request timeout always covers them;
  # limits off, so fuzzing's request rate is not what gets tested.
  "$BIN" serve --port "$port" --database "$database" --log-level error --max-wait-ms 200 \
    --rate-limit-address off --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off \
    --rate-limit-admin off --apple-ads-url "http://127.0.0.1:9/" --apple-ads-api-url "http://127.0.0.1:9/" \
    --app-store-api-url "http://127.0.0.1:9/" --app-store-sandbox-api-url "http://127.0.0.1:9/" &
  servers+=("$!")
  for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  # The profile Tests/Contract/schemathesis.toml names, so routes under a profile find one; the
  # people's sessions (cookie and CSRF token, tab-separated): the owner's, a second one of the
  # owner's, the other person's.
  sessions=$(python3 - "http://127.0.0.1:$port" "$public" "$owner_invitation" "$other_invitation" \
    "$member_invitation" "$removable_invitation" "$secret" <<'PY'
import hashlib, json, struct, sys, urllib.request, zlib
from http.cookies import SimpleCookie
base, public, owner, other, member, removable, secret = sys.argv[1:]
def post(path, body, headers=None):
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request) as answer:
        return answer.headers.get("Set-Cookie"), json.loads(answer.read())
post("/v1/sdk/profiles", {"profile_id": "00000000-0000-4000-8000-00000000c0de"}, {"Authorization": f"Api-Key {public}"})
password = "contract-fuzzing-passphrase"
for path, body in (
    (f"/v1/console/invitations/{owner}/accept", {"password": password}),
    ("/v1/console/sign-in", {"email": "owner@contract.test", "password": password}),
    (f"/v1/console/invitations/{other}/accept", {"password": password}),
):
    cookie, session = post(path, body)
    print(SimpleCookie(cookie)["tollgate_session"].value + "\t" + session["csrf_token"])
# The members join (their sessions are not used); their ids are the fourth and fifth lines.
for invitation in (member, removable):
    cookie, session = post(f"/v1/console/invitations/{invitation}/accept", {"password": password})
    print(session["person"]["id"])
# A 1×1 PNG uploaded as a paywall image, so GET /v1/assets/{sha256} has one to answer.
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(b"\x00\xff\x80\x00")) + chunk(b"IEND", b""))
request = urllib.request.Request(
    base + "/v1/admin/assets", data=png, method="POST",
    headers={"Content-Type": "image/png", "Authorization": f"Bearer {secret}"})
with urllib.request.urlopen(request) as answer:
    stored = json.loads(answer.read())["sha256"]
assert stored == hashlib.sha256(png).hexdigest(), stored
print(stored)
PY
  )
  session_field() { echo "$sessions" | sed -n "${1}p" | cut -f"$2"; }
  cat >"$dir/env" <<ENV
export CONTRACT_URL="http://127.0.0.1:$port" CONTRACT_ORIGIN="http://127.0.0.1:$port" CONTRACT_SECRET_KEY="$secret"
export CONTRACT_APP_STORE_KEY="$dir/app-store.p8" CONTRACT_APPLE_ADS_KEY="$dir/apple-ads.p8"
export CONTRACT_CONSOLE_SESSION="$(session_field 1 1)" CONTRACT_CONSOLE_CSRF="$(session_field 1 2)"
export CONTRACT_SIGN_OUT_SESSION="$(session_field 2 1)" CONTRACT_SIGN_OUT_CSRF="$(session_field 2 2)"
export CONTRACT_OTHER_SESSION="$(session_field 3 1)" CONTRACT_OTHER_CSRF="$(session_field 3 2)"
export CONTRACT_MEMBER_ID="$(session_field 4 1)" CONTRACT_REMOVABLE_ID="$(session_field 5 1)"
ENV
  cp Tests/Contract/schemathesis.toml "$dir/schemathesis.toml"
  cat >>"$dir/schemathesis.toml" <<TOML

[dictionaries.people]
values = ["$(session_field 4 1)"]

[dictionaries.assets]
values = ["$(session_field 6 1)"]

[auth.openapi.publicKey]
api_key = "Api-Key $public"

[auth.openapi.secretKey]
bearer = "$secret"

[auth.openapi.consoleSession]
api_key = "$(session_field 1 1)"
TOML
}
# invitation EMAIL ROLE APP → the token of the link `users add` prints (for prepare's database
# and port)
invitation() {
  "$BIN" users add "$1" --role "$2" --app "$3" --database "$database" --public-url "http://127.0.0.1:$port" \
    | grep -o '#invitation=[^ ]*' | cut -d= -f2
}
prepare fuzzed
prepare stateful

# Schemathesis runs its workers as threads of one Python process, so on one core: three
# processes run side by side. Two fuzz the operations, in halves (the SDK, console and App Store
# routes with the people routes their sessions belong to; the rest of the admin API), against one
# server; the stateful phase, whose links cross both halves, runs over every operation against a
# server of its own: beside the fuzzers on theirs it revoked what they were using (five admin
# operations then saw only 401), and after them it was the last stage of `make test` running,
# on half a core, for 30 s.
report=${CONTRACT_REPORT_DIR:-.build/contract-report}
rm -rf "$report"
front='^/v1/(sdk|console|app-store|assets)/|^/v1/admin/(people|invitations|security)|^/(health|metrics)$'
# No example database: it would replay a past run's finds first (a fresh machine has none), and
# keeping it makes Hypothesis shrink the examples it stored after each operation's 100: a third
# of the run's CPU time. Every operation still gets its 100 examples.
# fuzz NAME SERVER SCHEMATHESIS-OPTIONS…
fuzz() {
  local name=$1 dir="$work/$2"
  shift 2
  (
    source "$dir/env"
    SCHEMATHESIS_HOOKS=Tests/Contract/hooks.py "$venv/bin/schemathesis" --config-file "$dir/schemathesis.toml" \
      run docs/openapi.yaml --url "$CONTRACT_URL" --checks all --max-examples "$EXAMPLES" \
      --request-timeout 10 --workers 2 --generation-database none --seed "${CONTRACT_SEED:-20261129}" --no-color \
      --suppress-health-check too_slow,filter_too_much --report junit --report-dir "$report/$name" "$@" \
      >"$work/$name.log" 2>&1
  )
}
echo "== schemathesis $(sed -n 's/^schemathesis==//p' Tests/Contract/requirements.txt): all checks, $EXAMPLES examples per operation"
fuzz front fuzzed --phases examples,coverage,fuzzing --include-path-regex "$front" &
front_run=$!
fuzz admin fuzzed --phases examples,coverage,fuzzing --exclude-path-regex "$front" &
admin_run=$!
fuzz stateful stateful --phases stateful &
stateful_run=$!
status=0
wait "$front_run" || status=1
wait "$admin_run" || status=1
wait "$stateful_run" || status=1
for name in front admin stateful; do
  echo "== schemathesis, $name"
  cat "$work/$name.log"
done
exit $status
