//! The list machinery every resource shares (AIP-132, -158, -160): raw request
//! parameters in, a checked [`ListQuery`] for the repository out, and the repository's
//! [`Page`] turned into a response with a signed `nextPageToken`.

use std::sync::Arc;

use rics_aip::filter::{Condition, FilterSchema};
use rics_aip::order_by::OrderBy;
use rics_aip::page_token::{
    Cursor, CursorValue, PageSize, PageTokenCodec, RequestFingerprint, Skip,
};

use crate::error::{Error, Result};
use crate::principal::TenantId;
use crate::repository::ResourceStore;
use crate::text_search;
use crate::time::Clock;

/// The list parameters as the client sent them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListRequest {
    /// `pageSize`: missing or 0 = the default, over the maximum = the maximum.
    pub page_size: Option<i32>,
    /// `pageToken` from a previous response.
    pub page_token: Option<String>,
    /// `skip`: items to skip before the page starts.
    pub skip: Option<i32>,
    /// `filter` (AIP-160).
    pub filter: Option<String>,
    /// `orderBy` (AIP-132).
    pub order_by: Option<String>,
    /// `showDeleted`: include soft-deleted resources.
    pub show_deleted: bool,
}

/// How one collection is listed: its limits, its filterable and sortable fields.
#[derive(Debug, Clone, Copy)]
pub struct ListSpec {
    /// The method, bound into page tokens (`entities.list`).
    pub method: &'static str,
    /// Page size when none is given.
    pub default_page_size: u32,
    /// Largest page size; larger requests are coerced to it.
    pub max_page_size: u32,
    /// The fields the filter may use.
    pub filter: &'static FilterSchema,
    /// The fields `orderBy` accepts.
    pub sortable: &'static [&'static str],
    /// The order when `orderBy` is empty and no fuzzy search ranks the results.
    pub default_order: &'static [SortKey],
    /// Whether `showDeleted` applies (the resource is soft-deletable).
    pub soft_delete: bool,
}

impl ListSpec {
    /// The List of `method` (bound into page tokens) over `filter`, with AIP-158's usual
    /// limits: 50 per page by default, at most 1000; oldest first by `createTime`, the
    /// one field `orderBy` accepts; no `showDeleted`.
    pub fn new(method: &'static str, filter: &'static FilterSchema) -> ListSpec {
        ListSpec {
            method,
            default_page_size: 50,
            max_page_size: 1000,
            filter,
            sortable: &["createTime"],
            default_order: OLDEST_FIRST,
            soft_delete: false,
        }
    }

    /// Pages of `default` items when the request gives no size, of at most `max`.
    #[must_use]
    pub fn pages(self, default: u32, max: u32) -> ListSpec {
        ListSpec {
            default_page_size: default,
            max_page_size: max,
            ..self
        }
    }

    /// The fields `orderBy` accepts.
    #[must_use]
    pub fn sortable(self, fields: &'static [&'static str]) -> ListSpec {
        ListSpec {
            sortable: fields,
            ..self
        }
    }

    /// The order when `orderBy` is empty.
    #[must_use]
    pub fn ordered(self, order: &'static [SortKey]) -> ListSpec {
        ListSpec {
            default_order: order,
            ..self
        }
    }

    /// The resource is soft-deletable: `showDeleted` applies.
    #[must_use]
    pub fn soft_deletable(self) -> ListSpec {
        ListSpec {
            soft_delete: true,
            ..self
        }
    }
}

/// Oldest first, by `createTime`.
pub const OLDEST_FIRST: &[SortKey] = &[SortKey::ascending("createTime")];

/// Newest first, by `createTime`.
pub const NEWEST_FIRST: &[SortKey] = &[SortKey::descending("createTime")];

/// One key of the sort order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortKey {
    /// What to sort by.
    pub by: SortBy,
    /// Descending instead of ascending.
    pub descending: bool,
}

impl SortKey {
    /// `field`, ascending.
    pub const fn ascending(field: &'static str) -> SortKey {
        SortKey {
            by: SortBy::Field(field),
            descending: false,
        }
    }

    /// `field`, descending.
    pub const fn descending(field: &'static str) -> SortKey {
        SortKey {
            by: SortBy::Field(field),
            descending: true,
        }
    }
}

/// What a sort key sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    /// A declared field (canonical lowerCamelCase path).
    Field(&'static str),
    /// The similarity of a fuzzy text search (see [`ListQuery::rank`]).
    Relevance,
}

/// A fuzzy search whose similarity orders the results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FuzzyRank {
    /// The fuzzy field.
    pub field: &'static str,
    /// The text searched for.
    pub text: String,
}

/// A checked list query for a repository. Storage appends the resource id as the last
/// sort key (in the direction of the key before it, so one-direction orders stay
/// index-friendly) so that every order is total and keyset positions are unique.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    /// The filter, if any.
    pub condition: Option<Condition>,
    /// The sort keys, without the id tie-breaker.
    pub order: Vec<SortKey>,
    /// The fuzzy search that ranks results, when the order includes
    /// [`SortBy::Relevance`].
    pub rank: Option<FuzzyRank>,
    /// Start after this keyset position: one value per sort key, then the id.
    pub after: Option<Vec<CursorValue>>,
    /// Items to skip after the position.
    pub skip: u32,
    /// Most items to return.
    pub limit: u32,
    /// Include soft-deleted rows.
    pub show_deleted: bool,
}

impl ListQuery {
    /// A query for a service's own reads (not a client's list): everything, in
    /// `order`, `limit` items from the start.
    pub fn first(order: SortKey, limit: u32) -> ListQuery {
        ListQuery {
            condition: None,
            order: vec![order],
            rank: None,
            after: None,
            skip: 0,
            limit,
            show_deleted: false,
        }
    }

    /// Keeps only the items `condition` holds for too: a List within a scope that a
    /// filter field states (the forms or documents of a workspace).
    pub fn narrow(&mut self, condition: Condition) {
        self.condition = Some(match self.condition.take() {
            Some(filter) => Condition::And(vec![filter, condition]),
            None => condition,
        });
    }
}

/// One page from a repository.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items, in order.
    pub items: Vec<T>,
    /// The keyset position of the last item, present when more items may follow.
    pub next: Option<Vec<CursorValue>>,
    /// How many items match the filter in all.
    pub total_size: i64,
}

impl<T> Page<T> {
    /// The same page with each item turned into what `convert` makes of it.
    pub fn map<U>(self, convert: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(convert).collect(),
            next: self.next,
            total_size: self.total_size,
        }
    }
}

/// A page for the client.
#[derive(Debug, Clone, PartialEq)]
pub struct ListResponse<T> {
    /// The items.
    pub items: Vec<T>,
    /// The token of the next page; `None` on the last page.
    pub next_page_token: Option<String>,
    /// How many items match in all.
    pub total_size: i64,
}

/// What `finish` needs from `prepare`.
#[derive(Debug, Clone)]
pub struct PageContext {
    fingerprint: RequestFingerprint,
    returned_before: u64,
}

/// Prepares list queries and signs page tokens.
pub struct Paging {
    codec: PageTokenCodec,
    clock: Arc<dyn Clock>,
}

impl Paging {
    /// Paging that signs tokens with `secret` (at least 32 bytes).
    ///
    /// # Errors
    /// INTERNAL when the secret is too short.
    pub fn new(secret: &[u8], clock: Arc<dyn Clock>) -> Result<Paging> {
        let codec = PageTokenCodec::new(secret).map_err(|e| Error::internal(e.to_string()))?;
        Ok(Paging { codec, clock })
    }

    /// Checks the request against `spec` and builds the repository query. `parent`
    /// scopes nested collections and is bound into the token with the tenant.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the bad parameter: a negative `pageSize` or `skip`, a
    /// filter that does not parse or check, an `orderBy` on an unknown field, a
    /// `showDeleted` where nothing is soft-deleted, or a page token that is forged,
    /// expired or was issued for other parameters.
    pub fn prepare(
        &self,
        spec: &ListSpec,
        tenant: &TenantId,
        parent: Option<&str>,
        request: &ListRequest,
    ) -> Result<(ListQuery, PageContext)> {
        let limit = PageSize::resolve(
            request.page_size,
            spec.default_page_size,
            spec.max_page_size,
        )
        .map_err(|e| Error::invalid_field(e.field(), e.reason(), e.to_string()))?;
        let skip = Skip::resolve(request.skip)
            .map_err(|e| Error::invalid_field(e.field(), e.reason(), e.to_string()))?;
        if request.show_deleted && !spec.soft_delete {
            return Err(Error::invalid_field(
                "showDeleted",
                "UNSUPPORTED_PARAMETER",
                "this collection has no soft-deleted resources",
            ));
        }
        let filter_text = request.filter.as_deref().unwrap_or("");
        let condition =
            rics_aip::filter::parse_and_check(filter_text, spec.filter).map_err(|e| {
                Error::invalid_field("filter", e.reason(), e.to_string())
                    .with_metadata("position", e.position().offset.to_string())
            })?;
        if let Some(condition) = &condition {
            check_fuzzy_texts(condition)?;
        }
        let order_text = request.order_by.as_deref().unwrap_or("");
        let order_by =
            if order_text.trim().is_empty() {
                None
            } else {
                Some(OrderBy::parse(order_text, spec.sortable).map_err(|e| {
                    Error::invalid_field("orderBy", "INVALID_ORDER_BY", e.to_string())
                })?)
            };
        let rank = match (&order_by, &condition) {
            (None, Some(condition)) => top_level_fuzzy(condition),
            _ => None,
        };
        let order = match (&order_by, &rank) {
            (Some(order_by), _) => order_by
                .fields
                .iter()
                .map(|f| SortKey {
                    by: SortBy::Field(f.field),
                    descending: f.descending,
                })
                .collect(),
            (None, Some(_)) => vec![SortKey {
                by: SortBy::Relevance,
                descending: true,
            }],
            (None, None) => spec.default_order.to_vec(),
        };
        let fingerprint = RequestFingerprint::builder(spec.method)
            .param("tenant", tenant.as_str())
            .param("parent", parent.unwrap_or(""))
            .param("filter", filter_text)
            .param(
                "orderBy",
                &order_by
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
            )
            .param(
                "showDeleted",
                if request.show_deleted {
                    "true"
                } else {
                    "false"
                },
            )
            .build();
        let (after, returned_before) = match request.page_token.as_deref() {
            None | Some("") => (None, 0),
            Some(token) => {
                let cursor = self
                    .codec
                    .decode(token, &fingerprint, self.clock.now().datetime())
                    .map_err(|e| Error::invalid_field(e.field(), e.reason(), e.to_string()))?;
                (Some(cursor.values), cursor.returned)
            }
        };
        let query = ListQuery {
            condition,
            order,
            rank,
            after,
            skip,
            limit,
            show_deleted: request.show_deleted,
        };
        Ok((
            query,
            PageContext {
                fingerprint,
                returned_before,
            },
        ))
    }
    /// One page of the resources `store` holds that `request` asks for, only those
    /// of `parent` when given (AIP-132, AIP-158, AIP-160).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters (see [`Paging::prepare`]); UNAVAILABLE
    /// or INTERNAL when storage fails.
    pub async fn list<R: Send + Sync + 'static>(
        &self,
        spec: &ListSpec,
        store: &dyn ResourceStore<R>,
        tenant: &TenantId,
        parent: Option<&str>,
        request: &ListRequest,
    ) -> Result<ListResponse<R>> {
        self.list_with(spec, tenant, parent, request, async |query| {
            store.list(tenant, parent, query).await.map_err(Error::from)
        })
        .await
    }

    /// One page that `fetch` reads for the query `request` asks for (AIP-132,
    /// AIP-158, AIP-160), for a collection not stored as a [`ResourceStore`] (an
    /// entity's events, a partner's children, risk model versions). `parent` is bound
    /// into the page token with the tenant.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for bad list parameters (see [`Paging::prepare`]), before
    /// `fetch` runs; what `fetch` fails with.
    pub async fn list_with<R>(
        &self,
        spec: &ListSpec,
        tenant: &TenantId,
        parent: Option<&str>,
        request: &ListRequest,
        fetch: impl AsyncFnOnce(&ListQuery) -> Result<Page<R>>,
    ) -> Result<ListResponse<R>> {
        let (query, context) = self.prepare(spec, tenant, parent, request)?;
        let page = fetch(&query).await?;
        Ok(self.finish(context, page))
    }

    /// Turns a repository page into the client's response, signing the next token.
    pub fn finish<T>(&self, context: PageContext, page: Page<T>) -> ListResponse<T> {
        let returned = context.returned_before + page.items.len() as u64;
        let next_page_token = page.next.map(|keys| {
            self.codec.encode(
                &context.fingerprint,
                &Cursor {
                    values: keys,
                    returned,
                },
                self.clock.now().datetime(),
            )
        });
        ListResponse {
            items: page.items,
            next_page_token,
            total_size: page.total_size,
        }
    }
}

/// The fuzzy search that ranks the results: the only one among the conditions that are
/// ANDed at the top level. A fuzzy search under OR or NOT does not rank.
fn top_level_fuzzy(condition: &Condition) -> Option<FuzzyRank> {
    let mut found = Vec::new();
    collect_conjunct_fuzzy(condition, &mut found);
    match found.as_slice() {
        [(field, text)] => Some(FuzzyRank {
            field,
            text: (*text).to_owned(),
        }),
        _ => None,
    }
}

fn collect_conjunct_fuzzy<'a>(condition: &'a Condition, found: &mut Vec<(&'static str, &'a str)>) {
    match condition {
        Condition::Fuzzy { field, text } => found.push((field, text)),
        Condition::And(parts) => parts.iter().for_each(|p| collect_conjunct_fuzzy(p, found)),
        _ => {}
    }
}

/// Refuses fuzzy searches for text that has no letters or digits to match on.
fn check_fuzzy_texts(condition: &Condition) -> Result<()> {
    match condition {
        Condition::Fuzzy { field, text } if text_search::trigrams(text).is_empty() => {
            Err(Error::invalid_field(
                "filter",
                "EMPTY_FUZZY_SEARCH",
                format!("the search on '{field}' needs letters or digits"),
            ))
        }
        Condition::And(parts) | Condition::Or(parts) => {
            parts.iter().try_for_each(check_fuzzy_texts)
        }
        Condition::Not(inner) => check_fuzzy_texts(inner),
        _ => Ok(()),
    }
}
