//! Native half of the native/Wasm parity property (`tests/parity/mod.rs`): a few hundred random
//! queries, scopes, variants and options over the spine fixture, each result digested and
//! compared with `tests/fixtures/parity_golden.txt`, which `tests/wasm.rs` checks under Node and
//! headless Chromium too. `CHSR_BLESS=1 cargo test --test wasm_parity` rewrites the file and the
//! committed native dense build the graph cases search (`tests/fixtures/parity_graph.bundle`).
#![cfg(not(target_arch = "wasm32"))]

mod parity;

use parity::*;

fn bless() -> bool {
    std::env::var_os("CHSR_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn the_graph_bundle_is_the_native_build() {
    // The Wasm tests search these bytes; they must stay what `chsr build` makes of the fixture.
    let files = Fixture::build().graph_files();
    let bytes = bundle(&files);
    if bless() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GRAPH_BUNDLE_PATH);
        std::fs::write(&path, &bytes).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    assert_eq!(unbundle(GRAPH_BUNDLE), files);
    assert!(
        bytes == GRAPH_BUNDLE,
        "{GRAPH_BUNDLE_PATH} is stale: CHSR_BLESS=1 cargo test --test wasm_parity"
    );
}

#[test]
fn random_queries_match_the_golden_digests() {
    let fixture = Fixture::build();
    let libs: Vec<_> = Setup::ALL.iter().map(|s| fixture.library(*s)).collect();
    let mut cases = cases(&fixture);
    let mut outcomes: Vec<String> = cases
        .iter()
        .map(|c| run_library(&libs[c.setup.index()], c))
        .collect();
    // Through the HNSW graphs of the native build (the Wasm tests load the committed copy, which
    // `the_graph_bundle_is_the_native_build` keeps equal to it).
    let graph_bundle = bundle(&fixture.graph_files());
    let graph = graph_library(&graph_bundle);
    let graph_cases = graph_cases(&fixture);
    outcomes.extend(graph_cases.iter().map(|c| run_library(&graph, c)));
    cases.extend(graph_cases);
    let mut lines = fixture.manifest_lines(&graph_bundle);
    lines.extend(
        cases
            .iter()
            .zip(&outcomes)
            .enumerate()
            .map(|(i, (c, o))| case_line(i, c, o)),
    );
    if bless() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN_PATH);
        std::fs::write(&path, format!("{HEADER}{}\n", lines.join("\n"))).unwrap();
        eprintln!("wrote {}", path.display());
        return;
    }
    if let Err(e) = compare(&lines, &cases, &outcomes, "native") {
        panic!("{e}\n(after an intended change: CHSR_BLESS=1 cargo test --test wasm_parity)");
    }
}

#[test]
fn the_generator_covers_what_it_claims() {
    // Guards the generator itself: every variant, every set-up, errors, empty and long queries,
    // and scopes whose gate admits nothing all occur.
    let fixture = Fixture::build();
    let cases = cases(&fixture);
    assert_eq!(cases.len(), CASES);
    for v in ["A", "B", "B+", "C", "D", "E", "F"] {
        assert!(
            cases.iter().any(|c| c.options["variant"] == v),
            "variant {v}"
        );
    }
    for s in Setup::ALL {
        assert!(cases.iter().any(|c| c.setup == s), "{s:?}");
    }
    assert!(
        cases.iter().any(|c| c.options["variant"] == "F"
            && c.options["dense"] == true
            && c.setup != Setup::Lexical),
        "F with its dense list asked for, on shards with vectors"
    );
    assert!(cases.iter().any(|c| c.query.is_empty()));
    assert!(cases.iter().any(|c| c.query.len() > 16 * 1024));
    let libs: Vec<_> = Setup::ALL.iter().map(|s| fixture.library(*s)).collect();
    let outcomes: Vec<String> = cases
        .iter()
        .map(|c| run_library(&libs[c.setup.index()], c))
        .collect();
    let errors = outcomes.iter().filter(|o| o.starts_with("error ")).count();
    assert!(errors > 0 && errors < CASES / 5, "{errors} errors");
    assert!(
        outcomes
            .iter()
            .any(|o| o.contains("\"admissible\":#0000000000000000")),
        "no scope empties the gate"
    );
    assert!(outcomes.iter().any(|o| o.contains("\"truncated\":t")));
    assert!(outcomes.iter().any(|o| o.contains("\"dense_rank\":#")));
    // Shard names are digested without their content hash (the build lines pin the bytes).
    assert!(outcomes.iter().any(|o| o.contains(".*.chsr")));
    // Every dense search of the fixture built in the test scans exactly: graphs built in Wasm
    // differ (see `Fixture::manifest_lines`), the exact scan never reads them. The graph cases
    // search the committed native build through its graphs.
    let graph = graph_library(GRAPH_BUNDLE);
    let graph_cases = graph_cases(&fixture);
    assert_eq!(graph_cases.len(), GRAPH_CASES);
    let graph_outcomes: Vec<String> = graph_cases.iter().map(|c| run_library(&graph, c)).collect();
    let through_graph = graph_outcomes
        .iter()
        .filter(|o| o.contains("\"dense_plans\":[\"graph\""))
        .count();
    assert!(
        through_graph >= GRAPH_CASES / 2,
        "{through_graph} graph searches"
    );
    assert!(graph_outcomes
        .iter()
        .any(|o| o.contains("\"dense_rank\":#")));
    assert!(outcomes
        .iter()
        .any(|o| o.contains("\"dense_plans\":[\"exact\"")));
    for o in &outcomes {
        if let Some(at) = o.find("\"dense_plans\":[") {
            let plans = &o[at..at + o[at..].find(']').unwrap()];
            assert!(!plans.contains("graph"), "{plans}");
        }
    }
    // The same seed gives the same cases.
    let again = parity::cases(&fixture);
    assert!(cases.iter().zip(&again).all(|(a, b)| a.query == b.query
        && a.scope == b.scope
        && a.options == b.options
        && a.setup == b.setup));
}
