#!/usr/bin/env python3
"""Writes data/names/census_1990_{surnames,given_names}.csv from the 1990 US Census name
frequency files (public domain) as shipped in the `names` 0.3.0 package on PyPI
(`pip download --no-deps --no-binary :all: names==0.3.0`, files `names/dist.all.last`,
`names/dist.male.first`, `names/dist.female.first`).

Usage: scripts/census-name-frequencies.py DIR_WITH_DIST_FILES OUT_DIR

Surnames: the percent of people, kept from 0.002 % up. Given names: the percent of people,
the mean of the male and female tables (each is a percent of its sex), kept from 0.0005 % up.
Deterministic: the same input gives the same bytes.
"""

import collections
import os
import sys


def main() -> None:
    source, out = sys.argv[1], sys.argv[2]
    with open(os.path.join(out, "census_1990_surnames.csv"), "w") as f:
        f.write("name,percent\n")
        for line in open(os.path.join(source, "dist.all.last")):
            name, percent, _, _ = line.split()
            if float(percent) >= 0.002:
                f.write(f"{name.lower()},{percent}\n")
    given = collections.defaultdict(float)
    for sex in ("dist.male.first", "dist.female.first"):
        for line in open(os.path.join(source, sex)):
            name, percent, _, _ = line.split()
            given[name.lower()] += float(percent) / 2
    with open(os.path.join(out, "census_1990_given_names.csv"), "w") as f:
        f.write("name,percent\n")
        for name, percent in sorted(given.items(), key=lambda x: (-x[1], x[0])):
            if percent >= 0.0005:
                f.write(f"{name},{percent:.4f}\n")


if __name__ == "__main__":
    main()
