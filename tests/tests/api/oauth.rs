//! The embedded authorization server, driven as a consumer drives it: the `oauth2`
//! crate as the client for both flows and refresh, then the API with the tokens; and
//! every refusal of RFC 6749 section 5.2 that a client can provoke.

use oauth2::basic::{BasicClient, BasicErrorResponseType};
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, RequestTokenError, Scope, TokenResponse, TokenUrl,
};
use rics::admin::{CreateClient, CreateUser};
use rics_domain::principal::Scope as RicsScope;
use rics_e2e::*;
use serde_json::{Value, json};

/// Where the test's client says it wants the browser back (nothing listens there: the
/// test reads the `Location` header instead of following it).
const CALLBACK: &str = "http://localhost:8765/callback";

/// The test user's password.
const PASSWORD: &str = "correct horse battery staple";

/// A blocking HTTP client for `oauth2` that does not follow redirects.
fn http() -> oauth2::reqwest::blocking::Client {
    oauth2::reqwest::blocking::Client::builder()
        .redirect(oauth2::reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Registers a client of the partner tenant as `rics clients create` does.
fn register_client(server: &Server, scope: &[RicsScope], public: bool) -> Value {
    server.register_client(CreateClient {
        tenant: server.partner().to_owned(),
        name: "Test app".into(),
        scopes: scope.to_vec(),
        redirect_uris: vec![CALLBACK.into()],
        public,
        client_id: None,
        settings: Default::default(),
    })
}

/// Registers the user `ada` of the partner tenant as `rics users create` does.
fn register_user(server: &Server, scope: &[RicsScope]) {
    server.register_user(
        CreateUser {
            tenant: server.partner().to_owned(),
            username: "Ada".into(),
            name: "Ada Lovelace".into(),
            scopes: scope.to_vec(),
            settings: Default::default(),
        },
        PASSWORD,
    );
}

type Client = BasicClient<
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
>;

/// An `oauth2` client of the server's endpoints for `registered`.
fn oauth_client(server: &Server, registered: &Value) -> Client {
    let mut client = BasicClient::new(ClientId::new(
        registered["clientId"].as_str().unwrap().to_owned(),
    ))
    .set_auth_uri(AuthUrl::new(server.url("/oauth2/authorize")).unwrap())
    .set_token_uri(TokenUrl::new(server.url("/oauth2/token")).unwrap())
    .set_redirect_uri(RedirectUrl::new(CALLBACK.into()).unwrap());
    if let Some(secret) = registered["clientSecret"].as_str() {
        client = client.set_client_secret(ClientSecret::new(secret.to_owned()));
    }
    client
}

/// The value of `name="{field}" value="..."` in the sign-in page.
fn hidden(page: &str, field: &str) -> Option<String> {
    let marker = format!("name=\"{field}\" value=\"");
    let start = page.find(&marker)? + marker.len();
    let end = page[start..].find('"')?;
    Some(page[start..start + end].replace("&amp;", "&"))
}

/// What a browser does between the authorization URL and the redirect back: opens the
/// sign-in page, keeps its CSRF cookie, submits the form with `password`. Returns the
/// final response (a redirect on success).
fn sign_in(server: &Server, authorize_url: &str, password: &str) -> Reply {
    let path = authorize_url.strip_prefix(&server.url("")).unwrap();
    let page = server.send(server.request_as(None, Method::GET, path));
    assert_eq!(page.status, 200, "the sign-in page: {}", page.text);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    let cookie = page
        .header("set-cookie")
        .and_then(|c| c.split(';').next())
        .unwrap()
        .to_owned();
    let mut form: Vec<(String, String)> = [
        "response_type",
        "client_id",
        "redirect_uri",
        "scope",
        "state",
        "code_challenge",
        "code_challenge_method",
        "csrf",
    ]
    .iter()
    .filter_map(|f| hidden(&page.text, f).map(|v| ((*f).to_owned(), v)))
    .collect();
    form.push(("username".into(), "ada".into()));
    form.push(("password".into(), password.into()));
    server.send(
        server
            .request_as(None, Method::POST, "/oauth2/authorize")
            .header("cookie", cookie)
            .form(&form),
    )
}

/// The query parameter `name` of a redirect's `Location`.
fn location_param(reply: &Reply, name: &str) -> Option<String> {
    let location = reply.header("location")?;
    let query = location.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| decode(value))
    })
}

fn decode(text: &str) -> String {
    let bytes = text.replace('+', " ").into_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 3 <= bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// Runs the authorization code flow up to the code: returns the code and the verifier.
fn authorize(server: &Server, client: &Client, scope: &str) -> (String, PkceCodeVerifier) {
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state) = client
        .authorize_url(CsrfToken::new_random)
        .add_scope(Scope::new(scope.into()))
        .set_pkce_challenge(challenge)
        .url();
    let back = sign_in(server, url.as_str(), PASSWORD);
    assert_eq!(back.status, 302, "signed in: {}", back.text);
    assert!(back.header("location").unwrap().starts_with(CALLBACK));
    assert_eq!(
        location_param(&back, "state").as_deref(),
        Some(state.secret().as_str())
    );
    (location_param(&back, "code").unwrap(), verifier)
}

/// The `error` of a refused token request.
fn refusal<T: std::fmt::Debug>(
    result: Result<
        T,
        RequestTokenError<
            oauth2::HttpClientError<oauth2::reqwest::Error>,
            oauth2::basic::BasicErrorResponse,
        >,
    >,
) -> BasicErrorResponseType {
    match result {
        Err(RequestTokenError::ServerResponse(response)) => response.error().clone(),
        other => panic!("expected an RFC 6749 error, got {other:?}"),
    }
}

/// The token endpoint's raw answer to `form` (no client authentication unless the
/// form carries it).
fn token_request(server: &Server, form: &[(&str, &str)]) -> Reply {
    server.send(
        server
            .request_as(None, Method::POST, "/oauth2/token")
            .form(form),
    )
}

/// The `kid` in a JWT's header.
fn kid_of(token: &str) -> String {
    use base64::Engine;
    let header = token.split('.').next().unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(header)
        .unwrap();
    let header: Value = serde_json::from_slice(&bytes).unwrap();
    header["kid"].as_str().unwrap().to_owned()
}

/// The key ids a server publishes.
fn published(server: &Server) -> Vec<String> {
    let jwks = server
        .send(server.request_as(None, Method::GET, "/.well-known/jwks.json"))
        .ok();
    array(&jwks["keys"])
        .iter()
        .map(|k| k["kid"].as_str().unwrap().to_owned())
        .collect()
}

on_both_backends! {
    /// `rics keys rotate` makes a new signing key; a replica started afterwards signs
    /// with it and publishes both; tokens of the old key stay valid everywhere and the
    /// new key's tokens are accepted by a replica that has not reloaded yet.
    fn key_rotation_keeps_old_tokens_valid(server) {
        let old_token = server.token().to_owned();
        let old_kid = kid_of(&old_token);
        assert_eq!(published(&server), vec![old_kid.clone()]);
        let rotated = server.rotate_keys();
        let new_kid = rotated["signingKey"].as_str().unwrap().to_owned();
        assert_ne!(new_kid, old_kid);
        let mut listed: Vec<String> = array(&rotated["publishedKeys"]).iter().map(|k| k.as_str().unwrap().to_owned()).collect();
        listed.sort();
        let mut both = vec![old_kid.clone(), new_kid.clone()];
        both.sort();
        assert_eq!(listed, both);

        let replica = server.sibling(|_| {});
        assert_eq!(kid_of(replica.token()), new_kid, "a replica started after the rotation signs with the new key");
        let mut seen = published(&replica);
        seen.sort();
        assert_eq!(seen, both, "the previous key stays published");
        server.send(server.request_as(Some(replica.token()), Method::GET, ENTITIES)).ok();
        replica.send(replica.request_as(Some(&old_token), Method::GET, ENTITIES)).ok();
        server.get(ENTITIES).ok();
        drop(replica);
    }

    /// Discovery and the key set describe the embedded issuer; the key set holds public
    /// keys only.
    fn discovery_describes_the_issuer(server) {
        let document = server.send(server.request_as(None, Method::GET, "/.well-known/openid-configuration")).ok();
        assert_eq!(document["issuer"], ISSUER);
        assert_eq!(document["token_endpoint"], format!("{ISSUER}/oauth2/token"));
        assert_eq!(document["authorization_endpoint"], format!("{ISSUER}/oauth2/authorize"));
        assert_eq!(document["jwks_uri"], format!("{ISSUER}/.well-known/jwks.json"));
        assert_eq!(document["code_challenge_methods_supported"], json!(["S256"]));
        let jwks = server.send(server.request_as(None, Method::GET, "/.well-known/jwks.json")).ok();
        let keys = jwks["keys"].as_array().unwrap();
        assert!(!keys.is_empty());
        for key in keys {
            assert!(key["kid"].as_str().is_some_and(|k| !k.is_empty()), "{key}");
            assert_eq!(key["kty"], "OKP");
            assert!(key.get("d").is_none(), "no private part: {key}");
        }
    }

    /// Client credentials with the `oauth2` crate, then the API with the token: the
    /// client acts for its tenant with the scopes it asked for.
    fn client_credentials_flow(server) {
        let registered = register_client(&server, &[RicsScope::Read, RicsScope::Write], false);
        let client = oauth_client(&server, &registered);
        let token = client
            .exchange_client_credentials()
            .add_scope(Scope::new("rics.read".into()))
            .add_scope(Scope::new("rics.write".into()))
            .request(&http())
            .unwrap();
        assert!(token.refresh_token().is_none(), "no refresh token for client credentials");
        assert!(token.expires_in().is_some_and(|d| d.as_secs() > 60));
        let access = token.access_token().secret().clone();
        let created = server.send(server.request_as(Some(&access), Method::POST, ENTITIES).json(&person("Jane Doe"))).ok();
        let listed = server.send(server.request_as(Some(&access), Method::GET, ENTITIES)).ok();
        assert_eq!(names(&listed["entities"]), vec![created["name"].as_str().unwrap().to_owned()]);
        let tenant = server.send(server.request_as(Some(&access), Method::GET, "/v1alpha/tenants/current")).ok();
        assert_eq!(tenant["name"], server.partner());

        // Without a scope parameter the client gets every scope it has, not more.
        let all = client.exchange_client_credentials().request(&http()).unwrap();
        let granted: Vec<String> = all.scopes().unwrap().iter().map(|s| s.to_string()).collect();
        assert_eq!(granted, vec!["rics.read", "rics.write"]);
        let admin = server.send(server.request_as(Some(all.access_token().secret()), Method::POST, "/v1alpha/tenants").json(&json!({"displayName": "X"})));
        admin.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");
        assert_eq!(admin.metadata("requiredScope"), Some("rics.admin"));

        // A scope beyond the client's is refused.
        let beyond = client.exchange_client_credentials().add_scope(Scope::new("rics.admin".into())).request(&http());
        assert_eq!(refusal(beyond), BasicErrorResponseType::InvalidScope);
        let unknown = client.exchange_client_credentials().add_scope(Scope::new("rics.everything".into())).request(&http());
        assert_eq!(refusal(unknown), BasicErrorResponseType::InvalidScope);
    }

    /// The authorization code flow with PKCE, as a web application runs it with the
    /// `oauth2` crate: the user signs in on the server's page, the code comes back to the
    /// redirect URI with the state, the code buys tokens, the access token calls the API
    /// as the user, and the refresh token rotates.
    fn authorization_code_flow(server) {
        let registered = register_client(&server, &[RicsScope::Read, RicsScope::Write], false);
        register_user(&server, &[RicsScope::Read, RicsScope::Write]);
        let client = oauth_client(&server, &registered);
        let (code, verifier) = authorize(&server, &client, "rics.write");
        let tokens = client
            .exchange_code(AuthorizationCode::new(code.clone()))
            .set_pkce_verifier(verifier)
            .request(&http())
            .unwrap();
        let access = tokens.access_token().secret().clone();
        let created = server.send(server.request_as(Some(&access), Method::POST, ENTITIES).json(&person("Jane Doe"))).ok();
        assert!(created["name"].as_str().unwrap().starts_with("entities/"));
        let read = server.send(server.request_as(Some(&access), Method::GET, ENTITIES));
        read.error(403, "PERMISSION_DENIED", "INSUFFICIENT_SCOPE");

        // The code is single-use.
        let (_, unused_verifier) = PkceCodeChallenge::new_random_sha256();
        let again = client.exchange_code(AuthorizationCode::new(code)).set_pkce_verifier(unused_verifier).request(&http());
        assert_eq!(refusal(again), BasicErrorResponseType::InvalidGrant);

        // Refresh rotates: the new refresh token works, the old one is refused and
        // revokes its whole family.
        let first = tokens.refresh_token().unwrap().clone();
        let rotated = client.exchange_refresh_token(&first).request(&http()).unwrap();
        let second = rotated.refresh_token().unwrap().clone();
        assert_ne!(first.secret(), second.secret());
        server.send(server.request_as(Some(rotated.access_token().secret()), Method::POST, ENTITIES).json(&person("Ann Lee"))).ok();
        let replayed = client.exchange_refresh_token(&first).request(&http());
        assert_eq!(refusal(replayed), BasicErrorResponseType::InvalidGrant);
        let revoked = client.exchange_refresh_token(&second).request(&http());
        assert_eq!(refusal(revoked), BasicErrorResponseType::InvalidGrant, "reuse revokes the family");
    }

    /// A public client (no secret) runs the same flow with PKCE alone, and cannot use
    /// client credentials.
    fn public_clients_use_pkce(server) {
        let registered = register_client(&server, &[RicsScope::Read], true);
        assert!(registered["clientSecret"].is_null());
        register_user(&server, &[RicsScope::Read]);
        let client = oauth_client(&server, &registered);
        let (code, verifier) = authorize(&server, &client, "rics.read");
        let tokens = client.exchange_code(AuthorizationCode::new(code)).set_pkce_verifier(verifier).request(&http()).unwrap();
        server.send(server.request_as(Some(tokens.access_token().secret()), Method::GET, ENTITIES)).ok();
        let refused = token_request(&server, &[("grant_type", "client_credentials"), ("client_id", registered["clientId"].as_str().unwrap())]);
        assert!(refused.status == 400 || refused.status == 401, "{}", refused.text);
        assert!(matches!(refused.json["error"].as_str(), Some("unauthorized_client" | "invalid_client")), "{}", refused.text);
    }

    /// Each refusal of the authorization code flow gets its RFC 6749 error, and none
    /// yields a token.
    fn authorization_code_refusals(server) {
        let registered = register_client(&server, &[RicsScope::Read], false);
        register_user(&server, &[RicsScope::Read]);
        let client = oauth_client(&server, &registered);
        let client_id = registered["clientId"].as_str().unwrap().to_owned();

        // A PKCE verifier that does not match the challenge.
        let (code, _) = authorize(&server, &client, "rics.read");
        let wrong = PkceCodeVerifier::new("x".repeat(64));
        let mismatch = client.exchange_code(AuthorizationCode::new(code.clone())).set_pkce_verifier(wrong).request(&http());
        assert_eq!(refusal(mismatch), BasicErrorResponseType::InvalidGrant);

        // A redirect URI other than the authorization request's.
        let (code, verifier) = authorize(&server, &client, "rics.read");
        let elsewhere = client
            .clone()
            .set_redirect_uri(RedirectUrl::new("http://localhost:8765/other".into()).unwrap())
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(verifier)
            .request(&http());
        assert_eq!(refusal(elsewhere), BasicErrorResponseType::InvalidGrant);

        // An expired code (its lifetime is short; here its expiry is moved into the past).
        let (code, verifier) = authorize(&server, &client, "rics.read");
        server.execute_sql("UPDATE authorization_codes SET expire_time = 0");
        let expired = client.exchange_code(AuthorizationCode::new(code)).set_pkce_verifier(verifier).request(&http());
        assert_eq!(refusal(expired), BasicErrorResponseType::InvalidGrant);

        // The wrong client secret: 401 invalid_client with a Basic challenge.
        let (code, verifier) = authorize(&server, &client, "rics.read");
        let impostor = client.clone().set_client_secret(ClientSecret::new("not-the-secret-at-all".into()));
        let result = impostor.exchange_code(AuthorizationCode::new(code)).set_pkce_verifier(verifier).request(&http());
        assert_eq!(refusal(result), BasicErrorResponseType::InvalidClient);
        let raw = server.send(
            server.request_as(None, Method::POST, "/oauth2/token")
                .basic_auth(&client_id, Some("not-the-secret-at-all"))
                .form(&[("grant_type", "client_credentials")]),
        );
        assert_eq!(raw.status, 401, "{}", raw.text);
        assert_eq!(raw.json["error"], "invalid_client");
        assert!(raw.header("www-authenticate").unwrap().starts_with("Basic"));
        assert_eq!(raw.header("cache-control"), Some("no-store"));

        // A grant type the server does not know, a JSON body, no grant type.
        let unsupported = token_request(&server, &[("grant_type", "password"), ("client_id", &client_id)]);
        assert_eq!(unsupported.status, 400);
        assert_eq!(unsupported.json["error"], "unsupported_grant_type");
        let json_body = server.send(server.request_as(None, Method::POST, "/oauth2/token").json(&json!({"grant_type": "client_credentials"})));
        assert_eq!(json_body.json["error"], "invalid_request", "{}", json_body.text);
        let nothing = token_request(&server, &[]);
        assert_eq!(nothing.json["error"], "invalid_request", "{}", nothing.text);
    }

    /// The sign-in page refuses what it cannot trust: an unregistered redirect URI or
    /// unknown client is never redirected to; a missing PKCE challenge goes back to the
    /// client as an error; a wrong password shows the page again; a form without its
    /// CSRF cookie is refused.
    fn sign_in_refusals(server) {
        let registered = register_client(&server, &[RicsScope::Read], false);
        register_user(&server, &[RicsScope::Read]);
        let client_id = registered["clientId"].as_str().unwrap();
        let (challenge, _) = PkceCodeChallenge::new_random_sha256();
        let base = [
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", CALLBACK),
            ("scope", "rics.read"),
            ("state", "s1"),
            ("code_challenge", challenge.as_str()),
            ("code_challenge_method", "S256"),
        ];
        let with = |changes: &[(&str, Option<&str>)]| {
            let mut pairs: Vec<(&str, &str)> = base.to_vec();
            for (name, value) in changes {
                pairs.retain(|(n, _)| n != name);
                if let Some(value) = value {
                    pairs.push((name, value));
                }
            }
            format!("/oauth2/authorize{}", query(&pairs))
        };
        let page = |path: &str| server.send(server.request_as(None, Method::GET, path));

        let foreign = page(&with(&[("redirect_uri", Some("https://evil.example/cb"))]));
        assert_eq!(foreign.status, 400, "{}", foreign.text);
        assert!(foreign.header("location").is_none(), "never redirected to an unregistered URI");
        let unknown = page(&with(&[("client_id", Some("nobody"))]));
        assert_eq!(unknown.status, 400);
        assert!(unknown.header("location").is_none());

        let no_pkce = page(&with(&[("code_challenge", None)]));
        assert_eq!(no_pkce.status, 302, "{}", no_pkce.text);
        assert_eq!(location_param(&no_pkce, "error").as_deref(), Some("invalid_request"));
        assert_eq!(location_param(&no_pkce, "state").as_deref(), Some("s1"));
        let plain = page(&with(&[("code_challenge_method", Some("plain"))]));
        assert_eq!(location_param(&plain, "error").as_deref(), Some("invalid_request"));
        let not_code = page(&with(&[("response_type", Some("token"))]));
        assert_eq!(location_param(&not_code, "error").as_deref(), Some("unsupported_response_type"));

        let wrong = sign_in(&server, &server.url(&with(&[])), "not the password");
        assert_eq!(wrong.status, 200, "the page again: {}", wrong.text);
        assert!(wrong.text.contains("Wrong username or password"));
        assert!(wrong.header("location").is_none());

        let forged = server.send(
            server.request_as(None, Method::POST, "/oauth2/authorize")
                .form(&[base.as_slice(), &[("csrf", "guess"), ("username", "ada"), ("password", PASSWORD)]].concat()),
        );
        assert_eq!(forged.status, 400, "{}", forged.text);
        assert!(forged.header("location").is_none());
    }

    /// A refresh request that is refused leaves the refresh token usable: a scope
    /// wider than the grant or unknown, another client, a wrong secret. The retry is
    /// not taken for a reuse, and the family keeps rotating.
    fn a_refused_refresh_leaves_the_token_usable(server) {
        let registered = register_client(&server, &[RicsScope::Read, RicsScope::Write], false);
        let other = register_client(&server, &[RicsScope::Read, RicsScope::Write], false);
        register_user(&server, &[RicsScope::Read, RicsScope::Write]);
        let client = oauth_client(&server, &registered);
        let (code, verifier) = authorize(&server, &client, "rics.read");
        let tokens = client.exchange_code(AuthorizationCode::new(code)).set_pkce_verifier(verifier).request(&http()).unwrap();
        let first = tokens.refresh_token().unwrap().clone();

        let wider = client.exchange_refresh_token(&first).add_scope(Scope::new("rics.write".into())).request(&http());
        assert_eq!(refusal(wider), BasicErrorResponseType::InvalidScope);
        let unknown = client.exchange_refresh_token(&first).add_scope(Scope::new("rics.everything".into())).request(&http());
        assert_eq!(refusal(unknown), BasicErrorResponseType::InvalidScope);
        let elsewhere = oauth_client(&server, &other).exchange_refresh_token(&first).request(&http());
        assert_eq!(refusal(elsewhere), BasicErrorResponseType::InvalidGrant);
        let impostor = client.clone().set_client_secret(ClientSecret::new("not-the-secret-at-all".into()));
        assert_eq!(refusal(impostor.exchange_refresh_token(&first).request(&http())), BasicErrorResponseType::InvalidClient);

        let rotated = client.exchange_refresh_token(&first).request(&http()).unwrap();
        assert_eq!(rotated.scopes().unwrap().iter().map(|s| s.to_string()).collect::<Vec<_>>(), vec!["rics.read"]);
        server.send(server.request_as(Some(rotated.access_token().secret()), Method::GET, ENTITIES)).ok();
        let second = rotated.refresh_token().unwrap().clone();
        let third = client.exchange_refresh_token(&second).request(&http()).unwrap();
        assert!(third.refresh_token().is_some(), "the family was not revoked");
    }

    /// A code exchange refused for the request rather than the code (a wrong PKCE
    /// verifier, another redirect URI, another client, a wrong secret) leaves the code
    /// usable; the right exchange then succeeds, once.
    fn a_refused_code_exchange_leaves_the_code_usable(server) {
        let registered = register_client(&server, &[RicsScope::Read], false);
        let other = register_client(&server, &[RicsScope::Read], false);
        register_user(&server, &[RicsScope::Read]);
        let client = oauth_client(&server, &registered);
        let (code, verifier) = authorize(&server, &client, "rics.read");
        let exchange = |client: &Client, verifier: PkceCodeVerifier| {
            client.exchange_code(AuthorizationCode::new(code.clone())).set_pkce_verifier(verifier).request(&http())
        };

        let wrong = exchange(&client, PkceCodeVerifier::new("x".repeat(64)));
        assert_eq!(refusal(wrong), BasicErrorResponseType::InvalidGrant);
        let elsewhere = client.clone().set_redirect_uri(RedirectUrl::new("http://localhost:8765/other".into()).unwrap());
        let moved = exchange(&elsewhere, PkceCodeVerifier::new(verifier.secret().clone()));
        assert_eq!(refusal(moved), BasicErrorResponseType::InvalidGrant);
        let stranger = exchange(&oauth_client(&server, &other), PkceCodeVerifier::new(verifier.secret().clone()));
        assert_eq!(refusal(stranger), BasicErrorResponseType::InvalidGrant);
        let impostor = client.clone().set_client_secret(ClientSecret::new("not-the-secret-at-all".into()));
        let forged = exchange(&impostor, PkceCodeVerifier::new(verifier.secret().clone()));
        assert_eq!(refusal(forged), BasicErrorResponseType::InvalidClient);

        let tokens = exchange(&client, PkceCodeVerifier::new(verifier.secret().clone())).unwrap();
        server.send(server.request_as(Some(tokens.access_token().secret()), Method::GET, ENTITIES)).ok();
        let again = exchange(&client, verifier);
        assert_eq!(refusal(again), BasicErrorResponseType::InvalidGrant, "a code buys tokens once");
    }

    /// A body over the OAuth endpoints' limit, with its length declared or in chunks:
    /// the token endpoint answers an RFC 6749 error (400 `invalid_request`, JSON, not
    /// cached); the sign-in form answers its error page (400 HTML), never a redirect.
    /// The endpoints work afterwards.
    fn oversized_oauth_bodies(server) {
        let form = format!("grant_type=client_credentials&scope={}", "x".repeat(2 * 1024 * 1024));
        let declared = |path: &str| {
            server.send(
                server.request_as(None, Method::POST, path)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(form.clone()),
            )
        };
        let chunked = |path: &str| {
            let chunks: Vec<Result<Vec<u8>, std::io::Error>> = form.as_bytes().chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
            server.send(
                server.request_as(None, Method::POST, path)
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(reqwest::blocking::Body::new(ChunkReader::new(chunks))),
            )
        };
        for reply in [declared("/oauth2/token"), chunked("/oauth2/token")] {
            assert_eq!(reply.status, 400, "{}", reply.text);
            assert!(reply.header("content-type").unwrap().starts_with("application/json"), "{:?}", reply.header("content-type"));
            assert_eq!(reply.json["error"], "invalid_request", "{}", reply.text);
            assert!(reply.json["error_description"].as_str().unwrap().contains("65536"), "{}", reply.text);
            assert_eq!(reply.header("cache-control"), Some("no-store"));
        }
        for reply in [declared("/oauth2/authorize"), chunked("/oauth2/authorize")] {
            assert_eq!(reply.status, 400, "{}", reply.text);
            assert!(reply.header("content-type").unwrap().starts_with("text/html"));
            assert!(reply.header("location").is_none());
            assert!(reply.text.contains("Sign-in refused"), "{}", reply.text);
        }
        let token = token_request(&server, &[("grant_type", "client_credentials"), ("client_id", ADMIN_CLIENT_ID), ("client_secret", ADMIN_CLIENT_SECRET)]);
        assert_eq!(token.status, 200, "{}", token.text);
    }
}
