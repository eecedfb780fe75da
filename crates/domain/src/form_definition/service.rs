//! The form definition use cases: the standard methods, revisions (AIP-162), and the
//! resolution of the definition a form or a workspace names.

use std::sync::Arc;

use async_trait::async_trait;

use super::fields;
use super::model::{DefinitionRef, FormDefinition, revision_name};
use super::ports::{FormDefinitionRepository, FormRevisions};
use super::response_schema::response_schema;
use super::rules;
use crate::error::{Code, Error, Result};
use crate::lifecycle::{self, Referred, ServiceContext, soft_delete_methods};
use crate::list::{ListRequest, ListResponse};
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::{Principal, TenantId};
use crate::time::Timestamp;
use crate::validate::Violations;

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest description.
pub const MAX_DESCRIPTION: usize = 2000;

/// The form definitions of the caller's tenant, and their revisions.
#[derive(derive_new::new)]
pub struct FormDefinitionService {
    repository: Arc<dyn FormDefinitionRepository>,
    revisions: Arc<dyn FormRevisions>,
    /// The clock, ids (resource ids, uids and revision ids), paging and retention.
    context: ServiceContext,
}

impl FormDefinitionService {
    /// The definition `id`, deleted or not, at its latest revision.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<FormDefinition> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// The definition a path names: `{id}`, at its latest revision, or
    /// `{id}@{revisionId}`, at that revision and named so (AIP-162).
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`INVALID_NAME`) for a malformed id or revision id; NOT_FOUND
    /// for a missing definition or revision.
    pub async fn get_revision(&self, principal: &Principal, path: &str) -> Result<FormDefinition> {
        let Some(reference) = DefinitionRef::parse_id(path) else {
            return Err(Error::invalid_field(
                "name",
                "INVALID_NAME",
                format!(
                    "'formDefinitions/{path}' is not a form definition name (formDefinitions/{{formDefinition}} or formDefinitions/{{formDefinition}}@{{revisionId}})"
                ),
            ));
        };
        match reference.revision {
            None => self.get(principal, &reference.id).await,
            Some(revision) => {
                let name = revision_name(&reference.id, &revision);
                let fetch =
                    self.revisions
                        .get_revision(&principal.tenant, &reference.id, &revision);
                let mut found = lifecycle::read_named(&name, fetch).await?;
                found.name = name;
                Ok(found)
            }
        }
    }

    /// One page of the tenant's form definitions (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<FormDefinition>> {
        let store = self.repository.as_ref();
        self.context
            .paging
            .list(&fields::LIST, store, &principal.tenant, None, request)
            .await
    }

    /// The definition `name` in the field `field` names (`form.formDefinition`): at
    /// its latest revision for `formDefinitions/{id}`, or at the revision
    /// `formDefinitions/{id}@{revisionId}` names. It must exist in `tenant` and not be
    /// deleted.
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`INVALID_NAME` on `field`) for a malformed name; NOT_FOUND
    /// (`FORM_DEFINITION_NOT_FOUND`, with a violation on `field`) for a missing
    /// definition or revision; FAILED_PRECONDITION (`FORM_DEFINITION_DELETED`) for a
    /// deleted one; UNAVAILABLE or INTERNAL when storage fails.
    pub async fn resolve(
        &self,
        tenant: &TenantId,
        field: &str,
        name: &str,
    ) -> Result<FormDefinition> {
        let definition = self.find(tenant, field, name).await?;
        if definition.is_deleted() {
            return Err(lifecycle::referred_deleted(
                Referred::FormDefinition,
                &FormDefinition::name_of(definition.id()),
            ));
        }
        Ok(definition)
    }

    /// The revision `name` names, deleted or not: what a form pinned.
    ///
    /// # Errors
    /// As [`Self::resolve`], but a deleted definition is found.
    pub async fn find(&self, tenant: &TenantId, field: &str, name: &str) -> Result<FormDefinition> {
        let Some(reference) = DefinitionRef::parse(name) else {
            return Err(Error::invalid_field(
                field,
                "INVALID_NAME",
                format!(
                    "'{name}' is not a form definition name (formDefinitions/{{formDefinition}}, optionally @{{revisionId}})"
                ),
            ));
        };
        let found = match &reference.revision {
            None => self.repository.get(tenant, &reference.id).await,
            Some(revision) => {
                self.revisions
                    .get_revision(tenant, &reference.id, revision)
                    .await
            }
        }
        .map_err(|e| e.for_resource(name))?;
        found.ok_or_else(|| {
            Error::invalid_field(
                field,
                "FORM_DEFINITION_NOT_FOUND",
                format!("'{name}' does not exist"),
            )
            .with_code(Code::NotFound)
        })
    }
}

/// Checks every rule of `definition`, reporting every fault.
fn admit(definition: &FormDefinition) -> Result<()> {
    let mut v = Violations::new();
    v.required_text(
        "formDefinition.displayName",
        &definition.display_name,
        MAX_DISPLAY_NAME,
    );
    v.optional_text(
        "formDefinition.description",
        &definition.description,
        MAX_DESCRIPTION,
    );
    match &definition.schema {
        None => v.add("formDefinition.schema", "REQUIRED", "is required"),
        Some(schema) => rules::check(schema, "formDefinition.schema", &mut v),
    }
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// Makes `definition` a new revision of its schema, made at `now`.
fn new_revision(definition: &mut FormDefinition, revision_id: String, now: Timestamp) {
    definition.revision_id = revision_id;
    definition.revision_create_time = Some(now);
    definition.response_schema = definition.schema.as_ref().map(response_schema);
}

#[async_trait]
impl CreateMethod for FormDefinitionService {
    const ID_PARAMETER: &'static str = "formDefinitionId";

    /// Its schema must keep every rule.
    async fn admit_new(
        &self,
        _principal: &Principal,
        definition: &mut FormDefinition,
        _now: Timestamp,
    ) -> Result<()> {
        admit(definition)
    }

    /// A new definition is its first revision.
    fn fill_new(&self, _principal: &Principal, definition: &mut FormDefinition, now: Timestamp) {
        new_revision(definition, self.context.new_revision_id(), now);
    }
}

#[async_trait]
impl UpdateMethod for FormDefinitionService {
    /// Its schema must keep every rule.
    async fn admit_update(
        &self,
        _principal: &Principal,
        _current: &FormDefinition,
        updated: &mut FormDefinition,
    ) -> Result<()> {
        admit(updated)
    }

    /// A changed schema is a new revision; forms keep the revision they pinned.
    fn on_change(&self, current: &FormDefinition, updated: &mut FormDefinition) {
        if updated.schema != current.schema {
            new_revision(
                updated,
                self.context.new_revision_id(),
                self.context.clock.now(),
            );
        }
    }
}

// Delete and undelete as every soft-deletable resource has them: a deleted definition
// makes no new forms; forms that pinned one of its revisions go on.
soft_delete_methods!(
    FormDefinitionService,
    FormDefinition,
    "form_definition",
    fields = fields::TABLE as "formDefinition",
    store = repository.update,
    purge = "formDefinitions"
);
