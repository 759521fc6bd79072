//! What section expansion adds to the context, and what it costs (`chsr eval --expand CHARS`).
//!
//! Section expansion ([`crate::expand`]) adds to each shown result the other chunks of its
//! section the scope admits, within a character budget per result; "copy as context"
//! ([`crate::search::Library::to_context`]) packages the shown results and those chunks. The
//! harness searches each query a second time, untimed, with `expand_chars` set (the ranked ids
//! must be the same as the timed search's) and measures, for the top K and their expansion:
//!
//! - **the topic sections** of a query: its `relevant_sections` plus the `section_key` of every
//!   relevant chunk; a query with none (an exam bank's correction, which has no section) is not
//!   eligible for the section measures. Their **section chunks**: every chunk of those sections
//!   the query's scope admits (expansion never adds anything else);
//! - **section R@K**, shown and with the context: the share of the section chunks among the top K
//!   results, and among the top K plus the chunks expansion adds (eligible queries);
//! - **label R@K**, shown and with the context: the share of the relevant chunks
//!   (`relevant_grades`) among the same two sets (every query with relevant chunks; the
//!   denominator is |relevant|, not min(|relevant|, K), as the context is not cut at K);
//! - **chunks added** and the share of them **on a topic section**;
//! - **tokens added**: the whitespace-separated words of `to_context` for the response with its
//!   expansion, minus the same without it (the `[DOCUMENT N]` header lines of the added chunks
//!   included; a word is about 1.3 tokens of a BPE tokenizer on English text), and the characters
//!   added likewise.

use super::metrics::{relevant_chunks, relevant_sections};
use super::queries::EvalQuery;
use super::ChunkIndex;
use crate::format::ChunkRecord;
use crate::gate;
use crate::search::{Library, SearchResponse};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// Section key → its chunks, over every loaded shard.
pub type SectionIndex<'a> = HashMap<&'a str, Vec<&'a ChunkRecord>>;

/// Builds the section index of a chunk index.
pub fn section_index<'a>(corpus: &ChunkIndex<'a>) -> SectionIndex<'a> {
    let mut out: SectionIndex<'a> = HashMap::new();
    for c in corpus.values() {
        if let Some(k) = c.section_key.as_deref() {
            out.entry(k).or_default().push(c);
        }
    }
    out
}

/// The expansion measures of one query under one system.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExpandMetrics {
    /// Section chunks in scope (`0`: not eligible for the section measures).
    pub section_chunks: usize,
    /// Section R@K of the top K (`null` when not eligible).
    pub section_recall_shown: Option<f64>,
    /// Section R@K of the top K plus the expansion.
    pub section_recall_context: Option<f64>,
    /// Relevant chunks among the top K / |relevant| (`null` without relevant chunks).
    pub label_recall_shown: Option<f64>,
    /// Relevant chunks among the top K plus the expansion / |relevant|.
    pub label_recall_context: Option<f64>,
    /// Chunks expansion added (distinct, not among the top K).
    pub added: usize,
    /// Of those, chunks of a topic section.
    pub added_on_topic: usize,
    /// Words `to_context` gains with the expansion.
    pub words_added: usize,
    /// Characters `to_context` gains with the expansion.
    pub chars_added: usize,
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Scores the expansion of one response (`resp`, searched with `expand_chars` set): only the
/// first `k` results and their expansions count.
pub fn score(
    lib: &Library,
    q: &EvalQuery,
    resp: &SearchResponse,
    corpus: &ChunkIndex<'_>,
    sections: &SectionIndex<'_>,
    k: usize,
) -> ExpandMetrics {
    let mut resp = resp.clone();
    resp.results.truncate(k);
    let shown: Vec<&str> = resp.results.iter().map(|h| h.id.as_str()).collect();
    let shown_set: BTreeSet<&str> = shown.iter().copied().collect();
    let mut context: BTreeSet<&str> = shown_set.clone();
    let mut added: Vec<&str> = Vec::new();
    for e in resp.results.iter().flat_map(|h| &h.expanded) {
        if context.insert(e.id.as_str()) {
            added.push(e.id.as_str());
        }
    }
    let relevant = relevant_chunks(q, corpus);
    let topic = relevant_sections(q, &relevant);
    let section_chunks: BTreeSet<&str> = topic
        .iter()
        .filter_map(|s| sections.get(s))
        .flatten()
        .filter(|c| gate::admits(&q.scope, c))
        .map(|c| c.id.as_str())
        .collect();
    let share = |set: &BTreeSet<&str>, of: &dyn Fn(&str) -> bool, n: usize| {
        (n > 0).then(|| set.iter().filter(|id| of(id)).count() as f64 / n as f64)
    };
    let in_sections = |id: &str| section_chunks.contains(id);
    let is_relevant = |id: &str| q.grades.contains_key(id);
    let added_on_topic = added
        .iter()
        .filter(|id| {
            corpus
                .get(**id)
                .and_then(|c| c.section_key.as_deref())
                .is_some_and(|s| topic.contains(s))
        })
        .count();
    let with = lib.to_context(&resp);
    let mut bare = resp.clone();
    for h in &mut bare.results {
        h.expanded.clear();
    }
    let without = lib.to_context(&bare);
    ExpandMetrics {
        section_chunks: section_chunks.len(),
        section_recall_shown: share(&shown_set, &in_sections, section_chunks.len()),
        section_recall_context: share(&context, &in_sections, section_chunks.len()),
        label_recall_shown: share(&shown_set, &is_relevant, q.grades.len()),
        label_recall_context: share(&context, &is_relevant, q.grades.len()),
        added: added.len(),
        added_on_topic,
        words_added: words(&with).saturating_sub(words(&without)),
        chars_added: with.chars().count().saturating_sub(without.chars().count()),
    }
}

/// Expansion measures averaged over a set of queries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExpandAggregate {
    /// Queries eligible for the section measures.
    pub section_n: usize,
    /// Mean section R@K of the top K (eligible queries).
    pub section_recall_shown: Option<f64>,
    /// Mean section R@K of the top K plus the expansion (eligible queries).
    pub section_recall_context: Option<f64>,
    /// Mean label R@K of the top K (queries with relevant chunks).
    pub label_recall_shown: Option<f64>,
    /// Mean label R@K of the top K plus the expansion.
    pub label_recall_context: Option<f64>,
    /// Mean chunks added per query.
    pub added: f64,
    /// Share of the added chunks (pooled) on a topic section (`null` when none was added).
    pub added_on_topic: Option<f64>,
    /// Mean words added to the context per query.
    pub words_added: f64,
    /// Mean characters added to the context per query.
    pub chars_added: f64,
}

/// Aggregates per-query expansion measures (`None` when the runs have none).
pub fn aggregate<'a>(
    ms: impl IntoIterator<Item = Option<&'a ExpandMetrics>>,
) -> Option<ExpandAggregate> {
    let ms: Vec<&ExpandMetrics> = ms.into_iter().collect::<Option<Vec<_>>>()?;
    if ms.is_empty() {
        return None;
    }
    let mean_opt = |g: &dyn Fn(&ExpandMetrics) -> Option<f64>| {
        let v: Vec<f64> = ms.iter().filter_map(|m| g(m)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    };
    let n = ms.len() as f64;
    let added: usize = ms.iter().map(|m| m.added).sum();
    let on: usize = ms.iter().map(|m| m.added_on_topic).sum();
    Some(ExpandAggregate {
        section_n: ms.iter().filter(|m| m.section_chunks > 0).count(),
        section_recall_shown: mean_opt(&|m| m.section_recall_shown),
        section_recall_context: mean_opt(&|m| m.section_recall_context),
        label_recall_shown: mean_opt(&|m| m.label_recall_shown),
        label_recall_context: mean_opt(&|m| m.label_recall_context),
        added: added as f64 / n,
        added_on_topic: (added > 0).then(|| on as f64 / added as f64),
        words_added: ms.iter().map(|m| m.words_added as f64).sum::<f64>() / n,
        chars_added: ms.iter().map(|m| m.chars_added as f64).sum::<f64>() / n,
    })
}

/// The markdown tables of the expansion measures ("Table 13"): per variant over every query, then
/// per slice and variant; empty when the run did not measure expansion.
pub fn markdown(r: &super::EvalReport) -> String {
    use std::fmt::Write;
    let Some(chars) = r.expand_chars else {
        return String::new();
    };
    let k = r.k;
    let o3 = |x: Option<f64>| x.map_or_else(|| "–".to_string(), |v| format!("{v:.3}"));
    let mut o = format!(
        "## Table 13. Section expansion ({chars} characters per result): what it adds, what it costs\n\n\
         Section R@{k}: the share of the chunks of the query's topic sections (its \
         `relevant_sections` and the sections of its relevant chunks) that the scope admits, among \
         the top {k} (shown), then among the top {k} and the chunks section expansion adds \
         (context); queries with a topic section only (n). Label R@{k}: the same for the relevant \
         chunks (denominator |relevant|, every query). Chunks added per query, and the share of \
         them on a topic section; words and characters `to_context` gains with the expansion \
         (whitespace words, headers included; a word is about 1.3 BPE tokens).\n\n\
         | variant | n | section R@{k} shown | context | label R@{k} shown | context | chunks added | on topic | words added | chars added |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let cells = |a: &super::Aggregate| match &a.expansion {
        None => " – | – | – | – | – | – | – | – | – |".to_string(),
        Some(x) => format!(
            " {} | {} | {} | {} | {} | {:.1} | {} | {:.0} | {:.0} |",
            x.section_n,
            o3(x.section_recall_shown),
            o3(x.section_recall_context),
            o3(x.label_recall_shown),
            o3(x.label_recall_context),
            x.added,
            o3(x.added_on_topic),
            x.words_added,
            x.chars_added
        ),
    };
    for v in &r.variants {
        let _ = writeln!(o, "| {} |{}", v.name, cells(&v.overall));
    }
    let _ = writeln!(
        o,
        "\n<details><summary>Per slice</summary>\n\n\
         | slice | variant | n | section R@{k} shown | context | label R@{k} shown | context | chunks added | on topic | words added | chars added |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for s in r.queries.slices.keys() {
        for v in &r.variants {
            let _ = writeln!(o, "| {s} | {} |{}", v.name, cells(&v.slices[s]));
        }
    }
    let _ = writeln!(o, "\n</details>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregates_pool_added_chunks_and_skip_ineligible_queries() {
        let a = ExpandMetrics {
            section_chunks: 4,
            section_recall_shown: Some(0.25),
            section_recall_context: Some(1.0),
            label_recall_shown: Some(0.5),
            label_recall_context: Some(1.0),
            added: 3,
            added_on_topic: 3,
            words_added: 300,
            chars_added: 1800,
        };
        let b = ExpandMetrics {
            label_recall_shown: Some(0.0),
            label_recall_context: Some(0.0),
            added: 1,
            words_added: 100,
            chars_added: 600,
            ..Default::default()
        };
        let g = aggregate([Some(&a), Some(&b)]).unwrap();
        assert_eq!(g.section_n, 1);
        assert_eq!(
            (g.section_recall_shown, g.section_recall_context),
            (Some(0.25), Some(1.0))
        );
        assert_eq!(g.label_recall_context, Some(0.5));
        assert_eq!(g.added_on_topic, Some(0.75));
        assert_eq!((g.added, g.words_added), (2.0, 200.0));
        assert_eq!(aggregate([Some(&a), None]), None);
        assert_eq!(aggregate(std::iter::empty()), None);
    }
}
