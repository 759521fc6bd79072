//! The dense part of the formats: quantised vectors, the HNSW graph of a shard and its checked
//! layout, and the dense-part file (`*.chsrv`) that carries them beside their shard.

use super::frame::FrameKind;
use super::model;
use super::{FormatError, FORMAT_VERSION, MAX_PAYLOAD};
use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};

/// `Vec<i8>` as a byte string: the same bytes as a sequence of `i8` in bincode's standard
/// configuration (one byte each), but decoded as one copy instead of element by element.
mod i8_bytes {
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[i8], s: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = v.iter().map(|&x| x as u8).collect();
        s.serialize_bytes(&bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i8>, D::Error> {
        let bytes: serde_bytes::ByteBuf = serde::Deserialize::deserialize(d)?;
        Ok(bytes.into_iter().map(|x| x as i8).collect())
    }
}

/// A quantised unit vector: int8 components and one scale (component ≈ `scale * q[i]`).
///
/// Similarities are computed with an exact integer dot product, then one float multiply, so the
/// same vectors give bit-identical scores natively and in WebAssembly.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct QVec {
    /// Quantised components.
    #[serde(with = "i8_bytes")]
    pub q: Vec<i8>,
    /// Scale of the components.
    pub scale: f32,
}

impl QVec {
    /// Quantises a (unit) vector with a per-vector scale `max|x| / 127`.
    pub fn quantize(v: &[f32]) -> QVec {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        if max == 0.0 || !max.is_finite() {
            return QVec {
                q: vec![0; v.len()],
                scale: 0.0,
            };
        }
        let scale = max / 127.0;
        QVec {
            q: v.iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
                .collect(),
            scale,
        }
    }

    /// Dot product (cosine for unit vectors). Vectors of different lengths score 0.
    #[inline]
    pub fn dot(&self, other: &QVec) -> f32 {
        if self.q.len() != other.q.len() {
            return 0.0;
        }
        self.scale * other.scale * dot_i8(&self.q, &other.q) as f32
    }
}

/// The integer dot product of two int8 vectors (over the shorter length): exact, so every
/// implementation gives the same sum. In a WebAssembly build with SIMD (`+simd128`, the module
/// browsers load when they support it) 16 components a step ([`dot_i8_simd`]); elsewhere
/// [`dot_i8_scalar`] (native code, where the compiler vectorises the loop itself, and the
/// scalar module for browsers without WebAssembly SIMD).
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        dot_i8_simd(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        dot_i8_scalar(a, b)
    }
}

/// [`dot_i8`], one component at a time.
#[inline]
pub fn dot_i8_scalar(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

/// [`dot_i8`] with WebAssembly SIMD: 16 components a step, sign-extended to 16 bits in two
/// halves, multiplied and added in pairs into four 32-bit lanes (`i32x4.dot_i16x8_s`; a
/// product is at most 128² = 16,384, so nothing overflows), then the scalar tail.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline]
pub fn dot_i8_simd(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let lanes = |x: &[i8]| {
        assert_eq!(x.len(), 16);
        // SAFETY: `x` holds 16 initialised bytes (checked above; `chunks_exact(16)` gives only
        // such slices), and `v128_load` reads 16 bytes from any alignment.
        unsafe { v128_load(x.as_ptr().cast::<v128>()) }
    };
    let mut acc = i32x4_splat(0);
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail = n - ca.remainder().len();
    for (x, y) in ca.zip(cb) {
        let (x, y) = (lanes(x), lanes(y));
        acc = i32x4_add(
            acc,
            i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), i16x8_extend_low_i8x16(y)),
        );
        acc = i32x4_add(
            acc,
            i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), i16x8_extend_high_i8x16(y)),
        );
    }
    i32x4_extract_lane::<0>(acc)
        + i32x4_extract_lane::<1>(acc)
        + i32x4_extract_lane::<2>(acc)
        + i32x4_extract_lane::<3>(acc)
        + dot_i8_scalar(&a[tail..], &b[tail..])
}

impl instant_distance::Point for QVec {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - self.dot(other)
    }
}

/// The HNSW graph of a shard: points are the chunk vectors, values the chunk indices.
pub type DenseGraph = instant_distance::HnswMap<QVec, u32>;

/// The dense part of a shard: chunk vectors in an HNSW graph, and how they were made.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct DenseIndex {
    /// Id of the embedding model (e.g. the static model's source model and parameters).
    pub model_id: String,
    /// SHA-256 of the model file used for the chunk vectors (a query must use the same model).
    pub model_sha256: String,
    /// Vector dimensions.
    pub dims: u32,
    /// HNSW `ef_search`, fixed when the graph is built.
    pub ef_search: u32,
    /// HNSW `ef_construction`.
    pub ef_construction: u32,
    /// Seed of the graph's layer assignment.
    pub seed: u64,
    /// The [`DenseGraph`], bincode-encoded.
    pub graph: Vec<u8>,
}

/// The serialised layout of a [`DenseGraph`] (instant-distance 0.6's `HnswMap<QVec, u32>`: the
/// graph, then the values), read a second time by [`DenseIndex::decode_graph`] to check what the
/// graph search trusts without checking: its link tables. Point ids are `u32`, `u32::MAX` ends a
/// node's links; a zero-layer node has 64 links, an upper-layer node 32 (serialised as tuples).
#[derive(Deserialize)]
struct GraphLayout {
    hnsw: HnswLayout,
    values: Vec<u32>,
}

#[derive(Deserialize)]
struct HnswLayout {
    #[allow(dead_code)]
    ef_search: usize,
    points: Vec<QVec>,
    zero: Vec<ZeroLinks>,
    layers: Vec<Vec<UpperLinks>>,
}

#[derive(Deserialize)]
struct ZeroLinks([u32; 32], [u32; 32]);

#[derive(Deserialize)]
struct UpperLinks([u32; 32]);

impl GraphLayout {
    /// Checks the invariants the HNSW search indexes by (found missing by fuzzing: a forged graph
    /// with a link past the end of its layer, or a zero layer shorter than the points, made the
    /// graph search panic): one value and one zero-layer node per point; upper layers non-empty
    /// and shrinking upwards; every link (up to the first `u32::MAX`) names a node of its layer.
    fn check(&self) -> Result<(), &'static str> {
        let n = self.hnsw.points.len();
        if self.values.len() != n {
            return Err("points and values differ in number");
        }
        if n == 0 {
            return Ok(());
        }
        let links_ok = |links: &mut dyn Iterator<Item = &u32>, len: usize| {
            links
                .take_while(|&&id| id != u32::MAX)
                .all(|&id| (id as usize) < len)
        };
        if self.hnsw.zero.len() != n {
            return Err("the zero layer does not have one node per point");
        }
        if !self
            .hnsw
            .zero
            .iter()
            .all(|z| links_ok(&mut z.0.iter().chain(&z.1), n))
        {
            return Err("a zero-layer link names no point");
        }
        let mut below = n;
        for layer in &self.hnsw.layers {
            if layer.is_empty() || layer.len() > below {
                return Err("upper layers are empty or do not shrink upwards");
            }
            if !layer.iter().all(|u| links_ok(&mut u.0.iter(), layer.len())) {
                return Err("an upper-layer link names no node of its layer");
            }
            below = layer.len();
        }
        Ok(())
    }
}

impl DenseIndex {
    /// Decodes the graph and checks it against the shard (`n_chunks` points, `dims` each, every
    /// chunk exactly once) and for internal consistency (its link tables).
    pub fn decode_graph(&self, n_chunks: usize) -> Result<DenseGraph, FormatError> {
        let config = bincode::config::standard().with_limit::<{ 1 << 31 }>();
        let (layout, _): (GraphLayout, usize) =
            bincode::serde::decode_from_slice(&self.graph, config)
                .map_err(|e| FormatError::Decode(format!("dense graph: {e}")))?;
        layout
            .check()
            .map_err(|m| FormatError::Decode(format!("dense graph: {m}")))?;
        drop(layout);
        let (g, used): (DenseGraph, usize) = bincode::serde::decode_from_slice(&self.graph, config)
            .map_err(|e| FormatError::Decode(format!("dense graph: {e}")))?;
        if used != self.graph.len() {
            return Err(FormatError::Decode("dense graph has unread bytes".into()));
        }
        let mut seen = vec![false; n_chunks];
        if g.values.len() != n_chunks {
            return Err(FormatError::Decode(
                "dense graph does not hold one vector per chunk".into(),
            ));
        }
        for (&v, (_, p)) in g.values.iter().zip(g.iter()) {
            let v = v as usize;
            if v >= n_chunks || seen[v] || p.q.len() != self.dims as usize || !p.scale.is_finite() {
                return Err(FormatError::Decode(
                    "dense graph points are inconsistent with the shard".into(),
                ));
            }
            seen[v] = true;
        }
        Ok(g)
    }

    /// Encodes a graph for storage.
    pub fn encode_graph(g: &DenseGraph) -> Vec<u8> {
        bincode::serde::encode_to_vec(g, bincode::config::standard())
            .expect("in-memory bincode encoding cannot fail")
    }
}

/// Magic bytes opening every dense-part file.
pub const DENSE_MAGIC: &[u8; 8] = b"CHSRDENS";

/// The dense part of a shard, stored in its own file so that a reader can search lexically as
/// soon as the shard file has arrived and add the vectors when this file lands (the browser
/// fetches it after the first result). Bound to its shard file by that file's SHA-256.
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
pub struct DensePart {
    /// Subject of the shard.
    pub subject: String,
    /// Level of the shard.
    pub level: String,
    /// Number of chunks of the shard (one vector each).
    pub chunks: u64,
    /// SHA-256 of the shard file this part belongs to.
    pub shard_sha256: String,
    /// The dense index.
    pub index: DenseIndex,
}

/// The dense-part file kind: [`DENSE_MAGIC`], [`FORMAT_VERSION`], at most [`MAX_PAYLOAD`].
const DENSE_FRAME: FrameKind = FrameKind {
    magic: DENSE_MAGIC,
    version: FORMAT_VERSION,
    max_payload: MAX_PAYLOAD,
};

/// Encodes a dense part into a complete file (header + payload).
pub fn encode_dense_part(part: &DensePart) -> Vec<u8> {
    DENSE_FRAME.encode(part)
}

/// Decodes a dense-part file: magic, version, length, checksum (unless `checksum` is false
/// because the caller has matched the whole file against the manifest's digest), payload. The
/// graph itself is checked when the reader decodes it (`DenseIndex::decode_graph`).
pub fn decode_dense_part(bytes: &[u8], checksum: bool) -> Result<DensePart, FormatError> {
    let part: DensePart = DENSE_FRAME.decode(bytes, checksum)?;
    if part.index.dims == 0 || part.index.dims > model::MAX_DIMS {
        return Err(FormatError::Decode(format!(
            "dense part: {} dimensions",
            part.index.dims
        )));
    }
    Ok(part)
}
