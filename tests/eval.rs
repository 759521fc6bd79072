//! End-to-end checks of the evaluation harness on a tiny fixture corpus (20 chunks over
//! 2 subjects × 2 levels, 6 queries): shards are built, every query runs through the gated,
//! ungated and post-filtered systems, and the structural properties the benchmark relies on are
//! checked exactly.
#![cfg(not(target_arch = "wasm32"))]

use chsr::build::{build, write_output, BuildOptions};
use chsr::corpus::read_files;
use chsr::eval::taxonomy::{Outcome, Stage};
use chsr::eval::{self, queries::read_queries, EvalSettings};
use chsr::gate;
use chsr::scope::Scope;
use chsr::search::{Gating, Library};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const CORPUS: &str = "tests/fixtures/eval/corpus.jsonl";
const QUERIES: &str = "tests/fixtures/eval/queries.jsonl";

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn fixture_library(dir: &Path) -> Library {
    let chunks = read_files(&[CORPUS]).unwrap();
    write_output(&build(&chunks, &BuildOptions::default()), dir).unwrap();
    let mut lib = Library::open_dir(dir).unwrap();
    lib.load_needed_from_dir(dir, &Scope::new(), Gating::Ungated)
        .unwrap();
    assert_eq!(lib.manifest().shards.len(), 4);
    lib
}

/// Runs `cmd` and checks that it succeeded (else shows its stderr); returns its output.
fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The fixture corpus built into `dir/shards` by the `chsr` binary.
fn cli_shards(dir: &Path) -> PathBuf {
    let shards = dir.join("shards");
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_chsr"))
            .args(["build", "--out"])
            .arg(&shards)
            .arg(CORPUS),
    );
    shards
}

#[test]
fn gating_properties_hold_on_the_fixture() {
    let dir = tmp("eval-fixture");
    let lib = fixture_library(&dir);
    let queries = read_queries(Path::new(QUERIES)).unwrap();
    eval::check_scopes(&lib, &queries).unwrap();
    let all: Vec<String> = eval::all_systems(8).into_iter().map(|s| s.name).collect();
    assert_eq!(all, ["A", "B", "B+", "C", "D", "E", "F"]);
    let systems = eval::parse_systems("B-bm25,B+-bm25,C-bm25", 8).unwrap();
    let runs = eval::run_systems(&lib, &queries, &systems, 2).unwrap();
    let (ungated, post, gated) = (&runs[0], &runs[1], &runs[2]);
    let corpus = eval::chunk_index(&lib);

    // Gated: leakage is exactly 0 on every query, and every result is admissible.
    for (q, r) in queries.iter().zip(&gated.runs) {
        assert_eq!(r.metrics.leakage, 0.0, "{}", q.id);
        assert!(!r.metrics.any_leak);
        for id in &r.ids {
            assert!(gate::admits(&q.scope, corpus[id.as_str()]), "{} {id}", q.id);
        }
    }
    // Ungated leaks.
    let leaky = ungated.runs.iter().filter(|r| r.metrics.any_leak).count();
    assert!(leaky >= 3, "only {leaky} ungated queries leak");
    assert!(ungated.runs.iter().map(|r| r.metrics.leakage).sum::<f64>() > 0.0);
    // Post-filtered = the in-scope subsequence of the ungated list, in the same order.
    for ((q, u), p) in queries.iter().zip(&ungated.runs).zip(&post.runs) {
        let expected: Vec<&String> = u
            .ids
            .iter()
            .filter(|id| gate::admits(&q.scope, corpus[id.as_str()]))
            .collect();
        let got: Vec<&String> = p.ids.iter().collect();
        assert_eq!(got, expected, "{}", q.id);
        assert_eq!(p.metrics.leakage, 0.0);
        // Same hits: post-filtering never adds a relevant result.
        assert_eq!(p.metrics.recall, u.metrics.recall, "{}", q.id);
    }
    // The gate reads only the scope's shard: fewer bytes than searching everything.
    for (g, u) in gated.runs.iter().zip(&ungated.runs) {
        assert!(g.shard_bytes < u.shard_bytes);
    }
    let total: u64 = lib.manifest().shards.iter().map(|s| s.bytes).sum();
    assert!(ungated.runs.iter().all(|r| r.shard_bytes == total));

    // The report: metric names, slices, pairs, judge, markdown and charts.
    let settings = EvalSettings {
        k: 8,
        pairs: None,
        resamples: 200,
        seed: 42,
        repeat: 2,
        query_file: "queries.jsonl".into(),
        query_sha256: "0".repeat(64),
        expand_chars: 0,
    };
    let rep = eval::summarise(&lib, &queries, &runs, &settings);
    let json: serde_json::Value = serde_json::from_str(&eval::report::to_json(&rep)).unwrap();
    let v0 = &json["variants"][0];
    for key in [
        "precision",
        "recall",
        "ndcg",
        "leakage",
        "contamination",
        "ess",
        "latency_ms_p50",
        "latency_ms_p95",
        "any_leak_rate",
        "bytes_per_query",
    ] {
        assert!(v0.get(key).is_some(), "missing {key}");
        assert!(
            v0["slices"]["keyword"].get(key).is_some(),
            "slice missing {key}"
        );
    }
    assert_eq!(json["variants"][2]["leakage"], 0.0);
    assert!(json["variants"][0]["leakage"].as_f64().unwrap() > 0.0);
    let pairs = json["bootstrap"]["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[1]["from"], "B+-bm25");
    assert_eq!(pairs[1]["to"], "C-bm25");
    assert!(
        pairs[0]["metrics"]["leakage"]["mean_diff"]
            .as_f64()
            .unwrap()
            < 0.0
    );
    // The metadata query names its subject and level explicitly; the judge reads both.
    assert_eq!(
        json["judge"]["slices"]["metadata_lookup"]["subject"]["covered"],
        1
    );
    // Same inputs, same report (latencies aside).
    let again = eval::summarise(&lib, &queries, &runs, &settings);
    assert_eq!(again, rep);
    let md = eval::report::to_markdown(&rep, &Default::default());
    assert!(md.contains("## Table 1. Headline") && md.contains("| C-bm25 | gated |"));
    let svg = eval::svg::leakage_recall(&rep);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(eval::svg::slice_recall(&rep).contains("mark_scheme"));
}

fn settings(k: usize) -> EvalSettings {
    EvalSettings {
        k,
        pairs: None,
        resamples: 200,
        seed: 42,
        repeat: 1,
        query_file: "queries.jsonl".into(),
        query_sha256: "0".repeat(64),
        expand_chars: 0,
    }
}

/// The failure taxonomy on the fixture at K = 3, every pipeline variant (no dense model is
/// loaded: A returns nothing, B–E are lexical): the attribution adds up, and one hand-checked
/// query per outcome category.
#[test]
fn taxonomy_on_the_fixture() {
    let dir = tmp("eval-taxonomy");
    let lib = fixture_library(&dir);
    let mut queries = read_queries(Path::new(QUERIES)).unwrap();
    // One more query, whose only relevant chunk lies outside its scope (high-school physics for
    // a college physics scope), so that the gate has something to lose.
    queries.push(
        chsr::eval::queries::parse_query_line(
            "extra.jsonl",
            1,
            r#"{"id":"fx-gate","slice":"crafted","query":"atom","scope":{"subject":"physics","level":"college"},"relevant_ids":["ph:2.1:textbook_section:1"]}"#,
        )
        .unwrap()
        .unwrap(),
    );
    let k = 3;
    let systems = eval::all_systems(k);
    let runs = eval::run_systems(&lib, &queries, &systems, 1).unwrap();
    let rep = eval::summarise(&lib, &queries, &runs, &settings(k));

    // Attribution and outcomes add up, for every variant, overall and per slice.
    for (v, run) in rep.variants.iter().zip(&runs) {
        for (slice, t) in std::iter::once(("all", &v.taxonomy.overall))
            .chain(v.taxonomy.slices.iter().map(|(s, t)| (s.as_str(), t)))
        {
            let idx: Vec<usize> = (0..queries.len())
                .filter(|&i| slice == "all" || queries[i].slice == slice)
                .collect();
            let a = &t.attribution;
            assert_eq!(
                a.chunks.values().sum::<usize>(),
                a.missing,
                "{} {slice}",
                v.name
            );
            assert_eq!(a.chunks.len(), Stage::ALL.len());
            // A query misses when R@K < 1; each of its relevant chunks outside the top K is
            // attributed once.
            let (mut nq, mut nc) = (0, 0);
            for &i in &idx {
                let (q, r) = (&queries[i], &run.runs[i]);
                let top: Vec<&str> = r.ids.iter().take(k).map(String::as_str).collect();
                let absent: Vec<&String> = q
                    .grades
                    .keys()
                    .filter(|id| !top.contains(&id.as_str()))
                    .collect();
                let misses = r.metrics.recall < 1.0;
                assert_eq!(r.lost.is_some(), misses, "{} {}", v.name, q.id);
                if let Some(lost) = &r.lost {
                    let ids: Vec<&String> = lost.iter().map(|(id, _)| id).collect();
                    assert_eq!(ids, absent, "{} {}", v.name, q.id);
                    nq += 1;
                    nc += lost.len();
                }
            }
            assert_eq!((a.queries, a.missing), (nq, nc), "{} {slice}", v.name);
            match &a.shares {
                Some(sh) => {
                    assert!((sh.values().sum::<f64>() - 1.0).abs() < 1e-12, "{sh:?}");
                    assert!(sh.values().all(|x| (0.0..=1.0).contains(x)));
                }
                None => assert_eq!(a.queries, 0),
            }
            let oc = &t.outcomes;
            assert_eq!(oc.n, idx.len());
            assert_eq!(oc.counts.values().sum::<usize>(), oc.n);
            assert!((oc.shares.values().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    let by = |sys: &str, qid: &str| {
        let si = systems.iter().position(|s| s.name == sys).unwrap();
        let qi = queries.iter().position(|q| q.id == qid).unwrap();
        (
            &runs[si].runs[qi],
            eval::taxonomy::outcome(&runs[si].runs[qi].metrics),
        )
    };
    let stages = |lost: &Option<Vec<(String, Stage)>>| -> Vec<(String, Stage)> {
        lost.clone().unwrap_or_default()
    };

    // Success — C, fx-3 "temperature" in high-school physics: the only admitted chunk with the
    // word is the relevant one (ph:1.2), returned alone; nothing leaks, and a relevant result
    // cannot be contaminated.
    let (r, o) = by("C", "fx-3");
    assert_eq!(r.ids, ["ph:1.2:textbook_section:1"]);
    assert_eq!((o, r.lost.is_none()), (Outcome::Success, true));

    // Section contamination is not the paper's — C, fx-1 "atom" in college chemistry: both
    // relevant chunks (section cc:1.1) come first, then cc:2.1's "An atom consists of…": right
    // subject and level, another section, and the query names its section (expected chapter 1,
    // section 1): section-contaminated. But it is course text of another section, not an item
    // of another question, paper or year on the query's topic: not contaminating, and the query
    // is a success (the paper's contamination is tested on small chunk sets in
    // `eval::metrics`).
    let (r, o) = by("C", "fx-1");
    assert_eq!(
        r.ids,
        [
            "cc:1.1:textbook_section:1",
            "cc:1.1:glossary:1",
            "cc:2.1:textbook_section:1"
        ]
    );
    assert!(!r.metrics.any_leak && r.metrics.section_contamination == Some(1.0 / 3.0));
    assert_eq!(r.metrics.contamination, Some(0.0));
    assert_eq!((o, r.lost.is_none()), (Outcome::Success, true));
    // Precision-only, by leakage — B (no gate), fx-3: the relevant chunk first, then a college
    // physics solution about temperature for a high-school scope.
    let (r, o) = by("B", "fx-3");
    assert_eq!(
        r.ids[..2],
        ["ph:1.2:textbook_section:1", "pc:1.2:solution:1"]
    );
    assert!(r.metrics.any_leak);
    assert_eq!(o, Outcome::PrecisionOnly);

    // Recall-only — C, fx-6: the scope admits one chunk (chemistry high school, chapter 2,
    // question 2, solution), the relevant one, but it shares no term with "Chemistry high school
    // chapter 2 question 2 answer": BM25 returns nothing, and the empty list fails recall only.
    let (r, o) = by("C", "fx-6");
    assert!(r.ids.is_empty());
    assert_eq!(o, Outcome::RecallOnly);
    assert_eq!(
        stages(&r.lost),
        [("ch:2.1:solution:1".to_string(), Stage::CandidateRecall)]
    );
    // A (dense only, no model loaded) returns nothing: every query is a recall-only failure and
    // every relevant chunk a candidate-recall loss, except the out-of-scope one (the gate's).
    assert_eq!(rep.variants[0].name, "A");
    let a = &rep.variants[0].taxonomy.overall;
    assert_eq!(a.outcomes.counts[&Outcome::RecallOnly], queries.len());
    for q in &queries {
        let lost = stages(&by("A", &q.id).0.lost);
        assert_eq!(lost.len(), q.grades.len());
        let want = if q.id == "fx-gate" {
            Stage::Gate
        } else {
            Stage::CandidateRecall
        };
        assert!(lost.iter().all(|(_, s)| *s == want), "{}: {lost:?}", q.id);
    }
    // Query-weighted: 6 queries all candidate recall, 1 all gate.
    let sh = a.attribution.shares.as_ref().unwrap();
    assert!((sh[&Stage::CandidateRecall] - 6.0 / 7.0).abs() < 1e-12);
    assert!((sh[&Stage::Gate] - 1.0 / 7.0).abs() < 1e-12);

    // Both fail — B, fx-1 "atom" for college chemistry, ungated: the three best BM25 matches
    // are high-school chemistry and physics chunks (leaks, none relevant); both relevant chunks
    // were retrieved but fused below the cut.
    let (r, o) = by("B", "fx-1");
    assert_eq!(
        r.ids,
        [
            "ch:1.1:textbook_section:1",
            "ch:1.1:glossary:1",
            "ph:2.1:exercise:1"
        ]
    );
    assert_eq!(o, Outcome::Both);
    assert_eq!(
        stages(&r.lost),
        [
            ("cc:1.1:glossary:1".to_string(), Stage::Fusion),
            ("cc:1.1:textbook_section:1".to_string(), Stage::Fusion)
        ]
    );

    // The gate: the out-of-scope relevant chunk is lost by the gate (C) and by the post-filter
    // (B+), but not by the ungated B, which ranks it below the cut.
    assert_eq!(stages(&by("C", "fx-gate").0.lost)[0].1, Stage::Gate);
    assert_eq!(stages(&by("B+", "fx-gate").0.lost)[0].1, Stage::Gate);
    assert_eq!(stages(&by("B", "fx-gate").0.lost)[0].1, Stage::Fusion);

    // The report: JSON, markdown tables and the two stacked-bar charts.
    let json: serde_json::Value = serde_json::from_str(&eval::report::to_json(&rep)).unwrap();
    let c = &json["variants"][3];
    assert_eq!(c["name"], "C");
    let t = &c["taxonomy"];
    for key in [
        "gate",
        "candidate_recall",
        "fusion",
        "rerank",
        "dedup",
        "unknown",
    ] {
        assert!(
            t["overall"]["attribution"]["chunks"].get(key).is_some(),
            "{key}"
        );
        assert!(t["slices"]["keyword"]["attribution"]["chunks"]
            .get(key)
            .is_some());
    }
    for key in ["success", "precision_only", "recall_only", "both"] {
        assert!(
            t["overall"]["outcomes"]["counts"].get(key).is_some(),
            "{key}"
        );
    }
    assert_eq!(
        t["slices"]["mark_scheme"]["outcomes"]["counts"]["success"],
        1
    );
    // No model in the fixture's shards: the report says the dense path was off.
    assert!(json["corpus"]["model"].is_null());
    let md = eval::report::to_markdown(&rep, &Default::default());
    assert!(md.contains("**no embedding model loaded**"));
    assert!(md.contains("## Table 10. Failure attribution") && md.contains("## Table 11. Outcome"));
    assert!(
        md.contains("| variant | missing queries / n | missing chunks | gate | candidate recall |")
    );
    for svg in [
        eval::svg::stage_attribution(&rep),
        eval::svg::outcomes(&rep),
    ] {
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(">E</text>"));
    }
    assert!(eval::svg::stage_attribution(&rep).contains("candidate_recall"));
    assert!(eval::svg::outcomes(&rep).contains("recall-only failure"));
}

#[test]
fn cli_eval_runs_and_reports_errors() {
    let exe = env!("CARGO_BIN_EXE_chsr");
    let dir = tmp("eval-cli");
    let shards = cli_shards(&dir);
    run_ok(
        Command::new(exe)
            .args(["eval", "--shards"])
            .arg(&shards)
            .args([
                "--queries",
                QUERIES,
                "--variants",
                "C-bm25,B-bm25",
                "--json",
            ])
            .arg(dir.join("r.json"))
            .arg("--report")
            .arg(dir.join("r.md"))
            .arg("--charts")
            .arg(dir.join("charts")),
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(json["variants"][0]["name"], "C-bm25");
    assert_eq!(json["bootstrap"]["pairs"][0]["to"], "B-bm25");
    let md = std::fs::read_to_string(dir.join("r.md")).unwrap();
    assert!(md.contains("](charts/leakage_recall.svg)"), "{md}");
    assert!(md.contains("](charts/stage_attribution.svg)"), "{md}");
    assert!(md.contains("](charts/outcomes.svg)"), "{md}");
    for f in ["slice_recall", "stage_attribution", "outcomes"] {
        assert!(dir.join(format!("charts/{f}.svg")).exists(), "{f}");
    }
    assert!(json["variants"][0]["taxonomy"]["overall"]["outcomes"]["n"] == 6);

    let fail = |args: &[&str]| {
        let o = Command::new(exe)
            .args(["eval", "--shards"])
            .arg(&shards)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1));
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let e = fail(&["--queries", QUERIES, "--variants", "Z"]);
    assert!(
        e.starts_with("error: unknown variant \"Z\"; available: A, B, B+, C, D, E"),
        "{e}"
    );
    let bad = dir.join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\":\"a\",\"slice\":\"s\",\"query\":\"x\",\"scope\":{},\"relevant_ids\":[\"a\"]}\n{\"id\":\"b\"}\n",
    )
    .unwrap();
    let e = fail(&["--queries", bad.to_str().unwrap()]);
    assert!(
        e.contains("bad.jsonl:2: field `slice`: missing (required)"),
        "{e}"
    );
}

/// The paper's variants are the paper's (equal fusion weights, its rerank and trigger, none of
/// chsr's additions); chsr's additions, applied one at a time, end at F exactly.
#[test]
fn the_paper_ladder_and_chsrs_steps_end_at_f() {
    use chsr::relax::Trigger;
    use chsr::rerank::RerankConfig;
    use chsr::search::{SearchOptions, Variant};
    let e = SearchOptions::for_variant(Variant::E);
    assert_eq!(e.dense_weight, 1.0);
    assert_eq!(e.trigger, Trigger::Paper);
    assert_eq!(e.rerank, RerankConfig::paper());
    assert!(!e.stages.sections && !e.stages.labels && !e.stages.hints);
    assert!(e.stages.understand && e.stages.relax && e.stages.rerank);
    let c = SearchOptions::for_variant(Variant::C);
    assert!(!c.stages.rerank && c.dense_weight == 1.0 && c.rrf_k == 60.0);
    let f = SearchOptions::for_variant(Variant::F);
    assert_eq!(f, SearchOptions::default(), "F is the default");
    assert!(!f.stages.dense, "F is lexical-only by default");
    assert_eq!(
        eval::system("F-lexical", 8).unwrap().opts,
        eval::system("F", 8).unwrap().opts
    );
    let fd = eval::system("F+dense", 8).unwrap().opts;
    assert!(
        fd.stages.dense && fd.dense_weight == 0.1,
        "F+dense adds the dense list at 0.1"
    );
    let mut last = eval::system("E+answers", 8).unwrap().opts;
    assert_ne!(last, eval::system("F", 8).unwrap().opts);
    last.dense_weight = f.dense_weight;
    last.stages.dense = false;
    last.variant = Variant::F;
    assert_eq!(
        last,
        eval::system("F", 8).unwrap().opts,
        "the steps add up to F"
    );
}

fn fixture_query(json: serde_json::Value) -> chsr::eval::queries::EvalQuery {
    chsr::eval::queries::parse_query_line("t.jsonl", 1, &json.to_string())
        .unwrap()
        .unwrap()
}

#[test]
fn w3_fallback_results_never_count_as_success() {
    let dir = tmp("eval-w3");
    let lib = fixture_library(&dir);
    // Nothing about atoms among college chemistry solutions; W1 has nothing to drop and the doc
    // type blocks W2, so only the unfiltered fallback (W3) finds the glossary entry, which the
    // query counts as relevant.
    let q = fixture_query(serde_json::json!({
        "id": "w3", "slice": "s", "query": "atom",
        "scope": {"subject": "chemistry", "level": "college", "doc_type": "solution"},
        "relevant_grades": {"cc:1.1:glossary:1": 2},
        "expected_fields": {"subject": "chemistry", "level": "college"}
    }));
    let mut systems = eval::parse_systems("F", 8).unwrap();
    let runs = eval::run_systems(&lib, std::slice::from_ref(&q), &systems, 1).unwrap();
    assert!(runs[0].runs[0].ids.is_empty(), "{:?}", runs[0].runs[0].ids);
    systems[0].opts.allow_fallback = true;
    let runs = eval::run_systems(&lib, std::slice::from_ref(&q), &systems, 1).unwrap();
    let r = &runs[0].runs[0];
    assert!(
        r.ids.iter().any(|id| id == "cc:1.1:glossary:1"),
        "{:?}",
        r.ids
    );
    let m = &r.metrics;
    assert_eq!(m.fallback, r.ids.len().min(8));
    assert_eq!(
        (m.recall, m.ndcg, m.precision, m.exact),
        (0.0, 0.0, 0.0, false)
    );
    assert_eq!(eval::taxonomy::outcome(m).name(), "both");
}

#[test]
fn expansion_is_measured_without_changing_the_ranking() {
    let dir = tmp("eval-expand");
    let lib = fixture_library(&dir);
    let queries = read_queries(Path::new(QUERIES)).unwrap();
    let systems = eval::parse_systems("C-bm25", 1).unwrap();
    let plain = eval::run_systems(&lib, &queries, &systems, 1).unwrap();
    let runs = eval::run_systems_expanding(&lib, &queries, &systems, 1, 2000).unwrap();
    for (a, b) in plain[0].runs.iter().zip(&runs[0].runs) {
        assert_eq!(a.ids, b.ids);
        assert!(a.expand.is_none() && b.expand.is_some());
    }
    // fx-2 "kinetic energy of a moving car", K = 1: the top result is pc:1.1's text; expansion
    // adds its glossary entry, the other chunk of the section and the other relevant chunk.
    let qi = queries.iter().position(|q| q.id == "fx-2").unwrap();
    let r = &runs[0].runs[qi];
    assert_eq!(r.ids, ["pc:1.1:textbook_section:1"]);
    let x = r.expand.as_ref().unwrap();
    assert_eq!((x.section_chunks, x.added, x.added_on_topic), (2, 1, 1));
    assert_eq!(
        (x.section_recall_shown, x.section_recall_context),
        (Some(0.5), Some(1.0))
    );
    assert_eq!(x.label_recall_context, Some(1.0));
    // The added glossary line ("kinetic energy: the energy an object has because of its
    // motion", 11 words) plus its [DOCUMENT 2] header lines.
    assert!(x.words_added > 11, "{}", x.words_added);
    let mut s = settings(1);
    s.expand_chars = 2000;
    let rep = eval::summarise(&lib, &queries, &runs, &s);
    assert_eq!(rep.expand_chars, Some(2000));
    let agg = rep.variants[0].overall.expansion.as_ref().unwrap();
    assert!(agg.section_recall_context >= agg.section_recall_shown);
    let md = eval::report::to_markdown(&rep, &Default::default());
    assert!(md.contains("## Table 13. Section expansion (2000 characters per result)"));
}

#[test]
fn cli_eval_passes_the_relaxation_flags_to_every_variant() {
    let exe = env!("CARGO_BIN_EXE_chsr");
    let dir = tmp("eval-cli-relax");
    let shards = cli_shards(&dir);
    // No subject in the scope: the paper trigger's case 4 (fewer than k_min results) applies.
    let queries = dir.join("q.jsonl");
    std::fs::write(
        &queries,
        r#"{"id":"nos","slice":"s","query":"atom","scope":{},"relevant_grades":{"cc:1.1:glossary:1":2}}"#,
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let runs = dir.join("runs.jsonl");
        run_ok(
            Command::new(exe)
                .args(["eval", "--shards"])
                .arg(&shards)
                .arg("--queries")
                .arg(&queries)
                .args(["--variants", "F", "--runs"])
                .arg(&runs)
                .args(extra),
        );
        let line = std::fs::read_to_string(&runs).unwrap();
        let v: serde_json::Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
        (
            v["relax"]["case"].as_str().unwrap_or("").to_string(),
            v["relax"]["widened"].as_bool().unwrap(),
        )
    };
    // 8 results: enough for the default k_min (1); not for 20; W3 only with --allow-fallback.
    assert_eq!(run(&["--trigger", "paper"]), ("enough".into(), false));
    assert_eq!(
        run(&["--trigger", "paper", "--k-min", "20"]),
        ("few_without_subject".into(), false)
    );
    assert_eq!(
        run(&["--trigger", "paper", "--k-min", "20", "--allow-fallback"]),
        ("few_without_subject".into(), true)
    );
    assert_ne!(
        run(&[]).0,
        "enough",
        "F's default trigger is the evidence trigger"
    );
}
