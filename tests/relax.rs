//! Relaxation with the evidence trigger (variant E's default): a student on the wrong chapter is
//! widened to the right one, with labels; a student on the right chapter is not; a label the
//! query names decides; locks hold; another level's shards are asked for only when the scope's
//! level matches nothing. The paper's four-case trigger is tested in tests/pipeline.rs.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::format::Field;
use chsr::relax::Trigger;
use chsr::scope::Scope;
use chsr::search::{Leakage, Library, SearchOptions, SearchResponse, Variant};

/// (id, level, chapter, section, doc type, label, text)
const CHUNKS: &[(&str, &str, &str, &str, &str, &str, &str)] = &[
    (
        "pc:1.1:1",
        "college",
        "1",
        "pc:1.1",
        "textbook_section",
        "",
        "Kinematics describes motion with displacement, velocity and acceleration.",
    ),
    (
        "pc:1.1:2",
        "college",
        "1",
        "pc:1.1",
        "textbook_section",
        "",
        "Velocity is the rate of change of displacement with time.",
    ),
    (
        "pc:1.1:3",
        "college",
        "1",
        "pc:1.1",
        "exercise",
        "",
        "A car's speed increases uniformly from rest: find its acceleration.",
    ),
    (
        "pc:2.1:1",
        "college",
        "2",
        "pc:2.1",
        "textbook_section",
        "",
        "Bernoulli's equation relates the pressure, speed and height of a flowing fluid.",
    ),
    (
        "pc:2.1:2",
        "college",
        "2",
        "pc:2.1",
        "textbook_section",
        "",
        "Bernoulli's principle: where a fluid flows faster, its pressure is lower.",
    ),
    (
        "pc:2.1:3",
        "college",
        "2",
        "pc:2.1",
        "exercise",
        "",
        "Use Bernoulli's equation to find the pressure in a pipe where the fluid speed doubles.",
    ),
    (
        "pc:2.2:1",
        "college",
        "2",
        "pc:2.2",
        "table",
        "Table 2.1",
        "Densities of common substances: water, mercury, air, ice.",
    ),
    (
        "ph:1.1:1",
        "high_school",
        "1",
        "ph:1.1",
        "textbook_section",
        "",
        "A thermometer needs calibration against fixed points: melting ice and boiling water.",
    ),
    (
        "ph:1.1:2",
        "high_school",
        "1",
        "ph:1.1",
        "exercise",
        "",
        "Describe the calibration of a thermometer with two fixed points.",
    ),
    (
        "ph:1.1:3",
        "high_school",
        "1",
        "ph:1.1",
        "textbook_section",
        "",
        "Thermometer calibration: the fixed points of a thermometer scale.",
    ),
];

/// The fixture's shards: the college physics shard always, the high-school one when `all`.
fn library(all: bool) -> Library {
    let out = built();
    let mut lib = library_without_terms(&out, all);
    lib.load_terms(out.terms_file.as_ref().unwrap()).unwrap();
    lib
}

/// The fixture's build.
fn built() -> BuildOutput {
    let lines: Vec<String> = CHUNKS
        .iter()
        .map(|(id, level, chapter, section, doc_type, label, text)| {
            let mut c = serde_json::json!({
                "id": id, "text": text, "subject": "physics", "level": level, "lang": "en",
                "doc_type": doc_type, "chapter": chapter, "section_key": section,
            });
            if !label.is_empty() {
                c["label"] = serde_json::json!(label);
            }
            c.to_string()
        })
        .collect();
    build(
        &parse_jsonl("relax.jsonl", &lines.join("\n")).unwrap(),
        &BuildOptions::default(),
    )
}

/// The college shard (and the high-school one when `all`) loaded, as a page has them before
/// any widening: the term-filter file not fetched yet.
fn library_without_terms(out: &BuildOutput, all: bool) -> Library {
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        if all || s.entry.level == "college" {
            for (file, bytes) in s.files() {
                lib.load_file(file, bytes).unwrap();
            }
        }
    }
    lib
}

fn scope(chapter: Option<&str>) -> Scope {
    let s = Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "college");
    match chapter {
        Some(c) => s.with(Field::Chapter, c),
        None => s,
    }
}

fn search(lib: &Library, q: &str, scope: &Scope, opts: &SearchOptions) -> SearchResponse {
    lib.search(q, scope, opts).unwrap()
}

const BERNOULLI: &str = "Bernoulli equation: pressure and speed of a fluid";

#[test]
fn a_wrong_chapter_widens_to_the_right_one_with_cross_topic_labels() {
    let lib = library(true);
    let e = SearchOptions::for_variant(Variant::F);
    let r = search(&lib, BERNOULLI, &scope(Some("1")), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(
        (relax.trigger.as_str(), relax.case.as_str()),
        ("evidence", "stronger_outside_topic")
    );
    assert!(relax.widened);
    assert_eq!(relax.steps[0].step, "W1");
    assert_eq!(relax.steps[0].dropped, vec!["chapter"]);
    let ev = relax.evidence.as_ref().unwrap();
    let (inside, outside) = (
        ev.in_scope.as_ref().unwrap(),
        ev.cross_topic.as_ref().unwrap(),
    );
    assert!(outside[0] > 2.0 * inside[0], "{ev:?}");
    // Chapter 2's section leads, labelled.
    assert_eq!(r.results[0].chapter.as_deref(), Some("2"));
    for h in &r.results {
        let want = if h.chapter.as_deref() == Some("1") {
            Leakage::InScope
        } else {
            Leakage::CrossTopic
        };
        assert_eq!(h.leakage, want, "{}", h.id);
        assert_eq!(h.in_scope, want == Leakage::InScope);
        assert_eq!(h.level, "college", "W1 keeps the level");
    }
    // Chapter 1's own match holds a single common word ("speed"): the scope's evidence is weak
    // and that card is withheld as padding (src/search/weak.rs).
    let weak = r.trace.weak_evidence.as_ref().unwrap();
    assert!(weak.weak && weak.dropped == 1, "{weak:?}");
    assert!(!r.results.iter().any(|h| h.id == "pc:1.1:3"));
    // The other level's shard is loaded but has nothing better: W2 compared and did not run.
    let w2 = relax.steps.iter().find(|s| s.step == "W2").unwrap();
    assert!(
        w2.dropped.is_empty() && w2.note.starts_with("not needed"),
        "{}",
        w2.note
    );
}

#[test]
fn the_right_chapter_does_not_widen() {
    let lib = library(true);
    let r = search(
        &lib,
        BERNOULLI,
        &scope(Some("2")),
        &SearchOptions::for_variant(Variant::F),
    );
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(relax.case, "strong_in_scope");
    assert!(!relax.widened && relax.pending_shards.is_empty());
    assert!(relax.steps.iter().all(|s| s.dropped.is_empty()));
    assert!(!r.results.is_empty());
    assert!(r
        .results
        .iter()
        .all(|h| h.leakage == Leakage::InScope && h.chapter.as_deref() == Some("2")));
}

#[test]
fn the_ratio_decides_and_the_paper_trigger_keeps_the_wrong_chapter() {
    let lib = library(true);
    // Ratios no evidence reaches: nothing is widened (and the wrong chapter's weak match, a
    // single common word, is withheld as padding).
    let strict = SearchOptions {
        widen_ratio: 1000.0,
        mix_ratio: 1000.0,
        ..SearchOptions::for_variant(Variant::F)
    };
    let r = search(&lib, BERNOULLI, &scope(Some("1")), &strict);
    assert!(!r.trace.relaxation.as_ref().unwrap().widened);
    assert!(r.results.iter().all(|h| h.leakage == Leakage::InScope));
    // In the ambiguous band, in-scope and widened results alternate, in-scope first.
    let band = SearchOptions {
        widen_ratio: 1000.0,
        mix_ratio: 1.0,
        ..SearchOptions::for_variant(Variant::F)
    };
    let r = search(&lib, BERNOULLI, &scope(Some("1")), &band);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(relax.case, "comparable_outside_topic");
    let labels: Vec<Leakage> = r.results.iter().map(|h| h.leakage).collect();
    // (Chapter 1's only match, first, is withheld as padding under weak evidence: the widened
    // results remain, in their order.)
    assert!(r.trace.weak_evidence.as_ref().unwrap().weak);
    assert!(
        labels.iter().all(|l| *l == Leakage::CrossTopic),
        "{labels:?}"
    );
    // The paper's case 2: results in the requested subject, so no widening.
    let paper = SearchOptions {
        trigger: Trigger::Paper,
        ..SearchOptions::for_variant(Variant::F)
    };
    let r = search(&lib, BERNOULLI, &scope(Some("1")), &paper);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(
        (relax.trigger.as_str(), relax.case.as_str()),
        ("paper", "enough_in_subject")
    );
    assert!(!relax.widened && relax.evidence.is_none());
    assert_eq!(
        r.results.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["pc:1.1:3"]
    );
}

#[test]
fn a_label_named_in_the_query_decides_w1() {
    let lib = library(true);
    let e = SearchOptions::for_variant(Variant::F);
    let q = "Table 2.1 densities";
    let r = search(&lib, q, &scope(Some("2")), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert!(!relax.widened);
    assert_eq!(
        relax.evidence.as_ref().unwrap().label.as_deref(),
        Some("in_scope")
    );
    let r = search(&lib, q, &scope(Some("1")), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert!(relax.widened, "{relax:?}");
    assert_eq!(
        relax.evidence.as_ref().unwrap().label.as_deref(),
        Some("outside_topic")
    );
    assert_eq!(r.results[0].id, "pc:2.2:1");
    assert_eq!(r.results[0].leakage, Leakage::CrossTopic);
}

#[test]
fn another_level_widens_only_on_stronger_evidence_and_never_past_a_lock() {
    let lib = library(true);
    let e = SearchOptions::for_variant(Variant::F);
    let q = "thermometer calibration fixed points";
    let r = search(&lib, q, &scope(None), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(relax.case, "stronger_other_level");
    assert_eq!(relax.steps[1].dropped, vec!["level"]);
    assert!(!r.results.is_empty());
    assert!(r
        .results
        .iter()
        .all(|h| h.leakage == Leakage::CrossLevel && h.level == "high_school" && !h.in_scope));
    // A document type pins the request: the level is never dropped, however strong.
    let typed = scope(None).with(Field::DocType, "exercise");
    let r = search(&lib, q, &typed, &e);
    common::assert_blocked_by_doc_type(&r);
    assert!(r.results.iter().all(|h| h.level == "college"));
}

#[test]
fn the_term_filters_are_asked_for_first_then_only_the_shards_they_let_through() {
    let out = built();
    let terms = out.manifest.terms.clone().expect("physics has two levels");
    assert!(
        out.manifest.shards.iter().all(|s| s.terms.is_none()),
        "not inline any more"
    );
    let mut lib = library_without_terms(&out, false);
    assert!(!lib.terms_loaded() && !lib.is_loaded(&terms.file));
    let e = SearchOptions::for_variant(Variant::F);
    // Nothing at the college level matches: the filters are what to load first.
    let r = search(&lib, "thermometer calibration", &scope(None), &e);
    assert_eq!(
        r.trace.relaxation.as_ref().unwrap().pending_shards,
        vec![terms.file.clone()]
    );
    // A locked level never asks for another level's shards; without the filters it is not
    // known whether the lock stopped anything: not claimed, and the filters are asked for.
    let locked = scope(None).lock(Field::Level);
    let w2_blocked = |lib: &Library| {
        let r = search(lib, "thermometer calibration", &locked, &e);
        let relax = r.trace.relaxation.unwrap();
        let w2 = relax.steps.iter().find(|s| s.step == "W2").unwrap();
        (w2.blocked_by_lock, relax.pending_shards.clone())
    };
    assert_eq!(w2_blocked(&lib), (false, vec![terms.file.clone()]));
    // A damaged file is refused and changes nothing.
    let mut bad = out.terms_file.clone().unwrap();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let err = lib.load_terms(&bad).unwrap_err().to_string();
    assert!(
        err.contains(&terms.file) && err.contains("corrupted"),
        "{err}"
    );
    assert!(!lib.terms_loaded());
    lib.load_file(&terms.file, out.terms_file.as_ref().unwrap())
        .unwrap();
    assert!(lib.terms_loaded() && lib.is_loaded(&terms.file));
    let r = search(&lib, "thermometer calibration", &scope(None), &e);
    let pending = &r.trace.relaxation.as_ref().unwrap().pending_shards;
    assert!(
        pending.len() == 1 && pending[0].contains("high-school"),
        "{pending:?}"
    );
    // With them, the lock is known to have kept the matching level out; nothing to load.
    assert_eq!(w2_blocked(&lib), (true, vec![]));
    // Words no shard holds: the filters rule the other level out, nothing to load.
    let r = search(&lib, "zzyzx qwertyuiop", &scope(None), &e);
    assert!(r
        .trace
        .relaxation
        .as_ref()
        .unwrap()
        .pending_shards
        .is_empty());
}

#[test]
fn other_levels_are_requested_only_when_the_level_matches_nothing() {
    let lib = library(false);
    let e = SearchOptions::for_variant(Variant::F);
    let r = search(&lib, "thermometer calibration", &scope(None), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert_eq!(relax.case, "no_match_in_level");
    assert_eq!(relax.pending_shards.len(), 1);
    assert!(
        relax.pending_shards[0].contains("high-school"),
        "{:?}",
        relax.pending_shards
    );
    // The level matches: nothing to download, nothing widened.
    let r = search(&lib, BERNOULLI, &scope(None), &e);
    let relax = r.trace.relaxation.as_ref().unwrap();
    assert!(relax.pending_shards.is_empty() && !relax.widened);
    let w2 = relax.steps.iter().find(|s| s.step == "W2").unwrap();
    assert!(w2.note.starts_with("not compared"), "{}", w2.note);
}

#[test]
fn options_name_the_trigger_and_its_ratios() {
    let o = SearchOptions::from_json(&serde_json::json!({
        "trigger": "paper", "k_min": 3, "widen_ratio": 3.5, "level_ratio": 6
    }))
    .unwrap();
    assert_eq!(
        (o.trigger, o.k_min, o.widen_ratio, o.level_ratio),
        (Trigger::Paper, 3, 3.5, 6.0)
    );
    assert_eq!(SearchOptions::default().trigger, Trigger::Evidence);
    for bad in [
        serde_json::json!({"trigger": "counts"}),
        serde_json::json!({"widen_ratio": -1}),
        serde_json::json!({"level_ratio": "high"}),
    ] {
        assert!(SearchOptions::from_json(&bad).is_err(), "{bad}");
    }
}
