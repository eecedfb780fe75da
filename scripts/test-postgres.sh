#!/usr/bin/env bash
# Prints the URL of a PostgreSQL server the tests may create schemas in, finding one in
# this order:
#   1. RICS_TEST_DATABASE_URL, when set;
#   2. a server on 127.0.0.1:5432 (user postgres, or the current user);
#   3. a throwaway cluster made with initdb and started with pg_ctl under target/ (as the
#      postgres user when run as root), when the PostgreSQL binaries are installed;
# and fails with a clear message when there is none. Progress goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "test-postgres: $*" >&2; }

can_connect() {
  # psql is the most direct check; without it, the TCP port must answer.
  if command -v psql >/dev/null 2>&1; then
    psql "$1" -qtAc 'SELECT 1' >/dev/null 2>&1
  else
    local rest="${1#*@}" hostport host port
    hostport="${rest%%/*}"; host="${hostport%%:*}"; port="${hostport##*:}"
    [ "$port" = "$hostport" ] && port=5432
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
  fi
}

if [ -n "${RICS_TEST_DATABASE_URL:-}" ]; then
  if can_connect "$RICS_TEST_DATABASE_URL"; then
    echo "$RICS_TEST_DATABASE_URL"; exit 0
  fi
  say "RICS_TEST_DATABASE_URL is set but the server does not answer"; exit 1
fi

for user in postgres "$(id -un)"; do
  url="postgres://$user@127.0.0.1:5432/postgres"
  if can_connect "$url"; then
    say "using the server on 127.0.0.1:5432 as $user"
    echo "$url"; exit 0
  fi
done

bin=""
if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
  bin="$(dirname "$(command -v pg_ctl)")"
else
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
fi
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  say "no PostgreSQL found: set RICS_TEST_DATABASE_URL, start a server on 127.0.0.1:5432, or install PostgreSQL (apt-get install postgresql) so that a throwaway cluster can be started"
  exit 1
fi

port="${RICS_TEST_PG_PORT:-55432}"
data="$here/target/test-postgres/data"
socket="$here/target/test-postgres/socket"
log="$here/target/test-postgres/log"
run_as=()
if [ "$(id -u)" = 0 ]; then
  run_as=(runuser -u postgres --)
fi
mkdir -p "$socket" "$(dirname "$data")"
if [ "$(id -u)" = 0 ]; then chown -R postgres "$here/target/test-postgres"; fi
if [ ! -f "$data/PG_VERSION" ]; then
  say "creating a throwaway cluster in $data"
  "${run_as[@]}" "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
fi
if ! "${run_as[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  say "starting it on 127.0.0.1:$port"
  "${run_as[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -w \
    -o "-p $port -k $socket -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
fi
url="postgres://postgres@127.0.0.1:$port/postgres"
if ! can_connect "$url"; then
  say "the throwaway cluster does not answer; see $log"; exit 1
fi
echo "$url"
