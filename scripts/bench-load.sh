#!/usr/bin/env bash
# HTTP load benchmark on both backends. Seeds BENCH_ENTITIES entities (default 100,000)
# through the API with ids e-000000, e-000001, ..., then measures with oha at
# BENCH_CONNECTIONS connections (default 32) for BENCH_DURATION (default 20s) each:
#   1. GET /v1alpha/entities/{random seeded id}
#   2. a filtered, paginated list: entityType = COMPANY AND tags:"high-risk", 50 per page
#   3. a fuzzy search: displayName:"jon smith", 20 per page (reported, no target)
# Each is run twice: closed-loop (as fast as the server answers: the throughput ceiling,
# latency includes queueing) and open-loop at a fixed rate the server sustains
# (BENCH_GET_RATE 1000, BENCH_LIST_RATE 50, BENCH_FUZZY_RATE 10 requests per second;
# latency with coordinated-omission correction). Every request bears an access token of
# the client credentials grant, as in production. On PostgreSQL, right after the GET's
# closed loop, `pgbench -S -M prepared` (TCP, the same connections and duration, its own
# database at scale 10) gives the database's own keyed-read rate on the same cores, and
# the script prints GET entity's rate as a fraction of it (issue 20's aim: 0.35).
# docs/benchmarks.md records the figures with the machine.
#
# BENCH_BINARY serves a given build instead of building this checkout's; BENCH_CASES
# picks the cases (default "get list fuzzy").
set -euo pipefail
cd "$(dirname "$0")/.."

# BENCH_SEED=copy seeds PostgreSQL with COPY rather than through the API (the same
# entities, written as a create writes them; scripts/bench_seed.py --copy), for a million:
# the API takes about half an hour at 593/s. BENCH_SEED=import seeds either backend with
# `rics import` (about 10,000 entities/s).
entities="${BENCH_ENTITIES:-100000}"
connections="${BENCH_CONNECTIONS:-32}"
duration="${BENCH_DURATION:-20s}"
get_rate="${BENCH_GET_RATE:-1000}"
list_rate="${BENCH_LIST_RATE:-50}"
fuzzy_rate="${BENCH_FUZZY_RATE:-10}"
port="${BENCH_PORT:-18181}"
backends="${BENCH_BACKENDS:-sqlite postgres}"
work="target/bench"
mkdir -p "$work"

if ! command -v oha >/dev/null 2>&1; then
  echo "bench: installing oha from crates.io" >&2
  cargo install oha --locked
fi
binary="${BENCH_BINARY:-${CARGO_TARGET_DIR:-target}/release/rics}"
cases="${BENCH_CASES:-get list fuzzy}"
[ -n "${BENCH_BINARY:-}" ] || cargo build --release -p rics

base_url="http://127.0.0.1:$port"
get_url="$base_url/v1alpha/entities/e-0[0-9]{5}"
[ "$entities" -lt 100000 ] && get_url="$base_url/v1alpha/entities/e-00000[0-9]"
list_url="$base_url/v1alpha/entities?pageSize=50&filter=entityType%20%3D%20COMPANY%20AND%20tags%3A%22high-risk%22"
fuzzy_url="$base_url/v1alpha/entities?pageSize=20&filter=displayName%3A%22jon%20smith%22"

# Prints one line of figures from oha's JSON summary.
summarise() {
  python3 -c '
import json, sys
d = json.load(sys.stdin)
s, p = d["summary"], d["latencyPercentiles"]
codes = d.get("statusCodeDistribution", {})
print("   %-26s %8.0f req/s  p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  max %7.2f ms  statuses %s" % (
    sys.argv[1], s["requestsPerSec"], p["p50"] * 1e3, p["p90"] * 1e3, p["p99"] * 1e3,
    s["slowest"] * 1e3, codes))
open(sys.argv[2], "w").write("%.0f" % s["requestsPerSec"])
' "$1" "$work/last-rate"
}

# pgbench -S -M prepared over TCP on a database of its own (scale 10), with the
# connections and duration of the HTTP cases; prints its tps.
pgbench_select_tps() {
  local db="${pg%/*}/rics_bench_pgbench"
  psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_pgbench" -c "CREATE DATABASE rics_bench_pgbench" >/dev/null
  pgbench -i -q -s 10 "$db" >/dev/null 2>&1
  pgbench -S -M prepared -c "$connections" -j 2 -T "${duration%s}" "$db" 2>/dev/null \
    | sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}

measure() {
  local label="$1" rate="$2" url="$3" regex="${4:-}"
  local args=(-z "$duration" -c "$connections" --no-tui --output-format json -H "Authorization: Bearer $token")
  [ -n "$regex" ] && args+=(--rand-regex-url)
  oha "${args[@]}" "$url" | summarise "$label closed-loop"
  cp "$work/last-rate" "$work/closed-loop-rate"
  oha "${args[@]}" -q "$rate" --latency-correction "$url" | summarise "$label at $rate req/s"
}

for backend in $backends; do
  case "$backend" in
    sqlite)
      rm -f "$work"/rics-bench.db*
      url="sqlite://$work/rics-bench.db" ;;
    postgres)
      pg="$(scripts/test-postgres.sh)"
      psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench" -c "CREATE DATABASE rics_bench" >/dev/null
      url="${pg%/*}/rics_bench" ;;
    *) echo "unknown backend $backend" >&2; exit 1 ;;
  esac
  echo "== $backend: seeding $entities entities" >&2
  # A fixed admin client, tokens that outlast the run, and no rate limit in the way.
  RICS_DATABASE_URL="$url" RICS_MIGRATE_ON_START=true RICS_BIND_ADDRESS="127.0.0.1:$port" \
    RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
    RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
    RICS_LOG=warn "$binary" serve >"$work/server-$backend.out" 2>"$work/server-$backend.log" &
  server=$!
  trap 'kill $server 2>/dev/null || true' EXIT
  for _ in $(seq 50); do curl -sf "$base_url/readyz" >/dev/null && break; sleep 0.2; done
  token="$(curl -sf -u bench:bench-secret-0001 -d grant_type=client_credentials "$base_url/oauth2/token" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"
  seed=(--port "$port" --count "$entities" --token "$token")
  if [ "${BENCH_SEED:-api}" = copy ] && [ "$backend" = postgres ]; then seed+=(--copy "$url"); fi
  if [ "${BENCH_SEED:-api}" = import ]; then
    tenant="$(grep -o "tenants/[0-9a-f-]*" "$work/server-$backend.out" "$work/server-$backend.log" | head -1 | cut -d: -f2)"
    seed+=(--import "$binary" --database "$url" --tenant "$tenant")
  fi
  python3 scripts/bench_seed.py "${seed[@]}"
  # Steady state, as autovacuum leaves it: statistics and the visibility map current.
  if [ "$backend" = postgres ]; then psql "$url" -qc "VACUUM ANALYZE" >/dev/null; fi
  echo "== $backend ($connections connections, $duration each)"
  curl -s -H "Authorization: Bearer $token" "$list_url" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("   filtered list: totalSize", d["totalSize"], "page", len(d["entities"]))'
  curl -s -H "Authorization: Bearer $token" "$fuzzy_url" | python3 -c 'import json,sys; d=json.load(sys.stdin); print("   fuzzy search: totalSize", d["totalSize"], "best", [e["displayName"] for e in d["entities"][:3]])'
  if [[ " $cases " == *" get "* ]]; then
    measure "GET entity" "$get_rate" "$get_url" regex
    if [ "$backend" = postgres ] && command -v pgbench >/dev/null 2>&1; then
      get_closed="$(cat "$work/closed-loop-rate")"
      tps="$(pgbench_select_tps)"
      python3 -c 'import sys; g, t = float(sys.argv[1]), float(sys.argv[2]); print("   GET entity / pgbench -S: %.0f req/s / %.0f tps = %.2f (aim 0.35)" % (g, t, g / t))' \
        "$get_closed" "$tps"
    fi
  fi
  if [[ " $cases " == *" list "* ]]; then measure "filtered list" "$list_rate" "$list_url"; fi
  if [[ " $cases " == *" fuzzy "* ]]; then measure "fuzzy search" "$fuzzy_rate" "$fuzzy_url"; fi
  kill "$server"; wait "$server" 2>/dev/null || true
  trap - EXIT
done
