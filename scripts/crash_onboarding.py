#!/usr/bin/env python3
"""The onboarding jobs' crash test (see crash-onboarding.sh), against the built binary.

Starts `rics serve` (the command in RICS_BINARY, the environment from the caller) and a local
webhook receiver, creates 100 onboarding jobs at `entities/-` on the seeded KYC form, runs
them, and submits their forms in three waves with a SIGKILL of the server after each of the
first two:

- the first wave is submitted, then the server is killed while those journeys are in their
  steps (mapping, document, screening, rating, decision);
- after a restart, the second wave is being submitted when the server is killed again (some
  submits land, some do not: those are submitted again after the next restart);
- after the second restart, the rest.

Then it checks that every onboarding ended with exactly one decision: the job SUCCEEDED with a
result, its operation done with the same result, one `onboard_individual_entity_job.decided`
event among its entity's events, and one distinct webhook-id at the receiver carrying that
decision (a message in flight at a kill may be sent again: same webhook-id).

Besides, 10 onboardings whose mapping builds an invalid entity (a birth date before 1900)
are submitted in the first wave: their journeys fail around the kill, and each job must end
FAILED (never left RUNNING by a kill between the execution's end and the run's), with no
decision sent.

Exits non-zero, naming what is wrong, when anything differs.
"""
import base64
import json
import os
import random
import signal
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from rics_api import Api, receive

port = int(os.environ.get("CRASH_PORT", "18185"))
base = f"http://127.0.0.1:{port}"
binary = os.environ.get("RICS_BINARY", "target/debug/rics")
log_path = os.environ.get("CRASH_LOG", "target/crash/server-onboarding.log")
onboardings = 100
failing = 10
waves = (40, 30, 30)
decided_type = "onboard_individual_entity_job.decided"
pool = ThreadPoolExecutor(8)
failures = []
received = []
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


def arrived(body, headers):
    with lock:
        received.append((json.loads(body), headers.get("webhook-id")))


api = Api(base)
call = api.call


def new_token():
    return api.token("crash", "crash-secret-0001")


def check(condition, message):
    if not condition:
        failures.append(message)


def submit(token, i, form):
    """Fills and submits the form of onboarding `i`; False when the server did not answer
    (killed meanwhile). A submit the crash interrupted may have landed: FAILED_PRECONDITION
    then, which is fine."""
    try:
        call("PATCH", f"/v1alpha/{form}", {"response": {
            "given_name": "Onboard", "family_name": f"Person{i}", "date_of_birth": "1980-01-01",
            "nationality": "SE", "email": f"onboard{i}@example.com",
            "identity_document": {"documentType": "PASSPORT", "documentNumber": f"K{i:0>7}", "issuingCountry": "SWE"},
        }}, token, expect_ok=False, timeout=20)
        call("POST", f"/v1alpha/{form}:submit", {}, token, expect_ok=False, timeout=20)
        return True
    except OSError:
        return False


def form_state(token, form):
    return call("GET", f"/v1alpha/{form}", token=token)["state"]


def executions(token):
    page = call("GET", "/v1alpha/automations/onboard-individual/executions?pageSize=1000", token=token)
    counts = {}
    for execution in page.get("automationExecutions", []):
        key = execution["state"]
        if key == "RUNNING":
            at = [s["key"] for s in execution.get("steps", []) if s.get("state") in ("PENDING", "RUNNING")]
            key = f"RUNNING:{at[0] if at else '?'}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def jobs(token):
    page = call("GET", "/v1alpha/entities/-/onboardIndividualEntityJobs?pageSize=100", token=token)
    listed = page.get("onboardIndividualEntityJobs", [])
    while page.get("nextPageToken"):
        page = call("GET", "/v1alpha/entities/-/onboardIndividualEntityJobs?pageSize=100&pageToken="
                    + urllib.request.quote(page["nextPageToken"]), token=token)
        listed += page.get("onboardIndividualEntityJobs", [])
    return listed


def died(*args):
    """Says whether the server was still running when the script failed (a server that
    exits on its own is a finding)."""
    print(f"the script failed; the server's exit status: {server.poll()}", flush=True)
    sys.__excepthook__(*args)


sys.excepthook = died


def kill(server, what):
    server.send_signal(signal.SIGKILL)
    server.wait()
    print(f"killed {what}")


_receiver, hook = receive(arrived, "/onboarding")

server = api.start(binary, log_path)
token = new_token()
body = {
    "formDefinition": "formDefinitions/kyc-individual",
    "jsonataExpression": base64.b64encode(mapping.encode()).decode(),
    "webhookUri": hook,
}
bad_body = dict(body, jsonataExpression=base64.b64encode(
    mapping.replace("date_of_birth", '"1700-01-01"').encode()).decode())
names = list(pool.map(lambda _: call("POST", "/v1alpha/entities/-/onboardIndividualEntityJobs", body, token)["name"],
                      range(onboardings)))
bad_names = list(pool.map(lambda _: call("POST", "/v1alpha/entities/-/onboardIndividualEntityJobs", bad_body, token)["name"],
                          range(failing)))
operations = list(pool.map(lambda name: call("POST", f"/v1alpha/{name}:run", {}, token), names))
forms = [operation["metadata"]["debug"]["form"] for operation in operations]
bad_forms = [call("POST", f"/v1alpha/{name}:run", {}, token)["metadata"]["debug"]["form"] for name in bad_names]
first, second, third = (list(range(0, waves[0])), list(range(waves[0], waves[0] + waves[1])),
                        list(range(waves[0] + waves[1], onboardings)))

# Wave 1 (and the failing ones): submitted, then the kill while the journeys are in their steps.
list(pool.map(lambda item: submit(token, *item), [(i, forms[i]) for i in first] + list(enumerate(bad_forms, onboardings))))
# The kill comes once a few journeys have decided, the others spread over the later steps.
# Workers end the runs of a claimed batch (RICS_JOB_BATCH) close together, so the count
# is looked at often: a slow look could miss every journey in a step.
decided_at_kill = random.randint(0, 15)
deadline = time.time() + 120
while executions(token).get("SUCCEEDED", 0) < decided_at_kill and time.time() < deadline:
    time.sleep(0.05)
at_kill = executions(token)
kill(server, f"with the first wave's journeys in {at_kill}")
check(any(k.startswith("RUNNING") for k in at_kill),
      f"no journey was in a step at the first kill: {at_kill}")

# Wave 2: the kill lands while its forms are being submitted.
server = api.start(binary, log_path)
token = new_token()
submitting = pool.map(lambda i: submit(token, i, forms[i]), second)
time.sleep(random.uniform(0.1, 0.6))
at_kill = executions(token)
kill(server, f"while the second wave was being submitted, journeys in {at_kill}")
landed = sum(1 for ok in submitting if ok)
print(f"{landed} of {len(second)} second-wave submits were answered before the kill")

# Wave 3, and whatever of wave 2 did not land.
server = api.start(binary, log_path)
try:
    token = new_token()
    again = [i for i in second if form_state(token, forms[i]) == "DRAFT"]
    print(f"{len(again)} second-wave forms are still drafts: submitted again")
    list(pool.map(lambda i: submit(token, i, forms[i]), again + third))
    deadline = time.time() + 600
    while time.time() < deadline:
        listed = jobs(token)
        if len(listed) == onboardings + failing and all(j["state"] in ("SUCCEEDED", "FAILED", "CANCELLED") for j in listed):
            break
        time.sleep(1)
    listed = {j["name"]: j for j in jobs(token)}
    counts = {}
    for job in listed.values():
        counts[job["state"]] = counts.get(job["state"], 0) + 1
    print(f"after the restarts: jobs {counts}, journeys {executions(token)}")
    check(counts == {"SUCCEEDED": onboardings, "FAILED": failing}, f"not every onboarding ended as it should: {counts}")
    for name in bad_names:
        job = listed.get(name, {})
        check(job.get("state") == "FAILED" and "result" not in job, f"{name}, whose mapping is invalid: {job.get('state')}")

    # The webhooks: each job's decision once (one webhook-id), within a minute.
    deadline = time.time() + 60
    while time.time() < deadline:
        with lock:
            told = {b["data"]["object"]["name"] for b, _ in received if b.get("type") == decided_type}
        if told >= set(names):
            break
        time.sleep(0.5)
    with lock:
        messages = list(received)
    told_failed = {b["data"]["object"]["name"] for b, _ in messages} & set(bad_names)
    check(not told_failed, f"failed onboardings sent a decision: {sorted(told_failed)}")

    def audit(index):
        name = names[index]
        job = listed.get(name, {})
        result = job.get("result") or {}
        problems = []
        if result.get("decision") not in ("APPROVED", "REFER", "REJECTED"):
            problems.append(f"{name}: no decision ({job.get('state')}, {job.get('error') or result})")
            return problems
        operation = call("GET", f"/v1alpha/{operations[index]['name']}", token=token)
        if not operation.get("done") or (operation.get("response") or {}).get("result") != result:
            problems.append(f"{name}: its operation is not done with the result: {operation}")
        query = urllib.request.quote(f'eventType = "{decided_type}"')
        events = call("GET", f"/v1alpha/{result['entity']}/events?pageSize=100&filter={query}", token=token)
        if len(events.get("events", [])) != 1:
            problems.append(f"{name}: {len(events.get('events', []))} decided events")
        ours = [(b, hook_id) for b, hook_id in messages
                if b.get("type") == decided_type and b["data"]["object"]["name"] == name]
        ids = {hook_id for _, hook_id in ours}
        if len(ids) != 1:
            problems.append(f"{name}: {len(ids)} webhook-ids among {len(ours)} messages")
        elif any(b["data"]["object"].get("result", {}).get("decision") != result["decision"] for b, _ in ours):
            problems.append(f"{name}: a webhook tells another decision than the job's")
        return problems

    for problems in pool.map(audit, range(onboardings)):
        for problem in problems:
            check(False, problem)
    decisions = {}
    for job in (listed.get(name, {}) for name in names):
        decision = (job.get("result") or {}).get("decision")
        decisions[decision] = decisions.get(decision, 0) + 1
    print(f"decisions: {decisions}; {len(messages)} webhook messages received")
finally:
    server.send_signal(signal.SIGTERM)
    server.wait()

if failures:
    print(f"{len(failures)} failures:", *failures[:40], sep="\n  ")
    sys.exit(1)
print(f"ok: {onboardings} onboardings through two kills, each with one decision, one decided event and one webhook;"
      f" {failing} with an invalid mapping FAILED")
