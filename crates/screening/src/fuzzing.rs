//! The entry point of the fuzz target in `crates/screening/fuzz` (cargo-fuzz), kept in the
//! library so that a plain test (`tests/engine/fuzz_corpus.rs`) runs it on a corpus of nasty
//! inputs on every `cargo test`, with or without a nightly toolchain.
//!
//! [`exercise`] feeds one arbitrary input to everything that reads outside data: the
//! normaliser (every entity kind), the date and country parsers, every list loader, the batch
//! reader in both formats, and a screen against a small index built from the input itself.
//! It must never panic; errors are fine.

use std::sync::OnceLock;

use crate::batch::{InputFormat, screen_batch};
use crate::date::BirthDate;
use crate::index::{Index, Query, ScreenOptions, SharedIndex};
use crate::load::{
    OfacFiles, load_generic_csv, load_generic_jsonl, load_ofac_legacy, load_uk_csv, load_un_xml,
    load_us_csl, parse_remarks,
};
use crate::matcher::Evidence;
use crate::model::EntityKind;
use crate::normalize::normalize;

/// A tiny fixed index the fuzzed names are screened against.
fn fixed_index() -> &'static SharedIndex {
    static INDEX: OnceLock<SharedIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let lines = "{\"id\":\"1\",\"name\":\"PUTIN, Vladimir Vladimirovich\",\"date_of_birth\":\"1952-10-07\",\"nationality\":\"RU\"}\n\
                     {\"id\":\"2\",\"name\":\"Muammar Qaddafi\",\"aliases\":\"معمر القذافي\"}\n\
                     {\"id\":\"3\",\"name\":\"김정은\",\"kind\":\"person\"}\n\
                     {\"id\":\"4\",\"name\":\"Open Joint Stock Company Gazprom\",\"kind\":\"organisation\"}\n";
        SharedIndex::new(Index::build(vec![load_generic_jsonl(
            lines.as_bytes(),
            "fuzz",
            None,
            "fuzz",
        )]))
    })
}

/// Runs one input through the normaliser, the parsers and the loaders. Never panics.
pub fn exercise(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for kind in [
        EntityKind::Person,
        EntityKind::Organisation,
        EntityKind::Vessel,
        EntityKind::Unknown,
    ] {
        for name in normalize(&text, kind) {
            std::hint::black_box(name.text());
        }
    }
    let _ = BirthDate::parse(&text);
    let _ = crate::country::to_alpha2(&text);
    std::hint::black_box(parse_remarks(&text));

    let _ = load_generic_csv(data, "fuzz", None, "fuzz");
    let _ = load_generic_jsonl(data, "fuzz", None, "fuzz");
    let _ = load_uk_csv(data, "fuzz", None, "fuzz");
    let _ = load_us_csl(data, "fuzz", None, "fuzz");
    let _ = load_un_xml(data, "fuzz", None, "fuzz");
    // The OFAC companions: the same bytes as every file of the set.
    let files = OfacFiles {
        main: data,
        alt: Some(data),
        add: Some(data),
        comments: Some(data),
    };
    let loaded = load_ofac_legacy(&files, "fuzz", None, "fuzz");
    // Whatever the loaders made of the input is indexed and screened (bounded: the fuzzer
    // keeps inputs small, the corpus test sends 10,000-character names).
    if loaded.records.len() <= 200 {
        let index = Index::build(vec![loaded]);
        let _ = index.screen(&Query::person(text.as_ref()), &ScreenOptions::default());
    }

    let shared = fixed_index();
    let query = Query {
        name: text.to_string(),
        kind: EntityKind::Person,
        evidence: Evidence {
            birth_date: BirthDate::parse(&text).ok(),
            nationalities: Vec::new(),
            gender: None,
        },
    };
    std::hint::black_box(shared.screen(&query, &ScreenOptions::default()));
    for format in [InputFormat::Csv, InputFormat::JsonLines] {
        let _ = screen_batch(
            data,
            format,
            std::io::sink(),
            shared,
            &ScreenOptions::default(),
            |_| {},
        );
    }
}
