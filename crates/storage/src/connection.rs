//! One connection type over PostgreSQL and SQLite, chosen by the URL scheme, and the
//! r2d2 pool that hands them out.

use std::time::Duration;

use diesel::connection::SimpleConnection;
use diesel::r2d2::{ConnectionManager, CustomizeConnection, Pool};
use diesel::{Connection, PgConnection, SqliteConnection};

use crate::error::StorageError;

pub use multi::DbConnection;

/// Holds the derive, whose generated helper items carry no documentation.
#[allow(missing_docs)]
mod multi {
    use diesel::{PgConnection, SqliteConnection};

    /// A connection to either backend. Diesel derives `Connection` for the enum, so
    /// the repositories have one code path for both databases.
    #[derive(diesel::MultiConnection)]
    pub enum DbConnection {
        /// A PostgreSQL connection.
        Postgresql(PgConnection),
        /// A SQLite connection.
        Sqlite(SqliteConnection),
    }
}

/// The Diesel backend of [`DbConnection`] (it dispatches to PostgreSQL or SQLite).
pub type Db = <DbConnection as Connection>::Backend;

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// PostgreSQL (`postgres://` or `postgresql://`).
    Postgres,
    /// SQLite (`sqlite://path`, `sqlite:path` or `sqlite::memory:`).
    Sqlite,
}

/// A parsed database URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    /// The backend.
    pub backend: Backend,
    /// What the driver is given: the PostgreSQL URL as is, or the SQLite file path.
    pub target: String,
}

impl DatabaseUrl {
    /// Parses `postgres://...`, `postgresql://...`, `sqlite://path` or `sqlite:path`.
    ///
    /// # Errors
    /// [`StorageError::Configuration`] for any other scheme or an empty SQLite path.
    pub fn parse(url: &str) -> Result<DatabaseUrl, StorageError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let tls_chosen = std::env::var_os("PGSSLMODE").is_some();
            return Ok(DatabaseUrl {
                backend: Backend::Postgres,
                target: without_tls_on_loopback(url, tls_chosen),
            });
        }
        if let Some(rest) = url.strip_prefix("sqlite:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(StorageError::Configuration(
                    "a SQLite URL needs a file path, such as sqlite://data/rics.db".into(),
                ));
            }
            return Ok(DatabaseUrl {
                backend: Backend::Sqlite,
                target: path.to_owned(),
            });
        }
        Err(StorageError::Configuration(format!(
            "unsupported database URL '{}': use postgres://... or sqlite://path",
            redact(url)
        )))
    }
}

/// `url` with `sslmode=disable` added when it names only loopback hosts and says
/// nothing of TLS (no `sslmode` in it, and `tls_chosen` false: no `PGSSLMODE` in the
/// environment). libpq's default, `sslmode=prefer`, negotiates TLS even over loopback,
/// where it protects nothing from a reader of the machine's own traffic, who is root
/// there, yet costs about 7 % of the CPU of a GET (docs/benchmarks.md). Any other URL,
/// a Unix socket's included (libpq never uses TLS on one), is left as it is.
fn without_tls_on_loopback(url: &str, tls_chosen: bool) -> String {
    let Some((_, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (location, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = location.split('/').next().unwrap_or_default();
    let hosts = authority
        .rsplit_once('@')
        .map_or(authority, |(_, hosts)| hosts);
    let names_tls_or_host = query
        .split('&')
        .any(|pair| pair.starts_with("sslmode=") || pair.starts_with("host="));
    if tls_chosen || names_tls_or_host || hosts.is_empty() || !hosts.split(',').all(is_loopback) {
        return url.to_owned();
    }
    let separator = if query.is_empty() { '?' } else { '&' };
    format!("{}{separator}sslmode=disable", url.trim_end_matches('?'))
}

/// Whether `host` (with an optional `:port`; IPv6 in brackets) is a loopback host.
fn is_loopback(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The URL with any password replaced, for messages and logs.
pub fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// The r2d2 connection manager for [`DbConnection`].
pub type Manager = ConnectionManager<DbConnection>;

/// Sets the per-connection options each backend needs.
#[derive(Debug, Clone, Copy)]
struct ConnectionSetup {
    busy_timeout: Duration,
}

impl CustomizeConnection<DbConnection, diesel::r2d2::Error> for ConnectionSetup {
    fn on_acquire(&self, conn: &mut DbConnection) -> Result<(), diesel::r2d2::Error> {
        // The busy timeout comes first so that the other statements wait for locks.
        // WAL mode is set once per database file, before the pool opens.
        let sql = match conn {
            DbConnection::Sqlite(_) => format!(
                "PRAGMA busy_timeout = {}; PRAGMA synchronous = NORMAL; \
                 PRAGMA foreign_keys = ON; PRAGMA mmap_size = 268435456; \
                 PRAGMA journal_size_limit = 67108864;",
                self.busy_timeout.as_millis()
            ),
            // Values too large for a row (a run's result, an event with its resource
            // before and after, about 33 KB of JSON per screening run) are compressed
            // with lz4, several times faster than the default pglz, whose compression
            // alone took 3 % of the two cores while job runs drained
            // (docs/benchmarks.md, "Screening jobs"). A server built without lz4
            // keeps pglz.
            DbConnection::Postgresql(_) => "SET TIME ZONE 'UTC'; \
                 DO $$ BEGIN PERFORM set_config('default_toast_compression', 'lz4', false); \
                 EXCEPTION WHEN invalid_parameter_value THEN NULL; END $$;"
                .to_owned(),
        };
        conn.batch_execute(&sql)
            .map_err(diesel::r2d2::Error::QueryError)
    }
}

/// Pool settings.
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// Most connections open at once.
    pub max_size: u32,
    /// How long a caller waits for a connection before UNAVAILABLE.
    pub acquire_timeout: Duration,
    /// How long SQLite waits for a lock before SQLITE_BUSY.
    pub busy_timeout: Duration,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            max_size: 16,
            acquire_timeout: Duration::from_secs(5),
            busy_timeout: Duration::from_secs(5),
        }
    }
}

/// Opens a pool for `url`. SQLite files get their parent folder created.
///
/// # Errors
/// [`StorageError::Configuration`] for a bad URL, [`StorageError::Unavailable`] when
/// no connection can be opened.
pub fn open_pool(url: &DatabaseUrl, options: PoolOptions) -> Result<Pool<Manager>, StorageError> {
    let parent = std::path::Path::new(&url.target).parent();
    if url.backend == Backend::Sqlite
        && url.target != ":memory:"
        && let Some(parent) = parent
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(|e| {
            StorageError::Configuration(format!(
                "cannot create the folder of the SQLite database {}: {e}",
                url.target
            ))
        })?;
    }
    if url.backend == Backend::Sqlite {
        let mut conn = connect(url)?;
        conn.batch_execute("PRAGMA journal_mode = WAL;")
            .map_err(|e| StorageError::Unavailable(format!("cannot enable WAL: {e}")))?;
    }
    let manager = Manager::new(url.target.clone());
    Pool::builder()
        .max_size(options.max_size)
        .connection_timeout(options.acquire_timeout)
        // No test when a connection is handed out: diesel's test is a `SELECT 1`, a round
        // trip before every unit of work, about a fifth of the server's CPU per GET
        // (docs/benchmarks.md, "Server CPU per GET"). A connection the server closed
        // fails the one unit of work that uses it next: diesel then finds libpq's
        // transaction status unknown and marks the connection broken, and the pool closes
        // it rather than hand it out again (storage test
        // `a_connection_the_database_closed_fails_once_and_is_replaced`).
        .test_on_check_out(false)
        .connection_customizer(Box::new(ConnectionSetup {
            busy_timeout: options.busy_timeout,
        }))
        .build(manager)
        .map_err(|e| StorageError::Unavailable(format!("cannot open the database: {e}")))
}

/// Opens one connection outside any pool (for migrations and tooling).
///
/// # Errors
/// [`StorageError::Unavailable`] when the database cannot be reached.
pub fn connect(url: &DatabaseUrl) -> Result<DbConnection, StorageError> {
    let unavailable = |e: diesel::ConnectionError| {
        StorageError::Unavailable(format!("cannot connect to the database: {e}"))
    };
    let mut conn = match url.backend {
        Backend::Postgres => {
            DbConnection::Postgresql(PgConnection::establish(&url.target).map_err(unavailable)?)
        }
        Backend::Sqlite => {
            DbConnection::Sqlite(SqliteConnection::establish(&url.target).map_err(unavailable)?)
        }
    };
    ConnectionSetup {
        busy_timeout: PoolOptions::default().busy_timeout,
    }
    .on_acquire(&mut conn)
    .map_err(|e| StorageError::Unavailable(e.to_string()))?;
    Ok(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_choose_the_backend() {
        let pg = DatabaseUrl::parse("postgres://u:p@localhost/db").unwrap();
        assert_eq!(pg.backend, Backend::Postgres);
        let lite = DatabaseUrl::parse("sqlite://data/rics.db").unwrap();
        assert_eq!(
            (lite.backend, lite.target.as_str()),
            (Backend::Sqlite, "data/rics.db")
        );
        let abs = DatabaseUrl::parse("sqlite:///tmp/x.db").unwrap();
        assert_eq!(abs.target, "/tmp/x.db");
        assert!(DatabaseUrl::parse("mysql://x").is_err());
        assert!(DatabaseUrl::parse("sqlite://").is_err());
    }

    #[test]
    fn loopback_urls_that_say_nothing_of_tls_go_without_it() {
        let off = |url: &str| without_tls_on_loopback(url, false);
        assert_eq!(
            off("postgres://u:p@127.0.0.1:5432/db"),
            "postgres://u:p@127.0.0.1:5432/db?sslmode=disable"
        );
        assert_eq!(
            off("postgresql://localhost/db?options=-csearch_path%3Dx"),
            "postgresql://localhost/db?options=-csearch_path%3Dx&sslmode=disable"
        );
        assert_eq!(
            off("postgres://[::1]:5433/db"),
            "postgres://[::1]:5433/db?sslmode=disable"
        );
        assert_eq!(
            off("postgres://127.0.0.2,localhost:5433/db?"),
            "postgres://127.0.0.2,localhost:5433/db?sslmode=disable"
        );
        for kept in [
            "postgres://u:p@db.example.com/db",
            "postgres://127.0.0.1,10.0.0.7/db",
            "postgres://127.0.0.1/db?sslmode=require",
            "postgres:///db",
            "postgres://localhost/db?host=/var/run/postgresql",
            "postgres://[2001:db8::1]:5432/db",
        ] {
            assert_eq!(off(kept), kept);
        }
        assert_eq!(
            without_tls_on_loopback("postgres://127.0.0.1/db", true),
            "postgres://127.0.0.1/db"
        );
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redact("postgres://h/db"), "postgres://h/db");
    }
}
