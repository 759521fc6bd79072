//! `explain`: each verdict forced on a small fixture.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::explain::{explain, Explanation};
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions, Variant};

fn line(id: &str, subject: &str, doc_type: &str, text: &str) -> String {
    serde_json::json!({
        "id": id, "text": text, "subject": subject, "level": "college", "lang": "en",
        "doc_type": doc_type, "section_key": format!("{subject}:1.{}", id.len() % 3), "chapter": 1,
    })
    .to_string()
}

fn library() -> Library {
    let mut lines = vec![
        line(
            "p:dup:a",
            "physics",
            "textbook_section",
            "Specific heat of water is high compared with metals and air.",
        ),
        line(
            "p:dup:b",
            "physics",
            "textbook_section",
            "Specific heat of water is high compared with metals and air.",
        ),
        line(
            "p:far",
            "physics",
            "textbook_section",
            "Entropy of the universe never decreases.",
        ),
        line(
            "p:gloss",
            "physics",
            "glossary",
            "calorimetry: measurement of heat flow with a calorimeter; specific heat appears",
        ),
        line(
            "c:metals",
            "chemistry",
            "textbook_section",
            "Specific heat of metals is low.",
        ),
    ];
    // Twelve chunks with decreasing use of the words, so ranks 1..12 exist.
    for i in 0..12 {
        // Distinct words per chunk keep them from being near-duplicates of each other.
        let own: String = (0..12).map(|j| format!("topic{i}word{j} ")).collect();
        let text = format!(
            "{} heat transfer {own}{}",
            "specific heat ".repeat(12 - i),
            "filler ".repeat(i + 1)
        );
        lines.push(line(&format!("p:r{i:02}"), "physics", "exercise", &text));
    }
    common::library_from_lines("explain.jsonl", &lines)
}

fn physics() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
}

fn all_ids(lib: &Library) -> Vec<String> {
    lib.loaded()
        .flat_map(|s| s.chunks().iter().map(|c| c.id.clone()))
        .collect()
}

/// Variant `v` with a first page of 8 results.
fn top8(v: Variant) -> SearchOptions {
    SearchOptions {
        k: 8,
        ..SearchOptions::for_variant(v)
    }
}

/// The verdicts on `expect` of a search for `query` in college physics.
fn explain_physics(
    lib: &Library,
    query: &str,
    opts: &SearchOptions,
    expect: &[String],
) -> Explanation {
    explain(lib, query, &physics(), opts, expect).unwrap()
}

#[test]
fn gate_verdicts_name_the_excluding_field() {
    let lib = library();
    let opts = SearchOptions::for_variant(Variant::C);
    let ex = explain_physics(&lib, "specific heat", &opts, &["c:metals".into()]);
    assert_eq!(ex.chunks[0].verdict, "gate");
    assert_eq!(ex.chunks[0].excluded_by.as_deref(), Some("subject"));
    let scope = physics().with(Field::DocType, "exercise");
    let ex = explain(
        &lib,
        "specific heat",
        &scope,
        &opts,
        &["p:gloss".into(), "nope".into()],
    )
    .unwrap();
    assert_eq!(ex.chunks[0].verdict, "gate");
    assert_eq!(ex.chunks[0].excluded_by.as_deref(), Some("doc_type"));
    assert_eq!(ex.chunks[1].verdict, "unknown");
}

#[test]
fn a_chunk_without_shared_terms_is_a_candidate_recall_loss() {
    let lib = library();
    let ex = explain_physics(
        &lib,
        "specific heat",
        &SearchOptions::for_variant(Variant::C),
        &["p:far".into()],
    );
    let v = &ex.chunks[0];
    assert_eq!(v.verdict, "candidate_recall");
    assert!(v.admitted && v.bm25_rank.is_none() && v.dense_rank.is_none());
}

#[test]
fn the_ninth_is_lost_by_fusion_and_the_first_is_found() {
    let lib = library();
    let ex = explain_physics(&lib, "specific heat", &top8(Variant::C), &all_ids(&lib));
    let ninth = ex
        .chunks
        .iter()
        .find(|c| c.fused_rank == Some(9))
        .expect("a 9th candidate");
    assert_eq!(ninth.verdict, "fusion", "{ninth:?}");
    let first = ex.chunks.iter().find(|c| c.fused_rank == Some(1)).unwrap();
    assert_eq!(first.verdict, "found@1");
    assert_eq!(ex.response.results[0].id, first.id);
}

#[test]
fn near_duplicates_are_attributed_to_dedup() {
    let lib = library();
    let ex = explain_physics(
        &lib,
        "water metals air",
        &SearchOptions::for_variant(Variant::D),
        &["p:dup:a".into(), "p:dup:b".into()],
    );
    assert_eq!(ex.chunks[0].verdict, "found@1");
    assert_eq!(ex.chunks[1].verdict, "dedup");
    assert_eq!(ex.chunks[1].duplicate_of.as_deref(), Some("p:dup:a"));
}

#[test]
fn a_chunk_pushed_below_the_cut_is_a_rerank_loss() {
    let lib = library();
    // A definition request lifts the glossary entry to the top (variant E), pushing the 8th
    // fused candidate below the cut.
    let ex = explain_physics(
        &lib,
        "what is specific heat",
        &top8(Variant::E),
        &all_ids(&lib),
    );
    let gloss = ex.chunks.iter().find(|c| c.id == "p:gloss").unwrap();
    assert!(
        gloss.fused_rank.unwrap() > 1 && gloss.final_rank == Some(1),
        "{gloss:?}"
    );
    let pushed: Vec<_> = ex.chunks.iter().filter(|c| c.verdict == "rerank").collect();
    assert!(!pushed.is_empty(), "{:?}", ex.chunks);
    for c in pushed {
        assert!(c.fused_rank.unwrap() <= 8 && c.final_rank.is_none());
    }
}

#[test]
fn an_ungated_search_gates_nothing_and_a_post_filter_does() {
    let lib = library();
    // Ungated (B): the chemistry chunk is a candidate like any other; whatever happens to it,
    // the gate did not lose it.
    let ex = explain_physics(
        &lib,
        "specific heat",
        &top8(Variant::B),
        &["c:metals".into()],
    );
    let v = &ex.chunks[0];
    assert!(v.admitted && v.excluded_by.is_none(), "{v:?}");
    assert!(v.bm25_rank.is_some(), "{v:?}");
    assert_ne!(v.verdict, "gate");
    // Post-filtered (B+): the same search, then the post-filter drops it for its subject.
    let ex = explain_physics(
        &lib,
        "specific heat",
        &top8(Variant::BPlus),
        &["c:metals".into()],
    );
    let v = &ex.chunks[0];
    assert_eq!(v.verdict, "gate", "{v:?}");
    assert_eq!(v.excluded_by.as_deref(), Some("subject"));
}

#[test]
fn a_prebuilt_locator_gives_the_same_explanation() {
    let lib = library();
    let locator = chsr::explain::Locator::new(&lib);
    let mut expect = all_ids(&lib);
    expect.push("nope".into());
    for v in [Variant::B, Variant::BPlus, Variant::C, Variant::E] {
        let opts = SearchOptions::for_variant(v);
        for scope in [physics(), physics().with(Field::DocType, "exercise")] {
            let a = explain(&lib, "specific heat", &scope, &opts, &expect).unwrap();
            let b = chsr::explain::explain_located(
                &lib,
                &locator,
                "specific heat",
                &scope,
                &opts,
                &expect,
            )
            .unwrap();
            assert_eq!(a.chunks, b.chunks, "{v:?}");
        }
    }
}
