//! Prints how two names compare, with the bundled lists' rarity weights:
//! `cargo run --release -p rics-screening --example explain -- "NAME ONE" "NAME TWO" [person|organisation]`.

#![allow(clippy::print_stdout, reason = "a diagnostic printed to the terminal")]

use std::error::Error;

use rics_screening::bundled::{data_dir, load_bundled};
use rics_screening::{EntityKind, Index};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Err("usage: explain NAME NAME [person|organisation]".into());
    };
    let kind = match args.get(2).map(String::as_str) {
        Some("organisation" | "company") => EntityKind::Organisation,
        _ => EntityKind::Person,
    };
    let index = Index::build(load_bundled(&data_dir())?);
    let comparison = index.compare(a, b, kind);
    println!("{}", serde_json::to_string_pretty(&comparison)?);
    Ok(())
}
