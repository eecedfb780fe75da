"""Drive rics through a client that openapi-python-client generated from the served document.

Run by tests/tests/api/generated_client.rs, which starts the server, writes the document,
runs the generator (package `rics_client`) and then this script with the Python of
target/openapi-client-venv:

    python generated_client_check.py PACKAGE_PARENT DOCUMENT BASE_URL TOKEN TENANT

Nothing of the generated package is edited. Endpoints are found by method and path
(the modules' names follow the operationIds, which this script does not assume), and
request bodies are built with the generated models' `from_dict`. Every response must
parse into the documented model and round-trip: `to_dict()` gives back exactly the JSON
on the wire, with no field the model does not know and no enum value it lacks.

Steps: every operation of the document has a generated function; create, get, list
with a filter, update with a mask, delete and undelete an individual (with gender,
nationality and an address) and a company; add a relationship, a passport, a
workspace, an alert and an activity log type, evaluate the individual's risk, read the
caller's tenant and the built-in collections (alert types, risk models, activity log
types, screening lists); read a missing entity (the 404 error envelope, its details and
their metadata); then create a PEP and sanctions screening job, run it, poll its
operation until done and read the screened entity. Between them every enum of the
document round-trips; the script prints those that did. Each step prints `ok` or
`FAIL` with the cause; the script goes on after a failure where it can, and exits 1
when any step failed.
"""

import datetime
import enum
import importlib
import inspect
import json
import re
import sys
import time
import traceback
import typing
import uuid
from pathlib import Path

ENTITIES = "/v1alpha/entities"
ENTITY = "/v1alpha/entities/{entity}"
UNDELETE = "/v1alpha/entities/{entity}:undelete"
JOBS = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs"
RUN = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run"
OPERATION = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}/operations/{operation}"
RELATIONSHIP = "/v1alpha/entities/{entity}:addEntityRelationship"
# Collections every tenant can read from the start, with their enums (severity, risk level,
# activity type, ...).
BUILT_IN_COLLECTIONS = ["/v1alpha/alertTypes", "/v1alpha/riskModels", "/v1alpha/activityLogTypes", "/v1alpha/screeningLists"]
POLL_SECONDS = 60

failures = []
# The generated enum classes that some round-tripped body held.
enums_seen = set()


class StepFailed(Exception):
    """A step's expectation did not hold."""


def step(name, action):
    """Runs one step, printing ok or FAIL; returns its result, or None when it failed."""
    try:
        result = action()
    except StepFailed as failure:
        failures.append(name)
        print(f"FAIL {name}: {failure}", flush=True)
        return None
    except Exception as error:  # the generated code raised: a document defect to report
        failures.append(name)
        cause = traceback.format_exception_only(type(error), error)[-1].strip()
        print(f"FAIL {name}: {cause}", flush=True)
        return None
    print(f"ok   {name}", flush=True)
    return result


def endpoints(package):
    """The generated endpoint modules by (METHOD, path template), read from their sources."""
    found = {}
    api = Path(package.__file__).parent / "api"
    for source in sorted(api.glob("*/*.py")):
        if source.name == "__init__.py":
            continue
        text = source.read_text()
        method = re.search(r'"method": "(\w+)"', text)
        url = re.search(r'"url": "([^"]+)"', text)
        if method and url:
            module = f"{package.__name__}.api.{source.parent.name}.{source.stem}"
            found[(method.group(1).upper(), route(url.group(1)))] = module
    return found


def route(path):
    """A path template with its parameters unnamed: the generated URLs name them in
    snake_case (`{activity_log_type}` for the document's `{activityLogType}`)."""
    return re.sub(r"\{[^}]+\}", "{}", path)


class Api:
    """Calls the generated endpoint functions by method, path and document parameter names."""

    def __init__(self, package, client, tenant):
        self.client = client
        self.tenant = tenant
        self.modules = endpoints(package)

    def call(self, method, path, body=None, **parameters):
        """The generated `sync_detailed` of the operation; `body` is a JSON value that the
        body's generated model parses. Returns the Response (status, content, parsed)."""
        name = self.modules.get((method, route(path)))
        if name is None:
            raise StepFailed(f"the generated client has no function for {method} {path}")
        function = importlib.import_module(name).sync_detailed
        signature = inspect.signature(function)
        arguments = {"client": self.client}
        for key, value in parameters.items():
            arguments[python_name(signature, key)] = value
        if body is not None:
            model = typing.get_type_hints(function)["body"]
            try:
                arguments["body"] = model.from_dict(body)
            except Exception as error:
                raise StepFailed(f"the request body does not parse into {model.__name__}: {error!r}") from error
            untyped = list(untyped_parts(arguments["body"], model.__name__))
            if untyped:
                raise StepFailed("the request body does not fit the generated types: " + "; ".join(untyped))
        try:
            return function(**arguments)
        except Exception as error:
            raise StepFailed(f"{method} {path} failed in the generated client: {error!r}") from error


def python_name(signature, parameter):
    """The generated function's name of a document parameter (`pageSize` is `page_size`,
    `filter` is `filter_`)."""
    snake = re.sub(r"(?<!^)(?=[A-Z])", "_", parameter).lower()
    for candidate in signature.parameters:
        if candidate.rstrip("_") == snake:
            return candidate
    raise StepFailed(f"the generated function has no parameter for '{parameter}'")


def expect_ok(response, what):
    """The parsed 200 body and its JSON, after checking that it round-trips exactly."""
    return expect(response, 200, what)


def expect(response, status, what):
    """The parsed body of a `status` answer and its JSON, after checking that it round-trips exactly."""
    if response.status_code != status:
        raise StepFailed(
            f"{what} answered {response.status_code}, not {status}: {response.content.decode(errors='replace')[:600]}"
        )
    raw = json.loads(response.content)
    round_trip(response.parsed, raw, what)
    return response.parsed, raw


def round_trip(parsed, raw, what):
    """The model holds every field of the wire JSON and writes it back unchanged."""
    if parsed is None or not hasattr(parsed, "to_dict"):
        raise StepFailed(f"{what}: the generated client did not parse the body into a model: {raw!r:.300}")
    untyped = list(untyped_parts(parsed, type(parsed).__name__))
    if untyped:
        raise StepFailed(f"{what}: the response does not fit the generated types: " + "; ".join(untyped))
    enums_seen.update(enums_in(parsed))
    written = parsed.to_dict()
    differences = list(differ(raw, written, "$"))
    if differences:
        raise StepFailed(f"{what}: to_dict() differs from the wire JSON: " + "; ".join(differences[:10]))


def untyped_parts(value, path):
    """Where the generated types did not take the JSON: fields kept in a model's
    `additional_properties` (the document does not declare them), and raw JSON objects
    standing where the document promises a model (the generated `oneOf` parsers fall back
    to the raw value when no variant parses, for example on an unknown enum value)."""
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield from untyped_parts(item, f"{path}[{index}]")
        return
    if not hasattr(value, "to_dict"):
        return
    attributes = [a for a in getattr(type(value), "__attrs_attrs__", ()) if a.name != "additional_properties"]
    extra = getattr(value, "additional_properties", None)
    # A model without fields was generated for a map: its extra keys are its content.
    if extra and attributes:
        for key in extra:
            yield f"{path}.{key} is not in the document"
    for attribute in attributes:
        field = getattr(value, attribute.name)
        annotation = str(attribute.type)
        items = field if isinstance(field, list) else [field]
        if any(isinstance(item, dict) for item in items) and "dict" not in annotation and "Any" not in annotation:
            yield f"{path}.{attribute.name} stayed raw JSON instead of {annotation}: {field!r:.200}"
        yield from untyped_parts(field, f"{path}.{attribute.name}")


def enums_in(value):
    """The enum classes of the values in a parsed body."""
    if isinstance(value, enum.Enum):
        yield type(value)
    elif isinstance(value, list):
        for item in value:
            yield from enums_in(item)
    elif hasattr(value, "__attrs_attrs__"):
        for attribute in type(value).__attrs_attrs__:
            yield from enums_in(getattr(value, attribute.name))
        for item in getattr(value, "additional_properties", {}).values():
            yield from enums_in(item)


def differ(wire, written, path):
    """Differences between the wire JSON and the model's `to_dict()`; timestamps compare as instants."""
    if isinstance(wire, dict) and isinstance(written, dict):
        for key in sorted(set(wire) | set(written)):
            if key not in written:
                yield f"{path}.{key} dropped"
            elif key not in wire:
                yield f"{path}.{key} added as {written[key]!r:.80}"
            else:
                yield from differ(wire[key], written[key], f"{path}.{key}")
    elif isinstance(wire, list) and isinstance(written, list) and len(wire) == len(written):
        for index, (a, b) in enumerate(zip(wire, written)):
            yield from differ(a, b, f"{path}[{index}]")
    elif wire != written and not same_instant(wire, written):
        yield f"{path}: wire {wire!r:.80}, written {written!r:.80}"


def same_instant(a, b):
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    try:
        return datetime.datetime.fromisoformat(a.replace("Z", "+00:00")) == datetime.datetime.fromisoformat(
            b.replace("Z", "+00:00")
        )
    except ValueError:
        return False


def entity_id(entity):
    return entity["name"].split("/", 1)[1]


def entity_lifecycle(api, kind, body):
    """Create, get, list with a filter, update with a mask, delete and undelete one entity."""
    created = step(
        f"{kind}: create",
        lambda: expect_ok(api.call("POST", ENTITIES, body=body, requestId=str(uuid.uuid4())), "create")[1],
    )
    if created is None:
        return None
    entity = entity_id(created)

    def get():
        _, raw = expect_ok(api.call("GET", ENTITY, entity=entity), "get")
        if raw != created:
            raise StepFailed(f"get differs from create: {raw} != {created}")

    step(f"{kind}: get", get)

    def list_filtered():
        _, raw = expect_ok(
            api.call("GET", ENTITIES, filter=f'displayName = "{body["displayName"]}"', pageSize=10), "list"
        )
        names = [e["name"] for e in raw.get("entities", [])]
        if names != [created["name"]]:
            raise StepFailed(f"the filter found {names}, not [{created['name']}]")

    step(f"{kind}: list with a filter", list_filtered)

    renamed = body["displayName"] + " Renamed"

    def update():
        _, raw = expect_ok(
            api.call("PATCH", ENTITY, entity=entity, body={"displayName": renamed}, updateMask="displayName"),
            "update",
        )
        if raw["displayName"] != renamed:
            raise StepFailed(f"displayName is {raw['displayName']!r}, not {renamed!r}")

    step(f"{kind}: update with a mask", update)

    def delete():
        _, raw = expect_ok(api.call("DELETE", ENTITY, entity=entity), "delete")
        if not raw.get("deleteTime"):
            raise StepFailed("the deleted entity has no deleteTime")

    step(f"{kind}: delete", delete)

    def undelete():
        _, raw = expect_ok(api.call("POST", UNDELETE, entity=entity, body={}), "undelete")
        if raw.get("deleteTime"):
            raise StepFailed("the restored entity still has a deleteTime")

    step(f"{kind}: undelete", undelete)
    return entity


def coverage(api, paths):
    """Operations the generator dropped (no schema it can read) or overwrote (two
    operations of one tag with the same operationId give one module)."""
    methods = {"get", "put", "post", "delete", "patch"}
    operations = {(m.upper(), path) for path, item in paths.items() for m in item if m in methods}
    missing = sorted((m, p) for m, p in operations if (m, route(p)) not in api.modules)
    if missing:
        raise StepFailed(
            f"{len(missing)} of {len(operations)} operations have none: " + ", ".join(f"{m} {p}" for m, p in missing)
        )


def related_records(api, person, company, marker):
    """A relationship between the two entities, a passport of the individual, a workspace
    holding both, an alert, an activity log type, a risk evaluation, the tenant and the
    built-in collections: their enums round-trip too."""
    step(
        "relationship: add",
        lambda: expect_ok(
            api.call(
                "POST",
                RELATIONSHIP,
                entity=company,
                body={"relatedEntity": f"entities/{person}", "relationshipType": "DIRECTOR"},
            ),
            "add relationship",
        ),
    )
    passport = {
        "entity": f"entities/{person}",
        "documentType": "PASSPORT",
        "documentNumber": f"P{marker}".upper(),
        "issuingCountry": "GBR",
        "gender": "FEMALE",
        "givenName": "Jane",
        "familyName": f"Client {marker}",
        "dateOfBirth": "1980-04-02",
        "expiryDate": "2031-01-01",
    }
    step("document: create", lambda: expect_ok(api.call("POST", "/v1alpha/documents", body=passport), "document"))
    workspace = {"displayName": f"Client workspace {marker}", "entities": [f"entities/{person}", f"entities/{company}"]}
    step("workspace: create", lambda: expect_ok(api.call("POST", "/v1alpha/workspaces", body=workspace), "workspace"))
    alert = {
        "alertType": "alertTypes/adverse-media-match-found",
        "title": f"Client alert {marker}",
        "entities": [f"entities/{person}"],
    }
    step("alert: create", lambda: expect_ok(api.call("POST", "/v1alpha/alerts", body=alert), "alert"))
    log_type = {"displayName": f"Client log type {marker}", "activityType": "CUSTOM"}
    step(
        "activity log type: create",
        lambda: expect_ok(api.call("POST", "/v1alpha/activityLogTypes", body=log_type), "activity log type"),
    )
    step(
        "risk: evaluate the individual",
        lambda: expect_ok(api.call("POST", "/v1alpha/entities/{entity}:evaluate", entity=person, body={}), "evaluate"),
    )
    step("risk: the rated entity", lambda: expect_ok(api.call("GET", ENTITY, entity=person), "get the rated entity"))
    step("tenant: get", lambda: expect_ok(api.call("GET", "/v1alpha/tenants/{tenant}", tenant=api.tenant), "tenant"))
    for collection in BUILT_IN_COLLECTIONS:
        step(f"list {collection}", lambda c=collection: expect_ok(api.call("GET", c), c))


def missing_entity(api):
    """A read of a missing entity answers the AIP-193 envelope, which parses and round-trips too."""
    _, raw = expect(api.call("GET", ENTITY, entity="no-such-entity"), 404, "get a missing entity")
    if raw["error"]["status"] != "NOT_FOUND":
        raise StepFailed(f"the error is {raw['error']['status']}, not NOT_FOUND")


def screening(api, entity):
    """Create a PEP and sanctions job about the entity, run it, poll the operation until done."""
    job = step(
        "screening: create the job",
        lambda: expect_ok(api.call("POST", JOBS, entity=entity, body={"threshold": 0.7}), "create job")[1],
    )
    if job is None:
        return
    job_id = job["name"].rsplit("/", 1)[1]
    operation = step(
        "screening: run the job",
        lambda: expect_ok(api.call("POST", RUN, entity=entity, job=job_id, body={}), "run")[1],
    )
    if operation is None:
        return
    operation_id = operation["name"].rsplit("/", 1)[1]

    def poll():
        deadline = time.monotonic() + POLL_SECONDS
        while True:
            _, raw = expect_ok(
                api.call("GET", OPERATION, entity=entity, job=job_id, operation=operation_id), "poll"
            )
            if raw.get("done"):
                if "response" not in raw:
                    raise StepFailed(f"the operation ended without a response: {raw}")
                return raw
            if time.monotonic() > deadline:
                raise StepFailed(f"the operation was not done within {POLL_SECONDS} s")
            time.sleep(0.2)

    step("screening: poll the operation until done", poll)
    step(
        "screening: the entity's screening status",
        lambda: expect_ok(api.call("GET", ENTITY, entity=entity), "get the screened entity"),
    )


def main():
    package_parent, document, base_url, token, tenant = sys.argv[1:6]
    sys.path.insert(0, package_parent)
    package = importlib.import_module("rics_client")
    client = package.AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
    api = Api(package, client, tenant.removeprefix("tenants/"))
    paths = json.loads(Path(document).read_text())["paths"]
    step("every operation of the document has a generated function", lambda: coverage(api, paths))
    marker = uuid.uuid4().hex[:8]
    individual = {
        "displayName": f"Jane Client {marker}",
        "individual": {
            "legalName": {"givenName": "Jane", "familyName": f"Client {marker}"},
            "gender": "FEMALE",
            "dateOfBirth": "1980-04-02",
            "nationalities": ["GB"],
            "countryOfResidence": "FR",
        },
        "contactInfo": {
            "addresses": [{"type": "RESIDENTIAL", "lines": ["1 Rue de Rivoli"], "locality": "Paris", "country": "FR"}],
            "emails": [f"jane.{marker}@example.com"],
        },
        "tags": ["generated-client"],
    }
    company = {
        "displayName": f"Client Company {marker}",
        "company": {"legalName": f"Client Company {marker} Ltd", "type": "PRIVATE_COMPANY", "countryOfIncorporation": "GB"},
    }
    person = entity_lifecycle(api, "individual", individual)
    organisation = entity_lifecycle(api, "company", company)
    if person is not None and organisation is not None:
        related_records(api, person, organisation, marker)
    step("errors: a 404 through the error envelope", lambda: missing_entity(api))
    if person is not None:
        screening(api, person)
    print("enums that round-tripped: " + ", ".join(sorted(e.__name__ for e in enums_seen)))
    if failures:
        print(f"{len(failures)} of the steps failed: {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
