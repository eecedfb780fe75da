//! Writing the event outbox inside a change's transaction.

use diesel::prelude::*;
use rics_domain::event::NewEvent;

use crate::connection::DbConnection;
use crate::schema::events;

/// Appends `new_events` for `tenant` in the current transaction.
///
/// # Errors
/// Database failures.
pub fn insert_events(
    conn: &mut DbConnection,
    tenant: &str,
    new_events: &[NewEvent],
) -> QueryResult<()> {
    for event in new_events {
        diesel::insert_into(events::table)
            .values((
                events::tenant_id.eq(tenant),
                events::id.eq(&event.id),
                events::entity_id.eq(event.entity_id.as_deref()),
                events::event_type.eq(&event.event_type),
                events::payload.eq(event.payload.to_string()),
                events::creator.eq(&event.creator),
                events::create_time.eq(event.create_time.unix_micros()),
            ))
            .execute(conn)?;
    }
    Ok(())
}
