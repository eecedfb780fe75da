//! Unit tests of the authorization server over mocked ports.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::authorization::{
    AuthorizationService, AuthorizeError, AuthorizeRequest, OAuthErrorCode, SignInError,
    TokenRequest, pkce_matches, token_hash, with_query,
};
use super::model::{AccessToken, AuthorizationCode, Client, RefreshToken, Rotation, User};
use super::ports::{MockIdentityRepository, MockSecretHasher, MockTokenSigner};
use crate::id::MockIdGenerator;
use crate::principal::{Scope, TenantId};
use crate::time::{MockClock, Timestamp};

/// RFC 7636 appendix B.
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-22T10:00:00Z").unwrap()
}

fn client(id: &str, secret: bool) -> Client {
    Client {
        client_id: id.into(),
        tenant: TenantId::new("t1"),
        display_name: format!("{id} app"),
        secret_hash: secret.then(|| format!("hash-of-{id}-secret")),
        scopes: BTreeSet::from([Scope::Read, Scope::Write]),
        redirect_uris: vec!["https://app.example/callback".into()],
        create_time: now(),
    }
}

fn user(tenant: &str) -> User {
    User {
        user_id: "u1".into(),
        tenant: TenantId::new(tenant),
        username: "ada".into(),
        display_name: "Ada".into(),
        password_hash: "hash-of-password".into(),
        scopes: BTreeSet::from([Scope::Read]),
        create_time: now(),
    }
}

/// A hasher whose hash of `s` is `hash-of-s`.
fn hasher() -> MockSecretHasher {
    let mut hasher = MockSecretHasher::new();
    hasher
        .expect_verify()
        .returning(|secret, hash| hash == format!("hash-of-{secret}"));
    hasher
}

fn signer() -> MockTokenSigner {
    let mut signer = MockTokenSigner::new();
    signer.expect_sign().returning(|claims, _| {
        Ok(AccessToken {
            token: format!("jwt:{}:{}", claims.subject, claims.tenant),
            expires_in: 900,
        })
    });
    signer
}

fn service(identity: MockIdentityRepository) -> AuthorizationService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "family-1".into());
    ids.expect_secret().returning(|| Ok("fresh-secret".into()));
    AuthorizationService::new(
        Arc::new(identity),
        Arc::new(hasher()),
        Arc::new(signer()),
        Arc::new(clock),
        Arc::new(ids),
    )
}

fn with_clients(identity: &mut MockIdentityRepository) {
    identity.expect_find_client().returning(|id| {
        Ok(match id {
            "confidential" => Some(client("confidential", true)),
            "public" => Some(client("public", false)),
            _ => None,
        })
    });
}

fn credentials(secret: &str) -> TokenRequest {
    TokenRequest {
        grant_type: Some("client_credentials".into()),
        client_id: Some("confidential".into()),
        client_secret: Some(secret.into()),
        ..TokenRequest::default()
    }
}

#[tokio::test]
async fn client_credentials_issue_a_token_with_the_client_scopes() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    let service = service(identity);
    let response = service
        .token(&credentials("confidential-secret"))
        .await
        .unwrap();
    assert_eq!(response.access_token, "jwt:confidential:t1");
    assert_eq!(response.scope, "rics.read rics.write");
    assert!(response.refresh_token.is_none());
    let mut narrower = credentials("confidential-secret");
    narrower.scope = Some("rics.read".into());
    assert_eq!(service.token(&narrower).await.unwrap().scope, "rics.read");
}

#[tokio::test]
async fn client_credentials_refusals() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    let service = service(identity);
    let code = |request: TokenRequest| {
        let service = &service;
        async move { service.token(&request).await.unwrap_err().code }
    };
    assert_eq!(
        code(credentials("wrong")).await,
        OAuthErrorCode::InvalidClient
    );
    let mut unknown = credentials("x");
    unknown.client_id = Some("nobody".into());
    assert_eq!(code(unknown).await, OAuthErrorCode::InvalidClient);
    let mut admin = credentials("confidential-secret");
    admin.scope = Some("rics.admin".into());
    assert_eq!(code(admin).await, OAuthErrorCode::InvalidScope);
    let mut public = credentials("x");
    public.client_id = Some("public".into());
    public.client_secret = None;
    assert_eq!(code(public).await, OAuthErrorCode::UnauthorizedClient);
    let mut other = credentials("confidential-secret");
    other.grant_type = Some("password".into());
    assert_eq!(code(other).await, OAuthErrorCode::UnsupportedGrantType);
    let mut none = credentials("confidential-secret");
    none.grant_type = None;
    assert_eq!(code(none).await, OAuthErrorCode::InvalidRequest);
}

fn code_request(verifier: &str, redirect: &str) -> TokenRequest {
    TokenRequest {
        grant_type: Some("authorization_code".into()),
        client_id: Some("public".into()),
        code: Some("the-code".into()),
        redirect_uri: Some(redirect.into()),
        code_verifier: Some(verifier.into()),
        ..TokenRequest::default()
    }
}

fn stored_code(client_id: &str) -> AuthorizationCode {
    AuthorizationCode {
        code_hash: token_hash("the-code"),
        client_id: client_id.into(),
        tenant: TenantId::new("t1"),
        user_id: "u1".into(),
        display_name: "Ada".into(),
        redirect_uri: "https://app.example/callback".into(),
        code_challenge: CHALLENGE.into(),
        scopes: BTreeSet::from([Scope::Read]),
        expire_time: now(),
    }
}

#[tokio::test]
async fn an_authorization_code_with_the_right_verifier_gives_tokens() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    identity
        .expect_find_code()
        .withf(|hash, _| hash == token_hash("the-code"))
        .returning(|_, _| Ok(Some(stored_code("public"))));
    identity
        .expect_exchange_code()
        .withf(|hash, _, first| {
            hash == token_hash("the-code")
                && first.family_id == "family-1"
                && first.subject == "u1"
                && first.token_hash == token_hash("fresh-secret")
        })
        .times(1)
        .returning(|_, _, _| Ok(true));
    let response = service(identity)
        .token(&code_request(VERIFIER, "https://app.example/callback"))
        .await
        .unwrap();
    assert_eq!(response.access_token, "jwt:u1:t1");
    assert_eq!(response.refresh_token.as_deref(), Some("fresh-secret"));
    assert_eq!(response.scope, "rics.read");
}

#[tokio::test]
async fn authorization_code_refusals_spend_nothing() {
    for (request, stored, why) in [
        (
            code_request(
                "wrong-verifier-wrong-verifier-wrong-verifier-x",
                "https://app.example/callback",
            ),
            Some(stored_code("public")),
            "verifier",
        ),
        (
            code_request(VERIFIER, "https://evil.example/callback"),
            Some(stored_code("public")),
            "redirect",
        ),
        (
            code_request(VERIFIER, "https://app.example/callback"),
            Some(stored_code("confidential")),
            "other client",
        ),
        (
            code_request(VERIFIER, "https://app.example/callback"),
            None,
            "used or expired",
        ),
    ] {
        let mut identity = MockIdentityRepository::new();
        with_clients(&mut identity);
        identity
            .expect_find_code()
            .returning(move |_, _| Ok(stored.clone()));
        identity.expect_exchange_code().never();
        let error = service(identity).token(&request).await.unwrap_err();
        assert_eq!(error.code, OAuthErrorCode::InvalidGrant, "{why}");
    }
}

#[tokio::test]
async fn a_code_exchanged_meanwhile_is_refused() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    identity
        .expect_find_code()
        .returning(|_, _| Ok(Some(stored_code("public"))));
    identity
        .expect_exchange_code()
        .times(1)
        .returning(|_, _, _| Ok(false));
    let error = service(identity)
        .token(&code_request(VERIFIER, "https://app.example/callback"))
        .await
        .unwrap_err();
    assert_eq!(error.code, OAuthErrorCode::InvalidGrant);
}

fn refresh_request(scope: Option<&str>) -> TokenRequest {
    TokenRequest {
        grant_type: Some("refresh_token".into()),
        client_id: Some("public".into()),
        refresh_token: Some("old-refresh".into()),
        scope: scope.map(str::to_owned),
        ..TokenRequest::default()
    }
}

fn old_refresh() -> RefreshToken {
    RefreshToken {
        token_hash: token_hash("old-refresh"),
        family_id: "family-0".into(),
        client_id: "public".into(),
        tenant: TenantId::new("t1"),
        subject: "u1".into(),
        display_name: "Ada".into(),
        scopes: BTreeSet::from([Scope::Read, Scope::Write]),
        expire_time: now(),
    }
}

#[tokio::test]
async fn refresh_tokens_rotate_within_their_family() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    identity
        .expect_find_refresh_token()
        .withf(|hash, client, _| hash == token_hash("old-refresh") && client == "public")
        .returning(|_, _, _| Ok(Some(old_refresh())));
    identity
        .expect_rotate_refresh_token()
        .withf(|hash, client, _, next| {
            hash == token_hash("old-refresh")
                && client == "public"
                && next.family_id == "family-0"
                && next.token_hash == token_hash("fresh-secret")
                && next.scopes == BTreeSet::from([Scope::Read])
        })
        .times(1)
        .returning(|_, _, _, _| Ok(Rotation::Rotated));
    let response = service(identity)
        .token(&refresh_request(Some("rics.read")))
        .await
        .unwrap();
    assert_eq!(response.refresh_token.as_deref(), Some("fresh-secret"));
    assert_eq!(response.scope, "rics.read");
}

#[tokio::test]
async fn a_reused_or_unknown_refresh_token_is_refused() {
    for rotation in [Rotation::Reused, Rotation::Unknown] {
        let mut identity = MockIdentityRepository::new();
        with_clients(&mut identity);
        identity
            .expect_find_refresh_token()
            .returning(|_, _, _| Ok(Some(old_refresh())));
        identity
            .expect_rotate_refresh_token()
            .times(1)
            .returning(move |_, _, _, _| Ok(rotation));
        let error = service(identity)
            .token(&refresh_request(None))
            .await
            .unwrap_err();
        assert_eq!(error.code, OAuthErrorCode::InvalidGrant, "{rotation:?}");
    }
}

#[tokio::test]
async fn refresh_refusals_spend_nothing() {
    let mut wrong_secret = refresh_request(None);
    wrong_secret.client_id = Some("confidential".into());
    wrong_secret.client_secret = Some("wrong".into());
    let mut no_token = refresh_request(None);
    no_token.refresh_token = None;
    for (request, stored, expected) in [
        (
            refresh_request(Some("rics.admin")),
            Some(old_refresh()),
            OAuthErrorCode::InvalidScope,
        ),
        (
            refresh_request(Some("rics.everything")),
            Some(old_refresh()),
            OAuthErrorCode::InvalidScope,
        ),
        (refresh_request(None), None, OAuthErrorCode::InvalidGrant),
        (
            wrong_secret,
            Some(old_refresh()),
            OAuthErrorCode::InvalidClient,
        ),
        (
            no_token,
            Some(old_refresh()),
            OAuthErrorCode::InvalidRequest,
        ),
    ] {
        let mut identity = MockIdentityRepository::new();
        with_clients(&mut identity);
        identity
            .expect_find_refresh_token()
            .returning(move |_, _, _| Ok(stored.clone()));
        identity.expect_rotate_refresh_token().never();
        let error = service(identity).token(&request).await.unwrap_err();
        assert_eq!(error.code, expected);
    }
}

#[tokio::test]
async fn a_token_that_cannot_be_signed_spends_nothing() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    identity
        .expect_find_refresh_token()
        .returning(|_, _, _| Ok(Some(old_refresh())));
    identity.expect_rotate_refresh_token().never();
    let mut signer = MockTokenSigner::new();
    signer
        .expect_sign()
        .returning(|_, _| Err(crate::Error::unavailable("NO_KEY", "no key signs")));
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let mut ids = MockIdGenerator::new();
    ids.expect_secret().returning(|| Ok("fresh-secret".into()));
    let service = AuthorizationService::new(
        Arc::new(identity),
        Arc::new(hasher()),
        Arc::new(signer),
        Arc::new(clock),
        Arc::new(ids),
    );
    let error = service.token(&refresh_request(None)).await.unwrap_err();
    assert_eq!(error.code, OAuthErrorCode::TemporarilyUnavailable);
}

fn authorize(client_id: &str) -> AuthorizeRequest {
    AuthorizeRequest {
        response_type: Some("code".into()),
        client_id: Some(client_id.into()),
        redirect_uri: Some("https://app.example/callback".into()),
        scope: Some("rics.read".into()),
        state: Some("xyz".into()),
        code_challenge: Some(CHALLENGE.into()),
        code_challenge_method: Some("S256".into()),
    }
}

#[tokio::test]
async fn authorization_requests_are_checked_before_sign_in() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    let service = service(identity);
    let pending = service
        .check_authorization(&authorize("public"))
        .await
        .unwrap();
    assert_eq!(pending.scopes, BTreeSet::from([Scope::Read]));
    assert!(matches!(
        service.check_authorization(&authorize("nobody")).await,
        Err(AuthorizeError::Invalid(_))
    ));
    let mut elsewhere = authorize("public");
    elsewhere.redirect_uri = Some("https://app.example/callback/extra".into());
    assert!(matches!(
        service.check_authorization(&elsewhere).await,
        Err(AuthorizeError::Invalid(_))
    ));
    let redirected = |request: AuthorizeRequest| {
        let service = &service;
        async move {
            match service.check_authorization(&request).await {
                Err(AuthorizeError::Redirect { error, state, .. }) => (error, state),
                other => panic!("{other:?}"),
            }
        }
    };
    let mut token = authorize("public");
    token.response_type = Some("token".into());
    assert_eq!(
        redirected(token).await,
        ("unsupported_response_type", Some("xyz".into()))
    );
    let mut plain = authorize("public");
    plain.code_challenge_method = Some("plain".into());
    assert_eq!(redirected(plain).await.0, "invalid_request");
    let mut no_pkce = authorize("public");
    no_pkce.code_challenge = None;
    assert_eq!(redirected(no_pkce).await.0, "invalid_request");
    let mut admin = authorize("public");
    admin.scope = Some("rics.admin".into());
    assert_eq!(redirected(admin).await.0, "invalid_scope");
}

#[tokio::test]
async fn signing_in_stores_a_short_lived_code_and_redirects() {
    let mut identity = MockIdentityRepository::new();
    with_clients(&mut identity);
    identity.expect_find_user().returning(|name| {
        Ok(match name {
            "ada" => Some(user("t1")),
            "eve" => Some(User {
                username: "eve".into(),
                ..user("t2")
            }),
            _ => None,
        })
    });
    identity
        .expect_save_code()
        .withf(|code| {
            code.code_hash == token_hash("fresh-secret")
                && code.code_challenge == CHALLENGE
                && code.user_id == "u1"
                && code.expire_time == now().plus(super::authorization::CODE_LIFETIME)
        })
        .times(1)
        .returning(|_| Ok(()));
    let service = service(identity);
    let pending = service
        .check_authorization(&authorize("public"))
        .await
        .unwrap();
    let location = service
        .sign_in(&pending, " ADA ", "password")
        .await
        .unwrap();
    assert_eq!(
        location,
        "https://app.example/callback?code=fresh-secret&state=xyz"
    );
    assert_eq!(
        service.sign_in(&pending, "ada", "wrong").await,
        Err(SignInError::BadCredentials)
    );
    assert_eq!(
        service.sign_in(&pending, "nobody", "password").await,
        Err(SignInError::BadCredentials)
    );
    assert_eq!(
        service.sign_in(&pending, "eve", "password").await,
        Err(SignInError::BadCredentials),
        "a user of another tenant cannot authorize this tenant's client"
    );
}

#[test]
fn pkce_follows_rfc_7636() {
    assert!(pkce_matches(VERIFIER, CHALLENGE));
    assert!(!pkce_matches(
        "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl",
        CHALLENGE
    ));
    assert!(!pkce_matches("short", CHALLENGE));
}

#[test]
fn query_values_are_encoded() {
    assert_eq!(
        with_query("https://a/cb", &[("state", "a b&c")]),
        "https://a/cb?state=a+b%26c"
    );
    assert_eq!(
        with_query("https://a/cb?x=1", &[("code", "k")]),
        "https://a/cb?x=1&code=k"
    );
}
