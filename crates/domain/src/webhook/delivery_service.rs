//! Reading an endpoint's deliveries (`webhookEndpoints/{e}/deliveries/{d}`) and
//! `:redeliver`, for the tenant's admins, and the deliveries to URLs the same way
//! under the endpoint id `-` ([`URL_DELIVERIES`]); and their purge after the retention
//! period, since their attempts may hold personal data a receiver echoed.

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use rics_aip::filter::{FieldType, FilterSchema};

use super::delivery::{
    DeliveryRecord, DeliveryRepository, DeliveryState, URL_DELIVERIES, WebhookDelivery,
};
use super::service::WebhookEndpointService;
use crate::error::{Error, Result};
use crate::housekeeping::Sweep;
use crate::lifecycle::ServiceContext;
use crate::list::{ListRequest, ListResponse, ListSpec, NEWEST_FIRST};
use crate::principal::Principal;
use crate::time::Timestamp;

/// What a delivery list may filter on.
static FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("state", FieldType::Enum(DeliveryState::VALUES))
        .field("eventType", FieldType::String)
        .field("createTime", FieldType::Timestamp)
});

/// How an endpoint's deliveries are listed: 50 per page by default, at most 1000,
/// newest first.
pub static LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("webhookEndpoints.deliveries.list", &FILTER).ordered(NEWEST_FIRST)
});

/// How long finished deliveries are kept by default: 30 days.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(30 * 86_400);

/// Delivery use cases.
#[derive(derive_new::new)]
pub struct DeliveryService {
    deliveries: Arc<dyn DeliveryRepository>,
    /// Whose endpoints the deliveries are read under.
    endpoints: Arc<WebhookEndpointService>,
    /// How long a finished delivery is kept.
    retention: Duration,
    /// The clock and paging.
    context: ServiceContext,
}

impl DeliveryService {
    /// The delivery `id` of the endpoint `endpoint_id` (`-`: a delivery to a URL).
    ///
    /// # Errors
    /// NOT_FOUND when the caller's tenant has no such endpoint or delivery.
    pub async fn get(
        &self,
        principal: &Principal,
        endpoint_id: &str,
        id: &str,
    ) -> Result<WebhookDelivery> {
        self.parent(principal, endpoint_id).await?;
        self.deliveries
            .get(&principal.tenant, endpoint_id, id)
            .await
            .map_err(|e| e.for_resource(&name(endpoint_id, id)))?
            .map(DeliveryRecord::into_delivery)
            .ok_or_else(|| Error::not_found(&name(endpoint_id, id)))
    }

    /// A page of the endpoint's deliveries (`-`: of the deliveries to URLs), newest
    /// first.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown endpoint; INVALID_ARGUMENT for bad paging, filter or
    /// order.
    pub async fn list(
        &self,
        principal: &Principal,
        endpoint_id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<WebhookDelivery>> {
        let parent = self.parent(principal, endpoint_id).await?;
        let tenant = &principal.tenant;
        self.context
            .paging
            .list_with(&LIST, tenant, Some(&parent), request, async |query| {
                let page = self.deliveries.list(tenant, endpoint_id, query).await?;
                Ok(page.map(DeliveryRecord::into_delivery))
            })
            .await
    }

    /// Queues a new attempt of the delivery, now, with the retry schedule anew; a
    /// delivery waits for earlier pending ones of its entity, and for its endpoint to
    /// be enabled, as every delivery does.
    ///
    /// # Errors
    /// NOT_FOUND as for [`DeliveryService::get`].
    pub async fn redeliver(
        &self,
        principal: &Principal,
        endpoint_id: &str,
        id: &str,
    ) -> Result<WebhookDelivery> {
        self.parent(principal, endpoint_id).await?;
        let now = self.context.clock.now();
        self.deliveries
            .redeliver(&principal.tenant, endpoint_id, id, now)
            .await
            .map_err(|e| e.for_resource(&name(endpoint_id, id)))?
            .map(DeliveryRecord::into_delivery)
            .ok_or_else(|| Error::not_found(&name(endpoint_id, id)))
    }
}

impl DeliveryService {
    /// The name of the deliveries' parent: the caller's endpoint `endpoint_id`, or
    /// `webhookEndpoints/-` for the deliveries to URLs.
    ///
    /// # Errors
    /// NOT_FOUND for an unknown endpoint.
    async fn parent(&self, principal: &Principal, endpoint_id: &str) -> Result<String> {
        if endpoint_id == URL_DELIVERIES {
            return Ok(format!("webhookEndpoints/{URL_DELIVERIES}"));
        }
        Ok(self.endpoints.get(principal, endpoint_id).await?.name)
    }
}

/// The resource name of a delivery.
fn name(endpoint_id: &str, id: &str) -> String {
    format!("webhookEndpoints/{endpoint_id}/deliveries/{id}")
}

#[async_trait]
impl Sweep for DeliveryService {
    fn task(&self) -> &'static str {
        "purge webhook deliveries"
    }

    /// Removes the deliveries, of every tenant, that finished more than the retention
    /// period before `now`, at most `limit`; pending ones stay whatever their age.
    async fn sweep(&self, _system: &Principal, now: Timestamp, limit: u32) -> Result<u64> {
        Ok(self
            .deliveries
            .purge_finished(now.minus(self.retention), limit)
            .await?)
    }
}
