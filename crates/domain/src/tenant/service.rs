//! The tenant use cases: the caller's own tenant, a partner's children, and creating a
//! child tenant as a long-running operation through an extensible list of steps.

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use async_trait::async_trait;
use rics_aip::field_mask::{Behavior, FieldKind, FieldTable};
use rics_aip::filter::{FieldType, FilterSchema};
use serde_json::{Value, json};

use super::model::{Tenant, TenantState, TenantType};
use super::ports::{TenantPlan, TenantRepository};
use crate::error::{Code, Error, Result};
use crate::event::NewEvent;
use crate::identity::admin::{ClientSpec, Registrar};
use crate::lifecycle::{self, ServiceContext};
use crate::list::{ListRequest, ListResponse, ListSpec};
use crate::operation::{Operation, OperationMetadata, OperationRepository};
use crate::principal::{Principal, Scope, TenantId};
use crate::resource::parse_body;
use crate::time::Timestamp;

/// How long a new tenant's first client secret stays in its creation operation.
pub const SECRET_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// The operation kind of tenant creation.
pub const CREATE_TENANT: &str = "rics.v1alpha.CreateTenant";

/// Credentials made while provisioning, returned once in the operation's response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    /// `(client id, secret)` pairs.
    pub clients: Vec<(String, String)>,
}

/// One step of provisioning a tenant: adds what the tenant starts with to the plan.
/// Steps run in order; the plan is written in one transaction after the last. They run
/// for every child tenant and, unless [`ProvisioningStep::at_bootstrap`] says no, for
/// the partner tenant of the first start.
#[async_trait]
pub trait ProvisioningStep: Send + Sync {
    /// A short name, recorded in the operation's debug metadata.
    fn name(&self) -> &'static str;

    /// Whether the step also runs for the partner tenant a first start provisions.
    /// That bootstrap has no operation to return credentials in, and makes its admin
    /// client from the operator's settings, so a step that makes clients says no.
    fn at_bootstrap(&self) -> bool {
        true
    }

    /// Adds to `plan`, recording any secret in `credentials`.
    ///
    /// # Errors
    /// Any error aborts provisioning; nothing is written.
    async fn apply(&self, plan: &mut TenantPlan, credentials: &mut Credentials) -> Result<()>;
}

/// The first step: an administrator client with every scope.
pub struct FirstClient {
    registrar: Arc<Registrar>,
}

impl FirstClient {
    /// The step, registering through `registrar`.
    pub fn new(registrar: Arc<Registrar>) -> FirstClient {
        FirstClient { registrar }
    }
}

#[async_trait]
impl ProvisioningStep for FirstClient {
    fn name(&self) -> &'static str {
        "first-client"
    }

    fn at_bootstrap(&self) -> bool {
        false
    }

    async fn apply(&self, plan: &mut TenantPlan, credentials: &mut Credentials) -> Result<()> {
        let tenant = TenantId::new(plan.tenant.id());
        let new = self
            .registrar
            .client(ClientSpec {
                tenant,
                display_name: format!("{} administrator", plan.tenant.display_name),
                scopes: BTreeSet::from(Scope::ALL),
                redirect_uris: Vec::new(),
                public: false,
                client_id: None,
                secret: None,
            })
            .await?;
        if let Some(secret) = new.secret {
            credentials
                .clients
                .push((new.client.client_id.clone(), secret));
        }
        plan.clients.push(new.client);
        Ok(())
    }
}

/// What a first start provisions, when the database has no tenant yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BootstrapSpec {
    /// The admin client's id; generated when absent.
    pub client_id: Option<String>,
    /// The admin client's secret; generated when absent.
    pub client_secret: Option<String>,
    /// An admin user for the authorization code flow: username and password.
    pub user: Option<(String, String)>,
}

/// What a first start provisioned.
#[derive(Debug, Clone, PartialEq)]
pub struct BootstrapReport {
    /// The partner tenant.
    pub tenant: Tenant,
    /// The admin client's id.
    pub client_id: String,
    /// The admin client's secret when it was generated (print it once); `None` when the
    /// operator chose it.
    pub generated_secret: Option<String>,
    /// The admin user's username, when one was made.
    pub username: Option<String>,
}

/// Every field of the tenant JSON with its behaviour on create (tenants have no
/// update): only `displayName` is the caller's.
pub static TABLE: LazyLock<FieldTable> = LazyLock::new(|| {
    use Behavior::{OutputOnly, Required};
    use FieldKind::Scalar;
    FieldTable::new()
        .field("name", Scalar, OutputOnly)
        .field("displayName", Scalar, Required)
        .field("tenantType", Scalar, OutputOnly)
        .field("parent", Scalar, OutputOnly)
        .field("state", Scalar, OutputOnly)
        .field("createTime", Scalar, OutputOnly)
        .field("updateTime", Scalar, OutputOnly)
});

/// What child-tenant lists may filter on.
static CHILD_FILTER: LazyLock<FilterSchema> = LazyLock::new(|| {
    FilterSchema::new()
        .field("displayName", FieldType::String)
        .field("createTime", FieldType::Timestamp)
});

/// How a partner's children are listed.
pub static CHILD_LIST: LazyLock<ListSpec> = LazyLock::new(|| {
    ListSpec::new("tenants.children.list", &CHILD_FILTER).sortable(&["displayName", "createTime"])
});

/// The longest tenant display name, in characters.
pub const MAX_DISPLAY_NAME: usize = 200;

/// Tenant use cases.
pub struct TenantService {
    tenants: Arc<dyn TenantRepository>,
    operations: Arc<dyn OperationRepository>,
    steps: Vec<Arc<dyn ProvisioningStep>>,
    /// The clock, ids, paging and retention.
    context: ServiceContext,
}

impl TenantService {
    /// The service over its ports and its context; `steps` provision every new
    /// tenant, in order.
    pub fn new(
        tenants: Arc<dyn TenantRepository>,
        operations: Arc<dyn OperationRepository>,
        steps: Vec<Arc<dyn ProvisioningStep>>,
        context: ServiceContext,
    ) -> TenantService {
        TenantService {
            tenants,
            operations,
            steps,
            context,
        }
    }

    /// The caller's tenant, addressed as `current` or by its own id; any other tenant,
    /// children included, is NOT_FOUND.
    ///
    /// # Errors
    /// NOT_FOUND for any tenant but the caller's.
    pub async fn get(&self, principal: &Principal, id: &str) -> Result<Tenant> {
        self.own(principal, id)?;
        lifecycle::read_named(&Tenant::name_of(id), self.tenants.get(&principal.tenant)).await
    }

    /// The children of the caller's tenant (empty for a standard tenant).
    ///
    /// # Errors
    /// NOT_FOUND when `id` is not the caller's tenant; INVALID_ARGUMENT for bad list
    /// parameters.
    pub async fn list_children(
        &self,
        principal: &Principal,
        id: &str,
        request: &ListRequest,
    ) -> Result<ListResponse<Tenant>> {
        self.own(principal, id)?;
        let tenant = &principal.tenant;
        let name = Tenant::name_of(tenant.as_str());
        self.context
            .paging
            .list_with(&CHILD_LIST, tenant, Some(&name), request, async |query| {
                Ok(self.tenants.list_children(tenant, query).await?)
            })
            .await
    }

    /// Creates a child of the caller's partner tenant. Provisioning runs at once; the
    /// operation returned is done, with the tenant and its first client's credentials
    /// in `response` (the secret is kept there for 24 hours, then removed).
    ///
    /// # Errors
    /// PERMISSION_DENIED for a standard tenant; INVALID_ARGUMENT for a bad body.
    pub async fn create_child(&self, principal: &Principal, body: Value) -> Result<Operation> {
        let parent = self.get(principal, principal.tenant.as_str()).await?;
        if parent.tenant_type != TenantType::Partner {
            return Err(Error::new(
                Code::PermissionDenied,
                "PARTNER_TENANT_REQUIRED",
                "Only partner tenants may create tenants.",
            ));
        }
        let mut request: Tenant =
            parse_body(crate::fields::input(&TABLE, body, "tenant")?, "tenant")?;
        let display_name = request.display_name.trim().to_owned();
        if display_name.is_empty() {
            return Err(Error::invalid_field(
                "tenant.displayName",
                "REQUIRED",
                "is required",
            ));
        }
        if display_name.chars().count() > MAX_DISPLAY_NAME {
            return Err(Error::invalid_field(
                "tenant.displayName",
                "TOO_LONG",
                format!("must be at most {MAX_DISPLAY_NAME} characters"),
            ));
        }
        let now = self.context.clock.now();
        let id = self.context.ids.resource_id();
        request = Tenant {
            name: Tenant::name_of(&id),
            display_name,
            tenant_type: TenantType::Standard,
            parent: parent.name.clone(),
            state: TenantState::Active,
            create_time: Some(now),
            update_time: Some(now),
        };
        let (plan, credentials, steps) = self.plan(request).await?;
        let operation = self.operation(principal, &plan.tenant, &credentials, &steps, now)?;
        let event = NewEvent::new(
            self.context.ids.resource_id(),
            "tenant.created",
            &plan.tenant.name,
            principal,
            now,
        )
        .with_changes(
            None,
            Some(&json!({"displayName": plan.tenant.display_name})),
        );
        self.tenants
            .provision(&plan, &principal.tenant, &operation, &[event])
            .await
            .map_err(|e| e.for_resource(&plan.tenant.name))?;
        Ok(operation)
    }

    /// An operation of the caller's tenant.
    ///
    /// # Errors
    /// NOT_FOUND for another tenant's or a missing operation.
    pub async fn get_operation(
        &self,
        principal: &Principal,
        id: &str,
        operation: &str,
    ) -> Result<Operation> {
        self.own(principal, id)?;
        let stored = format!(
            "{}/operations/{operation}",
            Tenant::name_of(principal.tenant.as_str())
        );
        let name = format!("{}/operations/{operation}", Tenant::name_of(id));
        lifecycle::read_named(&name, self.operations.get(&principal.tenant, &stored)).await
    }

    /// On a database without tenants, provisions the partner tenant with an admin client
    /// (and an admin user when asked) and what the provisioning steps that run at
    /// bootstrap add (its default alert types, ...); does nothing otherwise. Replicas
    /// starting together provision once.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a short secret or password; what a step fails with;
    /// UNAVAILABLE when storage fails.
    pub async fn bootstrap(
        &self,
        registrar: &Registrar,
        spec: BootstrapSpec,
    ) -> Result<Option<BootstrapReport>> {
        let now = self.context.clock.now();
        let id = self.context.ids.resource_id();
        let tenant = Tenant {
            name: Tenant::name_of(&id),
            display_name: "Partner".into(),
            tenant_type: TenantType::Partner,
            parent: String::new(),
            state: TenantState::Active,
            create_time: Some(now),
            update_time: Some(now),
        };
        let chosen_secret = spec.client_secret.is_some();
        let client = registrar
            .client(ClientSpec {
                tenant: TenantId::new(&id),
                display_name: "Partner administrator".into(),
                scopes: BTreeSet::from(Scope::ALL),
                redirect_uris: Vec::new(),
                public: false,
                client_id: spec.client_id,
                secret: spec.client_secret,
            })
            .await?;
        let user = match &spec.user {
            Some((username, password)) => Some(
                registrar
                    .user(
                        TenantId::new(&id),
                        username,
                        "Administrator",
                        password,
                        BTreeSet::from(Scope::ALL),
                    )
                    .await?,
            ),
            None => None,
        };
        let report = BootstrapReport {
            tenant: tenant.clone(),
            client_id: client.client.client_id.clone(),
            generated_secret: if chosen_secret { None } else { client.secret },
            username: user.as_ref().map(|u| u.username.clone()),
        };
        let mut plan = TenantPlan {
            tenant,
            clients: vec![client.client],
            users: user.into_iter().collect(),
            alert_types: Vec::new(),
            form_definitions: Vec::new(),
            automations: Vec::new(),
        };
        for step in self.steps.iter().filter(|step| step.at_bootstrap()) {
            step.apply(&mut plan, &mut Credentials::default()).await?;
        }
        let created = self.tenants.bootstrap(&plan).await.map_err(Error::from)?;
        Ok(created.then_some(report))
    }

    /// Runs the steps over a plan for `tenant`.
    async fn plan(&self, tenant: Tenant) -> Result<(TenantPlan, Credentials, Vec<&'static str>)> {
        let mut plan = TenantPlan {
            tenant,
            clients: Vec::new(),
            users: Vec::new(),
            alert_types: Vec::new(),
            form_definitions: Vec::new(),
            automations: Vec::new(),
        };
        let mut credentials = Credentials::default();
        let mut names = Vec::with_capacity(self.steps.len());
        for step in &self.steps {
            step.apply(&mut plan, &mut credentials).await?;
            names.push(step.name());
        }
        Ok((plan, credentials, names))
    }

    fn operation(
        &self,
        principal: &Principal,
        tenant: &Tenant,
        credentials: &Credentials,
        steps: &[&'static str],
        now: Timestamp,
    ) -> Result<Operation> {
        let clients: Vec<Value> = credentials
            .clients
            .iter()
            .map(|(id, secret)| json!({"clientId": id, "clientSecret": secret}))
            .collect();
        let tenant_json =
            serde_json::to_value(tenant).map_err(|e| Error::internal(e.to_string()))?;
        Ok(Operation {
            name: format!(
                "{}/operations/{}",
                Tenant::name_of(principal.tenant.as_str()),
                self.context.ids.resource_id()
            ),
            metadata: OperationMetadata {
                kind: CREATE_TENANT.into(),
                value: format!("{}/{} steps", steps.len(), steps.len()),
                debug: json!({"steps": steps, "createTime": now, "endTime": now}),
            },
            done: true,
            error: None,
            response: Some(json!({
                "@type": "type.googleapis.com/rics.v1alpha.CreateTenantResponse",
                "tenant": tenant_json,
                "clients": clients,
            })),
            create_time: Some(now),
            redact_after: (!clients.is_empty()).then(|| now.plus(SECRET_RETENTION)),
        })
    }

    /// Refuses any tenant id but the caller's own (or `current`), as NOT_FOUND.
    fn own(&self, principal: &Principal, id: &str) -> Result<()> {
        own_tenant(principal, id)
    }
}

/// Refuses any tenant id but the caller's own (or `current`), as NOT_FOUND: the rule of
/// every method under `tenants/{tenant}`.
///
/// # Errors
/// NOT_FOUND naming `tenants/{id}`.
pub fn own_tenant(principal: &Principal, id: &str) -> Result<()> {
    if id == "current" || id == principal.tenant.as_str() {
        Ok(())
    } else {
        Err(Error::not_found(&Tenant::name_of(id)))
    }
}
