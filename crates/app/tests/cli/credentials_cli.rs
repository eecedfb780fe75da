//! The built `rics` binary as operators run it: first-start credentials (printed once,
//! or fixed by the environment), `rics clients create` and `rics users create`, both
//! OAuth flows against the running server, and the proof that no secret reaches the
//! log, even at the `trace` level.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "a test: failing loudly is the point"
)]

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::{Serving, http, rics};

/// A client credentials token request; returns the status and the body.
fn client_credentials(server: &Serving, id: &str, secret: &str) -> (u16, Value) {
    let response = http()
        .post(server.url("/oauth2/token"))
        .basic_auth(id, Some(secret))
        .form(&[("grant_type", "client_credentials")])
        .send()
        .unwrap();
    (response.status().as_u16(), response.json().unwrap())
}

/// Runs a `rics` subcommand to completion; returns its parsed standard output and its
/// standard error.
fn run(mut command: Command, stdin: &str) -> (Value, String) {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (serde_json::from_str(&stdout).unwrap(), stderr)
}

/// The value after `label` on a line of `text`.
fn line_value<'a>(text: &'a str, label: &str) -> Option<&'a str> {
    text.lines()
        .find_map(|line| line.trim().strip_prefix(label))
        .map(str::trim)
}

/// Fails naming each secret that appears in `log`.
fn assert_absent(log: &str, secrets: &[(&str, &str)]) {
    assert!(
        log.lines().count() > 20,
        "the log is too short to prove anything:\n{log}"
    );
    let leaked: Vec<&str> = secrets
        .iter()
        .filter(|(_, secret)| !secret.is_empty() && log.contains(secret))
        .map(|(what, _)| *what)
        .collect();
    assert!(leaked.is_empty(), "the log shows {leaked:?}:\n{log}");
}

/// A first start without chosen credentials prints a generated admin secret once, on
/// standard output only; it works; a second start prints nothing.
#[test]
fn first_start_prints_generated_credentials_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = Serving::start(dir.path(), &[]);
    std::thread::sleep(Duration::from_millis(300));
    let printed = server.stdout.lock().unwrap().clone();
    let client_id = line_value(&printed, "admin client id:")
        .expect("the client id is printed")
        .to_owned();
    let secret = line_value(&printed, "admin client secret:")
        .expect("the secret is printed")
        .to_owned();
    assert!(printed.contains("tenants/"), "{printed}");
    let (status, body) = client_credentials(&server, &client_id, &secret);
    assert_eq!(status, 200, "{body}");
    let token = body["access_token"].as_str().unwrap().to_owned();
    let tenant: Value = http()
        .get(server.url("/v1alpha/tenants/current"))
        .bearer_auth(&token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(tenant["tenantType"], "PARTNER", "{tenant}");
    let (_, log) = server.stop();
    assert_absent(
        &log,
        &[("the admin secret", &secret), ("the token", &token)],
    );

    let again = Serving::start(dir.path(), &[]);
    std::thread::sleep(Duration::from_millis(300));
    let (printed, _) = again.stop();
    assert!(
        !printed.contains("admin client"),
        "a second start prints nothing: {printed}"
    );
}

/// Credentials fixed by the environment, more clients and users made by the commands,
/// both flows and a refresh, wrong secrets and passwords: nothing secret is logged.
#[test]
fn no_secret_reaches_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let admin_secret = "env-chosen-admin-secret-7f3a";
    let admin_password = "env-chosen-admin-password-91c2";
    let server = Serving::start(
        dir.path(),
        &[
            ("RICS_BOOTSTRAP_CLIENT_ID", "ops-admin"),
            ("RICS_BOOTSTRAP_CLIENT_SECRET", admin_secret),
            ("RICS_BOOTSTRAP_USER", "root-admin"),
            ("RICS_BOOTSTRAP_PASSWORD", admin_password),
        ],
    );
    let (status, body) = client_credentials(&server, "ops-admin", admin_secret);
    assert_eq!(status, 200, "{body}");
    let admin_token = body["access_token"].as_str().unwrap().to_owned();
    let (status, _) = client_credentials(&server, "ops-admin", "wrong-secret-guess-0000");
    assert_eq!(status, 401);
    let tenant: Value = http()
        .get(server.url("/v1alpha/tenants/current"))
        .bearer_auth(&admin_token)
        .send()
        .unwrap()
        .json()
        .unwrap();
    let tenant = tenant["name"].as_str().unwrap().to_owned();
    // A secret sent where a token belongs must not be echoed either.
    let misused = http()
        .get(server.url("/v1alpha/entities"))
        .bearer_auth(admin_secret)
        .send()
        .unwrap();
    assert_eq!(misused.status().as_u16(), 401);

    // More credentials, made by the operator's commands while the server runs.
    let mut create_client = rics(dir.path());
    create_client.args([
        "clients",
        "create",
        "--tenant",
        &tenant,
        "--name",
        "Web app",
        "--scope",
        "rics.read",
        "--redirect-uri",
        "http://localhost:8765/cb",
    ]);
    let (client, client_stderr) = run(create_client, "");
    let client_id = client["clientId"].as_str().unwrap().to_owned();
    let client_secret = client["clientSecret"].as_str().unwrap().to_owned();
    assert_eq!(client["tenant"], tenant.as_str());
    let user_password = "cli-user-password-4b8e";
    let mut create_user = rics(dir.path());
    create_user.args([
        "users",
        "create",
        "--tenant",
        &tenant,
        "--username",
        "ada",
        "--name",
        "Ada Lovelace",
        "--scope",
        "rics.read",
    ]);
    let (user, user_stderr) = run(create_user, &format!("{user_password}\n"));
    assert_eq!(user["username"], "ada");
    let mut duplicate = rics(dir.path());
    duplicate
        .args([
            "users",
            "create",
            "--tenant",
            &tenant,
            "--username",
            "ada",
            "--name",
            "Ada",
            "--scope",
            "rics.read",
        ])
        .env("RICS_USER_PASSWORD", user_password);
    let refused = duplicate.output().unwrap();
    assert!(!refused.status.success(), "a taken username is refused");

    // The authorization code flow, by hand: page, form, code, tokens, refresh.
    let verifier = "a-pkce-verifier-of-forty-three-characters-or-more-0123";
    let challenge = {
        use base64::Engine;
        use sha2::Digest;
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(sha2::Sha256::digest(verifier.as_bytes()))
    };
    let params = [
        ("response_type", "code"),
        ("client_id", client_id.as_str()),
        ("redirect_uri", "http://localhost:8765/cb"),
        ("scope", "rics.read"),
        ("state", "xyz"),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let page = http()
        .get(server.url("/oauth2/authorize"))
        .query(&params)
        .send()
        .unwrap();
    assert_eq!(page.status().as_u16(), 200);
    let cookie = page.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let csrf = cookie.split_once('=').unwrap().1.to_owned();
    let submit = |password: &str| {
        let mut form: Vec<(&str, &str)> = params.to_vec();
        form.extend([
            ("csrf", csrf.as_str()),
            ("username", "ada"),
            ("password", password),
        ]);
        http()
            .post(server.url("/oauth2/authorize"))
            .header("cookie", &cookie)
            .form(&form)
            .send()
            .unwrap()
    };
    assert_eq!(submit("a-wrong-password-guess").status().as_u16(), 200);
    let back = submit(user_password);
    assert_eq!(back.status().as_u16(), 302);
    let location = back.headers()["location"].to_str().unwrap().to_owned();
    let code = location
        .split(['?', '&'])
        .find_map(|p| p.strip_prefix("code="))
        .unwrap()
        .to_owned();
    let tokens: Value = http()
        .post(server.url("/oauth2/token"))
        .basic_auth(&client_id, Some(&client_secret))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", "http://localhost:8765/cb"),
            ("code_verifier", verifier),
        ])
        .send()
        .unwrap()
        .json()
        .unwrap();
    let user_token = tokens["access_token"].as_str().unwrap().to_owned();
    let refresh = tokens["refresh_token"].as_str().unwrap().to_owned();
    let refreshed: Value = http()
        .post(server.url("/oauth2/token"))
        .basic_auth(&client_id, Some(&client_secret))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
        ])
        .send()
        .unwrap()
        .json()
        .unwrap();
    let new_refresh = refreshed["refresh_token"].as_str().unwrap().to_owned();
    let listed = http()
        .get(server.url("/v1alpha/entities"))
        .bearer_auth(&user_token)
        .send()
        .unwrap();
    assert_eq!(listed.status().as_u16(), 200);

    let (printed, log) = server.stop();
    assert!(
        !printed.contains(admin_secret),
        "a chosen secret is not printed: {printed}"
    );
    let everything = format!("{log}\n{client_stderr}\n{user_stderr}");
    assert_absent(
        &everything,
        &[
            ("the bootstrap client secret", admin_secret),
            ("the bootstrap password", admin_password),
            ("the admin token", &admin_token),
            ("the new client's secret", &client_secret),
            ("the user's password", user_password),
            ("the authorization code", &code),
            ("the CSRF token", &csrf),
            ("the user's access token", &user_token),
            ("the refresh token", &refresh),
            ("the rotated refresh token", &new_refresh),
        ],
    );
}
