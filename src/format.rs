//! The on-disk formats: shard files and `manifest.json`.
//!
//! This is the only module shared by the builder ([`crate::build`]) and the reader
//! ([`crate::search`]). A shard file is laid out as:
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
//! followed by chunk metadata and display text (or, when the text lives in text parts, empty
//! texts: see [`text`]), then the inverted index, the near-duplicate pairs and the text blocks. Nothing in it depends on
//! time, hashing order or thread scheduling, so the same corpus gives byte-identical shards.
//!
//! The static embedding model file has its own framing and types in [`model`].

use bincode::{Decode, Encode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

mod columns;
pub use columns::encoded_chunks;
pub mod dense;
mod dictionary;
mod fields;
pub mod frame;
pub mod json;
pub mod manifest;
pub mod merkle;
pub mod model;
pub mod pairs;
pub mod parts;
pub mod terms;
pub mod text;

pub use dense::*;
pub use manifest::*;
pub use parts::{
    decode_part_list, decode_postings_part, encode_part_list, encode_postings_part, part_file,
    parts_holding, postings_block_bytes, postings_blocks, PartList, PostingsEntry, PostingsPart,
    PART_KEY_HEX, PART_LIST_FORMAT, POSTINGS_BLOCK_BYTES, POSTINGS_INLINE_BYTES,
};
pub use terms::{
    decode_term_filters, encode_term_filters, ShardTermFilter, TermFilter, TermFiltersFile,
    TERM_FILTER_FP_RATE,
};
pub use text::{
    decode_text_part, encode_text_part, text_block_bytes, text_blocks, ChunkDisplay, TextPart,
    TEXT_BLOCK_BYTES,
};

use frame::FrameKind;

/// Magic bytes opening every shard file.
pub const MAGIC: &[u8; 8] = b"CHSRSHRD";
/// Version of the shard layout this build writes and reads (6: a shard whose postings are in
/// parts leaves its dictionary to them; 7: postings as two streams, gaps and frequencies,
/// without offsets; 8: a part list gives each part's digest as [`PART_DIGEST_HEX`] hex digits,
/// and a shard's chunk ids are front-coded; 9: the other metadata columns as a table of their
/// distinct values and an index per chunk; 10: the display-only metadata in the text parts,
/// [`ChunkDisplay`], and no column for what the text parts hold; 11: a near-duplicate pair
/// within a shard written once, from its earlier chunk, [`ShardPayload::near_duplicates`]; 12:
/// a part list gives the roots of the Merkle tree over its parts some levels down instead of
/// a digest each, and each part file carries its audit path within its subtree, [`merkle`]; 13:
/// a shard whose near-duplicate pairs are heavy leaves them to its text parts, [`pairs`]; 14:
/// a part list gives its parts' fields as arrays and their file names as a rule,
/// [`parts::part_file`]).
pub const FORMAT_VERSION: u32 = 14;
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
    /// A shard's part list is not valid JSON, misses a field or is of another format version.
    PartList(String),
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
            FormatError::PartList(e) => write!(f, "invalid part list: {e}"),
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Encode, Decode)]
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
///
/// On disk the terms are front-coded and the offsets written as lengths (`format::dictionary`).
///
/// A shard whose postings are in parts stores none of its terms, document frequencies or
/// offsets: each postings part carries those of its own terms ([`PostingsPart`]). A reader then
/// holds the whole vocabulary's places (an empty term, frequency 0 and no postings for a term
/// whose part has not arrived) and the first term of every part ([`LexicalIndex::blocks`], from
/// the part list), and [`LexicalIndex::term_id`] looks a term up in its part's range only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LexicalIndex {
    /// Sorted distinct terms.
    pub terms: Vec<String>,
    /// Document frequency per term.
    pub df: Vec<u32>,
    /// Start offset of each term's postings in `postings`, plus a final end offset.
    pub offsets: Vec<u32>,
    /// Encoded postings.
    pub postings: Vec<u8>,
    /// Number of terms per chunk.
    pub doc_len: Vec<u32>,
    /// When the terms arrive with their postings parts: each part's first term id and first
    /// term, in term order (not stored: a reader sets it from the part list). Empty when the
    /// whole dictionary is here.
    pub blocks: Vec<(u32, String)>,
}

impl LexicalIndex {
    /// Index of `term` in the sorted vocabulary (None when absent, or when the vocabulary is
    /// in parts and the part whose range holds `term` has not been attached).
    pub fn term_id(&self, term: &str) -> Option<usize> {
        let range = if self.blocks.is_empty() {
            0..self.terms.len()
        } else {
            let b = self.blocks.partition_point(|(_, t)| t.as_str() <= term);
            if b == 0 {
                return None;
            }
            let end = self
                .blocks
                .get(b)
                .map_or(self.terms.len(), |&(first, _)| first as usize);
            self.blocks[b - 1].0 as usize..end
        };
        let terms = self.terms.get(range.clone())?;
        terms
            .binary_search_by(|t| t.as_str().cmp(term))
            .ok()
            .map(|i| range.start + i)
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
        self.validate_tables(n_chunks, self.postings.len())?;
        self.validate_postings(0..self.terms.len(), n_chunks)
    }

    /// Checks the term tables and the document lengths for `n_chunks` chunks and postings of
    /// `postings_len` bytes (see [`LexicalIndex::validate`]; the postings are not read).
    pub fn validate_tables(&self, n_chunks: usize, postings_len: usize) -> Result<(), FormatError> {
        let bad = |m: &str| Err(FormatError::Decode(format!("lexical index: {m}")));
        if self.df.len() != self.terms.len() || self.offsets.len() != self.terms.len() + 1 {
            return bad("term tables differ in length");
        }
        if self.doc_len.len() != n_chunks {
            return bad("doc_len does not match the chunk count");
        }
        if self.offsets.windows(2).any(|w| w[0] > w[1])
            || *self.offsets.last().unwrap_or(&0) as usize != postings_len
        {
            return bad("postings offsets out of order or out of bounds");
        }
        if self.terms.windows(2).any(|w| w[0] >= w[1]) {
            return bad("terms not sorted");
        }
        Ok(())
    }

    /// Checks the postings of the terms `ids` (each list well formed, its document ids below
    /// `n_chunks`, as many as the term's document frequency); the tables are valid.
    pub fn validate_postings(
        &self,
        ids: std::ops::Range<usize>,
        n_chunks: usize,
    ) -> Result<(), FormatError> {
        let bad = |m: &str| Err(FormatError::Decode(format!("lexical index: {m}")));
        for id in ids {
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

/// Reads an LEB128 varint (`None`: truncated or over 32 bits). Most postings' deltas and term
/// frequencies fit in one byte: that case is inlined into the postings loop.
#[inline]
pub(crate) fn read_varint(bytes: &mut &[u8]) -> Option<u32> {
    match bytes.split_first() {
        Some((&b, rest)) if b < 0x80 => {
            *bytes = rest;
            Some(u32::from(b))
        }
        _ => read_varint_long(bytes),
    }
}

/// [`read_varint`] of a varint of any length.
#[inline(never)]
fn read_varint_long(bytes: &mut &[u8]) -> Option<u32> {
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
    #[inline]
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

/// Everything a shard holds after its header (on disk its chunks and near-duplicates by column:
/// `format::columns`).
#[derive(Clone, Debug, PartialEq)]
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
    /// The chunks' near-duplicates over the whole build (this shard's and other shards'
    /// chunks), sorted by `chunk` then `of`: what the reranker's near-duplicate removal reads
    /// instead of the texts ([`crate::rerank::dedup`]). Empty in a shard file whose text parts
    /// carry their chunks' pairs (format v13), added here as a reader loads them ([`pairs`]).
    pub near_duplicates: Vec<NearDuplicate>,
    /// When the display text lives in text parts ([`text`]): the number of chunks in each
    /// part, in order (their `text` is then empty here); empty when the text is inline.
    pub text_blocks: Vec<u32>,
    /// When the postings live in postings parts ([`parts`]): the number of terms in each part,
    /// in term order (`lexical` then holds only the document lengths: the terms, their document
    /// frequencies and postings are in the parts); empty when the postings are inline.
    pub postings_blocks: Vec<u32>,
    /// With `postings_blocks`: the bytes of each part's postings, so that a reader can place
    /// every part's postings before any has arrived.
    pub postings_block_bytes: Vec<u32>,
}

/// One chunk's near-duplicate, found at build time.
#[derive(Clone, Debug, PartialEq)]
pub struct NearDuplicate {
    /// Position of the chunk in its shard.
    pub chunk: u32,
    /// Id of the other chunk (in any shard of the build).
    pub of: String,
    /// Jaccard similarity of their word sets (≥ [`crate::rerank::DEDUP_THRESHOLD`]).
    pub similarity: f64,
}

impl ShardPayload {
    /// The near-duplicates of chunk `doc` ([`ShardPayload::near_duplicates`]).
    pub fn near_duplicates_of(&self, doc: u32) -> &[NearDuplicate] {
        let v = &self.near_duplicates;
        let start = v.partition_point(|n| n.chunk < doc);
        let end = start + v[start..].partition_point(|n| n.chunk == doc);
        &v[start..end]
    }
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
    let n = payload.chunks.len();
    if payload.postings_blocks.is_empty() {
        payload.lexical.validate(n)?;
        if !payload.postings_block_bytes.is_empty() {
            return Err(FormatError::Decode(
                "postings block sizes without postings blocks".into(),
            ));
        }
    } else {
        // The dictionary and the postings are in parts, checked as they arrive
        // (`LexicalIndex::validate_postings`): here only the document lengths, and blocks that
        // are not empty and fit a payload.
        let lex = &payload.lexical;
        let total: u64 = payload
            .postings_block_bytes
            .iter()
            .map(|&b| u64::from(b))
            .sum();
        if !lex.terms.is_empty()
            || !lex.df.is_empty()
            || lex.offsets != [0]
            || !lex.postings.is_empty()
            || total > MAX_PAYLOAD
            || payload.postings_blocks.contains(&0)
            || payload.postings_block_bytes.len() != payload.postings_blocks.len()
            || payload
                .postings_blocks
                .iter()
                .try_fold(0u32, |a, &b| a.checked_add(b))
                .is_none()
        {
            return Err(FormatError::Decode(format!(
                "postings blocks of {} terms and {} bytes with a dictionary of {} terms \
                 in the shard (it belongs to the parts)",
                json::list(&payload.postings_blocks),
                json::list(&payload.postings_block_bytes),
                lex.terms.len()
            )));
        }
        lex.validate_tables(n, 0)?;
    }
    if payload
        .near_duplicates
        .iter()
        .any(|d| d.chunk as usize >= n)
        || payload
            .near_duplicates
            .windows(2)
            .any(|w| (w[0].chunk, &w[0].of) > (w[1].chunk, &w[1].of))
    {
        return Err(FormatError::Decode(
            "near-duplicate pairs out of order or naming a chunk past the shard's end".into(),
        ));
    }
    if !payload.text_blocks.is_empty()
        && (payload
            .text_blocks
            .iter()
            .map(|&b| b as usize)
            .sum::<usize>()
            != n
            || payload.text_blocks.contains(&0))
    {
        return Err(FormatError::Decode(format!(
            "text blocks of {} chunks do not cover the shard's {n} chunks",
            json::list(&payload.text_blocks)
        )));
    }
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

/// Hex digits of each Merkle subtree root over a shard's parts that its part list gives (v12,
/// [`merkle`]; from v8 to v11, of each part's own SHA-256): the first 128 bits, as every node
/// of the tree. Matching 128 bits of SHA-256 still takes about 2^128 tries to forge. The
/// manifest's own entries (shards, part lists, vectors, model) keep the whole digest.
pub const PART_DIGEST_HEX: usize = 32;

/// Whether `listed`, a digest as a manifest or part list gives it (a whole SHA-256, 64 hex
/// digits, or a part's first [`PART_DIGEST_HEX`]), starts `found`, a file's whole SHA-256 in
/// lower-case hex. Any other length never matches.
pub fn digest_matches(listed: &str, found: &str) -> bool {
    (listed.len() == 64 || listed.len() == PART_DIGEST_HEX)
        && found.len() == 64
        && found.starts_with(listed)
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `bytes` in lower-case hex (a digest, a Merkle node).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_digest_matches_the_start_of_the_files_whole_digest_and_nothing_shorter() {
        let found = sha256_hex(b"a text part");
        assert!(digest_matches(&found, &found));
        assert!(digest_matches(&found[..PART_DIGEST_HEX], &found));
        let other = sha256_hex(b"another text part");
        assert!(!digest_matches(&other[..PART_DIGEST_HEX], &found));
        assert!(!digest_matches(&other, &found));
        // A digest cut shorter than 128 bits (or empty) would accept other files: never matches.
        for n in [0, 8, 16, 31, 33, 63] {
            assert!(!digest_matches(&found[..n], &found), "{n} hex digits");
        }
        // Nor does a listed digest against a truncated computation.
        assert!(!digest_matches(
            &found[..PART_DIGEST_HEX],
            &found[..PART_DIGEST_HEX]
        ));
    }

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
        // Truncated, and longer than 32 bits: corrupt, never a value.
        for bad in [
            &[0x80u8][..],
            &[0xff, 0xff],
            &[0xff, 0xff, 0xff, 0xff, 0x7f],
            &[0x80; 6],
        ] {
            assert_eq!(read_varint(&mut &bad[..]), None, "{bad:?}");
        }
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
