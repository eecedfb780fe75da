//! The dismissal memory of screening: remembered per tenant and entity, replaced by a
//! newer dismissal of the same entry, forgotten on request, and erased with its entity.

use rics_domain::entity::repository::EraseGuard;
use rics_domain::job::dismissals::{Dismissal, DismissalRepository};
use rics_storage::{Backend, DieselDismissalRepository};

use super::support::{Fixture, entity};
use crate::support::{at, t1, t2};

fn dismissal(entity_id: &str, list_entry: &str, hash: &str) -> Dismissal {
    Dismissal {
        entity_id: entity_id.to_owned(),
        dataset: "un_sc".to_owned(),
        list_entry: list_entry.to_owned(),
        record_hash: hash.to_owned(),
        job: format!("entities/{entity_id}/pepSanctionIndividualEntityJobs/j1"),
        reviewer: "analyst".to_owned(),
        dismiss_time: at(5),
    }
}

async fn dismissals_are_remembered_replaced_forgotten_and_erased(backend: Backend) {
    let f = Fixture::new(backend);
    let memory = DieselDismissalRepository::new(f.db.clone());
    f.create(&t1(), &entity("amy", "Amy Lee", 0)).await;
    memory
        .remember(&t1(), &dismissal("amy", "QDi.1", "h1"))
        .await
        .unwrap();
    memory
        .remember(&t1(), &dismissal("amy", "QDi.2", "h2"))
        .await
        .unwrap();
    memory
        .remember(&t1(), &dismissal("amy", "QDi.1", "h1-new"))
        .await
        .unwrap();
    memory
        .remember(&t2(), &dismissal("amy", "QDi.3", "h3"))
        .await
        .unwrap();
    let mut held = memory.of_entity(&t1(), "amy").await.unwrap();
    held.sort_by(|a, b| a.list_entry.cmp(&b.list_entry));
    assert_eq!(
        held,
        vec![
            dismissal("amy", "QDi.1", "h1-new"),
            dismissal("amy", "QDi.2", "h2")
        ]
    );
    assert!(memory.of_entity(&t1(), "bob").await.unwrap().is_empty());

    memory.forget(&t1(), "amy", "un_sc", "QDi.2").await.unwrap();
    memory.forget(&t1(), "amy", "un_sc", "QDi.9").await.unwrap();
    assert_eq!(
        memory.of_entity(&t1(), "amy").await.unwrap(),
        vec![dismissal("amy", "QDi.1", "h1-new")]
    );

    let counts = f
        .repo
        .hard_delete(&t1(), "amy", EraseGuard::Always, &[])
        .await
        .unwrap();
    assert_eq!(counts.get("screeningDismissals"), Some(&1));
    assert!(memory.of_entity(&t1(), "amy").await.unwrap().is_empty());
    assert_eq!(
        memory.of_entity(&t2(), "amy").await.unwrap().len(),
        1,
        "another tenant's stay"
    );
}
contract!(dismissals_are_remembered_replaced_forgotten_and_erased);
