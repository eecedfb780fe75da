//! Logging with `tracing`: JSON lines when standard error is not a terminal (as under
//! a supervisor), readable text otherwise.

use std::io::IsTerminal;

use anyhow::Context as _;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt as _};
use tracing_subscriber::util::SubscriberInitExt as _;

use crate::config::LogFormat;

/// Installs the global subscriber.
///
/// # Errors
/// When the filter does not parse or a subscriber is already installed.
pub fn init(filter: &str, format: LogFormat) -> anyhow::Result<()> {
    let filter =
        EnvFilter::try_new(filter).with_context(|| format!("invalid log filter '{filter}'"))?;
    let json = match format {
        LogFormat::Json => true,
        LogFormat::Text => false,
        LogFormat::Auto => !std::io::stderr().is_terminal(),
    };
    let lines = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    // One span at most (a request's), so its fields once, not again in a list.
    let lines = if json {
        lines
            .json()
            .flatten_event(true)
            .with_span_list(false)
            .boxed()
    } else {
        lines.boxed()
    };
    tracing_subscriber::registry()
        .with(filter)
        .with(lines.with_filter(filter_fn(|event| !is_connection_error(event))))
        .with(ConnectionErrorsAsWarnings.with_filter(filter_fn(is_connection_error)))
        .try_init()
        .map_err(|e| anyhow::anyhow!("cannot install the logger: {e}"))
}

/// Whether `metadata` is one of the ERROR events actix-http's HTTP/1 connection
/// handling logs: requests it refuses before routing (a bad request line, an over-long
/// URI, oversized headers), slow or broken connections. Any client can cause them.
fn is_connection_error(metadata: &Metadata<'_>) -> bool {
    *metadata.level() == Level::ERROR && metadata.target().starts_with("actix_http::h1")
}

/// Logs each of actix-http's connection errors again, at WARN: actix-http answers them
/// itself (bare 400 or 431), with no hook to change its level. The event keeps its
/// target and message, so `RICS_LOG` filters it as before; `actix_http=error` now
/// silences it.
struct ConnectionErrorsAsWarnings;

impl<S: Subscriber> Layer<S> for ConnectionErrorsAsWarnings {
    fn on_event(&self, event: &Event<'_>, _: Context<'_, S>) {
        let mut message = Message(String::new());
        event.record(&mut message);
        tracing::warn!(target: "actix_http::h1", "{}", message.0);
    }
}

/// The `message` of an event.
struct Message(String);

impl Visit for Message {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}
