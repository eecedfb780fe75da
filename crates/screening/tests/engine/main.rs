//! The tests of the screening engine, in one test binary: the list loaders on the
//! bundled files, matching and batch screening, the pinned hard cases and the fuzz
//! target's entry on its corpus. `cargo test -p rics-screening --test engine MODULE::`
//! runs one area.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on a broken fixture"
)]

mod fuzz_corpus;
mod hard_cases;
mod loaders;
mod screening;
mod support;
