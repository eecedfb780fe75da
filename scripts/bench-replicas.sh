#!/usr/bin/env bash
# Two `rics serve` replicas on one PostgreSQL database behind haproxy (make test-long).
# Both replicas start together on a fresh database (one migrates under the advisory lock,
# one bootstraps the admin client), each on its own port with its own metrics listener
# and haproxy's address as their public URL (the issuer of the tokens both accept);
# haproxy balances every request round robin between them. scripts/bench_replicas.py then
# checks what the replicas must share (tokens, reads after writes, page tokens signed by
# one and used on the other, etags) and runs a mixed load through haproxy, failing on any
# answer that is not 2xx and unless both replicas served. BENCH_PROFILE=release uses the
# release build (default: the debug build `make test` makes); BENCH_DURATION (seconds,
# default 30) and BENCH_THREADS (default 8) size the load. docs/benchmarks.md records the
# figures with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${BENCH_PROFILE:-debug}"
duration="${BENCH_DURATION:-30}"
threads="${BENCH_THREADS:-8}"
base_port="${BENCH_PORT:-18190}"
proxy_port="$base_port" stats_port=$((base_port + 1))
ports=($((base_port + 2)) $((base_port + 3)))
metrics=($((base_port + 4)) $((base_port + 5)))
work="target/bench/replicas"
mkdir -p "$work"

if ! command -v haproxy >/dev/null 2>&1; then
  echo "bench-replicas: needs haproxy (Debian/Ubuntu: apt-get install haproxy)" >&2; exit 1
fi
if [ "$profile" = release ]; then cargo build -q --release -p rics; else cargo build -q -p rics; fi
binary="target/$profile/rics"

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_replicas" -c "CREATE DATABASE rics_bench_replicas" >/dev/null
secret_key="$(head -c 32 /dev/urandom | base64)"

pids=()
stop() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap stop EXIT
for i in 0 1; do
  name="$(printf '%s' ab | cut -c $((i + 1)))"
  RICS_DATABASE_URL="${pg%/*}/rics_bench_replicas" RICS_MIGRATE_ON_START=true \
    RICS_BIND_ADDRESS="127.0.0.1:${ports[$i]}" RICS_METRICS_ADDRESS="127.0.0.1:${metrics[$i]}" \
    RICS_PUBLIC_URL="http://127.0.0.1:$proxy_port" \
    RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
    RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
    RICS_SECRET_KEY="$secret_key" RICS_LOG=warn \
    "$binary" serve >"$work/replica-$name.out" 2>"$work/replica-$name.log" &
  pids+=($!)
done
for port in "${ports[@]}"; do
  for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { echo "bench-replicas: the replica on $port is not ready; see $work" >&2; exit 1; }
done

cat >"$work/haproxy.cfg" <<EOF
global
    maxconn 1024
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
frontend api
    bind 127.0.0.1:$proxy_port
    default_backend rics
backend rics
    balance roundrobin
    option httpchk GET /readyz
    server a 127.0.0.1:${ports[0]} check inter 1s
    server b 127.0.0.1:${ports[1]} check inter 1s
listen stats
    bind 127.0.0.1:$stats_port
    stats enable
    stats uri /stats
EOF
haproxy -f "$work/haproxy.cfg" -db >"$work/haproxy.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$proxy_port/readyz" >/dev/null && break; sleep 0.2; done

echo "== two replicas ($profile build) behind haproxy on one PostgreSQL database"
python3 scripts/bench_replicas.py --proxy "http://127.0.0.1:$proxy_port" \
  --replica "http://127.0.0.1:${ports[0]}" --replica "http://127.0.0.1:${ports[1]}" \
  --metrics "http://127.0.0.1:${metrics[0]}" --metrics "http://127.0.0.1:${metrics[1]}" \
  --stats "http://127.0.0.1:$stats_port/stats" --threads "$threads" --duration "$duration"
