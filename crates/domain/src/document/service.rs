//! The identity document use cases.

use std::collections::BTreeSet;
use std::sync::Arc;

use rics_aip::filter::{Comparator, Condition, Literal, StringMatch};
use time::Date;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::fields;
use super::model::Document;
use super::number;
use super::ports::DocumentRepository;

use crate::entity::references::check_named_entity;
use crate::entity::repository::EntityRepository;
use crate::error::{Code, Error, Result};
use crate::file::ports::FileRepository;
use crate::icao::IcaoCode;
use crate::id::{derived_request_id, is_well_formed_id};
use crate::lifecycle::soft_delete_methods;
use crate::lifecycle::{self, Referred, ServiceContext, referred_deleted};
use crate::list::{ListQuery, ListRequest, ListResponse};
use crate::methods::CreateMethod;
use crate::methods::UpdateMethod;
use crate::mrz::{self, MrzFormatError};
use crate::principal::Principal;
use crate::time::Timestamp;
use crate::validate::Violations;
use crate::values::PartialDate;
use crate::workspace::ports::WorkspaceRepository;
use crate::workspace::references::{check_named_workspace, listed_workspace};

/// Longest `displayName`.
pub const MAX_DISPLAY_NAME: usize = 200;
/// Longest `givenName`, `familyName` and `placeOfBirth`.
pub const MAX_NAME: usize = 200;
/// Longest `issuingState`.
pub const MAX_ISSUING_STATE: usize = 100;
/// Most lines of a machine readable zone (TD1 has three).
pub const MAX_MRZ_LINES: usize = 3;
/// Longest line of a machine readable zone (TD3 has 44 characters).
pub const MAX_MRZ_LINE: usize = 44;
/// Most files of one document.
pub const MAX_FILES: usize = 20;

/// Everything the document service needs.
#[derive(derive_new::new)]
pub struct DocumentService {
    documents: Arc<dyn DocumentRepository>,
    entities: Arc<dyn EntityRepository>,
    workspaces: Arc<dyn WorkspaceRepository>,
    /// Files, which `files[]` names.
    files: Arc<dyn FileRepository>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

/// The fields of a form's DOCUMENT answer that an identity document takes as they are.
const ANSWER_FIELDS: [&str; 5] = [
    "documentType",
    "documentNumber",
    "issuingCountry",
    "expiryDate",
    "mrz",
];

/// The holder a document made from a form answer names, from wherever the caller
/// read the person (a mapped entity, a form response).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocumentHolder {
    /// Given name.
    pub given_name: Option<String>,
    /// Family name.
    pub family_name: Option<String>,
    /// Date of birth, `YYYY-MM-DD`.
    pub date_of_birth: Option<String>,
}

impl DocumentService {
    /// Stores the identity document `id` of `entity` that a form's DOCUMENT `answer`
    /// describes (its type, number, issuing country, expiry and MRZ), naming `holder`;
    /// when a document `id` exists already (an earlier attempt of the same step stored
    /// it), that one. Returns its name. The request id is derived from `id`, so a
    /// retried step stores one document.
    ///
    /// # Errors
    /// As [`CreateMethod::create`], but ALREADY_EXISTS.
    pub async fn create_from_answer(
        &self,
        principal: &Principal,
        entity: &str,
        answer: &Map<String, Value>,
        holder: &DocumentHolder,
        id: &str,
    ) -> Result<String> {
        let mut body = Map::new();
        body.insert("entity".into(), Value::from(entity));
        for key in ANSWER_FIELDS {
            if let Some(value) = answer.get(key).filter(|v| !v.is_null()) {
                body.insert(key.into(), value.clone());
            }
        }
        for (field, value) in [
            ("givenName", &holder.given_name),
            ("familyName", &holder.family_name),
            ("dateOfBirth", &holder.date_of_birth),
        ] {
            if let Some(value) = value {
                body.insert(field.into(), Value::from(value.as_str()));
            }
        }
        match self
            .create(
                principal,
                Value::Object(body),
                Some(id),
                Some(&derived_request_id(id, "document")),
            )
            .await
        {
            Ok(document) => Ok(document.name),
            Err(error) if error.code == Code::AlreadyExists => Ok(format!("documents/{id}")),
            Err(error) => Err(error),
        }
    }

    /// The document with `id`, deleted or not, whatever the state of its entity. A
    /// job acting for the tenant reads documents this way.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id; NOT_FOUND.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Document> {
        lifecycle::read(id, self.documents.get(&principal.tenant, id)).await
    }

    /// One page of the tenant's documents, oldest first unless `orderBy` says
    /// otherwise (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters.
    pub async fn list(
        &self,
        principal: &Principal,
        request: &ListRequest,
    ) -> Result<ListResponse<Document>> {
        self.page(principal, None, request).await
    }

    /// One page of the documents of the entity `entity_id`, as [`Self::list`]. The
    /// documents of a deleted entity are not listed here, as its notes are not: the
    /// entity must be restored first.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed entity id or bad list parameters; NOT_FOUND
    /// when the entity does not exist in the caller's tenant or is deleted.
    pub async fn list_for_entity(
        &self,
        principal: &Principal,
        entity_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Document>> {
        let entity_name = format!("entities/{entity_id}");
        if !is_well_formed_id(entity_id) {
            return Err(Error::invalid_field(
                "parent",
                "INVALID_NAME",
                format!("'{entity_name}' is not a valid entity name"),
            ));
        }
        let live = self
            .entities
            .get(&principal.tenant, entity_id)
            .await
            .map_err(|e| e.for_resource(&entity_name))?
            .is_some_and(|entity| !entity.is_deleted());
        if !live {
            return Err(Error::not_found(&entity_name));
        }
        self.page(principal, Some(&entity_name), request).await
    }

    /// One page of the documents collected for the workspace `workspace_id` (their
    /// `workspace`), as [`Self::list`].
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a malformed id or bad list parameters; NOT_FOUND when the
    /// workspace does not exist in the caller's tenant or is deleted.
    pub async fn list_in_workspace(
        &self,
        principal: &Principal,
        workspace_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Document>> {
        let workspace =
            listed_workspace(self.workspaces.as_ref(), &principal.tenant, workspace_id).await?;
        let (mut query, context) = self.context.paging.prepare(
            &fields::LIST,
            &principal.tenant,
            Some(&workspace),
            request,
        )?;
        query.narrow(Condition::Compare {
            field: "workspace",
            op: Comparator::Eq,
            value: Literal::String(StringMatch::Exact(workspace)),
        });
        let page = self
            .documents
            .list(&principal.tenant, None, &with_stored_codes(query))
            .await
            .map_err(Error::from)?;
        Ok(self.context.paging.finish(context, page))
    }

    /// One page of the documents, of the entity named `entity` only when given; the
    /// entity is the list's parent, bound into its page tokens.
    async fn page(
        &self,
        principal: &Principal,
        entity: Option<&str>,
        request: &ListRequest,
    ) -> Result<ListResponse<Document>> {
        let (query, context) =
            self.context
                .paging
                .prepare(&fields::LIST, &principal.tenant, entity, request)?;
        let page = self
            .documents
            .list(&principal.tenant, entity, &with_stored_codes(query))
            .await
            .map_err(Error::from)?;
        Ok(self.context.paging.finish(context, page))
    }

    /// Requires the document's entity to exist in the caller's tenant and be live.
    async fn live_entity(&self, principal: &Principal, document: &Document) -> Result<()> {
        check_named_entity(
            self.entities.as_ref(),
            &principal.tenant,
            "document.entity",
            &document.entity,
        )
        .await
    }

    /// Requires each file the document names, but for those in `kept` (named before a
    /// change), to exist in the caller's tenant and be live, and a form's file to be of
    /// a form about the document's entity: a document that holds a name since deleted
    /// stays editable.
    async fn check_named_files(
        &self,
        principal: &Principal,
        document: &Document,
        kept: &[String],
    ) -> Result<()> {
        for (i, name) in document.files.iter().enumerate() {
            if kept.contains(name) {
                continue;
            }
            let found = self
                .files
                .get(&principal.tenant, name)
                .await
                .map_err(Error::from)?;
            match found {
                None => {
                    return Err(Error::invalid_field(
                        format!("document.files[{i}]"),
                        "FILE_NOT_FOUND",
                        format!("'{name}' does not exist"),
                    )
                    .with_code(Code::NotFound));
                }
                Some(file) if file.is_deleted() => {
                    return Err(referred_deleted(Referred::File, name));
                }
                Some(file)
                    if name.starts_with("forms/")
                        && file.form_entity.as_deref() != Some(document.entity.as_str()) =>
                {
                    return Err(Error::invalid_field(
                        format!("document.files[{i}]"),
                        "FILE_OF_ANOTHER_ENTITY",
                        format!(
                            "'{name}' is a file of a form that is not about the document's entity '{}'",
                            document.entity
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Requires the document's workspace, when it names one, to exist in the caller's
    /// tenant and be live.
    async fn check_workspace(&self, principal: &Principal, document: &Document) -> Result<()> {
        check_named_workspace(
            self.workspaces.as_ref(),
            &principal.tenant,
            "document.workspace",
            &document.workspace,
        )
        .await
    }
}

/// Gives a document without a display name (or a blank one) the name
/// "{documentType} {documentNumber}", the number normalised.
fn name_by_default(document: &mut Document) {
    if document.display_name.trim().is_empty() {
        document.display_name = format!(
            "{} {}",
            document.document_type.as_str(),
            document.document_number
        );
    }
}

/// Checks the fields of a document that need no lookup, `now` being the current time.
fn validate(document: &Document, now: Timestamp) -> Result<()> {
    let mut v = Violations::new();
    v.optional_text(
        "document.displayName",
        &document.display_name,
        MAX_DISPLAY_NAME,
    );
    if document.entity.is_empty() {
        v.add(
            "document.entity",
            "REQUIRED",
            "is required (entities/{entity})",
        );
    }
    if document.document_type.is_unspecified() {
        v.add("document.documentType", "REQUIRED", "is required");
    }
    if document.document_number.is_empty() {
        v.add(
            "document.documentNumber",
            "REQUIRED",
            "is required and must not be blank",
        );
    } else if let Err(problem) = number::check(document.document_type, &document.document_number) {
        v.add(
            "document.documentNumber",
            problem.reason,
            problem.description,
        );
    }
    v.optional_text(
        "document.issuingState",
        &document.issuing_state,
        MAX_ISSUING_STATE,
    );
    v.optional_text("document.givenName", &document.given_name, MAX_NAME);
    v.optional_text("document.familyName", &document.family_name, MAX_NAME);
    v.optional_text("document.placeOfBirth", &document.place_of_birth, MAX_NAME);
    check_dates(&mut v, document, now.datetime().date());
    check_mrz(&mut v, &document.mrz, now.datetime().date());
    if !document.workspace.is_empty()
        && !document
            .workspace
            .strip_prefix("workspaces/")
            .is_some_and(is_well_formed_id)
    {
        v.add(
            "document.workspace",
            "INVALID_NAME",
            format!(
                "'{}' is not a workspace name (workspaces/{{workspace}})",
                document.workspace
            ),
        );
    }
    check_files(&mut v, document);
    if v.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid_fields(v.into_vec()))
    }
}

/// The dates are full dates; none of the issue and birth dates is after `today`; the
/// expiry date is after the issue date, and the holder was born by the issue date.
fn check_dates(v: &mut Violations, document: &Document, today: Date) {
    let full = |v: &mut Violations, field: &str, date: Option<PartialDate>| -> Option<Date> {
        let date = date?;
        match date.earliest().filter(|_| date.day.is_some()) {
            Some(full) => Some(full),
            None => {
                v.add(
                    field,
                    "INVALID_DATE",
                    format!("'{date}' is not a full date (YYYY-MM-DD)"),
                );
                None
            }
        }
    };
    let birth = full(v, "document.dateOfBirth", document.date_of_birth);
    let issue = full(v, "document.issueDate", document.issue_date);
    let expiry = full(v, "document.expiryDate", document.expiry_date);
    for (field, date) in [
        ("document.dateOfBirth", birth),
        ("document.issueDate", issue),
    ] {
        if date.is_some_and(|date| date > today) {
            v.add(field, "DATE_IN_FUTURE", "must not be after today (UTC)");
        }
    }
    if let (Some(issue), Some(expiry)) = (issue, expiry)
        && expiry <= issue
    {
        v.add(
            "document.expiryDate",
            "EXPIRY_NOT_AFTER_ISSUE",
            format!("must be after the issue date {issue}"),
        );
    }
    if let (Some(birth), Some(issue)) = (birth, issue)
        && birth > issue
    {
        v.add(
            "document.dateOfBirth",
            "BIRTH_AFTER_ISSUE",
            format!("must not be after the issue date {issue}"),
        );
    }
}

/// The machine readable zone, when given, is an MRZ of ICAO Doc 9303 (TD1, TD2, TD3,
/// MRV-A or MRV-B): the right number of lines of the right length, upper-case letters,
/// digits and `<` only, a known document code. A wrong check digit or a field that
/// does not match the document is not refused here: the ID verification job names it
/// in its result.
fn check_mrz(v: &mut Violations, lines: &[String], today: Date) {
    let before = v.len();
    v.max_items("document.mrz", lines, MAX_MRZ_LINES);
    for (i, line) in lines.iter().enumerate() {
        let field = format!("document.mrz[{i}]");
        if line.is_empty() {
            v.add(field, "REQUIRED", "an MRZ line must not be empty");
        } else {
            v.optional_text(&field, line, MAX_MRZ_LINE);
        }
    }
    if lines.is_empty() || v.len() > before {
        return;
    }
    if let Err(error) = mrz::parse(lines, today) {
        let (field, reason) = match &error {
            MrzFormatError::LineCount { .. } => ("document.mrz".to_owned(), "MRZ_LINE_COUNT"),
            MrzFormatError::LineLength { line, .. } => (mrz_line(*line), "MRZ_LINE_LENGTH"),
            MrzFormatError::LowerCase { line, .. } => (mrz_line(*line), "MRZ_LOWER_CASE"),
            MrzFormatError::InvalidCharacter { line, .. } => {
                (mrz_line(*line), "MRZ_INVALID_CHARACTER")
            }
            MrzFormatError::UnknownDocumentCode { .. } => (mrz_line(1), "MRZ_DOCUMENT_CODE"),
        };
        v.add(field, reason, error.to_string());
    }
}

/// `document.mrz[i]` of the 1-based MRZ line `line`.
fn mrz_line(line: usize) -> String {
    format!("document.mrz[{}]", line.saturating_sub(1))
}

/// Files are named `entities/{entity}/files/{file}` under the document's own entity,
/// or `forms/{form}/files/{file}`, at most 20, none twice. That the files exist, and
/// that a form's file is of a form about the document's entity, is checked apart,
/// with a lookup ([`DocumentService::check_named_files`]).
fn check_files(v: &mut Violations, document: &Document) {
    v.max_items("document.files", &document.files, MAX_FILES);
    let prefix = format!("{}/files/", document.entity);
    let mut seen = BTreeSet::new();
    for (i, file) in document.files.iter().enumerate() {
        let field = format!("document.files[{i}]");
        let shape = |pattern| {
            rics_aip::resource_id::parse_name(pattern, file)
                .is_ok_and(|ids| ids.iter().all(|id| is_well_formed_id(id)))
        };
        let of_form = shape("forms/{form}/files/{file}");
        if !of_form && !shape("entities/{entity}/files/{file}") {
            v.add(
                field,
                "INVALID_NAME",
                format!(
                    "'{file}' is not a file name (entities/{{entity}}/files/{{file}} or forms/{{form}}/files/{{file}})"
                ),
            );
        } else if !of_form && !file.starts_with(&prefix) {
            v.add(
                field,
                "FILE_OF_ANOTHER_ENTITY",
                format!(
                    "'{file}' is not a file of the document's entity ({}/files/{{file}})",
                    document.entity
                ),
            );
        } else if !seen.insert(file.as_str()) {
            v.add(field, "DUPLICATE_FILE", format!("'{file}' is listed twice"));
        }
    }
}

/// The query with the codes of `issuingCountry` comparisons as stored: a filter may
/// name a country as input may (`issuingCountry = "de"` finds `DEU`). A value that is
/// no code, or has a wildcard, is compared as given.
fn with_stored_codes(mut query: ListQuery) -> ListQuery {
    query.condition = query.condition.map(stored_codes);
    query
}

fn stored_codes(condition: Condition) -> Condition {
    match condition {
        Condition::And(parts) => Condition::And(parts.into_iter().map(stored_codes).collect()),
        Condition::Or(parts) => Condition::Or(parts.into_iter().map(stored_codes).collect()),
        Condition::Not(inner) => Condition::Not(Box::new(stored_codes(*inner))),
        Condition::Compare {
            field: "issuingCountry",
            op,
            value: Literal::String(StringMatch::Exact(text)),
        } => {
            let text = IcaoCode::parse(&text).map_or(text, |code| code.as_str().to_owned());
            Condition::Compare {
                field: "issuingCountry",
                op,
                value: Literal::String(StringMatch::Exact(text)),
            }
        }
        other => other,
    }
}
#[async_trait]
impl UpdateMethod for DocumentService {
    /// The number is normalised and the display name given by default, as on create;
    /// the entity must be live, and a new workspace must exist and be live.
    async fn admit_update(
        &self,
        principal: &Principal,
        current: &Document,
        updated: &mut Document,
    ) -> Result<()> {
        updated.document_number = number::normalise(&updated.document_number);
        name_by_default(updated);
        validate(updated, self.context.clock.now())?;
        self.live_entity(principal, current).await?;
        if updated.workspace != current.workspace {
            self.check_workspace(principal, updated).await?;
        }
        self.check_named_files(principal, updated, &current.files)
            .await
    }
}

#[async_trait]
impl CreateMethod for DocumentService {
    const ID_PARAMETER: &'static str = "documentId";

    /// The number is normalised and the display name given by default; its entity
    /// must be live, and its workspace, when named, must exist and be live.
    async fn admit_new(
        &self,
        principal: &Principal,
        document: &mut Document,
        now: Timestamp,
    ) -> Result<()> {
        document.document_number = number::normalise(&document.document_number);
        name_by_default(document);
        validate(document, now)?;
        self.live_entity(principal, document).await?;
        self.check_workspace(principal, document).await?;
        self.check_named_files(principal, document, &[]).await
    }
}

// Delete and undelete as every soft-deletable resource has them: the document's
// entity must be live.
soft_delete_methods!(
    DocumentService,
    Document,
    "document",
    fields = fields::TABLE as "document",
    store = documents.update,
    check = live_entity,
    purge = "documents"
);
