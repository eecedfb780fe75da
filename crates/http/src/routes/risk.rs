//! The risk routes: the tenant's risk model versions, the replay of a rating with a
//! version, and an entity's `:evaluate` and `:evaluationInput`.

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::activity::model::ActivityLog;
use rics_domain::principal::Scope;
use rics_domain::risk::RiskModel;
use rics_domain::risk::rating::{EvaluationInput, Rating};
use rics_domain::risk::service::RateRequest;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{Response, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, NoQuery, QueryParams};
use crate::state::ApiState;

resource_routes! {
    service: risk, resource: RiskModel, tag: "risk",
    id: ("riskModel" = String, Path, description = "The version: 1, 2, ...");

    POST "/v1alpha/entities/{entity}:evaluate" => evaluate, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}:evaluationInput" as "GetEntityEvaluationInput" => evaluation_input, Some(Scope::Read);
    /// Lists the tenant's risk model versions (a tenant without one gets the default as
    /// version 1).
    list_by list "/v1alpha/riskModels", Some(Scope::Read),
        lists rics_domain::risk::service::LIST => ListRiskModelsResponse,
        params(
            ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced)"),
            ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
            ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
            ("filter" = Option<String>, Query, description = "AIP-160 over createTime"),
            ("orderBy" = Option<String>, Query, description = "createTime, optionally ` desc`; default createTime desc (newest first)")),
        |caller, state, request| state.risk.models().list(caller, request);
    POST "/v1alpha/riskModels" => create, Some(Scope::Admin);
    /// Gets a risk model version.
    get_by get "/v1alpha/riskModels/{riskModel}", Some(Scope::Read),
        params(("riskModel" = String, Path, description = "The version: 1, 2, ..."), ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
        names [&format!("riskModels/{version}"), &version] => RiskModel,
        |caller, state, version| state.risk.models().get(caller, "name", &version);
    POST "/v1alpha/riskModels/{riskModel}:rate" => rate, Some(Scope::Read);
}

list_response! {
    /// A page of risk model versions.
    ListRiskModelsResponse {
        /// The versions, newest first unless `orderBy` says otherwise.
        risk_models: RiskModel,
        /// How many versions match the filter.
        total_size,
    }
}

/// The body of `:evaluate`: empty (the entity is rated with the tenant's newest model
/// version; a job can name another).
#[derive(Debug, Default, serde::Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EvaluateRequest {}

/// The answer of `:evaluate`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluateResponse {
    /// The RISK_RATING activity log: its payload holds `input`, `rating` and
    /// `previousRiskLevel`.
    pub activity_log: ActivityLog,
}

/// The answer of `:evaluationInput`. (A documentation schema: the answer is the
/// stored JSON.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct EvaluationInputResponse {
    /// The rated entity.
    entity: String,
    /// Exactly the input the latest rating consumed.
    input: EvaluationInput,
    /// The model version that rated it.
    model_version: String,
    /// The rating it gave.
    rating: Rating,
    /// The activity log that recorded it.
    activity_log: String,
}

/// Stores a new version of the tenant's risk model; ratings use the newest version
/// unless a job names another.
#[utoipa::path(post, path = "/v1alpha/riskModels", tag = "risk",
    params(("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = RiskModel,
    responses((status = 200, body = RiskModel), (status = 400, body = ErrorEnvelope)))]
pub async fn create(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&state
        .risk
        .models()
        .create(&caller.0, body.0, request_id.as_deref())
        .await?)
}

/// Rates an evaluation input with this version: the replay of a rating, given the
/// input `:evaluationInput` returned (the same bytes as the recorded rating, keys in
/// order).
#[utoipa::path(post, path = "/v1alpha/riskModels/{riskModel}:rate", tag = "risk",
    params(("riskModel" = String, Path, description = "The version: 1, 2, ...")),
    request_body = RateRequest,
    responses((status = 200, body = Rating), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn rate(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let rating = state.risk.models().rate(&caller.0, &path, body.0).await?;
    ok(&to_canonical(&rating)?)
}

/// Rates the individual now with the tenant's newest model and records the rating:
/// a RISK_RATING activity log, the entity's `riskDetails`, and an "Enhanced Due
/// Diligence Required" alert when the level rises to High.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}:evaluate", tag = "risk",
    params(("entity" = String, Path, description = "Entity id")),
    request_body = EvaluateRequest,
    responses((status = 200, body = EvaluateResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn evaluate(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let _: EvaluateRequest = rics_domain::resource::parse_body(body.0, "evaluate")?;
    let evaluated = state.risk.evaluate(&caller.0, &path, None, None).await?;
    ok(&EvaluateResponse {
        activity_log: evaluated.log,
    })
}

/// The input the entity's latest rating consumed, with the model version, the rating
/// and its activity log: `riskModels/{version}:rate` with this input gives the rating
/// again.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}:evaluationInput", tag = "risk",
    params(("entity" = String, Path, description = "Entity id")),
    responses((status = 200, body = EvaluationInputResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn evaluation_input(
    caller: Caller,
    _query: NoQuery,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    ok(&state.risk.evaluation_input(&caller.0, &path).await?)
}

/// A rating as JSON with its keys in order, as stored ratings read back.
fn to_canonical(rating: &Rating) -> Result<Value, rics_domain::error::Error> {
    serde_json::to_value(rating).map_err(|e| rics_domain::error::Error::internal(e.to_string()))
}
