#!/usr/bin/env bash
# Ongoing monitoring at scale on PostgreSQL: BENCH_ENTITIES monitored entities (default
# 1,000,000) seeded straight into the database with COPY (scripts/bench_monitoring.py),
# the release `rics serve` watching one list file, and BENCH_ROUNDS (default 2) list
# changes of 1,000 records each (500 added, 500 changed): each round replaces the file,
# sends SIGHUP and prints the time from the SIGHUP to the last alert, with its phases.
# The release build has its own target directory (BENCH_TARGET_DIR, default
# target-bench-release). BENCH_KEEP=1 keeps a database seeded by an earlier run (and its
# list version) and goes on with the next rounds. docs/benchmarks.md records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${BENCH_ENTITIES:-1000000}"
rounds="${BENCH_ROUNDS:-2}"
port="${BENCH_PORT:-18191}"
work="target/bench"
target="${BENCH_TARGET_DIR:-target-bench-release}"
db=rics_bench_monitoring
mkdir -p "$work"
CARGO_TARGET_DIR="$target" cargo build --release -p rics

pg="$(scripts/test-postgres.sh)"
url="${pg%/*}/$db"
list="$work/monitoring-watchlist.jsonl"
if [[ "${BENCH_KEEP:-0}" != 1 ]] || ! psql "$url" -qAtc "SELECT 1 FROM entities LIMIT 1" >/dev/null 2>&1; then
  psql "$pg" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
  python3 scripts/bench_monitoring.py list "$list" 0
  echo 0 >"$work/monitoring-round"
  fresh=1
else
  fresh=0
fi
# The default job lease: a re-screen task that outlasts it has it renewed while it
# works (docs/benchmarks.md, "Ongoing monitoring at a million entities").
RICS_DATABASE_URL="$url" RICS_MIGRATE_ON_START=true \
  RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_JOB_CONCURRENCY=2 \
  RICS_SCREENING_LISTS="$list" \
  RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_LOG=info "$target/release/rics" serve >"$work/server-monitoring.out" 2>"$work/server-monitoring.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
if [[ $fresh == 1 ]]; then
  python3 scripts/bench_monitoring.py seed "http://127.0.0.1:$port" "$url" "$count"
fi
# The lists load on first use, which stores their first version.
python3 - "http://127.0.0.1:$port" <<'PY'
import sys
sys.path.insert(0, "scripts")
from rics_api import Api
api = Api(sys.argv[1])
api.call("GET", "/v1alpha/screeningLists", token=api.token("bench", "bench-secret-0001"))
PY
for _ in $(seq 100); do
  [[ -n "$(psql "$url" -qAtc "SELECT 1 FROM screening_list_versions")" ]] && break; sleep 0.2
done
last="$(cat "$work/monitoring-round")"
for k in $(seq $((last + 1)) $((last + rounds))); do
  python3 scripts/bench_monitoring.py round "$url" "$list" "$k" "$server"
  echo "$k" >"$work/monitoring-round"
done
grep -E "re-screen" "$work/server-monitoring.log" | tail -n "$((rounds * 3))" || true
