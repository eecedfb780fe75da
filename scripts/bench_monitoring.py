#!/usr/bin/env python3
"""Drives the ongoing-monitoring benchmark (see bench-monitoring.sh).

  list FILE K
      writes version K of the watched list (generic JSON lines): version 0 is 4,000
      OFAC SDN 2024-05 individuals and organisations; each later version adds 500 records
      and changes 500 (a program added), a delta of 1,000 records.
  seed BASE PG N
      seeds N monitored entities straight into PostgreSQL with COPY: the rows a create
      writes (entities, entity_bodies, entity_tags, entity_external_ids,
      and the `entity.created` event), shaped after one entity
      created through the API at BASE. Census 1990 names (data/names), a date of birth
      and a nationality each; 300 per list version are named like records that version
      adds or changes, so that its delta raises alerts.
  round PG FILE K PID
      writes version K, sends SIGHUP to the server PID, waits until the re-screen task
      and every run it started are done, and prints the time from the SIGHUP to the
      last alert, with its phases.
"""
import bisect
import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid

from rics_api import Api

BASE_RECORDS = 4000
DELTA_ADDED = 500
DELTA_CHANGED = 500
NAMED_PER_VERSION = 300
ROUNDS = 6
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
COUNTRIES = ["GB", "FR", "DE", "US", "AE", "SG", "CH", "NL", "ES", "IT", "RU", "CN", "BR", "NG", "MX", "IN"]
WORDS = ["Global", "Trading", "Holdings", "Capital", "Maritime", "Energy", "Logistics", "Partners",
         "Ventures", "Industries", "Consulting", "Resources", "Systems", "Group", "Finance"]
TAGS = ["retail", "corporate", "priority", "dormant"]


def sdn_records():
    """OFAC SDN 2024-05 individuals and organisations, in a fixed shuffled order."""
    path = os.path.join(ROOT, "data/lists/ofac_sdn_2024-05/sdn.csv")
    records = []
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f):
            if len(row) < 4:
                continue
            kind = row[2].strip()
            if kind not in ("individual", "-0-"):
                continue
            records.append({"id": "sdn-" + row[0].strip(), "name": row[1].strip(),
                            "kind": "person" if kind == "individual" else "organisation",
                            "programs": [row[3].strip()]})
    random.Random(7).shuffle(records)
    return records


def version(k):
    """Version k of the list, and the records it added and changed."""
    records = [dict(r) for r in sdn_records()[: BASE_RECORDS + DELTA_ADDED * k]]
    for v in range(1, k + 1):
        for r in records[(v - 1) * DELTA_CHANGED: v * DELTA_CHANGED]:
            r["programs"] = r["programs"] + [f"BENCH-{v}"]
    added = records[BASE_RECORDS + DELTA_ADDED * (k - 1):] if k else []
    changed = records[(k - 1) * DELTA_CHANGED: k * DELTA_CHANGED] if k else []
    return records, added, changed


def write_list(path, k):
    records, _, _ = version(k)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    os.replace(tmp, path)


def psql(pg, sql):
    out = subprocess.run(["psql", pg, "-qAtX", "-F", "\t", "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def census(name):
    names, cumulative, total = [], [], 0.0
    with open(os.path.join(ROOT, "data/names", name)) as f:
        for row in csv.DictReader(f):
            total += float(row["percent"])
            names.append(row["name"].title())
            cumulative.append(total)
    return names, cumulative, total


def draw(rng, table):
    names, cumulative, total = table
    return names[min(bisect.bisect_left(cumulative, rng.random() * total), len(names) - 1)]


def trigrams(text):
    """As rics_domain::text_search::trigrams, for ASCII names."""
    out, word = set(), []
    for c in text.lower() + " ":
        if c.isascii() and c.isalnum():
            word.append(c)
        elif word:
            padded = "  " + "".join(word) + " "
            out.update(padded[i:i + 3] for i in range(len(padded) - 2))
            word = []
    return out


def listed_entity(record):
    """An entity named like a list record."""
    if record["kind"] == "person":
        family, _, given = record["name"].partition(", ")
        given, family = given.title(), family.title()
        display = f"{given} {family}".strip()
        return {"displayName": display, "entityType": "INDIVIDUAL",
                "individual": {"legalName": {"givenName": given, "familyName": family}}}
    name = record["name"].title()
    return {"displayName": name, "entityType": "COMPANY", "company": {"legalName": name}}


def generated_entity(rng, given, family, i):
    if rng.random() < 0.85:
        g, f = draw(rng, given), draw(rng, family)
        return {"displayName": f"{g} {f}", "entityType": "INDIVIDUAL",
                "individual": {"legalName": {"givenName": g, "familyName": f},
                               "dateOfBirth": f"{rng.randint(1940, 2004)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                               "nationalities": [rng.choice(COUNTRIES)]}}
    name = f"{draw(rng, family)} {rng.choice(WORDS)} {i}"
    return {"displayName": name, "entityType": "COMPANY", "company": {"legalName": name + " Ltd"}}


def copy_text(value):
    if value is None:
        return "\\N"
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def seed(base, pg, count):
    api = Api(base)
    token = api.token("bench", "bench-secret-0001")
    api.call("POST", "/v1alpha/entities?entityId=bench-template",
             {"displayName": "Template Person", "tags": ["retail"], "externalIds": {"crm": "C-0"},
              "individual": {"legalName": {"givenName": "Template", "familyName": "Person"},
                             "dateOfBirth": "1970-01-02", "nationalities": ["GB"]}}, token, expect_ok=False)
    (tenant, creator, payload), = psql(pg, "SELECT tenant_id, creator, payload FROM events "
                                           "WHERE entity_id = 'bench-template' AND event_type = 'entity.created'")
    template = json.loads(payload)
    assert set(template) <= {"resource", "principal", "changes", "object"}, template
    rng = random.Random(11)
    given, family = census("census_1990_given_names.csv"), census("census_1990_surnames.csv")
    named = []
    for k in range(1, ROUNDS + 1):
        _, added, changed = version(k)
        named += [listed_entity(r) for r in added[: NAMED_PER_VERSION // 2] + changed[: NAMED_PER_VERSION // 2]]
    spread = max(1, count // max(1, len(named)))
    start = int(time.time() * 1e6) - count - 10_000_000
    work = os.path.join(ROOT, "target/bench/monitoring-seed")
    os.makedirs(work, exist_ok=True)
    files = {t: open(os.path.join(work, t + ".tsv"), "w") for t in
             ("entities", "entity_bodies", "entity_tags", "entity_external_ids", "events")}

    def row(table, *values):
        files[table].write("\t".join(copy_text(v) for v in values) + "\n")

    for i in range(count):
        entity_id = f"m-{i:07d}"
        if i % spread == 0 and i // spread < len(named):
            body = dict(named[i // spread])
        else:
            body = generated_entity(rng, given, family, i)
        tags = [TAGS[i % len(TAGS)]] if i % 3 == 0 else []
        if tags:
            body["tags"] = tags
        body["externalIds"] = {"crm": f"C-{i:07d}"}
        micros = start + i
        row("entities", tenant, entity_id, str(uuid.UUID(int=rng.getrandbits(128), version=4)), 1,
            body["entityType"], body["displayName"], len(trigrams(body["displayName"])),
            None, None, None, "f", micros, micros, None, None, None)
        row("entity_bodies", tenant, entity_id, json.dumps(body, separators=(",", ":")))
        for tag in tags:
            row("entity_tags", tenant, entity_id, tag)
        row("entity_external_ids", tenant, entity_id, "crm", f"C-{i:07d}")
        event = {"resource": f"entities/{entity_id}", "principal": creator, "changes": {}}
        if "object" in template:
            event["object"] = {**body, "name": f"entities/{entity_id}"}
        event_id = uuid.UUID(int=((micros // 1000) << 80) | (0x7 << 76) | (rng.getrandbits(12) << 64)
                             | (0b10 << 62) | rng.getrandbits(62))
        row("events", tenant, str(event_id), entity_id, "entity.created", json.dumps(event), creator, micros)
        if i % 100_000 == 0:
            print(f"  generated {i}", file=sys.stderr, flush=True)
    columns = {
        "entities": "tenant_id, id, uid, revision, entity_type, display_name, display_name_trigrams, "
                    "risk_level, screening_status, verification_status, legal_hold, create_time, "
                    "update_time, delete_time, purge_time, risk_status",
        "entity_bodies": "tenant_id, entity_id, body",
        "entity_tags": "tenant_id, entity_id, tag",
        "entity_external_ids": "tenant_id, entity_id, id_key, id_value",
        "events": "tenant_id, id, entity_id, event_type, payload, creator, create_time",
    }
    for table, f in files.items():
        f.close()
        began = time.time()
        subprocess.run(["psql", pg, "-qX", "-c", f"\\copy {table} ({columns[table]}) FROM '{f.name}'"], check=True)
        print(f"  copied {table} in {time.time() - began:.1f} s", file=sys.stderr, flush=True)
    psql(pg, "ANALYZE")
    print(f"seeded {count} entities ({len(named)} named like list records) in tenant {tenant}")


def round_(pg, path, k, pid):
    before = psql(pg, "SELECT count(*) FROM job_tasks WHERE family = 'screeningListChanges' AND done")[0][0]
    write_list(path, k)
    t0 = time.time()
    os.kill(pid, signal.SIGHUP)
    t0_us = int(t0 * 1e6)
    while True:
        time.sleep(0.25)
        done, pending = psql(pg, "SELECT (SELECT count(*) FROM job_tasks WHERE family = 'screeningListChanges' AND done), "
                                 "(SELECT count(*) FROM job_tasks WHERE NOT done)")[0]
        if int(done) > int(before) and int(pending) == 0:
            break
        if time.time() - t0 > 3600:
            raise SystemExit("no end after an hour")
    (change, task_end), = psql(pg, "SELECT (SELECT max(change_time) FROM screening_list_changes), "
                                   "(SELECT max(update_time) FROM job_tasks WHERE family = 'screeningListChanges')")
    (runs, runs_first, runs_end), = psql(pg, f"SELECT count(*), min(create_time), max(update_time) FROM job_tasks "
                                             f"WHERE family <> 'screeningListChanges' AND create_time >= {t0_us}")
    (alerts, first, last), = psql(pg, f"SELECT count(*), min(create_time), max(create_time) FROM alerts "
                                      f"WHERE create_time >= {t0_us}")

    def at(micros):
        return f"{(int(micros) - t0_us) / 1e6:.1f} s" if micros else "-"

    print(f"round {k}: delta {DELTA_ADDED} added + {DELTA_CHANGED} changed; {runs} re-screen runs; {alerts} alerts")
    print(f"  SIGHUP -> change recorded        {at(change)}")
    print(f"  SIGHUP -> first run queued       {at(runs_first)}")
    print(f"  SIGHUP -> re-screen task ended   {at(task_end)}  (runs started)")
    print(f"  SIGHUP -> last run ended         {at(runs_end)}")
    print(f"  SIGHUP -> first alert            {at(first)}")
    print(f"  SIGHUP -> last alert             {at(last)}")
    with open("/proc/loadavg") as f:
        print(f"  load average (1, 5, 15 min)      {' '.join(f.read().split()[:3])}")


def main():
    command = sys.argv[1]
    if command == "list":
        write_list(sys.argv[2], int(sys.argv[3]))
    elif command == "seed":
        seed(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif command == "round":
        round_(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
