#!/usr/bin/env python3
"""Tests of the tenant_id statement check (scripts/tenant_statements.py): what it takes
as a tenant_id predicate, what it refuses (a cross-tenant query among them), its
exceptions, the schema rules, and reading a csvlog file."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tenant_statements as ts  # noqa: E402

TABLES = ts.load_schema(ts.ROOT / "migrations" / "postgres")
DISTRIBUTED = ts.distributed_tables(TABLES)


def unconstrained(sql):
    ((_, tree),) = ts.statements(sql)
    return ts.unconstrained_tables(tree, TABLES, DISTRIBUTED)


class Predicates(unittest.TestCase):
    def assert_passes(self, sql):
        self.assertEqual(unconstrained(sql), [], sql)

    def assert_fails(self, sql, *tables):
        self.assertEqual(unconstrained(sql), sorted(tables), sql)

    def test_a_keyed_read_passes(self):
        self.assert_passes('SELECT "entities"."id" FROM "entities" WHERE "entities"."tenant_id" = $1 AND "entities"."id" = $2')
        self.assert_passes("SELECT id FROM entities WHERE tenant_id = $1::text")
        self.assert_passes("SELECT id FROM entities WHERE tenant_id IN ($1)")

    def test_an_update_from_a_values_list_needs_the_tenant_predicate(self):
        update = ("UPDATE jobs SET state = v.column2 FROM (VALUES ($1, $2), ($3, $4)) AS v "
                  "WHERE jobs.id = v.column1{} RETURNING jobs.id AS id")
        self.assert_passes(update.format(" AND jobs.tenant_id = $5"))
        self.assert_fails(update.format(""), "jobs")

    def test_a_cross_tenant_query_fails(self):
        self.assert_fails("SELECT id, display_name FROM entities WHERE display_name = $1", "entities")
        self.assert_fails("SELECT count(*) FROM alerts", "alerts")

    def test_removing_the_tenant_id_predicate_of_a_join_fails(self):
        joined = ("SELECT e.id, b.body FROM entities e JOIN entity_bodies b ON b.tenant_id = e.tenant_id "
                  "AND b.entity_id = e.id WHERE e.tenant_id = $1 AND e.id = $2")
        self.assert_passes(joined)
        self.assert_fails(joined.replace("b.tenant_id = e.tenant_id AND ", ""), "entity_bodies")
        self.assert_fails(joined.replace("e.tenant_id = $1 AND ", ""), "entities", "entity_bodies")

    def test_a_predicate_under_or_or_not_proves_nothing(self):
        self.assert_fails("SELECT id FROM entities WHERE tenant_id = $1 OR id = $2", "entities")
        self.assert_fails("SELECT id FROM entities WHERE NOT (tenant_id = $1)", "entities")
        self.assert_fails("SELECT id FROM entities WHERE tenant_id = ANY($1)", "entities")
        self.assert_fails("SELECT id FROM entities WHERE tenant_id <> $1", "entities")

    def test_subqueries_and_ctes(self):
        self.assert_passes("SELECT id FROM entities e WHERE e.tenant_id = $1 AND EXISTS (SELECT 1 FROM entity_tags t "
                           "WHERE t.tenant_id = e.tenant_id AND t.entity_id = e.id)")
        self.assert_fails("SELECT id FROM entities e WHERE e.tenant_id = $1 AND EXISTS (SELECT 1 FROM entity_tags t "
                          "WHERE t.entity_id = e.id)", "entity_tags")
        self.assert_passes("WITH page AS (SELECT tenant_id, id FROM entities WHERE tenant_id = $1 LIMIT 10) "
                           "SELECT b.body FROM page p JOIN entity_bodies b ON b.tenant_id = p.tenant_id AND b.entity_id = p.id")
        self.assert_passes("SELECT b.body FROM (SELECT * FROM entities WHERE tenant_id = $1) s "
                           "JOIN entity_bodies b USING (tenant_id)")
        self.assert_fails("SELECT id FROM entities WHERE tenant_id = $1 UNION ALL SELECT id FROM alerts", "alerts")
        row_in = ("UPDATE job_tasks SET done = true WHERE (tenant_id, id) IN (SELECT r.tenant_id, r.id "
                  "FROM job_tasks r WHERE r.tenant_id = $1 AND NOT r.done LIMIT 5)")
        self.assert_passes(row_in)
        self.assert_fails(row_in.replace("r.tenant_id = $1 AND ", ""), "job_tasks")
        self.assert_passes("DELETE FROM entity_tags WHERE tenant_id = $1 AND entity_id IN (SELECT id FROM entities "
                           "WHERE tenant_id = $1 AND purge_time < $2)")

    def test_writes(self):
        self.assert_passes("INSERT INTO entities (tenant_id, id) VALUES ($1, $2), ($1, $3) "
                           "ON CONFLICT (tenant_id, id) DO UPDATE SET display_name = excluded.display_name")
        self.assert_fails("INSERT INTO entity_tags (entity_id, tag) VALUES ($1, $2)", "entity_tags")
        self.assert_fails("INSERT INTO job_tasks (tenant_id, id) SELECT t.id, $1 FROM tenants t", "job_tasks")
        self.assert_passes("INSERT INTO entity_tags (tenant_id, entity_id, tag) "
                           "SELECT tenant_id, id, $2 FROM entities WHERE tenant_id = $1")
        self.assert_passes("UPDATE job_tasks SET done = true WHERE tenant_id = $1 AND id = $2 RETURNING id")
        self.assert_fails("UPDATE job_tasks SET done = true WHERE id = $1", "job_tasks")
        self.assert_fails("DELETE FROM idempotency_keys WHERE create_time < $1", "idempotency_keys")
        self.assert_passes("DELETE FROM idempotency_keys WHERE tenant_id = $1 AND create_time < $2")

    def test_reference_tables_and_utility_statements_pass(self):
        self.assert_passes("SELECT client_id, tenant_id FROM oauth_clients WHERE client_id = $1")
        self.assert_passes("SELECT id FROM tenants WHERE parent = $1")
        self.assert_passes("SELECT value FROM server_secrets WHERE name = $1")
        self.assert_passes("SELECT pg_advisory_lock(1)")
        self.assert_fails("PREPARE p AS SELECT id FROM entities WHERE id = $1", "entities")
        self.assert_fails("EXPLAIN SELECT id FROM entities WHERE id = $1", "entities")
        self.assert_passes("BEGIN")


class Exceptions(unittest.TestCase):
    def test_an_exception_allows_only_its_shape_and_tables(self):
        entry = ts.Exception_("claim", frozenset({"job_tasks"}), r"UPDATE job_tasks .* FOR UPDATE SKIP LOCKED\)", "why")
        claim = "UPDATE job_tasks SET x = 1 WHERE id IN (SELECT id FROM job_tasks WHERE NOT done FOR UPDATE SKIP LOCKED)"
        self.assertTrue(entry.matches(claim, ["job_tasks"]))
        self.assertFalse(entry.matches(claim, ["job_tasks", "jobs"]))
        self.assertFalse(entry.matches("UPDATE job_tasks SET x = 1 WHERE id = $1", ["job_tasks"]))

    def test_every_exception_has_a_reason_and_compiles(self):
        for entry in ts.EXCEPTIONS:
            self.assertTrue(entry.reason.strip(), entry.name)
            self.assertTrue(entry.tables is None or entry.tables <= DISTRIBUTED, entry.name)
            ts.re.compile(entry.pattern)

    def test_check_reports_allowed_and_failing_statements(self):
        entry = ts.Exception_("sweep", frozenset({"idempotency_keys"}), r"DELETE FROM idempotency_keys .*", "why")
        counts = {"DELETE FROM idempotency_keys WHERE create_time < $1": 3,
                  "SELECT id FROM alerts WHERE state = $1": 2,
                  "SELECT id FROM alerts WHERE tenant_id = $1": 5}
        findings, unparsed = ts.check(counts, TABLES, set(), (entry,))
        self.assertEqual(unparsed, [])
        by_text = {f.text: f for f in findings}
        self.assertEqual(set(by_text), {"DELETE FROM idempotency_keys WHERE create_time < $1",
                                        "SELECT id FROM alerts WHERE state = $1"})
        self.assertEqual(by_text["DELETE FROM idempotency_keys WHERE create_time < $1"].allowed_by, "sweep")
        self.assertIsNone(by_text["SELECT id FROM alerts WHERE state = $1"].allowed_by)

    def test_the_migrations_statements_are_not_checked(self):
        prints = ts.migration_fingerprints(ts.ROOT / "migrations" / "postgres")
        seeding = next(s for s, _ in ts.statements(
            (ts.ROOT / "migrations/postgres/2026-11-27-000028_onboard_individual_automation/up.sql").read_text())
            if s.startswith("INSERT INTO automations"))
        findings, _ = ts.check({seeding: 1}, TABLES, prints, ())
        self.assertEqual(findings, [])
        findings, _ = ts.check({seeding: 1}, TABLES, set(), ())
        self.assertEqual([f.tables for f in findings], [["automations"]])


class Schema(unittest.TestCase):
    def test_the_schema_follows_the_rules(self):
        self.assertEqual(ts.schema_problems(TABLES), [])

    def test_a_unique_index_not_leading_with_tenant_id_is_a_problem(self):
        with tempfile.TemporaryDirectory() as folder:
            migration = Path(folder) / "2026-01-01-000001_x"
            migration.mkdir()
            (migration / "up.sql").write_text(
                "CREATE TABLE things (tenant_id TEXT NOT NULL, id TEXT NOT NULL, code TEXT, PRIMARY KEY (tenant_id, id));\n"
                "CREATE UNIQUE INDEX things_by_code ON things (code);\n")
            problems = ts.schema_problems(ts.load_schema(Path(folder)))
        problems = [p for p in problems if p.startswith("things")]
        self.assertEqual(len(problems), 1)
        self.assertIn("things_by_code", problems[0])

    def test_foreign_keys_must_pair_tenant_ids(self):
        with tempfile.TemporaryDirectory() as folder:
            migration = Path(folder) / "2026-01-01-000001_x"
            migration.mkdir()
            (migration / "up.sql").write_text(
                "CREATE TABLE things (tenant_id TEXT, id TEXT, PRIMARY KEY (tenant_id, id));\n"
                "CREATE TABLE parts (tenant_id TEXT, id TEXT, thing TEXT, PRIMARY KEY (tenant_id, id),\n"
                "    FOREIGN KEY (tenant_id, thing) REFERENCES things (tenant_id, id));\n"
                "CREATE TABLE loose (tenant_id TEXT, id TEXT, thing TEXT REFERENCES things (id), PRIMARY KEY (tenant_id, id));\n"
                "CREATE TABLE global (id TEXT PRIMARY KEY, thing_tenant TEXT, thing TEXT,\n"
                "    FOREIGN KEY (thing_tenant, thing) REFERENCES things (tenant_id, id));\n")
            problems = ts.schema_problems(ts.load_schema(Path(folder)))
        problems = [p for p in problems if not p.startswith("REFERENCE_TABLES")]
        self.assertEqual(len(problems), 2, problems)
        self.assertTrue(problems[0].startswith("global: a reference table's foreign key"), problems)
        self.assertTrue(problems[1].startswith("loose: the foreign key (thing)"), problems)

    def test_credentials_and_installation_tables_are_reference_tables(self):
        for table in ("oauth_clients", "users", "authorization_codes", "refresh_tokens", "tenants",
                      "server_secrets", "signing_keys", "screening_list_versions"):
            self.assertNotIn(table, DISTRIBUTED)
        for table in ("entities", "job_tasks", "webhook_deliveries", "events"):
            self.assertIn(table, DISTRIBUTED)


class Log(unittest.TestCase):
    def test_statements_are_read_from_csvlog_rows(self):
        rows = [
            '2026-11-25 16:40:42.998 UTC,"postgres","postgres",1,"127.0.0.1:1",a.1,1,"idle",'
            '2026-11-25 16:40:42 UTC,3/2,0,LOG,00000,"statement: SELECT 1 FROM ""test_0123456789abcdef01234567"".t",'
            ',,,,,,,,"psql","client backend",,0',
            '2026-11-25 16:40:43.000 UTC,"postgres","postgres",1,"127.0.0.1:1",a.1,2,"SELECT",'
            '2026-11-25 16:40:42 UTC,3/3,0,LOG,00000,"execute __diesel_stmt_0: SELECT id\nFROM entities",'
            ',,,,,,,,"","client backend",,0',
            '2026-11-25 16:40:43.000 UTC,"postgres","postgres",1,"127.0.0.1:1",a.1,3,"SELECT",'
            '2026-11-25 16:40:42 UTC,3/3,0,LOG,00000,"execute <unnamed>: SELECT id\nFROM entities",'
            ',,,,,,,,"","client backend",,0',
            '2026-11-25 16:40:43.000 UTC,,,1,,a.1,4,,2026-11-25 16:40:42 UTC,,0,LOG,00000,"checkpoint starting",'
            ',,,,,,,,"","checkpointer",,0',
        ]
        with tempfile.NamedTemporaryFile("w", suffix=".csv") as log:
            log.write("\n".join(rows) + "\n")
            log.flush()
            counts = ts.logged_statements(log.name)
        self.assertEqual(dict(counts), {'SELECT 1 FROM "test_schema".t': 1, "SELECT id\nFROM entities": 2})


if __name__ == "__main__":
    unittest.main()
