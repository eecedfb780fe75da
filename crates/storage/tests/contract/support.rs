//! What every suite's fixtures share: the fixed clock of the tests, the two tenants,
//! list requests, paging with a fixed secret and the error of a failed direct read.

use std::sync::Arc;

use rics_domain::list::{ListRequest, Paging};
use rics_domain::principal::TenantId;
use rics_domain::repository::RepositoryError;
use rics_domain::time::{SystemClock, Timestamp};

/// 2026-01-01T00:00:00Z.
pub const BASE_MICROS: i64 = 1_767_225_600_000_000;

/// `BASE_MICROS` plus `seconds`.
pub fn at(seconds: i64) -> Timestamp {
    Timestamp::from_unix_micros(BASE_MICROS + seconds * 1_000_000).unwrap()
}

/// The first tenant of every test.
pub fn t1() -> TenantId {
    TenantId::new("t1")
}

/// A second tenant, whose rows must never show in the first.
pub fn t2() -> TenantId {
    TenantId::new("t2")
}

/// Paging that signs tokens with a fixed 32-byte secret.
pub fn paging() -> Paging {
    Paging::new(&[7_u8; 32], Arc::new(SystemClock)).unwrap()
}

/// A request for `filter` and `order_by` with `page_size`.
pub fn request(filter: &str, order_by: &str, page_size: i32) -> ListRequest {
    ListRequest {
        page_size: Some(page_size),
        filter: (!filter.is_empty()).then(|| filter.to_owned()),
        order_by: (!order_by.is_empty()).then(|| order_by.to_owned()),
        ..ListRequest::default()
    }
}

/// A failed direct read of the tables, as a repository error.
pub fn internal(e: diesel::result::Error) -> RepositoryError {
    RepositoryError::Internal(e.to_string())
}
