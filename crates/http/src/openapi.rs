//! The OpenAPI 3.1 document, generated from the handlers' annotations and served at
//! `/v1alpha/openapi.json`.

mod limits;
mod normalize;

use std::sync::LazyLock;

use actix_web::HttpResponse;
use serde_json::Value;
use utoipa::OpenApi;

/// The document's frame: the API's description and tags.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "rics: Risk and Identity Compliance Service",
        version = "v1alpha",
        description = "Entities under assessment, screening, verification, risk rating, alerts and forms, behind OAuth 2.0. Errors follow AIP-193; lists follow AIP-132/158/160."
    ),
    tags(
        (name = "entities", description = "People and organisations under assessment"),
        (name = "events", description = "The append-only record of every change"),
        (name = "activityLogs", description = "Activity log types and the activity logs recorded about entities"),
        (name = "jobs", description = "Jobs about an entity: created, then run; each run is a long-running operation"),
        (name = "risk", description = "Risk models (versioned, per tenant), the rating of individuals and its replay"),
        (name = "notes", description = "Notes about entities and workspaces; only their author changes them"),
        (name = "workspaces", description = "Cases: entities under review together"),
        (name = "alerts", description = "Alerts for analysts, raised by callers and jobs, and their types"),
        (name = "documents", description = "Identity documents of entities, with ICAO 9303 country codes as printed"),
        (name = "tenants", description = "Tenants; partners create child tenants"),
        (name = "oauth2", description = "The embedded OAuth 2.0 authorization server"),
        (name = "verificationSessions", description = "Identity verification with a provider (the built-in hosted capture, or Truuth): sessions, and Truuth's callback"),
        (name = "hosted", description = "The hosted form: HTML pages a person fills through a link, without a token"),
        (name = "health", description = "Probes"),
        (name = "meta", description = "This document")
    )
)]
struct Frame;

/// The API description: the frame with the operation of every route of the route table
/// and the security its scope asks for.
pub struct ApiDoc;

impl OpenApi for ApiDoc {
    fn openapi() -> utoipa::openapi::OpenApi {
        let mut document = Frame::openapi();
        crate::routes::add_operations(&mut document);
        utoipa::Modify::modify(&Security, &mut document);
        document
    }
}

/// Declares the OAuth 2.0 security scheme (both flows) and applies it to every API
/// operation.
struct Security;

impl utoipa::Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{
            AuthorizationCode, ClientCredentials, Flow, OAuth2, Scopes, SecurityRequirement,
            SecurityScheme,
        };
        let scopes = || {
            Scopes::from_iter([
                ("rics.read", "Read resources"),
                ("rics.write", "Create and change resources"),
                (
                    "rics.admin",
                    "Tenants, automations, activity log types, risk models",
                ),
            ])
        };
        let scheme = OAuth2::new([
            Flow::ClientCredentials(ClientCredentials::new("/oauth2/token", scopes())),
            Flow::AuthorizationCode(AuthorizationCode::new(
                "/oauth2/authorize",
                "/oauth2/token",
                scopes(),
            )),
        ]);
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("oauth2", SecurityScheme::OAuth2(scheme));
        for route in crate::routes::ROUTES {
            let Some(scope) = route.scope else { continue };
            let Some(item) = openapi.paths.paths.get_mut(route.path) else {
                continue;
            };
            let operation = match route.method {
                "GET" => item.get.as_mut(),
                "POST" => item.post.as_mut(),
                "PATCH" => item.patch.as_mut(),
                "DELETE" => item.delete.as_mut(),
                _ => None,
            };
            if let Some(operation) = operation {
                operation.security =
                    Some(vec![SecurityRequirement::new("oauth2", [scope.as_str()])]);
            }
        }
    }
}

/// The served document: utoipa's, with the rules of [`normalize`] applied, built once.
static DOCUMENT: LazyLock<Value> = LazyLock::new(|| {
    let mut document = serde_json::to_value(ApiDoc::openapi()).unwrap_or(Value::Null);
    if let Err(problems) = normalize::normalize(&mut document) {
        tracing::error!(problems, "the document's rules do not hold");
    }
    document
});

/// The OpenAPI document as served.
pub fn served() -> &'static Value {
    &DOCUMENT
}

/// The OpenAPI document.
#[utoipa::path(get, path = "/v1alpha/openapi.json", tag = "meta", responses((status = 200, description = "The OpenAPI 3.1 document")))]
pub async fn document() -> HttpResponse {
    HttpResponse::Ok().json(served())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::json;

    use super::*;

    fn operations() -> Vec<(String, String, &'static Value)> {
        let mut operations = Vec::new();
        for (path, item) in served()["paths"].as_object().into_iter().flatten() {
            for (method, operation) in item.as_object().into_iter().flatten() {
                operations.push((method.to_uppercase(), path.clone(), operation));
            }
        }
        operations
    }

    #[test]
    fn every_operation_has_its_own_id() {
        let mut seen = BTreeSet::new();
        for (method, path, operation) in operations() {
            let id = operation["operationId"].as_str().unwrap_or_default();
            assert!(
                id.starts_with(|c: char| c.is_ascii_uppercase()),
                "{method} {path}: '{id}' does not follow the rule"
            );
            assert!(seen.insert(id.to_owned()), "{method} {path}: '{id}' again");
        }
        assert_eq!(seen.len(), crate::routes::ROUTES.len());
    }

    #[test]
    fn every_rule_applies() {
        let mut document = serde_json::to_value(ApiDoc::openapi()).unwrap_or(Value::Null);
        assert_eq!(normalize::normalize(&mut document), Ok(()));
        let schemas = &served()["components"]["schemas"];
        assert_eq!(
            schemas["Address"]["properties"]["postalCode"]["maxLength"],
            rics_domain::entity::validate::MAX_POSTAL_CODE
        );
    }

    #[test]
    fn free_form_json_refuses_nul_at_any_depth() {
        let payload_schema = json!({
            "components": served()["components"],
            "$ref": "#/components/schemas/ActivityLogType/properties/payloadSchema",
        });
        let validator = jsonschema::validator_for(&payload_schema);
        assert!(validator.is_ok(), "{validator:?}");
        let Ok(validator) = validator else { return };
        for fits in [
            json!({}),
            json!({"type": "object", "properties": {"a": {"enum": ["tab\there", 1, null]}}}),
        ] {
            assert!(validator.is_valid(&fits), "{fits}");
        }
        for refused in [
            json!({"a\u{0}": 1}),
            json!({"properties": {"a": {"enum": ["x\u{0}"]}}}),
            json!({"allOf": [{"properties": {"b\u{0}": true}}]}),
        ] {
            assert!(!validator.is_valid(&refused), "{refused}");
        }
    }

    #[test]
    fn enums_list_the_values_of_the_wire() {
        let schemas = &served()["components"]["schemas"];
        let gender: Vec<&str> = schemas["Gender"]["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(gender, rics_domain::entity::model::Gender::VALUES);
        for (name, schema) in schemas.as_object().into_iter().flatten() {
            for value in schema["enum"].as_array().into_iter().flatten() {
                let text = value.as_str().unwrap_or_default();
                assert!(
                    !text.chars().any(char::is_lowercase) || text.contains('.'),
                    "{name} has the value '{text}', not the wire's"
                );
            }
        }
    }

    #[test]
    fn every_api_operation_documents_the_error_envelope() {
        for (method, path, operation) in operations() {
            if !path.starts_with("/v1alpha/")
                || path.ends_with("openapi.json")
                || path == crate::routes::verification::TRUUTH_CALLBACK
            {
                continue;
            }
            for status in ["400", "401", "403", "404", "429", "default"] {
                assert_eq!(
                    operation["responses"][status]["$ref"], "#/components/responses/Error",
                    "{method} {path} {status}"
                );
            }
        }
    }
}
