//! Screening behaviour: hard cases from the data README, batch screening and index reloads.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on a broken fixture"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rics_screening::bundled::{BUNDLED_UN, data_dir};
use rics_screening::load::load_generic_jsonl;
use rics_screening::{
    BirthDate, EntityKind, Evidence, Gender, Index, InputFormat, Query, ScreenOptions, SharedIndex,
    load_path, screen_batch,
};

use crate::support::{T, score, un_index};

#[test]
fn arabic_transliteration_variants_match() {
    for (a, b) in [
        ("Mohammed Ali", "Muhammad Ali"),
        ("Mohamed Ali", "Muhammad Ali"),
        ("Muammar Qaddafi", "Muammar Gaddafi"),
        ("Muammar Qaddafi", "Muammar Kadhafi"),
    ] {
        assert!(score(a, b) >= T, "{a} ~ {b}: {}", score(a, b));
    }
}

#[test]
fn particles_and_compounds_match() {
    for (a, b) in [
        ("Abd al-Rahman Ali", "Abdulrahman Ali"),
        ("Abdel Rahman Ali", "Abd al Rahman Ali"),
        ("Ayman al-Zawahiri", "AL ZAWAHIRI, Dr. Ayman"),
    ] {
        assert!(score(a, b) >= T, "{a} ~ {b}: {}", score(a, b));
    }
}

#[test]
fn cyrillic_romanisations_and_patronymics() {
    assert!(score("Ivan Yermakov", "Ivan Ermakov") >= T);
    assert!(score("Ivan Jermakov", "Ivan Yermakov") >= T);
    assert!(score("Vladimir Putin", "Vladimir Vladimirovich Putin") >= T);
    assert!(score("Владимир Путин", "Vladimir Putin") >= T);
}

#[test]
fn name_order_policy() {
    // Order-free: swapped given and family names and SURNAME, Given match.
    assert!(score("Putin Vladimir", "Vladimir Putin") >= T);
    assert!(score("PUTIN, Vladimir", "Vladimir Putin") >= T);
    // Swapping the names around "bin" names another person (son and father).
    assert!(score("Salman bin Muhammad al-Rawi", "Muhammad bin Salman al-Rawi") < T);
}

#[test]
fn initials() {
    assert!(score("Hans J Friedrich", "Hans Joachim Friedrich") >= T);
    assert!(score("Hans O Friedrich", "Hans Joachim Friedrich") < T);
}

#[test]
fn diacritics_and_special_letters() {
    assert!(score("Jürgen Strauß", "Jurgen Strauss") >= T);
    assert!(score("Łukasz Øster", "Lukasz Oster") >= T);
    assert!(score("Đorđe Işık", "Dorde Isik") >= T);
}

#[test]
fn honorifics_are_ignored() {
    assert!(score("Mullah Mohammad Omar", "Mohammad Omar") >= T);
    assert!(score("Haji Abdul Basir", "Abdul Basir") >= T);
    assert!(score("Shaykh Umar Abd al Rahman", "Umar Abd al Rahman") >= T);
}

#[test]
fn typos() {
    assert!(score("Vladimir Ptuin", "Vladimir Putin") >= T);
    assert!(score("Vladimir Puttin", "Vladimir Putin") >= T);
    assert!(score("Vladimir Ptin", "Vladimir Putin") >= T);
}

#[test]
fn different_people_do_not_match() {
    assert!(score("Vladimir Putin", "Vladimir Biliy") < T);
    assert!(score("Angelo Cruz", "Angela Merkel") < T);
    assert!(score("Prabowo Subandrio", "Prabowo Subianto") < T);
    assert!(score("Olga Barynova", "Oleg Baranov") < T);
}

#[test]
fn date_of_birth_separates_common_names() {
    let index = un_index();
    let query = |dob: Option<BirthDate>| Query {
        name: "Kim Jong Un".to_string(),
        kind: EntityKind::Person,
        evidence: Evidence {
            birth_date: dob,
            nationalities: Vec::new(),
            gender: Some(Gender::Male),
        },
    };
    let options = ScreenOptions {
        threshold: 0.0,
        ..ScreenOptions::default()
    };
    // A missing date is never a mismatch; a different date lowers the score.
    let none = index.screen(&query(None), &options);
    let far = index.screen(&query(Some(BirthDate::Year { year: 1920 })), &options);
    if let (Some(a), Some(b)) = (none.matches.first(), far.matches.first()) {
        assert!(b.score < a.score);
    }
}

#[test]
fn un_positive_matches_with_explanation() {
    let index = un_index();
    let query = Query {
        name: "ERIC BADEGE".to_string(),
        kind: EntityKind::Person,
        evidence: Evidence {
            birth_date: Some(BirthDate::Year { year: 1971 }),
            nationalities: vec!["CD".to_string()],
            gender: None,
        },
    };
    let result = index.screen(&query, &ScreenOptions::default());
    let top = result.matches.first().expect("a match");
    assert_eq!(top.list_entry, "6907993");
    assert!(top.score > 0.95 && top.score < 1.0, "{}", top.score);
    let total: f32 = top.explanation.factors.iter().map(|f| f.contribution).sum();
    assert!((total - top.score).abs() < 2e-3);
    let json = serde_json::to_string(top).expect("serialises");
    assert!(json.contains("\"factors\""));
    assert!(json.contains("\"pairs\""));
}

#[test]
fn bad_queries_do_not_panic() {
    let index = un_index();
    for name in [
        "",
        "   ",
        "\u{0}\u{1}\u{7f}",
        "Иван Petrov محمد 김정은",
        &"A".repeat(10_000),
        &"Ab ".repeat(10_000),
    ] {
        let result = index.screen(&Query::person(name), &ScreenOptions::default());
        assert!(result.matches.len() <= 10);
    }
}

#[test]
fn batch_screens_csv_and_json_lines() {
    let shared = SharedIndex::new(Index::build(vec![
        load_path(&data_dir().join("lists").join(BUNDLED_UN), None).unwrap(),
    ]));
    let csv = "full_name,first_name,middle_name,last_name,gender,date_of_birth,place_of_birth,nationality\n\
               ERIC BADEGE,,,,male,1971,,Democratic Republic of the Congo\n\
               ,Patricia,Lucas,Wheeler,female,2002-07-14,Dar es Salaam,Ethiopia\n\
               ,,,,,31 Feb 1970,,\n";
    let mut out = Vec::new();
    let mut seen = 0;
    let summary = screen_batch(
        csv.as_bytes(),
        InputFormat::Csv,
        &mut out,
        &shared,
        &ScreenOptions::default(),
        |n| seen = n,
    )
    .unwrap();
    assert_eq!(summary.screened, 3);
    assert_eq!(summary.with_matches, 1);
    assert_eq!(summary.rejected, 1);
    assert_eq!(seen, 3);
    let lines: Vec<serde_json::Value> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["matches"][0]["listEntry"], "6907993");
    assert_eq!(lines[1]["name"], "Patricia Lucas Wheeler");
    assert_eq!(lines[2]["warnings"][0], "no name");

    let jsonl = "{\"full_name\":\"ERIC BADEGE\",\"date_of_birth\":\"1971\"}\nnot json\n";
    let mut out = Vec::new();
    let summary = screen_batch(
        jsonl.as_bytes(),
        InputFormat::JsonLines,
        &mut out,
        &shared,
        &ScreenOptions::default(),
        |_| {},
    )
    .unwrap();
    assert_eq!(summary.screened, 2);
    assert_eq!(summary.rejected, 1);
    assert!(
        screen_batch(
            "a,b\n1,2\n".as_bytes(),
            InputFormat::Csv,
            Vec::new(),
            &shared,
            &ScreenOptions::default(),
            |_| {}
        )
        .is_err()
    );
}

fn version_index(version: &str) -> Index {
    // Two versions of one list: every record id carries its version, so a mix would show.
    let lines: String = (0..200)
        .map(|i| {
            format!(
                "{{\"id\":\"{version}-{i}\",\"name\":\"Ivan Petrov{}\"}}\n",
                if i == 0 {
                    String::new()
                } else {
                    format!(" {i}")
                }
            )
        })
        .collect();
    Index::build(vec![load_generic_jsonl(
        lines.as_bytes(),
        &format!("list-{version}"),
        None,
        version,
    )])
}

#[test]
fn a_screen_during_a_reload_sees_one_version_or_the_other() {
    let shared = Arc::new(SharedIndex::new(version_index("v1")));
    let stop = Arc::new(AtomicBool::new(false));
    let reloader = {
        let shared = Arc::clone(&shared);
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut swaps = 0;
            while !stop.load(Ordering::Relaxed) && swaps < 200 {
                let version = if swaps % 2 == 0 { "v2" } else { "v1" };
                shared.replace(version_index(version));
                swaps += 1;
            }
            swaps
        })
    };
    let options = ScreenOptions {
        threshold: 0.0,
        limit: 50,
        datasets: None,
    };
    let mut seen = std::collections::HashSet::new();
    for _ in 0..300 {
        let result = shared.screen(&Query::person("Ivan Petrov"), &options);
        assert_eq!(result.list_versions.len(), 1);
        let dataset = &result.list_versions[0].dataset;
        let version = dataset.trim_start_matches("list-");
        assert!(!result.matches.is_empty());
        for m in &result.matches {
            assert_eq!(&m.dataset, dataset);
            assert!(
                m.list_entry.starts_with(version),
                "{} in {version}",
                m.list_entry
            );
        }
        seen.insert(version.to_string());
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = reloader.join().unwrap();
    assert!(swaps > 0);
}
