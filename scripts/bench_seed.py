#!/usr/bin/env python3
"""Seeds a running rics with N entities over HTTP, for the load benchmark.

A deterministic mix: 60% individuals, 25% companies, 15% trusts, partnerships and
sole proprietors; tags drawn from a small set (about 10% carry `high-risk`); every
entity has an external CRM id. Entity i gets the id `e-%06d`, so a load generator can
draw existing ids with a pattern.
"""

import argparse
import http.client
import json
import random
import sys
import threading
import time

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
    args = parser.parse_args()
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
