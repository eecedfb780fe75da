//! Running the built `rics` binary as operators run it, for the tests of this crate:
//! commands with a clean `RICS_*` environment, and `rics serve` with its output
//! captured.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test harness: failing loudly is the point"
)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use serde_json::Value;

/// The public URL the servers are started with.
pub const PUBLIC_URL: &str = "http://rics.local";

/// A `rics` command on the SQLite database in `dir`, with no `RICS_*` setting from the
/// environment that runs the tests.
pub fn rics(dir: &Path) -> Command {
    rics_on(dir, &format!("sqlite://{}", dir.join("rics.db").display()))
}

/// A `rics` command run in `dir` on the database at `database_url`.
pub fn rics_on(dir: &Path, database_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rics"));
    for (name, _) in std::env::vars() {
        if name.starts_with("RICS_") {
            command.env_remove(name);
        }
    }
    command
        .current_dir(dir)
        .env("RICS_DATABASE_URL", database_url)
        .env("RICS_PUBLIC_URL", PUBLIC_URL);
    command
}

/// Appends every line read from `stream` to `buffer`, on a thread of its own.
fn collect_lines(stream: impl Read + Send + 'static, buffer: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            let mut buffer = buffer.lock().unwrap();
            buffer.push_str(&line);
            buffer.push('\n');
        }
    });
}

/// A running `rics serve` with its standard output and error captured.
pub struct Serving {
    /// The process.
    pub child: Child,
    /// `http://{address}`.
    pub base: String,
    /// Its standard output so far.
    pub stdout: Arc<Mutex<String>>,
    /// Its standard error (the log) so far.
    pub stderr: Arc<Mutex<String>>,
}

impl Serving {
    /// Starts `rics serve` on port 0 on the SQLite database in `dir`, with every log
    /// line at `trace`, as JSON, and waits for the line that gives its address.
    pub fn start(dir: &Path, env: &[(&str, &str)]) -> Serving {
        Serving::spawn(rics(dir), env)
    }

    /// Starts `rics serve` for `command` (a [`rics_on`] command).
    pub fn spawn(mut command: Command, env: &[(&str, &str)]) -> Serving {
        command
            .args(["serve", "--bind-address", "127.0.0.1:0"])
            .env("RICS_LOG", "trace")
            .env("RICS_LOG_FORMAT", "json")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("rics serve starts");
        let stdout = Arc::new(Mutex::new(String::new()));
        let stderr = Arc::new(Mutex::new(String::new()));
        collect_lines(child.stdout.take().unwrap(), stdout.clone());
        collect_lines(child.stderr.take().unwrap(), stderr.clone());
        let deadline = Instant::now() + Duration::from_secs(60);
        let address = loop {
            let found = stderr.lock().unwrap().lines().find_map(|line| {
                let event: Value = serde_json::from_str(line).ok()?;
                (event["message"] == "rics is serving")
                    .then(|| event["address"].as_str().map(str::to_owned))?
            });
            if let Some(address) = found {
                break address;
            }
            assert!(
                Instant::now() < deadline,
                "rics serve did not start: {}",
                stderr.lock().unwrap()
            );
            if let Some(status) = child.try_wait().unwrap() {
                panic!(
                    "rics serve exited with {status}: {}",
                    stderr.lock().unwrap()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        Serving {
            child,
            base: format!("http://{address}"),
            stdout,
            stderr,
        }
    }

    /// The URL of `path` on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Stops the server (SIGKILL: no graceful shutdown) and returns its standard
    /// output and error.
    pub fn stop(mut self) -> (String, String) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        std::thread::sleep(Duration::from_millis(200));
        let out = self.stdout.lock().unwrap().clone();
        let err = self.stderr.lock().unwrap().clone();
        (out, err)
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A blocking HTTP client that does not follow redirects.
pub fn http() -> Client {
    Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}
