//! Distillation of a static embedding model from a BERT sentence transformer (feature `distill`,
//! native only).
//!
//! The method is Model2Vec's: every ordinary token of the vocabulary goes through the transformer
//! alone, as `[CLS] token [SEP]`, and the three output states are mean-pooled (sentence-transformers
//! pooling with a full attention mask). A PCA fitted on all those vectors reduces them to D
//! dimensions. Each token gets a weight (Zipf or SIF, see [`Weighting`]), the vectors are quantised
//! (int8 with a per-row scale, or f16) and written as a model file ([`crate::format::model`]).
//!
//! Pruning keeps the tokens that occur in the given corpora (tokenised with the library's own
//! WordPiece) plus the first `common_tokens` ordinary tokens of the vocabulary (BERT ids roughly
//! follow frequency). The forward pass and the PCA always cover every ordinary token, so a pruned
//! model is exactly the full model minus rows. The full vocabulary is kept for tokenisation either
//! way: pruned tokens are still recognised, they just carry no vector.
//!
//! The forward pass uses candle's BERT on the CPU; everything after it is plain loops in a fixed
//! order, so the same inputs give the same file bytes.

pub mod pca;
pub mod tokenlearn;

use crate::corpus::read_files;
use crate::embed::WordPiece;
use crate::format::model::{
    encode_model, f32_blob, f32_to_f16, ModelHeader, ModelPayload, PcaInfo, PruningInfo,
    Quantization, TokenizerSpec, Weighting,
};
use crate::format::sha256_hex;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use pca::Pca;
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Default source model id recorded in the header.
pub const DEFAULT_SOURCE_MODEL: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Errors of the distillation.
#[derive(Debug)]
pub enum DistillError {
    /// A file could not be read or written.
    Io(String),
    /// The source model folder is incomplete or inconsistent.
    Source(String),
    /// The transformer failed.
    Model(String),
    /// A corpus could not be read.
    Corpus(String),
    /// Invalid options.
    Options(String),
}

impl fmt::Display for DistillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DistillError::Io(m) => write!(f, "I/O: {m}"),
            DistillError::Source(m) => write!(f, "source model: {m}"),
            DistillError::Model(m) => write!(f, "transformer: {m}"),
            DistillError::Corpus(m) => write!(f, "corpus: {m}"),
            DistillError::Options(m) => write!(f, "options: {m}"),
        }
    }
}

impl std::error::Error for DistillError {}

impl From<candle_core::Error> for DistillError {
    fn from(e: candle_core::Error) -> Self {
        DistillError::Model(e.to_string())
    }
}

/// Which weighting to bake in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WeightingChoice {
    /// All ones.
    Uniform,
    /// `ln(1 + id)`.
    ZipfRank,
    /// `a / (a + p)` with Zipf probabilities from the vocabulary id.
    SifRank(f32),
    /// `a / (a + p)` with probabilities counted on the `--vocab` corpora.
    SifCorpus(f32),
}

impl WeightingChoice {
    /// Parses `uniform`, `zipf`, `sif-rank`, `sif-corpus` (with the SIF constant `a`).
    pub fn parse(name: &str, a: f32) -> Option<WeightingChoice> {
        Some(match name {
            "uniform" | "none" => WeightingChoice::Uniform,
            "zipf" => WeightingChoice::ZipfRank,
            "sif-rank" | "sif" => WeightingChoice::SifRank(a),
            "sif-corpus" => WeightingChoice::SifCorpus(a),
            _ => return None,
        })
    }
}

/// Options of [`distill`].
#[derive(Clone, Debug)]
pub struct DistillOptions {
    /// Folder with `config.json`, `vocab.txt`, `model.safetensors` (and optionally `tokenizer.json`).
    pub model_dir: PathBuf,
    /// Output dimension D (≤ the transformer's hidden size).
    pub dims: usize,
    /// Corpora (JSONL) whose tokens are kept; empty = keep every ordinary token.
    pub vocab_corpora: Vec<PathBuf>,
    /// Ordinary tokens kept by id order in addition to the corpus tokens.
    pub common_tokens: usize,
    /// Vector storage.
    pub quantization: Quantization,
    /// Token weighting.
    pub weighting: WeightingChoice,
    /// Source model id recorded in the header.
    pub source_model: String,
    /// Sequences per forward batch.
    pub batch_size: usize,
    /// Optional cache of the forward pass (pooled vectors of every ordinary token).
    pub forward_cache: Option<PathBuf>,
}

impl DistillOptions {
    /// Defaults: D = 256, full vocabulary, int8, SIF weights from the vocabulary rank (a = 1e-4).
    pub fn new(model_dir: PathBuf) -> DistillOptions {
        DistillOptions {
            model_dir,
            dims: 256,
            vocab_corpora: Vec::new(),
            common_tokens: 0,
            quantization: Quantization::Int8,
            weighting: WeightingChoice::SifRank(1e-4),
            source_model: DEFAULT_SOURCE_MODEL.into(),
            batch_size: 512,
            forward_cache: None,
        }
    }
}

/// What a distillation did.
#[derive(Clone, Debug, Default)]
pub struct DistillReport {
    /// Vocabulary size.
    pub vocab_size: usize,
    /// Ordinary tokens run through the transformer.
    pub ordinary: usize,
    /// Rows kept.
    pub kept: usize,
    /// Explained variance of the kept components.
    pub explained_variance: f64,
    /// Seconds in the forward pass (0 when cached).
    pub forward_secs: f64,
    /// Seconds counting corpus tokens.
    pub corpus_secs: f64,
    /// Seconds in the PCA.
    pub pca_secs: f64,
    /// Seconds in total.
    pub total_secs: f64,
    /// Whether the forward pass came from the cache.
    pub cached: bool,
}

/// The source model files.
pub struct Source {
    /// BERT configuration.
    pub config: Config,
    /// Vocabulary in id order.
    pub vocab: Vec<String>,
    /// The `model.safetensors` bytes.
    pub weights: Vec<u8>,
    /// SHA-256 of the weights.
    pub weights_sha256: String,
}

fn read(path: &Path) -> Result<Vec<u8>, DistillError> {
    std::fs::read(path).map_err(|e| DistillError::Io(format!("{}: {e}", path.display())))
}

/// Reads `config.json`, `vocab.txt`, `model.safetensors`, and checks `tokenizer.json` (if present)
/// describes BERT's uncased WordPiece.
pub fn load_source(dir: &Path) -> Result<Source, DistillError> {
    let config: Config = serde_json::from_slice(&read(&dir.join("config.json"))?)
        .map_err(|e| DistillError::Source(format!("config.json: {e}")))?;
    let vocab_text = String::from_utf8(read(&dir.join("vocab.txt"))?)
        .map_err(|e| DistillError::Source(format!("vocab.txt: {e}")))?;
    let vocab: Vec<String> = vocab_text
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .collect();
    if vocab.len() != config.vocab_size {
        return Err(DistillError::Source(format!(
            "vocab.txt has {} tokens, config.json says {}",
            vocab.len(),
            config.vocab_size
        )));
    }
    let tj = dir.join("tokenizer.json");
    if tj.exists() {
        let v: serde_json::Value = serde_json::from_slice(&read(&tj)?)
            .map_err(|e| DistillError::Source(format!("tokenizer.json: {e}")))?;
        let expect = TokenizerSpec::bert_uncased();
        let n = &v["normalizer"];
        let m = &v["model"];
        let ok = n["type"] == "BertNormalizer"
            && n["lowercase"] == true
            && n["clean_text"] == true
            && n["handle_chinese_chars"] == true
            && (n["strip_accents"].is_null() || n["strip_accents"] == true)
            && v["pre_tokenizer"]["type"] == "BertPreTokenizer"
            && m["type"] == "WordPiece"
            && m["unk_token"] == expect.unk_token.as_str()
            && m["continuing_subword_prefix"] == expect.continuing_subword_prefix.as_str()
            && m["max_input_chars_per_word"] == expect.max_input_chars_per_word;
        if !ok {
            return Err(DistillError::Source(
                "tokenizer.json is not BERT uncased WordPiece (the only tokenizer implemented)"
                    .into(),
            ));
        }
    }
    let weights = read(&dir.join("model.safetensors"))?;
    let weights_sha256 = sha256_hex(&weights);
    Ok(Source {
        config,
        vocab,
        weights,
        weights_sha256,
    })
}

/// Whether a vocabulary entry is a special token (`[CLS]`, `[unused7]`, …).
pub fn is_special(token: &str) -> bool {
    token.len() > 2 && token.starts_with('[') && token.ends_with(']')
}

/// Counts token ids over the `text` of every chunk of the corpora.
pub fn corpus_counts(
    tok: &WordPiece,
    vocab_size: usize,
    files: &[PathBuf],
) -> Result<Vec<u64>, DistillError> {
    let chunks = read_files(files).map_err(|e| DistillError::Corpus(e.to_string()))?;
    let mut counts = vec![0u64; vocab_size];
    for c in &chunks {
        for id in tok.encode(&c.record.text) {
            counts[id as usize] += 1;
        }
    }
    Ok(counts)
}

/// Runs `[CLS] id [SEP]` for each id through the model and mean-pools the three output states.
pub fn forward_tokens(
    model: &BertModel,
    cls: u32,
    sep: u32,
    ids: &[u32],
    batch: usize,
    hidden: usize,
) -> Result<Vec<f32>, DistillError> {
    let device = Device::Cpu;
    let mut out = Vec::with_capacity(ids.len() * hidden);
    for chunk in ids.chunks(batch.max(1)) {
        let input: Vec<u32> = chunk.iter().flat_map(|&id| [cls, id, sep]).collect();
        let input = Tensor::from_vec(input, (chunk.len(), 3), &device)?;
        let types = input.zeros_like()?;
        let states = model.forward(&input, &types, None)?;
        let pooled = states.mean(1)?;
        out.extend(pooled.flatten_all()?.to_vec1::<f32>()?);
    }
    Ok(out)
}

/// Each of `ids` through the model ([`forward_tokens`], `[CLS] id [SEP]`, `batch` at a time):
/// `ids.len()` × hidden values, read from the forward cache at `cache` when it holds them for
/// these weights and ids, else computed and written there. Also says whether the cache answered.
pub(crate) fn token_vectors(
    source: &Source,
    cache: Option<&Path>,
    (cls, sep): (u32, u32),
    ids: &[u32],
    batch: usize,
) -> Result<(Vec<f32>, bool), DistillError> {
    let hidden = source.config.hidden_size;
    if let Some(v) =
        cache.and_then(|p| load_cache(p, &source.weights_sha256, ids, ids.len(), hidden))
    {
        return Ok((v, true));
    }
    let vb =
        VarBuilder::from_buffered_safetensors(source.weights.clone(), DType::F32, &Device::Cpu)?;
    let model = BertModel::load(vb, &source.config)?;
    let v = forward_tokens(&model, cls, sep, ids, batch, hidden)?;
    if let Some(p) = cache {
        save_cache(p, &source.weights_sha256, ids, ids.len(), hidden, &v)?;
    }
    Ok((v, false))
}

const CACHE_MAGIC: &[u8; 8] = b"CHSRFWDC";

/// Reads a cache of `rows` × `hidden` values keyed by the weights' SHA-256 and the ids `key`
/// (`None` when absent or made for other inputs).
pub(crate) fn load_cache(
    path: &Path,
    sha: &str,
    key: &[u32],
    rows: usize,
    hidden: usize,
) -> Option<Vec<f32>> {
    let bytes = std::fs::read(path).ok()?;
    let head = 8 + 64 + 8 + 8 + 32;
    if bytes.len() < head || &bytes[..8] != CACHE_MAGIC || &bytes[8..72] != sha.as_bytes() {
        return None;
    }
    let n = u64::from_le_bytes(bytes[72..80].try_into().ok()?) as usize;
    let h = u64::from_le_bytes(bytes[80..88].try_into().ok()?) as usize;
    let ids_hash = &bytes[88..120];
    let want: Vec<u8> = key.iter().flat_map(|i| i.to_le_bytes()).collect();
    if n != rows || h != hidden || ids_hash != Sha256::digest(&want).as_slice() {
        return None;
    }
    let data = &bytes[head..];
    if data.len() != n * h * 4 {
        return None;
    }
    Some(
        data.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Writes a cache read back by [`load_cache`].
pub(crate) fn save_cache(
    path: &Path,
    sha: &str,
    key: &[u32],
    rows: usize,
    hidden: usize,
    data: &[f32],
) -> Result<(), DistillError> {
    let mut out = Vec::with_capacity(120 + data.len() * 4);
    out.extend_from_slice(CACHE_MAGIC);
    out.extend_from_slice(sha.as_bytes());
    out.extend_from_slice(&(rows as u64).to_le_bytes());
    out.extend_from_slice(&(hidden as u64).to_le_bytes());
    let idb: Vec<u8> = key.iter().flat_map(|i| i.to_le_bytes()).collect();
    out.extend_from_slice(&Sha256::digest(&idb));
    out.extend(data.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(path, out).map_err(|e| DistillError::Io(format!("{}: {e}", path.display())))
}

/// The weight of each kept row.
pub fn token_weights(
    choice: WeightingChoice,
    row_ids: &[u32],
    vocab_size: usize,
    counts: Option<&[u64]>,
) -> Result<(Vec<f32>, Weighting), DistillError> {
    Ok(match choice {
        WeightingChoice::Uniform => (vec![1.0; row_ids.len()], Weighting::Uniform),
        WeightingChoice::ZipfRank => (
            row_ids
                .iter()
                .map(|&id| (1.0 + id as f64).ln() as f32)
                .collect(),
            Weighting::ZipfRank,
        ),
        WeightingChoice::SifRank(a) => {
            let z: f64 = (0..vocab_size).map(|r| 1.0 / (r as f64 + 1.0)).sum();
            let w = row_ids
                .iter()
                .map(|&id| {
                    let p = 1.0 / (id as f64 + 1.0) / z;
                    (a as f64 / (a as f64 + p)) as f32
                })
                .collect();
            (w, Weighting::SifRank { a })
        }
        WeightingChoice::SifCorpus(a) => {
            let counts = counts.ok_or_else(|| {
                DistillError::Options("sif-corpus weighting needs --vocab corpora".into())
            })?;
            let total: u64 = counts.iter().sum();
            let denom = (total + vocab_size as u64) as f64;
            let w = row_ids
                .iter()
                .map(|&id| {
                    let p = (counts[id as usize] + 1) as f64 / denom;
                    (a as f64 / (a as f64 + p)) as f32
                })
                .collect();
            (
                w,
                Weighting::SifCorpus {
                    a,
                    total_tokens: total,
                },
            )
        }
    })
}

/// Quantises row-major vectors; returns (scales blob, vectors blob).
pub fn quantize(vectors: &[f32], dims: usize, q: Quantization) -> (Vec<u8>, Vec<u8>) {
    match q {
        Quantization::Int8 => {
            let mut scales = Vec::with_capacity(vectors.len() / dims);
            let mut data = Vec::with_capacity(vectors.len());
            for row in vectors.chunks_exact(dims) {
                let max = row.iter().fold(0f32, |m, &x| m.max(x.abs()));
                let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
                scales.push(scale);
                for &x in row {
                    let v = (x / scale).round().clamp(-127.0, 127.0) as i8;
                    data.push(v as u8);
                }
            }
            (f32_blob(&scales), data)
        }
        Quantization::F16 => (
            Vec::new(),
            vectors
                .iter()
                .flat_map(|&x| f32_to_f16(x).to_le_bytes())
                .collect(),
        ),
    }
}

/// Distils a model file; returns its bytes and a report.
pub fn distill(opts: &DistillOptions) -> Result<(Vec<u8>, DistillReport), DistillError> {
    let t0 = Instant::now();
    let mut report = DistillReport::default();
    let source = load_source(&opts.model_dir)?;
    let hidden = source.config.hidden_size;
    if opts.dims == 0 || opts.dims > hidden {
        return Err(DistillError::Options(format!(
            "--dims must be in 1..={hidden} (the transformer's hidden size)"
        )));
    }
    let spec = TokenizerSpec::bert_uncased();
    let tok = WordPiece::new(&source.vocab, spec.clone()).map_err(DistillError::Source)?;
    let id_of = |t: &str| {
        tok.token_id(t)
            .ok_or_else(|| DistillError::Source(format!("{t} is not in vocab.txt")))
    };
    let (cls, sep) = (id_of("[CLS]")?, id_of("[SEP]")?);
    let vocab_size = source.vocab.len();
    let ordinary: Vec<u32> = (0..vocab_size as u32)
        .filter(|&i| !is_special(&source.vocab[i as usize]))
        .collect();
    report.vocab_size = vocab_size;
    report.ordinary = ordinary.len();

    // Corpus counts (pruning and/or SIF).
    let t = Instant::now();
    let counts = if opts.vocab_corpora.is_empty() {
        None
    } else {
        Some(corpus_counts(&tok, vocab_size, &opts.vocab_corpora)?)
    };
    report.corpus_secs = t.elapsed().as_secs_f64();

    // Forward pass over every ordinary token.
    let t = Instant::now();
    let (pooled, cached) = token_vectors(
        &source,
        opts.forward_cache.as_deref(),
        (cls, sep),
        &ordinary,
        opts.batch_size,
    )?;
    report.cached = cached;
    if !cached {
        report.forward_secs = t.elapsed().as_secs_f64();
    }
    if pooled.iter().any(|x| !x.is_finite()) {
        return Err(DistillError::Model(
            "the transformer produced non-finite values".into(),
        ));
    }

    // PCA on all ordinary tokens.
    let t = Instant::now();
    let pca = Pca::fit(&pooled, ordinary.len(), hidden);
    report.pca_secs = t.elapsed().as_secs_f64();
    report.explained_variance = pca.explained(opts.dims);

    // Rows kept.
    let keep: Vec<bool> = match &counts {
        None => vec![true; ordinary.len()],
        Some(c) => ordinary
            .iter()
            .enumerate()
            .map(|(k, &id)| k < opts.common_tokens || c[id as usize] > 0)
            .collect(),
    };
    let mut row_ids = Vec::new();
    let mut vectors = Vec::new();
    let mut buf = vec![0f32; opts.dims];
    for (k, &id) in ordinary.iter().enumerate() {
        if keep[k] {
            row_ids.push(id);
            pca.project(&pooled[k * hidden..(k + 1) * hidden], &mut buf);
            vectors.extend_from_slice(&buf);
        }
    }
    report.kept = row_ids.len();
    let (weights, weighting) =
        token_weights(opts.weighting, &row_ids, vocab_size, counts.as_deref())?;
    let (scales, data) = quantize(&vectors, opts.dims, opts.quantization);

    let mut corpus_hash = Sha256::new();
    for p in &opts.vocab_corpora {
        corpus_hash.update(read(p)?);
    }
    let pruning = PruningInfo {
        corpus_files: opts
            .vocab_corpora
            .iter()
            .map(|p| {
                p.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect(),
        corpus_sha256: if opts.vocab_corpora.is_empty() {
            String::new()
        } else {
            corpus_hash
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        },
        common_tokens: if counts.is_some() {
            opts.common_tokens as u32
        } else {
            0
        },
        kept: row_ids.len() as u32,
    };
    let header = ModelHeader {
        source_model: opts.source_model.clone(),
        source_sha256: source.weights_sha256.clone(),
        pooling: "mean of the last hidden states of [CLS] token [SEP]".into(),
        dims: opts.dims as u32,
        vocab_size: vocab_size as u32,
        rows: row_ids.len() as u32,
        quantization: opts.quantization,
        pca: PcaInfo {
            input_dims: hidden as u32,
            output_dims: opts.dims as u32,
            explained_variance: report.explained_variance as f32,
            fitted_on: ordinary.len() as u32,
        },
        weighting,
        pruning,
        tokenizer: spec,
        builder: format!("chsr {}", env!("CARGO_PKG_VERSION")),
    };
    let payload = ModelPayload {
        header,
        vocab: source.vocab,
        row_ids,
        weights: f32_blob(&weights),
        scales,
        vectors: data,
    };
    let bytes = encode_model(&payload);
    report.total_secs = t0.elapsed().as_secs_f64();
    Ok((bytes, report))
}
