#!/usr/bin/env bash
# The automation executions' crash test (make test-long): the built debug `rics serve` on a
# fresh PostgreSQL database with 2 job workers and a 3 s lease, killed with SIGKILL while
# 200 executions are in various steps, then restarted; scripts/crash_executions.py checks
# that every execution ends as without the crash and each side effect happened once.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${CRASH_PORT:-18183}"
mkdir -p target/crash
: > target/crash/server-executions.log
cargo build -q -p rics

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_crash_executions" -c "CREATE DATABASE rics_crash_executions" >/dev/null
RICS_DATABASE_URL="${pg%/*}/rics_crash_executions" RICS_MIGRATE_ON_START=true \
  RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_JOB_CONCURRENCY=2 RICS_JOB_LEASE_SECONDS=3 \
  RICS_BOOTSTRAP_CLIENT_ID=crash RICS_BOOTSTRAP_CLIENT_SECRET=crash-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_SCREENING_LISTS=data/lists/un_2026-02/UN_consolidated.xml \
  RICS_LOG=warn RICS_BINARY=target/debug/rics CRASH_PORT="$port" \
  python3 scripts/crash_executions.py
