//! `chsr distill` (feature `distill`): the static embedding model distilled from a BERT
//! sentence transformer (see `scripts/fetch-minilm`).

use chsr::distill::{distill, DistillOptions, WeightingChoice, DEFAULT_SOURCE_MODEL};
use chsr::format::model::Quantization;
use chsr::format::sha256_hex;
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub(super) struct DistillArgs {
    /// Folder with config.json, vocab.txt, model.safetensors (tokenizer.json is checked).
    #[arg(long)]
    model_dir: PathBuf,
    /// Output model file.
    #[arg(long)]
    out: PathBuf,
    /// Dimensions kept by the PCA.
    #[arg(long, default_value_t = 256)]
    dims: usize,
    /// Corpora (JSONL): keep only the tokens they use (plus --common); none = full vocabulary.
    #[arg(long, num_args = 1..)]
    vocab: Vec<PathBuf>,
    /// With --vocab: also keep the first N ordinary tokens of the vocabulary (by id).
    #[arg(long, default_value_t = 5000)]
    common: usize,
    /// Vector storage: int8 (per-row scale) or f16.
    #[arg(long, default_value = "int8")]
    quant: String,
    /// Token weighting: sif-corpus (needs --vocab), sif-rank, zipf, uniform; auto = sif-corpus
    /// with --vocab, else sif-rank.
    #[arg(long, default_value = "auto")]
    weighting: String,
    /// SIF constant a.
    #[arg(long, default_value_t = 1e-4)]
    sif_a: f32,
    /// Source model id recorded in the file.
    #[arg(long, default_value = DEFAULT_SOURCE_MODEL)]
    source_model: String,
    /// Sequences per forward batch.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Reuse (or create) a cache of the forward pass (for parameter sweeps).
    #[arg(long, hide = true)]
    forward_cache: Option<PathBuf>,
}

/// Runs `chsr distill`: writes the model file, prints its size and SHA-256.
pub(super) fn run(a: DistillArgs) -> Result<(), String> {
    let quantization = Quantization::parse(&a.quant)
        .ok_or_else(|| format!("unknown --quant {:?}; valid: int8, f16", a.quant))?;
    let name = match a.weighting.as_str() {
        "auto" if a.vocab.is_empty() => "sif-rank",
        "auto" => "sif-corpus",
        other => other,
    };
    let weighting = WeightingChoice::parse(name, a.sif_a).ok_or_else(|| {
        format!(
            "unknown --weighting {:?}; valid: auto, sif-corpus, sif-rank, zipf, uniform",
            a.weighting
        )
    })?;
    let mut opts = DistillOptions::new(a.model_dir);
    opts.dims = a.dims;
    opts.vocab_corpora = a.vocab;
    opts.common_tokens = a.common;
    opts.quantization = quantization;
    opts.weighting = weighting;
    opts.source_model = a.source_model;
    opts.batch_size = a.batch;
    opts.forward_cache = a.forward_cache;
    let (bytes, r) = distill(&opts).map_err(|e| e.to_string())?;
    std::fs::write(&a.out, &bytes).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!(
        "distilled {} of {} tokens ({} ordinary) to D={} {}: explained variance {:.3}",
        r.kept,
        r.vocab_size,
        r.ordinary,
        opts.dims,
        quantization.name(),
        r.explained_variance
    );
    eprintln!(
        "time: forward {:.1}s{}, corpus {:.1}s, pca {:.1}s, total {:.1}s",
        r.forward_secs,
        if r.cached { " (cached)" } else { "" },
        r.corpus_secs,
        r.pca_secs,
        r.total_secs
    );
    println!(
        "{}  {} bytes  sha256 {}",
        a.out.display(),
        bytes.len(),
        sha256_hex(&bytes)
    );
    Ok(())
}
