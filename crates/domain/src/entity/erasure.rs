//! The erasure plan: what erasing an entity (`:hardDelete`, and the purge of a
//! soft-deleted one) does to each resource that refers to it. Storage carries the
//! steps out in this order, in one transaction, and counts each under its resource in
//! the receipt's `erasedCounts`. A resource that can name an entity gets its step here
//! when it is added; docs/api.md lists the plan.

use async_trait::async_trait;

use crate::principal::TenantId;

/// What follows an entity's erasure once it has committed, outside its transaction:
/// the removal of what lives beyond the database (the content of its files).
#[async_trait]
pub trait AfterErasure: Send + Sync {
    /// Called after an entity of `tenant` was erased. It cannot fail the erasure:
    /// what it leaves undone, housekeeping finishes.
    async fn erased(&self, tenant: &TenantId);
}

/// What a step does to the rows it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// They are removed: they hold personal data about the entity.
    Removed,
    /// They stay, as the firm's record, without the entity in them.
    Unlinked,
}

/// One step of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErasureStep {
    /// The key of its count in `erasedCounts`.
    pub resource: &'static str,
    /// What happens to the rows.
    pub effect: Effect,
    /// Which rows, in words for the operator and the regulator.
    pub covers: &'static str,
}

const fn removed(resource: &'static str, covers: &'static str) -> ErasureStep {
    ErasureStep {
        resource,
        effect: Effect::Removed,
        covers,
    }
}

const fn unlinked(resource: &'static str, covers: &'static str) -> ErasureStep {
    ErasureStep {
        resource,
        effect: Effect::Unlinked,
        covers,
    }
}

/// The steps, in the order storage runs them: what refers to the entity's row goes
/// before it, and what names it by its resource name after it.
pub const PLAN: &[ErasureStep] = &[
    removed("relationships", "the entity's relationships, both sides"),
    removed("tags", "its tags"),
    removed("externalIds", "its external ids"),
    removed(
        "activityLogs",
        "the activity logs naming it, with their events and the idempotency keys that created them",
    ),
    removed("events", "its events"),
    removed("idempotencyKeys", "the idempotency key that created it"),
    removed("entities", "the entity itself"),
    removed(
        "documents",
        "its identity documents, with the idempotency keys that created them",
    ),
    removed("notes", "its notes"),
    removed(
        "files",
        "its files, with the idempotency keys that created them; their content leaves its store",
    ),
    removed(
        "jobs",
        "its jobs (a job created at `entities/-` whose run made it included), with their runs and operations",
    ),
    removed(
        "automationExecutions",
        "the automation executions about it (whose parameter `entity` names it, or whose MAP_ONBOARDING step made it: their outputs hold its data), with their queued work and operations",
    ),
    removed(
        "screeningDismissals",
        "the matches dismissed for it (the dismissal memory of screening)",
    ),
    removed(
        "verificationSessions",
        "its identity verification sessions (the person's name and email, the provider's outcome), with the provider callbacks received for them",
    ),
    unlinked(
        "workspaceMemberships",
        "its place in workspaces, which stay",
    ),
    unlinked("alertMemberships", "its place in alerts, which stay"),
    removed(
        "formFiles",
        "the files of its forms (a hosted capture's selfie and document photo among them), with the idempotency keys that created them; their content leaves its store",
    ),
    unlinked(
        "forms",
        "its forms (an onboarding's run form and a hosted capture's form among them, once its journey made the entity from the answers), which stay without the entity and without their response",
    ),
    removed(
        "webhookDeliveries",
        "its finished webhook deliveries (their attempts may echo its data); pending ones go out as `erased: true`, without the object, their attempt log emptied",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_resource_has_one_step() {
        let mut resources: Vec<&str> = PLAN.iter().map(|step| step.resource).collect();
        resources.sort_unstable();
        resources.dedup();
        assert_eq!(resources.len(), PLAN.len());
    }

    #[test]
    fn docs_list_the_plan_in_order() {
        let api = include_str!("../../../../docs/api.md");
        let mut rest = api;
        for step in PLAN {
            let effect = match step.effect {
                Effect::Removed => "removed",
                Effect::Unlinked => "unlinked",
            };
            let row = format!("| `{}` | {effect} | {} |", step.resource, step.covers);
            let at = rest.find(&row);
            assert!(
                at.is_some(),
                "docs/api.md lacks, or misorders, the row {row}"
            );
            rest = &rest[at.unwrap_or_default()..];
        }
    }
}
