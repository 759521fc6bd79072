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
#![allow(dead_code)]

use chsr::build::{build, build_with, BuildOptions, BuildOutput, Embedder};
use chsr::corpus::parse_jsonl;
use chsr::format::{decode_dense_part, encode_dense_part, sha256_hex, Manifest};
use chsr::scope::Scope;
use chsr::search::{Library, ModelEmbedder, SearchOptions};
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

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

/// SplitMix64: a tiny deterministic PRNG, identical on every target.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

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

/// The [`GRAPH_CASES`] cases, drawn from [`GRAPH_SEED`]: words of the scope's own shard, the
/// variants with a dense path, any other options, and `exact_max` = `exact_fraction` = 0 so that
/// every dense search with an admissible chunk goes through the graph.
pub fn graph_cases(fixture: &Fixture) -> Vec<Case> {
    let per_shard = fixture.shard_vocabularies();
    let mut rng = Rng::new(GRAPH_SEED);
    (0..GRAPH_CASES)
        .map(|_| {
            let (scope, shard) = scope(&mut rng, &fixture.dense);
            let query = query(&mut rng, &per_shard[shard]);
            let mut options = options(&mut rng);
            let o = options.as_object_mut().expect("options are an object");
            o.insert(
                "variant".into(),
                json!(*rng.pick(&["A", "B", "C", "D", "E", "F"])),
            );
            // F is lexical-only by default: its dense list is asked for.
            o.insert("dense".into(), json!(true));
            o.insert("exact_max".into(), json!(0));
            o.insert("exact_fraction".into(), json!(0.0));
            Case {
                query,
                scope,
                options,
                setup: Setup::Graph,
            }
        })
        .collect()
}

const STOPWORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "is",
    "what",
    "a",
    "in",
    "to",
    "le",
    "la",
    "les",
    "des",
    "est",
    "une",
    "du",
    "et",
    "pour",
    "qu'est-ce",
];
const DIGITS: &[&str] = &[
    "0", "1", "2", "3", "12", "2021", "2023", "3.5", "1e5", "273.15", "-40", "10^3", "½", "٣",
];
const FORMULAS: &[&str] = &[
    "H2O",
    "H₂O",
    "CO2",
    "CO₂",
    "mv²",
    "mv^2",
    "$mv^{2}$",
    "E=mc^2",
    "q = m c ΔT",
    "ΔH",
    "\\frac{",
    "$$$",
    "x_1",
    "PV=nRT",
    "Fe³⁺",
    "1/2 m v^2",
];
const FRENCH: &[&str] = &[
    "énergie",
    "chaleur",
    "récursive",
    "fonction",
    "élève",
    "Terminale",
    "Première",
    "corrigé",
    "exercice",
    "liste",
    "tableau",
    "algorithme",
    "température",
    "sujet 10",
    "BNS 2021",
    "arbre",
    "complexité",
    "théorème",
    "ÉNERGIE",
    "cœur",
];
const HINTS: &[&str] = &[
    "mark scheme",
    "answer",
    "Paper 2",
    "question 3",
    "O-Level",
    "Table 4.1",
    "definition of",
    "what is",
    "define",
    "chapter 5",
    "worked example",
    "glossary",
    "solution",
    "college",
    "high school",
];
const PUNCT: &[&str] = &[
    "?", "!!", "...", "—", "«", "»", "(", ")", "'", "\"", ";", ",", "-", "/", "*", "#", "&&", "::",
];
const ODD: &[&str] = &[
    "\u{200b}",
    "\u{202e}evil",
    "\u{0000}",
    "\t",
    "\n",
    "caf\u{0065}\u{0301}",
    "Straße",
    "теплота",
    "热量",
    "حرارة",
    "🔥",
    "\u{feff}heat",
    "ＨＥＡＴ",
];

/// The fixture's vocabulary: the distinct alphanumeric words of 3 to 20 characters, sorted, of
/// the chunks of one subject and level (or of every chunk, for `None`).
pub fn vocabulary(pair: Option<(&str, &str)>) -> Vec<String> {
    let mut set = BTreeSet::new();
    for line in SPINE.lines() {
        let v: Value = serde_json::from_str(line).expect("fixture line");
        if let Some((subject, level)) = pair {
            if v["subject"] != subject || v["level"] != level {
                continue;
            }
        }
        let text = v["text"].as_str().unwrap_or("");
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            let n = w.chars().count();
            if (3..=20).contains(&n) {
                set.insert(w.to_string());
            }
        }
    }
    set.into_iter().collect()
}

fn word(rng: &mut Rng, vocab: &[String]) -> String {
    match rng.below(100) {
        0..=64 => rng.pick(vocab).clone(),
        65..=68 => rng.pick(vocab).to_uppercase(),
        69..=74 => rng.pick(STOPWORDS).to_string(),
        75..=78 => rng.pick(DIGITS).to_string(),
        79..=83 => rng.pick(FORMULAS).to_string(),
        84..=88 => rng.pick(FRENCH).to_string(),
        89..=92 => rng.pick(HINTS).to_string(),
        93..=95 => rng.pick(PUNCT).to_string(),
        _ => rng.pick(ODD).to_string(),
    }
}

fn query(rng: &mut Rng, vocab: &[String]) -> String {
    match rng.below(100) {
        0..=3 => String::new(),
        4 => "   \t ".into(),
        5 => {
            // Very long: past the 16 KiB the engine reads.
            let mut q = String::new();
            while q.len() < 17_000 {
                q.push_str(rng.pick(vocab).as_str());
                q.push(' ');
            }
            q
        }
        6 => {
            // Many distinct words: past the 256 terms the engine reads.
            let start = rng.below(vocab.len());
            (0..300)
                .map(|i| vocab[(start + i * 7) % vocab.len()].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }
        7 => rng.pick(vocab).repeat(200),
        _ => {
            let n = 1 + rng.below(6);
            let sep = [" ", " ", " ", "  ", ", ", "-", "\u{a0}"];
            let mut q = String::new();
            for i in 0..n {
                if i > 0 {
                    q.push_str(rng.pick::<&str>(&sep));
                }
                q.push_str(&word(rng, vocab));
            }
            q
        }
    }
}

fn facet(rng: &mut Rng, lib_facets: &[(String, Vec<String>)], field: &str) -> Option<String> {
    lib_facets
        .iter()
        .find(|(f, _)| f == field)
        .filter(|(_, vals)| !vals.is_empty())
        .map(|(_, vals)| rng.pick(vals).clone())
}

/// A random scope, and the index of the shard it was drawn from.
fn scope(rng: &mut Rng, out: &BuildOutput) -> (Value, usize) {
    let shards = &out.manifest.shards;
    let mut s = Map::new();
    let at = rng.below(shards.len());
    let shard = &shards[at];
    // Facet values of the chosen shard, or (sometimes) of any shard: the latter may empty the gate.
    let other = rng.pick(shards);
    let facets: Vec<(String, Vec<String>)> = (if rng.chance(75) { shard } else { other })
        .facets
        .iter()
        .map(|(f, c)| (f.clone(), c.keys().cloned().collect()))
        .collect();
    match rng.below(100) {
        0..=59 => {
            s.insert("subject".into(), json!(shard.subject));
            s.insert("level".into(), json!(shard.level));
        }
        60..=69 => {
            s.insert("subject".into(), json!(shard.subject));
        }
        70..=74 => {
            s.insert("level".into(), json!(shard.level));
        }
        75..=84 => {}
        85..=92 => {
            // Valid values that never meet (e.g. physics at premiere): the gate admits nothing.
            s.insert("subject".into(), json!(shard.subject));
            s.insert("level".into(), json!(other.level));
        }
        _ => {
            // Values the manifest does not know: an error naming the valid ones.
            let bad = *rng.pick(&["chimie", "lycee", "Physics", " physics ", "", "math"]);
            let field = *rng.pick(&["subject", "level", "doc_type", "lang", "exam"]);
            s.insert(field.into(), json!(bad));
        }
    }
    for (field, percent) in [
        ("doc_type", 25),
        ("chapter", 12),
        ("year", 8),
        ("paper", 5),
        ("exam", 6),
        ("lang", 8),
        ("question_number", 6),
        ("section", 5),
        ("topic", 4),
    ] {
        if !rng.chance(percent) {
            continue;
        }
        let value = match field {
            "topic" => json!(rng.pick(&["thermodynamics", "énergie", "recursion"])),
            "chapter" | "year" | "question_number" | "section" if rng.chance(30) => {
                // A number, sometimes one no chunk has.
                json!(*rng.pick(&[1u64, 2, 3, 5, 11, 14, 2023, 99]))
            }
            _ => match facet(rng, &facets, field) {
                Some(v) => json!(v),
                None => continue,
            },
        };
        s.insert(field.into(), value);
    }
    (Value::Object(s), at)
}

fn options(rng: &mut Rng) -> Value {
    let mut o = Map::new();
    if rng.chance(90) {
        let v = *rng.pick(&["A", "B", "B+", "C", "D", "E", "F"]);
        o.insert("variant".into(), json!(v));
    }
    if rng.chance(85) {
        o.insert(
            "k".into(),
            json!(*rng.pick(&[1u64, 2, 3, 5, 8, 8, 10, 20, 50])),
        );
    }
    if rng.chance(8) {
        let g = *rng.pick(&["gated", "ungated", "post_filtered"]);
        o.insert("gating".into(), json!(g));
    }
    if rng.chance(20) {
        o.insert("allow_fallback".into(), json!(true));
    }
    if rng.chance(8) {
        o.insert("expand_chars".into(), json!(*rng.pick(&[0u64, 200, 2000])));
    }
    if rng.chance(8) {
        o.insert("snippet_chars".into(), json!(*rng.pick(&[16u64, 60, 300])));
    }
    if rng.chance(8) {
        o.insert("dense_weight".into(), json!(*rng.pick(&[0.0, 0.5, 1.0])));
    }
    if rng.chance(20) {
        // The dense path switched on (F's is off by default) or off (A–E's are on).
        o.insert("dense".into(), json!(rng.chance(75)));
    }
    if rng.chance(5) {
        o.insert("rrf_k".into(), json!(*rng.pick(&[0.0, 10.0, 60.5])));
    }
    if rng.chance(5) {
        o.insert("window".into(), json!(*rng.pick(&[1u64, 5, 200])));
    }
    if rng.chance(5) {
        o.insert("k_min".into(), json!(*rng.pick(&[0u64, 3, 8])));
    }
    if rng.chance(30) {
        // As the page and the embed ask: snippets only, no full text.
        o.insert("text".into(), json!(!rng.chance(80)));
    }
    if rng.chance(3) {
        // Invalid options are refused with a message, the same everywhere.
        match rng.below(3) {
            0 => o.insert("k".into(), json!(0)),
            1 => o.insert("variant".into(), json!("Z")),
            _ => o.insert("colour".into(), json!("red")),
        };
    }
    Value::Object(o)
}

/// The [`CASES`] cases, drawn from [`SEED`]; `fixture` provides the scope values.
pub fn cases(fixture: &Fixture) -> Vec<Case> {
    let all = vocabulary(None);
    let per_shard = fixture.shard_vocabularies();
    let mut rng = Rng::new(SEED);
    (0..CASES)
        .map(|_| {
            let setup = match rng.below(10) {
                0..=3 => Setup::Lexical,
                4..=7 => Setup::Dense,
                _ => Setup::DenseNoModel,
            };
            let (scope, shard) = scope(&mut rng, fixture.output(setup));
            let vocab = if rng.chance(85) {
                &per_shard[shard]
            } else {
                &all
            };
            let query = query(&mut rng, vocab);
            let options = options(&mut rng);
            Case {
                query,
                scope,
                options,
                setup,
            }
        })
        .collect()
}

/// `s` with the content hashes of data file names (`name.<16 hex>.chsr`, `.chsrm`) replaced by
/// `*`: a shard's bytes are pinned by the build lines, so a format change that leaves results
/// alone leaves the case digests alone.
pub fn unhash(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b.len() >= i + 18
            && b[i] == b'.'
            && b[i + 1..i + 17].iter().all(|c| c.is_ascii_hexdigit())
            && s[i + 17..].starts_with(".chsr");
        if hex {
            out.push_str(".*");
            i += 17;
        } else {
            let c = s[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A JSON value as a canonical string: object keys sorted, every number written as the bits of
/// its f64 (so a score that differs in its last bit differs here), strings JSON-escaped (with
/// [`unhash`]).
/// `trace.timings` (wall-clock) is left out. Zero is written without its sign (a JS round trip
/// turns -0 into 0).
pub fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push('n'),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Number(n) => {
            let f = n.as_f64().expect("a JSON number is an f64");
            let f = if f == 0.0 { 0.0 } else { f };
            out.push_str(&format!("#{:016x}", f.to_bits()));
        }
        Value::String(s) => out.push_str(&serde_json::to_string(&unhash(s)).unwrap()),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            let mut keys: Vec<&String> = m.keys().filter(|k| *k != "timings").collect();
            keys.sort();
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap());
                out.push(':');
                canonical(&m[*k], out);
            }
            out.push('}');
        }
    }
}

/// The canonical text of an outcome: the response (as JSON) and its context, or the error.
pub fn outcome_text(response: Result<(Value, String), String>) -> String {
    match response {
        Ok((resp, context)) => {
            let mut s = String::from("ok ");
            canonical(&resp, &mut s);
            s.push_str(" context ");
            s.push_str(&serde_json::to_string(&context).unwrap());
            s
        }
        Err(e) => format!("error {e}"),
    }
}

/// Runs a case through the library API (`Scope::from_json`, `SearchOptions::from_json`,
/// `Library::search`, `Library::to_context`): the canonical outcome text.
pub fn run_library(lib: &Library, case: &Case) -> String {
    let r = (|| {
        let scope = Scope::from_json(&case.scope).map_err(|e| e.to_string())?;
        let opts = SearchOptions::from_json(&case.options).map_err(|e| e.to_string())?;
        let resp = lib
            .search(&case.query, &scope, &opts)
            .map_err(|e| e.to_string())?;
        let context = lib.to_context(&resp);
        Ok((serde_json::to_value(&resp).unwrap(), context))
    })();
    outcome_text(r)
}

/// The golden line of a case: index, set-up, digest of the outcome, and a short summary (result
/// count or `error`) for readable diffs.
pub fn case_line(i: usize, case: &Case, outcome: &str) -> String {
    let summary = if let Some(rest) = outcome.strip_prefix("error ") {
        format!("error {}", rest.chars().take(40).collect::<String>())
    } else {
        let v: usize = outcome.matches("\"rank\":").count();
        format!("{v} results")
    };
    format!(
        "{i:03} {} {} {}",
        case.setup.name(),
        &sha256_hex(outcome.as_bytes())[..16],
        summary.replace('\n', " ")
    )
}

/// The golden file's lines that are not comments.
pub fn golden_lines() -> Vec<&'static str> {
    GOLDEN
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect()
}

/// The header of the golden file.
pub const HEADER: &str = "\
# Native/Wasm parity digests (tests/parity/mod.rs): one line per random case,
# `index set-up digest summary`; the digest is a 64-bit prefix of the SHA-256 of the canonical
# outcome (every field of the response except timings, scores as f64 bits, the context, or the
# error). Checked by `cargo test --test wasm_parity` and by tests/wasm.rs under Node and
# headless Chromium. Rewrite after an intended change: CHSR_BLESS=1 cargo test --test wasm_parity
";

/// Compares computed lines with the golden ones; on a difference, describes the first few
/// (with the case and the beginning of its canonical outcome) in the error.
pub fn compare(
    got: &[String],
    cases: &[Case],
    outcomes: &[String],
    what: &str,
) -> Result<(), String> {
    let want = golden_lines();
    let mut msg = String::new();
    let mut bad = 0;
    if got.len() != want.len() {
        msg.push_str(&format!(
            "{what}: {} lines, golden has {}\n",
            got.len(),
            want.len()
        ));
        bad += 1;
    }
    let manifests = got.len() - cases.len();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            bad += 1;
            if bad <= 5 {
                msg.push_str(&format!("{what}: got  {g}\n{what}: want {w}\n"));
                if let Some(c) = i.checked_sub(manifests).and_then(|j| cases.get(j)) {
                    let o = &outcomes[i - manifests];
                    msg.push_str(&format!(
                        "  case: query {:?} scope {} options {}\n  outcome: {}\n",
                        c.query.chars().take(120).collect::<String>(),
                        c.scope,
                        c.options,
                        o.chars().take(600).collect::<String>()
                    ));
                }
            }
        }
    }
    if bad == 0 {
        Ok(())
    } else {
        Err(format!("{bad} line(s) differ from {GOLDEN_PATH}\n{msg}"))
    }
}
