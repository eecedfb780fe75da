#!/usr/bin/env python3
"""Converts the US Congress PEP source data (YAML, CC0) into the generic list format as
JSON lines, the bundled default PEP list `us_congress_pep`.

Input: data/lists/us_congress_2026-06/{legislators-current,executive}.yaml, copied byte for
byte from unitedstates/congress-legislators (see data/README.md). Output:
data/lists/us_congress_2026-06/us_congress_pep.jsonl, one person a line, sorted by id. The
conversion is deterministic: running it again gives the same bytes.

A record holds the person's names (the official full name without its quoted nickname,
first + middle + last + suffix, first + last, nickname + last), date of birth, gender,
nationality US, topic `pep`, and positions with their start and end dates. Consecutive
terms in one position (a senator re-elected) are one position.

Needs PyYAML: python3 -m pip install pyyaml (or any Python that has it).
"""

import datetime
import json
import pathlib
import re
import sys

import yaml

FOLDER = pathlib.Path(__file__).resolve().parent.parent / "data" / "lists" / "us_congress_2026-06"

STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "FL": "Florida", "GA": "Georgia",
    "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois", "IN": "Indiana", "IA": "Iowa",
    "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana", "ME": "Maine", "MD": "Maryland",
    "MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "MS": "Mississippi",
    "MO": "Missouri", "MT": "Montana", "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire",
    "NJ": "New Jersey", "NM": "New Mexico", "NY": "New York", "NC": "North Carolina",
    "ND": "North Dakota", "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee",
    "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
    "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
    "DC": "the District of Columbia", "GU": "Guam", "AS": "American Samoa",
    "VI": "the US Virgin Islands", "MP": "the Northern Mariana Islands", "PR": "Puerto Rico",
}

# Terms of one position that start within this many days of the last one's end continue it.
CONTINUATION_DAYS = 7


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def title(term):
    """The position a term holds, as a person reads it."""
    kind, state = term["type"], term.get("state")
    if kind == "prez":
        return "President of the United States"
    if kind == "viceprez":
        return "Vice President of the United States"
    if kind == "sen":
        return f"United States Senator for {STATES[state]}"
    if kind == "rep":
        if state == "PR":
            return "Resident Commissioner of Puerto Rico in the US House of Representatives"
        if state in ("DC", "GU", "AS", "VI", "MP"):
            return f"Delegate to the US House of Representatives for {STATES[state]}"
        district = term.get("district", 0)
        place = STATES[state]
        where = f"{place}'s at-large district" if district in (0, None) else f"{place}'s {ordinal(district)} district"
        return f"Member of the US House of Representatives for {where}"
    raise ValueError(f"unknown term type {kind!r}")


def positions(terms):
    """The person's positions, consecutive terms of one title merged, in start order."""
    merged = []
    for term in sorted(terms, key=lambda t: str(t["start"])):
        start, end, name = str(term["start"]), str(term["end"]), title(term)
        if merged and merged[-1]["title"] == name:
            last_end = datetime.date.fromisoformat(merged[-1]["end_date"])
            if (datetime.date.fromisoformat(start) - last_end).days <= CONTINUATION_DAYS:
                merged[-1]["end_date"] = max(merged[-1]["end_date"], end)
                continue
        merged.append({"title": name, "start_date": start, "end_date": end})
    return merged


def names(name):
    """The primary name and the aliases, without repeats."""
    first, middle, last = name["first"], name.get("middle"), name["last"]
    suffix, nickname = name.get("suffix"), name.get("nickname")
    official = name.get("official_full")
    unquoted = re.sub(r'\s*"[^"]*"\s*', " ", official).strip() if official else None
    full = " ".join(p for p in (first, middle, last) if p)
    if suffix:
        full = f"{full} {suffix}"
    primary = unquoted or full
    aliases = []
    for candidate in (official, full, f"{first} {last}", f"{nickname} {last}" if nickname else None):
        if candidate and candidate != primary and candidate not in aliases:
            aliases.append(candidate)
    return primary, aliases


def person_id(person):
    """The bioguide id, or `govtrack-{n}` for the presidents the bioguide does not hold."""
    ids = person["id"]
    return ids.get("bioguide") or f"govtrack-{ids['govtrack']}"


def record(person, terms):
    primary, aliases = names(person["name"])
    gender = {"M": "male", "F": "female"}.get(person.get("bio", {}).get("gender"))
    bioguide = person["id"].get("bioguide")
    row = {
        "id": person_id(person),
        "kind": "person",
        "name": primary,
        "aliases": aliases,
        "date_of_birth": person.get("bio", {}).get("birthday"),
        "gender": gender,
        "nationality": "US",
        "topics": ["pep"],
        "positions": positions(terms),
        "source_url": f"https://bioguide.congress.gov/search/bio/{bioguide}" if bioguide else None,
    }
    return {key: value for key, value in row.items() if value not in (None, [], "")}


def main():
    legislators = yaml.safe_load((FOLDER / "legislators-current.yaml").read_text(encoding="utf-8"))
    executive = yaml.safe_load((FOLDER / "executive.yaml").read_text(encoding="utf-8"))
    people, terms = {}, {}
    for person in legislators + executive:
        key = person_id(person)
        people.setdefault(key, person)
        terms.setdefault(key, []).extend(person["terms"])
    out = FOLDER / "us_congress_pep.jsonl"
    with out.open("w", encoding="utf-8", newline="\n") as sink:
        for key in sorted(people):
            sink.write(json.dumps(record(people[key], terms[key]), ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{out}: {len(people)} people", file=sys.stderr)


if __name__ == "__main__":
    main()
