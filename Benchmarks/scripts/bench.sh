#!/usr/bin/env bash
# `make bench`: measures the server against nginx and a bare libmicrohttpd responder serving
# the same bytes, attribution ingestion, SQLite and PostgreSQL, and the SDK's first launch;
# prints the figures and writes BENCHMARKS.md. Loopback only; every load loop is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${BENCH_DURATION:-10s}
CONNECTIONS=64
PROFILES=${BENCH_PROFILES:-100000}
ATTRIBUTION_BURST=${BENCH_ATTRIBUTION_BURST:-3s}
# Returning profiles: this many have every placement assigned before they are replayed.
RETURNING=${BENCH_RETURNING:-10000}
BIN=.build/release
# One load generator on one address is the whole point here: the per-client limits are off
# (their cost, a sharded token-bucket lookup, is not).
NO_LIMITS="--rate-limit-address off --rate-limit-tokens-per-key off --rate-limit-tokens-per-profile off --rate-limit-admin off"
work=$(mktemp -d /tmp/tollgate-bench.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# shellcheck source=common.sh
source Benchmarks/scripts/common.sh
to_ms() { awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v=v/1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v=v*1000 }; printf "%.2f", v }'; }
# wrk_run NAME ARGS… → "req/s p50 p99" on stdout (the full output is kept in $work)
wrk_run() {
  local name=$1; shift
  wrk -t2 -c$CONNECTIONS -d"$DURATION" --latency "$@" > "$work/$name.wrk" 2>&1
  local rps p50 p99 errors
  rps=$(awk '/Requests\/sec/ { printf "%d", $2 }' "$work/$name.wrk")
  p50=$(awk '$1 == "50%" { print $2 }' "$work/$name.wrk" | to_ms)
  p99=$(awk '$1 == "99%" { print $2 }' "$work/$name.wrk" | to_ms)
  errors=$(awk '/Non-2xx|Socket errors/ { print }' "$work/$name.wrk" | tr '\n' ' ')
  [ -n "$errors" ] && echo "  $name: $errors" >&2
  echo "$rps $p50 $p99"
}
# attribution_counts PORT → "queued applied": Apple Ads tokens the server has committed to its
# queue and tokens its worker has applied, since it started
attribution_counts() {
  curl -sf "http://127.0.0.1:$1/metrics" | awk '
    /^tollgate_attribution_intake_tokens_total / { q=$2 }
    /^tollgate_attribution_outcomes_total\{outcome="applied"\}/ { a=$2 }
    END { print q + 0, a + 0 }'
}
# attribution_run NAME PORT IDS → "tokens=… accepted_per_s=… p50=… p99=… applied_per_s=… lost=…".
# A burst of $ATTRIBUTION_BURST from wrk at $CONNECTIONS connections, as for the other routes: the
# SDK's client (`tollgate-bench attribution`, URLSession, 32 at a time) sent tokens no faster than
# about 600/s while the server took 1 000–2 000/s from wrk at the same latency. A burst: the queue
# holds 10 000 tokens and the worker applies a few hundred a second, so a longer run measures the
# queue's limit (503 attribution_queue_full beyond it, by design). Accepted: answered 202 (queued and
# committed) within wrk's run. Queued: what the server committed, with the requests wrk left in
# flight at its end; lost: queued tokens the worker had not applied 180 s later.
attribution_run() {
  local name=$1 port=$2 ids=$3 queued0 applied0 start figures total refused elapsed_ms queued applied now
  read -r queued0 applied0 <<<"$(attribution_counts "$port")"
  start=$(date +%s.%N)
  figures=$(DURATION=$ATTRIBUTION_BURST BENCH_IDS="$ids" wrk_run "$name" -s Benchmarks/scripts/attribution.lua "http://127.0.0.1:$port")
  total=$(awk '/requests in/ { print $1 }' "$work/$name.wrk")
  refused=$(awk '/Non-2xx/ { print $NF }' "$work/$name.wrk")
  elapsed_ms=$(awk '/requests in/ { v=$4; sub(/,$/,"",v); print v }' "$work/$name.wrk" | to_ms)
  sleep 1 # the requests in flight when wrk stopped are answered
  for _ in $(seq 1 1800); do
    read -r queued applied <<<"$(attribution_counts "$port")"
    [ $((applied - applied0)) -ge $((queued - queued0)) ] && break
    sleep 0.1
  done
  now=$(date +%s.%N)
  read -r _ p50 p99 <<<"$figures"
  awk -v total="$total" -v accepted="$((total - ${refused:-0}))" -v ms="$elapsed_ms" -v queued="$((queued - queued0))" \
    -v applied="$((applied - applied0))" -v a="$start" -v b="$now" -v p50="$p50" -v p99="$p99" 'BEGIN {
      printf "tokens=%d accepted=%d accepted_per_s=%d p50=%sms p99=%sms queued=%d applied=%d applied_per_s=%d lost=%d\n",
        total, accepted, accepted / (ms / 1000), p50, p99, queued, applied, applied / (b - a), queued - applied }'
}
peak_rss_mb() { awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
# cache_bytes PORT → "bytes-per-profile entries overflowed" as the cache counts its own allocations
cache_bytes() {
  curl -sf "http://127.0.0.1:$1/metrics" | awk '/^tollgate_profile_cache_bytes / { b=$2 } /^tollgate_profile_cache_entries / { e=$2 } /^tollgate_profile_cache_overflowed / { o=$2 } END { if (e > 0) printf "%.1f %d %d", b / e, e, o; else print "n/a 0 0" }'
}

echo "== building (release)"
swift build -c release --product tollgate >/dev/null
swift build -c release --product tollgate-bench >/dev/null
swift build -c release --product tollgate-dev >/dev/null
cc -O2 -o "$BIN/bare-responder" Benchmarks/bare_responder.c -lmicrohttpd

sandbox_port=$(free_port)
"$BIN/tollgate-dev" apple-ads-sandbox --port "$sandbox_port" >/dev/null &
pids+=($!)
wait_port "$sandbox_port"
apple_url="http://127.0.0.1:$sandbox_port/api/v1/"

# serve_and_measure LABEL DATABASE → fills results for one store
declare -A R
serve_and_measure() {
  local label=$1 database=$2 out="$work/$1"
  mkdir -p "$out"
  echo "== $label: seeding $PROFILES profiles"
  local seed_start=$(date +%s.%N)
  "$BIN/tollgate-bench" seed --database "$database" --profiles "$PROFILES" --out "$out" >/dev/null
  R[$label.seed]=$(awk -v a="$seed_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  # shellcheck disable=SC1091
  source "$out/keys.env"
  local port; port=$(free_port)
  "$BIN/tollgate" serve --port "$port" --database "$database" --apple-ads-url "$apple_url" --log-level error $NO_LIMITS &
  local server=$!
  pids+=($server)
  wait_port "$port"
  R[$label.warm]=$(wait_warm "$port")
  curl -sf -H "Authorization: Api-Key $BENCH_KEY" "http://127.0.0.1:$port/v1/sdk/placements/p0/default" > "$out/default.json"
  echo "== $label: placement resolution, first exposures (each request writes an assignment)"
  R[$label.first]=$(BENCH_MODE=first BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY wrk_run "$label-first" -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port")
  echo "== $label: placement resolution, returning profiles ($RETURNING profiles × 10 placements assigned first)"
  BENCH_MODE=warm BENCH_RETURNING=$RETURNING BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY \
    wrk -t2 -c16 -d5s -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port" > "$work/$label-warm.wrk" 2>&1
  R[$label.returning]=$(BENCH_MODE=returning BENCH_RETURNING=$RETURNING BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY wrk_run "$label-returning" -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port")
  echo "== $label: placement resolution (random profiles, 10 placements: both kinds mixed)"
  R[$label.flow]=$(BENCH_IDS="$out/ids.txt" BENCH_KEY=$BENCH_KEY wrk_run "$label-flow" -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port")
  echo "== $label: default audience"
  R[$label.default]=$(wrk_run "$label-default" -H "Authorization: Api-Key $BENCH_KEY" "http://127.0.0.1:$port/v1/sdk/placements/p0/default")
  echo "== $label: profile creation (a new install each request)"
  R[$label.create]=$(BENCH_KEY=$BENCH_KEY wrk_run "$label-create" -s Benchmarks/scripts/create.lua "http://127.0.0.1:$port")
  echo "== $label: attribution ingestion (a token for each of the seeded profiles without one, until every one is applied)"
  R[$label.attribution]=$(BENCH_KEY=$BENCH_KEY attribution_run "$label-attribution" "$port" "$out/unattributed.txt")
  R[$label.rss]=$(peak_rss_mb "$server")
  R[$label.cache]=$(cache_bytes "$port")
  kill "$server"; wait "$server" 2>/dev/null || true
  DEFAULT_BYTES="$out/default.json"
}

serve_and_measure sqlite "$work/sqlite/bench.sqlite"
if [ -n "${TOLLGATE_TEST_POSTGRES_URL:-}" ]; then
  serve_and_measure postgres "$TOLLGATE_TEST_POSTGRES_URL"
fi

# flow_on LABEL PROFILES [SEED ARGS…] -- [SERVE ARGS…]: seeds a SQLite file, serves it, measures
# placement resolution; fills R[LABEL.seed|warm|flow|rss|hits|cache].
flow_on() {
  local label=$1 profiles=$2 seed_args=() serve_args=()
  shift 2
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do seed_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  serve_args=("$@")
  echo "== sqlite, $label: seeding $profiles profiles"
  mkdir -p "$work/$label"
  local start; start=$(date +%s.%N)
  "$BIN/tollgate-bench" seed --database "$work/$label/bench.sqlite" --profiles "$profiles" --out "$work/$label" "${seed_args[@]}" >/dev/null
  R[$label.seed]=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  # shellcheck disable=SC1091
  source "$work/$label/keys.env"
  local port; port=$(free_port)
  "$BIN/tollgate" serve --port "$port" --database "$work/$label/bench.sqlite" --log-level error $NO_LIMITS "${serve_args[@]}" &
  local server=$!
  pids+=($server)
  wait_port "$port"
  R[$label.warm]=$(wait_warm "$port")
  echo "== sqlite, $label: placement resolution"
  R[$label.flow]=$(BENCH_IDS="$work/$label/ids.txt" BENCH_KEY=$BENCH_KEY wrk_run "$label-flow" -s Benchmarks/scripts/flow.lua "http://127.0.0.1:$port")
  R[$label.rss]=$(peak_rss_mb "$server")
  R[$label.hits]=$(curl -sf "http://127.0.0.1:$port/metrics" | awk '/^tollgate_profile_cache_hits_total/ { h=$2 } /^tollgate_profile_cache_misses_total/ { m=$2 } END { if (h + m > 0) printf "%.0f", 100 * h / (h + m); else print "n/a" }')
  R[$label.cache]=$(cache_bytes "$port")
  kill "$server"; wait "$server" 2>/dev/null || true
}

# Ten times the profiles, every one of them in the cache (`--profile-cache` as large): the
# compact targeting view is what makes that fit; the rate should hold.
LARGE=${BENCH_LARGE_PROFILES:-1000000}
flow_on large "$LARGE" -- --profile-cache "$LARGE"

# The same placements with a first audience reading a saved list of 1 000 000 customer user
# ids (`$inGroup`; half the profiles are in it): membership is a hash lookup, so the rate holds.
LIST=${BENCH_LIST_ENTRIES:-1000000}
flow_on list "$PROFILES" --list-entries "$LIST"

echo "== nginx: the same default-audience bytes as a static file"
mkdir -p "$work/static" "$work/nginx"; chmod 755 "$work/static" "$work/nginx"
cp "$work/sqlite/default.json" "$work/static/default.json"; chmod 644 "$work/static/default.json"
nginx_port=$(free_port)
cat > "$work/nginx/nginx.conf" <<CONF
worker_processes 2;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server {
    listen 127.0.0.1:$nginx_port;
    location / { root $work/static; default_type application/json; }
  }
}
CONF
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
wait_port "$nginx_port"
R[nginx]=$(wrk_run nginx "http://127.0.0.1:$nginx_port/default.json")

echo "== bare libmicrohttpd responder: the same bytes"
bare_port=$(free_port)
threads=$(( $(nproc) > 2 ? $(nproc) : 2 ))
"$BIN/bare-responder" "$bare_port" "$work/static/default.json" "$threads" &
pids+=($!)
wait_port "$bare_port"
R[bare]=$(wrk_run bare "http://127.0.0.1:$bare_port/")

echo "== stats report over the rollups (SQLite: 1 000 000 impressions, 50 000 purchases)"
R[stats.sqlite]=$("$BIN/tollgate-bench" stats --database "$work/stats.sqlite" --impressions 1000000 --purchases 50000)
if [ -n "${TOLLGATE_TEST_POSTGRES_URL:-}" ]; then
  echo "== stats report over the rollups (PostgreSQL: 100 000 impressions, 5 000 purchases)"
  R[stats.postgres]=$("$BIN/tollgate-bench" stats --database "$TOLLGATE_TEST_POSTGRES_URL" --impressions 100000 --purchases 5000)
fi

# One recorder, then two at once (each its own subscriptions), as a server's concurrent purchases.
echo "== transactions through the live path (SQLite: 5 000 subscriptions over two years, every rollup updated as they arrive)"
R[subscriptions.sqlite]=$("$BIN/tollgate-bench" subscriptions --database "$work/subscriptions.sqlite" --subscriptions 5000)
R[subscriptions2.sqlite]=$("$BIN/tollgate-bench" subscriptions --database "$work/subscriptions2.sqlite" --subscriptions 5000 --streams 2)
if [ -n "${TOLLGATE_TEST_POSTGRES_URL:-}" ]; then
  echo "== transactions through the live path (PostgreSQL: 2 000 subscriptions)"
  R[subscriptions.postgres]=$("$BIN/tollgate-bench" subscriptions --database "$TOLLGATE_TEST_POSTGRES_URL" --subscriptions 2000)
  R[subscriptions2.postgres]=$("$BIN/tollgate-bench" subscriptions --database "$TOLLGATE_TEST_POSTGRES_URL" --subscriptions 2000 --streams 2)
fi

IMPORT_PROFILES=${BENCH_IMPORT_PROFILES:-1000000}
IMPORT_HISTORIES=${BENCH_IMPORT_HISTORIES:-200000}
echo "== moving an app onto Tollgate (SQLite: $IMPORT_PROFILES profiles, $IMPORT_HISTORIES histories from a stand-in of Apple)"
R[import.sqlite]=$("$BIN/tollgate-bench" import --database "$work/import.sqlite" --profiles "$IMPORT_PROFILES" --histories "$IMPORT_HISTORIES")
rm -f "$work/import.sqlite"*
if [ -n "${TOLLGATE_TEST_POSTGRES_URL:-}" ]; then
  echo "== moving an app onto Tollgate (PostgreSQL: the same sizes)"
  R[import.postgres]=$("$BIN/tollgate-bench" import --database "$TOLLGATE_TEST_POSTGRES_URL" --profiles "$IMPORT_PROFILES" --histories "$IMPORT_HISTORIES")
fi

ANALYTICS_PROFILES=${BENCH_ANALYTICS_PROFILES:-1000000}
ANALYTICS_SUBSCRIPTIONS=${BENCH_ANALYTICS_SUBSCRIPTIONS:-100000}
echo "== revenue reports at scale (SQLite: $ANALYTICS_PROFILES profiles, $ANALYTICS_SUBSCRIPTIONS subscriptions, two years)"
R[analytics.sqlite]=$("$BIN/tollgate-bench" analytics --database "$work/analytics.sqlite" --profiles "$ANALYTICS_PROFILES" --subscriptions "$ANALYTICS_SUBSCRIPTIONS")
rm -f "$work/analytics.sqlite"*
if [ -n "${TOLLGATE_TEST_POSTGRES_URL:-}" ]; then
  echo "== revenue reports at scale (PostgreSQL: the same data set)"
  R[analytics.postgres]=$("$BIN/tollgate-bench" analytics --database "$TOLLGATE_TEST_POSTGRES_URL" --profiles "$ANALYTICS_PROFILES" --subscriptions "$ANALYTICS_SUBSCRIPTIONS")
fi

echo "== revenue model: Monte Carlo step"
R[montecarlo]=$("$BIN/tollgate-bench" montecarlo)

echo "== SDK first launch (in-process server and stand-in)"
sdk_table=$("$BIN/tollgate-bench" sdk --config examples/sample-config.json)

# ---- report
rps() { echo "$1" | awk '{ print $1 }'; }
p50() { echo "$1" | awk '{ print $2 }'; }
p99() { echo "$1" | awk '{ print $3 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f×", a / b; else print "n/a" }'; }
row() { echo "| $1 | $(rps "$2") | $(p50 "$2") ms | $(p99 "$2") ms |"; }
{
  echo "# Benchmarks"
  echo
  echo "Generated by \`make bench\` on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Machine: $(nproc) cores ($(awk -F: '/model name/ { print $2; exit }' /proc/cpuinfo | sed 's/^ //')), $(awk '/MemTotal/ { printf "%.0f GiB", $2/1048576 }' /proc/meminfo), $(uname -sr)."
  echo "Load: \`wrk -t2 -c$CONNECTIONS -d$DURATION --latency\` on loopback, sharing the cores with the server: read ratios, not absolutes."
  echo "Data: $PROFILES profiles, 10 placements × 5 audiences (Apple Ads campaign, country, app version, custom attributes) with 50/50 A/B tests. Placement resolution is measured three ways (\`Benchmarks/scripts/flow.lua\`): returning profiles read an assignment already stored (most of an app's traffic), first exposures bucket the profile and write one, and the mixed run picks a random profile and placement per request as earlier reports did."
  echo
  echo "## HTTP"
  echo
  echo "| what | req/s | p50 | p99 |"
  echo "|---|---|---|---|"
  row "placement resolution, SQLite, returning profiles (assignments stored)" "${R[sqlite.returning]}"
  row "placement resolution, SQLite, first exposures (each writes an assignment)" "${R[sqlite.first]}"
  row "placement resolution, SQLite, both mixed (\`/flow?profile_id=…\`)" "${R[sqlite.flow]}"
  row "default audience, SQLite (\`/default\`)" "${R[sqlite.default]}"
  if [ -n "${R[postgres.flow]:-}" ]; then
    row "placement resolution, PostgreSQL, returning profiles" "${R[postgres.returning]}"
    row "placement resolution, PostgreSQL, first exposures" "${R[postgres.first]}"
    row "placement resolution, PostgreSQL, both mixed" "${R[postgres.flow]}"
    row "default audience, PostgreSQL" "${R[postgres.default]}"
  fi
  row "profile creation, SQLite (\`POST /v1/sdk/profiles\`, a new id each request)" "${R[sqlite.create]}"
  if [ -n "${R[postgres.create]:-}" ]; then
    row "profile creation, PostgreSQL" "${R[postgres.create]}"
  fi
  row "placement resolution, SQLite, $LARGE profiles (all cached)" "${R[large.flow]}"
  row "placement resolution, SQLite, a $LIST-value saved list in every first rule (\`\$inGroup\`)" "${R[list.flow]}"
  row "nginx static file, same bytes (2 workers, access log off)" "${R[nginx]}"
  row "bare libmicrohttpd responder, same bytes and headers" "${R[bare]}"
  echo
  echo "| ratio | value | target |"
  echo "|---|---|---|"
  echo "| placement resolution / nginx | $(ratio "$(rps "${R[sqlite.flow]}")" "$(rps "${R[nginx]}")") | ≥ 1.0× |"
  echo "| default audience / nginx | $(ratio "$(rps "${R[sqlite.default]}")" "$(rps "${R[nginx]}")") | |"
  echo "| placement resolution / bare responder | $(ratio "$(rps "${R[sqlite.flow]}")" "$(rps "${R[bare]}")") | |"
  echo "| default audience / bare responder | $(ratio "$(rps "${R[sqlite.default]}")" "$(rps "${R[bare]}")") | ≥ 0.8× |"
  if [ -n "${R[postgres.flow]:-}" ]; then
    echo "| placement resolution, PostgreSQL / nginx | $(ratio "$(rps "${R[postgres.flow]}")" "$(rps "${R[nginx]}")") | ≥ 1.0× |"
    echo "| default audience, PostgreSQL / bare responder | $(ratio "$(rps "${R[postgres.default]}")" "$(rps "${R[bare]}")") | ≥ 0.8× |"
  fi
  echo "| placement resolution, $LARGE profiles / $PROFILES profiles (SQLite) | $(ratio "$(rps "${R[large.flow]}")" "$(rps "${R[sqlite.flow]}")") | ≥ 0.8× |"
  echo "| placement resolution with a $LIST-value saved list / without (SQLite) | $(ratio "$(rps "${R[list.flow]}")" "$(rps "${R[sqlite.flow]}")") | no slowdown |"
  echo "| returning profiles / default audience (SQLite) | $(ratio "$(rps "${R[sqlite.returning]}")" "$(rps "${R[sqlite.default]}")") | ≥ 0.8× |"
  echo "| placement resolution p99, returning profiles, SQLite / PostgreSQL (64 connections) | $(p99 "${R[sqlite.returning]}") ms${R[postgres.returning]:+ / $(p99 "${R[postgres.returning]}") ms} | ≤ 5 ms |"
  echo
  echo "Server peak RSS (VmHWM) through the run: SQLite ${R[sqlite.rss]} MB${R[postgres.rss]:+, PostgreSQL ${R[postgres.rss]} MB} with $PROFILES profiles cached (target ≤ 150 MB); SQLite with all $LARGE profiles cached ${R[large.rss]} MB (target ≤ 250 MB)."
  echo "Profile cache, as it counts its own allocations (\`tollgate_profile_cache_bytes\` ÷ entries; bytes per profile, entries, profiles whose data did not fit inline): SQLite ${R[sqlite.cache]}${R[postgres.cache]:+; PostgreSQL ${R[postgres.cache]}}; $LARGE profiles ${R[large.cache]}."
  echo "Saved list of $LIST values: server peak RSS ${R[list.rss]} MB (the list indexed in memory beside $PROFILES cached profiles; read and indexed with the configuration during start-up, which took ${R[list.warm]} s with the $PROFILES profiles; ${R[sqlite.warm]} s without the list)."
  echo "Seeding $PROFILES profiles: SQLite ${R[sqlite.seed]} s${R[postgres.seed]:+, PostgreSQL ${R[postgres.seed]} s}; $LARGE profiles: SQLite ${R[large.seed]} s."
  echo "Profile cache warm-up at start (measured before the load; the server answers meanwhile): SQLite ${R[sqlite.warm]} s${R[postgres.warm]:+, PostgreSQL ${R[postgres.warm]} s}, $LARGE profiles ${R[large.warm]} s. Cache hit rate with $LARGE profiles: ${R[large.hits]} %."
  echo
  echo "## Attribution ingestion (Apple Ads stand-in answering at once; wrk, $CONNECTIONS connections, one token per profile)"
  echo
  echo "- SQLite: ${R[sqlite.attribution]}"
  [ -n "${R[postgres.attribution]:-}" ] && echo "- PostgreSQL: ${R[postgres.attribution]}"
  echo
  echo "## Stats report (\`GET /v1/admin/stats/placements/{id}\`: rollup query, report with credible intervals and probability to be best, JSON; target ≤ 100 ms)"
  echo
  echo "- SQLite: ${R[stats.sqlite]}"
  [ -n "${R[stats.postgres]:-}" ] && echo "- PostgreSQL: ${R[stats.postgres]} (seeding a million events one statement at a time over the wire takes too long for this run; the query reads rollups whose size does not grow with events)"
  echo
  echo "## Revenue reports at scale (subscription series, cohort table, experiment report; target ≤ 100 ms at p99)"
  echo
  echo "Raw rows loaded many a statement (the same data set on both engines), every rollup derived by the rebuild (\`tollgate rollups rebuild\`'s code; the tests hold it equal to the live rollups). Each figure: rollup query + report + JSON."
  echo
  echo "SQLite:"
  echo '```text'
  echo "${R[analytics.sqlite]}"
  echo '```'
  if [ -n "${R[analytics.postgres]:-}" ]; then
    echo "PostgreSQL:"
    echo '```text'
    echo "${R[analytics.postgres]}"
    echo '```'
  fi
  echo
  echo "## Transactions through the live path (every rollup updated as each batch of 1 000 arrives)"
  echo
  echo "- SQLite: ${R[subscriptions.sqlite]}"
  echo "- SQLite: ${R[subscriptions2.sqlite]}"
  [ -n "${R[subscriptions.postgres]:-}" ] && echo "- PostgreSQL: ${R[subscriptions.postgres]}"
  [ -n "${R[subscriptions2.postgres]:-}" ] && echo "- PostgreSQL: ${R[subscriptions2.postgres]}"
  echo
  echo "## Moving an app onto Tollgate (targets: ≥ 20 000 profiles/s, ≥ 2 000 transactions/s)"
  echo
  echo "- SQLite: ${R[import.sqlite]}"
  [ -n "${R[import.postgres]:-}" ] && echo "- PostgreSQL: ${R[import.postgres]}"
  echo
  echo "## Revenue model (experiment decision on revenue per viewer; target ≤ 50 ms for 4 variations)"
  echo
  echo "- ${R[montecarlo]}"
  echo
  echo "## SDK first launch (5 s timeout)"
  echo
  echo "Ideal: attribution delay + one loopback round trip, or the timeout when attribution never comes."
  echo "SDK requests: the paywall-path requests the server answered for that launch (profile creation carrying the token, default flow, segmented flow; a long poll only when no race holds a waiting request). Event batches (analytics, sent in the background) are not counted."
  echo
  echo "$sdk_table"
  # `make bench-scale` (a separate, longer run) writes its section; it is carried along here.
  if [ -f Benchmarks/scale.md ]; then
    echo
    cat Benchmarks/scale.md
  fi
  if [ -f Benchmarks/analysis.md ]; then
    echo
    cat Benchmarks/analysis.md
  fi
} > BENCHMARKS.md
cat BENCHMARKS.md
