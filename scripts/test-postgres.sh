#!/usr/bin/env bash
# Prints the URL of a PostgreSQL server the tests may create schemas in, finding one in
# this order:
#   1. RICS_TEST_DATABASE_URL, when set;
#   2. a server on 127.0.0.1:5432 (user postgres, or the current user);
#   3. a throwaway cluster made with initdb and started with pg_ctl under target/ (as the
#      postgres user when run as root), when the PostgreSQL binaries are installed;
# and fails with a clear message when there is none. Progress goes to stderr.
#
# With --statement-log (what `make test` uses) it prefers a second throwaway cluster,
# under target/test-postgres-statements (or /tmp, below) on a port of its own (below),
# that logs every statement in CSV to its csv/statements.csv, which it empties first;
# scripts/tenant-statements.sh then checks that log. The machine's server is never reconfigured. When RICS_TEST_DATABASE_URL is
# set, or no PostgreSQL binaries are installed, it falls back to the order above and the
# statement check says it is skipped.
#
# --statement-log-file and --statement-log-url print that CSV log's path and that
# cluster's URL, and nothing else.
set -euo pipefail

here="$(cd "$(dirname "$0")/.." && pwd)"
say() { echo "test-postgres: $*" >&2; }

# The statement-logging cluster's directory: under target/, unless this runs as root and
# the postgres user, which runs the cluster, cannot reach target/ (a checkout under
# /root): then under /tmp, named after the checkout.
statement_dir() {
  mkdir -p "$here/target"
  if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$here/target" 2>/dev/null; then
    echo "${TMPDIR:-/tmp}/rics-test-postgres-statements-$(printf '%s' "$here" | cksum | cut -d' ' -f1)"
  else
    echo "$here/target/test-postgres-statements"
  fi
}

# Its port: RICS_TEST_PG_STATEMENTS_PORT, else one of 56000 to 56999 named after the
# checkout, so that checkouts running `make test` at once each have their own.
statement_port() {
  echo "${RICS_TEST_PG_STATEMENTS_PORT:-$((56000 + $(printf '%s' "$here" | cksum | cut -d' ' -f1) % 1000))}"
}

statement_log=false
case "${1:-}" in
  --statement-log) statement_log=true ;;
  --statement-log-file) echo "$(statement_dir)/csv/statements.csv"; exit 0 ;;
  --statement-log-url) echo "postgres://postgres@127.0.0.1:$(statement_port)/postgres"; exit 0 ;;
esac

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
  if $statement_log; then
    say "RICS_TEST_DATABASE_URL is set: the tenant_id statement check will be skipped"
  fi
  if can_connect "$RICS_TEST_DATABASE_URL"; then
    echo "$RICS_TEST_DATABASE_URL"; exit 0
  fi
  say "RICS_TEST_DATABASE_URL is set but the server does not answer"; exit 1
fi

bin=""
if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
  bin="$(dirname "$(command -v pg_ctl)")"
else
  bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
fi
have_binaries=false
if [ -n "$bin" ] && [ -x "$bin/initdb" ]; then have_binaries=true; fi

# Makes (once) and starts (when stopped) a throwaway cluster in $1 on port $2, with the
# extra server settings $3; prints its URL.
throwaway() {
  local dir="$1" port="$2" settings="$3"
  local data="$dir/data" socket="$dir/socket" log="$dir/log" run_as=()
  if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi
  mkdir -p "$socket"
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; fi
  if [ ! -f "$data/PG_VERSION" ]; then
    say "creating a throwaway cluster in $data"
    "${run_as[@]}" "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 >/dev/null
  fi
  if ! "${run_as[@]}" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    say "starting it on 127.0.0.1:$port"
    "${run_as[@]}" "$bin/pg_ctl" -D "$data" -l "$log" -w \
      -o "-p $port -k $socket -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300 $settings" \
      start >/dev/null
  fi
  local url="postgres://postgres@127.0.0.1:$port/postgres"
  if ! can_connect "$url"; then
    say "the throwaway cluster does not answer; see $log"; exit 1
  fi
  echo "$url"
}

if $statement_log && $have_binaries; then
  dir="$(statement_dir)"
  # Every statement, without its parameters, to csv/statements.csv (CSV: a multi-line
  # statement stays one record), never rotated. Autovacuum off, as the suite expects
  # (rics then analyses its tables itself: crates/storage/tests/contract/smoke.rs).
  mkdir -p "$dir/csv"
  url="$(throwaway "$dir" "$(statement_port)" \
    "-c autovacuum=off -c log_statement=all -c log_parameter_max_length=0 -c logging_collector=on \
     -c log_destination=csvlog -c log_directory=$dir/csv -c log_filename=statements.log \
     -c log_rotation_age=0 -c log_rotation_size=0 -c log_file_mode=0644")"
  : >"$dir/csv/statements.csv"
  say "logging every statement to $dir/csv/statements.csv"
  echo "$url"; exit 0
fi
if $statement_log; then
  say "no PostgreSQL binaries to start the statement-logging cluster: the tenant_id statement check will be skipped"
fi

for user in postgres "$(id -un)"; do
  url="postgres://$user@127.0.0.1:5432/postgres"
  if can_connect "$url"; then
    say "using the server on 127.0.0.1:5432 as $user"
    echo "$url"; exit 0
  fi
done

if ! $have_binaries; then
  say "no PostgreSQL found: set RICS_TEST_DATABASE_URL, start a server on 127.0.0.1:5432, or install PostgreSQL (apt-get install postgresql) so that a throwaway cluster can be started"
  exit 1
fi
throwaway "$here/target/test-postgres" "${RICS_TEST_PG_PORT:-55432}" ""
