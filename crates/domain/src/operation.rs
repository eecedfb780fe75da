//! Long-running operations (AIP-151): the record clients poll until `done`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::time::Timestamp;

/// A `google.rpc.Status` as stored in an operation's `error`: `code` is the canonical
/// number (INVALID_ARGUMENT = 3), not an HTTP status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OperationError {
    /// The canonical code number.
    pub code: i32,
    /// Developer-facing English message.
    pub message: String,
    /// Further details (`ErrorInfo`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub details: Vec<Value>,
}

impl From<&Error> for OperationError {
    fn from(error: &Error) -> OperationError {
        OperationError {
            code: error.code.number(),
            message: error.message.clone(),
            details: vec![serde_json::json!({
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": error.reason,
                "domain": "rics",
                "metadata": error.complete_metadata(),
            })],
        }
    }
}

/// Service-specific metadata of an operation: its kind, its progress and debugging
/// details.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct OperationMetadata {
    /// What the operation does, such as `rics.v1alpha.CreateTenant`.
    #[serde(rename = "type", default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Progress, free text such as `2/3 steps`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
    /// Debugging details (start and end times, steps run).
    #[serde(default, skip_serializing_if = "Value::is_null")]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub debug: Value,
}

/// A long-running operation. `done` false: neither `error` nor `response`; `done`
/// true: exactly one of them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Operation {
    /// `{resource}/operations/{operation}`.
    pub name: String,
    /// Kind and progress.
    #[serde(default)]
    pub metadata: OperationMetadata,
    /// Whether it finished.
    #[serde(default)]
    pub done: bool,
    /// The failure, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<OperationError>,
    /// The result, when it succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub response: Option<Value>,
    /// When it was created. Not part of the JSON (the metadata carries times).
    #[serde(skip)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub create_time: Option<Timestamp>,
    /// When one-time secrets in `response` (a new client's secret) are removed; `None`
    /// when it holds none. Not part of the JSON.
    #[serde(skip)]
    #[cfg_attr(feature = "openapi", schema(ignore))]
    pub redact_after: Option<Timestamp>,
}

/// Stores long-running operations.
///
/// Any method may fail with [`RepositoryError::Unavailable`] or
/// [`RepositoryError::Internal`].
#[cfg_attr(any(test, feature = "mocks"), mockall::automock)]
#[async_trait::async_trait]
pub trait OperationRepository: Send + Sync {
    /// The operation named `name` owned by `owner` (the tenant that may poll it).
    ///
    /// # Errors
    /// Only the common errors.
    async fn get(
        &self,
        owner: &crate::principal::TenantId,
        name: &str,
    ) -> Result<Option<Operation>, crate::repository::RepositoryError>;

    /// Removes the one-time secrets (such as a new tenant's first client secret) from
    /// the responses of operations whose `redact_after` is at or before `now`; returns
    /// how many changed.
    ///
    /// # Errors
    /// Only the common errors.
    async fn redact_secrets(
        &self,
        now: Timestamp,
    ) -> Result<u64, crate::repository::RepositoryError>;
}
