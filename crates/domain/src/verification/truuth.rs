//! Truuth's callback, as design.md gives its shape: `verificationId`, `externalRefId`
//! (rics's session id), `status`, `identityOwner` and `results.proofingOutcomes[]`,
//! read into a [`VerificationOutcome`].
//!
//! A final callback passes when it is `VERIFICATION_STATUS_DONE` and every proofing
//! outcome (at least one) has a passing status (`PASS`, `PASSED`, `VERIFIED`,
//! `SUCCESS`, any case); `VERIFICATION_STATUS_ERROR` never passes. Truuth compares the
//! person's face with the document, so its assurance is `DOCUMENT_AND_BIOMETRIC`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::provider::{Assurance, ProviderStatus, VerificationOutcome, VerifiedOwner};
use crate::error::{Error, Result};
use crate::resource::parse_body;

/// The statuses of a proofing outcome that pass.
const PASSING: [&str; 4] = ["PASS", "PASSED", "VERIFIED", "SUCCESS"];

/// The longest id a callback may give.
pub const MAX_ID: usize = 128;

/// A Truuth callback's body. Unknown fields are ignored: the provider may add some.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TruuthCallback {
    #[serde(default)]
    verification_id: String,
    #[serde(default)]
    external_ref_id: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    identity_owner: TruuthOwner,
    #[serde(default)]
    results: Option<TruuthResults>,
}

/// The person as the provider verified them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
struct TruuthOwner {
    given_name: Option<String>,
    family_name: Option<String>,
    middle_name: Option<String>,
    date_of_birth: Option<String>,
    email: Option<String>,
    gender: Option<String>,
    mobile_number: Option<String>,
}

/// The provider's judgements of the evidence.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
struct TruuthResults {
    #[serde(default)]
    proofing_outcomes: Vec<TruuthProofingOutcome>,
}

/// One judgement: its status (PASS and the like pass).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
struct TruuthProofingOutcome {
    #[serde(default)]
    status: String,
}

/// Reads a Truuth callback body.
///
/// # Errors
/// INVALID_ARGUMENT naming the field under `callback.`: a body that does not read,
/// a missing or overlong `verificationId` or `externalRefId`, an unknown `status`.
pub fn read_callback(body: Value) -> Result<VerificationOutcome> {
    let callback: TruuthCallback = parse_body(body, "callback")?;
    for (field, value) in [
        ("callback.verificationId", &callback.verification_id),
        ("callback.externalRefId", &callback.external_ref_id),
    ] {
        if value.is_empty() {
            return Err(Error::invalid_field(field, "REQUIRED", "must be given"));
        }
        if value.len() > MAX_ID {
            return Err(Error::invalid_field(
                field,
                "TOO_LONG",
                format!("must be at most {MAX_ID} characters"),
            ));
        }
    }
    let status = ProviderStatus::parse(&callback.status)
        .filter(|s| !s.is_unspecified())
        .ok_or_else(|| {
            Error::invalid_field(
                "callback.status",
                "UNKNOWN_STATUS",
                format!("'{}' is not a verification status", callback.status),
            )
        })?;
    let proofing_outcomes: Vec<String> = callback
        .results
        .map(|r| r.proofing_outcomes.into_iter().map(|o| o.status).collect())
        .unwrap_or_default();
    let passed = status == ProviderStatus::Done
        && !proofing_outcomes.is_empty()
        && proofing_outcomes
            .iter()
            .all(|s| PASSING.contains(&s.to_ascii_uppercase().as_str()));
    let owner = callback.identity_owner;
    Ok(VerificationOutcome {
        verification_id: callback.verification_id,
        reference: callback.external_ref_id,
        status,
        passed,
        proofing_outcomes,
        identity_owner: VerifiedOwner {
            given_name: owner.given_name,
            family_name: owner.family_name,
            middle_name: owner.middle_name,
            date_of_birth: owner.date_of_birth,
            email: owner.email,
            gender: owner.gender,
            mobile_number: owner.mobile_number,
        },
        assurance: Assurance::DocumentAndBiometric,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn done(outcomes: &[&str]) -> Value {
        json!({
            "verificationId": "v-1",
            "externalRefId": "session-1",
            "status": "VERIFICATION_STATUS_DONE",
            "identityOwner": {"givenName": "Amy", "familyName": "Lee", "dateOfBirth": "1990-02-03"},
            "results": {"proofingOutcomes": outcomes.iter().map(|s| json!({"status": s})).collect::<Vec<_>>()},
            "somethingNew": true,
        })
    }

    #[test]
    fn a_done_callback_passes_when_every_outcome_passes() {
        let outcome = read_callback(done(&["PASS", "passed"])).unwrap();
        assert!(outcome.passed);
        assert_eq!(outcome.reference, "session-1");
        assert_eq!(outcome.identity_owner.given_name.as_deref(), Some("Amy"));
        assert_eq!(outcome.assurance, Assurance::DocumentAndBiometric);
        assert!(!read_callback(done(&["PASS", "FAIL"])).unwrap().passed);
        assert!(!read_callback(done(&[])).unwrap().passed);
    }

    #[test]
    fn an_error_or_unfinished_callback_does_not_pass() {
        let mut body = done(&["PASS"]);
        body["status"] = json!("VERIFICATION_STATUS_ERROR");
        let outcome = read_callback(body.clone()).unwrap();
        assert!(!outcome.passed);
        assert!(outcome.status.is_final());
        body["status"] = json!("VERIFICATION_STATUS_PROCESSING");
        assert!(!read_callback(body).unwrap().status.is_final());
    }

    #[test]
    fn a_bad_callback_names_its_field() {
        let mut body = done(&["PASS"]);
        body["status"] = json!("FINISHED");
        let error = read_callback(body).unwrap_err();
        assert_eq!(error.reason, "UNKNOWN_STATUS");
        let mut body = done(&["PASS"]);
        body.as_object_mut().unwrap().remove("externalRefId");
        let error = read_callback(body).unwrap_err();
        assert_eq!(error.reason, "REQUIRED");
        assert!(
            error.to_string().contains("externalRefId")
                || format!("{error:?}").contains("externalRefId")
        );
    }
}
