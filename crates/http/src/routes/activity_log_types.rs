//! The activity log type routes (administrators' resource: writes need `rics.admin`).

use rics_domain::activity::ActivityLogType;
use rics_domain::principal::Scope;
use serde::Deserialize;
use utoipa::IntoParams;

resource_routes! {
    service: activity_log_types, resource: ActivityLogType, tag: "activityLogs",
    id: ("activityLogType" = String, Path, description = "Activity log type id");

    /// Lists activity log types.
    list "/v1alpha/activityLogTypes", Some(Scope::Read), lists rics_domain::activity::fields::TYPE_LIST => ListActivityLogTypesResponse,
        params(ListActivityLogTypesParams);
    /// Creates an activity log type.
    create "/v1alpha/activityLogTypes", Some(Scope::Admin),
        params(CreateActivityLogTypeParams);
    /// Gets an activity log type, deleted or not.
    get "/v1alpha/activityLogTypes/{activityLogType}", Some(Scope::Read);
    /// Updates an activity log type.
    update "/v1alpha/activityLogTypes/{activityLogType}", Some(Scope::Admin), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the type; absent = the populated fields of the body"));
    /// Soft-deletes an activity log type; returns it with `deleteTime` and `purgeTime`.
    delete "/v1alpha/activityLogTypes/{activityLogType}", Some(Scope::Admin),
        params(DeleteActivityLogTypeParams);
    /// Restores a soft-deleted activity log type.
    undelete "/v1alpha/activityLogTypes/{activityLogType}:undelete", Some(Scope::Admin);
}

list_response! {
    /// A page of activity log types.
    ListActivityLogTypesResponse {
        /// The activity log types.
        activity_log_types: ActivityLogType,
        /// How many types match the filter.
        total_size,
    }
}

/// The list parameters (documentation of the query string).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct ListActivityLogTypesParams {
    /// Page size: default 50, at most 1000 (larger values are coerced).
    pageSize: Option<i32>,
    /// Token from a previous response; every other parameter must be unchanged.
    pageToken: Option<String>,
    /// Items to skip before the page.
    skip: Option<i32>,
    /// AIP-160 filter over displayName (also fuzzy: `displayName:"kyc reveiw"`, or a
    /// bare word), activityType, createTime, updateTime, deleteTime.
    filter: Option<String>,
    /// Comma-separated displayName, createTime, updateTime, each optionally ` desc`.
    /// Default: createTime; a fuzzy search without orderBy ranks by similarity.
    orderBy: Option<String>,
    /// Include soft-deleted types.
    showDeleted: Option<bool>,
}

/// The create parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct CreateActivityLogTypeParams {
    /// The id to give the type: 4 to 63 of `[a-z0-9-]` in any order (`2024-kyc`), but
    /// not a UUID. Generated (UUID v7) when absent.
    activityLogTypeId: Option<String>,
    /// A UUID making the call idempotent for at least 24 hours.
    requestId: Option<String>,
}

/// The delete parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(non_snake_case, dead_code)]
pub struct DeleteActivityLogTypeParams {
    /// When given, must be the type's current etag.
    etag: Option<String>,
    /// Succeed when the type is missing or already deleted.
    allowMissing: Option<bool>,
}
