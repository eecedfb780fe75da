//! The rules of an automation's definition, checked whenever one is stored: its
//! parameters' names and JSON Schemas, its steps' keys and kinds, the arguments each
//! kind takes, and every reference (`${parameters.x}`, `${steps.k.output.y}`, a
//! branch's condition and targets), which may only name a parameter or an earlier step,
//! so that no definition loops. Each fault names the step it is in.

use std::collections::BTreeMap;

use rics_aip::filter::{self, Arg, Comparable, Expr};
use serde_json::{Map, Value};

use super::model::{Automation, AutomationStep, StepKind};
use crate::activity::payload_schema::PayloadSchema;
use crate::form_definition::model::DefinitionRef;
use crate::form_definition::rules::check_key;
use crate::validate::Violations;

/// Most steps of an automation.
pub const MAX_STEPS: usize = 100;
/// Most parameters of an automation.
pub const MAX_PARAMETERS: usize = 50;
/// Longest parameter name.
pub const MAX_PARAMETER_NAME: usize = 63;
/// Longest argument.
pub const MAX_ARG: usize = 2000;
/// Longest deadline of a REQUEST_FORM, in seconds: a year.
pub const MAX_DEADLINE_SECONDS: u64 = 366 * 24 * 3600;
/// The pattern of a parameter name.
pub const PARAMETER_PATTERN: &str = "^[a-z][a-zA-Z0-9_]{0,62}$";
/// The target of a BRANCH that ends the run.
pub const END: &str = "END";

/// The job families a RUN_JOB step may run, by collection.
pub const JOB_FAMILIES: [&str; 3] = [
    "pepSanctionIndividualEntityJobs",
    "individualEntityRiskRatingJobs",
    "individualEntityIDVerificationJobs",
];

/// What an argument must be, beyond a string of at most [`MAX_ARG`] characters whose
/// references resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArgRule {
    /// Any text.
    Text,
    /// One of [`JOB_FAMILIES`].
    Family,
    /// `formDefinitions/{id}`, optionally `@{revisionId}`.
    FormDefinition,
    /// `alertTypes/{alertType}`.
    AlertType,
    /// Seconds, `{n}s` (the JSON form of a protobuf Duration), at most a year.
    Duration,
    /// An RFC 3339 time, or a reference to one.
    Time,
    /// An AIP-160 condition over `parameters.x` and `steps.k.output...`.
    Condition,
    /// A later step's key, or [`END`].
    Target,
    /// `webhookEndpoints/{webhookEndpoint}`.
    Endpoint,
    /// A message type: dot-separated lower snake case words, `kyc.case_closed`.
    EventType,
}

/// Whether `text` is a NOTIFY_WEBHOOK message type: two to five dot-separated words of
/// `[a-z][a-z0-9_]*`, at most 100 characters.
pub fn is_message_type(text: &str) -> bool {
    let words: Vec<&str> = text.split('.').collect();
    text.len() <= 100
        && (2..=5).contains(&words.len())
        && words.iter().all(|w| {
            w.starts_with(|c: char| c.is_ascii_lowercase())
                && w.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
}

/// The arguments a kind takes: name, whether required, and its rule.
fn arguments(kind: StepKind) -> &'static [(&'static str, bool, ArgRule)] {
    use ArgRule::*;
    match kind {
        StepKind::Unspecified => &[],
        StepKind::RunJob => &[
            ("family", true, Family),
            ("entity", true, Text),
            ("document", false, Text),
        ],
        StepKind::UpsertEntityFromForm => &[("form", true, Text), ("entity", false, Text)],
        StepKind::RequestForm => &[
            ("formDefinition", true, FormDefinition),
            ("entity", false, Text),
            ("displayName", false, Text),
            ("deadline", false, Duration),
        ],
        StepKind::Branch => &[
            ("condition", true, Condition),
            ("then", false, Target),
            ("else", false, Target),
        ],
        StepKind::RaiseAlert => &[
            ("alertType", true, AlertType),
            ("entity", true, Text),
            ("description", false, Text),
        ],
        StepKind::AddTag => &[("entity", true, Text), ("tag", true, Text)],
        StepKind::WriteActivityLog => &[("entity", true, Text), ("description", true, Text)],
        StepKind::WaitUntil => &[("time", true, Time)],
        StepKind::NotifyWebhook => &[
            ("url", false, Text),
            ("endpoint", false, Endpoint),
            ("eventType", true, EventType),
            ("data", false, Text),
        ],
        StepKind::AwaitForm => &[("form", true, Text)],
        StepKind::MapOnboarding => &[("job", true, Text), ("form", true, Text)],
        StepKind::CompleteCapture => &[
            ("session", true, Text),
            ("form", true, Text),
            ("document", false, Text),
            ("documentOutcome", false, Text),
        ],
        StepKind::DecideOnboarding => &[
            ("job", true, Text),
            ("operation", true, Text),
            ("entity", true, Text),
            ("document", false, Text),
            ("documentOutcome", false, Text),
            ("screeningStatus", false, Text),
            ("riskLevel", false, Text),
            ("screeningJob", false, Text),
            ("ratingJob", false, Text),
        ],
    }
}

/// What a reference names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reference<'a> {
    /// `parameters.{name}`.
    Parameter(&'a str),
    /// `steps.{key}.output`, then a path into the output.
    Output {
        /// The step's key.
        key: &'a str,
        /// The path into its output, maybe empty.
        path: &'a str,
    },
}

impl<'a> Reference<'a> {
    /// Reads a dotted path: `parameters.x` or `steps.k.output[.path]`.
    pub fn parse(path: &'a str) -> Option<Reference<'a>> {
        if let Some(name) = path.strip_prefix("parameters.") {
            return (!name.is_empty() && !name.contains('.')).then_some(Reference::Parameter(name));
        }
        let rest = path.strip_prefix("steps.")?;
        let (key, rest) = rest.split_once('.')?;
        let path = match rest.strip_prefix("output") {
            Some("") => "",
            Some(deeper) => deeper.strip_prefix('.')?,
            None => return None,
        };
        (!key.is_empty()).then_some(Reference::Output { key, path })
    }
}

/// The references `${...}` in `text`, or the offset of one left open.
pub fn references(text: &str) -> Result<Vec<&str>, usize> {
    let mut found = Vec::new();
    let mut rest = text;
    let mut offset = 0;
    while let Some(start) = rest.find("${") {
        let inner = &rest[start + 2..];
        let end = inner.find('}').ok_or(offset + start)?;
        found.push(&inner[..end]);
        offset += start + 2 + end + 1;
        rest = &inner[end + 1..];
    }
    Ok(found)
}

/// The checks of one automation, recording every fault.
struct Check<'a> {
    automation: &'a Automation,
    /// Each step's index by key (the first, when keys repeat).
    positions: BTreeMap<&'a str, usize>,
    v: Violations,
}

/// Checks the definition of `automation`, named `automation`, recording every fault in
/// `v`.
pub fn check(automation: &Automation, v: &mut Violations) {
    let mut check = Check {
        automation,
        positions: BTreeMap::new(),
        v: std::mem::take(v),
    };
    check.parameters();
    check.steps();
    *v = check.v;
}

impl Check<'_> {
    fn parameters(&mut self) {
        let schema: &Map<String, Value> = &self.automation.input_schema;
        if schema.len() > MAX_PARAMETERS {
            self.v.add(
                "automation.inputSchema",
                "TOO_MANY_ITEMS",
                format!(
                    "has {} parameters; at most {MAX_PARAMETERS} are allowed",
                    schema.len()
                ),
            );
        }
        for (name, parameter) in schema {
            let at = format!("automation.inputSchema.{name}");
            if !is_parameter_name(name) {
                self.v.add(
                    &at,
                    "INVALID_PARAMETER_NAME",
                    format!("'{name}' must be 1 to {MAX_PARAMETER_NAME} letters, digits and underscores, starting with a lower-case letter"),
                );
            }
            match parameter {
                Value::Object(parameter) => {
                    if let Err(problem) = PayloadSchema::compile(parameter) {
                        self.v.add(&at, "INVALID_SCHEMA", problem);
                    }
                }
                _ => self
                    .v
                    .add(&at, "INVALID_SCHEMA", "must be a JSON Schema object"),
            }
        }
    }

    fn steps(&mut self) {
        let steps = &self.automation.steps;
        if steps.is_empty() {
            self.v.add(
                "automation.steps",
                "REQUIRED",
                format!("needs 1 to {MAX_STEPS} steps"),
            );
        }
        self.v.max_items("automation.steps", steps, MAX_STEPS);
        for (i, step) in steps.iter().enumerate() {
            if let Some(first) = self.positions.get(step.key.as_str())
                && !step.key.is_empty()
            {
                self.v.add(
                    format!("automation.steps[{i}].key"),
                    "DUPLICATE_STEP_KEY",
                    format!("'{}' is the key of steps[{first}] too", step.key),
                );
            } else {
                self.positions.insert(step.key.as_str(), i);
            }
        }
        for (i, step) in steps.iter().enumerate() {
            self.step(i, step);
        }
    }

    fn step(&mut self, i: usize, step: &AutomationStep) {
        let at = format!("automation.steps[{i}]");
        check_key(&format!("{at}.key"), &step.key, &mut self.v);
        if step.kind.is_unspecified() {
            self.v.add(format!("{at}.kind"), "REQUIRED", "is required");
            return;
        }
        let rules = arguments(step.kind);
        if step.kind == StepKind::NotifyWebhook
            && step.args.contains_key("url") == step.args.contains_key("endpoint")
        {
            self.v.add(
                format!("{at}.args"),
                "INVALID_STEP_ARGUMENT",
                "a NOTIFY_WEBHOOK step takes one of url and endpoint",
            );
        }
        for (name, required, _) in rules {
            if *required && !step.args.contains_key(*name) {
                self.v.add(
                    format!("{at}.args.{name}"),
                    "ARGUMENT_REQUIRED",
                    format!("a {} step needs it", step.kind.as_str()),
                );
            }
        }
        for (name, value) in &step.args {
            let field = format!("{at}.args.{name}");
            let Some((_, _, rule)) = rules.iter().find(|(known, _, _)| known == name) else {
                let known: Vec<&str> = rules.iter().map(|(known, _, _)| *known).collect();
                self.v.add(
                    field,
                    "UNKNOWN_ARGUMENT",
                    format!("a {} step takes {}", step.kind.as_str(), known.join(", ")),
                );
                continue;
            };
            let Value::String(text) = value else {
                self.v
                    .add(field, "INVALID_STEP_ARGUMENT", "must be a string");
                continue;
            };
            if text.chars().count() > MAX_ARG {
                self.v.add(
                    &field,
                    "INVALID_STEP_ARGUMENT",
                    format!("must be at most {MAX_ARG} characters"),
                );
            }
            self.argument(i, &field, *rule, text);
        }
    }

    fn argument(&mut self, i: usize, field: &str, rule: ArgRule, text: &str) {
        match references(text) {
            Err(offset) => self.v.add(
                field,
                "INVALID_REFERENCE",
                format!("the reference at offset {offset} has no closing '}}'"),
            ),
            Ok(found) => {
                for path in found {
                    self.reference(i, field, path);
                }
            }
        }
        let referred = text.contains("${");
        let fault = match rule {
            ArgRule::Text => None,
            ArgRule::Family => (!JOB_FAMILIES.contains(&text))
                .then(|| format!("must be one of {}", JOB_FAMILIES.join(", "))),
            ArgRule::FormDefinition => DefinitionRef::parse(text).is_none().then(|| {
                "must be formDefinitions/{formDefinition}, optionally @{revisionId}".to_owned()
            }),
            ArgRule::AlertType => {
                let id = text.strip_prefix("alertTypes/").unwrap_or("");
                (!crate::id::is_well_formed_id(id))
                    .then(|| "must be alertTypes/{alertType}".to_owned())
            }
            ArgRule::Endpoint => {
                let id = text.strip_prefix("webhookEndpoints/").unwrap_or("");
                (!referred && !crate::id::is_well_formed_id(id))
                    .then(|| "must be webhookEndpoints/{webhookEndpoint}".to_owned())
            }
            ArgRule::EventType => (!referred && !is_message_type(text)).then(|| {
                "must be 2 to 5 dot-separated words of [a-z][a-z0-9_]*, such as kyc.case_closed"
                    .to_owned()
            }),
            ArgRule::Duration => (parse_duration(text).is_none()).then(|| {
                format!("must be whole seconds such as '86400s', at most {MAX_DEADLINE_SECONDS}s")
            }),
            ArgRule::Time => (!referred && crate::time::Timestamp::parse_rfc3339(text).is_err())
                .then(|| "must be an RFC 3339 time or a reference to one".to_owned()),
            ArgRule::Condition => {
                if let Some(message) = self.condition(i, field, text) {
                    self.v.add(field, "INVALID_CONDITION", message);
                }
                None
            }
            ArgRule::Target => {
                if let Some(message) = self.target(i, field, text) {
                    self.v.add(field, "UNKNOWN_STEP", message);
                }
                None
            }
        };
        if let Some(message) = fault {
            self.v.add(field, "INVALID_STEP_ARGUMENT", message);
        }
    }

    /// A reference from step `i`: a parameter that exists, or an earlier step.
    fn reference(&mut self, i: usize, field: &str, path: &str) {
        match Reference::parse(path) {
            None => self.v.add(
                field,
                "INVALID_REFERENCE",
                format!("'{path}' is neither parameters.{{name}} nor steps.{{key}}.output..."),
            ),
            Some(Reference::Parameter(name)) => {
                if !self.automation.input_schema.contains_key(name) {
                    self.v.add(
                        field,
                        "UNKNOWN_PARAMETER",
                        format!("'{name}' is not a parameter of inputSchema"),
                    );
                }
            }
            Some(Reference::Output { key, .. }) => match self.positions.get(key) {
                None => self
                    .v
                    .add(field, "UNKNOWN_STEP", format!("there is no step '{key}'")),
                Some(&at) if at == i => self.v.add(
                    field,
                    "CYCLE",
                    format!("step '{key}' refers to its own output"),
                ),
                Some(&at) if at > i => self.v.add(
                    field,
                    "LATER_STEP",
                    format!(
                        "step '{key}' comes later (steps[{at}]): a step reads only earlier outputs"
                    ),
                ),
                Some(_) => {}
            },
        }
    }

    /// A branch's condition: AIP-160 whose compared fields are references; `None`
    /// when it parses (its references are checked as they are found).
    fn condition(&mut self, i: usize, field: &str, text: &str) -> Option<String> {
        match filter::parse(text) {
            Err(error) => Some(format!("is not an AIP-160 condition: {}", error.message())),
            Ok(None) => Some("is empty".to_owned()),
            Ok(Some(expr)) => {
                let mut paths = Vec::new();
                compared_members(&expr, &mut paths);
                for path in paths {
                    match path {
                        Some(path) => self.reference(i, field, &path),
                        None => {
                            return Some(
                                "compares something other than parameters.{name} or steps.{key}.output..."
                                    .to_owned(),
                            );
                        }
                    }
                }
                None
            }
        }
    }

    /// A branch target: a later step, or [`END`]. An earlier one would loop.
    fn target(&mut self, i: usize, field: &str, text: &str) -> Option<String> {
        if text == END {
            return None;
        }
        match self.positions.get(text) {
            None => Some(format!("there is no step '{text}' (or END)")),
            Some(&at) if at <= i => {
                self.v.add(
                    field,
                    "CYCLE",
                    format!("step '{text}' (steps[{at}]) is not after the branch: it would loop"),
                );
                None
            }
            Some(_) => None,
        }
    }
}

/// The left side of every comparison in `expr`, as a dotted path; `None` for one that
/// is not a field path (a function, a bare value).
fn compared_members(expr: &Expr, out: &mut Vec<Option<String>>) {
    match expr {
        Expr::And(items) | Expr::Sequence(items) | Expr::Or(items) => {
            items.iter().for_each(|item| compared_members(item, out));
        }
        Expr::Not { operand, .. } => compared_members(operand, out),
        Expr::Global(_) => out.push(None),
        Expr::Restriction(restriction) => {
            match &restriction.comparable {
                Comparable::Member(member) if !member.fields.is_empty() => {
                    out.push(Some(member.dotted()));
                }
                _ => out.push(None),
            }
            if let Arg::Composite { expr, .. } = &restriction.arg {
                compared_members(expr, out);
            }
        }
    }
}

/// Whether `name` matches [`PARAMETER_PATTERN`] within [`MAX_PARAMETER_NAME`].
fn is_parameter_name(name: &str) -> bool {
    name.len() <= MAX_PARAMETER_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Seconds written `{n}s`, at most [`MAX_DEADLINE_SECONDS`].
pub fn parse_duration(text: &str) -> Option<u64> {
    let digits = text.strip_suffix('s')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse::<u64>()
        .ok()
        .filter(|seconds| (1..=MAX_DEADLINE_SECONDS).contains(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn automation(input_schema: Value, steps: Value) -> Automation {
        serde_json::from_value(json!({
            "displayName": "A", "inputSchema": input_schema, "steps": steps
        }))
        .unwrap()
    }

    fn faults(automation: &Automation) -> Vec<(String, &'static str)> {
        let mut v = Violations::new();
        check(automation, &mut v);
        v.into_vec()
            .into_iter()
            .map(|f| (f.field, f.reason))
            .collect()
    }

    #[test]
    fn references_are_found_and_an_open_one_is_refused() {
        assert_eq!(
            references("a ${parameters.x} b ${steps.k.output.y}"),
            Ok(vec!["parameters.x", "steps.k.output.y"])
        );
        assert_eq!(references("plain"), Ok(vec![]));
        assert_eq!(references("a ${x"), Err(2));
        assert_eq!(
            Reference::parse("steps.k.output.a.b"),
            Some(Reference::Output {
                key: "k",
                path: "a.b"
            })
        );
        assert_eq!(
            Reference::parse("steps.k.output"),
            Some(Reference::Output { key: "k", path: "" })
        );
        assert_eq!(Reference::parse("steps.k.outputs"), None);
        assert_eq!(Reference::parse("parameters.a.b"), None);
    }

    #[test]
    fn a_good_definition_passes() {
        let good = automation(
            json!({"entity": {"type": "string"}, "level": {"type": "string", "default": "LOW"}}),
            json!([
                {"key": "rate", "kind": "RUN_JOB", "args": {"family": "individualEntityRiskRatingJobs", "entity": "${parameters.entity}"}},
                {"key": "check", "kind": "BRANCH", "args": {"condition": "steps.rate.output.riskLevel = \"HIGH\" OR parameters.level = HIGH", "else": "END"}},
                {"key": "alert", "kind": "RAISE_ALERT", "args": {"alertType": "alertTypes/enhanced-due-diligence-required", "entity": "${parameters.entity}"}},
                {"key": "ask", "kind": "REQUEST_FORM", "args": {"formDefinition": "formDefinitions/kyc-individual", "deadline": "86400s"}},
                {"key": "wait", "kind": "WAIT_UNTIL", "args": {"time": "2030-01-01T00:00:00Z"}}
            ]),
        );
        assert_eq!(faults(&good), []);
    }

    #[test]
    fn every_fault_names_its_step() {
        let bad = automation(
            json!({"entity": {"type": "string"}, "Bad": {"type": 7}}),
            json!([
                {"key": "one", "kind": "ADD_TAG", "args": {"entity": "${parameters.missing}", "tag": "${steps.two.output.x}"}},
                {"key": "two", "kind": "BRANCH", "args": {"condition": "steps.two.output.x = 1", "then": "one"}},
                {"key": "three", "kind": "BRANCH", "args": {"condition": "a = (", "else": "nowhere"}},
                {"key": "four", "kind": "RUN_JOB", "args": {"family": "cookingJobs", "colour": "red", "entity": 3}},
                {"key": "four", "kind": "WAIT_UNTIL", "args": {"time": "tomorrow"}},
                {"key": "five", "kind": "REQUEST_FORM", "args": {"formDefinition": "forms/x", "deadline": "1d", "entity": "${steps.one"}},
                {"key": "Six", "kind": "RAISE_ALERT", "args": {"alertType": "x", "entity": "${parameters.entity}"}},
                {"key": "seven", "args": {}}
            ]),
        );
        let s = |text: &str| text.to_owned();
        assert_eq!(
            faults(&bad),
            [
                (s("automation.inputSchema.Bad"), "INVALID_PARAMETER_NAME"),
                (s("automation.inputSchema.Bad"), "INVALID_SCHEMA"),
                (s("automation.steps[4].key"), "DUPLICATE_STEP_KEY"),
                (s("automation.steps[0].args.entity"), "UNKNOWN_PARAMETER"),
                (s("automation.steps[0].args.tag"), "LATER_STEP"),
                (s("automation.steps[1].args.condition"), "CYCLE"),
                (s("automation.steps[1].args.then"), "CYCLE"),
                (s("automation.steps[2].args.condition"), "INVALID_CONDITION"),
                (s("automation.steps[2].args.else"), "UNKNOWN_STEP"),
                (s("automation.steps[3].args.colour"), "UNKNOWN_ARGUMENT"),
                (
                    s("automation.steps[3].args.entity"),
                    "INVALID_STEP_ARGUMENT"
                ),
                (
                    s("automation.steps[3].args.family"),
                    "INVALID_STEP_ARGUMENT"
                ),
                (s("automation.steps[4].args.time"), "INVALID_STEP_ARGUMENT"),
                (
                    s("automation.steps[5].args.deadline"),
                    "INVALID_STEP_ARGUMENT"
                ),
                (s("automation.steps[5].args.entity"), "INVALID_REFERENCE"),
                (
                    s("automation.steps[5].args.formDefinition"),
                    "INVALID_STEP_ARGUMENT"
                ),
                (s("automation.steps[6].key"), "INVALID_KEY"),
                (
                    s("automation.steps[6].args.alertType"),
                    "INVALID_STEP_ARGUMENT"
                ),
                (s("automation.steps[7].kind"), "REQUIRED"),
            ]
        );
    }

    #[test]
    fn a_definition_needs_steps_and_each_kind_its_arguments() {
        assert_eq!(
            faults(&automation(json!({}), json!([]))),
            [("automation.steps".to_owned(), "REQUIRED")]
        );
        let bare = automation(json!({}), json!([{"key": "tag", "kind": "ADD_TAG"}]));
        assert_eq!(
            faults(&bare),
            [
                (
                    "automation.steps[0].args.entity".to_owned(),
                    "ARGUMENT_REQUIRED"
                ),
                (
                    "automation.steps[0].args.tag".to_owned(),
                    "ARGUMENT_REQUIRED"
                )
            ]
        );
        assert_eq!(parse_duration("60s"), Some(60));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(
            parse_duration(&format!("{}s", MAX_DEADLINE_SECONDS + 1)),
            None
        );
    }

    #[test]
    fn a_notify_webhook_step_takes_one_target_and_a_message_type() {
        let notify = |args: serde_json::Value| {
            faults(&automation(
                json!({"entity": {"type": "string"}}),
                json!([{"key": "hook", "kind": "NOTIFY_WEBHOOK", "args": args}]),
            ))
        };
        assert_eq!(
            notify(
                json!({"url": "https://hooks.example.com/", "eventType": "kyc.done",
                          "data": "${parameters.entity}"})
            ),
            []
        );
        assert_eq!(
            notify(
                json!({"endpoint": "webhookEndpoints/ops-hook", "eventType": "kyc.case.closed_2"})
            ),
            []
        );
        let at = |field: &str| format!("automation.steps[0].{field}");
        assert_eq!(
            notify(json!({"eventType": "kyc.done"})),
            [(at("args"), "INVALID_STEP_ARGUMENT")]
        );
        assert_eq!(
            notify(
                json!({"url": "https://a.example/", "endpoint": "webhookEndpoints/ops-hook",
                          "eventType": "kyc.done"})
            ),
            [(at("args"), "INVALID_STEP_ARGUMENT")]
        );
        assert_eq!(
            notify(json!({"endpoint": "ops-hook", "eventType": "Done"})),
            [
                (at("args.endpoint"), "INVALID_STEP_ARGUMENT"),
                (at("args.eventType"), "INVALID_STEP_ARGUMENT")
            ]
        );
        assert_eq!(
            notify(json!({"url": "https://a.example/"})),
            [(at("args.eventType"), "ARGUMENT_REQUIRED")]
        );
        assert!(!is_message_type("a"));
        assert!(!is_message_type("a.b.c.d.e.f"));
        assert!(!is_message_type("a..b"));
        assert!(is_message_type("a1.b_2"));
    }
}
