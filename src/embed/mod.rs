//! Static embeddings: the dense half of retrieval, computed inside the library (native and Wasm).
//!
//! A [`StaticModel`] is a table of token vectors distilled from a sentence transformer
//! (all-MiniLM-L6-v2 by default, see [`crate::distill`]): each WordPiece token of the vocabulary
//! was run through the transformer on its own, pooled, reduced by PCA to D dimensions, and given
//! a weight (Zipf / SIF). A text is embedded as the weighted mean of its tokens' vectors,
//! L2-normalised — no attention, no matrix product, a few microseconds per query.
//!
//! Tokens without a vector (special tokens, `[UNK]`, tokens pruned from the vocabulary) are
//! skipped. A text with no known token embeds to the zero vector (cosine 0 with everything).
//!
//! **Determinism.** The same text gives bit-identical vectors on every platform, natively and in
//! Wasm: the model file stores final weights (no transcendental function runs at embedding time),
//! f16 is widened with integer operations, and the arithmetic is plain f32 multiply and add in a
//! fixed order (Rust never contracts them into fused multiply-adds), then one square root and
//! divisions, which IEEE 754 rounds identically everywhere.

pub mod wordpiece;

pub use wordpiece::WordPiece;

use crate::analysis::MAX_QUERY_BYTES;
use crate::format::model::{
    decode_model, f16_to_f32, f32_at, ModelFormatError, ModelHeader, ModelPayload, Quantization,
};

const NO_ROW: u32 = u32::MAX;

#[derive(Clone, Debug)]
enum Vectors {
    I8(Vec<i8>),
    F32(Vec<f32>),
}

/// A loaded static embedding model.
#[derive(Clone, Debug)]
pub struct StaticModel {
    header: ModelHeader,
    tokenizer: WordPiece,
    dims: usize,
    /// Row of each vocabulary id, or [`NO_ROW`].
    row_of: Vec<u32>,
    /// Per row: weight × int8 scale, or the weight for f16 rows.
    factor: Vec<f32>,
    vectors: Vectors,
}

impl StaticModel {
    /// Decodes and validates a model file.
    pub fn from_bytes(bytes: &[u8]) -> Result<StaticModel, ModelFormatError> {
        Self::from_payload(decode_model(bytes)?)
    }

    /// Builds the model from a decoded payload (validated again here).
    pub fn from_payload(p: ModelPayload) -> Result<StaticModel, ModelFormatError> {
        p.validate()?;
        let header = p.header;
        let tokenizer =
            WordPiece::new(&p.vocab, header.tokenizer.clone()).map_err(ModelFormatError::Decode)?;
        let dims = header.dims as usize;
        let mut row_of = vec![NO_ROW; p.vocab.len()];
        for (row, &id) in p.row_ids.iter().enumerate() {
            row_of[id as usize] = row as u32;
        }
        let rows = p.row_ids.len();
        let factor: Vec<f32> = (0..rows)
            .map(|i| match header.quantization {
                Quantization::Int8 => f32_at(&p.weights, i) * f32_at(&p.scales, i),
                Quantization::F16 => f32_at(&p.weights, i),
            })
            .collect();
        let vectors = match header.quantization {
            Quantization::Int8 => Vectors::I8(p.vectors.iter().map(|&b| b as i8).collect()),
            Quantization::F16 => Vectors::F32(
                p.vectors
                    .chunks_exact(2)
                    .map(|c| f16_to_f32(u16::from_le_bytes([c[0], c[1]])))
                    .collect(),
            ),
        };
        Ok(StaticModel {
            header,
            tokenizer,
            dims,
            row_of,
            factor,
            vectors,
        })
    }

    /// The model's header (source, dimensions, quantisation, parameters).
    pub fn header(&self) -> &ModelHeader {
        &self.header
    }

    /// Vector dimension D.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &WordPiece {
        &self.tokenizer
    }

    /// Whether vocabulary id `id` carries a vector.
    pub fn has_vector(&self, id: u32) -> bool {
        self.row_of.get(id as usize).is_some_and(|&r| r != NO_ROW)
    }

    /// Embeds a text: weighted mean of its token vectors, L2-normalised (zero if no token is known).
    pub fn embed(&self, text: &str) -> Vec<f32> {
        self.embed_ids(&self.tokenizer.encode(text))
    }

    /// Embeds a query: like [`StaticModel::embed`], reading at most
    /// [`MAX_QUERY_BYTES`](crate::analysis::MAX_QUERY_BYTES) bytes of it.
    pub fn embed_query(&self, query: &str) -> Vec<f32> {
        let mut cut = query.len().min(MAX_QUERY_BYTES);
        while !query.is_char_boundary(cut) {
            cut -= 1;
        }
        self.embed(&query[..cut])
    }

    /// Embeds a sequence of vocabulary ids (ids without a vector, or out of range, are skipped).
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let d = self.dims;
        let mut acc = vec![0f32; d];
        for &id in ids {
            let row = match self.row_of.get(id as usize) {
                Some(&r) if r != NO_ROW => r as usize,
                _ => continue,
            };
            let f = self.factor[row];
            match &self.vectors {
                Vectors::I8(v) => {
                    for (a, &q) in acc.iter_mut().zip(&v[row * d..(row + 1) * d]) {
                        *a += f * q as f32;
                    }
                }
                Vectors::F32(v) => {
                    for (a, &x) in acc.iter_mut().zip(&v[row * d..(row + 1) * d]) {
                        *a += f * x;
                    }
                }
            }
        }
        normalize(&mut acc);
        acc
    }
}

/// Scales `v` to unit L2 norm in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let mut n2 = 0f32;
    for &x in v.iter() {
        n2 += x * x;
    }
    if n2 > 0.0 && n2.is_finite() {
        let n = n2.sqrt();
        for x in v.iter_mut() {
            *x /= n;
        }
    } else {
        v.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// Dot product in a fixed order (the cosine of two normalised vectors).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut s = 0f32;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
}

#[cfg(test)]
mod tests;
