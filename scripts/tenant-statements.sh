#!/usr/bin/env bash
# The tenant_id statement check of `make test`, after the test suite: $1 is the URL the
# suite ran against (scripts/test-postgres.sh --statement-log). On the statement-logging
# cluster it waits until the log holds the suite's last statement, runs the checker's own
# tests, then checks every statement logged (scripts/tenant_statements.py). On any other
# server there is no log to check, and it says the check was skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

url="$1"
python="${TENANT_STATEMENTS_PYTHON:-target/pglast-venv/bin/python}"
log="$(scripts/test-postgres.sh --statement-log-file)"
if [ "$url" != "$(scripts/test-postgres.sh --statement-log-url)" ]; then
  echo "tenant statements: SKIPPED: the suite ran on $url, not on the statement-logging cluster of scripts/test-postgres.sh --statement-log" >&2
  exit 0
fi

# The logging collector writes behind the backends: a marker statement, sent after the
# suite ended, is in the log once everything before it is.
marker="rics tenant statements end $(date +%s%N)"
psql "$url" -qtAc "SELECT '$marker'" >/dev/null
for _ in $(seq 100); do grep -q "$marker" "$log" && break; sleep 0.1; done
grep -q "$marker" "$log" || { echo "tenant statements: the log $log did not catch up" >&2; exit 1; }

"$python" scripts/test_tenant_statements.py
"$python" scripts/tenant_statements.py "$log"
