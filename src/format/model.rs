//! The static embedding model file (`*.chsrm`).
//!
//! Written by the distiller ([`crate::distill`], feature `distill`) and read by the embedder
//! ([`crate::embed`]); the two meet only here. The framing mirrors the shard files:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CHSRMODL` |
//! | 4 | format version, little-endian u32 ([`MODEL_FORMAT_VERSION`]) |
//! | 8 | payload length in bytes, little-endian u64 |
//! | 32 | SHA-256 of the payload |
//! | n | payload: [`ModelPayload`] encoded with bincode 2 (standard config) |
//!
//! The payload holds a [`ModelHeader`] (source model, dimensions, quantisation, PCA and weighting
//! parameters, tokenizer settings), the complete WordPiece vocabulary in id order (the tokenizer
//! needs every piece even when only some carry a vector), and for the kept tokens ("rows", in
//! increasing vocabulary id): a weight, a quantisation scale (int8 only) and the quantised vector.
//!
//! Big numeric tables are little-endian byte blobs, so their encoded size is exactly their raw
//! size whatever bincode's integer encoding. Decoding never panics: every inconsistency is a
//! [`ModelFormatError`].

use super::frame::FrameKind;
use bincode::{Decode, Encode};
use std::collections::HashSet;
use std::fmt;

/// Magic bytes opening every model file.
pub const MODEL_MAGIC: &[u8; 8] = b"CHSRMODL";
/// Version of the model layout this build writes and reads.
pub const MODEL_FORMAT_VERSION: u32 = 1;
/// Size of the fixed header preceding the payload.
pub const MODEL_HEADER_LEN: usize = super::frame::FRAME_HEADER_LEN;
/// Upper bound on a payload we agree to decode (guards against hostile length fields).
pub const MAX_MODEL_PAYLOAD: u64 = 1 << 30;
/// Largest vector dimension accepted.
pub const MAX_DIMS: u32 = 4096;

/// Errors reading a model file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelFormatError {
    /// The file does not start with the model magic: it is not a chsr model.
    Magic,
    /// The model was written by another format version.
    Version {
        /// Version found in the file.
        found: u32,
        /// Version this reader reads.
        expected: u32,
    },
    /// The file is shorter than its header says.
    Truncated {
        /// Bytes the header announces (header + payload).
        expected: u64,
        /// Bytes present.
        found: u64,
    },
    /// The payload's SHA-256 differs from the one in the header: the file is corrupted.
    ChecksumMismatch,
    /// The checksum is right but the payload does not decode or is inconsistent.
    Decode(String),
}

impl fmt::Display for ModelFormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelFormatError::Magic => write!(f, "not a chsr model file (bad magic bytes)"),
            ModelFormatError::Version { found, expected } => write!(
                f,
                "model file has format v{found}, this reader reads v{expected}: re-run `chsr distill`"
            ),
            ModelFormatError::Truncated { expected, found } => write!(
                f,
                "model file is truncated: {found} bytes present, {expected} expected (interrupted download?)"
            ),
            ModelFormatError::ChecksumMismatch => {
                write!(f, "model payload checksum mismatch: the file is corrupted")
            }
            ModelFormatError::Decode(e) => write!(f, "model payload does not decode: {e}"),
        }
    }
}

impl std::error::Error for ModelFormatError {}

/// How token vectors are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub enum Quantization {
    /// One signed byte per component, with one f32 scale per row: `v[d] = scale * q[d]`.
    Int8,
    /// IEEE 754 half precision, little-endian, no scale.
    F16,
}

impl Quantization {
    /// Bytes per vector component.
    pub fn bytes_per_component(self) -> usize {
        match self {
            Quantization::Int8 => 1,
            Quantization::F16 => 2,
        }
    }

    /// The CLI name (`int8`, `f16`).
    pub fn name(self) -> &'static str {
        match self {
            Quantization::Int8 => "int8",
            Quantization::F16 => "f16",
        }
    }

    /// Parses a CLI name.
    pub fn parse(s: &str) -> Option<Quantization> {
        match s.trim().to_ascii_lowercase().as_str() {
            "int8" | "i8" => Some(Quantization::Int8),
            "f16" | "half" => Some(Quantization::F16),
            _ => None,
        }
    }
}

/// The per-token weighting baked into the model.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub enum Weighting {
    /// Every token weighs 1.
    Uniform,
    /// Zipf: `ln(1 + id)`, the vocabulary id standing in for the frequency rank.
    ZipfRank,
    /// SIF with Zipf probabilities from the vocabulary rank: `a / (a + p(id))`,
    /// `p(id) ∝ 1 / (id + 1)` over the whole vocabulary.
    SifRank {
        /// The SIF constant `a`.
        a: f32,
    },
    /// SIF with probabilities counted on the corpus: `a / (a + p(w))`,
    /// `p(w) = (count(w) + 1) / (total + vocab_size)` (add-one smoothing).
    SifCorpus {
        /// The SIF constant `a`.
        a: f32,
        /// Token occurrences counted.
        total_tokens: u64,
    },
}

/// Settings of the BERT basic tokenizer + WordPiece that the vectors were made with.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct TokenizerSpec {
    /// Remove control characters and map whitespace to a space.
    pub clean_text: bool,
    /// Put spaces around CJK ideographs.
    pub handle_chinese_chars: bool,
    /// NFD, then drop non-spacing marks.
    pub strip_accents: bool,
    /// Lowercase.
    pub lowercase: bool,
    /// The unknown token, e.g. `[UNK]`.
    pub unk_token: String,
    /// Prefix of word-continuation pieces, e.g. `##`.
    pub continuing_subword_prefix: String,
    /// Words longer than this (in chars) become the unknown token.
    pub max_input_chars_per_word: u32,
}

impl TokenizerSpec {
    /// The settings of BERT uncased (all-MiniLM-L6-v2's `tokenizer.json`).
    pub fn bert_uncased() -> TokenizerSpec {
        TokenizerSpec {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: true,
            lowercase: true,
            unk_token: "[UNK]".into(),
            continuing_subword_prefix: "##".into(),
            max_input_chars_per_word: 100,
        }
    }
}

/// PCA applied to the transformer's output vectors.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct PcaInfo {
    /// Dimension of the transformer output (before PCA).
    pub input_dims: u32,
    /// Output dimensions kept (= [`ModelHeader::dims`]).
    pub output_dims: u32,
    /// Share of the total variance the kept components explain.
    pub explained_variance: f32,
    /// Number of token vectors the PCA was fitted on.
    pub fitted_on: u32,
}

/// Which vocabulary tokens carry a vector.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct PruningInfo {
    /// File names (not paths) of the corpora whose tokens were kept; empty = full vocabulary.
    pub corpus_files: Vec<String>,
    /// SHA-256 over the corpus files' bytes, in the order given (empty when no corpus).
    pub corpus_sha256: String,
    /// The first `common_tokens` ordinary tokens of the vocabulary (by id) are kept as well.
    pub common_tokens: u32,
    /// Rows kept.
    pub kept: u32,
}

/// Everything a reader needs to know about a model before using it.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct ModelHeader {
    /// The source model, e.g. `sentence-transformers/all-MiniLM-L6-v2`.
    pub source_model: String,
    /// SHA-256 of the source weights file (`model.safetensors`).
    pub source_sha256: String,
    /// How each token was pooled through the transformer.
    pub pooling: String,
    /// Vector dimension D.
    pub dims: u32,
    /// Number of tokens in the vocabulary (rows are a subset).
    pub vocab_size: u32,
    /// Number of rows (tokens with a vector).
    pub rows: u32,
    /// How vectors are stored.
    pub quantization: Quantization,
    /// PCA parameters.
    pub pca: PcaInfo,
    /// Token weighting.
    pub weighting: Weighting,
    /// Vocabulary pruning.
    pub pruning: PruningInfo,
    /// Tokenizer settings.
    pub tokenizer: TokenizerSpec,
    /// Name and version of the program that wrote the file.
    pub builder: String,
}

/// The payload of a model file.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct ModelPayload {
    /// Header.
    pub header: ModelHeader,
    /// WordPiece vocabulary, in id order.
    pub vocab: Vec<String>,
    /// Vocabulary ids of the rows, strictly increasing.
    pub row_ids: Vec<u32>,
    /// Per-row weight, f32 little-endian (4 bytes per row).
    pub weights: Vec<u8>,
    /// Per-row int8 scale, f32 little-endian (4 bytes per row); empty for f16.
    pub scales: Vec<u8>,
    /// Row-major vectors, `rows × dims` components (int8, or f16 little-endian).
    pub vectors: Vec<u8>,
}

/// Reads the `i`-th little-endian f32 of a byte blob (caller checks bounds).
#[inline]
pub fn f32_at(blob: &[u8], i: usize) -> f32 {
    let b = &blob[4 * i..4 * i + 4];
    f32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Encodes f32 values as a little-endian blob.
pub fn f32_blob(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Converts IEEE half-precision bits to f32 (exact; integer operations only).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal half: normalise the mantissa.
            let mut e: u32 = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((m & 0x3ff) << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

/// Converts f32 to IEEE half-precision bits, rounding to nearest even (integer operations only).
pub fn f32_to_f16(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let man = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal half: shift the full mantissa (with its implicit bit) into place.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = m >> shift;
        let rem = m & ((1 << shift) - 1);
        let mid = 1 << (shift - 1);
        let round = rem > mid || (rem == mid && half & 1 == 1);
        return sign | (half + round as u32) as u16;
    }
    let half = ((e as u32) << 10) | (man >> 13);
    let rem = man & 0x1fff;
    let round = rem > 0x1000 || (rem == 0x1000 && half & 1 == 1);
    // A carry out of the mantissa correctly bumps the exponent (up to infinity).
    sign | (half + round as u32) as u16
}

/// The model file kind: [`MODEL_MAGIC`], [`MODEL_FORMAT_VERSION`], at most [`MAX_MODEL_PAYLOAD`].
const MODEL_FRAME: FrameKind = FrameKind {
    magic: MODEL_MAGIC,
    version: MODEL_FORMAT_VERSION,
    max_payload: MAX_MODEL_PAYLOAD,
};

crate::format::frame::frame_errors!(ModelFormatError);

/// Encodes a payload into a complete model file (header + payload).
pub fn encode_model(payload: &ModelPayload) -> Vec<u8> {
    MODEL_FRAME.encode(payload)
}

/// Decodes and validates a model file: magic, version, length, checksum, payload, consistency.
pub fn decode_model(bytes: &[u8]) -> Result<ModelPayload, ModelFormatError> {
    decode_model_inner(bytes, true)
}

/// [`decode_model`] for bytes whose whole-file SHA-256 the caller has just matched against a
/// trusted digest (the manifest's): the payload checksum is not computed a second time.
pub fn decode_model_prehashed(bytes: &[u8]) -> Result<ModelPayload, ModelFormatError> {
    decode_model_inner(bytes, false)
}

fn decode_model_inner(bytes: &[u8], checksum: bool) -> Result<ModelPayload, ModelFormatError> {
    let payload: ModelPayload = MODEL_FRAME.decode(bytes, checksum)?;
    payload.validate()?;
    Ok(payload)
}

impl ModelPayload {
    /// Checks the internal consistency of the payload (hostile-input guard).
    pub fn validate(&self) -> Result<(), ModelFormatError> {
        let bad = |m: String| Err(ModelFormatError::Decode(m));
        let h = &self.header;
        if h.dims == 0 || h.dims > MAX_DIMS {
            return bad(format!("dimension {} out of range 1..={MAX_DIMS}", h.dims));
        }
        if h.vocab_size as usize != self.vocab.len() {
            return bad(format!(
                "header says {} vocabulary tokens, payload has {}",
                h.vocab_size,
                self.vocab.len()
            ));
        }
        let rows = self.row_ids.len();
        if h.rows as usize != rows {
            return bad(format!("header says {} rows, payload has {rows}", h.rows));
        }
        if self.row_ids.windows(2).any(|w| w[0] >= w[1])
            || self
                .row_ids
                .last()
                .is_some_and(|&l| l as usize >= self.vocab.len())
        {
            return bad("row ids not strictly increasing or out of the vocabulary".into());
        }
        if self.weights.len() != 4 * rows {
            return bad("weights table has the wrong length".into());
        }
        let want_scales = match h.quantization {
            Quantization::Int8 => 4 * rows,
            Quantization::F16 => 0,
        };
        if self.scales.len() != want_scales {
            return bad("scales table has the wrong length".into());
        }
        let want = rows
            .checked_mul(h.dims as usize)
            .and_then(|n| n.checked_mul(h.quantization.bytes_per_component()));
        if want != Some(self.vectors.len()) {
            return bad("vector table has the wrong length".into());
        }
        for i in 0..rows {
            let w = f32_at(&self.weights, i);
            if !w.is_finite() || w < 0.0 {
                return bad(format!(
                    "row {i}: weight {w} is not a finite non-negative number"
                ));
            }
            if h.quantization == Quantization::Int8 {
                let s = f32_at(&self.scales, i);
                if !s.is_finite() || s < 0.0 {
                    return bad(format!(
                        "row {i}: scale {s} is not a finite non-negative number"
                    ));
                }
            }
        }
        if h.quantization == Quantization::F16 {
            let nonfinite = self
                .vectors
                .chunks_exact(2)
                .any(|c| (u16::from_le_bytes([c[0], c[1]]) & 0x7c00) == 0x7c00);
            if nonfinite {
                return bad("a vector component is infinite or NaN".into());
            }
        }
        let t = &h.tokenizer;
        if t.max_input_chars_per_word == 0 {
            return bad("max_input_chars_per_word is 0".into());
        }
        let mut seen = HashSet::with_capacity(self.vocab.len());
        for (i, tok) in self.vocab.iter().enumerate() {
            if tok.is_empty() || !seen.insert(tok.as_str()) {
                return bad(format!("vocabulary token {i} is empty or repeated"));
            }
        }
        if !seen.contains(t.unk_token.as_str()) {
            return bad(format!(
                "unknown token {} not in the vocabulary",
                super::json::quote(&t.unk_token)
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_and_rounds_to_nearest_even() {
        for h in 0u16..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f32_to_f16(f) & 0x7c00 == 0x7c00 && f32_to_f16(f) & 0x3ff != 0);
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "half {h:#06x} -> {f}");
        }
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(-2.0), 0xc000);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // rounds up to infinity
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00); // tie, to even
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02); // tie, to even (up)
        assert_eq!(f32_to_f16(1e-9), 0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
    }
}
