//! The deterministic reranker: metadata-aware boosts and near-duplicate removal. No model call.
//!
//! Fused scores (RRF) live on a scale of about `1/61 ≈ 0.016` per list at rank 1, and the gap
//! between rank 1 and rank 10 of one list is about `0.002`. Boosts are expressed on that scale
//! ([`RerankConfig`]) and every boost applied to a result is recorded as an [`Adjustment`] so the
//! page can say why a result moved.
//!
//! Boosts (each at most once per result):
//! * **doc type wanted** by the query ("mark scheme", "answer", "corrigé" → solutions; a
//!   definition request → glossary entries);
//! * **label named** in the query ("Table 4.1" → the chunk labelled Table 4.1);
//! * **hinted fields** (question number, paper, year, chapter read from the text but not in the
//!   hard scope) that the chunk matches;
//! * **same section as the top hit**: curriculum answers come in sections; the section of the
//!   best result is the most likely home of the rest.
//!
//! Two penalties: an **exercise statement** yields (`exercise`, large enough to move it below every
//! other candidate of the window) when the query asks for no document type. A question, typed
//! or pasted, is best answered by explanation, worked examples, tables and solutions; other
//! questions match its wording best and answer nothing. (Exercises still count as evidence for
//! their section before the rerank: see `bm25::section_blend`.) A query that asks for exercises
//! ("exercises on momentum", "QCM") or a scope that admits only exercises is unaffected. And the
//! **correction of another exercise** yields likewise (`other_answer`): a chunk that `answers` an
//! exercise other than the best-matching exercise among the candidates (the pasted question's
//! own correction stays; OpenCERB dev, lexical shards: E nDCG@8 0.670 → 0.680, no slice lower).
//!
//! Near-duplicates: word-set Jaccard similarity ≥ `dedup_threshold` (0.75) with a better-ranked
//! kept result removes the lower one. The pairs are found once at build time ([`dedup`]) and
//! stored with the shards, so ranking reads no display text.
//!
//! **Section coverage** (`coverage_*`): the boosts above commit the first screen to one section,
//! which is right when the evidence singles that section out. When it does not, the last
//! `coverage_slots` of the `keep` results go to the best chunks of the runner-up sections, one
//! each, in score order, so that a student sees the plausible sections rather than an eighth
//! chunk of the first. The evidence is *decisive* (nothing changes) when any of these holds:
//! * fewer than two sections among the candidates, or the top section's best score is not
//!   positive;
//! * the runner-up section's best chunk scores below `coverage_margin` × the top section's best
//!   (scores after the boosts and penalties, before the same-section boost);
//! * the dense list, the second and independent opinion, backs the top section: one of its
//!   chunks ranks within the first `coverage_dense` of that list;
//! * there is no dense list (a lexical-only search has no second opinion and keeps its ranking),
//!   unless the runner-up's best reaches `coverage_lexical_margin` × the top section's (off by
//!   default: on OpenCERB dev it traded nDCG@8 for little exact-scope success, docs/benchmark.md).
//!
//! A chunk without a section key is a section of its own. Moved chunks keep their score and
//! carry an [`Adjustment`] of 0 saying why they are on the first screen.

use crate::format::{ChunkRecord, Field, NearDuplicate};
use crate::understand::Understanding;
use serde::Serialize;

/// Weights of the reranker.
#[derive(Clone, Debug, PartialEq)]
pub struct RerankConfig {
    /// Boost when the chunk's doc type is the one the query asks for.
    pub doc_type: f64,
    /// Boost for a glossary entry when the query asks for a definition.
    pub definition: f64,
    /// Boost when the chunk's label is the one the query names.
    pub label: f64,
    /// Boost per hinted field the chunk matches.
    pub field: f64,
    /// Boost for sharing the top hit's section.
    pub same_section: f64,
    /// Penalty for an exercise statement when the query asks for no document type: a typed or
    /// pasted question wants explanation, worked examples or answers, not other questions.
    pub exercise: f64,
    /// Penalty for the correction of *another* exercise when the query asks for no document
    /// type: a chunk that `answers` an exercise other than the best-matching exercise among the
    /// candidates (a pasted question wants its own correction and the course, not the answers
    /// to its neighbours). Without an exercise among the candidates nothing is known, and
    /// nothing changes.
    pub other_answer: f64,
    /// Jaccard similarity at or above which a lower-ranked result is a near-duplicate; at least
    /// [`DEDUP_THRESHOLD`], down to which the build stores pairs (lower values act as it).
    pub dedup_threshold: f64,
    /// Section coverage: how many of the last of the `keep` results go to the best chunks of
    /// runner-up sections when the section evidence is not decisive (0 = off). The defaults (2
    /// places, margin 0.95, dense 4) were chosen by two-fold cross-validation on OpenCERB dev
    /// (docs/benchmark.md, *Section coverage*).
    pub coverage_slots: usize,
    /// Section coverage: the evidence is decisive when the runner-up section's best score is
    /// below this share of the top section's.
    pub coverage_margin: f64,
    /// Section coverage: the evidence is decisive when a chunk of the top section ranks within
    /// the first `coverage_dense` of the dense list (0: the dense list never backs it).
    pub coverage_dense: usize,
    /// Section coverage without a dense list (a lexical-only search): the evidence is decisive
    /// when the runner-up section's best score is below this share of the top section's (above
    /// 1: a lexical-only search never moves a result).
    pub coverage_lexical_margin: f64,
}

impl RerankConfig {
    /// The paper's metadata-aware rerank: the query's doc type, definition and metadata cues,
    /// the top result's section, and near-duplicate removal — without chsr's additions (the
    /// exercise and other-answer priors, label boosts, section coverage).
    pub fn paper() -> RerankConfig {
        RerankConfig {
            label: 0.0,
            exercise: 0.0,
            other_answer: 0.0,
            coverage_slots: 0,
            ..RerankConfig::default()
        }
    }
}

impl Default for RerankConfig {
    fn default() -> Self {
        RerankConfig {
            doc_type: 0.006,
            definition: 0.012,
            label: 0.02,
            field: 0.004,
            same_section: 0.002,
            exercise: 0.01,
            other_answer: 0.01,
            dedup_threshold: DEDUP_THRESHOLD,
            coverage_slots: 2,
            coverage_margin: 0.95,
            coverage_dense: 4,
            coverage_lexical_margin: 2.0,
        }
    }
}

/// One boost applied to a result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adjustment {
    /// Why.
    pub reason: String,
    /// Score added.
    pub delta: f64,
}

/// A candidate going through the reranker.
#[derive(Clone, Debug)]
pub struct Candidate<'a, K> {
    /// Caller's key.
    pub key: K,
    /// The chunk.
    pub chunk: &'a ChunkRecord,
    /// Score before reranking.
    pub score: f64,
    /// 1-based rank in the dense list, when the candidate came from it (section coverage reads
    /// it as a second opinion on the top section).
    pub dense_rank: Option<usize>,
    /// Boosts applied.
    pub adjustments: Vec<Adjustment>,
    /// The chunk's near-duplicates, found at build time ([`dedup`]): the other chunks whose word
    /// sets are at least [`DEDUP_THRESHOLD`] similar, by id.
    pub near: &'a [NearDuplicate],
}

impl<'a, K> Candidate<'a, K> {
    /// A candidate with a score, no dense rank and no adjustment.
    pub fn new(key: K, chunk: &'a ChunkRecord, score: f64) -> Candidate<'a, K> {
        Candidate {
            key,
            chunk,
            score,
            dense_rank: None,
            adjustments: Vec::new(),
            near: &[],
        }
    }
}

/// The section a candidate stands for: its section key, or the chunk itself when it has none.
fn section_of<'a>(c: &Candidate<'a, impl Sized>) -> (bool, &'a str) {
    match c.chunk.section_key.as_deref() {
        Some(s) => (true, s),
        None => (false, c.chunk.id.as_str()),
    }
}

/// Whether the section evidence leaves the choice open (module docs, *Section coverage*):
/// `cands` sorted best first, scores after the boosts and penalties.
fn undecided<K>(cands: &[Candidate<'_, K>], cfg: &RerankConfig) -> bool {
    let Some(first) = cands.first() else {
        return false;
    };
    let top = section_of(first);
    if first.score <= 0.0 {
        return false;
    }
    let Some(runner_up) = cands.iter().find(|c| section_of(c) != top) else {
        return false;
    };
    if runner_up.score < cfg.coverage_margin * first.score {
        return false;
    }
    if cands.iter().all(|c| c.dense_rank.is_none()) {
        return runner_up.score >= cfg.coverage_lexical_margin * first.score;
    }
    !cands
        .iter()
        .any(|c| c.dense_rank.is_some_and(|r| r <= cfg.coverage_dense) && section_of(c) == top)
}

/// A result removed as a near-duplicate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Duplicate {
    /// The removed chunk.
    pub id: String,
    /// The kept chunk it duplicates.
    pub of: String,
    /// Their similarity.
    pub similarity: f64,
}

fn label_key(label: &str) -> String {
    label
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a label named in a query designates: a chunk's own label (`table 4.1` names "Table 4.1"
/// and its parts, "Table 4.1 (part 2/3)"), or, for `appendix X`, a chunk of the lettered chapter
/// X (appendices are chapters named by a letter). Built once per query, then tested per chunk.
#[derive(Clone, Debug)]
pub struct LabelMatcher {
    key: String,
    prefix: String,
    appendix: Option<String>,
}

impl LabelMatcher {
    /// A matcher for `label`, normalised like [`crate::understand::Understanding::label`].
    pub fn new(label: &str) -> LabelMatcher {
        let key = label_key(label);
        let appendix = key
            .strip_prefix("appendix ")
            .filter(|x| x.chars().all(char::is_alphabetic))
            .map(str::to_string);
        LabelMatcher {
            prefix: format!("{key} "),
            key,
            appendix,
        }
    }

    /// Whether `chunk` is what the label designates.
    pub fn matches(&self, chunk: &ChunkRecord) -> bool {
        if let Some(cl) = &chunk.label {
            if self.names(cl) {
                return true;
            }
        }
        match (&self.appendix, &chunk.chapter) {
            (Some(x), Some(ch)) => ch.chars().flat_map(char::to_lowercase).eq(x.chars()),
            _ => false,
        }
    }
}

impl LabelMatcher {
    /// Whether a chunk's own label `cl` is the label or one of its parts: its [`label_key`]
    /// equals the key or starts with the key and a space. A query naming a label tests every
    /// admissible chunk, so an ASCII label (all of them in practice) is compared as it is read,
    /// lower-cased and with its blanks collapsed on the fly, without building its key.
    fn names(&self, cl: &str) -> bool {
        if !cl.is_ascii() {
            let cl = label_key(cl);
            return cl == self.key || cl.starts_with(&self.prefix);
        }
        let mut norm = cl
            .split(char::is_whitespace)
            .filter(|w| !w.is_empty())
            .enumerate()
            .flat_map(|(i, w)| {
                (i > 0)
                    .then_some(b' ')
                    .into_iter()
                    .chain(w.bytes().map(|b| b.to_ascii_lowercase()))
            });
        self.key.bytes().all(|k| norm.next() == Some(k)) && matches!(norm.next(), None | Some(b' '))
    }
}

/// Whether a chunk is what a label named in a query designates ([`LabelMatcher`]).
pub fn label_matches(label: &str, chunk: &ChunkRecord) -> bool {
    LabelMatcher::new(label).matches(chunk)
}

/// Applies boosts, re-sorts (score descending, then id ascending), then removes near-duplicates
/// until `keep` results are kept (candidates after that are returned unchecked, in order).
/// `hints` are the understood field values that were *not* applied as hard constraints.
pub fn rerank<'a, K: Clone>(
    mut cands: Vec<Candidate<'a, K>>,
    u: &Understanding,
    hints: &[(Field, String)],
    cfg: &RerankConfig,
    keep: usize,
) -> (Vec<Candidate<'a, K>>, Vec<Duplicate>) {
    let label = u.label.as_deref().map(|l| (l, LabelMatcher::new(l)));
    let first_glossary = cands.iter().position(|c| c.chunk.doc_type == "glossary");
    // The exercise the query matches best (candidates arrive in fused order).
    let top_exercise: Option<String> = cands
        .iter()
        .find(|c| {
            matches!(
                c.chunk.doc_type.as_str(),
                "exercise" | "past_paper_question"
            )
        })
        .map(|c| c.chunk.id.clone());
    for (i, c) in cands.iter_mut().enumerate() {
        let mut add = |reason: String, delta: f64| {
            c.score += delta;
            c.adjustments.push(Adjustment { reason, delta });
        };
        if u.definition && Some(i) == first_glossary {
            // The best-ranked glossary entry is the definition asked for; other glossary entries
            // that merely mention the term are not lifted.
            add(
                "best glossary entry for a definition request".into(),
                cfg.definition,
            );
        } else if let Some(d) = &u.wants_doc_type {
            if &c.chunk.doc_type == d {
                add(
                    format!("document type {d} asked for by the query"),
                    cfg.doc_type,
                );
            }
        }
        if let Some((l, matcher)) = &label {
            if matcher.matches(c.chunk) {
                add(
                    format!(
                        "{} named in the query",
                        c.chunk
                            .label
                            .as_deref()
                            .map(|x| format!("label {x}"))
                            .unwrap_or_else(|| l.to_string())
                    ),
                    cfg.label,
                );
            }
        }
        if cfg.exercise != 0.0 && u.wants_doc_type.is_none() && c.chunk.doc_type == "exercise" {
            add(
                "exercise statement, and the query asks for no exercise".into(),
                -cfg.exercise,
            );
        }
        if let (Some(top), Some(a)) = (&top_exercise, &c.chunk.answers) {
            if cfg.other_answer != 0.0 && u.wants_doc_type.is_none() && a != top {
                add(
                    "correction of another exercise than the one the query matches".into(),
                    -cfg.other_answer,
                );
            }
        }
        for (f, v) in hints {
            if c.chunk.get(*f) == Some(v.as_str()) {
                add(format!("{f} {v} named in the query"), cfg.field);
            }
        }
    }
    let order = |a: &Candidate<'a, K>, b: &Candidate<'a, K>| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.chunk.id.cmp(&b.chunk.id))
    };
    cands.sort_by(order);
    let reserve = if cfg.coverage_slots > 0 && undecided(&cands, cfg) {
        cfg.coverage_slots.min(keep.saturating_sub(1))
    } else {
        0
    };
    // Section coherence, relative to the top result after the boosts above.
    let top_section = cands.first().and_then(|c| c.chunk.section_key.clone());
    for c in cands.iter_mut() {
        if let (Some(top), Some(s)) = (&top_section, &c.chunk.section_key) {
            if top == s {
                c.score += cfg.same_section;
                c.adjustments.push(Adjustment {
                    reason: "same section as the top result".into(),
                    delta: cfg.same_section,
                });
            }
        }
    }
    cands.sort_by(order);
    // Near-duplicate removal against better-ranked kept results.
    let mut kept: Vec<Candidate<'a, K>> = Vec::with_capacity(keep.min(cands.len()));
    let mut dups = Vec::new();
    let mut rest = cands.into_iter();
    for c in rest.by_ref() {
        match duplicate_of(&c, &kept, cfg.dedup_threshold) {
            Some((of, similarity)) => dups.push(Duplicate {
                id: c.chunk.id.clone(),
                of,
                similarity,
            }),
            None => kept.push(c),
        }
        if kept.len() >= keep {
            break;
        }
    }
    let mut tail: Vec<Candidate<'a, K>> = rest.collect();
    if reserve > 0 && kept.len() > keep - reserve {
        // Section coverage: the last `reserve` places go to the best chunks of sections the
        // first `keep - reserve` results do not show, one each, in rank order.
        let head = keep - reserve;
        let mut pool = kept.split_off(head);
        pool.append(&mut tail);
        let mut shown: Vec<(bool, &str)> = kept.iter().map(section_of).collect();
        let mut placed = 0;
        for mut c in pool {
            let section = section_of(&c);
            if placed < reserve
                && !shown.contains(&section)
                && duplicate_of(&c, &kept, cfg.dedup_threshold).is_none()
            {
                shown.push(section);
                let what = match section {
                    (true, key) => format!("best chunk of section {key}"),
                    (false, _) => "a chunk with no section".to_string(),
                };
                c.adjustments.push(Adjustment {
                    reason: format!(
                        "{what}, on the first page: the evidence does not single out one \
                         section"
                    ),
                    delta: 0.0,
                });
                kept.push(c);
                placed += 1;
                continue;
            }
            tail.push(c);
        }
    }
    kept.extend(tail);
    (kept, dups)
}

/// The first kept result (id and similarity) that `c` nearly duplicates at `threshold`, if any
/// (the pairs the build found, [`Candidate::near`]), by the pair on either side: a page knows
/// the pairs of the chunks whose text it has loaded ([`crate::format::pairs`]), which may be
/// the kept result's and not yet `c`'s.
fn duplicate_of<K>(
    c: &Candidate<'_, K>,
    kept: &[Candidate<'_, K>],
    threshold: f64,
) -> Option<(String, f64)> {
    kept.iter().find_map(|k| {
        let side = |a: &Candidate<'_, K>, b: &Candidate<'_, K>| {
            a.near
                .iter()
                .find(|n| n.similarity >= threshold && n.of == b.chunk.id)
                .map(|n| n.similarity)
        };
        side(c, k)
            .or_else(|| side(k, c))
            .map(|s| (k.chunk.id.clone(), s))
    })
}

pub mod dedup;
#[cfg(test)]
mod tests;

pub use dedup::{similarity, DEDUP_THRESHOLD};
