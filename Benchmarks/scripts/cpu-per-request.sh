#!/usr/bin/env bash
# Where a placement request's CPU goes on this machine: the server's and the load generator's
# (wrk shares the cores with the server, so its cost lowers every rate `make bench` prints).
# Serves a seeded SQLite file with the release build, assigns the returning profiles, then
# alternates the default-audience and returning-profile runs of `make bench`, ROUNDS times, and
# prints for each: requests/s, the server's CPU per request (from /proc), wrk's (user + system).
# Usage: Benchmarks/scripts/cpu-per-request.sh [work directory]   (release build first)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/scripts/common.sh
BIN=.build/release
work=${1:-/tmp/tollgate-cpu-per-request}
RETURNING=${BENCH_RETURNING:-10000}
mkdir -p "$work"
[ -f "$work/bench.sqlite" ] || "$BIN/tollgate-bench" seed --database "$work/bench.sqlite" --profiles 100000 --out "$work" >/dev/null
# shellcheck disable=SC1091
source "$work/keys.env"
port=$(free_port)
"$BIN/tollgate" serve --port "$port" --database "$work/bench.sqlite" --log-level error --rate-limit-address off \
  --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off --rate-limit-admin off &
server=$!
trap 'kill $server 2>/dev/null' EXIT
wait_port "$port"
wait_warm "$port" >/dev/null
BENCH_MODE=warm BENCH_RETURNING=$RETURNING BENCH_IDS="$work/ids.txt" BENCH_KEY=$BENCH_KEY \
  wrk -t2 -c16 -d5s -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port" >/dev/null 2>&1
ticks=$(getconf CLK_TCK)
server_cpu() { awk '{ print $14 + $15 }' "/proc/$server/stat"; }
measure() {
  local label=$1 before after
  shift
  before=$(server_cpu)
  /usr/bin/time -f "%U %S" -o "$work/wrk.time" "$@" >"$work/wrk.out" 2>&1
  after=$(server_cpu)
  awk -v label="$label" -v ticks="$ticks" -v server=$((after - before)) -v times="$(cat "$work/wrk.time")" '
    /requests in/ { requests = $1 } /Requests\/sec/ { rate = $2 }
    END { split(times, t, " "); printf "%s: %.0f req/s; server %.1f us/request, wrk %.1f us/request\n",
      label, rate, server / ticks * 1e6 / requests, (t[1] + t[2]) * 1e6 / requests }' "$work/wrk.out"
}
for _ in $(seq 1 "${ROUNDS:-2}"); do
  measure "default audience" wrk -t2 -c64 -d10s -H "Authorization: Api-Key $BENCH_KEY" \
    "http://127.0.0.1:$port/v1/sdk/placements/p0/default"
  BENCH_MODE=returning BENCH_RETURNING=$RETURNING BENCH_IDS="$work/ids.txt" BENCH_KEY=$BENCH_KEY \
    measure "returning profiles" wrk -t2 -c64 -d10s -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port"
done
