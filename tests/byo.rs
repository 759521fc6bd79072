//! Bring your own vectors: a corpus with precomputed document vectors, queries with a vector
//! from the same model, and the clear errors around it.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::{build, BuildOptions};
use chsr::corpus::{check_vectors, parse_jsonl};
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchError, SearchOptions, Variant};
use serde_json::json;

fn line(id: &str, text: &str, v: &[f32]) -> String {
    json!({"id": id, "text": text, "subject": "physics", "level": "college", "lang": "en",
           "doc_type": "textbook_section", "vector": v, "vector_model": "acme/embed-4"})
    .to_string()
}

fn library() -> Library {
    let text = [
        line("a", "heat flows by conduction", &[1.0, 0.0, 0.0, 0.0]),
        line("b", "light bends by refraction", &[0.0, 1.0, 0.0, 0.0]),
        line("c", "charges attract or repel", &[0.0, 0.0, 1.0, 0.0]),
    ]
    .join("\n");
    let chunks = parse_jsonl("byo.jsonl", &text).unwrap();
    assert_eq!(
        check_vectors(&chunks).unwrap(),
        Some(("acme/embed-4".to_string(), 4))
    );
    let out = build(&chunks, &BuildOptions::default());
    let spec = out.manifest.query_vectors.clone().unwrap();
    assert_eq!((spec.model_id.as_str(), spec.dims), ("acme/embed-4", 4));
    assert!(out.manifest.model.is_none());
    common::library(&out)
}

fn scope() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
}

fn opts(v: serde_json::Value) -> SearchOptions {
    SearchOptions::from_json(&v).unwrap()
}

#[test]
fn a_query_vector_from_the_same_model_drives_the_dense_path() {
    let lib = library();
    let o = opts(
        json!({"variant": "A", "query_vector": [0.1, 0.9, 0.0, 0.0], "vector_model": "acme/embed-4", "k": 1}),
    );
    // The query text shares no term with "b"; the vector points at it.
    let r = lib.search("optics", &scope(), &o).unwrap();
    assert_eq!(
        r.results.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        vec!["b"]
    );
}

#[test]
fn the_default_variant_uses_a_callers_query_vector_unless_told_not_to() {
    // F is lexical-only by default; a query vector asks for its dense list.
    let lib = library();
    let v = json!({"query_vector": [0.1, 0.9, 0.0, 0.0], "vector_model": "acme/embed-4", "k": 3});
    let r = lib.search("heat", &scope(), &opts(v.clone())).unwrap();
    assert!(r.trace.dense_path && !r.trace.dense_plans.is_empty());
    assert!(r.results.iter().any(|h| h.dense_rank.is_some()));
    let mut off = v;
    off["dense"] = json!(false);
    let r = lib.search("heat", &scope(), &opts(off)).unwrap();
    assert!(!r.trace.dense_path && r.trace.dense_plans.is_empty());
    assert!(r.results.iter().all(|h| h.dense_rank.is_none()));
    // Without a vector, the default searches by keywords only.
    let r = lib
        .search("heat", &scope(), &opts(json!({"k": 3})))
        .unwrap();
    assert!(!r.trace.dense_path && r.trace.dense_plans.is_empty());
    assert_eq!(r.results[0].id, "a");
}

#[test]
fn mismatched_vectors_are_clear_errors() {
    let lib = library();
    let e = lib
        .search(
            "x",
            &scope(),
            &opts(json!({"query_vector": [1.0, 0.0], "vector_model": "acme/embed-4"})),
        )
        .unwrap_err();
    assert!(
        matches!(&e, SearchError::Option(m) if m.contains("2 dimensions") && m.contains("have 4")),
        "{e}"
    );
    let e = lib
        .search(
            "x",
            &scope(),
            &opts(json!({"query_vector": [1.0, 0.0, 0.0, 0.0], "vector_model": "other"})),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("\"other\"") && e.contains("acme/embed-4"), "{e}");
    let e = lib
        .search(
            "x",
            &scope(),
            &opts(json!({"query_vector": [1.0, 0.0, 0.0, 0.0]})),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("vector_model is required"), "{e}");
    // Without a query vector the dense path says what it needs, and BM25 still answers.
    let r = lib
        .search(
            "conduction",
            &scope(),
            &SearchOptions::for_variant(Variant::C),
        )
        .unwrap();
    assert_eq!(r.results[0].id, "a");
    common::assert_note(&r, "pass query_vector");
}

#[test]
fn corpus_vectors_must_be_all_or_none_of_one_model_and_size() {
    let mixed = [
        line("a", "x", &[1.0, 0.0, 0.0, 0.0]),
        line("b", "y", &[1.0, 0.0]),
    ]
    .join("\n");
    let e = check_vectors(&parse_jsonl("m.jsonl", &mixed).unwrap())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "m.jsonl:2: field `vector`: 2 dimensions, but m.jsonl:1 has 4"
    );
    let none = json!({"id": "c", "text": "z", "subject": "physics", "level": "college", "lang": "en", "doc_type": "x"});
    let partial = format!("{}\n{}", line("a", "x", &[1.0, 0.0, 0.0, 0.0]), none);
    let e = check_vectors(&parse_jsonl("p.jsonl", &partial).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("p.jsonl:2: field `vector`: missing"), "{e}");
    let bad = r#"{"id":"a","text":"x","subject":"s","level":"l","lang":"en","doc_type":"d","vector":[1,"x"],"vector_model":"m"}"#;
    let e = parse_jsonl("b.jsonl", bad).unwrap_err().to_string();
    assert_eq!(
        e,
        "b.jsonl:1: field `vector`: component 1 is not a finite number"
    );
    let no_model = r#"{"id":"a","text":"x","subject":"s","level":"l","lang":"en","doc_type":"d","vector":[1]}"#;
    let e = parse_jsonl("n.jsonl", no_model).unwrap_err().to_string();
    assert!(
        e.starts_with("n.jsonl:1: field `vector_model`: required"),
        "{e}"
    );
}
