#!/usr/bin/env python3
"""Drives the onboarding benchmark against a running rics (see bench-onboarding.sh).

Onboarding jobs at `entities/-` on the seeded KYC form, each told at a local webhook
receiver; forms are submitted through the API (the hosted pages save the same DRAFT and
submit it the same way). Measured:

1. throughput: BENCH_ONBOARDINGS onboardings (default 200) are run; once every journey waits
   for its form, the forms are submitted by 8 client threads at once; onboardings decided per
   second from the first form's submitTime to the last result's decideTime (the server's own
   times), and submit -> webhook in that burst (mostly the wait in the queue);
2. latency: BENCH_LATENCY onboardings (default 50) one after another, each submitted once its
   journey waits for the form: from the form's submitTime to the arrival of its decision
   (`onboard_individual_entity_job.decided`) at the receiver, on the same machine's clock:
   p50, p90, p99 and max.
"""
import base64
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from rics_api import Api, receive, when

base = sys.argv[1]
onboardings = int(os.environ.get("BENCH_ONBOARDINGS", "200"))
samples = int(os.environ.get("BENCH_LATENCY", "50"))
pool = ThreadPoolExecutor(8)
arrived = {}
lock = threading.Lock()

mapping = """{
    "displayName": given_name & " " & family_name,
    "individual": {
        "legalName": {"givenName": given_name, "familyName": family_name},
        "dateOfBirth": date_of_birth,
        "nationalities": [nationality]
    },
    "contactInfo": {"emails": [email]}
}"""


def decided(body, _headers):
    now = time.time()
    body = json.loads(body)
    if body.get("type") == "onboard_individual_entity_job.decided":
        with lock:
            arrived.setdefault(body["data"]["object"]["name"], now)


_receiver, hook = receive(decided, "/onboarding")

api = Api(base)
call = api.call
token = api.token("bench", "bench-secret-0001")
body = {
    "formDefinition": "formDefinitions/kyc-individual",
    "jsonataExpression": base64.b64encode(mapping.encode()).decode(),
    "webhookUri": hook,
}


def wait(path, done):
    while True:
        current = call("GET", path, token=token)
        if done(current):
            return current
        time.sleep(0.02)


def start(_):
    job = call("POST", "/v1alpha/entities/-/onboardIndividualEntityJobs", body, token)
    operation = call("POST", "/v1alpha/%s:run" % job["name"], {}, token)
    # The run starts its journey, which then waits for the form.
    execution = wait("/v1alpha/" + operation["name"],
                     lambda o: o["metadata"]["debug"].get("execution"))["metadata"]["debug"]["execution"]
    wait("/v1alpha/" + execution, lambda x: x["state"] == "WAITING_FOR_INPUT")
    return job["name"], operation["name"], operation["metadata"]["debug"]["form"]


def percentiles(latencies):
    latencies = sorted(latencies)
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    return "p50 %.0f ms  p90 %.0f ms  p99 %.0f ms  max %.0f ms (%d onboardings)" % (
        pick(0.5), pick(0.9), pick(0.99), latencies[-1], len(latencies))


def arrival(name, deadline):
    while time.time() < deadline:
        with lock:
            if name in arrived:
                return arrived[name]
        time.sleep(0.005)
    raise SystemExit("the decision of %s never reached the receiver" % name)


def submit(i, form):
    call("PATCH", "/v1alpha/" + form, {"response": {
        "given_name": "Bench", "family_name": "Person%d" % i, "date_of_birth": "1980-01-01",
        "nationality": "SE", "email": "bench%d@example.com" % i,
        "identity_document": {"documentType": "PASSPORT", "documentNumber": "B%07d" % i, "issuingCountry": "SWE"},
    }}, token)
    return call("POST", "/v1alpha/%s:submit" % form, {}, token)["submitTime"]


# Warm-up: one onboarding end to end (the first screening loads the lists).
name, operation, form = start(0)
submit(0, form)
wait("/v1alpha/" + operation, lambda o: o.get("done"))

runs = list(pool.map(start, range(1, onboardings + 1)))
submitted = list(pool.map(lambda r: submit(r[0], r[1][2]), enumerate(runs, 1)))
done = list(pool.map(lambda r: wait("/v1alpha/" + r[1], lambda o: o.get("done")), runs))
failed = [o for o in done if "error" in o]
assert not failed, failed[0]
deadline = time.time() + 120
while time.time() < deadline:
    with lock:
        if all(r[0] in arrived for r in runs):
            break
    time.sleep(0.05)
results = [o["response"]["result"] for o in done]
span = max(when(r["decideTime"]) for r in results) - min(when(s) for s in submitted)
print("throughput: %d onboardings from submit to decision in %.2f s = %.1f onboardings/s" % (
    onboardings, span, onboardings / span))
burst = [(arrival(r[0], deadline) - when(s)) * 1000 for r, s in zip(runs, submitted)]
print("submit -> webhook, all submitted at once: " + percentiles(burst))

latencies = []
for i in range(onboardings + 1, onboardings + 1 + samples):
    name, operation, form = start(i)
    submitted = when(submit(i, form))
    latencies.append((arrival(name, time.time() + 120) - submitted) * 1000)
print("submit -> webhook, one at a time: " + percentiles(latencies))
