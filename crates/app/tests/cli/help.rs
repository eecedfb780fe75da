//! Each subcommand's `--help` lists the settings it reads and no other: the server's
//! settings belong to `rics serve --help`.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "a test: failing loudly is the point"
)]

use std::process::Command;

fn help(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_rics"))
        .args(args)
        .arg("--help")
        .env_clear()
        .output()
        .expect("rics runs");
    assert!(output.status.success(), "{args:?} --help fails");
    String::from_utf8(output.stdout).unwrap()
}

/// Settings only the server reads.
const SERVER_ONLY: &[&str] = &[
    "RICS_BIND_ADDRESS",
    "RICS_DATABASE_POOL_SIZE",
    "RICS_HTTP_WORKERS",
    "RICS_RATE_LIMIT_PER_MINUTE",
    "RICS_SCREENING_LISTS",
    "RICS_JOB_CONCURRENCY",
    "RICS_JOB_BATCH",
    "RICS_OIDC_ISSUERS",
    "RICS_BOOTSTRAP_CLIENT_SECRET",
    "RICS_SOFT_DELETE_RETENTION_DAYS",
    "RICS_WEBHOOK_RETRY_SCHEDULE",
    "RICS_WEBHOOK_TIMEOUT_SECONDS",
    "RICS_WEBHOOK_DELIVERY_RETENTION_DAYS",
];

#[test]
fn serve_lists_every_setting() {
    let text = help(&["serve"]);
    for variable in SERVER_ONLY {
        assert!(text.contains(variable), "{variable} missing:\n{text}");
    }
}

#[test]
fn other_subcommands_list_only_what_they_read() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["migrate"],
            &[
                "RICS_CONFIG",
                "RICS_DATABASE_URL",
                "RICS_LOG",
                "RICS_LOG_FORMAT",
            ],
        ),
        (
            &["clients", "create"],
            &[
                "RICS_CONFIG",
                "RICS_DATABASE_URL",
                "RICS_MIGRATE_ON_START",
                "RICS_PUBLIC_URL",
                "--tenant",
            ],
        ),
        (
            &["users", "create"],
            &["RICS_CONFIG", "RICS_DATABASE_URL", "--username"],
        ),
        (&["keys", "rotate"], &["RICS_CONFIG", "RICS_DATABASE_URL"]),
        (
            &["automations", "load"],
            &[
                "RICS_CONFIG",
                "RICS_DATABASE_URL",
                "--tenant",
                "--all-tenants",
            ],
        ),
        (&["screen"], &["--list", "--threshold"]),
        (&["lists", "load"], &["SIGHUP", "RICS_SCREENING_LISTS"]),
    ];
    for (args, expected) in cases {
        let text = help(args);
        for wanted in *expected {
            assert!(text.contains(wanted), "{args:?}: {wanted} missing:\n{text}");
        }
        for variable in SERVER_ONLY.iter().filter(|v| !expected.contains(v)) {
            assert!(
                !text.contains(variable),
                "{args:?} --help lists {variable}, which it does not read:\n{text}"
            );
        }
    }
}
