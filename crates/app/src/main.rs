//! `rics`: the Risk and Identity Compliance Service.

use std::io::{BufRead, Write};

use anyhow::Context;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rics::admin::{self, AutomationsCommand, ClientsCommand, KeysCommand, UsersCommand};
use rics::config::{MigrateSettings, Settings};
use rics::import;
use rics::screener::ListScreener;
use rics::{server, telemetry};
use rics_domain::screen::Screener;
use rics_domain::tenant::service::BootstrapReport;

mod compare_names;
mod screen;

/// mimalloc instead of the C library's allocator: requests, job runs and imports build and
/// drop many small JSON trees, where glibc's `free` and `malloc_consolidate` were the top
/// symbols of the profiles (docs/benchmarks.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// rics: the Risk and Identity Compliance Service.
#[derive(Debug, Parser)]
#[command(name = "rics", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the HTTP API (migrates the embedded SQLite database first).
    Serve(Box<Settings>),
    /// Apply pending database migrations and exit.
    Migrate(MigrateSettings),
    /// Screen people (CSV or JSON lines on stdin) against sanctions / PEP lists; one JSON
    /// line per person on stdout.
    Screen(screen::ScreenArgs),
    /// Score name pairs (CSV `name1,name2[,schema]` on stdin, no header) as screening
    /// would; one JSON line per pair on stdout, with the score, whether it matches and
    /// the explanation.
    CompareNames(compare_names::CompareNamesArgs),
    /// Manage OAuth clients.
    #[command(subcommand)]
    Clients(ClientsCommand),
    /// Manage users (authorization code flow).
    #[command(subcommand)]
    Users(UsersCommand),
    /// Manage the embedded authorization server's signing keys.
    #[command(subcommand)]
    Keys(KeysCommand),
    /// Manage tenants' automations.
    #[command(subcommand)]
    Automations(AutomationsCommand),
    /// Import entities from a JSON lines file (`{"entityId"?, "entity"}` per line) straight
    /// into the database, with the checks and events of `POST /v1alpha/entities`, in
    /// batches of 1,000 each written whole; safe to run again after a failure.
    Import(import::ImportEntities),
    /// Check sanctions and PEP lists before serving them.
    #[command(subcommand)]
    Lists(ListsCommand),
}

#[derive(Debug, Subcommand)]
enum ListsCommand {
    /// Load list files or folders exactly as `rics serve` does and print each list's
    /// version (dataset, content hash, date, records); fails on a list that does not
    /// load. To serve them, name the same paths in `screening_lists` of the
    /// configuration file (rics.toml) and send SIGHUP to each running `rics serve`: it
    /// reads the setting again and swaps the lists in without stopping.
    /// RICS_SCREENING_LISTS and --screening-lists are read at start only (they win over
    /// the file): with them, SIGHUP reloads the files at those paths, so replace the
    /// files, or the files in a listed folder, instead.
    Load {
        /// List files or folders; none: the lists bundled in data/lists.
        paths: Vec<std::path::PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rics: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(settings) => serve(&settings),
        Command::Migrate(settings) => migrate(&settings),
        Command::Screen(args) => screen::run(&args),
        Command::CompareNames(args) => compare_names::run(&args),
        Command::Clients(ClientsCommand::Create(args)) => {
            let config = args.settings.resolve()?;
            let created =
                actix_web::rt::System::new().block_on(admin::create_client(&config, &args))?;
            print_json(&created)
        }
        Command::Users(UsersCommand::Create(args)) => {
            let config = args.settings.resolve()?;
            let password = read_password()?;
            let created = actix_web::rt::System::new()
                .block_on(admin::create_user(&config, &args, &password))?;
            print_json(&created)
        }
        Command::Lists(ListsCommand::Load { paths }) => {
            let screener =
                ListScreener::new(paths, std::sync::Arc::new(rics_domain::time::SystemClock));
            let lists = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(screener.lists())
                .map_err(|e| anyhow::anyhow!(e.message))?;
            print_json(&serde_json::json!({ "screeningLists": lists }))
        }
        Command::Automations(AutomationsCommand::Load(args)) => {
            let config = args.settings.resolve()?;
            let loaded =
                actix_web::rt::System::new().block_on(admin::load_automations(&config, &args))?;
            print_json(&loaded)
        }
        Command::Import(args) => {
            let config = args.settings.resolve()?;
            let imported =
                actix_web::rt::System::new().block_on(import::import_entities(&config, &args))?;
            print_json(&imported)
        }
        Command::Keys(KeysCommand::Rotate(settings)) => {
            let config = settings.resolve()?;
            let rotated = actix_web::rt::System::new().block_on(admin::rotate_keys(&config))?;
            print_json(&rotated)
        }
    }
}

/// Writes one JSON object on standard output.
fn print_json(value: &serde_json::Value) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}

/// The new user's password from `RICS_USER_PASSWORD`, or the first line of standard
/// input (so that it appears in no process list or shell history).
fn read_password() -> anyhow::Result<String> {
    if let Ok(password) = std::env::var("RICS_USER_PASSWORD") {
        return Ok(password);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .context("cannot read the password from standard input")?;
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        anyhow::bail!("give the password in RICS_USER_PASSWORD or on standard input");
    }
    Ok(password)
}

fn serve(settings: &Settings) -> anyhow::Result<()> {
    let config = settings.resolve()?;
    telemetry::init(&config.log, config.log_format)?;
    actix_web::rt::System::new().block_on(async {
        let running = server::start(&config).await?;
        let settings = settings.clone();
        server::spawn_list_reloads(running.screener.clone(), move || {
            Ok(settings.resolve()?.screening_lists)
        });
        if let Some(report) = &running.bootstrap {
            print_bootstrap(report, &config.public_url)?;
        }
        tracing::info!(address = %running.address, "rics is serving");
        if let Some(address) = running.metrics_address {
            tracing::info!(%address, "metrics are served at /metrics");
        }
        running.server.await?;
        tracing::info!("rics stopped");
        Ok(())
    })
}

/// Prints what the first start provisioned, once, on standard output (never in the log).
fn print_bootstrap(report: &BootstrapReport, public_url: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "rics: first start: created the partner tenant {}",
        report.tenant.name
    )?;
    writeln!(out, "  admin client id:     {}", report.client_id)?;
    match &report.generated_secret {
        Some(secret) => {
            writeln!(out, "  admin client secret: {secret}")?;
            writeln!(out, "  (shown once: only its hash is stored)")?;
        }
        None => writeln!(
            out,
            "  admin client secret: as set in RICS_BOOTSTRAP_CLIENT_SECRET"
        )?,
    }
    if let Some(username) = &report.username {
        writeln!(
            out,
            "  admin user:          {username} (password as set in RICS_BOOTSTRAP_PASSWORD)"
        )?;
    }
    writeln!(
        out,
        "  token endpoint:      {}/oauth2/token",
        public_url.trim_end_matches('/')
    )?;
    out.flush()?;
    Ok(())
}

fn migrate(settings: &MigrateSettings) -> anyhow::Result<()> {
    let config = settings.resolve()?;
    telemetry::init(&config.log, config.log_format)?;
    let db = server::open_database(&config)?;
    let applied = server::migrate(&db)?;
    if applied.is_empty() {
        eprintln!("rics: the database is up to date");
    } else {
        eprintln!(
            "rics: applied {} migrations: {}",
            applied.len(),
            applied.join(", ")
        );
    }
    Ok(())
}
