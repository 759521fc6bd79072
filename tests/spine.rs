//! The spine end to end: corpus → shards → gated search, natively.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::format::{decode_shard, encode_shard, Field, FormatError, FORMAT_VERSION, HEADER_LEN};
use chsr::gate;
use chsr::scope::Scope;
use chsr::search::{Gating, Leakage, LoadError, SearchError, SearchOptions, Variant};
use common::*;
use proptest::prelude::*;

fn variant_opts(v: Variant, k: usize) -> SearchOptions {
    SearchOptions {
        k,
        ..SearchOptions::for_variant(v)
    }
}

#[test]
fn one_shard_per_subject_level_with_facets() {
    let out = build_fixture();
    let pairs: Vec<(String, String)> = out
        .manifest
        .shards
        .iter()
        .map(|s| (s.subject.clone(), s.level.clone()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            ("chemistry".into(), "college".into()),
            ("informatique (NSI)".into(), "premiere".into()),
            ("informatique (NSI)".into(), "terminale".into()),
            ("physics".into(), "college".into()),
            ("physics".into(), "high_school".into()),
        ]
    );
    assert_eq!(out.manifest.chunks, 288);
    let chem = &out.manifest.shards[0];
    assert_eq!(chem.chunks, 91);
    assert!(chem.file.starts_with("chemistry--college.") && chem.file.ends_with(".chsr"));
    assert_eq!(chem.sha256, chsr::format::sha256_hex(&out.shards[0].bytes));
    let doc_types = &chem.facets["doc_type"];
    assert_eq!(doc_types.values().sum::<u64>(), 91);
    assert!(doc_types.contains_key("solution"));
    let nsi = &out.manifest.shards[2];
    assert!(nsi.facets["year"].contains_key("2023"), "{:?}", nsi.facets);
}

#[test]
fn builds_are_byte_identical() {
    let a = build_fixture();
    let b = build_fixture();
    assert_eq!(a.manifest.to_json(), b.manifest.to_json());
    for (x, y) in a.shards.iter().zip(&b.shards) {
        assert_eq!(x.bytes, y.bytes, "{}", x.entry.file);
    }
    // Input order does not matter either.
    let mut lines: Vec<&str> = SPINE.lines().collect();
    lines.reverse();
    let reversed = chsr::corpus::parse_jsonl("r.jsonl", &lines.join("\n")).unwrap();
    let c = chsr::build::build(&reversed, &Default::default());
    assert_eq!(a.manifest, c.manifest);
}

#[test]
fn shard_round_trip() {
    let out = build_fixture();
    for s in &out.shards {
        let payload = decode_shard(&s.bytes).unwrap();
        assert_eq!(encode_shard(&payload), s.bytes);
        assert_eq!(payload.chunks.len() as u64, s.entry.chunks);
    }
}

/// Heavy near-duplicate pairs leave the shard for its text parts (format v13); light ones stay.
#[test]
fn heavy_pairs_leave_the_shard_for_its_text_parts() {
    let chunks = chsr::corpus::parse_jsonl("spine.jsonl", SPINE).unwrap();
    let opts = chsr::build::BuildOptions {
        pairs_inline_bytes: 0,
        ..Default::default()
    };
    let (split, whole) = (chsr::build::build(&chunks, &opts), build_fixture());
    let pairs = |out: &chsr::build::BuildOutput| -> usize {
        let shards = out.shards.iter().map(|s| decode_shard(&s.bytes).unwrap());
        shards.map(|p| p.near_duplicates.len()).sum()
    };
    assert!(pairs(&whole) > 0, "the fixture's pairs stay in its shards");
    assert_eq!(pairs(&split), 0);
    // The same search over either build.
    let q = "specific heat of water";
    let scope = Scope::new().with(Field::Subject, "physics");
    let opts = variant_opts(Variant::F, 10);
    let ids = |out: &chsr::build::BuildOutput| -> Vec<String> {
        let r = library(out).search(q, &scope, &opts).unwrap();
        r.results.iter().map(|h| h.id.clone()).collect()
    };
    assert_eq!(ids(&split), ids(&whole));
}

#[test]
fn corrupted_truncated_and_foreign_shards_are_refused() {
    let out = build_fixture();
    let good = &out.shards[1].bytes;
    // Truncated at every interesting point: inside the header and inside the payload.
    for cut in [0, 4, 8, 12, 30, HEADER_LEN, HEADER_LEN + 10, good.len() - 1] {
        let e = decode_shard(&good[..cut]).unwrap_err();
        assert!(
            matches!(e, FormatError::Magic | FormatError::Truncated { .. }),
            "cut at {cut}: {e:?}"
        );
    }
    // A flipped payload byte.
    let mut bad = good.clone();
    let mid = HEADER_LEN + (bad.len() - HEADER_LEN) / 2;
    bad[mid] ^= 0x40;
    assert_eq!(
        decode_shard(&bad).unwrap_err(),
        FormatError::ChecksumMismatch
    );
    // Another format version.
    let mut old = good.clone();
    old[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = decode_shard(&old).unwrap_err();
    assert_eq!(
        e,
        FormatError::Version {
            found: FORMAT_VERSION + 1,
            expected: FORMAT_VERSION
        }
    );
    assert!(e.to_string().contains("rebuild with `chsr build`"));
    // Not a shard at all.
    assert_eq!(
        decode_shard(b"<html>404</html>").unwrap_err(),
        FormatError::Magic
    );
    // Through the library: the manifest checksum catches it first, with the precise reason.
    let mut lib = chsr::search::Library::new(out.manifest.clone());
    let file = &out.shards[1].entry.file;
    match lib.load_shard(file, &good[..good.len() / 2]) {
        Err(LoadError::Format {
            error: FormatError::Truncated { .. },
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    // Valid shard, wrong file: integrity error.
    match lib.load_shard(file, &out.shards[0].bytes) {
        Err(LoadError::Integrity { .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        lib.load_shard("nope.chsr", good),
        Err(LoadError::UnknownFile(_))
    ));
    assert!(lib.load_shard(file, good).is_ok());
}

#[test]
fn gated_search_reads_only_the_scope_shard() {
    let out = build_fixture();
    let mut lib = chsr::search::Library::new(out.manifest.clone());
    let scope = Scope::new()
        .with(Field::Subject, "chemistry")
        .with(Field::Level, "college");
    let needed = lib.shards_needed(&scope, Gating::Gated);
    assert_eq!(needed.len(), 1);
    assert_eq!(needed[0].subject, "chemistry");
    let e = lib
        .search("heat", &scope, &SearchOptions::default())
        .unwrap_err();
    assert!(matches!(e, SearchError::NotLoaded(_)));
    lib.load_shard(&needed[0].file, &out.shards[0].bytes)
        .unwrap();
    let r = lib
        .search("specific heat", &scope, &SearchOptions::default())
        .unwrap();
    assert_eq!(r.results.len(), 8);
    assert!(r
        .results
        .iter()
        .all(|h| h.subject == "chemistry" && h.source.as_deref() == Some("chem2e")));
    assert_eq!(r.trace.shards, vec![needed[0].file.clone()]);
    assert_eq!(r.trace.admissible, 91);
    // Ungated needs every shard.
    assert_eq!(lib.shards_needed(&scope, Gating::Ungated).len(), 4);
}

#[test]
fn unknown_scope_values_list_the_valid_ones() {
    let out = build_fixture();
    let lib = library(&out);
    let e = lib
        .search(
            "x",
            &Scope::new().with(Field::Subject, "chimie"),
            &SearchOptions::default(),
        )
        .unwrap_err()
        .to_string();
    assert_eq!(e, "unknown subject \"chimie\"; valid values: \"chemistry\", \"informatique (NSI)\", \"physics\"");
    let e = lib
        .search(
            "x",
            &Scope::new()
                .with(Field::Subject, "physics")
                .with(Field::Level, "premiere"),
            &SearchOptions::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("\"college\", \"high_school\"") && !e.contains("terminale"),
        "{e}"
    );
    let e = lib
        .search(
            "x",
            &Scope::new().with(Field::DocType, "essay"),
            &SearchOptions::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("unknown doc_type \"essay\"") && e.contains("\"solution\""),
        "{e}"
    );
}

#[test]
fn empty_gate_and_empty_query_are_explained() {
    let lib = library(&build_fixture());
    let scope = Scope::new()
        .with(Field::Subject, "chemistry")
        .with(Field::QuestionNumber, "9999");
    let r = lib
        .search("heat", &scope, &SearchOptions::default())
        .unwrap();
    assert!(r.results.is_empty());
    assert_eq!(r.trace.admissible, 0);
    common::assert_note(&r, "gate admitted no chunk");
    let scope = Scope::new().with(Field::Subject, "chemistry");
    let r = lib
        .search("zzzqqq", &scope, &SearchOptions::default())
        .unwrap();
    assert!(r.results.is_empty());
    assert!(r
        .trace
        .notes
        .iter()
        .any(|n| n.contains("none matches the query")));
    // Only stopwords: browse the scope instead of failing.
    let r = lib
        .search("the of and", &scope, &SearchOptions::default())
        .unwrap();
    assert!(r.trace.browse);
    assert_eq!(r.results.len(), 8);
    assert!(r.results.iter().all(|h| h.subject == "chemistry"));
}

#[test]
fn post_filter_keeps_the_in_scope_subsequence_of_ungated() {
    let lib = library(&build_fixture());
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college");
    for q in [
        "specific heat",
        "heat transfer conduction",
        "temperature change",
    ] {
        let k = 10;
        let un = lib.search(q, &scope, &variant_opts(Variant::B, k)).unwrap();
        let pf = lib
            .search(q, &scope, &variant_opts(Variant::BPlus, k))
            .unwrap();
        let expect: Vec<&str> = un
            .results
            .iter()
            .filter(|h| h.in_scope)
            .map(|h| h.id.as_str())
            .collect();
        let got: Vec<&str> = pf.results.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(got, expect, "{q}");
    }
    // The ungated pool really spans subjects: "specific heat" leaks chemistry into physics.
    let un = lib
        .search("specific heat", &scope, &variant_opts(Variant::B, 20))
        .unwrap();
    assert!(un.results.iter().any(|h| h.subject == "chemistry"));
}

#[test]
fn golden_results_match() {
    // The same file is checked by the Wasm test (tests/wasm.rs): same ids natively and in Wasm.
    let lib = library(&build_fixture());
    let mut actual = Vec::new();
    for (q, scope, opts) in golden_cases() {
        let r = lib.search(&q, &scope, &opts).unwrap();
        actual.push(serde_json::json!({
            "query": q,
            "ids": r.results.iter().map(|h| h.id.clone()).collect::<Vec<_>>(),
        }));
    }
    let actual = serde_json::to_string_pretty(&actual).unwrap() + "\n";
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/golden_search.json"
    );
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &actual).unwrap();
    }
    let expected =
        std::fs::read_to_string(path).expect("golden file (regenerate with UPDATE_GOLDEN=1)");
    assert_eq!(
        actual, expected,
        "search results changed; if intended, rerun with UPDATE_GOLDEN=1"
    );
}

fn facet_values(out: &chsr::build::BuildOutput, field: &str) -> Vec<String> {
    let mut v: Vec<String> = out
        .manifest
        .shards
        .iter()
        .filter_map(|s| s.facets.get(field))
        .flat_map(|m| m.keys().cloned())
        .collect();
    v.sort();
    v.dedup();
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The invariant of the whole design: a gated search never returns a chunk outside its scope,
    /// never more than k, and never panics, whatever the scope and query.
    #[test]
    fn gated_results_never_leave_the_scope(
        subject in prop::option::of(0usize..3),
        level in prop::option::of(0usize..4),
        doc_type in prop::option::of(0usize..12),
        chapter in prop::option::of(0usize..6),
        year in prop::option::of(0usize..4),
        words in prop::collection::vec(0usize..40, 0..6),
        noise in "[a-zé ²^_$\\\\{}]{0,12}",
        k in 1usize..30,
    ) {
        static FIX: std::sync::OnceLock<(chsr::build::BuildOutput, chsr::search::Library)> =
            std::sync::OnceLock::new();
        let (out, lib) = FIX.get_or_init(|| {
            let out = build_fixture();
            let lib = library(&out);
            (out, lib)
        });
        let subjects = ["chemistry", "physics", "informatique (NSI)"];
        let levels = ["college", "high_school", "premiere", "terminale"];
        let doc_types = facet_values(out, "doc_type");
        let chapters = ["1", "5", "11", "14", "1.1", "99"];
        let years = ["2021", "2023", "2025", "1999"];
        let vocab = ["heat", "specific", "temperature", "water", "energy", "calorimeter", "variable",
            "fonction", "liste", "conduction", "the", "mass", "joule", "ΔT", "mv²", "q=mcΔT",
            "exercice", "solution", "gas", "liquide", "1", "2023", "température", "code", "python",
            "metal", "ice", "steam", "radiation", "convection", "capacity", "change", "phase",
            "kelvin", "celsius", "degree", "boucle", "affectation", "récursivité", "arbre"];
        let mut scope = Scope::new();
        if let Some(i) = subject { scope.set(Field::Subject, subjects[i]); }
        if let Some(i) = level { scope.set(Field::Level, levels[i]); }
        if let Some(i) = doc_type { scope.set(Field::DocType, doc_types[i % doc_types.len()].clone()); }
        if let Some(i) = chapter { scope.set(Field::Chapter, chapters[i]); }
        if let Some(i) = year { scope.set(Field::Year, years[i]); }
        let mut query: String = words.iter().map(|&w| vocab[w]).collect::<Vec<_>>().join(" ");
        query.push_str(&noise);
        let variant = [Variant::C, Variant::D, Variant::E][k % 3];
        let opts = variant_opts(variant, k);
        match lib.search(&query, &scope, &opts) {
            Ok(r) => {
                prop_assert!(r.results.len() <= k);
                for h in &r.results {
                    let shard = lib.loaded().find(|s| s.chunks().iter().any(|c| c.id == h.id)).unwrap();
                    let c = shard.chunks().iter().find(|c| c.id == h.id).unwrap();
                    if variant == Variant::E && h.leakage != Leakage::InScope {
                        // Only relaxation may go outside, and it says so.
                        prop_assert!(!h.in_scope);
                        prop_assert!(!gate::admits(&scope, c));
                    } else {
                        prop_assert!(gate::admits(&scope, c), "{} outside {} ({:?})", h.id, scope, variant);
                        prop_assert!(h.in_scope);
                        prop_assert_eq!(h.leakage, Leakage::InScope);
                    }
                }
                prop_assert!(r.trace.admissible <= r.trace.pool_chunks);
            }
            // Only an invalid scope (e.g. physics/premiere) may fail, with a scope error.
            Err(SearchError::Scope(_)) => {}
            Err(e) => prop_assert!(false, "unexpected error {e}"),
        }
    }
}

/// The pickers' counts are what their definition says, for scopes of one to four fields: for a
/// field other than subject and level, the chunks with each value among those the scope without
/// that field admits (every shard loaded, so the counts are exact), and the scope's own value
/// listed even when nothing has it.
#[test]
fn facet_counts_are_the_chunks_the_rest_of_the_scope_admits() {
    let (_, lib) = fixture();
    let chunks: Vec<chsr::format::ChunkRecord> = chsr::corpus::parse_jsonl("spine.jsonl", SPINE)
        .expect("fixture parses")
        .into_iter()
        .map(|c| c.record)
        .collect();
    let mut scopes = vec![Scope::new()];
    for c in chunks.iter().step_by(7) {
        let base = Scope::new().with(Field::Subject, c.subject.as_str());
        scopes.push(base.clone());
        let both = base.with(Field::Level, c.level.as_str());
        scopes.push(both.clone());
        scopes.push(both.clone().with(Field::DocType, c.doc_type.as_str()));
        if let Some(ch) = &c.chapter {
            scopes.push(both.clone().with(Field::Chapter, ch.as_str()));
        }
        if let Some(y) = &c.year {
            let s = Scope::new()
                .with(Field::Subject, c.subject.as_str())
                .with(Field::DocType, c.doc_type.as_str())
                .with(Field::Year, y.as_str());
            scopes.push(s.clone().with(Field::Level, c.level.as_str()));
            scopes.push(s);
        }
    }
    // A value no chunk has: listed with count 0, the other fields counted without it.
    scopes.push(phys_college().with(Field::Year, "1999"));
    let mut narrowed = 0;
    for scope in &scopes {
        for facet in lib.facets(scope) {
            let field = Field::parse(&facet.field).expect("a known field");
            if matches!(field, Field::Subject | Field::Level) {
                continue;
            }
            assert!(facet.exact, "{scope:?} {field:?}: every shard is loaded");
            let mut rest = scope.clone();
            rest.fields.remove(&field);
            let mut want: std::collections::BTreeMap<String, u64> = Default::default();
            for c in &chunks {
                let v = c.get(field).map(str::trim).unwrap_or("");
                if !v.is_empty() && gate::admits(&rest, c) {
                    *want.entry(v.to_string()).or_default() += 1;
                }
            }
            if let Some(v) = scope.get(field) {
                want.entry(v.to_string()).or_default();
            }
            let got: std::collections::BTreeMap<String, u64> = facet
                .values
                .iter()
                .map(|v| (v.value.clone(), v.count))
                .collect();
            assert_eq!(got.len(), facet.values.len(), "values listed once");
            assert_eq!(got, want, "{scope:?}, {field:?}");
            narrowed += usize::from(rest.fields.len() > 2);
        }
    }
    assert!(
        scopes.len() > 100 && narrowed > 50,
        "{} scopes, {narrowed}",
        scopes.len()
    );
}
