//! `chsr search` and `chsr explain`: load the shards a scope needs, run one query, and print
//! the results (plain, `--context` for a language model, or `--json`) or the stage-by-stage
//! explanation of where expected chunks were lost.

use super::args::{ExplainArgs, SearchArgs};
use chsr::format::Field;
use chsr::scope::Scope;
use chsr::search::{Gating, Library, SearchOptions, Variant};

/// The `--variant` value, or an error listing the valid ones.
fn variant_arg(v: &str) -> Result<Variant, String> {
    Variant::parse(v).ok_or_else(|| format!("unknown --variant {v:?}; valid: A, B, B+, C, D, E, F"))
}

/// Runs `chsr search` and prints its results.
pub(super) fn search(a: SearchArgs) -> Result<(), String> {
    let mut opts = SearchOptions::for_variant(variant_arg(&a.variant)?);
    if let Some(d) = a.dense {
        opts.stages.dense = d;
    }
    if let Some(g) = &a.gating {
        opts.stages.gating = Gating::parse(g).ok_or_else(|| {
            format!("unknown --gating {g:?}; valid: gated, ungated, post_filtered")
        })?;
    }
    opts.k = a.k;
    opts.expand_chars = a.expand;
    a.relax.apply(&mut opts)?;
    let scope = a.scope.scope()?;
    let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
    scope.validate(lib.manifest()).map_err(|e| e.to_string())?;
    lib.load_needed_from_dir(&a.shards, &scope, opts.stages.gating)
        .map_err(|e| e.to_string())?;
    if opts.stages.relax {
        // Relaxation may widen to the subject's other levels: load them too.
        let mut wide = scope.clone();
        wide.relax(Field::Level);
        lib.load_needed_from_dir(&a.shards, &wide, Gating::Gated)
            .map_err(|e| e.to_string())?;
    }
    lib.load_model_from_dir(&a.shards)
        .map_err(|e| e.to_string())?;
    let resp = lib
        .search(&a.query, &scope, &opts)
        .map_err(|e| e.to_string())?;
    if a.context {
        print!("{}", lib.to_context(&resp));
        return Ok(());
    }
    if a.json {
        println!(
            "{}",
            serde_json::to_string(&resp).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    println!(
        "{} results | scope {} | {} of {} chunks admissible | {:.2} ms",
        resp.results.len(),
        scope,
        resp.trace.admissible,
        resp.trace.pool_chunks,
        resp.trace.timings.total_ms
    );
    if let Some(w) = resp.trace.weak_evidence.as_ref().filter(|w| w.weak) {
        let widened = resp.results.iter().filter(|h| !h.in_scope).count();
        println!(
            "Nothing in your scope matches this well{}{}.",
            if widened > 0 {
                format!(": {widened} result(s) below come from outside it (labelled)")
            } else {
                String::new()
            },
            if w.dropped > 0 {
                format!(
                    "; {} in-scope result(s) matching no query word or only a common one are not shown",
                    w.dropped
                )
            } else {
                String::new()
            }
        );
    }
    for h in &resp.results {
        let snippet: String = h.snippet.iter().map(|s| s.text.as_str()).collect();
        let label = match h.leakage {
            chsr::search::Leakage::InScope => String::new(),
            other => format!(
                "  ({})",
                serde_json::to_string(&other)
                    .unwrap_or_default()
                    .trim_matches('"')
            ),
        };
        println!(
            "{:>3}. {:.4}  {}  [{} / {} / {}]{label}\n     {}",
            h.rank,
            h.score,
            h.id,
            h.subject,
            h.level,
            h.doc_type,
            snippet.replace('\n', " ")
        );
    }
    for n in &resp.trace.notes {
        println!("note: {n}");
    }
    Ok(())
}

/// Runs `chsr explain` and prints the explanation.
pub(super) fn explain(a: ExplainArgs) -> Result<(), String> {
    let mut opts = SearchOptions::for_variant(variant_arg(&a.variant)?);
    if let Some(d) = a.dense {
        opts.stages.dense = d;
    }
    opts.k = a.k;
    let scope = a.scope.scope()?;
    let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
    scope.validate(lib.manifest()).map_err(|e| e.to_string())?;
    // Every shard is loaded so that a chunk outside the scope can still be located.
    lib.load_needed_from_dir(&a.shards, &Scope::new(), Gating::Ungated)
        .map_err(|e| e.to_string())?;
    lib.load_model_from_dir(&a.shards)
        .map_err(|e| e.to_string())?;
    let ex = chsr::explain::explain(&lib, &a.query, &scope, &opts, &a.expect)
        .map_err(|e| e.to_string())?;
    if a.json {
        println!("{}", serde_json::to_string(&ex).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!(
        "variant {} | scope {} | {} results | {} of {} chunks admissible",
        opts.variant.name(),
        scope,
        ex.response.results.len(),
        ex.response.trace.admissible,
        ex.response.trace.pool_chunks
    );
    let r = |x: Option<usize>| x.map_or("-".to_string(), |v| v.to_string());
    for c in &ex.chunks {
        println!(
            "{:<16} {}  [gate {} | bm25 {} | dense {} | fused {} | final {}]\n                 {}",
            c.verdict,
            c.id,
            if c.admitted {
                "ok".to_string()
            } else {
                format!("excluded by {}", c.excluded_by.as_deref().unwrap_or("?"))
            },
            r(c.bm25_rank),
            r(c.dense_rank),
            r(c.fused_rank),
            r(c.final_rank),
            c.explanation
        );
    }
    Ok(())
}
