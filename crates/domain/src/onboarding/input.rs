//! What an onboarding job is created with, and the checks that make it safe to run
//! later: the form definition exists, the JSONata mapping parses and uses only what
//! rics supports, and the `webhookUri` passes the webhook URL policy (SSRF rules) that
//! webhook endpoints' `url` goes through.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::error::{Error, Result};
use crate::form_definition::FormDefinitionService;
use crate::onboarding::mapping::{
    CompiledMapping, MAPPING_FIELD, MappingEngine, decode_expression,
};
use crate::principal::Principal;
use crate::time::Timestamp;
use crate::webhook::ports::HostResolver;
use crate::webhook::target::TargetPolicy;

/// How long the hosted form's link works when the job names no `expireTime`.
pub const DEFAULT_LINK_LIFETIME: Duration = Duration::from_secs(7 * 86_400);
/// The longest a link may work: a person onboards within days, and a link is a
/// bearer credential to their form.
pub const MAX_LINK_LIFETIME: Duration = Duration::from_secs(30 * 86_400);

/// The inputs of an onboarding job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OnboardingInput {
    /// The form the person fills, `formDefinitions/{formDefinition}` (optionally
    /// `@{revisionId}`).
    pub form_definition: String,
    /// The JSONata expression, as base64 bytes, that maps the form's `response` (its
    /// root `$`) to an entity body as `POST /v1alpha/entities` takes it.
    pub jsonata_expression: String,
    /// Where the decision is sent, as event `onboard_individual_entity_job.decided`.
    pub webhook_uri: String,
    /// Where the person lands after the end page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_uri: Option<String>,
    /// When the link and the form stop working; absent: seven days after the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expire_time: Option<Timestamp>,
}

/// Inputs that passed every check, with the mapping they hold, ready to run.
#[derive(Debug, Clone)]
pub struct CheckedOnboarding {
    /// The inputs, the form definition's name as the store gives it.
    pub input: OnboardingInput,
    /// The checked mapping.
    pub mapping: Arc<dyn CompiledMapping>,
}

impl OnboardingInput {
    /// Checks the inputs of a job created at `now` by `principal`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `job.jsonataExpression` (`INVALID_JSONATA`,
    /// `UNSUPPORTED_JSONATA_FUNCTION`), `job.redirectUri` (`INVALID_URL`),
    /// `job.expireTime` (`EXPIRE_TIME_PASSED`, `EXPIRE_TIME_TOO_FAR`), or
    /// `job.webhookUri` as the webhook URL policy refuses it (INVALID_ARGUMENT or
    /// FAILED_PRECONDITION); what resolving `job.formDefinition` reports (NOT_FOUND,
    /// FAILED_PRECONDITION for a deleted definition).
    pub async fn check(
        mut self,
        principal: &Principal,
        now: Timestamp,
        definitions: &FormDefinitionService,
        policy: &TargetPolicy,
        resolver: &dyn HostResolver,
        engine: &dyn MappingEngine,
    ) -> Result<CheckedOnboarding> {
        let mapping = self.mapping(engine)?;
        if let Some(redirect) = &self.redirect_uri {
            check_redirect(redirect)?;
        }
        if let Some(expire_time) = self.expire_time {
            check_expiry(expire_time, now)?;
        }
        let target = policy.check_url("job.webhookUri", &self.webhook_uri)?;
        policy
            .addresses("job.webhookUri", &target, resolver)
            .await?;
        let definition = definitions
            .resolve(
                &principal.tenant,
                "job.formDefinition",
                &self.form_definition,
            )
            .await?;
        self.form_definition = definition.name.clone();
        Ok(CheckedOnboarding {
            input: self,
            mapping,
        })
    }

    /// The job's mapping, checked by `engine`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT on `job.jsonataExpression` (`INVALID_JSONATA`,
    /// `UNSUPPORTED_JSONATA_FUNCTION`).
    pub fn mapping(&self, engine: &dyn MappingEngine) -> Result<Arc<dyn CompiledMapping>> {
        let bytes = decode_expression(&self.jsonata_expression, MAPPING_FIELD)?;
        engine.parse(&bytes, MAPPING_FIELD)
    }

    /// When the link of a run started at `now` stops working.
    pub fn link_expiry(&self, now: Timestamp) -> Timestamp {
        self.expire_time
            .unwrap_or_else(|| now.plus(DEFAULT_LINK_LIFETIME))
    }
}

/// A redirect must be an absolute http(s) URL: the end page links to it.
fn check_redirect(redirect: &str) -> Result<()> {
    let invalid =
        |description: &str| Error::invalid_field("job.redirectUri", "INVALID_URL", description);
    let url = Url::parse(redirect).map_err(|e| invalid(&e.to_string()))?;
    if !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
        return Err(invalid("must be an absolute http(s) URL"));
    }
    Ok(())
}

fn check_expiry(expire_time: Timestamp, now: Timestamp) -> Result<()> {
    if expire_time <= now {
        return Err(Error::invalid_field(
            "job.expireTime",
            "EXPIRE_TIME_PASSED",
            "must be in the future",
        ));
    }
    if expire_time > now.plus(MAX_LINK_LIFETIME) {
        return Err(Error::invalid_field(
            "job.expireTime",
            "EXPIRE_TIME_TOO_FAR",
            "must be at most 30 days ahead",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::net::IpAddr;
    use std::sync::Arc;

    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;

    use super::*;
    use crate::error::Code;
    use crate::form_definition::ports::{MockFormDefinitionRepository, MockFormRevisions};
    use crate::form_definition::service_tests::{context, now, principal, stored};
    use crate::onboarding::mapping::{
        INVALID_JSONATA, MockMappingEngine, UNSUPPORTED_JSONATA_FUNCTION,
    };
    use crate::webhook::ports::MockHostResolver;

    /// What the engine under test compiles: the source it was given.
    #[derive(Debug)]
    struct Source(String);

    impl CompiledMapping for Source {
        fn source(&self) -> &str {
            &self.0
        }

        fn evaluate(&self, _input: &serde_json::Value) -> Result<Option<serde_json::Value>> {
            Ok(None)
        }
    }

    /// An engine that refuses sources starting `bad` as not parsing, and sources
    /// calling `$formatNumber` as unsupported, on the field it is given.
    fn engine() -> MockMappingEngine {
        let mut engine = MockMappingEngine::new();
        engine.expect_parse().returning(|bytes, field| {
            let source = String::from_utf8_lossy(bytes).into_owned();
            if source.starts_with("bad") {
                Err(Error::invalid_field(
                    field,
                    INVALID_JSONATA,
                    "does not parse",
                ))
            } else if source.contains("$formatNumber") {
                Err(Error::invalid_field(
                    field,
                    UNSUPPORTED_JSONATA_FUNCTION,
                    "unsupported",
                ))
            } else {
                Ok(Arc::new(Source(source)) as Arc<dyn CompiledMapping>)
            }
        });
        engine
    }

    fn input() -> OnboardingInput {
        OnboardingInput {
            form_definition: "formDefinitions/contact".into(),
            jsonata_expression: STANDARD.encode(r#"{"displayName": givenName}"#),
            webhook_uri: "https://hooks.example.com/onboarding".into(),
            redirect_uri: None,
            expire_time: None,
        }
    }

    fn definitions(found: bool) -> FormDefinitionService {
        let mut repository = MockFormDefinitionRepository::new();
        repository
            .expect_get()
            .returning(move |_, _| Ok(found.then(stored)));
        FormDefinitionService::new(
            Arc::new(repository),
            Arc::new(MockFormRevisions::new()),
            context(),
        )
    }

    fn resolver(address: &str) -> MockHostResolver {
        let address: IpAddr = address.parse().unwrap();
        let mut resolver = MockHostResolver::new();
        resolver
            .expect_resolve()
            .returning(move |_, _| Ok(vec![address]));
        resolver
    }

    async fn check(input: OnboardingInput) -> Result<CheckedOnboarding> {
        input
            .check(
                &principal(),
                now(),
                &definitions(true),
                &TargetPolicy::default(),
                &resolver("93.184.216.34"),
                &engine(),
            )
            .await
    }

    #[tokio::test]
    async fn good_inputs_give_the_mapping_and_the_stored_definition_name() {
        let checked = check(input()).await.unwrap();
        assert_eq!(checked.mapping.source(), r#"{"displayName": givenName}"#);
        assert_eq!(checked.input.form_definition, stored().name);
    }

    #[tokio::test]
    async fn an_expression_that_does_not_parse_is_refused_on_its_field() {
        let mut bad = input();
        bad.jsonata_expression = STANDARD.encode("bad { \"a\": ");
        let err = check(bad).await.unwrap_err();
        assert_eq!(err.reason, INVALID_JSONATA);
        assert_eq!(err.field_violations[0].field, "job.jsonataExpression");
    }

    #[tokio::test]
    async fn an_expression_that_is_not_base64_is_refused_on_its_field() {
        let mut bad = input();
        bad.jsonata_expression = "not base64!".into();
        let err = check(bad).await.unwrap_err();
        assert_eq!(err.reason, INVALID_JSONATA);
        assert_eq!(err.field_violations[0].field, "job.jsonataExpression");
    }

    #[tokio::test]
    async fn an_unsupported_function_is_refused_on_its_field() {
        let mut bad = input();
        bad.jsonata_expression = STANDARD.encode("$formatNumber(income, '#,##0')");
        let err = check(bad).await.unwrap_err();
        assert_eq!(err.reason, UNSUPPORTED_JSONATA_FUNCTION);
        assert_eq!(err.field_violations[0].field, "job.jsonataExpression");
    }

    #[tokio::test]
    async fn a_webhook_uri_leading_to_a_private_address_is_refused() {
        let err = input()
            .check(
                &principal(),
                now(),
                &definitions(true),
                &TargetPolicy::default(),
                &resolver("10.0.0.7"),
                &engine(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.reason, "URL_FORBIDDEN_ADDRESS");
        assert_eq!(err.metadata["field"], "job.webhookUri");
    }

    #[tokio::test]
    async fn a_plain_http_webhook_uri_is_refused() {
        let mut bad = input();
        bad.webhook_uri = "http://hooks.example.com/x".into();
        let err = check(bad).await.unwrap_err();
        assert_eq!(err.reason, "URL_NOT_HTTPS");
    }

    #[tokio::test]
    async fn an_unknown_form_definition_is_not_found() {
        let err = input()
            .check(
                &principal(),
                now(),
                &definitions(false),
                &TargetPolicy::default(),
                &resolver("93.184.216.34"),
                &engine(),
            )
            .await
            .unwrap_err();
        assert_eq!(err.code, Code::NotFound);
    }

    #[tokio::test]
    async fn an_expiry_must_be_ahead_and_within_thirty_days() {
        let mut past = input();
        past.expire_time = Some(now().minus(Duration::from_secs(1)));
        assert_eq!(check(past).await.unwrap_err().reason, "EXPIRE_TIME_PASSED");
        let mut far = input();
        far.expire_time = Some(now().plus(MAX_LINK_LIFETIME + Duration::from_secs(1)));
        assert_eq!(check(far).await.unwrap_err().reason, "EXPIRE_TIME_TOO_FAR");
        let mut near = input();
        near.expire_time = Some(now().plus(Duration::from_secs(3_600)));
        let checked = check(near).await.unwrap();
        assert_eq!(
            checked.input.link_expiry(now()),
            now().plus(Duration::from_secs(3_600))
        );
    }

    #[tokio::test]
    async fn a_redirect_must_be_an_absolute_web_url() {
        let mut bad = input();
        bad.redirect_uri = Some("javascript:alert(1)".into());
        let err = check(bad).await.unwrap_err();
        assert_eq!(err.field_violations[0].field, "job.redirectUri");
    }

    #[test]
    fn a_link_without_expiry_works_seven_days() {
        assert_eq!(
            input().link_expiry(now()),
            now().plus(DEFAULT_LINK_LIFETIME)
        );
    }
}
