//! The file routes under `entities/{entity}` and `forms/{form}`, declared per kind of parent in a module
//! of its own: List, soft Delete and Undelete are the template's; Create reads JSON or
//! multipart ([`crate::upload`]); Get answers the content with `?alt=media`, as
//! `:download` does.
//!
//! A download is the stored bytes with the stored content type, `Content-Disposition:
//! attachment` with a file name made safe from the display name (RFC 6266: an ASCII
//! `filename` and the UTF-8 `filename*`), `X-Content-Type-Options: nosniff`, and `ETag`
//! the quoted SHA-256 of the content; `If-None-Match` naming it answers 304.

use actix_web::http::header;
use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use rics_domain::error::Error;
use rics_domain::file::service::ID_PARAMETER;
use rics_domain::file::{File, FileParent};
use rics_domain::lifecycle::StoreVersions;
use rics_domain::principal::Principal;
use rics_domain::resource::Named;
use serde::Serialize;
use utoipa::ToSchema;

use super::{Response, check_name_param, ok};
use crate::error::ApiError;
use crate::extract::QueryParams;
use crate::state::ApiState;

list_response! {
    /// A page of files.
    ListFilesResponse {
        /// The files, oldest first unless `orderBy` says otherwise.
        files: File,
        /// How many files match.
        total_size,
    }
}

/// The JSON body of a file's create.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileUpload {
    /// What people call the file. Required; at most 255 characters.
    pub display_name: String,
    /// The media type the client says the content has. Optional; when given and not
    /// `application/octet-stream`, it must be the type the content's bytes have.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The content, in base64 (standard or URL-safe alphabet, padding optional).
    #[schema(format = Byte)]
    pub content: String,
}

/// The `multipart/form-data` body of a file's create, as a browser's form sends it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileUploadForm {
    /// What people call the file; by default the name of the `content` part's file.
    /// When given, the part comes before `content`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The file. Its part's `Content-Type` is the declared type (optional, as in
    /// the JSON body).
    #[schema(value_type = String, format = Binary)]
    pub content: Vec<u8>,
}

/// What a file's Get answers (AIP-194's `alt`).
#[derive(Debug, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum Alt {
    /// The file, as JSON (the default).
    Json,
    /// Its content, as `:download` answers it.
    Media,
}

/// A file's content, as a download answers it: the stored bytes, with the file's
/// content type.
#[derive(Debug, ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct FileContent(pub Vec<u8>);

/// Create: the query's `fileId` and `requestId`, the parent (before any of the body
/// is read), then the upload.
pub(crate) async fn create(
    req: &HttpRequest,
    state: &Data<ApiState>,
    caller: &Principal,
    parent: FileParent,
    payload: Payload,
) -> Response {
    let mut query = QueryParams::parse(req.query_string())?;
    let id = query.take(ID_PARAMETER)?;
    let request_id = query.take("requestId")?;
    query.finish()?;
    let within = state.files.within(parent);
    within.check_parent(caller, true).await?;
    let upload = crate::upload::read(req, payload, state.files.rules().max_bytes).await?;
    ok(&within
        .upload(
            caller,
            upload.metadata,
            upload.content,
            id.as_deref(),
            request_id.as_deref(),
        )
        .await?)
}

/// Get: the file, or with `alt=media` its content; the redundant `name` must be the
/// file's.
pub(crate) async fn get(
    req: &HttpRequest,
    state: &Data<ApiState>,
    caller: &Principal,
    parent: FileParent,
    id: &str,
) -> Response {
    let within = state.files.within(parent);
    let mut query = QueryParams::parse(req.query_string())?;
    let alt = query.take("alt")?;
    let (full, short) = (within.name_of(id), File::name_of(id));
    check_name_param(&mut query, &[&full, &short])?;
    query.finish()?;
    match alt.as_deref() {
        None | Some("json") => ok(&within.get(caller, id).await?),
        Some("media") => serve(req, &within, caller, id).await,
        Some(other) => Err(ApiError(Error::invalid_field(
            "alt",
            "INVALID_VALUE",
            format!("'{other}' is neither json nor media"),
        ))),
    }
}

/// `:download`: the content.
pub(crate) async fn download(
    req: &HttpRequest,
    state: &Data<ApiState>,
    caller: &Principal,
    parent: FileParent,
    id: &str,
) -> Response {
    QueryParams::parse(req.query_string())?.finish()?;
    serve(req, &state.files.within(parent), caller, id).await
}

/// The content of the file `id`, or 304 when `If-None-Match` names its etag.
async fn serve(
    req: &HttpRequest,
    within: &rics_domain::lifecycle::Within<'_, rics_domain::file::FileService>,
    caller: &Principal,
    id: &str,
) -> Response {
    let file = within.downloadable(caller, id).await?;
    let etag = format!("\"{}\"", file.sha256);
    if none_match(req, &etag) {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    let content = within.content(caller, &file).await?;
    let length = u64::try_from(file.size_bytes).unwrap_or_default();
    Ok(HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, file.content_type.clone()))
        .insert_header((header::CONTENT_DISPOSITION, disposition(&file.display_name)))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .no_chunking(length)
        .streaming(content.map(|chunk| chunk.map_err(|e| std::io::Error::other(e.message)))))
}

/// Whether `If-None-Match` names `etag` (weakly compared, RFC 9110) or is `*`.
fn none_match(req: &HttpRequest, etag: &str) -> bool {
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .any(|tag| tag == "*" || tag.strip_prefix("W/").unwrap_or(tag) == etag)
}

/// RFC 5987's `attr-char`: what `filename*` keeps unencoded.
const ATTR_CHAR: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// The display name as a file name no client takes for a path: separators and control
/// characters become `_`, leading dots and spaces go (no hidden file, no `..`), and
/// what is left over is `file`.
pub fn safe_file_name(display_name: &str) -> String {
    let replaced: String = display_name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let trimmed = replaced.trim_start_matches(['.', ' ']).trim_end();
    if trimmed.is_empty() {
        "file".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// `Content-Disposition: attachment` naming `display_name` made safe: an ASCII
/// `filename` (other characters as `_`) for old clients, and `filename*` in UTF-8.
pub fn disposition(display_name: &str) -> String {
    let name = safe_file_name(display_name);
    let ascii: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, ' ' | '.' | '-' | '_' | '(' | ')') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let encoded = percent_encoding::utf8_percent_encode(&name, ATTR_CHAR);
    format!("attachment; filename=\"{ascii}\"; filename*=UTF-8''{encoded}")
}

/// Declares the file routes under one kind of parent, in a module of its own: its
/// [`FileParent`] variant, its path variable as a utoipa parameter and the
/// description of the redundant `parent` parameter, then each route's path after its
/// doc comment (the operation's summary).
macro_rules! file_routes {
    (
        $(#[$module_doc:meta])*
        mod $module:ident: $variant:ident, $parent:tt, $parent_name:literal;
        $(#[$list_doc:meta])* list $collection:literal;
        $(#[$create_doc:meta])* create $collection_again:literal;
        $(#[$get_doc:meta])* get $item:literal;
        $(#[$delete_doc:meta])* delete $item_again:literal;
        $(#[$undelete_doc:meta])* undelete $undelete:literal;
        $(#[$download_doc:meta])* download $download:literal;
    ) => {
        $(#[$module_doc])*
        pub mod $module {
            use actix_web::web::{Data, Path, Payload};
            use actix_web::HttpRequest;
            use rics_domain::file::{File, FileParent};
            use rics_domain::principal::Scope;

            use super::{Alt, FileContent, FileUpload, FileUploadForm, ListFilesResponse};
            use crate::extract::Caller;
            use crate::routes::Response;
            use crate::state::ApiState;

            resource_routes! {
                service: files, resource: File, tag: "files",
                id: ("file" = String, Path, description = "File id"),
                parent: FileParent::$variant, $parent;

                $(#[$list_doc])*
                list $collection, Some(Scope::Read), lists rics_domain::file::fields::LIST => ListFilesResponse, params(
                    ("parent" = Option<String>, Query, description = $parent_name),
                    ("pageSize" = Option<i32>, Query, description = "Default 50, at most 1000 (larger values are coerced to 1000)"),
                    ("pageToken" = Option<String>, Query, description = "Token from a previous response; every other parameter must be unchanged"),
                    ("skip" = Option<i32>, Query, description = "Items to skip before the page"),
                    ("filter" = Option<String>, Query, description = "AIP-160 over displayName, contentType, createTime"),
                    ("orderBy" = Option<String>, Query, description = "displayName or createTime, optionally ` desc`; default createTime"),
                    ("showDeleted" = Option<bool>, Query, description = "Include soft-deleted files"));
                POST $collection_again => create, Some(Scope::Write);
                GET $item => get, Some(Scope::Read);
                $(#[$delete_doc])*
                delete $item_again, Some(Scope::Write), params(
                    ("etag" = Option<String>, Query, description = "When given, must be the file's current etag"),
                    ("allowMissing" = Option<bool>, Query, description = "Succeed when the file is missing or already deleted"));
                $(#[$undelete_doc])*
                undelete $undelete, Some(Scope::Write);
                GET $download => download, Some(Scope::Read);
            }

            $(#[$create_doc])*
            #[utoipa::path(post, path = $collection_again, tag = "files",
                params($parent,
                    ("fileId" = Option<String>, Query, description = "The file's id (4 to 63 of [a-z0-9-]); generated when absent"),
                    ("requestId" = Option<String>, Query, description = "A UUID making the call idempotent")),
                request_body(content(
                    (FileUpload = "application/json"),
                    (FileUploadForm = "multipart/form-data")),
                    description = "The file: JSON with its content in base64, or a form with a `content` part holding it (after an optional `displayName` part)"),
                responses((status = 200, body = File), (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope), (status = 409, body = crate::error::ErrorEnvelope)))]
            pub async fn create(
                caller: Caller,
                req: HttpRequest,
                path: Path<String>,
                state: Data<ApiState>,
                payload: Payload,
            ) -> Response {
                super::create(&req, &state, &caller.0, FileParent::$variant(path.into_inner()), payload).await
            }

            $(#[$get_doc])*
            #[utoipa::path(get, path = $item, tag = "files",
                params($parent, ("file" = String, Path, description = "File id"),
                    ("name" = Option<String>, Query, description = "Redundant name (`files/{file}` or the full name); must match the path"),
                    ("alt" = inline(Option<Alt>), Query, description = "`json` (the default) for the file, `media` for its content, as `:download` answers it")),
                responses((status = 200, description = "The file, or with `alt=media` its content", content(
                        (File = "application/json"),
                        (FileContent = "application/octet-stream"),
                        (FileContent = "*/*"))),
                    (status = 304, description = "With `alt=media`: `If-None-Match` names the content's ETag"),
                    (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope)))]
            pub async fn get(
                caller: Caller,
                req: HttpRequest,
                path: Path<(String, String)>,
                state: Data<ApiState>,
            ) -> Response {
                let (parent, id) = path.into_inner();
                super::get(&req, &state, &caller.0, FileParent::$variant(parent), &id).await
            }

            $(#[$download_doc])*
            #[utoipa::path(get, path = $download, tag = "files",
                params($parent, ("file" = String, Path, description = "File id")),
                responses((status = 200, description = "The content, with its stored content type (any allowed type; `application/octet-stream` is named for clients that read bytes)", content(
                        (FileContent = "application/octet-stream"),
                        (FileContent = "*/*"))),
                    (status = 304, description = "`If-None-Match` names the content's ETag"),
                    (status = 400, body = crate::error::ErrorEnvelope), (status = 404, body = crate::error::ErrorEnvelope)))]
            pub async fn download(
                caller: Caller,
                req: HttpRequest,
                path: Path<(String, String)>,
                state: Data<ApiState>,
            ) -> Response {
                let (parent, id) = path.into_inner();
                super::download(&req, &state, &caller.0, FileParent::$variant(parent), &id).await
            }
        }
    };
}

file_routes! {
    /// The files of an entity.
    mod of_entities: Entity, ("entity" = String, Path, description = "Entity id"),
        "Redundant parent name (`entities/{entity}`); must match the path";
    /// Lists an entity's files.
    list "/v1alpha/entities/{entity}/files";
    /// Uploads a file of an entity.
    create "/v1alpha/entities/{entity}/files";
    /// Gets a file of an entity, or its content with `alt=media`.
    get "/v1alpha/entities/{entity}/files/{file}";
    /// Deletes a file of an entity (soft: it can be restored until it is purged).
    delete "/v1alpha/entities/{entity}/files/{file}";
    /// Restores a deleted file of an entity.
    undelete "/v1alpha/entities/{entity}/files/{file}:undelete";
    /// Downloads the content of a file of an entity.
    download "/v1alpha/entities/{entity}/files/{file}:download";
}

file_routes! {
    /// The files of a form.
    mod of_forms: Form, ("form" = String, Path, description = "Form id"),
        "Redundant parent name (`forms/{form}`); must match the path";
    /// Lists a form's files.
    list "/v1alpha/forms/{form}/files";
    /// Uploads a file of a DRAFT form.
    create "/v1alpha/forms/{form}/files";
    /// Gets a file of a form, or its content with `alt=media`.
    get "/v1alpha/forms/{form}/files/{file}";
    /// Deletes a file of a DRAFT form (soft: it can be restored until it is purged).
    delete "/v1alpha/forms/{form}/files/{file}";
    /// Restores a deleted file of a DRAFT form.
    undelete "/v1alpha/forms/{form}/files/{file}:undelete";
    /// Downloads the content of a file of a form.
    download "/v1alpha/forms/{form}/files/{file}:download";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_names_are_never_paths() {
        assert_eq!(
            disposition("../../etc/passwd"),
            "attachment; filename=\"_.._etc_passwd\"; filename*=UTF-8''_.._etc_passwd"
        );
        assert_eq!(
            disposition("Grüße \"final\".pdf"),
            "attachment; filename=\"Gr__e _final_.pdf\"; filename*=UTF-8''Gr%C3%BC%C3%9Fe%20%22final%22.pdf"
        );
        assert_eq!(safe_file_name("..\\..\\win.ini"), "_.._win.ini");
        assert_eq!(safe_file_name(" .hidden"), "hidden");
        assert_eq!(safe_file_name("line\nbreak"), "line_break");
        assert_eq!(safe_file_name("..."), "file");
    }
}
