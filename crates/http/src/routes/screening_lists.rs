//! The sanctions and PEP lists screening jobs run against.

use actix_web::HttpRequest;
use actix_web::web::Data;
use rics_domain::principal::Scope;
use rics_domain::screen::{ListLoadFailure, ListVersionInfo};
use serde::Serialize;
use utoipa::ToSchema;

use super::{Response, ok};
use crate::error::ErrorEnvelope;
use crate::extract::{Caller, QueryParams};
use crate::state::ApiState;

route_table! {
    GET "/v1alpha/screeningLists" => list, Some(Scope::Read);
}

/// The loaded lists.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListScreeningListsResponse {
    /// Each loaded dataset with its version: content hash, list date, record count.
    pub screening_lists: Vec<ListVersionInfo>,
    /// The latest load of the lists, when it failed (a reload from a file that does
    /// not load): the lists above, loaded before, stay in use. Absent once a load
    /// succeeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_load_failure: Option<ListLoadFailure>,
}

/// The lists screening jobs run against, with their versions (loads them if they are
/// not loaded yet). The operator configures them (`RICS_SCREENING_LISTS`) and reloads
/// them with SIGHUP or on a schedule (`RICS_SCREENING_RELOAD_INTERVAL_SECONDS`); a
/// reload that failed shows as `lastLoadFailure`.
#[utoipa::path(get, path = "/v1alpha/screeningLists", tag = "jobs",
    responses((status = 200, body = ListScreeningListsResponse), (status = 503, body = ErrorEnvelope)))]
pub async fn list(_caller: Caller, req: HttpRequest, state: Data<ApiState>) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    ok(&ListScreeningListsResponse {
        screening_lists: state.screener.lists().await?,
        last_load_failure: state.screener.load_failure(),
    })
}
