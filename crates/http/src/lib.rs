//! actix-web adapter: routes, wire DTOs, extractors and the error envelope.
