//! `rics`: the Risk and Identity Compliance Service.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rics::config::Settings;
use rics::{server, telemetry};

mod screen;

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
    Serve(Settings),
    /// Apply pending database migrations and exit.
    Migrate(Settings),
    /// Screen people (CSV or JSON lines on stdin) against sanctions / PEP lists; one JSON
    /// line per person on stdout.
    Screen(screen::ScreenArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(settings) => serve(&settings),
        Command::Migrate(settings) => migrate(&settings),
        Command::Screen(args) => screen::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("rics: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn serve(settings: &Settings) -> anyhow::Result<()> {
    let config = settings.resolve()?;
    telemetry::init(&config.log, config.log_format)?;
    actix_web::rt::System::new().block_on(async {
        let running = server::start(&config).await?;
        tracing::info!(address = %running.address, "rics is serving");
        running.server.await?;
        tracing::info!("rics stopped");
        Ok(())
    })
}

fn migrate(settings: &Settings) -> anyhow::Result<()> {
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
