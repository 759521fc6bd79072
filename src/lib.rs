//! # chsr — curriculum-gated hybrid retrieval
//!
//! chsr treats retrieval for exam preparation as *constrained selection*: the curriculum scope of a
//! query (subject, level, paper, year, document type, …) is enforced **before** anything is scored,
//! so no inadmissible chunk can ever be ranked.
//!
//! A search, stage by stage ([`search::Library::search`]):
//!
//! 1. **gate** ([`scope`], [`gate`]): the scope (with its locked fields) picks the shards and
//!    becomes a bitset of admissible chunks per shard; nothing outside it is scored;
//! 2. **retrieve** ([`bm25`], [`dense`], [`embed`]): BM25 over the gated pool (with section
//!    evidence in F) and, when on, nearest vectors (exact scan or HNSW as the gate decides);
//! 3. **fuse** ([`fusion`]): reciprocal rank fusion of typed lists;
//! 4. **rerank** ([`rerank`]): metadata-aware boosts, priors, coverage, near-duplicate removal;
//! 5. **understand and relax** ([`understand`], [`glossary`], [`relax`]): hints, intents, EN↔FR
//!    expansion, widening W1 → W2 → W3 that never drops a lock, leakage labels;
//!
//! then results ([`search::results`]): snippets, section expansion and `[DOCUMENT N]` context,
//! every added chunk re-gated. The main types are re-exported here: [`Library`],
//! [`SearchOptions`], [`Variant`], [`SearchResponse`], [`Hit`], [`Scope`], [`Manifest`].
//!
//! The crate is organised as the pipeline it implements:
//!
//! | module | role |
//! |---|---|
//! | [`corpus`] | JSONL ingest: chunk records with curriculum metadata, strict validation |
//! | [`doctype`] | the document-type vocabulary: canonical types, their aliases, the query words asking for them |
//! | [`analysis`] | text analysis shared by indexing and querying (EN/FR stemming, formula normalisation) |
//! | [`format`] | the on-disk shard and manifest formats; the only module the builder and reader share |
//! | [`build`] | the shard builder (native CLI): one shard per subject-level pair + `manifest.json` |
//! | `index` | `chsr index`: a built course site or Markdown sources → chunks, shards and a search bundle (native; in Wasm with feature `indexer`, for the npm package) |
//! | [`scope`] | the query scope and its validation against the manifest |
//! | [`gate`] | the hard curriculum gate: a bitset of admissible chunks per shard |
//! | [`bm25`] | lexical retrieval over a gated pool |
//! | [`search`] | the reader: loaded shards and [`search::Library::search`], the pipeline as named steps (validate, understand, hints, pass, relax, results), used by the CLI and Wasm |
//! | [`relax`] | scope relaxation: the paper and evidence triggers, leakage labels |
//! | `eval` | the OpenCERB benchmark harness behind `chsr eval` (native only) |
//! | [`embed`] | static embeddings: BERT WordPiece tokenizer and the distilled token-vector model |
//! | `distill` | (feature `distill`, native) distils the static model from a sentence transformer |
//!
//! Builder and reader never call each other: they meet only in [`format`] (and share the pure
//! [`analysis`] functions, so queries are analysed exactly as documents were, and the
//! [`doctype`] vocabulary, so a document type means the same in a corpus and in a query). Likewise the
//! distiller writes and [`embed`] reads the model file through [`format::model`] only.

pub mod analysis;
pub mod bm25;
pub mod build;
pub mod clock;
pub mod corpus;
pub mod dense;
#[cfg(all(feature = "distill", not(target_arch = "wasm32")))]
pub mod distill;
pub mod doctype;
pub mod embed;
#[cfg(not(target_arch = "wasm32"))]
pub mod eval;
pub mod expand;
pub mod explain;
pub mod format;
pub mod fusion;
pub mod gate;
pub mod glossary;
#[cfg(any(not(target_arch = "wasm32"), feature = "indexer"))]
pub mod index;
pub mod order;
pub mod relax;
pub mod rerank;
pub mod scope;
pub mod search;
pub mod snippet;
pub mod understand;
pub mod unicode;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use format::Manifest;
pub use scope::Scope;
pub use search::{Hit, Library, SearchOptions, SearchResponse, Variant};
