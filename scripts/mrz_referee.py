#!/usr/bin/env python3
"""An independent MRZ implementation, the `mrz` package from PyPI (0.6.2), as a referee
for the tests of rics_domain::mrz (crates/domain/tests/mrz_referee.rs).

The package is GPL: it is only run here, never copied into rics. `make mrz-referee`
installs it in target/mrz-venv.

Protocol: one JSON object per line on stdin, one JSON answer per line on stdout.
- {"op": "version"} -> {"version": "0.6.2"}
- {"op": "generate", "format": "TD1" | "TD2" | "TD3" | "MRVA" | "MRVB",
   "document_code", "issuing_state", "surname", "given_names", "document_number",
   "nationality", "birth_date", "sex", "expiry_date", "optional_data",
   "optional_data_2" (TD1 only)} -> {"lines": [...]}, from the package's generators
- {"op": "check", "format": ..., "lines": [...]} -> {"valid": bool,
   "checks": {"document_number": bool, "birth_date": bool, "expiry_date": bool,
              "optional_data": bool (TD3), "composite": bool (TD1, TD2, TD3)},
   "fields": {...}}, from the package's checkers and field readers
Anything the package refuses is answered {"error": "..."}.
"""

import json
import sys
from importlib.metadata import version

from mrz.checker.mrva import MRVACodeChecker
from mrz.checker.mrvb import MRVBCodeChecker
from mrz.checker.td1 import TD1CodeChecker
from mrz.checker.td2 import TD2CodeChecker
from mrz.checker.td3 import TD3CodeChecker
from mrz.generator.mrva import MRVACodeGenerator
from mrz.generator.mrvb import MRVBCodeGenerator
from mrz.generator.td1 import TD1CodeGenerator
from mrz.generator.td2 import TD2CodeGenerator
from mrz.generator.td3 import TD3CodeGenerator

TWO_LINE_GENERATORS = {
    "TD2": TD2CodeGenerator,
    "TD3": TD3CodeGenerator,
    "MRVA": MRVACodeGenerator,
    "MRVB": MRVBCodeGenerator,
}

CHECKERS = {
    "TD1": TD1CodeChecker,
    "TD2": TD2CodeChecker,
    "TD3": TD3CodeChecker,
    "MRVA": MRVACodeChecker,
    "MRVB": MRVBCodeChecker,
}

# The check digits each format has, by the package's property names.
CHECKS = {
    "TD1": {"composite": "final_hash"},
    "TD2": {"composite": "final_hash"},
    "TD3": {"optional_data": "optional_data_hash", "composite": "final_hash"},
    "MRVA": {},
    "MRVB": {},
}
COMMON_CHECKS = {
    "document_number": "document_number_hash",
    "birth_date": "birth_date_hash",
    "expiry_date": "expiry_date_hash",
}


def generate(request):
    fmt = request["format"]
    common = dict(
        document_type=request["document_code"],
        country_code=request["issuing_state"],
        document_number=request["document_number"],
        birth_date=request["birth_date"],
        sex=request["sex"],
        expiry_date=request["expiry_date"],
        nationality=request["nationality"],
        surname=request["surname"],
        given_names=request["given_names"],
    )
    if fmt == "TD1":
        code = TD1CodeGenerator(
            optional_data1=request["optional_data"],
            optional_data2=request["optional_data_2"],
            **common,
        )
    else:
        code = TWO_LINE_GENERATORS[fmt](optional_data=request["optional_data"], **common)
    return {"lines": str(code).splitlines()}


def check(request):
    fmt = request["format"]
    checker = CHECKERS[fmt]("\n".join(request["lines"]))
    checks = {name: bool(getattr(checker, prop)) for name, prop in COMMON_CHECKS.items()}
    checks.update({name: bool(getattr(checker, prop)) for name, prop in CHECKS[fmt].items()})
    fields = checker.fields()
    read = {
        "document_code": fields.document_type,
        "issuing_state": fields.country,
        "surname": fields.surname,
        "given_names": fields.name,
        "document_number": fields.document_number,
        "nationality": fields.nationality,
        "birth_date": fields.birth_date,
        "expiry_date": fields.expiry_date,
        "sex": fields.sex,
        "optional_data": fields.optional_data,
    }
    if fmt == "TD1":
        read["optional_data_2"] = fields.optional_data_2
    return {"valid": bool(checker.result), "checks": checks, "fields": read}


def answer(request):
    op = request.get("op")
    if op == "version":
        return {"version": version("mrz")}
    if op == "generate":
        return generate(request)
    if op == "check":
        return check(request)
    return {"error": "unknown op %r" % op}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            response = answer(json.loads(line))
        except Exception as error:  # the package signals refusals with many exception types
            response = {"error": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
