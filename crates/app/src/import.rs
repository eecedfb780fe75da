//! `rics import FILE --tenant tenants/{id}`: a book of entities, one JSON line each
//! (`{"entityId": "...", "entity": {...}}`, `entityId` optional, as a `:batchCreate`
//! request), written straight into the database.
//!
//! Every line is read first, and the command stops before writing anything when one is
//! not a create request, naming each such line. Then the lines go in batches of
//! [`BATCH`] through the entity service's batch create: the same checks, events, tags
//! and name trigrams as `POST /v1alpha/entities`, each batch all or none. [`WRITERS`]
//! batches are under way at once, so that one batch is checked and turned into rows
//! while the database writes another, on a connection of its own. A batch's request id
//! derives from its lines, so running the command again after a crash or a refused line
//! answers the batches already stored instead of storing them twice; a refused line is
//! reported with its line number, after the batches before it (and perhaps the one
//! under way beside it) were written.

use std::collections::BTreeSet;
use std::io::BufRead;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use futures_util::StreamExt;
use indicatif::{ProgressBar, ProgressStyle};
use rics_domain::batch::{CreateRequest, create_request};
use rics_domain::entity::EntityService;
use rics_domain::error::Error;
use rics_domain::methods::{CreateMethod, DeclaredFields};
use rics_domain::principal::{Principal, Scope};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::admin::{existing_tenant, failed};
use crate::config::{AdminSettings, Config};
use crate::server;

/// Lines written per transaction: the most a `:batchCreate` takes.
pub const BATCH: usize = 1000;

/// Batches written at once. Two keep both cores busy on a 2-core machine: the
/// command's checks beside one database backend, and two backends while the command
/// waits (`docs/benchmarks.md`, "Bulk import").
pub const WRITERS: usize = 2;

/// Lines reported when the file has unreadable ones, before the command gives up.
const MOST_REPORTED: usize = 20;

/// Arguments of `rics import`.
#[derive(Debug, Args)]
pub struct ImportEntities {
    /// The JSON lines file: one `{"entityId"?, "entity"}` per line; blank lines are
    /// skipped.
    pub file: std::path::PathBuf,
    /// The tenant the entities belong to (`tenants/{id}` or the id).
    #[arg(long)]
    pub tenant: String,
    /// Where the database is (as for `rics serve`).
    #[command(flatten)]
    pub settings: AdminSettings,
}

/// One create request and the line it came from.
struct Line {
    number: usize,
    request: CreateRequest,
}

/// Imports the entities of `args.file` into `args.tenant` on the database of `config`;
/// returns what was written and how fast.
///
/// # Errors
/// When the file does not read or has lines that are no create request (nothing is
/// written), the database cannot be opened, the tenant does not exist, or a line is
/// refused (the batches before its batch stay written).
pub async fn import_entities(config: &Config, args: &ImportEntities) -> anyhow::Result<Value> {
    let file = std::fs::File::open(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let lines = read_lines(std::io::BufReader::new(file))?;
    let total = lines.len();
    let services = server::services(config).await?;
    let tenant = existing_tenant(&services, &args.tenant).await?;
    let operator = Principal {
        tenant: tenant.clone(),
        subject: "operator".into(),
        display_name: "rics import".into(),
        scopes: BTreeSet::from([Scope::Write]),
    };
    let progress = progress_bar(total);
    let started = Instant::now();
    let (entities, operator) = (&services.use_cases.entities, &operator);
    let mut written = futures_util::stream::iter(lines)
        .chunks(BATCH)
        .map(|batch| async move {
            let count = batch.len();
            write_batch(entities, operator, batch).await?;
            anyhow::Ok(count)
        })
        .buffered(WRITERS);
    while let Some(count) = written.next().await {
        progress.inc(count? as u64);
    }
    progress.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    Ok(json!({
        "tenant": format!("tenants/{tenant}"),
        "imported": total,
        "batches": total.div_ceil(BATCH),
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "entitiesPerSecond": (total as f64 / seconds.max(1e-9)).round(),
    }))
}

/// The create requests of `reader`, each with its line number.
///
/// # Errors
/// Naming every line (up to [`MOST_REPORTED`]) that is not JSON or not a create request,
/// or when the file does not read.
fn read_lines(reader: impl BufRead) -> anyhow::Result<Vec<Line>> {
    let mut lines = Vec::new();
    let mut faults = Vec::new();
    for (index, text) in reader.lines().enumerate() {
        let number = index + 1;
        let text = text.with_context(|| format!("cannot read line {number}"))?;
        if text.trim().is_empty() {
            continue;
        }
        let request = serde_json::from_str::<Value>(&text)
            .map_err(|e| format!("line {number}: not JSON: {e}"))
            .and_then(|value| {
                create_request(value, EntityService::BODY, EntityService::ID_PARAMETER)
                    .map_err(|e| format!("line {number}: {:#}", failed(e)))
            });
        match request {
            Ok(request) => lines.push(Line { number, request }),
            Err(fault) => faults.push(fault),
        }
    }
    if !faults.is_empty() {
        let shown = faults.len().min(MOST_REPORTED);
        bail!(
            "{} lines are no create request; nothing was written:\n{}{}",
            faults.len(),
            faults[..shown].join("\n"),
            if faults.len() > shown { "\n..." } else { "" }
        );
    }
    Ok(lines)
}

/// Stores one batch under the request id its lines derive. The lines' requests move
/// into the create: an entity's JSON is not copied on the way.
///
/// # Errors
/// What the batch create refuses, with `requests[i]` named by its line number.
async fn write_batch(
    entities: &EntityService,
    operator: &Principal,
    batch: Vec<Line>,
) -> anyhow::Result<()> {
    let numbers: Vec<usize> = batch.iter().map(|line| line.number).collect();
    let requests: Vec<CreateRequest> = batch.into_iter().map(|line| line.request).collect();
    let request_id = batch_request_id(&requests);
    entities
        .create_many(operator, requests, Some(request_id))
        .await
        .map_err(|e| at_lines(e, &numbers))?;
    Ok(())
}

/// The request id of a batch: a version 8 UUID of the SHA-256 of its requests, the same
/// for the same lines in any run.
fn batch_request_id(requests: &[CreateRequest]) -> uuid::Uuid {
    let mut digest = Sha256::new();
    for request in requests {
        digest.update(request.id.as_deref().unwrap_or_default().as_bytes());
        digest.update([0]);
        digest.update(request.body.to_string().as_bytes());
        digest.update([0]);
    }
    let mut bytes = [0_u8; 16];
    bytes.copy_from_slice(&digest.finalize()[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

/// A batch create's refusal with each `requests[i]` replaced by the line it came from,
/// `numbers[i]`.
fn at_lines(error: Error, numbers: &[usize]) -> anyhow::Error {
    let text = format!("{:#}", failed(error));
    let mut named = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(start) = rest.find("requests[") {
        named.push_str(&rest[..start]);
        let after = &rest[start + "requests[".len()..];
        let index = after
            .find(']')
            .and_then(|end| after[..end].parse::<usize>().ok().map(|i| (i, end)));
        match index.and_then(|(i, end)| numbers.get(i).map(|&number| (number, end))) {
            Some((number, end)) => {
                let field = &after[end + 1..];
                match field.strip_prefix('.') {
                    Some(inner) => {
                        named.push_str(&format!("line {number}: "));
                        rest = inner;
                    }
                    None => {
                        named.push_str(&format!("line {number}"));
                        rest = field;
                    }
                }
            }
            None => {
                named.push_str("requests[");
                rest = after;
            }
        }
    }
    named.push_str(rest);
    anyhow::anyhow!("{named}")
}

/// A bar of `total` lines on standard error (hidden when that is not a terminal).
fn progress_bar(total: usize) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {human_pos}/{human_len} entities, {per_sec}, {eta} left",
    ) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bad_line_is_named_and_blank_lines_are_skipped() {
        let text = "{\"entity\": {\"displayName\": \"A\"}}\n\nnot json\n{\"entityId\": \"b\", \"entity\": {}, \"colour\": 1}\n[]\n";
        let error = read_lines(text.as_bytes()).err().unwrap().to_string();
        assert!(
            error.starts_with("3 lines are no create request"),
            "{error}"
        );
        for line in ["line 3: not JSON", "line 4:", "line 5:"] {
            assert!(error.contains(line), "{line} in {error}");
        }
        assert!(
            !error.contains("line 1:") && !error.contains("line 2:"),
            "{error}"
        );
        let good = read_lines("\n{\"entityId\": \"b\", \"entity\": {}}\n".as_bytes()).unwrap();
        assert_eq!(good.len(), 1);
        assert_eq!(good[0].number, 2);
        assert_eq!(good[0].request.id.as_deref(), Some("b"));
    }

    #[test]
    fn a_batch_s_request_id_is_its_lines() {
        let lines = read_lines(
            "{\"entity\": {\"displayName\": \"A\"}}\n{\"entityId\": \"b\", \"entity\": {}}\n"
                .as_bytes(),
        )
        .unwrap();
        let requests: Vec<CreateRequest> = lines.iter().map(|l| l.request.clone()).collect();
        assert_eq!(batch_request_id(&requests), batch_request_id(&requests));
        assert_ne!(
            batch_request_id(&requests),
            batch_request_id(&requests[..1])
        );
        assert_eq!(batch_request_id(&requests).get_version_num(), 8);
    }

    #[test]
    fn a_refused_request_is_named_by_its_line() {
        let lines = read_lines("\n{\"entity\": {}}\n\n{\"entity\": {}}\n".as_bytes()).unwrap();
        let error =
            Error::invalid_field("requests[1].entity.displayName", "REQUIRED", "is required");
        let numbers: Vec<usize> = lines.iter().map(|line| line.number).collect();
        let text = at_lines(error, &numbers).to_string();
        assert!(text.contains("line 4: entity.displayName"), "{text}");
        assert!(!text.contains("requests["), "{text}");
    }
}
