//! The derived response schemas, checked with the `jsonschema` crate: against the
//! draft 2020-12 meta-schema, and against responses that keep or break each rule.

use serde_json::{Map, Value, json};

use super::*;
use crate::form_definition::seed::kyc_individual_schema;

fn schema(fields: Value) -> FormSchema {
    serde_json::from_value(json!({"steps": [{"key": "s", "label": "S", "fields": fields}]}))
        .unwrap()
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => panic!("not an object"),
    }
}

/// `(field, reason)` of each violation of `response`.
fn faults(
    compiled: &ResponseSchema,
    response: Value,
    completeness: Completeness,
) -> Vec<(String, &'static str)> {
    let mut found: Vec<(String, &'static str)> = compiled
        .violations(&object(response), completeness, "form.response")
        .into_iter()
        .map(|v| (v.field, v.reason))
        .collect();
    found.sort();
    found
}

fn valid_kyc() -> Value {
    json!({
        "given_name": "Anna",
        "family_name": "Eriksson",
        "date_of_birth": "1974-08-12",
        "nationality": "SE",
        "email": "anna@example.com",
        "residential_address": {"lines": ["1 Main St"], "locality": "Umeå", "country": "SE"},
        "identity_document": {
            "documentType": "PASSPORT",
            "documentNumber": "L898902C3",
            "issuingCountry": "SWE",
            "expiryDate": "2030-01-01",
            "mrz": ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"],
            "files": ["forms/f1/files/passport"]
        },
        "selfie": "forms/f1/files/selfie"
    })
}

#[test]
fn derived_schemas_are_draft_2020_12_schemas() {
    let kyc = kyc_individual_schema();
    for completeness in [Completeness::Complete, Completeness::Draft] {
        let derived = Value::Object(derive(&kyc, completeness));
        assert!(
            jsonschema::draft202012::meta::is_valid(&derived),
            "{derived}"
        );
        assert_eq!(derived["$schema"], DRAFT);
        assert_eq!(derived["additionalProperties"], false);
    }
    let served = Value::Object(response_schema(&kyc));
    assert_eq!(
        served["required"],
        json!([
            "given_name",
            "family_name",
            "date_of_birth",
            "nationality",
            "email",
            "identity_document"
        ])
    );
    assert_eq!(served["properties"]["given_name"]["title"], "Given name");
}

#[test]
fn a_complete_kyc_response_passes_and_each_fault_is_named() {
    let compiled = ResponseSchema::compile(&kyc_individual_schema()).unwrap();
    assert_eq!(
        faults(&compiled, valid_kyc(), Completeness::Complete),
        vec![]
    );
    let mut broken = valid_kyc();
    let members = broken.as_object_mut().unwrap();
    members.remove("email");
    members.remove("given_name");
    members.insert("shoe_size".into(), json!(42));
    members.insert("date_of_birth".into(), json!(19740812));
    members.insert("nationality".into(), json!("se"));
    members.insert("phone".into(), json!("call me"));
    members.insert("selfie".into(), json!("workspaces/w/files/selfie"));
    broken["residential_address"] = json!({"lines": [], "postcode": "x"});
    broken["identity_document"]["files"] = json!(["forms/f1/files/a", "forms/f1/files/a"]);
    assert_eq!(
        faults(&compiled, broken, Completeness::Complete),
        vec![
            ("form.response.date_of_birth".to_owned(), "INVALID_ANSWER"),
            ("form.response.email".to_owned(), "ANSWER_REQUIRED"),
            ("form.response.given_name".to_owned(), "ANSWER_REQUIRED"),
            (
                "form.response.identity_document.files".to_owned(),
                "INVALID_ANSWER"
            ),
            ("form.response.nationality".to_owned(), "INVALID_ANSWER"),
            ("form.response.phone".to_owned(), "INVALID_ANSWER"),
            (
                "form.response.residential_address.country".to_owned(),
                "ANSWER_REQUIRED"
            ),
            (
                "form.response.residential_address.lines".to_owned(),
                "INVALID_ANSWER"
            ),
            (
                "form.response.residential_address.postcode".to_owned(),
                "UNKNOWN_ANSWER"
            ),
            ("form.response.selfie".to_owned(), "INVALID_ANSWER"),
            ("form.response.shoe_size".to_owned(), "UNKNOWN_ANSWER"),
        ]
    );
}

#[test]
fn a_draft_is_checked_for_its_keys_and_types_only() {
    let compiled = ResponseSchema::compile(&kyc_individual_schema()).unwrap();
    assert_eq!(
        faults(
            &compiled,
            json!({"email": "half@", "nationality": "s"}),
            Completeness::Draft
        ),
        vec![],
        "missing answers and unfinished values are kept"
    );
    assert_eq!(
        faults(
            &compiled,
            json!({"email": 5, "extra": "x", "residential_address": {"lines": "1 Main St", "zip": "1"}}),
            Completeness::Draft
        ),
        vec![
            ("form.response.email".to_owned(), "INVALID_ANSWER"),
            ("form.response.extra".to_owned(), "UNKNOWN_ANSWER"),
            (
                "form.response.residential_address.lines".to_owned(),
                "INVALID_ANSWER"
            ),
            (
                "form.response.residential_address.zip".to_owned(),
                "UNKNOWN_ANSWER"
            ),
        ]
    );
}

#[test]
fn bounds_options_patterns_and_checkboxes_are_rules() {
    let compiled = ResponseSchema::compile(&schema(json!([
        {"key": "name", "label": "N", "type": "TEXT", "min": 2, "max": 5, "pattern": "^[a-z]+$"},
        {"key": "code", "label": "C", "type": "EMAIL", "pattern": "@example\\.com$"},
        {"key": "born", "label": "B", "type": "DATE", "min": "1990-06-15", "max": "2001-01-09"},
        {"key": "size", "label": "S", "type": "SELECT", "options": ["S", "M"]},
        {"key": "toppings", "label": "T", "type": "MULTISELECT", "options": ["a", "b", "c"], "min": 1, "max": 2},
        {"key": "agree", "label": "A", "type": "CHECKBOX", "required": true},
        {"key": "amount", "label": "A", "type": "NUMBER", "min": 0.5, "max": 10}
    ])))
    .unwrap();
    let good = json!({"name": "abc", "code": "a@example.com", "born": "1990-06-15", "size": "M",
        "toppings": ["a", "c"], "agree": true, "amount": 10});
    assert_eq!(faults(&compiled, good, Completeness::Complete), vec![]);
    let bad = json!({"name": "ABCDEF", "code": "a@other.com", "born": "2001-01-10", "size": "XL",
        "toppings": ["a", "a", "b"], "agree": false, "amount": 0.4});
    let fields: Vec<String> = faults(&compiled, bad, Completeness::Complete)
        .into_iter()
        .map(|(field, _)| field)
        .collect();
    for key in [
        "name", "code", "born", "size", "toppings", "agree", "amount",
    ] {
        assert!(
            fields.contains(&format!("form.response.{key}")),
            "{key} in {fields:?}"
        );
    }
}

#[test]
fn date_bounds_follow_the_calendar() {
    let day = |n: i32| {
        time::Date::from_julian_day(n)
            .unwrap()
            .format(time::macros::format_description!("[year]-[month]-[day]"))
            .unwrap()
    };
    let from = jsonschema::validator_for(
        &json!({"pattern": date_bound_pattern("1999-12-31", Side::From)}),
    )
    .unwrap();
    let until = jsonschema::validator_for(
        &json!({"pattern": date_bound_pattern("2000-03-01", Side::Until)}),
    )
    .unwrap();
    let start = time::macros::date!(1998 - 01 - 01).to_julian_day();
    for n in start..start + 1200 {
        let text = day(n);
        assert_eq!(
            from.is_valid(&json!(text)),
            text.as_str() >= "1999-12-31",
            "{text}"
        );
        assert_eq!(
            until.is_valid(&json!(text)),
            text.as_str() <= "2000-03-01",
            "{text}"
        );
    }
}
