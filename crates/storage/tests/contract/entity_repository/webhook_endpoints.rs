//! The webhook endpoint repository: the resource and its sealed secrets round-trip,
//! the plaintext secret is never stored, and lists filter on state.

use rics_domain::list::ListRequest;
use rics_domain::repository::ResourceStore;
use rics_domain::webhook::model::{SealedSecrets, WebhookEndpoint, WebhookEndpointState};
use rics_storage::{Backend, DieselWebhookEndpointRepository};

use super::support::{Fixture, event};
use crate::support::{at, paging, t1, t2};

pub fn endpoint(id: &str, state: WebhookEndpointState, seconds: i64) -> WebhookEndpoint {
    WebhookEndpoint {
        name: WebhookEndpoint::name_of(id),
        uid: format!("uid-{id}"),
        url: format!("https://hooks.example.com/{id}"),
        event_types: vec!["entity.*".into(), "alert.created".into()],
        description: "The CRM".into(),
        state,
        sealed: SealedSecrets {
            current: format!("v1.sealed-{id}"),
            ..SealedSecrets::default()
        },
        create_time: Some(at(seconds)),
        update_time: Some(at(seconds)),
        etag: rics_domain::resource::etag(&format!("uid-{id}"), 1),
        revision: 1,
        ..WebhookEndpoint::default()
    }
}

async fn webhook_endpoints_round_trip_with_their_sealed_secrets(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = DieselWebhookEndpointRepository::new(f.db.clone());
    let mut shown = endpoint("crm-hook", WebhookEndpointState::Enabled, 1);
    shown.secret = "whsec_plaintext".into();
    repo.create(
        &t1(),
        &shown,
        None,
        &[event("ev-1", None, "webhook_endpoint.created", 1)],
    )
    .await
    .unwrap();
    let stored = repo.get(&t1(), "crm-hook").await.unwrap().unwrap();
    assert_eq!(
        stored,
        endpoint("crm-hook", WebhookEndpointState::Enabled, 1)
    );
    assert!(stored.secret.is_empty(), "the plaintext is never stored");
    assert_eq!(repo.get(&t2(), "crm-hook").await, Ok(None));

    let mut rotated = stored.clone();
    rotated.sealed = SealedSecrets {
        current: "v1.sealed-new".into(),
        previous: Some(stored.sealed.current.clone()),
        previous_expire_time: Some(at(86_401)),
    };
    rotated.state = WebhookEndpointState::Disabled;
    rotated.revision = 2;
    rotated.etag = rics_domain::resource::etag("uid-crm-hook", 2);
    repo.update(&t1(), &rotated, 1, &[]).await.unwrap();
    assert_eq!(repo.get(&t1(), "crm-hook").await, Ok(Some(rotated)));

    repo.create(
        &t1(),
        &endpoint("other-hook", WebhookEndpointState::Enabled, 2),
        None,
        &[],
    )
    .await
    .unwrap();
    let request = ListRequest {
        filter: Some("state = ENABLED".into()),
        ..ListRequest::default()
    };
    let page = paging()
        .list(
            &rics_domain::webhook::fields::LIST,
            &repo,
            &t1(),
            None,
            &request,
        )
        .await
        .unwrap();
    let names: Vec<&str> = page.items.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, vec!["webhookEndpoints/other-hook"]);
}

contract!(webhook_endpoints_round_trip_with_their_sealed_secrets);
