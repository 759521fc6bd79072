//! Tokenlearn-style training of the static model (feature `distill`, native only): the static
//! token vectors are fitted so that their pooled sentence vectors match the transformer's own
//! sentence embeddings of texts taken from the corpus (model2vec's *tokenlearn*, here as a ridge
//! regression solved by conjugate gradient).
//!
//! 1. **Training texts** ([`training_texts`]): the corpus only — every chunk's sentences (lines
//!    split after `.`, `?`, `!`), the head of every chunk (its first tokens, exercise statements
//!    included) and the chapter and section titles; deduplicated by token ids, truncated to
//!    `max_tokens`, and when there are more than `max_texts`, the ones with the smallest SHA-256
//!    of their ids are kept. One text in 20 (by the same hash) is held out of the fit and only
//!    reported (the fit's own over-fitting check; no query set is read).
//! 2. **Teacher** ([`teacher_embed`]): the transformer on `[CLS] ids [SEP]`, mean pooling over the
//!    attention mask, L2-normalised (all-MiniLM-L6-v2's sentence embedding).
//! 3. **Space**: the PCA of the distillation (fitted on the token vectors, so the initial vectors
//!    are exactly the distilled model's), or a PCA fitted on the teacher's sentence embeddings
//!    (`PcaFit::Sentences`, tokenlearn's choice), D dimensions either way. Targets are the
//!    projected teacher embeddings minus their mean, normalised and scaled to the RMS norm of the
//!    initial pooled vectors.
//! 4. **Fit** ([`ridge_cg`]): the runtime pooling is linear in the token vectors (a text's vector
//!    is Σ c·w·v over its tokens, normalised; before normalisation, divided by Σ c·w it is a
//!    weighted mean), so with A the texts × rows matrix of those coefficients, the vectors V
//!    minimise ‖A V − Y‖² + λ‖V − V₀‖² (V₀ the distilled vectors): (AᵀA + λI) V = AᵀY + λV₀, one
//!    conjugate-gradient run per dimension, started at V₀.
//!
//! The vocabulary, pruning, SIF weights and tokenizer are the initial model's; only the vectors
//! change. Every loop runs in a fixed order on one thread (the transformer's matrix products are
//! candle's, as in the distillation), so the same inputs give the same file bytes.

use super::pca::Pca;
use super::{is_special, load_cache, load_source, quantize, save_cache, token_vectors};
use super::{DistillError, Source};
use crate::corpus::read_files;
use crate::embed::WordPiece;
use crate::format::model::{decode_model, encode_model, f32_at, ModelPayload};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

/// Which vectors the PCA is fitted on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PcaFit {
    /// The distillation's PCA (all ordinary token vectors): V₀ is the distilled model.
    Tokens,
    /// The teacher's sentence embeddings of the training texts.
    Sentences,
}

/// Options of [`train`].
#[derive(Clone, Debug)]
pub struct TrainOptions {
    /// The transformer's folder (as for `chsr distill`).
    pub model_dir: PathBuf,
    /// The distilled model whose vocabulary, rows, weights and dimension are kept.
    pub init: PathBuf,
    /// Corpora (JSONL) the training texts come from.
    pub corpora: Vec<PathBuf>,
    /// At most this many training texts (by hash order).
    pub max_texts: usize,
    /// Tokens per text at most, `[CLS]` and `[SEP]` excluded.
    pub max_tokens: usize,
    /// Ridge strength λ (pull toward the distilled vectors).
    pub lambda: f32,
    /// Conjugate-gradient iterations.
    pub iterations: usize,
    /// Which PCA defines the space.
    pub pca: PcaFit,
    /// Sequences per teacher batch.
    pub batch_size: usize,
    /// Cache of the token forward pass (shared with `chsr distill --forward-cache`).
    pub forward_cache: Option<PathBuf>,
    /// Cache of the teacher's sentence embeddings.
    pub teacher_cache: Option<PathBuf>,
    /// Also embed every chunk (its index text, first `max_doc_tokens` tokens) with the teacher,
    /// in the trained model's space, and write `{"id", "vector"}` lines here (asymmetric
    /// encoding, measured with `examples/asym_build.rs`).
    pub doc_vectors: Option<PathBuf>,
    /// Tokens per document at most for `doc_vectors`.
    pub max_doc_tokens: usize,
}

/// What a training run did.
#[derive(Clone, Debug, Default)]
pub struct TrainReport {
    /// Training texts (fit + held out).
    pub texts: usize,
    /// Texts held out of the fit.
    pub held_out: usize,
    /// Rows of the model that occur in the fitted texts.
    pub rows_seen: usize,
    /// Mean cosine(static, target) on the fitted texts, before and after.
    pub fit_cos: (f64, f64),
    /// The same on the held-out texts.
    pub held_cos: (f64, f64),
    /// Seconds in the teacher (0 when cached).
    pub teacher_secs: f64,
    /// Teacher texts per second (0 when cached).
    pub teacher_rate: f64,
    /// Seconds in the fit.
    pub fit_secs: f64,
}

/// Splits a line into sentences after `.`, `?` or `!` followed by white space.
fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut prev_end = false;
    for (i, ch) in line.char_indices() {
        if prev_end && ch.is_whitespace() {
            out.push(line[start..i].trim());
            start = i;
        }
        prev_end = matches!(ch, '.' | '?' | '!');
    }
    out.push(line[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

fn ids_hash(ids: &[u32]) -> [u8; 32] {
    let bytes: Vec<u8> = ids.iter().flat_map(|i| i.to_le_bytes()).collect();
    Sha256::digest(&bytes).into()
}

/// The training texts of the corpora as token-id sequences (see the module documentation):
/// at least `min_tokens` tokens with a vector (`has_row`), at most `max_tokens` tokens, unique,
/// at most `max_texts` of them, in hash order.
pub fn training_texts(
    files: &[PathBuf],
    tok: &WordPiece,
    has_row: &dyn Fn(u32) -> bool,
    max_tokens: usize,
    max_texts: usize,
) -> Result<Vec<Vec<u32>>, DistillError> {
    let chunks = read_files(files).map_err(|e| DistillError::Corpus(e.to_string()))?;
    let mut set: BTreeSet<([u8; 32], Vec<u32>)> = BTreeSet::new();
    let mut add = |text: &str, min_tokens: usize| {
        let mut ids = tok.encode(text);
        ids.truncate(max_tokens);
        if ids.iter().filter(|&&i| has_row(i)).count() >= min_tokens {
            set.insert((ids_hash(&ids), ids));
        }
    };
    for c in &chunks {
        let r = &c.record;
        for line in r.text.lines() {
            for s in sentences(line) {
                add(s, 3);
            }
        }
        add(&r.text, 3);
        for t in [&r.chapter_title, &r.section_title, &r.label]
            .into_iter()
            .flatten()
        {
            add(t, 1);
        }
    }
    Ok(set
        .into_iter()
        .take(max_texts)
        .map(|(_, ids)| ids)
        .collect())
}

/// The teacher's sentence embeddings of `texts` (mean pooling over the mask, L2-normalised),
/// batched by length; row-major, `hidden` values per text, in the order of `texts`.
pub fn teacher_embed(
    model: &BertModel,
    cls: u32,
    sep: u32,
    texts: &[Vec<u32>],
    batch: usize,
    hidden: usize,
) -> Result<Vec<f32>, DistillError> {
    let device = Device::Cpu;
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| (texts[i].len(), i));
    let mut out = vec![0f32; texts.len() * hidden];
    let t0 = Instant::now();
    for (b, group) in order.chunks(batch.max(1)).enumerate() {
        let len = group.iter().map(|&i| texts[i].len()).max().unwrap_or(0) + 2;
        let mut ids = Vec::with_capacity(group.len() * len);
        let mut mask = Vec::with_capacity(group.len() * len);
        for &i in group {
            let t = &texts[i];
            ids.push(cls);
            ids.extend_from_slice(t);
            ids.push(sep);
            mask.extend(std::iter::repeat_n(1u32, t.len() + 2));
            for _ in t.len() + 2..len {
                ids.push(0);
                mask.push(0);
            }
        }
        let input = Tensor::from_vec(ids, (group.len(), len), &device)?;
        let mask = Tensor::from_vec(mask, (group.len(), len), &device)?;
        let types = input.zeros_like()?;
        let states = model.forward(&input, &types, Some(&mask))?;
        let m = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = states.broadcast_mul(&m)?.sum(1)?;
        let counts = m.sum(1)?;
        let pooled = summed.broadcast_div(&counts)?.to_vec2::<f32>()?;
        for (&i, mut v) in group.iter().zip(pooled) {
            crate::embed::normalize(&mut v);
            out[i * hidden..(i + 1) * hidden].copy_from_slice(&v);
        }
        if b % 100 == 99 {
            eprintln!(
                "teacher: {} / {} texts, {:.0}/s",
                (b + 1) * batch,
                texts.len(),
                ((b + 1) * batch) as f64 / t0.elapsed().as_secs_f64()
            );
        }
    }
    Ok(out)
}

/// A sparse texts × rows matrix in compressed rows.
pub struct Design {
    /// Start of each text's entries in `cols`/`vals` (texts + 1 values).
    pub starts: Vec<usize>,
    /// Row (model row) of each entry.
    pub cols: Vec<u32>,
    /// Coefficient of each entry.
    pub vals: Vec<f32>,
}

impl Design {
    /// The runtime pooling as coefficients: count × weight over the text's rows, divided by their
    /// sum. `row_of` maps vocabulary ids to rows (u32::MAX for none).
    pub fn new(texts: &[&[u32]], row_of: &[u32], weights: &[f32]) -> Design {
        let mut d = Design {
            starts: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
        };
        for t in texts {
            let mut rows: Vec<u32> = t
                .iter()
                .map(|&i| row_of[i as usize])
                .filter(|&r| r != u32::MAX)
                .collect();
            rows.sort_unstable();
            let total: f64 = rows.iter().map(|&r| weights[r as usize] as f64).sum();
            let mut k = 0;
            while k < rows.len() {
                let r = rows[k];
                let n = rows[k..].iter().take_while(|&&x| x == r).count();
                d.cols.push(r);
                d.vals
                    .push((n as f64 * weights[r as usize] as f64 / total.max(1e-30)) as f32);
                k += n;
            }
            d.starts.push(d.cols.len());
        }
        d
    }

    /// Number of texts.
    pub fn texts(&self) -> usize {
        self.starts.len() - 1
    }

    /// `out = A V` (texts × dims).
    pub fn mul(&self, v: &[f32], dims: usize, out: &mut [f32]) {
        for t in 0..self.texts() {
            let o = &mut out[t * dims..(t + 1) * dims];
            o.iter_mut().for_each(|x| *x = 0.0);
            for e in self.starts[t]..self.starts[t + 1] {
                let (r, a) = (self.cols[e] as usize, self.vals[e]);
                for (x, &y) in o.iter_mut().zip(&v[r * dims..(r + 1) * dims]) {
                    *x += a * y;
                }
            }
        }
    }

    /// `out = Aᵀ Z` (rows × dims).
    pub fn mul_t(&self, z: &[f32], dims: usize, out: &mut [f32]) {
        out.iter_mut().for_each(|x| *x = 0.0);
        for t in 0..self.texts() {
            let zt = &z[t * dims..(t + 1) * dims];
            for e in self.starts[t]..self.starts[t + 1] {
                let (r, a) = (self.cols[e] as usize, self.vals[e]);
                for (x, &y) in out[r * dims..(r + 1) * dims].iter_mut().zip(zt) {
                    *x += a * y;
                }
            }
        }
    }
}

/// Solves (AᵀA + λI) V = AᵀY + λV₀ by conjugate gradient from V = V₀, each of the `dims`
/// columns with its own step sizes; returns V (rows × dims, row-major).
pub fn ridge_cg(
    a: &Design,
    y: &[f32],
    v0: &[f32],
    dims: usize,
    lambda: f32,
    iterations: usize,
) -> Vec<f32> {
    let n = v0.len();
    let mut tmp = vec![0f32; a.texts() * dims];
    let apply = |v: &[f32], out: &mut [f32], tmp: &mut [f32]| {
        a.mul(v, dims, tmp);
        a.mul_t(tmp, dims, out);
        for (o, &x) in out.iter_mut().zip(v) {
            *o += lambda * x;
        }
    };
    // r = AᵀY + λV₀ − (AᵀA + λI)V₀ = Aᵀ(Y − A V₀).
    let mut x = v0.to_vec();
    a.mul(v0, dims, &mut tmp);
    for (t, &yy) in tmp.iter_mut().zip(y) {
        *t = yy - *t;
    }
    let mut r = vec![0f32; n];
    a.mul_t(&tmp, dims, &mut r);
    let mut p = r.clone();
    let mut ap = vec![0f32; n];
    let col_dot = |u: &[f32], w: &[f32]| {
        let mut s = vec![0f64; dims];
        for (ur, wr) in u.chunks_exact(dims).zip(w.chunks_exact(dims)) {
            for ((s, &a), &b) in s.iter_mut().zip(ur).zip(wr) {
                *s += a as f64 * b as f64;
            }
        }
        s
    };
    let mut rr = col_dot(&r, &r);
    let rr0: f64 = rr.iter().sum();
    for it in 0..iterations {
        apply(&p, &mut ap, &mut tmp);
        let pap = col_dot(&p, &ap);
        let alpha = ratios(&rr, &pap);
        for ((xr, rrow), (pr, aprow)) in x
            .chunks_exact_mut(dims)
            .zip(r.chunks_exact_mut(dims))
            .zip(p.chunks_exact(dims).zip(ap.chunks_exact(dims)))
        {
            for j in 0..dims {
                xr[j] += alpha[j] * pr[j];
                rrow[j] -= alpha[j] * aprow[j];
            }
        }
        let rr_new = col_dot(&r, &r);
        let beta = ratios(&rr_new, &rr);
        for (prow, rrow) in p.chunks_exact_mut(dims).zip(r.chunks_exact(dims)) {
            for j in 0..dims {
                prow[j] = rrow[j] + beta[j] * prow[j];
            }
        }
        rr = rr_new;
        if it % 10 == 9 || it + 1 == iterations {
            let now: f64 = rr.iter().sum();
            eprintln!(
                "cg {}: residual {:.3e} of {:.3e}",
                it + 1,
                now.sqrt(),
                rr0.sqrt()
            );
        }
    }
    x
}

/// Mean cosine between the rows of `a` and `b` (`dims` values per row).
fn mean_cos(a: &[f32], b: &[f32], dims: usize) -> f64 {
    let mut s = 0f64;
    let mut n = 0usize;
    for (x, y) in a.chunks_exact(dims).zip(b.chunks_exact(dims)) {
        let (mut xy, mut xx, mut yy) = (0f64, 0f64, 0f64);
        for (&p, &q) in x.iter().zip(y) {
            xy += p as f64 * q as f64;
            xx += p as f64 * p as f64;
            yy += q as f64 * q as f64;
        }
        if xx > 0.0 && yy > 0.0 {
            s += xy / (xx * yy).sqrt();
        }
        n += 1;
    }
    s / n.max(1) as f64
}

fn teacher_cached(
    source: &Source,
    texts: &[Vec<u32>],
    opts: &TrainOptions,
    report: &mut TrainReport,
) -> Result<Vec<f32>, DistillError> {
    let hidden = source.config.hidden_size;
    let flat: Vec<u32> = texts
        .iter()
        .flat_map(|t| std::iter::once(t.len() as u32).chain(t.iter().copied()))
        .collect();
    if let Some(p) = &opts.teacher_cache {
        if let Some(v) = load_cache(p, &source.weights_sha256, &flat, texts.len(), hidden) {
            return Ok(v);
        }
    }
    let vb =
        VarBuilder::from_buffered_safetensors(source.weights.clone(), DType::F32, &Device::Cpu)?;
    let model = BertModel::load(vb, &source.config)?;
    let id = |t: &str| source.vocab.iter().position(|v| v == t).map(|i| i as u32);
    let (cls, sep) = (id("[CLS]").unwrap_or(101), id("[SEP]").unwrap_or(102));
    let t = Instant::now();
    let out = teacher_embed(&model, cls, sep, texts, opts.batch_size, hidden)?;
    report.teacher_secs = t.elapsed().as_secs_f64();
    report.teacher_rate = texts.len() as f64 / report.teacher_secs.max(1e-9);
    if let Some(p) = &opts.teacher_cache {
        save_cache(p, &source.weights_sha256, &flat, texts.len(), hidden, &out)?;
    }
    Ok(out)
}

/// Trains the model (see the module documentation); returns the model file's bytes.
pub fn train(opts: &TrainOptions) -> Result<(Vec<u8>, TrainReport), DistillError> {
    let mut report = TrainReport::default();
    if opts.max_tokens == 0 || opts.max_tokens > 510 || opts.max_doc_tokens > 510 {
        return Err(DistillError::Options(
            "--max-tokens and --max-doc-tokens must be in 1..=510 (BERT's 512 positions)".into(),
        ));
    }
    let init_bytes = std::fs::read(&opts.init)
        .map_err(|e| DistillError::Io(format!("{}: {e}", opts.init.display())))?;
    let init: ModelPayload =
        decode_model(&init_bytes).map_err(|e| DistillError::Source(e.to_string()))?;
    let source = load_source(&opts.model_dir)?;
    if source.weights_sha256 != init.header.source_sha256 || source.vocab != init.vocab {
        return Err(DistillError::Options(
            "--init was not distilled from this --model-dir".into(),
        ));
    }
    let hidden = source.config.hidden_size;
    let dims = init.header.dims as usize;
    let rows = init.row_ids.len();
    let tok =
        WordPiece::new(&init.vocab, init.header.tokenizer.clone()).map_err(DistillError::Source)?;
    let mut row_of = vec![u32::MAX; init.vocab.len()];
    for (r, &id) in init.row_ids.iter().enumerate() {
        row_of[id as usize] = r as u32;
    }
    let weights: Vec<f32> = (0..rows).map(|i| f32_at(&init.weights, i)).collect();

    // The token vectors of the distillation (cached forward pass).
    let ordinary: Vec<u32> = (0..init.vocab.len() as u32)
        .filter(|&i| !is_special(&init.vocab[i as usize]))
        .collect();
    let cls_sep = (
        tok.token_id("[CLS]").unwrap_or(101),
        tok.token_id("[SEP]").unwrap_or(102),
    );
    let (pooled, _) = token_vectors(
        &source,
        opts.forward_cache.as_deref(),
        cls_sep,
        &ordinary,
        512,
    )?;

    let texts = training_texts(
        &opts.corpora,
        &tok,
        &|i| row_of[i as usize] != u32::MAX,
        opts.max_tokens,
        opts.max_texts,
    )?;
    report.texts = texts.len();
    let teacher = teacher_cached(&source, &texts, opts, &mut report)?;

    let pca = match opts.pca {
        PcaFit::Tokens => Pca::fit(&pooled, ordinary.len(), hidden),
        PcaFit::Sentences => Pca::fit(&teacher, texts.len(), hidden),
    };
    let pos_of = |id: u32| {
        ordinary
            .binary_search(&id)
            .expect("rows are ordinary tokens")
    };
    let mut v0 = vec![0f32; rows * dims];
    for (r, &id) in init.row_ids.iter().enumerate() {
        let k = pos_of(id);
        pca.project(
            &pooled[k * hidden..(k + 1) * hidden],
            &mut v0[r * dims..(r + 1) * dims],
        );
    }

    // Targets: projected, centred, normalised, scaled to the initial pooled vectors' RMS norm.
    let t = Instant::now();
    let held: Vec<bool> = texts
        .iter()
        .map(|t| ids_hash(t)[31].is_multiple_of(20))
        .collect();
    report.held_out = held.iter().filter(|&&h| h).count();
    let mut y = vec![0f32; texts.len() * dims];
    for (i, row) in y.chunks_exact_mut(dims).enumerate() {
        pca.project(&teacher[i * hidden..(i + 1) * hidden], row);
    }
    let mut mean = vec![0f64; dims];
    for row in y.chunks_exact(dims) {
        for (m, &x) in mean.iter_mut().zip(row) {
            *m += x as f64 / texts.len() as f64;
        }
    }
    let all: Vec<&[u32]> = texts.iter().map(|t| t.as_slice()).collect();
    let design_all = Design::new(&all, &row_of, &weights);
    let mut p0 = vec![0f32; texts.len() * dims];
    design_all.mul(&v0, dims, &mut p0);
    let ms: f64 = p0.iter().map(|&x| x as f64 * x as f64).sum::<f64>() / texts.len() as f64;
    let scale = ms.sqrt();
    for row in y.chunks_exact_mut(dims) {
        for (x, m) in row.iter_mut().zip(&mean) {
            *x = (*x as f64 - m) as f32;
        }
        crate::embed::normalize(row);
        row.iter_mut().for_each(|x| *x = (*x as f64 * scale) as f32);
    }
    let pick = |want: bool, m: &[f32]| -> Vec<f32> {
        m.chunks_exact(dims)
            .zip(&held)
            .filter(|(_, &h)| h == want)
            .flat_map(|(r, _)| r.iter().copied())
            .collect()
    };
    let fit_texts: Vec<&[u32]> = all
        .iter()
        .zip(&held)
        .filter(|(_, &h)| !h)
        .map(|(t, _)| *t)
        .collect();
    let design = Design::new(&fit_texts, &row_of, &weights);
    let seen: BTreeSet<u32> = design.cols.iter().copied().collect();
    report.rows_seen = seen.len();
    let (y_fit, y_held) = (pick(false, &y), pick(true, &y));
    report.fit_cos.0 = mean_cos(&pick(false, &p0), &y_fit, dims);
    report.held_cos.0 = mean_cos(&pick(true, &p0), &y_held, dims);
    let v = ridge_cg(&design, &y_fit, &v0, dims, opts.lambda, opts.iterations);
    let mut p1 = vec![0f32; texts.len() * dims];
    design_all.mul(&v, dims, &mut p1);
    report.fit_cos.1 = mean_cos(&pick(false, &p1), &y_fit, dims);
    report.held_cos.1 = mean_cos(&pick(true, &p1), &y_held, dims);
    report.fit_secs = t.elapsed().as_secs_f64();

    if let Some(path) = &opts.doc_vectors {
        write_doc_vectors(&source, &tok, &pca, &mean, dims, opts, path)?;
    }

    let mut header = init.header.clone();
    header.pooling = format!(
        "{}; tokenlearn: vectors fitted to the teacher's normalised mean-pooled embeddings of {} \
         corpus texts (≤ {} tokens; ridge λ {} toward the distilled vectors, {} CG iterations; \
         PCA on {})",
        init.header.pooling,
        report.texts - report.held_out,
        opts.max_tokens,
        opts.lambda,
        opts.iterations,
        match opts.pca {
            PcaFit::Tokens => "the token vectors",
            PcaFit::Sentences => "the training texts' embeddings",
        }
    );
    header.pca.explained_variance = pca.explained(dims) as f32;
    if opts.pca == PcaFit::Sentences {
        header.pca.fitted_on = texts.len() as u32;
    }
    header.builder = format!("chsr {}", env!("CARGO_PKG_VERSION"));
    let (scales, vectors) = quantize(&v, dims, header.quantization);
    let payload = ModelPayload {
        header,
        vocab: init.vocab,
        row_ids: init.row_ids,
        weights: init.weights,
        scales,
        vectors,
    };
    Ok((encode_model(&payload), report))
}

/// The document side of asymmetric encoding: each chunk's index text through the teacher,
/// projected, centred with the training targets' mean and normalised, as JSONL lines.
fn write_doc_vectors(
    source: &Source,
    tok: &WordPiece,
    pca: &Pca,
    mean: &[f64],
    dims: usize,
    opts: &TrainOptions,
    path: &std::path::Path,
) -> Result<(), DistillError> {
    let chunks = read_files(&opts.corpora).map_err(|e| DistillError::Corpus(e.to_string()))?;
    let docs: Vec<Vec<u32>> = chunks
        .iter()
        .map(|c| {
            let mut ids = tok.encode(&crate::build::index_text(&c.record));
            ids.truncate(opts.max_doc_tokens);
            ids
        })
        .collect();
    let cache_opts = TrainOptions {
        teacher_cache: opts
            .teacher_cache
            .as_ref()
            .map(|p| p.with_extension("docs")),
        ..opts.clone()
    };
    let mut r = TrainReport::default();
    let teacher = teacher_cached(source, &docs, &cache_opts, &mut r)?;
    if r.teacher_secs > 0.0 {
        eprintln!(
            "teacher (documents): {} in {:.1}s ({:.1}/s)",
            docs.len(),
            r.teacher_secs,
            r.teacher_rate
        );
    }
    let hidden = source.config.hidden_size;
    let mut out = String::new();
    let mut v = vec![0f32; dims];
    for (i, c) in chunks.iter().enumerate() {
        pca.project(&teacher[i * hidden..(i + 1) * hidden], &mut v);
        for (x, m) in v.iter_mut().zip(mean) {
            *x = (*x as f64 - m) as f32;
        }
        crate::embed::normalize(&mut v);
        let line = serde_json::json!({"id": c.record.id, "vector": v});
        out.push_str(&line.to_string());
        out.push('\n');
    }
    std::fs::write(path, out).map_err(|e| DistillError::Io(format!("{}: {e}", path.display())))
}

/// Per column, `num / den` (0 where `den` is not positive): the conjugate-gradient step sizes.
fn ratios(num: &[f64], den: &[f64]) -> Vec<f32> {
    num.iter()
        .zip(den)
        .map(|(&n, &d)| if d > 0.0 { (n / d) as f32 } else { 0.0 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_after_end_marks() {
        assert_eq!(
            sentences("A b c. D e? F!  G 3.5 h"),
            vec!["A b c.", "D e?", "F!", "G 3.5 h"]
        );
        assert!(sentences("  ").is_empty());
    }

    #[test]
    fn design_rows_are_weighted_means() {
        // ids 0..3 -> rows 0, none, 1; weights 1 and 3.
        let row_of = [0, u32::MAX, 1];
        let d = Design::new(&[&[0, 0, 1, 2]], &row_of, &[1.0, 3.0]);
        assert_eq!(d.cols, vec![0, 1]);
        assert_eq!(d.vals, vec![0.4, 0.6]);
    }

    #[test]
    fn ridge_cg_solves_the_normal_equations() {
        // Two texts, two rows, one dimension: A = [[1, 0], [0.5, 0.5]], Y = [2, 1], λ = 0.5.
        let d = Design {
            starts: vec![0, 1, 3],
            cols: vec![0, 0, 1],
            vals: vec![1.0, 0.5, 0.5],
        };
        let v = ridge_cg(&d, &[2.0, 1.0], &[0.0, 0.0], 1, 0.5, 10);
        // (AᵀA + λI) = [[1.75, 0.25], [0.25, 0.75]], AᵀY = [2.5, 0.5].
        let (a, b) = (1.75 * v[0] + 0.25 * v[1], 0.25 * v[0] + 0.75 * v[1]);
        assert!((a - 2.5).abs() < 1e-4 && (b - 0.5).abs() < 1e-4, "{v:?}");
    }
}
