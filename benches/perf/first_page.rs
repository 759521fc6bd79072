//! `perf build` and `perf first-page` (scripts/bench-first-page): the corpus built with other part
//! sizes, and the data files a page downloads before each query's first result.

use super::{err, Opts};
use chsr::search::Library;
use serde_json::{json, Value};
use std::io::{BufWriter, Write};

/// `build --corpus FILE --out DIR [--text-block-bytes N] [--postings-block-bytes N]
/// [--postings-inline-bytes N]`: `chsr build` (lexical, no model) with other part sizes (text
/// blocks: sized to each shard unless given), to
/// measure them (`first-page`, scripts/bench-first-page).
pub(super) fn build_blocks(o: &Opts) -> Result<(), String> {
    let defaults = chsr::build::BuildOptions::default();
    let opts = chsr::build::BuildOptions {
        text_block_bytes: match o.0.get("text-block-bytes") {
            Some(_) => Some(o.num("text-block-bytes", 0)? as usize),
            None => None,
        },
        postings_block_bytes: match o.0.get("postings-block-bytes") {
            Some(_) => Some(o.num("postings-block-bytes", 0)? as usize),
            None => None,
        },
        postings_inline_bytes: o.num(
            "postings-inline-bytes",
            defaults.postings_inline_bytes as u64,
        )? as usize,
        ..defaults
    };
    let corpus = chsr::corpus::read_corpus(&[o.path("corpus")?]).map_err(|e| e.to_string())?;
    let out = chsr::build::build(&corpus.chunks, &opts);
    let dir = o.path("out")?;
    std::fs::create_dir_all(&dir).map_err(err(dir.display()))?;
    chsr::build::write_output(&out, &dir).map_err(err(dir.display()))?;
    println!(
        "built {} shards into {} (text blocks {:?} B, postings blocks {:?} B, inline up to {} B)",
        out.shards.len(),
        dir.display(),
        opts.text_block_bytes,
        opts.postings_block_bytes,
        opts.postings_inline_bytes
    );
    Ok(())
}

/// `first-page --shards DIR --queries FILE [--k 10] [--scope query|subject-level]`: for each
/// query, searched in its own scope or in its subject and level only (as the demo page's links
/// do), the data files a page
/// that starts from a link to it downloads before its first result, as the browser client
/// fetches them (chsr-client.js: the scope's shards and their part lists, the postings parts
/// of the query's terms, what a widening step asks for, then the text parts of the results),
/// keyword search (the page's default). Prints one JSON line per query: `{"id", "scope",
/// "files": [[name, bytes]...]}`; scripts/bench-first-page weighs them compressed.
pub(super) fn first_page(o: &Opts) -> Result<(), String> {
    use chsr::search::SearchOptions;
    let dir = o.path("shards")?;
    let k = o.num("k", 10)?;
    let subject_level = match o.0.get("scope").map(String::as_str) {
        None | Some("query") => false,
        Some("subject-level") => true,
        Some(other) => return Err(format!("--scope {other}: query or subject-level")),
    };
    let opts =
        SearchOptions::from_json(&json!({ "k": k, "text": false })).map_err(|e| e.to_string())?;
    let qpath = o.path("queries")?;
    let text = std::fs::read_to_string(&qpath).map_err(err(qpath.display()))?;
    let read = |f: &str| std::fs::read(dir.join(f)).map_err(err(dir.join(f).display()));
    let manifest = Library::open_dir(&dir)
        .map_err(|e| e.to_string())?
        .manifest()
        .clone();
    let out = std::io::stdout();
    let mut out = BufWriter::new(out.lock());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let q: Value = serde_json::from_str(line).map_err(err("queries"))?;
        let scope_json = if subject_level {
            json!({ "subject": q["scope"]["subject"], "level": q["scope"]["level"] })
        } else {
            q["scope"].clone()
        };
        let scope = chsr::scope::Scope::from_json(&scope_json).map_err(|e| e.to_string())?;
        let query = q["query"].as_str().unwrap_or_default();
        let mut lib = Library::new(manifest.clone());
        let mut files: Vec<(String, usize)> = Vec::new();
        let mut load = |lib: &mut Library, name: &str| -> Result<(), String> {
            if lib.is_loaded(name) || files.iter().any(|(f, _)| f == name) {
                return Ok(());
            }
            let bytes = read(name)?;
            files.push((name.to_string(), bytes.len()));
            lib.load_file(name, &bytes)
                .map_err(|e| format!("{name}: {e}"))
        };
        // The scope's shards, then (at most twice) the shards a widening step asks for: each
        // round with the part lists and the query's postings it needs, then a search.
        let mut pending: Vec<String> = lib
            .shards_needed(&scope, opts.stages.gating)
            .into_iter()
            .map(|s| s.file)
            .collect();
        let mut round = 0;
        let mut resp = loop {
            for f in &pending {
                load(&mut lib, f)?;
            }
            for l in lib.part_lists_needed() {
                load(&mut lib, &l.file)?;
            }
            for f in lib.postings_needed(query, &opts) {
                load(&mut lib, &f)?;
            }
            let resp = lib
                .search(query, &scope, &opts)
                .map_err(|e| e.to_string())?;
            pending = resp
                .trace
                .relaxation
                .as_ref()
                .map(|r| r.pending_shards.clone())
                .unwrap_or_default();
            round += 1;
            if round > 2 || pending.iter().all(|f| lib.is_loaded(f)) {
                break resp;
            }
        };
        // As the client: until the results' text parts are loaded (they bring their pairs).
        let mut text_rounds = 0;
        for _ in 0..8 {
            if resp.pending_text.iter().all(|f| lib.is_loaded(f)) {
                break;
            }
            text_rounds += 1;
            for f in resp.pending_text.clone() {
                load(&mut lib, &f)?;
            }
            resp = lib
                .search(query, &scope, &opts)
                .map_err(|e| e.to_string())?;
        }
        let line = json!({ "id": q["id"], "scope": scope_json, "results": resp.results.len(), "text_rounds": text_rounds, "files": files });
        writeln!(out, "{line}").map_err(err("stdout"))?;
    }
    Ok(())
}
