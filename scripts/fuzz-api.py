#!/usr/bin/env python3
"""Fuzz the served OpenAPI document of rics with schemathesis, on SQLite and PostgreSQL.

For each backend this script:
  1. makes a fresh database: a SQLite file in a temporary folder, or a new schema on the
     PostgreSQL server that scripts/test-postgres.sh finds (dropped afterwards);
  2. starts the debug build (target/debug/rics serve) on a free port, with the bootstrap
     client, the rate limit raised and long-lived tokens;
  3. obtains a token with every scope by the client credentials grant;
  4. runs schemathesis with scripts/fuzz-api.toml (every check, a fixed seed, the rics
     check of scripts/fuzz_api_checks.py) and the given number of cases per operation;
  5. stops the server and removes the database.

The backends run at the same time. Then it prints each schemathesis output, one line of
counts per backend, and exits 1 when any run found a failure or an error, or ran fewer
cases than --min-cases. Reports (schemathesis's output, its JSON, JUnit and NDJSON
reports, and the server's log) are kept in target/fuzz-api/<backend>/.

Usage: scripts/fuzz-api.py [--max-examples N] [--min-cases N] [--backend sqlite|postgres]...
                           [--operation OPERATION_ID]...
"""

import argparse
import base64
import concurrent.futures
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RICS = ROOT / "target" / "debug" / "rics"
SCHEMATHESIS = ROOT / "target" / "fuzz-venv" / "bin" / "schemathesis"
CONFIG = ROOT / "scripts" / "fuzz-api.toml"
HOOKS = ROOT / "scripts" / "fuzz_api_checks.py"
REPORTS = ROOT / "target" / "fuzz-api"
# One list is enough to screen against, and it loads quickly in a debug build.
SCREENING_LIST = ROOT / "data" / "lists" / "un_2026-02" / "UN_consolidated.xml"
CLIENT_ID = "fuzz-admin"
CLIENT_SECRET = "fuzz-admin-secret-" + secrets.token_hex(8)
# The schemathesis failure codes of a 5xx answer (not_a_server_error): to a request, and
# to a request with a Content-Type the operation does not declare.
SERVER_ERROR_CODES = frozenset({"ST101", "ST102"})
# The failure code of the rics check (fuzz_api_checks.py): a schema-valid request refused
# with INVALID_ARGUMENT, so the document is looser than the server.
LOOSER_DOCUMENT_CODE = "ST901"
START_TIMEOUT = 120.0


def say(message):
    print(f"fuzz-api: {message}", file=sys.stderr, flush=True)


class PostgresSchema:
    """A fresh schema on the test PostgreSQL server; the URL puts it first on the search path."""

    def __init__(self):
        found = subprocess.run(
            [str(ROOT / "scripts" / "test-postgres.sh")], capture_output=True, text=True
        )
        if found.returncode != 0:
            raise SystemExit(f"fuzz-api: no PostgreSQL: {found.stderr.strip()}")
        if shutil.which("psql") is None:
            raise SystemExit("fuzz-api: psql is needed to make the schema (apt-get install postgresql-client)")
        self.server = found.stdout.strip()
        self.schema = "fuzz_" + secrets.token_hex(6)
        self._psql(f"CREATE SCHEMA {self.schema}")
        separator = "&" if "?" in self.server else "?"
        self.url = f"{self.server}{separator}options=-csearch_path%3D{self.schema}"

    def _psql(self, statement):
        subprocess.run(
            ["psql", self.server, "-qtAX", "-v", "ON_ERROR_STOP=1", "-c", statement],
            check=True,
            capture_output=True,
        )

    def drop(self):
        self._psql(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")


class Server:
    """`rics serve` on its own database and a free port, logging to a file."""

    def __init__(self, database_url, log_path):
        env = dict(os.environ)
        env.update(
            {
                "RICS_DATABASE_URL": database_url,
                "RICS_BIND_ADDRESS": "127.0.0.1:0",
                "RICS_PUBLIC_URL": "http://rics.fuzz",
                "RICS_MIGRATE_ON_START": "true",
                "RICS_LOG": "error,rics=info",
                "RICS_LOG_FORMAT": "json",
                "RICS_RATE_LIMIT_PER_MINUTE": "1000000",
                "RICS_ACCESS_TOKEN_MINUTES": "600",
                "RICS_HTTP_WORKERS": "2",
                "RICS_SCREENING_LISTS": str(SCREENING_LIST),
                "RICS_BOOTSTRAP_CLIENT_ID": CLIENT_ID,
                "RICS_BOOTSTRAP_CLIENT_SECRET": CLIENT_SECRET,
            }
        )
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.process = subprocess.Popen(
            [str(RICS), "serve"], env=env, stdout=self.log, stderr=subprocess.STDOUT
        )
        self.base = "http://" + self._wait_for_address()

    def _wait_for_address(self):
        """The address from the 'rics is serving' log line."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"fuzz-api: rics exited at start; see {self.log_path}")
            with open(self.log_path) as log:
                for line in log:
                    if not line.startswith("{"):
                        continue
                    record = json.loads(line)
                    if record.get("message") == "rics is serving":
                        return record["address"]
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"fuzz-api: rics did not start within {START_TIMEOUT:.0f} s; see {self.log_path}")

    def token(self):
        """An access token of the bootstrap client with every scope it has."""
        credentials = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        request = urllib.request.Request(
            self.base + "/oauth2/token",
            data=b"grant_type=client_credentials",
            headers={
                "Authorization": f"Basic {credentials}",
                "Content-Type": "application/x-www-form-urlencoded",
            },
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)["access_token"]

    def stop(self):
        """SIGTERM, then SIGKILL if it has not stopped within the shutdown timeout."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def fuzz(backend, max_examples, operations):
    """Runs schemathesis against a fresh server on `backend`; returns its JSON report (None
    when it wrote none) and the seconds it ran. Its output goes to output.txt."""
    reports = REPORTS / backend
    shutil.rmtree(reports, ignore_errors=True)
    reports.mkdir(parents=True)
    folder = tempfile.mkdtemp(prefix="rics-fuzz-")
    schema = None
    server = None
    try:
        if backend == "postgres":
            schema = PostgresSchema()
            database_url = schema.url
        else:
            database_url = f"sqlite://{folder}/rics.db"
        server = Server(database_url, reports / "server.log")
        say(f"{backend}: rics at {server.base}, {max_examples} cases per operation and phase")
        env = dict(
            os.environ,
            RICS_FUZZ_TOKEN=server.token(),
            RICS_FUZZ_HOOKS=str(HOOKS),
            # Loading the hooks must leave no __pycache__ in scripts/.
            PYTHONDONTWRITEBYTECODE="1",
        )
        started = time.monotonic()
        with open(reports / "output.txt", "w") as output:
            subprocess.run(
                [
                    str(SCHEMATHESIS),
                    "--config-file",
                    str(CONFIG),
                    "--no-color",
                    "run",
                    f"{server.base}/v1alpha/openapi.json",
                    "--max-examples",
                    str(max_examples),
                    "--report",
                    "json,junit,ndjson",
                    "--report-dir",
                    str(reports),
                    "--report-json-path",
                    str(reports / "report.json"),
                    "--report-junit-path",
                    str(reports / "junit.xml"),
                    "--report-ndjson-path",
                    str(reports / "events.ndjson"),
                ]
                + [option for operation in operations for option in ("--include-operation-id", operation)],
                env=env,
                cwd=reports,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        elapsed = time.monotonic() - started
    finally:
        if server is not None:
            server.stop()
        if schema is not None:
            schema.drop()
        shutil.rmtree(folder, ignore_errors=True)
    try:
        return json.loads((reports / "report.json").read_text()), elapsed
    except (OSError, ValueError):  # schemathesis stopped before writing its report
        return None, elapsed


def counts(report):
    """Cases, 5xx failures, requests the looser document let through, other failures
    and errors of a schemathesis JSON report."""
    failures = report.get("failures", [])
    server_errors = sum(f["count"] for f in failures if f["code"] in SERVER_ERROR_CODES)
    looser = sum(f["count"] for f in failures if f["code"] == LOOSER_DOCUMENT_CODE)
    violations = sum(
        f["count"]
        for f in failures
        if f["code"] not in SERVER_ERROR_CODES and f["code"] != LOOSER_DOCUMENT_CODE
    )
    errors = sum(e["count"] for e in report.get("errors", []))
    return report["test_cases"]["generated"], server_errors, looser, violations, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-examples", type=int, default=10, help="cases per operation and phase")
    parser.add_argument(
        "--min-cases", type=int, default=0, help="fail a backend that ran fewer cases than this"
    )
    parser.add_argument(
        "--backend",
        action="append",
        choices=["sqlite", "postgres"],
        help="run on this backend only (repeatable; default: both)",
    )
    parser.add_argument(
        "--operation",
        action="append",
        default=[],
        help="fuzz this operation only, by operationId (repeatable; default: all)",
    )
    arguments = parser.parse_args()
    for needed, how in [(RICS, "make test"), (SCHEMATHESIS, "make fuzz-venv")]:
        if not needed.exists():
            raise SystemExit(f"fuzz-api: {needed} is missing; run `{how}` first")
    backends = arguments.backend or ["sqlite", "postgres"]
    # The backends run at once, one core each; their outputs are shown one after the other.
    with concurrent.futures.ThreadPoolExecutor(len(backends)) as pool:
        runs = dict(zip(backends, pool.map(lambda b: fuzz(b, arguments.max_examples, arguments.operation), backends)))
    failed = False
    lines = []
    for backend, (report, elapsed) in runs.items():
        reports = (REPORTS / backend).relative_to(ROOT)
        print(f"\n===== schemathesis on {backend} =====\n", flush=True)
        print((REPORTS / backend / "output.txt").read_text(), flush=True)
        if report is None:
            failed = True
            lines.append(f"fuzz-api {backend}: schemathesis wrote no report; see {reports}/output.txt")
            continue
        cases, server_errors, looser, violations, errors = counts(report)
        failed |= server_errors + looser + violations + errors > 0
        if cases < arguments.min_cases:
            failed = True
            lines.append(f"fuzz-api {backend}: only {cases} cases, fewer than {arguments.min_cases}")
        lines.append(
            f"fuzz-api {backend}: {cases} cases, {server_errors} 5xx, {looser} schema-valid "
            f"requests refused, {violations} other failures, {errors} errors in {elapsed:.0f} s (seed {report['seed']}, reports in {reports})"
        )
    for line in lines:
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
