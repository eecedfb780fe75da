"""The rics check that schemathesis runs beside its own (loaded with SCHEMATHESIS_HOOKS).

A request that matches the OpenAPI document may still be refused for a reason the
document cannot express: the resource is missing (404), it exists already or changed
meanwhile (409), or the system is not in the state the request needs (400
FAILED_PRECONDITION, 400 OUT_OF_RANGE). Those are correct answers, and schemathesis's
`positive_data_acceptance` is configured to let a 400 through to this check, which tells
them apart by the AIP-193 error envelope. Any other 400 to a schema-valid request means
the document is looser than the server (a pattern, bound, enum or required field it
does not state), and fails the run, with two exceptions that JSON Schema cannot state:
- the grammar of `filter` (AIP-160: nested parentheses, functions, typed comparisons)
  and of `pageToken` (opaque, issued by the server): a schema-valid value of those may
  be refused with INVALID_ARGUMENT when every field violation names them;
- one part of a request that must equal another: the redundant `name` or `parent`
  beside the path (NAME_MISMATCH, PARENT_MISMATCH), a job's `entity` on `:run`
  (ENTITY_MISMATCH), a relationship of an entity with itself (SELF_RELATIONSHIP), a
  field named twice in `orderBy` (read from the request), and a request id used before
  with another request (REQUEST_ID_REUSED: it depends on an earlier request), and a
  risk model's rules over the order of its thresholds and age bands, the last of
  them (only the last band has no upper bound), and factors or countries given twice,
  an individual's date of birth against today, an identity document's dates against
  each other and today, its files against its entity, a file's bytes against its
  declared type, the allowed types and (in a multipart part) its size limits, a
  Medicare number's check digit and, in an update, a new number against the stored
  document type, a form definition's rules over its fields together (unique keys, a
  select's options, the attributes and bounds of each type, a compilable pattern), a
  form's response against its definition's derived schema, its files against the form
  and its deadline against now, an automation's steps together (the arguments of each
  kind, references to parameters and earlier steps, branch conditions and targets)
  and its parameters' JSON Schemas, and an integer written with a fraction (`58.0`, an
  integer to JSON Schema).

The OAuth endpoints answer RFC 6749 errors, not AIP-193 envelopes, and schemathesis's
own check already lets their 400s through when credentials are refused, so this check
leaves them alone.
"""

import json
import re

import schemathesis

# The canonical codes a 400 may carry for a request the document accepts.
STATE_DEPENDENT_STATUSES = frozenset({"FAILED_PRECONDITION", "OUT_OF_RANGE"})
# Request fields whose grammar JSON Schema cannot state (see above).
UNSTATABLE_FIELDS = frozenset({"filter", "pageToken"})
# Reasons of rules that relate two parts of a request (see above).
UNSTATABLE_REASONS = frozenset(
    {
        "NAME_MISMATCH",
        "PARENT_MISMATCH",
        "ENTITY_MISMATCH",
        "SELF_RELATIONSHIP",
        "REQUEST_ID_REUSED",
        # A risk model's order and uniqueness rules: over items of a list, or its last.
        "THRESHOLDS_NOT_RISING",
        "LEVELS_NOT_RISING",
        "LEVELS_MUST_BE_3_OR_5",
        "THRESHOLDS_MUST_END_AT_100",
        "BANDS_NOT_RISING",
        "LAST_BAND_BOUNDED",
        "DUPLICATE_FACTOR",
        "DUPLICATE_COUNTRY",
        # Ids of one batch create against each other (JSON Schema's uniqueItems
        # compares whole items, not one field of them).
        "DUPLICATE_ID",
        # An identity document's dates against each other and today, and its files
        # against its entity.
        "FILE_OF_ANOTHER_ENTITY",
        # A file's bytes: their sniffed type against the declared one and the allowed
        # ones, and, for a multipart part (JSON Schema bounds no binary), their count.
        "CONTENT_TYPE_MISMATCH",
        "CONTENT_TYPE_NOT_ALLOWED",
        "FILE_EMPTY",
        "FILE_TOO_LARGE",
        # A Medicare card number's check digit, arithmetic over its digits.
        "CHECK_DIGIT_MISMATCH",
        "DATE_IN_FUTURE",
        # An individual's date of birth against today.
        "IN_THE_FUTURE",
        "EXPIRY_NOT_AFTER_ISSUE",
        "BIRTH_AFTER_ISSUE",
        # A form definition's rules over its fields together: keys unique across the
        # steps, the options a SELECT needs, the attributes and bounds each type takes,
        # a pattern the regular expression engine compiles.
        "DUPLICATE_STEP_KEY",
        "DUPLICATE_FIELD_KEY",
        "OPTIONS_REQUIRED",
        "NOT_FOR_TYPE",
        "INVALID_PATTERN",
        "INVALID_BOUND",
        "MIN_ABOVE_MAX",
        # A form's response against its definition's schema, which the document cannot
        # know (each definition derives its own), its files against the form, and its
        # deadline against now; a workspace's definitions named twice in two spellings.
        "UNKNOWN_ANSWER",
        "INVALID_ANSWER",
        "ANSWER_REQUIRED",
        "FILE_OF_ANOTHER_FORM",
        "EXPIRE_TIME_NOT_IN_FUTURE",
        "DUPLICATE_FORM_DEFINITION",
        # An automation's rules over its steps together and over each kind's
        # arguments (a free-form map): the arguments a kind takes and their forms,
        # references to parameters and earlier steps, branch conditions and targets,
        # and its parameters' JSON Schemas.
        "ARGUMENT_REQUIRED",
        "UNKNOWN_ARGUMENT",
        "INVALID_STEP_ARGUMENT",
        "INVALID_REFERENCE",
        "UNKNOWN_PARAMETER",
        "UNKNOWN_STEP",
        "LATER_STEP",
        "CYCLE",
        "INVALID_CONDITION",
        "INVALID_SCHEMA",
        # An automation run's parameters against that automation's own inputSchema (one
        # document describes every automation's :run alike).
        "PAYLOAD_SCHEMA_VIOLATION",
        # A webhook URL's whole grammar (RFC 3986 hosts, ports, escapes), which the
        # document's pattern only approximates.
        "INVALID_URL",
        # An onboarding job's JSONata expression (base64 bytes: its grammar and the
        # functions the engine has) and its link's expiry against now.
        "INVALID_JSONATA",
        "UNSUPPORTED_JSONATA_FUNCTION",
        "EXPIRE_TIME_PASSED",
        "EXPIRE_TIME_TOO_FAR",
    }
)
# Reasons of rules that relate an update to the stored resource: a new document number
# against the document's stored type.
UNSTATABLE_ON_UPDATE = frozenset({"INVALID_DOCUMENT_NUMBER"})
ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo"
BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def _envelope(response):
    """The `error` object of an AIP-193 body, or None when the body is not one."""
    try:
        body = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        return None
    error = body.get("error") if isinstance(body, dict) else None
    return error if isinstance(error, dict) else None


def _details(error, kind):
    details = error.get("details")
    return [d for d in details if isinstance(d, dict) and d.get("@type") == kind] if isinstance(details, list) else []


def _violations(error):
    """The field violations of an envelope's BadRequest details."""
    return [
        v
        for detail in _details(error, BAD_REQUEST)
        for v in detail.get("fieldViolations", [])
        if isinstance(v, dict)
    ]


def _reason(error):
    """The ErrorInfo reason of an envelope, or None."""
    return next((d.get("reason") for d in _details(error, ERROR_INFO)), None)


def _describe(error):
    """One line naming the status, reason and violated fields of an envelope."""
    reason = _reason(error)
    violations = [f"{v.get('field')}: {v.get('description')}" for v in _violations(error)]
    text = f"{error.get('status')} reason={reason}"
    if violations:
        text += " violations=[" + "; ".join(violations) + "]"
    return text


def _only_unstatable_fields(error):
    """Every violation names a field whose grammar JSON Schema cannot state."""
    fields = {v.get("field") for v in _violations(error)}
    return bool(fields) and fields <= UNSTATABLE_FIELDS


# A reason on a field whose rule depends on its place in a list: every age band but the
# last needs its upper bound (REQUIRED on `...bands[i].below`); or on an automation
# run's parameter: one its inputSchema requires (REQUIRED on `parameters.{name}`).
UNSTATABLE_AT = (
    (re.compile(r"\.bands\[[0-9]+\]\.below$"), "REQUIRED"),
    (re.compile(r"^parameters\."), "REQUIRED"),
)


def _positional(violation):
    """The violation is of a rule over a field's place in its list (see above)."""
    field = violation.get("field", "")
    return any(
        pattern.search(field) and violation.get("reason") == reason for pattern, reason in UNSTATABLE_AT
    )


def _only_unstatable_reasons(error, case):
    """Every field violation has a reason of a rule JSON Schema cannot state, or
    refuses an integer written with a fraction (`58.0`): JSON Schema's `integer`
    admits it, the server's integers do not."""
    reasons = UNSTATABLE_REASONS
    if case.method.upper() == "PATCH":
        reasons = reasons | UNSTATABLE_ON_UPDATE
    violations = _violations(error)
    return bool(violations) and all(
        v.get("reason") in reasons or _positional(v) or _integral_float(v.get("description", ""))
        for v in violations
    )


def _integral_float(description):
    """The description is serde's refusal of an integral float for an integer."""
    match = re.search(r"invalid type: floating point `(-?[0-9]+)\.0`, expected [ui][0-9]+", description)
    return match is not None


def _names_a_field_twice(case):
    """The case's `orderBy` names a field twice (in either spelling), which the
    document's pattern cannot refuse."""
    order_by = (case.query or {}).get("orderBy")
    if not isinstance(order_by, str):
        return False
    fields = [item.split()[0].replace("_", "").lower() for item in order_by.split(",") if item.split()]
    return len(fields) != len(set(fields))


@schemathesis.check
def schema_valid_request_not_invalid_argument(ctx, response, case):
    """A schema-valid request answered 400 must be FAILED_PRECONDITION or OUT_OF_RANGE."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    if case.path.startswith(("/oauth2/", "/hosted/")):
        return None
    error = _envelope(response)
    if error is None:
        raise AssertionError(
            "A schema-valid request was answered 400 without an AIP-193 error envelope"
        )
    if error.get("status") == "INVALID_ARGUMENT" and (
        _only_unstatable_fields(error)
        or _reason(error) in UNSTATABLE_REASONS
        or _only_unstatable_reasons(error, case)
        or _names_a_field_twice(case)
    ):
        return None
    if error.get("status") not in STATE_DEPENDENT_STATUSES:
        raise AssertionError(
            "A schema-valid request was refused, so the document is looser than the server: "
            + _describe(error)
        )
    return None
