//! The default decision rules of an onboarding:
//!
//! - REJECTED when the identity document failed verification;
//! - APPROVED when the document is VERIFIED, the screen found no potential match and the
//!   risk level is below HIGH;
//! - REFER otherwise, for an analyst, with every reason that kept it from APPROVED.
//!
//! An identity that rests on the document alone (the built-in hosted capture stores the
//! selfie but does not compare it with the document's photo: assurance DOCUMENT_ONLY)
//! is not APPROVED unless the operator accepts document-only assurance
//! (`RICS_ONBOARDING_ACCEPT_DOCUMENT_ONLY`): it refers, with reason
//! `DOCUMENT_ONLY_ASSURANCE`.
//!
//! A fresh screen is never a confirmed match (an analyst's review confirms one), but a
//! confirmed match the entity already had refers too.

use serde::{Deserialize, Serialize};

use crate::document::verification::Outcome;
use crate::entity::model::{RiskLevel, ScreeningStatus};

crate::proto_enum! {
    /// What an onboarding decided.
    pub enum Decision("DECISION_UNSPECIFIED") {
        /// Every check passed: the person may be onboarded.
        Approved = "APPROVED",
        /// An analyst must look (the alert `alertTypes/onboarding-referred` asks).
        Refer = "REFER",
        /// The identity document failed verification.
        Rejected = "REJECTED",
    }
}

/// Why a decision was made: a stable code and a sentence for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Reason {
    /// UPPER_SNAKE, stable: `DOCUMENT_FAILED`, `POTENTIAL_MATCH`, ...
    pub code: String,
    /// The reason in words.
    pub message: String,
}

impl Reason {
    fn new(code: &str, message: &str) -> Reason {
        Reason {
            code: code.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// What the journey found, as the rules read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Findings {
    /// The ID document verification's outcome.
    pub document: Outcome,
    /// The screen's status.
    pub screening: ScreeningStatus,
    /// The rating's level; `Unspecified` when the entity could not be rated.
    pub risk: RiskLevel,
    /// Whether the identity rests on the document alone (assurance DOCUMENT_ONLY).
    pub document_only: bool,
    /// Whether document-only assurance may be APPROVED.
    pub accept_document_only: bool,
}

/// The decision the default rules make on `findings`, with its reasons (never empty).
pub fn decide(findings: Findings) -> (Decision, Vec<Reason>) {
    if findings.document == Outcome::Failed {
        return (
            Decision::Rejected,
            vec![Reason::new(
                "DOCUMENT_FAILED",
                "The identity document failed verification.",
            )],
        );
    }
    let mut reasons = Vec::new();
    if findings.document != Outcome::Passed {
        reasons.push(Reason::new(
            "DOCUMENT_NOT_VERIFIED",
            "The identity document was not verified.",
        ));
    }
    match findings.screening {
        ScreeningStatus::Clear => {}
        ScreeningStatus::PotentialMatch => reasons.push(Reason::new(
            "POTENTIAL_MATCH",
            "Screening found a potential match that an analyst must review.",
        )),
        ScreeningStatus::ConfirmedMatch => reasons.push(Reason::new(
            "CONFIRMED_MATCH",
            "An analyst confirmed a screening match of this person.",
        )),
        ScreeningStatus::Unspecified => reasons.push(Reason::new(
            "NOT_SCREENED",
            "The person could not be screened.",
        )),
    }
    if findings.risk == RiskLevel::Unspecified {
        reasons.push(Reason::new(
            "NOT_RATED",
            "The person's risk could not be rated.",
        ));
    } else if findings.risk.is_high_or_above() {
        reasons.push(Reason::new(
            "HIGH_RISK",
            &format!("The risk level is {}.", findings.risk.as_str()),
        ));
    }
    if findings.document == Outcome::Passed
        && findings.document_only
        && !findings.accept_document_only
    {
        reasons.push(Reason::new(
            "DOCUMENT_ONLY_ASSURANCE",
            "The identity rests on the document alone (the selfie was not compared with it), \
             which this service does not accept without an analyst.",
        ));
    }
    if reasons.is_empty() {
        (
            Decision::Approved,
            vec![Reason::new(
                "ALL_CHECKS_PASSED",
                "The document is verified, screening found no match and the risk is below HIGH.",
            )],
        )
    } else {
        (Decision::Refer, reasons)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(document: Outcome, screening: ScreeningStatus, risk: RiskLevel) -> Findings {
        Findings {
            document,
            screening,
            risk,
            document_only: false,
            accept_document_only: false,
        }
    }

    fn codes(reasons: &[Reason]) -> Vec<&str> {
        reasons.iter().map(|r| r.code.as_str()).collect()
    }

    #[test]
    fn a_verified_document_no_match_and_risk_below_high_is_approved() {
        for risk in [RiskLevel::Low, RiskLevel::Medium] {
            let (decision, reasons) =
                decide(findings(Outcome::Passed, ScreeningStatus::Clear, risk));
            assert_eq!(decision, Decision::Approved, "{risk:?}");
            assert_eq!(codes(&reasons), ["ALL_CHECKS_PASSED"]);
        }
    }

    #[test]
    fn a_failed_document_is_rejected_whatever_else_was_found() {
        for screening in [ScreeningStatus::Clear, ScreeningStatus::PotentialMatch] {
            for risk in [RiskLevel::Low, RiskLevel::High] {
                let (decision, reasons) = decide(findings(Outcome::Failed, screening, risk));
                assert_eq!(decision, Decision::Rejected);
                assert_eq!(codes(&reasons), ["DOCUMENT_FAILED"]);
            }
        }
    }

    #[test]
    fn a_potential_match_refers() {
        let (decision, reasons) = decide(findings(
            Outcome::Passed,
            ScreeningStatus::PotentialMatch,
            RiskLevel::Low,
        ));
        assert_eq!(decision, Decision::Refer);
        assert_eq!(codes(&reasons), ["POTENTIAL_MATCH"]);
    }

    #[test]
    fn high_risk_and_above_refers() {
        for risk in [RiskLevel::High, RiskLevel::Critical, RiskLevel::Extreme] {
            let (decision, reasons) =
                decide(findings(Outcome::Passed, ScreeningStatus::Clear, risk));
            assert_eq!(decision, Decision::Refer, "{risk:?}");
            assert_eq!(codes(&reasons), ["HIGH_RISK"]);
            assert!(reasons[0].message.contains(risk.as_str()), "{reasons:?}");
        }
    }

    #[test]
    fn a_refer_lists_every_reason_that_kept_it_from_approved() {
        let (decision, reasons) = decide(findings(
            Outcome::Unspecified,
            ScreeningStatus::ConfirmedMatch,
            RiskLevel::Unspecified,
        ));
        assert_eq!(decision, Decision::Refer);
        assert_eq!(
            codes(&reasons),
            ["DOCUMENT_NOT_VERIFIED", "CONFIRMED_MATCH", "NOT_RATED"]
        );
    }

    #[test]
    fn document_only_assurance_refers_unless_accepted() {
        let mut only = findings(Outcome::Passed, ScreeningStatus::Clear, RiskLevel::Low);
        only.document_only = true;
        let (decision, reasons) = decide(only);
        assert_eq!(decision, Decision::Refer);
        assert_eq!(codes(&reasons), ["DOCUMENT_ONLY_ASSURANCE"]);
        only.accept_document_only = true;
        assert_eq!(decide(only).0, Decision::Approved);
        let mut failed = findings(Outcome::Failed, ScreeningStatus::Clear, RiskLevel::Low);
        failed.document_only = true;
        assert_eq!(decide(failed).0, Decision::Rejected);
    }

    #[test]
    fn missing_screen_refers() {
        let (decision, reasons) = decide(findings(
            Outcome::Passed,
            ScreeningStatus::Unspecified,
            RiskLevel::Low,
        ));
        assert_eq!(decision, Decision::Refer);
        assert_eq!(codes(&reasons), ["NOT_SCREENED"]);
    }
}
