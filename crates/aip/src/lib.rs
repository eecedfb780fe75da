//! Pure AIP library for the rics HTTP API: the mechanics of Google's API Improvement
//! Proposals that every resource shares, with no I/O.
//!
//! - [`filter`]: AIP-160 filters (lexer, parser, type checker against declarations).
//! - [`page_token`]: AIP-158 page sizes and HMAC-signed, request-bound page tokens.
//! - [`field_mask`]: AIP-134/161/203 update masks applied to JSON resources.
//! - [`order_by`]: AIP-132 `orderBy` parsing against an allow-list.
//! - [`resource_id`]: AIP-122 user-chosen ids and resource-name patterns.
//!
//! Rule ids such as refer to the project's AIP checklist
//! (`aip-checklist.md`); choices the AIPs leave open are marked \[ours\] there and in
//! these docs.

mod case;
pub mod field_mask;
pub mod filter;
pub mod order_by;
pub mod page_token;
pub mod resource_id;
