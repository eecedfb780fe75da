//! The form definition routes: the standard methods, and a revision read by its name
//! (`formDefinitions/{formDefinition}@{revisionId}`, AIP-162). Reads need `rics.read`,
//! changes `rics.admin`.

use rics_domain::form_definition::FormDefinition;
use rics_domain::principal::Scope;

use super::PageParams;

resource_routes! {
    service: form_definitions, resource: FormDefinition, tag: "formDefinitions",
    id: ("formDefinition" = String, Path, description = "Form definition id");

    /// Lists form definitions at their latest revision.
    list "/v1alpha/formDefinitions", Some(Scope::Read), lists rics_domain::form_definition::fields::LIST => ListFormDefinitionsResponse, params(PageParams,
        ("filter" = Option<String>, Query, description = "AIP-160 over displayName, revisionId, createTime, updateTime, deleteTime"),
        ("orderBy" = Option<String>, Query, description = "displayName, createTime, updateTime, each optionally ` desc`; default createTime"),
        ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted form definitions"));
    /// Creates a form definition: its first revision.
    create "/v1alpha/formDefinitions", Some(Scope::Admin), params(
        ("formDefinitionId" = Option<String>, Query, description = "The id to give the definition: 4 to 63 of `[a-z0-9-]`, starting with a letter; generated when absent"),
        ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent"));
    /// Gets a form definition, deleted or not: at its latest revision, or at the
    /// revision `{formDefinition}@{revisionId}` names.
    get_by get "/v1alpha/formDefinitions/{formDefinition}", Some(Scope::Read),
        params(
            ("formDefinition" = String, Path, description = "Form definition id, optionally `@{revisionId}` to read that revision"),
            ("name" = Option<String>, Query, description = "Redundant resource name; must match the path")),
        names [&format!("formDefinitions/{form_definition}"), &form_definition] => FormDefinition,
        |caller, state, form_definition| state.form_definitions.get_revision(caller, &form_definition);
    /// Updates a form definition; a change of its schema makes a new revision.
    update "/v1alpha/formDefinitions/{formDefinition}", Some(Scope::Admin), params(
        ("updateMask" = Option<String>, Query, description = "Comma-separated field paths; `*` replaces the definition; absent = the populated fields of the body"));
    /// Soft-deletes a form definition: it makes no new forms; forms of its revisions go on.
    delete "/v1alpha/formDefinitions/{formDefinition}", Some(Scope::Admin), params(
        ("etag" = Option<String>, Query, description = "When given, must be the current etag"),
        ("allowMissing" = Option<bool>, Query, description = "Succeed when the definition is missing or already deleted"));
    /// Restores a soft-deleted form definition.
    undelete "/v1alpha/formDefinitions/{formDefinition}:undelete", Some(Scope::Admin);
}

list_response! {
    /// A page of form definitions.
    ListFormDefinitionsResponse {
        /// The definitions, at their latest revision.
        form_definitions: FormDefinition,
        /// How many definitions match the filter.
        total_size,
    }
}
