#!/usr/bin/env python3
"""Webhook delivery benchmark (see bench-webhooks.sh), against a running `rics serve`.

A receiver on 127.0.0.1 answers 200 at once and notes when each message arrives.
- Throughput: an endpoint subscribed to `entity.created`; BENCH_DELIVERIES entities made
  by `entities:batchCreate` (500 a call), so that many deliveries are queued at once;
  deliveries per second from the first message to the last.
- Latency: BENCH_SAMPLES entities created one at a time, 100 ms apart (the queue idle
  in between); for each, from the moment its create answered (its event committed) to
  the moment its message arrived: p50, p90, p99, max.
"""
import json
import os
import sys
import threading
import time

from rics_api import Api, receive

base = sys.argv[1]
deliveries = int(os.environ.get("BENCH_DELIVERIES", "2000"))
samples = int(os.environ.get("BENCH_SAMPLES", "200"))
arrivals = {}
lock = threading.Lock()


def arrived(body, _headers):
    now = time.monotonic()
    resource = json.loads(body)["data"]["resource"]
    with lock:
        arrivals.setdefault(resource, now)


api = Api(base)


def call(method, path, body, token):
    return api.call(method, path, body, token, timeout=120)


def token():
    return api.token("bench", "bench-secret-0001")


def person(i):
    return {"displayName": f"Bench {i}", "individual": {"legalName": {"givenName": "Bench", "familyName": f"P{i}"}}}


def wait_for(names, limit):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with lock:
            if all(n in arrivals for n in names):
                return True
        time.sleep(0.01)
    return False


receiver, hook = receive(arrived)
bearer = token()
call("POST", "/v1alpha/webhookEndpoints?webhookEndpointId=bench-hook",
     {"url": hook, "eventTypes": ["entity.created"]}, bearer)

names = [f"entities/burst-{i}" for i in range(deliveries)]
for start in range(0, deliveries, 500):
    requests = [{"entityId": f"burst-{i}", "entity": person(i)} for i in range(start, min(start + 500, deliveries))]
    call("POST", "/v1alpha/entities:batchCreate", {"requests": requests}, bearer)
if not wait_for(names, 600):
    raise SystemExit("the burst was not delivered within 10 minutes")
with lock:
    times = sorted(arrivals[n] for n in names)
rate = (len(times) - 1) / (times[-1] - times[0])
print(f"throughput: {deliveries} deliveries in {times[-1] - times[0]:.2f} s: {rate:.0f} deliveries/s")

latencies = []
for i in range(samples):
    name = f"entities/idle-{i}"
    call("POST", f"/v1alpha/entities?entityId=idle-{i}", person(i), bearer)
    committed = time.monotonic()
    if not wait_for([name], 30):
        raise SystemExit(f"{name} was not delivered within 30 s")
    with lock:
        latencies.append(arrivals[name] - committed)
    time.sleep(0.1)
latencies.sort()


def pct(p):
    return latencies[min(len(latencies) - 1, int(p / 100 * len(latencies)))] * 1000


print(f"event -> delivery, idle queue, {samples} samples: p50 {pct(50):.1f} ms, p90 {pct(90):.1f} ms, "
      f"p99 {pct(99):.1f} ms, max {latencies[-1] * 1000:.1f} ms")
receiver.shutdown()
