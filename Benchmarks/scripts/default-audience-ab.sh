#!/usr/bin/env bash
# Default-audience answers of several tollgate binaries and the bare libmicrohttpd responder,
# alternated ROUNDS times: requests/s and the CPU each side spent per request (the server's, with
# its user-space share, from /proc; wrk's user + system), then the medians. The server runs on
# core 0 and wrk on core 1, so neither takes the other's core: on this 2-core machine that
# halves the spread between runs, which otherwise hides a 10 % change.
# Usage: Benchmarks/scripts/default-audience-ab.sh ROUNDS BINARY... (the word `bare`: the bare
#   responder). Example, a commit against its parent (release builds copied aside first):
#   Benchmarks/scripts/default-audience-ab.sh 6 bare /tmp/tollgate-before .build/release/tollgate
set -euo pipefail
cd "$(dirname "$0")/../.."
source Benchmarks/scripts/common.sh
rounds=${1:?rounds}
shift
work=${WORK:-/tmp/tollgate-default-ab}
duration=${DURATION:-5}
mkdir -p "$work"
[ -f "$work/bench.sqlite" ] ||
  .build/release/tollgate-bench seed --database "$work/bench.sqlite" --profiles 100000 --out "$work" >/dev/null
# shellcheck disable=SC1091
source "$work/keys.env"
[ -x "$work/bare" ] || cc -O2 -o "$work/bare" Benchmarks/bare_responder.c -lmicrohttpd
ticks=$(getconf CLK_TCK)
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null' EXIT
cpu() { awk -v field="$2" '{ print field == "user" ? $14 : $14 + $15 }' "/proc/$1/stat"; }

# The bare responder answers with a tollgate's default-audience bytes: fetched from the first
# binary given, before any round.
for binary in "$@"; do
  [ "$binary" = bare ] && continue
  port=$(free_port)
  "$binary" serve --port "$port" --database "$work/bench.sqlite" --log-level error >/dev/null 2>&1 &
  server=$!
  wait_port "$port"
  curl -sf -H "Authorization: Api-Key $BENCH_KEY" "http://127.0.0.1:$port/v1/sdk/placements/p0/default" \
    -o "$work/default.json"
  kill "$server"
  wait "$server" 2>/dev/null || true
  server=""
  break
done

for _ in $(seq 1 "$rounds"); do
  for binary in "$@"; do
    port=$(free_port)
    if [ "$binary" = bare ]; then
      taskset -c 0 "$work/bare" "$port" "$work/default.json" 2 &
      server=$!
      wait_port "$port"
      url="http://127.0.0.1:$port/"
    else
      taskset -c 0 "$binary" serve --port "$port" --database "$work/bench.sqlite" --log-level error \
        --rate-limit-address off --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off \
        --rate-limit-admin off >/dev/null 2>&1 &
      server=$!
      wait_port "$port"
      wait_warm "$port" >/dev/null
      url="http://127.0.0.1:$port/v1/sdk/placements/p0/default"
    fi
    taskset -c 1 wrk -t2 -c64 -d3s -H "Authorization: Api-Key $BENCH_KEY" "$url" >/dev/null
    total=$(cpu $server total)
    user=$(cpu $server user)
    /usr/bin/time -f "%U %S" -o "$work/wrk.time" taskset -c 1 wrk -t2 -c64 -d"${duration}s" \
      -H "Authorization: Api-Key $BENCH_KEY" "$url" >"$work/wrk.out"
    total=$(($(cpu $server total) - total))
    user=$(($(cpu $server user) - user))
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=""
    awk -v name="$binary" -v ticks="$ticks" -v total="$total" -v user="$user" -v times="$(cat "$work/wrk.time")" '
      /requests in/ { requests = $1 } /Requests\/sec/ { rate = $2 }
      END { split(times, t, " "); printf "%s\t%.0f\t%.1f\t%.1f\t%.1f\n", name, rate, total / ticks * 1e6 / requests,
        user / ticks * 1e6 / requests, (t[1] + t[2]) * 1e6 / requests }' "$work/wrk.out" | tee -a "$work/runs.tsv" |
      awk -F'\t' '{ printf "%-40s %7.0f req/s  server %5.1f us (user %4.1f)  wrk %5.1f us\n", $1, $2, $3, $4, $5 }'
  done
done

echo "medians of this run's rounds:"
tail -n $((rounds * $#)) "$work/runs.tsv" | sort -t$'\t' -k1,1 | awk -F'\t' '
  function median(values, n,   sorted, i, j, swap) {
    for (i = 1; i <= n; i++) sorted[i] = values[i]
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (sorted[j] < sorted[i]) { swap = sorted[i]; sorted[i] = sorted[j]; sorted[j] = swap }
    return n % 2 ? sorted[(n + 1) / 2] : (sorted[n / 2] + sorted[n / 2 + 1]) / 2
  }
  function flush() { if (name != "") printf "%-40s %7.0f req/s  server %5.1f us (user %4.1f)\n", name, median(rates, n), median(cpus, n), median(users, n) }
  $1 != name { flush(); name = $1; n = 0 }
  { n++; rates[n] = $2; cpus[n] = $3; users[n] = $4 }
  END { flush() }'
