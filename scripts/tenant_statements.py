#!/usr/bin/env python3
"""The tenant_id statement check (issue 20, "Scale past one machine").

`make test` runs the PostgreSQL test suite against a throwaway cluster that logs every
statement (scripts/test-postgres.sh --statement-log); this script reads that log (csvlog)
and fails on any statement that reads or writes a *distributed* table without
constraining the table's `tenant_id`. Under Citus, whose multi-tenant model rics's schema
follows (docs/architecture.md, "Distributing the tables with Citus"), such a statement
would run on every shard, and in one database it is the shape a cross-tenant leak has.

Which tables are distributed comes from the migrations (migrations/postgres): every table
with a `tenant_id` column, except the REFERENCE_TABLES below; a table without one is a
reference table. Every primary key and unique index of a distributed table must lead
with `tenant_id` (Citus needs the distribution column in them; rics's convention puts it
first), and a foreign key between distributed tables must pair their `tenant_id`s, which
the check also enforces.

A statement is parsed with PostgreSQL's own parser (pglast). A distributed table's
`tenant_id` is constrained when the conjunctions of the WHERE and JOIN ... ON clauses
(any query level: subqueries, CTEs) equate it, directly or through other columns (a join
on `tenant_id`, a correlated subquery), with a parameter or a constant; an INSERT
constrains it by naming the column with a value or a constrained column of its SELECT.
A predicate under OR or NOT proves nothing.

The statements the migrations run (schema changes and their data steps, run once over
every tenant) are not checked. The documented exceptions are the EXCEPTIONS below, each a
statement shape with its reason: the server's statements that cross tenants by design,
then the tests' own statements; any other statement without a `tenant_id` predicate
fails the check.
"""

import argparse
import csv
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pglast import parser

ROOT = Path(__file__).resolve().parent.parent

# Tables that have a `tenant_id` column and are nevertheless reference tables (replicated
# to every node under Citus), with the reason. Tables without `tenant_id` are reference
# tables without being listed.
REFERENCE_TABLES = {
    "oauth_clients": "credentials: looked up by client id before the tenant is known; "
    "the row records its tenant",
    "users": "credentials: looked up by username (unique across tenants) at sign-in, "
    "before the tenant is known",
    "authorization_codes": "credentials: looked up by the code's hash at the token "
    "endpoint, before the tenant is known",
    "refresh_tokens": "credentials: looked up by the token's hash at the token endpoint, "
    "before the tenant is known",
}


@dataclass(frozen=True)
class Exception_:
    """A statement shape allowed to leave the `tenant_id` of `tables` unconstrained:
    `pattern` must match the whole statement (whitespace collapsed to one space); `tables`
    None allows any table."""

    name: str
    tables: frozenset
    pattern: str
    reason: str

    def matches(self, text, unconstrained):
        tables_allowed = self.tables is None or set(unconstrained) <= self.tables
        return tables_allowed and re.fullmatch(self.pattern, text) is not None


SOFT_DELETED = frozenset({
    "activity_log_types", "activity_logs", "alerts", "automations", "documents", "entities",
    "files", "form_definitions", "webhook_endpoints", "workspaces",
})

# The documented exceptions (docs/architecture.md, "Distributing the tables with Citus"
# lists them with what each costs on Citus). First the server's statements that cross
# tenants by design, then the statements of the tests themselves.
EXCEPTIONS = (
    Exception_(
        "job-queue claim",
        frozenset({"job_tasks"}),
        r"UPDATE job_tasks SET claim = \$1, attempts = attempts \+ 1, run_after = \$2, update_time = \$3 "
        r"WHERE \(tenant_id, id\) IN \(SELECT r\.tenant_id, r\.id FROM job_tasks r WHERE NOT r\.done "
        r"AND r\.run_after <= \$4 ORDER BY r\.run_after LIMIT \$5 FOR UPDATE SKIP LOCKED\) RETURNING [a-z_, ]+",
        "a worker claims the oldest ready runs of every tenant (crates/storage/src/jobs.rs, "
        "claim_ready); the queue is one for the installation",
    ),
    Exception_(
        "webhook outbox scan",
        frozenset({"webhook_deliveries", "webhook_endpoints"}),
        r"UPDATE webhook_deliveries SET claim = \$1, run_after = \$2, update_time = \$3 "
        r"WHERE \(tenant_id, endpoint_id, id\) IN \(SELECT d\.tenant_id, d\.endpoint_id, d\.id "
        r"FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e\.tenant_id = d\.tenant_id .* "
        r"ORDER BY d\.run_after LIMIT \$5 FOR UPDATE OF d SKIP LOCKED\) RETURNING [a-z_, ]+",
        "a delivery worker claims the oldest due deliveries of every tenant, each after the "
        "earlier ones of its ordering key (crates/storage/src/webhook_deliveries.rs, claim_ready)",
    ),
    Exception_(
        "job-queue metrics",
        frozenset({"job_tasks"}),
        r"SELECT family, COUNT\(\*\) AS runs, MIN\(create_time\) AS oldest FROM job_tasks "
        r"WHERE NOT done GROUP BY family",
        "the gauges rics_job_queue_depth and rics_job_oldest_age_seconds are the installation's, "
        "read when Prometheus scrapes (crates/storage/src/jobs.rs)",
    ),
    Exception_(
        "housekeeping: purge",
        SOFT_DELETED | {"jobs"},
        r"SELECT t\.tenant_id AS tenant_id, (t\.id|t\.parent \|\| '/files/' \|\| t\.id) AS id FROM [a-z_]+ t "
        r"WHERE t\.purge_time IS NOT NULL AND t\.purge_time < \$1 ORDER BY t\.purge_time LIMIT \$2"
        r'|SELECT "jobs"\."tenant_id", "jobs"\."id" FROM "jobs" WHERE \(\("jobs"\."family" = \$1\) '
        r'AND \("jobs"\."purge_time" < \$2\)\) ORDER BY "jobs"\."purge_time" LIMIT \$3',
        "housekeeping finds the soft-deleted resources of every tenant due for purging, a page at "
        "a time, then purges each in its tenant (crates/storage/src/store.rs, jobs.rs)",
    ),
    Exception_(
        "housekeeping: form expiry",
        frozenset({"forms"}),
        r"SELECT f\.tenant_id AS tenant_id, f\.id AS id FROM forms f WHERE f\.state = 'DRAFT' "
        r"AND f\.expire_time IS NOT NULL AND f\.expire_time <= \$1 ORDER BY f\.expire_time, f\.tenant_id, f\.id LIMIT \$2",
        "housekeeping finds the draft forms of every tenant past their deadline, then expires each "
        "in its tenant (crates/storage/src/forms.rs)",
    ),
    Exception_(
        "housekeeping: file content removal",
        frozenset({"file_content_removals", "files"}),
        r"SELECT r\.tenant_id AS tenant_id, r\.file_uid AS file_uid FROM file_content_removals r "
        r"WHERE r\.due_time < \$1 AND NOT EXISTS \(SELECT 1 FROM files f WHERE f\.tenant_id = r\.tenant_id "
        r"AND f\.uid = r\.file_uid\) ORDER BY r\.due_time, r\.tenant_id, r\.file_uid LIMIT \$2",
        "housekeeping finds the file contents of every tenant due for removal from the file store "
        "(crates/storage/src/files.rs)",
    ),
    Exception_(
        "housekeeping: idempotency key expiry",
        frozenset({"idempotency_keys"}),
        r'DELETE FROM "idempotency_keys" WHERE \("idempotency_keys"\."create_time" < \$1\)',
        "housekeeping removes the idempotency keys of every tenant past their retention "
        "(crates/storage/src/idempotency.rs)",
    ),
    Exception_(
        "housekeeping: operation redaction",
        frozenset({"operations"}),
        r'SELECT "operations"\."tenant_id", "operations"\."id", "operations"\."response" FROM "operations" '
        r'WHERE \(\("operations"\."redact_after" IS NOT NULL\) AND \("operations"\."redact_after" <= \$1\)\)',
        "housekeeping finds the operations of every tenant whose one-time secrets are due for "
        "redaction, then redacts each in its tenant (crates/storage/src/operations.rs)",
    ),
    Exception_(
        "housekeeping: webhook delivery retention",
        frozenset({"webhook_deliveries"}),
        r"DELETE FROM webhook_deliveries WHERE \(tenant_id, endpoint_id, id\) IN \(SELECT tenant_id, "
        r"endpoint_id, id FROM webhook_deliveries WHERE finish_time < \$1 ORDER BY finish_time LIMIT \$2\)",
        "housekeeping removes the finished deliveries of every tenant past their retention "
        "(crates/storage/src/webhook_deliveries.rs)",
    ),
    Exception_(
        "migration data step: document name trigrams",
        frozenset({"documents"}),
        r"SELECT d\.tenant_id AS tenant_id, d\.id AS id, d\.display_name AS display_name FROM documents d "
        r"WHERE d\.display_name_trigrams < 0 LIMIT \$1",
        "the data step of migration 000011 that SQL cannot write (crates/storage/src/migrations.rs, "
        "complete_data) finds the documents of every tenant still without name trigrams; it runs "
        "with every migration and finds none once done",
    ),
    # The tests' own statements, which arrange or inspect a test's schema; the server
    # never runs them.
    Exception_(
        "test: the schema matches schema.rs",
        None,
        r'SELECT "([a-z0-9_]+)"\."[a-z0-9_]+"(, "\1"\."[a-z0-9_]+")* FROM "\1" LIMIT \$1',
        "crates/storage/tests/contract/migrations.rs reads every table through schema.rs",
    ),
    Exception_(
        "test: count the rows of a table",
        frozenset({"entities", "files", "file_contents", "file_content_removals", "operations"}),
        r"SELECT COUNT\(\*\) AS n FROM [a-z_]+",
        "tests/src/lib.rs count_rows: what shows that a refused or erased upload left nothing in "
        "any tenant",
    ),
    Exception_(
        "test: data kept across a migration",
        frozenset({"entities", "entity_bodies", "documents", "document_name_trigrams"}),
        r"SELECT id \|\| '\|' \|\| coalesce\(risk_status, '-'\) AS line FROM entities"
        r"|SELECT entity_id AS line FROM entity_bodies ORDER BY entity_id"
        r"|SELECT display_name \|\| '\|' \|\| CAST\(display_name_trigrams AS TEXT\) AS line FROM documents"
        r"|SELECT trigram AS line FROM document_name_trigrams WHERE document_id = 'doc-1'"
        r"|SELECT tenant_id \|\| '/' \|\| entity_id \|\| '\|' \|\| CASE WHEN monitoring THEN 'on' "
        r"ELSE 'off' END AS line FROM entity_bodies",
        "crates/storage/tests/contract/migrations.rs reads the rows written before a migration",
    ),
    Exception_(
        "test: documents' workspaces",
        frozenset({"documents"}),
        r'SELECT "documents"\."workspace" FROM "documents" ORDER BY "documents"\."id"',
        "crates/storage/tests/contract/entity_repository/forms.rs reads what a submitted form "
        "wrote into its documents",
    ),
    Exception_(
        "test: an expired verification session",
        frozenset({"verification_sessions"}),
        r"UPDATE verification_sessions SET expire_time = [0-9]+ WHERE id = '[0-9a-f-]+'",
        "tests/tests/api/verification.rs backdates a session to test its expiry",
    ),
)


def collapse(text):
    """`text` with every run of whitespace one space, trimmed."""
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------
# The schema, from the migrations.


@dataclass
class Table:
    """A table as the migrations leave it."""

    name: str
    columns: list = field(default_factory=list)
    # (index name, unique, columns) of its primary key, unique constraints and indexes.
    indexes: list = field(default_factory=list)
    # (columns, referenced table, referenced columns) of its foreign keys.
    foreign_keys: list = field(default_factory=list)

    @property
    def tenant_owned(self):
        return "tenant_id" in self.columns


def _strings(nodes):
    return [n["String"]["sval"] for n in nodes if "String" in n]


def load_schema(migrations):
    """The tables of the `*/up.sql` files of `migrations`, applied in order."""
    tables = {}
    for up in sorted(migrations.glob("*/up.sql")):
        for raw in json.loads(parser.parse_sql_json(up.read_text()))["stmts"]:
            ((kind, body),) = raw["stmt"].items()
            if kind == "CreateStmt":
                table = Table(body["relation"]["relname"])
                tables[table.name] = table
                for element in body.get("tableElts", []):
                    if "ColumnDef" in element:
                        column = element["ColumnDef"]
                        table.columns.append(column["colname"])
                        for constraint in column.get("constraints", []):
                            _add_constraint(table, constraint["Constraint"], [column["colname"]])
                    elif "Constraint" in element:
                        _add_constraint(table, element["Constraint"], None)
            elif kind == "AlterTableStmt":
                table = tables[body["relation"]["relname"]]
                for command in body["cmds"]:
                    command = command["AlterTableCmd"]
                    if command["subtype"] == "AT_AddColumn":
                        table.columns.append(command["def"]["ColumnDef"]["colname"])
                    elif command["subtype"] == "AT_DropColumn":
                        table.columns.remove(command["name"])
                    elif command["subtype"] == "AT_AddConstraint":
                        _add_constraint(table, command["def"]["Constraint"], None)
            elif kind == "IndexStmt":
                table = tables[body["relation"]["relname"]]
                columns = [p["IndexElem"].get("name", "(expression)") for p in body["indexParams"]]
                table.indexes.append((body["idxname"], bool(body.get("unique")), columns))
            elif kind == "DropStmt" and body["removeType"] == "OBJECT_TABLE":
                for name in body["objects"]:
                    tables.pop(_strings(name["List"]["items"])[-1], None)
            elif kind == "DropStmt" and body["removeType"] == "OBJECT_INDEX":
                for name in body["objects"]:
                    dropped = _strings(name["List"]["items"])[-1]
                    for table in tables.values():
                        table.indexes = [i for i in table.indexes if i[0] != dropped]
    return tables


def _add_constraint(table, constraint, columns):
    kind = constraint["contype"]
    if kind == "CONSTR_FOREIGN":
        referenced = constraint["pktable"]["relname"]
        table.foreign_keys.append(
            (columns or _strings(constraint["fk_attrs"]), referenced, _strings(constraint.get("pk_attrs", [])))
        )
        return
    if kind not in ("CONSTR_PRIMARY", "CONSTR_UNIQUE"):
        return
    keys = columns or _strings(constraint["keys"])
    label = "primary key" if kind == "CONSTR_PRIMARY" else constraint.get("conname", "unique")
    table.indexes.append((label, True, keys))


def distributed_tables(tables):
    """The names of the tables distributed by `tenant_id`."""
    return {n for n, t in tables.items() if t.tenant_owned and n not in REFERENCE_TABLES}


def schema_problems(tables):
    """What the schema breaks of the rules: a unique index of a distributed table that
    does not lead with `tenant_id`, a foreign key between distributed tables that does not
    pair their `tenant_id`s, one from a reference table to a distributed table (Citus
    allows neither), a reference-table entry naming no tenant-owned table."""
    problems = []
    distributed = distributed_tables(tables)
    for name in sorted(distributed):
        for index, unique, columns in tables[name].indexes:
            if unique and columns[:1] != ["tenant_id"]:
                problems.append(
                    f"{name}: the unique index {index} ({', '.join(columns)}) does not lead "
                    "with tenant_id: Citus needs the distribution column in it"
                )
    for name in sorted(tables):
        for columns, referenced, referenced_columns in tables[name].foreign_keys:
            if referenced not in distributed:
                continue
            if name not in distributed:
                problems.append(f"{name}: a reference table's foreign key to the distributed table {referenced}")
            elif ("tenant_id", "tenant_id") not in zip(columns, referenced_columns):
                problems.append(
                    f"{name}: the foreign key ({', '.join(columns)}) to {referenced} does not pair "
                    "tenant_id with tenant_id"
                )
    for name in sorted(REFERENCE_TABLES):
        if name not in tables or not tables[name].tenant_owned:
            problems.append(f"REFERENCE_TABLES names {name}, which is no table with tenant_id")
    return problems


def leading_report(tables):
    """Lines saying, for each distributed table, the indexes that do not lead with
    `tenant_id` (for docs/architecture.md)."""
    lines = []
    for name in sorted(distributed_tables(tables)):
        for index, unique, columns in tables[name].indexes:
            if columns[:1] != ["tenant_id"]:
                kind = "unique" if unique else "index"
                lines.append(f"{name}: {kind} {index} ({', '.join(columns)})")
    return lines


# ---------------------------------------------------------------------------------------
# One statement.

ANCHOR = ("anchor",)


class Unions:
    """Union-find over column nodes and ANCHOR (a parameter or constant)."""

    def __init__(self):
        self.parent = {}

    def find(self, node):
        self.parent.setdefault(node, node)
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def union(self, a, b):
        self.parent[self.find(a)] = self.find(b)

    def anchored(self, node):
        return self.find(node) == self.find(ANCHOR)


@dataclass
class Rel:
    """A relation in a FROM clause: a table, or a derived one (subquery, CTE, function)."""

    id: int
    name: str
    table: str = None
    # A derived relation's output columns: name to node (None: not a column reference);
    # None when they are unknown.
    outputs: dict = None
    # A derived relation whose output is `*` of this scope.
    star: "Scope" = None


@dataclass
class Scope:
    rels: list
    parent: "Scope" = None
    ctes: dict = field(default_factory=dict)

    def cte(self, name):
        scope = self
        while scope is not None:
            if name in scope.ctes:
                return scope.ctes[name]
            scope = scope.parent
        return None


class Statement:
    """The analysis of one parsed statement."""

    def __init__(self, tables, distributed):
        self.tables = tables
        self.distributed = distributed
        self.unions = Unions()
        self.table_rels = []
        self.next_id = 0
        # The SubLinks `conjuncts` analysed already.
        self.analysed = set()

    def unconstrained(self):
        """The distributed tables the statement reads or writes without a constrained
        `tenant_id`, sorted."""
        return sorted(
            {
                r.table
                for r in self.table_rels
                if r.table in self.distributed
                and not self.unions.anchored(("col", r.id, "tenant_id"))
            }
        )

    # -- relations and columns

    def new_rel(self, name, table=None, outputs=None, star=None):
        self.next_id += 1
        rel = Rel(self.next_id, name, table, outputs, star)
        if table is not None:
            self.table_rels.append(rel)
        return rel

    def has_column(self, rel, column):
        if rel.table is not None:
            return rel.table in self.tables and column in self.tables[rel.table].columns
        if rel.outputs is not None and column in rel.outputs:
            return True
        return rel.star is not None and self.resolve(rel.star, [column], local=True) is not None

    def column_node(self, rel, column):
        if rel.table is not None:
            return ("col", rel.id, column)
        if rel.outputs is not None and column in rel.outputs:
            return rel.outputs[column]
        if rel.star is not None:
            return self.resolve(rel.star, [column], local=True)
        return None

    def resolve(self, scope, fields, local=False):
        """The node of a column reference (`fields`: its names) in `scope`, or None."""
        if not fields or any(not isinstance(f, str) for f in fields):
            return None
        column = fields[-1]
        qualifier = fields[-2] if len(fields) > 1 else None
        while scope is not None:
            if qualifier is None:
                found = [r for r in scope.rels if self.has_column(r, column)]
                if len(found) > 1:
                    return None
                if found:
                    return self.column_node(found[0], column)
            else:
                for rel in scope.rels:
                    if rel.name == qualifier:
                        return self.column_node(rel, column)
            if local:
                return None
            scope = scope.parent
        return None

    def node(self, scope, expr):
        """The node an expression stands for: a column, ANCHOR, or None."""
        if expr is None:
            return None
        ((kind, body),) = expr.items()
        if kind == "ColumnRef":
            fields = [f["String"]["sval"] if "String" in f else None for f in body["fields"]]
            return self.resolve(scope, fields)
        if kind in ("ParamRef", "A_Const"):
            return ANCHOR
        if kind == "TypeCast":
            return self.node(scope, body["arg"])
        return None

    # -- predicates

    def conjuncts(self, scope, expr):
        """Unites what the top-level conjunctions of `expr` equate."""
        if expr is None:
            return
        ((kind, body),) = expr.items()
        if kind == "BoolExpr" and body["boolop"] == "AND_EXPR":
            for arg in body["args"]:
                self.conjuncts(scope, arg)
        elif kind == "A_Expr" and body["kind"] == "AEXPR_OP" and _strings(body["name"]) == ["="]:
            self.equate(scope, body.get("lexpr"), body.get("rexpr"))
        elif kind == "A_Expr" and body["kind"] == "AEXPR_IN":
            items = body["rexpr"].get("List", {}).get("items", [])
            if len(items) == 1:
                self.equate(scope, body.get("lexpr"), items[0])
        elif kind == "SubLink" and body["subLinkType"] == "ANY_SUBLINK" and _strings(body.get("operName", [])) in ([], ["="]):
            # `x IN (SELECT ...)`, `(a, b) IN (SELECT ...)`: each left value equals the
            # subquery's output in its place.
            self.analysed.add(id(body))
            outputs = self.query(Scope([], scope), body["subselect"])
            test = body["testexpr"]
            lefts = test["RowExpr"]["args"] if "RowExpr" in test else [test]
            if isinstance(outputs, list) and len(outputs) == len(lefts):
                for left, (_, right) in zip(lefts, outputs):
                    a = self.node(scope, left)
                    if a is not None and right is not None:
                        self.unions.union(a, right)

    def equate(self, scope, left, right):
        a, b = self.node(scope, left), self.node(scope, right)
        if a is not None and b is not None:
            self.unions.union(a, b)

    def expressions(self, scope, tree):
        """Analyses the subqueries (SubLinks) anywhere in `tree`, in `scope`."""
        if isinstance(tree, list):
            for item in tree:
                self.expressions(scope, item)
        elif isinstance(tree, dict):
            for key, value in tree.items():
                if key == "SubLink":
                    self.expressions(scope, value.get("testexpr"))
                    if id(value) not in self.analysed:
                        self.query(Scope([], scope), value["subselect"])
                else:
                    self.expressions(scope, value)

    # -- queries

    def query(self, scope, stmt):
        """Analyses a statement node in `scope` (the enclosing query's, for correlation)
        and returns its output columns (name to node), or None."""
        ((kind, body),) = stmt.items()
        if kind == "SelectStmt":
            return self.select(scope, body)
        if kind == "InsertStmt":
            return self.insert(scope, body)
        if kind == "UpdateStmt":
            return self.update(scope, body)
        if kind == "DeleteStmt":
            return self.delete(scope, body)
        return None

    def with_clause(self, scope, body):
        with_clause = body.get("withClause")
        if not with_clause:
            return
        for cte in with_clause["ctes"]:
            cte = cte["CommonTableExpr"]
            outputs = self.query(Scope([], scope), cte["ctequery"])
            scope.ctes[cte["ctename"]] = renamed(outputs, _strings(cte.get("aliascolnames", [])))

    def select(self, outer, body):
        scope = Scope([], outer)
        self.with_clause(scope, body)
        if body.get("op", "SETOP_NONE") != "SETOP_NONE":
            self.query(scope, {"SelectStmt": body["larg"]})
            self.query(scope, {"SelectStmt": body["rarg"]})
            return None
        for item in body.get("fromClause", []):
            self.from_item(scope, item)
        self.conjuncts(scope, body.get("whereClause"))
        for key in ("targetList", "whereClause", "havingClause", "groupClause", "sortClause",
                    "valuesLists", "limitCount", "limitOffset", "distinctClause"):
            self.expressions(scope, body.get(key))
        return self.outputs(scope, body.get("targetList", []))

    def outputs(self, scope, targets):
        """A query's output columns in order, (name or None, node); or, for `*`, the
        scope whose columns it outputs."""
        outputs = []
        for target in targets:
            target = target["ResTarget"]
            value = target.get("val", {})
            name = target.get("name")
            if name is None and "ColumnRef" in value:
                last = value["ColumnRef"]["fields"][-1]
                if "A_Star" in last:
                    return scope
                name = last["String"]["sval"]
            outputs.append((name, self.node(scope, value)))
        return outputs

    def from_item(self, scope, item):
        """Adds the relations of a FROM item to `scope`; returns them."""
        ((kind, body),) = item.items()
        if kind == "RangeVar":
            name = body.get("alias", {}).get("aliasname", body["relname"])
            if "schemaname" not in body and self._is_cte(scope, body["relname"]):
                rel = self._derived(name, scope.cte(body["relname"]))
            else:
                rel = self.new_rel(name, table=body["relname"])
            scope.rels.append(rel)
            return [rel]
        if kind == "RangeSubselect":
            outputs = self.query(Scope([], scope), body["subquery"])
            alias = body.get("alias", {})
            rel = self._derived(alias.get("aliasname", ""), renamed(outputs, _strings(alias.get("colnames", []))))
            scope.rels.append(rel)
            return [rel]
        if kind == "JoinExpr":
            left = self.from_item(scope, body["larg"])
            right = self.from_item(scope, body["rarg"])
            for column in _strings(body.get("usingClause", [])):
                a = [r for r in left if self.has_column(r, column)]
                b = [r for r in right if self.has_column(r, column)]
                if len(a) == 1 and len(b) == 1:
                    x, y = self.column_node(a[0], column), self.column_node(b[0], column)
                    if x is not None and y is not None:
                        self.unions.union(x, y)
            self.conjuncts(scope, body.get("quals"))
            self.expressions(scope, body.get("quals"))
            return left + right
        # A function in FROM (unnest, generate_series): its columns are no table's.
        alias = body.get("alias", {}).get("aliasname", "") if isinstance(body, dict) else ""
        self.expressions(scope, body)
        rel = self.new_rel(alias, outputs={})
        scope.rels.append(rel)
        return [rel]

    def _is_cte(self, scope, name):
        while scope is not None:
            if name in scope.ctes:
                return True
            scope = scope.parent
        return False

    def _derived(self, name, outputs):
        if isinstance(outputs, Scope):
            return self.new_rel(name, outputs={}, star=outputs)
        if outputs is None:
            return self.new_rel(name)
        return self.new_rel(name, outputs={n: node for n, node in outputs if n is not None})

    def target(self, scope, relation):
        name = relation.get("alias", {}).get("aliasname", relation["relname"])
        rel = self.new_rel(name, table=relation["relname"])
        scope.rels.append(rel)
        return rel

    def insert(self, outer, body):
        scope = Scope([], outer)
        self.with_clause(scope, body)
        target = self.target(Scope([], scope), body["relation"])
        columns = [c["ResTarget"]["name"] for c in body.get("cols", [])]
        if not columns and target.table in self.tables:
            columns = list(self.tables[target.table].columns)
        source = body.get("selectStmt")
        if source is not None:
            select = source["SelectStmt"]
            if select.get("valuesLists"):
                self.expressions(scope, select["valuesLists"])
                if "tenant_id" in columns:
                    position = columns.index("tenant_id")
                    rows = [v["List"]["items"] for v in select["valuesLists"]]
                    if all(
                        position < len(row) and self.node(scope, row[position]) == ANCHOR
                        for row in rows
                    ):
                        self.unions.union(("col", target.id, "tenant_id"), ANCHOR)
            else:
                outputs = self.query(scope, source)
                if isinstance(outputs, list) and "tenant_id" in columns:
                    position = columns.index("tenant_id")
                    if position < len(outputs) and outputs[position][1] is not None:
                        self.unions.union(("col", target.id, "tenant_id"), outputs[position][1])
        own = Scope([target], scope)
        conflict = body.get("onConflictClause")
        if conflict:
            excluded = self.new_rel("excluded", outputs={})
            conflict_scope = Scope([target, excluded], scope)
            self.expressions(conflict_scope, conflict)
        self.expressions(own, returning(body))
        return self.outputs(own, returning(body))

    def update(self, outer, body):
        scope = Scope([], outer)
        self.with_clause(scope, body)
        self.target(scope, body["relation"])
        for item in body.get("fromClause", []):
            self.from_item(scope, item)
        self.conjuncts(scope, body.get("whereClause"))
        for key in ("targetList", "whereClause"):
            self.expressions(scope, body.get(key))
        self.expressions(scope, returning(body))
        return self.outputs(scope, returning(body))

    def delete(self, outer, body):
        scope = Scope([], outer)
        self.with_clause(scope, body)
        self.target(scope, body["relation"])
        for item in body.get("usingClause", []):
            self.from_item(scope, item)
        self.conjuncts(scope, body.get("whereClause"))
        self.expressions(scope, body.get("whereClause"))
        self.expressions(scope, returning(body))
        return self.outputs(scope, returning(body))


def renamed(outputs, names):
    """Query outputs with their columns renamed in order (a CTE's or an alias's column
    names)."""
    if not names or not isinstance(outputs, list):
        return outputs
    return [(names[i] if i < len(names) else name, node) for i, (name, node) in enumerate(outputs)]


def returning(body):
    """The RETURNING targets of an INSERT, UPDATE or DELETE."""
    return body.get("returningClause", {}).get("exprs", [])


DML = ("SelectStmt", "InsertStmt", "UpdateStmt", "DeleteStmt")


def statements(text):
    """The statements of a logged query text: (their text, their parse tree)."""
    parsed = json.loads(parser.parse_sql_json(text))["stmts"]
    encoded = text.encode()
    for raw in parsed:
        start = raw.get("stmt_location", 0)
        length = raw.get("stmt_len") or len(encoded) - start
        yield encoded[start:start + length].decode(errors="replace").strip(), raw["stmt"]


def unconstrained_tables(tree, tables, distributed):
    """The distributed tables a parsed statement leaves without a `tenant_id` predicate."""
    ((kind, body),) = tree.items()
    if kind in ("PrepareStmt", "ExplainStmt", "CreateTableAsStmt", "DeclareCursorStmt"):
        # A statement around a query: the query is what runs.
        return unconstrained_tables(body["query"], tables, distributed)
    if kind not in DML:
        return []
    analysis = Statement(tables, distributed)
    analysis.query(Scope([]), tree)
    return analysis.unconstrained()


def migration_fingerprints(migrations):
    """The fingerprints of every statement the migrations run (up and down)."""
    prints = set()
    for path in sorted(migrations.glob("*/*.sql")):
        for text, _ in statements(path.read_text()):
            prints.add(parser.fingerprint(text))
    return prints


# ---------------------------------------------------------------------------------------
# The log.

LOGGED = re.compile(r"^(?:statement|execute [^\s:]+): ", re.S)
TEST_SCHEMA = re.compile(r"\btest_[0-9a-f]{24}\b")
# The field of a csvlog row holding the message.
MESSAGE = 13


def logged_statements(path):
    """The texts of the statements in a csvlog file, with how often each ran. Test schema
    names are replaced by `test_schema`, so that statements differing by them count as one."""
    counts = Counter()
    with open(path, newline="", encoding="utf-8", errors="replace") as log:
        for row in csv.reader(log):
            if len(row) <= MESSAGE:
                continue
            match = LOGGED.match(row[MESSAGE])
            if match:
                counts[TEST_SCHEMA.sub("test_schema", row[MESSAGE][match.end():])] += 1
    return counts


@dataclass
class Finding:
    text: str
    count: int
    tables: list
    allowed_by: str = None


def check(counts, tables, migrations_prints, exceptions=EXCEPTIONS):
    """The findings of the logged statements (`counts`: text to times run), and the
    statements that could not be parsed."""
    distributed = distributed_tables(tables)
    findings, unparsed = {}, []
    for logged, count in counts.items():
        try:
            parts = list(statements(logged))
        except parser.ParseError as error:
            unparsed.append((logged, str(error)))
            continue
        for text, tree in parts:
            missing = unconstrained_tables(tree, tables, distributed)
            if not missing:
                continue
            if parser.fingerprint(text) in migrations_prints:
                continue
            key = collapse(text)
            if key in findings:
                findings[key].count += count
                continue
            allowed = next((e.name for e in exceptions if e.matches(key, missing)), None)
            findings[key] = Finding(key, count, missing, allowed)
    return list(findings.values()), unparsed


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("log", type=Path, nargs="?", help="the csvlog file of the test cluster")
    arguments.add_argument("--migrations", type=Path, default=ROOT / "migrations" / "postgres")
    arguments.add_argument("--allowed", action="store_true", help="also list the allowed statements")
    arguments.add_argument("--indexes", action="store_true",
                           help="list the indexes of distributed tables that do not lead with tenant_id, and stop")
    args = arguments.parse_args()

    tables = load_schema(args.migrations)
    if args.indexes:
        print("\n".join(leading_report(tables)))
        return 0
    if args.log is None:
        arguments.error("the log file is needed")
    problems = schema_problems(tables)
    counts = logged_statements(args.log)
    findings, unparsed = check(counts, tables, migration_fingerprints(args.migrations))
    failing = [f for f in findings if f.allowed_by is None]
    allowed = [f for f in findings if f.allowed_by is not None]
    runs = sum(counts.values())
    print(
        f"tenant statements: {runs} statements logged, {len(counts)} distinct; "
        f"{len(allowed)} allowed by exceptions, {len(failing)} without a tenant_id predicate"
    )
    if runs == 0:
        problems.append(f"{args.log} holds no statement: was the suite run against the logging cluster?")
    for finding in sorted(allowed, key=lambda f: f.allowed_by) if args.allowed else []:
        print(f"  allowed ({finding.allowed_by}, {finding.count}x): {finding.text[:300]}")
    used = {f.allowed_by for f in allowed}
    for exception in EXCEPTIONS:
        if exception.name not in used:
            print(f"  note: the exception {exception.name} allowed no statement of this run")
    for finding in sorted(failing, key=lambda f: -f.count):
        print(f"FAIL ({', '.join(finding.tables)}; {finding.count}x): {finding.text[:2000]}")
    for text, error in unparsed:
        print(f"FAIL (not parsed: {error}): {collapse(text)[:500]}")
    for problem in problems:
        print(f"FAIL (schema): {problem}")
    if failing:
        print(
            "A statement on a distributed table must constrain its tenant_id (a WHERE or "
            "JOIN ... ON equality with the caller's tenant). If it must cross tenants, add a "
            "documented entry to EXCEPTIONS in scripts/tenant_statements.py and to "
            "docs/architecture.md."
        )
    return 1 if failing or unparsed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
