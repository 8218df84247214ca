#!/usr/bin/env bash
# Two commits' release builds compared by the server's own CPU per cached answer, which moves
# far less between runs on a shared machine than throughput does: user + system time of the
# `tollgate serve` process (/proc/PID/stat) over one `wrk -t2 -c64` run, divided by the
# requests it served. SQLite, seeded profiles, rate limits off; the default audience and
# returning profiles (every placement assigned first); the two builds alternate, ROUNDS times.
# COMPARE_WORKLOAD=attribution measures attribution ingestion instead: per round one server, three
# consecutive `tollgate-bench attribution --tokens 2000` runs against the Apple Ads stand-in, and
# the server's CPU per token over the three (accepted and applied).
# Usage: Benchmarks/scripts/compare.sh BEFORE AFTER   (COMPARE_ROUNDS=3, COMPARE_PROFILES=20000,
#        COMPARE_RETURNING=2000, COMPARE_DURATION=10s; COMPARE_WORK=dir keeps the builds)
set -euo pipefail
cd "$(dirname "$0")/../.."
before=${1:?BEFORE commit}
after=${2:?AFTER commit}
ROUNDS=${COMPARE_ROUNDS:-3}
PROFILES=${COMPARE_PROFILES:-20000}
RETURNING=${COMPARE_RETURNING:-2000}
DURATION=${COMPARE_DURATION:-10s}
WORKLOAD=${COMPARE_WORKLOAD:-placement}
NO_LIMITS="--rate-limit-address off --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off --rate-limit-admin off"
work=${COMPARE_WORK:-$(mktemp -d /tmp/tollgate-compare.XXXXXX)}
mkdir -p "$work"
server=""
sandbox=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  [ -n "$sandbox" ] && kill "$sandbox" 2>/dev/null
  wait 2>/dev/null || true
}
trap cleanup EXIT
ticks=$(getconf CLK_TCK)

# shellcheck source=common.sh
source Benchmarks/scripts/common.sh
# cpu_ticks PID → user + system clock ticks so far (fields 14 and 15, after the command's name)
cpu_ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

# Each commit's tree and release build, once; a build kept in COMPARE_WORK is reused.
for rev in "$before" "$after"; do
  tree="$work/$rev"
  if [ ! -d "$tree" ]; then git worktree add --detach "$tree" "$rev" >&2; fi
  if [ ! -x "$tree/.build/release/tollgate" ] || [ ! -x "$tree/.build/release/tollgate-bench" ]; then
    echo "== building $rev (release)" >&2
    (cd "$tree" && swift build -c release --product tollgate >&2 && swift build -c release --product tollgate-bench >&2)
  fi
done
if [ "$WORKLOAD" = attribution ]; then
  # One Apple Ads stand-in for both builds: it is not what is measured.
  if [ ! -x "$work/$after/.build/release/tollgate-dev" ]; then
    (cd "$work/$after" && swift build -c release --product tollgate-dev >&2)
  fi
  sandbox_port=$(free_port)
  "$work/$after/.build/release/tollgate-dev" apple-ads-sandbox --port "$sandbox_port" >/dev/null &
  sandbox=$!
  wait_port "$sandbox_port"
fi


# serve_seeded REV ROUND APPLE_ADS_URL → REV's server on a freshly seeded database, warmed; sets
# out (the round's folder), port, server and BENCH_KEY
serve_seeded() {
  local bin="$work/$1/.build/release"
  out="$work/run-$1-$2"
  rm -rf "$out"; mkdir -p "$out"
  "$bin/tollgate-bench" seed --database "$out/bench.sqlite" --profiles "$PROFILES" --out "$out" >/dev/null
  # shellcheck disable=SC1091
  source "$out/keys.env"
  port=$(free_port)
  "$bin/tollgate" serve --port "$port" --database "$out/bench.sqlite" --apple-ads-url "$3" \
    --log-level error $NO_LIMITS &
  server=$!
  wait_port "$port"
  wait_warm "$port" >/dev/null
}

# measure REV ROUND → "default-µs default-req/s returning-µs returning-req/s returning-p99"
measure() {
  local rev=$1 round=$2
  serve_seeded "$rev" "$round" "http://127.0.0.1:9/"
  BENCH_MODE=warm BENCH_RETURNING=$RETURNING BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY \
    wrk -t2 -c16 -d5s -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port" > "$out/warm.wrk" 2>&1
  local result=""
  for kind in default returning; do
    local start; start=$(cpu_ticks "$server")
    if [ "$kind" = default ]; then
      wrk -t2 -c64 -d"$DURATION" --latency -H "Authorization: Api-Key $BENCH_KEY" \
        "http://127.0.0.1:$port/v1/sdk/placements/p0/default" > "$out/$kind.wrk" 2>&1
    else
      BENCH_MODE=returning BENCH_RETURNING=$RETURNING BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY \
        wrk -t2 -c64 -d"$DURATION" --latency -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port" \
        > "$out/$kind.wrk" 2>&1
    fi
    local used; used=$(( $(cpu_ticks "$server") - start ))
    if grep -q -E 'Non-2xx|Socket errors' "$out/$kind.wrk"; then
      echo "  $rev round $round $kind: $(grep -E 'Non-2xx|Socket errors' "$out/$kind.wrk" | tr '\n' ' ')" >&2
    fi
    local requests rps p99
    requests=$(awk '/requests in/ { print $1 }' "$out/$kind.wrk")
    rps=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$out/$kind.wrk")
    p99=$(awk '$1 == "99%" { print $2 }' "$out/$kind.wrk")
    result+=" $(awk -v t="$used" -v hz="$ticks" -v n="$requests" 'BEGIN { printf "%.1f", t / hz * 1e6 / n }') $rps $p99"
  done
  kill "$server"; wait "$server" 2>/dev/null || true
  server=""
  echo "$result"
}

# measure_attribution REV ROUND → "server-µs-per-token accepted/s×3 applied/s×3 lost"
measure_attribution() {
  local rev=$1 round=$2 bin="$work/$1/.build/release"
  serve_seeded "$rev" "$round" "http://127.0.0.1:$sandbox_port/api/v1/"
  local start; start=$(cpu_ticks "$server")
  for run in 1 2 3; do
    "$bin/tollgate-bench" attribution --url "http://127.0.0.1:$port" --key "$BENCH_KEY" --tokens 2000 \
      > "$out/attribution-$run.txt"
  done
  local used; used=$(( $(cpu_ticks "$server") - start ))
  kill "$server"; wait "$server" 2>/dev/null || true
  server=""
  local field
  field() { sed -n "s/.*$1=\([0-9]*\).*/\1/p" "$out"/attribution-*.txt | paste -sd, -; }
  echo "$(awk -v t="$used" -v hz="$ticks" 'BEGIN { printf "%.1f", t / hz * 1e6 / 6000 }') $(field accepted_per_s) $(field applied_per_s) $(field lost | tr , +)"
}

declare -A R
for round in $(seq 1 "$ROUNDS"); do
  for rev in "$before" "$after"; do
    echo "== round $round: $rev" >&2
    if [ "$WORKLOAD" = attribution ]; then
      R[$rev.$round]=$(measure_attribution "$rev" "$round")
      echo "  server µs/token, accepted/s, applied/s, lost: ${R[$rev.$round]}" >&2
    else
      R[$rev.$round]=$(measure "$rev" "$round")
      echo "  server µs/request, req/s (default; returning, p99):${R[$rev.$round]}" >&2
    fi
  done
done

# median COLUMN REV → the median over the rounds of one figure
median() {
  local column=$1 rev=$2 round values=()
  for round in $(seq 1 "$ROUNDS"); do values+=("$(echo "${R[$rev.$round]}" | awk -v c="$column" '{ print $c }')"); done
  printf '%s\n' "${values[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
all() {
  local column=$1 rev=$2 round values=()
  for round in $(seq 1 "$ROUNDS"); do values+=("$(echo "${R[$rev.$round]}" | awk -v c="$column" '{ print $c }')"); done
  local IFS=,; echo "${values[*]}"
}

echo
if [ "$WORKLOAD" = attribution ]; then
  echo "| median of $ROUNDS alternated rounds (3 runs of 2 000 tokens each) | $before | $after |"
  echo "|---|---|---|"
  echo "| server CPU per token (its profile created first), µs | $(median 1 "$before") ($(all 1 "$before")) | $(median 1 "$after") ($(all 1 "$after")) |"
  for round in $(seq 1 "$ROUNDS"); do
    echo "| round $round: accepted/s; applied/s | $(echo "${R[$before.$round]}" | awk '{ print $2 "; " $3 }') | $(echo "${R[$after.$round]}" | awk '{ print $2 "; " $3 }') |"
  done
  echo "| tokens lost | $(all 4 "$before") | $(all 4 "$after") |"
else
echo "| median of $ROUNDS alternated runs | $before | $after |"
echo "|---|---|---|"
echo "| default audience, server µs per request | $(median 1 "$before") ($(all 1 "$before")) | $(median 1 "$after") ($(all 1 "$after")) |"
echo "| default audience, req/s | $(median 2 "$before") | $(median 2 "$after") |"
echo "| returning profiles, server µs per request | $(median 4 "$before") ($(all 4 "$before")) | $(median 4 "$after") ($(all 4 "$after")) |"
echo "| returning profiles, req/s | $(median 5 "$before") | $(median 5 "$after") |"
echo "| returning profiles, p99 | $(all 6 "$before") | $(all 6 "$after") |"
fi
if [ -z "${COMPARE_WORK:-}" ]; then
  git worktree remove --force "$work/$before"; git worktree remove --force "$work/$after"; rm -rf "$work"
fi
