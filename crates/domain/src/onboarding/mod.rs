//! Onboarding of individuals (`onboardIndividualEntityJobs`, issue 18): a form
//! definition, a JSONata mapping from the form's response to an entity, and a
//! `webhookUri` told of the decision.
//!
//! [`input`] checks what a job is created with, so a job that is accepted cannot fail
//! later for a bad mapping or destination; [`mapping`] turns a submitted response into
//! the entity body the journey creates or applies; [`decision`] holds the default rules
//! that turn the journey's findings into APPROVED, REFER or REJECTED.

pub mod decision;
pub mod input;
pub mod journey;
pub mod mapping;

pub use decision::{Decision, Findings, Reason, decide};
pub use input::{CheckedOnboarding, OnboardingInput};
pub use journey::{DECIDED_EVENT, Journey, OnboardingResult};
pub use mapping::{CompiledMapping, MappingEngine, entity_body};
