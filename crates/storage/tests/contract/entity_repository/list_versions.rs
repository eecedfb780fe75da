//! The screening dataset versions of ongoing monitoring: the first version is stored
//! once; a change swaps it only from the version it was computed against (so of two
//! replicas one records it), records it, and queues one re-screening task per tenant,
//! which a worker claims and ends.

use std::collections::BTreeMap;
use std::time::Duration;

use diesel::prelude::*;
use rics_domain::monitoring::{
    DatasetVersion, LIST_CHANGE_QUEUE, ListChange, ListDelta, ListVersionRepository,
};
use rics_storage::schema::tenants;
use rics_storage::{Backend, DieselListVersionRepository};

use super::support::Fixture;
use crate::support::{at, t1, t2};

fn version(hash: &str, records: &[(&str, &str)]) -> DatasetVersion {
    DatasetVersion {
        dataset: "un_sc".to_owned(),
        content_hash: hash.to_owned(),
        record_hashes: records
            .iter()
            .map(|(id, h)| ((*id).to_owned(), (*h).to_owned()))
            .collect::<BTreeMap<_, _>>(),
    }
}

async fn a_list_change_is_recorded_once_and_queued_per_tenant(backend: Backend) {
    let f = Fixture::new(backend);
    f.db.write(|conn| {
        for tenant in [t1(), t2()] {
            diesel::insert_into(tenants::table)
                .values((
                    tenants::id.eq(tenant.as_str().to_owned()),
                    tenants::display_name.eq("T"),
                    tenants::tenant_type.eq("STANDARD"),
                    tenants::state.eq("ACTIVE"),
                    tenants::create_time.eq(0_i64),
                    tenants::update_time.eq(0_i64),
                ))
                .execute(conn)
                .map_err(|e| rics_domain::repository::RepositoryError::Internal(e.to_string()))?;
        }
        Ok(())
    })
    .await
    .unwrap();
    let versions = DieselListVersionRepository::new(f.db.clone());
    assert_eq!(versions.current("un_sc").await.unwrap(), None);
    let v1 = version("h1", &[("a", "1"), ("b", "2")]);
    assert!(versions.first(&v1, at(1)).await.unwrap());
    assert!(
        !versions.first(&version("hx", &[]), at(2)).await.unwrap(),
        "a first version is stored once"
    );
    assert_eq!(versions.current("un_sc").await.unwrap(), Some(v1.clone()));

    let v2 = version("h2", &[("a", "1"), ("b", "2b"), ("c", "3")]);
    let change = ListChange {
        dataset: "un_sc".to_owned(),
        old_version: "h1".to_owned(),
        new_version: "h2".to_owned(),
        delta: ListDelta::between(&v1.record_hashes, &v2.record_hashes),
        change_time: at(3),
    };
    assert!(versions.record_change(&change, &v2).await.unwrap());
    assert!(
        !versions.record_change(&change, &v2).await.unwrap(),
        "a second replica finds the version swapped"
    );
    assert_eq!(versions.current("un_sc").await.unwrap(), Some(v2));

    let claimed = f
        .jobs
        .claim("worker-1", at(4), Duration::from_secs(60), 10)
        .await
        .unwrap();
    let mut tenants: Vec<&str> = claimed.iter().map(|t| t.tenant.as_str()).collect();
    tenants.sort_unstable();
    assert_eq!(
        tenants,
        [t1().as_str(), t2().as_str()],
        "one task per tenant"
    );
    for task in &claimed {
        assert_eq!(task.family, LIST_CHANGE_QUEUE);
        assert_eq!(task.id, change.task_id());
        assert_eq!(task.run_input, change.task_input());
        assert_eq!(task.run_input["records"], serde_json::json!(["b", "c"]));
    }
    assert!(versions.end_task(&claimed[0], None, at(5)).await.unwrap());
    assert!(
        !versions.end_task(&claimed[0], None, at(6)).await.unwrap(),
        "a task ends once"
    );
    let rest = f
        .jobs
        .claim("worker-2", at(100), Duration::from_secs(60), 10)
        .await
        .unwrap();
    assert_eq!(
        rest.len(),
        1,
        "the other tenant's task, its lease over, is claimed again"
    );
}
contract!(a_list_change_is_recorded_once_and_queued_per_tenant);
