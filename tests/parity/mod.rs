//! Native/Wasm parity on random queries, shared by the native test (`tests/wasm_parity.rs`) and the
//! Wasm test (`tests/wasm.rs`, under Node and headless Chromium): one generator, one digest, one
//! golden file (`tests/fixtures/parity_golden.txt`).
//!
//! A seeded PRNG (SplitMix64, no wall clock, no platform randomness) draws [`CASES`] queries —
//! words of the spine fixture's own vocabulary mixed with noise (stopwords, digits, formulas,
//! accents, French words, hint phrases, punctuation, control and bidi characters, empty and very
//! long strings) — with random scopes (valid subject/level pairs and facet values, combinations
//! that empty the gate, unknown values) and random options (every variant, k, gating overrides,
//! fallback, expansion, snippet sizes, weights, full text or not, a few invalid ones), on three set-ups: lexical
//! shards, dense shards with the embedding model loaded, and dense shards without it; then
//! [`GRAPH_CASES`] more search the committed native dense build ([`GRAPH_BUNDLE`]) through its HNSW
//! graphs (graphs built in Wasm differ from native ones, so the Wasm side loads the native bytes).
//!
//! Each result becomes a canonical string — every field of the response (ids in order, every
//! score and adjustment as the bits of its f64, leakage labels, snippets, the whole trace except
//! its timings) and the `[DOCUMENT N]` context, or the error message — and the golden file keeps
//! a 64-bit prefix of its SHA-256. The set-ups' manifests (which pin the shards' SHA-256) are
//! digested too, so the Wasm build of the shards is checked against the native one.
//!
//! Rewrite the golden file (and the bundle) after an intended change of results: `CHSR_BLESS=1
//! cargo test --test wasm_parity`, then run the Wasm tests (`scripts/wasm-env wasm-pack test --node`).
//!
//! Here: the constants, the set-ups and their libraries, and the graph bundle; the random cases
//! are drawn in `generator.rs`, and digested and compared with the golden file in `digest.rs`.
#![allow(dead_code)]

mod digest;
mod generator;

pub use digest::*;
pub use generator::*;

use chsr::build::{build, build_with, BuildOptions, BuildOutput, Embedder};
use chsr::corpus::parse_jsonl;
use chsr::format::{decode_dense_part, encode_dense_part, sha256_hex, Manifest};
use chsr::search::{Library, ModelEmbedder};
use serde_json::Value;

/// The spine fixture (288 chunks over five subject-level pairs).
pub const SPINE: &str = include_str!("../fixtures/spine.jsonl");
/// The committed static embedding model.
pub const MODEL: &[u8] = include_bytes!("../../data/model/minilm-l6-static.chsrm");
/// The golden digests.
pub const GOLDEN: &str = include_str!("../fixtures/parity_golden.txt");
/// Path of the golden file relative to the crate root (for `CHSR_BLESS=1`).
pub const GOLDEN_PATH: &str = "tests/fixtures/parity_golden.txt";
/// Number of random cases.
pub const CASES: usize = 300;
/// The generator's seed.
pub const SEED: u64 = 0x00c4_5e42_0008;
/// The dense build of the spine fixture as `chsr build` makes it (natively): its manifest, shards
/// and dense parts in one file (see [`bundle`]). Graphs built in Wasm differ from native ones, so
/// the Wasm tests load these bytes to search the same HNSW graphs as the native test.
pub const GRAPH_BUNDLE: &[u8] = include_bytes!("../fixtures/parity_graph.bundle");
/// Path of the bundle relative to the crate root (for `CHSR_BLESS=1`).
pub const GRAPH_BUNDLE_PATH: &str = "tests/fixtures/parity_graph.bundle";
/// Number of random cases searched through the HNSW graphs (after the [`CASES`] others).
pub const GRAPH_CASES: usize = 60;
/// Their seed.
pub const GRAPH_SEED: u64 = 0x0067_7261_7068;

/// How the library of a case is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setup {
    /// Shards without dense index.
    Lexical,
    /// Shards with a dense index, the embedding model loaded.
    Dense,
    /// Shards with a dense index, no model loaded (lexical path, with a note).
    DenseNoModel,
    /// The committed native dense build ([`GRAPH_BUNDLE`]) with the model, searched with options
    /// that send the dense path through the HNSW graph. Not in [`Setup::ALL`]: its library is
    /// [`graph_library`].
    Graph,
}

impl Setup {
    /// Every set-up, in golden-file order.
    pub const ALL: [Setup; 3] = [Setup::Lexical, Setup::Dense, Setup::DenseNoModel];
    /// Its name in the golden file.
    pub fn name(self) -> &'static str {
        match self {
            Setup::Lexical => "lexical",
            Setup::Dense => "dense",
            Setup::DenseNoModel => "dense-no-model",
            Setup::Graph => "graph",
        }
    }
    /// Its position in [`Setup::ALL`] (not for [`Setup::Graph`]).
    pub fn index(self) -> usize {
        Setup::ALL.iter().position(|s| *s == self).unwrap()
    }
}

/// One random case: a query, a scope and options as the page sends them (JSON), and a set-up.
#[derive(Clone, Debug)]
pub struct Case {
    /// The query text.
    pub query: String,
    /// The scope object.
    pub scope: Value,
    /// The options object.
    pub options: Value,
    /// The library set-up.
    pub setup: Setup,
}

/// The two builds of the fixture: without and with a dense index (the committed model).
pub struct Fixture {
    /// Lexical shards.
    pub lexical: BuildOutput,
    /// Dense shards and the model entry.
    pub dense: BuildOutput,
}

impl Fixture {
    /// Builds both in memory (deterministic: same bytes on every target).
    pub fn build() -> Fixture {
        let chunks = parse_jsonl("spine.jsonl", SPINE).expect("fixture parses");
        let opts = BuildOptions::default();
        let lexical = build(&chunks, &opts);
        let m = ModelEmbedder::from_bytes(MODEL).expect("committed model decodes");
        let embed = |t: &str| m.model().embed(t);
        let e = Embedder {
            model_id: "minilm-l6-static".into(),
            file: MODEL,
            dims: m.model().dims(),
            embed: &embed,
        };
        let dense = build_with(&chunks, &opts, Some(&e));
        Fixture { lexical, dense }
    }

    /// The build output a set-up uses.
    pub fn output(&self, setup: Setup) -> &BuildOutput {
        match setup {
            Setup::Lexical => &self.lexical,
            Setup::Dense | Setup::DenseNoModel | Setup::Graph => &self.dense,
        }
    }

    /// A library with every shard loaded (and the model, for [`Setup::Dense`]).
    pub fn library(&self, setup: Setup) -> Library {
        let out = self.output(setup);
        let mut lib = Library::new(out.manifest.clone());
        for s in &out.shards {
            // The shard, then its dense part (the vectors), if any.
            for (file, bytes) in s.files() {
                lib.load_file(file, bytes).expect("fixture file loads");
            }
        }
        if setup == Setup::Dense {
            lib.load_model(MODEL).expect("model loads");
        }
        lib
    }

    /// The digest lines of the build: the chunk vectors the dense build embeds, the lexical
    /// manifest (it pins every lexical shard's SHA-256), and the dense build's shards and dense
    /// parts with their HNSW graphs left out. Graphs built in Wasm differ from native ones (instant-distance draws the
    /// layers with `rand`'s `SmallRng`, a different generator on 32-bit targets); shards are built
    /// natively (`chsr build`), and every fixture shard is small enough for the exact dense scan,
    /// which never reads the graph.
    pub fn manifest_lines(&self, graph_bundle: &[u8]) -> Vec<String> {
        let m = ModelEmbedder::from_bytes(MODEL).expect("committed model decodes");
        let mut bits = String::new();
        for line in SPINE.lines() {
            let v: Value = serde_json::from_str(line).expect("fixture line");
            for x in m.model().embed(v["text"].as_str().unwrap_or("")) {
                bits.push_str(&format!("{:08x}", x.to_bits()));
            }
        }
        let mut without_graphs = String::new();
        for s in &self.dense.shards {
            without_graphs.push_str(&sha256_hex(&s.bytes));
            if let Some(bytes) = &s.dense_bytes {
                let mut part = decode_dense_part(bytes, true).expect("fixture dense part decodes");
                part.index.graph.clear();
                without_graphs.push_str(&sha256_hex(&encode_dense_part(&part)));
            }
        }
        let digest = |s: &str| sha256_hex(s.as_bytes())[..16].to_string();
        vec![
            format!("vectors {}", digest(&bits)),
            format!(
                "manifest lexical {}",
                digest(&self.lexical.manifest.to_json())
            ),
            format!("shards dense-without-graphs {}", digest(&without_graphs)),
            format!("graph bundle {}", &sha256_hex(graph_bundle)[..16]),
        ]
    }

    /// Per shard, in manifest order (the same in both builds): the vocabulary of its own
    /// chunks, whose words find something in a scope on that shard.
    pub fn shard_vocabularies(&self) -> Vec<Vec<String>> {
        self.lexical
            .manifest
            .shards
            .iter()
            .map(|s| vocabulary(Some((&s.subject, &s.level))))
            .collect()
    }

    /// The dense build's files as the bundle holds them: `manifest.json`, then each shard and
    /// its dense part.
    pub fn graph_files(&self) -> Vec<(String, Vec<u8>)> {
        let mut files = vec![(
            "manifest.json".to_string(),
            self.dense.manifest.to_json().into_bytes(),
        )];
        for s in &self.dense.shards {
            for (name, bytes) in s.files() {
                files.push((name.to_string(), bytes.to_vec()));
            }
        }
        files
    }
}

/// Files in one byte string: a line `name size` per file, an empty line, then their bytes in order.
pub fn bundle(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, bytes) in files {
        out.extend_from_slice(format!("{name} {}\n", bytes.len()).as_bytes());
    }
    out.push(b'\n');
    for (_, bytes) in files {
        out.extend_from_slice(bytes);
    }
    out
}

/// The files of a [`bundle`].
pub fn unbundle(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let end = bytes
        .windows(2)
        .position(|w| w == b"\n\n")
        .expect("bundle header");
    let header = std::str::from_utf8(&bytes[..end]).expect("bundle header is UTF-8");
    let mut at = end + 2;
    header
        .lines()
        .map(|line| {
            let (name, size) = line.rsplit_once(' ').expect("name size");
            let size: usize = size.parse().expect("size");
            let file = bytes[at..at + size].to_vec();
            at += size;
            (name.to_string(), file)
        })
        .collect()
}

/// A library holding a [`bundle`] of the native dense build (the Wasm tests pass
/// [`GRAPH_BUNDLE`]) and the model.
pub fn graph_library(graph_bundle: &[u8]) -> Library {
    let files = unbundle(graph_bundle);
    let manifest = std::str::from_utf8(&files[0].1).expect("manifest is UTF-8");
    let mut lib = Library::new(Manifest::from_json(manifest).expect("bundle manifest"));
    for (name, bytes) in &files[1..] {
        lib.load_file(name, bytes).expect("bundle file loads");
    }
    lib.load_model(MODEL).expect("model loads");
    lib
}
