//! The Wasm module under `wasm-pack test` (Node and headless Chromium): build the spine fixture,
//! load its shards through the JS-facing API, and check the ids against the golden file that the
//! native test (`tests/spine.rs`) checks too — same ids natively and in Wasm. The parity property
//! (`tests/parity/mod.rs`): a few hundred random queries, scopes, variants and options give the
//! same digests here, through the library and through `ChsrIndex`, as natively
//! (`tests/wasm_parity.rs`), against one golden file.
#![cfg(target_arch = "wasm32")]

mod lockprop;
mod parity;

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::wasm::ChsrIndex;
use serde::Serialize;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

const SPINE: &str = include_str!("fixtures/spine.jsonl");
const QUERIES: &str = include_str!("fixtures/golden_queries.json");
const GOLDEN: &str = include_str!("fixtures/golden_search.json");

fn js(v: &serde_json::Value) -> JsValue {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap()
}

/// The spine fixture's lexical shards, built in Wasm.
fn spine_build() -> BuildOutput {
    build(
        &parse_jsonl("spine.jsonl", SPINE).unwrap(),
        &BuildOptions::default(),
    )
}

fn index() -> ChsrIndex {
    let out = spine_build();
    let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
    for s in &out.shards {
        index.load_shard(&s.entry.file, &s.bytes).unwrap();
        let list = s.entry.part_list.as_ref().unwrap();
        index
            .load_part_list(&list.file, s.part_list_bytes.as_ref().unwrap(), None)
            .unwrap();
        for (t, bytes) in s.text.iter().zip(&s.text_bytes) {
            index.load_text(&t.file, bytes).unwrap();
        }
    }
    index
}

#[wasm_bindgen_test]
fn same_ids_as_native() {
    let index = index();
    let queries: Vec<serde_json::Value> = serde_json::from_str(QUERIES).unwrap();
    let golden: Vec<serde_json::Value> = serde_json::from_str(GOLDEN).unwrap();
    assert_eq!(queries.len(), golden.len());
    for (q, g) in queries.iter().zip(&golden) {
        let resp = index
            .search(
                q["query"].as_str().unwrap(),
                js(&q["scope"]),
                js(&q["options"]),
            )
            .unwrap();
        let resp: serde_json::Value = serde_wasm_bindgen::from_value(resp).unwrap();
        let ids: Vec<&str> = resp["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = g["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert_eq!(ids, want, "query {:?}", q["query"]);
    }
}

#[wasm_bindgen_test]
fn results_ask_for_their_text_then_show_it() {
    let out = spine_build();
    let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
    for s in &out.shards {
        index.load_shard(&s.entry.file, &s.bytes).unwrap();
    }
    let search = |index: &ChsrIndex| -> serde_json::Value {
        let resp = index
            .search(
                "specific heat",
                js(&serde_json::json!({})),
                JsValue::UNDEFINED,
            )
            .unwrap();
        serde_wasm_bindgen::from_value(resp).unwrap()
    };
    let ids = |r: &serde_json::Value| -> Vec<String> {
        r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    // Without their shards' part lists, the results ask for those first (they name the parts).
    let listed = search(&index);
    let pending: Vec<String> = serde_json::from_value(listed["pending_text"].clone()).unwrap();
    assert!(!pending.is_empty(), "results without their text ask for it");
    for file in &pending {
        let sh = out
            .shards
            .iter()
            .find(|sh| sh.entry.part_list.as_ref().is_some_and(|l| &l.file == file))
            .expect("a part list of the manifest");
        // A part cannot be loaded before its list names it: the error says which list.
        let err = index
            .load_text(&sh.text[0].file, &sh.text_bytes[0])
            .unwrap_err();
        assert_eq!(code(&err), "load.part_before_shard");
        // A list is checked against the manifest: another shard's list is refused.
        let other = out
            .shards
            .iter()
            .find(|o| o.entry.file != sh.entry.file)
            .and_then(|o| o.part_list_bytes.as_ref())
            .unwrap();
        let err = index.load_part_list(file, other, None).unwrap_err();
        assert_eq!(code(&err), "load.integrity");
        index
            .load_part_list(file, sh.part_list_bytes.as_ref().unwrap(), None)
            .unwrap();
        assert!(index.is_loaded(file));
    }
    let first = search(&index);
    let pending: Vec<String> = serde_json::from_value(first["pending_text"].clone()).unwrap();
    assert!(!pending.is_empty(), "results without their text ask for it");
    assert_eq!(ids(&listed), ids(&first), "the ranking reads no text");
    // Only the parts the results (and their sections) need, not every text part.
    let all: usize = out.shards.iter().map(|s| s.text.len()).sum();
    assert!(pending.len() < all);
    for file in &pending {
        let bytes = out.shards.iter().find_map(|sh| {
            sh.text
                .iter()
                .zip(&sh.text_bytes)
                .find(|(t, _)| &t.file == file)
        });
        // A part is checked against its part list's Merkle roots: another part's bytes are refused.
        let bytes = bytes.unwrap().1;
        let other = out
            .shards
            .iter()
            .flat_map(|sh| sh.text.iter().zip(&sh.text_bytes))
            .find(|(t, _)| &t.file != file)
            .unwrap()
            .1;
        let err = index.load_text(file, other).unwrap_err();
        assert_eq!(code(&err), "load.integrity");
        index.load_text(file, bytes).unwrap();
        assert!(index.is_loaded(file));
    }
    let second = search(&index);
    assert_eq!(second["pending_text"], serde_json::json!([]));
    // The ranking did not wait for the text: the same results, now with their snippets.
    assert_eq!(ids(&first), ids(&second));
    assert!(!ids(&second).is_empty());
    for h in second["results"].as_array().unwrap() {
        assert!(!h["snippet"].as_array().unwrap().is_empty(), "{h}");
    }
}

#[wasm_bindgen_test]
fn shards_needed_follow_the_scope_and_bad_input_throws() {
    let out = spine_build();
    let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
    let scope = serde_json::json!({"subject": "physics", "level": "high_school"});
    let needed: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(index.shards_needed(js(&scope), JsValue::NULL).unwrap())
            .unwrap();
    assert_eq!(needed.len(), 1);
    assert_eq!(needed[0]["subject"], "physics");
    // Searching before loading throws a clear error.
    let err = index
        .search("heat", js(&scope), JsValue::NULL)
        .map_err(JsValue::from)
        .unwrap_err();
    assert_eq!(code(&err), "search.not_loaded");
    let msg = js_sys::Error::from(err).message().as_string().unwrap();
    assert!(msg.contains("not loaded"), "{msg}");
    // A truncated download is refused with the reason.
    let file = needed[0]["file"].as_str().unwrap();
    let bytes = &out
        .shards
        .iter()
        .find(|s| s.entry.file == file)
        .unwrap()
        .bytes;
    let err = index
        .load_shard(file, &bytes[..bytes.len() / 3])
        .map_err(JsValue::from)
        .unwrap_err();
    assert_eq!(code(&err), "load.format");
    let msg = js_sys::Error::from(err).message().as_string().unwrap();
    assert!(msg.contains("truncated"), "{msg}");
    index
        .load_shard(file, bytes)
        .map_err(JsValue::from)
        .unwrap();
    assert!(index.is_loaded(file));
    // Unknown scope values name the valid ones.
    let err = index
        .search(
            "heat",
            js(&serde_json::json!({"subject": "chimie"})),
            JsValue::NULL,
        )
        .map_err(JsValue::from)
        .unwrap_err();
    assert_eq!(code(&err), "scope.unknown_value");
    let details: serde_json::Value = serde_wasm_bindgen::from_value(
        js_sys::Reflect::get(&err, &JsValue::from_str("details")).unwrap(),
    )
    .unwrap();
    assert_eq!(details["field"], "subject");
    assert!(details["valid"]
        .as_array()
        .unwrap()
        .contains(&serde_json::json!("chemistry")));
    let msg = js_sys::Error::from(err).message().as_string().unwrap();
    assert!(
        msg.contains("valid values") && msg.contains("chemistry"),
        "{msg}"
    );
    // Bad options too.
    let err = index
        .search("heat", js(&scope), js(&serde_json::json!({"k": 0})))
        .map_err(JsValue::from)
        .unwrap_err();
    assert_eq!(code(&err), "search.option");
    assert!(js_sys::Error::from(err)
        .message()
        .as_string()
        .unwrap()
        .contains("k must be"));
}

/// The stable `code` of an error thrown by the module.
/// A large shard's postings come in parts by term range: a search asks, through
/// `postingsNeeded`, for the parts holding its own terms only, refuses to run without them
/// (never a silently empty term), checks each part, and then ranks exactly as with the postings
/// inside the shard.
#[wasm_bindgen_test]
fn a_search_loads_the_postings_of_its_own_terms_first() {
    let corpus = parse_jsonl("spine.jsonl", SPINE).unwrap();
    let inline = build(
        &corpus,
        &BuildOptions {
            postings_block_bytes: Some(usize::MAX),
            postings_inline_bytes: usize::MAX,
            ..BuildOptions::default()
        },
    );
    let split = build(
        &corpus,
        &BuildOptions {
            postings_block_bytes: Some(256),
            postings_inline_bytes: 8 * 256,
            ..BuildOptions::default()
        },
    );
    let load = |out: &BuildOutput, postings: bool| {
        let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
        for s in &out.shards {
            for (file, bytes) in s.files() {
                if postings || !file.ends_with(".chsri") {
                    let r = if file.ends_with(".chsri") {
                        index.load_postings(file, bytes)
                    } else if file.ends_with(".chsrl") {
                        index.load_part_list(file, bytes, None)
                    } else if file.ends_with(".chsrx") {
                        index.load_text(file, bytes)
                    } else {
                        index.load_shard(file, bytes)
                    };
                    r.unwrap();
                }
            }
        }
        index
    };
    let all: usize = split.shards.iter().map(|s| s.postings.len()).sum();
    assert!(all > 5, "the spine's shards are cut into postings parts");
    let mut index = load(&split, false);
    let whole = load(&inline, true);
    let scope = js(&serde_json::json!({"subject": "physics", "level": "high_school"}));
    let query = "specific heat of water";
    let run = |index: &ChsrIndex| -> Result<serde_json::Value, JsValue> {
        index
            .search(query, scope.clone(), JsValue::UNDEFINED)
            .map(|r| serde_wasm_bindgen::from_value(r).unwrap())
    };
    let err = run(&index).map(|_| ()).unwrap_err();
    assert_eq!(code(&err), "search.not_loaded");
    let needed = index.postings_needed(query, JsValue::UNDEFINED).unwrap();
    assert!(
        !needed.is_empty() && needed.len() < all,
        "{needed:?} of {all}"
    );
    let bytes_of = |file: &str| {
        split
            .shards
            .iter()
            .flat_map(|s| s.postings.iter().zip(&s.postings_bytes))
            .find(|(t, _)| t.file == file)
            .map(|(_, b)| b.clone())
            .unwrap()
    };
    // Another part's bytes are refused; the part itself is taken.
    let other = split
        .shards
        .iter()
        .flat_map(|s| s.postings.iter())
        .find(|t| !needed.contains(&t.file))
        .unwrap();
    let err = index
        .load_postings(&needed[0], &bytes_of(&other.file))
        .unwrap_err();
    assert_eq!(code(&err), "load.integrity");
    for f in &needed {
        index.load_postings(f, &bytes_of(f)).unwrap();
        assert!(index.is_loaded(f));
    }
    assert!(index
        .postings_needed(query, JsValue::UNDEFINED)
        .unwrap()
        .is_empty());
    let (a, b) = (run(&index).unwrap(), run(&whole).unwrap());
    assert!(!a["results"].as_array().unwrap().is_empty());
    assert_eq!(
        a["results"], b["results"],
        "same results, scores and snippets"
    );
    let remaining: Vec<serde_json::Value> =
        serde_wasm_bindgen::from_value(index.postings_remaining().unwrap()).unwrap();
    assert_eq!(remaining.len(), all - needed.len());
}

fn code(err: &JsValue) -> String {
    js_sys::Reflect::get(err, &JsValue::from_str("code"))
        .unwrap()
        .as_string()
        .unwrap_or_default()
}

/// The lock invariant on what JavaScript receives: random scopes with locks, queries and
/// options (relaxation with the fallback, section expansion), through `search`, `toContext`,
/// `section` and `contextFor` (`tests/lockprop/mod.rs`).
#[wasm_bindgen_test]
fn a_locked_embed_never_receives_an_out_of_lock_chunk() {
    let index = index();
    let (mut checked, mut withheld) = (0, 0);
    for case in lockprop::cases() {
        let resp = index
            .search(&case.query, js(&case.scope), js(&case.options))
            .unwrap();
        let resp: serde_json::Value = serde_wasm_bindgen::from_value(resp).unwrap();
        let context = index
            .to_context(&case.query, js(&case.scope), js(&case.options))
            .unwrap();
        checked += lockprop::check(&case, &resp, Some(&context));
        withheld += resp["trace"]["withheld"].as_u64().unwrap_or(0);
        let ids: Vec<String> = resp["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect();
        if let Some(first) = ids.first() {
            let sec: serde_json::Value =
                serde_wasm_bindgen::from_value(index.section(first, js(&case.scope)).unwrap())
                    .unwrap();
            let as_resp = serde_json::json!({"results": sec["chunks"], "trace": {}});
            checked += lockprop::check(&case, &as_resp, None);
        }
        let ctx: serde_json::Value = serde_wasm_bindgen::from_value(
            index.context_for(ids.clone(), js(&case.scope)).unwrap(),
        )
        .unwrap();
        assert_eq!(ctx["withheld"], 0, "shown results are admissible");
        assert_eq!(
            ctx["context"]
                .as_str()
                .unwrap()
                .matches("[DOCUMENT ")
                .count(),
            ids.len()
        );
    }
    assert!(
        checked > 1000 && withheld > 10,
        "{checked} checked, {withheld} withheld"
    );
}

/// Facets and scope validation come from Rust: counts narrowed by the scope, valid values named.
#[wasm_bindgen_test]
fn facets_and_validation_for_the_pickers() {
    let index = index();
    let scope = serde_json::json!({"subject": "chemistry", "doc_type": "exercise"});
    let facets: serde_json::Value =
        serde_wasm_bindgen::from_value(index.facets(js(&scope)).unwrap()).unwrap();
    let chapter = facets
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "chapter")
        .unwrap();
    assert_eq!(chapter["exact"], true);
    let total: u64 = chapter["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["count"].as_u64().unwrap())
        .sum();
    let all: serde_json::Value = serde_wasm_bindgen::from_value(
        index
            .facets(js(&serde_json::json!({"subject": "chemistry"})))
            .unwrap(),
    )
    .unwrap();
    let all_total: u64 = all
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["field"] == "chapter")
        .unwrap()["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["count"].as_u64().unwrap())
        .sum();
    assert!(
        total > 0 && total < all_total,
        "exercise only narrows the chapter counts"
    );
    let bad: serde_json::Value = serde_wasm_bindgen::from_value(
        index
            .validate_scope(js(
                &serde_json::json!({"subject": "chemistry", "year": "1999"}),
            ))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(bad["ok"], false);
    assert_eq!(bad["code"], "scope.unknown_value");
    assert_eq!(bad["details"]["field"], "year");
    let ok: serde_json::Value = serde_wasm_bindgen::from_value(
        index
            .validate_scope(js(&serde_json::json!({"subject": "chemistry"})))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(ok["ok"], true);
    // Every shard a scope reads, loaded or not, chosen by the engine.
    let used: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(
        index
            .shards_for(
                js(&serde_json::json!({"subject": "physics"})),
                JsValue::NULL,
                None,
            )
            .unwrap(),
    )
    .unwrap();
    assert_eq!(used.len(), 2, "physics has two levels");
    assert!(used.iter().all(|e| e["subject"] == "physics"));
}

/// The parity cases through `ChsrIndex` (JS values in and out, as the page calls it): the
/// response comes back as a JS object and is read into JSON before digesting.
fn run_index(index: &ChsrIndex, case: &parity::Case) -> String {
    let message = |e: JsValue| js_sys::Error::from(e).message().as_string().unwrap();
    let r = index
        .search(&case.query, js(&case.scope), js(&case.options))
        .map_err(message)
        .and_then(|resp| {
            let context = index
                .to_context(&case.query, js(&case.scope), js(&case.options))
                .map_err(message)?;
            Ok((serde_wasm_bindgen::from_value(resp).unwrap(), context))
        });
    parity::outcome_text(r)
}

#[wasm_bindgen_test]
fn random_queries_give_the_native_digests() {
    use parity::*;
    let fixture = Fixture::build();
    let mut cases = cases(&fixture);
    let main_cases = cases.len();
    cases.extend(graph_cases(&fixture));
    // Through the library, as natively; the graph cases search the committed native build.
    let libs: Vec<_> = Setup::ALL.iter().map(|s| fixture.library(*s)).collect();
    let graph = graph_library(GRAPH_BUNDLE);
    let run = |c: &Case| match c.setup {
        Setup::Graph => run_library(&graph, c),
        s => run_library(&libs[s.index()], c),
    };
    let outcomes: Vec<String> = cases.iter().map(run).collect();
    let lines = |outcomes: &[String]| {
        let mut lines = fixture.manifest_lines(GRAPH_BUNDLE);
        lines.extend(
            cases
                .iter()
                .zip(outcomes)
                .enumerate()
                .map(|(i, (c, o))| case_line(i, c, o)),
        );
        lines
    };
    if let Err(e) = compare(&lines(&outcomes), &cases, &outcomes, "wasm library") {
        panic!("{e}");
    }
    drop(libs);
    drop(graph);
    // Through ChsrIndex, the page's API.
    let mut indexes: Vec<ChsrIndex> = Setup::ALL
        .iter()
        .map(|s| {
            let out = fixture.output(*s);
            let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
            for sh in &out.shards {
                index.load_shard(&sh.entry.file, &sh.bytes).unwrap();
                if let (Some(l), Some(b)) = (&sh.entry.part_list, &sh.part_list_bytes) {
                    index.load_part_list(&l.file, b, None).unwrap();
                }
            }
            // Every text part, as a page keeping the scope offline does (the results' own parts
            // are what a search asks for: `results_ask_for_their_text_then_show_it`).
            let parts: Vec<serde_json::Value> =
                serde_wasm_bindgen::from_value(index.text_needed().unwrap()).unwrap();
            for part in &parts {
                let file = part["part"]["file"].as_str().unwrap();
                let bytes = out.shards.iter().find_map(|sh| {
                    sh.text
                        .iter()
                        .zip(&sh.text_bytes)
                        .find(|(t, _)| t.file == file)
                });
                index.load_text(file, bytes.unwrap().1).unwrap();
            }
            // The dense parts the page fetches after the shards.
            let parts: Vec<serde_json::Value> =
                serde_wasm_bindgen::from_value(index.dense_needed().unwrap()).unwrap();
            for part in &parts {
                let file = part["file"].as_str().unwrap();
                let sh = out
                    .shards
                    .iter()
                    .find(|sh| sh.entry.dense.as_ref().is_some_and(|d| d.file == file))
                    .unwrap();
                index
                    .load_dense(file, sh.dense_bytes.as_ref().unwrap())
                    .unwrap();
            }
            if *s == Setup::Dense {
                index.load_model(MODEL).unwrap();
            }
            index
        })
        .collect();
    // The committed native build, loaded file by file as the page does.
    let files = unbundle(GRAPH_BUNDLE);
    let mut graph = ChsrIndex::from_manifest(std::str::from_utf8(&files[0].1).unwrap()).unwrap();
    for (name, bytes) in &files[1..] {
        if name.ends_with(".chsrv") {
            graph.load_dense(name, bytes).unwrap();
        } else if name.ends_with(".chsrl") {
            graph.load_part_list(name, bytes, None).unwrap();
        } else if name.ends_with(".chsri") {
            graph.load_postings(name, bytes).unwrap();
        } else if name.ends_with(".chsrx") {
            graph.load_text(name, bytes).unwrap();
        } else {
            graph.load_shard(name, bytes).unwrap();
        }
    }
    graph.load_model(MODEL).unwrap();
    indexes.push(graph);
    let outcomes: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| match c.setup {
            Setup::Graph => run_index(&indexes[Setup::ALL.len()], c),
            s => {
                assert!(i < main_cases);
                run_index(&indexes[s.index()], c)
            }
        })
        .collect();
    if let Err(e) = compare(&lines(&outcomes), &cases, &outcomes, "wasm ChsrIndex") {
        panic!("{e}");
    }
}

#[wasm_bindgen_test]
fn a_digest_from_the_caller_is_checked_against_the_manifest() {
    let out = spine_build();
    let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
    let s = &out.shards[0];
    let wrong = "0".repeat(64);
    assert!(index
        .load_shard_with_digest(&s.entry.file, &s.bytes, &wrong)
        .is_err());
    assert!(!index.is_loaded(&s.entry.file));
    let digest = chsr::format::sha256_hex(&s.bytes);
    index
        .load_shard_with_digest(&s.entry.file, &s.bytes, &digest)
        .unwrap();
    assert!(index.is_loaded(&s.entry.file));
}

#[wasm_bindgen_test]
fn a_weak_response_says_so_and_widening_skips_shards_that_cannot_match() {
    let out = spine_build();
    let mut index = ChsrIndex::from_manifest(&out.manifest.to_json()).unwrap();
    let scope = serde_json::json!({"subject": "physics", "level": "high_school"});
    for s in out.shards.iter().filter(|s| s.entry.level == "high_school") {
        index.load_shard(&s.entry.file, &s.bytes).unwrap();
    }
    let resp = index
        .search("xqzvbl frobnicatorium", js(&scope), JsValue::NULL)
        .unwrap();
    let resp: serde_json::Value = serde_wasm_bindgen::from_value(resp).unwrap();
    let w = &resp["trace"]["weak_evidence"];
    assert_eq!(w["weak"], true, "{w}");
    assert_eq!(w["reason"], "no_term_in_scope");
    assert_eq!(resp["results"].as_array().unwrap().len(), 0);
    // The term filters are not in the manifest: W2 asks for their file first…
    let terms = out.manifest.terms.clone().unwrap();
    assert_eq!(
        resp["trace"]["relaxation"]["pending_shards"],
        serde_json::json!([terms.file])
    );
    let subject = js(&serde_json::json!({"subject": "physics"}));
    let before: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(
        index
            .shards_for(subject, JsValue::NULL, Some("xqzvbl frobnicatorium".into()))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(before.len(), 2, "without the filters nothing is ruled out");
    let bytes = out.terms_file.as_ref().unwrap();
    index
        .load_terms(bytes, Some(chsr::format::sha256_hex(bytes)))
        .unwrap();
    assert!(index.is_loaded(&terms.file));
    // …then, with them, loads nothing: no shard holds these words.
    let resp = index
        .search("xqzvbl frobnicatorium", js(&scope), JsValue::NULL)
        .unwrap();
    let resp: serde_json::Value = serde_wasm_bindgen::from_value(resp).unwrap();
    assert_eq!(
        resp["trace"]["relaxation"]["pending_shards"],
        serde_json::json!([])
    );
    assert_eq!(resp["trace"]["dense_path"], false);
    // shardsFor with a query: only the shards whose term filter could hold a query term.
    let subject = js(&serde_json::json!({"subject": "physics"}));
    let all: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(
        index
            .shards_for(subject.clone(), JsValue::NULL, None)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(all.len(), 2);
    let none: Vec<serde_json::Value> = serde_wasm_bindgen::from_value(
        index
            .shards_for(subject, JsValue::NULL, Some("xqzvbl frobnicatorium".into()))
            .unwrap(),
    )
    .unwrap();
    assert!(none.is_empty(), "{none:?}");
}

/// The SIMD int8 dot product (the module browsers with WebAssembly SIMD load; scripts/test runs
/// this suite in Chromium built with `+simd128`) gives exactly the scalar sum: every length from
/// 0 to 80 (whole 16-lane steps and tails), extreme components (−128, 127) and random ones.
#[cfg(target_feature = "simd128")]
#[wasm_bindgen_test]
fn simd_int8_dot_product_is_the_scalar_one() {
    use chsr::format::{dot_i8, dot_i8_scalar, dot_i8_simd};
    let mut seed: u32 = 0x9e37_79b9;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as i8
    };
    for n in 0..=80usize {
        let cases: [Vec<(i8, i8)>; 3] = [
            (0..n).map(|_| (next(), next())).collect(),
            (0..n).map(|_| (-128, -128)).collect(),
            (0..n)
                .map(|i| (127, if i % 2 == 0 { -128 } else { 127 }))
                .collect(),
        ];
        for case in cases {
            let (a, b): (Vec<i8>, Vec<i8>) = case.into_iter().unzip();
            let want = dot_i8_scalar(&a, &b);
            assert_eq!(dot_i8_simd(&a, &b), want, "length {n}");
            assert_eq!(dot_i8(&a, &b), want, "length {n}");
            // Unequal lengths: the shorter one counts.
            assert_eq!(dot_i8_simd(&a, &b[..n / 2]), dot_i8_scalar(&a, &b[..n / 2]));
        }
    }
}
