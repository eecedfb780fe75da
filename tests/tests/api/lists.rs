//! Listing entities: pagination, skip, totalSize, orderBy, showDeleted and filters
//! (AIP-132, AIP-158, AIP-160).

use rics_e2e::*;
use serde_json::{Value, json};

/// Creates a small population and returns the names in creation order. `amy-adams`
/// is soft-deleted.
fn populate(server: &Server) -> Vec<String> {
    let people = [
        (
            "john-smith",
            json!({"displayName": "John Smith", "individual": {"legalName": {"givenName": "John", "familyName": "Smith"}}, "tags": ["vip"], "externalIds": {"crm": "1"}}),
        ),
        ("jon-smyth", person("Jon Smyth")),
        (
            "jane-doe",
            json!({"displayName": "Jane Doe", "individual": {"legalName": {"givenName": "Jane", "familyName": "Doe"}}, "tags": ["pep", "vip"], "legalHold": true}),
        ),
        (
            "acme",
            json!({"displayName": "Acme Holdings", "company": {"legalName": "Acme Holdings plc"}, "externalIds": {"erp": "A1"}}),
        ),
        ("smith-co", company("Smith & Co")),
        ("zed-zulu", person("Zed Zulu")),
        ("amy-adams", person("Amy Adams")),
    ];
    let names = people
        .iter()
        .map(|(id, body)| {
            server.create(&format!("?entityId={id}"), body)["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    server.delete(&format!("{ENTITIES}/amy-adams")).ok();
    names
}

/// The names a filter returns (one page, default size), after checking totalSize.
fn filtered(server: &Server, filter: &str) -> Vec<String> {
    let page = server
        .get(&format!("{ENTITIES}{}", query(&[("filter", filter)])))
        .ok();
    let found = names(&page["entities"]);
    assert_eq!(
        page["totalSize"],
        found.len(),
        "totalSize counts after the filter ({filter})"
    );
    found
}

fn ids(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .map(|n| n.trim_start_matches("entities/"))
        .collect()
}

on_both_backends! {
    /// Walking every page with pageSize: full pages, nextPageToken absent on the last
    /// one, totalSize on each, every entity exactly once in the default order
    /// (createTime).
    fn pages_walk_the_whole_collection(server) {
        let mut created = populate(&server);
        created.pop();
        let first = server.get(&format!("{ENTITIES}?pageSize=4")).ok();
        assert_eq!(first["totalSize"], 6);
        assert_eq!(names(&first["entities"]), created[..4]);
        let token = first["nextPageToken"].as_str().expect("a token while more follow");
        let second = server.get(&format!("{ENTITIES}?pageSize=4&pageToken={}", encode(token))).ok();
        assert_eq!(names(&second["entities"]), created[4..]);
        assert_eq!(second["totalSize"], 6);
        assert!(second.get("nextPageToken").is_none(), "no token on the last page: {second}");
        for size in ["1", "2", "3", "5", "6"] {
            let walked = server.list_all(&[("pageSize", size)]);
            assert_eq!(names(&Value::Array(walked)), created, "pageSize {size}");
        }
        let exact = server.get(&format!("{ENTITIES}?pageSize=6")).ok();
        assert_eq!(names(&exact["entities"]).len(), 6);
        let last = exact.get("nextPageToken").and_then(Value::as_str).unwrap_or("");
        if !last.is_empty() {
            let after = server.get(&format!("{ENTITIES}?pageSize=6&pageToken={}", encode(last))).ok();
            assert!(array(&after["entities"]).is_empty());
            assert!(after.get("nextPageToken").is_none());
        }
    }

    /// A changed pageSize on a later page is honoured; pageSize 0 means the default and
    /// huge sizes are coerced.
    fn page_size_changes_zero_and_huge(server) {
        let mut created = populate(&server);
        created.pop();
        let first = server.get(&format!("{ENTITIES}?pageSize=2")).ok();
        let token = first["nextPageToken"].as_str().unwrap();
        let rest = server.get(&format!("{ENTITIES}?pageSize=10&pageToken={}", encode(token))).ok();
        assert_eq!(names(&rest["entities"]), created[2..]);
        assert_eq!(server.list_names(&[("pageSize", "0")]), created);
        assert_eq!(server.list_names(&[("pageSize", "100000")]), created);
        assert_eq!(server.list_names(&[("page_size", "2")]), created[..2], "snake_case is accepted (R-127.3)");
    }

    /// Without pageSize a page holds 50 entities.
    fn the_default_page_size_is_fifty(server) {
        for i in 0..51 {
            server.create("", &person(&format!("Person {i:02}")));
        }
        let page = server.get(ENTITIES).ok();
        assert_eq!(array(&page["entities"]).len(), 50);
        assert_eq!(page["totalSize"], 51);
        let token = page["nextPageToken"].as_str().unwrap();
        let rest = server.get(&format!("{ENTITIES}?pageToken={}", encode(token))).ok();
        assert_eq!(array(&rest["entities"]).len(), 1);
        assert!(rest.get("nextPageToken").is_none());
    }

    /// skip counts entities, alone or after a token; past the end gives an empty page
    /// without a token.
    fn skip_counts_entities(server) {
        let mut created = populate(&server);
        created.pop();
        assert_eq!(server.list_names(&[("skip", "2")]), created[2..]);
        let first = server.get(&format!("{ENTITIES}?pageSize=2")).ok();
        let token = first["nextPageToken"].as_str().unwrap();
        let skipped = server.get(&format!("{ENTITIES}?pageSize=2&skip=1&pageToken={}", encode(token))).ok();
        assert_eq!(names(&skipped["entities"]), created[3..5]);
        assert_eq!(skipped["totalSize"], 6);
        let past = server.get(&format!("{ENTITIES}?skip=100")).ok();
        assert!(array(&past["entities"]).is_empty());
        assert!(past.get("nextPageToken").is_none());
        assert_eq!(past["totalSize"], 6);
    }

    /// orderBy sorts by displayName, createTime or updateTime, ascending or `desc`,
    /// with spaces ignored and snake_case accepted.
    fn order_by_sorts(server) {
        let mut created = populate(&server);
        created.pop();
        let mut by_name: Vec<(String, String)> = server
            .list_all(&[])
            .iter()
            .map(|e| (e["displayName"].as_str().unwrap().to_owned(), e["name"].as_str().unwrap().to_owned()))
            .collect();
        by_name.sort();
        let expected: Vec<String> = by_name.into_iter().map(|(_, n)| n).collect();
        assert_eq!(server.list_names(&[("orderBy", "displayName")]), expected);
        assert_eq!(server.list_names(&[("orderBy", "display_name asc")]), expected);
        let reversed: Vec<String> = expected.iter().rev().cloned().collect();
        assert_eq!(server.list_names(&[("orderBy", "displayName desc")]), reversed);
        let newest: Vec<String> = created.iter().rev().cloned().collect();
        assert_eq!(server.list_names(&[("orderBy", "createTime desc")]), newest);
        assert_eq!(server.list_names(&[("orderBy", " createTime  desc , displayName ")]), newest);
        server.patch(&format!("{ENTITIES}/john-smith"), &json!({"displayName": "John Smith Jr"})).ok();
        let by_update = server.list_names(&[("orderBy", "updateTime desc")]);
        assert_eq!(by_update[0], "entities/john-smith");
    }

    /// Keyset pages stay complete and in order when many entities share the sort key.
    fn ordered_pages_with_ties_are_complete(server) {
        for i in 0..7 {
            let name = if i % 3 == 0 { "Beta".to_owned() } else { format!("Same {}", i % 2) };
            server.create(&format!("?entityId=tie-{i}"), &json!({"displayName": name, "company": {"legalName": "X"}}));
        }
        for (order, size) in [("displayName", "2"), ("displayName desc", "3"), ("displayName, createTime desc", "1")] {
            let walked = server.list_all(&[("orderBy", order), ("pageSize", size)]);
            let single = server.list_all(&[("orderBy", order), ("pageSize", "100")]);
            assert_eq!(walked, single, "orderBy {order}, pageSize {size}");
            assert_eq!(walked.len(), 7);
            let keys: Vec<&str> = walked.iter().map(|e| e["displayName"].as_str().unwrap()).collect();
            let mut sorted = keys.clone();
            sorted.sort();
            if order.contains("desc") && !order.contains(',') {
                sorted.reverse();
            }
            assert_eq!(keys, sorted, "orderBy {order}");
        }
    }

    /// Pages continue from a position, not an offset: deleting entities already seen
    /// or creating new ones does not make the next page skip or repeat any.
    fn pages_are_stable_while_the_collection_changes(server) {
        let mut created = populate(&server);
        created.pop();
        let first = server.get(&format!("{ENTITIES}?pageSize=3")).ok();
        assert_eq!(names(&first["entities"]), created[..3]);
        server.delete(&format!("{ENTITIES}/john-smith")).ok();
        server.delete(&format!("{ENTITIES}/jon-smyth")).ok();
        let newer = server.create("?entityId=newcomer", &person("New Comer"));
        let token = first["nextPageToken"].as_str().unwrap();
        let second = server.get(&format!("{ENTITIES}?pageSize=3&pageToken={}", encode(token))).ok();
        assert_eq!(names(&second["entities"]), created[3..6]);
        let token = second["nextPageToken"].as_str().unwrap();
        let third = server.get(&format!("{ENTITIES}?pageSize=3&pageToken={}", encode(token))).ok();
        assert_eq!(names(&third["entities"]), vec![newer["name"].as_str().unwrap().to_owned()]);
    }

    /// displayName order is the same on both backends: by code point (byte order of
    /// UTF-8), whatever the case or accents.
    fn display_name_order_is_the_same_on_both_backends(server) {
        let display_names = ["zeta", "Zeta", "émile", "Emile", "Ébène", "apple", "Apple", "_under", "10 Ten", "9 Nine", "Zoë", "Zoe"];
        for name in display_names {
            server.create("", &json!({"displayName": name, "company": {"legalName": name}}));
        }
        let mut expected: Vec<&str> = display_names.to_vec();
        expected.sort();
        for size in ["100", "5"] {
            let listed = server.list_all(&[("orderBy", "displayName"), ("pageSize", size)]);
            let listed: Vec<&str> = listed.iter().map(|e| e["displayName"].as_str().unwrap()).collect();
            assert_eq!(listed, expected, "pageSize {size}");
        }
        let page = server.get(&format!("{ENTITIES}{}", query(&[("filter", "displayName = \"émile\"")]))).ok();
        assert_eq!(array(&page["entities"]).len(), 1, "exact match is case- and accent-sensitive");
    }

    /// Fuzzy search folds accents and case.
    fn fuzzy_search_folds_accents_and_case(server) {
        server.create("?entityId=emile", &person("Émile Zola"));
        server.create("?entityId=bjork", &person("Björk Guðmundsdóttir"));
        server.create("?entityId=other", &person("Someone Else"));
        let page = server.get(&format!("{ENTITIES}{}", query(&[("filter", "displayName:\"EMILE zola\"")]))).ok();
        assert_eq!(names(&page["entities"]), vec!["entities/emile"]);
        let page = server.get(&format!("{ENTITIES}{}", query(&[("filter", "bjork")]))).ok();
        assert_eq!(names(&page["entities"]), vec!["entities/bjork"]);
    }

    /// showDeleted includes soft-deleted entities; a filter alone never brings them
    /// back.
    fn show_deleted_includes_deleted_entities(server) {
        let created = populate(&server);
        assert_eq!(server.list_names(&[("showDeleted", "true")]), created);
        assert_eq!(server.list_names(&[("show_deleted", "true")]), created);
        assert!(filtered(&server, "displayName = \"Amy Adams\"").is_empty());
        let page = server
            .get(&format!("{ENTITIES}{}", query(&[("filter", "displayName = \"Amy Adams\""), ("showDeleted", "true")])))
            .ok();
        assert_eq!(names(&page["entities"]), vec!["entities/amy-adams"]);
        assert!(page["entities"][0].get("deleteTime").is_some());
        let deleted_only = server
            .get(&format!("{ENTITIES}{}", query(&[("filter", "deleteTime:*"), ("showDeleted", "true")])))
            .ok();
        assert_eq!(names(&deleted_only["entities"]), vec!["entities/amy-adams"]);
        assert_eq!(server.list_names(&[("showDeleted", "false")]).len(), 6);
    }

    /// String wildcards at either end of a quoted value, on displayName, tags
    /// and externalIds values.
    fn wildcard_filters(server) {
        populate(&server);
        assert_eq!(ids(&filtered(&server, "displayName = \"J*\"")), ["john-smith", "jon-smyth", "jane-doe"]);
        assert_eq!(ids(&filtered(&server, "displayName = \"*Smith\"")), ["john-smith"]);
        assert_eq!(ids(&filtered(&server, "displayName != \"J*\"")), ["acme", "smith-co", "zed-zulu"]);
        assert_eq!(ids(&filtered(&server, "tags:\"v*\"")), ["john-smith", "jane-doe"]);
        assert_eq!(ids(&filtered(&server, "externalIds.erp = \"A*\"")), ["acme"]);
    }

    /// Filters on displayName: exact match, fuzzy search with
    /// `:` and with a bare word, best matches first (design.md section 5).
    fn display_name_filters(server) {
        populate(&server);
        assert_eq!(ids(&filtered(&server, "displayName = \"Jane Doe\"")), ["jane-doe"]);
        assert_eq!(ids(&filtered(&server, "display_name = 'Jane Doe'")), ["jane-doe"]);
        assert_eq!(ids(&filtered(&server, "displayName != \"Jane Doe\"")), ["john-smith", "jon-smyth", "acme", "smith-co", "zed-zulu"]);
        let fuzzy = filtered(&server, "displayName:\"jon smith\"");
        let fuzzy = ids(&fuzzy);
        assert_eq!(fuzzy.first(), Some(&"john-smith"), "best match first: {fuzzy:?}");
        assert!(fuzzy.contains(&"jon-smyth"), "{fuzzy:?}");
        for absent in ["jane-doe", "acme", "zed-zulu", "amy-adams"] {
            assert!(!fuzzy.contains(&absent), "{absent} does not match 'jon smith': {fuzzy:?}");
        }
        let bare = filtered(&server, "smith");
        let bare = ids(&bare);
        assert!(bare.contains(&"john-smith") && bare.contains(&"smith-co"), "{bare:?}");
        assert!(!bare.contains(&"jane-doe") && !bare.contains(&"zed-zulu"), "{bare:?}");
        let by_name = server.list_names(&[("filter", "displayName:\"jon smith\""), ("orderBy", "displayName desc")]);
        let mut expected = filtered(&server, "displayName:\"jon smith\"");
        expected.sort_by_key(|n| server.entity(n.trim_start_matches("entities/"))["displayName"].as_str().unwrap().to_owned());
        expected.reverse();
        assert_eq!(by_name, expected, "orderBy overrides the ranking");
        let typo = filtered(&server, "displayName:\"acme holdngs\"");
        assert_eq!(ids(&typo), ["acme"]);
    }

    /// Fuzzy results, ranked by similarity, page completely and in the same order as
    /// in one page.
    fn fuzzy_results_page_in_rank_order(server) {
        populate(&server);
        let single = filtered(&server, "displayName:\"jon smith\"");
        assert!(single.len() >= 2, "{single:?}");
        for size in ["1", "2"] {
            let walked = server.list_all(&[("filter", "displayName:\"jon smith\""), ("pageSize", size)]);
            assert_eq!(names(&Value::Array(walked)), single, "pageSize {size}");
        }
    }

    /// Filters on entityType, tags, externalIds, createTime, riskDetails.riskLevel,
    /// screeningStatus, verificationStatus and legalHold, combined with AND, OR, NOT
    /// and `-`.
    fn field_filters(server) {
        let created = populate(&server);
        let after_jane = server.entity("jane-doe")["createTime"].as_str().unwrap().to_owned();
        assert_eq!(ids(&filtered(&server, "entityType = COMPANY")), ["acme", "smith-co"]);
        assert_eq!(ids(&filtered(&server, "entityType != INDIVIDUAL")), ["acme", "smith-co"]);
        assert_eq!(ids(&filtered(&server, "entity_type = \"COMPANY\"")), ["acme", "smith-co"]);
        assert_eq!(ids(&filtered(&server, "tags:vip")), ["john-smith", "jane-doe"]);
        assert_eq!(ids(&filtered(&server, "tags:pep")), ["jane-doe"]);
        assert_eq!(ids(&filtered(&server, "tags:*")), ["john-smith", "jane-doe"]);
        assert_eq!(ids(&filtered(&server, "-tags:vip")), ["jon-smyth", "acme", "smith-co", "zed-zulu"]);
        assert_eq!(ids(&filtered(&server, "NOT tags:vip")), ["jon-smyth", "acme", "smith-co", "zed-zulu"]);
        assert_eq!(ids(&filtered(&server, "externalIds:crm")), ["john-smith"]);
        assert_eq!(ids(&filtered(&server, "externalIds.erp = \"A1\"")), ["acme"]);
        assert_eq!(ids(&filtered(&server, "externalIds.erp:*")), ["acme"]);
        assert_eq!(ids(&filtered(&server, "externalIds:*")), ["john-smith", "acme"]);
        assert_eq!(ids(&filtered(&server, &format!("createTime > \"{after_jane}\""))), ["acme", "smith-co", "zed-zulu"]);
        assert_eq!(ids(&filtered(&server, &format!("createTime <= \"{after_jane}\""))), ["john-smith", "jon-smyth", "jane-doe"]);
        assert_eq!(filtered(&server, "createTime > \"2000-01-01T00:00:00Z\"").len(), 6);
        assert_eq!(filtered(&server, "updateTime < \"2000-01-01T00:00:00+02:00\"").len(), 0);
        assert!(filtered(&server, "riskDetails.riskLevel = HIGH").is_empty());
        assert!(filtered(&server, "riskDetails:*").is_empty());
        assert!(filtered(&server, "screeningStatus = CLEAR").is_empty());
        assert!(filtered(&server, "screeningStatus = POTENTIAL_MATCH OR screeningStatus = CONFIRMED_MATCH").is_empty());
        assert_eq!(filtered(&server, "verificationStatus = UNVERIFIED").len(), 6);
        assert_eq!(ids(&filtered(&server, "legalHold = true")), ["jane-doe"]);
        assert_eq!(ids(&filtered(&server, "entityType = COMPANY OR tags:pep")), ["jane-doe", "acme", "smith-co"]);
        assert_eq!(ids(&filtered(&server, "entityType = COMPANY AND displayName:smith")), ["smith-co"]);
        assert_eq!(ids(&filtered(&server, "tags:vip AND (tags:pep OR externalIds:crm)")), ["john-smith", "jane-doe"]);
        assert_eq!(ids(&filtered(&server, "entityType = INDIVIDUAL AND tags:vip OR tags:pep")), ["john-smith", "jane-doe"], "OR binds tighter than AND");
        assert_eq!(filtered(&server, "  ").len(), 6, "an empty filter filters nothing");
        let _ = created;
    }

    /// A filter combines with pagination: totalSize counts the matches and the pages
    /// walk exactly them.
    fn filtered_pages(server) {
        populate(&server);
        let page = server
            .get(&format!("{ENTITIES}{}", query(&[("filter", "entityType = INDIVIDUAL"), ("pageSize", "2")])))
            .ok();
        assert_eq!(page["totalSize"], 4);
        let walked = server.list_all(&[("filter", "entityType = INDIVIDUAL"), ("pageSize", "2")]);
        assert_eq!(
            ids(&names(&Value::Array(walked))),
            ["john-smith", "jon-smyth", "jane-doe", "zed-zulu"]
        );
    }
}
