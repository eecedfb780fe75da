#!/usr/bin/env python3
"""Two rics replicas on one PostgreSQL database behind haproxy (scripts/bench-replicas.sh).

First the checks that only hold if the replicas share all their state through the
database, each asked of one replica directly and then of the other:
  - a token issued through one replica admits on the other;
  - an entity created on one replica reads at once on the other;
  - a list walked page by page, each page token used on the other replica than the one
    that signed it, returns every entity once and in order;
  - an etag read on one replica, the entity updated through the other, is stale on the
    first (409 ABORTED, ETAG_MISMATCH).
Then the load: THREADS threads for DURATION seconds through haproxy (round robin, each
request balanced on its own), a mix of creates, GETs, filtered lists that follow the
next page token, and PATCHes with the etag just read. Each thread updates only the
entities it created, so no answer but 2xx is expected: any other status, or a
connection error, fails the run. At the end it reads how many requests each replica
answered, from haproxy's statistics and from each replica's own /metrics, and fails
unless both served.
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from rics_api import Api  # noqa: E402

WEIGHTS = {"create": 15, "get": 40, "list": 25, "patch": 20}
TAG = "replicas"


class Client:
    """One keep-alive connection to `base`, with a bearer token."""

    def __init__(self, base, token):
        parts = urllib.parse.urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method, path, body=None):
        """(status, JSON answer) of one request."""
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, data, self.headers)
            response = self.conn.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.conn.close()
            return 0, {"error": repr(error)}
        try:
            return response.status, json.loads(raw or b"{}")
        except ValueError:
            return response.status, {"body": raw[:200].decode(errors="replace")}


def entity(display, tags):
    return {"displayName": display, "tags": tags,
            "individual": {"legalName": {"givenName": display.split()[0], "familyName": "Replica"}}}


def expect(label, status, answer, wanted=200):
    if status != wanted:
        raise SystemExit(f"{label}: {status} (wanted {wanted}) {json.dumps(answer)[:400]}")
    return answer


def cross_replica_checks(a, b, seeded):
    """The checks of shared state, `a` and `b` a client of each replica."""
    # A token issued through haproxy, used on both replicas directly, is the first check:
    # every call below bears it.
    status, made = a.call("POST", "/v1alpha/entities?entityId=x-read-after-write", entity("Read After", []))
    expect("create on replica a", status, made)
    expect("read on replica b", *b.call("GET", "/v1alpha/entities/x-read-after-write"))

    seen, token, page, clients = [], "", 0, (a, b)
    query = urllib.parse.quote(f'tags:"{TAG}-seed"')
    while True:
        path = f"/v1alpha/entities?pageSize=7&orderBy=displayName&filter={query}"
        if token:
            path += "&pageToken=" + urllib.parse.quote(token)
        answer = expect(f"list page {page} on replica {'ab'[page % 2]}", *clients[page % 2].call("GET", path))
        seen += [e["name"] for e in answer.get("entities", [])]
        token = answer.get("nextPageToken", "")
        page += 1
        if not token:
            break
    wanted = [f"entities/{i}" for i in seeded]
    if seen != wanted:
        raise SystemExit(f"the page walk across replicas gave {len(seen)} entities, not the {len(wanted)} seeded in order")

    first = expect("get on replica a", *a.call("GET", "/v1alpha/entities/x-read-after-write"))
    expect("patch on replica b", *b.call(
        "PATCH", "/v1alpha/entities/x-read-after-write?updateMask=tags", {"tags": ["b"], "etag": first["etag"]}))
    status, answer = a.call(
        "PATCH", "/v1alpha/entities/x-read-after-write?updateMask=tags", {"tags": ["a"], "etag": first["etag"]})
    expect("stale etag on replica a", status, answer, wanted=409)
    reason = next((d.get("reason") for d in answer.get("error", {}).get("details", []) if "reason" in d), None)
    if reason != "ETAG_MISMATCH":
        raise SystemExit(f"stale etag on replica a: reason {reason}, wanted ETAG_MISMATCH")
    print(f"cross-replica checks: read after write, {page} pages alternating replicas "
          f"({len(seen)} entities once each, in order), stale etag 409 ETAG_MISMATCH: ok")


def worker(number, base, token, deadline, seeded, results, errors):
    rng = random.Random(number)
    client = Client(base, token)
    mine, made = [], 0
    operations, weights = list(WEIGHTS), list(WEIGHTS.values())
    query = urllib.parse.quote(f'tags:"{TAG}-seed"')
    while time.monotonic() < deadline:
        op = rng.choices(operations, weights)[0]
        if op in ("get", "patch") and not mine:
            op = "create"
        began = time.monotonic()
        if op == "create":
            made += 1
            ident = f"w{number}-{made}"
            status, answer = client.call("POST", f"/v1alpha/entities?entityId={ident}",
                                         entity(f"Worker{number} N{made}", [TAG]))
            if status == 200:
                mine.append(ident)
        elif op == "get":
            ident = rng.choice(mine + seeded)
            status, answer = client.call("GET", f"/v1alpha/entities/{ident}")
        elif op == "list":
            status, answer = client.call("GET", f"/v1alpha/entities?pageSize=10&filter={query}")
            token_next = answer.get("nextPageToken") if status == 200 else None
            if token_next:
                results.append(("list", time.monotonic() - began))
                began = time.monotonic()
                status, answer = client.call(
                    "GET", f"/v1alpha/entities?pageSize=10&filter={query}&pageToken={urllib.parse.quote(token_next)}")
        else:
            ident = rng.choice(mine)
            status, answer = client.call("GET", f"/v1alpha/entities/{ident}")
            if status == 200:
                results.append(("get", time.monotonic() - began))
                began = time.monotonic()
                status, answer = client.call(
                    "PATCH", f"/v1alpha/entities/{ident}?updateMask=tags",
                    {"tags": [TAG, f"p{rng.randrange(1000)}"], "etag": answer["etag"]})
        if 200 <= status < 300:
            results.append((op, time.monotonic() - began))
        else:
            errors.append(f"{op}: {status} {json.dumps(answer)[:300]}")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else 0.0


def haproxy_counts(stats_url):
    """Answers per server of the backend `rics`: {server: {2xx, other, total}}."""
    parts = urllib.parse.urlsplit(stats_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", parts.path + ";csv")
    lines = conn.getresponse().read().decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    counts = {}
    for line in lines[1:]:
        row = dict(zip(header, line.split(",")))
        if row.get("pxname") == "rics" and row.get("svname") not in ("BACKEND", "FRONTEND"):
            number = lambda k: int(row.get(k) or 0)  # noqa: E731
            others = sum(number(k) for k in ("hrsp_1xx", "hrsp_3xx", "hrsp_4xx", "hrsp_5xx", "hrsp_other"))
            counts[row["svname"]] = {"2xx": number("hrsp_2xx"), "other": others,
                                     "errors": number("eresp") + number("econ")}
    return counts


def metrics_total(url):
    """The sum of rics_http_requests_total on a replica's /metrics, by status class."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", "/metrics")
    totals = {}
    for line in conn.getresponse().read().decode().splitlines():
        if line.startswith("rics_http_requests_total{"):
            labels, value = line.rsplit(" ", 1)
            status = labels.split('status="', 1)[1][0] + "xx"
            totals[status] = totals.get(status, 0) + int(float(value))
    return totals


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--proxy", required=True, help="haproxy's address, http://host:port")
    arguments.add_argument("--replica", action="append", required=True, help="each replica's address (two)")
    arguments.add_argument("--metrics", action="append", default=[], help="each replica's metrics address")
    arguments.add_argument("--stats", required=True, help="haproxy's statistics page, http://host:port/stats")
    arguments.add_argument("--client", default="bench:bench-secret-0001")
    arguments.add_argument("--seed", type=int, default=60)
    arguments.add_argument("--threads", type=int, default=8)
    arguments.add_argument("--duration", type=float, default=30)
    args = arguments.parse_args()

    client_id, secret = args.client.split(":", 1)
    token = Api(args.proxy).token(client_id, secret)
    proxy = Client(args.proxy, token)
    seeded = [f"s-{i:04d}" for i in range(args.seed)]
    for ident in seeded:
        expect(f"seed {ident}", *proxy.call(
            "POST", f"/v1alpha/entities?entityId={ident}", entity(f"Seed {ident}", [f"{TAG}-seed"])))
    a, b = (Client(r, token) for r in args.replica)
    cross_replica_checks(a, b, seeded)

    before = haproxy_counts(args.stats)
    results, errors, threads = [], [], []
    deadline = time.monotonic() + args.duration
    began = time.monotonic()
    for number in range(args.threads):
        thread = threading.Thread(target=worker, args=(number, args.proxy, token, deadline, seeded, results, errors))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    after = haproxy_counts(args.stats)

    print(f"load through haproxy: {args.threads} threads, {elapsed:.1f} s, {len(results)} requests answered 2xx "
          f"({len(results) / elapsed:.0f} req/s), {len(errors)} other answers")
    for op in ("create", "get", "list", "patch"):
        times = [t for o, t in results if o == op]
        print(f"  {op:6} {len(times):6} requests  p50 {percentile(times, 0.5) * 1e3:6.1f} ms  "
              f"p99 {percentile(times, 0.99) * 1e3:6.1f} ms")
    served = {}
    for server, counts in sorted(after.items()):
        delta = {k: counts[k] - before.get(server, {}).get(k, 0) for k in counts}
        served[server] = delta["2xx"]
        print(f"  replica {server}: haproxy counted {delta['2xx']} answers 2xx and {delta['other']} others "
              f"during the load, {delta['errors']} connection or response errors")
    for label, url in zip("ab", args.metrics):
        totals = metrics_total(url)
        print(f"  replica {label}: its /metrics counts {sum(totals.values())} requests since it started {totals}")
    for error in errors[:20]:
        print(f"  error: {error}")
    total = sum(served.values())
    if errors:
        raise SystemExit(f"{len(errors)} requests were not answered 2xx")
    if len(served) != 2 or total == 0 or min(served.values()) < total // 4:
        raise SystemExit(f"the load did not reach both replicas: {served}")
    print("replicas: ok")


if __name__ == "__main__":
    main()
