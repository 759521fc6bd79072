//! End-to-end checks of the evaluation harness on a tiny fixture corpus (20 chunks over
//! 2 subjects × 2 levels, 6 queries): shards are built, every query runs through the gated,
//! ungated and post-filtered systems, and the structural properties the benchmark relies on are
//! checked exactly.
#![cfg(not(target_arch = "wasm32"))]

use chsr::build::{build, write_output, BuildOptions};
use chsr::corpus::read_files;
use chsr::eval::{self, queries::read_queries, EvalSettings};
use chsr::gate;
use chsr::library::{Gating, Library};
use chsr::scope::Scope;
use std::path::{Path, PathBuf};
use std::process::Command;

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

#[test]
fn gating_properties_hold_on_the_fixture() {
    let dir = tmp("eval-fixture");
    let lib = fixture_library(&dir);
    let queries = read_queries(Path::new(QUERIES)).unwrap();
    eval::check_scopes(&lib, &queries).unwrap();
    let all: Vec<String> = eval::all_systems(8).into_iter().map(|s| s.name).collect();
    assert_eq!(all, ["A", "B", "B+", "C", "D", "E"]);
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

#[test]
fn cli_eval_runs_and_reports_errors() {
    let exe = env!("CARGO_BIN_EXE_chsr");
    let dir = tmp("eval-cli");
    let shards = dir.join("shards");
    let st = Command::new(exe)
        .args(["build", "--out"])
        .arg(&shards)
        .arg(CORPUS)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let out = Command::new(exe)
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
        .arg(dir.join("charts"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(json["variants"][0]["name"], "C-bm25");
    assert_eq!(json["bootstrap"]["pairs"][0]["to"], "B-bm25");
    let md = std::fs::read_to_string(dir.join("r.md")).unwrap();
    assert!(md.contains("](charts/leakage_recall.svg)"), "{md}");
    assert!(dir.join("charts/slice_recall.svg").exists());

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
