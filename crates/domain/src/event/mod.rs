//! Events: the record of every change. Each mutation appends its [`NewEvent`] in the
//! same transaction as the change (a transactional outbox), so the event log is
//! complete by construction; [`EventService`] reads it back as the API's `Event`
//! resource. Events are append-only: nothing changes or deletes one, except the
//! erasure of a hard-deleted entity, which removes its events with it.

pub mod catalogue;
pub mod model;
pub mod outbox;
pub mod ports;
pub mod service;

pub use model::Event;
pub use outbox::{DirectDelivery, NewEvent};
pub use ports::EventRepository;
pub use service::EventService;
