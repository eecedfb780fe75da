//! `rics compare-names`: scores name pairs as screening would, for analysts tuning
//! thresholds and for the evaluation.
//!
//! ```text
//! rics compare-names [--list PATH ...] [--threshold 0.7] < pairs.csv > scores.jsonl
//! ```
//!
//! Reads CSV on standard input (RFC 4180 quoting, no header row), one pair a line:
//! `name1,name2[,schema]`, the schema a FollowTheMoney schema (`Person`, `Company`,
//! `Organization`, `LegalEntity`, `Vessel`, ...) or empty for a person. Writes one JSON
//! line per input line, in order: `score` (the name-only score: what a pair of names
//! scores when nothing else is known), `match` (`score` at or above the threshold) and
//! the `explanation` (aligned parts, their similarities and rarity weights), keys in
//! lowerCamelCase and numbers rounded to 4 decimals as in the API. A line it cannot read
//! gives `{"error": ...}` in its place. Names are weighted by their words' rarity in the
//! lists, as a screen against them weighs them: the bundled lists without `--list`.

use std::io::{BufWriter, Read, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use rics_screening::bundled::load_configured;
use rics_screening::matcher::name_only_score;
use rics_screening::{DEFAULT_THRESHOLD, EntityKind, Index, published};
use serde_json::{Value, json};

/// Arguments of `rics compare-names`.
#[derive(Debug, Args)]
pub struct CompareNamesArgs {
    /// Lists whose words' rarity weighs the names, as for `rics screen --list`
    /// [default: the lists bundled in data/lists, the server's default].
    #[arg(long = "list", value_name = "PATH", num_args = 1..)]
    pub lists: Vec<PathBuf>,
    /// The score a pair needs to be a `match` (in [0, 1]).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: f32,
}

/// What a FollowTheMoney schema compares as; `None` for a schema names are not
/// screened by.
fn kind_of(schema: &str) -> Option<EntityKind> {
    Some(match schema {
        "" | "Person" => EntityKind::Person,
        "Company" | "Organization" | "LegalEntity" | "PublicBody" | "Airline" => {
            EntityKind::Organisation
        }
        "Vessel" => EntityKind::Vessel,
        "Airplane" => EntityKind::Aircraft,
        _ => return None,
    })
}

/// The answer to one pair (the fields of a record read from the CSV).
fn compare(index: &Index, fields: &[&str], threshold: f32) -> Value {
    let (left, right, schema) = match fields {
        [left, right] => (*left, *right, ""),
        [left, right, schema] => (*left, *right, schema.trim()),
        _ => {
            return json!({"error": format!(
                "expected name1,name2[,schema]: the line has {} fields", fields.len())});
        }
    };
    let Some(kind) = kind_of(schema) else {
        return json!({"error": format!(
            "unknown schema '{schema}': Person, Company, Organization, LegalEntity, PublicBody, Vessel, Airplane or empty")});
    };
    let comparison = index.compare(left, right, kind);
    let score = name_only_score(comparison.as_ref().map_or(0.0, |c| c.similarity));
    json!({
        "score": published(score),
        "match": score >= threshold,
        "explanation": comparison,
    })
}

/// Runs `rics compare-names`.
///
/// # Errors
/// When the lists do not load or standard input or output fails; a line it cannot
/// read is answered with an error line instead.
pub fn run(args: &CompareNamesArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.threshold) {
        anyhow::bail!("--threshold must be in [0, 1]");
    }
    let index = Index::build(load_configured(&args.lists).context("cannot load the lists")?);
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .context("cannot read standard input")?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(input.as_slice());
    let mut out = BufWriter::new(std::io::stdout().lock());
    for record in reader.byte_records() {
        let answer = match record {
            Ok(record) => match record
                .iter()
                .map(std::str::from_utf8)
                .collect::<Result<Vec<_>, _>>()
            {
                Ok(fields) => compare(&index, &fields, args.threshold),
                Err(e) => json!({"error": format!("not UTF-8: {e}")}),
            },
            Err(e) => json!({"error": format!("unreadable CSV: {e}")}),
        };
        serde_json::to_writer(&mut out, &answer)?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> Index {
        Index::build(Vec::new())
    }

    #[test]
    fn a_pair_is_scored_with_its_explanation() {
        let answer = compare(
            &index(),
            &["Vladimir Putin", "PUTIN, Vladimir"],
            DEFAULT_THRESHOLD,
        );
        assert_eq!(answer["match"], true, "{answer}");
        assert!(answer["score"].as_f64().is_some_and(|s| s > 0.9));
        assert!(
            answer["explanation"]["pairs"].is_array(),
            "camelCase explanation: {answer}"
        );
        let apart = compare(
            &index(),
            &["Vladimir Putin", "Angela Merkel", "Person"],
            DEFAULT_THRESHOLD,
        );
        assert_eq!(apart["match"], false, "{apart}");
    }

    #[test]
    fn bad_lines_are_answered_with_errors() {
        assert!(
            compare(&index(), &["only one"], 0.7)["error"]
                .as_str()
                .unwrap()
                .contains("1 fields")
        );
        assert!(
            compare(&index(), &["a", "b", "Planet"], 0.7)["error"]
                .as_str()
                .unwrap()
                .contains("unknown schema 'Planet'")
        );
    }
}
