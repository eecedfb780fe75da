//! The standard Update method (AIP-134), written once over what a resource declares:
//! its field table (which fields are output only, immutable or required) and the
//! rules of its own that an updated resource must keep.

use async_trait::async_trait;
use rics_aip::field_mask::{Behavior, FieldTable};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fields;
use crate::lifecycle::{SoftDeletable, StoreVersions, check_etag, deleted};
use crate::principal::Principal;
use crate::resource::{Named, parse_body, to_json};

/// Update from a partial body and an optional update mask (AIP-134): the mask, or the
/// fields present, say what changes; the resource that results must keep its rules;
/// output-only fields keep their values; a change that changes nothing stores nothing.
#[async_trait]
pub trait UpdateMethod: StoreVersions
where
    Self::Resource: DeserializeOwned + Named,
{
    /// What errors call the body (`workspace`, `activityLogType`).
    const BODY: &'static str;

    /// The resource's field table.
    fn table(&self) -> &'static FieldTable;

    /// What must hold before `current` may change; by default, that it is not
    /// deleted.
    ///
    /// # Errors
    /// FAILED_PRECONDITION (`RESOURCE_DELETED`, or the resource's own reason).
    fn check_writable(&self, current: &Self::Resource) -> Result<()> {
        if current.is_soft_deleted() {
            return Err(deleted(current.resource_name()));
        }
        Ok(())
    }

    /// Makes `updated`, the resource as the request leaves it, keep the resource's
    /// own rules: normalises and validates it, and checks what it refers to (with
    /// `current` to tell what changed).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for what breaks a rule; NOT_FOUND and FAILED_PRECONDITION for
    /// references that are missing or deleted.
    async fn admit_update(
        &self,
        principal: &Principal,
        current: &Self::Resource,
        updated: &mut Self::Resource,
    ) -> Result<()>;

    /// What a stored change also changes (an entity's rating becomes outdated);
    /// nothing by default.
    fn on_change(&self, _updated: &mut Self::Resource) {}

    /// Updates the resource `id` from `body` under `update_mask`, with its
    /// `{kind}.updated` event.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or mask, a name that is not the path's, or a
    /// resource that breaks its rules; NOT_FOUND; FAILED_PRECONDITION when it may not
    /// change ([`Self::check_writable`]) or a reference is deleted; ABORTED for a stale
    /// etag or a concurrent change.
    async fn update(
        &self,
        principal: &Principal,
        id: &str,
        body: Value,
        update_mask: Option<&str>,
    ) -> Result<Self::Resource> {
        let table = self.table();
        let name = Self::Resource::name_of(id);
        let patch =
            fields::read_patch::<Self::Resource>(table, body, update_mask, &name, Self::BODY)?;
        let current = self.read(principal, id).await?;
        self.check_writable(&current)?;
        check_etag(&name, current.current_etag(), patch.etag.as_deref())?;
        let current_json = to_json(&current)?;
        let merged =
            fields::apply_mask(table, &patch.mask, &current_json, &patch.body, Self::BODY)?;
        let mut updated: Self::Resource =
            parse_body(fields::input(table, merged, Self::BODY)?, Self::BODY)?;
        self.admit_update(principal, &current, &mut updated).await?;
        let mut updated = carry_output_only(table, &current_json, &updated)?;
        if to_json(&updated)? == current_json {
            return Ok(current);
        }
        self.on_change(&mut updated);
        let event_type = format!("{}.updated", Self::EVENT_KIND);
        self.save(
            principal,
            &current,
            updated,
            &event_type,
            self.clock().now(),
        )
        .await
    }
}

/// `updated` with the values of `current` (as JSON) in every field `table` declares
/// output only: only the service sets those.
///
/// # Errors
/// INTERNAL when the result does not read back (a bug: both are the same resource).
fn carry_output_only<R: serde::Serialize + DeserializeOwned>(
    table: &FieldTable,
    current: &Value,
    updated: &R,
) -> Result<R> {
    let mut json = to_json(updated)?;
    if let (Value::Object(members), Value::Object(current)) = (&mut json, current) {
        for field in table.fields() {
            if field.behavior != Behavior::OutputOnly {
                continue;
            }
            match current.get(field.name) {
                Some(value) => members.insert(field.name.to_owned(), value.clone()),
                None => members.remove(field.name),
            };
        }
    }
    serde_json::from_value(json).map_err(|e| Error::internal(e.to_string()))
}
