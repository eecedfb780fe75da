//! Lists driven by filter strings, from the text through the domain's checked query to
//! rows: every declared field, its unset and zero-value rules, combinations, tenants
//! and soft-deleted rows. The expected rows come from the seed itself.

use diesel::connection::SimpleConnection;
use rics_domain::Code;
use rics_domain::entity::model::{
    Entity, EntityType, RiskLevel, RiskStatus, ScreeningStatus, VerificationStatus,
};
use rics_domain::entity::repository::{EntityRepository, EraseGuard};
use rics_domain::list::ListRequest;
use rics_storage::connection::{DatabaseUrl, PoolOptions, connect};
use rics_storage::database::Database;
use rics_storage::{Backend, DieselEntityRepository};

use super::support::{
    NAMES, Seeded, fuzzy_matches, page_of, rfc3339, risk_is, similarity, sorted, walk, walk_from,
};
use crate::support::{at, request, t1, t2};

fn name(e: &Entity) -> &str {
    e.display_name.as_str()
}

fn tagged(e: &Entity, tag: &str) -> bool {
    e.tags.iter().any(|t| t == tag)
}

async fn display_name_matches_exactly_and_with_wildcards(backend: Backend) {
    let s = Seeded::new(backend).await;
    s.check(r#"displayName = "John Smith""#, false, |e| {
        name(e) == "John Smith"
    })
    .await;
    s.check(r#"displayName = "web-*""#, false, |e| {
        name(e).starts_with("web-")
    })
    .await;
    s.check(r#"displayName = "*.prod""#, false, |e| {
        name(e).ends_with(".prod")
    })
    .await;
    s.check(r#"displayName != "web-*""#, false, |e| {
        !name(e).starts_with("web-")
    })
    .await;
    s.check(r#"displayName != "John Smith""#, false, |e| {
        name(e) != "John Smith"
    })
    .await;
    // Characters, not bytes, in prefixes and suffixes.
    s.check(r#"displayName = "Zoë*""#, false, |e| {
        name(e).starts_with("Zoë")
    })
    .await;
    s.check(r#"displayName = "*ë Zed""#, false, |e| {
        name(e).ends_with("ë Zed")
    })
    .await;
    s.check(r#"displayName = "Zoë Zed""#, false, |e| {
        name(e) == "Zoë Zed"
    })
    .await;
    // Exact comparison is case-sensitive; ordering is bytewise.
    s.check_exact(r#"displayName = "john smith""#, false, |_| false)
        .await;
    s.check(r#"displayName < "B""#, false, |e| name(e) < "B")
        .await;
    s.check(r#"displayName >= "a""#, false, |e| name(e) >= "a")
        .await;
    s.check(
        r#"displayName > "Jo" AND displayName <= "Jon Smith""#,
        false,
        |e| name(e) > "Jo" && name(e) <= "Jon Smith",
    )
    .await;
}

async fn fuzzy_display_name_search_finds_typos_and_ranks_closest_first(backend: Backend) {
    let s = Seeded::new(backend).await;
    let query = "jon smith";
    assert!(fuzzy_matches(query, "John Smith") && !fuzzy_matches(query, "Grace Hopper"));
    s.check(r#"displayName:"jon smith""#, false, |e| {
        fuzzy_matches(query, name(e))
    })
    .await;
    s.check(r#"displayName:"JON  SMITH!""#, false, |e| {
        fuzzy_matches(query, name(e))
    })
    .await;
    s.check(r#"displayName:"zoe""#, false, |e| {
        fuzzy_matches("zoe", name(e))
    })
    .await;

    // Without orderBy the results come closest first.
    let response = s
        .page(&request(r#"displayName:"jon smith""#, "", 100))
        .await
        .unwrap();
    let scores: Vec<i64> = response
        .items
        .iter()
        .map(|e| similarity(query, name(e)))
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "not ranked: {:?}",
        response.items.iter().map(name).collect::<Vec<_>>()
    );
    assert_eq!(name(&response.items[0]), "Jon Smith");
    let position = |wanted: &str| response.items.iter().position(|e| name(e) == wanted);
    let (john, smithers) = (position("John Smith"), position("John Smithers"));
    assert!(john.is_some() && smithers.is_some() && john < smithers);
    let last_john = response.items.iter().rposition(|e| name(e) == "John Smith");
    assert!(
        last_john < smithers,
        "every John Smith before John Smithers"
    );

    // An explicit order wins over relevance.
    let by_name = s
        .page(&request(
            r#"displayName:"jon smith""#,
            "displayName desc",
            100,
        ))
        .await
        .unwrap();
    let names: Vec<&str> = by_name.items.iter().map(name).collect();
    let mut expected = names.clone();
    expected.sort_by(|a, b| b.cmp(a));
    assert_eq!(names, expected);
    assert_eq!(by_name.items.len(), response.items.len());
}

/// A repository over a second pool on the seeded database, as another replica sees
/// it: its in-memory indexes follow the change log the first one's writes leave.
fn replica_of(s: &Seeded) -> DieselEntityRepository {
    DieselEntityRepository::new(
        Database::open(
            s.fixture.url(),
            PoolOptions {
                max_size: 2,
                ..PoolOptions::default()
            },
        )
        .unwrap(),
    )
}

/// Walks `in_memory` through both the seeded repository and `replica`, and `in_sql`
/// (the same list with a condition that sends it to SQL) through the first: the same
/// pages in the same order with the same counts.
async fn answers_as_sql(
    s: &Seeded,
    replica: &DieselEntityRepository,
    in_memory: &ListRequest,
    in_sql: &ListRequest,
    case: &str,
) {
    let expected = s.walk(in_sql).await;
    for repo in [&*s.fixture.repo, replica as &dyn EntityRepository] {
        let found = walk_from(repo, &s.paging, &t1(), in_memory).await;
        assert_eq!(found.ids(), expected.ids(), "{case}");
        assert_eq!(found.totals, expected.totals, "{case}");
    }
}

/// A search that is the whole filter is answered by the in-memory index; the same
/// search ANDed with a condition every entity meets is answered in SQL. Both give the
/// same pages, order and counts: at first, after creates, renames, soft deletes and an
/// erasure, and from a second pool over the same database (another replica), whose
/// index follows the change log the first one's writes leave.
async fn the_in_memory_search_answers_as_sql_does_and_follows_writes(backend: Backend) {
    let s = Seeded::new(backend).await;
    let replica = replica_of(&s);
    let same_as_sql = |round: &'static str| {
        let s = &s;
        let replica = &replica;
        async move {
            for text in [
                "jon smith",
                "smith",
                "alpha prod",
                "zoe",
                "ada lovelace",
                "Jon Smyth",
            ] {
                for show_deleted in [false, true] {
                    let search = format!(r#"displayName:"{text}""#);
                    let in_sql = format!(r#"{search} AND createTime >= "2000-01-01T00:00:00Z""#);
                    let of = |filter: &str| ListRequest {
                        show_deleted,
                        ..request(filter, "", 3)
                    };
                    let case = format!("{round}: {search} {show_deleted}");
                    answers_as_sql(s, replica, &of(&search), &of(&in_sql), &case).await;
                }
            }
        }
    };
    same_as_sql("as seeded").await;
    let stored = |name: &str| {
        s.entities
            .iter()
            .find(|e| e.display_name == name && e.delete_time.is_none())
            .unwrap()
            .clone()
    };
    let mut added = stored("John Smith");
    added.name = "entities/added-smyth".into();
    added.display_name = "Jon Smyth".into();
    s.fixture.create(&t1(), &added).await;
    let mut renamed = s.fixture.get(&t1(), stored("John Smithers").id()).await;
    renamed.display_name = "Ada Lovelace-Smith".into();
    renamed.revision += 1;
    s.fixture
        .repo
        .update(&t1(), &renamed, renamed.revision - 1, &[])
        .await
        .unwrap();
    let mut deleted = s.fixture.get(&t1(), stored("Jon Smith").id()).await;
    deleted.delete_time = Some(at(5));
    deleted.purge_time = Some(at(50));
    deleted.revision += 1;
    s.fixture
        .repo
        .update(&t1(), &deleted, deleted.revision - 1, &[])
        .await
        .unwrap();
    s.fixture
        .repo
        .hard_delete(&t1(), stored("Zoë Zed").id(), EraseGuard::Always, &[])
        .await
        .unwrap();
    same_as_sql("after writes").await;
    let found = s
        .page(&request(r#"displayName:"jon smyth""#, "", 100))
        .await
        .unwrap();
    assert_eq!(found.items[0].id(), "added-smyth");
}

/// A list filtered by type and tags alone (or not filtered), in creation order, is
/// answered by the in-memory index; the same list ANDed with a condition every entity
/// meets is answered in SQL. Both give the same pages, order and counts, in both
/// directions: at first, after a create, changes of tags and of type, a soft delete and
/// an erasure, and from a second pool over the same database (another replica).
async fn the_in_memory_list_answers_as_sql_does_and_follows_writes(backend: Backend) {
    let s = Seeded::new(backend).await;
    let replica = replica_of(&s);
    let same_as_sql = |round: &'static str| {
        let s = &s;
        let replica = &replica;
        async move {
            for filter in [
                "",
                "entityType = COMPANY",
                "entityType = COMPANY AND tags:vip",
                "entityType != INDIVIDUAL OR tags:vip",
                "NOT tags:vip",
                "tags:*",
                r#"tags:"review-*""#,
                r#"-tags:"*-2025" AND entityType:INDIVIDUAL"#,
            ] {
                for order in ["", "createTime desc"] {
                    for show_deleted in [false, true] {
                        let in_sql = match filter {
                            "" => r#"createTime >= "2000-01-01T00:00:00Z""#.to_owned(),
                            _ => format!(r#"({filter}) AND createTime >= "2000-01-01T00:00:00Z""#),
                        };
                        let of = |filter: &str| ListRequest {
                            show_deleted,
                            ..request(filter, order, 3)
                        };
                        let case = format!("{round}: '{filter}' '{order}' {show_deleted}");
                        answers_as_sql(s, replica, &of(filter), &of(&in_sql), &case).await;
                    }
                }
            }
        }
    };
    same_as_sql("as seeded").await;
    let live = |tagged_vip: bool| {
        s.entities
            .iter()
            .find(|e| e.delete_time.is_none() && tagged(e, "vip") == tagged_vip)
            .unwrap()
            .clone()
    };
    let mut added = live(true);
    added.name = "entities/added-vip".into();
    s.fixture.create(&t1(), &added).await;
    let update = |mut entity: Entity| {
        let s = &s;
        async move {
            entity.revision += 1;
            s.fixture
                .repo
                .update(&t1(), &entity, entity.revision - 1, &[])
                .await
                .unwrap();
        }
    };
    let mut retagged = s.fixture.get(&t1(), live(true).id()).await;
    retagged.tags = vec!["review-2026".into()];
    update(retagged.clone()).await;
    let mut retyped = s
        .fixture
        .get(
            &t1(),
            s.entities
                .iter()
                .find(|e| {
                    e.delete_time.is_none()
                        && e.entity_type != EntityType::Company
                        && e.id() != retagged.id()
                })
                .unwrap()
                .id(),
        )
        .await;
    retyped.entity_type = EntityType::Company;
    retyped.tags.push("vip".into());
    update(retyped.clone()).await;
    let mut deleted = s.fixture.get(&t1(), live(false).id()).await;
    deleted.delete_time = Some(at(5));
    deleted.purge_time = Some(at(50));
    update(deleted.clone()).await;
    let erased = s
        .entities
        .iter()
        .find(|e| {
            e.delete_time.is_none()
                && ![retagged.id(), retyped.id(), deleted.id()].contains(&e.id())
        })
        .unwrap();
    s.fixture
        .repo
        .hard_delete(&t1(), erased.id(), EraseGuard::Always, &[])
        .await
        .unwrap();
    same_as_sql("after writes").await;
    let vip_companies = s
        .walk(&request("entityType = COMPANY AND tags:vip", "", 100))
        .await;
    assert!(vip_companies.ids().contains(&retyped.id().to_owned()));
    assert!(!vip_companies.ids().contains(&retagged.id().to_owned()));
}

/// A write whose transaction is still open while a search reads the change log is
/// found by the first search after it commits: the log's next read starts at a horizon
/// no later commit precedes (on PostgreSQL the xmin of the reading snapshot, which the
/// open transaction holds back, not its xmax, which a later commit moves past it; on
/// SQLite the tenant's next change number).
async fn a_write_committed_after_a_search_began_is_found_by_the_next(backend: Backend) {
    let s = Seeded::new(backend).await;
    let search = || async {
        s.page(&request(r#"displayName:"late comer""#, "", 10))
            .await
            .unwrap()
            .items
            .iter()
            .map(|e| e.id().to_owned())
            .collect::<Vec<_>>()
    };
    assert!(search().await.is_empty());
    let model = s.entities[0].id().to_owned();
    let mut writer = connect(&DatabaseUrl::parse(s.fixture.url()).unwrap()).unwrap();
    writer
        .batch_execute(&format!(
            "BEGIN; \
             INSERT INTO entities (tenant_id, id, uid, revision, entity_type, display_name, \
             display_name_trigrams, risk_level, screening_status, verification_status, \
             legal_hold, create_time, update_time, delete_time, purge_time, risk_status) \
             SELECT tenant_id, 'late', uid, revision, entity_type, 'Late Comer', 9, risk_level, \
             screening_status, verification_status, legal_hold, create_time, update_time, \
             NULL, NULL, risk_status FROM entities WHERE tenant_id = 't1' AND id = '{model}'; \
             INSERT INTO entity_bodies (tenant_id, entity_id, body, monitoring) \
             SELECT tenant_id, 'late', body, monitoring FROM entity_bodies \
             WHERE tenant_id = 't1' AND entity_id = '{model}';"
        ))
        .unwrap();
    // On PostgreSQL a later transaction commits first, as a busy server's would (on
    // SQLite it would wait for the open one's write lock).
    if backend == Backend::Postgres {
        let mut later = s.entities[1].clone();
        later.name = "entities/later".into();
        s.fixture.create(&t1(), &later).await;
    }
    assert!(search().await.is_empty(), "not committed yet");
    writer.batch_execute("COMMIT").unwrap();
    assert_eq!(search().await, ["late"]);
}

async fn bare_words_search_the_display_name(backend: Backend) {
    let s = Seeded::new(backend).await;
    s.check("smith", false, |e| fuzzy_matches("smith", name(e)))
        .await;
    s.check("Lovelace", false, |e| fuzzy_matches("lovelace", name(e)))
        .await;
    // A sequence is an AND of its words.
    s.check("jane jones", false, |e| {
        fuzzy_matches("jane", name(e)) && fuzzy_matches("jones", name(e))
    })
    .await;
    s.check("smith AND tags:vip", false, |e| {
        fuzzy_matches("smith", name(e)) && tagged(e, "vip")
    })
    .await;
    // Only the other tenant has this name.
    s.check_exact("Quentin", false, |_| false).await;
}

async fn entity_type_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    s.check("entityType = COMPANY", false, |e| {
        e.entity_type == EntityType::Company
    })
    .await;
    s.check("entityType != INDIVIDUAL", false, |e| {
        e.entity_type != EntityType::Individual
    })
    .await;
    s.check("NOT entityType = TRUST", false, |e| {
        e.entity_type != EntityType::Trust
    })
    .await;
    s.check("entityType:SOLE_PROPRIETOR", false, |e| {
        e.entity_type == EntityType::SoleProprietor
    })
    .await;
}

async fn tag_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    s.check("tags:vip", false, |e| tagged(e, "vip")).await;
    s.check(r#"tags:"review-*""#, false, |e| {
        e.tags.iter().any(|t| t.starts_with("review-"))
    })
    .await;
    s.check(r#"tags:"*-2025""#, false, |e| {
        e.tags.iter().any(|t| t.ends_with("-2025"))
    })
    .await;
    s.check("tags:*", false, |e| !e.tags.is_empty()).await;
    s.check("NOT tags:*", false, |e| e.tags.is_empty()).await;
    s.check("-tags:vip", false, |e| !tagged(e, "vip")).await;
    s.check(r#"tags:vip tags:"review-2026""#, false, |e| {
        tagged(e, "vip") && tagged(e, "review-2026")
    })
    .await;
    s.check_exact("tags:t2only", false, |_| false).await;
}

async fn external_id_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    let value = |e: &Entity, key: &str| e.external_ids.get(key).cloned();
    s.check("externalIds:crm", false, |e| value(e, "crm").is_some())
        .await;
    s.check("externalIds.erp:*", false, |e| value(e, "erp").is_some())
        .await;
    s.check(r#"externalIds.crm = "C4""#, false, |e| {
        value(e, "crm").as_deref() == Some("C4")
    })
    .await;
    s.check("externalIds.crm:C4", false, |e| {
        value(e, "crm").as_deref() == Some("C4")
    })
    .await;
    // A missing key never matches, not even `!=` (R-160.10 as documented).
    s.check(r#"externalIds.crm != "C4""#, false, |e| {
        value(e, "crm").is_some_and(|v| v != "C4")
    })
    .await;
    s.check(r#"externalIds.crm = "C1*""#, false, |e| {
        value(e, "crm").is_some_and(|v| v.starts_with("C1"))
    })
    .await;
    s.check(r#"externalIds.erp = "*0""#, false, |e| {
        value(e, "erp").is_some_and(|v| v.ends_with('0'))
    })
    .await;
    s.check(r#"externalIds.crm > "C5""#, false, |e| {
        value(e, "crm").is_some_and(|v| v.as_str() > "C5")
    })
    .await;
    s.check("NOT externalIds:erp", false, |e| value(e, "erp").is_none())
        .await;
    s.check("externalIds:*", false, |e| !e.external_ids.is_empty())
        .await;
    s.check_exact("externalIds:t2key", false, |_| false).await;
}

async fn time_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    let created = |e: &Entity| e.create_time.unwrap();
    let updated = |e: &Entity| e.update_time.unwrap();
    let t = |seconds: i64| crate::support::at(seconds);
    s.check(&format!(r#"createTime > "{}""#, rfc3339(240)), false, |e| {
        created(e) > t(240)
    })
    .await;
    s.check(
        &format!(r#"createTime >= "{}""#, rfc3339(240)),
        false,
        |e| created(e) >= t(240),
    )
    .await;
    s.check(&format!(r#"createTime = "{}""#, rfc3339(240)), false, |e| {
        created(e) == t(240)
    })
    .await;
    s.check(
        &format!(r#"createTime != "{}""#, rfc3339(240)),
        false,
        |e| created(e) != t(240),
    )
    .await;
    // Any offset is accepted and converted to UTC.
    s.check(r#"createTime < "2026-01-01T02:02:00+02:00""#, false, |e| {
        created(e) < t(120)
    })
    .await;
    s.check(
        &format!(r#"updateTime <= "{}""#, rfc3339(10_002)),
        false,
        |e| updated(e) <= t(10_002),
    )
    .await;
    s.check(
        &format!(
            r#"updateTime > "{}" AND createTime < "{}""#,
            rfc3339(10_003),
            rfc3339(300)
        ),
        false,
        |e| updated(e) > t(10_003) && created(e) < t(300),
    )
    .await;
}

async fn delete_time_needs_show_deleted(backend: Backend) {
    let s = Seeded::new(backend).await;
    let deleted = |e: &Entity| e.delete_time;
    let after = crate::support::at(20_020);
    let filter = format!(r#"deleteTime > "{}""#, rfc3339(20_020));
    s.check(&filter, true, |e| deleted(e).is_some_and(|d| d > after))
        .await;
    // Without showDeleted no filter brings deleted entities back.
    s.check_exact(&filter, false, |_| false).await;
    s.check_exact("deleteTime:*", false, |_| false).await;
    s.check("deleteTime:*", true, |e| deleted(e).is_some())
        .await;
    s.check("NOT deleteTime:*", true, |e| deleted(e).is_none())
        .await;
    // A comparison on an unset time is false, even `!=`.
    s.check(
        &format!(r#"deleteTime != "{}""#, rfc3339(20_005)),
        true,
        |e| deleted(e).is_some_and(|d| d != crate::support::at(20_005)),
    )
    .await;
}

async fn risk_level_follows_the_unset_message_rule(backend: Backend) {
    let s = Seeded::new(backend).await;
    let rated = |e: &Entity| e.risk_details.is_some();
    assert!(s.entities.iter().any(|e| !rated(e)));
    s.check("riskDetails.riskLevel = HIGH", false, |e| {
        risk_is(e, RiskLevel::High)
    })
    .await;
    // R-160.11: an unrated entity does not match, even `!=`...
    s.check("riskDetails.riskLevel != HIGH", false, |e| {
        rated(e) && !risk_is(e, RiskLevel::High)
    })
    .await;
    // ...but NOT is plain negation, so it does match `NOT ... = HIGH`.
    s.check("NOT riskDetails.riskLevel = HIGH", false, |e| {
        !risk_is(e, RiskLevel::High)
    })
    .await;
    s.check("-riskDetails.riskLevel = LOW", false, |e| {
        !risk_is(e, RiskLevel::Low)
    })
    .await;
    s.check("riskDetails:*", false, rated).await;
    s.check("NOT riskDetails:*", false, |e| !rated(e)).await;
    s.check("riskDetails.riskLevel:*", false, rated).await;
    s.check_exact(
        "riskDetails.riskLevel = RISK_LEVEL_UNSPECIFIED",
        false,
        |_| false,
    )
    .await;
    s.check(
        "riskDetails.riskLevel = LOW OR riskDetails.riskLevel = MEDIUM",
        false,
        |e| risk_is(e, RiskLevel::Low) || risk_is(e, RiskLevel::Medium),
    )
    .await;
}

/// `riskDetails.riskStatus` is a column of its own: `ACTIVE` (with `RATED` read as it)
/// and `OUTDATED`; an unrated entity matches neither `=` nor `!=` (R-160.11).
async fn risk_status_follows_the_unset_message_rule(backend: Backend) {
    let s = Seeded::new(backend).await;
    let status = |e: &Entity| e.risk_details.as_ref().map(|r| r.risk_status);
    assert!(
        s.entities
            .iter()
            .any(|e| status(e) == Some(RiskStatus::Outdated))
    );
    for filter in [
        "riskDetails.riskStatus = ACTIVE",
        "riskDetails.riskStatus = RATED",
    ] {
        s.check(filter, false, |e| status(e) == Some(RiskStatus::Active))
            .await;
    }
    s.check("riskDetails.riskStatus != OUTDATED", false, |e| {
        status(e) == Some(RiskStatus::Active)
    })
    .await;
    s.check("NOT riskDetails.riskStatus = ACTIVE", false, |e| {
        status(e) != Some(RiskStatus::Active)
    })
    .await;
    s.check(
        "riskDetails.riskStatus = OUTDATED AND riskDetails.riskLevel = MEDIUM",
        false,
        |e| status(e) == Some(RiskStatus::Outdated) && risk_is(e, RiskLevel::Medium),
    )
    .await;
}

async fn statuses_compare_unset_as_the_zero_value(backend: Backend) {
    let s = Seeded::new(backend).await;
    let screening = |e: &Entity| e.screening_status;
    let verification = |e: &Entity| e.verification_status;
    s.check("screeningStatus = CLEAR", false, |e| {
        screening(e) == ScreeningStatus::Clear
    })
    .await;
    // Unset is the zero value: `!=` matches it, `= ..._UNSPECIFIED` finds it.
    s.check("screeningStatus != CLEAR", false, |e| {
        screening(e) != ScreeningStatus::Clear
    })
    .await;
    s.check(
        "screeningStatus = SCREENING_STATUS_UNSPECIFIED",
        false,
        |e| screening(e) == ScreeningStatus::Unspecified,
    )
    .await;
    s.check(
        "screeningStatus != SCREENING_STATUS_UNSPECIFIED",
        false,
        |e| screening(e) != ScreeningStatus::Unspecified,
    )
    .await;
    s.check("screeningStatus:*", false, |e| {
        screening(e) != ScreeningStatus::Unspecified
    })
    .await;
    s.check("NOT screeningStatus = POTENTIAL_MATCH", false, |e| {
        screening(e) != ScreeningStatus::PotentialMatch
    })
    .await;
    s.check("verificationStatus = VERIFIED", false, |e| {
        verification(e) == VerificationStatus::Verified
    })
    .await;
    s.check("verificationStatus != FAILED", false, |e| {
        verification(e) != VerificationStatus::Failed
    })
    .await;
    s.check(
        "verificationStatus = VERIFICATION_STATUS_UNSPECIFIED",
        false,
        |e| verification(e) == VerificationStatus::Unspecified,
    )
    .await;
    s.check("NOT verificationStatus:*", false, |e| {
        verification(e) == VerificationStatus::Unspecified
    })
    .await;
}

async fn legal_hold_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    s.check("legalHold = true", false, |e| e.legal_hold).await;
    s.check("legalHold = false", false, |e| !e.legal_hold).await;
    s.check("legalHold != true", false, |e| !e.legal_hold).await;
    s.check("NOT legalHold = false", false, |e| e.legal_hold)
        .await;
    s.check("legalHold:*", false, |e| e.legal_hold).await;
}

async fn monitoring_filters(backend: Backend) {
    let s = Seeded::new(backend).await;
    let on = |e: &Entity| e.monitoring.is_on();
    s.check("monitoring = false", false, |e| !on(e)).await;
    s.check("monitoring = true", false, on).await;
    s.check("monitoring != true", false, |e| !on(e)).await;
    s.check("NOT monitoring = false", false, on).await;
    s.check("monitoring = false", true, |e| !on(e)).await;
    s.check("monitoring = false OR legalHold = true", false, |e| {
        !on(e) || e.legal_hold
    })
    .await;
}

/// The keyset scan of ongoing monitoring: the tenant's live, monitored entities in id
/// order, page after page, and nothing of the other tenant.
async fn the_monitored_scan_reads_live_monitored_entities_in_id_order(backend: Backend) {
    let s = Seeded::new(backend).await;
    let mut wanted: Vec<&Entity> = s
        .entities
        .iter()
        .filter(|e| e.monitoring.is_on() && e.delete_time.is_none())
        .collect();
    wanted.sort_by(|a, b| a.id().cmp(b.id()));
    assert!(
        wanted.len() < s.entities.len() - 2,
        "the seed exercises the scan"
    );
    let repo = &s.fixture.repo;
    let mut read: Vec<Entity> = Vec::new();
    let mut pages = 0;
    loop {
        let after = read.last().map(|e| e.id().to_owned());
        let page = repo.monitored(&t1(), after.as_deref(), 7).await.unwrap();
        pages += 1;
        let full = page.len() == 7;
        read.extend(page);
        if !full {
            break;
        }
    }
    assert!(pages > 2);
    let ids = |entities: &[&Entity]| {
        entities
            .iter()
            .map(|e| e.id().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&read.iter().collect::<Vec<_>>()), ids(&wanted));
    for got in &read {
        assert_eq!(
            got,
            &s.fixture.get(&t1(), got.id()).await,
            "read as get reads it"
        );
    }
    let other = repo.monitored(&t2(), None, 1000).await.unwrap();
    assert_eq!(
        other.len(),
        s.other.iter().filter(|e| e.monitoring.is_on()).count()
    );
}

async fn combinations_follow_the_precedence_rules(backend: Backend) {
    let s = Seeded::new(backend).await;
    let company = |e: &Entity| e.entity_type == EntityType::Company;
    let vip = |e: &Entity| tagged(e, "vip");
    let hold = |e: &Entity| e.legal_hold;
    // OR binds tighter than AND: a AND b OR c = a AND (b OR c).
    let visible = || s.entities.iter().filter(|e| e.delete_time.is_none());
    assert!(
        visible()
            .any(|e| (company(e) && (vip(e) || hold(e))) != ((company(e) && vip(e)) || hold(e))),
        "the seed must tell the two readings apart"
    );
    s.check(
        "entityType = COMPANY AND tags:vip OR legalHold = true",
        false,
        |e| company(e) && (vip(e) || hold(e)),
    )
    .await;
    s.check(
        "(entityType = COMPANY AND tags:vip) OR legalHold = true",
        false,
        |e| (company(e) && vip(e)) || hold(e),
    )
    .await;
    s.check("tags:vip OR legalHold = true", false, |e| vip(e) || hold(e))
        .await;
    s.check(
        "NOT (tags:vip OR riskDetails.riskLevel = HIGH)",
        false,
        |e| !(vip(e) || risk_is(e, RiskLevel::High)),
    )
    .await;
    s.check(r#"-tags:vip AND displayName = "web-*""#, false, |e| {
        !vip(e) && name(e).starts_with("web-")
    })
    .await;
    s.check(
        r#"(displayName:"jon smith" OR tags:"review-2025") AND NOT (entityType = INDIVIDUAL OR screeningStatus = CLEAR)"#,
        false,
        |e| {
            (fuzzy_matches("jon smith", name(e)) || tagged(e, "review-2025"))
                && !(e.entity_type == EntityType::Individual
                    || e.screening_status == ScreeningStatus::Clear)
        },
    )
    .await;
    s.check(
        "NOT (NOT tags:vip) AND (externalIds:crm OR NOT riskDetails:*)",
        false,
        |e| vip(e) && (e.external_ids.contains_key("crm") || e.risk_details.is_none()),
    )
    .await;
    // An empty filter is no filter.
    s.check_exact("   ", false, |_| true).await;
}

async fn another_tenant_is_never_listed_nor_counted(backend: Backend) {
    let s = Seeded::new(backend).await;
    let everything = s.walk(&request("", "", 1000)).await;
    let mine: Vec<String> = s
        .entities
        .iter()
        .filter(|e| e.delete_time.is_none())
        .map(|e| e.id().to_owned())
        .collect();
    assert_eq!(sorted(&everything.ids()), sorted(&mine));
    assert_eq!(everything.totals, vec![mine.len() as i64]);
    // The same ids in the other tenant carry their own attributes.
    for item in &everything.items {
        assert_eq!(item, s.seeded(item.id()));
    }
    let theirs = walk(&s.fixture, &s.paging, &t2(), &request("", "", 7)).await;
    assert_eq!(sorted_entities(&theirs.items), sorted_entities(&s.other));
    assert!(theirs.totals.iter().all(|t| *t == s.other.len() as i64));
    let filtered = walk(&s.fixture, &s.paging, &t2(), &request("tags:vip", "", 1000)).await;
    let wanted: Vec<String> = s
        .other
        .iter()
        .filter(|e| tagged(e, "vip"))
        .map(|e| e.id().to_owned())
        .collect();
    assert_eq!(sorted(&filtered.ids()), sorted(&wanted));
    let quentin = walk(&s.fixture, &s.paging, &t2(), &request("Quentin", "", 1000)).await;
    assert_eq!(
        quentin.items.len(),
        s.other
            .iter()
            .filter(|e| name(e) == "Quentin Blake")
            .count()
    );

    // A page token of one tenant is refused in another.
    let first = s.page(&request("", "", 5)).await.unwrap();
    let mut next = request("", "", 5);
    next.page_token = first.next_page_token;
    let error = page_of(&s.fixture, &s.paging, &t2(), &next)
        .await
        .unwrap_err();
    assert_eq!(error.code, Code::InvalidArgument);
    assert!(s.page(&next).await.is_ok());
}

fn sorted_entities(items: &[Entity]) -> Vec<Entity> {
    let mut items = items.to_vec();
    items.sort_by(|a, b| a.name.cmp(&b.name));
    items
}

async fn soft_deleted_entities_show_only_when_asked(backend: Backend) {
    let s = Seeded::new(backend).await;
    let deleted: Vec<String> = s
        .entities
        .iter()
        .filter(|e| e.delete_time.is_some())
        .map(|e| e.id().to_owned())
        .collect();
    assert!(!deleted.is_empty());
    let hidden = s.walk(&request("", "", 1000)).await;
    assert!(hidden.ids().iter().all(|id| !deleted.contains(id)));
    assert_eq!(
        hidden.totals,
        vec![(s.entities.len() - deleted.len()) as i64]
    );
    let shown = s
        .walk(&ListRequest {
            show_deleted: true,
            ..request("", "", 1000)
        })
        .await;
    assert_eq!(shown.items.len(), s.entities.len());
    assert_eq!(shown.totals, vec![s.entities.len() as i64]);
    for item in &shown.items {
        assert_eq!(
            item,
            s.seeded(item.id()),
            "deleted ones keep their deleteTime"
        );
    }
    // Filters apply after deleted rows are dropped.
    s.check("tags:vip", true, |e| tagged(e, "vip")).await;
    s.check("tags:vip", false, |e| tagged(e, "vip")).await;
    let names_of_deleted: Vec<&str> = s
        .entities
        .iter()
        .filter(|e| e.delete_time.is_some())
        .map(name)
        .collect();
    assert!(NAMES.iter().any(|n| names_of_deleted.contains(n)));
}

contract!(
    display_name_matches_exactly_and_with_wildcards,
    fuzzy_display_name_search_finds_typos_and_ranks_closest_first,
    bare_words_search_the_display_name,
    the_in_memory_search_answers_as_sql_does_and_follows_writes,
    the_in_memory_list_answers_as_sql_does_and_follows_writes,
    a_write_committed_after_a_search_began_is_found_by_the_next,
    entity_type_filters,
    tag_filters,
    external_id_filters,
    time_filters,
    delete_time_needs_show_deleted,
    risk_level_follows_the_unset_message_rule,
    risk_status_follows_the_unset_message_rule,
    statuses_compare_unset_as_the_zero_value,
    legal_hold_filters,
    monitoring_filters,
    the_monitored_scan_reads_live_monitored_entities_in_id_order,
    combinations_follow_the_precedence_rules,
    another_tenant_is_never_listed_nor_counted,
    soft_deleted_entities_show_only_when_asked,
);
