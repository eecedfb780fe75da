//! Risk rating over HTTP: the tenant's versioned risk models, `:evaluate` with its
//! activity log, `riskDetails` and the Enhanced Due Diligence alert, the replay of a
//! rating from `:evaluationInput`, and risk rating jobs run by a worker.

use rics_e2e::*;
use serde_json::{Value, json};

const MODELS: &str = "/v1alpha/riskModels";
const JOBS: &str = "individualEntityRiskRatingJobs";
const EDD: &str = "alertTypes/enhanced-due-diligence-required";

/// An individual of Iranian nationality living in Iran, in a casino.
fn high_risk_person(server: &Server, id: &str) {
    server.create(
        &format!("?entityId={id}"),
        &json!({
            "displayName": "Reza Example",
            "entityType": "INDIVIDUAL",
            "individual": {
                "legalName": {"givenName": "Reza", "familyName": "Example"},
                "dateOfBirth": "1971-03",
                "nationalities": ["IR"],
                "countryOfResidence": "IR",
                "occupation": "Casino manager"
            }
        }),
    );
}

fn edd_alerts(server: &Server, entity: &str) -> Vec<Value> {
    let filter = format!("alertType = \"{EDD}\" AND entities:\"entities/{entity}\"");
    let page = server
        .get(&format!("/v1alpha/alerts{}", query(&[("filter", &filter)])))
        .ok();
    page["alerts"].as_array().cloned().unwrap_or_default()
}

fn points_sum(rating: &Value) -> u64 {
    array(&rating["contributions"])
        .iter()
        .map(|c| c["points"].as_u64().unwrap())
        .sum()
}

#[test]
fn evaluate_rates_records_and_raises_edd_once_sqlite() {
    evaluate_rates_records_and_raises_edd_once(Backend::Sqlite);
}

#[test]
fn evaluate_rates_records_and_raises_edd_once_postgres() {
    evaluate_rates_records_and_raises_edd_once(Backend::Postgres);
}

fn evaluate_rates_records_and_raises_edd_once(backend: Backend) {
    let server = Server::start(backend);
    high_risk_person(&server, "reza");
    let answer = server
        .post(&format!("{ENTITIES}/reza:evaluate"), &json!({}))
        .ok();
    let log = &answer["activityLog"];
    assert_eq!(log["type"], "RISK_RATING", "{log}");
    assert_eq!(log["source"], "RICS");
    assert_eq!(log["entityNames"], json!(["entities/reza"]));
    let rating = &log["payload"]["rating"];
    assert_eq!(rating["riskLevel"], "HIGH", "{rating}");
    assert_eq!(rating["modelVersion"], "riskModels/1");
    assert_eq!(points_sum(rating), rating["riskScore"].as_u64().unwrap());
    let factors: Vec<&str> = array(&rating["contributions"])
        .iter()
        .map(|c| c["factor"].as_str().unwrap())
        .collect();
    assert_eq!(
        factors,
        [
            "SCREENING_STATUS",
            "NATIONALITY",
            "COUNTRY_OF_RESIDENCE",
            "VERIFICATION_STATUS",
            "AGE",
            "OCCUPATION",
            "RELATED_ENTITY_RISK"
        ]
    );
    assert_eq!(log["payload"]["input"]["nationalities"], json!(["IR"]));
    assert!(log["payload"].get("previousRiskLevel").is_none());

    let entity = server.entity("reza");
    let details = &entity["riskDetails"];
    assert_eq!(details["riskLevel"], "HIGH");
    assert_eq!(details["riskScore"].as_f64(), rating["riskScore"].as_f64());
    assert_eq!(details["riskStatus"], "ACTIVE");
    assert_eq!(details["activityLog"], log["name"]);
    assert_eq!(details["modelVersion"], "riskModels/1");
    assert!(details.get("ratingJob").is_none());
    assert!(details["lastRatedTime"].is_string());

    let alerts = edd_alerts(&server, "reza");
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0]["source"], log["name"]);
    assert_eq!(alerts[0]["details"]["previousRiskLevel"], "unrated");

    // Still High: a new rating, no second alert.
    let again = server
        .post(&format!("{ENTITIES}/reza:evaluate"), &json!({}))
        .ok();
    assert_eq!(again["activityLog"]["payload"]["previousRiskLevel"], "HIGH");
    assert_ne!(again["activityLog"]["name"], log["name"]);
    assert_eq!(edd_alerts(&server, "reza").len(), 1);

    // A new screening status leaves the rating outdated until the next one.
    let job = server
        .post(
            &format!("{ENTITIES}/reza/pepSanctionIndividualEntityJobs"),
            &json!({}),
        )
        .ok();
    let run = server
        .post(
            &format!("/v1alpha/{}:run", job["name"].as_str().unwrap()),
            &json!({}),
        )
        .ok();
    server.wait_for(&run);
    let screened = server.entity("reza");
    assert_eq!(screened["screeningStatus"], "CLEAR");
    assert_eq!(screened["riskDetails"]["riskStatus"], "OUTDATED");
    server
        .post(&format!("{ENTITIES}/reza:evaluate"), &json!({}))
        .ok();
    assert_eq!(server.entity("reza")["riskDetails"]["riskStatus"], "ACTIVE");

    // So does a change to the entity.
    server
        .patch(
            &format!("{ENTITIES}/reza?updateMask=displayName"),
            &json!({"displayName": "Reza Q. Example"}),
        )
        .ok();
    assert_eq!(
        server.entity("reza")["riskDetails"]["riskStatus"],
        "OUTDATED"
    );
}

on_both_backends! {
    /// A five-level model: its scores default to 20/40/60/80/100 and its labels are
    /// kept; a high-risk person is rated above HIGH, stored and filtered at that level,
    /// with one Enhanced Due Diligence alert; four levels are refused.
    fn five_level_models_rate_above_high(server) {
        let default = server.get(&format!("{MODELS}/1")).ok();
        let mut five = without(&default, &["name", "uid", "createTime", "etag"]);
        five["thresholds"] = json!([
            {"riskLevel": "LOW", "label": "Standard"}, {"riskLevel": "MEDIUM"}, {"riskLevel": "HIGH"},
            {"riskLevel": "CRITICAL"}, {"riskLevel": "EXTREME", "label": "Prohibited"}]);
        let mut four = five.clone();
        four["thresholds"].as_array_mut().unwrap().remove(3);
        server.post(MODELS, &four).invalid("LEVELS_MUST_BE_3_OR_5", "riskModel.thresholds");
        let created = server.post(MODELS, &five).ok();
        let scores: Vec<u64> = array(&created["thresholds"]).iter().map(|t| t["maxScore"].as_u64().unwrap()).collect();
        assert_eq!(scores, [20, 40, 60, 80, 100]);
        assert_eq!(created["thresholds"][4]["label"], "Prohibited");
        assert!(created["thresholds"][1].get("label").is_none(), "{created}");

        high_risk_person(&server, "reza");
        server.post(&format!("{ENTITIES}/reza:evaluate"), &json!({})).ok();
        let details = server.entity("reza")["riskDetails"].clone();
        let score = details["riskScore"].as_f64().unwrap();
        let level = details["riskLevel"].as_str().unwrap().to_owned();
        let level_of = |score: f64| ["LOW", "MEDIUM", "HIGH", "CRITICAL", "EXTREME"][((score - 1.0).max(0.0) / 20.0) as usize];
        assert!(score > 60.0, "{details}");
        assert_eq!(level, level_of(score), "{details}");
        assert_eq!(edd_alerts(&server, "reza").len(), 1, "above HIGH is HIGH or above");
        let filter = format!("riskDetails.riskLevel = {level}");
        assert_eq!(server.list_names(&[("filter", &filter)]), ["entities/reza"]);
        server.create_person("jane", "Jane Example");
        server.post(&format!("{ENTITIES}/jane:evaluate"), &json!({})).ok();
        let jane = server.entity("jane")["riskDetails"].clone();
        assert_eq!(jane["riskLevel"], level_of(jane["riskScore"].as_f64().unwrap()), "{jane}");
        let high_or_above = ["HIGH", "CRITICAL", "EXTREME"].contains(&jane["riskLevel"].as_str().unwrap());
        assert_eq!(edd_alerts(&server, "jane").len(), usize::from(high_or_above), "{jane}");
    }

    /// `riskDetails.riskStatus` filters entities: `ACTIVE` for a current rating (`RATED`
    /// reads as it, quoted or not), `OUTDATED` once the entity changed; an unrated
    /// entity matches neither `=` nor `!=`. BNDRY's example filter, snake_case and single
    /// quotes, answers 200.
    fn entities_filter_on_the_risk_status(server) {
        high_risk_person(&server, "reza");
        high_risk_person(&server, "rana");
        server.create_person("jane", "Jane Example");
        for id in ["reza", "rana"] {
            server.post(&format!("{ENTITIES}/{id}:evaluate"), &json!({})).ok();
        }
        server
            .patch(&format!("{ENTITIES}/rana?updateMask=displayName"), &json!({"displayName": "Rana Example"}))
            .ok();
        let listed = |filter: &str| server.list_names(&[("filter", filter)]);
        let bndry = r#"risk_details.risk_status = 'ACTIVE' AND display_name:"Example""#;
        assert_eq!(listed(bndry), ["entities/reza"]);
        for filter in [
            "riskDetails.riskStatus = ACTIVE",
            "riskDetails.riskStatus = RATED",
            r#"riskDetails.riskStatus = "RATED""#,
            "riskDetails.riskStatus != OUTDATED",
        ] {
            assert_eq!(listed(filter), ["entities/reza"], "{filter}");
        }
        assert_eq!(listed("riskDetails.riskStatus = OUTDATED"), ["entities/rana"]);
        assert_eq!(listed("NOT riskDetails.riskStatus = ACTIVE"), ["entities/rana", "entities/jane"]);
        server
            .get(&format!("{ENTITIES}{}", query(&[("filter", "riskDetails.riskStatus = rated")])))
            .invalid("INVALID_FILTER_VALUE", "filter");
    }
}

#[test]
fn a_rating_replays_byte_for_byte_sqlite() {
    a_rating_replays_byte_for_byte(Backend::Sqlite);
}

#[test]
fn a_rating_replays_byte_for_byte_postgres() {
    a_rating_replays_byte_for_byte(Backend::Postgres);
}

fn a_rating_replays_byte_for_byte(backend: Backend) {
    let server = Server::start(backend);
    high_risk_person(&server, "reza");
    server.create_person("partner", "Parvin Example");
    server
        .post(
            &format!("{ENTITIES}/reza:addEntityRelationship"),
            &json!({"relatedEntity": "entities/partner", "relationshipType": "SPOUSE"}),
        )
        .ok();
    server
        .get(&format!("{ENTITIES}/reza:evaluationInput"))
        .error(400, "FAILED_PRECONDITION", "NOT_RATED");
    let answer = server
        .post(&format!("{ENTITIES}/reza:evaluate"), &json!({}))
        .ok();
    let recorded = server.get(&format!("{ENTITIES}/reza:evaluationInput")).ok();
    assert_eq!(recorded["entity"], "entities/reza");
    assert_eq!(recorded["activityLog"], answer["activityLog"]["name"]);
    assert_eq!(recorded["input"], answer["activityLog"]["payload"]["input"]);
    assert_eq!(
        recorded["input"]["relatedEntities"],
        json!([{"entity": "entities/partner", "relationshipType": "SPOUSE"}])
    );
    assert!(recorded["input"]["evaluationDate"].is_string());
    let version = recorded["modelVersion"].as_str().unwrap();

    // The entity changes after the rating; the recorded input does not.
    server
        .patch(
            &format!("{ENTITIES}/reza?updateMask=individual.nationalities"),
            &json!({"individual": {"nationalities": ["FR"]}}),
        )
        .ok();

    let replay = server.send(
        server
            .request(reqwest::Method::POST, &format!("/v1alpha/{version}:rate"))
            .json(&json!({"input": recorded["input"]})),
    );
    assert_eq!(replay.status, 200, "{}", replay.text);
    let expected = serde_json::to_string(&recorded["rating"]).unwrap();
    assert_eq!(
        replay.text, expected,
        "the replay is the recorded rating, byte for byte"
    );
    assert_eq!(
        serde_json::to_string(&answer["activityLog"]["payload"]["rating"]).unwrap(),
        expected
    );

    // A changed input rates differently; an unknown field in it is refused.
    let mut changed = recorded["input"].clone();
    changed["nationalities"] = json!(["FR"]);
    changed["countryOfResidence"] = json!("FR");
    let other = server
        .post(
            &format!("/v1alpha/{version}:rate"),
            &json!({"input": changed}),
        )
        .ok();
    assert!(other["riskScore"].as_u64() < recorded["rating"]["riskScore"].as_u64());
    changed["income"] = json!(1);
    server
        .post(
            &format!("/v1alpha/{version}:rate"),
            &json!({"input": changed}),
        )
        .invalid("UNKNOWN_FIELD", "rate.input.income");
}

#[test]
fn risk_models_are_versioned_per_tenant_sqlite() {
    risk_models_are_versioned_per_tenant(Backend::Sqlite);
}

#[test]
fn risk_models_are_versioned_per_tenant_postgres() {
    risk_models_are_versioned_per_tenant(Backend::Postgres);
}

fn risk_models_are_versioned_per_tenant(backend: Backend) {
    let server = Server::start(backend);
    let page = server.get(MODELS).ok();
    let models = array(&page["riskModels"]);
    assert_eq!(models.len(), 1, "a tenant starts with the default: {page}");
    let default = &models[0];
    assert_eq!(default["name"], "riskModels/1");
    assert_eq!(default["countryRisk"]["effectiveDate"], "2025-10-24");
    assert_eq!(default["countryRisk"]["scores"]["KP"], 100);
    assert_eq!(default["thresholds"][2]["maxScore"], 100);

    // Thresholds that do not end at 100 are refused, naming the field.
    let mut bad = without(default, &["name", "uid", "createTime", "etag"]);
    bad["thresholds"][2]["maxScore"] = json!(90);
    server.post(MODELS, &bad).invalid(
        "THRESHOLDS_MUST_END_AT_100",
        "riskModel.thresholds[2].maxScore",
    );
    let mut bad = without(default, &["name"]);
    bad["factors"][0]["weight"] = json!(150);
    server
        .post(MODELS, &bad)
        .invalid("OUT_OF_RANGE", "riskModel.factors[0].weight");

    // A stricter model: Medium ends at 50.
    let mut stricter = default.clone();
    stricter["displayName"] = json!("Stricter");
    stricter["thresholds"][1]["maxScore"] = json!(50);
    let request = "?requestId=6f1c1f8e-5b7a-4d39-9a8e-0c4d2f1e3a77";
    let created = server.post(&format!("{MODELS}{request}"), &stricter).ok();
    assert_eq!(created["name"], "riskModels/2");
    assert_ne!(created["uid"], default["uid"]);
    let retried = server.post(&format!("{MODELS}{request}"), &stricter).ok();
    assert_eq!(retried, created, "a retried create is the same version");
    assert_eq!(server.get(&format!("{MODELS}/2")).ok(), created);
    assert_eq!(
        server.get(&format!("{MODELS}/1")).ok()["displayName"],
        default["displayName"]
    );
    assert_eq!(
        names(&server.get(MODELS).ok()["riskModels"]),
        ["riskModels/2", "riskModels/1"],
        "newest first"
    );
    server
        .get(&format!("{MODELS}/3"))
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    server
        .get(&format!("{MODELS}/latest"))
        .error(400, "INVALID_ARGUMENT", "INVALID_MODEL_VERSION");

    // Ratings use the newest version; another tenant still has only its default.
    server.create_person("anne", "Anne Example");
    let answer = server
        .post(&format!("{ENTITIES}/anne:evaluate"), &json!({}))
        .ok();
    assert_eq!(
        answer["activityLog"]["payload"]["rating"]["modelVersion"],
        "riskModels/2"
    );
    let (_, child_token) = server.child_tenant("Other tenant");
    let theirs = server.send(server.request_as(Some(&child_token), reqwest::Method::GET, MODELS));
    assert_eq!(theirs.status, 200, "{}", theirs.text);
    let theirs: Value = serde_json::from_str(&theirs.text).unwrap();
    assert_eq!(names(&theirs["riskModels"]), ["riskModels/1"]);
}

#[test]
fn risk_rating_jobs_rate_through_a_worker_sqlite() {
    risk_rating_jobs_rate_through_a_worker(Backend::Sqlite);
}

#[test]
fn risk_rating_jobs_rate_through_a_worker_postgres() {
    risk_rating_jobs_rate_through_a_worker(Backend::Postgres);
}

fn risk_rating_jobs_rate_through_a_worker(backend: Backend) {
    let server = Server::start(backend);
    high_risk_person(&server, "reza");
    let jobs = format!("{ENTITIES}/reza/{JOBS}");
    let job = server.post(&jobs, &json!({})).ok();
    assert_eq!(job["state"], "PENDING");
    let name = job["name"].as_str().unwrap().to_owned();
    let operation = server
        .post(&format!("/v1alpha/{name}:run"), &json!({}))
        .ok();
    let done = server.wait_for(&operation);
    assert!(done.get("error").is_none(), "{done}");
    assert_eq!(
        done["metadata"]["type"],
        "rics.v1alpha.IndividualEntityRiskRatingJob"
    );
    let result = &done["response"]["result"];
    assert_eq!(result["riskLevel"], "HIGH", "{result}");
    assert_eq!(points_sum(result), result["riskScore"].as_u64().unwrap());
    assert_eq!(result["modelVersion"], "riskModels/1");
    let alert = result["alert"].as_str().unwrap();
    let log = result["activityLog"].as_str().unwrap();
    let details = server.entity("reza")["riskDetails"].clone();
    assert_eq!(details["ratingJob"], name.as_str());
    assert_eq!(details["activityLog"], log);
    let alerts = edd_alerts(&server, "reza");
    assert_eq!(names(&json!(alerts)), [alert]);
    assert_eq!(alerts[0]["source"], name.as_str());
    assert_eq!(alerts[0]["details"]["job"], name.as_str());
    let listed = server.get(&format!("{ENTITIES}/-/{JOBS}")).ok();
    assert_eq!(names(&listed[JOBS]), [name.as_str()]);

    // A job may name a version; an unknown one is refused when the job is created.
    server
        .post(&jobs, &json!({"modelVersion": "riskModels/9"}))
        .error(404, "NOT_FOUND", "RESOURCE_NOT_FOUND");
    server
        .post(&jobs, &json!({"modelVersion": "version one"}))
        .invalid("INVALID_MODEL_VERSION", "job.modelVersion");
    let pinned = server.post(&jobs, &json!({"modelVersion": "1"})).ok();
    assert_eq!(pinned["modelVersion"], "riskModels/1");

    // Organisations are not rated: refused on create and by :evaluate.
    server.create("?entityId=acme", &company("Acme Ltd"));
    server
        .post(&format!("{ENTITIES}/acme/{JOBS}"), &json!({}))
        .error(400, "FAILED_PRECONDITION", "NOT_AN_INDIVIDUAL");
    server
        .post(&format!("{ENTITIES}/acme:evaluate"), &json!({}))
        .error(400, "FAILED_PRECONDITION", "NOT_AN_INDIVIDUAL");

    // A deleted individual is neither rated nor run.
    server.delete(&format!("{ENTITIES}/reza")).ok();
    server
        .post(&format!("{ENTITIES}/reza:evaluate"), &json!({}))
        .error(400, "FAILED_PRECONDITION", "RESOURCE_DELETED");
    let pinned_name = pinned["name"].as_str().unwrap();
    server
        .post(&format!("/v1alpha/{pinned_name}:run"), &json!({}))
        .error(400, "FAILED_PRECONDITION", "ENTITY_DELETED");
}

#[test]
fn birth_country_and_newest_document_are_scored_sqlite() {
    birth_country_and_newest_document_are_scored(Backend::Sqlite);
}

#[test]
fn birth_country_and_newest_document_are_scored_postgres() {
    birth_country_and_newest_document_are_scored(Backend::Postgres);
}

/// `PLACE_OF_BIRTH` reads `individual.countryOfBirth`; `DOCUMENT_ISSUING_COUNTRY` the
/// newest live identity document, and the next newest once that one is deleted.
fn birth_country_and_newest_document_are_scored(backend: Backend) {
    let server = Server::start(backend);
    let default = server.get(&format!("{MODELS}/1")).ok();
    let mut model = without(&default, &["name", "uid", "createTime", "etag"]);
    model["factors"] = json!([
        {"factor": "PLACE_OF_BIRTH", "weight": 40, "unknownScore": 10},
        {"factor": "DOCUMENT_ISSUING_COUNTRY", "weight": 60, "unknownScore": 50},
    ]);
    assert_eq!(server.post(MODELS, &model).ok()["name"], "riskModels/2");
    server.create(
        "?entityId=born-abroad",
        &json!({
            "displayName": "Amal Example",
            "individual": {
                "legalName": {"givenName": "Amal", "familyName": "Example"},
                "countryOfBirth": "IR"
            }
        }),
    );
    let document = |id: &str, country: &str| {
        server
            .post(
                &format!("/v1alpha/documents?documentId={id}"),
                &json!({"entity": "entities/born-abroad", "documentType": "PASSPORT",
                        "documentNumber": format!("{}001", id.to_uppercase()), "issuingCountry": country}),
            )
            .ok();
    };
    let rate = || {
        let answer = server
            .post(&format!("{ENTITIES}/born-abroad:evaluate"), &json!({}))
            .ok();
        answer["activityLog"]["payload"].clone()
    };

    let payload = rate();
    let contributions = array(&payload["rating"]["contributions"]);
    assert_eq!(contributions[0]["factor"], "PLACE_OF_BIRTH");
    assert_eq!(contributions[0]["inputValue"], "IR");
    assert_eq!(contributions[0]["value"], 100, "IR: call for action");
    assert_eq!(contributions[1]["value"], 50, "no document: unknown");
    assert!(
        payload["input"].get("identityDocument").is_none(),
        "{payload}"
    );

    document("pass", "DE");
    document("visa", "YEM");
    let payload = rate();
    assert_eq!(payload["input"]["identityDocument"], "documents/visa");
    assert_eq!(payload["input"]["documentIssuingCountry"], "YE");
    let issuing = &array(&payload["rating"]["contributions"])[1];
    assert_eq!(issuing["factor"], "DOCUMENT_ISSUING_COUNTRY");
    assert_eq!(issuing["value"], 60, "YE: increased monitoring");

    server.delete("/v1alpha/documents/visa").ok();
    let payload = rate();
    assert_eq!(payload["input"]["identityDocument"], "documents/pass");
    assert_eq!(payload["input"]["documentIssuingCountry"], "DE");
    let issuing = &array(&payload["rating"]["contributions"])[1];
    assert_eq!(issuing["value"], 0, "DE: not listed, the default");

    // countryOfBirth is a country code like the others.
    let reply = server.patch(
        &format!("{ENTITIES}/born-abroad"),
        &json!({"individual": {"countryOfBirth": "Persia"}}),
    );
    reply.error(400, "INVALID_ARGUMENT", reply.reason());
    reply.assert_violation("entity.individual.countryOfBirth");
}
