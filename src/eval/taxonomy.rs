//! The failure taxonomy of an evaluation: where the missing relevant material was lost, and
//! which kind of failure each query is.
//!
//! **Stage attribution.** A query *misses* when fewer than min(|relevant|, K) of its relevant
//! chunks are in its top K, that is when R@K < 1 (a query with more than K relevant chunks and a
//! top K made only of relevant chunks does not miss). For each missing query the harness runs
//! [`crate::explain::explain`] with the system's own options and the query's relevant ids, and
//! each relevant chunk missing from the top K gets the explain verdict: the first stage that lost
//! it (`gate`, `candidate_recall`, `fusion`, `rerank`, `dedup`; `unknown` when no loaded shard
//! holds the id). Per set of queries the report gives the number of missing queries, the number
//! of missing chunks per stage, and per stage the *query-weighted share*: the mean over the
//! missing queries of the share of the query's missing chunks lost at that stage. Every missing
//! query weighs 1 whatever the size of its relevant set, and the shares sum to 1.
//!
//! **Outcome categories** (the seed paper's four: success, precision-only failure, recall-only
//! failure, both), per query at K, with the paper's failure definitions:
//!
//! - *recall failure*: no relevant chunk in the top K (hits = 0; an empty list is one). A result
//!   found by the W3 fallback is no hit (see [`super::metrics`]): a query answered only by W3
//!   fails recall;
//! - *precision failure*: at least one top-K result lies outside the scope's subject or level
//!   (leakage), or at least one top-K result is contaminating in the paper's sense (relevant to
//!   the topic but from the wrong question, paper or year; see [`super::metrics`]). Before the
//!   paper's contamination was implemented, the second cause was section contamination (another
//!   section or question, for queries naming one); it is still counted apart
//!   ([`Outcomes::with_section_contamination`]) but no longer makes a precision failure;
//! - *success*: neither; *precision-only*, *recall-only*: one of them; *both*: both.

use super::metrics::QueryMetrics;
use serde::Serialize;
use std::collections::BTreeMap;

/// The stage a missing relevant chunk was lost at (the verdict of `explain`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Excluded by the scope (gate, or post-filter).
    Gate,
    /// Admitted, but in neither the BM25 nor the dense window.
    CandidateRecall,
    /// Retrieved, but fused below the cut.
    Fusion,
    /// Fused within the cut, pushed below it by the reranker.
    Rerank,
    /// Removed as a near-duplicate.
    Dedup,
    /// No loaded shard holds the id.
    Unknown,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 6] = [
        Stage::Gate,
        Stage::CandidateRecall,
        Stage::Fusion,
        Stage::Rerank,
        Stage::Dedup,
        Stage::Unknown,
    ];

    /// The verdict name (`candidate_recall`, …).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Gate => "gate",
            Stage::CandidateRecall => "candidate_recall",
            Stage::Fusion => "fusion",
            Stage::Rerank => "rerank",
            Stage::Dedup => "dedup",
            Stage::Unknown => "unknown",
        }
    }

    /// The stage of an explain verdict; `None` for `found@N`.
    pub fn from_verdict(verdict: &str) -> Option<Stage> {
        Stage::ALL
            .into_iter()
            .find(|s| s.name() == verdict)
            .or_else(|| (!verdict.starts_with("found@")).then_some(Stage::Unknown))
    }
}

/// The outcome category of one query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// A relevant chunk in the top K, and no leaked or contaminated result.
    Success,
    /// A relevant chunk in the top K, but a leaked or contaminated result too.
    PrecisionOnly,
    /// No relevant chunk in the top K, and no leaked or contaminated result.
    RecallOnly,
    /// No relevant chunk in the top K, and a leaked or contaminated result.
    Both,
}

impl Outcome {
    /// Every category, in report order.
    pub const ALL: [Outcome; 4] = [
        Outcome::Success,
        Outcome::PrecisionOnly,
        Outcome::RecallOnly,
        Outcome::Both,
    ];

    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::PrecisionOnly => "precision_only",
            Outcome::RecallOnly => "recall_only",
            Outcome::Both => "both",
        }
    }

    /// The name shown in the report.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::PrecisionOnly => "precision-only failure",
            Outcome::RecallOnly => "recall-only failure",
            Outcome::Both => "both fail",
        }
    }
}

/// Whether the query's top K has a precision failure: a leaked or a contaminated result.
pub fn precision_failure(m: &QueryMetrics) -> bool {
    m.any_leak || m.contamination.is_some_and(|c| c > 0.0)
}

/// Whether the query's top K has a recall failure: no relevant chunk (R@K = 0).
pub fn recall_failure(m: &QueryMetrics) -> bool {
    m.recall <= 0.0
}

/// The outcome category of a query from its metrics.
pub fn outcome(m: &QueryMetrics) -> Outcome {
    match (precision_failure(m), recall_failure(m)) {
        (false, false) => Outcome::Success,
        (true, false) => Outcome::PrecisionOnly,
        (false, true) => Outcome::RecallOnly,
        (true, true) => Outcome::Both,
    }
}

/// Stage attribution over a set of queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attribution {
    /// Queries that miss (fewer than min(|relevant|, K) relevant chunks in the top K).
    pub queries: usize,
    /// Relevant chunks missing from the top K of those queries.
    pub missing: usize,
    /// Missing chunks per stage (they sum to `missing`).
    pub chunks: BTreeMap<Stage, usize>,
    /// Per stage, the mean over the missing queries of the share of each query's missing chunks
    /// lost there (they sum to 1); `null` when no query misses.
    pub shares: Option<BTreeMap<Stage, f64>>,
}

/// Outcome categories over a set of queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcomes {
    /// Queries.
    pub n: usize,
    /// Queries per category (they sum to `n`).
    pub counts: BTreeMap<Outcome, usize>,
    /// Share of the queries per category (0 for every category when `n` is 0).
    pub shares: BTreeMap<Outcome, f64>,
    /// Queries with a leaked result (a cause of precision failure).
    pub with_leak: usize,
    /// Queries with a contaminated result (the other cause; a query can have both).
    pub with_contamination: usize,
    /// Queries with a section-contaminated result (not a cause: shown for comparison).
    pub with_section_contamination: usize,
}

/// The taxonomy of a set of queries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Taxonomy {
    /// Where the missing relevant chunks were lost.
    pub attribution: Attribution,
    /// Outcome categories.
    pub outcomes: Outcomes,
}

/// One system's taxonomy: over every query and per slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VariantTaxonomy {
    /// Over every query.
    pub overall: Taxonomy,
    /// Per slice.
    pub slices: BTreeMap<String, Taxonomy>,
}

/// What the taxonomy needs of one query run.
pub struct QueryTaxon<'a> {
    /// The query's metrics.
    pub metrics: &'a QueryMetrics,
    /// Its missing relevant chunks with their stage, when the query misses.
    pub lost: Option<&'a [(String, Stage)]>,
}

/// The taxonomy of a set of query runs.
pub fn taxonomy<'a>(runs: impl IntoIterator<Item = QueryTaxon<'a>>) -> Taxonomy {
    let mut chunks: BTreeMap<Stage, usize> = Stage::ALL.into_iter().map(|s| (s, 0)).collect();
    let mut weights: BTreeMap<Stage, f64> = Stage::ALL.into_iter().map(|s| (s, 0.0)).collect();
    let mut counts: BTreeMap<Outcome, usize> = Outcome::ALL.into_iter().map(|o| (o, 0)).collect();
    let (mut n, mut queries, mut missing, mut with_leak, mut with_contamination) = (0, 0, 0, 0, 0);
    let mut with_section_contamination = 0;
    for r in runs {
        n += 1;
        *counts.entry(outcome(r.metrics)).or_default() += 1;
        with_leak += usize::from(r.metrics.any_leak);
        with_contamination += usize::from(r.metrics.contamination.is_some_and(|c| c > 0.0));
        with_section_contamination +=
            usize::from(r.metrics.section_contamination.is_some_and(|c| c > 0.0));
        let Some(lost) = r.lost.filter(|l| !l.is_empty()) else {
            continue;
        };
        queries += 1;
        missing += lost.len();
        for (_, s) in lost {
            *chunks.entry(*s).or_default() += 1;
            *weights.entry(*s).or_default() += 1.0 / lost.len() as f64;
        }
    }
    let shares = (queries > 0).then(|| {
        weights
            .into_iter()
            .map(|(s, w)| (s, w / queries as f64))
            .collect()
    });
    let outcome_shares = counts
        .iter()
        .map(|(o, c)| (*o, if n == 0 { 0.0 } else { *c as f64 / n as f64 }))
        .collect();
    Taxonomy {
        attribution: Attribution {
            queries,
            missing,
            chunks,
            shares,
        },
        outcomes: Outcomes {
            n,
            counts,
            shares: outcome_shares,
            with_leak,
            with_contamination,
            with_section_contamination,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(recall: f64, any_leak: bool, contamination: Option<f64>) -> QueryMetrics {
        QueryMetrics {
            recall,
            any_leak,
            leakage: if any_leak { 0.5 } else { 0.0 },
            contamination,
            ..Default::default()
        }
    }

    #[test]
    fn outcome_categories() {
        assert_eq!(outcome(&m(0.5, false, None)), Outcome::Success);
        assert_eq!(outcome(&m(0.5, false, Some(0.0))), Outcome::Success);
        assert_eq!(outcome(&m(1.0, true, None)), Outcome::PrecisionOnly);
        assert_eq!(outcome(&m(0.2, false, Some(0.125))), Outcome::PrecisionOnly);
        assert_eq!(outcome(&m(0.0, false, Some(0.0))), Outcome::RecallOnly);
        assert_eq!(outcome(&m(0.0, true, Some(0.0))), Outcome::Both);
        assert_eq!(outcome(&m(0.0, false, Some(1.0))), Outcome::Both);
        // Section contamination alone is no precision failure any more.
        let sec = QueryMetrics {
            section_contamination: Some(0.5),
            ..m(0.5, false, Some(0.0))
        };
        assert_eq!(outcome(&sec), Outcome::Success);
        let t = taxonomy([QueryTaxon {
            metrics: &sec,
            lost: None,
        }]);
        assert_eq!(
            (
                t.outcomes.with_contamination,
                t.outcomes.with_section_contamination
            ),
            (0, 1)
        );
    }

    #[test]
    fn verdicts_map_to_stages() {
        assert_eq!(Stage::from_verdict("gate"), Some(Stage::Gate));
        assert_eq!(
            Stage::from_verdict("candidate_recall"),
            Some(Stage::CandidateRecall)
        );
        assert_eq!(Stage::from_verdict("found@3"), None);
        assert_eq!(Stage::from_verdict("unknown"), Some(Stage::Unknown));
        assert_eq!(Stage::from_verdict("what"), Some(Stage::Unknown));
    }

    #[test]
    fn shares_are_query_weighted() {
        let ok = m(1.0, false, None);
        let miss = m(0.0, false, None);
        let a = vec![
            ("a".to_string(), Stage::Fusion),
            ("b".to_string(), Stage::Fusion),
            ("c".to_string(), Stage::Fusion),
            ("d".to_string(), Stage::Gate),
        ];
        let b = vec![("e".to_string(), Stage::CandidateRecall)];
        let t = taxonomy([
            QueryTaxon {
                metrics: &ok,
                lost: None,
            },
            QueryTaxon {
                metrics: &miss,
                lost: Some(&a),
            },
            QueryTaxon {
                metrics: &miss,
                lost: Some(&b),
            },
        ]);
        assert_eq!((t.attribution.queries, t.attribution.missing), (2, 5));
        assert_eq!(t.attribution.chunks[&Stage::Fusion], 3);
        let s = t.attribution.shares.unwrap();
        // Query 1: fusion 3/4, gate 1/4; query 2: candidate recall 1. Mean over 2 queries.
        assert!((s[&Stage::Fusion] - 0.375).abs() < 1e-12);
        assert!((s[&Stage::Gate] - 0.125).abs() < 1e-12);
        assert!((s[&Stage::CandidateRecall] - 0.5).abs() < 1e-12);
        assert!((s.values().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(t.outcomes.counts[&Outcome::Success], 1);
        assert_eq!(t.outcomes.counts[&Outcome::RecallOnly], 2);
        let empty = taxonomy(std::iter::empty());
        assert_eq!(empty.attribution.shares, None);
        assert_eq!(empty.outcomes.shares[&Outcome::Success], 0.0);
    }
}
