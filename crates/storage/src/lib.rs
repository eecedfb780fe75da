//! Diesel adapter over PostgreSQL and SQLite: repositories, filters to SQL, migrations.
