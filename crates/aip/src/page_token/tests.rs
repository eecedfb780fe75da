use time::macros::datetime;

use super::*;

const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";
const OTHER_SECRET: &[u8] = b"fedcba9876543210fedcba9876543210";
const NOW: OffsetDateTime = datetime!(2026-03-01 12:00:00 UTC);

fn codec() -> PageTokenCodec {
    PageTokenCodec::new(SECRET).unwrap()
}

fn fingerprint(filter: &str) -> RequestFingerprint {
    RequestFingerprint::builder("ListEntities")
        .param("tenant", "t1")
        .param("filter", filter)
        .param("orderBy", "createTime desc")
        .build()
}

fn cursor() -> Cursor {
    Cursor {
        values: vec![
            CursorValue::Null,
            CursorValue::Bool(true),
            CursorValue::Bool(false),
            CursorValue::Integer(-42),
            CursorValue::Integer(i64::MAX),
            CursorValue::Float(2.5),
            CursorValue::Float(-0.0),
            CursorValue::Text("entities/abc".to_owned()),
            CursorValue::Text(String::new()),
            CursorValue::Text("Zoë 🙂".to_owned()),
        ],
        returned: 150,
    }
}

#[test]
fn page_size_resolution() {
    let cases: [(Option<i32>, Result<u32, PageSizeError>); 7] = [
        (None, Ok(50)),
        (Some(0), Ok(50)),
        (Some(1), Ok(1)),
        (Some(1000), Ok(1000)),
        (Some(100_000), Ok(1000)),
        (Some(-1), Err(PageSizeError { value: -1 })),
        (Some(i32::MIN), Err(PageSizeError { value: i32::MIN })),
    ];
    for (raw, want) in cases {
        assert_eq!(PageSize::resolve(raw, 50, 1000), want, "{raw:?}");
    }
    assert_eq!(PageSize::resolve(None, 50, 10), Ok(10));
    let err = PageSize::resolve(Some(-1), 50, 1000).unwrap_err();
    assert_eq!(
        (err.field(), err.reason()),
        ("pageSize", "INVALID_PAGE_SIZE")
    );
}

#[test]
fn skip_resolution() {
    assert_eq!(Skip::resolve(None), Ok(0));
    assert_eq!(Skip::resolve(Some(0)), Ok(0));
    assert_eq!(Skip::resolve(Some(30)), Ok(30));
    let err = Skip::resolve(Some(-3)).unwrap_err();
    assert_eq!(err, SkipError { value: -3 });
    assert_eq!((err.field(), err.reason()), ("skip", "INVALID_SKIP"));
}

#[test]
fn round_trip() {
    let codec = codec();
    let fp = fingerprint("state = ACTIVE");
    for cursor in [cursor(), Cursor::default()] {
        let token = codec.encode(&fp, &cursor, NOW);
        assert!(
            token
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{token}"
        );
        assert_eq!(codec.decode(&token, &fp, NOW), Ok(cursor));
    }
    let nan = Cursor {
        values: vec![CursorValue::Float(f64::NAN)],
        returned: 0,
    };
    let token = codec.encode(&fp, &nan, NOW);
    let decoded = codec.decode(&token, &fp, NOW).unwrap();
    assert!(matches!(decoded.values[0], CursorValue::Float(f) if f.is_nan()));
}

#[test]
fn tampering_any_byte_breaks_the_signature() {
    let codec = codec();
    let fp = fingerprint("");
    let token = codec.encode(&fp, &cursor(), NOW);
    let bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
    for i in 0..bytes.len() {
        for bit in [0x01, 0x80] {
            let mut tampered = bytes.clone();
            tampered[i] ^= bit;
            let tampered = URL_SAFE_NO_PAD.encode(&tampered);
            assert_eq!(
                codec.decode(&tampered, &fp, NOW),
                Err(PageTokenError::BadSignature),
                "byte {i} bit {bit:#x}"
            );
        }
    }
    // Truncated or extended tokens are refused too.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(
        codec
            .decode(&URL_SAFE_NO_PAD.encode(&longer), &fp, NOW)
            .is_err()
    );
    let shorter = &bytes[..bytes.len() - 1];
    assert!(
        codec
            .decode(&URL_SAFE_NO_PAD.encode(shorter), &fp, NOW)
            .is_err()
    );
}

#[test]
fn changing_any_character_is_refused() {
    let codec = codec();
    let fp = fingerprint("");
    let token = codec.encode(&fp, &cursor(), NOW);
    for i in 0..token.len() {
        let mut chars: Vec<char> = token.chars().collect();
        chars[i] = if chars[i] == 'A' { 'B' } else { 'A' };
        let changed: String = chars.into_iter().collect();
        let result = codec.decode(&changed, &fp, NOW);
        assert!(
            matches!(
                result,
                Err(PageTokenError::BadSignature | PageTokenError::Malformed { .. })
            ),
            "position {i}: {result:?}"
        );
    }
}

#[test]
fn forged_with_another_key() {
    let fp = fingerprint("");
    let forged = PageTokenCodec::new(OTHER_SECRET)
        .unwrap()
        .encode(&fp, &cursor(), NOW);
    assert_eq!(
        codec().decode(&forged, &fp, NOW),
        Err(PageTokenError::BadSignature)
    );
}

#[test]
fn mismatched_request() {
    let codec = codec();
    let token = codec.encode(&fingerprint("state = ACTIVE"), &cursor(), NOW);
    let err = codec
        .decode(&token, &fingerprint("state = DELETED"), NOW)
        .unwrap_err();
    assert_eq!(err, PageTokenError::RequestMismatch);
    assert_eq!(err.reason(), "PAGE_TOKEN_REQUEST_MISMATCH");
    assert_eq!(err.field(), "pageToken");
}

#[test]
fn fingerprint_canonical_form() {
    let base = || RequestFingerprint::builder("ListEntities");
    let reference = base()
        .param("filter", "a")
        .param("orderBy", "b")
        .param("showDeleted", "true")
        .build();
    let same = [
        base()
            .param("showDeleted", "true")
            .param("orderBy", "b")
            .param("filter", "a")
            .build(),
        base()
            .params([("order_by", "b"), ("filter", "a"), ("show_deleted", "true")])
            .build(),
        base()
            .param("filter", "a")
            .param("pageToken", "xyz")
            .param("page_size", "10")
            .param("orderBy", "b")
            .param("skip", "30")
            .param("showDeleted", "true")
            .build(),
    ];
    for (i, other) in same.iter().enumerate() {
        assert_eq!(&reference, other, "variant {i}");
    }
    let different = [
        RequestFingerprint::builder("ListNotes")
            .param("filter", "a")
            .param("orderBy", "b")
            .param("showDeleted", "true")
            .build(),
        base()
            .param("filter", "a")
            .param("orderBy", "b")
            .param("showDeleted", "false")
            .build(),
        base()
            .param("filter", "a")
            .param("orderBy", "b")
            .param("showDeleted", "true")
            .param("tenant", "t2")
            .build(),
        base().param("filter", "a").param("orderBy", "b").build(),
    ];
    for (i, other) in different.iter().enumerate() {
        assert_ne!(&reference, other, "variant {i}");
    }
    // Length prefixes keep boundaries apart.
    assert_ne!(
        base().param("a", "bc").build(),
        base().param("ab", "c").build()
    );
    // The order of a repeated parameter's values matters.
    assert_ne!(
        base().param("names", "a").param("names", "b").build(),
        base().param("names", "b").param("names", "a").build()
    );
    assert_eq!(reference.as_bytes().len(), 32);
}

#[test]
fn expiry() {
    let codec = codec();
    let fp = fingerprint("");
    let token = codec.encode(&fp, &cursor(), NOW);
    let at_limit = NOW + DEFAULT_TOKEN_LIFETIME;
    assert!(codec.decode(&token, &fp, at_limit).is_ok());
    let err = codec
        .decode(&token, &fp, at_limit + Duration::seconds(1))
        .unwrap_err();
    assert_eq!(err, PageTokenError::Expired);
    assert_eq!(err.reason(), "EXPIRED_PAGE_TOKEN");
    // Issued slightly in the future (clock skew between replicas): accepted.
    assert!(
        codec
            .decode(&token, &fp, NOW - Duration::minutes(5))
            .is_ok()
    );
    // A custom lifetime.
    let short = codec.clone().with_lifetime(Duration::hours(1));
    assert_eq!(short.lifetime(), Duration::hours(1));
    assert_eq!(
        short.decode(&token, &fp, NOW + Duration::hours(2)),
        Err(PageTokenError::Expired)
    );
}

#[test]
fn garbage_and_empty() {
    let codec = codec();
    let fp = fingerprint("");
    let valid = codec.encode(&fp, &cursor(), NOW);
    let garbage = [
        String::new(),
        "!!!".to_owned(),
        "abc".to_owned(),
        "a b c".to_owned(),
        format!("{valid}="),
        valid.replace('_', "/").replace('-', "+") + "%",
        URL_SAFE_NO_PAD.encode(b"short"),
        URL_SAFE_NO_PAD.encode([0u8; HEADER_LEN + TAG_LEN - 1]),
        "A".repeat(MAX_TOKEN_LENGTH + 1),
    ];
    for token in garbage {
        let err = codec.decode(&token, &fp, NOW).unwrap_err();
        assert!(
            matches!(err, PageTokenError::Malformed { .. }),
            "{token:?}: {err:?}"
        );
        assert_eq!(err.reason(), "MALFORMED_PAGE_TOKEN");
    }
    // Well-formed length but random content: the signature fails.
    let random = URL_SAFE_NO_PAD.encode([7u8; HEADER_LEN + TAG_LEN + 5]);
    assert_eq!(
        codec.decode(&random, &fp, NOW),
        Err(PageTokenError::BadSignature)
    );
}

#[test]
fn secret_length_is_enforced() {
    assert_eq!(
        PageTokenCodec::new(b"short").unwrap_err(),
        SecretTooShort { length: 5 }
    );
    assert!(PageTokenCodec::new(&[0u8; MIN_SECRET_LENGTH]).is_ok());
    let debug = format!("{:?}", codec());
    assert!(!debug.contains("0123"), "{debug}");
}

#[test]
fn reasons_are_distinct() {
    let errors = [
        PageTokenError::Malformed { detail: "x" },
        PageTokenError::BadSignature,
        PageTokenError::RequestMismatch,
        PageTokenError::Expired,
    ];
    let mut reasons: Vec<&str> = errors.iter().map(PageTokenError::reason).collect();
    reasons.sort_unstable();
    reasons.dedup();
    assert_eq!(reasons.len(), errors.len());
    for error in errors {
        assert!(!error.to_string().is_empty());
    }
}
