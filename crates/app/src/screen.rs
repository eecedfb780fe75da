//! `rics screen`: batch screening of a customer file against sanctions and PEP lists.
//!
//! ```text
//! rics screen [--list data/lists/un_2026-02/UN_consolidated.xml --list /srv/lists] [--threshold 0.7] < people.csv > matches.jsonl
//! ```
//!
//! Reads people as CSV (header `full_name,first_name,middle_name,last_name,gender,
//! date_of_birth,place_of_birth,nationality`, any order) or JSON lines with the same keys on
//! standard input, the format told by `--format` or detected from the first line (`{` is JSON
//! lines, anything else CSV). Writes one JSON line per person on standard output
//! (`{"row","name","matches":[...],"warnings":[...]}`, matches with their score and
//! explanation; keys in lowerCamelCase and scores rounded to 4 decimals, as in the API), in
//! input order. Without `--list` it screens against the bundled lists, as `rics serve` does.
//! Standard error gets the list load reports, a progress bar when it is a terminal, and a
//! summary. See `docs/screening.md`.

use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rics_screening::bundled::load_configured;
use rics_screening::{
    DEFAULT_THRESHOLD, Index, InputFormat, ScreenOptions, SharedIndex, screen_batch,
};

/// The input format of `rics screen`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// CSV with a header line.
    Csv,
    /// One JSON object per line.
    Jsonl,
}

/// Arguments of `rics screen`.
#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// A list to screen against: OFAC legacy CSV (sdn.csv, cons_prim.csv), UN consolidated
    /// XML, UK sanctions CSV, US Consolidated Screening List CSV, or generic CSV / JSON lines;
    /// or a folder, for the list files directly in it. Repeat the flag or give several
    /// paths [default: the dated lists bundled in data/lists, the server's default].
    #[arg(long = "list", value_name = "PATH", num_args = 1..)]
    pub lists: Vec<PathBuf>,
    /// Matches scoring below this are not written (a score in [0, 1]).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    pub threshold: f32,
    /// At most this many matches per person, best first.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Input format; detected from the first line when absent.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
}

/// Detects the input format from the first bytes: a JSON object is JSON lines, else CSV.
fn detect(first: &[u8]) -> InputFormat {
    let text = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => InputFormat::JsonLines,
        _ => InputFormat::Csv,
    }
}

/// Runs `rics screen`: loads the lists, screens standard input, writes standard output.
pub fn run(args: &ScreenArgs) -> anyhow::Result<()> {
    if !(0.0..=1.0).contains(&args.threshold) {
        bail!(
            "--threshold must be between 0 and 1, got {}",
            args.threshold
        );
    }
    let lists = load_configured(&args.lists)?;
    for list in &lists {
        eprintln!(
            "rics screen: loaded {} ({} records, {} malformed rows, {} ignored values, list date {}, sha256 {})",
            list.version.dataset,
            list.records.len(),
            list.report.malformed,
            list.report.ignored_values,
            list.version.list_date.as_deref().unwrap_or("unknown"),
            list.version
                .content_hash
                .get(..12)
                .unwrap_or(&list.version.content_hash),
        );
    }
    let index = SharedIndex::new(Index::build(lists));

    let stdin = std::io::stdin();
    let mut input = BufReader::with_capacity(1 << 16, stdin.lock());
    let format = match args.format {
        Some(Format::Csv) => InputFormat::Csv,
        Some(Format::Jsonl) => InputFormat::JsonLines,
        None => detect(input.fill_buf().context("cannot read standard input")?),
    };
    let stdout = std::io::stdout();
    let output = BufWriter::new(stdout.lock());

    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {human_pos} people screened in {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    } else {
        ProgressBar::hidden()
    };
    let options = ScreenOptions {
        threshold: args.threshold,
        limit: args.limit,
        datasets: None,
    };
    let summary = screen_batch(input, format, output, &index, &options, |n| {
        bar.set_position(n);
    });
    bar.finish_and_clear();
    let summary = summary.context("screening failed")?;
    let mut stderr = std::io::stderr().lock();
    writeln!(
        stderr,
        "rics screen: {} people screened, {} with matches ({} matches), {} rows rejected, threshold {}",
        summary.screened, summary.with_matches, summary.matches, summary.rejected, args.threshold
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_the_format_from_the_first_line() {
        assert_eq!(detect(b"{\"full_name\":\"x\"}\n"), InputFormat::JsonLines);
        assert_eq!(detect(b"\xEF\xBB\xBF  {\"a\":1}"), InputFormat::JsonLines);
        assert_eq!(detect(b"full_name,date_of_birth\n"), InputFormat::Csv);
        assert_eq!(detect(b""), InputFormat::Csv);
    }
}
