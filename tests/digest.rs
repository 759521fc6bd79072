//! Loading with a digest computed by the caller (the browser's WebCrypto): the library compares it
//! with the manifest instead of hashing, and answers exactly as when it hashes itself.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::format::{sha256_hex, ModelEntry};
use chsr::search::{Library, LoadError};
use common::*;

#[test]
fn a_shard_loaded_with_its_digest_searches_as_one_hashed_here() {
    let out = build_fixture();
    let hashed = library(&out);
    let mut given = Library::new(out.manifest.clone());
    for s in &out.shards {
        // Upper-case hex is accepted too (digests are compared case-insensitively).
        let digest = sha256_hex(&s.bytes).to_ascii_uppercase();
        given
            .load_shard_with_digest(&s.entry.file, &s.bytes, &digest)
            .unwrap();
        assert!(given.is_loaded(&s.entry.file));
    }
    for (q, scope, opts) in golden_cases() {
        let a = hashed.search(&q, &scope, &opts).unwrap();
        let b = given.search(&q, &scope, &opts).unwrap();
        let ids = |r: &chsr::search::SearchResponse| {
            r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>()
        };
        assert_eq!(ids(&a), ids(&b), "{q}");
    }
}

#[test]
fn a_wrong_digest_gives_the_same_errors_as_hashing() {
    let out = build_fixture();
    let file = &out.shards[1].entry.file;
    let good = &out.shards[1].bytes;
    let other = &out.shards[0].bytes;
    let mut a = Library::new(out.manifest.clone());
    let mut b = Library::new(out.manifest.clone());
    // Another (valid) shard under this name: the integrity error, worded alike.
    let hashed = a.load_shard(file, other).unwrap_err();
    let given = b
        .load_shard_with_digest(file, other, &sha256_hex(other))
        .unwrap_err();
    assert!(matches!(given, LoadError::Integrity { .. }), "{given:?}");
    assert_eq!(hashed.to_string(), given.to_string());
    // A truncated download: the precise reason, worded alike.
    let cut = &good[..good.len() / 2];
    let hashed = a.load_shard(file, cut).unwrap_err();
    let given = b
        .load_shard_with_digest(file, cut, &sha256_hex(cut))
        .unwrap_err();
    assert_eq!(hashed.to_string(), given.to_string());
    assert!(given.to_string().contains("truncated"), "{given}");
    // A digest that is not the bytes' (the caller's mistake) cannot make a wrong file pass.
    assert!(b
        .load_shard_with_digest(file, other, "not a digest")
        .is_err());
    assert!(!b.is_loaded(file));
    b.load_shard_with_digest(file, good, &sha256_hex(good))
        .unwrap();
    assert!(b.is_loaded(file));
}

#[test]
fn the_model_loaded_with_its_digest_embeds_as_one_hashed_here() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/model/minilm-l6-static.chsrm");
    let bytes = std::fs::read(path).unwrap();
    let out = build_fixture();
    let mut manifest = out.manifest.clone();
    manifest.model = Some(ModelEntry {
        file: "model.chsrm".into(),
        sha256: sha256_hex(&bytes),
        bytes: bytes.len() as u64,
        id: "test".into(),
        dims: 192,
    });
    let mut a = Library::new(manifest.clone());
    let mut b = Library::new(manifest);
    a.load_model(&bytes).unwrap();
    b.load_model_with_digest(&bytes, &sha256_hex(&bytes))
        .unwrap();
    assert!(b.has_model());
    // A wrong digest: the same "SHA-256 mismatch" error as a file that does not match.
    let mut c = Library::new(a.manifest().clone());
    let wrong = sha256_hex(b"something else");
    let e = c.load_model_with_digest(&bytes, &wrong).unwrap_err();
    assert!(e.to_string().contains("SHA-256 mismatch"), "{e}");
    assert!(!c.has_model());
    let hashed = c.load_model(&bytes[..1000]).unwrap_err().to_string();
    let given = c
        .load_model_with_digest(&bytes[..1000], &sha256_hex(&bytes[..1000]))
        .unwrap_err()
        .to_string();
    assert_eq!(hashed, given);
}
