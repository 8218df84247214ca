#!/usr/bin/env bash
# `make bench-scale`: one day of an app with 1 000 000 daily users, on this machine. PostgreSQL
# seeded by COPY with 10 000 000 profiles; four `tollgate serve` instances behind nginx (the
# documented settings: X-Forwarded-For, --trusted-proxies, default rate limits); a 1/10 sample
# of the day's requests replayed first at a fixed rate, then at rising offered rates to find
# the highest rate with p99 ≤ 50 ms, then three times at the target rate (2 000 req/s: the peak
# of an app with 10 M daily users), then as fast as answered with one load thread and with two
# (the load generator must not be the limit: its CPU is measured in every phase). PostgreSQL
# runs with the settings docs/operations.md recommends (Benchmarks/scripts/postgresql-scale.conf,
# applied by scripts/with-postgres.sh); pg_stat_statements and `perf` say where the time goes.
# Writes Benchmarks/scale.md (included in BENCHMARKS.md); SCALE_KEEP=DIR keeps the access log
# and wrk outputs there. Loopback only.
set -euo pipefail
cd "$(dirname "$0")/../.."
PROFILES=${SCALE_PROFILES:-10000000}
SAMPLE=${SCALE_SAMPLE:-10}
RATE=${SCALE_RATE:-500}
FIXED=${SCALE_FIXED_SECONDS:-120}
STEP=${SCALE_STEP_SECONDS:-30}
RATES=${SCALE_RATES:-750 1000 1500 2000}
TARGET=${SCALE_TARGET:-2000}
REPLAYS=${SCALE_REPLAYS:-3}
INSTANCES=4
CACHE=${SCALE_PROFILE_CACHE:-1000000}
DATABASE=${TOLLGATE_TEST_POSTGRES_URL:?run through scripts/with-postgres.sh}
BIN=.build/release
work=$(mktemp -d /tmp/tollgate-scale.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
started=$(date +%s)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 400); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
sql() { psql "$DATABASE" -At -c "$1"; }
# CPU ticks (user + system) of the processes named $1 (postgres, tollgate, nginx, wrk)
ticks() { local total=0; for pid in $(pgrep -x "$1"); do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$total"; }
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
rows_written() { sql "SELECT tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = current_database()"; }

echo "== building (release)"
swift build -c release --product tollgate >/dev/null
swift build -c release --product tollgate-bench >/dev/null
swift build -c release --product tollgate-dev >/dev/null

sandbox_port=$(free_port)
"$BIN/tollgate-dev" apple-ads-sandbox --port "$sandbox_port" >/dev/null &
pids+=($!)
receiver_port=$(free_port)
python3 Benchmarks/scripts/webhook_receiver.py "$receiver_port" "$work/webhooks.log" &
pids+=($!)
wait_port "$sandbox_port"; wait_port "$receiver_port"

echo "== seeding $PROFILES profiles by COPY"
seed_start=$(date +%s.%N)
seeded=$("$BIN/tollgate-bench" scale-seed --database "$DATABASE" --profiles "$PROFILES" --out "$work/data" \
  --webhook-url "http://127.0.0.1:$receiver_port/tollgate")
seed_seconds=$(elapsed "$seed_start")
echo "$seeded"
# shellcheck disable=SC1091
source "$work/data/scale.env"
profiles_bytes=$(sql "SELECT pg_total_relation_size('profiles')")
database_bytes_seeded=$(sql "SELECT pg_database_size(current_database())")

echo "== the day: a 1/$SAMPLE sample"
# One load thread: a launch's requests then go out in the day's order, and each phase starts
# where the last one stopped (with two, a thread that fell behind skipped part of its file at
# the next phase — profile creations among them, whose flows then answered 404).
"$BIN/tollgate-bench" scale-day --profiles "$PROFILES" --sample "$SAMPLE" --threads 1 --app "$BENCH_APP" \
  --out "$work/day" --storekit "$work/data/storekit"

echo "== $INSTANCES instances behind nginx"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/secrets.key"
chmod 600 "$work/secrets.key"
ports=()
servers=()
for n in $(seq 1 "$INSTANCES"); do
  port=$(free_port)
  "$BIN/tollgate" serve --port "$port" --database "$DATABASE" --apple-ads-url "http://127.0.0.1:$sandbox_port/api/v1/" \
    --app-store-root-ca "$work/data/storekit/root.pem" --trusted-proxies 127.0.0.1 --profile-cache "$CACHE" \
    --secrets-key "$work/secrets.key" --log-level error 2>>"$work/instances.log" &
  servers+=($!)
  pids+=($!)
  ports+=("$port")
done
for port in "${ports[@]}"; do wait_port "$port"; done
warm_start=$(date +%s.%N)
for port in "${ports[@]}"; do
  for _ in $(seq 1 2400); do
    curl -sf "http://127.0.0.1:$port/metrics" | grep -q '^tollgate_profile_cache_warming 0' && break
    sleep 0.25
  done
done
warm_seconds=$(elapsed "$warm_start")

mkdir -p "$work/nginx"
nginx_port=$(free_port)
{
  echo "worker_processes 2; daemon off; pid $work/nginx/nginx.pid; error_log $work/nginx/error.log;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  # wrk stands for many devices from one address: the simulated device's address arrives in
  # X-Forwarded-For and nginx takes it as the client's (as if each device connected itself);
  # the proxy settings below are the documented ones.
  echo "  set_real_ip_from 127.0.0.1; real_ip_header X-Forwarded-For;"
  echo "  log_format scale '\$http_x_bench_route\t\$status\t\$request_time\t\$upstream_addr\t\$request_method \$request_uri';"
  echo "  access_log $work/nginx/access.log scale buffer=256k flush=1s;"
  for temp in client_body proxy fastcgi uwsgi scgi; do echo "  ${temp}_temp_path $work/nginx/$temp;"; done
  echo "  upstream tollgate {"
  for port in "${ports[@]}"; do echo "    server 127.0.0.1:$port;"; done
  echo "    keepalive 64;"
  echo "  }"
  echo "  server {"
  echo "    listen 127.0.0.1:$nginx_port;"
  echo "    client_max_body_size 65m;"
  echo "    location / {"
  echo "      proxy_pass http://tollgate;"
  echo "      proxy_http_version 1.1;"
  echo "      proxy_set_header Connection \"\";"
  echo "      proxy_set_header Host \$host;"
  echo "      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;"
  echo "      proxy_read_timeout 60s;"
  echo "    }"
  echo "  }"
  echo "}"
} > "$work/nginx/nginx.conf"
nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
pids+=($!)
wait_port "$nginx_port"
fleet="http://127.0.0.1:$nginx_port"

echo "== configuration with the webhook, through the first instance; how long until every other one serves it"
staleness=$(python3 Benchmarks/scripts/propagation.py "$BENCH_ADMIN_KEY" "$BENCH_KEY" "$work/data/config.json" "${ports[@]}")
echo "configuration change reached every instance: $staleness"

# phase NAME CONNECTIONS DURATION RATE [THREADS] → runs wrk (RATE requests a second on the
# clock's schedule, 0: as fast as answered), appends "name connections rate lines_from lines_to
# rows pg instances nginx machine seconds client_p99 threads wrk_cpu" to phases. With two threads
# each replays the devices of its half of the day (split by address, so that a launch's requests
# stay in order on one thread), each from where the day's replay so far has reached in its half.
offset=0
: > "$work/phases"
mkdir -p "$work/day2"
half() { awk -F'\t' -v out="$1" '{ split($5, octet, "."); print > (out "/day-" (octet[3] % 2 + 1) ".tsv") }'; }
half "$work/day2" < "$work/day/day-1.tsv"
phase() {
  local name=$1 connections=$2 duration=$3 rate=$4 threads=${5:-1}
  sleep 1.2 # the access log flushes every second: a phase's lines start after the previous ones
  local from; from=$(wc -l < "$work/nginx/access.log")
  local rows0 pg0 ts0 ng0 all0 day=$work/day starts=$offset
  if [ "$threads" -gt 1 ]; then
    day=$work/day2
    rm -rf "$work/replayed" && mkdir -p "$work/replayed"
    head -n "$offset" "$work/day/day-1.tsv" | half "$work/replayed"
    starts=$(for n in 1 2; do cat "$work/replayed/day-$n.tsv" 2>/dev/null | wc -l; done | paste -sd,)
  fi
  rows0=$(rows_written); pg0=$(ticks postgres); ts0=$(ticks tollgate); ng0=$(ticks nginx); all0=$(machine_ticks)
  BENCH_DAY="$day" BENCH_KEY=$BENCH_KEY BENCH_OFFSETS=$starts BENCH_RATE=$rate BENCH_THREADS=$threads \
    /usr/bin/time -o "$work/$name.time" -f "%U %S" \
    wrk -t"$threads" -c"$connections" -d"${duration}s" --latency -s Benchmarks/scripts/day.lua "$fleet" \
    > "$work/$name.wrk" 2>&1
  local rows1 pg1 ts1 ng1 all1
  rows1=$(rows_written); pg1=$(ticks postgres); ts1=$(ticks tollgate); ng1=$(ticks nginx); all1=$(machine_ticks)
  sleep 1.2
  local to; to=$(wc -l < "$work/nginx/access.log")
  local total; total=$(awk '/requests in/ { print $1 }' "$work/$name.wrk")
  offset=$((offset + total))
  local client_p99; client_p99=$(awk '$1 == "99%" { print $2 }' "$work/$name.wrk" | awk '{ v=$1; if (v ~ /us$/) { sub(/us$/,"",v); v=v/1000 } else if (v ~ /ms$/) { sub(/ms$/,"",v) } else if (v ~ /s$/) { sub(/s$/,"",v); v=v*1000 }; printf "%.1f", v }')
  # The load generator's own CPU (user + system seconds), to show it was not the limit.
  local wrk_cpu; wrk_cpu=$(awk '{ print $1 + $2 }' "$work/$name.time")
  echo "$name $connections $rate $from $to $((rows1 - rows0)) $((pg1 - pg0)) $((ts1 - ts0)) $((ng1 - ng0)) $((all1 - all0)) $duration $client_p99 $threads $wrk_cpu" >> "$work/phases"
  awk -v n="$name" -v c="$wrk_cpu" -v d="$duration" '/Requests\/sec/ { r = $2 } $1 == "99%" { p = $2 }
    END { printf "  %s: %s req/s, p99 %s, wrk %.0f %% of a core\n", n, r, p, 100 * c / d }' "$work/$name.wrk"
}

impressions0=$(sql "SELECT count(*) FROM events")
# Statement times from here on: the replay's, not the load's.
# (Without the settings file pg_stat_statements is not loaded: the report then says so.)
sql "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null 2>&1 || true
sql "SELECT pg_stat_statements_reset()" >/dev/null 2>&1 || true
echo "== fixed rate: $RATE req/s for $FIXED s (64 connections)"
phase fixed 64 "$FIXED" "$RATE"
# Offered rates (sent on the clock's schedule, up to 64 requests in flight): p99 as the load
# generator sees it decides which rates hold.
for rate in $RATES; do
  echo "== offered $rate req/s for $STEP s (64 connections)"
  phase "r$rate" 64 "$STEP" "$rate"
done
# The target rate again, three times in a row (each a later stretch of the day); `perf` samples
# every process on the machine during the second.
for n in $(seq 1 "$REPLAYS"); do
  echo "== replay $n of $REPLAYS at the target, $TARGET req/s for $STEP s (64 connections)"
  if [ "$n" = 2 ]; then
    perf record -a -g -F 99 -o "$work/perf.data" -- sleep $((STEP - 5)) >/dev/null 2>&1 &
    perf_pid=$!
  fi
  phase "s$TARGET-$n" 64 "$STEP" "$TARGET"
done
wait "${perf_pid:-0}" 2>/dev/null || true
echo "== as fast as answered: 64 connections, no pause, $STEP s (one load thread, then two)"
phase "max" 64 "$STEP" 0
phase "max2" 64 "$STEP" 0 2

echo "== webhook deliveries: waiting for the outbox to drain"
for _ in $(seq 1 120); do
  pending=$(sql "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'" 2>/dev/null || echo 0)
  [ "$pending" = "0" ] && break
  sleep 1
done
deliveries=$(wc -l < "$work/webhooks.log")
rss=""
for pid in "${servers[@]}"; do
  rss="$rss $(awk '/VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")/$(awk '/VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")"
done
events_rows=$(sql "SELECT count(*) FROM events")
events_bytes=$(sql "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c WHERE c.relkind = 'r' AND (c.relname LIKE 'events%' OR c.relname = 'event_ids')")
database_bytes=$(sql "SELECT pg_database_size(current_database())")
errors=$(grep -c . "$work/instances.log" || true)

# Where PostgreSQL's time went during the phases, and where every process's CPU went during the
# second replay at the target.
psql "$DATABASE" -At -F $'\t' -c "SELECT round(total_exec_time::numeric, 0), calls,
       round(mean_exec_time::numeric, 3), round((100 * total_exec_time / sum(total_exec_time) OVER ())::numeric, 1),
       left(regexp_replace(query, '\\s+', ' ', 'g'), 140)
     FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12" > "$work/statements.tsv" 2>/dev/null \
  || : > "$work/statements.tsv"
: > "$work/perf.txt"
if [ -s "$work/perf.data" ]; then
  perf report -i "$work/perf.data" --stdio --no-children --sort comm,dso --percent-limit 1.5 2>/dev/null \
    | grep -E '^ +[0-9.]+%' | head -20 > "$work/perf.txt" || true
  perf report -i "$work/perf.data" --stdio --no-children --comms MHD-worker,tollgate --sort sym --percent-limit 0.5 2>/dev/null \
    | grep -E '^ +[0-9.]+%' | head -15 > "$work/perf-tollgate.txt" || true
  perf report -i "$work/perf.data" --stdio --no-children --comms postgres --sort sym --percent-limit 0.5 2>/dev/null \
    | grep -E '^ +[0-9.]+%' | head -15 > "$work/perf-postgres.txt" || true
fi

python3 Benchmarks/scripts/scale_report.py \
  --phases "$work/phases" --log "$work/nginx/access.log" --mix "$work/day/mix.env" --out Benchmarks/scale.md \
  --statements "$work/statements.tsv" --perf "$work/perf.txt" --perf-tollgate "$work/perf-tollgate.txt" \
  --perf-postgres "$work/perf-postgres.txt" --postgres-conf "${TOLLGATE_POSTGRES_CONF:-}" \
  --set profiles="$PROFILES" seed_seconds="$seed_seconds" seeded="$seeded" warm_seconds="$warm_seconds" \
  cache="$CACHE" rate="$RATE" profiles_bytes="$profiles_bytes" database_bytes_seeded="$database_bytes_seeded" \
  database_bytes="$database_bytes" events_rows="$events_rows" events_before="$impressions0" events_bytes="$events_bytes" \
  deliveries="$deliveries" rss="$rss" staleness="$staleness" instance_log_lines="$errors" cores="$(nproc)" \
  commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" total_seconds="$(( $(date +%s) - started ))" \
  target="$TARGET"
if [ -n "${SCALE_KEEP:-}" ]; then
  mkdir -p "$SCALE_KEEP"
  cp "$work/nginx/access.log" "$work/phases" "$work"/*.wrk "$work/day/mix.env" "$work/instances.log" \
    "$work/statements.tsv" "$work"/perf*.txt "$SCALE_KEEP/"
fi
cat Benchmarks/scale.md
