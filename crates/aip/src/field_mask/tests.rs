use serde_json::json;

use super::*;

fn table() -> FieldTable {
    use Behavior::{Immutable, Mutable, OutputOnly, Required};
    use FieldKind::{Map, Message, Repeated, Scalar};
    FieldTable::new()
        .field("name", Scalar, OutputOnly)
        .field("uid", Scalar, OutputOnly)
        .field("displayName", Scalar, Required)
        .field("entityType", Scalar, Immutable)
        .field("description", Scalar, Mutable)
        .field("tags", Repeated, Mutable)
        .field("externalIds", Map, Mutable)
        .field("legalHold", Scalar, Mutable)
        .field(
            "contactInfo",
            Message(
                FieldTable::new()
                    .field("emails", Repeated, Mutable)
                    .field("primaryEmail", Scalar, Mutable)
                    .field("verifiedTime", Scalar, OutputOnly),
            ),
            Mutable,
        )
        .field(
            "individual",
            Message(
                FieldTable::new()
                    .field(
                        "legalName",
                        Message(FieldTable::new().field("givenName", Scalar, Mutable).field(
                            "familyName",
                            Scalar,
                            Required,
                        )),
                        Mutable,
                    )
                    .field("dateOfBirth", Scalar, Mutable),
            ),
            Mutable,
        )
        .field(
            "riskDetails",
            Message(FieldTable::new().field("riskLevel", Scalar, Mutable)),
            OutputOnly,
        )
        .field("state", Scalar, OutputOnly)
        .field("createTime", Scalar, OutputOnly)
        .field("etag", Scalar, OutputOnly)
}

fn current() -> Value {
    json!({
        "name": "entities/abc",
        "uid": "4f0f2f0e",
        "displayName": "Alpha",
        "entityType": "INDIVIDUAL",
        "description": "first",
        "tags": ["red", "blue"],
        "externalIds": {"crm": "1", "erp": "2"},
        "legalHold": true,
        "contactInfo": {"emails": ["a@x.test"], "primaryEmail": "a@x.test", "verifiedTime": "T"},
        "riskDetails": {"riskLevel": "LOW"},
        "state": "ACTIVE",
        "createTime": "2026-01-15T10:00:00Z",
        "etag": "\"e1\""
    })
}

fn render(mask: &UpdateMask) -> String {
    match mask {
        UpdateMask::Populated => "<populated>".to_owned(),
        UpdateMask::Full => "*".to_owned(),
        UpdateMask::Paths(paths) => paths
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// `current()` with the given top-level keys replaced (`null` removes a key).
fn with(changes: Value) -> Value {
    let mut value = current();
    let object = value.as_object_mut().unwrap();
    for (key, change) in changes.as_object().unwrap() {
        if change.is_null() {
            object.remove(key);
        } else {
            object.insert(key.clone(), change.clone());
        }
    }
    value
}

fn run(mask: Option<&str>, current: &Value, patch: Value) -> Result<Value, FieldMaskError> {
    let table = table();
    let mask = UpdateMask::parse(mask, &table)?;
    apply(&mask, &table, current, &patch)
}

#[test]
fn parse_valid_masks() {
    let cases = [
        (None, "<populated>"),
        (Some(""), "<populated>"),
        (Some("   "), "<populated>"),
        (Some("*"), "*"),
        (Some(" * "), "*"),
        (Some("displayName"), "displayName"),
        (Some("display_name"), "displayName"),
        (Some("displayName,tags"), "displayName,tags"),
        (Some(" displayName , tags "), "displayName,tags"),
        (Some("displayName,tags,display_name"), "displayName,tags"),
        (Some("contactInfo"), "contactInfo"),
        (Some("contactInfo.emails"), "contactInfo.emails"),
        (
            Some("contact_info.primary_email"),
            "contactInfo.primaryEmail",
        ),
        (
            Some("contactInfo,contactInfo.emails"),
            "contactInfo,contactInfo.emails",
        ),
        (
            Some("individual.legalName.familyName"),
            "individual.legalName.familyName",
        ),
        (Some("externalIds"), "externalIds"),
        (Some("externalIds.crm"), "externalIds.crm"),
        (Some("external_ids.crm"), "externalIds.crm"),
        (Some("externalIds.`my key`"), "externalIds.`my key`"),
        (Some("externalIds.`a.b,c`"), "externalIds.`a.b,c`"),
        (Some("externalIds.`a``b`"), "externalIds.`a``b`"),
        (Some("externalIds.`a` , tags"), "externalIds.a,tags"),
        (Some("`displayName`"), "displayName"),
        (Some("state"), "state"),
        (Some("riskDetails.riskLevel"), "riskDetails.riskLevel"),
    ];
    let table = table();
    for (raw, want) in cases {
        let mask = UpdateMask::parse(raw, &table).unwrap_or_else(|e| panic!("{raw:?}: {e}"));
        assert_eq!(render(&mask), want, "{raw:?}");
    }
    let mask = UpdateMask::parse(Some("externalIds.`a``b`"), &table).unwrap();
    assert_eq!(
        mask,
        UpdateMask::Paths(vec![MaskPath {
            fields: vec!["externalIds"],
            key: Some("a`b".to_owned()),
        }])
    );
}

#[test]
fn parse_invalid_masks() {
    let cases = [
        // R-134.5 [ours]: `*` only alone.
        ("*,displayName", "UPDATE_MASK_WILDCARD_NOT_ALONE", "*"),
        ("displayName,*", "UPDATE_MASK_WILDCARD_NOT_ALONE", "*"),
        ("tags.*", "UPDATE_MASK_WILDCARD_NOT_ALONE", "tags.*"),
        (
            "contactInfo.*.x",
            "UPDATE_MASK_WILDCARD_NOT_ALONE",
            "contactInfo.*.x",
        ),
        // paths that cannot exist.
        ("noSuchField", "UNKNOWN_UPDATE_MASK_PATH", "noSuchField"),
        (
            "displayName, noSuchField",
            "UNKNOWN_UPDATE_MASK_PATH",
            "noSuchField",
        ),
        ("DisplayName", "UNKNOWN_UPDATE_MASK_PATH", "DisplayName"),
        (
            "entity.displayName",
            "UNKNOWN_UPDATE_MASK_PATH",
            "entity.displayName",
        ),
        (
            "displayName.first",
            "UNKNOWN_UPDATE_MASK_PATH",
            "displayName.first",
        ),
        (
            "externalIds.a.b",
            "UNKNOWN_UPDATE_MASK_PATH",
            "externalIds.a.b",
        ),
        (
            "contactInfo.nope",
            "UNKNOWN_UPDATE_MASK_PATH",
            "contactInfo.nope",
        ),
        ("tags.first", "UNKNOWN_UPDATE_MASK_PATH", "tags.first"),
        ("`*`", "UNKNOWN_UPDATE_MASK_PATH", "`*`"),
        // indexes into repeated fields.
        ("tags.0", "UPDATE_MASK_INDEXES_REPEATED_FIELD", "tags.0"),
        (
            "contactInfo.emails.0",
            "UPDATE_MASK_INDEXES_REPEATED_FIELD",
            "contactInfo.emails.0",
        ),
        // Syntax.
        ("a,,b", "INVALID_UPDATE_MASK", "a,,b"),
        ("displayName,", "INVALID_UPDATE_MASK", "displayName,"),
        (",displayName", "INVALID_UPDATE_MASK", ",displayName"),
        (
            "contactInfo..emails",
            "INVALID_UPDATE_MASK",
            "contactInfo..emails",
        ),
        ("contactInfo.", "INVALID_UPDATE_MASK", "contactInfo."),
        (".tags", "INVALID_UPDATE_MASK", ".tags"),
        (
            "externalIds.`open",
            "INVALID_UPDATE_MASK",
            "externalIds.`open",
        ),
        (
            "externalIds.`a`b",
            "INVALID_UPDATE_MASK",
            "externalIds.`a`b",
        ),
        ("exter`nal", "INVALID_UPDATE_MASK", "exter`nal"),
    ];
    let table = table();
    for (raw, reason, path) in cases {
        let err = UpdateMask::parse(Some(raw), &table).unwrap_err();
        assert_eq!(err.reason(), reason, "{raw:?}: {err}");
        assert_eq!(err.path(), path, "{raw:?}");
        assert!(err.in_mask(), "{raw:?}");
    }
}

#[test]
fn r134_4_no_mask_updates_populated_fields_only() {
    let cases = [
        // An empty value does not clear.
        (json!({"displayName": ""}), current()),
        (
            json!({"legalHold": false, "tags": [], "externalIds": {}, "description": null}),
            current(),
        ),
        (json!({}), current()),
        (
            json!({"displayName": "Beta"}),
            with(json!({"displayName": "Beta"})),
        ),
        // Repeated fields and maps are replaced whole (R-161.8 [ours]).
        (json!({"tags": ["green"]}), with(json!({"tags": ["green"]}))),
        (
            json!({"externalIds": {"new": "3"}}),
            with(json!({"externalIds": {"new": "3"}})),
        ),
        // Messages merge recursively.
        (
            json!({"contactInfo": {"primaryEmail": "b@x.test"}}),
            with(
                json!({"contactInfo": {"emails": ["a@x.test"], "primaryEmail": "b@x.test", "verifiedTime": "T"}}),
            ),
        ),
        (
            json!({"individual": {"legalName": {"familyName": "Hugo"}}}),
            with(json!({"individual": {"legalName": {"familyName": "Hugo"}}})),
        ),
        // Immutable field repeated with the same value.
        (
            json!({"entityType": "INDIVIDUAL", "displayName": "B"}),
            with(json!({"displayName": "B"})),
        ),
    ];
    for (patch, want) in cases {
        let got = run(None, &current(), patch.clone()).unwrap();
        assert_eq!(got, want, "patch {patch}");
    }
}

#[test]
fn r203_1_output_only_fields_are_ignored() {
    let patch = json!({
        "name": "entities/zzz", "uid": "x", "state": "DELETED", "createTime": "2000-01-01T00:00:00Z",
        "etag": "\"stale\"", "riskDetails": {"riskLevel": "HIGH"},
        "contactInfo": {"verifiedTime": "changed"}
    });
    for mask in [
        None,
        Some("*"),
        Some("state,riskDetails,riskDetails.riskLevel,contactInfo.verifiedTime,uid"),
    ] {
        let mut full_patch = patch.clone();
        full_patch["displayName"] = json!("Alpha");
        full_patch["entityType"] = json!("INDIVIDUAL");
        let got = run(mask, &current(), full_patch).unwrap();
        assert_eq!(got["state"], "ACTIVE", "{mask:?}");
        assert_eq!(got["uid"], "4f0f2f0e", "{mask:?}");
        assert_eq!(got["name"], "entities/abc", "{mask:?}");
        assert_eq!(got["riskDetails"], json!({"riskLevel": "LOW"}), "{mask:?}");
        assert_eq!(got["contactInfo"]["verifiedTime"], "T", "{mask:?}");
        assert_eq!(got["createTime"], "2026-01-15T10:00:00Z", "{mask:?}");
        assert_eq!(got["etag"], "\"e1\"", "{mask:?}");
    }
}

#[test]
fn r134_5_full_replacement() {
    let got = run(
        Some("*"),
        &current(),
        json!({"displayName": "Beta", "tags": ["x"], "contactInfo": {"primaryEmail": "b@x.test"}}),
    )
    .unwrap();
    let want = json!({
        "name": "entities/abc",
        "uid": "4f0f2f0e",
        "displayName": "Beta",
        "entityType": "INDIVIDUAL",
        "tags": ["x"],
        "contactInfo": {"primaryEmail": "b@x.test", "verifiedTime": "T"},
        "riskDetails": {"riskLevel": "LOW"},
        "state": "ACTIVE",
        "createTime": "2026-01-15T10:00:00Z",
        "etag": "\"e1\""
    });
    assert_eq!(got, want);
    // A message left out keeps only its output-only fields.
    let got = run(Some("*"), &current(), json!({"displayName": "Beta"})).unwrap();
    assert_eq!(got["contactInfo"], json!({"verifiedTime": "T"}));
    // An absent immutable field keeps its value [ours]; a different one is refused.
    assert_eq!(got["entityType"], "INDIVIDUAL");
    let err = run(
        Some("*"),
        &current(),
        json!({"displayName": "B", "entityType": "COMPANY"}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        FieldMaskError::ImmutableFieldChanged {
            path: "entityType".to_owned()
        }
    );
    // Required fields must be present.
    let err = run(Some("*"), &current(), json!({})).unwrap_err();
    assert_eq!(
        err,
        FieldMaskError::RequiredFieldMissing {
            path: "displayName".to_owned()
        }
    );
    let err = run(
        Some("*"),
        &current(),
        json!({"displayName": "B", "individual": {"legalName": {"givenName": "A"}}}),
    )
    .unwrap_err();
    assert_eq!(
        err,
        FieldMaskError::RequiredFieldMissing {
            path: "individual.legalName.familyName".to_owned()
        }
    );
    assert!(!err.in_mask());
}

#[test]
fn explicit_paths_set_or_clear() {
    let cases: Vec<(&str, Value, Value)> = vec![
        // Named and absent: cleared (R-134.4's way to clear).
        ("description", json!({}), with(json!({"description": null}))),
        (
            "description",
            json!({"description": ""}),
            with(json!({"description": null})),
        ),
        (
            "legalHold",
            json!({"legalHold": false}),
            with(json!({"legalHold": null})),
        ),
        // Only the named fields change.
        (
            "description",
            json!({"description": "new", "displayName": "ignored", "tags": ["ignored"]}),
            with(json!({"description": "new"})),
        ),
        ("tags", json!({"tags": ["x"]}), with(json!({"tags": ["x"]}))),
        ("tags", json!({}), with(json!({"tags": null}))),
        (
            "externalIds",
            json!({"externalIds": {"z": "9"}}),
            with(json!({"externalIds": {"z": "9"}})),
        ),
        // Map keys: one key at a time.
        (
            "externalIds.crm",
            json!({"externalIds": {"crm": "9", "erp": "ignored"}}),
            with(json!({"externalIds": {"crm": "9", "erp": "2"}})),
        ),
        (
            "externalIds.crm",
            json!({}),
            with(json!({"externalIds": {"erp": "2"}})),
        ),
        (
            "externalIds.crm,externalIds.erp",
            json!({}),
            with(json!({"externalIds": null})),
        ),
        (
            "externalIds.`new key`",
            json!({"externalIds": {"new key": "v"}}),
            with(json!({"externalIds": {"crm": "1", "erp": "2", "new key": "v"}})),
        ),
        // Sub-fields of messages.
        (
            "contactInfo.primaryEmail",
            json!({"contactInfo": {"primaryEmail": "b@x.test", "emails": ["ignored"]}}),
            with(
                json!({"contactInfo": {"emails": ["a@x.test"], "primaryEmail": "b@x.test", "verifiedTime": "T"}}),
            ),
        ),
        // A whole message: replaced, output-only sub-fields kept.
        (
            "contactInfo",
            json!({"contactInfo": {"primaryEmail": "b@x.test"}}),
            with(json!({"contactInfo": {"primaryEmail": "b@x.test", "verifiedTime": "T"}})),
        ),
        (
            "contactInfo",
            json!({}),
            with(json!({"contactInfo": {"verifiedTime": "T"}})),
        ),
        // Missing parents are created when setting, not when clearing.
        (
            "individual.dateOfBirth",
            json!({"individual": {"dateOfBirth": "2000-01-01"}}),
            with(json!({"individual": {"dateOfBirth": "2000-01-01"}})),
        ),
        ("individual.dateOfBirth", json!({}), current()),
        ("individual", json!({}), current()),
        // Immutable field named with its current value.
        ("entityType", json!({"entityType": "INDIVIDUAL"}), current()),
        // Output-only fields named in the mask: ignored.
        ("state", json!({"state": "DELETED"}), current()),
        (
            "riskDetails.riskLevel",
            json!({"riskDetails": {"riskLevel": "HIGH"}}),
            current(),
        ),
        ("riskDetails", json!({}), current()),
        ("contactInfo.verifiedTime", json!({}), current()),
    ];
    for (mask, patch, want) in cases {
        let got = run(Some(mask), &current(), patch.clone())
            .unwrap_or_else(|e| panic!("{mask} {patch}: {e}"));
        assert_eq!(got, want, "mask {mask} patch {patch}");
    }
}

#[test]
fn r203_3_immutable_fields() {
    let cases = [
        (None, json!({"entityType": "COMPANY"})),
        (Some("entityType"), json!({"entityType": "COMPANY"})),
        (Some("entityType"), json!({})),
        (
            Some("*"),
            json!({"displayName": "B", "entityType": "COMPANY"}),
        ),
    ];
    for (mask, patch) in cases {
        let err = run(mask, &current(), patch.clone()).unwrap_err();
        assert_eq!(err.reason(), "IMMUTABLE_FIELD_CHANGED", "{mask:?} {patch}");
        assert_eq!(err.path(), "entityType");
        assert!(!err.in_mask());
    }
    // Setting an immutable field that is unset is a change too.
    let unset = with(json!({"entityType": null}));
    assert!(run(None, &unset, json!({"entityType": "COMPANY"})).is_err());
    assert!(run(None, &unset, json!({"displayName": "B"})).is_ok());
}

#[test]
fn r203_4_required_fields_named_in_the_mask() {
    let cases = [
        (Some("displayName"), json!({})),
        (Some("displayName"), json!({"displayName": ""})),
        (
            Some("display_name,description"),
            json!({"description": "x"}),
        ),
        (
            Some("individual"),
            json!({"individual": {"legalName": {"givenName": "A"}}}),
        ),
        (Some("individual.legalName.familyName"), json!({})),
    ];
    for (mask, patch) in cases {
        let err = run(mask, &current(), patch.clone()).unwrap_err();
        assert_eq!(err.reason(), "REQUIRED_FIELD_MISSING", "{mask:?} {patch}");
    }
    // Left out of both the mask and the patch: fine.
    assert!(run(Some("description"), &current(), json!({})).is_ok());
    // Without a mask an empty value never clears, so nothing required is lost.
    assert!(run(None, &current(), json!({"displayName": ""})).is_ok());
}

#[test]
fn r203_2_missing_required_fields_on_create() {
    let table = table();
    let cases = [
        (json!({}), vec!["displayName"]),
        (json!({"displayName": ""}), vec!["displayName"]),
        (json!({"displayName": "A"}), vec![]),
        (
            json!({"displayName": "A", "individual": {"legalName": {}}}),
            vec![],
        ),
        (
            json!({"individual": {"legalName": {"givenName": "A"}}}),
            vec!["displayName", "individual.legalName.familyName"],
        ),
        (json!("not an object"), vec![]),
    ];
    for (resource, want) in cases {
        assert_eq!(
            missing_required_fields(&table, &resource),
            want,
            "{resource}"
        );
    }
}

#[test]
fn bad_patches() {
    let cases = [
        (json!({"nope": 1}), "UNKNOWN_FIELD", "nope"),
        (
            json!({"display_name": "x"}),
            "UNKNOWN_FIELD",
            "display_name",
        ),
        (
            json!({"contactInfo": {"nope": 1}}),
            "UNKNOWN_FIELD",
            "contactInfo.nope",
        ),
        (
            json!({"contactInfo": "x"}),
            "INVALID_FIELD_VALUE",
            "contactInfo",
        ),
        (json!({"tags": "red"}), "INVALID_FIELD_VALUE", "tags"),
        (
            json!({"externalIds": ["a"]}),
            "INVALID_FIELD_VALUE",
            "externalIds",
        ),
    ];
    for mask in [None, Some("*"), Some("description")] {
        for (patch, reason, path) in &cases {
            let err = run(mask, &current(), patch.clone()).unwrap_err();
            assert_eq!(err.reason(), *reason, "{mask:?} {patch}");
            assert_eq!(err.path(), *path);
        }
    }
    let table = table();
    let err = apply(&UpdateMask::Populated, &table, &current(), &json!([1])).unwrap_err();
    assert_eq!(err.reason(), "INVALID_FIELD_VALUE");
    let err = apply(&UpdateMask::Populated, &table, &json!(null), &json!({})).unwrap_err();
    assert_eq!(err.reason(), "INVALID_FIELD_VALUE");
}

#[test]
fn populated_values() {
    let cases = [
        (json!(null), false),
        (json!(""), false),
        (json!(0), false),
        (json!(0.0), false),
        (json!(false), false),
        (json!([]), false),
        (json!({}), false),
        (json!("x"), true),
        (json!(1), true),
        (json!(-0.5), true),
        (json!(true), true),
        (json!([0]), true),
        (json!({"a": null}), true),
    ];
    for (value, want) in cases {
        assert_eq!(is_populated(&value), want, "{value}");
    }
}

#[test]
fn table_lookup_and_reasons() {
    let table = table();
    assert_eq!(
        table.get("display_name").map(|f| f.name),
        Some("displayName")
    );
    assert_eq!(
        table.get("displayName").map(|f| f.behavior),
        Some(Behavior::Required)
    );
    assert!(table.get("nope").is_none());
    assert_eq!(table.fields().len(), 14);
    let replaced = FieldTable::new()
        .field("a", FieldKind::Scalar, Behavior::Mutable)
        .field("a", FieldKind::Repeated, Behavior::Immutable);
    assert_eq!(replaced.fields().len(), 1);
    assert_eq!(replaced.fields()[0].kind, FieldKind::Repeated);

    let errors = [
        FieldMaskError::InvalidSyntax {
            path: String::new(),
            detail: "x",
        },
        FieldMaskError::UnknownPath {
            path: String::new(),
        },
        FieldMaskError::IndexIntoRepeated {
            path: String::new(),
        },
        FieldMaskError::WildcardNotAlone {
            path: String::new(),
        },
        FieldMaskError::ImmutableFieldChanged {
            path: String::new(),
        },
        FieldMaskError::RequiredFieldMissing {
            path: String::new(),
        },
        FieldMaskError::UnknownField {
            path: String::new(),
        },
        FieldMaskError::WrongValueType {
            path: String::new(),
            expected: "x",
        },
    ];
    let mut reasons: Vec<&str> = errors.iter().map(FieldMaskError::reason).collect();
    reasons.sort_unstable();
    reasons.dedup();
    assert_eq!(reasons.len(), errors.len());
}

#[test]
fn the_pattern_names_what_a_caller_may_change() {
    use Behavior::{Immutable, Mutable, OutputOnly, Required};
    use FieldKind::{Map, Message, Scalar};
    let table = FieldTable::new()
        .field("name", Scalar, OutputOnly)
        .field("entityType", Scalar, Immutable)
        .field("displayName", Scalar, Required)
        .field("externalIds", Map, Mutable)
        .field(
            "legalName",
            Message(FieldTable::new().field("givenName", Scalar, Mutable)),
            Mutable,
        );
    let path = "((displayName|display_name)|(externalIds|external_ids)(\\.[A-Za-z_][A-Za-z0-9_]*)?\
                |(legalName|legal_name)(\\.((givenName|given_name)))?)";
    assert_eq!(
        UpdateMask::pattern(&table),
        format!("^( *\\* *|( *{path} *(, *{path} *)*)?)$")
    );
}

#[test]
fn an_optional_scalar_keeps_a_given_zero_value() {
    let table = FieldTable::new()
        .field("displayName", FieldKind::Scalar, Behavior::Required)
        .field("monitoring", FieldKind::OptionalScalar, Behavior::Mutable)
        .field("legalHold", FieldKind::Scalar, Behavior::Mutable);
    let current = json!({"displayName": "A", "legalHold": true});
    let paths = UpdateMask::parse(Some("monitoring,legalHold"), &table).unwrap();
    let patch = json!({"monitoring": false, "legalHold": false});
    assert_eq!(
        apply(&paths, &table, &current, &patch).unwrap(),
        json!({"displayName": "A", "monitoring": false}),
        "false is set for the optional scalar, cleared for the plain one"
    );
    let full = json!({"displayName": "A", "monitoring": false});
    assert_eq!(
        apply(&UpdateMask::Full, &table, &current, &full).unwrap(),
        full
    );
    let cleared = apply(
        &paths,
        &table,
        &json!({"displayName": "A", "monitoring": false}),
        &json!({"monitoring": null}),
    )
    .unwrap();
    assert_eq!(cleared, json!({"displayName": "A"}), "null clears it");
}
