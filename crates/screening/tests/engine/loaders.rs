//! Loader tests on the bundled real list files (`data/lists`).

#![allow(
    clippy::expect_used,
    reason = "test helpers fail the test on a missing fixture"
)]

use std::path::PathBuf;

use rics_screening::{BirthDate, EntityKind, Gender, LoadedList, NameRole, Topic, load_path};

fn lists() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/lists")
}

fn load(rel: &str) -> LoadedList {
    load_path(&lists().join(rel), None).expect("bundled list loads")
}

fn count(list: &LoadedList, pred: impl Fn(&rics_screening::Record) -> bool) -> usize {
    list.records.iter().filter(|r| pred(r)).count()
}

fn person(list: &LoadedList, id: &str) -> rics_screening::Record {
    list.records
        .iter()
        .find(|r| r.id == id)
        .cloned()
        .expect("record present")
}

#[test]
fn ofac_sdn_2024_from_remarks() {
    let l = load("ofac_sdn_2024-05/sdn.csv");
    assert_eq!(l.records.len(), 14_965);
    assert_eq!(l.report.malformed, 0);
    assert_eq!(l.version.dataset, "ofac_sdn");
    assert_eq!(l.version.list_date.as_deref(), Some("2024-05"));
    assert_eq!(l.version.content_hash.len(), 64);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 6_854);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Vessel), 851);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Aircraft), 376);
    assert_eq!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.birth_dates.is_empty()),
        6_736
    );
    assert!(count(&l, |r| !r.nationalities.is_empty()) > 4_700);
    let zawahiri = person(&l, "2676");
    assert_eq!(zawahiri.display_name(), "AL ZAWAHIRI, Dr. Ayman");
    assert_eq!(
        zawahiri.birth_dates,
        vec![BirthDate::Exact {
            year: 1951,
            month: 6,
            day: 19
        }]
    );
    assert_eq!(zawahiri.places_of_birth, vec!["Giza, Egypt".to_string()]);
    assert_eq!(zawahiri.programs, vec!["SDGT".to_string()]);
    assert_eq!(zawahiri.topics, vec![Topic::Sanction]);
    let zomor = person(&l, "2677");
    assert_eq!(zomor.nationalities, vec!["EG".to_string()]);
    assert_eq!(zomor.gender, Some(Gender::Male));
    // Circa years and ranges are kept as such.
    assert!(
        count(&l, |r| r
            .birth_dates
            .iter()
            .any(|d| matches!(d, BirthDate::Circa { .. })))
            > 50
    );
    assert!(
        count(&l, |r| r
            .birth_dates
            .iter()
            .any(|d| matches!(d, BirthDate::Range { .. })))
            > 100
    );
    // a.k.a. names in the remarks become weak aliases.
    assert!(
        person(&l, "306")
            .names
            .iter()
            .any(|n| n.full == "BNC" && n.role == NameRole::WeakAlias)
    );
}

#[test]
fn ofac_sdn_2021_with_companion_files() {
    let l = load("ofac_sdn_2021-07/sdn.csv");
    assert_eq!(l.records.len(), 8_976);
    assert_eq!(l.report.malformed, 0);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 4_620);
    assert_eq!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.birth_dates.is_empty()),
        4_428
    );
    let aliases = l
        .records
        .iter()
        .flat_map(|r| &r.names)
        .filter(|n| n.role == NameRole::Alias)
        .count();
    assert!(aliases > 11_000, "{aliases} aliases from alt.csv");
    // 36 AEROCARIBBEAN AIRLINES: alias from alt.csv, address country from add.csv.
    let aero = person(&l, "36");
    assert!(aero.names.iter().any(|n| n.full == "AERO-CARIBBEAN"));
    assert_eq!(aero.address_countries, vec!["CU".to_string()]);
    // 28264: remarks continued in sdn_comments.csv carry two more weak aliases.
    let lazarus = person(&l, "28264");
    assert!(lazarus.names.iter().any(|n| n.full == "blackjack1987"));
    assert!(lazarus.names.iter().any(|n| n.full == "khaleesi"));
}

#[test]
fn ofac_consolidated() {
    let l = load("ofac_consolidated_2025-12/cons_prim.csv");
    assert_eq!(l.version.dataset, "ofac_cons");
    assert_eq!(l.records.len(), 442);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 79);
    assert_eq!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.birth_dates.is_empty()),
        74
    );
    assert!(
        person(&l, "17018")
            .names
            .iter()
            .any(|n| n.full == "SBERBANK INDIA")
    );
}

#[test]
fn un_consolidated() {
    let l = load("un_2026-02/UN_consolidated.xml");
    assert_eq!(l.version.list_date.as_deref(), Some("2026-02-27"));
    assert_eq!(l.records.len(), 1_003);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 730);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Organisation), 273);
    // 677 individuals have a structured date; one more has it as a note ("Nov. 1973").
    assert_eq!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.birth_dates.is_empty()),
        678
    );
    assert!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.nationalities.is_empty())
            >= 620
    );
    assert!(
        count(&l, |r| r
            .names
            .iter()
            .any(|n| n.role == NameRole::OriginalScript))
            >= 336
    );
    assert!(
        count(&l, |r| r
            .names
            .iter()
            .any(|n| n.role == NameRole::WeakAlias))
            > 100
    );
    let badege = person(&l, "6907993");
    assert_eq!(badege.display_name(), "ERIC BADEGE");
    assert_eq!(badege.nationalities, vec!["CD".to_string()]);
    assert_eq!(badege.birth_dates, vec![BirthDate::Year { year: 1971 }]);
    assert!(
        count(&l, |r| r
            .birth_dates
            .iter()
            .any(|d| matches!(d, BirthDate::Range { .. })))
            >= 23
    );
    assert!(
        count(&l, |r| r
            .birth_dates
            .iter()
            .any(|d| matches!(d, BirthDate::Circa { .. })))
            > 50
    );
    // "former Soviet Union" has no ISO code: reported, not fatal.
    assert_eq!(l.report.malformed, 0);
    assert!(l.report.ignored_values >= 1);
}

#[test]
fn uk_sanctions_list() {
    let l = load("uk_2025-08/uk_sanctions_list_2025-08-11.csv");
    assert_eq!(l.version.list_date.as_deref(), Some("2025-08-11"));
    assert_eq!(l.report.rows, 5_302);
    // Two designations lost their name in the export: counted, not fatal.
    assert_eq!(l.report.malformed, 2);
    assert_eq!(l.records.len(), 5_300);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 3_752);
    assert_eq!(count(&l, |r| r.kind == EntityKind::Vessel), 461);
}

#[test]
fn us_consolidated_screening_list() {
    let l = load("us_csl_2023-11/csl.csv");
    assert_eq!(l.records.len(), 4_227);
    assert_eq!(l.report.malformed, 1, "the duplicated header line");
    assert_eq!(count(&l, |r| r.kind == EntityKind::Person), 1_125);
    assert!(
        count(&l, |r| r.kind == EntityKind::Person
            && !r.birth_dates.is_empty())
            >= 1_050
    );
    assert!(count(&l, |r| r.kind == EntityKind::Unknown) > 2_000);
}

#[test]
fn us_congress_fixture_as_a_generic_pep_list() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/labeled/yente/positives_us_congress_untreated.csv");
    let l = load_path(&path, Some("us_congress")).expect("generic CSV loads");
    assert_eq!(l.records.len(), 1_254);
    assert_eq!(l.report.malformed, 0);
    assert!(l.records.iter().all(|r| r.kind == EntityKind::Person));
    assert_eq!(l.records[0].display_name(), "Jennifer L. McClellan");
    assert_eq!(
        l.records[0].birth_dates,
        vec![BirthDate::Year { year: 1972 }]
    );
}

/// The bundled PEP list: every member of Congress in office in 2026-06 and every
/// president and vice president, with nickname forms, dates of birth and positions.
#[test]
fn us_congress_pep_list() {
    let l = load("us_congress_2026-06/us_congress_pep.jsonl");
    assert_eq!(l.version.dataset, "us_congress_pep");
    assert_eq!(l.version.topics, vec![Topic::Pep]);
    assert_eq!(l.records.len(), 617);
    // Dates of birth before 1800 are taken for typos (21 early presidents and vice
    // presidents); their positions keep every date.
    assert_eq!((l.report.malformed, l.report.ignored_values), (0, 21));
    let washington = person(&l, "W000178");
    assert!(washington.birth_dates.is_empty());
    assert_eq!(
        washington.positions[0].start_date.as_deref(),
        Some("1789-04-30")
    );
    let sanders = person(&l, "S000033");
    assert_eq!(sanders.display_name(), "Bernard Sanders");
    assert!(sanders.names.iter().any(|n| n.full == "Bernie Sanders"));
    assert_eq!(sanders.nationalities, vec!["US".to_string()]);
    assert_eq!(sanders.gender, Some(Gender::Male));
    assert_eq!(
        sanders.birth_dates,
        vec![BirthDate::Exact {
            year: 1941,
            month: 9,
            day: 8
        }]
    );
    let titles: Vec<(&str, Option<&str>)> = sanders
        .positions
        .iter()
        .map(|p| (p.title.as_str(), p.start_date.as_deref()))
        .collect();
    assert_eq!(
        titles,
        vec![
            (
                "Member of the US House of Representatives for Vermont's at-large district",
                Some("1991-01-03")
            ),
            ("United States Senator for Vermont", Some("2007-01-04")),
        ]
    );
    assert_eq!(
        sanders.source_url.as_deref(),
        Some("https://bioguide.congress.gov/search/bio/S000033")
    );
}

/// A folder stands for its list files: OFAC companion files are read with their
/// `sdn.csv`, not as lists of their own, and subfolders are not entered.
#[test]
fn a_folder_is_its_list_files() {
    let folder = lists().join("ofac_sdn_2021-07");
    let files = rics_screening::list_files(&folder).expect("the folder reads");
    assert_eq!(files, vec![folder.join("sdn.csv")]);
    let loaded =
        rics_screening::load_paths(std::slice::from_ref(&folder)).expect("the folder loads");
    assert_eq!(loaded.len(), 1);
    assert_eq!(loaded[0].version.dataset, "ofac_sdn");
    assert_eq!(
        loaded[0].records.len(),
        load("ofac_sdn_2021-07/sdn.csv").records.len()
    );
    assert!(
        rics_screening::list_files(&lists()).is_err(),
        "a folder of folders holds no list file"
    );
}
