#!/usr/bin/env bash
# `rics import` throughput: BENCH_IMPORT entities (default 100,000; individuals with a tag,
# a nationality and a date of birth) as JSON lines, imported with the release binary into a
# fresh PostgreSQL database and a fresh SQLite file. Each run prints the command's report
# (entities per second included); docs/benchmarks.md records the figures with the machine.
# BENCH_BINARY imports with a given build instead of building this checkout's.
set -euo pipefail
cd "$(dirname "$0")/.."

count="${BENCH_IMPORT:-100000}"
work="target/bench"
bin="${BENCH_BINARY:-${CARGO_TARGET_DIR:-target}/release/rics}"
mkdir -p "$work"
[ -n "${BENCH_BINARY:-}" ] || cargo build --release -p rics
python3 - "$count" > "$work/book.jsonl" <<'PY'
import json, sys
for i in range(int(sys.argv[1])):
    print(json.dumps({"entityId": f"person-{i}", "entity": {
        "displayName": f"Person {i}", "tags": ["imported"],
        "individual": {"legalName": {"givenName": "Person", "familyName": f"Number {i}"},
                       "dateOfBirth": f"19{50 + i % 50}-0{1 + i % 9}-1{i % 9}", "nationalities": ["GB"]}}}))
PY

# Provisions the partner tenant with a first start and prints its name.
tenant_of() {
  local url="$1" out="$work/import-serve.out"
  RICS_DATABASE_URL="$url" "$bin" migrate >/dev/null 2>&1
  RICS_DATABASE_URL="$url" RICS_BIND_ADDRESS=127.0.0.1:0 RICS_LOG=warn "$bin" serve >"$out" 2>&1 &
  local server=$!
  for _ in $(seq 100); do grep -q "tenants/" "$out" && break; sleep 0.2; done
  kill "$server"; wait "$server" 2>/dev/null || true
  grep -o "tenants/[0-9a-f-]*" "$out" | head -1
}

pg="$(scripts/test-postgres.sh)"
psql "$pg" -qc "DROP DATABASE IF EXISTS rics_bench_import" -c "CREATE DATABASE rics_bench_import" >/dev/null
url="${pg%/*}/rics_bench_import"
echo "PostgreSQL, $count entities:"
RICS_DATABASE_URL="$url" "$bin" import "$work/book.jsonl" --tenant "$(tenant_of "$url")"

rm -f "$work/import.db"*
url="sqlite://$PWD/$work/import.db"
echo "SQLite, $count entities:"
RICS_DATABASE_URL="$url" "$bin" import "$work/book.jsonl" --tenant "$(tenant_of "$url")"
