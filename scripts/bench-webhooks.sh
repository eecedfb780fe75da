#!/usr/bin/env bash
# Webhook deliveries end to end on PostgreSQL: `rics serve` (release, or debug with
# BENCH_PROFILE=debug) with a local receiver; scripts/bench_webhooks.py measures
# deliveries per second with BENCH_DELIVERIES (default 2000) queued at once, and the
# time from a committed event to its delivery with an idle queue. docs/benchmarks.md
# records the figures with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${BENCH_PORT:-18185}"
profile="${BENCH_PROFILE:-release}"
work="target/bench"
mkdir -p "$work"
if [ "$profile" = release ]; then cargo build --release -p rics; else cargo build -p rics; fi

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_webhooks" -c "CREATE DATABASE rics_bench_webhooks" >/dev/null
RICS_DATABASE_URL="${pg%/*}/rics_bench_webhooks" RICS_MIGRATE_ON_START=true \
  RICS_BIND_ADDRESS="127.0.0.1:$port" \
  RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_SECRET_KEY="$(head -c 32 /dev/urandom | base64)" RICS_WEBHOOK_ALLOW_HOSTS=127.0.0.1 \
  RICS_LOG=warn "${CARGO_TARGET_DIR:-target}/$profile/rics" serve >"$work/server-webhooks.out" 2>"$work/server-webhooks.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
python3 scripts/bench_webhooks.py "http://127.0.0.1:$port"
