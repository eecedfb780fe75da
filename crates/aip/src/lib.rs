//! Pure AIP library: AIP-160 filters, page tokens, field masks, order_by, resource ids.
