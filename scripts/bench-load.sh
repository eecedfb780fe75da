#!/usr/bin/env bash
# HTTP load benchmark on both backends: seeds BENCH_ENTITIES entities (default 100,000)
# through the API, then measures with wrk at BENCH_CONNECTIONS (default 32) connections
# for BENCH_DURATION (default 30s) each:
#   1. GET /v1alpha/entities/{random id}
#   2. a filtered, paginated list: entityType = COMPANY AND tags:"high-risk", 50 per page
#   3. a fuzzy search: displayName:"jon smith", 20 per page (reported, no target)
# Results go to stdout; docs/benchmarks.md records them with the machine.
set -euo pipefail
cd "$(dirname "$0")/.."

entities="${BENCH_ENTITIES:-100000}"
connections="${BENCH_CONNECTIONS:-32}"
duration="${BENCH_DURATION:-30s}"
port="${BENCH_PORT:-18181}"
backends="${BENCH_BACKENDS:-sqlite postgres}"
work="target/bench"
mkdir -p "$work"

if ! command -v wrk >/dev/null 2>&1; then
  echo "bench: installing wrk" >&2
  if [ "$(id -u)" = 0 ]; then apt-get install -y -qq wrk >/dev/null; else sudo apt-get install -y -qq wrk >/dev/null; fi
fi
cargo build --release -p rics

list_url="/v1alpha/entities?pageSize=50&filter=entityType%20%3D%20COMPANY%20AND%20tags%3A%22high-risk%22"
fuzzy_url="/v1alpha/entities?pageSize=20&filter=displayName%3A%22jon%20smith%22"

for backend in $backends; do
  case "$backend" in
    sqlite)
      rm -f "$work"/rics-bench.db*
      url="sqlite://$work/rics-bench.db" ;;
    postgres)
      base="$(scripts/test-postgres.sh)"
      psql "$base" -qc "DROP DATABASE IF EXISTS rics_bench" -c "CREATE DATABASE rics_bench" >/dev/null
      url="${base%/*}/rics_bench" ;;
    *) echo "unknown backend $backend" >&2; exit 1 ;;
  esac
  echo "== $backend: seeding $entities entities" >&2
  RICS_DATABASE_URL="$url" RICS_MIGRATE_ON_START=true RICS_BIND_ADDRESS="127.0.0.1:$port" \
    RICS_LOG=warn RICS_DATABASE_POOL_SIZE=32 ./target/release/rics serve 2>"$work/server-$backend.log" &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
  python3 scripts/bench_seed.py --port "$port" --count "$entities" --ids "$work/ids-$backend.txt"
  if [ "$backend" = postgres ]; then psql "$url" -qc "ANALYZE" >/dev/null; fi
  echo "== $backend: GET entity ($connections connections, $duration)"
  BENCH_IDS="$work/ids-$backend.txt" wrk -t2 -c"$connections" -d"$duration" --latency \
    -s scripts/bench-get.lua "http://127.0.0.1:$port"
  echo "== $backend: filtered list ($connections connections, $duration): $list_url"
  curl -s "http://127.0.0.1:$port$list_url" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("   totalSize", d["totalSize"], "page", len(d["entities"]))'
  wrk -t2 -c"$connections" -d"$duration" --latency "http://127.0.0.1:$port$list_url"
  echo "== $backend: fuzzy search ($connections connections, $duration): $fuzzy_url"
  curl -s "http://127.0.0.1:$port$fuzzy_url" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("   totalSize", d["totalSize"], "first", [e["displayName"] for e in d["entities"][:3]])'
  wrk -t2 -c"$connections" -d"$duration" --latency "http://127.0.0.1:$port$fuzzy_url"
  kill "$server"; wait "$server" 2>/dev/null || true
  trap - EXIT
done
