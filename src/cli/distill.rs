//! `chsr distill` (feature `distill`): the static embedding model distilled from a BERT
//! sentence transformer (see `scripts/fetch-minilm`).

use chsr::distill::tokenlearn::{train, PcaFit, TrainOptions};
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
    print_written(&a.out, &bytes);
    Ok(())
}

#[derive(Args)]
pub(super) struct TokenlearnArgs {
    /// Folder with config.json, vocab.txt, model.safetensors (the teacher).
    #[arg(long)]
    model_dir: PathBuf,
    /// The distilled model to start from (its vocabulary, rows, weights and D are kept).
    #[arg(long)]
    init: PathBuf,
    /// Output model file.
    #[arg(long)]
    out: PathBuf,
    /// Corpora (JSONL) the training texts come from.
    #[arg(long, num_args = 1.., required = true)]
    corpus: Vec<PathBuf>,
    /// Training texts at most (smallest hashes first).
    #[arg(long, default_value_t = 40_000)]
    max_texts: usize,
    /// Tokens per training text at most (≤ 510).
    #[arg(long, default_value_t = 64)]
    max_tokens: usize,
    /// Ridge strength toward the distilled vectors.
    #[arg(long, default_value_t = 1e-2)]
    lambda: f32,
    /// Conjugate-gradient iterations.
    #[arg(long, default_value_t = 60)]
    iterations: usize,
    /// PCA fitted on `tokens` (the distillation's) or `sentences` (the teacher's embeddings).
    #[arg(long, default_value = "tokens")]
    pca: String,
    /// Texts per teacher batch.
    #[arg(long, default_value_t = 64)]
    batch: usize,
    /// Reuse (or create) the token forward pass cache of `chsr distill --forward-cache`.
    #[arg(long)]
    forward_cache: Option<PathBuf>,
    /// Reuse (or create) a cache of the teacher's sentence embeddings.
    #[arg(long)]
    teacher_cache: Option<PathBuf>,
    /// Also write every chunk's teacher embedding in the trained space (JSONL id, vector) for
    /// the asymmetric-encoding measurement (examples/asym_build.rs).
    #[arg(long)]
    doc_vectors: Option<PathBuf>,
    /// Tokens per chunk at most for --doc-vectors (≤ 510).
    #[arg(long, default_value_t = 254)]
    max_doc_tokens: usize,
}

/// Runs `chsr tokenlearn`: writes the trained model file, prints the fit and its SHA-256.
pub(super) fn tokenlearn(a: TokenlearnArgs) -> Result<(), String> {
    let pca = match a.pca.as_str() {
        "tokens" => PcaFit::Tokens,
        "sentences" => PcaFit::Sentences,
        other => return Err(format!("unknown --pca {other:?}; valid: tokens, sentences")),
    };
    let opts = TrainOptions {
        model_dir: a.model_dir,
        init: a.init,
        corpora: a.corpus,
        max_texts: a.max_texts,
        max_tokens: a.max_tokens,
        lambda: a.lambda,
        iterations: a.iterations,
        pca,
        batch_size: a.batch,
        forward_cache: a.forward_cache,
        teacher_cache: a.teacher_cache,
        doc_vectors: a.doc_vectors,
        max_doc_tokens: a.max_doc_tokens,
    };
    let (bytes, r) = train(&opts).map_err(|e| e.to_string())?;
    std::fs::write(&a.out, &bytes).map_err(|e| format!("{}: {e}", a.out.display()))?;
    eprintln!(
        "{} texts ({} held out), {} rows seen; mean cosine to the teacher: fitted {:.4} -> {:.4}, \
         held out {:.4} -> {:.4}",
        r.texts, r.held_out, r.rows_seen, r.fit_cos.0, r.fit_cos.1, r.held_cos.0, r.held_cos.1
    );
    eprintln!(
        "time: teacher {:.1}s ({:.0} texts/s{}), fit {:.1}s",
        r.teacher_secs,
        r.teacher_rate,
        if r.teacher_secs == 0.0 {
            ", cached"
        } else {
            ""
        },
        r.fit_secs
    );
    print_written(&a.out, &bytes);
    Ok(())
}

/// The line both commands end with: the model file written, its size and SHA-256.
fn print_written(out: &std::path::Path, bytes: &[u8]) {
    println!(
        "{}  {} bytes  sha256 {}",
        out.display(),
        bytes.len(),
        sha256_hex(bytes)
    );
}
