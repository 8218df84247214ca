#!/usr/bin/env bash
# Which of the server's source files one request runs through, measured rather than read: a
# tollgate built with coverage counters serves the same warm-up twice on fresh databases, the
# first time followed by N more of the request, the second time by nothing, its server kept up
# as long; a file with a function called about N times more ran on every request. The server
# runs as long both times, so its background passes (the config tick, 20 a second) count alike
# in both and drop out.
# Usage: scripts/request-walk.sh flow|purchase [N]   (WALK_LINES=1: which lines of each file)
#   flow:     GET /v1/sdk/placements/onboarding/flow for a returning profile (assignment stored)
#   purchase: POST /v1/sdk/profiles/{id}/transactions, a new subscription each time
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?flow or purchase}
N=${2:-200}
SWIFT=${SWIFT:-swift}
toolchain=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")
build=${WALK_BUILD:-.build/walk}
echo "== tollgate with coverage counters ($build)" >&2
"$SWIFT" build --product tollgate --build-path "$build" \
  -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping >&2
"$SWIFT" build --product tollgate-dev >&2
BIN=$build/debug/tollgate
DEV=.build/debug/tollgate-dev

work=$(mktemp -d /tmp/tollgate-walk.XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

# A signed transaction the App Store would send: a new subscription numbered $1.
sign() {
  local now=$(($(date +%s) * 1000))
  printf '{"transactionId":"%s","originalTransactionId":"%s","bundleId":"com.example.tollgate",
    "productId":"pro_monthly","subscriptionGroupIdentifier":"pro","purchaseDate":%s,"expiresDate":%s,
    "quantity":1,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","signedDate":%s,
    "environment":"Sandbox","storefront":"USA","transactionReason":"PURCHASE","price":9990,"currency":"USD"}' \
    "$1" "$1" "$now" $((now + 30 * 86400000)) "$now" | "$DEV" storekit-sign --keys "$work/keys"
}

# One run: a fresh database, the warm-up, then $1 more requests; leaves its profile in $2 and
# how long its server ran in $work/lifetime. With $3 the server runs that long in all.
run() {
  local more=$1 profile=$2 hold=${3:-0} dir="$work/run$1"
  mkdir -p "$dir"
  local public i
  # The purchases are signed before the server starts: signing takes longer than serving, and
  # while it ran the server's 50 ms config tick outnumbered the requests and joined the walk.
  if [ "$kind" = purchase ]; then
    for i in $(seq 0 "$more"); do
      printf '{"signed_transaction":"%s"}' "$(sign "$((2000000 + i))")" > "$dir/body$i.json"
    done
  fi
  # The set-up commands are instrumented too: their counters go to the run's folder.
  export LLVM_PROFILE_FILE="$dir/setup-%p.profraw"
  public=$("$BIN" keys create --app walk --database "$dir/db.sqlite" | awk '/public key:/ { print $3 }')
  "$BIN" import examples/sample-config.json --app walk --database "$dir/db.sqlite" >/dev/null
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  LLVM_PROFILE_FILE="$profile" "$BIN" serve --port "$port" --database "$dir/db.sqlite" --log-level error \
    --app-store-root-ca "$work/keys/root.pem" --apple-ads-url "http://127.0.0.1:9/" &
  server=$!
  local up
  up=$(date +%s.%N)
  for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
  local base="http://127.0.0.1:$port" id=7f3c2a10-5b6e-4d8f-9a01-23456789abcd
  local auth="Authorization: Api-Key $public"
  curl -sf -o /dev/null -H "$auth" -H 'Content-Type: application/json' -d "{\"profile_id\":\"$id\"}" "$base/v1/sdk/profiles"
  case $kind in
    flow)
      for i in $(seq 0 "$more"); do
        curl -sf -o /dev/null -H "$auth" "$base/v1/sdk/placements/onboarding/flow?profile_id=$id&locale=en"
      done
      ;;
    purchase)
      for i in $(seq 0 "$more"); do
        curl -sf -o /dev/null -H "$auth" -H 'Content-Type: application/json' --data-binary "@$dir/body$i.json" \
          "$base/v1/sdk/profiles/$id/transactions"
      done
      ;;
    *) echo "flow or purchase" >&2; exit 2 ;;
  esac
  python3 -c "import time; time.sleep(max(0, $up + $hold - time.time()))"
  python3 -c "import time; print(time.time() - $up)" > "$work/lifetime"
  kill -INT "$server"
  wait "$server" || true
  server=""
}

mkdir -p "$work/keys"
sign 1 >/dev/null
run "$N" "$work/more.profraw"
run 0 "$work/base.profraw" "$(cat "$work/lifetime")"
for name in base more; do
  "$toolchain/llvm-profdata" merge -o "$work/$name.profdata" "$work/$name.profraw"
  "$toolchain/llvm-cov" export -format=lcov -instr-profile "$work/$name.profdata" "$BIN" > "$work/$name.lcov"
done
python3 - "$work/base.lcov" "$work/more.lcov" "$N" "$PWD/Sources/" "${WALK_LINES:-0}" <<'PY'
import sys
def counts(path):
    """Per source file: each line's count and each function's calls."""
    files, current = {}, None
    for line in open(path):
        if line.startswith("SF:"):
            current = files.setdefault(line[3:].strip(), ({}, {}))
        elif line.startswith("DA:"):
            number, count = line[3:].split(",")[:2]
            current[0][int(number)] = current[0].get(int(number), 0) + int(count)
        elif line.startswith("FNDA:"):
            count, name = line[5:].strip().split(",", 1)
            current[1][name] = current[1].get(name, 0) + int(count)
    return files
base, more = counts(sys.argv[1]), counts(sys.argv[2])
# A function called once a request grows by N, give or take the background passes' few
# calls: 95 % of N counts it.
n, root, detail = int(sys.argv[3]) * 95 // 100, sys.argv[4], sys.argv[5] == "1"
def grew(path, kind):
    before = base.get(path, ({}, {}))[kind]
    return [key for key, count in sorted(more[path][kind].items()) if count - before.get(key, 0) >= n]
# A file is on the walk when one of its functions was called N more times: a loop in a function
# that ran once (a configuration rendered again) can run a line N more times, not a function.
walk = sorted(path[len(root):] for path in more if path.startswith(root) and grew(path, 1))
for path in walk:
    if detail:
        lines = grew(root + path, 0)
        print(f"{path}: lines {lines[0]}–{lines[-1]} ({len(lines)} lines)" if lines else path)
    else:
        print(path)
print(f"{len(walk)} files in {len({p.rsplit('/', 1)[0] for p in walk})} folders", file=sys.stderr)
PY
