#!/usr/bin/env python3
"""Drives the automation execution benchmark against a running rics (see bench-executions.sh).

1. throughput: BENCH_EXECUTIONS runs of the built-in `automations/screen-entity` (one
   RUN_JOB step: a screening job about an entity), queued at once by 8 client threads;
   executions per second from the first execution's createTime to the last endTime.
2. resume latency: BENCH_RESUMES runs of `bench-wait` (REQUEST_FORM, then ADD_TAG), one after
   another: each waits for its form, the form is submitted, and the latency is from the form's
   submitTime to the end of the waiting step (the execution resumed), p50, p90, p99 and max.
Times come from the server's own fields, so the client's HTTP overhead is not counted.
"""
import os, sys, time
from concurrent.futures import ThreadPoolExecutor

from rics_api import Api, when

base = sys.argv[1]
runs = int(os.environ.get("BENCH_EXECUTIONS", "1000"))
resumes = int(os.environ.get("BENCH_RESUMES", "200"))
pool = ThreadPoolExecutor(8)

api = Api(base)
call = api.call
token = api.token("bench", "bench-secret-0001")

def execution(operation):
    return "/v1alpha/" + operation["metadata"]["debug"]["execution"]

def wait(path, done):
    while True:
        current = call("GET", path, token=token)
        if done(current):
            return current
        time.sleep(0.01)

entities = ["bench-%d" % i for i in range(100)]
list(pool.map(lambda e: call("POST", "/v1alpha/entities?entityId=" + e, {"displayName": e,
     "individual": {"legalName": {"givenName": "Bench", "familyName": e}}}, token), entities))
# Warm-up: the first screening loads the lists.
warm = call("POST", "/v1alpha/automations/screen-entity:run", {"parameters": {"entity": "entities/bench-0"}}, token)
wait(execution(warm), lambda x: x["state"] == "SUCCEEDED")

# 1. Throughput.
ended = lambda x: x["state"] in ("SUCCEEDED", "FAILED", "CANCELLED")
operations = list(pool.map(lambda i: call("POST", "/v1alpha/automations/screen-entity:run",
    {"parameters": {"entity": "entities/" + entities[i % len(entities)]}}, token), range(runs)))
finished = list(pool.map(lambda o: wait(execution(o), ended), operations))
failed = [x for x in finished if x["state"] != "SUCCEEDED"]
assert not failed, failed[0]
span = max(when(x["endTime"]) for x in finished) - min(when(x["createTime"]) for x in finished)
print("throughput: %d screen-entity executions in %.2f s = %.0f executions/s" % (runs, span, runs / span))

# 2. Resume latency.
call("POST", "/v1alpha/formDefinitions?formDefinitionId=bench-form", {"displayName": "Bench form",
     "schema": {"steps": [{"key": "s", "label": "S", "fields": [{"key": "answer", "label": "Answer", "type": "TEXT"}]}]}}, token)
call("POST", "/v1alpha/automations?automationId=bench-wait", {"displayName": "Bench wait",
     "inputSchema": {"entity": {"type": "string"}},
     "steps": [{"key": "ask", "kind": "REQUEST_FORM", "args": {"formDefinition": "formDefinitions/bench-form", "entity": "${parameters.entity}"}},
               {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "resumed"}}]}, token)
latencies = []
for i in range(resumes):
    operation = call("POST", "/v1alpha/automations/bench-wait:run", {"parameters": {"entity": "entities/" + entities[i % len(entities)]}}, token)
    waiting = wait(execution(operation), lambda x: x["state"] == "WAITING_FOR_INPUT")
    form_name = waiting["forms"][0]
    call("PATCH", "/v1alpha/" + form_name, {"response": {"answer": "yes"}}, token)
    submitted = call("POST", "/v1alpha/" + form_name + ":submit", {}, token)
    done = wait(execution(operation), ended)
    ask = next(s for s in done["steps"] if s["key"] == "ask")
    latencies.append((when(ask["endTime"]) - when(submitted["submitTime"])) * 1000)
latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
print("submit -> resumed: p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms (%d executions)" % (
    pick(0.5), pick(0.9), pick(0.99), latencies[-1], len(latencies)))
