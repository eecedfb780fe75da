//! The standard Create (AIP-133, AIP-155) and Update (AIP-134) methods, written once
//! over what a resource declares: its field table (which fields are output only,
//! immutable or required) and the rules of its own that a new or updated resource
//! must keep.

use async_trait::async_trait;
use rics_aip::field_mask::{Behavior, FieldTable};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::fields;
use crate::id::{parse_request_id, validate_user_id};
use crate::lifecycle::{SoftDeletable, StoreVersions, check_etag, create_key, deleted};
use crate::principal::Principal;
use crate::resource::{Named, parse_body, to_json};
use crate::time::Timestamp;

/// How a resource's request bodies are read: its field table and the name errors give
/// the body.
pub trait DeclaredFields {
    /// What errors call the body (`workspace`, `activityLogType`).
    const BODY: &'static str;

    /// The resource's field table.
    fn table(&self) -> &'static FieldTable;
}

/// Create (AIP-133) with an optional id the caller chooses and an optional request id
/// that makes retries safe (AIP-155).
#[async_trait]
pub trait CreateMethod: StoreVersions + DeclaredFields
where
    Self::Resource: DeserializeOwned + Named,
{
    /// The query parameter of the id the caller chooses (`workspaceId`).
    const ID_PARAMETER: &'static str;

    /// Checks the id the caller chose; by default design.md's rule.
    ///
    /// # Errors
    /// INVALID_ARGUMENT (`INVALID_RESOURCE_ID`) naming [`Self::ID_PARAMETER`].
    fn check_id(&self, id: &str) -> Result<()> {
        validate_user_id(Self::ID_PARAMETER, id)
    }

    /// The id the caller chose, if any: by default `id`, the query's
    /// [`Self::ID_PARAMETER`], checked by [`Self::check_id`]. A resource whose id the
    /// body's `name` chooses reads it from `body` instead.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an id that breaks the rule.
    fn chosen_id(&self, _body: &Value, id: Option<&str>) -> Result<Option<String>> {
        id.map(|id| self.check_id(id).map(|()| id.to_owned()))
            .transpose()
    }

    /// The request's parameters its idempotency key binds beside the body: by default
    /// the id the caller chose, under [`Self::ID_PARAMETER`].
    fn key_parameters(&self, id: Option<&str>) -> Vec<(&'static str, Value)> {
        vec![(Self::ID_PARAMETER, serde_json::json!(id))]
    }

    /// Makes `resource`, as the request gives it, keep the resource's own rules at
    /// `now`: validates it and checks what it refers to. Nothing is stored yet.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for what breaks a rule; NOT_FOUND and FAILED_PRECONDITION for
    /// references that are missing or deleted.
    async fn admit_new(
        &self,
        principal: &Principal,
        resource: &mut Self::Resource,
        now: Timestamp,
    ) -> Result<()>;

    /// Sets what the service gives a new resource once it has its name (a state, a
    /// default); nothing by default.
    fn fill_new(&self, _principal: &Principal, _resource: &mut Self::Resource, _now: Timestamp) {}

    /// The answer of a create from the resource as stored: what it shows once beside
    /// the stored fields (a webhook endpoint's new secret); the resource by default.
    ///
    /// # Errors
    /// The resource's own failure to make its answer.
    fn answer_new(&self, resource: Self::Resource) -> Result<Self::Resource> {
        Ok(resource)
    }

    /// The new resource `body` describes, named with the id `id` when the caller
    /// chose one (else a generated one), admitted and filled at `now`, with the body as
    /// read (what an idempotency key binds). Nothing is stored: Create stores one,
    /// a batch create several at once.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or id; what [`Self::admit_new`] refuses.
    async fn new_resource(
        &self,
        principal: &Principal,
        body: Value,
        id: Option<&str>,
        now: Timestamp,
    ) -> Result<(Self::Resource, Value)> {
        let chosen = self.chosen_id(&body, id)?;
        let body = fields::input(self.table(), body, Self::BODY)?;
        let mut resource: Self::Resource = parse_body(body.clone(), Self::BODY)?;
        self.admit_new(principal, &mut resource, now).await?;
        let name = self.name_of(&chosen.unwrap_or_else(|| self.ids().resource_id()));
        resource.begin(name, self.ids().uid(), now);
        self.fill_new(principal, &mut resource, now);
        Ok((resource, body))
    }

    /// Creates the resource from `body`, with the id `id` when the caller chose one,
    /// once per `request_id`, with its `{kind}.created` events.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body, id or request id, or a request id reused with
    /// another request; ALREADY_EXISTS when the id is taken; what
    /// [`Self::admit_new`] refuses.
    async fn create(
        &self,
        principal: &Principal,
        body: Value,
        id: Option<&str>,
        request_id: Option<&str>,
    ) -> Result<Self::Resource> {
        let request_id = request_id.map(parse_request_id).transpose()?;
        let now = self.clock().now();
        let (resource, body) = self.new_resource(principal, body, id, now).await?;
        let parameters = self.key_parameters(id);
        let mut parts: Vec<(&str, &Value)> = parameters.iter().map(|(k, v)| (*k, v)).collect();
        parts.push((Self::BODY, &body));
        let key = create_key(
            request_id,
            Self::Resource::CREATE_METHOD,
            &parts,
            resource.resource_name(),
        );
        let stored = self
            .store_new(principal, resource, key.as_ref(), now)
            .await?;
        self.answer_new(stored)
    }
}

/// Update from a partial body and an optional update mask (AIP-134): the mask, or the
/// fields present, say what changes; the resource that results must keep its rules;
/// output-only fields keep their values; a change that changes nothing stores nothing.
#[async_trait]
pub trait UpdateMethod: StoreVersions + DeclaredFields
where
    Self::Resource: DeserializeOwned + Named,
{
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

    /// What a stored change of `current` also changes in `updated` (an entity's
    /// rating becomes outdated, a form definition's new schema is a new revision);
    /// nothing by default. It runs after the output-only fields are carried over, so
    /// it may set them.
    fn on_change(&self, _current: &Self::Resource, _updated: &mut Self::Resource) {}

    /// What follows a stored change of `current` into `saved` (a monitored entity
    /// whose names changed is screened again); nothing by default.
    ///
    /// # Errors
    /// Any error is the update's answer, though the change is stored.
    async fn after_change(
        &self,
        _principal: &Principal,
        _current: &Self::Resource,
        _saved: &Self::Resource,
    ) -> Result<()> {
        Ok(())
    }

    /// Updates the resource `id` from `body` under `update_mask`, with its
    /// `{kind}.updated` event.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a bad body or mask, a name that is not the path's (in full,
    /// or the [`StoreVersions::short_name`]), or a
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
        let name = self.name_of(id);
        let given = body.get("name").and_then(Value::as_str);
        let expected = match self.short_name(id) {
            Some(short) if given == Some(short.as_str()) => short,
            _ => name.clone(),
        };
        let patch =
            fields::read_patch::<Self::Resource>(table, body, update_mask, &expected, Self::BODY)?;
        let current = self.read(principal, id).await?;
        self.check_writable(&current)?;
        self.check_caller(principal, &current)?;
        check_etag(&name, current.current_etag(), patch.etag.as_deref())?;
        let current_json = to_json(&current)?;
        let merged =
            fields::apply_mask(table, &patch.mask, &current_json, &patch.body, Self::BODY)?;
        let mut updated: Self::Resource =
            parse_body(fields::input(table, merged, Self::BODY)?, Self::BODY)?;
        self.admit_update(principal, &current, &mut updated).await?;
        let updated_json = carry_output_only(table, &current_json, &updated)?;
        if updated_json == current_json {
            return Ok(current);
        }
        let mut updated: Self::Resource =
            serde_json::from_value(updated_json).map_err(|e| Error::internal(e.to_string()))?;
        self.on_change(&current, &mut updated);
        let event_type = format!("{}.updated", Self::EVENT_KIND);
        let saved = self
            .save(
                principal,
                &current,
                updated,
                &event_type,
                self.clock().now(),
            )
            .await?;
        self.after_change(principal, &current, &saved).await?;
        Ok(saved)
    }
}

/// `updated` as JSON with the values of `current` in every field `table` declares
/// output only: only the service sets those.
///
/// # Errors
/// INTERNAL when `updated` does not serialize (a bug: resources are plain data).
fn carry_output_only<R: serde::Serialize>(
    table: &FieldTable,
    current: &Value,
    updated: &R,
) -> Result<Value> {
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
    Ok(json)
}
