//! The dense path with a deterministic test embedder (hashed bag of words, 64 dimensions):
//! deterministic HNSW shards, the plan chosen by the gate, never fewer than k results when k
//! admissible chunks exist, graph recall against exact search, model mismatch.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::{build_with, BuildOptions, BuildOutput, Embedder};
use chsr::corpus::parse_jsonl;
use chsr::dense::{exact_all, graph_all, DenseConfig, DenseShard, Plan};
use chsr::format::{decode_dense_part, decode_shard, Field, QVec};
use chsr::scope::Scope;
use chsr::search::{Library, QueryEmbedder, SearchOptions, Variant};
use common::SPINE;
use proptest::prelude::*;

const DIMS: usize = 64;
/// Stands in for a model file (its SHA-256 identifies the "model").
const FAKE_MODEL: &[u8] = b"hashed-bag-of-words-64";

fn hashed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIMS];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(0xcbf29ce484222325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100000001b3)
            });
        v[(h % DIMS as u64) as usize] += if h & 1 == 0 { 1.0 } else { -1.0 };
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
    v
}

struct Hashed(String);
impl QueryEmbedder for Hashed {
    fn model_sha256(&self) -> &str {
        &self.0
    }
    fn embed_query(&self, q: &str) -> Vec<f32> {
        hashed(q)
    }
}

fn build_dense(opts: &BuildOptions) -> BuildOutput {
    let chunks = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let embed = |t: &str| hashed(t);
    let e = Embedder {
        model_id: "test:hashed-bow-64".into(),
        file: FAKE_MODEL,
        dims: DIMS,
        embed: &embed,
    };
    build_with(&chunks, opts, Some(&e))
}

fn library(out: &BuildOutput) -> Library {
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            lib.load_file(file, bytes).unwrap();
        }
    }
    lib.set_embedder(Box::new(Hashed(
        out.manifest.model.as_ref().unwrap().sha256.clone(),
    )));
    lib
}

#[test]
fn dense_shards_are_byte_identical_across_builds() {
    let a = build_dense(&BuildOptions::default());
    let b = build_dense(&BuildOptions::default());
    for (x, y) in a.shards.iter().zip(&b.shards) {
        assert_eq!(x.bytes, y.bytes, "{}", x.entry.file);
    }
    let m = a.manifest.model.as_ref().unwrap();
    assert_eq!(m.dims, DIMS as u32);
    assert!(m.file.starts_with("model.") && m.file.ends_with(".chsrm"));
    let d = decode_dense_part(a.shards[0].dense_bytes.as_ref().unwrap(), true)
        .unwrap()
        .index;
    assert_eq!(
        (d.dims, d.ef_search, d.model_sha256.as_str()),
        (DIMS as u32, 128, m.sha256.as_str())
    );
}

#[test]
fn a_selective_gate_scans_exactly_and_a_broad_one_uses_the_graph() {
    let out = build_dense(&BuildOptions::default());
    let lib = library(&out);
    let chem = Scope::new()
        .with(Field::Subject, "chemistry")
        .with(Field::Level, "college");
    let mut opts = SearchOptions::for_variant(Variant::A);
    let r = lib.search("specific heat of water", &chem, &opts).unwrap();
    assert_eq!(
        r.trace.dense_plans,
        vec![Plan::Exact],
        "91 chunks is under the exact-scan threshold"
    );
    assert_eq!(r.results.len(), 8);
    assert!(r
        .results
        .iter()
        .all(|h| h.dense_rank.is_some() && h.bm25_rank.is_none()));
    opts.dense = DenseConfig {
        exact_max: 0,
        exact_fraction: 0.0,
    };
    let r = lib.search("specific heat of water", &chem, &opts).unwrap();
    assert_eq!(r.trace.dense_plans, vec![Plan::Graph]);
}

#[test]
fn a_graph_that_returns_too_few_admissible_hits_falls_back_to_an_exact_scan() {
    // ef_search 4: the graph returns 4 neighbours; with 8 wanted, the plan must scan exactly.
    let out = build_dense(&BuildOptions {
        ef_search: 4,
        ..Default::default()
    });
    let lib = library(&out);
    let opts = SearchOptions {
        dense: DenseConfig {
            exact_max: 0,
            exact_fraction: 0.0,
        },
        ..SearchOptions::for_variant(Variant::A)
    };
    let chem = Scope::new()
        .with(Field::Subject, "chemistry")
        .with(Field::Level, "college");
    let r = lib.search("calorimeter", &chem, &opts).unwrap();
    assert_eq!(r.trace.dense_plans, vec![Plan::GraphThenExact]);
    assert_eq!(r.results.len(), 8);
}

#[test]
fn graph_recall_against_exact_search() {
    let out = build_dense(&BuildOptions::default());
    let chunks = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let (mut hit, mut total) = (0usize, 0usize);
    for s in &out.shards {
        let p = decode_shard(&s.bytes).unwrap();
        let d = decode_dense_part(s.dense_bytes.as_ref().unwrap(), true)
            .unwrap()
            .index;
        let shard = DenseShard::new(d.decode_graph(p.chunks.len()).unwrap(), d.dims as usize);
        for c in chunks
            .iter()
            .filter(|c| c.record.subject == p.subject)
            .take(20)
        {
            let q = QVec::quantize(&hashed(&c.record.text));
            let exact = exact_all(&shard, &q, 10);
            let graph = graph_all(&shard, &q, 10);
            total += exact.len();
            hit += exact.iter().filter(|d| graph.contains(d)).count();
        }
    }
    let recall = hit as f64 / total as f64;
    assert!(recall >= 0.95, "HNSW recall@10 {recall:.3}");
}

#[test]
fn a_model_from_another_build_is_refused_and_the_lexical_path_still_answers() {
    let out = build_dense(&BuildOptions::default());
    let mut lib = library(&out);
    lib.set_embedder(Box::new(Hashed("not-the-model".into())));
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college");
    let r = lib
        .search(
            "specific heat",
            &scope,
            &SearchOptions::for_variant(Variant::C),
        )
        .unwrap();
    assert!(!r.results.is_empty());
    common::assert_note(&r, "not the loaded model");
    let e = lib.load_model(b"garbage").unwrap_err().to_string();
    assert!(e.contains("SHA-256 mismatch"), "{e}");
}

/// Lexical first: a shard searches without its dense part (the trace says the vectors are not
/// loaded yet); once the part is attached the results are those of a library that loaded both
/// at once.
#[test]
fn a_shard_searches_lexically_until_its_dense_part_arrives() {
    let out = build_dense(&BuildOptions::default());
    let full = library(&out);
    let mut lib = Library::new(out.manifest.clone());
    lib.set_embedder(Box::new(Hashed(
        out.manifest.model.as_ref().unwrap().sha256.clone(),
    )));
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college");
    let s = out
        .shards
        .iter()
        .find(|s| s.entry.subject == "physics" && s.entry.level == "college")
        .unwrap();
    let part = s
        .entry
        .dense
        .clone()
        .expect("a dense build writes a dense part");
    assert!(
        lib.dense_needed().is_empty(),
        "no shard loaded, no part needed"
    );
    lib.load_shard(&s.entry.file, &s.bytes).unwrap();
    let list = s.entry.part_list.as_ref().expect("the text lives in parts");
    lib.load_part_list(&list.file, s.part_list_bytes.as_ref().unwrap())
        .unwrap();
    for (t, bytes) in s.text.iter().zip(&s.text_bytes) {
        lib.load_text(&t.file, bytes).unwrap();
    }
    assert_eq!(lib.dense_needed(), vec![part.clone()]);
    assert!(!lib.is_loaded(&part.file));
    let opts = SearchOptions::for_variant(Variant::D);
    let before = lib.search("specific heat of water", &scope, &opts).unwrap();
    assert!(!before.results.is_empty());
    assert!(before.results.iter().all(|h| h.dense_rank.is_none()));
    assert!(
        before
            .trace
            .notes
            .iter()
            .any(|n| n.contains("vectors not loaded yet") && n.contains(&part.file)),
        "{:?}",
        before.trace.notes
    );
    lib.load_dense(&part.file, s.dense_bytes.as_ref().unwrap())
        .unwrap();
    assert!(lib.is_loaded(&part.file) && lib.dense_needed().is_empty());
    let after = lib.search("specific heat of water", &scope, &opts).unwrap();
    let want = full
        .search("specific heat of water", &scope, &opts)
        .unwrap();
    let ids = |r: &chsr::search::SearchResponse| {
        r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>()
    };
    assert_eq!(ids(&after), ids(&want));
    assert!(after.results.iter().any(|h| h.dense_rank.is_some()));
}

/// A dense part is checked like a shard (manifest SHA-256, its own frame) and must belong to
/// the loaded shard: every way of getting it wrong is a clear error, and the shard keeps working.
#[test]
fn a_dense_part_that_does_not_belong_is_refused() {
    let out = build_dense(&BuildOptions::default());
    let (a, b) = (&out.shards[0], &out.shards[1]);
    let (pa, pb) = (
        a.entry.dense.clone().unwrap(),
        b.entry.dense.clone().unwrap(),
    );
    let bytes_a = a.dense_bytes.clone().unwrap();
    let mut lib = Library::new(out.manifest.clone());
    // Before its shard.
    let e = lib.load_dense(&pa.file, &bytes_a).unwrap_err().to_string();
    assert!(e.contains("load the shard first"), "{e}");
    lib.load_shard(&a.entry.file, &a.bytes).unwrap();
    // Not in the manifest.
    let e = lib
        .load_dense("nope.vec.chsr", &bytes_a)
        .unwrap_err()
        .to_string();
    assert!(e.contains("lists no file"), "{e}");
    // Another shard's bytes under this name: SHA-256 mismatch.
    let e = lib
        .load_dense(&pa.file, b.dense_bytes.as_ref().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("SHA-256 mismatch"), "{e}");
    // Truncated: the frame says so.
    let e = lib
        .load_dense(&pa.file, &bytes_a[..bytes_a.len() / 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("truncated"), "{e}");
    // A consistent manifest that pairs shard A with B's vectors (a mixed-up deploy).
    let mut m = out.manifest.clone();
    m.shards[0].dense = Some(pb.clone());
    let mut mixed = Library::new(m);
    mixed.load_shard(&a.entry.file, &a.bytes).unwrap();
    let e = mixed
        .load_dense(&pb.file, b.dense_bytes.as_ref().unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("different builds"), "{e}");
    assert_eq!(mixed.dense_needed(), vec![pb]);
    // The shard still answers lexically after every refusal.
    let scope = Scope::new()
        .with(Field::Subject, a.entry.subject.clone())
        .with(Field::Level, a.entry.level.clone());
    let r = lib
        .search("heat", &scope, &SearchOptions::for_variant(Variant::C))
        .unwrap();
    assert!(r.results.len() <= 8);
    lib.load_dense(&pa.file, &bytes_a).unwrap();
    assert!(lib.dense_needed().is_empty());
}

/// The dense path is skipped per shard when the shard's lexicon holds no query term: widening
/// from a level that knows none of the words does not bring back that level's nearest vectors
/// (noise) next to the other level's real matches, whichever dense parts are loaded.
#[test]
fn a_widened_pass_adds_no_vector_noise_from_the_level_that_knows_no_term() {
    let out = build_dense(&BuildOptions::default());
    let hs = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "high_school");
    let opts = SearchOptions::for_variant(Variant::E);
    let mut partial = Library::new(out.manifest.clone());
    partial.set_embedder(Box::new(Hashed(
        out.manifest.model.as_ref().unwrap().sha256.clone(),
    )));
    for s in out.shards.iter().filter(|s| s.entry.subject == "physics") {
        partial.load_shard(&s.entry.file, &s.bytes).unwrap();
        if s.entry.level == "high_school" {
            let part = s.entry.dense.as_ref().unwrap();
            partial
                .load_dense(&part.file, s.dense_bytes.as_ref().unwrap())
                .unwrap();
        }
    }
    for lib in [library(&out), partial] {
        let r = lib.search("sublimation", &hs, &opts).unwrap();
        assert!(!r.results.is_empty());
        assert!(
            r.results
                .iter()
                .all(|h| h.level == "college" && h.leakage != chsr::search::Leakage::InScope),
            "{:?}",
            r.results
                .iter()
                .map(|h| (&h.id, &h.leakage))
                .collect::<Vec<_>>()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Whatever the plan, a dense search with an in-vocabulary query returns min(k, admissible)
    /// results, all admissible.
    #[test]
    fn never_fewer_than_k_when_k_admissible_exist(
        doc_type in prop::option::of(0usize..4),
        words in prop::collection::vec(0usize..12, 1..5),
        k in 1usize..20,
        forced_graph in any::<bool>(),
    ) {
        static FIX: std::sync::OnceLock<(BuildOutput, Library)> = std::sync::OnceLock::new();
        let (_, lib) = FIX.get_or_init(|| {
            let out = build_dense(&BuildOptions { ef_search: 8, ..Default::default() });
            let lib = library(&out);
            (out, lib)
        });
        let types = ["textbook_section", "exercise", "solution", "glossary"];
        let mut scope = Scope::new().with(Field::Subject, "physics").with(Field::Level, "college");
        if let Some(i) = doc_type { scope.set(Field::DocType, types[i]); }
        let mut opts = SearchOptions { k, ..SearchOptions::for_variant(Variant::A) };
        if forced_graph { opts.dense = DenseConfig { exact_max: 0, exact_fraction: 0.0 }; }
        // Words that occur in the physics/college chunks of the fixture.
        let vocab = ["heat", "specific", "temperature", "water", "energy", "mass", "capacity",
            "change", "transfer", "thermal", "substance", "heat"];
        let query: Vec<&str> = words.iter().map(|&w| vocab[w]).collect();
        let r = lib.search(&query.join(" "), &scope, &opts).unwrap();
        let admissible = r.trace.admissible;
        prop_assert_eq!(r.results.len(), k.min(admissible));
        for h in &r.results {
            prop_assert!(h.in_scope);
        }
    }
}
