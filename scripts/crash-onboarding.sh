#!/usr/bin/env bash
# The onboarding jobs' crash test (make test-long): the built debug `rics serve` on a fresh
# PostgreSQL database with 2 job workers and a 3 s lease, killed with SIGKILL twice while
# 100 onboardings (and 10 whose mapping fails) are in various steps (mid-journey, and while
# their forms are submitted),
# then restarted; scripts/crash_onboarding.py checks that each onboarding ends with exactly
# one decision and one webhook.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${CRASH_PORT:-18185}"
mkdir -p target/crash
: > target/crash/server-onboarding.log
cargo build -q -p rics

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_crash_onboarding" -c "CREATE DATABASE rics_crash_onboarding" >/dev/null
RICS_DATABASE_URL="${pg%/*}/rics_crash_onboarding" RICS_MIGRATE_ON_START=true \
  RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_JOB_CONCURRENCY=2 RICS_JOB_LEASE_SECONDS=3 \
  RICS_BOOTSTRAP_CLIENT_ID=crash RICS_BOOTSTRAP_CLIENT_SECRET=crash-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_SECRET_KEY="$(head -c 32 /dev/urandom | base64)" RICS_WEBHOOK_ALLOW_HOSTS=127.0.0.1 \
  RICS_WEBHOOK_RETRY_SCHEDULE=100ms,200ms,400ms,1s,1s,1s,1s,1s \
  RICS_SCREENING_LISTS=data/lists/un_2026-02/UN_consolidated.xml \
  RICS_LOG=warn RICS_BINARY=target/debug/rics CRASH_PORT="$port" \
  CRASH_LOG=target/crash/server-onboarding.log \
  python3 scripts/crash_onboarding.py
