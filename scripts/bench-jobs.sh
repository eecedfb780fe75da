#!/usr/bin/env bash
# Screening jobs end to end through the API on PostgreSQL: the release `rics serve`
# with BENCH_WORKERS job workers (default 2) and the bundled lists; scripts/bench_jobs.py
# measures runs per second with every run queued at once, and the time from `:run` to
# `done` at a steady rate. docs/benchmarks.md records the figures with the machine.
# BENCH_BINARY serves a given build instead of building one (to compare two builds in
# turn). The server reads the rest of its settings from the environment as usual:
# RICS_JOB_BATCH=N, say, for the runs each worker has under way (default 16).
# BENCH_QUEUED_FIRST=1 measures the drain alone instead: the server runs no worker while
# BENCH_JOBS runs are queued through it, then a second `rics serve` with the
# BENCH_WORKERS workers drains them with the client idle (BENCH_ANALYZE=1: the database
# analyzed before the drain, as autovacuum or the server's maintenance keeps one in service).
set -euo pipefail
cd "$(dirname "$0")/.."

port="${BENCH_PORT:-18182}"
workers="${BENCH_WORKERS:-2}"
work="target/bench"
mkdir -p "$work"
binary="${BENCH_BINARY:-}"
if [ -z "$binary" ]; then
  cargo build --release -p rics
  binary="${CARGO_TARGET_DIR:-target}/release/rics"
fi

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_jobs" -c "CREATE DATABASE rics_bench_jobs" >/dev/null
export RICS_DATABASE_URL="${pg%/*}/rics_bench_jobs" RICS_MIGRATE_ON_START=true \
  RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 RICS_LOG=warn
serving_workers="$workers"
if [ -n "${BENCH_QUEUED_FIRST:-}" ]; then
  serving_workers=0
  export BENCH_WORKER_BINARY="$binary" BENCH_WORKERS="$workers" \
    BENCH_WORKER_ADDRESS="127.0.0.1:$((port + 1))" BENCH_WORKER_LOG="$work/server-drain.log"
fi
RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_JOB_CONCURRENCY="$serving_workers" \
  "$binary" serve >"$work/server-jobs.out" 2>"$work/server-jobs.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
python3 scripts/bench_jobs.py "http://127.0.0.1:$port"
