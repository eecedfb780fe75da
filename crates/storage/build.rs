//! Renders the schema of the PostgreSQL test databases (`testing::TestDatabase`) as one
//! script, `$OUT_DIR/postgres_schema.sql`: the `up.sql` of every migration folder of
//! `migrations/postgres` in diesel's order (by version), each followed by the row of
//! `__diesel_schema_migrations` that diesel records when it applies that migration.
//! A test schema then takes one round trip instead of a transaction per migration;
//! the storage tests prove that both give the same schema.

#![allow(
    clippy::print_stdout,
    reason = "cargo reads a build script's instructions from its standard output"
)]

use std::error::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn Error>> {
    let folder =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?).join("../../migrations/postgres");
    println!("cargo::rerun-if-changed={}", folder.display());
    let mut migrations = Vec::new();
    for entry in std::fs::read_dir(&folder)? {
        let entry = entry?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|name| format!("{name:?}: a migration folder name is UTF-8"))?;
        let up = entry.path().join("up.sql");
        // Diesel's rules: hidden entries and folders without up.sql are no migrations.
        if name.starts_with('.') || !up.is_file() {
            continue;
        }
        // Diesel's version of a folder: its name up to the first `_`, without dashes.
        let version = name.split('_').next().unwrap_or_default().replace('-', "");
        if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{name}: no version before the first `_`").into());
        }
        migrations.push((version, name, std::fs::read_to_string(&up)?));
    }
    if migrations.is_empty() {
        return Err(format!("{}: no migration", folder.display()).into());
    }
    migrations.sort();
    let mut script = String::new();
    for (version, name, up) in &migrations {
        // The `;` on a line of its own ends a last statement that has none, even after
        // a trailing comment.
        writeln!(
            script,
            "-- {name}\n{up}\n;\nINSERT INTO __diesel_schema_migrations (version) VALUES ('{version}');"
        )?;
    }
    let out = PathBuf::from(std::env::var("OUT_DIR")?).join("postgres_schema.sql");
    std::fs::write(out, script)?;
    Ok(())
}
