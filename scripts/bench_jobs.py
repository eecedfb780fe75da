#!/usr/bin/env python3
"""Drives the screening-job benchmark against a running rics (see bench-jobs.sh).

Creates an entity on the UN list and BENCH_JOBS screening jobs about it, then:
  1. throughput: queues one run of each job as fast as 8 client threads can, and
     reports runs per second from the first queue time to the last end time;
  2. latency: queues BENCH_LATENCY_RUNS runs at BENCH_RATE per second (a queue that
     is not backed up) and reports p50, p90, p99 and max of end time - queue time.
Times come from each operation's metadata.debug (set by the server), so the client's
own HTTP overhead is not counted.

With BENCH_QUEUED_FIRST (bench-jobs.sh sets BENCH_WORKER_BINARY and the rest), the server
runs no worker: the BENCH_JOBS runs are queued through it, then a second server with
BENCH_WORKERS workers drains them while the client only waits, and the drain alone is
reported instead; BENCH_ANALYZE=1 analyzes the database once the runs are queued, so
that the drain runs on the statistics a database in service has.
"""
import os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

from rics_api import Api, when

base = sys.argv[1]
jobs = int(os.environ.get("BENCH_JOBS", "2000"))
rate = float(os.environ.get("BENCH_RATE", "50"))
latency_runs = int(os.environ.get("BENCH_LATENCY_RUNS", "500"))

api = Api(base)
call = api.call
token = api.token("bench", "bench-secret-0001")

call("POST", "/v1alpha/entities?entityId=eric-badege", {"displayName": "Eric Badege",
     "individual": {"legalName": {"givenName": "Eric", "familyName": "Badege"}}}, token)
pool = ThreadPoolExecutor(8)
names = list(pool.map(lambda _: call("POST", "/v1alpha/entities/eric-badege/pepSanctionIndividualEntityJobs", {}, token)["name"], range(jobs)))

def wait_all(operations):
    done = []
    for name in operations:
        while True:
            operation = call("GET", "/v1alpha/" + name, token=token)
            if operation["done"]:
                assert "error" not in operation, operation
                done.append(operation["metadata"]["debug"])
                break
            time.sleep(0.01)
    return done

if os.environ.get("BENCH_QUEUED_FIRST"):
    operations = list(pool.map(lambda name: call("POST", "/v1alpha/" + name + ":run", {}, token)["name"], names))
    if os.environ.get("BENCH_ANALYZE"):
        # Planner statistics of the full queue, as a database in service has them.
        subprocess.run(["psql", os.environ["RICS_DATABASE_URL"], "-qc", "ANALYZE"], check=True)
    with open(os.environ["BENCH_WORKER_LOG"], "w") as log:
        worker = subprocess.Popen(
            [os.environ["BENCH_WORKER_BINARY"], "serve"], stdout=log, stderr=log,
            env=dict(os.environ, RICS_BIND_ADDRESS=os.environ["BENCH_WORKER_ADDRESS"],
                     RICS_JOB_CONCURRENCY=os.environ["BENCH_WORKERS"]))
    try:
        # Waits without load while the queue drains, then reads every run's times.
        while not call("GET", "/v1alpha/" + operations[-1], token=token)["done"]:
            time.sleep(0.5)
        debug = wait_all(operations)
    finally:
        worker.terminate()
        worker.wait()
    # The first run to end loaded the lists; the drain is measured from its end.
    first_end = min(when(d["endTime"]) for d in debug)
    after = [d for d in debug if when(d["startTime"]) >= first_end]
    span = max(when(d["endTime"]) for d in after) - first_end
    print("drain alone, client idle: %d runs in %.2f s = %.0f runs/s (after the first run ended; %d runs in all)" % (
        len(after), span, len(after) / span, len(debug)))
    sys.exit(0)

# Warm-up: the first run loads the lists (a second or two for the bundled ones).
warm = call("POST", "/v1alpha/entities/eric-badege/pepSanctionIndividualEntityJobs", {}, token)["name"]

wait_all([call("POST", "/v1alpha/" + warm + ":run", {}, token)["name"]])

# 1. Throughput: every job queued at once.
operations = list(pool.map(lambda name: call("POST", "/v1alpha/" + name + ":run", {}, token)["name"], names))
debug = wait_all(operations)
span = max(when(d["endTime"]) for d in debug) - min(when(d["queueTime"]) for d in debug)
print("throughput: %d runs in %.2f s = %.0f runs/s, queueing included (workers: %s)" % (
    len(debug), span, len(debug) / span, sorted({d["worker"][:16] for d in debug})))
# The drain alone: the runs started after the last one was queued, when the client
# no longer competes with the workers for the CPU.
last_queued = max(when(d["queueTime"]) for d in debug)
tail = [d for d in debug if when(d["startTime"]) >= last_queued]
if len(tail) > 50:
    drain = max(when(d["endTime"]) for d in tail) - last_queued
    print("drain: %d runs in %.2f s after the last was queued = %.0f runs/s" % (len(tail), drain, len(tail) / drain))

# 2. Latency at a steady rate (each run reruns a finished job).
operations = []
start = time.time()
for i in range(latency_runs):
    target = start + i / rate
    pause = target - time.time()
    if pause > 0:
        time.sleep(pause)
    operations.append(call("POST", "/v1alpha/" + names[i % len(names)] + ":run", {}, token)["name"])
debug = wait_all(operations)
latencies = sorted((when(d["endTime"]) - when(d["queueTime"])) * 1000 for d in debug)
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
print("latency at %.0f runs/s: p50 %.1f ms  p90 %.1f ms  p99 %.1f ms  max %.1f ms (%d runs)" % (
    rate, pick(0.5), pick(0.9), pick(0.99), latencies[-1], len(latencies)))
