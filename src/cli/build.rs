//! `chsr build`: JSONL corpora to one shard per (subject, level), manifest.json, and with a
//! model, the dense parts and the model file.

use chsr::build::{build, build_with_model_file, write_output, BuildOptions};
use chsr::corpus::{check_visibility, read_corpus};
use std::path::PathBuf;

/// Runs `chsr build` with its flags (see [`super::args::Cmd::Build`]); the summary goes to stderr.
pub(super) fn run(
    out: PathBuf,
    k1: f32,
    b: f32,
    private: bool,
    model: Option<PathBuf>,
    ef_search: usize,
    corpus: Vec<PathBuf>,
) -> Result<(), String> {
    let t0 = std::time::Instant::now();
    let read = read_corpus(&corpus).map_err(|e| e.to_string())?;
    for w in &read.warnings {
        eprintln!("{}: {w}", w.level());
    }
    let chunks = read.chunks;
    check_visibility(&chunks, private).map_err(|e| e.to_string())?;
    let byo = chsr::corpus::check_vectors(&chunks).map_err(|e| e.to_string())?;
    if let (Some((id, _)), Some(_)) = (&byo, &model) {
        return Err(format!(
            "the corpus brings its own vectors (model {id:?}) and --model would replace them: use one or the other"
        ));
    }
    if chunks.is_empty() {
        return Err("the corpus is empty: no chunk to index".into());
    }
    let opts = BuildOptions {
        k1,
        b,
        ef_search,
        ..Default::default()
    };
    let output = match &model {
        None => build(&chunks, &opts),
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            build_with_model_file(&chunks, &opts, &bytes)
                .map_err(|e| format!("{}: {e}", path.display()))?
        }
    };
    for w in &output.warnings {
        eprintln!("{}: {w}", w.level());
    }
    write_output(&output, &out).map_err(|e| format!("{}: {e}", out.display()))?;
    let secs = t0.elapsed().as_secs_f64();
    for s in &output.shards {
        eprintln!(
            "  {:<28} {:<14} {:>6} chunks {:>10} bytes  {}",
            s.entry.subject, s.entry.level, s.entry.chunks, s.entry.bytes, s.entry.file
        );
    }
    eprintln!(
        "built {} shards from {} chunks in {:.2}s ({:.0} chunks/s) into {}",
        output.shards.len(),
        chunks.len(),
        secs,
        chunks.len() as f64 / secs.max(1e-9),
        out.display()
    );
    Ok(())
}
