//! Keyset pagination (AIP-158) under several orders, with many ties, changing page
//! sizes, skip with and without a token, and the limits of pageSize.

use std::cmp::Ordering;

use rics_domain::Code;
use rics_domain::entity::model::Entity;
use rics_domain::list::ListRequest;
use rics_storage::Backend;

use super::support::{Fixture, Seeded, Walk, entity, similarity, walk};
use crate::support::{paging, request, t1};

/// One sort key's value in the model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Int(i64),
    Text(String),
}

/// The sort keys of `order_by` (or relevance to `fuzzy` when given), with directions.
fn keys_of(order_by: &str, fuzzy: Option<&str>) -> Vec<(String, bool)> {
    if order_by.trim().is_empty() {
        return match fuzzy {
            Some(_) => vec![("relevance".into(), true)],
            None => vec![("createTime".into(), false)],
        };
    }
    order_by
        .split(',')
        .map(|part| {
            let mut words = part.split_whitespace();
            let field = words.next().unwrap().to_owned();
            (field, words.next() == Some("desc"))
        })
        .collect()
}

fn key_value(e: &Entity, field: &str, fuzzy: Option<&str>) -> Key {
    match field {
        "createTime" => Key::Int(e.create_time.unwrap().unix_micros()),
        "updateTime" => Key::Int(e.update_time.unwrap().unix_micros()),
        "displayName" => Key::Text(e.display_name.clone()),
        "relevance" => Key::Int(similarity(fuzzy.unwrap(), &e.display_name)),
        other => panic!("no model for {other}"),
    }
}

/// Checks that `items` follow the order by the model: each step goes the right way on
/// the first key that differs, and ties on every key are broken by the id, always in
/// the same direction.
fn assert_ordered(items: &[Entity], order_by: &str, fuzzy: Option<&str>) {
    let keys = keys_of(order_by, fuzzy);
    let mut id_direction: Option<Ordering> = None;
    for pair in items.windows(2) {
        let mut step = Ordering::Equal;
        for (field, descending) in &keys {
            let (a, b) = (
                key_value(&pair[0], field, fuzzy),
                key_value(&pair[1], field, fuzzy),
            );
            let cmp = if *descending { b.cmp(&a) } else { a.cmp(&b) };
            if cmp != Ordering::Equal {
                step = cmp;
                break;
            }
        }
        assert_ne!(
            step,
            Ordering::Greater,
            "'{order_by}': {} before {}",
            pair[0].name,
            pair[1].name
        );
        if step == Ordering::Equal {
            let ids = pair[0].id().cmp(pair[1].id());
            assert_ne!(ids, Ordering::Equal, "{} twice", pair[0].name);
            assert_eq!(
                *id_direction.get_or_insert(ids),
                ids,
                "'{order_by}': ties not broken by id at {}",
                pair[0].name
            );
        }
    }
}

/// Checks a walk against the same list in one page: same items in the same order, no
/// duplicates, full pages but the last, a constant totalSize.
fn assert_walk_matches(walk: &Walk, whole: &[Entity], page_size: usize, context: &str) {
    let ids = walk.ids();
    let whole_ids: Vec<String> = whole.iter().map(|e| e.id().to_owned()).collect();
    assert_eq!(ids, whole_ids, "{context}: walk differs from one page");
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{context}: duplicates");
    assert_eq!(
        walk.page_sizes.len(),
        whole.len().div_ceil(page_size).max(1),
        "{context}: page sizes {:?}",
        walk.page_sizes
    );
    assert!(walk.page_sizes.iter().all(|n| *n <= page_size));
    assert!(
        walk.totals.iter().all(|t| *t == whole.len() as i64),
        "{context}: totals {:?}",
        walk.totals
    );
}

async fn every_order_pages_without_gaps_or_duplicates(backend: Backend) {
    let s = Seeded::new(backend).await;
    let orders = [
        "",
        "createTime",
        "displayName",
        "displayName desc",
        "createTime desc, displayName",
        "updateTime desc, createTime, displayName desc",
        " updateTime , displayName desc ",
        "update_time",
    ];
    for show_deleted in [false, true] {
        let visible = s
            .entities
            .iter()
            .filter(|e| show_deleted || e.delete_time.is_none())
            .count();
        for order_by in orders {
            let whole = s
                .page(&ListRequest {
                    show_deleted,
                    ..request("", order_by, 1000)
                })
                .await
                .unwrap();
            assert_eq!(whole.items.len(), visible);
            assert_eq!(whole.next_page_token, None);
            let model_order = order_by.replace("update_time", "updateTime");
            assert_ordered(&whole.items, &model_order, None);
            for page_size in [1, 4, 7] {
                let walked = s
                    .walk(&ListRequest {
                        show_deleted,
                        ..request("", order_by, page_size)
                    })
                    .await;
                assert_walk_matches(
                    &walked,
                    &whole.items,
                    page_size as usize,
                    &format!("'{order_by}' by {page_size}, showDeleted={show_deleted}"),
                );
            }
        }
    }
}

async fn filtered_and_ranked_lists_page_too(backend: Backend) {
    let s = Seeded::new(backend).await;
    for (filter, order_by, fuzzy) in [
        ("tags:vip OR legalHold = true", "displayName desc", None),
        ("NOT riskDetails:*", "createTime desc, displayName", None),
        (r#"displayName:"jon smith""#, "", Some("jon smith")),
        ("smith", "", Some("smith")),
        (
            r#"displayName:"jon smith" AND NOT tags:vip"#,
            "",
            Some("jon smith"),
        ),
        (r#"displayName:"jon smith""#, "createTime desc", None),
    ] {
        let whole = s.page(&request(filter, order_by, 1000)).await.unwrap();
        assert!(
            whole.items.len() > 3,
            "'{filter}' should match several entities"
        );
        assert_ordered(&whole.items, order_by, fuzzy);
        for page_size in [2, 3] {
            let walked = s.walk(&request(filter, order_by, page_size)).await;
            assert_walk_matches(
                &walked,
                &whole.items,
                page_size as usize,
                &format!("'{filter}' '{order_by}' by {page_size}"),
            );
        }
    }
}

async fn rows_sharing_every_sort_value_still_page_exactly(backend: Backend) {
    let f = Fixture::new(backend);
    let paging = paging();
    // 25 identical rows but for their ids, created in an order unlike the ids'.
    for i in 0..25 {
        let id = format!("same{:02}", (i * 7) % 25);
        let mut e = entity(&id, "Same Name", 42);
        e.tags = vec!["same".into()];
        f.create(&t1(), &e).await;
    }
    for (filter, order_by, fuzzy) in [
        ("", "", None),
        ("", "displayName desc", None),
        ("", "createTime desc, displayName", None),
        ("", "updateTime, displayName desc", None),
        ("tags:same", "createTime", None),
        ("same", "", Some("same")),
    ] {
        let whole = super::support::page_of(&f, &paging, &t1(), &request(filter, order_by, 1000))
            .await
            .unwrap();
        assert_eq!(whole.items.len(), 25);
        assert_ordered(&whole.items, order_by, fuzzy);
        for page_size in [1, 4, 10] {
            let walked = walk(&f, &paging, &t1(), &request(filter, order_by, page_size)).await;
            assert_walk_matches(
                &walked,
                &whole.items,
                page_size as usize,
                &format!("ties '{filter}' '{order_by}' by {page_size}"),
            );
        }
    }
}

async fn a_new_page_size_applies_to_the_next_page(backend: Backend) {
    let s = Seeded::new(backend).await;
    let whole = s.page(&request("", "displayName", 1000)).await.unwrap();
    let mut seen = Vec::new();
    let mut next = request("", "displayName", 5);
    for size in [5, 11, 1, 30, 1000] {
        next.page_size = Some(size);
        let page = s.page(&next).await.unwrap();
        assert_eq!(
            page.items.len(),
            (size as usize).min(whole.items.len() - seen.len())
        );
        seen.extend(page.items);
        next.page_token = page.next_page_token;
        if next.page_token.is_none() {
            break;
        }
    }
    assert_eq!(seen, whole.items);
}

async fn skip_counts_items_with_or_without_a_token(backend: Backend) {
    let s = Seeded::new(backend).await;
    let whole = s.page(&request("", "", 1000)).await.unwrap().items;
    let n = whole.len();
    assert!(n > 40);
    let skip = |skip: i32, page_size: i32| ListRequest {
        skip: Some(skip),
        ..request("", "", page_size)
    };

    // Without a token: the page starts at item skip + 1.
    let page = s.page(&skip(30, 10)).await.unwrap();
    assert_eq!(page.items, whole[30..40]);
    assert_eq!(page.total_size, n as i64);
    // With a token after item 20: it starts at item 20 + skip + 1.
    let first = s.page(&request("", "", 20)).await.unwrap();
    assert_eq!(first.items, whole[..20]);
    let mut second = skip(10, 10);
    second.page_token = first.next_page_token;
    let page = s.page(&second).await.unwrap();
    assert_eq!(page.items, whole[30..40]);
    // The next token continues after what was returned, without skipping again.
    let mut third = request("", "", 5);
    third.page_token = page.next_page_token;
    assert_eq!(s.page(&third).await.unwrap().items, whole[40..45]);
    // Skipping to the last items ends the list.
    let page = s.page(&skip(n as i32 - 3, 10)).await.unwrap();
    assert_eq!(page.items, whole[n - 3..]);
    assert_eq!(page.next_page_token, None);
    // Past the end: empty, no token, totalSize unchanged.
    let page = s.page(&skip(1000, 10)).await.unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.next_page_token, None);
    assert_eq!(page.total_size, n as i64);
    // A ranked search past the end still counts its matches (no row carries the count).
    let ranked = s.page(&request("smith", "", 1000)).await.unwrap();
    assert!(!ranked.items.is_empty());
    let page = s
        .page(&ListRequest {
            skip: Some(1000),
            ..request("smith", "", 10)
        })
        .await
        .unwrap();
    assert!(page.items.is_empty());
    assert_eq!(page.total_size, ranked.items.len() as i64);
    // Skip applies after the filter.
    let vip = s.page(&request("tags:vip", "", 1000)).await.unwrap().items;
    let page = s
        .page(&ListRequest {
            skip: Some(3),
            ..request("tags:vip", "", 4)
        })
        .await
        .unwrap();
    assert_eq!(page.items, vip[3..7]);
    assert_eq!(page.total_size, vip.len() as i64);
    // A negative skip is refused.
    assert_eq!(
        s.page(&skip(-1, 10)).await.unwrap_err().code,
        Code::InvalidArgument
    );
}

async fn page_size_defaults_and_limits(backend: Backend) {
    let s = Seeded::new(backend).await;
    let visible = s
        .entities
        .iter()
        .filter(|e| e.delete_time.is_none())
        .count();
    assert!(visible > 50);
    for size in [None, Some(0)] {
        let page = s
            .page(&ListRequest {
                page_size: size,
                ..ListRequest::default()
            })
            .await
            .unwrap();
        assert_eq!(page.items.len(), 50, "default page size for {size:?}");
        assert!(page.next_page_token.is_some());
    }
    let page = s.page(&request("", "", 100_000)).await.unwrap();
    assert_eq!(page.items.len(), visible);
    assert_eq!(page.next_page_token, None);
    assert_eq!(
        s.page(&request("", "", -1)).await.unwrap_err().code,
        Code::InvalidArgument
    );
    // A token only continues the query that issued it.
    let first = s.page(&request("tags:vip", "", 2)).await.unwrap();
    for other in [
        request("tags:pep", "", 2),
        request("tags:vip", "displayName", 2),
        ListRequest {
            show_deleted: true,
            ..request("tags:vip", "", 2)
        },
    ] {
        let error = s
            .page(&ListRequest {
                page_token: first.next_page_token.clone(),
                ..other
            })
            .await
            .unwrap_err();
        assert_eq!(error.code, Code::InvalidArgument);
    }
}

contract!(
    every_order_pages_without_gaps_or_duplicates,
    filtered_and_ranked_lists_page_too,
    rows_sharing_every_sort_value_still_page_exactly,
    a_new_page_size_applies_to_the_next_page,
    skip_counts_items_with_or_without_a_token,
    page_size_defaults_and_limits,
);
