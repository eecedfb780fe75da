#!/usr/bin/env python3
"""The automation executions' crash test (see crash-executions.sh), against the built binary.

Starts `rics serve` (the command in RICS_BINARY, the environment from the caller), runs 200
executions of two automations, kills the server with SIGKILL while they are in various steps,
restarts it, and checks that every execution ends as it would have without the crash and that
every step's side effects happened exactly once:

- 140 runs of `crash-chain`, an automation of ours: WRITE_ACTIVITY_LOG, RAISE_ALERT, ADD_TAG,
  then RUN_JOB screening and RUN_JOB rating. Each entity gets one log of the step, one alert,
  the tag, one screening job and one rating job.
- 60 runs of the built-in `kyc-individual`: each waits for its form; half the forms are
  submitted before the kill, half after the restart. Each entity gets one identity document,
  one ID verification job, two screening jobs (the run's, and the re-screen that the
  entity's changed names start) and one rating job, and one of the outcome tags.

Exits non-zero, naming what is wrong, when anything differs.
"""
import os
import random
import signal
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from rics_api import Api

port = int(os.environ.get("CRASH_PORT", "18183"))
base = f"http://127.0.0.1:{port}"
binary = os.environ.get("RICS_BINARY", "target/debug/rics")
log_path = os.environ.get("CRASH_LOG", "target/crash/server-executions.log")
chain_runs = 140
kyc_runs = 60
pool = ThreadPoolExecutor(8)
failures = []


api = Api(base)
call = api.call


def new_token():
    return api.token("crash", "crash-secret-0001")


def executions(token, automation):
    page = call("GET", f"/v1alpha/automations/{automation}/executions?pageSize=1000", token=token)
    return page.get("automationExecutions", [])


def states(token):
    counts = {}
    for automation in ("crash-chain", "kyc-individual"):
        for execution in executions(token, automation):
            counts[execution["state"]] = counts.get(execution["state"], 0) + 1
    return counts


def waiting_forms(token):
    return {
        e["inputParameters"]["entity"]: e["forms"][0]
        for e in executions(token, "kyc-individual")
        if e["state"] == "WAITING_FOR_INPUT" and e.get("forms")
    }


def submit(token, entity, form):
    given = entity.rsplit("-", 1)[-1]
    call("PATCH", f"/v1alpha/{form}", {"response": {
        "given_name": "Kyc", "family_name": f"Person{given}", "date_of_birth": "1980-01-01",
        "nationality": "SE", "email": f"kyc{given}@example.com",
        "identity_document": {"documentType": "PASSPORT", "documentNumber": f"K{given:0>7}", "issuingCountry": "SWE"},
    }}, token)
    # A submit the crash interrupted may have landed: FAILED_PRECONDITION then.
    call("POST", f"/v1alpha/{form}:submit", {}, token, expect_ok=False)


def check(condition, message):
    if not condition:
        failures.append(message)


server = api.start(binary, log_path)
token = new_token()
call("POST", "/v1alpha/automations?automationId=crash-chain", {
    "displayName": "Crash chain",
    "inputSchema": {"entity": {"type": "string"}},
    "steps": [
        {"key": "log", "kind": "WRITE_ACTIVITY_LOG", "args": {"entity": "${parameters.entity}", "description": "Crash chain"}},
        {"key": "alert", "kind": "RAISE_ALERT", "args": {"alertType": "alertTypes/enhanced-due-diligence-required", "entity": "${parameters.entity}"}},
        {"key": "tag", "kind": "ADD_TAG", "args": {"entity": "${parameters.entity}", "tag": "crash"}},
        {"key": "screen", "kind": "RUN_JOB", "args": {"family": "pepSanctionIndividualEntityJobs", "entity": "${parameters.entity}"}},
        {"key": "rate", "kind": "RUN_JOB", "args": {"family": "individualEntityRiskRatingJobs", "entity": "${parameters.entity}"}},
    ],
}, token)
chain = [f"chain-{i}" for i in range(chain_runs)]
kyc = [f"kyc-{i}" for i in range(kyc_runs)]


def person(entity):
    call("POST", f"/v1alpha/entities?entityId={entity}", {"displayName": entity.title(),
         "individual": {"legalName": {"givenName": "Crash", "familyName": entity.title()}}}, token)


list(pool.map(person, chain + kyc))
list(pool.map(lambda e: call("POST", "/v1alpha/automations/kyc-individual:run", {"parameters": {"entity": f"entities/{e}"}}, token), kyc))
list(pool.map(lambda e: call("POST", "/v1alpha/automations/crash-chain:run", {"parameters": {"entity": f"entities/{e}"}}, token), chain))

# Half the KYC forms are submitted before the kill.
deadline = time.time() + 60
before = {}
while len(before) < kyc_runs // 2 and time.time() < deadline:
    before = waiting_forms(token)
    time.sleep(0.2)
early = dict(sorted(before.items())[: kyc_runs // 2])
list(pool.map(lambda item: submit(token, *item), early.items()))
time.sleep(random.uniform(0.5, 1.5))
at_kill = states(token)
server.send_signal(signal.SIGKILL)
server.wait()
print(f"killed with executions in {at_kill}")
check(sum(n for s, n in at_kill.items() if s not in ("SUCCEEDED", "FAILED", "CANCELLED")) > 0,
      f"every execution had ended before the kill: {at_kill}")

server = api.start(binary, log_path)
try:
    token = new_token()
    deadline = time.time() + 300
    submitted = set(early)
    while time.time() < deadline:
        for entity, form in waiting_forms(token).items():
            if entity not in submitted:
                submit(token, entity, form)
                submitted.add(entity)
        now = states(token)
        if sum(now.values()) == chain_runs + kyc_runs and set(now) <= {"SUCCEEDED", "FAILED", "CANCELLED"}:
            break
        time.sleep(0.5)
    final = states(token)
    print(f"after the restart: {final}")
    check(final == {"SUCCEEDED": chain_runs + kyc_runs}, f"not every execution succeeded: {final}")

    alerts = call("GET", "/v1alpha/alerts?pageSize=1000", token=token)["alerts"]
    alerts_of = {}
    for alert in alerts:
        for entity in alert.get("entities", []):
            alerts_of[entity] = alerts_of.get(entity, 0) + 1

    def jobs(family, entity):
        if family == "individualEntityIDVerificationJobs":
            page = call("GET", f"/v1alpha/{family}?pageSize=100&filter=" + urllib.request.quote(f'entity = "entities/{entity}"'), token=token)
        else:
            page = call("GET", f"/v1alpha/entities/{entity}/{family}?pageSize=100", token=token)
        return len(page.get(family, []))

    def audit_chain(entity):
        logs = call("GET", f"/v1alpha/entities/{entity}/activityLogs?pageSize=1000", token=token).get("activityLogs", [])
        ours = [log for log in logs if log.get("description") == "Crash chain"]
        tags = call("GET", f"/v1alpha/entities/{entity}", token=token).get("tags", [])
        return [
            (len(ours) == 1, f"{entity}: {len(ours)} activity logs of the chain"),
            (alerts_of.get(f"entities/{entity}", 0) == 1, f"{entity}: {alerts_of.get(f'entities/{entity}', 0)} alerts"),
            ("crash" in tags, f"{entity}: not tagged"),
            (jobs("pepSanctionIndividualEntityJobs", entity) == 1, f"{entity}: screening jobs != 1"),
            (jobs("individualEntityRiskRatingJobs", entity) == 1, f"{entity}: rating jobs != 1"),
        ]

    def audit_kyc(entity):
        documents = call("GET", "/v1alpha/documents?pageSize=1000&filter=" + urllib.request.quote(f'entity = "entities/{entity}"'), token=token).get("documents", [])
        tags = call("GET", f"/v1alpha/entities/{entity}", token=token).get("tags", [])
        return [
            (len(documents) == 1, f"{entity}: {len(documents)} documents"),
            (("kyc-passed" in tags) != ("kyc-referred" in tags), f"{entity}: outcome tags {tags}"),
            (jobs("individualEntityIDVerificationJobs", entity) == 1, f"{entity}: ID verification jobs != 1"),
            # Two: the run's screening step, and the re-screen of ongoing monitoring that
            # the form's answers start once, as they change the entity's names, date of
            # birth and nationality (one entity revision, one re-screen).
            (jobs("pepSanctionIndividualEntityJobs", entity) == 2, f"{entity}: screening jobs != 2"),
            (jobs("individualEntityRiskRatingJobs", entity) == 1, f"{entity}: rating jobs != 1"),
        ]

    for results in pool.map(audit_chain, chain):
        for ok, message in results:
            check(ok, message)
    for results in pool.map(audit_kyc, kyc):
        for ok, message in results:
            check(ok, message)
finally:
    server.send_signal(signal.SIGTERM)
    server.wait()

if failures:
    print(f"{len(failures)} failures:", *failures[:40], sep="\n  ")
    sys.exit(1)
print(f"ok: {chain_runs + kyc_runs} executions ended as without the crash, each side effect once")
