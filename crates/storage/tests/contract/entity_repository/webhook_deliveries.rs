//! Webhook deliveries: queued with their events for the subscribed, enabled endpoints
//! of the event's tenant only (and never for a write that fails), claimed in order per
//! endpoint and entity, retried, finished once, redelivered and purged.

use std::time::Duration;

use rics_domain::event::ports::EventRepository;
use rics_domain::list::ListRequest;
use rics_domain::repository::{RepositoryError, ResourceStore};
use rics_domain::webhook::delivery::{
    DeliveryAttempt, DeliveryOutcome, DeliveryRepository, DeliveryState, URL_DELIVERIES,
};
use rics_domain::webhook::delivery_service::LIST;
use rics_domain::webhook::model::{SealedSecrets, WebhookEndpointState};
use rics_domain::webhook::tenant_secret::TenantSecretRepository;
use rics_storage::{
    Backend, DieselDeliveryRepository, DieselTenantSecretRepository,
    DieselWebhookEndpointRepository,
};

use super::support::{Fixture, event};
use super::webhook_endpoints::endpoint;
use crate::support::{at, paging, t1, t2};

fn attempt(seconds: i64, status: u16) -> DeliveryAttempt {
    DeliveryAttempt {
        attempt_time: at(seconds),
        status_code: Some(status),
        latency: "0.010s".into(),
        response_excerpt: "ok".into(),
        error: String::new(),
    }
}

async fn listed(
    repo: &DieselDeliveryRepository,
    tenant: &rics_domain::principal::TenantId,
    endpoint_id: &str,
) -> Vec<String> {
    let parent = format!("webhookEndpoints/{endpoint_id}");
    paging()
        .list_with(
            &LIST,
            tenant,
            Some(&parent),
            &ListRequest::default(),
            async |query| Ok(repo.list(tenant, endpoint_id, query).await?),
        )
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|r| r.id)
        .collect()
}

async fn deliveries_are_queued_for_the_subscribed_enabled_endpoints_of_the_tenant_only(
    backend: Backend,
) {
    let f = Fixture::new(backend);
    let endpoints = DieselWebhookEndpointRepository::new(f.db.clone());
    let deliveries = DieselDeliveryRepository::new(f.db.clone());
    let mut all = endpoint("all", WebhookEndpointState::Enabled, 1);
    all.event_types = vec!["*".into()];
    let mut alerts = endpoint("alerts", WebhookEndpointState::Enabled, 1);
    alerts.event_types = vec!["alert.created".into()];
    let mut off = endpoint("off", WebhookEndpointState::Disabled, 1);
    off.event_types = vec!["*".into()];
    for e in [&all, &alerts, &off] {
        endpoints.create(&t1(), e, None, &[]).await.unwrap();
    }
    endpoints.create(&t2(), &all, None, &[]).await.unwrap();
    // An event of t1, written with a change that commits.
    endpoints
        .create(
            &t1(),
            &endpoint("trigger", WebhookEndpointState::Disabled, 2),
            None,
            &[event("ev-1", Some("jane"), "entity.created", 2)],
        )
        .await
        .unwrap();
    // A change that fails (the id is taken) queues nothing.
    assert!(
        endpoints
            .create(
                &t1(),
                &endpoint("trigger", WebhookEndpointState::Disabled, 3),
                None,
                &[event("ev-rolled-back", Some("jane"), "entity.created", 3)],
            )
            .await
            .is_err()
    );
    assert_eq!(listed(&deliveries, &t1(), "all").await, vec!["ev-1"]);
    for (tenant, id) in [(t1(), "alerts"), (t1(), "off"), (t2(), "all")] {
        assert!(listed(&deliveries, &tenant, id).await.is_empty(), "{id}");
    }
    let record = deliveries.get(&t1(), "all", "ev-1").await.unwrap().unwrap();
    assert_eq!(record.state, DeliveryState::Pending);
    assert_eq!(record.resource, "entities/jane");
    assert_eq!(deliveries.get(&t2(), "all", "ev-1").await, Ok(None));
}

async fn deliveries_go_in_order_per_endpoint_and_entity_and_finish_once(backend: Backend) {
    let f = Fixture::new(backend);
    let endpoints = DieselWebhookEndpointRepository::new(f.db.clone());
    let deliveries = DieselDeliveryRepository::new(f.db.clone());
    let mut all = endpoint("all", WebhookEndpointState::Enabled, 1);
    all.event_types = vec!["entity.*".into()];
    endpoints.create(&t1(), &all, None, &[]).await.unwrap();
    endpoints
        .create(
            &t1(),
            &endpoint("writer", WebhookEndpointState::Disabled, 2),
            None,
            &[
                event("ev-1", Some("jane"), "entity.created", 2),
                event("ev-2", Some("jane"), "entity.updated", 3),
                event("ev-3", Some("john"), "entity.created", 4),
            ],
        )
        .await
        .unwrap();
    let lease = Duration::from_secs(30);
    let claimed = deliveries.claim("c1", at(10), lease, 10).await.unwrap();
    let mut ids: Vec<&str> = claimed.iter().map(|c| c.record.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, vec!["ev-1", "ev-3"], "ev-2 waits for ev-1");
    let first = claimed.iter().find(|c| c.record.id == "ev-1").unwrap();
    assert_eq!(first.url, "https://hooks.example.com/all");
    assert_eq!(first.secrets.current, "v1.sealed-all");
    assert!(first.payload.as_deref().unwrap().contains("entities/jane"));
    assert!(
        deliveries
            .claim("c2", at(11), lease, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // A retry waits for its time, and ev-2 still waits behind it.
    let retry = DeliveryOutcome::Retry { at: at(20) };
    assert_eq!(
        deliveries
            .finish(first, &attempt(10, 500), &retry, at(11), 5)
            .await,
        Ok(Some(0))
    );
    assert_eq!(
        deliveries
            .finish(first, &attempt(10, 500), &retry, at(11), 5)
            .await,
        Ok(None),
        "a claim finishes once"
    );
    assert!(
        deliveries
            .claim("c3", at(12), lease, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let again = deliveries.claim("c4", at(20), lease, 10).await.unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].record.id, "ev-1");
    assert_eq!(again[0].record.tries, 1);
    assert_eq!(
        deliveries
            .finish(
                &again[0],
                &attempt(20, 503),
                &DeliveryOutcome::Failed,
                at(21),
                5
            )
            .await,
        Ok(Some(1)),
        "one delivery failed for good"
    );
    // Once the earlier one failed for good, the later one goes.
    let next = deliveries.claim("c5", at(21), lease, 10).await.unwrap();
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].record.id, "ev-2");
    deliveries
        .finish(
            &next[0],
            &attempt(21, 204),
            &DeliveryOutcome::Delivered,
            at(22),
            5,
        )
        .await
        .unwrap();
    let failed = deliveries.get(&t1(), "all", "ev-1").await.unwrap().unwrap();
    assert_eq!(failed.state, DeliveryState::Failed);
    assert_eq!(failed.attempts.len(), 2);
    assert_eq!(failed.attempts[1].status_code, Some(503));
    let delivered = deliveries.get(&t1(), "all", "ev-2").await.unwrap().unwrap();
    assert_eq!(delivered.state, DeliveryState::Succeeded);
    // Redelivery queues it anew, attempts kept.
    let redelivered = deliveries
        .redeliver(&t1(), "all", "ev-1", at(30))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            redelivered.state,
            redelivered.tries,
            redelivered.attempts.len()
        ),
        (DeliveryState::Pending, 0, 2)
    );
    assert_eq!(
        deliveries.redeliver(&t2(), "all", "ev-1", at(30)).await,
        Ok(None)
    );
    // Nothing is claimed for a disabled endpoint; its deliveries wait.
    let mut disabled = endpoints.get(&t1(), "all").await.unwrap().unwrap();
    disabled.state = WebhookEndpointState::Disabled;
    disabled.revision = 2;
    endpoints.update(&t1(), &disabled, 1, &[]).await.unwrap();
    assert!(
        deliveries
            .claim("c6", at(40), lease, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // The purge removes finished deliveries only.
    assert_eq!(deliveries.purge_finished(at(1_000), 100).await, Ok(1));
    assert_eq!(deliveries.get(&t1(), "all", "ev-2").await, Ok(None));
    assert!(
        deliveries
            .get(&t1(), "all", "ev-1")
            .await
            .unwrap()
            .is_some()
    );
}

/// An event that asks for a delivery to a URL is queued under `-` with its URL (and
/// nothing for a write that fails); one that names an endpoint reaches it whatever its
/// subscriptions, once. Deliveries to URLs go in order per URL and entity, are signed
/// with the tenant's secrets, and never count towards disabling an endpoint.
async fn events_may_ask_for_a_delivery_to_a_url_or_an_endpoint(backend: Backend) {
    let f = Fixture::new(backend);
    let endpoints = DieselWebhookEndpointRepository::new(f.db.clone());
    let deliveries = DieselDeliveryRepository::new(f.db.clone());
    let secrets = DieselTenantSecretRepository::new(f.db.clone());
    let mut alerts = endpoint("alerts", WebhookEndpointState::Enabled, 1);
    alerts.event_types = vec!["alert.created".into()];
    endpoints.create(&t1(), &alerts, None, &[]).await.unwrap();
    endpoints.create(&t2(), &alerts, None, &[]).await.unwrap();
    let (a, b) = ("https://a.example.com/jobs", "https://b.example.com/jobs");
    endpoints
        .create(
            &t1(),
            &endpoint("writer", WebhookEndpointState::Disabled, 2),
            None,
            &[
                event("ev-1", Some("jane"), "entity.created", 2).deliver_to(a),
                event("ev-2", Some("jane"), "entity.updated", 3).deliver_to(a),
                event("ev-3", Some("jane"), "entity.updated", 4).deliver_to(b),
                event("ev-4", Some("jane"), "entity.updated", 5).deliver_to_endpoint("alerts"),
                event("ev-5", Some("jane"), "alert.created", 6).deliver_to_endpoint("alerts"),
            ],
        )
        .await
        .unwrap();
    assert!(
        endpoints
            .create(
                &t1(),
                &endpoint("writer", WebhookEndpointState::Disabled, 3),
                None,
                &[event("ev-rolled-back", None, "entity.created", 3).deliver_to(a)],
            )
            .await
            .is_err()
    );
    let mut to_urls = listed(&deliveries, &t1(), URL_DELIVERIES).await;
    to_urls.sort();
    assert_eq!(to_urls, vec!["ev-1", "ev-2", "ev-3"]);
    let mut to_alerts = listed(&deliveries, &t1(), "alerts").await;
    to_alerts.sort();
    assert_eq!(to_alerts, vec!["ev-4", "ev-5"]);
    assert!(listed(&deliveries, &t2(), URL_DELIVERIES).await.is_empty());
    assert!(listed(&deliveries, &t2(), "alerts").await.is_empty());
    let record = deliveries
        .get(&t1(), URL_DELIVERIES, "ev-3")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(record.url.as_deref(), Some(b));

    // The tenant has no secret yet: the claim carries none, for the worker to make.
    let lease = Duration::from_secs(30);
    let claimed = deliveries.claim("c1", at(10), lease, 10).await.unwrap();
    let mut ids: Vec<&str> = claimed.iter().map(|c| c.record.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        vec!["ev-1", "ev-3", "ev-4"],
        "ev-2 waits for ev-1 to a; ev-5 for ev-4"
    );
    let first = claimed.iter().find(|c| c.record.id == "ev-1").unwrap();
    assert_eq!(first.url, a);
    assert_eq!(first.secrets, SealedSecrets::default());

    // A URL delivery that fails for good lets the next one go and counts no streak.
    assert_eq!(
        deliveries
            .finish(
                first,
                &attempt(10, 500),
                &DeliveryOutcome::Failed,
                at(11),
                5
            )
            .await,
        Ok(Some(0))
    );
    let made = SealedSecrets {
        current: "sealed-first".into(),
        ..SealedSecrets::default()
    };
    assert_eq!(secrets.create(&t1(), &made, at(11)).await, Ok(made.clone()));
    let later = SealedSecrets {
        current: "sealed-later".into(),
        ..SealedSecrets::default()
    };
    assert_eq!(
        secrets.create(&t1(), &later, at(12)).await,
        Ok(made.clone()),
        "the first stored wins"
    );
    let next = deliveries.claim("c2", at(12), lease, 10).await.unwrap();
    let second = next.iter().find(|c| c.record.id == "ev-2").unwrap();
    assert_eq!(second.secrets.current, "sealed-first");
    assert_eq!(secrets.get(&t2()).await, Ok(None));
}

/// A rotation replaces the tenant's secret only while it is the one it read, with its
/// event in the same transaction; the first rotation makes the first secret.
async fn a_tenant_secret_rotates_by_compare_and_set_with_its_event(backend: Backend) {
    let f = Fixture::new(backend);
    let secrets = DieselTenantSecretRepository::new(f.db.clone());
    let events = rics_storage::DieselEventRepository::new(f.db.clone());
    let first = SealedSecrets {
        current: "s1".into(),
        ..SealedSecrets::default()
    };
    let rotated = |id: &str| {
        let mut e = event(id, None, "tenant.webhook_secret_rotated", 5);
        e.payload["resource"] = "tenants/t1".into();
        e
    };
    secrets
        .rotate(&t1(), None, &first, &rotated("ev-r1"), at(5))
        .await
        .unwrap();
    assert_eq!(
        secrets
            .rotate(&t1(), None, &first, &rotated("ev-r2"), at(6))
            .await,
        Err(RepositoryError::Conflict),
        "a first secret exists already"
    );
    let second = SealedSecrets {
        current: "s2".into(),
        previous: Some("s1".into()),
        previous_expire_time: Some(at(86_405)),
    };
    secrets
        .rotate(&t1(), Some("s1".into()), &second, &rotated("ev-r3"), at(7))
        .await
        .unwrap();
    assert_eq!(
        secrets
            .rotate(&t1(), Some("s1".into()), &first, &rotated("ev-r4"), at(8))
            .await,
        Err(RepositoryError::Conflict),
        "a concurrent rotation won"
    );
    assert_eq!(secrets.get(&t1()).await, Ok(Some(second)));
    assert!(events.get(&t1(), "ev-r1").await.unwrap().is_some());
    assert!(events.get(&t1(), "ev-r3").await.unwrap().is_some());
    for lost in ["ev-r2", "ev-r4"] {
        assert_eq!(events.get(&t1(), lost).await, Ok(None), "{lost}");
    }
}

contract!(
    deliveries_are_queued_for_the_subscribed_enabled_endpoints_of_the_tenant_only,
    deliveries_go_in_order_per_endpoint_and_entity_and_finish_once,
    events_may_ask_for_a_delivery_to_a_url_or_an_endpoint,
    a_tenant_secret_rotates_by_compare_and_set_with_its_event
);
