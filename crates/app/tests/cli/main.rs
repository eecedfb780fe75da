//! The tests of the `rics` binary and crate, one module per area, in one test binary
//! (one link of the application instead of one per area): the layering rules, the
//! built binary's commands as operators run them, and `rics serve`'s jobs, list
//! reloads and request log. `cargo test -p rics --test cli MODULE::` runs one area
//! (`make deps-check` runs `architecture::`).

mod architecture;
mod automations_cli;
mod compare_names_cli;
mod credentials_cli;
mod help;
mod import_cli;
mod jobs_cli;
mod list_reload;
mod request_log;
mod screen_cli;
mod support;
