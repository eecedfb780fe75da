//! Index build time and memory, and one-person screen latency percentiles over all bundled
//! lists, on one core: `cargo run --release -p rics-screening --example latency`.
//! Screens the first 5,000 synthetic negatives and the 683 UN positives, one at a time.

#![allow(
    clippy::print_stdout,
    reason = "a benchmark report printed to the terminal"
)]

use std::error::Error;
use std::time::Instant;

use rics_screening::bundled::{data_dir, load_bundled};
use rics_screening::{
    BirthDate, EntityKind, Evidence, Gender, Index, Query, ScreenOptions, country,
};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn Error>> {
    let data = data_dir();
    let before_load = rss_kib();
    let started = Instant::now();
    let lists = load_bundled(&data)?;
    let loaded = started.elapsed();
    let after_load = rss_kib();
    let started = Instant::now();
    let index = Index::build(lists);
    let built = started.elapsed();
    let after_build = rss_kib();
    println!(
        "load {:.2} s, build {:.2} s; {} records, {} names; RSS {} MiB before load, {} MiB loaded, {} MiB with index",
        loaded.as_secs_f64(),
        built.as_secs_f64(),
        index.records().len(),
        index.name_count(),
        before_load / 1024,
        after_load / 1024,
        after_build / 1024
    );
    let mut queries = Vec::new();
    for (file, limit) in [
        ("yente/negatives_global.csv", 5_000),
        ("yente/positives_un_untreated.csv", usize::MAX),
    ] {
        let mut reader = csv::Reader::from_path(data.join("labeled").join(file))?;
        for row in reader.records().take(limit) {
            let row = row?;
            let get = |i: usize| row.get(i).unwrap_or("").to_string();
            queries.push(Query {
                name: get(0),
                kind: EntityKind::Person,
                evidence: Evidence {
                    birth_date: BirthDate::parse(&get(5)).ok(),
                    nationalities: country::to_alpha2(&get(7)).into_iter().collect(),
                    gender: Gender::parse(&get(4)),
                },
            });
        }
    }
    let options = ScreenOptions::default();
    let mut times: Vec<f64> = Vec::with_capacity(queries.len());
    let mut slowest: Vec<(f64, &str)> = Vec::new();
    for q in &queries {
        let t = Instant::now();
        let result = index.screen(q, &options);
        let us = t.elapsed().as_secs_f64() * 1e6;
        times.push(us);
        slowest.push((us, q.name.as_str()));
        std::hint::black_box(result);
    }
    slowest.sort_by(|a, b| b.0.total_cmp(&a.0));
    if std::env::var_os("LATENCY_VERBOSE").is_some() {
        for (us, name) in slowest.iter().take(10) {
            println!("  slow: {us:.0} us {name:?}");
        }
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
    println!(
        "one-person screen over {} queries: p50 {:.0} us, p90 {:.0} us, p99 {:.0} us, max {:.0} us",
        times.len(),
        pct(0.50),
        pct(0.90),
        pct(0.99),
        pct(1.0)
    );
    Ok(())
}
