//! Weak in-scope evidence: whether anything in the scope answers the query well, measured on the
//! first pass, said in the response ([`WeakEvidence`]), and what is then not shown.
//!
//! **The measure.** Each query term `t` gets the BM25 idf of the scope's shards (the pool the
//! first pass searched), `idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5))`; a term no chunk of those
//! shards holds gets the largest idf (`df = 0`): a word the scope does not know is the strongest
//! sign that it is about something else. A result's **coverage** is the share of the query's
//! idf mass its chunk holds, `Σ idf(t ∈ chunk) / Σ idf(t)`; the scope's evidence is the best
//! coverage among the first pass's top `k` in-scope results (and how many distinct query terms
//! that result holds).
//!
//! **The rule** (`weak`): the evidence is weak when no in-scope result among the first `k` holds
//! a query term (`no_term_in_scope`), or when the best one holds less than about two terms'
//! worth of the query's idf mass: coverage below `min(WEAK_COVERAGE_CAP, WEAK_TERMS / n)` for
//! a query of `n` distinct terms (0.75 up to two terms, 0.5 at four, 0.2 at ten: a pasted
//! question carries many incidental words, a topic name none). A query with no searchable term
//! (browsing) and a query naming a label the scope holds are never weak. The two constants were
//! chosen on the dev split and the generic out-of-syllabus probes (`scripts/bench-weak`,
//! docs/pipeline.md), so the dev false-alarm rate is an in-sample figure.
//!
//! **No padding** (`dropped`): when the evidence is weak, in-scope results that are vector-only
//! (no query term at all: the static model's neighbours of a query the scope barely knows), or
//! that hold a single query term whose idf is below [`COMMON_IDF`] (a common word such as
//! "effect", "equation", "base"), are removed — unless an in-scope result that is not padding
//! comes from the same section (its section vouches for it, as section evidence does in the
//! ranking); widened, labelled results are kept.

use super::query::Query;
use super::{Cand, Leakage, Library, SearchOptions, Trace};
use crate::gate::{Bitset, Gating};
use crate::relax::Trigger;
use crate::scope::Scope;
use serde::Serialize;

/// The rule's cap on the coverage asked of the best in-scope result (short queries).
pub const WEAK_COVERAGE_CAP: f64 = 0.75;
/// How many terms' worth of the query's idf mass the best in-scope result must hold: a query of
/// `n` terms is weak below a coverage of `min(WEAK_COVERAGE_CAP, WEAK_TERMS / n)`.
pub const WEAK_TERMS: f64 = 2.0;
/// A term whose idf in the scope's shards is below this is a common word (df above about 5 %
/// of the chunks).
pub const COMMON_IDF: f64 = 3.0;

/// Whether the scope's own evidence for the query is weak, and what that removed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct WeakEvidence {
    /// The rule's verdict: nothing in the scope matches the query well.
    pub weak: bool,
    /// Why (`no_term_in_scope`, `low_coverage`), empty when not weak.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Best idf-weighted coverage of the query by one in-scope result (0–1).
    pub coverage: f64,
    /// Distinct query terms held by that result.
    pub matched_terms: usize,
    /// Distinct query terms.
    pub query_terms: usize,
    /// Query terms that occur somewhere in the scope's shards.
    pub known_terms: usize,
    /// In-scope results removed as padding (vector-only, or a single common word) because the
    /// evidence is weak.
    pub dropped: usize,
}

/// Per-candidate facts the rule reads: (coverage, distinct terms held, max idf of a held term).
pub(crate) type Held = (f64, usize, f64);

/// The query terms' idf and the in-scope chunks holding each: per term, one bit set per shard
/// of the scope (a bit per chunk: a long query's common terms hold most of a shard, and a bit
/// costs less to set than a hashed key to insert).
pub(crate) struct Holders {
    idf: Vec<f64>,
    mass: f64,
    /// The scope's shards (manifest indices), in the order of each term's sets.
    shards: Vec<usize>,
    sets: Vec<Vec<Bitset>>,
}

impl Holders {
    /// What an in-scope candidate holds of the query (nothing for a chunk outside the scope).
    pub(crate) fn held(&self, c: &Cand) -> Held {
        let (mut cov, mut cnt, mut top) = (0.0, 0, 0.0f64);
        let at = self.shards.iter().position(|&s| s == c.key.shard);
        for (i, per_shard) in self.sets.iter().enumerate() {
            if at.is_some_and(|p| per_shard[p].contains(c.key.doc as usize)) {
                cov += self.idf[i];
                cnt += 1;
                top = top.max(self.idf[i]);
            }
        }
        (cov / self.mass, cnt, top)
    }
}

impl Library {
    /// The weak-evidence check over the first pass's candidates (evidence trigger only).
    pub(crate) fn weak_check(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        opts: &SearchOptions,
        cands: &[Cand],
        trace: &Trace,
    ) -> Option<(WeakEvidence, Holders)> {
        let st = opts.stages;
        if !(st.relax && st.gating == Gating::Gated && opts.trigger == Trigger::Evidence)
            || trace.browse
            || trace.query_terms.is_empty()
        {
            return None;
        }
        let pool = self.gate_step(scope, Gating::Gated);
        let terms = &trace.query_terms;
        let n: u64 = pool
            .shards
            .iter()
            .map(|s| s.payload.chunks.len() as u64)
            .sum();
        // Per term: idf over the scope's shards, and the admitted chunks holding it.
        let mut idf = Vec::with_capacity(terms.len());
        let mut sets = Vec::with_capacity(terms.len());
        let mut known = 0;
        for t in terms {
            let mut df = 0u64;
            let mut per_shard: Vec<Bitset> = pool
                .gates
                .iter()
                .map(|g| Bitset::empty(g.universe()))
                .collect();
            for ((s, g), set) in pool.shards.iter().zip(&pool.gates).zip(&mut per_shard) {
                let lex = &s.payload.lexical;
                if let Some(id) = lex.term_id(t) {
                    df += u64::from(lex.df[id]);
                    for (doc, _) in lex.postings(id).flatten() {
                        if g.contains(doc as usize) {
                            set.insert(doc as usize);
                        }
                    }
                }
            }
            if df > 0 {
                known += 1;
            }
            idf.push(((n as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln_1p());
            sets.push(per_shard);
        }
        let mass = idf.iter().sum::<f64>().max(1e-9);
        let holders = Holders {
            idf,
            mass,
            shards: pool.manifest_idx.clone(),
            sets,
        };
        let top: Vec<Held> = cands
            .iter()
            .take(opts.k)
            .filter(|c| c.leakage == Leakage::InScope)
            .map(|c| holders.held(c))
            .collect();
        let best = top
            .iter()
            .fold((0.0, 0usize, 0.0), |a, h| if h.0 > a.0 { *h } else { a });
        let label_in_scope = st.labels
            && q.understanding.label.as_ref().is_some_and(|l| {
                let m = crate::rerank::LabelMatcher::new(l);
                pool.shards
                    .iter()
                    .zip(&pool.gates)
                    .any(|(s, g)| g.iter().any(|d| m.matches(&s.payload.chunks[d])))
            });
        let n = terms.len() as f64;
        let reason = if label_in_scope {
            ""
        } else if best.1 == 0 {
            "no_term_in_scope"
        } else if best.0 < WEAK_COVERAGE_CAP.min(WEAK_TERMS / n) {
            "low_coverage"
        } else {
            ""
        };
        Some((
            WeakEvidence {
                weak: !reason.is_empty(),
                reason: reason.into(),
                coverage: (best.0 * 1000.0).round() / 1000.0,
                matched_terms: best.1,
                query_terms: terms.len(),
                known_terms: known,
                dropped: 0,
            },
            holders,
        ))
    }
}

/// Whether an in-scope candidate is padding under weak evidence: vector-only, or holding a
/// single common query word.
pub(crate) fn is_padding(h: &Held) -> bool {
    h.1 == 0 || (h.1 == 1 && h.2 < COMMON_IDF)
}
