//! `manifest.json`: the table of contents of a shard folder (shards, their dense parts, the
//! embedding model, facet counts).

use super::{FormatError, FORMAT_VERSION, MANIFEST_FORMAT};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// The shard's part list ([`super::PartList`]), when its display text or its postings live
    /// in their own files (absent: everything is inside the shard). The parts are listed in their
    /// own file, fetched with the shard, so that the manifest stays one entry per shard however
    /// large the library grows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part_list: Option<PartListEntry>,
    /// The shard's dense part ([`DensePart`]), in its own file, when the shard has vectors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<PartEntry>,
    /// A Bloom filter of the shard's analysed terms, inline (base64), as manifests carried it
    /// before the filters had their own file ([`Manifest::terms`]); read, no longer written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<super::TermFilter>,
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

/// The part-list file of a shard ([`super::PartList`]), as listed in the manifest, with what a
/// page shows before fetching it (how many parts, how many bytes to keep the shard offline).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartListEntry {
    /// Content-hashed file name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the whole file.
    pub sha256: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Number of text parts the list names.
    pub text_parts: u32,
    /// Total size of those text parts in bytes.
    pub text_bytes: u64,
    /// Number of postings parts the list names.
    pub postings_parts: u32,
    /// Total size of those postings parts in bytes.
    pub postings_bytes: u64,
}

/// A text part of a shard ([`super::TextPart`]), as listed in its shard's part list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextEntry {
    /// Content-hashed file name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the whole file.
    pub sha256: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Position of the part's first chunk in the shard.
    pub first: u32,
    /// Number of chunks in the part.
    pub chunks: u32,
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
    /// The term-filter file ([`super::terms::TermFiltersFile`]): a Bloom filter of the analysed
    /// terms of every shard a widening step could load, so that it loads only shards the query
    /// could match. Fetched only when a widening step asks for it; absent when no shard needs
    /// one (and in manifests written before it: every shard may then match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terms: Option<PartEntry>,
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
            .flat_map(|s| {
                std::iter::once(&s.file)
                    .chain(s.dense.as_ref().map(|d| &d.file))
                    .chain(s.part_list.as_ref().map(|t| &t.file))
            })
            .chain(m.model.as_ref().map(|e| &e.file))
            .chain(m.terms.as_ref().map(|e| &e.file));
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
        crate::order::sort(&mut v);
        v.dedup();
        v
    }

    /// Distinct levels, sorted.
    pub fn levels(&self) -> Vec<String> {
        let mut v: Vec<String> = self.shards.iter().map(|s| s.level.clone()).collect();
        crate::order::sort(&mut v);
        v.dedup();
        v
    }
}
