#!/usr/bin/env python3
"""The webhook deliveries' crash test (see crash-webhooks.sh), against the built binary.

Starts `rics serve` (the command in RICS_BINARY, the environment from the caller) and a slow
receiver (20 ms an answer), subscribes an endpoint to `entity.created`, creates 1,000
entities, kills the server with SIGKILL while most of their deliveries are pending, restarts
it, and checks that:

- every one of the 1,000 events reaches the receiver (at least once);
- every message of one event carries the same webhook-id, the event's id, so a receiver can
  drop the duplicates (messages in flight at the kill are sent again after their lease);
- every delivery ends SUCCEEDED.

Exits non-zero, naming what is wrong, when anything differs.
"""
import json
import os
import signal
import sys
import threading
import time
import urllib.request

from rics_api import Api, receive

port = int(os.environ.get("CRASH_PORT", "18184"))
base = f"http://127.0.0.1:{port}"
binary = os.environ.get("RICS_BINARY", "target/debug/rics")
log_path = os.environ.get("CRASH_LOG", "target/crash/server-webhooks.log")
entities = 1000
batch = 100
failures = []
received = []
lock = threading.Lock()


def arrived(body, headers):
    time.sleep(0.02)
    event = json.loads(body)["data"]["event"]
    with lock:
        received.append((event, headers.get("webhook-id")))


api = Api(base)
call = api.call


def new_token():
    return api.token("crash", "crash-secret-0001")


def count(token, state):
    query = urllib.request.quote(f"state = {state}")
    page = call("GET", f"/v1alpha/webhookEndpoints/crash-hook/deliveries?pageSize=1&filter={query}", token=token)
    return page.get("totalSize", 0)


receiver, hook = receive(arrived)

server = api.start(binary, log_path)
token = new_token()
call("POST", "/v1alpha/webhookEndpoints?webhookEndpointId=crash-hook",
     {"url": hook, "eventTypes": ["entity.created"]}, token)
for start_at in range(0, entities, batch):
    requests = [
        {"entityId": f"crash-{i}", "entity": {"displayName": f"Crash {i}",
                                              "individual": {"legalName": {"givenName": "Crash", "familyName": f"P{i}"}}}}
        for i in range(start_at, start_at + batch)
    ]
    call("POST", "/v1alpha/entities:batchCreate", {"requests": requests}, token)
pending = count(token, "PENDING")
server.send_signal(signal.SIGKILL)
server.wait()
with lock:
    before = len(received)
print(f"killed with {pending} of {entities} deliveries pending ({before} messages received)")
check_pending = pending >= entities // 2
server = api.start(binary, log_path)
try:
    token = new_token()
    deadline = time.time() + 180
    while time.time() < deadline:
        with lock:
            events = {event for event, _ in received}
        if len(events) >= entities and count(token, "PENDING") == 0:
            break
        time.sleep(0.5)
    with lock:
        messages = list(received)
    ids = {}
    for event, webhook_id in messages:
        ids.setdefault(event, set()).add(webhook_id)
    expected = set()
    for i in range(entities):
        page = call("GET", f"/v1alpha/entities/crash-{i}/events?pageSize=10", token=token)
        created = [e["name"] for e in page.get("events", []) if e["eventType"] == "entity.created"]
        expected.update(created)
    missing = expected - ids.keys()
    if not check_pending:
        failures.append(f"only {pending} deliveries were pending at the kill: the test proved little")
    if len(expected) != entities:
        failures.append(f"{len(expected)} entity.created events, not {entities}")
    if missing:
        failures.append(f"{len(missing)} events never reached the receiver, such as {sorted(missing)[:3]}")
    for event, seen in ids.items():
        if seen != {event.rsplit("/", 1)[-1]}:
            failures.append(f"{event} came with the webhook-ids {sorted(seen)}")
    for state in ("PENDING", "FAILED"):
        left = count(token, state)
        if left:
            failures.append(f"{left} deliveries are {state}")
    duplicates = len(messages) - len(ids)
finally:
    server.send_signal(signal.SIGTERM)
    server.wait()
    receiver.shutdown()

if failures:
    print(f"{len(failures)} failures:", *failures[:40], sep="\n  ")
    sys.exit(1)
print(f"ok: all {entities} events delivered after the SIGKILL; {duplicates} duplicates, each with its event's webhook-id")
