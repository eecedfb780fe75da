#!/usr/bin/env python3
"""Seeds a running rics with N entities, for the load benchmark.

A deterministic mix: 60% individuals, 25% companies, 15% trusts, partnerships and
sole proprietors; tags drawn from a small set (about 10% carry `high-risk`); every
entity has an external CRM id. Entity i gets the id `e-%06d`, so a load generator can
draw existing ids with a pattern.

Over HTTP by default (8 client threads). With `--copy PG` (PostgreSQL only) the same
entities go straight into the database with COPY, as a create writes them (entities,
entity_bodies, entity_tags, entity_external_ids and the
`entity.created` event), shaped after one entity created through the API: a million
in minutes rather than an hour. With `--import RICS --database URL --tenant T` (either
backend) they are written as JSON lines and imported with `RICS import`, which validates
and writes each as a create does.
"""

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid

GIVEN = ["james", "mary", "john", "patricia", "robert", "jennifer", "michael", "linda", "william",
         "elizabeth", "david", "barbara", "richard", "susan", "joseph", "jessica", "thomas", "sarah",
         "charles", "karen", "mohammed", "fatima", "wei", "yan", "olga", "ivan", "sofia", "lucas",
         "aisha", "omar", "hans", "greta", "pierre", "claire", "kenji", "yuki", "ana", "jose"]
FAMILY = ["smith", "johnson", "williams", "brown", "jones", "garcia", "miller", "davis", "rodriguez",
          "martinez", "hernandez", "lopez", "gonzalez", "wilson", "anderson", "thomas", "taylor",
          "moore", "jackson", "martin", "lee", "perez", "thompson", "white", "harris", "sanchez",
          "clark", "ramirez", "lewis", "robinson", "walker", "young", "allen", "king", "wright",
          "scott", "torres", "nguyen", "hill", "flores", "green", "adams", "nelson", "baker", "hall"]
WORDS = ["global", "trading", "holdings", "capital", "maritime", "energy", "logistics", "partners",
         "ventures", "industries", "consulting", "resources", "systems", "group", "finance"]
COUNTRIES = ["GB", "FR", "DE", "US", "AE", "SG", "CH", "NL", "ES", "IT", "RU", "CN", "BR", "NG"]
TAGS = ["onboarding", "retail", "corporate", "review", "dormant", "priority"]


def body(i, rng):
    tags = rng.sample(TAGS, rng.randint(0, 2))
    if rng.random() < 0.10:
        tags.append("high-risk")
    kind = rng.random()
    common = {"tags": tags, "externalIds": {"crm": f"C-{i:07d}"}}
    if kind < 0.60:
        given, family = rng.choice(GIVEN).title(), rng.choice(FAMILY).title()
        return {**common, "displayName": f"{given} {family}",
                "individual": {"legalName": {"givenName": given, "familyName": family},
                               "dateOfBirth": f"{rng.randint(1940, 2004)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                               "nationalities": [rng.choice(COUNTRIES)]}}
    name = " ".join(w.title() for w in rng.sample(WORDS, 2)) + f" {i}"
    if kind < 0.85:
        return {**common, "displayName": name,
                "company": {"legalName": name + " Ltd", "type": "PRIVATE_COMPANY",
                            "countryOfIncorporation": rng.choice(COUNTRIES)}}
    field = rng.choice(["trust", "partnership", "soleProprietor"])
    return {**common, "displayName": name, field: {"legalName": name}}


ENTITY_TYPES = {"individual": "INDIVIDUAL", "company": "COMPANY", "trust": "TRUST",
                "partnership": "PARTNERSHIP", "soleProprietor": "SOLE_PROPRIETOR"}


def copy_seed(host, port, token, count, threads, pg):
    """Writes into the PostgreSQL database `pg` with COPY the `count` entities that
    `threads` workers would create."""
    from bench_monitoring import copy_text, psql, trigrams
    from rics_api import Api
    Api(f"http://{host}:{port}").call(
        "POST", "/v1alpha/entities?entityId=bench-template",
        {"displayName": "Template Person", "individual": {"legalName": {"givenName": "Template"}}},
        token, expect_ok=False)
    (tenant, creator, payload), = psql(pg, "SELECT tenant_id, creator, payload FROM events "
                                           "WHERE entity_id = 'bench-template' AND event_type = 'entity.created'")
    template = json.loads(payload)
    work = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../target/bench/load-seed")
    os.makedirs(work, exist_ok=True)
    columns = {
        "entities": "tenant_id, id, uid, revision, entity_type, display_name, display_name_trigrams, "
                    "risk_level, screening_status, verification_status, legal_hold, create_time, "
                    "update_time, delete_time, purge_time, risk_status",
        "entity_bodies": "tenant_id, entity_id, body",
        "entity_tags": "tenant_id, entity_id, tag",
        "entity_external_ids": "tenant_id, entity_id, id_key, id_value",
        "events": "tenant_id, id, entity_id, event_type, payload, creator, create_time",
    }
    files = {table: open(os.path.join(work, table + ".tsv"), "w") for table in columns}

    def row(table, *values):
        files[table].write("\t".join(copy_text(v) for v in values) + "\n")

    began = time.monotonic()
    start = int(time.time() * 1e6) - count - 10_000_000
    ids = random.Random(count)
    per = (count + threads - 1) // threads
    for first in range(0, count, per):
        rng = random.Random(first)
        for i in range(first, min(count, first + per)):
            entity_id = f"e-{i:06d}"
            entity = body(i, rng)
            kind = next(k for k in ENTITY_TYPES if k in entity)
            entity["entityType"] = ENTITY_TYPES[kind]
            micros = start + i
            row("entities", tenant, entity_id, str(uuid.UUID(int=ids.getrandbits(128), version=4)), 1,
                entity["entityType"], entity["displayName"], len(trigrams(entity["displayName"])),
                None, None, None, "f", micros, micros, None, None, None)
            row("entity_bodies", tenant, entity_id, json.dumps(entity, separators=(",", ":")))
            for tag in entity["tags"]:
                row("entity_tags", tenant, entity_id, tag)
            for key, value in entity["externalIds"].items():
                row("entity_external_ids", tenant, entity_id, key, value)
            event = {"resource": f"entities/{entity_id}", "principal": creator, "changes": {}}
            if "object" in template:
                event["object"] = {**entity, "name": f"entities/{entity_id}"}
            event_id = uuid.UUID(int=((micros // 1000) << 80) | (0x7 << 76) | (ids.getrandbits(12) << 64)
                                 | (0b10 << 62) | ids.getrandbits(62))
            row("events", tenant, str(event_id), entity_id, "entity.created", json.dumps(event), creator, micros)
    for table, f in files.items():
        f.close()
        copied = time.monotonic()
        subprocess.run(["psql", pg, "-qX", "-c", f"\\copy {table} ({columns[table]}) FROM '{f.name}'"], check=True)
        print(f"  copied {table} in {time.monotonic() - copied:.1f} s", file=sys.stderr, flush=True)
    psql(pg, "VACUUM ANALYZE")
    print(f"seeded {count} entities with COPY in {time.monotonic() - began:.1f} s", file=sys.stderr)


def import_seed(count, threads, rics, database, tenant):
    """Imports with the `rics` binary into `database`, for `tenant`, the `count` entities
    that `threads` workers would create."""
    work = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../target/bench")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "load-seed.jsonl")
    per = (count + threads - 1) // threads
    with open(path, "w") as lines:
        for first in range(0, count, per):
            rng = random.Random(first)
            for i in range(first, min(count, first + per)):
                lines.write(json.dumps({"entityId": f"e-{i:06d}", "entity": body(i, rng)}) + "\n")
    began = time.monotonic()
    subprocess.run([rics, "import", path, "--tenant", tenant], check=True,
                   env={**os.environ, "RICS_DATABASE_URL": database})
    print(f"seeded {count} entities with rics import in {time.monotonic() - began:.1f} s", file=sys.stderr)


def worker(host, port, token, start, stop, created, errors):
    rng = random.Random(start)
    conn = http.client.HTTPConnection(host, port, timeout=30)
    for i in range(start, stop):
        payload = json.dumps(body(i, rng))
        conn.request("POST", f"/v1alpha/entities?entityId=e-{i:06d}", payload,
                     {"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
        response = conn.getresponse()
        data = response.read()
        if response.status != 200:
            errors.append(f"{response.status}: {data[:200]!r}")
            continue
        created.append(i)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=18181)
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--token", required=True, help="an access token with rics.write")
    parser.add_argument("--copy", metavar="PG", help="COPY into this PostgreSQL database instead")
    parser.add_argument("--import", dest="rics", metavar="RICS", help="import with this rics binary instead")
    parser.add_argument("--database", help="the database URL to import into (with --import)")
    parser.add_argument("--tenant", help="the tenant to import for, tenants/{id} (with --import)")
    args = parser.parse_args()
    if args.rics:
        import_seed(args.count, args.threads, args.rics, args.database, args.tenant)
        return
    if args.copy:
        copy_seed(args.host, args.port, args.token, args.count, args.threads, args.copy)
        return
    created, errors, threads = [], [], []
    per = (args.count + args.threads - 1) // args.threads
    began = time.monotonic()
    for t in range(args.threads):
        start, stop = t * per, min(args.count, (t + 1) * per)
        thread = threading.Thread(target=worker, args=(args.host, args.port, args.token, start, stop, created, errors))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    print(f"seeded {len(created)} entities in {elapsed:.1f} s ({len(created) / elapsed:.0f}/s), {len(errors)} errors",
          file=sys.stderr)
    if errors:
        print("first error: " + errors[0], file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
