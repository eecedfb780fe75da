//! The `rics` binary.

fn main() {}
