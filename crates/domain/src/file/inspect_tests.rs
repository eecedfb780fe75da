//! Unit tests of the inspection of uploads: what it passes, what it refuses and how
//! soon.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};

use super::content::ContentStream;
use super::inspect::{
    AllowedTypes, DEFAULT_MAX_BYTES, Inspected, SNIFF_BYTES, UploadRules, declared_type, inspect,
};
use super::sniff;
use crate::error::{Code, Error};

const PDF: &[u8] = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n";
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";
const DOCX: &str = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
/// A ZIP whose one entry inflates from about 100 KB to 100 MiB of zeros, named as a
/// Word document; see tests/fixtures/README.md.
const ZIP_BOMB: &[u8] = include_bytes!("../../../../tests/fixtures/zip-bomb.docx");

/// `chunks` as a content stream, counting how many were taken.
fn stream(chunks: Vec<Vec<u8>>, taken: Arc<AtomicUsize>) -> ContentStream {
    Box::pin(futures_util::stream::iter(chunks).map(move |chunk| {
        taken.fetch_add(1, Ordering::SeqCst);
        Ok::<_, Error>(Bytes::from(chunk))
    }))
}

/// Runs `content`, cut in chunks of `size`, through the inspection: the verdict, or
/// the error the stream ended with, and how many chunks were read.
async fn run(
    content: &[u8],
    size: usize,
    rules: UploadRules,
    declared: Option<&str>,
) -> (Result<Inspected, Error>, usize) {
    let taken = Arc::new(AtomicUsize::new(0));
    let chunks = content.chunks(size.max(1)).map(<[u8]>::to_vec).collect();
    let (mut inspected, inspection) = inspect(
        stream(chunks, taken.clone()),
        rules,
        declared.and_then(|raw| declared_type(raw).unwrap()),
    );
    let mut passed = Vec::new();
    while let Some(item) = inspected.next().await {
        match item {
            Ok(chunk) => passed.extend_from_slice(&chunk),
            Err(e) => return (Err(e), taken.load(Ordering::SeqCst)),
        }
    }
    assert_eq!(passed, content, "the content passes unchanged");
    let verdict = inspection.result().cloned().expect("a verdict at the end");
    (Ok(verdict), taken.load(Ordering::SeqCst))
}

async fn verdict(content: &[u8], declared: Option<&str>) -> Result<Inspected, Error> {
    run(content, 7, UploadRules::default(), declared).await.0
}

async fn refused(content: &[u8], declared: Option<&str>) -> Error {
    verdict(content, declared)
        .await
        .expect_err("the upload is refused")
}

#[tokio::test]
async fn the_verdict_is_the_sniffed_type_size_and_digest() {
    let inspected = verdict(PDF, None).await.unwrap();
    assert_eq!(inspected.content_type, "application/pdf");
    assert_eq!(inspected.size_bytes, PDF.len() as u64);
    let digest = Sha256::digest(PDF);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(inspected.sha256, hex);
    assert_eq!(inspected.sha256.len(), 64);
    let declared = verdict(PNG, Some("image/png")).await.unwrap();
    assert_eq!(declared.content_type, "image/png");
}

#[tokio::test]
async fn a_declared_type_must_be_the_sniffed_one() {
    let error = refused(PNG, Some("application/pdf")).await;
    assert_eq!(
        (error.code, error.reason),
        (Code::InvalidArgument, "CONTENT_TYPE_MISMATCH")
    );
    assert_eq!(error.field_violations[0].field, "file.contentType");
    assert_eq!(
        error.complete_metadata().get("detectedContentType"),
        Some(&"image/png".to_owned())
    );
    let text = refused(b"hello", Some("image/png")).await;
    assert_eq!(text.reason, "CONTENT_TYPE_MISMATCH");
}

#[tokio::test]
async fn a_zip_bomb_named_docx_is_a_zip_and_never_unpacked() {
    let error = refused(ZIP_BOMB, Some(DOCX)).await;
    assert_eq!(error.reason, "CONTENT_TYPE_MISMATCH");
    assert_eq!(
        error.complete_metadata().get("detectedContentType"),
        Some(&"application/zip".to_owned())
    );
    let undeclared = refused(ZIP_BOMB, None).await;
    assert_eq!(undeclared.reason, "CONTENT_TYPE_NOT_ALLOWED");
}

#[tokio::test]
async fn a_refused_type_is_refused_once_the_head_is_read() {
    let mut fake = PDF.to_vec();
    fake.resize(SNIFF_BYTES * 40, b'x');
    let (outcome, taken) = run(
        &fake,
        SNIFF_BYTES / 2,
        UploadRules::default(),
        Some("image/png"),
    )
    .await;
    assert_eq!(outcome.unwrap_err().reason, "CONTENT_TYPE_MISMATCH");
    assert!(taken <= 2, "read {taken} chunks of 80");
}

#[tokio::test]
async fn size_is_checked_as_the_bytes_come() {
    let rules = UploadRules {
        max_bytes: 100,
        allowed: AllowedTypes::default(),
    };
    let (outcome, taken) = run(&[b'a'; 1000], 40, rules.clone(), None).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.reason, "FILE_TOO_LARGE");
    assert_eq!(error.field_violations[0].field, "file.content");
    assert_eq!(taken, 3, "no chunk is read past the one over the limit");
    let (exact, _) = run(&[b'a'; 100], 40, rules, None).await;
    assert_eq!(exact.unwrap().size_bytes, 100);
    assert_eq!(DEFAULT_MAX_BYTES, 10 * 1024 * 1024);
}

#[tokio::test]
async fn empty_content_is_refused() {
    let error = refused(b"", None).await;
    assert_eq!(error.reason, "FILE_EMPTY");
}

#[tokio::test]
async fn text_types_follow_the_declaration_when_the_bytes_fit() {
    let plain = verdict("Grüße\n".as_bytes(), None).await.unwrap();
    assert_eq!(plain.content_type, "text/plain");
    let octets = verdict(b"notes", Some("application/octet-stream"))
        .await
        .unwrap();
    assert_eq!(
        octets.content_type, "text/plain",
        "octet-stream declares nothing"
    );
    let csv = verdict(b"a,b\n1,2\n", Some("text/csv; charset=utf-8"))
        .await
        .unwrap();
    assert_eq!(csv.content_type, "text/csv");
    let json = verdict(br#"{"a": [1, 2]}"#, Some("application/json"))
        .await
        .unwrap();
    assert_eq!(json.content_type, "application/json");
    assert_eq!(
        verdict(b"a,b\n1,2\n", None).await.unwrap().content_type,
        "text/plain",
        "CSV is plain text unless declared"
    );
    for (content, declared) in [
        (&b"a,b\n1\n"[..], "text/csv"),
        (&b"{\"a\": "[..], "application/json"),
        (&b"\xff\xfe binary"[..], "text/plain"),
    ] {
        let error = refused(content, Some(declared)).await;
        assert_eq!(error.reason, "CONTENT_TYPE_MISMATCH", "{declared}");
    }
    let binary = refused(b"\x00\x01\x02\x03", None).await;
    assert_eq!(binary.reason, "CONTENT_TYPE_NOT_ALLOWED");
    assert_eq!(
        binary.complete_metadata().get("contentType"),
        Some(&sniff::UNKNOWN.to_owned())
    );
}

#[tokio::test]
async fn types_outside_the_allowed_list_are_refused() {
    let only_pdf = UploadRules {
        max_bytes: DEFAULT_MAX_BYTES,
        allowed: AllowedTypes::parse(&["pdf"]).unwrap(),
    };
    let (outcome, _) = run(PNG, 8, only_pdf.clone(), None).await;
    assert_eq!(outcome.unwrap_err().reason, "CONTENT_TYPE_NOT_ALLOWED");
    let (outcome, _) = run(b"text", 8, only_pdf.clone(), Some("text/plain")).await;
    assert_eq!(outcome.unwrap_err().reason, "CONTENT_TYPE_NOT_ALLOWED");
    assert!(run(PDF, 8, only_pdf, None).await.0.is_ok());
}

#[tokio::test]
async fn ole_files_are_judged_by_their_class() {
    let mut excel = vec![0u8; 512 * 4];
    excel[..8].copy_from_slice(&[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    excel[0x1e..0x20].copy_from_slice(&9u16.to_le_bytes());
    excel[0x30..0x34].copy_from_slice(&2u32.to_le_bytes());
    let at = 3 * 512 + 0x50;
    excel[at..at + 4].copy_from_slice(&[0x20, 8, 2, 0]);
    excel[at + 8] = 0xc0;
    excel[at + 15] = 0x46;
    let inspected = verdict(&excel, Some("application/vnd.ms-excel"))
        .await
        .unwrap();
    assert_eq!(inspected.content_type, sniff::MS_EXCEL);
    let error = refused(&excel, Some("application/msword")).await;
    assert_eq!(error.reason, "CONTENT_TYPE_MISMATCH");
}

#[test]
fn declared_types_are_normalised() {
    assert_eq!(declared_type("").unwrap(), None);
    assert_eq!(declared_type("application/octet-stream").unwrap(), None);
    assert_eq!(
        declared_type(" Image/JPG ").unwrap().as_deref(),
        Some("image/jpeg")
    );
    assert_eq!(
        declared_type("text/csv; charset=UTF-8").unwrap().as_deref(),
        Some("text/csv")
    );
    assert_eq!(
        declared_type("text/json").unwrap().as_deref(),
        Some("application/json")
    );
    for bad in ["pdf", "text/", "/x", "a/b/c", "text/pl ain"] {
        let error = declared_type(bad).unwrap_err();
        assert_eq!(error.field_violations[0].field, "file.contentType", "{bad}");
    }
}

#[test]
fn allowed_types_are_extensions_or_media_types() {
    let defaults = AllowedTypes::default();
    assert_eq!(
        defaults.iter().count(),
        15,
        "{:?}",
        defaults.iter().collect::<Vec<_>>()
    );
    for kind in [
        "application/pdf",
        "image/jpeg",
        "text/csv",
        DOCX,
        sniff::MS_EXCEL,
    ] {
        assert!(defaults.allows(kind), "{kind}");
    }
    assert!(!defaults.allows("application/zip"));
    let parsed = AllowedTypes::parse(&[".PDF", "image/webp", " "]).unwrap();
    assert_eq!(
        parsed.iter().collect::<Vec<_>>(),
        vec!["application/pdf", "image/webp"]
    );
    assert!(AllowedTypes::parse(&["exe"]).is_err());
    assert!(AllowedTypes::parse(&["image/"]).is_err());
    assert!(AllowedTypes::parse::<&str>(&[]).is_err());
}
