//! Helpers shared by the native integration tests.
#![allow(dead_code)]

#[cfg(not(target_arch = "wasm32"))]
pub mod cli;

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions, SearchResponse, Variant};
use std::sync::OnceLock;

/// The spine fixture: 288 OpenCERB chunks over the five subject-level pairs.
pub const SPINE: &str = include_str!("../fixtures/spine.jsonl");
/// Golden queries shared with the Wasm test.
pub const GOLDEN_QUERIES: &str = include_str!("../fixtures/golden_queries.json");

/// Builds the fixture in memory.
pub fn build_fixture() -> BuildOutput {
    let chunks = parse_jsonl("spine.jsonl", SPINE).expect("fixture parses");
    build(&chunks, &BuildOptions::default())
}

/// The fixture built once per test binary, and a library with every shard of it loaded.
pub fn fixture() -> &'static (BuildOutput, Library) {
    static FIX: OnceLock<(BuildOutput, Library)> = OnceLock::new();
    FIX.get_or_init(|| {
        let out = build_fixture();
        let lib = library(&out);
        (out, lib)
    })
}

/// The options of variant `v`, with `k` results.
pub fn opts(v: Variant, k: usize) -> SearchOptions {
    SearchOptions {
        k,
        ..SearchOptions::for_variant(v)
    }
}

/// The scope physics, college.
pub fn phys_college() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
}

/// One valid corpus line: chunk `a:1`, physics, college, English, a textbook section.
pub const LINE: &str = r#"{"id":"a:1","text":"Heat flows from hot to cold.","subject":"physics","level":"college","lang":"en","doc_type":"textbook_section"}"#;

/// A library with every shard of `out` loaded.
pub fn library(out: &BuildOutput) -> Library {
    library_with(out, |_| true)
}

/// A library with the files of `out` that `keep` accepts (by file name) loaded.
pub fn library_with(out: &BuildOutput, keep: impl Fn(&str) -> bool) -> Library {
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            if keep(file) {
                lib.load_file(file, bytes).expect("fixture file loads");
            }
        }
    }
    lib
}

/// A library built from the JSONL `lines` (read as the file `name`), with every file loaded.
pub fn library_from_lines(name: &str, lines: &[String]) -> Library {
    let chunks = parse_jsonl(name, &lines.join("\n")).unwrap();
    library(&build(&chunks, &BuildOptions::default()))
}

/// Checks the strict-key block of a search that relaxed with a document type in its scope:
/// W2 may not drop the level, and W3 (the unfiltered fallback) waits for `allow_fallback`.
pub fn assert_blocked_by_doc_type(r: &SearchResponse) {
    let relax = r.trace.relaxation.as_ref().unwrap();
    let w2 = relax.steps.iter().find(|s| s.step == "W2").unwrap();
    assert!(
        w2.note.starts_with("blocked: strict key(s) set (doc_type"),
        "{}",
        w2.note
    );
    let w3 = relax.steps.iter().find(|s| s.step == "W3").unwrap();
    assert!(w3.note.contains("allow_fallback"), "{}", w3.note);
}

/// The bytes of the built file `name`.
pub fn built_file<'a>(out: &'a BuildOutput, name: &str) -> &'a [u8] {
    out.shards
        .iter()
        .flat_map(|s| s.files())
        .find(|(file, _)| *file == name)
        .unwrap_or_else(|| panic!("{name} is not a built file"))
        .1
}

/// (query, scope, options) of each golden case.
pub fn golden_cases() -> Vec<(String, Scope, SearchOptions)> {
    let v: serde_json::Value = serde_json::from_str(GOLDEN_QUERIES).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["query"].as_str().unwrap().to_string(),
                Scope::from_json(&c["scope"]).unwrap(),
                SearchOptions::from_json(&c["options"]).unwrap(),
            )
        })
        .collect()
}

/// A toy text embedding for dense-path tests: six dimensions of byte counts, L2-normalised
/// (deterministic, so shards built with it and queries embedded by it agree).
pub fn toy_embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; 6];
    for (i, b) in text.bytes().enumerate() {
        v[(b as usize + i) % 6] += 1.0;
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.into_iter().map(|x| x / n).collect()
}

/// Asserts that one of the search's trace notes contains `needle` (the notes are printed if not).
pub fn assert_note(r: &SearchResponse, needle: &str) {
    assert!(
        r.trace.notes.iter().any(|n| n.contains(needle)),
        "no note contains {needle:?}: {:?}",
        r.trace.notes
    );
}
