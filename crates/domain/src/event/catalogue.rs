//! The event catalogue: every event type rics writes, `{prefix}.{verb}`, in one place.
//! Webhook endpoints subscribe to these types (or to `prefix.*`, or `*`), and
//! docs/api.md lists them under "Event types".
//!
//! Each family's prefix is taken from the declaration that writes its events (a
//! service's `EVENT_KIND`, a job family's `EVENT_PREFIX`), so a renamed prefix cannot
//! leave the catalogue behind. Its verbs are the standard ones of its kind of lifecycle
//! and the custom verbs its service writes; a test reads the domain's sources and fails
//! when an event type written there is missing here, or a custom verb here is written
//! nowhere.

use crate::activity::{ActivityLogService, ActivityLogTypeService};
use crate::alert::AlertService;
use crate::document::DocumentService;
use crate::entity::EntityService;
use crate::file::service::FileService;
use crate::form::FormService;
use crate::form_definition::FormDefinitionService;
use crate::job::id_verification::IdVerificationJobs;
use crate::job::kind::JobFamily;
use crate::job::onboarding::OnboardingJobs;
use crate::job::pep_sanction::PepSanctionJobs;
use crate::job::risk_rating::RiskRatingJobs;
use crate::lifecycle::{ParentedService, StoreVersions};
use crate::note::service::NoteService;
use crate::verification::jobs::VerificationJobs;
use crate::webhook::WebhookEndpointService;
use crate::workspace::service::WorkspaceService;

/// The standard verbs of a resource that is soft-deleted, restored and purged.
const SOFT_DELETED: &[&str] = &["created", "updated", "deleted", "undeleted", "purged"];
/// The standard verbs of a soft-deletable resource that is never changed in place.
const SOFT_DELETED_UNCHANGED: &[&str] = &["created", "deleted", "undeleted", "purged"];
/// The standard verbs of a resource removed for good when deleted.
const REMOVED_WHEN_DELETED: &[&str] = &["created", "updated", "deleted"];
/// The standard verbs of a resource that is never deleted.
const NEVER_DELETED: &[&str] = &["created", "updated"];
/// The verbs of a job family's jobs.
const JOB: &[&str] = &["created", "started", "succeeded", "failed"];
/// The verbs of a job family whose runs end elsewhere (`JobService::end_run`), where a
/// run can also be cancelled.
const JOB_ENDING_ELSEWHERE: &[&str] = &["created", "started", "succeeded", "failed", "cancelled"];
/// The verbs of a job family whose jobs may also be changed, soft-deleted, restored
/// and purged ([`JobFamily::input_fields`]).
const CHANGEABLE_JOB: &[&str] = &[
    "created",
    "started",
    "succeeded",
    "failed",
    "updated",
    "deleted",
    "undeleted",
    "purged",
];
/// The verb of a resource that is only ever created.
const CREATED_ONLY: &[&str] = &["created"];

/// The event types of one kind of resource: `{prefix}.{verb}` for each verb.
#[derive(Debug, Clone, Copy)]
pub struct EventFamily {
    /// The first part of the types (`entity`).
    pub prefix: &'static str,
    /// The verbs its lifecycle writes.
    pub standard: &'static [&'static str],
    /// The verbs its service writes beside them.
    pub custom: &'static [&'static str],
}

impl EventFamily {
    /// Its event types, standard verbs first.
    pub fn types(&self) -> impl Iterator<Item = String> + '_ {
        self.standard
            .iter()
            .chain(self.custom)
            .map(|verb| format!("{}.{verb}", self.prefix))
    }
}

/// Every family of event types rics writes.
pub const CATALOGUE: &[EventFamily] = &[
    EventFamily {
        prefix: "tenant",
        standard: CREATED_ONLY,
        custom: &["webhook_secret_rotated", "truuth_callback_secret_rotated"],
    },
    EventFamily {
        prefix: <EntityService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &[
            "tag_added",
            "tag_removed",
            "relationship_added",
            "relationship_removed",
            "hard_deleted",
        ],
    },
    EventFamily {
        prefix: <WorkspaceService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &["closed", "reopened"],
    },
    EventFamily {
        prefix: <NoteService as ParentedService>::EVENT_KIND,
        standard: REMOVED_WHEN_DELETED,
        custom: &[],
    },
    EventFamily {
        prefix: <ActivityLogTypeService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &[],
    },
    EventFamily {
        prefix: <ActivityLogService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED_UNCHANGED,
        custom: &[],
    },
    EventFamily {
        prefix: <AlertService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED_UNCHANGED,
        custom: &["acknowledged", "resolved"],
    },
    EventFamily {
        prefix: <FileService as ParentedService>::EVENT_KIND,
        standard: SOFT_DELETED_UNCHANGED,
        custom: &[],
    },
    EventFamily {
        prefix: <DocumentService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &[],
    },
    EventFamily {
        prefix: <FormDefinitionService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &[],
    },
    EventFamily {
        prefix: <FormService as StoreVersions>::EVENT_KIND,
        standard: NEVER_DELETED,
        custom: &["submitted", "expired"],
    },
    EventFamily {
        prefix: PepSanctionJobs::EVENT_PREFIX,
        standard: JOB,
        custom: &["match_reviewed"],
    },
    EventFamily {
        prefix: IdVerificationJobs::EVENT_PREFIX,
        standard: JOB,
        custom: &[],
    },
    EventFamily {
        prefix: VerificationJobs::EVENT_PREFIX,
        standard: CHANGEABLE_JOB,
        custom: &[],
    },
    EventFamily {
        prefix: "verification_session",
        standard: CREATED_ONLY,
        custom: &["completed", "entity_linked"],
    },
    EventFamily {
        prefix: RiskRatingJobs::EVENT_PREFIX,
        standard: JOB,
        custom: &[],
    },
    EventFamily {
        prefix: OnboardingJobs::EVENT_PREFIX,
        standard: JOB_ENDING_ELSEWHERE,
        custom: &["decided"],
    },
    EventFamily {
        prefix: "automation_execution",
        standard: CREATED_ONLY,
        custom: &[
            "started",
            "waiting_for_input",
            "resumed",
            "succeeded",
            "failed",
            "cancelled",
            "notified",
        ],
    },
    EventFamily {
        prefix: "risk_model",
        standard: CREATED_ONLY,
        custom: &[],
    },
    EventFamily {
        prefix: <WebhookEndpointService as StoreVersions>::EVENT_KIND,
        standard: SOFT_DELETED,
        custom: &["secret_rotated", "disabled"],
    },
];

/// Every event type rics writes, family by family.
pub fn event_types() -> impl Iterator<Item = String> {
    CATALOGUE.iter().flat_map(EventFamily::types)
}

/// Whether `event_type` is in the catalogue.
pub fn is_known(event_type: &str) -> bool {
    event_types().any(|known| known == event_type)
}

/// Whether `prefix` is the prefix of a family in the catalogue.
pub fn is_known_prefix(prefix: &str) -> bool {
    CATALOGUE.iter().any(|family| family.prefix == prefix)
}

/// Whether the subscription `pattern` (an event type, `prefix.*`, or `*`) covers
/// `event_type`.
pub fn covers(pattern: &str, event_type: &str) -> bool {
    match pattern.strip_suffix(".*") {
        _ if pattern == "*" => true,
        Some(prefix) => event_type
            .strip_prefix(prefix)
            .is_some_and(|verb| verb.starts_with('.')),
        None => pattern == event_type,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::*;

    /// The domain's sources outside tests: each file up to its test module.
    fn sources() -> Vec<(String, String)> {
        fn walk(dir: &Path, found: &mut Vec<(String, String)>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let file = path.display().to_string();
                if path.is_dir() {
                    walk(&path, found);
                } else if file.ends_with(".rs") && !file.ends_with("_tests.rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let code = text.split("#[cfg(test)]").next().unwrap_or("").to_owned();
                    found.push((file, code));
                }
            }
        }
        let mut found = Vec::new();
        walk(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        found
    }

    /// The string literals of `code` shaped as event types, `"{prefix}.{verb}"` in
    /// lower snake case whose verb is a past participle (`alert.resolved`) or starts
    /// with a present one (`automation_execution.waiting_for_input`); field paths such
    /// as `"alert.title"` are not.
    fn event_type_literals(code: &str) -> Vec<String> {
        code.split('"')
            .skip(1)
            .step_by(2)
            .filter(|literal| {
                literal.split_once('.').is_some_and(|(prefix, verb)| {
                    let snake = |s: &str| {
                        !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    };
                    let progressive = verb
                        .split('_')
                        .next()
                        .is_some_and(|word| word.ends_with("ing"));
                    snake(prefix) && snake(verb) && (verb.ends_with("ed") || progressive)
                })
            })
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn every_event_type_the_code_writes_is_catalogued() {
        let mut written = BTreeSet::new();
        for (file, code) in sources() {
            if file.ends_with("catalogue.rs") {
                continue;
            }
            for literal in event_type_literals(&code) {
                let (prefix, _) = literal.split_once('.').unwrap();
                if is_known_prefix(prefix) {
                    assert!(
                        is_known(&literal),
                        "{file} writes {literal}, not catalogued"
                    );
                    written.insert(literal);
                }
            }
        }
        for family in CATALOGUE {
            for verb in family.custom {
                let event_type = format!("{}.{verb}", family.prefix);
                assert!(
                    written.contains(&event_type),
                    "{event_type} is catalogued but the code never writes it"
                );
            }
        }
    }

    #[test]
    fn standard_verbs_are_the_ones_the_lifecycles_write() {
        let code: String = sources().into_iter().map(|(_, code)| code).collect();
        let verbs: BTreeSet<&str> = [
            SOFT_DELETED,
            REMOVED_WHEN_DELETED,
            JOB,
            JOB_ENDING_ELSEWHERE,
            CHANGEABLE_JOB,
            CREATED_ONLY,
        ]
        .concat()
        .into_iter()
        .collect();
        for verb in verbs {
            let formatted = [format!("{{}}.{verb}\""), format!("\"{verb}\"")];
            assert!(
                formatted.iter().any(|f| code.contains(f.as_str())),
                "no lifecycle writes .{verb}"
            );
        }
    }

    #[test]
    fn families_and_types_are_unique() {
        let prefixes: BTreeSet<_> = CATALOGUE.iter().map(|f| f.prefix).collect();
        assert_eq!(prefixes.len(), CATALOGUE.len());
        let types: Vec<String> = event_types().collect();
        let unique: BTreeSet<_> = types.iter().collect();
        assert_eq!(unique.len(), types.len());
    }

    #[test]
    fn patterns_cover_their_types() {
        assert!(covers("*", "entity.created"));
        assert!(covers("entity.*", "entity.tag_added"));
        assert!(!covers("entity.*", "entity_x.created"));
        assert!(!covers("alert.*", "entity.created"));
        assert!(covers("alert.resolved", "alert.resolved"));
        assert!(!covers("alert.resolved", "alert.created"));
    }

    #[test]
    fn the_api_guide_lists_every_event_type() {
        let guide = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/api.md"),
        )
        .unwrap();
        let section = guide
            .split("## Event types")
            .nth(1)
            .expect("docs/api.md has an Event types section");
        let section = section.split("\n## ").next().unwrap_or(section);
        for event_type in event_types() {
            assert!(
                section.contains(&format!("`{event_type}`")),
                "docs/api.md's Event types does not list {event_type}"
            );
        }
    }
}
