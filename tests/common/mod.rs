//! Helpers shared by the native integration tests.
#![allow(dead_code)]

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions};

/// The spine fixture: 288 OpenCERB chunks over the five subject-level pairs.
pub const SPINE: &str = include_str!("../fixtures/spine.jsonl");
/// Golden queries shared with the Wasm test.
pub const GOLDEN_QUERIES: &str = include_str!("../fixtures/golden_queries.json");

/// Builds the fixture in memory.
pub fn build_fixture() -> BuildOutput {
    let chunks = parse_jsonl("spine.jsonl", SPINE).expect("fixture parses");
    build(&chunks, &BuildOptions::default())
}

/// A library with every shard of `out` loaded.
pub fn library(out: &BuildOutput) -> Library {
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            lib.load_file(file, bytes).expect("fixture shard loads");
        }
    }
    lib
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
