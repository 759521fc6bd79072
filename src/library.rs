//! The reader: a manifest, the shards loaded so far, and the `search` entry point.
//!
//! The same [`Library`] serves the native CLI and the Wasm module; only the way bytes arrive
//! differs (files on disk, or `fetch`). A search first decides which shards the scope needs
//! ([`Library::shards_needed`]); the caller loads them ([`Library::load_shard`], which checks the
//! manifest's SHA-256 and the shard's own checksum); then [`Library::search`] runs the gate and
//! the retrieval paths over the admitted chunks only.

use crate::analysis::{bound_query, Analyzer, Lang, MAX_QUERY_BYTES, MAX_QUERY_TERMS};
use crate::bm25::{self, PoolShard};
use crate::clock::now_ms;
use crate::dense::{self, DenseConfig, DenseShard, Plan};
use crate::expand::{expand_section, natural_cmp, to_context, Expanded};
use crate::format::{
    decode_dense_part, decode_shard, decode_shard_prehashed, sha256_hex, ChunkRecord, DenseIndex,
    Field, FormatError, Manifest, PartEntry, QVec, ShardEntry, ShardPayload,
};
use crate::fusion::{weighted_rrf, DEFAULT_RRF_K};
use crate::gate::{self, Bitset};
use crate::glossary::Glossary;
use crate::relax::{
    Evidence, Trigger, DEFAULT_LEVEL_RATIO, DEFAULT_MIX_RATIO, DEFAULT_WIDEN_RATIO,
};
use crate::rerank::{rerank, Adjustment, Candidate, Duplicate, RerankConfig};
use crate::scope::{Scope, ScopeError};
use crate::snippet::{Highlighter, Segment, SNIPPET_CHARS};
use crate::understand::{resolve, understand, Understanding};
use serde::Serialize;
use std::fmt;

/// Default weight of the dense list in the fusion (BM25 weighs 1): measured on the OpenCERB dev
/// split with the bundled static model (see README, "Choosing the fusion weights").
pub const DEFAULT_DENSE_WEIGHT: f64 = 0.1;

/// Default weight of a chunk's section in its BM25 score (variants D and E): chosen by two-fold
/// cross-validation on the OpenCERB dev split (see README, "Section evidence").
pub const DEFAULT_SECTION_WEIGHT: f64 = 0.65;

/// Largest `k` a search accepts.
pub const MAX_K: usize = 200;

/// Errors loading a shard into a library (the loading concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The manifest lists no shard with this file name.
    UnknownFile(String),
    /// The file's SHA-256 differs from the manifest's (stale cache, partial download, tampering).
    Integrity {
        /// File name.
        file: String,
        /// SHA-256 from the manifest.
        expected: String,
        /// SHA-256 of the bytes received.
        found: String,
    },
    /// The shard itself is unreadable.
    Format {
        /// File name.
        file: String,
        /// What is wrong.
        error: FormatError,
    },
    /// The shard holds another subject/level than the manifest says.
    Mismatch {
        /// File name.
        file: String,
        /// What the manifest says.
        expected: String,
        /// What the shard holds.
        found: String,
    },
    /// The embedding model file is unreadable or is not the manifest's.
    Model {
        /// File name.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A shard's dense part arrived before the shard itself.
    PartBeforeShard {
        /// The part's file name.
        file: String,
        /// The shard it completes.
        shard: String,
    },
    /// Reading a file failed (native only).
    Io {
        /// Path.
        file: String,
        /// Message.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::UnknownFile(x) => write!(f, "the manifest lists no shard named {x:?}"),
            LoadError::Integrity { file, expected, found } => write!(
                f,
                "{file}: SHA-256 mismatch (manifest {expected}, received {found}): the download is \
                 incomplete or stale; reload the page or rebuild with `chsr build`"
            ),
            LoadError::Format { file, error } => write!(f, "{file}: {error}"),
            LoadError::Mismatch { file, expected, found } => write!(
                f,
                "{file}: the manifest says {expected} but the shard holds {found}: manifest and shards \
                 come from different builds"
            ),
            LoadError::Model { file, message } => write!(f, "{file}: {message}"),
            LoadError::PartBeforeShard { file, shard } => write!(
                f,
                "{file}: the vectors of {shard}, which is not loaded: load the shard first"
            ),
            LoadError::Io { file, message } => write!(f, "{file}: {message}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// Errors of a search call (the query concern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchError {
    /// The scope is invalid for this manifest.
    Scope(ScopeError),
    /// Shards the search needs are not loaded yet.
    NotLoaded(Vec<String>),
    /// An option is out of range.
    Option(String),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Scope(e) => write!(f, "{e}"),
            SearchError::NotLoaded(files) => {
                write!(f, "shards not loaded yet: {}", files.join(", "))
            }
            SearchError::Option(m) => write!(f, "invalid option: {m}"),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<ScopeError> for SearchError {
    fn from(e: ScopeError) -> Self {
        SearchError::Scope(e)
    }
}

/// How the scope is applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Hard gate before scoring (chsr's design): only admissible chunks are scored.
    #[default]
    Gated,
    /// No gate: every shard of the manifest is searched (baseline; leaks).
    Ungated,
    /// Retrieve ungated, then drop out-of-scope results (the post-filter baseline).
    PostFiltered,
}

impl Gating {
    /// Parses `gated`, `ungated` or `post_filtered`/`postfilter`.
    pub fn parse(s: &str) -> Option<Gating> {
        match s.trim().to_ascii_lowercase().replace('-', "_").as_str() {
            "gated" | "gate" => Some(Gating::Gated),
            "ungated" | "none" => Some(Gating::Ungated),
            "post_filtered" | "postfilter" | "post_filter" => Some(Gating::PostFiltered),
            _ => None,
        }
    }
}

/// The pipeline variants of the ablation (the seed paper's A–E).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Variant {
    /// Dense only, gated.
    A,
    /// Hybrid (BM25 + dense, RRF), ungated: every shard is searched.
    B,
    /// Hybrid, post-filtered: retrieve ungated, then drop out-of-scope results.
    #[serde(rename = "B+")]
    BPlus,
    /// Hybrid, gated.
    C,
    /// C + deterministic rerank and near-duplicate removal.
    D,
    /// D + query understanding, cross-language expansion and audited scope relaxation.
    #[default]
    E,
}

/// Which stages a search runs (what a [`Variant`] switches on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stages {
    /// BM25 path.
    pub lexical: bool,
    /// Dense path.
    pub dense: bool,
    /// How the scope is applied.
    pub gating: Gating,
    /// Section evidence in the BM25 list (each chunk's score blended with its section's best).
    pub sections: bool,
    /// Metadata-aware rerank and dedup.
    pub rerank: bool,
    /// Query understanding (hints, intents, language).
    pub understand: bool,
    /// Progressive scope relaxation.
    pub relax: bool,
}

impl Variant {
    /// Every variant, in ablation order.
    pub const ALL: [Variant; 6] = [
        Variant::A,
        Variant::B,
        Variant::BPlus,
        Variant::C,
        Variant::D,
        Variant::E,
    ];

    /// Parses `A`, `B`, `B+` (or `Bplus`), `C`, `D`, `E` (case-insensitive).
    pub fn parse(s: &str) -> Option<Variant> {
        Some(match s.trim().to_ascii_uppercase().as_str() {
            "A" => Variant::A,
            "B" => Variant::B,
            "B+" | "BPLUS" | "B_PLUS" => Variant::BPlus,
            "C" => Variant::C,
            "D" => Variant::D,
            "E" => Variant::E,
            _ => return None,
        })
    }

    /// The variant's name (`B+` for [`Variant::BPlus`]).
    pub fn name(self) -> &'static str {
        match self {
            Variant::A => "A",
            Variant::B => "B",
            Variant::BPlus => "B+",
            Variant::C => "C",
            Variant::D => "D",
            Variant::E => "E",
        }
    }

    /// The stages the variant runs.
    pub fn stages(self) -> Stages {
        let base = Stages {
            lexical: true,
            dense: true,
            gating: Gating::Gated,
            sections: false,
            rerank: false,
            understand: false,
            relax: false,
        };
        match self {
            Variant::A => Stages {
                lexical: false,
                ..base
            },
            Variant::B => Stages {
                gating: Gating::Ungated,
                ..base
            },
            Variant::BPlus => Stages {
                gating: Gating::PostFiltered,
                ..base
            },
            Variant::C => base,
            Variant::D => Stages {
                sections: true,
                rerank: true,
                ..base
            },
            Variant::E => Stages {
                sections: true,
                rerank: true,
                understand: true,
                relax: true,
                ..base
            },
        }
    }
}

/// Options of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Number of results wanted (1..=[`MAX_K`]).
    pub k: usize,
    /// The stages to run (from a [`Variant`] by default).
    pub stages: Stages,
    /// The variant the stages came from (reported in the trace).
    pub variant: Variant,
    /// RRF constant (default 60).
    pub rrf_k: f64,
    /// Rank window of each retrieval list before fusion (at least `k`).
    pub window: usize,
    /// Snippet length in characters.
    pub snippet_chars: usize,
    /// Relaxation: what decides to widen ([`Trigger`]; evidence by default).
    pub trigger: Trigger,
    /// Relaxation, paper trigger: with no subject in the scope, widen when fewer results than
    /// this (case 4).
    pub k_min: usize,
    /// Relaxation, evidence trigger: W1 widens when the best section it would add scores more
    /// than this many times the best section in scope ([`crate::relax::fires`]).
    pub widen_ratio: f64,
    /// Relaxation, evidence trigger: W1 widens with in-scope and widened results alternating
    /// when the ratio of best sections lies above this and at most `widen_ratio` (ambiguous
    /// evidence); at or above `widen_ratio` there is no such band.
    pub mix_ratio: f64,
    /// Relaxation, evidence trigger: W2 widens when the best section of another level scores
    /// more than this many times the best section at the requested level.
    pub level_ratio: f64,
    /// Relaxation: allow the last-resort unfiltered lexical fallback (W3).
    pub allow_fallback: bool,
    /// Section expansion: character budget per result (0 = off).
    pub expand_chars: usize,
    /// Return each result's full text (`Hit::text`); a page that shows snippets and fetches the
    /// text on demand sets it off and saves copying every text into JavaScript.
    pub text: bool,
    /// Dense plan thresholds.
    pub dense: DenseConfig,
    /// Reranker weights.
    pub rerank: RerankConfig,
    /// Record the per-stage candidate lists in the trace (used by `explain`).
    pub probe: bool,
    /// Weight of the dense list in the fusion (the BM25 list weighs 1).
    pub dense_weight: f64,
    /// Weight of a chunk's section in its BM25 score, from 0 (the chunk alone) to 1 (its
    /// section's best chunk), when the stages include [`Stages::sections`].
    pub section_weight: f64,
    /// A query vector from the caller, for shards built with vectors brought with the corpus.
    pub query_vector: Option<Vec<f32>>,
    /// The model id of `query_vector` (must equal the corpus vectors' model).
    pub vector_model: Option<String>,
}

impl SearchOptions {
    /// Options for a variant, other settings at their defaults.
    pub fn for_variant(v: Variant) -> SearchOptions {
        SearchOptions {
            stages: v.stages(),
            variant: v,
            ..Default::default()
        }
    }

    /// Reads options from a JSON object such as `{"k": 8, "variant": "D"}` (the JS API's
    /// options); absent fields keep their defaults, unknown fields are an error. `gating`
    /// overrides the variant's gating.
    pub fn from_json(value: &serde_json::Value) -> Result<SearchOptions, SearchError> {
        let mut o = SearchOptions::default();
        let obj = match value {
            serde_json::Value::Null => return Ok(o),
            serde_json::Value::Object(m) => m,
            _ => return Err(SearchError::Option("options must be an object".into())),
        };
        let uint = |v: &serde_json::Value, name: &str, lo: u64, hi: u64| {
            v.as_u64()
                .filter(|n| (lo..=hi).contains(n))
                .map(|n| n as usize)
                .ok_or_else(|| {
                    SearchError::Option(format!("{name} must be an integer from {lo} to {hi}"))
                })
        };
        if let Some(v) = obj.get("variant") {
            let name = v.as_str().unwrap_or("");
            let var = Variant::parse(name).ok_or_else(|| {
                SearchError::Option(format!("unknown variant {v}; valid: A, B, B+, C, D, E"))
            })?;
            o = SearchOptions::for_variant(var);
        }
        for (key, v) in obj {
            match key.as_str() {
                "variant" => {}
                "k" => o.k = uint(v, "k", 1, MAX_K as u64)?,
                "gating" => {
                    o.stages.gating = v.as_str().and_then(Gating::parse).ok_or_else(|| {
                        SearchError::Option("gating must be \"gated\", \"ungated\" or \"post_filtered\"".into())
                    })?
                }
                "rrf_k" => {
                    o.rrf_k = v
                        .as_f64()
                        .filter(|x| *x >= 0.0 && *x <= 1000.0)
                        .ok_or_else(|| SearchError::Option("rrf_k must be a number from 0 to 1000".into()))?
                }
                "window" => o.window = uint(v, "window", 1, 1000)?,
                "snippet_chars" => o.snippet_chars = uint(v, "snippet_chars", 16, 4000)?,
                "k_min" => o.k_min = uint(v, "k_min", 0, MAX_K as u64)?,
                "trigger" => {
                    o.trigger = v.as_str().and_then(Trigger::parse).ok_or_else(|| {
                        SearchError::Option("trigger must be \"paper\" or \"evidence\"".into())
                    })?
                }
                "widen_ratio" => {
                    o.widen_ratio = v
                        .as_f64()
                        .filter(|x| (0.0..=1000.0).contains(x))
                        .ok_or_else(|| SearchError::Option("widen_ratio must be a number from 0 to 1000".into()))?
                }
                "mix_ratio" => {
                    o.mix_ratio = v
                        .as_f64()
                        .filter(|x| (0.0..=1000.0).contains(x))
                        .ok_or_else(|| SearchError::Option("mix_ratio must be a number from 0 to 1000".into()))?
                }
                "level_ratio" => {
                    o.level_ratio = v
                        .as_f64()
                        .filter(|x| (0.0..=1000.0).contains(x))
                        .ok_or_else(|| SearchError::Option("level_ratio must be a number from 0 to 1000".into()))?
                }
                "allow_fallback" => {
                    o.allow_fallback = v
                        .as_bool()
                        .ok_or_else(|| SearchError::Option("allow_fallback must be true or false".into()))?
                }
                "expand_chars" => o.expand_chars = uint(v, "expand_chars", 0, 100_000)?,
                "text" => {
                    o.text = v
                        .as_bool()
                        .ok_or_else(|| SearchError::Option("text must be true or false".into()))?
                }
                "query_vector" => {
                    let arr = v
                        .as_array()
                        .filter(|a| !a.is_empty() && a.len() <= 4096)
                        .ok_or_else(|| SearchError::Option("query_vector must be an array of 1 to 4096 numbers".into()))?;
                    let mut q = Vec::with_capacity(arr.len());
                    for x in arr {
                        q.push(x.as_f64().filter(|f| f.is_finite()).ok_or_else(|| {
                            SearchError::Option("query_vector components must be finite numbers".into())
                        })? as f32);
                    }
                    o.query_vector = Some(q);
                }
                "vector_model" => {
                    o.vector_model = Some(
                        v.as_str()
                            .ok_or_else(|| SearchError::Option("vector_model must be a string".into()))?
                            .to_string(),
                    )
                }
                "dense_weight" => {
                    o.dense_weight = v
                        .as_f64()
                        .filter(|x| (0.0..=10.0).contains(x))
                        .ok_or_else(|| SearchError::Option("dense_weight must be a number from 0 to 10".into()))?
                }
                "section_weight" => {
                    o.section_weight = v
                        .as_f64()
                        .filter(|x| (0.0..=1.0).contains(x))
                        .ok_or_else(|| SearchError::Option("section_weight must be a number from 0 to 1".into()))?
                }
                "exact_max" => o.dense.exact_max = uint(v, "exact_max", 0, u32::MAX as u64)?,
                "exact_fraction" => {
                    o.dense.exact_fraction = v
                        .as_f64()
                        .filter(|x| (0.0..=1.0).contains(x))
                        .ok_or_else(|| SearchError::Option("exact_fraction must be a number from 0 to 1".into()))?
                }
                other => {
                    return Err(SearchError::Option(format!(
                        "unknown option {other:?}; valid: k, variant, gating, rrf_k, window, snippet_chars, trigger, k_min, \
                         widen_ratio, mix_ratio, level_ratio, allow_fallback, expand_chars, text, dense_weight, section_weight, exact_max, exact_fraction, \
                         query_vector, vector_model"
                    )))
                }
            }
        }
        Ok(o)
    }

    fn window(&self) -> usize {
        self.window.max(self.k)
    }
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 8,
            stages: Variant::E.stages(),
            variant: Variant::E,
            rrf_k: DEFAULT_RRF_K,
            window: 50,
            snippet_chars: SNIPPET_CHARS,
            trigger: Trigger::default(),
            k_min: 1,
            widen_ratio: DEFAULT_WIDEN_RATIO,
            mix_ratio: DEFAULT_MIX_RATIO,
            level_ratio: DEFAULT_LEVEL_RATIO,
            allow_fallback: false,
            expand_chars: 0,
            text: true,
            dense: DenseConfig::default(),
            rerank: RerankConfig::default(),
            probe: false,
            dense_weight: DEFAULT_DENSE_WEIGHT,
            section_weight: DEFAULT_SECTION_WEIGHT,
            query_vector: None,
            vector_model: None,
        }
    }
}

/// Embeds queries for the dense path; its vectors must come from the model the shards used.
pub trait QueryEmbedder: Send + Sync {
    /// SHA-256 of the model file (compared with each shard's `model_sha256`).
    fn model_sha256(&self) -> &str;
    /// A unit vector for the query.
    fn embed_query(&self, query: &str) -> Vec<f32>;
}

/// The static embedding model as a [`QueryEmbedder`].
pub struct ModelEmbedder {
    model: crate::embed::StaticModel,
    sha256: String,
}

impl ModelEmbedder {
    /// Decodes a model file; `sha256` identifies it (the shards record the same digest).
    pub fn from_bytes(
        bytes: &[u8],
    ) -> Result<ModelEmbedder, crate::format::model::ModelFormatError> {
        Ok(ModelEmbedder {
            model: crate::embed::StaticModel::from_bytes(bytes)?,
            sha256: sha256_hex(bytes),
        })
    }

    /// Decodes a model file whose SHA-256 (`sha256`) the caller computed and checked against a
    /// trusted digest: the file is not hashed again.
    pub fn from_prehashed(
        bytes: &[u8],
        sha256: String,
    ) -> Result<ModelEmbedder, crate::format::model::ModelFormatError> {
        let payload = crate::format::model::decode_model_prehashed(bytes)?;
        Ok(ModelEmbedder {
            model: crate::embed::StaticModel::from_payload(payload)?,
            sha256,
        })
    }

    /// The model.
    pub fn model(&self) -> &crate::embed::StaticModel {
        &self.model
    }
}

impl QueryEmbedder for ModelEmbedder {
    fn model_sha256(&self) -> &str {
        &self.sha256
    }
    fn embed_query(&self, query: &str) -> Vec<f32> {
        self.model.embed_query(query)
    }
}

/// Adds a note to the trace of the primary pass, once.
fn note_once(trace: &mut Trace, primary: bool, m: String) {
    if primary && !trace.notes.contains(&m) {
        trace.notes.push(m);
    }
}

/// Decodes the bytes of manifest file `file` with `decode(bytes, checksum)` once their SHA-256
/// (`found`, hex, computed over exactly `bytes` by the caller) matches the manifest's `expected`:
/// that digest covers the whole file, so the payload checksum is not computed again (`checksum`
/// false). On a mismatch the file is decoded with its checksum anyway, to report the most precise
/// reason (truncation, another version…) when there is one.
fn verified<T>(
    file: &str,
    bytes: &[u8],
    expected: &str,
    found: &str,
    decode: impl Fn(&[u8], bool) -> Result<T, FormatError>,
) -> Result<T, LoadError> {
    let fmt_err = |error| LoadError::Format {
        file: file.into(),
        error,
    };
    let found = found.to_ascii_lowercase();
    if found != expected {
        decode(bytes, true).map_err(fmt_err)?;
        return Err(LoadError::Integrity {
            file: file.into(),
            expected: expected.into(),
            found,
        });
    }
    decode(bytes, false).map_err(fmt_err)
}

/// Decodes and checks a dense index's graph for a shard of `n_chunks`, then drops the encoded
/// graph (the decoded one replaces it; `DenseIndex` keeps the model id and parameters).
fn decode_dense(d: &mut DenseIndex, n_chunks: usize) -> Result<DenseShard, FormatError> {
    let graph = d.decode_graph(n_chunks)?;
    d.graph = Vec::new();
    Ok(DenseShard::new(graph, d.dims as usize))
}

/// A shard decoded and ready to search.
pub struct Shard {
    /// Its manifest entry.
    pub entry: ShardEntry,
    /// Its decoded payload.
    pub payload: ShardPayload,
    /// Languages present among its chunks.
    pub langs: Vec<Lang>,
    /// Total number of index terms.
    pub total_len: u64,
    /// The dense index, when the shard has one.
    pub dense: Option<DenseShard>,
    /// Section of each chunk as a small integer (chunks with the same `section_key` share it;
    /// [`NO_SECTION`] when a chunk has none), computed once at load for section evidence.
    pub sections: Vec<u32>,
}

/// [`Shard::sections`] of a chunk without a section.
pub const NO_SECTION: u32 = u32::MAX;

/// Numbers the distinct section keys of `chunks` (in order of first appearance).
fn section_numbers(chunks: &[ChunkRecord]) -> Vec<u32> {
    let mut ids: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    chunks
        .iter()
        .map(|c| match c.section_key.as_deref() {
            Some(k) => {
                let next = ids.len() as u32;
                *ids.entry(k).or_insert(next)
            }
            None => NO_SECTION,
        })
        .collect()
}

impl fmt::Debug for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Shard({}, {} chunks)",
            self.entry.file,
            self.payload.chunks.len()
        )
    }
}

impl Shard {
    /// The chunks of the shard.
    pub fn chunks(&self) -> &[ChunkRecord] {
        &self.payload.chunks
    }
}

/// The leakage label of a result: how far outside the requested scope it lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Leakage {
    /// Inside the requested scope.
    InScope,
    /// Found after dropping the topical constraints (topic, chapter, section): W1.
    CrossTopic,
    /// Found after dropping the level: W2.
    CrossLevel,
    /// Found by the unfiltered lexical fallback: W3.
    Fallback,
    /// Outside the scope in an ungated (baseline) search.
    Ungated,
}

/// One result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// Chunk id.
    pub id: String,
    /// 1-based rank.
    pub rank: usize,
    /// Final score (fused RRF score plus rerank adjustments).
    pub score: f64,
    /// Fused score before rerank.
    pub fused_score: f64,
    /// Subject.
    pub subject: String,
    /// Level.
    pub level: String,
    /// Document type.
    pub doc_type: String,
    /// Language.
    pub lang: String,
    /// Source work id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Chapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chapter: Option<String>,
    /// Chapter title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chapter_title: Option<String>,
    /// Section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// Section title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_title: Option<String>,
    /// Section key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_key: Option<String>,
    /// Question number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_number: Option<String>,
    /// Exam year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub year: Option<String>,
    /// Exam name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exam: Option<String>,
    /// Exam paper.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<String>,
    /// Label (e.g. `Table 4.1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Subsection title.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subsection: Option<String>,
    /// Where the chunk opens (page URL with the section's anchor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Title of the page or document (cards read `title › section`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Whether the chunk satisfies the requested scope.
    pub in_scope: bool,
    /// How far outside the scope the result lies.
    pub leakage: Leakage,
    /// Rank in the BM25 list (1-based), when retrieved lexically.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<usize>,
    /// Rank in the dense list (1-based), when retrieved by vector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dense_rank: Option<usize>,
    /// Rerank boosts applied.
    pub adjustments: Vec<Adjustment>,
    /// Snippet with highlighted matches.
    pub snippet: Vec<Segment>,
    /// Full chunk text (empty when the search asked for no text: `SearchOptions::text`).
    pub text: String,
    /// Other chunks of the section (when section expansion is on).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expanded: Vec<Expanded>,
}

/// Timings of the stages, in milliseconds (summed over relaxation passes).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Building the gate bitsets.
    pub gate_ms: f64,
    /// Query analysis and BM25.
    pub lexical_ms: f64,
    /// Query embedding.
    pub embed_ms: f64,
    /// Dense search.
    pub dense_ms: f64,
    /// Fusion, rerank and dedup.
    pub fusion_ms: f64,
    /// Whole search.
    pub total_ms: f64,
}

/// One widening step of the relaxation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RelaxStep {
    /// `W1` (drop topic/chapter/section), `W2` (drop level) or `W3` (unfiltered lexical fallback).
    pub step: String,
    /// Scope fields dropped.
    pub dropped: Vec<String>,
    /// The scope searched.
    pub scope: serde_json::Value,
    /// New results this step added.
    pub added: usize,
    /// Why the step ran, was skipped or was blocked.
    pub note: String,
}

/// The relaxation trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Relaxation {
    /// The trigger that decided (`paper` or `evidence`).
    pub trigger: String,
    /// Which case of the trigger held. Paper trigger: `zero_results`, `off_subject`,
    /// `few_without_subject`, `enough_in_subject`, `enough`. Evidence trigger:
    /// `stronger_outside_topic` (W1 widened), `stronger_other_level` (W2 widened, W1 did not),
    /// `no_match_in_level` (nothing at the requested level matches: W2 needs the other levels'
    /// shards), `no_match` (nothing matches anywhere searched), `strong_in_scope` (no widening).
    pub case: String,
    /// Whether the search widened.
    pub widened: bool,
    /// The steps tried, in order.
    pub steps: Vec<RelaxStep>,
    /// Shards a widening step needs that are not loaded (load them and search again).
    pub pending_shards: Vec<String>,
    /// The lexical evidence compared (evidence trigger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// What the search did, for explanations and audits.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Trace {
    /// Variant run.
    pub variant: String,
    /// Gating mode.
    pub gating: Gating,
    /// The scope given by the caller.
    pub requested_scope: serde_json::Value,
    /// The scope applied (the request plus hints read from the query).
    pub scope: serde_json::Value,
    /// Shard files searched.
    pub shards: Vec<String>,
    /// Chunks in the searched shards.
    pub pool_chunks: usize,
    /// Chunks the gate admitted (all of the pool when ungated).
    pub admissible: usize,
    /// Analysed query terms.
    pub query_terms: Vec<String>,
    /// Whether the query was cut to the term limit.
    pub truncated: bool,
    /// The term limit applied.
    pub max_query_terms: usize,
    /// Whether the query had no searchable term (the scope is then browsed in id order).
    pub browse: bool,
    /// What query understanding read (variant E).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understanding: Option<Understanding>,
    /// Hints merged into the scope (`field=value`).
    pub hints_applied: Vec<String>,
    /// Hints that conflicted with the explicit scope (the explicit scope won).
    pub conflicts: Vec<String>,
    /// Terms added by cross-language glossary expansion.
    pub expansion: Vec<String>,
    /// Dense plan per searched shard (`exact`, `graph`, `graph_then_exact`).
    pub dense_plans: Vec<Plan>,
    /// Candidates from BM25 (before fusion).
    pub lexical_candidates: usize,
    /// Candidates from the dense path (before fusion).
    pub dense_candidates: usize,
    /// Results dropped by the post-filter (post-filtered gating only).
    pub post_filtered_out: usize,
    /// Results removed as near-duplicates.
    pub duplicates: Vec<Duplicate>,
    /// The relaxation trace (variant E).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relaxation: Option<Relaxation>,
    /// Human-readable notes (why nothing was found, what was unavailable, etc.).
    pub notes: Vec<String>,
    /// Stage timings.
    pub timings: Timings,
    /// Per-stage candidate lists, recorded when `SearchOptions::probe` is set (for `explain`).
    #[serde(skip)]
    pub probe: Option<Probe>,
}

/// The candidate lists of the primary pass, by stage (ids in rank order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Probe {
    /// BM25 window.
    pub bm25: Vec<String>,
    /// Dense window.
    pub dense: Vec<String>,
    /// Fused order, before post-filter and rerank.
    pub fused: Vec<String>,
}

/// Results and trace of a search.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SearchResponse {
    /// Ranked results.
    pub results: Vec<Hit>,
    /// What happened.
    pub trace: Trace,
}

/// A manifest and the shards loaded from it.
pub struct Library {
    manifest: Manifest,
    shards: Vec<Option<Shard>>,
    analyzer: Analyzer,
    embedder: Option<Box<dyn QueryEmbedder>>,
    glossary: Glossary,
}

impl fmt::Debug for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Library({} shards, {} loaded)",
            self.shards.len(),
            self.loaded().count()
        )
    }
}

/// Fields W1 drops: the topical narrowing of a scope.
pub const TOPICAL_FIELDS: [Field; 4] = [
    Field::Topic,
    Field::Chapter,
    Field::Section,
    Field::SectionKey,
];
/// Fields whose presence blocks W2 (dropping the level): asking for a precise paper, year,
/// question or document type means a different level's material is not an answer.
pub const STRICT_FIELDS: [Field; 4] = [
    Field::Paper,
    Field::Year,
    Field::QuestionNumber,
    Field::DocType,
];

/// A retrieved candidate inside a pass: its shard (a manifest position once the pass ends) and
/// its chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) shard: usize,
    pub(crate) doc: u32,
}

/// A candidate of a pass, with its scores and leakage label.
pub(crate) struct Cand {
    pub(crate) key: Key,
    fused: f64,
    score: f64,
    bm25_rank: Option<usize>,
    dense_rank: Option<usize>,
    adjustments: Vec<Adjustment>,
    pub(crate) leakage: Leakage,
}

impl Library {
    /// A library over `manifest` with no shard loaded.
    pub fn new(manifest: Manifest) -> Library {
        let n = manifest.shards.len();
        Library {
            manifest,
            shards: (0..n).map(|_| None).collect(),
            analyzer: Analyzer::new(),
            embedder: None,
            glossary: Glossary::builtin(),
        }
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Sets the query embedder (the model the shards' vectors were made with).
    pub fn set_embedder(&mut self, e: Box<dyn QueryEmbedder>) {
        self.embedder = Some(e);
    }

    /// Whether a query embedder is loaded.
    pub fn has_model(&self) -> bool {
        self.embedder.is_some()
    }

    /// Verifies (against the manifest's SHA-256) and loads the embedding model file.
    pub fn load_model(&mut self, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_model_with_digest(bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_model`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (in the browser, WebCrypto's `crypto.subtle.digest`, several times faster
    /// than hashing in Wasm): it is compared with the manifest's digest and the file is not hashed
    /// here.
    pub fn load_model_with_digest(&mut self, bytes: &[u8], sha256: &str) -> Result<(), LoadError> {
        let entry = self.manifest.model.clone().ok_or_else(|| LoadError::Model {
            file: "(model)".into(),
            message: "this manifest names no embedding model: build the shards with `chsr build --model`".into(),
        })?;
        let found = sha256.to_ascii_lowercase();
        if found != entry.sha256 {
            return Err(LoadError::Model {
                file: entry.file,
                message: format!(
                    "SHA-256 mismatch (manifest {}, received {found}): the model does not match these shards; \
                     reload, or rebuild with `chsr build --model`",
                    entry.sha256
                ),
            });
        }
        let e = ModelEmbedder::from_prehashed(bytes, found).map_err(|err| LoadError::Model {
            file: entry.file.clone(),
            message: err.to_string(),
        })?;
        self.embedder = Some(Box::new(e));
        Ok(())
    }

    /// Loads the manifest's model from `dir`, if it names one (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_model_from_dir(&mut self, dir: &std::path::Path) -> Result<(), LoadError> {
        let Some(entry) = self.manifest.model.clone() else {
            return Ok(());
        };
        let path = dir.join(&entry.file);
        let bytes = std::fs::read(&path).map_err(|e| LoadError::Io {
            file: path.display().to_string(),
            message: format!("cannot read the model listed in the manifest: {e}"),
        })?;
        self.load_model(&bytes)
    }

    /// Indices (in manifest order) of the shards a search with this scope and gating reads.
    pub fn shard_indices(&self, scope: &Scope, gating: Gating) -> Vec<usize> {
        self.manifest
            .shards
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                gating != Gating::Gated
                    || (scope.get(Field::Subject).is_none_or(|v| v == s.subject)
                        && scope.get(Field::Level).is_none_or(|v| v == s.level))
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Manifest entries of the shards a search needs that are not loaded yet.
    pub fn shards_needed(&self, scope: &Scope, gating: Gating) -> Vec<ShardEntry> {
        self.shard_indices(scope, gating)
            .into_iter()
            .filter(|&i| self.shards[i].is_none())
            .map(|i| self.manifest.shards[i].clone())
            .collect()
    }

    /// Whether the shard file, or the dense-part file, is loaded.
    pub fn is_loaded(&self, file: &str) -> bool {
        self.manifest
            .shards
            .iter()
            .zip(&self.shards)
            .any(|(e, loaded)| match loaded {
                Some(_) if e.file == file => true,
                Some(shard) => {
                    shard.dense.is_some() && e.dense.as_ref().is_some_and(|d| d.file == file)
                }
                None => false,
            })
    }

    /// The manifest position of the shard stored in `file`.
    fn shard_with_file(&self, file: &str) -> Option<usize> {
        self.manifest.shards.iter().position(|s| s.file == file)
    }

    /// The manifest position of the shard whose dense part is stored in `file`.
    fn shard_with_part(&self, file: &str) -> Option<usize> {
        self.manifest
            .shards
            .iter()
            .position(|s| s.dense.as_ref().is_some_and(|d| d.file == file))
    }

    /// Verifies (manifest SHA-256, then the shard's own header and checksum) and decodes a shard.
    pub fn load_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_shard_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_shard`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (in the browser, WebCrypto's `crypto.subtle.digest`, several times faster
    /// than hashing in Wasm): it is compared with the manifest's digest, and on a match the payload
    /// is decoded without being hashed again; errors are those of `load_shard`.
    pub fn load_shard_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_file(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let entry = self.manifest.shards[i].clone();
        let fmt_err = |error| LoadError::Format {
            file: file.into(),
            error,
        };
        let payload = verified(file, bytes, &entry.sha256, sha256, |b, checksum| {
            if checksum {
                decode_shard(b)
            } else {
                decode_shard_prehashed(b)
            }
        })?;
        if payload.subject != entry.subject || payload.level != entry.level {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!("{}/{}", entry.subject, entry.level),
                found: format!("{}/{}", payload.subject, payload.level),
            });
        }
        let mut payload = payload;
        let dense = match &mut payload.dense {
            Some(d) => Some(decode_dense(d, payload.chunks.len()).map_err(fmt_err)?),
            None => None,
        };
        let mut langs: Vec<Lang> = payload
            .chunks
            .iter()
            .map(|c| Lang::from_code(&c.lang))
            .collect();
        langs.sort();
        langs.dedup();
        let total_len = payload.lexical.total_len();
        let sections = section_numbers(&payload.chunks);
        self.shards[i] = Some(Shard {
            entry,
            payload,
            langs,
            total_len,
            dense,
            sections,
        });
        Ok(())
    }

    /// Loads any file the manifest lists: a shard ([`Library::load_shard`]), a shard's dense
    /// part ([`Library::load_dense`], after its shard) or the model ([`Library::load_model`]).
    pub fn load_file(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        if self.shard_with_file(file).is_some() {
            self.load_shard(file, bytes)
        } else if self.shard_with_part(file).is_some() {
            self.load_dense(file, bytes)
        } else if self.manifest.model.as_ref().is_some_and(|e| e.file == file) {
            self.load_model(bytes)
        } else {
            Err(LoadError::UnknownFile(file.to_string()))
        }
    }

    /// The dense parts of the loaded shards that are not loaded yet, in manifest order: a
    /// browser fetches them after the first (lexical) result, then searches again.
    pub fn dense_needed(&self) -> Vec<PartEntry> {
        self.loaded()
            .filter(|s| s.dense.is_none())
            .filter_map(|s| s.entry.dense.clone())
            .collect()
    }

    /// Verifies (against the manifest's SHA-256), decodes and attaches the dense part `file` of
    /// a loaded shard. Loading a part that is already loaded is a no-op.
    pub fn load_dense(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_dense_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_dense`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_dense_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_part(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let entry = self.manifest.shards[i].clone();
        let part_entry = entry.dense.clone().expect("found by its dense part");
        let Some(shard) = self.shards[i].as_mut() else {
            return Err(LoadError::PartBeforeShard {
                file: file.into(),
                shard: entry.file,
            });
        };
        if shard.dense.is_some() {
            return Ok(());
        }
        let fmt_err = |error| LoadError::Format {
            file: file.into(),
            error,
        };
        let mut part = verified(file, bytes, &part_entry.sha256, sha256, decode_dense_part)?;
        if part.subject != entry.subject
            || part.level != entry.level
            || part.chunks != shard.payload.chunks.len() as u64
            || part.shard_sha256 != entry.sha256
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "the vectors of {} ({}/{}, {} chunks)",
                    entry.file,
                    entry.subject,
                    entry.level,
                    shard.payload.chunks.len()
                ),
                found: format!(
                    "vectors of {}/{} ({} chunks) for the shard with SHA-256 {}",
                    part.subject, part.level, part.chunks, part.shard_sha256
                ),
            });
        }
        let d = decode_dense(&mut part.index, shard.payload.chunks.len()).map_err(fmt_err)?;
        shard.payload.dense = Some(part.index);
        shard.dense = Some(d);
        Ok(())
    }

    /// Reads `manifest.json` from a folder (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_dir(dir: &std::path::Path) -> Result<Library, LoadError> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| LoadError::Io {
            file: path.display().to_string(),
            message: if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "no manifest.json in {}: not a chsr shard folder (make one with \
                     `chsr build --out {} CORPUS.jsonl`)",
                    dir.display(),
                    dir.display()
                )
            } else {
                e.to_string()
            },
        })?;
        let manifest = Manifest::from_json(&text).map_err(|error| LoadError::Format {
            file: path.display().to_string(),
            error,
        })?;
        Ok(Library::new(manifest))
    }

    /// Loads from `dir` every shard the scope needs that is not loaded yet (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn load_needed_from_dir(
        &mut self,
        dir: &std::path::Path,
        scope: &Scope,
        gating: Gating,
    ) -> Result<(), LoadError> {
        let read = |file: &str| {
            let path = dir.join(file);
            std::fs::read(&path).map_err(|e| LoadError::Io {
                file: path.display().to_string(),
                message: missing_shard_message(&e),
            })
        };
        for entry in self.shards_needed(scope, gating) {
            self.load_shard(&entry.file, &read(&entry.file)?)?;
        }
        for part in self.dense_needed() {
            self.load_dense(&part.file, &read(&part.file)?)?;
        }
        Ok(())
    }

    /// Loaded shards, in manifest order.
    pub fn loaded(&self) -> impl Iterator<Item = &Shard> {
        self.shards.iter().flatten()
    }

    /// Known values of a field over the shards of `indices` (facets, or subject/level).
    fn known_values(&self, field: Field, indices: &[usize]) -> Vec<String> {
        let mut v: Vec<String> = match field {
            Field::Subject => self
                .manifest
                .shards
                .iter()
                .map(|s| s.subject.clone())
                .collect(),
            Field::Level => self
                .manifest
                .shards
                .iter()
                .map(|s| s.level.clone())
                .collect(),
            _ => indices
                .iter()
                .filter_map(|&i| self.manifest.shards[i].facets.get(field.name()))
                .flat_map(|m| m.keys().cloned())
                .collect(),
        };
        v.sort();
        v.dedup();
        v
    }

    /// Merges query-text hints into the requested scope (variant E). Returns the effective scope
    /// and the hints left as soft rerank evidence.
    fn merge_hints(
        &self,
        requested: &Scope,
        u: &Understanding,
        trace: &mut Trace,
    ) -> (Scope, Vec<(Field, String)>) {
        let mut scope = requested.clone();
        let mut soft = Vec::new();
        for field in [Field::Subject, Field::Level] {
            let Some(h) = u.hints.get(&field) else {
                continue;
            };
            let indices = self.shard_indices(&scope, Gating::Gated);
            let Some(v) = resolve(h, &self.known_values(field, &indices)) else {
                continue;
            };
            match requested.get(field) {
                Some(r) if r != v => trace
                    .conflicts
                    .push(format!("{field}: query says {v}, scope says {r}")),
                Some(_) => {}
                None => {
                    let candidate = scope.clone().with(field, v.clone());
                    if !self.shard_indices(&candidate, Gating::Gated).is_empty() {
                        scope = candidate;
                        trace.hints_applied.push(format!("{field}={v}"));
                    }
                }
            }
        }
        for field in [
            Field::Chapter,
            Field::Exam,
            Field::Paper,
            Field::Year,
            Field::QuestionNumber,
        ] {
            let Some(h) = u.hints.get(&field) else {
                continue;
            };
            let indices = self.shard_indices(&scope, Gating::Gated);
            let value = match field {
                Field::Exam | Field::Paper | Field::Year => {
                    resolve(h, &self.known_values(field, &indices))
                }
                _ => Some(h.clone()),
            };
            let Some(v) = value else { continue };
            match requested.get(field) {
                Some(r) if r != v => trace
                    .conflicts
                    .push(format!("{field}: query says {v}, scope says {r}")),
                Some(_) => {}
                None => {
                    // A hint becomes a hard constraint only if it still admits something.
                    let candidate = scope.clone().with(field, v.clone());
                    let admits = indices
                        .iter()
                        .filter_map(|&i| self.shards[i].as_ref())
                        .any(|s| s.chunks().iter().any(|c| gate::admits(&candidate, c)));
                    if admits {
                        scope = candidate;
                        trace.hints_applied.push(format!("{field}={v}"));
                    } else {
                        soft.push((field, v));
                    }
                }
            }
        }
        (scope, soft)
    }

    /// Runs a search. Every shard in [`Library::shards_needed`] must be loaded.
    pub fn search(
        &self,
        query: &str,
        requested: &Scope,
        opts: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        let t0 = now_ms();
        // Every stage below reads only the bounded query (a pasted megabyte costs what 16 KB do).
        let (query, cut) = bound_query(query);
        if opts.k == 0 || opts.k > MAX_K {
            return Err(SearchError::Option(format!(
                "k must be between 1 and {MAX_K}, got {}",
                opts.k
            )));
        }
        requested.validate(&self.manifest)?;
        let st = opts.stages;
        let missing: Vec<String> = self
            .shards_needed(requested, st.gating)
            .into_iter()
            .map(|e| e.file)
            .collect();
        if !missing.is_empty() {
            return Err(SearchError::NotLoaded(missing));
        }
        if !st.lexical && !st.dense {
            return Err(SearchError::Option("no retrieval path enabled".into()));
        }
        if let Some(q) = &opts.query_vector {
            let spec = self.manifest.query_vectors.as_ref().ok_or_else(|| {
                SearchError::Option(
                    "query_vector given, but these shards embed queries with their own model: omit it".into(),
                )
            })?;
            if q.len() != spec.dims as usize {
                return Err(SearchError::Option(format!(
                    "query_vector has {} dimensions; the shards' vectors ({}) have {}",
                    q.len(),
                    spec.model_id,
                    spec.dims
                )));
            }
            match &opts.vector_model {
                Some(m) if m == &spec.model_id => {}
                Some(m) => {
                    return Err(SearchError::Option(format!(
                        "query_vector comes from model {m:?}; the shards' vectors come from {:?}",
                        spec.model_id
                    )))
                }
                None => {
                    return Err(SearchError::Option(format!(
                        "vector_model is required with query_vector (the shards use {:?})",
                        spec.model_id
                    )))
                }
            }
        }
        let mut trace = Trace {
            variant: opts.variant.name().to_string(),
            gating: st.gating,
            requested_scope: requested.to_json(),
            max_query_terms: MAX_QUERY_TERMS,
            ..Default::default()
        };
        // Query understanding (E): hints → scope; intents → rerank.
        let u = if st.understand {
            understand(query)
        } else {
            Understanding::default()
        };
        let (scope, soft_hints) = if st.understand {
            self.merge_hints(requested, &u, &mut trace)
        } else {
            (requested.clone(), Vec::new())
        };
        trace.scope = scope.to_json();
        // The first pass, over the (effective) scope.
        let mut cands = self.pass(
            query,
            &scope,
            st.gating,
            opts,
            &u,
            &soft_hints,
            true,
            &mut trace,
        );
        if cut {
            trace.truncated = true;
            trace.notes.push(format!(
                "the query was truncated: it is longer than {MAX_QUERY_BYTES} bytes, and only its \
                 first {} bytes were read",
                query.len()
            ));
        }
        // Relaxation (E).
        if st.relax && st.gating == Gating::Gated {
            let relax = self.relax(query, &scope, opts, &u, &soft_hints, &mut cands, &mut trace);
            trace.relaxation = Some(relax);
        }
        if st.understand {
            trace.understanding = Some(u);
        }
        cands.truncate(opts.k);
        let results = self.hits(&cands, &scope, requested, opts, &trace.query_terms);
        if results.is_empty() {
            trace.notes.push(if trace.admissible == 0 {
                format!(
                    "the gate admitted no chunk: nothing in this library matches the scope {scope}"
                )
            } else if trace.post_filtered_out > 0 {
                "every retrieved chunk was outside the scope and was filtered out afterwards"
                    .to_string()
            } else {
                format!(
                    "{} chunks are in scope, but none matches the query",
                    trace.admissible
                )
            });
        }
        trace.timings.total_ms = now_ms() - t0;
        Ok(SearchResponse { results, trace })
    }

    /// The loaded shards a pass over `scope` reads.
    pub(crate) fn pass_shards(&self, scope: &Scope, gating: Gating) -> (Vec<&Shard>, Vec<String>) {
        let mut shards = Vec::new();
        let mut missing = Vec::new();
        for i in self.shard_indices(scope, gating) {
            match &self.shards[i] {
                Some(s) => shards.push(s),
                None => missing.push(self.manifest.shards[i].file.clone()),
            }
        }
        (shards, missing)
    }

    /// One retrieval pass: gate, lexical and dense lists, fusion, post-filter, rerank.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pass(
        &self,
        query: &str,
        scope: &Scope,
        gating: Gating,
        opts: &SearchOptions,
        u: &Understanding,
        soft_hints: &[(Field, String)],
        primary: bool,
        trace: &mut Trace,
    ) -> Vec<Cand> {
        let st = opts.stages;
        let t0 = now_ms();
        let (shards, _) = self.pass_shards(scope, gating);
        let gates: Vec<Bitset> = shards
            .iter()
            .map(|s| match gating {
                Gating::Gated => {
                    gate::gate_shard(scope, &s.payload.subject, &s.payload.level, s.chunks())
                }
                Gating::Ungated | Gating::PostFiltered => Bitset::full(s.chunks().len()),
            })
            .collect();
        let t_gate = now_ms();
        trace.timings.gate_ms += t_gate - t0;
        let admissible: usize = gates.iter().map(Bitset::count).sum();
        if primary {
            trace.shards = shards.iter().map(|s| s.entry.file.clone()).collect();
            trace.pool_chunks = shards.iter().map(|s| s.chunks().len()).sum();
            trace.admissible = admissible;
        }
        let id_of = |si: usize, doc: u32| shards[si].payload.chunks[doc as usize].id.as_str();
        let window = opts.window();
        // Lexical path.
        let mut langs: Vec<Lang> = shards
            .iter()
            .flat_map(|s| s.langs.iter().copied())
            .collect();
        langs.sort();
        langs.dedup();
        let mut q = self.analyzer.analyze_query(query, &langs);
        if st.understand {
            let qlang = crate::understand::detect_lang(query);
            let extra = self.glossary.expand(query, qlang, &langs, &self.analyzer);
            for t in extra {
                if !q.terms.contains(&t) && q.terms.len() < MAX_QUERY_TERMS {
                    if primary {
                        trace.expansion.push(t.clone());
                    }
                    q.terms.push(t);
                }
            }
        }
        if primary {
            trace.query_terms = q.terms.clone();
            trace.truncated = q.truncated;
            if q.truncated {
                trace.notes.push(format!(
                    "the query was truncated to its first {MAX_QUERY_TERMS} distinct terms"
                ));
            }
        }
        let mut lists: Vec<Vec<Key>> = Vec::new();
        let mut which: Vec<&str> = Vec::new();
        // Keys are shard positions in this pass until the end, where they become manifest positions.
        let manifest_idx: Vec<usize> = shards
            .iter()
            .map(|s| {
                self.manifest
                    .shards
                    .iter()
                    .position(|e| e.file == s.entry.file)
                    .unwrap_or(0)
            })
            .collect();
        if q.terms.is_empty() {
            // Nothing to search for (empty, or only stopwords): browse the scope in id order.
            if primary {
                trace.browse = true;
                trace
                    .notes
                    .push("no searchable term in the query: browsing the scope in id order".into());
            }
            let mut cands: Vec<Cand> = browse(&shards, &gates, opts.k)
                .into_iter()
                .map(|key| Cand {
                    key: Key {
                        shard: manifest_idx[key.shard],
                        doc: key.doc,
                    },
                    fused: 0.0,
                    score: 0.0,
                    bm25_rank: None,
                    dense_rank: None,
                    adjustments: Vec::new(),
                    leakage: Leakage::InScope,
                })
                .collect();
            // Ungated browsing lists every shard: label what is outside the scope, and drop it
            // when post-filtering, exactly as for a ranked list.
            if gating != Gating::Gated {
                let before = cands.len();
                for c in cands.iter_mut() {
                    if !gate::admits(scope, self.chunk(c.key)) {
                        c.leakage = Leakage::Ungated;
                    }
                }
                if gating == Gating::PostFiltered {
                    cands.retain(|c| c.leakage == Leakage::InScope);
                    if primary {
                        trace.post_filtered_out = before - cands.len();
                    }
                }
            }
            return cands;
        }
        if st.lexical {
            let pool: Vec<PoolShard<'_>> = shards
                .iter()
                .zip(&gates)
                .map(|(s, g)| PoolShard {
                    index: &s.payload.lexical,
                    k1: s.payload.params.k1,
                    b: s.payload.params.b,
                    total_len: s.total_len,
                    gate: g,
                })
                .collect();
            let scored = if st.sections && opts.section_weight > 0.0 {
                // Every matching chunk is scored, so that each section's evidence is complete,
                // then the blended list is cut to the window.
                let all = bm25::score_all(&pool, &q.terms);
                let section_of = |si: usize, doc: u32| {
                    Some(shards[si].sections[doc as usize]).filter(|&k| k != NO_SECTION)
                };
                bm25::section_blend(all, opts.section_weight, section_of, window, id_of)
            } else {
                bm25::search(&pool, &q.terms, window, id_of)
            };
            if primary {
                trace.lexical_candidates = scored.len();
            }
            lists.push(
                scored
                    .iter()
                    .map(|s| Key {
                        shard: s.shard,
                        doc: s.doc,
                    })
                    .collect(),
            );
            which.push("bm25");
            // A label named in the query ("Table 4.1", "Appendix G") designates chunks directly:
            // the admissible ones form a third list, in id order, so the fusion keeps them in the
            // window even when the query's other words pull BM25 elsewhere (the rerank then
            // lifts them).
            if let (true, Some(label)) = (st.rerank, &u.label) {
                let matcher = crate::rerank::LabelMatcher::new(label);
                let mut keys = Vec::new();
                for (si, (s, g)) in shards.iter().zip(&gates).enumerate() {
                    for d in g.iter() {
                        if matcher.matches(&s.payload.chunks[d]) {
                            keys.push(Key {
                                shard: si,
                                doc: d as u32,
                            });
                        }
                    }
                }
                keys.sort_by(|a, b| {
                    id_of(a.shard, a.doc)
                        .cmp(id_of(b.shard, b.doc))
                        .then(a.shard.cmp(&b.shard))
                });
                keys.truncate(window);
                if !keys.is_empty() {
                    lists.push(keys);
                    which.push("label");
                }
            }
        }
        let t_lex = now_ms();
        trace.timings.lexical_ms += t_lex - t_gate;
        // A query none of whose terms occurs in the searched shards is out of vocabulary (a typo,
        // gibberish, another language without a glossary entry): the static model has no better
        // evidence than that lexicon, so the dense path is skipped rather than returning the
        // nearest vectors to noise.
        // The rule holds per shard: a shard whose lexicon holds no query term gives the dense
        // path no evidence either (in a widened pass, the nearest vectors of the original level
        // to a word only the other level knows would be noise).
        let known_in: Vec<bool> = shards
            .iter()
            .map(|s| {
                // A caller's own query vector is evidence of its own.
                opts.query_vector.is_some()
                    || q.terms
                        .iter()
                        .any(|t| s.payload.lexical.term_id(t).is_some())
            })
            .collect();
        let known = known_in.iter().any(|&k| k);
        if st.dense && !known && primary {
            trace.notes.push(
                "no query term occurs in the searched shards: the dense path was skipped".into(),
            );
        }
        if st.dense && known {
            // Copied only when some shard knows no term (the usual pass searches them all).
            let narrowed: Option<Vec<Bitset>> = known_in.contains(&false).then(|| {
                gates
                    .iter()
                    .zip(&known_in)
                    .map(|(g, &k)| if k { g.clone() } else { Bitset::empty(g.len()) })
                    .collect()
            });
            match self.dense_list(
                query,
                &shards,
                narrowed.as_deref().unwrap_or(&gates),
                window,
                opts,
                trace,
                primary,
                &id_of,
            ) {
                Some(keys) => {
                    lists.push(keys);
                    which.push("dense");
                }
                None => {
                    if !st.lexical {
                        return Vec::new();
                    }
                }
            }
        }
        let t_dense = now_ms();
        // Fusion.
        let weights: Vec<f64> = which
            .iter()
            .map(|w| {
                if *w == "dense" {
                    opts.dense_weight
                } else {
                    1.0
                }
            })
            .collect();
        let fused = weighted_rrf(&lists, &weights, opts.rrf_k, |k: &Key| {
            (id_of(k.shard, k.doc), k.shard)
        });
        let rank_of = |f: &crate::fusion::Fused<Key>, name: &str| {
            which
                .iter()
                .position(|w| *w == name)
                .and_then(|i| f.ranks[i])
        };
        let mut cands: Vec<Cand> = fused
            .iter()
            .map(|f| Cand {
                key: f.key,
                fused: f.score,
                score: f.score,
                bm25_rank: rank_of(f, "bm25"),
                dense_rank: rank_of(f, "dense"),
                adjustments: Vec::new(),
                leakage: Leakage::InScope,
            })
            .collect();
        if primary && opts.probe {
            let ids = |keys: &[Key]| {
                keys.iter()
                    .map(|k| id_of(k.shard, k.doc).to_string())
                    .collect::<Vec<_>>()
            };
            let list = |name: &str| {
                which
                    .iter()
                    .position(|w| *w == name)
                    .map(|i| ids(&lists[i]))
                    .unwrap_or_default()
            };
            trace.probe = Some(Probe {
                bm25: list("bm25"),
                dense: list("dense"),
                fused: cands
                    .iter()
                    .map(|c| id_of(c.key.shard, c.key.doc).to_string())
                    .collect(),
            });
        }
        // Post-filter (B+): retrieve ungated, cut to k, then drop what is out of scope.
        if gating == Gating::PostFiltered {
            let before = cands.len().min(opts.k);
            cands.truncate(opts.k);
            cands.retain(|c| {
                gate::admits(
                    scope,
                    &shards[c.key.shard].payload.chunks[c.key.doc as usize],
                )
            });
            if primary {
                trace.post_filtered_out = before - cands.len();
            }
        }
        // Rerank and dedup.
        if st.rerank {
            cands.truncate(window);
            let rc: Vec<Candidate<'_, usize>> = cands
                .iter()
                .enumerate()
                .map(|(i, c)| Candidate {
                    key: i,
                    chunk: &shards[c.key.shard].payload.chunks[c.key.doc as usize],
                    score: c.score,
                    dense_rank: c.dense_rank,
                    adjustments: Vec::new(),
                })
                .collect();
            let (kept, dups) = rerank(rc, u, soft_hints, &opts.rerank, opts.k);
            if primary {
                trace.duplicates = dups;
            }
            let mut slots: Vec<Option<Cand>> = cands.into_iter().map(Some).collect();
            cands = kept
                .into_iter()
                .filter_map(|k| {
                    let mut c = slots[k.key].take()?;
                    c.score = k.score;
                    c.adjustments = k.adjustments;
                    Some(c)
                })
                .collect();
        }
        // Keys are shard positions in this pass: make them manifest positions.
        for c in cands.iter_mut() {
            c.key.shard = manifest_idx[c.key.shard];
            if gating != Gating::Gated {
                let chunk = self.chunk(c.key);
                if !gate::admits(scope, chunk) {
                    c.leakage = Leakage::Ungated;
                }
            }
        }
        trace.timings.dense_ms += t_dense - t_lex;
        trace.timings.fusion_ms += now_ms() - t_dense;
        cands
    }

    /// The dense list of a pass, or `None` (with a note) when the dense path is unavailable.
    #[allow(clippy::too_many_arguments)]
    fn dense_list<'a>(
        &self,
        query: &str,
        shards: &[&'a Shard],
        gates: &[Bitset],
        window: usize,
        opts: &SearchOptions,
        trace: &mut Trace,
        primary: bool,
        id_of: &impl Fn(usize, u32) -> &'a str,
    ) -> Option<Vec<Key>> {
        if let (Some(spec), Some(qv)) = (&self.manifest.query_vectors, &opts.query_vector) {
            // Vectors brought with the corpus: the caller's query vector (checked in `search`).
            let sha = format!("{}{}", crate::format::BYO_PREFIX, spec.model_id);
            return self.dense_with(qv, &sha, shards, gates, window, opts, trace, primary, id_of);
        }
        if let Some(spec) = &self.manifest.query_vectors {
            let note = format!(
                "dense path unavailable: these shards hold vectors from {:?}; pass query_vector (and vector_model)",
                spec.model_id
            );
            note_once(trace, primary, note);
            return None;
        }
        let Some(embedder) = &self.embedder else {
            note_once(
                trace,
                primary,
                "dense path unavailable: no embedding model loaded".into(),
            );
            return None;
        };
        let t0 = now_ms();
        let v = embedder.embed_query(query);
        trace.timings.embed_ms += now_ms() - t0;
        let sha = embedder.model_sha256().to_string();
        self.dense_with(&v, &sha, shards, gates, window, opts, trace, primary, id_of)
    }

    /// Dense search of the pool's shards whose vectors come from the model `model_sha256`.
    #[allow(clippy::too_many_arguments)]
    fn dense_with<'a>(
        &self,
        v: &[f32],
        model_sha256: &str,
        shards: &[&'a Shard],
        gates: &[Bitset],
        window: usize,
        opts: &SearchOptions,
        trace: &mut Trace,
        primary: bool,
        id_of: &impl Fn(usize, u32) -> &'a str,
    ) -> Option<Vec<Key>> {
        let mut pool = Vec::new();
        let mut positions = Vec::new();
        for (si, (s, g)) in shards.iter().zip(gates).enumerate() {
            let note = match (&s.dense, &s.payload.dense, &s.entry.dense) {
                (Some(d), Some(meta), _) if meta.model_sha256 == model_sha256 => {
                    pool.push((d, g));
                    positions.push(si);
                    continue;
                }
                (Some(_), Some(meta), _) => format!(
                    "{}: vectors from model {} ({}), not the loaded model: rebuild with `chsr build --model`",
                    s.entry.file,
                    meta.model_id,
                    meta.model_sha256.chars().take(12).collect::<String>()
                ),
                (_, _, Some(part)) => {
                    format!("{}: vectors not loaded yet ({})", s.entry.file, part.file)
                }
                _ => format!("{}: no dense index in this shard", s.entry.file),
            };
            note_once(trace, primary, note);
        }
        if pool.is_empty() {
            return None;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let unit: Vec<f32> = if norm > 0.0 {
            v.iter().map(|x| x / norm).collect()
        } else {
            v.to_vec()
        };
        let qv = QVec::quantize(&unit);
        let pool_refs: Vec<(&DenseShard, &Bitset)> = pool.iter().map(|(d, g)| (*d, *g)).collect();
        let (scored, plans) = dense::search(&pool_refs, &qv, window, &opts.dense, |si, doc| {
            id_of(positions[si], doc)
        });
        if primary {
            trace.dense_plans = plans;
            trace.dense_candidates = scored.len();
        }
        Some(
            scored
                .into_iter()
                .map(|s| Key {
                    shard: positions[s.shard],
                    doc: s.doc,
                })
                .collect(),
        )
    }

    pub(crate) fn chunk(&self, key: Key) -> &ChunkRecord {
        &self.shards[key.shard]
            .as_ref()
            .expect("candidate shards are loaded")
            .payload
            .chunks[key.doc as usize]
    }

    /// Turns candidates into results.
    fn hits(
        &self,
        cands: &[Cand],
        scope: &Scope,
        requested: &Scope,
        opts: &SearchOptions,
        terms: &[String],
    ) -> Vec<Hit> {
        let shown: Vec<&str> = cands
            .iter()
            .map(|c| self.chunk(c.key).id.as_str())
            .collect();
        let highlighter = Highlighter::new(terms);
        cands
            .iter()
            .enumerate()
            .map(|(i, cand)| {
                let c = self.chunk(cand.key);
                let lang = Lang::from_code(&c.lang);
                let expanded = if opts.expand_chars > 0 {
                    expand_section(
                        c,
                        self.shards[cand.key.shard]
                            .as_ref()
                            .map(|s| s.chunks())
                            .unwrap_or(&[]),
                        opts.expand_chars,
                        &shown,
                    )
                } else {
                    Vec::new()
                };
                Hit {
                    id: c.id.clone(),
                    rank: i + 1,
                    score: cand.score,
                    fused_score: cand.fused,
                    subject: c.subject.clone(),
                    level: c.level.clone(),
                    doc_type: c.doc_type.clone(),
                    lang: c.lang.clone(),
                    source: c.source.clone(),
                    chapter: c.chapter.clone(),
                    chapter_title: c.chapter_title.clone(),
                    section: c.section.clone(),
                    section_title: c.section_title.clone(),
                    section_key: c.section_key.clone(),
                    question_number: c.question_number.clone(),
                    year: c.year.clone(),
                    exam: c.exam.clone(),
                    paper: c.paper.clone(),
                    label: c.label.clone(),
                    subsection: c.subsection.clone(),
                    url: c.url.clone(),
                    title: c.title.clone(),
                    in_scope: gate::admits(requested, c) && gate::admits(scope, c),
                    leakage: cand.leakage,
                    bm25_rank: cand.bm25_rank,
                    dense_rank: cand.dense_rank,
                    adjustments: cand.adjustments.clone(),
                    snippet: highlighter.snippet(&self.analyzer, &c.text, lang, opts.snippet_chars),
                    text: if opts.text {
                        c.text.clone()
                    } else {
                        String::new()
                    },
                    expanded,
                }
            })
            .collect()
    }

    /// Packages results (and their expanded sections) as `[DOCUMENT N]` context for a language
    /// model.
    pub fn to_context(&self, resp: &SearchResponse) -> String {
        let mut chunks: Vec<&ChunkRecord> = Vec::new();
        for h in &resp.results {
            for id in std::iter::once(h.id.as_str()).chain(h.expanded.iter().map(|e| e.id.as_str()))
            {
                if let Some(c) = self.loaded().flat_map(|s| s.chunks()).find(|c| c.id == id) {
                    if !chunks.iter().any(|x| x.id == c.id) {
                        chunks.push(c);
                    }
                }
            }
        }
        to_context(chunks)
    }
}

/// What to say when a shard the manifest lists cannot be read (native only).
#[cfg(not(target_arch = "wasm32"))]
pub fn missing_shard_message(e: &std::io::Error) -> String {
    if e.kind() == std::io::ErrorKind::NotFound {
        "listed in manifest.json but missing: the folder is incomplete; copy every file \
         `chsr build` wrote, or rebuild with `chsr build`"
            .to_string()
    } else {
        format!("listed in manifest.json but unreadable: {e}")
    }
}

/// The first `k` admissible chunks in id order (browsing a scope with an empty query).
fn browse(shards: &[&Shard], gates: &[Bitset], k: usize) -> Vec<Key> {
    let mut all: Vec<(&str, usize, u32)> = Vec::new();
    for (si, (s, g)) in shards.iter().zip(gates).enumerate() {
        for d in g.iter() {
            all.push((s.payload.chunks[d].id.as_str(), si, d as u32));
        }
    }
    all.sort_by(|a, b| natural_cmp(a.0, b.0));
    all.into_iter()
        .take(k)
        .map(|(_, shard, doc)| Key { shard, doc })
        .collect()
}
