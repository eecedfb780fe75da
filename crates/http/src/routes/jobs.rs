//! The job routes (PEP and sanctions screening, risk rating, ID document
//! verification): for each family, list (`entities/-` across entities), create, get,
//! `:run` and the runs' operations. The handlers of every family share one
//! implementation over the family's [`JobService`].

use actix_web::HttpRequest;
use actix_web::web::{Data, Path};
use rics_domain::document::model::DocumentType;
use rics_domain::error::Error;
use rics_domain::id::is_well_formed_id;
use rics_domain::job::JobService;
use rics_domain::job::id_verification::IdVerificationRunInput;
use rics_domain::job::model::job_name;
use rics_domain::job::pep_sanction::PepSanctionInput;
use rics_domain::job::risk_rating::RiskRatingInput;
use rics_domain::operation::Operation;
use rics_domain::principal::Scope;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::{Response, check_name_param, ok, total_size};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, JsonBody, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs" => list_pep_sanction, Some(Scope::Read), lists rics_domain::job::service::JOB_LIST;
    POST "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs" => create_pep_sanction, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}" => get_pep_sanction, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run" => run_pep_sanction, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}/operations/{operation}" => operation_pep_sanction, Some(Scope::Read);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs" => list_risk_rating, Some(Scope::Read), lists rics_domain::job::service::JOB_LIST;
    POST "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs" => create_risk_rating, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}" => get_risk_rating, Some(Scope::Read);
    POST "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}:run" => run_risk_rating, Some(Scope::Write);
    GET "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}/operations/{operation}" => operation_risk_rating, Some(Scope::Read);
    GET "/v1alpha/individualEntityIDVerificationJobs" => list_id_verification, Some(Scope::Read), lists rics_domain::job::service::JOB_LIST;
    POST "/v1alpha/individualEntityIDVerificationJobs" => create_id_verification, Some(Scope::Write);
    GET "/v1alpha/individualEntityIDVerificationJobs/{job}" => get_id_verification, Some(Scope::Read);
    POST "/v1alpha/individualEntityIDVerificationJobs/{job}:run" => run_id_verification, Some(Scope::Write);
    GET "/v1alpha/individualEntityIDVerificationJobs/{job}/operations/{operation}" => operation_id_verification, Some(Scope::Read);
}

/// A page of screening jobs. (A documentation schema: responses are built from the
/// family's JSON.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ListPepSanctionIndividualEntityJobsResponse {
    /// The jobs, newest first unless `orderBy` says otherwise.
    pep_sanction_individual_entity_jobs: Vec<PepSanctionIndividualEntityJob>,
    /// Token of the next page; absent on the last page.
    next_page_token: Option<String>,
    /// How many jobs match.
    total_size: i32,
}

/// A PEP and sanctions screening job, as the API shows it. (A documentation schema:
/// jobs are rendered by the family's service.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct PepSanctionIndividualEntityJob {
    /// `entities/{entity}/pepSanctionIndividualEntityJobs/{job}`. Output only.
    #[schema(read_only, required = false)]
    name: String,
    /// Random identifier. Output only.
    #[schema(read_only, required = false)]
    uid: String,
    /// The screened entity. Output only (the path gives it).
    #[schema(read_only, required = false)]
    entity: String,
    /// The inputs.
    #[serde(flatten)]
    input: PepSanctionInput,
    /// PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED. Output only.
    #[schema(read_only, required = false)]
    state: String,
    /// The latest successful run's result: `status` (CLEAR or POTENTIAL_MATCH),
    /// `matches[]` {`listEntry`, `dataset`, `matchedName`, `screenedName`, `score`,
    /// `explanation`}, `listVersions[]`, `screenedNames`, `threshold`, `screenTime`.
    /// Output only.
    #[schema(value_type = Object, read_only, required = false)]
    result: Option<Value>,
    /// The latest run's operation. Output only.
    #[schema(read_only, required = false)]
    latest_operation: Option<String>,
    /// Creation time. Output only.
    #[schema(read_only, required = false)]
    create_time: String,
    /// Last change time. Output only.
    #[schema(read_only, required = false)]
    update_time: String,
    /// Strong etag.
    #[schema(read_only, required = false)]
    etag: String,
}

async fn list(service: &JobService, caller: Caller, req: HttpRequest, entity: &str) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(false)?;
    query.finish()?;
    let page = service.list(&caller.0, entity, &request).await?;
    let mut body = serde_json::Map::new();
    body.insert(service.collection().into(), Value::Array(page.items));
    if let Some(token) = page.next_page_token {
        body.insert("nextPageToken".into(), Value::String(token));
    }
    body.insert("totalSize".into(), total_size(page.total_size).into());
    ok(&Value::Object(body))
}

async fn create(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    entity: &str,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&service
        .create(&caller.0, entity, body.0, request_id.as_deref())
        .await?)
}

async fn get(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    entity: &str,
    job: &str,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let name = job_name(service.collection(), entity, job);
    check_name_param(&mut query, &[&name])?;
    query.finish()?;
    ok(&service.get(&caller.0, entity, job).await?)
}

/// Starts a run: `in_body` is the body's `requestId`, which wins over the query's;
/// `run_input` the rest of the body, for the family to check.
async fn run(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    entity: &str,
    job: &str,
    in_body: Option<String>,
    run_input: Value,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let mut request_id = query.take("requestId")?;
    query.finish()?;
    if in_body.is_some() {
        request_id = in_body;
    }
    ok(&service
        .run(&caller.0, entity, job, request_id.as_deref(), run_input)
        .await?)
}

/// Starts a run whose body is a [`RunRequest`].
async fn run_plain(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    entity: &str,
    job: &str,
    body: JsonBody,
) -> Response {
    let run_body: RunRequest = rics_domain::resource::parse_body(body.0, "run")?;
    let run_input = Value::Object(serde_json::Map::new());
    run(
        service,
        caller,
        req,
        entity,
        job,
        run_body.request_id,
        run_input,
    )
    .await
}

async fn operation(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    path: (String, String, String),
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let (entity, job, operation) = path;
    ok(&service
        .get_operation(&caller.0, &entity, &job, &operation)
        .await?)
}

/// The body of `:run`.
#[derive(Debug, Default, serde::Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunRequest {
    /// A UUID making the call idempotent (also accepted as a query parameter).
    #[serde(default)]
    pub request_id: Option<String>,
}

/// The body of an ID document verification job's `:run`: as [`RunRequest`], with the
/// ID document verification guide's `entity` and `idType`.
#[derive(Debug, Default, serde::Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IdVerificationRunRequest {
    /// A UUID making the call idempotent (also accepted as a query parameter).
    #[serde(default)]
    pub request_id: Option<String>,
    /// The job's entity, `entities/{entity}`: any other is 400 `ENTITY_MISMATCH`.
    #[serde(default)]
    pub entity: Option<String>,
    /// For this run only: verify the entity's newest live document of this type,
    /// whatever the job names. The run's result records it.
    #[serde(default)]
    pub id_type: Option<DocumentType>,
}

/// Lists an entity's screening jobs, or every entity's with `entities/-`.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id, or `-` for every entity"),
        ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over entity, state, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc")),
    responses((status = 200, body = ListPepSanctionIndividualEntityJobsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_pep_sanction(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    list(&state.pep_sanction_jobs, caller, req, &path).await
}

/// Creates a screening job about the entity.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = PepSanctionInput,
    responses((status = 200, body = PepSanctionIndividualEntityJob), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn create_pep_sanction(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    create(&state.pep_sanction_jobs, caller, req, &path, body).await
}

/// Gets a screening job.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = PepSanctionIndividualEntityJob), (status = 404, body = ErrorEnvelope)))]
pub async fn get_pep_sanction(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    let (entity, job) = path.into_inner();
    get(&state.pep_sanction_jobs, caller, req, &entity, &job).await
}

/// Runs a screening job: returns the run's operation, to poll until `done`.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = RunRequest,
    responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn run_pep_sanction(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let (entity, job) = path.into_inner();
    run_plain(&state.pep_sanction_jobs, caller, req, &entity, &job, body).await
}

/// A run's operation.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}/operations/{operation}", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"), ("operation" = String, Path, description = "Operation id")),
    responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
pub async fn operation_pep_sanction(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String, String)>,
    state: Data<ApiState>,
) -> Response {
    operation(&state.pep_sanction_jobs, caller, req, path.into_inner()).await
}

/// A page of risk rating jobs. (A documentation schema: responses are built from the
/// family's JSON.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ListIndividualEntityRiskRatingJobsResponse {
    /// The jobs, newest first unless `orderBy` says otherwise.
    individual_entity_risk_rating_jobs: Vec<IndividualEntityRiskRatingJob>,
    /// Token of the next page; absent on the last page.
    next_page_token: Option<String>,
    /// How many jobs match.
    total_size: i32,
}

/// A risk rating job, as the API shows it. (A documentation schema: jobs are rendered
/// by the family's service.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct IndividualEntityRiskRatingJob {
    /// `entities/{entity}/individualEntityRiskRatingJobs/{job}`. Output only.
    #[schema(read_only, required = false)]
    name: String,
    /// Random identifier. Output only.
    #[schema(read_only, required = false)]
    uid: String,
    /// The rated individual. Output only (the path gives it).
    #[schema(read_only, required = false)]
    entity: String,
    /// The inputs.
    #[serde(flatten)]
    input: RiskRatingInput,
    /// PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED. Output only.
    #[schema(read_only, required = false)]
    state: String,
    /// The latest successful run's rating: `riskScore` (0 to 100), `riskLevel`,
    /// `contributions[]` {`factor`, `inputValue`, `value`, `weight`, `points`,
    /// `reason`} whose points sum exactly to the score, `modelVersion`, and the
    /// `activityLog` (and `alert`, when the level rose to High) it recorded. Output
    /// only.
    #[schema(value_type = Object, read_only, required = false)]
    result: Option<Value>,
    /// The latest run's operation. Output only.
    #[schema(read_only, required = false)]
    latest_operation: Option<String>,
    /// Creation time. Output only.
    #[schema(read_only, required = false)]
    create_time: String,
    /// Last change time. Output only.
    #[schema(read_only, required = false)]
    update_time: String,
    /// Strong etag.
    #[schema(read_only, required = false)]
    etag: String,
}

/// Lists an individual's risk rating jobs, or every entity's with `entities/-`.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id, or `-` for every entity"),
        ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over entity, state, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc")),
    responses((status = 200, body = ListIndividualEntityRiskRatingJobsResponse), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn list_risk_rating(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    list(&state.risk_rating_jobs, caller, req, &path).await
}

/// Creates a risk rating job about the individual.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = RiskRatingInput,
    responses((status = 200, body = IndividualEntityRiskRatingJob), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn create_risk_rating(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    create(&state.risk_rating_jobs, caller, req, &path, body).await
}

/// Gets a risk rating job.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = IndividualEntityRiskRatingJob), (status = 404, body = ErrorEnvelope)))]
pub async fn get_risk_rating(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    let (entity, job) = path.into_inner();
    get(&state.risk_rating_jobs, caller, req, &entity, &job).await
}

/// Runs a risk rating job: returns the run's operation, to poll until `done`.
#[utoipa::path(post, path = "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}:run", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = RunRequest,
    responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn run_risk_rating(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let (entity, job) = path.into_inner();
    run_plain(&state.risk_rating_jobs, caller, req, &entity, &job, body).await
}

/// A risk rating run's operation.
#[utoipa::path(get, path = "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}/operations/{operation}", tag = "jobs",
    params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id"), ("operation" = String, Path, description = "Operation id")),
    responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
pub async fn operation_risk_rating(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String, String)>,
    state: Data<ApiState>,
) -> Response {
    operation(&state.risk_rating_jobs, caller, req, path.into_inner()).await
}

/// A page of ID document verification jobs. (A documentation schema: responses are
/// built from the family's JSON.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ListIndividualEntityIDVerificationJobsResponse {
    /// The jobs, newest first unless `orderBy` says otherwise.
    #[serde(rename = "individualEntityIDVerificationJobs")]
    individual_entity_id_verification_jobs: Vec<IndividualEntityIDVerificationJob>,
    /// Token of the next page; absent on the last page.
    next_page_token: Option<String>,
    /// How many jobs match.
    total_size: i32,
}

/// An ID document verification job, as the API shows it. (A documentation schema:
/// jobs are rendered by the family's service.)
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct IndividualEntityIDVerificationJob {
    /// `individualEntityIDVerificationJobs/{job}`. Output only.
    #[schema(read_only, required = false)]
    name: String,
    /// Random identifier. Output only.
    #[schema(read_only, required = false)]
    uid: String,
    /// The individual whose document is verified, `entities/{entity}`. Required on
    /// create, immutable.
    #[schema(pattern = "^entities/[a-z0-9-]{1,63}$")]
    entity: String,
    /// The document to verify, `documents/{document}`, of the job's entity; or else
    /// `idType`.
    #[schema(pattern = "^documents/[a-z0-9-]{1,63}$")]
    document: Option<String>,
    /// Or the type of document to verify: the entity's newest live document of this
    /// type when the job runs.
    #[schema(schema_with = DocumentType::specified_schema)]
    id_type: Option<DocumentType>,
    /// PENDING, RUNNING, SUCCEEDED, FAILED or CANCELLED. Output only.
    #[schema(read_only, required = false)]
    state: String,
    /// The latest successful run's verification: `outcome` (PASSED or FAILED),
    /// `checks[]` {`check`, `status` (PASSED, FAILED, NOT_APPLICABLE), `reason`},
    /// `document`, `documentType`, `verifyDate`, `activityLog` and, on failure,
    /// `alert`. Output only.
    #[schema(value_type = Object, read_only, required = false)]
    result: Option<Value>,
    /// The latest run's operation. Output only.
    #[schema(read_only, required = false)]
    latest_operation: Option<String>,
    /// Creation time. Output only.
    #[schema(read_only, required = false)]
    create_time: String,
    /// Last change time. Output only.
    #[schema(read_only, required = false)]
    update_time: String,
    /// Strong etag.
    #[schema(read_only, required = false)]
    etag: String,
}

/// Lists the ID document verification jobs of every entity.
#[utoipa::path(get, path = "/v1alpha/individualEntityIDVerificationJobs", tag = "jobs",
    params(
        ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced)"),
        ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
        ("skip" = Option<i32>, Query, description = "Items to skip"),
        ("filter" = Option<String>, Query, description = "AIP-160 over entity, state, createTime, updateTime"),
        ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc")),
    responses((status = 200, body = ListIndividualEntityIDVerificationJobsResponse), (status = 400, body = ErrorEnvelope)))]
pub async fn list_id_verification(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
) -> Response {
    list(&state.id_verification_jobs, caller, req, "-").await
}

/// Creates an ID document verification job about the individual `entity` of the body.
#[utoipa::path(post, path = "/v1alpha/individualEntityIDVerificationJobs", tag = "jobs",
    params(("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = IndividualEntityIDVerificationJob,
    responses((status = 200, body = IndividualEntityIDVerificationJob), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn create_id_verification(
    caller: Caller,
    req: HttpRequest,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    rics_domain::resource::require_object(&body.0, "job")?;
    let entity = match body.0.get("entity").and_then(Value::as_str) {
        None | Some("") => {
            return Err(Error::invalid_field(
                "job.entity",
                "REQUIRED",
                "name the individual whose document to verify (entities/{entity})",
            )
            .into());
        }
        Some(name) => name
            .strip_prefix("entities/")
            .filter(|id| is_well_formed_id(id) && *id != "-")
            .ok_or_else(|| {
                Error::invalid_field(
                    "job.entity",
                    "INVALID_NAME",
                    format!("'{name}' is not an entity name (entities/{{entity}})"),
                )
            })?
            .to_owned(),
    };
    create(&state.id_verification_jobs, caller, req, &entity, body).await
}

/// Gets an ID document verification job.
#[utoipa::path(get, path = "/v1alpha/individualEntityIDVerificationJobs/{job}", tag = "jobs",
    params(("job" = String, Path, description = "Job id"),
        ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
    responses((status = 200, body = IndividualEntityIDVerificationJob), (status = 404, body = ErrorEnvelope)))]
pub async fn get_id_verification(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
) -> Response {
    get(&state.id_verification_jobs, caller, req, "-", &path).await
}

/// Runs an ID document verification job: returns the run's operation, to poll until
/// `done`.
#[utoipa::path(post, path = "/v1alpha/individualEntityIDVerificationJobs/{job}:run", tag = "jobs",
    params(("job" = String, Path, description = "Job id"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
    request_body = IdVerificationRunRequest,
    responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
pub async fn run_id_verification(
    caller: Caller,
    req: HttpRequest,
    path: Path<String>,
    state: Data<ApiState>,
    body: JsonBody,
) -> Response {
    let run_body: IdVerificationRunRequest = rics_domain::resource::parse_body(body.0, "run")?;
    let run_input = serde_json::to_value(IdVerificationRunInput {
        entity: run_body.entity,
        id_type: run_body.id_type,
    })
    .map_err(|e| Error::internal(e.to_string()))?;
    run(
        &state.id_verification_jobs,
        caller,
        req,
        "-",
        &path,
        run_body.request_id,
        run_input,
    )
    .await
}

/// An ID document verification run's operation.
#[utoipa::path(get, path = "/v1alpha/individualEntityIDVerificationJobs/{job}/operations/{operation}", tag = "jobs",
    params(("job" = String, Path, description = "Job id"), ("operation" = String, Path, description = "Operation id")),
    responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
pub async fn operation_id_verification(
    caller: Caller,
    req: HttpRequest,
    path: Path<(String, String)>,
    state: Data<ApiState>,
) -> Response {
    let (job, operation_id) = path.into_inner();
    operation(
        &state.id_verification_jobs,
        caller,
        req,
        ("-".to_owned(), job, operation_id),
    )
    .await
}
