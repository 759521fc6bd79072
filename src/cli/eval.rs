//! `chsr eval`: run variants over an OpenCERB-format query set on every shard of a folder and
//! summarise (metrics per slice, paired bootstrap, failure taxonomy); [`super::report`] writes the
//! files and prints the tables.

use super::args::EvalArgs;
use super::report;
use chsr::scope::Scope;
use chsr::search::{Gating, Library};

/// Runs `chsr eval`: the tables go to stdout, the timing line to stderr.
pub(super) fn run(a: EvalArgs) -> Result<(), String> {
    use chsr::eval::{self, EvalSettings};
    if a.k == 0 || a.k > chsr::search::MAX_K {
        return Err(format!(
            "-k must be between 1 and {}, got {}",
            chsr::search::MAX_K,
            a.k
        ));
    }
    let mut systems = match &a.variants {
        Some(list) => eval::parse_systems(list, a.k)?,
        None => eval::all_systems(a.k),
    };
    for s in systems.iter_mut() {
        a.relax.apply(&mut s.opts)?;
    }
    let pairs = a
        .pairs
        .as_deref()
        .map(|p| eval::parse_pairs(p, &systems))
        .transpose()?;
    let bytes = std::fs::read(&a.queries)
        .map_err(|e| format!("{}: cannot read: {e}", a.queries.display()))?;
    let query_sha256 = chsr::format::sha256_hex(&bytes);
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: not valid UTF-8", a.queries.display()))?;
    let queries = eval::queries::parse_queries(&a.queries.display().to_string(), &text)
        .map_err(|e| e.to_string())?;
    let t0 = std::time::Instant::now();
    let mut lib = Library::open_dir(&a.shards).map_err(|e| e.to_string())?;
    lib.load_needed_from_dir(&a.shards, &Scope::new(), Gating::Ungated)
        .map_err(|e| e.to_string())?;
    lib.load_model_from_dir(&a.shards)
        .map_err(|e| e.to_string())?;
    if !lib.has_model() {
        eprintln!("note: the shards have no embedding model: variant A returns nothing and B-E are lexical only");
    }
    let t_load = t0.elapsed().as_secs_f64();
    for note in eval::check_scopes(&lib, &queries)? {
        eprintln!("note: {note}");
    }
    if a.expand > 100_000 {
        return Err(format!("--expand must be at most 100000, got {}", a.expand));
    }
    let runs = eval::run_systems_expanding(&lib, &queries, &systems, a.repeat, a.expand)
        .map_err(|e| e.to_string())?;
    let t_run = t0.elapsed().as_secs_f64() - t_load;
    let settings = EvalSettings {
        k: a.k,
        pairs,
        resamples: a.resamples,
        seed: a.seed,
        repeat: a.repeat,
        query_file: a
            .queries
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default(),
        query_sha256,
        expand_chars: a.expand,
    };
    let rep = eval::summarise(&lib, &queries, &runs, &settings);
    report::write(&a, &rep, &queries, &runs)?;
    report::print(&rep, a.k);
    let t_explain: f64 = runs.iter().map(|r| r.explain_secs).sum();
    eprintln!(
        "evaluated {} queries x {} variants at k={} (shards loaded in {:.2}s, searches in {:.2}s, \
         of which {:.2}s explaining the misses)",
        queries.len(),
        systems.len(),
        a.k,
        t_load,
        t_run,
        t_explain
    );
    Ok(())
}
