#!/usr/bin/env bash
# The server's CPU time per GET entity: the figure that stays comparable on a shared,
# busy machine, where requests per second do not. Starts the release server on
# BENCH_BACKEND (sqlite or postgres; default postgres), creates one entity, sends
# BENCH_REQUESTS (default 20,000) GETs of it over BENCH_CONNECTIONS (default 4) keep-alive
# connections with one bearer token, and divides the server process's user and system
# CPU time (from /proc/PID/stat) by the number of requests. With BENCH_PERF=1 it also
# samples the server with `perf record -e cpu-clock -g` during the run and prints the
# top symbols by self time. docs/benchmarks.md records the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

backend="${BENCH_BACKEND:-postgres}"
requests="${BENCH_REQUESTS:-20000}"
connections="${BENCH_CONNECTIONS:-4}"
port="${BENCH_PORT:-18182}"
work="target/bench"
mkdir -p "$work"
binary="${BENCH_BINARY:-${CARGO_TARGET_DIR:-target}/release/rics}"
[ -x "$binary" ] || cargo build --release -p rics

case "$backend" in
  sqlite)
    rm -f "$work"/rics-cpu.db*
    url="sqlite://$work/rics-cpu.db" ;;
  postgres)
    pg="$(scripts/test-postgres.sh)"
    psql "$pg" -qc "DROP DATABASE IF EXISTS rics_cpu" -c "CREATE DATABASE rics_cpu" >/dev/null
    url="${pg%/*}/rics_cpu" ;;
  *) echo "unknown backend $backend" >&2; exit 1 ;;
esac

base_url="http://127.0.0.1:$port"
RICS_DATABASE_URL="$url" RICS_MIGRATE_ON_START=true RICS_BIND_ADDRESS="127.0.0.1:$port" \
  RICS_BOOTSTRAP_CLIENT_ID=bench RICS_BOOTSTRAP_CLIENT_SECRET=bench-secret-0001 \
  RICS_ACCESS_TOKEN_MINUTES=600 RICS_RATE_LIMIT_PER_MINUTE=1000000000 \
  RICS_LOG=warn "$binary" serve >"$work/cpu-server.out" 2>"$work/cpu-server.log" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "$base_url/readyz" >/dev/null && break; sleep 0.2; done
token="$(curl -sf -u bench:bench-secret-0001 -d grant_type=client_credentials "$base_url/oauth2/token" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"
curl -sf -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  -d '{"displayName":"Ada Lovelace","individual":{"legalName":{"givenName":"Ada","familyName":"Lovelace"}}}' \
  "$base_url/v1alpha/entities?entityId=cpu-bench" >/dev/null

if [ "${BENCH_PERF:-0}" = 1 ]; then
  perf record -q -e cpu-clock -g -p "$server" -o "$work/cpu-perf.data" 2>/dev/null &
  perf_pid=$!
  sleep 0.5
fi

python3 - "$server" "$port" "$token" "$requests" "$connections" <<'EOF'
import http.client, os, sys, threading, time

pid, port, token, requests, connections = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
ticks = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

failures = []
def client(count):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(count):
        connection.request("GET", "/v1alpha/entities/cpu-bench", headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            failures.append(response.status)

per_client = requests // connections
threads = [threading.Thread(target=client, args=(per_client,)) for _ in range(connections)]
cpu_before, wall_before = cpu_seconds(), time.monotonic()
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
cpu, wall = cpu_seconds() - cpu_before, time.monotonic() - wall_before
done = per_client * connections
if failures:
    sys.exit(f"{len(failures)} requests failed: {sorted(set(failures))}")
print(f"GET entity: {done} requests, server CPU {cpu:.2f} s = {cpu / done * 1e6:.0f} us per request; "
      f"{done / wall:.0f} req/s wall (client-bound, not a throughput figure)")
EOF

if [ "${BENCH_PERF:-0}" = 1 ]; then
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  perf report -i "$work/cpu-perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null \
    | grep -E '^ +[0-9]' | sed -E 's/ +/ /g' | cut -c1-150 | head -25
fi
