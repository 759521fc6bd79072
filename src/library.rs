//! The reader: a manifest, the shards loaded so far, and the `search` entry point.
//!
//! The same [`Library`] serves the native CLI and the Wasm module; only the way bytes arrive
//! differs (files on disk, or `fetch`). A search first decides which shards the scope needs
//! ([`Library::shards_needed`]); the caller loads them ([`Library::load_shard`], which checks the
//! manifest's SHA-256 and the shard's own checksum); then [`Library::search`] runs the gate and
//! the retrieval paths over the admitted chunks only.

use crate::analysis::{Analyzer, Lang, MAX_QUERY_TERMS};
use crate::bm25::{self, PoolShard, Scored};
use crate::clock::now_ms;
use crate::format::{
    decode_shard, sha256_hex, ChunkRecord, Field, FormatError, Manifest, ShardEntry, ShardPayload,
};
use crate::gate::{self, Bitset};
use crate::scope::{Scope, ScopeError};
use crate::snippet::{snippet, Segment, SNIPPET_CHARS};
use serde::Serialize;
use std::fmt;

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

/// Options of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Number of results wanted (1..=[`MAX_K`]).
    pub k: usize,
    /// How the scope is applied.
    pub gating: Gating,
    /// Snippet length in characters.
    pub snippet_chars: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 8,
            gating: Gating::Gated,
            snippet_chars: SNIPPET_CHARS,
        }
    }
}

/// A shard decoded and ready to search.
#[derive(Debug)]
pub struct Shard {
    /// Its manifest entry.
    pub entry: ShardEntry,
    /// Its decoded payload.
    pub payload: ShardPayload,
    /// Languages present among its chunks.
    pub langs: Vec<Lang>,
    /// Total number of index terms.
    pub total_len: u64,
}

impl Shard {
    /// The chunks of the shard.
    pub fn chunks(&self) -> &[ChunkRecord] {
        &self.payload.chunks
    }
}

/// One result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hit {
    /// Chunk id.
    pub id: String,
    /// 1-based rank.
    pub rank: usize,
    /// Final score.
    pub score: f32,
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
    /// Whether the chunk satisfies the requested scope.
    pub in_scope: bool,
    /// Rank in the BM25 list (1-based), when it was retrieved lexically.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<usize>,
    /// Snippet with highlighted matches.
    pub snippet: Vec<Segment>,
    /// Full chunk text.
    pub text: String,
}

/// Timings of the stages, in milliseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timings {
    /// Building the gate bitsets.
    pub gate_ms: f64,
    /// Query analysis and BM25.
    pub lexical_ms: f64,
    /// Whole search.
    pub total_ms: f64,
}

/// What the search did, for explanations and audits.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Trace {
    /// Gating mode.
    pub gating: Gating,
    /// The scope applied.
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
    /// Candidates scored by BM25 (before the cut to k).
    pub lexical_candidates: usize,
    /// Results dropped by the post-filter (post-filtered mode only).
    pub post_filtered_out: usize,
    /// Human-readable notes (why nothing was found, etc.).
    pub notes: Vec<String>,
    /// Stage timings.
    pub timings: Timings,
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
#[derive(Debug)]
pub struct Library {
    manifest: Manifest,
    shards: Vec<Option<Shard>>,
    analyzer: Analyzer,
}

impl Library {
    /// A library over `manifest` with no shard loaded.
    pub fn new(manifest: Manifest) -> Library {
        let n = manifest.shards.len();
        Library {
            manifest,
            shards: (0..n).map(|_| None).collect(),
            analyzer: Analyzer::new(),
        }
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Indices (in manifest order) of the shards a search with this scope and gating reads.
    pub fn shard_indices(&self, scope: &Scope, gating: Gating) -> Vec<usize> {
        self.manifest
            .shards
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                gating != Gating::Gated
                    || (scope.get(Field::Subject).map_or(true, |v| v == s.subject)
                        && scope.get(Field::Level).map_or(true, |v| v == s.level))
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

    /// Whether the shard file is loaded.
    pub fn is_loaded(&self, file: &str) -> bool {
        self.manifest
            .shards
            .iter()
            .position(|s| s.file == file)
            .is_some_and(|i| self.shards[i].is_some())
    }

    /// Verifies (manifest SHA-256, then the shard's own header and checksum) and decodes a shard.
    pub fn load_shard(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        let i = self
            .manifest
            .shards
            .iter()
            .position(|s| s.file == file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let entry = self.manifest.shards[i].clone();
        let found = sha256_hex(bytes);
        if found != entry.sha256 {
            // Decode anyway to give the most precise reason (truncation, version…) when we can.
            if let Err(error) = decode_shard(bytes) {
                return Err(LoadError::Format {
                    file: file.into(),
                    error,
                });
            }
            return Err(LoadError::Integrity {
                file: file.into(),
                expected: entry.sha256,
                found,
            });
        }
        let payload = decode_shard(bytes).map_err(|error| LoadError::Format {
            file: file.into(),
            error,
        })?;
        if payload.subject != entry.subject || payload.level != entry.level {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!("{}/{}", entry.subject, entry.level),
                found: format!("{}/{}", payload.subject, payload.level),
            });
        }
        let mut langs: Vec<Lang> = payload
            .chunks
            .iter()
            .map(|c| Lang::from_code(&c.lang))
            .collect();
        langs.sort();
        langs.dedup();
        let total_len = payload.lexical.total_len();
        self.shards[i] = Some(Shard {
            entry,
            payload,
            langs,
            total_len,
        });
        Ok(())
    }

    /// Reads `manifest.json` from a folder (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn open_dir(dir: &std::path::Path) -> Result<Library, LoadError> {
        let path = dir.join("manifest.json");
        let text = std::fs::read_to_string(&path).map_err(|e| LoadError::Io {
            file: path.display().to_string(),
            message: e.to_string(),
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
        for entry in self.shards_needed(scope, gating) {
            let path = dir.join(&entry.file);
            let bytes = std::fs::read(&path).map_err(|e| LoadError::Io {
                file: path.display().to_string(),
                message: format!("cannot read shard listed in the manifest: {e}"),
            })?;
            self.load_shard(&entry.file, &bytes)?;
        }
        Ok(())
    }

    /// Loaded shards, in manifest order.
    pub fn loaded(&self) -> impl Iterator<Item = &Shard> {
        self.shards.iter().flatten()
    }

    /// Runs a search. Every shard in [`Library::shards_needed`] must be loaded.
    pub fn search(
        &self,
        query: &str,
        scope: &Scope,
        opts: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        let t0 = now_ms();
        if opts.k == 0 || opts.k > MAX_K {
            return Err(SearchError::Option(format!(
                "k must be between 1 and {MAX_K}, got {}",
                opts.k
            )));
        }
        scope.validate(&self.manifest)?;
        let missing: Vec<String> = self
            .shards_needed(scope, opts.gating)
            .into_iter()
            .map(|e| e.file)
            .collect();
        if !missing.is_empty() {
            return Err(SearchError::NotLoaded(missing));
        }
        let shards: Vec<&Shard> = self
            .shard_indices(scope, opts.gating)
            .into_iter()
            .filter_map(|i| self.shards[i].as_ref())
            .collect();
        // 1. The gate.
        let gates: Vec<Bitset> = shards
            .iter()
            .map(|s| match opts.gating {
                Gating::Gated => gate::gate(scope, s.chunks()),
                Gating::Ungated | Gating::PostFiltered => Bitset::full(s.chunks().len()),
            })
            .collect();
        let t_gate = now_ms();
        let mut trace = Trace {
            gating: opts.gating,
            scope: scope.to_json(),
            shards: shards.iter().map(|s| s.entry.file.clone()).collect(),
            pool_chunks: shards.iter().map(|s| s.chunks().len()).sum(),
            admissible: gates.iter().map(Bitset::count).sum(),
            max_query_terms: MAX_QUERY_TERMS,
            ..Default::default()
        };
        // 2. Lexical retrieval over the gated pool.
        let mut langs: Vec<Lang> = shards
            .iter()
            .flat_map(|s| s.langs.iter().copied())
            .collect();
        langs.sort();
        langs.dedup();
        let q = self.analyzer.analyze_query(query, &langs);
        trace.query_terms = q.terms.clone();
        trace.truncated = q.truncated;
        if q.truncated {
            trace.notes.push(format!(
                "the query was truncated to its first {MAX_QUERY_TERMS} distinct terms"
            ));
        }
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
        let id_of = |si: usize, doc: u32| shards[si].payload.chunks[doc as usize].id.as_str();
        let scored: Vec<Scored> = if q.terms.is_empty() {
            trace.browse = true;
            trace
                .notes
                .push("no searchable term in the query: browsing the scope in id order".into());
            browse(&shards, &gates, opts.k)
        } else {
            bm25::search(&pool, &q.terms, opts.k, id_of)
        };
        trace.lexical_candidates = scored.len();
        let t_lex = now_ms();
        // 3. Results (post-filter drops out-of-scope ones when asked).
        let mut results = Vec::with_capacity(scored.len());
        for (i, s) in scored.iter().enumerate() {
            let shard = shards[s.shard];
            let c = &shard.payload.chunks[s.doc as usize];
            let in_scope = gate::admits(scope, c);
            if opts.gating == Gating::PostFiltered && !in_scope {
                trace.post_filtered_out += 1;
                continue;
            }
            let lang = Lang::from_code(&c.lang);
            results.push(Hit {
                id: c.id.clone(),
                rank: results.len() + 1,
                score: s.score,
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
                in_scope,
                bm25_rank: (!trace.browse).then_some(i + 1),
                snippet: snippet(&self.analyzer, &c.text, lang, &q.terms, opts.snippet_chars),
                text: c.text.clone(),
            });
        }
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
                    "{} chunks are in scope, but none contains the query's terms",
                    trace.admissible
                )
            });
        }
        let t_end = now_ms();
        trace.timings = Timings {
            gate_ms: t_gate - t0,
            lexical_ms: t_lex - t_gate,
            total_ms: t_end - t0,
        };
        Ok(SearchResponse { results, trace })
    }
}

/// The first `k` admissible chunks in id order (browsing a scope with an empty query).
fn browse(shards: &[&Shard], gates: &[Bitset], k: usize) -> Vec<Scored> {
    let mut all: Vec<(&str, usize, u32)> = Vec::new();
    for (si, (s, g)) in shards.iter().zip(gates).enumerate() {
        for d in g.iter() {
            all.push((s.payload.chunks[d].id.as_str(), si, d as u32));
        }
    }
    all.sort();
    all.into_iter()
        .take(k)
        .map(|(_, shard, doc)| Scored {
            shard,
            doc,
            score: 0.0,
        })
        .collect()
}
