//! Encode and decode of a typical keyset page token.

use std::hint::black_box;

use criterion::Criterion;
use rics_aip::page_token::{Cursor, CursorValue, PageTokenCodec, RequestFingerprint};
use time::macros::datetime;

fn bench(c: &mut Criterion) {
    let Ok(codec) = PageTokenCodec::new(b"bench-secret-bench-secret-bench-secret") else {
        return;
    };
    let now = datetime!(2026-03-01 12:00:00 UTC);
    let cursor = Cursor {
        values: vec![
            CursorValue::Integer(1_767_225_600_000_000),
            CursorValue::Text("entities/0190f4c2-7b3a-7d1e-9c2f-3a4b5c6d7e8f".to_owned()),
        ],
        returned: 50,
    };
    let fingerprint = || {
        RequestFingerprint::builder("ListEntities")
            .param("tenant", "tenants/acme")
            .param("filter", "state = ACTIVE AND tags:vip")
            .param("orderBy", "createTime desc")
            .param("showDeleted", "false")
            .build()
    };
    let fixed = fingerprint();
    c.bench_function("page_token/fingerprint", |b| b.iter(fingerprint));
    c.bench_function("page_token/encode", |b| {
        b.iter(|| codec.encode(&fixed, black_box(&cursor), now))
    });
    let token = codec.encode(&fixed, &cursor, now);
    c.bench_function("page_token/decode", |b| {
        b.iter(|| codec.decode(black_box(&token), &fixed, now))
    });
    c.bench_function("page_token/round_trip", |b| {
        b.iter(|| {
            let token = codec.encode(&fixed, black_box(&cursor), now);
            codec.decode(&token, &fixed, now)
        })
    });
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
