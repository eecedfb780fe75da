//! The form use cases: the standard methods, `:submit` and `:expire`, the expiry of
//! forms past their deadline, and the drafts a new workspace opens.

use std::sync::Arc;

use async_trait::async_trait;
use rics_aip::filter::{Comparator, Condition, Literal, StringMatch};
use serde_json::{Map, Value, json};

use super::fields;
use super::model::{Form, FormState, NewForm};
use super::ports::{FormRecords, FormRepository, FormSubmitted};
use crate::activity::model::{ActivityLog, ActivityType, RESERVED_SOURCE};
use crate::entity::references::check_named_entity;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, FieldViolation, Result};
use crate::event::NewEvent;
use crate::file::ports::FileRepository;
use crate::form_definition::model::{DefinitionRef, FieldType, FormDefinition, FormSchema};
use crate::form_definition::response_schema::{Completeness, ResponseSchema};
use crate::form_definition::service::FormDefinitionService;
use crate::housekeeping::Sweep;
use crate::id::is_well_formed_id;
use crate::lifecycle::{self, ServiceContext, SoftDeletable, StoreVersions, check_etag};
use crate::list::{ListRequest, ListResponse};
use crate::methods::{CreateMethod, UpdateMethod};
use crate::principal::Principal;
use crate::repository::Staged;
use crate::resource::to_json;
use crate::time::Timestamp;
use crate::validate::Violations;
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::references::{check_named_workspaces, listed_workspace};

/// Longest display name.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Most workspaces of one form.
pub const MAX_WORKSPACES: usize = 20;
/// Most form definitions a new workspace opens forms of.
pub const MAX_WORKSPACE_DEFINITIONS: usize = 20;

/// The request path of a form's response in violations.
const RESPONSE: &str = "form.response";

/// What the form service uses.
pub struct FormPorts {
    /// The forms, with their standard methods.
    pub forms: Arc<dyn FormRepository>,
    /// Submissions and the forms past their deadline.
    pub records: Arc<dyn FormRecords>,
    /// The definitions forms pin.
    pub definitions: Arc<FormDefinitionService>,
    /// The entities forms are about.
    pub entities: Arc<dyn EntityRepository>,
    /// The workspaces forms are collected for.
    pub workspaces: Arc<dyn WorkspaceRepository>,
    /// The files that FILE and DOCUMENT answers name.
    pub files: Arc<dyn FileRepository>,
}

/// The forms of the caller's tenant.
pub struct FormService {
    repository: Arc<dyn FormRepository>,
    records: Arc<dyn FormRecords>,
    definitions: Arc<FormDefinitionService>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    files: Arc<dyn FileRepository>,
    /// Told of each submit.
    after_submit: Vec<Arc<dyn FormSubmitted>>,
    /// The clock (deadlines), ids, paging and retention.
    context: ServiceContext,
}

impl FormService {
    /// The service over `ports`.
    pub fn new(ports: FormPorts, context: ServiceContext) -> FormService {
        FormService {
            repository: ports.forms,
            records: ports.records,
            definitions: ports.definitions,
            entities: ports.entities,
            workspaces: ports.workspaces,
            files: ports.files,
            after_submit: Vec::new(),
            context,
        }
    }

    /// The service with `listener` told of each submit, once stored.
    pub fn with_after_submit(mut self, listener: Arc<dyn FormSubmitted>) -> FormService {
        self.after_submit.push(listener);
        self
    }

    /// The form `id`, in the state it is in now: a DRAFT past its deadline is EXPIRED.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Form> {
        let mut form = self.stored(principal, id).await?;
        self.as_of_now(&mut form);
        Ok(form)
    }

    /// The form `id` as stored.
    async fn stored(&self, principal: &Principal, id: &str) -> Result<Form> {
        lifecycle::read(id, self.repository.get(&principal.tenant, id)).await
    }

    /// Gives `form` the state it is in now.
    fn as_of_now(&self, form: &mut Form) {
        if form.is_past_deadline(self.context.clock.now()) {
            form.state = FormState::Expired;
        }
    }

    /// One page of the tenant's forms (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Form>> {
        self.page(principal, None, request).await
    }

    /// One page of the forms collected for the workspace `workspace_id` (its name in
    /// their `workspaces`), as [`Self::list`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id or bad list parameters; NOT_FOUND when the
    /// workspace does not exist in the caller's tenant or is deleted.
    pub async fn list_in_workspace(
        &self,
        principal: &Principal,
        workspace_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Form>> {
        let workspace =
            listed_workspace(self.workspaces.as_ref(), &principal.tenant, workspace_id).await?;
        self.page(principal, Some(&workspace), request).await
    }

    /// One page of the forms, of the workspace named `workspace` only when given (bound
    /// into the page tokens as the list's parent).
    async fn page(
        &self,
        principal: &Principal,
        workspace: Option<&str>,
        request: &ListRequest,
    ) -> Result<ListResponse<Form>> {
        let paging = &self.context.paging;
        let (mut query, context) =
            paging.prepare(&fields::LIST, &principal.tenant, workspace, request)?;
        let now = self.context.clock.now();
        query.condition = query.condition.map(|c| state_as_of(c, now));
        if let Some(workspace) = workspace {
            query.narrow(in_workspace(workspace));
        }
        let page = self
            .repository
            .list(&principal.tenant, None, &query)
            .await
            .map_err(Error::from)?;
        let page = page.map(|mut form| {
            self.as_of_now(&mut form);
            form
        });
        Ok(paging.finish(context, page))
    }

    /// Submits the DRAFT form `id`: its whole response must be valid against its
    /// revision's response schema. The form is then SUBMITTED and read-only, with its
    /// `form.submitted` events, and, when it is about an entity, a FORM_CREATED activity
    /// log about it, in the same transaction.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION (`FORM_NOT_DRAFT`) when it is not DRAFT,
    /// (`ENTITY_DELETED`) when its entity is deleted, (`FORM_DEFINITION_MISSING`) when
    /// its revision is gone; ABORTED for a stale etag or a concurrent change;
    /// INVALID_ARGUMENT with a violation per fault of the response (`form.response.email`).
    pub async fn submit(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Form> {
        let current = self.stored(principal, id).await?;
        let now = self.context.clock.now();
        self.check_draft(&current, now)?;
        check_etag(&current.name, &current.etag, etag)?;
        self.check_entity(principal, &current).await?;
        let schema = self
            .pinned(principal, &current)
            .await?
            .schema
            .unwrap_or_default();
        let response = current.response.clone().unwrap_or_default();
        let mut violations = ResponseSchema::compile(&schema)?.violations(
            &response,
            Completeness::Complete,
            RESPONSE,
        );
        violations.extend(
            self.file_violations(principal, &schema, &response, Some(&current), &Map::new())
                .await?,
        );
        if !violations.is_empty() {
            return Err(Error::invalid_fields(violations));
        }
        let mut submitted = current.clone();
        submitted.state = FormState::Submitted;
        submitted.submit_time = Some(now);
        submitted.follow(&current, now);
        let events = self.events(
            "form.submitted",
            &current,
            principal,
            now,
            Some(&to_json(&current)?),
            Some(&to_json(&submitted)?),
        );
        let log = self.submission_log(principal, &submitted, now)?;
        self.records
            .submit(
                &principal.tenant,
                &submitted,
                current.revision,
                &events,
                log.as_ref(),
            )
            .await
            .map_err(|e| e.for_resource(&current.name))?;
        for listener in &self.after_submit {
            listener.submitted(&principal.tenant, &submitted.name).await;
        }
        Ok(submitted)
    }

    /// The FORM_CREATED activity log a submit of `form` writes when it is about an
    /// entity.
    fn submission_log(
        &self,
        principal: &Principal,
        form: &Form,
        now: Timestamp,
    ) -> Result<Option<Staged<ActivityLog>>> {
        let Some(entity) = form.entity_ids().first().map(|id| (*id).to_owned()) else {
            return Ok(None);
        };
        let ids = &self.context.ids;
        let mut payload = Map::new();
        payload.insert("form".into(), json!(form.name));
        payload.insert("formDefinition".into(), json!(form.form_definition));
        let mut log = ActivityLog {
            activity_type: ActivityType::FormCreated,
            source: RESERVED_SOURCE.to_owned(),
            payload: Some(payload),
            entity_names: vec![form.entity.clone()],
            description: format!("Form '{}' submitted.", form.display_name),
            occur_time: Some(now),
            ..ActivityLog::default()
        };
        log.begin(ActivityLog::name_of(&ids.resource_id()), ids.uid(), now);
        let event = NewEvent::new(
            ids.resource_id(),
            "activity_log.created",
            &log.name,
            principal,
            now,
        )
        .with_changes(None, Some(&to_json(&log)?))
        .for_entity(&entity);
        Ok(Some(Staged {
            resource: log,
            events: vec![event],
        }))
    }

    /// Expires the DRAFT form `id` (`:expire`), with its `form.expired` events.
    ///
    /// # Errors
    /// NOT_FOUND; FAILED_PRECONDITION (`FORM_NOT_DRAFT`) when it is not DRAFT; ABORTED
    /// for a stale etag or a concurrent change.
    pub async fn expire(
        &self,
        principal: &Principal,
        id: &str,
        etag: Option<&str>,
    ) -> Result<Form> {
        let current = self.stored(principal, id).await?;
        let now = self.context.clock.now();
        self.check_draft(&current, now)?;
        check_etag(&current.name, &current.etag, etag)?;
        let mut expired = current.clone();
        expired.state = FormState::Expired;
        self.save(principal, &current, expired, "form.expired", now)
            .await
    }

    /// Names `entity` (`entities/{id}`) as what the form `id`, about no entity yet, is
    /// about, whatever its state, with its `form.updated` events: an onboarding's run
    /// form once its journey made the person's entity, so that the entity's erasure
    /// erases the form's response and files with it. A form about an entity already is
    /// left as it is, so the call may be repeated.
    ///
    /// # Errors
    /// NOT_FOUND; ABORTED for a concurrent change.
    pub async fn attach_entity(
        &self,
        principal: &Principal,
        id: &str,
        entity: &str,
    ) -> Result<Form> {
        let current = self.stored(principal, id).await?;
        if !current.entity.is_empty() {
            return Ok(current);
        }
        let mut attached = current.clone();
        attached.entity = entity.to_owned();
        let now = self.context.clock.now();
        self.save(principal, &current, attached, "form.updated", now)
            .await
    }

    /// Refuses a change of `form` (as [`Self::get`] read it) or of its files unless it is
    /// DRAFT now.
    ///
    /// # Errors
    /// FAILED_PRECONDITION (`FORM_NOT_DRAFT`) naming the form and its state.
    pub fn check_changeable(&self, form: &Form) -> Result<()> {
        self.check_draft(form, self.context.clock.now())
    }

    /// Refuses a change of a form that is not DRAFT at `now`.
    fn check_draft(&self, form: &Form, now: Timestamp) -> Result<()> {
        let state = if form.is_past_deadline(now) {
            FormState::Expired
        } else {
            form.state
        };
        if state == FormState::Draft {
            return Ok(());
        }
        Err(Error::failed_precondition(
            "FORM_NOT_DRAFT",
            format!("'{}' is {state}: only a DRAFT form changes.", form.name),
        )
        .with_metadata("resource", form.name.clone())
        .with_metadata("state", state.as_str()))
    }

    /// Requires the form's entity, when it has one, to exist and be live.
    async fn check_entity(&self, principal: &Principal, form: &Form) -> Result<()> {
        if form.entity.is_empty() {
            return Ok(());
        }
        check_named_entity(
            self.entities.as_ref(),
            &principal.tenant,
            "form.entity",
            &form.entity,
        )
        .await
    }

    /// The steps and fields `form` (as [`Self::get`] read it) asks: those of the
    /// revision it pinned, so a later revision of its definition changes nothing.
    ///
    /// # Errors
    /// FAILED_PRECONDITION (`FORM_DEFINITION_MISSING`) when the revision is gone.
    pub async fn schema_of(&self, principal: &Principal, form: &Form) -> Result<FormSchema> {
        Ok(self
            .pinned(principal, form)
            .await?
            .schema
            .unwrap_or_default())
    }

    /// The revision `form` pinned, deleted definition or not.
    ///
    /// # Errors
    /// FAILED_PRECONDITION (`FORM_DEFINITION_MISSING`) when the revision is gone (its
    /// definition was purged).
    async fn pinned(&self, principal: &Principal, form: &Form) -> Result<FormDefinition> {
        let found = self
            .definitions
            .find(
                &principal.tenant,
                "form.formDefinition",
                &form.form_definition,
            )
            .await;
        match found {
            Err(e) if e.code == Code::NotFound => Err(Error::failed_precondition(
                "FORM_DEFINITION_MISSING",
                format!(
                    "'{}' no longer exists: its definition was purged.",
                    form.form_definition
                ),
            )
            .with_metadata("resource", form.form_definition.clone())),
            other => other,
        }
    }

    /// Checks the fields of a form that need no lookup at `now`; `current` is the
    /// stored form of an update.
    fn validate(&self, form: &Form, current: Option<&Form>, now: Timestamp) -> Result<()> {
        let mut v = Violations::new();
        v.optional_text("form.displayName", &form.display_name, MAX_DISPLAY_NAME);
        if form.form_definition.is_empty() {
            v.add(
                "form.formDefinition",
                "REQUIRED",
                "is required (formDefinitions/{formDefinition}, optionally @{revisionId})",
            );
        }
        let deadline_changed = current.is_none_or(|c| c.expire_time != form.expire_time);
        if let Some(deadline) = form.expire_time
            && deadline_changed
            && deadline <= now
        {
            v.add(
                "form.expireTime",
                "EXPIRE_TIME_NOT_IN_FUTURE",
                "must be in the future",
            );
        }
        if v.is_empty() {
            Ok(())
        } else {
            Err(Error::invalid_fields(v.into_vec()))
        }
    }

    /// Checks what `form` names beyond its definition and entity: its workspaces (those
    /// not in the stored form `current`'s), and its response against the draft schema
    /// of `schema`, with the files its answers name (those that changed from
    /// `current`'s).
    async fn check_references(
        &self,
        principal: &Principal,
        form: &Form,
        current: Option<&Form>,
        schema: &FormSchema,
    ) -> Result<()> {
        let kept = current.map_or(&[][..], |c| &c.workspaces[..]);
        check_named_workspaces(
            self.workspaces.as_ref(),
            &principal.tenant,
            "form.workspaces",
            &form.workspaces,
            kept,
            MAX_WORKSPACES,
        )
        .await?;
        if let Some(response) = &form.response {
            let mut violations = ResponseSchema::compile(schema)?.violations(
                response,
                Completeness::Draft,
                RESPONSE,
            );
            let unchanged = current.and_then(|c| c.response.clone()).unwrap_or_default();
            violations.extend(
                self.file_violations(
                    principal,
                    schema,
                    response,
                    current.or(Some(form)),
                    &unchanged,
                )
                .await?,
            );
            if !violations.is_empty() {
                return Err(Error::invalid_fields(violations));
            }
        }
        Ok(())
    }

    /// The drafts a new workspace opens, one per definition `names` lists (field
    /// `field`, `workspace.formDefinitions`): each definition resolved (its name
    /// then pinned to its revision in `names`), not named twice. They are named and
    /// given their events by [`Self::open_drafts`] once the workspace has its name.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed name, one given twice, or too many;
    /// NOT_FOUND and FAILED_PRECONDITION as [`FormDefinitionService::resolve`].
    pub async fn drafts(
        &self,
        principal: &Principal,
        field: &str,
        names: &mut [String],
    ) -> Result<Vec<NewForm>> {
        let mut v = Violations::new();
        v.max_items(field, names, MAX_WORKSPACE_DEFINITIONS);
        for (i, name) in names.iter().enumerate() {
            let id = DefinitionRef::parse(name).map(|r| r.id);
            let earlier = names[..i]
                .iter()
                .any(|other| id.is_some() && DefinitionRef::parse(other).map(|r| r.id) == id);
            if earlier {
                v.add(
                    format!("{field}[{i}]"),
                    "DUPLICATE_FORM_DEFINITION",
                    format!("'{name}' names a definition listed before"),
                );
            }
        }
        if !v.is_empty() {
            return Err(Error::invalid_fields(v.into_vec()));
        }
        let mut drafts = Vec::with_capacity(names.len());
        for (i, name) in names.iter_mut().enumerate() {
            let definition = self
                .definitions
                .resolve(&principal.tenant, &format!("{field}[{i}]"), name)
                .await?;
            *name = definition.revision_name();
            drafts.push(NewForm {
                form: Form {
                    display_name: definition.display_name.clone(),
                    form_definition: name.clone(),
                    state: FormState::Draft,
                    ..Form::default()
                },
                events: Vec::new(),
            });
        }
        Ok(drafts)
    }

    /// Names and begins the `drafts` of the new workspace named `workspace`, created
    /// by `principal` at `now`, and gives each its `form.created` events.
    pub fn open_drafts(
        &self,
        principal: &Principal,
        workspace: &str,
        drafts: &mut [NewForm],
        now: Timestamp,
    ) {
        let ids = &self.context.ids;
        for draft in drafts {
            draft.form.workspaces = vec![workspace.to_owned()];
            draft
                .form
                .begin(Form::name_of(&ids.resource_id()), ids.uid(), now);
            let after = to_json(&draft.form).ok();
            draft.events = self.events(
                "form.created",
                &draft.form,
                principal,
                now,
                None,
                after.as_ref(),
            );
        }
    }

    /// Gives a form without a display name its definition's.
    fn name_by_default(form: &mut Form, definition: &FormDefinition) {
        if form.display_name.trim().is_empty() {
            form.display_name = definition.display_name.clone();
        }
    }
}

/// An answer that names a file: where it is in the request, the name, and the
/// content types its field accepts (any when empty).
struct FileAnswer<'a> {
    path: String,
    name: &'a str,
    accept: &'a [String],
}

/// The answers of FILE and DOCUMENT fields in `response` that name files, but for
/// those equal to the answer of the same key in `unchanged`. Names of another shape
/// are the schema's to refuse.
fn file_answers<'a>(
    schema: &'a FormSchema,
    response: &'a Map<String, Value>,
    unchanged: &Map<String, Value>,
) -> Vec<FileAnswer<'a>> {
    let mut found = Vec::new();
    for field in schema.fields() {
        let Some(answer) = response.get(&field.key) else {
            continue;
        };
        if unchanged.get(&field.key) == Some(answer) {
            continue;
        }
        let at = format!("{RESPONSE}.{}", field.key);
        let names: Vec<(String, &Value)> = match field.field_type {
            FieldType::File => vec![(at, answer)],
            FieldType::Document => answer
                .get("files")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(i, file)| (format!("{at}.files[{i}]"), file))
                .collect(),
            _ => Vec::new(),
        };
        for (path, name) in names {
            if let Some(name) = name.as_str().filter(|name| is_file_name(name)) {
                found.push(FileAnswer {
                    path,
                    name,
                    accept: &field.accept,
                });
            }
        }
    }
    found
}

/// Whether `name` is a well-formed `forms/{form}/files/{file}` or
/// `entities/{entity}/files/{file}`.
fn is_file_name(name: &str) -> bool {
    matches!(
        name.split('/').collect::<Vec<_>>()[..],
        ["forms" | "entities", owner, "files", file] if is_well_formed_id(owner) && is_well_formed_id(file)
    )
}

/// Whether `accept` (content types, `type/*` for any subtype) admits `content_type`.
pub fn accepts(accept: &[String], content_type: &str) -> bool {
    accept
        .iter()
        .any(|accepted| match accepted.strip_suffix('*') {
            Some(prefix) => content_type.starts_with(prefix),
            None => accepted == content_type,
        })
}

/// The violation of an answer naming a file that belongs neither to `form` (a new
/// form, `None`, has no files yet) nor to the form's `entity`.
fn not_own(answer: &FileAnswer<'_>, form: Option<&str>, entity: &str) -> FieldViolation {
    let name = answer.name;
    let (reason, description) = if name.starts_with("forms/") {
        let description = match form {
            Some(form) => format!("'{name}' is not a file of '{form}'"),
            None => format!("'{name}' is not a file of this form: a new form has no files yet"),
        };
        ("FILE_OF_ANOTHER_FORM", description)
    } else if entity.is_empty() {
        (
            "FILE_OF_ANOTHER_ENTITY",
            format!("'{name}' is an entity's file, and the form is about no entity"),
        )
    } else {
        (
            "FILE_OF_ANOTHER_ENTITY",
            format!("'{name}' is not a file of the form's entity '{entity}'"),
        )
    };
    FieldViolation {
        field: answer.path.clone(),
        description,
        reason,
    }
}

impl FormService {
    /// The violations of the answers in `response` that name files (FILE and DOCUMENT
    /// fields), but for those as in `unchanged`: each must name a live file of the
    /// stored `form` (a new form, with no name yet, has no files) or of the entity it
    /// is about (`FILE_OF_ANOTHER_FORM`,
    /// `FILE_OF_ANOTHER_ENTITY`, `FILE_NOT_FOUND`, `FILE_DELETED`), and a FILE field's
    /// `accept`, when set, must admit the file's content type
    /// (`FILE_TYPE_NOT_ACCEPTED`).
    ///
    /// # Errors
    /// What the file store fails with.
    async fn file_violations(
        &self,
        principal: &Principal,
        schema: &FormSchema,
        response: &Map<String, Value>,
        form: Option<&Form>,
        unchanged: &Map<String, Value>,
    ) -> Result<Vec<FieldViolation>> {
        let stored = form
            .map(|form| form.name.as_str())
            .filter(|name| !name.is_empty());
        let entity = form.map_or("", |form| form.entity.as_str());
        let mut found = Vec::new();
        for answer in file_answers(schema, response, unchanged) {
            let owner = answer.name.split("/files/").next().unwrap_or_default();
            let own = Some(owner) == stored || (!entity.is_empty() && owner == entity);
            if !own {
                found.push(not_own(&answer, stored, entity));
                continue;
            }
            let file = self
                .files
                .get(&principal.tenant, answer.name)
                .await
                .map_err(Error::from)?;
            let name = answer.name;
            let (reason, description) = match file {
                None => ("FILE_NOT_FOUND", format!("'{name}' does not exist")),
                Some(file) if file.is_deleted() => (
                    "FILE_DELETED",
                    format!("'{name}' is deleted: restore it or name another file"),
                ),
                Some(file)
                    if !answer.accept.is_empty() && !accepts(answer.accept, &file.content_type) =>
                {
                    (
                        "FILE_TYPE_NOT_ACCEPTED",
                        format!(
                            "'{name}' is {}, which the field does not accept ({})",
                            file.content_type,
                            answer.accept.join(", ")
                        ),
                    )
                }
                Some(_) => continue,
            };
            found.push(FieldViolation {
                field: answer.path,
                description,
                reason,
            });
        }
        Ok(found)
    }
}

/// `condition` with each restriction on `state` read as the state forms are in at
/// `now`: a DRAFT form past its `expireTime` is EXPIRED before housekeeping records
/// it.
pub(crate) fn state_as_of(condition: Condition, now: Timestamp) -> Condition {
    match condition {
        Condition::And(parts) => {
            Condition::And(parts.into_iter().map(|c| state_as_of(c, now)).collect())
        }
        Condition::Or(parts) => {
            Condition::Or(parts.into_iter().map(|c| state_as_of(c, now)).collect())
        }
        Condition::Not(inner) => Condition::Not(Box::new(state_as_of(*inner, now))),
        Condition::Compare {
            field: "state",
            op,
            value: Literal::Enum(value),
        } => {
            let stored = |value: &'static str| Condition::Compare {
                field: "state",
                op: Comparator::Eq,
                value: Literal::Enum(value),
            };
            let past_deadline = Condition::Compare {
                field: "expireTime",
                op: Comparator::Le,
                value: Literal::Timestamp(now.datetime()),
            };
            let draft = FormState::Draft.as_str();
            let reads_as = match FormState::parse(value) {
                Some(FormState::Draft) => {
                    Condition::And(vec![stored(draft), Condition::Not(Box::new(past_deadline))])
                }
                Some(FormState::Expired) => Condition::Or(vec![
                    stored(value),
                    Condition::And(vec![stored(draft), past_deadline]),
                ]),
                _ => stored(value),
            };
            match op {
                Comparator::Ne => Condition::Not(Box::new(reads_as)),
                _ => reads_as,
            }
        }
        other => other,
    }
}

/// The forms whose `workspaces` hold `workspace`.
fn in_workspace(workspace: &str) -> Condition {
    Condition::Contains {
        field: "workspaces",
        value: StringMatch::Exact(workspace.to_owned()),
    }
}

#[async_trait]
impl CreateMethod for FormService {
    const ID_PARAMETER: &'static str = "formId";

    /// Its definition must exist and be live (it is pinned to its revision), its
    /// entity and workspaces too; its response is a draft's: known keys, answers of
    /// the right type, no file of another form.
    async fn admit_new(
        &self,
        principal: &Principal,
        form: &mut Form,
        now: Timestamp,
    ) -> Result<()> {
        self.validate(form, None, now)?;
        let definition = self
            .definitions
            .resolve(
                &principal.tenant,
                "form.formDefinition",
                &form.form_definition,
            )
            .await?;
        form.form_definition = definition.revision_name();
        Self::name_by_default(form, &definition);
        self.check_entity(principal, form).await?;
        let schema = definition.schema.unwrap_or_default();
        self.check_references(principal, form, None, &schema).await
    }

    /// A new form is a DRAFT.
    fn fill_new(&self, _principal: &Principal, form: &mut Form, _now: Timestamp) {
        form.state = FormState::Draft;
        form.submit_time = None;
    }
}

#[async_trait]
impl UpdateMethod for FormService {
    /// Only a DRAFT form changes: FAILED_PRECONDITION `FORM_NOT_DRAFT` otherwise.
    fn check_writable(&self, current: &Form) -> Result<()> {
        self.check_draft(current, self.context.clock.now())
    }

    /// Its entity must be live; added workspaces must exist and be live; its response
    /// is a draft's.
    async fn admit_update(
        &self,
        principal: &Principal,
        current: &Form,
        updated: &mut Form,
    ) -> Result<()> {
        self.validate(updated, Some(current), self.context.clock.now())?;
        self.check_entity(principal, current).await?;
        let definition = self.pinned(principal, current).await?;
        Self::name_by_default(updated, &definition);
        let schema = definition.schema.unwrap_or_default();
        self.check_references(principal, updated, Some(current), &schema)
            .await
    }
}

#[async_trait]
impl Sweep for FormService {
    fn task(&self) -> &'static str {
        "expire forms"
    }

    /// Each DRAFT form past its deadline becomes EXPIRED, with its `form.expired`
    /// events, made by `system` in the form's tenant.
    async fn sweep(&self, system: &Principal, now: Timestamp, limit: u32) -> Result<u64> {
        let due = self
            .records
            .find_expired(now, limit)
            .await
            .map_err(Error::from)?;
        let mut expired = 0;
        for (tenant, id) in due {
            let actor = Principal {
                tenant: tenant.clone(),
                ..system.clone()
            };
            let Some(current) = self
                .repository
                .get(&tenant, &id)
                .await
                .map_err(Error::from)?
                .filter(|form| form.is_past_deadline(now))
            else {
                continue;
            };
            let mut changed = current.clone();
            changed.state = FormState::Expired;
            match self
                .save(&actor, &current, changed, "form.expired", now)
                .await
            {
                Ok(_) => expired += 1,
                Err(e) if matches!(e.code, Code::Aborted | Code::NotFound) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(expired)
    }
}

// The standard methods' storage: forms are never deleted.
lifecycle::store_methods!(
    FormService,
    Form,
    "form",
    fields = fields::TABLE as "form",
    store = repository.update
);
