//! Replays the committed fuzz corpora (`fuzz/corpus/<target>/`) through the fuzz targets' own
//! checks, in the regular test suite: no libFuzzer, no nightly, a few seconds. Every crash the
//! fuzzers found is kept in its corpus as `regression-*` (and has a named test in
//! tests/hostile.rs), so it is replayed here too.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{target}: empty corpus");
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if let Err(e) = std::panic::catch_unwind(|| run(&data)) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{target}/{name}: {msg}");
        }
    }
}

#[test]
fn shard_decode_corpus() {
    replay("shard_decode", fuzz::shard_decode);
}

#[test]
fn shard_load_corpus() {
    replay("shard_load", fuzz::shard_load);
}

#[test]
fn manifest_corpus() {
    replay("manifest", fuzz::manifest);
}

#[test]
fn analyzer_corpus() {
    replay("analyzer", fuzz::analyzer);
}

#[test]
fn search_corpus() {
    replay("search", fuzz::search);
}

#[test]
fn jsonl_corpus() {
    replay("jsonl", fuzz::jsonl);
}
