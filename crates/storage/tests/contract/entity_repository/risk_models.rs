//! The risk model repository: versions stored whole and read back as stored, the
//! newest version, a taken version number refused, lists newest first with paging,
//! an idempotent create, and tenants kept apart.

use rics_domain::list::ListRequest;
use rics_domain::repository::{CreateOutcome, IdempotencyKey, RepositoryError};
use rics_domain::risk::RiskModel;
use rics_domain::risk::default_model::default_model;
use rics_domain::risk::service::LIST;
use rics_storage::Backend;

use super::support::Fixture;
use crate::support::{at, paging, t1, t2};

/// Version `version` of the default model, stored at `at(seconds)`.
fn version(version: i64, seconds: i64) -> RiskModel {
    let mut model = default_model().unwrap();
    model.name = RiskModel::name_of(version);
    model.uid = format!("uid-{version}");
    model.display_name = format!("Version {version}");
    model.create_time = Some(at(seconds));
    model.etag = rics_domain::resource::etag(&model.uid, 1);
    model
}

async fn versions_are_kept_whole_and_apart(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.risk_models.clone();
    assert_eq!(repo.latest(&t1()).await.unwrap(), None);
    for n in 1..=3 {
        repo.create(&t1(), &version(n, n), None, &[]).await.unwrap();
    }
    repo.create(&t2(), &version(1, 9), None, &[]).await.unwrap();
    assert_eq!(repo.get(&t1(), 2).await.unwrap(), Some(version(2, 2)));
    assert_eq!(repo.latest(&t1()).await.unwrap(), Some(version(3, 3)));
    assert_eq!(repo.latest(&t2()).await.unwrap(), Some(version(1, 9)));
    assert_eq!(repo.get(&t2(), 2).await.unwrap(), None, "tenants are apart");
    assert_eq!(
        repo.create(&t1(), &version(3, 10), None, &[]).await,
        Err(RepositoryError::AlreadyExists),
        "a version number is taken once"
    );
    assert_eq!(repo.get(&t1(), 3).await.unwrap(), Some(version(3, 3)));
}

contract!(versions_are_kept_whole_and_apart);

async fn versions_list_newest_first_in_pages(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.risk_models.clone();
    for n in 1..=5 {
        repo.create(&t1(), &version(n, n), None, &[]).await.unwrap();
    }
    repo.create(&t2(), &version(1, 20), None, &[])
        .await
        .unwrap();
    let paging = paging();
    let mut request = ListRequest {
        page_size: Some(2),
        ..ListRequest::default()
    };
    let mut seen = Vec::new();
    loop {
        let (query, context) = paging.prepare(&LIST, &t1(), None, &request).unwrap();
        let page = paging.finish(context, repo.list(&t1(), &query).await.unwrap());
        assert_eq!(page.total_size, 5);
        seen.extend(page.items.iter().map(|m| m.name.clone()));
        match page.next_page_token {
            Some(token) => request.page_token = Some(token),
            None => break,
        }
    }
    assert_eq!(
        seen,
        [
            "riskModels/5",
            "riskModels/4",
            "riskModels/3",
            "riskModels/2",
            "riskModels/1"
        ]
    );
}

contract!(versions_list_newest_first_in_pages);

async fn a_repeated_request_stores_one_version(backend: Backend) {
    let f = Fixture::new(backend);
    let repo = f.risk_models.clone();
    let key = IdempotencyKey {
        request_id: "0f1e2d3c-4b5a-4968-8776-655443322110".into(),
        method: "riskModels.create",
        fingerprint: "same".into(),
        resource_name: "riskModels/1".into(),
    };
    assert_eq!(
        repo.create(&t1(), &version(1, 1), Some(&key), &[]).await,
        Ok(CreateOutcome::Created)
    );
    let replayed = repo
        .create(&t1(), &version(2, 2), Some(&key), &[])
        .await
        .unwrap();
    assert!(
        matches!(replayed, CreateOutcome::Replayed { ref resource_name, .. } if resource_name == "riskModels/1"),
        "{replayed:?}"
    );
    assert_eq!(repo.latest(&t1()).await.unwrap(), Some(version(1, 1)));
}

contract!(a_repeated_request_stores_one_version);
