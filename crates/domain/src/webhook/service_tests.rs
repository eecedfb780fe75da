//! Unit tests of the webhook endpoint service over mocked ports: the secret is made,
//! sealed, shown once and kept out of the stored resource and its events; rotation
//! keeps the old secret signing for a day; PATCH keeps the secrets.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::model::{SealedSecrets, WebhookEndpoint, WebhookEndpointState};
use super::ports::{MockHostResolver, MockSecretCipher, MockWebhookEndpointRepository};
use super::service::{SECRET_OVERLAP, WebhookEndpointService};
use super::target::TargetPolicy;
use crate::error::Code;
use crate::id::MockIdGenerator;
use crate::lifecycle::ServiceContext;
use crate::list::Paging;
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::repository::CreateOutcome;
use crate::time::{MockClock, Timestamp};

fn now() -> Timestamp {
    Timestamp::parse_rfc3339("2026-11-25T10:00:00Z").unwrap()
}

fn principal() -> Principal {
    Principal {
        tenant: TenantId::new("t1"),
        subject: "alice".into(),
        display_name: "Alice".into(),
        scopes: Default::default(),
    }
}

fn service(repository: MockWebhookEndpointRepository) -> WebhookEndpointService {
    let mut clock = MockClock::new();
    clock.expect_now().returning(now);
    let clock = Arc::new(clock);
    let mut ids = MockIdGenerator::new();
    ids.expect_resource_id().returning(|| "gen-id".into());
    ids.expect_uid().returning(|| "uid-1".into());
    let paging = Arc::new(Paging::new(&[7; 32], clock.clone()).unwrap());
    let context = ServiceContext {
        clock,
        ids: Arc::new(ids),
        paging,
        retention: Duration::from_secs(86_400),
    };
    let mut cipher = MockSecretCipher::new();
    cipher
        .expect_seal()
        .returning(|plaintext| Ok(format!("sealed:{plaintext}")));
    let mut resolver = MockHostResolver::new();
    resolver
        .expect_resolve()
        .returning(|_, _| Ok(vec!["93.184.216.34".parse().unwrap()]));
    WebhookEndpointService::new(
        Arc::new(repository),
        Some(Arc::new(cipher)),
        Arc::new(resolver),
        TargetPolicy::default(),
        context,
    )
}

fn stored() -> WebhookEndpoint {
    WebhookEndpoint {
        name: "webhookEndpoints/crm-hook".into(),
        uid: "uid-1".into(),
        url: "https://hooks.example.com/x".into(),
        event_types: vec!["*".into()],
        state: WebhookEndpointState::Enabled,
        sealed: SealedSecrets {
            current: "sealed:whsec_old".into(),
            ..SealedSecrets::default()
        },
        create_time: Some(now()),
        update_time: Some(now()),
        etag: crate::resource::etag("uid-1", 1),
        revision: 1,
        ..WebhookEndpoint::default()
    }
}

#[tokio::test]
async fn the_secret_is_sealed_shown_once_and_never_in_an_event() {
    let mut repository = MockWebhookEndpointRepository::new();
    repository
        .expect_create()
        .withf(|_, endpoint, _, events| {
            endpoint.secret.is_empty()
                && endpoint.sealed.current.starts_with("sealed:whsec_")
                && endpoint.state == WebhookEndpointState::Enabled
                && events.len() == 1
                && events[0].event_type == "webhook_endpoint.created"
                && !events[0].payload.to_string().contains("whsec_")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(CreateOutcome::Created));
    let body = json!({"url": "https://hooks.example.com/x", "eventTypes": ["entity.*"]});
    let created = service(repository)
        .create(&principal(), body, None, None)
        .await
        .unwrap();
    assert!(created.secret.starts_with("whsec_"), "{}", created.secret);
    assert_eq!(created.sealed.current, format!("sealed:{}", created.secret));
}

#[tokio::test]
async fn rotation_keeps_the_old_secret_signing_for_a_day() {
    let mut repository = MockWebhookEndpointRepository::new();
    repository.expect_get().returning(|_, _| Ok(Some(stored())));
    repository
        .expect_update()
        .withf(|_, endpoint, revision, events| {
            *revision == 1
                && endpoint.secret.is_empty()
                && endpoint.sealed.previous.as_deref() == Some("sealed:whsec_old")
                && endpoint.sealed.previous_expire_time == Some(now().plus(SECRET_OVERLAP))
                && events[0].event_type == "webhook_endpoint.secret_rotated"
                && !events[0].payload.to_string().contains("whsec_")
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let rotated = service(repository)
        .rotate_secret(&principal(), "crm-hook", None)
        .await
        .unwrap();
    assert!(rotated.secret.starts_with("whsec_"));
    assert_eq!(rotated.sealed.current, format!("sealed:{}", rotated.secret));
}

#[tokio::test]
async fn a_patch_keeps_the_secrets_and_its_rules() {
    let mut repository = MockWebhookEndpointRepository::new();
    repository.expect_get().returning(|_, _| Ok(Some(stored())));
    repository
        .expect_update()
        .withf(|_, endpoint, _, _| {
            endpoint.sealed == stored().sealed && endpoint.state == WebhookEndpointState::Disabled
        })
        .times(1)
        .returning(|_, _, _, _| Ok(()));
    let service = service(repository);
    let patched = service
        .update(&principal(), "crm-hook", json!({"state": "DISABLED"}), None)
        .await
        .unwrap();
    assert!(patched.secret.is_empty());
    let error = service
        .update(
            &principal(),
            "crm-hook",
            json!({"eventTypes": ["nope.*"]}),
            None,
        )
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument);
    assert_eq!(error.field_violations[0].reason, "UNKNOWN_EVENT_TYPE");
}
