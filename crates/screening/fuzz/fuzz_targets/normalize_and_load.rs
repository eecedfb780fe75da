//! Fuzzes the normaliser, the date / country / remarks parsers, every list loader, the batch
//! reader and a screen: `cargo +nightly fuzz run normalize_and_load` in `crates/screening`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    rics_screening::fuzzing::exercise(data);
});
