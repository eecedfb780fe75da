//! Rating an entity: gather its evaluation input, rate it with the tenant's model,
//! record the input and the result as a RISK_RATING activity log, set the entity's
//! `riskDetails`, and raise "Enhanced Due Diligence Required" when the level rises to
//! High. Used by `:evaluate` (at once) and by risk rating jobs (as a run).

use std::sync::Arc;

use serde_json::{Value, json};

use super::rating::{EvaluationInput, Rating, RelatedEntityInput, rate};
use super::service::RiskModelService;
use crate::activity::ActivityLogService;
use crate::activity::model::{ActivityLog, ActivityType};
use crate::alert::model::{Alert, ENHANCED_DUE_DILIGENCE_REQUIRED, NewAlert};
use rics_aip::filter::{Comparator, Condition, Literal, StringMatch};

use crate::document::model::Document;
use crate::document::ports::DocumentRepository;
use crate::entity::model::{AddressType, Entity, EntityType, RiskDetails, RiskLevel, RiskStatus};
use crate::entity::repository::EntityRepository;
use crate::error::{Error, Result};
use crate::id::IdGenerator;
use crate::job::records::{EntityOutput, OutputCause, RunRecords};
use crate::lifecycle::deleted;
use crate::list::{ListQuery, SortBy, SortKey};
use crate::principal::{Principal, TenantId};
use crate::time::Clock;
use crate::values::CountryCode;

/// How many relationships are read per page while gathering an input.
const RELATIONSHIP_PAGE: u32 = 1000;
/// How many of an entity's newest live documents are read for the newest one with an
/// issuing country.
const DOCUMENTS_READ: u32 = 100;

/// The job run a rating belongs to, when it is one.
#[derive(Clone, Copy)]
pub struct RatingRun<'a> {
    /// The job's name.
    pub job: &'a str,
    /// The run's operation name.
    pub operation: &'a str,
    /// The run's queue entry id, from which the records' ids derive.
    pub task_id: &'a str,
    /// Where the run records the rating, in place of the evaluator's own records.
    pub records: &'a dyn RunRecords,
}

/// What a rating recorded.
#[derive(Debug, Clone)]
pub struct Evaluated {
    /// The RISK_RATING activity log holding the input and the rating.
    pub log: ActivityLog,
    /// The rating.
    pub rating: Rating,
    /// The "Enhanced Due Diligence Required" alert, when the level rose to High.
    pub alert: Option<Alert>,
}

/// The ports and services a rating uses.
pub struct RiskEvaluatorPorts {
    /// The tenant's model versions.
    pub models: Arc<RiskModelService>,
    /// Entities and their relationships.
    pub entities: Arc<dyn EntityRepository>,
    /// Identity documents, for the issuing country of the newest.
    pub documents: Arc<dyn DocumentRepository>,
    /// Where recorded ratings are read.
    pub logs: Arc<ActivityLogService>,
    /// Where ratings are recorded: their activity logs, alerts and `riskDetails`.
    pub records: Arc<dyn RunRecords>,
    /// The time.
    pub clock: Arc<dyn Clock>,
    /// Ids.
    pub ids: Arc<dyn IdGenerator>,
}

/// Rates entities.
pub struct RiskEvaluator {
    models: Arc<RiskModelService>,
    entities: Arc<dyn EntityRepository>,
    documents: Arc<dyn DocumentRepository>,
    logs: Arc<ActivityLogService>,
    records: Arc<dyn RunRecords>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdGenerator>,
}

impl RiskEvaluator {
    /// The evaluator over its ports.
    pub fn new(ports: RiskEvaluatorPorts) -> RiskEvaluator {
        RiskEvaluator {
            models: ports.models,
            entities: ports.entities,
            documents: ports.documents,
            logs: ports.logs,
            records: ports.records,
            clock: ports.clock,
            ids: ports.ids,
        }
    }

    /// The tenant's model versions.
    pub fn models(&self) -> &RiskModelService {
        &self.models
    }

    /// Rates the individual `entity_id` with `version` (default: the tenant's newest)
    /// and records the rating. Within a run every record takes an id derived from the
    /// run, so an attempt repeated after a crash records each once and returns what
    /// the first attempt recorded.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown entity or model version; FAILED_PRECONDITION for a
    /// deleted entity (`deleted`) or one that is not an individual
    /// (`NOT_AN_INDIVIDUAL`); UNAVAILABLE or INTERNAL when a store fails.
    pub async fn evaluate(
        &self,
        principal: &Principal,
        entity_id: &str,
        version: Option<&str>,
        run: Option<RatingRun<'_>>,
    ) -> Result<Evaluated> {
        let name = format!("entities/{entity_id}");
        let entity = self.live_individual(&principal.tenant, entity_id).await?;
        let model = match version {
            Some(version) => self.models.get(principal, "modelVersion", version).await?,
            None => self.models.current(&principal.tenant).await?,
        };
        let input = self.input_of(&principal.tenant, &entity).await?;
        let rating = rate(&model, &input);
        let previous = entity
            .risk_details
            .as_ref()
            .map_or(RiskLevel::Unspecified, |d| d.risk_level);
        let log_id = match run {
            Some(run) => format!("risk-rating-{}", run.task_id),
            None => self.ids.resource_id(),
        };
        let mut payload = json!({
            "input": input,
            "rating": rating,
        });
        if !previous.is_unspecified() {
            payload["previousRiskLevel"] = json!(previous);
        }
        if let Some(run) = run {
            payload["job"] = json!(run.job);
            payload["operation"] = json!(run.operation);
        }
        let log = ActivityLog {
            activity_type: ActivityType::RiskRating,
            entity_names: vec![name.clone()],
            payload: payload.as_object().cloned(),
            description: summary(&entity, &rating, previous),
            ..ActivityLog::default()
        };
        let records = run.map_or(&*self.records, |run| run.records);
        let log = records.log(principal, &log_id, log).await?;
        // A repeated attempt gets the first attempt's log: rate as it recorded.
        let (rating, previous) = recorded(&log)?;
        let alert = if rating.risk_level.is_high_or_above() && !previous.is_high_or_above() {
            Some(
                self.raise(principal, &entity, &log, &rating, previous, run)
                    .await?,
            )
        } else {
            None
        };
        let details = RiskDetails {
            risk_level: rating.risk_level,
            risk_score: f64::from(rating.risk_score),
            risk_status: RiskStatus::Active,
            last_rated_time: log.create_time,
            rating_job: run.map(|r| r.job.to_owned()).unwrap_or_default(),
            activity_log: log.name.clone(),
            model_version: rating.model_version.clone(),
        };
        let cause = match run {
            Some(run) => OutputCause {
                field: "job",
                name: run.job.to_owned(),
            },
            None => OutputCause {
                field: "activityLog",
                name: log.name.clone(),
            },
        };
        records
            .entity_output(
                &principal.tenant,
                entity,
                EntityOutput::RiskDetails(details),
                cause,
            )
            .await?;
        Ok(Evaluated { log, rating, alert })
    }

    /// The input the entity's latest rating consumed, with the model version, the
    /// rating and the activity log that recorded them: rating `input` with that
    /// version (`riskModels/{version}:rate`) gives `rating` again.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown entity; FAILED_PRECONDITION `NOT_RATED` when it was
    /// never rated, `RATING_RECORD_GONE` when the rating's log was erased.
    pub async fn evaluation_input(&self, principal: &Principal, entity_id: &str) -> Result<Value> {
        let name = format!("entities/{entity_id}");
        let entity = self
            .entities
            .get(&principal.tenant, entity_id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))?;
        let Some(log_name) = entity
            .risk_details
            .as_ref()
            .map(|d| d.activity_log.clone())
            .filter(|n| !n.is_empty())
        else {
            return Err(Error::failed_precondition(
                "NOT_RATED",
                format!("{name} has not been rated: POST /v1alpha/{name}:evaluate first"),
            ));
        };
        let log_id = log_name.strip_prefix("activityLogs/").unwrap_or(&log_name);
        let log = match self.logs.get(principal, log_id).await {
            Ok(log) => log,
            Err(e) if e.code == crate::error::Code::NotFound => {
                return Err(Error::failed_precondition(
                    "RATING_RECORD_GONE",
                    format!("the record of {name}'s latest rating ({log_name}) was erased"),
                ));
            }
            Err(e) => return Err(e),
        };
        let payload = Value::Object(log.payload.clone().unwrap_or_default());
        let (rating, _) = recorded(&log)?;
        Ok(json!({
            "entity": name,
            "input": payload.get("input").cloned().unwrap_or(Value::Null),
            "modelVersion": rating.model_version,
            "rating": rating,
            "activityLog": log.name,
        }))
    }

    /// The evaluation input of `entity` as of now.
    ///
    /// # Errors
    /// UNAVAILABLE or INTERNAL when the store fails.
    pub async fn input_of(&self, tenant: &TenantId, entity: &Entity) -> Result<EvaluationInput> {
        let individual = entity.individual.clone().unwrap_or_default();
        let residence = individual.country_of_residence.clone().or_else(|| {
            entity.contact_info.as_ref().and_then(|contact| {
                contact
                    .addresses
                    .iter()
                    .find(|a| a.address_type == AddressType::Residential)
                    .and_then(|a| a.country.clone())
            })
        });
        let occupation = Some(individual.occupation.trim().to_owned()).filter(|o| !o.is_empty());
        let document = self.newest_identity_document(tenant, entity).await?;
        let document_issuing_country = document
            .as_ref()
            .and_then(|d| d.issuing_country.as_ref())
            .and_then(|code| code.to_alpha2())
            .and_then(|code| CountryCode::parse(code).ok());
        Ok(EvaluationInput {
            entity: entity.name.clone(),
            evaluation_date: self.clock.now().datetime().date(),
            nationalities: individual.nationalities.clone(),
            country_of_residence: residence,
            country_of_birth: individual.country_of_birth.clone(),
            identity_document: document.map(|d| d.name),
            document_issuing_country,
            date_of_birth: individual.date_of_birth,
            occupation,
            screening_status: Some(entity.screening_status).filter(|s| !s.is_unspecified()),
            verification_status: Some(entity.verification_status).filter(|s| !s.is_unspecified()),
            related_entities: self.related(tenant, entity).await?,
        })
    }

    /// The entity's newest live identity document (by creation) whose issuing country
    /// is a country, among its [`DOCUMENTS_READ`] newest.
    async fn newest_identity_document(
        &self,
        tenant: &TenantId,
        entity: &Entity,
    ) -> Result<Option<Document>> {
        let newest_first = SortKey {
            by: SortBy::Field("createTime"),
            descending: true,
        };
        let mut query = ListQuery::first(newest_first, DOCUMENTS_READ);
        query.narrow(Condition::Compare {
            field: "entity",
            op: Comparator::Eq,
            value: Literal::String(StringMatch::Exact(entity.name.clone())),
        });
        let page = self
            .documents
            .list(tenant, None, &query)
            .await
            .map_err(|e| e.for_resource(&entity.name))?;
        Ok(page.items.into_iter().find(|document| {
            document
                .issuing_country
                .as_ref()
                .is_some_and(|code| code.to_alpha2().is_some())
        }))
    }

    /// The live entities related to `entity`, by name.
    async fn related(&self, tenant: &TenantId, entity: &Entity) -> Result<Vec<RelatedEntityInput>> {
        let id = entity
            .name
            .strip_prefix("entities/")
            .unwrap_or(&entity.name);
        let mut links = Vec::new();
        let mut after = None;
        loop {
            let oldest_first = SortKey {
                by: SortBy::Field("createTime"),
                descending: false,
            };
            let query = ListQuery {
                after,
                ..ListQuery::first(oldest_first, RELATIONSHIP_PAGE)
            };
            let page = self
                .entities
                .list_relationships(tenant, id, &query)
                .await
                .map_err(|e| e.for_resource(&entity.name))?;
            for record in page.items {
                let other = if record.entity_id == id {
                    record.related_entity_id
                } else {
                    record.entity_id
                };
                links.push((other, record.relationship_type.as_str().to_owned()));
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        let ids: Vec<String> = links.iter().map(|(other, _)| other.clone()).collect();
        let found = self
            .entities
            .get_many(tenant, &ids)
            .await
            .map_err(|e| e.for_resource(&entity.name))?;
        let mut related: Vec<RelatedEntityInput> = links
            .into_iter()
            .filter_map(|(other, relationship_type)| {
                let name = format!("entities/{other}");
                let entity = found.iter().find(|e| e.name == name && !e.is_deleted())?;
                Some(RelatedEntityInput {
                    entity: name,
                    relationship_type,
                    risk_level: entity
                        .risk_details
                        .as_ref()
                        .map(|d| d.risk_level)
                        .filter(|l| !l.is_unspecified()),
                    screening_status: Some(entity.screening_status).filter(|s| !s.is_unspecified()),
                })
            })
            .collect();
        related.sort_by(|a, b| {
            (a.entity.as_str(), a.relationship_type.as_str())
                .cmp(&(b.entity.as_str(), b.relationship_type.as_str()))
        });
        Ok(related)
    }

    async fn live_individual(&self, tenant: &TenantId, entity_id: &str) -> Result<Entity> {
        let name = format!("entities/{entity_id}");
        let entity = self
            .entities
            .get(tenant, entity_id)
            .await
            .map_err(|e| e.for_resource(&name))?
            .ok_or_else(|| Error::not_found(&name))?;
        if entity.is_deleted() {
            return Err(deleted(&name));
        }
        require_individual(&entity)?;
        Ok(entity)
    }

    async fn raise(
        &self,
        principal: &Principal,
        entity: &Entity,
        log: &ActivityLog,
        rating: &Rating,
        previous: RiskLevel,
        run: Option<RatingRun<'_>>,
    ) -> Result<Alert> {
        let log_id = log.name.strip_prefix("activityLogs/").unwrap_or(&log.name);
        let from = if previous.is_unspecified() {
            "unrated".to_owned()
        } else {
            previous.to_string()
        };
        let mut details = json!({
            "activityLog": log.name,
            "riskScore": rating.risk_score,
            "riskLevel": rating.risk_level,
            "modelVersion": rating.model_version,
            "previousRiskLevel": from,
        });
        if let Some(run) = run {
            details["job"] = json!(run.job);
            details["operation"] = json!(run.operation);
        }
        let new = NewAlert {
            alert_type: format!("alertTypes/{ENHANCED_DUE_DILIGENCE_REQUIRED}"),
            entities: vec![entity.name.clone()],
            title: format!("Enhanced Due Diligence Required: {}", entity.display_name)
                .chars()
                .take(200)
                .collect(),
            description: format!(
                "The risk rating of '{}' rose from {from} to HIGH (score {}, {}).",
                entity.display_name, rating.risk_score, rating.model_version
            ),
            details: details.as_object().cloned().unwrap_or_default(),
            ..NewAlert::default()
        };
        let source = run.map_or_else(|| log.name.clone(), |r| r.job.to_owned());
        let records = run.map_or(&*self.records, |run| run.records);
        records
            .alert(principal, &format!("edd-{log_id}"), &source, new)
            .await
    }
}

/// The risk model rates individuals only.
///
/// # Errors
/// FAILED_PRECONDITION `NOT_AN_INDIVIDUAL` for any other entity.
pub fn require_individual(entity: &Entity) -> Result<()> {
    if entity.entity_type == EntityType::Individual {
        Ok(())
    } else {
        Err(Error::failed_precondition(
            "NOT_AN_INDIVIDUAL",
            format!(
                "{} is {}: the risk model rates individuals",
                entity.name, entity.entity_type
            ),
        ))
    }
}

/// The rating and the previous level an activity log recorded.
fn recorded(log: &ActivityLog) -> Result<(Rating, RiskLevel)> {
    let payload = log.payload.clone().unwrap_or_default();
    let rating = payload
        .get("rating")
        .cloned()
        .ok_or_else(|| Error::internal(format!("{} holds no rating", log.name)))
        .and_then(|r| {
            serde_json::from_value::<Rating>(r)
                .map_err(|e| Error::internal(format!("{}: stored rating: {e}", log.name)))
        })?;
    let previous = payload
        .get("previousRiskLevel")
        .and_then(Value::as_str)
        .and_then(RiskLevel::parse)
        .unwrap_or(RiskLevel::Unspecified);
    Ok((rating, previous))
}

/// One sentence on a rating, for its activity log.
fn summary(entity: &Entity, rating: &Rating, previous: RiskLevel) -> String {
    let top: Vec<String> = {
        let mut sorted: Vec<_> = rating
            .contributions
            .iter()
            .filter(|c| c.points > 0)
            .collect();
        sorted.sort_by_key(|c| std::cmp::Reverse(c.points));
        sorted
            .iter()
            .take(3)
            .map(|c| format!("{} {}", c.factor, c.points))
            .collect()
    };
    let change = if previous.is_unspecified() {
        String::new()
    } else {
        format!(" (was {previous})")
    };
    format!(
        "'{}' rated {} with score {}{change} by {}{}",
        entity.display_name,
        rating.risk_level,
        rating.risk_score,
        rating.model_version,
        if top.is_empty() {
            ".".to_owned()
        } else {
            format!("; most points from {}.", top.join(", "))
        }
    )
}
