//! The job routes: for each family (PEP and sanctions screening, risk rating, ID
//! document verification, onboarding, identity verification), list (`entities/-`
//! across entities), create, get, `:run` and the runs' operations, and for a family
//! whose jobs may be changed (its `input_fields`) PATCH, DELETE and `:undelete`.
//! `job_routes!` declares a family's routes and their OpenAPI operations from its
//! paths and types; `job_schema!` its job's schema, whose
//! inputs and result are the family's own types. Every family's handlers share one
//! implementation over its [`JobService`].

use actix_web::HttpRequest;
use rics_domain::job::JobService;
use rics_domain::job::id_verification::{IdVerificationInput, IdVerificationResult};
use rics_domain::job::model::JobState;
use rics_domain::job::pep_sanction::{PepSanctionInput, PepSanctionResult};
use rics_domain::job::risk_rating::{RiskRatingInput, RiskRatingResult};
use rics_domain::onboarding::{OnboardingInput, OnboardingResult};
use rics_domain::verification::jobs::VerificationJobInput;
use rics_domain::verification::service::VerificationResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::standard::{self, SoftDeleteQuery};
use super::{Response, body_etag, check_name_param, ok, total_size};
use crate::extract::{Caller, JsonBody, QueryParams};

/// Declares a job family's routes in a module of their own: its service in the
/// state, the job's schema, the page a list answers, the create and `:run` bodies,
/// and each route's doc comment (its operation's summary) and path. The path
/// parameters are the template's (`{entity}` for the families under an entity).
macro_rules! job_routes {
    (
        $module:ident: service $service:ident, job $job:ty, page $page:ty,
        create $create_body:ty, run $run_body:ty, entity [$($entity_param:tt)*],
        lists $spec:path;
        $(#[$list_doc:meta])* list $list_path:literal, [$($list_entity_param:tt)*];
        $(#[$create_doc:meta])* create $create_path:literal;
        $(#[$get_doc:meta])* get $get_path:literal;
        $(#[$run_doc:meta])* run $run_path:literal;
        $(#[$operation_doc:meta])* operation $operation_path:literal;
    ) => {
        #[doc = concat!("The routes of `", stringify!($service), "`.")]
        pub mod $module {
            use actix_web::HttpRequest;
            use actix_web::web::{Data, Path};
            use rics_domain::operation::Operation;
            use rics_domain::principal::Scope;

            use super::{JobPath, ListPath, Response};
            use crate::error::ErrorEnvelope;
            use crate::extract::{Caller, JsonBody};
            use crate::state::ApiState;

            route_table! {
                GET $list_path => list, Some(Scope::Read), lists $spec;
                POST $list_path => create, Some(Scope::Write);
                GET $get_path => get, Some(Scope::Read);
                POST $run_path => run, Some(Scope::Write);
                GET $operation_path => operation, Some(Scope::Read);
            }

            $(#[$list_doc])*
            #[utoipa::path(get, path = $list_path, tag = "jobs",
                params($($list_entity_param)*
                    ("pageSize" = Option<i32>, Query, description = "Default 10, at most 100 (larger values are coerced)"),
                    ("pageToken" = Option<String>, Query, description = "Token from a previous response"),
                    ("skip" = Option<i32>, Query, description = "Items to skip"),
                    ("filter" = Option<String>, Query, description = "AIP-160 over entity, state, createTime, updateTime"),
                    ("orderBy" = Option<String>, Query, description = "createTime or updateTime, optionally ` desc`; default createTime desc")),
                responses((status = 200, body = $page), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
            pub async fn list(
                caller: Caller,
                req: HttpRequest,
                path: Path<ListPath>,
                state: Data<ApiState>,
            ) -> Response {
                super::list(&state.$service, caller, req, path.into_inner()).await
            }

            $(#[$create_doc])*
            #[utoipa::path(post, path = $create_path, tag = "jobs",
                params($($entity_param)* ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
                request_body = $create_body,
                responses((status = 200, body = $job), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
            pub async fn create(
                caller: Caller,
                req: HttpRequest,
                path: Path<ListPath>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::create(&state.$service, caller, req, path.into_inner(), body).await
            }

            $(#[$get_doc])*
            #[utoipa::path(get, path = $get_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id"),
                    ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
                responses((status = 200, body = $job), (status = 404, body = ErrorEnvelope)))]
            pub async fn get(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
            ) -> Response {
                super::get(&state.$service, caller, req, path.into_inner()).await
            }

            $(#[$run_doc])*
            #[utoipa::path(post, path = $run_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id"),
                    ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
                request_body = $run_body,
                responses((status = 200, body = Operation), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
            pub async fn run(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::run(&state.$service, caller, req, path.into_inner(), body).await
            }

            $(#[$operation_doc])*
            #[utoipa::path(get, path = $operation_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id"), ("operation" = String, Path, description = "Operation id")),
                responses((status = 200, body = Operation), (status = 404, body = ErrorEnvelope)))]
            pub async fn operation(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
            ) -> Response {
                super::operation(&state.$service, caller, req, path.into_inner()).await
            }
        }
    };
}

/// Declares the routes of a job family whose jobs may be changed and deleted (its
/// `input_fields`), in a module of their own beside its `job_routes!`: PATCH, DELETE
/// (soft) and `:undelete`, with their OpenAPI operations, over the same service.
macro_rules! job_change_routes {
    (
        $module:ident: service $service:ident, job $job:ty, entity [$($entity_param:tt)*];
        $(#[$update_doc:meta])* update $update_path:literal;
        $(#[$delete_doc:meta])* delete $delete_path:literal;
        $(#[$undelete_doc:meta])* undelete $undelete_path:literal;
    ) => {
        #[doc = concat!("The change, delete and undelete routes of `", stringify!($service), "`.")]
        pub mod $module {
            use actix_web::HttpRequest;
            use actix_web::web::{Data, Path};
            use rics_domain::principal::Scope;

            use super::{JobPath, Response};
            use crate::error::ErrorEnvelope;
            use crate::extract::{Caller, JsonBody};
            use crate::state::ApiState;

            route_table! {
                PATCH $update_path => update, Some(Scope::Write);
                DELETE $delete_path => delete, Some(Scope::Write);
                POST $undelete_path => undelete, Some(Scope::Write);
            }

            $(#[$update_doc])*
            #[utoipa::path(patch, path = $update_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id"),
                    ("updateMask" = Option<String>, Query, description = "Comma-separated input fields to change; default: the fields the body gives")),
                request_body = $job,
                responses((status = 200, body = $job), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
                    (status = 409, body = ErrorEnvelope)))]
            pub async fn update(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::update(&state.$service, caller, req, path.into_inner(), body).await
            }

            $(#[$delete_doc])*
            #[utoipa::path(delete, path = $delete_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id"),
                    ("etag" = Option<String>, Query, description = "When given, must be the job's current etag"),
                    ("allowMissing" = Option<bool>, Query, description = "Succeed when the job is missing or already deleted")),
                responses((status = 200, body = $job), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
                    (status = 409, body = ErrorEnvelope)))]
            pub async fn delete(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
            ) -> Response {
                super::delete(&state.$service, caller, req, path.into_inner()).await
            }

            $(#[$undelete_doc])*
            #[utoipa::path(post, path = $undelete_path, tag = "jobs",
                params($($entity_param)* ("job" = String, Path, description = "Job id")),
                request_body = crate::routes::EtagRequest,
                responses((status = 200, body = $job), (status = 400, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
                    (status = 409, body = ErrorEnvelope)))]
            pub async fn undelete(
                caller: Caller,
                req: HttpRequest,
                path: Path<JobPath>,
                state: Data<ApiState>,
                body: JsonBody,
            ) -> Response {
                super::undelete(&state.$service, caller, req, path.into_inner(), body).await
            }
        }
    };
}

/// Declares the schema of a family's job: the standard job fields around the family's
/// inputs (flattened) and its result, and the page a list answers. `entity` gives the
/// `entity` field's doc comment and schema attributes.
macro_rules! job_schema {
    (
        $(#[$doc:meta])*
        $job:ident, page $page:ident as $items:ident {
            name: $name_doc:literal,
            entity: [$(#[$entity_attr:meta])*],
            input: $input:ty,
            result: $result:ty,
        }
    ) => {
        $(#[$doc])*
        /// (A documentation schema: the family's service renders its jobs.)
        #[derive(Debug, Serialize, ToSchema)]
        #[serde(rename_all = "camelCase")]
        #[allow(dead_code)]
        pub struct $job {
            #[doc = $name_doc]
            #[schema(read_only, required = false)]
            name: String,
            /// Random identifier. Output only.
            #[schema(read_only, required = false)]
            uid: String,
            $(#[$entity_attr])*
            entity: String,
            /// The inputs.
            #[serde(flatten)]
            input: $input,
            /// Where the job is in its life. Output only.
            #[schema(read_only, required = false)]
            state: JobState,
            /// The latest successful run's result. Output only.
            #[schema(read_only, required = false)]
            result: Option<$result>,
            /// The latest run's operation. Output only.
            #[schema(read_only, required = false)]
            latest_operation: Option<String>,
            /// Creation time. Output only.
            #[schema(read_only, required = false)]
            create_time: String,
            /// Last change time. Output only.
            #[schema(read_only, required = false)]
            update_time: String,
            /// When the job was soft-deleted, for the families whose jobs may be
            /// deleted; absent while live. Output only.
            #[schema(read_only, required = false)]
            delete_time: Option<String>,
            /// When a soft-deleted job is purged; absent while live. Output only.
            #[schema(read_only, required = false)]
            purge_time: Option<String>,
            /// Strong etag.
            #[schema(read_only, required = false)]
            etag: String,
        }

        /// A page of jobs. (A documentation schema, as the job's.)
        #[derive(Debug, Serialize, ToSchema)]
        #[allow(dead_code, non_snake_case)]
        pub struct $page {
            /// The jobs, newest first unless `orderBy` says otherwise.
            $items: Vec<$job>,
            /// Token of the next page; absent on the last page.
            nextPageToken: Option<String>,
            /// How many jobs match.
            totalSize: i32,
        }
    };
}

job_schema! {
    /// A PEP and sanctions screening job, as the API shows it.
    PepSanctionIndividualEntityJob, page ListPepSanctionIndividualEntityJobsResponse as pepSanctionIndividualEntityJobs {
        name: "`entities/{entity}/pepSanctionIndividualEntityJobs/{job}`. Output only.",
        entity: [
            /// The screened entity. Output only (the path gives it).
            #[schema(read_only, required = false)]
        ],
        input: PepSanctionInput,
        result: PepSanctionResult,
    }
}

job_schema! {
    /// A risk rating job, as the API shows it.
    IndividualEntityRiskRatingJob, page ListIndividualEntityRiskRatingJobsResponse as individualEntityRiskRatingJobs {
        name: "`entities/{entity}/individualEntityRiskRatingJobs/{job}`. Output only.",
        entity: [
            /// The rated individual. Output only (the path gives it).
            #[schema(read_only, required = false)]
        ],
        input: RiskRatingInput,
        result: RiskRatingResult,
    }
}

job_schema! {
    /// An ID document verification job, as the API shows it.
    IndividualEntityIDVerificationJob, page ListIndividualEntityIDVerificationJobsResponse as individualEntityIDVerificationJobs {
        name: "`individualEntityIDVerificationJobs/{job}`. Output only.",
        entity: [
            /// The individual whose document is verified, `entities/{entity}`. Required
            /// on create, immutable.
            #[schema(pattern = "^entities/[a-z0-9-]{1,63}$")]
        ],
        input: IdVerificationInput,
        result: IdVerificationResult,
    }
}

job_routes! {
    pep_sanction: service pep_sanction_jobs, job super::PepSanctionIndividualEntityJob,
        page super::ListPepSanctionIndividualEntityJobsResponse,
        create rics_domain::job::pep_sanction::PepSanctionInput,
        run rics_domain::job::kind::RunRequest,
        entity [("entity" = String, Path, description = "Entity id"),],
        lists rics_domain::job::service::JOB_LIST;
    /// Lists an entity's screening jobs, or every entity's with `entities/-`.
    list "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs",
        [("entity" = String, Path, description = "Entity id, or `-` for every entity"),];
    /// Creates a screening job about the entity.
    create "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs";
    /// Gets a screening job.
    get "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}";
    /// Runs a screening job: returns the run's operation, to poll until `done`.
    run "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run";
    /// A run's operation.
    operation "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}/operations/{operation}";
}

/// The review of a screening job's matches.
pub mod match_reviews {
    use actix_web::web::{Data, Path};
    use rics_domain::job::match_review::ReviewMatchRequest;
    use rics_domain::principal::Scope;

    use super::{JobPath, Response, entity_of};
    use crate::error::ErrorEnvelope;
    use crate::extract::{Caller, JsonBody, NoQuery};
    use crate::routes::ok;
    use crate::state::ApiState;

    route_table! {
        POST "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:reviewMatch" => review_match, Some(Scope::Write);
    }

    /// Records an analyst's decision on a match of the job's result (TRUE_POSITIVE: the
    /// entity is the listed party; FALSE_POSITIVE: someone else). A later review of the
    /// match replaces it. The entity's `screeningStatus` follows the decisions, and the
    /// job's alert is resolved once every match is reviewed. Returns the job.
    #[utoipa::path(post, path = "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:reviewMatch", tag = "jobs",
        params(("entity" = String, Path, description = "Entity id"), ("job" = String, Path, description = "Job id")),
        request_body = ReviewMatchRequest,
        responses((status = 200, body = super::PepSanctionIndividualEntityJob), (status = 400, body = ErrorEnvelope),
            (status = 404, body = ErrorEnvelope)))]
    pub async fn review_match(
        caller: Caller,
        _query: NoQuery,
        path: Path<JobPath>,
        state: Data<ApiState>,
        body: JsonBody,
    ) -> Response {
        let request: ReviewMatchRequest = rics_domain::resource::parse_body(body.0, "review")?;
        let path = path.into_inner();
        ok(&state
            .match_reviews
            .review(&caller.0, entity_of(&path.entity), &path.job, &request)
            .await?)
    }
}

job_routes! {
    risk_rating: service risk_rating_jobs, job super::IndividualEntityRiskRatingJob,
        page super::ListIndividualEntityRiskRatingJobsResponse,
        create rics_domain::job::risk_rating::RiskRatingInput,
        run rics_domain::job::kind::RunRequest,
        entity [("entity" = String, Path, description = "Entity id"),],
        lists rics_domain::job::service::JOB_LIST;
    /// Lists an individual's risk rating jobs, or every entity's with `entities/-`.
    list "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs",
        [("entity" = String, Path, description = "Entity id, or `-` for every entity"),];
    /// Creates a risk rating job about the individual.
    create "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs";
    /// Gets a risk rating job.
    get "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}";
    /// Runs a risk rating job: returns the run's operation, to poll until `done`.
    run "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}:run";
    /// A risk rating run's operation.
    operation "/v1alpha/entities/{entity}/individualEntityRiskRatingJobs/{job}/operations/{operation}";
}

job_routes! {
    id_verification: service id_verification_jobs, job super::IndividualEntityIDVerificationJob,
        page super::ListIndividualEntityIDVerificationJobsResponse,
        create super::IndividualEntityIDVerificationJob,
        run rics_domain::job::id_verification::IdVerificationRunRequest,
        entity [],
        lists rics_domain::job::service::JOB_LIST;
    /// Lists the ID document verification jobs of every entity.
    list "/v1alpha/individualEntityIDVerificationJobs", [];
    /// Creates an ID document verification job about the individual `entity` of the body.
    create "/v1alpha/individualEntityIDVerificationJobs";
    /// Gets an ID document verification job.
    get "/v1alpha/individualEntityIDVerificationJobs/{job}";
    /// Runs an ID document verification job: returns the run's operation, to poll until
    /// `done`.
    run "/v1alpha/individualEntityIDVerificationJobs/{job}:run";
    /// An ID document verification run's operation.
    operation "/v1alpha/individualEntityIDVerificationJobs/{job}/operations/{operation}";
}

job_schema! {
    /// An onboarding job, as the API shows it.
    OnboardIndividualEntityJob, page ListOnboardIndividualEntityJobsResponse as onboardIndividualEntityJobs {
        name: "`entities/{entity}/onboardIndividualEntityJobs/{job}`, `entities/-/...` for a job whose run makes the entity (it keeps that name). Output only.",
        entity: [
            /// The onboarded individual, `entities/{entity}`: the path's, or the one the
            /// run made for a job created at `entities/-` (absent until then). Output only.
            #[schema(read_only, required = false)]
        ],
        input: OnboardingInput,
        result: OnboardingResult,
    }
}

job_schema! {
    /// An individual entity verification job (identity verification with a provider),
    /// as the API shows it.
    IndividualEntityVerificationJob, page ListIndividualEntityVerificationJobsResponse as individualEntityVerificationJobs {
        name: "`individualEntityVerificationJobs/{job}`. Output only.",
        entity: [
            /// The individual verified, `entities/{entity}`. Required on create,
            /// immutable.
            #[schema(pattern = "^entities/[a-z0-9-]{1,63}$")]
        ],
        input: VerificationJobInput,
        result: VerificationResult,
    }
}

job_routes! {
    onboarding: service onboarding_jobs, job super::OnboardIndividualEntityJob,
        page super::ListOnboardIndividualEntityJobsResponse,
        create rics_domain::onboarding::OnboardingInput,
        run rics_domain::job::kind::RunRequest,
        entity [("entity" = String, Path, description = "Entity id, or `-` for a job whose run makes the entity"),],
        lists rics_domain::job::service::JOB_LIST;
    /// Lists an individual's onboarding jobs (those created at its path, and those whose
    /// run made it), or every onboarding job with `entities/-`.
    list "/v1alpha/entities/{entity}/onboardIndividualEntityJobs",
        [("entity" = String, Path, description = "Entity id, or `-` for every entity"),];
    /// Creates an onboarding job: at `entities/-` its run makes the entity, at
    /// `entities/{entity}` it updates that individual.
    create "/v1alpha/entities/{entity}/onboardIndividualEntityJobs";
    /// Gets an onboarding job.
    get "/v1alpha/entities/{entity}/onboardIndividualEntityJobs/{job}";
    /// Runs an onboarding job: returns the run's operation at once, with the hosted
    /// form's link in `metadata.debug.hostedFormUri` (and its `expireTime`); the
    /// operation is done when the journey decides.
    run "/v1alpha/entities/{entity}/onboardIndividualEntityJobs/{job}:run";
    /// An onboarding run's operation.
    operation "/v1alpha/entities/{entity}/onboardIndividualEntityJobs/{job}/operations/{operation}";
}

job_routes! {
    identity_verification: service verification_jobs, job super::IndividualEntityVerificationJob,
        page super::ListIndividualEntityVerificationJobsResponse,
        create super::IndividualEntityVerificationJob,
        run rics_domain::job::kind::RunRequest,
        entity [],
        lists rics_domain::job::service::DELETABLE_JOB_LIST;
    /// Lists the individual entity verification jobs of every entity (the deleted
    /// ones only with `showDeleted`).
    list "/v1alpha/individualEntityVerificationJobs",
        [("showDeleted" = Option<bool>, Query, description = "Include soft-deleted jobs"),];
    /// Creates an identity verification job about the individual `entity` of the body.
    create "/v1alpha/individualEntityVerificationJobs";
    /// Gets an identity verification job.
    get "/v1alpha/individualEntityVerificationJobs/{job}";
    /// Runs an identity verification job: starts a session with the provider and
    /// returns the run's operation at once, its `metadata.debug.verificationUri` the
    /// session's URL; the provider's callback ends the run.
    run "/v1alpha/individualEntityVerificationJobs/{job}:run";
    /// An identity verification run's operation.
    operation "/v1alpha/individualEntityVerificationJobs/{job}/operations/{operation}";
}

job_change_routes! {
    identity_verification_changes: service verification_jobs,
        job super::IndividualEntityVerificationJob, entity [];
    /// Updates an identity verification job's inputs (`enrichEntity`, `webhookUri`,
    /// the provider), unless a run is under way.
    update "/v1alpha/individualEntityVerificationJobs/{job}";
    /// Soft-deletes an identity verification job, unless a run is under way; returns
    /// it with `deleteTime` and `purgeTime`.
    delete "/v1alpha/individualEntityVerificationJobs/{job}";
    /// Restores a soft-deleted identity verification job.
    undelete "/v1alpha/individualEntityVerificationJobs/{job}:undelete";
}

/// The path variables of a job collection: the entity, absent for the top-level
/// families (which list every entity's jobs, `-`).
#[derive(Debug, Deserialize)]
pub struct ListPath {
    entity: Option<String>,
}

/// The path variables of a job and its operations.
#[derive(Debug, Deserialize)]
pub struct JobPath {
    entity: Option<String>,
    job: String,
    operation: Option<String>,
}

/// The entity of a path, `-` (any entity) for the top-level families.
fn entity_of(entity: &Option<String>) -> &str {
    entity.as_deref().unwrap_or("-")
}

async fn list(service: &JobService, caller: Caller, req: HttpRequest, path: ListPath) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request = query.take_list(service.changeable())?;
    query.finish()?;
    let page = service
        .list(&caller.0, entity_of(&path.entity), &request)
        .await?;
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
    path: ListPath,
    body: JsonBody,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    ok(&service
        .create(
            &caller.0,
            path.entity.as_deref(),
            body.0,
            request_id.as_deref(),
        )
        .await?)
}

async fn get(service: &JobService, caller: Caller, req: HttpRequest, path: JobPath) -> Response {
    let entity = entity_of(&path.entity);
    let mut query = QueryParams::parse(req.query_string())?;
    check_name_param(&mut query, &[&service.job_name(entity, &path.job)])?;
    query.finish()?;
    ok(&service.get(&caller.0, entity, &path.job).await?)
}

async fn run(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    path: JobPath,
    body: JsonBody,
) -> Response {
    let run = service.read_run_request(body.0)?;
    let mut query = QueryParams::parse(req.query_string())?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    let entity = entity_of(&path.entity);
    ok(&service
        .run(&caller.0, entity, &path.job, request_id.as_deref(), run)
        .await?)
}

async fn update(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    path: JobPath,
    body: JsonBody,
) -> Response {
    let entity = entity_of(&path.entity);
    standard::update(&req, async |mask| {
        service
            .update(&caller.0, entity, &path.job, body.0, mask)
            .await
    })
    .await
}

async fn delete(service: &JobService, caller: Caller, req: HttpRequest, path: JobPath) -> Response {
    let params = SoftDeleteQuery::parse(&req)?;
    let entity = entity_of(&path.entity);
    match service
        .delete(
            &caller.0,
            entity,
            &path.job,
            params.etag.as_deref(),
            params.allow_missing,
        )
        .await?
    {
        Some(job) => ok(&job),
        None => ok(&serde_json::Map::new()),
    }
}

async fn undelete(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    path: JobPath,
    body: JsonBody,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let etag = body_etag(body, "undelete")?;
    let entity = entity_of(&path.entity);
    ok(&service
        .undelete(&caller.0, entity, &path.job, etag.as_deref())
        .await?)
}

async fn operation(
    service: &JobService,
    caller: Caller,
    req: HttpRequest,
    path: JobPath,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    let entity = entity_of(&path.entity);
    let operation = path.operation.as_deref().unwrap_or_default();
    ok(&service
        .get_operation(&caller.0, entity, &path.job, operation)
        .await?)
}

#[cfg(test)]
mod tests {
    use rics_domain::document::verification::{Check, CheckStatus, Outcome};
    use rics_domain::entity::model::{RiskLevel, ScreeningStatus};
    use rics_domain::job::model::JobRecord;
    use rics_domain::risk::rating::{Contribution, Rating};
    use rics_domain::screen::{
        ListVersionInfo, ListedPosition, ListedRecord, MatchCategory, MatchDecision, MatchReview,
        ScreenMatch,
    };
    use rics_domain::time::Timestamp;
    use serde_json::{Value, json};

    use super::*;

    fn now() -> Timestamp {
        Timestamp::parse_rfc3339("2026-11-24T10:00:00Z").unwrap()
    }

    /// A job of `family` as the service renders it, with `input` and `result`.
    fn rendered(family: &str, input: Value, result: Value) -> Value {
        JobRecord {
            id: "job-1".into(),
            family: family.into(),
            entity_id: "amy-lee".into(),
            made_entity_id: None,
            delete_time: None,
            purge_time: None,
            uid: "u".into(),
            revision: 3,
            state: JobState::Succeeded,
            input,
            result: Some(result),
            latest_operation: Some("op".into()),
            create_time: now(),
            update_time: now(),
        }
        .to_json()
    }

    fn fits(schema: &str, job: &Value) {
        let validator = jsonschema::validator_for(&json!({
            "components": crate::openapi::served()["components"],
            "$ref": format!("#/components/schemas/{schema}"),
        }));
        let Ok(validator) = validator else {
            panic!("{schema}: {validator:?}")
        };
        let errors: Vec<String> = validator.iter_errors(job).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{schema}: {errors:?}\n{job:#}");
    }

    fn json_of<T: serde::Serialize>(value: &T) -> Value {
        serde_json::to_value(value).unwrap()
    }

    #[test]
    fn every_family_renders_its_jobs_as_its_schema_says() {
        let screening = PepSanctionResult {
            status: ScreeningStatus::PotentialMatch,
            screened_names: vec!["Amy Lee".into()],
            threshold: 0.7,
            matches: vec![ScreenMatch {
                id: "un_sc:QDi.001".into(),
                list_entry: "QDi.001".into(),
                dataset: "un_sc".into(),
                matched_name: "AMY LEE".into(),
                screened_name: "Amy Lee".into(),
                score: 0.93,
                category: MatchCategory::Pep,
                record: ListedRecord {
                    dataset: "us_congress_pep".into(),
                    id: "L000001".into(),
                    names: vec!["Amy Lee".into(), "Amy B. Lee".into()],
                    dates_of_birth: vec!["1970-01-02".into()],
                    nationalities: vec!["US".into()],
                    programs: Vec::new(),
                    positions: vec![ListedPosition {
                        title: "United States Senator for Ohio".into(),
                        start_date: Some("2019-01-03".into()),
                        end_date: None,
                    }],
                    source_url: Some("https://bioguide.congress.gov/search/bio/L000001".into()),
                },
                explanation: json!({"name": 0.93}),
                review: Some(MatchReview {
                    decision: MatchDecision::FalsePositive,
                    reason: "Another Amy Lee: born 1990".into(),
                    reviewer: "analyst-1".into(),
                    review_time: Timestamp::parse_rfc3339("2026-11-25T10:00:00Z").unwrap(),
                }),
                previously_dismissed: true,
            }],
            list_versions: vec![ListVersionInfo {
                dataset: "un_sc".into(),
                content_hash: "abc".into(),
                list_date: Some("2026-11-01".into()),
                records: 1000,
                topics: vec!["sanction".into()],
            }],
            screen_time: now(),
            reason: None,
            activity_log: Some("activityLogs/screening-1".into()),
            alert: Some("alerts/screening-1".into()),
        };
        let input = PepSanctionInput {
            datasets: vec!["un_sc".into()],
            threshold: Some(0.7),
        };
        fits(
            "PepSanctionIndividualEntityJob",
            &rendered(
                "pepSanctionIndividualEntityJobs",
                json_of(&input),
                json_of(&screening),
            ),
        );
        let rating = RiskRatingResult {
            rating: Rating {
                risk_score: 40,
                risk_level: RiskLevel::Medium,
                contributions: vec![Contribution {
                    factor: "NATIONALITY".into(),
                    input_value: json!(["GB"]),
                    value: 40,
                    weight: 100,
                    points: 40,
                    reason: "GB is standard risk".into(),
                }],
                model_version: "riskModels/1".into(),
            },
            activity_log: "activityLogs/risk-rating-1".into(),
            alert: None,
        };
        let input = RiskRatingInput {
            model_version: Some("riskModels/1".into()),
        };
        fits(
            "IndividualEntityRiskRatingJob",
            &rendered(
                "individualEntityRiskRatingJobs",
                json_of(&input),
                json_of(&rating),
            ),
        );
        let verification = IdVerificationResult {
            outcome: Outcome::Failed,
            checks: vec![Check {
                check: "MRZ_FORMAT".into(),
                status: CheckStatus::Failed,
                reason: "line 1 is too short".into(),
            }],
            document: "documents/passport-1".into(),
            document_type: rics_domain::document::model::DocumentType::Passport,
            id_type: None,
            verify_date: "2026-11-24".into(),
            activity_log: Some("activityLogs/id-verification-1".into()),
            alert: Some("alerts/idv-failed-1".into()),
        };
        let input = IdVerificationInput {
            document: Some("documents/passport-1".into()),
            id_type: None,
        };
        fits(
            "IndividualEntityIDVerificationJob",
            &rendered(
                "individualEntityIDVerificationJobs",
                json_of(&input),
                json_of(&verification),
            ),
        );
        let onboarding = OnboardingResult {
            decision: rics_domain::onboarding::Decision::Refer,
            reasons: vec![rics_domain::onboarding::Reason {
                code: "DOCUMENT_ONLY_ASSURANCE".into(),
                message: "The identity rests on the document alone.".into(),
            }],
            entity: "entities/amy-lee".into(),
            document: "documents/passport-1".into(),
            screening_job: "entities/amy-lee/pepSanctionIndividualEntityJobs/s1".into(),
            rating_job: "entities/amy-lee/individualEntityRiskRatingJobs/r1".into(),
            alert: Some("alerts/onboarding-1".into()),
            activity_log: "activityLogs/onboarding-1".into(),
            decide_time: now(),
        };
        let input = OnboardingInput {
            form_definition: "formDefinitions/kyc-individual".into(),
            jsonata_expression: "e30=".into(),
            webhook_uri: "https://hooks.example.com/onboarding".into(),
            redirect_uri: Some("https://example.com/welcome".into()),
            expire_time: Some(now()),
        };
        fits(
            "OnboardIndividualEntityJob",
            &rendered(
                "onboardIndividualEntityJobs",
                json_of(&input),
                json_of(&onboarding),
            ),
        );
    }
}
