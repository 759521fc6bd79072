//! The on-disk formats: shard files and `manifest.json`.
//!
//! This is the only module shared by the builder ([`crate::build`]) and the reader
//! ([`crate::library`]). A shard file is laid out as:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CHSRSHRD` |
//! | 4 | format version, little-endian u32 ([`FORMAT_VERSION`]) |
//! | 8 | payload length in bytes, little-endian u64 |
//! | 32 | SHA-256 of the payload |
//! | n | payload: [`ShardPayload`] encoded with bincode 2 (standard config) |
//!
//! The payload starts with the build parameters ([`BuildParams`]: analyzer version, BM25 k1/b),
//! followed by chunk metadata and display text, then the inverted index. Nothing in it depends on
//! time, hashing order or thread scheduling, so the same corpus gives byte-identical shards.
//!
//! The static embedding model file has its own framing and types in [`model`].

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

pub mod frame;
pub mod model;

use frame::FrameKind;

/// Magic bytes opening every shard file.
pub const MAGIC: &[u8; 8] = b"CHSRSHRD";
/// Version of the shard layout this build writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// Name of the manifest format, stored in `manifest.json`.
pub const MANIFEST_FORMAT: &str = "chsr-manifest";
/// Size of the fixed header preceding the payload.
pub const HEADER_LEN: usize = frame::FRAME_HEADER_LEN;
/// Upper bound on a payload we agree to decode (guards against hostile length fields).
pub const MAX_PAYLOAD: u64 = 1 << 31;

/// Errors reading a shard or manifest (the reader's "format" concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormatError {
    /// The file does not start with the shard magic: it is not a chsr shard.
    Magic,
    /// The shard was written by another format version.
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
    /// The payload checksum is right but the payload does not decode (a writer bug or a forgery).
    Decode(String),
    /// The shard was analysed with another analyzer version than this reader's.
    AnalyzerVersion {
        /// Version recorded in the shard.
        found: u32,
        /// Version of this reader.
        expected: u32,
    },
    /// The manifest is not valid JSON or misses a field.
    Manifest(String),
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatError::Magic => write!(f, "not a chsr shard (bad magic bytes)"),
            FormatError::Version { found, expected } => write!(
                f,
                "shard built by format v{found}, this reader reads v{expected}: rebuild with `chsr build`"
            ),
            FormatError::Truncated { expected, found } => write!(
                f,
                "shard is truncated: {found} bytes present, {expected} expected (interrupted download \
                 or copy?): fetch or copy it again, or rebuild with `chsr build`"
            ),
            FormatError::ChecksumMismatch => {
                write!(
                    f,
                    "shard payload checksum mismatch: the file is corrupted: fetch or copy it again, \
                     or rebuild with `chsr build`"
                )
            }
            FormatError::Decode(e) => write!(f, "shard payload does not decode: {e}"),
            FormatError::AnalyzerVersion { found, expected } => write!(
                f,
                "shard analysed with analyzer v{found}, this reader uses v{expected}: rebuild with `chsr build`"
            ),
            FormatError::Manifest(e) => write!(f, "invalid manifest: {e}"),
        }
    }
}

impl std::error::Error for FormatError {}

/// A metadata field of a chunk that a scope may constrain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// Subject, e.g. `physics` (selects the shard).
    Subject,
    /// Level, e.g. `college` or `O-Level` (selects the shard).
    Level,
    /// Language code of the chunk.
    Lang,
    /// Document type: `textbook_section`, `exercise`, `solution`, `past_paper_question`, …
    DocType,
    /// Source work id.
    Source,
    /// Chapter (number or label).
    Chapter,
    /// Section number within the chapter.
    Section,
    /// Stable key of the section, e.g. `cp2e:14.2`.
    SectionKey,
    /// Free topic label.
    Topic,
    /// Exam year.
    Year,
    /// Exam name.
    Exam,
    /// Exam paper.
    Paper,
    /// Question number.
    QuestionNumber,
}

impl Field {
    /// Every field, in canonical order.
    pub const ALL: [Field; 13] = [
        Field::Subject,
        Field::Level,
        Field::Lang,
        Field::DocType,
        Field::Source,
        Field::Chapter,
        Field::Section,
        Field::SectionKey,
        Field::Topic,
        Field::Year,
        Field::Exam,
        Field::Paper,
        Field::QuestionNumber,
    ];

    /// Fields summarised as facets (value → count) in the manifest.
    pub const FACETS: [Field; 7] = [
        Field::DocType,
        Field::Lang,
        Field::Chapter,
        Field::Year,
        Field::Exam,
        Field::Paper,
        Field::Topic,
    ];

    /// The JSON / CLI name of the field.
    pub fn name(self) -> &'static str {
        match self {
            Field::Subject => "subject",
            Field::Level => "level",
            Field::Lang => "lang",
            Field::DocType => "doc_type",
            Field::Source => "source",
            Field::Chapter => "chapter",
            Field::Section => "section",
            Field::SectionKey => "section_key",
            Field::Topic => "topic",
            Field::Year => "year",
            Field::Exam => "exam",
            Field::Paper => "paper",
            Field::QuestionNumber => "question_number",
        }
    }

    /// Parses a field name (also accepts `language`, `doctype` and `question`).
    pub fn parse(name: &str) -> Option<Field> {
        let n = name.trim().to_ascii_lowercase().replace('-', "_");
        Some(match n.as_str() {
            "language" => Field::Lang,
            "doctype" => Field::DocType,
            "question" => Field::QuestionNumber,
            _ => *Field::ALL.iter().find(|f| f.name() == n)?,
        })
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One chunk as stored in a shard: curriculum metadata and display text.
///
/// Scalar metadata is kept as text (`chapter` 4 is stored as `"4"`), which is how scopes compare.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkRecord {
    /// Unique, stable id.
    pub id: String,
    /// Display text.
    pub text: String,
    /// Subject.
    pub subject: String,
    /// Level.
    pub level: String,
    /// Language code (`en`, `fr`, …).
    pub lang: String,
    /// Document type.
    pub doc_type: String,
    /// Source work id.
    pub source: Option<String>,
    /// Chapter.
    pub chapter: Option<String>,
    /// Chapter title.
    pub chapter_title: Option<String>,
    /// Section number.
    pub section: Option<String>,
    /// Section title.
    pub section_title: Option<String>,
    /// Subsection title.
    pub subsection: Option<String>,
    /// Section key (groups chunks of one section).
    pub section_key: Option<String>,
    /// Topic label.
    pub topic: Option<String>,
    /// Exam year.
    pub year: Option<String>,
    /// Exam name.
    pub exam: Option<String>,
    /// Exam paper.
    pub paper: Option<String>,
    /// Question number.
    pub question_number: Option<String>,
    /// Exercise group (e.g. `problems-exercises`).
    pub exercise_group: Option<String>,
    /// Exercise number within an exam paper.
    pub exercise_number: Option<String>,
    /// Exam session.
    pub session: Option<String>,
    /// Exam centre.
    pub centre: Option<String>,
    /// Label (e.g. `Table 1.2`).
    pub label: Option<String>,
    /// Id of the exercise this chunk answers.
    pub answers: Option<String>,
    /// Path of the source file.
    pub path: Option<String>,
    /// Where a reader opens this chunk: the page URL, with the nearest heading's anchor
    /// (`…/page/#section`), absolute or relative to the bundle's page (format version 2).
    pub url: Option<String>,
    /// Title of the page or document the chunk belongs to (a card shows `title › section`).
    pub title: Option<String>,
}

impl ChunkRecord {
    /// The value of a scope field for this chunk, if set.
    pub fn get(&self, field: Field) -> Option<&str> {
        match field {
            Field::Subject => Some(&self.subject),
            Field::Level => Some(&self.level),
            Field::Lang => Some(&self.lang),
            Field::DocType => Some(&self.doc_type),
            Field::Source => self.source.as_deref(),
            Field::Chapter => self.chapter.as_deref(),
            Field::Section => self.section.as_deref(),
            Field::SectionKey => self.section_key.as_deref(),
            Field::Topic => self.topic.as_deref(),
            Field::Year => self.year.as_deref(),
            Field::Exam => self.exam.as_deref(),
            Field::Paper => self.paper.as_deref(),
            Field::QuestionNumber => self.question_number.as_deref(),
        }
    }
}

/// Parameters the shard was built with; the reader checks them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildParams {
    /// [`crate::analysis::ANALYZER_VERSION`] at build time.
    pub analyzer_version: u32,
    /// BM25 term-frequency saturation.
    pub k1: f32,
    /// BM25 length normalisation.
    pub b: f32,
    /// Name and version of the builder.
    pub builder: String,
}

/// The lexical index of a shard.
///
/// `terms` is sorted; for term `i`, its postings are
/// `postings[offsets[i] as usize..offsets[i + 1] as usize]`, a sequence of LEB128 varint pairs
/// (doc-id delta, term frequency) in increasing doc order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LexicalIndex {
    /// Sorted distinct terms.
    pub terms: Vec<String>,
    /// Document frequency per term.
    pub df: Vec<u32>,
    /// Start offset of each term's postings in `postings`, plus a final end offset.
    pub offsets: Vec<u32>,
    /// Encoded postings.
    #[serde(with = "serde_bytes")]
    pub postings: Vec<u8>,
    /// Number of terms per chunk.
    pub doc_len: Vec<u32>,
}

impl LexicalIndex {
    /// Index of `term` in the sorted vocabulary.
    pub fn term_id(&self, term: &str) -> Option<usize> {
        self.terms.binary_search_by(|t| t.as_str().cmp(term)).ok()
    }

    /// Decodes the postings of term `id` as (chunk index, term frequency) pairs.
    pub fn postings(&self, id: usize) -> PostingIter<'_> {
        let (s, e) = (self.offsets[id] as usize, self.offsets[id + 1] as usize);
        PostingIter {
            bytes: self.postings.get(s..e).unwrap_or(&[]),
            doc: 0,
        }
    }

    /// Total number of term occurrences.
    pub fn total_len(&self) -> u64 {
        self.doc_len.iter().map(|&l| l as u64).sum()
    }

    /// Checks the internal consistency of the index against `n_chunks` (hostile-input guard).
    pub fn validate(&self, n_chunks: usize) -> Result<(), FormatError> {
        let bad = |m: &str| Err(FormatError::Decode(format!("lexical index: {m}")));
        if self.df.len() != self.terms.len() || self.offsets.len() != self.terms.len() + 1 {
            return bad("term tables differ in length");
        }
        if self.doc_len.len() != n_chunks {
            return bad("doc_len does not match the chunk count");
        }
        if self.offsets.windows(2).any(|w| w[0] > w[1])
            || *self.offsets.last().unwrap_or(&0) as usize != self.postings.len()
        {
            return bad("postings offsets out of order or out of bounds");
        }
        if self.terms.windows(2).any(|w| w[0] >= w[1]) {
            return bad("terms not sorted");
        }
        for id in 0..self.terms.len() {
            let mut count = 0u32;
            for p in self.postings(id) {
                match p {
                    Some((d, _)) if (d as usize) < n_chunks => count += 1,
                    _ => return bad("posting list corrupt or doc id out of range"),
                }
            }
            if count != self.df[id] {
                return bad("document frequency does not match postings");
            }
        }
        Ok(())
    }
}

/// Iterator over encoded postings; yields `None` items for corrupt bytes.
pub struct PostingIter<'a> {
    bytes: &'a [u8],
    doc: u32,
}

fn read_varint(bytes: &mut &[u8]) -> Option<u32> {
    let mut v: u64 = 0;
    let mut shift = 0;
    loop {
        let (&b, rest) = bytes.split_first()?;
        *bytes = rest;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return u32::try_from(v).ok();
        }
        shift += 7;
        if shift > 35 {
            return None;
        }
    }
}

/// Appends `v` as an LEB128 varint.
pub fn write_varint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Iterator for PostingIter<'_> {
    type Item = Option<(u32, u32)>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.bytes.is_empty() {
            return None;
        }
        let item = (|| {
            let delta = read_varint(&mut self.bytes)?;
            let tf = read_varint(&mut self.bytes)?;
            self.doc = self.doc.checked_add(delta)?;
            Some((self.doc, tf))
        })();
        if item.is_none() {
            self.bytes = &[];
        }
        Some(item)
    }
}

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
        let s: i32 = self
            .q
            .iter()
            .zip(&other.q)
            .map(|(&a, &b)| a as i32 * b as i32)
            .sum();
        self.scale * other.scale * s as f32
    }
}

impl instant_distance::Point for QVec {
    fn distance(&self, other: &Self) -> f32 {
        1.0 - self.dot(other)
    }
}

/// The HNSW graph of a shard: points are the chunk vectors, values the chunk indices.
pub type DenseGraph = instant_distance::HnswMap<QVec, u32>;

/// The dense part of a shard: chunk vectors in an HNSW graph, and how they were made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    #[serde(with = "serde_bytes")]
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

/// Everything a shard holds after its header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardPayload {
    /// Build parameters.
    pub params: BuildParams,
    /// Subject shared by every chunk of the shard.
    pub subject: String,
    /// Level shared by every chunk of the shard.
    pub level: String,
    /// Chunks, sorted by id.
    pub chunks: Vec<ChunkRecord>,
    /// Lexical index over `chunks`.
    pub lexical: LexicalIndex,
    /// Dense index over `chunks`, when the shard was built with an embedding model.
    pub dense: Option<DenseIndex>,
}

/// The shard file kind: [`MAGIC`], [`FORMAT_VERSION`], at most [`MAX_PAYLOAD`] bytes of payload.
const SHARD_FRAME: FrameKind = FrameKind {
    magic: MAGIC,
    version: FORMAT_VERSION,
    max_payload: MAX_PAYLOAD,
};

crate::format::frame::frame_errors!(FormatError);

/// Encodes a payload into a complete shard file (header + payload).
pub fn encode_shard(payload: &ShardPayload) -> Vec<u8> {
    SHARD_FRAME.encode(payload)
}

/// Decodes and validates a shard file: magic, version, length, checksum, payload, consistency.
pub fn decode_shard(bytes: &[u8]) -> Result<ShardPayload, FormatError> {
    decode_shard_inner(bytes, true)
}

/// [`decode_shard`] for bytes whose whole-file SHA-256 the caller has just matched against a
/// trusted digest (the manifest's): that digest covers the payload, so the payload checksum is
/// not computed a second time. Every other check runs.
pub fn decode_shard_prehashed(bytes: &[u8]) -> Result<ShardPayload, FormatError> {
    decode_shard_inner(bytes, false)
}

fn decode_shard_inner(bytes: &[u8], checksum: bool) -> Result<ShardPayload, FormatError> {
    let payload: ShardPayload = SHARD_FRAME.decode(bytes, checksum)?;
    if payload.params.analyzer_version != crate::analysis::ANALYZER_VERSION {
        return Err(FormatError::AnalyzerVersion {
            found: payload.params.analyzer_version,
            expected: crate::analysis::ANALYZER_VERSION,
        });
    }
    payload.lexical.validate(payload.chunks.len())?;
    // The dense graph is validated when the reader decodes it (`DenseIndex::decode_graph`).
    if let Some(c) = payload
        .chunks
        .iter()
        .find(|c| c.subject != payload.subject || c.level != payload.level)
    {
        return Err(FormatError::Decode(format!(
            "chunk {} is {}/{} inside the {}/{} shard",
            c.id, c.subject, c.level, payload.subject, payload.level
        )));
    }
    Ok(payload)
}

/// Magic bytes opening every dense-part file.
pub const DENSE_MAGIC: &[u8; 8] = b"CHSRDENS";

/// The dense part of a shard, stored in its own file so that a reader can search lexically as
/// soon as the shard file has arrived and add the vectors when this file lands (the browser
/// fetches it after the first result). Bound to its shard file by that file's SHA-256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Facet counts of one field: value → number of chunks.
pub type FacetCounts = BTreeMap<String, u64>;

/// One shard as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardEntry {
    /// Subject of every chunk in the shard.
    pub subject: String,
    /// Level of every chunk in the shard.
    pub level: String,
    /// Content-hashed file name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the whole file (Subresource-Integrity style check before decoding).
    pub sha256: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Number of chunks.
    pub chunks: u64,
    /// Facet counts per field name (`doc_type`, `lang`, `chapter`, `year`, `exam`, `paper`, `topic`).
    pub facets: BTreeMap<String, FacetCounts>,
    /// The shard's dense part ([`DensePart`]), in its own file, when the shard has vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<PartEntry>,
}

/// A file that completes a shard, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartEntry {
    /// Content-hashed file name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the whole file.
    pub sha256: String,
    /// File size in bytes.
    pub bytes: u64,
}

/// The embedding model a shard folder was built with, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelEntry {
    /// Content-hashed file name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the file (the shards' `model_sha256`).
    pub sha256: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Model id (source model and distillation parameters).
    pub id: String,
    /// Vector dimensions.
    pub dims: u32,
}

/// Vectors brought with the corpus (no model file): queries must bring a vector from the same model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorSpec {
    /// The id of the model that made the document vectors.
    pub model_id: String,
    /// Vector dimensions.
    pub dims: u32,
}

/// Prefix of `DenseIndex::model_sha256` for vectors brought with the corpus.
pub const BYO_PREFIX: &str = "byo:";

/// `manifest.json`: the table of contents of a shard folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always [`MANIFEST_FORMAT`].
    pub format: String,
    /// Shard format version ([`FORMAT_VERSION`]).
    pub format_version: u32,
    /// Analyzer version used for every shard.
    pub analyzer_version: u32,
    /// Total chunks over all shards.
    pub chunks: u64,
    /// SHA-256 over the input corpus records, in id order (identifies the build input).
    pub corpus_sha256: String,
    /// Shards sorted by (subject, level).
    pub shards: Vec<ShardEntry>,
    /// The embedding model for the dense path, when the shards have dense indexes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelEntry>,
    /// Set when the corpus brought its own vectors: queries must bring theirs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_vectors: Option<VectorSpec>,
}

impl Manifest {
    /// Parses and checks a manifest.
    pub fn from_json(text: &str) -> Result<Manifest, FormatError> {
        let m: Manifest =
            serde_json::from_str(text).map_err(|e| FormatError::Manifest(e.to_string()))?;
        if m.format != MANIFEST_FORMAT {
            return Err(FormatError::Manifest(format!(
                "format is {:?}, expected {MANIFEST_FORMAT:?}",
                m.format
            )));
        }
        // Said of the manifest, not of a shard (the shard variants' text would name a shard).
        if m.format_version != FORMAT_VERSION {
            return Err(FormatError::Manifest(format!(
                "written by format v{}, this reader reads v{FORMAT_VERSION}: rebuild with `chsr build`",
                m.format_version
            )));
        }
        if m.analyzer_version != crate::analysis::ANALYZER_VERSION {
            return Err(FormatError::Manifest(format!(
                "shards analysed with analyzer v{}, this reader uses v{}: rebuild with `chsr build`",
                m.analyzer_version,
                crate::analysis::ANALYZER_VERSION
            )));
        }
        let files = m
            .shards
            .iter()
            .flat_map(|s| std::iter::once(&s.file).chain(s.dense.as_ref().map(|d| &d.file)))
            .chain(m.model.as_ref().map(|e| &e.file));
        for file in files {
            if file.contains('/') || file.contains('\\') || file.starts_with('.') {
                return Err(FormatError::Manifest(format!(
                    "file name {file:?} must be a plain file name"
                )));
            }
        }
        Ok(m)
    }

    /// Serialises the manifest as pretty JSON (stable field order).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("manifest serialises");
        s.push('\n');
        s
    }

    /// Distinct subjects, sorted.
    pub fn subjects(&self) -> Vec<String> {
        let mut v: Vec<String> = self.shards.iter().map(|s| s.subject.clone()).collect();
        v.dedup();
        v.sort();
        v.dedup();
        v
    }

    /// Distinct levels, sorted.
    pub fn levels(&self) -> Vec<String> {
        let mut v: Vec<String> = self.shards.iter().map(|s| s.level.clone()).collect();
        v.sort();
        v.dedup();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip() {
        let mut buf = Vec::new();
        for v in [0u32, 1, 127, 128, 300, u32::MAX] {
            write_varint(&mut buf, v);
        }
        let mut s = buf.as_slice();
        for v in [0u32, 1, 127, 128, 300, u32::MAX] {
            assert_eq!(read_varint(&mut s), Some(v));
        }
        assert!(s.is_empty());
    }

    #[test]
    fn field_names_round_trip() {
        for f in Field::ALL {
            assert_eq!(Field::parse(f.name()), Some(f));
        }
        assert_eq!(Field::parse("question"), Some(Field::QuestionNumber));
        assert_eq!(Field::parse("colour"), None);
    }
}
