//! Locks, natively (the same property runs in Wasm: `tests/wasm.rs`): a locked field is never
//! left by a result, an expanded chunk, the context or a section, under every variant, gating,
//! trigger and widening setting (see `tests/lockprop/mod.rs`).

mod lockprop;
use lockprop as locks;

use chsr::build::{build, BuildOptions};
use chsr::corpus::parse_jsonl;
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Library, SearchOptions};

fn library() -> Library {
    let out = build(
        &parse_jsonl("spine.jsonl", locks::SPINE).unwrap(),
        &BuildOptions::default(),
    );
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            lib.load_file(file, bytes).unwrap();
        }
    }
    lib
}

#[test]
fn no_surface_ever_leaves_a_lock() {
    let lib = library();
    let (mut checked, mut widened, mut withheld, mut results) = (0, 0, 0, 0);
    for case in locks::cases() {
        let scope = Scope::from_json(&case.scope).unwrap();
        let opts = SearchOptions::from_json(&case.options).unwrap();
        let resp = match lib.search(&case.query, &scope, &opts) {
            Ok(r) => r,
            Err(e) => panic!("{e} in {case:?}"),
        };
        let context = lib.to_context(&resp);
        let json = serde_json::to_value(&resp).unwrap();
        checked += locks::check(&case, &json, Some(&context));
        results += resp.results.len();
        widened += usize::from(resp.trace.relaxation.as_ref().is_some_and(|r| r.widened));
        withheld += resp.trace.withheld;
        // A section asked for by id, and context for shown ids, hold the lock too.
        let shown: Vec<String> = resp.results.iter().map(|h| h.id.clone()).collect();
        if let Some(first) = shown.first() {
            let sec = lib
                .section(first, &scope)
                .expect("a shown result's section");
            let sec = serde_json::to_value(&sec).unwrap();
            let as_results = serde_json::json!({"results": sec["chunks"], "trace": {}});
            checked += locks::check(&case, &as_results, None);
        }
        let (ctx, _) = lib.context_for(&shown, &scope);
        assert_eq!(
            ctx.matches("[DOCUMENT ").count(),
            shown.len(),
            "shown ids are admissible"
        );
    }
    // The property is not vacuous: many chunks checked, widening and withholding both happened.
    assert!(
        results > 400 && checked > 1000,
        "{results} results, {checked} chunks checked"
    );
    assert!(widened > 10, "only {widened} searches widened");
    assert!(withheld > 10, "only {withheld} chunks withheld");
}

#[test]
fn a_lock_blocks_each_widening_step_with_a_note() {
    let lib = library();
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
        .with(Field::Chapter, "5")
        .lock(Field::Chapter)
        .lock(Field::Level);
    let mut opts = SearchOptions::from_json(&serde_json::json!({
        "variant": "F", "allow_fallback": true, "widen_ratio": 0.0, "level_ratio": 0.0
    }))
    .unwrap();
    opts.k = 20;
    // A query whose material lies in chapter 14 (heat), not in the locked chapter 5.
    let resp = lib
        .search("specific heat of water calorimetry", &scope, &opts)
        .unwrap();
    let r = resp.trace.relaxation.unwrap();
    let step = |s: &str| r.steps.iter().find(|x| x.step == s).unwrap().clone();
    assert_eq!(
        step("W1").note,
        "skipped: chapter locked: a better match lies outside the lock"
    );
    assert!(
        step("W1").blocked_by_lock,
        "the lock, not the evidence, kept W1 from running"
    );
    assert_eq!(r.case, "locked");
    assert!(step("W2").note.starts_with("skipped: the level is locked"));
    assert!(resp
        .results
        .iter()
        .all(|h| h.chapter.as_deref() == Some("5")));
    // Unlocked, the same search widens to chapter 14.
    let open = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
        .with(Field::Chapter, "5");
    let resp = lib
        .search("specific heat of water calorimetry", &open, &opts)
        .unwrap();
    assert!(resp
        .results
        .iter()
        .any(|h| h.chapter.as_deref() == Some("14")));
}

#[test]
fn a_lock_that_blocks_nothing_is_not_reported_as_blocking() {
    let lib = library();
    let scope = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college")
        .with(Field::Chapter, "14")
        .lock(Field::Chapter);
    let resp = lib
        .search(
            "specific heat of water calorimetry",
            &scope,
            &SearchOptions::default(),
        )
        .unwrap();
    let r = resp.trace.relaxation.unwrap();
    assert!(r.steps.iter().all(|s| !s.blocked_by_lock), "{:?}", r.steps);
    assert_ne!(r.case, "locked");
}

#[test]
fn expansion_respects_doc_type_and_year_and_says_what_it_withheld() {
    let lib = library();
    let scope = Scope::new()
        .with(Field::Subject, "chemistry")
        .with(Field::DocType, "exercise");
    let opts = SearchOptions::from_json(&serde_json::json!({
        "variant": "D", "expand_chars": 100000, "k": 5
    }))
    .unwrap();
    let resp = lib.search("heat calorimeter", &scope, &opts).unwrap();
    assert!(!resp.results.is_empty());
    for h in &resp.results {
        for e in &h.expanded {
            assert_eq!(e.doc_type, "exercise", "{} expanded {}", h.id, e.id);
        }
    }
    assert!(resp.trace.withheld > 0, "the sections hold other doc types");
    // Without the doc type, the same sections expand to more chunks.
    let wide = Scope::new().with(Field::Subject, "chemistry");
    let all = lib.search("heat calorimeter", &wide, &opts).unwrap();
    assert!(all
        .results
        .iter()
        .any(|h| h.expanded.iter().any(|e| e.doc_type != "exercise")));
}

#[test]
fn a_lock_on_nothing_and_an_unknown_lock_are_errors() {
    let e = Scope::from_json(&serde_json::json!({"subject": "physics", "lock": ["chapter"]}))
        .unwrap_err();
    assert_eq!(e.code(), "scope.bad_value");
    assert!(e.to_string().contains("chapter is locked"), "{e}");
    let e = Scope::from_json(&serde_json::json!({"chapter": "5", "lock": "colour"})).unwrap_err();
    assert_eq!(e.code(), "scope.unknown_field");
    let ok = Scope::from_json(&serde_json::json!({"chapter": 5, "lock": "chapter"})).unwrap();
    assert!(ok.is_locked(Field::Chapter));
    assert_eq!(ok.to_json()["lock"], serde_json::json!(["chapter"]));
}
