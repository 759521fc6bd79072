//! What a search returns: results ([`Hit`]) and the trace of what it did ([`Trace`]).

use crate::dense::Plan;
use crate::expand::Expanded;
use crate::gate::{Gating, Leakage};
use crate::relax::Evidence;
use crate::rerank::{Adjustment, Duplicate};
use crate::scope::Scope;
use crate::snippet::Segment;
use crate::understand::Understanding;
use serde::Serialize;

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
    /// Other chunks of the section (when section expansion is on), each inside the scope the
    /// result was admitted under.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expanded: Vec<Expanded>,
    /// Chunks of the section that expansion withheld because they lie outside that scope.
    #[serde(skip_serializing_if = "is_zero")]
    pub withheld: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    /// The step did not run because of a locked field, and would have widened without the
    /// lock (the page says so: a better match lies outside the lock).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blocked_by_lock: bool,
}

impl RelaxStep {
    /// A step that ran: the fields it dropped, the scope it searched, what it added.
    pub(crate) fn ran(
        step: &str,
        dropped: Vec<String>,
        scope: serde_json::Value,
        added: usize,
        note: impl Into<String>,
    ) -> RelaxStep {
        RelaxStep {
            step: step.into(),
            dropped,
            scope,
            added,
            note: note.into(),
            blocked_by_lock: false,
        }
    }

    /// A step that did not run (not needed, skipped or blocked), and why.
    pub(crate) fn skipped(
        step: &str,
        scope: serde_json::Value,
        note: impl Into<String>,
    ) -> RelaxStep {
        RelaxStep::ran(step, Vec::new(), scope, 0, note)
    }

    /// Marks whether a locked field kept the step from running although the evidence asked for it.
    pub(crate) fn blocked_by_lock(mut self, blocked: bool) -> RelaxStep {
        self.blocked_by_lock = blocked;
        self
    }
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
    /// shards), `no_match` (nothing matches anywhere searched), `strong_in_scope` (no widening),
    /// `locked` (a step would have widened but a locked field kept it from running).
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
    /// Whether the search runs the dense path (a page fetches the vectors and the model only
    /// then): off in the variant, or no query term occurs in the searched shards (the dense
    /// path then has no evidence to add).
    pub dense_path: bool,
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
    /// Whether the scope's own evidence for the query is weak (evidence trigger): the page, the
    /// embed and the CLI then say that nothing in the scope matches well
    /// ([`crate::search::weak`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weak_evidence: Option<crate::search::weak::WeakEvidence>,
    /// Section chunks expansion withheld as outside the scope (over every result).
    #[serde(skip_serializing_if = "is_zero")]
    pub withheld: usize,
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
    /// Text parts (file names, in manifest order) the results still need before they can be
    /// shown: their snippets, sections and `[DOCUMENT N]` context read them. The ranking is
    /// final without them; load them and search again. Always empty natively, where
    /// [`crate::search::Library::load_needed_from_dir`] reads every part with its shard.
    pub pending_text: Vec<String>,
    /// The scope applied (the request plus hints, with its locks): what [`crate::search::Library::to_context`]
    /// re-gates against.
    #[serde(skip)]
    pub scope: Scope,
}
