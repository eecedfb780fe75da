//! Migrations: both folders list the same versions with an up.sql and a down.sql;
//! on each backend every migration reverts to the exact schema it started from and
//! applies again; after all of them both backends have the same tables, columns,
//! nullability and indexes, tenant_id leads every key and index of tenant-owned
//! tables (but the documented global lookups of the identity tables), every SQLite
//! index has its fixed planner statistics, every table of `schema.rs` loads with all
//! its columns, and a test database, made without running the migrations, is what
//! running them makes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use diesel::prelude::*;
use diesel::sql_types::Text;
use rics_storage::connection::{DatabaseUrl, DbConnection, connect};
use rics_storage::migrations::{pending, revert_last, run_next, run_pending};
use rics_storage::schema;
use rics_storage::testing::TestDatabase;
use rics_storage::{Backend, migrations::ADVISORY_LOCK_KEY};

/// Generates `sqlite_$name` and `postgres_$name` running `$name(backend)`.
macro_rules! on_both {
    ($($name:ident => $sqlite:ident, $postgres:ident;)+) => {$(
        #[test]
        fn $sqlite() {
            $name(Backend::Sqlite);
        }

        #[test]
        fn $postgres() {
            $name(Backend::Postgres);
        }
    )+};
}

on_both! {
    each_migration_reverts_to_the_schema_it_started_from
        => sqlite_each_migration_reverts, postgres_each_migration_reverts;
    tenant_id_leads_every_key_and_index
        => sqlite_tenant_id_leads_every_key_and_index,
           postgres_tenant_id_leads_every_key_and_index;
    every_table_of_schema_rs_loads_with_all_its_columns
        => sqlite_every_table_of_schema_rs_loads, postgres_every_table_of_schema_rs_loads;
    migrating_twice_applies_nothing
        => sqlite_migrating_twice_applies_nothing, postgres_migrating_twice_applies_nothing;
    rows_stored_before_a_migration_are_carried_over
        => sqlite_rows_stored_before_a_migration_are_carried_over,
           postgres_rows_stored_before_a_migration_are_carried_over;
    monitoring_comes_from_the_bodies_stored_before_its_column
        => sqlite_monitoring_comes_from_the_bodies_stored_before_its_column,
           postgres_monitoring_comes_from_the_bodies_stored_before_its_column;
    a_test_database_is_what_running_the_migrations_makes
        => sqlite_a_test_database_is_what_running_the_migrations_makes,
           postgres_a_test_database_is_what_running_the_migrations_makes;
}

fn migrations_dir(backend: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../migrations")
        .join(backend)
}

/// The migration folder names of `backend`, sorted.
fn folder_names(backend: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(migrations_dir(backend))
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_dir())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Diesel's version of a migration folder: the part before `_`, without dashes.
fn version_of(folder: &str) -> String {
    folder.split('_').next().unwrap().replace('-', "")
}

#[test]
fn both_folders_list_the_same_migrations_with_up_and_down() {
    let postgres = folder_names("postgres");
    let sqlite = folder_names("sqlite");
    assert!(!postgres.is_empty());
    assert_eq!(postgres, sqlite, "migration folders differ");
    for backend in ["postgres", "sqlite"] {
        for name in &postgres {
            for file in ["up.sql", "down.sql"] {
                let path = migrations_dir(backend).join(name).join(file);
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(
                    text.lines()
                        .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("--")),
                    "{} has no SQL",
                    path.display()
                );
            }
        }
    }
    // Versions are unique, so the two folders cannot pair different migrations.
    let versions: BTreeSet<String> = postgres.iter().map(|n| version_of(n)).collect();
    assert_eq!(versions.len(), postgres.len());
}

/// A connection to a test database without migrations.
fn empty(backend: Backend) -> (TestDatabase, DbConnection) {
    let db = TestDatabase::empty(backend);
    let conn = connect(&DatabaseUrl::parse(db.url()).unwrap()).unwrap();
    (db, conn)
}

/// A connection to a migrated test database.
fn migrated(backend: Backend) -> (TestDatabase, DbConnection) {
    let db = TestDatabase::new(backend);
    let conn = connect(&DatabaseUrl::parse(db.url()).unwrap()).unwrap();
    (db, conn)
}

#[derive(QueryableByName)]
struct Line {
    #[diesel(sql_type = Text)]
    line: String,
}

/// Runs `sql` returning one text column `line`; sorted lines.
fn lines(conn: &mut DbConnection, sql: &str) -> Vec<String> {
    let mut lines: Vec<String> = diesel::sql_query(sql)
        .load::<Line>(conn)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .map(|l| l.line)
        .collect();
    lines.sort();
    lines
}

/// Everything that defines the schema of the test database: tables, columns with
/// their place, types, defaults and collations, constraints and indexes. A column's
/// place is its rank among the table's columns, not PostgreSQL's `ordinal_position`,
/// which keeps counting the columns a down.sql dropped: a column added again after
/// `DROP COLUMN` takes a new number but the same place.
fn snapshot(conn: &mut DbConnection) -> Vec<String> {
    match conn {
        DbConnection::Postgresql(_) => {
            let mut all = lines(
                conn,
                "SELECT concat_ws('|', 'column', table_name, column_name, \
                 rank() OVER (PARTITION BY table_name ORDER BY ordinal_position), \
                 data_type, is_nullable, column_default, collation_name) AS line \
                 FROM information_schema.columns WHERE table_schema = current_schema()",
            );
            all.extend(lines(
                conn,
                "SELECT concat_ws('|', 'index', tablename, indexname, indexdef) AS line \
                 FROM pg_indexes WHERE schemaname = current_schema()",
            ));
            all.extend(lines(
                conn,
                "SELECT concat_ws('|', 'constraint', conrelid::regclass::text, conname, \
                 pg_get_constraintdef(oid)) AS line FROM pg_constraint \
                 WHERE connamespace = current_schema()::regnamespace",
            ));
            all
        }
        DbConnection::Sqlite(_) => lines(
            conn,
            "SELECT type || '|' || name || '|' || tbl_name || '|' || coalesce(sql, '') \
             AS line FROM sqlite_master",
        ),
    }
}

/// [`snapshot`], and what else a migration could create or set, which each migration
/// must change and its down.sql restore: on PostgreSQL every relation of the schema
/// with its kind and storage options, its functions and its triggers, without the
/// schema's name (each test database has its own); on SQLite the fixed planner
/// statistics (once the first migration has made their table) and the user version.
fn catalogue(conn: &mut DbConnection) -> Vec<String> {
    let mut all = snapshot(conn);
    match conn {
        DbConnection::Postgresql(_) => {
            all.extend(lines(
                conn,
                "SELECT concat_ws('|', 'relation', relkind, relname, \
                 array_to_string(reloptions, ',')) AS line FROM pg_class \
                 WHERE relnamespace = current_schema()::regnamespace",
            ));
            all.extend(lines(
                conn,
                "SELECT concat_ws('|', 'function', proname, pg_get_functiondef(oid)) AS line \
                 FROM pg_proc WHERE pronamespace = current_schema()::regnamespace",
            ));
            all.extend(lines(
                conn,
                "SELECT concat_ws('|', 'trigger', c.relname, t.tgname, \
                 pg_get_triggerdef(t.oid)) AS line FROM pg_trigger t \
                 JOIN pg_class c ON c.oid = t.tgrelid \
                 WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal",
            ));
            let schema = lines(conn, "SELECT current_schema() AS line").concat();
            let qualifier = format!("{schema}.");
            all = all
                .into_iter()
                .map(|line| line.replace(&qualifier, ""))
                .collect();
            all.sort();
        }
        DbConnection::Sqlite(_) => {
            // The statistics table exists once the first migration has run ANALYZE.
            if !lines(
                conn,
                "SELECT name AS line FROM sqlite_master WHERE name = 'sqlite_stat1'",
            )
            .is_empty()
            {
                all.extend(lines(
                    conn,
                    "SELECT 'statistics|' || tbl || '|' || coalesce(idx, '') || '|' || stat \
                     AS line FROM sqlite_stat1",
                ));
            }
            all.extend(lines(
                conn,
                "SELECT 'user_version|' || user_version AS line FROM pragma_user_version",
            ));
        }
    }
    all
}

/// A test database (`TestDatabase::new`: a copy of a file migrated once per process on
/// SQLite, one rendered script on PostgreSQL) is what running the migrations on an
/// empty database makes: the same catalogue and the same recorded versions, with
/// nothing pending, so that the server's start-up migration step applies nothing.
fn a_test_database_is_what_running_the_migrations_makes(backend: Backend) {
    let (_made_db, mut made) = migrated(backend);
    let (_migrated_db, mut migrated) = empty(backend);
    let mut applied = run_pending(&mut migrated).unwrap();
    applied.sort();
    assert_eq!(applied.len(), folder_names("postgres").len());
    let recorded = "SELECT version AS line FROM __diesel_schema_migrations";
    assert_eq!(lines(&mut made, recorded), applied);
    assert_eq!(lines(&mut migrated, recorded), applied);
    let expected = catalogue(&mut migrated);
    assert!(expected.len() > 100, "{expected:#?}");
    let found = catalogue(&mut made);
    let extra: Vec<&String> = found.iter().filter(|l| !expected.contains(l)).collect();
    let missing: Vec<&String> = expected.iter().filter(|l| !found.contains(l)).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "a test database has {extra:#?} and lacks {missing:#?}"
    );
    assert_eq!(found, expected);
    assert_eq!(pending(&mut made).unwrap(), Vec::<String>::new());
    assert_eq!(run_pending(&mut made).unwrap(), Vec::<String>::new());
    assert_eq!(
        catalogue(&mut made),
        expected,
        "migrating it again changes nothing"
    );
}

/// The migrations that only seed rows for the tenants that exist (so change no schema):
/// the seed contract tests check what they store, against what provisioning stores.
const SEEDS_ONLY: &[&str] = &["20261129000032"];

fn each_migration_reverts_to_the_schema_it_started_from(backend: Backend) {
    let (_db, mut conn) = empty(backend);
    let versions = pending(&mut conn).unwrap();
    let folders: Vec<String> = folder_names("postgres")
        .iter()
        .map(|n| version_of(n))
        .collect();
    assert_eq!(
        versions, folders,
        "embedded migrations differ from the folders"
    );
    for version in &versions {
        let before = catalogue(&mut conn);
        assert_eq!(&run_next(&mut conn).unwrap(), version);
        let after = catalogue(&mut conn);
        if !SEEDS_ONLY.contains(&version.as_str()) {
            assert_ne!(before, after, "{version} changes nothing");
        }
        assert_eq!(&revert_last(&mut conn).unwrap(), version);
        let reverted = catalogue(&mut conn);
        let extra: Vec<&String> = reverted.iter().filter(|l| !before.contains(l)).collect();
        let missing: Vec<&String> = before.iter().filter(|l| !reverted.contains(l)).collect();
        assert!(
            extra.is_empty() && missing.is_empty(),
            "{version}: down.sql leaves {extra:#?} and does not restore {missing:#?}"
        );
        assert_eq!(pending(&mut conn).unwrap().first(), Some(version));
        assert_eq!(&run_next(&mut conn).unwrap(), version);
        assert_eq!(
            catalogue(&mut conn),
            after,
            "{version} applies differently again"
        );
    }
    assert!(pending(&mut conn).unwrap().is_empty());
    assert!(run_next(&mut conn).is_err(), "nothing is left to apply");
}

/// The indexes (a WITHOUT ROWID table's primary key under the table's name) and the
/// indexes named by fixed planner statistics, sorted.
fn indexes_and_statistics(conn: &mut DbConnection) -> (Vec<String>, Vec<String>) {
    let indexes = lines(
        conn,
        "SELECT m.name || '|' || CASE WHEN l.origin = 'pk' THEN m.name ELSE l.name END \
         AS line FROM sqlite_master m JOIN pragma_index_list(m.name) l \
         WHERE m.type = 'table' AND m.name <> '__diesel_schema_migrations' \
         AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
    );
    let statistics = lines(conn, "SELECT tbl || '|' || idx AS line FROM sqlite_stat1");
    (indexes, statistics)
}

/// SQLite plans with the fixed statistics of the migrations: every index has its row,
/// and reverting the last migration removes the rows of the tables it drops.
#[test]
fn sqlite_every_index_has_fixed_statistics() {
    let (_db, mut conn) = migrated(Backend::Sqlite);
    let (indexes, statistics) = indexes_and_statistics(&mut conn);
    assert!(
        indexes.contains(&"tenants|tenants".to_owned()),
        "{indexes:?}"
    );
    assert_eq!(statistics, indexes, "sqlite_stat1 and the indexes differ");
    revert_last(&mut conn).unwrap();
    let (indexes, statistics) = indexes_and_statistics(&mut conn);
    let table = |line: &String| line.split('|').next().unwrap().to_owned();
    let tables: BTreeSet<String> = indexes.iter().map(table).collect();
    let orphans: Vec<&String> = statistics
        .iter()
        .filter(|line| !tables.contains(&table(line)))
        .collect();
    assert!(orphans.is_empty(), "down.sql leaves {orphans:?}");
}

fn migrating_twice_applies_nothing(backend: Backend) {
    let (_db, mut conn) = empty(backend);
    let applied = run_pending(&mut conn).unwrap();
    assert_eq!(applied.len(), folder_names("postgres").len());
    let schema = snapshot(&mut conn);
    assert!(run_pending(&mut conn).unwrap().is_empty());
    assert_eq!(snapshot(&mut conn), schema);
    if backend == Backend::Postgres {
        assert_eq!(
            lines(
                &mut conn,
                &format!(
                    "SELECT objid::text AS line FROM pg_locks WHERE locktype = 'advisory' \
                     AND pid = pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) \
                     = {ADVISORY_LOCK_KEY}"
                ),
            ),
            Vec::<String>::new(),
            "the migration lock is released"
        );
    }
}

/// Replicas starting together: several connections migrate the same empty database
/// at once; the advisory lock makes them take turns, so each migration is applied
/// once and none fails.
#[test]
fn postgres_concurrent_migrations_take_turns() {
    let db = TestDatabase::empty(Backend::Postgres);
    let url = DatabaseUrl::parse(db.url()).unwrap();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
    let runs: Vec<_> = (0..4)
        .map(|_| {
            let (url, barrier) = (url.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut conn = connect(&url).unwrap();
                barrier.wait();
                run_pending(&mut conn)
            })
        })
        .collect();
    let mut applied: Vec<String> = Vec::new();
    for run in runs {
        applied.extend(run.join().unwrap().unwrap());
    }
    applied.sort();
    let expected: Vec<String> = folder_names("postgres")
        .iter()
        .map(|n| version_of(n))
        .collect();
    assert_eq!(applied, expected);
}

/// Table -> columns with a portable type and nullability, from the database.
fn columns(conn: &mut DbConnection) -> BTreeMap<String, Vec<String>> {
    let raw = match conn {
        DbConnection::Postgresql(_) => lines(
            conn,
            "SELECT concat_ws('|', table_name, lpad(ordinal_position::text, 3, '0'), \
             column_name, data_type, is_nullable) AS line FROM information_schema.columns \
             WHERE table_schema = current_schema() \
             AND table_name <> '__diesel_schema_migrations'",
        ),
        DbConnection::Sqlite(_) => lines(
            conn,
            "SELECT m.name || '|' || substr('00' || p.cid, -3) || '|' || p.name || '|' || \
             lower(p.type) || '|' || CASE WHEN p.\"notnull\" = 1 THEN 'NO' ELSE 'YES' END \
             AS line FROM sqlite_master m JOIN pragma_table_info(m.name) p \
             WHERE m.type = 'table' AND m.name <> '__diesel_schema_migrations' \
             AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        ),
    };
    let mut tables: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in raw {
        let parts: Vec<&str> = line.split('|').collect();
        let portable = match parts[3] {
            "double precision" | "real" => "double",
            "bytea" | "blob" => "bytes",
            other => other,
        };
        tables
            .entry(parts[0].to_owned())
            .or_default()
            .push(format!("{} {portable} nullable={}", parts[2], parts[4]));
    }
    tables
}

/// Index name -> (table, key columns, an expression as `(expression)`), for every
/// index, constraints' included.
fn indexes(conn: &mut DbConnection) -> BTreeMap<String, (String, Vec<String>)> {
    let raw = match conn {
        DbConnection::Postgresql(_) => lines(
            conn,
            "SELECT concat_ws('|', i.relname, t.relname, k.n, \
             coalesce(a.attname, '(expression)')) AS line \
             FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid \
             JOIN pg_class t ON t.oid = x.indrelid \
             CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) \
             LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum \
             WHERE t.relnamespace = current_schema()::regnamespace \
             AND t.relname <> '__diesel_schema_migrations'",
        ),
        DbConnection::Sqlite(_) => lines(
            conn,
            "SELECT l.name || '|' || m.name || '|' || (c.seqno + 1) || '|' \
             || coalesce(c.name, '(expression)') AS line \
             FROM sqlite_master m JOIN pragma_index_list(m.name) l \
             JOIN pragma_index_info(l.name) c \
             WHERE m.type = 'table' AND m.name <> '__diesel_schema_migrations' \
             AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
        ),
    };
    let mut found: BTreeMap<String, (String, Vec<(u32, String)>)> = BTreeMap::new();
    for line in raw {
        let parts: Vec<&str> = line.split('|').collect();
        let entry = found
            .entry(parts[0].to_owned())
            .or_insert_with(|| (parts[1].to_owned(), Vec::new()));
        entry
            .1
            .push((parts[2].parse().unwrap(), parts[3].to_owned()));
    }
    found
        .into_iter()
        .map(|(name, (table, mut keys))| {
            keys.sort();
            (name, (table, keys.into_iter().map(|(_, c)| c).collect()))
        })
        .collect()
}

/// Indexes created by CREATE INDEX (named alike on both backends), without the ones
/// behind primary keys and UNIQUE constraints (named by each database).
fn created_indexes(conn: &mut DbConnection) -> BTreeMap<String, (String, Vec<String>)> {
    let constraint_backed: BTreeSet<String> = match conn {
        DbConnection::Postgresql(_) => lines(
            conn,
            "SELECT conname AS line FROM pg_constraint \
             WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u')",
        ),
        DbConnection::Sqlite(_) => lines(
            conn,
            "SELECT l.name AS line FROM sqlite_master m JOIN pragma_index_list(m.name) l \
             WHERE m.type = 'table' AND l.origin <> 'c'",
        ),
    }
    .into_iter()
    .collect();
    indexes(conn)
        .into_iter()
        .filter(|(name, _)| !constraint_backed.contains(name))
        .collect()
}

#[test]
fn both_backends_end_with_the_same_tables_columns_and_indexes() {
    let (_pg_db, mut pg) = migrated(Backend::Postgres);
    let (_lite_db, mut lite) = migrated(Backend::Sqlite);
    let (pg_columns, lite_columns) = (columns(&mut pg), columns(&mut lite));
    assert!(pg_columns.contains_key("entities"));
    assert_eq!(
        pg_columns, lite_columns,
        "the migration folders drifted apart"
    );
    let (pg_indexes, lite_indexes) = (created_indexes(&mut pg), created_indexes(&mut lite));
    assert!(pg_indexes.contains_key("entities_by_create_time"));
    assert_eq!(
        pg_indexes, lite_indexes,
        "the migration folders drifted apart"
    );
    // Primary keys and unique constraints: same columns, whatever their names.
    let keys = |all: BTreeMap<String, (String, Vec<String>)>, created: &BTreeMap<_, _>| {
        let mut keys: Vec<(String, Vec<String>)> = all
            .into_iter()
            .filter(|(name, _)| !created.contains_key(name))
            .map(|(_, key)| key)
            .collect();
        keys.sort();
        keys
    };
    let pg_keys = keys(indexes(&mut pg), &pg_indexes);
    assert!(pg_keys.len() >= pg_columns.len(), "a table without a key");
    assert_eq!(pg_keys, keys(indexes(&mut lite), &lite_indexes));
}

/// Keys looked up before the caller's tenant is known (by the authorization server)
/// or swept across tenants, as (table, first key column): the documented exceptions
/// of the identity migration, the job queue's and the webhook delivery queue's ready
/// indexes, which workers scan across tenants, and the finished deliveries the purge
/// sweeps across tenants. Every other index of these tables leads with tenant_id.
const GLOBAL_KEYS: [(&str, &str); 9] = [
    ("oauth_clients", "client_id"),
    ("users", "username"),
    ("authorization_codes", "code_hash"),
    ("authorization_codes", "expire_time"),
    ("refresh_tokens", "token_hash"),
    ("refresh_tokens", "expire_time"),
    ("job_tasks", "run_after"),
    ("webhook_deliveries", "run_after"),
    ("webhook_deliveries", "finish_time"),
];

fn tenant_id_leads_every_key_and_index(backend: Backend) {
    let (_db, mut conn) = migrated(backend);
    let tenant_owned: BTreeSet<String> = columns(&mut conn)
        .into_iter()
        .filter(|(_, columns)| columns.iter().any(|c| c.starts_with("tenant_id ")))
        .map(|(table, _)| table)
        .collect();
    assert!(tenant_owned.contains("entities") && tenant_owned.contains("events"));
    let mut checked = BTreeSet::new();
    let mut exceptions = BTreeSet::new();
    for (name, (table, keys)) in indexes(&mut conn) {
        if !tenant_owned.contains(&table) {
            continue;
        }
        if GLOBAL_KEYS.contains(&(table.as_str(), keys[0].as_str())) {
            exceptions.insert((table, keys[0].clone()));
            continue;
        }
        assert_eq!(keys[0], "tenant_id", "{name} on {table}: {keys:?}");
        checked.insert(table);
    }
    let listed: BTreeSet<(String, String)> = GLOBAL_KEYS
        .iter()
        .map(|(table, column)| ((*table).to_owned(), (*column).to_owned()))
        .collect();
    assert_eq!(exceptions, listed, "every listed exception exists");
    // A table whose keys are all global lookups needs no tenant-led index.
    let global_only: BTreeSet<String> = tenant_owned
        .difference(&checked)
        .filter(|table| GLOBAL_KEYS.iter().any(|(t, _)| t == table))
        .cloned()
        .collect();
    let mut covered = checked.clone();
    covered.extend(global_only);
    assert_eq!(covered, tenant_owned, "every tenant-owned table has a key");
}

/// The column names of a `SELECT` Diesel wrote.
fn selected_columns(sql: &str) -> Vec<String> {
    let list = sql
        .strip_prefix("SELECT ")
        .and_then(|rest| rest.split(" FROM ").next())
        .unwrap();
    list.split(", ")
        .map(|c| c.rsplit('.').next().unwrap().trim_matches('"').to_owned())
        .collect()
}

/// Loads every table of `schema.rs` with all its columns (no rows: this checks that
/// each column exists) and returns its columns as `schema.rs` declares them.
macro_rules! load_all {
    ($conn:expr, $($table:ident: $row:ty,)+) => {{
        let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
        $(
            let query = schema::$table::table.select(schema::$table::all_columns).limit(0);
            let rows: Vec<$row> = query
                .load($conn)
                .unwrap_or_else(|e| panic!("{}: {e}", stringify!($table)));
            assert!(rows.is_empty());
            let sql = diesel::debug_query::<diesel::pg::Pg, _>(
                &schema::$table::table.select(schema::$table::all_columns),
            )
            .to_string();
            declared.insert(stringify!($table).to_owned(), selected_columns(&sql));
        )+
        declared
    }};
}

fn every_table_of_schema_rs_loads_with_all_its_columns(backend: Backend) {
    let (_db, mut conn) = migrated(backend);
    type S = String;
    type Maybe<T> = Option<T>;
    let declared = load_all!(&mut conn,
        entities: (S, S, S, i64, S, S, i64, Maybe<S>, Maybe<S>,
                   Maybe<S>, bool, i64, i64, Maybe<i64>, Maybe<i64>, Maybe<S>),
        entity_bodies: (S, S, S, bool),
        entity_tags: (S, S, S),
        entity_external_ids: (S, S, S, S),
        entity_search_changes: (S, i64, S),
        entity_relationships: (S, S, S, S, S, Maybe<f64>, S, i64),
        idempotency_keys: (S, S, S, S, S, i64),
        events: (S, S, Maybe<S>, S, S, S, i64),
        server_secrets: (S, S, i64),
        tenants: (S, S, S, Maybe<S>, S, i64, i64),
        oauth_clients: (S, S, S, Maybe<S>, S, S, i64),
        users: (S, S, S, S, S, S, i64),
        authorization_codes: (S, S, S, S, S, S, S, S, i64),
        refresh_tokens: (S, S, S, S, S, S, S, bool, bool, i64),
        signing_keys: (S, S, S, S, i64, Maybe<i64>),
        operations: (S, S, S, S, bool, Maybe<S>, Maybe<S>, S, i64, i64, Maybe<i64>),
        workspaces: (S, S, S, i64, S, S, S, i64, i64, Maybe<i64>, Maybe<i64>),
        workspace_entities: (S, S, S, i64),
        notes: (S, S, S, S, i64, S, S, S, bool, i64, i64),
        jobs: (S, S, S, S, S, i64, S, S, Maybe<S>, Maybe<S>, i64, i64, Maybe<S>, Maybe<i64>, Maybe<i64>),
        job_tasks: (S, S, S, S, S, i64, i64, Maybe<S>, bool, Maybe<S>, i64, i64, Maybe<S>),
        activity_log_types: (S, S, S, i64, S, i64, Maybe<S>, S, i64, i64, Maybe<i64>, Maybe<i64>),
        activity_log_type_name_trigrams: (S, S, S),
        activity_logs: (S, S, S, i64, S, S, S, S, i64, i64, Maybe<i64>, Maybe<i64>),
        activity_log_entities: (S, S, S),
        alert_types: (S, S, S, i64, S, S, S, i64, i64),
        alerts: (S, S, S, i64, S, S, S, S, S, i64, i64, Maybe<i64>, Maybe<i64>, Maybe<i64>, Maybe<i64>, Maybe<S>),
        alert_entities: (S, S, S, i64),
        risk_models: (S, i64, S, S, i64),
        documents: (S, S, S, i64, S, S, S, Maybe<S>, S, i64, i64, Maybe<i64>, Maybe<i64>, S, i64, S),
        document_name_trigrams: (S, S, S),
        form_definitions: (S, S, S, i64, S, S, i64, S, i64, i64, Maybe<i64>, Maybe<i64>),
        form_definition_revisions: (S, S, S, S, i64),
        forms: (S, S, S, i64, S, S, S, S, S, i64, i64, Maybe<i64>, Maybe<i64>),
        form_workspaces: (S, S, S, i64),
        files: (S, S, S, S, i64, S, S, i64, S, i64, i64, Maybe<i64>, Maybe<i64>),
        file_content_removals: (S, S, i64),
        file_contents: (S, S, i64, Vec<u8>),
        screening_dismissals: (S, S, S, S, S, S, S, i64),
        webhook_endpoints: (S, S, S, i64, S, S, S, Maybe<S>, Maybe<i64>, S, i64, i64, Maybe<i64>, Maybe<i64>),
        automations: (S, S, S, i64, S, S, i64, S, i64, i64, Maybe<i64>, Maybe<i64>),
        automation_revisions: (S, S, S, S, i64),
        automation_executions: (S, S, S, Maybe<S>, Maybe<S>, S, i64, S, S, Maybe<i64>, Maybe<i64>, i64, i64),
        webhook_deliveries: (S, S, S, Maybe<S>, S, S, S, S, i64, S, i64, Maybe<S>, i64, i64, Maybe<i64>, Maybe<S>),
        tenant_webhook_secrets: (S, S, Maybe<S>, Maybe<i64>, i64, i64),
        screening_list_versions: (S, S, S, i64),
        screening_list_changes: (S, S, S, i64, i64, i64, i64),
        verification_sessions: (S, S, S, Maybe<S>, Maybe<S>, Maybe<S>, S, bool, Maybe<S>, S, Maybe<S>, Maybe<S>, i64, i64, Maybe<i64>),
        verification_callbacks: (S, S, S, S, i64, S),
        truuth_callback_secrets: (S, S, Maybe<S>, Maybe<i64>, i64, i64),
    );
    // schema.rs names exactly the tables the migrations create, with their columns.
    let in_database: BTreeMap<String, Vec<String>> = columns(&mut conn)
        .into_iter()
        .map(|(table, columns)| {
            let names = columns
                .iter()
                .map(|c| c.split(' ').next().unwrap().to_owned())
                .collect();
            (table, names)
        })
        .collect();
    assert_eq!(declared, in_database, "schema.rs and the migrations differ");
    // And the test above covers every `table!` of schema.rs.
    let source =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/schema.rs"))
            .unwrap();
    let mut in_source: Vec<String> = source
        .split("diesel::table! {")
        .skip(1)
        .map(|block| {
            block
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("///"))
                .and_then(|l| l.split([' ', '(']).next())
                .unwrap()
                .to_owned()
        })
        .collect();
    in_source.sort();
    assert_eq!(in_source, declared.keys().cloned().collect::<Vec<_>>());
}

/// Rows stored before the migrations of issue 13 come out as new ones would: an
/// entity rated `RATED` has the risk status column `ACTIVE`, and a document gets the
/// display name "{documentType} {documentNumber}" with its trigrams, which the data
/// step after migrating writes ([`rics_storage::migrations::complete_data`]).
fn rows_stored_before_a_migration_are_carried_over(backend: Backend) {
    let (_db, mut conn) = empty(backend);
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261124000009") {
        run_next(&mut conn).unwrap();
    }
    for sql in [
        "INSERT INTO entities (tenant_id, id, uid, revision, entity_type, display_name, \
         display_name_trigrams, risk_level, legal_hold, create_time, update_time) VALUES \
         ('t1', 'rated', 'u1', 1, 'INDIVIDUAL', 'Rated', 4, 'HIGH', false, 1, 1), \
         ('t1', 'unrated', 'u2', 1, 'INDIVIDUAL', 'Unrated', 4, NULL, false, 1, 1)",
        "INSERT INTO entity_bodies (tenant_id, entity_id, body) VALUES \
         ('t1', 'rated', '{\"riskDetails\": {\"riskLevel\": \"HIGH\", \"riskStatus\": \"RATED\"}}'), \
         ('t1', 'unrated', '{}')",
        "INSERT INTO documents (tenant_id, id, uid, revision, entity, document_type, \
         issuing_country, body, create_time, update_time) VALUES \
         ('t1', 'doc-1', 'u3', 1, 'entities/rated', 'PASSPORT', 'UTO', \
         '{\"documentNumber\": \"L898902C3\"}', 1, 1)",
    ] {
        diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    run_pending(&mut conn).unwrap();
    assert_eq!(
        lines(
            &mut conn,
            "SELECT id || '|' || coalesce(risk_status, '-') AS line FROM entities"
        ),
        ["rated|ACTIVE", "unrated|-"]
    );
    // The rebuild of entities on SQLite (2026-11-27-000029_five_risk_levels) cascaded to
    // none of the rows that reference them.
    assert_eq!(
        lines(
            &mut conn,
            "SELECT entity_id AS line FROM entity_bodies ORDER BY entity_id"
        ),
        ["rated", "unrated"]
    );
    let trigrams = rics_domain::text_search::trigrams("PASSPORT L898902C3");
    assert_eq!(
        lines(
            &mut conn,
            "SELECT display_name || '|' || CAST(display_name_trigrams AS TEXT) AS line \
             FROM documents"
        ),
        [format!("PASSPORT L898902C3|{}", trigrams.len())]
    );
    let stored = lines(
        &mut conn,
        "SELECT trigram AS line FROM document_name_trigrams WHERE document_id = 'doc-1'",
    );
    assert_eq!(stored, trigrams.into_iter().collect::<Vec<_>>());
    assert_eq!(
        rics_storage::documents::write_pending_name_trigrams(&mut conn).unwrap(),
        0,
        "nothing is left to write"
    );
}

/// Entities stored before the `monitoring` column (2026-11-29-000034) get it from their
/// bodies: false where the body turned monitoring off, true otherwise.
fn monitoring_comes_from_the_bodies_stored_before_its_column(backend: Backend) {
    let (_db, mut conn) = empty(backend);
    while pending(&mut conn).unwrap().first().map(String::as_str) != Some("20261129000034") {
        run_next(&mut conn).unwrap();
    }
    for sql in [
        "INSERT INTO entities (tenant_id, id, uid, revision, entity_type, display_name, \
         display_name_trigrams, legal_hold, create_time, update_time) VALUES \
         ('t1', 'off', 'u1', 1, 'INDIVIDUAL', 'Off', 4, false, 1, 1), \
         ('t1', 'on', 'u2', 1, 'INDIVIDUAL', 'On', 3, false, 1, 1), \
         ('t1', 'default', 'u3', 1, 'INDIVIDUAL', 'Default', 8, false, 1, 1), \
         ('t2', 'off', 'u4', 1, 'INDIVIDUAL', 'Off', 4, false, 1, 1)",
        "INSERT INTO entity_bodies (tenant_id, entity_id, body) VALUES \
         ('t1', 'off', '{\"displayName\":\"Off\",\"monitoring\":false}'), \
         ('t1', 'on', '{\"displayName\":\"On\",\"monitoring\":true}'), \
         ('t1', 'default', '{\"displayName\":\"Default\",\"tags\":[\"monitoring\"]}'), \
         ('t2', 'off', '{\"displayName\":\"Off\",\"monitoring\":false}')",
    ] {
        diesel::sql_query(sql)
            .execute(&mut conn)
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    run_pending(&mut conn).unwrap();
    assert_eq!(
        lines(
            &mut conn,
            "SELECT tenant_id || '/' || entity_id || '|' || \
             CASE WHEN monitoring THEN 'on' ELSE 'off' END AS line FROM entity_bodies"
        ),
        ["t1/default|on", "t1/off|off", "t1/on|on", "t2/off|off"]
    );
}
