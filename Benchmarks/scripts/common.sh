# Helpers the benchmark scripts share (sourced, not run).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 200); do (echo > /dev/tcp/127.0.0.1/$1) 2>/dev/null && return 0; sleep 0.05; done; return 1; }
# wait_warm PORT → seconds until the server's profile cache finished reading profiles at start
wait_warm() {
  local start; start=$(date +%s.%N)
  for _ in $(seq 1 1200); do
    curl -sf "http://127.0.0.1:$1/metrics" | grep -q '^tollgate_profile_cache_warming 0' && break
    sleep 0.25
  done
  awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}
