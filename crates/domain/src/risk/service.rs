//! The risk model use cases: list, get and create versions, and rate an input with a
//! version (the replay of any rating).

use std::sync::{Arc, LazyLock};

use rics_aip::filter::{FieldType, FilterSchema};
use serde_json::{Value, json};

use super::default_model::default_model;
use super::model::{RiskModel, parse_version};
use super::ports::RiskModelRepository;
use super::rating::{EvaluationInput, Rating, rate};
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::id::parse_request_id;
use crate::job::model::worker_principal;
use crate::lifecycle::{self, ServiceContext};
use crate::list::{ListRequest, ListResponse, ListSpec, SortBy, SortKey};
use crate::principal::{Principal, TenantId};
use crate::repository::RepositoryError;
use crate::resource::{self, parse_body};
use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};

/// How often a create retries when a concurrent create took the next version.
const VERSION_RETRIES: usize = 5;
/// The method bound into idempotency keys.
const CREATE_METHOD: &str = "riskModels.create";

/// Every field of the risk model JSON with its behaviour on create (versions have no
/// update).
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{Immutable, Required};
    use FieldKind::{MultiLineText, Repeated, Scalar};
    resource::resource_fields(
        |own| {
            own.field("displayName", Scalar, Immutable)
                .field("description", MultiLineText, Immutable)
                .field("countryRisk", Scalar, Required)
                .field("factors", Repeated, Required)
                .field("thresholds", Repeated, Required)
        },
        &[],
    )
});

/// What risk model list filters may refer to.
static FILTER: LazyLock<FilterSchema> =
    LazyLock::new(|| FilterSchema::new().field("createTime", FieldType::Timestamp));

/// How versions are listed: 10 per page by default, at most 100 (larger sizes
/// coerced), newest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| ListSpec {
    method: "riskModels.list",
    default_page_size: 10,
    max_page_size: 100,
    filter: &FILTER,
    sortable: &["createTime"],
    default_order: &[SortKey {
        by: SortBy::Field("createTime"),
        descending: true,
    }],
    soft_delete: false,
});

/// The risk model use cases.
pub struct RiskModelService {
    models: Arc<dyn RiskModelRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl RiskModelService {
    /// The service over its port and its context.
    pub fn new(models: Arc<dyn RiskModelRepository>, context: ServiceContext) -> RiskModelService {
        RiskModelService { models, context }
    }

    /// The tenant's newest version. A tenant without one gets the default model
    /// stored as version 1 first, so that every rating names a stored version.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the store fails.
    pub async fn current(&self, tenant: &TenantId) -> Result<RiskModel> {
        for _ in 0..VERSION_RETRIES {
            if let Some(model) = self.models.latest(tenant).await.map_err(Error::from)? {
                return Ok(model);
            }
            let mut model = default_model()?;
            self.complete(&mut model, 1);
            let event = self.created_event(&model, &worker_principal(tenant))?;
            match self.models.create(tenant, &model, None, &[event]).await {
                // A concurrent first use stored it: read it.
                Ok(_) | Err(RepositoryError::AlreadyExists) => {}
                Err(e) => return Err(e.for_resource(&model.name)),
            }
        }
        Err(Error::concurrent_modification("riskModels"))
    }

    /// The version named `version` (`riskModels/3` or `3`).
    ///
    /// # Errors
    /// INVALID_ARGUMENT (on `field`) for a malformed version; NOT_FOUND when the
    /// tenant has no such version.
    pub async fn get(
        &self,
        principal: &Principal,
        field: &str,
        version: &str,
    ) -> Result<RiskModel> {
        let number = parse_version(field, version)?;
        let name = RiskModel::name_of(number);
        let tenant = &principal.tenant;
        if let Some(model) = self.stored(tenant, number, &name).await? {
            return Ok(model);
        }
        // A tenant that never rated has no version yet: store the default, then look.
        self.current(tenant).await?;
        lifecycle::read_named(&name, self.models.get(tenant, number)).await
    }

    /// One page of versions, newest first unless `orderBy` says otherwise.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<RiskModel>> {
        let tenant = &principal.tenant;
        self.context
            .paging
            .list_with(&LIST, tenant, None, request, async |query| {
                self.current(tenant).await?;
                Ok(self.models.list(tenant, query).await?)
            })
            .await
    }

    /// Stores the body as the next version (AIP-133), with an optional request id that
    /// makes retries safe (AIP-155).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body (see [`RiskModel::check`]) or request id, or a
    /// request id reused with another request.
    pub async fn create(
        &self,
        principal: &Principal,
        body: Value,
        request_id: Option<&str>,
    ) -> Result<RiskModel> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        let body = crate::fields::input(&TABLE, body, "riskModel")?;
        let mut checked: RiskModel = parse_body(body.clone(), "riskModel")?;
        checked.check()?;
        for _ in 0..VERSION_RETRIES {
            let latest = self.current(&principal.tenant).await?;
            let version = latest.version().unwrap_or(0) + 1;
            let mut model = checked.clone();
            self.complete(&mut model, version);
            let key = lifecycle::create_key(
                request_id,
                CREATE_METHOD,
                &[("riskModel", &body)],
                &model.name,
            );
            let event = self.created_event(&model, principal)?;
            let stored = lifecycle::create_once(&model.name, key.as_ref(), || {
                self.models.create(
                    &principal.tenant,
                    &model,
                    key.as_ref(),
                    std::slice::from_ref(&event),
                )
            })
            .await;
            match stored {
                Ok(None) => return Ok(model),
                Ok(Some(name)) => return self.get(principal, "name", &name).await,
                // A concurrent create took this version number: take the next.
                Err(e) if e.code == Code::AlreadyExists => {}
                Err(e) => return Err(e),
            }
        }
        Err(Error::concurrent_modification("riskModels"))
    }

    /// Rates `input` (an evaluation input document) with the version `version`: the
    /// replay of any rating, given the input `:evaluationInput` returns.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed version or input; NOT_FOUND for an unknown
    /// version.
    pub async fn rate(&self, principal: &Principal, version: &str, body: Value) -> Result<Rating> {
        let model = self.get(principal, "name", version).await?;
        let request: RateRequest = parse_body(body, "rate")?;
        Ok(rate(&model, &request.input))
    }

    /// The stored version `number`, named `name` in errors.
    async fn stored(
        &self,
        tenant: &TenantId,
        number: i64,
        name: &str,
    ) -> Result<Option<RiskModel>> {
        self.models
            .get(tenant, number)
            .await
            .map_err(|e| e.for_resource(name))
    }

    fn complete(&self, model: &mut RiskModel, version: i64) {
        model.name = RiskModel::name_of(version);
        model.uid = self.context.ids.uid();
        model.create_time = Some(self.context.clock.now());
        model.etag = resource::etag(&model.uid, 1);
    }

    /// `risk_model.created`, by the caller or (for the default) by rics's worker.
    fn created_event(&self, model: &RiskModel, principal: &Principal) -> Result<NewEvent> {
        let now = model
            .create_time
            .unwrap_or_else(|| self.context.clock.now());
        let after = serde_json::to_value(model).map_err(|e| Error::internal(e.to_string()))?;
        Ok(NewEvent::new(
            self.context.ids.resource_id(),
            "risk_model.created",
            &model.name,
            principal,
            now,
        )
        .with_field("version", json!(model.version()))
        .with_changes(None, Some(&after)))
    }
}

/// The body of `riskModels/{version}:rate`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateRequest {
    /// The evaluation input to rate, as `:evaluationInput` returns it.
    pub input: EvaluationInput,
}
