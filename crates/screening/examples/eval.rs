//! Screening quality evaluation on the bundled labelled sets. Run in release:
//! `cargo run --release -p rics-screening --example eval` (add `-- --negatives N` to screen
//! only the first N negatives).
//!
//! Prints, at the default threshold and as a curve: precision, recall and F1 on the nomenklatura
//! name pairs; recall of the yente UN positives against the UN list, plain and perturbed; alerts
//! per 100,000 screens of the synthetic negatives against all bundled lists; accuracy on the
//! watchman cross-script pairs; recall of the yente US Congress positives against the
//! bundled PEP list.

#![allow(
    clippy::print_stdout,
    reason = "an evaluation report printed to the terminal"
)]

use std::collections::HashSet;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

use rics_screening::bundled::{BUNDLED_PEP, BUNDLED_UN, data_dir, load_bundled};
use rics_screening::matcher::name_only_score;
use rics_screening::{
    BirthDate, DEFAULT_THRESHOLD, EntityKind, Evidence, Gender, Index, Query, ScreenOptions,
    country, load_path,
};

const CURVE: [f32; 9] = [0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80, 0.85, 0.90];

/// A small deterministic generator so that perturbations are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn person_row(row: &csv::StringRecord, name_col: usize) -> Query {
    let get = |i: usize| row.get(i).unwrap_or("").trim();
    Query {
        name: get(name_col).to_string(),
        kind: EntityKind::Person,
        evidence: Evidence {
            birth_date: BirthDate::parse(get(5)).ok(),
            nationalities: country::to_alpha2(get(7)).into_iter().collect(),
            gender: Gender::parse(get(4)),
        },
    }
}

fn prf(tp: usize, fp: usize, fneg: usize) -> (f64, f64, f64) {
    let p = if tp + fp == 0 {
        1.0
    } else {
        tp as f64 / (tp + fp) as f64
    };
    let r = if tp + fneg == 0 {
        1.0
    } else {
        tp as f64 / (tp + fneg) as f64
    };
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, f)
}

/// The names of the two cross-validation halves.
const HALVES: [&str; 2] = ["A", "B"];

/// The half a name pair belongs to: a hash of its two names (FNV-1a), so that the split is
/// the same on every run and does not follow the file's order or grouping.
fn half_of(name1: &str, name2: &str) -> usize {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name1.bytes().chain([0x1f]).chain(name2.bytes()) {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    usize::from(hash % 2 == 1)
}

/// Precision, recall and F1 of the scored pairs of one half at threshold `t`.
fn half_prf(
    scored: &[(String, bool, f32)],
    halves: &[usize],
    half: usize,
    t: f32,
) -> (f64, f64, f64) {
    let (mut tp, mut fp, mut fneg) = (0, 0, 0);
    for ((_, truth, score), h) in scored.iter().zip(halves) {
        if *h != half {
            continue;
        }
        match (*truth, *score >= t) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fneg += 1,
            (false, false) => {}
        }
    }
    prf(tp, fp, fneg)
}

/// Two-fold cross-validation of the threshold: for each half, the threshold with the best F1
/// on it (0.50 to 0.90 by 0.01; ties go to the one nearest the default) and the F1 that
/// threshold gives on the other half, never seen while tuning; and both halves at the default.
fn cross_validation(scored: &[(String, bool, f32)], halves: &[usize]) {
    println!("\n### Cross-validation (two halves by a hash of the pair)");
    println!(
        "half | pairs | at default: P R F1 | tuned threshold (F1 on it) | other half at it: P R F1"
    );
    for (half, label) in HALVES.iter().enumerate() {
        let pairs = halves.iter().filter(|h| **h == half).count();
        let (p, r, f) = half_prf(scored, halves, half, DEFAULT_THRESHOLD);
        let mut best = (DEFAULT_THRESHOLD, f);
        for step in 50..=90 {
            let t = step as f32 / 100.0;
            let f_t = half_prf(scored, halves, half, t).2;
            let nearer = (t - DEFAULT_THRESHOLD).abs() < (best.0 - DEFAULT_THRESHOLD).abs();
            if f_t > best.1 + 1e-9 || ((f_t - best.1).abs() <= 1e-9 && nearer) {
                best = (t, f_t);
            }
        }
        let (op, or, of) = half_prf(scored, halves, 1 - half, best.0);
        println!(
            "{label} | {pairs} | {p:.3} {r:.3} {f:.3} | {:.2} ({:.3}) | {op:.3} {or:.3} {of:.3}",
            best.0, best.1
        );
    }
}

fn name_pairs(index: &Index, labeled: &Path) -> Result<(), Box<dyn Error>> {
    let mut reader = csv::Reader::from_path(labeled.join("nomenklatura/name_bench_cases.csv"))?;
    let mut scored: Vec<(String, bool, f32)> = Vec::new();
    let mut halves: Vec<usize> = Vec::new();
    for row in reader.records() {
        let row = row?;
        let schema = row.get(1).unwrap_or("");
        let kind = match schema {
            "Person" => EntityKind::Person,
            "Vessel" => EntityKind::Vessel,
            _ => EntityKind::Organisation,
        };
        let sim = index
            .compare(row.get(2).unwrap_or(""), row.get(3).unwrap_or(""), kind)
            .map_or(0.0, |c| c.similarity);
        scored.push((
            schema.to_string(),
            row.get(4) == Some("true"),
            name_only_score(sim),
        ));
        halves.push(half_of(row.get(2).unwrap_or(""), row.get(3).unwrap_or("")));
    }
    println!(
        "\n## Name pairs (nomenklatura name_bench_cases.csv, {} pairs)",
        scored.len()
    );
    println!("threshold | all: P R F1 | Person only: P R F1");
    for t in CURVE {
        let mut line = format!("{t:.2}");
        for person_only in [false, true] {
            let (mut tp, mut fp, mut fneg) = (0, 0, 0);
            for (schema, truth, score) in &scored {
                if person_only && schema != "Person" {
                    continue;
                }
                match (*truth, *score >= t) {
                    (true, true) => tp += 1,
                    (false, true) => fp += 1,
                    (true, false) => fneg += 1,
                    (false, false) => {}
                }
            }
            let (p, r, f) = prf(tp, fp, fneg);
            line.push_str(&format!(" | {p:.3} {r:.3} {f:.3}"));
        }
        if (t - DEFAULT_THRESHOLD).abs() < 1e-6 {
            line.push_str("  <- default");
        }
        println!("{line}");
    }
    cross_validation(&scored, &halves);
    if std::env::var_os("EVAL_VERBOSE").is_some() {
        let mut reader = csv::Reader::from_path(labeled.join("nomenklatura/name_bench_cases.csv"))?;
        for ((row, (_, truth, score)), half) in reader.records().zip(&scored).zip(&halves) {
            let row = row?;
            if *truth != (*score >= DEFAULT_THRESHOLD) {
                println!(
                    "  wrong ({}): {:?} vs {:?} truth {truth} score {score:.3} ({})",
                    HALVES[*half],
                    row.get(2).unwrap_or(""),
                    row.get(3).unwrap_or(""),
                    row.get(1).unwrap_or("")
                );
            }
        }
    }
    Ok(())
}

fn cross_script(index: &Index, labeled: &Path) -> Result<(), Box<dyn Error>> {
    let text = std::fs::read_to_string(labeled.join("watchman/cross_script_pairs.csv"))?;
    let mut scores = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(',');
        let (Some(a), Some(b)) = (parts.next(), parts.next()) else {
            continue;
        };
        let sim = index
            .compare(a, b, EntityKind::Person)
            .map_or(0.0, |c| c.similarity);
        scores.push((a.to_string(), b.to_string(), name_only_score(sim)));
    }
    println!(
        "\n## Cross-script pairs (watchman cross_script_pairs.csv, {} pairs, all matches)",
        scores.len()
    );
    for t in CURVE {
        let ok = scores.iter().filter(|s| s.2 >= t).count();
        let mark = if (t - DEFAULT_THRESHOLD).abs() < 1e-6 {
            "  <- default"
        } else {
            ""
        };
        println!(
            "{t:.2} accuracy {:.3} ({ok}/{}){mark}",
            ok as f64 / scores.len() as f64,
            scores.len()
        );
    }
    for (a, b, s) in &scores {
        if *s < DEFAULT_THRESHOLD {
            println!("  missed: {a} ~ {b} score {s:.3}");
        }
    }
    Ok(())
}

/// Perturbations of a name, each with its label.
fn perturb(name: &str, rng: &mut Lcg) -> Vec<(&'static str, String)> {
    let tokens: Vec<&str> = name.split_whitespace().collect();
    let mut out = Vec::new();
    // A typo in one token of four letters or more.
    let long: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].chars().count() >= 4)
        .collect();
    if !long.is_empty() {
        let i = long[rng.below(long.len())];
        let mut chars: Vec<char> = tokens[i].chars().collect();
        let at = 1 + rng.below(chars.len() - 2);
        match rng.below(4) {
            0 => chars.swap(at, at + 1),
            1 => {
                chars.remove(at);
            }
            2 => chars.insert(at, chars[at]),
            _ => {
                let letters: Vec<char> = "aeioustnrl".chars().collect();
                chars[at] = letters[rng.below(letters.len())];
            }
        }
        let mut t = tokens.clone();
        let typo: String = chars.into_iter().collect();
        t[i] = &typo;
        out.push(("typo", t.join(" ")));
    }
    if tokens.len() >= 2 {
        let mut t = tokens.clone();
        t.reverse();
        out.push(("swapped tokens", t.join(" ")));
        let last = tokens[tokens.len() - 1];
        out.push((
            "SURNAME, Given",
            format!(
                "{}, {}",
                last.to_uppercase(),
                tokens[..tokens.len() - 1].join(" ")
            ),
        ));
    }
    if tokens.len() >= 3 {
        out.push((
            "dropped middle names",
            format!("{} {}", tokens[0], tokens[tokens.len() - 1]),
        ));
    }
    let rules: [(&str, &str); 12] = [
        ("ou", "u"),
        ("oo", "u"),
        ("ee", "i"),
        ("kh", "h"),
        ("q", "k"),
        ("dh", "d"),
        ("ph", "f"),
        ("mohammed", "muhammad"),
        ("mohammad", "muhammad"),
        ("y", "i"),
        ("j", "dj"),
        ("sh", "ch"),
    ];
    let lower = name.to_lowercase();
    if let Some((from, to)) = rules.iter().find(|(from, _)| lower.contains(from)) {
        out.push(("transliteration", lower.replacen(from, to, 1)));
    }
    out
}

fn un_recall(labeled: &Path, lists: &Path) -> Result<(), Box<dyn Error>> {
    let un = load_path(&lists.join(BUNDLED_UN), None)?;
    let index = Index::build(vec![un]);
    let key = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut reader = csv::Reader::from_path(labeled.join("yente/positives_un_untreated.csv"))?;
    let options = ScreenOptions {
        threshold: CURVE[0],
        limit: 50,
        datasets: None,
    };
    let mut rng = Lcg(0x5eed);
    let mut plain: Vec<f32> = Vec::new();
    let mut perturbed: Vec<(&'static str, f32)> = Vec::new();
    let mut without_truth = 0;
    let mut misses = Vec::new();
    for row in reader.records() {
        let row = row?;
        let query = person_row(&row, 0);
        let truth: HashSet<&str> = index
            .records()
            .iter()
            .filter(|r| r.names.iter().any(|n| key(&n.full) == key(&query.name)))
            .map(|r| r.id.as_str())
            .collect();
        if truth.is_empty() {
            without_truth += 1;
            continue;
        }
        let best = |q: &Query| {
            index
                .screen(q, &options)
                .matches
                .iter()
                .filter(|m| truth.contains(m.list_entry.as_str()))
                .map(|m| m.score)
                .fold(0.0f32, f32::max)
        };
        let score = best(&query);
        plain.push(score);
        for (label, variant) in perturb(&query.name, &mut rng) {
            let q = Query {
                name: variant.clone(),
                ..query.clone()
            };
            let s = best(&q);
            if s < DEFAULT_THRESHOLD {
                misses.push(format!(
                    "{label}: {variant:?} (from {:?}) {s:.3}",
                    query.name
                ));
            }
            perturbed.push((label, s));
        }
    }
    println!(
        "\n## UN positives (yente positives_un_untreated.csv vs UN list; {} with a ground-truth entry, {} without)",
        plain.len(),
        without_truth
    );
    println!(
        "threshold | plain recall | perturbed recall (all) | typo | swapped | SURNAME, Given | dropped middle | transliteration"
    );
    for t in CURVE {
        let rate = |v: &[f32]| v.iter().filter(|s| **s >= t).count() as f64 / v.len().max(1) as f64;
        let all: Vec<f32> = perturbed.iter().map(|p| p.1).collect();
        let by = |label: &str| {
            let v: Vec<f32> = perturbed
                .iter()
                .filter(|p| p.0 == label)
                .map(|p| p.1)
                .collect();
            format!("{:.3} (n={})", rate(&v), v.len())
        };
        let mark = if (t - DEFAULT_THRESHOLD).abs() < 1e-6 {
            "  <- default"
        } else {
            ""
        };
        println!(
            "{t:.2} | {:.3} | {:.3} (n={}) | {} | {} | {} | {} | {}{mark}",
            rate(&plain),
            rate(&all),
            all.len(),
            by("typo"),
            by("swapped tokens"),
            by("SURNAME, Given"),
            by("dropped middle names"),
            by("transliteration"),
        );
    }
    if std::env::var_os("EVAL_VERBOSE").is_some() {
        for m in misses.iter().take(60) {
            println!("  missed {m}");
        }
    }
    Ok(())
}

/// Recall of the yente US Congress positives against the bundled PEP list. A positive is
/// in office in 2026-06 when a record of the list carries its name (any of the record's
/// names, case, spacing and punctuation aside) and its year of birth: the ground truth. The
/// rest left Congress before 2026-06; how many of them alert anyway (namesakes, relatives
/// with the same name) is printed beside.
fn congress_recall(labeled: &Path, lists: &Path) -> Result<(), Box<dyn Error>> {
    let pep = load_path(&lists.join(BUNDLED_PEP), None)?;
    let index = Index::build(vec![pep]);
    // Case, spacing and punctuation aside: `J. D. Vance` is `J.D. Vance`.
    let key = |s: &str| {
        s.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let options = ScreenOptions {
        threshold: CURVE[0],
        limit: 50,
        datasets: None,
    };
    let mut reader =
        csv::Reader::from_path(labeled.join("yente/positives_us_congress_untreated.csv"))?;
    let mut in_office: Vec<f32> = Vec::new();
    let mut former: Vec<f32> = Vec::new();
    let mut misses = Vec::new();
    for row in reader.records() {
        let query = person_row(&row?, 0);
        let year = query.evidence.birth_date.map(|d| d.year_span().0);
        let truth: HashSet<&str> = index
            .records()
            .iter()
            .filter(|r| r.names.iter().any(|n| key(&n.full) == key(&query.name)))
            .filter(|r| r.birth_dates.iter().any(|d| Some(d.year_span().0) == year))
            .map(|r| r.id.as_str())
            .collect();
        let matches = index.screen(&query, &options).matches;
        if truth.is_empty() {
            former.push(matches.first().map_or(0.0, |m| m.score));
            continue;
        }
        let score = matches
            .iter()
            .filter(|m| truth.contains(m.list_entry.as_str()))
            .map(|m| m.score)
            .fold(0.0f32, f32::max);
        if score < DEFAULT_THRESHOLD {
            misses.push(format!("{:?} {score:.3}", query.name));
        }
        in_office.push(score);
    }
    println!(
        "\n## US Congress positives (yente positives_us_congress_untreated.csv vs us_congress_pep; {} in office in 2026-06, {} former members)",
        in_office.len(),
        former.len()
    );
    println!("threshold | recall of members in office | former members alerting");
    for t in CURVE {
        let rate = |v: &[f32]| v.iter().filter(|s| **s >= t).count() as f64 / v.len().max(1) as f64;
        let mark = if (t - DEFAULT_THRESHOLD).abs() < 1e-6 {
            "  <- default"
        } else {
            ""
        };
        println!(
            "{t:.2} | {:.3} | {:.3}{mark}",
            rate(&in_office),
            rate(&former)
        );
    }
    if std::env::var_os("EVAL_VERBOSE").is_some() {
        for m in &misses {
            println!("  missed {m}");
        }
    }
    Ok(())
}

fn negatives(index: &Index, labeled: &Path, limit: usize) -> Result<(), Box<dyn Error>> {
    let mut reader = csv::Reader::from_path(labeled.join("yente/negatives_global.csv"))?;
    let options = ScreenOptions {
        threshold: CURVE[0],
        limit: 50,
        datasets: None,
    };
    let mut best: Vec<f32> = Vec::new();
    let mut examples = Vec::new();
    let started = Instant::now();
    for row in reader.records().take(limit) {
        let row = row?;
        let query = person_row(&row, 0);
        let result = index.screen(&query, &options);
        let top = result.matches.first().map_or(0.0, |m| m.score);
        if top >= DEFAULT_THRESHOLD
            && examples.len() < 40
            && let Some(m) = result.matches.first()
        {
            examples.push(format!(
                "{:?} ({:?}) -> {} {:?} {:.3} {:?}",
                query.name,
                query.evidence.birth_date.map(|d| d.to_string()),
                m.dataset,
                m.explanation.matched_name,
                m.score,
                m.explanation
                    .factors
                    .iter()
                    .map(|f| &f.detail)
                    .collect::<Vec<_>>()
            ));
        }
        best.push(top);
    }
    let elapsed = started.elapsed();
    println!(
        "\n## Negatives (yente negatives_global.csv, {} screens against all bundled lists, {:.1} s, {:.0} us/screen)",
        best.len(),
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1e6 / best.len().max(1) as f64
    );
    for t in CURVE {
        let alerts = best.iter().filter(|s| **s >= t).count();
        let mark = if (t - DEFAULT_THRESHOLD).abs() < 1e-6 {
            "  <- default"
        } else {
            ""
        };
        println!(
            "{t:.2} screens with an alert: {alerts} = {:.1} per 100,000{mark}",
            alerts as f64 * 100_000.0 / best.len().max(1) as f64
        );
    }
    if std::env::var_os("EVAL_VERBOSE").is_some() {
        for e in &examples {
            println!("  alert {e}");
        }
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let limit = args
        .iter()
        .position(|a| a == "--negatives")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let data = data_dir();
    let labeled = data.join("labeled");
    let started = Instant::now();
    let index = Index::build(load_bundled(&data)?);
    println!(
        "# Screening evaluation\nindex: {} records, {} names, built in {:.2} s; default threshold {DEFAULT_THRESHOLD}",
        index.records().len(),
        index.name_count(),
        started.elapsed().as_secs_f64()
    );
    name_pairs(&index, &labeled)?;
    cross_script(&index, &labeled)?;
    un_recall(&labeled, &data.join("lists"))?;
    congress_recall(&labeled, &data.join("lists"))?;
    negatives(&index, &labeled, limit)?;
    Ok(())
}
