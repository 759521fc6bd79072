//! `manifest.json`: the table of contents of a shard folder (shards, their dense parts, the
//! embedding model, facet counts).

use super::fields::{self, Fields};
use super::{FormatError, FORMAT_VERSION, MANIFEST_FORMAT};
use serde::Serialize;
use std::collections::BTreeMap;

/// Facet counts of one field: value → number of chunks.
pub type FacetCounts = BTreeMap<String, u64>;

/// One shard as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextEntry {
    /// File name, relative to the manifest: the shard's stem, the part's leaf and the first 16
    /// hex digits of the root of the Merkle tree over the shard's parts ([`super::merkle`]).
    pub file: String,
    /// File size in bytes.
    pub bytes: u64,
    /// Position of the part's first chunk in the shard.
    pub first: u32,
    /// Number of chunks in the part.
    pub chunks: u32,
}

/// The embedding model a shard folder was built with, as listed in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VectorSpec {
    /// The id of the model that made the document vectors.
    pub model_id: String,
    /// Vector dimensions.
    pub dims: u32,
}

/// Prefix of `DenseIndex::model_sha256` for vectors brought with the corpus.
pub const BYO_PREFIX: &str = "byo:";

/// `manifest.json`: the table of contents of a shard folder.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
    /// Parses and checks a manifest: every field read by name (unknown fields ignored, a
    /// missing or `null` optional field absent; an error names the field's path), its format and
    /// versions, and plain file names.
    pub fn from_json(text: &str) -> Result<Manifest, FormatError> {
        let v = fields::parse(text, FormatError::Manifest)?;
        let m = Fields::root(&v, FormatError::Manifest)?;
        // Said of the manifest, not of a shard (the shard variants' text would name a shard).
        let format = m.header(MANIFEST_FORMAT)?;
        let analyzer_version = m.u32("analyzer_version")?;
        if analyzer_version != crate::analysis::ANALYZER_VERSION {
            return Err(FormatError::Manifest(format!(
                "shards analysed with analyzer v{analyzer_version}, this reader uses v{}: rebuild with `chsr build`",
                crate::analysis::ANALYZER_VERSION
            )));
        }
        Ok(Manifest {
            format,
            format_version: FORMAT_VERSION,
            analyzer_version,
            chunks: m.u64("chunks")?,
            corpus_sha256: m.string("corpus_sha256")?,
            shards: m.objects("shards", read_shard)?,
            model: m.optional("model", |f| {
                Ok(ModelEntry {
                    file: f.file("file")?,
                    sha256: f.string("sha256")?,
                    bytes: f.u64("bytes")?,
                    id: f.string("id")?,
                    dims: f.u32("dims")?,
                })
            })?,
            query_vectors: m.optional("query_vectors", |f| {
                Ok(VectorSpec {
                    model_id: f.string("model_id")?,
                    dims: f.u32("dims")?,
                })
            })?,
            terms: m.optional("terms", |f| f.entry())?,
        })
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

/// A shard entry of the manifest ([`Manifest::from_json`]).
fn read_shard(f: Fields<'_>) -> Result<ShardEntry, FormatError> {
    Ok(ShardEntry {
        subject: f.string("subject")?,
        level: f.string("level")?,
        file: f.file("file")?,
        sha256: f.string("sha256")?,
        bytes: f.u64("bytes")?,
        chunks: f.u64("chunks")?,
        facets: inserted(f.map("facets", |c| Ok(inserted(c.counts()?)))?),
        part_list: f.optional("part_list", |p| {
            Ok(PartListEntry {
                file: p.file("file")?,
                sha256: p.string("sha256")?,
                bytes: p.u64("bytes")?,
                text_parts: p.u32("text_parts")?,
                text_bytes: p.u64("text_bytes")?,
                postings_parts: p.u32("postings_parts")?,
                postings_bytes: p.u64("postings_bytes")?,
            })
        })?,
        dense: f.optional("dense", |d| d.entry())?,
        terms: f.optional("terms", |t| {
            Ok(super::TermFilter {
                terms: t.u64("terms")?,
                bits: t.u64("bits")?,
                hashes: t.u32("hashes")?,
                filter: t.string("filter")?,
            })
        })?,
    })
}

/// A map of `pairs` inserted one by one (a JSON object's fields arrive sorted and distinct):
/// `collect` would sort them again, with a sort of its own per map type in the browser's module.
fn inserted<V>(pairs: Vec<(String, V)>) -> BTreeMap<String, V> {
    let mut m = BTreeMap::new();
    for (k, v) in pairs {
        m.insert(k, v);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str) -> PartEntry {
        PartEntry {
            file: file.into(),
            sha256: "ab".repeat(32),
            bytes: 12,
        }
    }

    /// A manifest with every optional field present.
    fn full() -> Manifest {
        let facets = [("doc_type".to_string(), [("textbook".to_string(), 7)].into())].into();
        Manifest {
            format: MANIFEST_FORMAT.into(),
            format_version: FORMAT_VERSION,
            analyzer_version: crate::analysis::ANALYZER_VERSION,
            chunks: 7,
            corpus_sha256: "cd".repeat(32),
            shards: vec![ShardEntry {
                subject: "physics".into(),
                level: "college".into(),
                file: "physics--college.0123.chsr".into(),
                sha256: "ef".repeat(32),
                bytes: 4096,
                chunks: 7,
                facets,
                part_list: Some(PartListEntry {
                    file: "physics--college.4567.chsrl".into(),
                    sha256: "01".repeat(32),
                    bytes: 300,
                    text_parts: 2,
                    text_bytes: 900,
                    postings_parts: 3,
                    postings_bytes: 5000,
                }),
                dense: Some(entry("physics--college.89ab.chsrv")),
                terms: Some(crate::format::TermFilter {
                    terms: 5,
                    bits: 64,
                    hashes: 3,
                    filter: "AAAAAAAAAAA=".into(),
                }),
            }],
            model: Some(ModelEntry {
                file: "model.cdef.chsrm".into(),
                sha256: "23".repeat(32),
                bytes: 1000,
                id: "static-model".into(),
                dims: 256,
            }),
            query_vectors: Some(VectorSpec {
                model_id: "mine".into(),
                dims: 8,
            }),
            terms: Some(entry("terms.0011.chsrt")),
        }
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let m = full();
        assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
        // Optional fields absent (as the builder omits them) or null read as absent.
        let mut bare = full();
        bare.model = None;
        bare.query_vectors = None;
        bare.terms = None;
        bare.shards[0].part_list = None;
        bare.shards[0].dense = None;
        bare.shards[0].terms = None;
        assert_eq!(Manifest::from_json(&bare.to_json()).unwrap(), bare);
        let mut v: serde_json::Value = serde_json::from_str(&bare.to_json()).unwrap();
        v["model"] = serde_json::Value::Null;
        v["shards"][0]["unknown_field"] = serde_json::json!([1, 2]);
        assert_eq!(Manifest::from_json(&v.to_string()).unwrap(), bare);
    }

    #[test]
    fn a_bad_manifest_field_is_named_by_its_path() {
        let err = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut v: serde_json::Value = serde_json::from_str(&full().to_json()).unwrap();
            edit(&mut v);
            Manifest::from_json(&v.to_string()).unwrap_err().to_string()
        };
        let e = err(&|v| v["shards"][0]["part_list"]["sha256"] = 5.into());
        assert!(
            e.contains("`shards[0].part_list.sha256` must be a string"),
            "{e}"
        );
        let e = err(&|v| {
            v["shards"][0].as_object_mut().unwrap().remove("chunks");
        });
        assert!(e.contains("`shards[0].chunks` is missing"), "{e}");
        let e = err(&|v| v["shards"][0]["facets"]["doc_type"]["textbook"] = "x".into());
        assert!(
            e.contains("`shards[0].facets.doc_type.textbook` must be a non-negative integer"),
            "{e}"
        );
        let e = err(&|v| v["model"]["file"] = "../model.chsrm".into());
        assert!(
            e.contains("`model.file` (\"../model.chsrm\") must be a plain file name"),
            "{e}"
        );
        let e = err(&|v| v["format_version"] = 1.into());
        assert!(e.contains("written by format v1"), "{e}");
        let e = err(&|v| v["format"] = "other".into());
        assert!(e.contains("format is \"other\""), "{e}");
    }
}
