#!/usr/bin/env bash
# Onboarding jobs end to end through the API on PostgreSQL: the release `rics serve` (built
# in CARGO_TARGET_DIR, default target/; the debug one with BENCH_PROFILE=debug) with
# BENCH_WORKERS job workers (default 2), the
# bundled lists and a local webhook receiver; scripts/bench_onboarding.py measures
# onboardings from submit to decision per second, and the time from a form's submit to its
# decision's webhook. docs/benchmarks.md records the figures with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${BENCH_PORT:-18186}"
workers="${BENCH_WORKERS:-2}"
profile="${BENCH_PROFILE:-release}"
work="target/bench"
mkdir -p "$work"
if [ "$profile" = release ]; then cargo build --release -p rics; else cargo build -p rics; fi

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_onboarding" -c "CREATE DATABASE rics_bench_onboarding" >/dev/null
RICS_DATABASE_URL="${pg%/*}/rics_bench_onboarding" RICS_MIGRATE_ON_START=true \
  RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_JOB_CONCURRENCY="$workers" \
  RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_SECRET_KEY="$(head -c 32 /dev/urandom | base64)" RICS_WEBHOOK_ALLOW_HOSTS=127.0.0.1 \
  RICS_SCREENING_LISTS=data/lists/un_2026-02/UN_consolidated.xml \
  RICS_LOG=warn "${CARGO_TARGET_DIR:-target}/$profile/rics" serve >"$work/server-onboarding.out" 2>"$work/server-onboarding.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
python3 scripts/bench_onboarding.py "http://127.0.0.1:$port"
