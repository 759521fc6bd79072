//! The search: a manifest, the shards loaded so far, and [`Library::search`], the pipeline as a
//! sequence of named steps.
//!
//! The same [`Library`] serves the native CLI and the Wasm module; only the way bytes arrive
//! differs (files on disk, or `fetch`). A caller first asks which shards a scope needs
//! ([`Library::shards_needed`], the gate's [`crate::gate::shard_choice`]) and loads them
//! ([`load`]: manifest SHA-256, then the file's own checksum). [`Library::search`] then runs:
//!
//! 1. **validate** the scope and options against the manifest ([`options`], [`crate::scope`]);
//! 2. **understand** the query once ([`query`]: hints, intents, language, terms per language set,
//!    the query vector — every pass of the search reuses them);
//! 3. **hints** merge the values the query names into the scope ([`hints`], variant E);
//! 4. **pass** over the scope ([`pass`]): gate → BM25 (and label) lists → dense list
//!    ([`dense_list`]) → fusion → post-filter (baselines) → rerank and dedup;
//! 5. **relax** ([`crate::relax`], variant E): widening passes W1 → W2 → W3, never across a lock;
//! 6. **results** ([`results`]): hits with snippets, section expansion and context, each added
//!    chunk re-gated against the scope ([`results::admissible`]).
//!
//! What a search returns is in [`response`]; its errors in [`error`].

pub mod dense_list;
pub mod error;
pub mod facets;
pub mod hints;
pub mod load;
pub mod options;
pub mod parts;
pub mod pass;
pub mod query;
pub mod response;
pub mod results;
pub mod weak;

pub use crate::gate::{Gating, Leakage};
pub use error::{LoadError, SearchError};
pub use facets::{Facet, FacetValue};
#[cfg(not(target_arch = "wasm32"))]
pub use load::missing_shard_message;
pub use load::{ModelEmbedder, QueryEmbedder, Shard, NO_ANSWER, NO_SECTION};
pub use options::{
    SearchOptions, Stages, Variant, DEFAULT_DENSE_WEIGHT, DEFAULT_SECTION_DOC, DEFAULT_SECTION_IDF,
    DEFAULT_SECTION_WEIGHT, MAX_K,
};
pub use parts::{Needed, NeededPostings, NeededText};
pub use response::{Hit, Probe, RelaxStep, Relaxation, SearchResponse, Timings, Trace};
pub use results::Section;
pub use weak::WeakEvidence;

use crate::analysis::{bound_query, Analyzer, MAX_QUERY_BYTES, MAX_QUERY_TERMS};
use crate::clock::now_ms;
use crate::format::{ChunkRecord, Manifest, ShardEntry};
use crate::glossary::Glossary;
use crate::scope::Scope;
use query::Query;
use std::fmt;

/// A manifest and the shards loaded from it.
pub struct Library {
    manifest: Manifest,
    shards: Vec<Option<Shard>>,
    analyzer: Analyzer,
    embedder: Option<Box<dyn QueryEmbedder>>,
    glossary: Glossary,
    /// The shards' term filters: known (inline in the manifest, loaded, or none at all) or
    /// waiting for the term-filter file.
    filters: Filters,
    /// Each shard's languages (from its `lang` facet), and every language of the library: the
    /// analyses a term-filter lookup tries.
    shard_langs: Vec<Vec<crate::analysis::Lang>>,
    all_langs: Vec<crate::analysis::Lang>,
    /// Part lists loaded before their shard (per shard in manifest order): checked against the
    /// manifest, attached when the shard arrives; meanwhile they tell which postings parts a
    /// query needs, so that those download with the shard.
    pending_lists: Vec<Option<(String, crate::format::PartList)>>,
}

/// The shards' term filters ([`crate::format::terms`]).
#[derive(Debug)]
enum Filters {
    /// Per shard in manifest order (`None`: no filter, or a malformed one: may match).
    Known(Vec<Option<crate::format::terms::DecodedFilter>>),
    /// The manifest names a term-filter file that is not loaded yet.
    Pending,
}

/// Whether a query could match in a shard, by its term filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CouldMatch {
    /// The filter lets the query through, or the shard has none.
    Yes,
    /// No query term is in the shard.
    No,
    /// The term-filter file is not loaded yet.
    Unknown,
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

pub(crate) use pass::Cand;

/// A retrieved candidate inside a pass: its shard (a manifest position once the pass ends) and
/// its chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) shard: usize,
    pub(crate) doc: u32,
}

impl Library {
    /// A library over `manifest` with no shard loaded.
    pub fn new(manifest: Manifest) -> Library {
        let n = manifest.shards.len();
        // A manifest written before the filters had their own file carries them inline.
        let filters = if manifest.terms.is_some() {
            Filters::Pending
        } else {
            Filters::Known(
                manifest
                    .shards
                    .iter()
                    .map(|e| e.terms.as_ref().and_then(|t| t.decode()))
                    .collect(),
            )
        };
        let shard_langs: Vec<Vec<crate::analysis::Lang>> = manifest
            .shards
            .iter()
            .map(|e| {
                let mut v: Vec<_> = e
                    .facets
                    .get("lang")
                    .map(|m| {
                        m.keys()
                            .map(|l| crate::analysis::Lang::from_code(l))
                            .collect()
                    })
                    .unwrap_or_default();
                crate::order::sort(&mut v);
                v.dedup();
                v
            })
            .collect();
        let mut all_langs: Vec<_> = shard_langs.iter().flatten().copied().collect();
        crate::order::sort(&mut all_langs);
        all_langs.dedup();
        Library {
            filters,
            shard_langs,
            all_langs,
            manifest,
            shards: (0..n).map(|_| None).collect(),
            pending_lists: (0..n).map(|_| None).collect(),
            analyzer: Analyzer::new(),
            embedder: None,
            glossary: Glossary::builtin(),
        }
    }

    /// The manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Indices (in manifest order) of the shards a search with this scope and gating reads
    /// ([`crate::gate::shard_choice`]).
    pub fn shard_indices(&self, scope: &Scope, gating: Gating) -> Vec<usize> {
        crate::gate::shard_choice(&self.manifest, scope, gating)
    }

    /// Manifest entries of every shard a search with this scope and gating reads.
    pub fn shards_for(&self, scope: &Scope, gating: Gating) -> Vec<ShardEntry> {
        self.shard_indices(scope, gating)
            .into_iter()
            .map(|i| self.manifest.shards[i].clone())
            .collect()
    }

    /// Whether the query could match in the manifest's shard `i`, by its term filter
    /// ([`crate::format::terms`]): some term of the query, analysed for the shard's languages
    /// (and for every language of the library, with the glossary's expansion when `q`
    /// understands queries), may be in the shard. A shard without a filter may always match;
    /// so may any shard for a query with no searchable term or naming a label. `Unknown` while
    /// the manifest's term-filter file is not loaded ([`Library::load_terms`]).
    pub(crate) fn could_match(&self, i: usize, q: &Query<'_>) -> CouldMatch {
        if q.understanding.label.is_some() {
            return CouldMatch::Yes;
        }
        let f = match &self.filters {
            Filters::Pending => return CouldMatch::Unknown,
            Filters::Known(v) => match v.get(i).and_then(Option::as_ref) {
                Some(f) => f,
                None => return CouldMatch::Yes,
            },
        };
        let mut any_term = false;
        for langs in [&self.shard_langs[i], &self.all_langs] {
            let t = q.terms(&self.analyzer, &self.glossary, langs);
            any_term |= !t.terms.is_empty();
            if t.terms.iter().any(|t| f.may_contain(t)) {
                return CouldMatch::Yes;
            }
        }
        if any_term {
            CouldMatch::No
        } else {
            CouldMatch::Yes
        }
    }

    /// Whether the shards' term filters are known: inline in the manifest, loaded from the
    /// term-filter file, or absent (every shard may match). `false` while the manifest names a
    /// term-filter file that is not loaded: widening then asks for it (`pending_shards`).
    pub fn terms_loaded(&self) -> bool {
        matches!(self.filters, Filters::Known(_))
    }

    /// Manifest entries of every shard a search with this scope reads that could match `query`
    /// ([`Library::could_match`]): what a client fetches before widening to them. Until the
    /// term-filter file is loaded, every shard the scope reads (none is ruled out).
    pub fn shards_for_query(
        &self,
        scope: &Scope,
        query: &str,
        opts: &SearchOptions,
    ) -> Vec<ShardEntry> {
        let (text, _) = bound_query(query);
        let q = Query::new(text, opts.stages.understand);
        self.shard_indices(scope, opts.stages.gating)
            .into_iter()
            .filter(|&i| self.could_match(i, &q) != CouldMatch::No)
            .map(|i| self.manifest.shards[i].clone())
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

    /// Runs a search. Every shard in [`Library::shards_needed`] must be loaded.
    pub fn search(
        &self,
        query: &str,
        requested: &Scope,
        opts: &SearchOptions,
    ) -> Result<SearchResponse, SearchError> {
        let t0 = now_ms();
        // Every stage below reads only the bounded query (a pasted megabyte costs what 16 KB do).
        let (text, cut) = bound_query(query);
        // 1. Validate (the postings of the query's terms included, when a shard has them in
        // parts).
        self.validate(requested, opts)?;
        self.check_postings(query, opts)?;
        let st = opts.stages;
        let mut trace = Trace {
            variant: opts.variant.name().to_string(),
            gating: st.gating,
            requested_scope: requested.to_json(),
            max_query_terms: MAX_QUERY_TERMS,
            dense_path: st.dense,
            ..Default::default()
        };
        // 2. Understand the query, once for every pass (E: hints, intents, language).
        let mut q = Query::new(text, st.understand);
        // 3. Hints → scope (F); the rest stays soft rerank evidence (all of it in E).
        let scope = if st.understand && st.hints {
            let (scope, soft) = self.merge_hints(requested, &q.understanding, &mut trace);
            q.soft = soft;
            scope
        } else {
            q.soft = q
                .understanding
                .hints
                .iter()
                .map(|(f, v)| (*f, v.clone()))
                .collect();
            requested.clone()
        };
        trace.scope = scope.to_json();
        // 4. The first pass, over the (effective) scope.
        let mut cands = self.pass(&q, &scope, st.gating, opts, true, &mut trace);
        if cut {
            trace.truncated = true;
            trace.notes.push(format!(
                "the query was truncated: it is longer than {MAX_QUERY_BYTES} bytes, and only its \
                 first {} bytes were read",
                text.len()
            ));
        }
        // 4b. Weak in-scope evidence (evidence trigger): measured on the first pass.
        let weak = self.weak_check(&q, &scope, opts, &cands, &trace);
        trace.weak_evidence = weak.as_ref().map(|(w, _)| w.clone());
        // 5. Relaxation (E), never across a locked field.
        if st.relax && st.gating == Gating::Gated {
            let relax = self.relax(&q, &scope, opts, &mut cands, &mut trace);
            trace.relaxation = Some(relax);
        }
        // 5b. No padding: under weak evidence, in-scope results that hold no query term or a
        // single common one are not shown (widened, labelled ones are).
        if let Some((w, holders)) = weak.filter(|(w, _)| w.weak) {
            // A card from the section of an in-scope result that is not padding stays: its
            // section vouches for it (as section evidence does in the ranking).
            let section = |c: &Cand| {
                let s = self.shards[c.key.shard]
                    .as_ref()
                    .expect("candidate shards are loaded");
                Some((c.key.shard, s.sections[c.key.doc as usize])).filter(|x| x.1 != NO_SECTION)
            };
            let vouched: Vec<(usize, u32)> = cands
                .iter()
                .filter(|c| c.leakage == Leakage::InScope && !weak::is_padding(&holders.held(c)))
                .filter_map(section)
                .collect();
            let padding = |c: &Cand| {
                c.leakage == Leakage::InScope
                    && weak::is_padding(&holders.held(c))
                    && section(c).is_none_or(|k| !vouched.contains(&k))
            };
            let dropped = cands.iter().take(opts.k).filter(|c| padding(c)).count();
            cands.retain(|c| !padding(c));
            trace.weak_evidence = Some(WeakEvidence { dropped, ..w });
        }
        if st.understand {
            trace.understanding = Some(q.understanding.clone());
        }
        // 6. Results: snippets, expansion and labels, every added chunk re-gated.
        // The candidate after the results, whose text may be needed too (`text_missing_for`).
        let next = cands.drain(opts.k.min(cands.len())..).next();
        let results = self.hits(&cands, &scope, requested, opts, &mut trace);
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
        let pending_text = self.text_missing_for(&cands, next.as_ref(), opts.expand_chars > 0);
        trace.timings.total_ms = now_ms() - t0;
        Ok(SearchResponse {
            results,
            trace,
            pending_text,
            scope,
        })
    }

    /// Step 1: the request is one this library can serve (valid scope, options and query
    /// vector; every shard it needs loaded).
    fn validate(&self, requested: &Scope, opts: &SearchOptions) -> Result<(), SearchError> {
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
        opts.check_query_vector(&self.manifest)
    }

    pub(crate) fn chunk(&self, key: Key) -> &ChunkRecord {
        &self.shards[key.shard]
            .as_ref()
            .expect("candidate shards are loaded")
            .payload
            .chunks[key.doc as usize]
    }
}
