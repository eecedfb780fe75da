//! Parse and check of a realistic entity list filter.

use std::hint::black_box;

use criterion::Criterion;
use rics_aip::filter::{FieldType, FilterSchema, parse, parse_and_check};

const FILTER: &str = "entityType = INDIVIDUAL AND (tags:vip OR riskDetails.riskLevel = HIGH) \
     AND create_time > \"2026-01-01T00:00:00Z\" AND displayName:\"jon smith\" \
     AND externalIds.crm:* AND NOT screeningStatus = CONFIRMED_MATCH AND legalHold = false";

fn entity_schema() -> FilterSchema {
    FilterSchema::new()
        .global_search_field("displayName")
        .field(
            "entityType",
            FieldType::Enum(&[
                "ENTITY_TYPE_UNSPECIFIED",
                "INDIVIDUAL",
                "COMPANY",
                "TRUST",
                "PARTNERSHIP",
                "SOLE_PROPRIETOR",
            ]),
        )
        .field("tags", FieldType::RepeatedString)
        .field("externalIds", FieldType::Map)
        .field("createTime", FieldType::Timestamp)
        .field("updateTime", FieldType::Timestamp)
        .field("legalHold", FieldType::Bool)
        .field(
            "riskDetails.riskLevel",
            FieldType::Enum(&["RISK_LEVEL_UNSPECIFIED", "LOW", "MEDIUM", "HIGH"]),
        )
        .field("riskDetails.riskScore", FieldType::Integer)
        .field(
            "screeningStatus",
            FieldType::Enum(&[
                "SCREENING_STATUS_UNSPECIFIED",
                "CLEAR",
                "POTENTIAL_MATCH",
                "CONFIRMED_MATCH",
            ]),
        )
}

fn bench(c: &mut Criterion) {
    let schema = entity_schema();
    c.bench_function("filter/parse", |b| b.iter(|| parse(black_box(FILTER))));
    c.bench_function("filter/parse_and_check", |b| {
        b.iter(|| parse_and_check(black_box(FILTER), &schema))
    });
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
    criterion.final_summary();
}
