#!/usr/bin/env bash
# File uploads and downloads through the API on a file store (BENCH_STORE: the
# database, the default, or a directory), per backend (docs/benchmarks.md, "Files"):
#   1. throughput: a 5 MiB PDF uploaded (multipart/form-data) and downloaded 10 times,
#      one request at a time, in MiB/s of content;
#   2. memory: the server's resident set size (peak of samples every 20 ms) while 16
#      clients (BENCH_CLIENTS) upload a 10 MiB PDF each at once, against its size
#      before.
# It runs the release build (cargo build --release -p rics) on a free port, with a
# fresh SQLite file or a fresh schema of the PostgreSQL server that
# scripts/test-postgres.sh finds, and removes them afterwards.
#
# Usage: scripts/bench-files.sh [sqlite|postgres]...   (default: both)
#        BENCH_CLIENTS=32 scripts/bench-files.sh sqlite     (clients uploading at once)
#        BENCH_STORE=directory scripts/bench-files.sh sqlite (content in a temporary
#                                                             directory: RICS_FILE_STORE)
set -euo pipefail
cd "$(dirname "$0")/.."

RICS="${CARGO_TARGET_DIR:-target}/release/rics"
[ -x "$RICS" ] || { echo "bench-files: build first: cargo build --release -p rics" >&2; exit 1; }
command -v curl >/dev/null || { echo "bench-files: needs curl" >&2; exit 1; }

work=$(mktemp -d)
server_pid=""
schema=""
pg=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [ -n "$schema" ] && psql "$pg" -qtAX -c "DROP SCHEMA $schema CASCADE" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# A PDF of $2 bytes: its header, then random bytes (as compressed PDF streams are).
pdf() {
  printf '%%PDF-1.7\n%%\342\343\317\323\n' >"$1"
  head -c "$(($2 - 15))" /dev/urandom >>"$1"
}
pdf "$work/5MiB.pdf" $((5 * 1024 * 1024))
pdf "$work/10MiB.pdf" $((10 * 1024 * 1024))

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

backends=("$@")
[ ${#backends[@]} -eq 0 ] && backends=(sqlite postgres)
for backend in "${backends[@]}"; do
  {
    case "$backend" in
      sqlite) url="sqlite://$work/bench.db" ;;
      postgres)
        pg=$(scripts/test-postgres.sh)
        schema="bench_files_$$"
        psql "$pg" -qtAX -c "CREATE SCHEMA $schema" >/dev/null
        separator='?'; [[ "$pg" == *\?* ]] && separator='&'
        url="${pg}${separator}options=-csearch_path%3D$schema"
        ;;
      *) echo "bench-files: unknown backend $backend" >&2; exit 1 ;;
    esac
    port=$(free_port)
    base="http://127.0.0.1:$port"
    secret="bench-files-secret-$$"
    case "${BENCH_STORE:-database}" in
      database) store=database ;;
      directory) store="directory:$work/files-$backend" ;;
      *) echo "bench-files: unknown store ${BENCH_STORE} (database or directory)" >&2; exit 1 ;;
    esac
    RICS_FILE_STORE="$store" RICS_BIND_ADDRESS="127.0.0.1:$port" RICS_DATABASE_URL="$url" RICS_MIGRATE_ON_START=true \
      RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET="$secret" \
      RICS_RATE_LIMIT_PER_MINUTE=1000000 RICS_JOB_CONCURRENCY=0 RICS_LOG=warn \
      "$RICS" serve >"$work/server-$backend.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do curl -sf "$base/readyz" >/dev/null && break; sleep 0.2; done
    token=$(curl -sf -u "bench:$secret" -d grant_type=client_credentials "$base/oauth2/token" |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
    auth="Authorization: Bearer $token"
    curl -sf -o /dev/null -H "$auth" -H 'Content-Type: application/json' \
      -d '{"displayName": "Bench", "individual": {"legalName": {"givenName": "Bench"}}}' \
      "$base/v1alpha/entities?entityId=bench"
    files="$base/v1alpha/entities/bench/files"

    upload_seconds=0
    for i in $(seq 10); do
      seconds=$(curl -sf -o "$work/file.json" -w '%{time_total}' -H "$auth" \
        -F "content=@$work/5MiB.pdf;type=application/pdf" "$files?fileId=five-$i")
      upload_seconds=$(python3 -c "print($upload_seconds + $seconds)")
    done
    download_seconds=0
    for i in $(seq 10); do
      seconds=$(curl -sf -o "$work/download.pdf" -w '%{time_total}' -H "$auth" "$files/five-$i:download")
      download_seconds=$(python3 -c "print($download_seconds + $seconds)")
    done
    cmp -s "$work/download.pdf" "$work/5MiB.pdf" || { echo "bench-files: the download differs" >&2; exit 1; }

    before=$(rss_kib "$server_pid")
    peak=$before
    pids=()
    for i in $(seq "${BENCH_CLIENTS:-16}"); do
      curl -sf -o /dev/null -H "$auth" -F "content=@$work/10MiB.pdf;type=application/pdf" \
        "$files?fileId=ten-$i" &
      pids+=($!)
    done
    started=$(date +%s.%N)
    while kill -0 "${pids[@]}" 2>/dev/null; do
      now=$(rss_kib "$server_pid"); [ "$now" -gt "$peak" ] && peak=$now
      sleep 0.02
    done
    ended=$(date +%s.%N)
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
    after=$(rss_kib "$server_pid")

    python3 - "${BENCH_CLIENTS:-16}" "$backend, ${BENCH_STORE:-database} store" "$upload_seconds" "$download_seconds" "$before" "$peak" "$after" "$started" "$ended" "$failed" <<'EOF'
import sys
clients, backend, up, down, before, peak, after, started, ended, failed = sys.argv[1:]
mib = 50.0
print(f"{backend}: upload {mib / float(up):.1f} MiB/s, download {mib / float(down):.1f} MiB/s "
      f"(10 x 5 MiB, one at a time); {clients} x 10 MiB at once in {float(ended) - float(started):.1f} s, "
      f"{failed} failed: RSS {int(before) / 1024:.0f} MiB before, peak {int(peak) / 1024:.0f} MiB, "
      f"{int(after) / 1024:.0f} MiB after")
EOF
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
    if [ -n "$schema" ]; then psql "$pg" -qtAX -c "DROP SCHEMA $schema CASCADE" >/dev/null 2>&1; schema=""; fi
  }
done
