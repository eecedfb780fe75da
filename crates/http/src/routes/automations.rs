//! The automation routes: the standard methods. Reads need `rics.read`, changes
//! `rics.admin`; built-in automations cannot be changed.

use rics_domain::automation::Automation;
use rics_domain::principal::Scope;

use super::PageParams;

resource_routes! {
    service: automations, resource: Automation, tag: "automations",
    id: ("automation" = String, Path, description = "Automation id");

    /// Lists automations at their latest revision.
    list "/v1alpha/automations", Some(Scope::Read), lists rics_domain::automation::fields::LIST => ListAutomationsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, revisionId, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted automations"));
    /// Creates an automation: its first revision. Its definition is checked whole.
    create "/v1alpha/automations", Some(Scope::Admin), params(
        ("automationId" = Option<String>, Query, description = "The id to give the automation: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets an automation, deleted or not, at its latest revision.
    get "/v1alpha/automations/{automation}", Some(Scope::Read);
    /// Updates an automation; a change of its parameters or steps makes a new
    /// revision. Built-in automations cannot be changed.
    update "/v1alpha/automations/{automation}", Some(Scope::Admin), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the automation; absent = the populated fields of the body"));
    /// Soft-deletes an automation: it starts no new executions. Built-in automations
    /// cannot be deleted.
    delete "/v1alpha/automations/{automation}", Some(Scope::Admin), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the automation is missing or already deleted"));
    /// Restores a soft-deleted automation.
    undelete "/v1alpha/automations/{automation}:undelete", Some(Scope::Admin);
}

list_response! {
    /// A page of automations.
    ListAutomationsResponse {
        /// The automations, at their latest revision.
        automations: Automation,
        /// How many automations match the filter.
        total_size,
    }
}
