//! The OpenAPI `operationId` of every route, by one rule over its path (docs/api.md
//! "Operation ids"), so that generated clients get one distinct, predictable name per
//! operation:
//! - standard methods are `{List|Get|Create|Update|Delete}{Resource}`, with the plural
//!   for a list (`ListEntities`, `GetEntity`);
//! - custom methods are `{Verb}{Resource}`, the plural for a collection's
//!   (`UndeleteEntity`, `AcknowledgeAlert`, `BatchGetEntities`);
//! - when two routes give the same name, each one under a parent resource is prefixed
//!   with its parent (`ListEntityNotes`, `ListWorkspaceNotes`, `GetTenantOperation`).
//!
//! A route that names its own id in the table ([`Route::operation_id`]) keeps it.

use std::collections::BTreeMap;

use super::{ROUTES, Route};

/// The path prefix of the resource routes, the only ones the rule names.
const API_PREFIX: &str = "/v1alpha/";

/// The `operationId` of each route of [`ROUTES`], keyed by method and path.
///
/// # Errors
/// Names each route the rule cannot name (outside [`API_PREFIX`] without an explicit
/// id, or a method the rule has no verb for) and each id two routes share.
pub fn operation_ids() -> Result<BTreeMap<(&'static str, &'static str), String>, String> {
    let mut named: Vec<(&Route, Name)> = Vec::with_capacity(ROUTES.len());
    let mut problems = Vec::new();
    for route in ROUTES {
        match route.operation_id {
            Some(id) => named.push((route, Name::explicit(id))),
            None => match Name::derive(route.method, route.path) {
                Some(name) => named.push((route, name)),
                None => problems.push(format!(
                    "{} {} has no id: the rule does not name it",
                    route.method, route.path
                )),
            },
        }
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (_, name) in &named {
        *counts.entry(name.plain()).or_default() += 1;
    }
    let mut ids = BTreeMap::new();
    let mut taken: BTreeMap<String, &Route> = BTreeMap::new();
    for (route, name) in &named {
        let id = if counts.get(&name.plain()).copied().unwrap_or(0) > 1 {
            name.with_parent()
        } else {
            name.plain()
        };
        if let Some(other) = taken.insert(id.clone(), route) {
            problems.push(format!(
                "{} {} and {} {} share the id {id}",
                other.method, other.path, route.method, route.path
            ));
        }
        ids.insert((route.method, route.path), id);
    }
    if problems.is_empty() {
        Ok(ids)
    } else {
        Err(problems.join("; "))
    }
}

/// A route's name in parts: the verb, the resource's parent (singular) if any, and the
/// resource (singular or plural as the verb needs).
#[derive(Debug, Clone, PartialEq)]
struct Name {
    verb: String,
    parent: Option<String>,
    resource: String,
}

impl Name {
    fn explicit(id: &str) -> Name {
        Name {
            verb: id.to_owned(),
            parent: None,
            resource: String::new(),
        }
    }

    /// The rule's name of `method` on `path`, `None` outside the resource paths.
    fn derive(method: &str, path: &str) -> Option<Name> {
        let rest = path.strip_prefix(API_PREFIX)?;
        let segments: Vec<&str> = rest.split('/').collect();
        let (last, custom_verb) = match segments.last()?.split_once(':') {
            Some((base, verb)) => (base, Some(verb)),
            None => (*segments.last()?, None),
        };
        let mut collections: Vec<&str> = segments[..segments.len() - 1]
            .iter()
            .copied()
            .filter(|segment| !is_variable(segment))
            .collect();
        let of_one = is_variable(last);
        if !of_one {
            collections.push(last);
        }
        let collection = collections.pop()?;
        let parent = collections.pop().map(singular);
        let (verb, resource) = match (custom_verb, of_one, method) {
            (Some(verb), true, _) => (upper_camel(verb), singular(collection)),
            (Some(verb), false, _) => (upper_camel(verb), upper_camel(collection)),
            (None, true, "GET") => ("Get".to_owned(), singular(collection)),
            (None, true, "PATCH") => ("Update".to_owned(), singular(collection)),
            (None, true, "DELETE") => ("Delete".to_owned(), singular(collection)),
            (None, false, "GET") => ("List".to_owned(), upper_camel(collection)),
            (None, false, "POST") => ("Create".to_owned(), singular(collection)),
            _ => return None,
        };
        Some(Name {
            verb,
            parent,
            resource,
        })
    }

    fn plain(&self) -> String {
        format!("{}{}", self.verb, self.resource)
    }

    fn with_parent(&self) -> String {
        format!(
            "{}{}{}",
            self.verb,
            self.parent.as_deref().unwrap_or_default(),
            self.resource
        )
    }
}

fn is_variable(segment: &str) -> bool {
    segment.starts_with('{')
}

/// `entities` as `Entity`, `pepSanctionIndividualEntityJobs` as
/// `PepSanctionIndividualEntityJob`.
fn singular(collection: &str) -> String {
    let upper = upper_camel(collection);
    match upper.strip_suffix("ies") {
        Some(stem) => format!("{stem}y"),
        None => upper.strip_suffix('s').unwrap_or(&upper).to_owned(),
    }
}

fn upper_camel(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(method: &str, path: &str) -> String {
        Name::derive(method, path)
            .map(|n| n.plain())
            .unwrap_or_default()
    }

    #[test]
    fn standard_methods_name_their_resource() {
        assert_eq!(derived("GET", "/v1alpha/entities"), "ListEntities");
        assert_eq!(derived("POST", "/v1alpha/entities"), "CreateEntity");
        assert_eq!(derived("GET", "/v1alpha/entities/{entity}"), "GetEntity");
        assert_eq!(
            derived("PATCH", "/v1alpha/entities/{entity}"),
            "UpdateEntity"
        );
        assert_eq!(derived("DELETE", "/v1alpha/alerts/{alert}"), "DeleteAlert");
        assert_eq!(
            derived("GET", "/v1alpha/activityLogTypes/{activityLogType}"),
            "GetActivityLogType"
        );
    }

    #[test]
    fn custom_methods_are_verb_then_resource() {
        assert_eq!(
            derived("POST", "/v1alpha/entities/{entity}:undelete"),
            "UndeleteEntity"
        );
        assert_eq!(
            derived("GET", "/v1alpha/entities:batchGet"),
            "BatchGetEntities"
        );
        assert_eq!(
            derived(
                "POST",
                "/v1alpha/entities/{entity}/pepSanctionIndividualEntityJobs/{job}:run"
            ),
            "RunPepSanctionIndividualEntityJob"
        );
    }

    #[test]
    fn outside_the_api_or_without_a_verb_there_is_no_rule() {
        assert_eq!(Name::derive("GET", "/healthz"), None);
        assert_eq!(Name::derive("PUT", "/v1alpha/entities/{entity}"), None);
    }

    #[test]
    fn colliding_names_take_their_parent() {
        let ids = operation_ids().unwrap_or_else(|problems| panic!("{problems}"));
        let id = |method: &'static str, path: &'static str| ids[&(method, path)].as_str();
        assert_eq!(
            id("GET", "/v1alpha/entities/{entity}/notes"),
            "ListEntityNotes"
        );
        assert_eq!(
            id("GET", "/v1alpha/workspaces/{workspace}/notes"),
            "ListWorkspaceNotes"
        );
        assert_eq!(id("GET", "/v1alpha/documents"), "ListDocuments");
        assert_eq!(
            id("GET", "/v1alpha/entities/{entity}/documents"),
            "ListEntityDocuments"
        );
        assert_eq!(
            id("GET", "/v1alpha/tenants/{tenant}/operations/{operation}"),
            "GetTenantOperation"
        );
        assert_eq!(id("GET", "/v1alpha/events/{event}"), "GetEvent");
        assert_eq!(id("GET", "/healthz"), "CheckHealth");
    }
}
