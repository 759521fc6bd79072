//! Relaxation metrics (RQ2): how far results leave the *declared* scope, whether they say so,
//! and whether a query was widened when it did not need to be.
//!
//! The reference evaluator's leakage counts only results off the scope's subject or level; a
//! widened result from another chapter of the right book is not leakage there. Here:
//!
//! - **outside@K** = share of the returned results the declared scope (every field) does not
//!   admit (0 for an empty list);
//! - **widened** = the search ran a relaxation step (W1, W2 or W3);
//! - **labels correct** = of the results outside the declared scope, the share whose leakage
//!   label is the one [`crate::relax::classify`] gives against the declared scope (`fallback`,
//!   W3's label, is correct for any result outside it); pooled over the results of a set of
//!   queries;
//! - **needless widening** = widened although every relevant chunk lies inside the declared scope
//!   (the scope already held the answer: on `scoped_control`, every widening is needless).

use super::queries::EvalQuery;
use super::ChunkIndex;
use crate::format::ChunkRecord;
use crate::gate;
use crate::relax::{classify, Evidence};
use crate::search::{Leakage, Relaxation};
use serde::Serialize;

/// The relaxation metrics of one query under one system.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RelaxMetrics {
    /// Whether a relaxation step ran.
    pub widened: bool,
    /// The trigger's case (`null` without relaxation).
    pub case: Option<String>,
    /// Share of the results outside the declared scope.
    pub outside: f64,
    /// Results outside the declared scope.
    pub outside_n: usize,
    /// Of those, results at another level of the subject ([`Leakage::CrossLevel`] by
    /// [`classify`]): the rest are `cross_topic`, or off the subject or a locked field.
    pub cross_level_n: usize,
    /// Of those, correctly labelled.
    pub labelled_ok: usize,
    /// Widened although every relevant chunk lies inside the declared scope.
    pub needless: bool,
    /// The evidence the trigger compared (evidence trigger).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// Scores one result list: `results` and their `labels` in rank order (only the first `k`
/// count), `relax` the search's relaxation trace.
pub fn score(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    labels: &[Leakage],
    relax: Option<&Relaxation>,
    corpus: &ChunkIndex<'_>,
    k: usize,
) -> RelaxMetrics {
    let widened = relax.is_some_and(|r| r.widened);
    let mut outside_n = 0;
    let mut cross_level_n = 0;
    let mut labelled_ok = 0;
    for (c, l) in results.iter().zip(labels).take(k) {
        let truth = classify(&q.scope, c);
        if truth == Leakage::InScope {
            continue;
        }
        outside_n += 1;
        cross_level_n += usize::from(truth == Leakage::CrossLevel);
        if *l == truth || *l == Leakage::Fallback {
            labelled_ok += 1;
        }
    }
    let shown = results.len().min(k);
    let all_inside = q.grades.keys().all(|id| {
        corpus
            .get(id.as_str())
            .is_none_or(|c| gate::admits(&q.scope, c))
    });
    RelaxMetrics {
        widened,
        case: relax.map(|r| r.case.clone()),
        outside: if shown == 0 {
            0.0
        } else {
            outside_n as f64 / shown as f64
        },
        outside_n,
        cross_level_n,
        labelled_ok,
        needless: widened && all_inside,
        evidence: relax.and_then(|r| r.evidence.clone()),
    }
}

/// Relaxation metrics averaged over a set of queries.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RelaxAggregate {
    /// Share of queries widened.
    pub widened: f64,
    /// Mean outside@K.
    pub outside: f64,
    /// Share of the results outside the declared scope that are correctly labelled (`null`
    /// when no result is outside).
    pub labels_correct: Option<f64>,
    /// Share of queries widened needlessly (every relevant chunk in scope).
    pub needless: f64,
    /// Share of the results outside the declared scope that are at another level (`null` when
    /// no result is outside).
    pub cross_level: Option<f64>,
}

/// Aggregates per-query relaxation metrics.
pub fn aggregate<'a>(ms: impl IntoIterator<Item = &'a RelaxMetrics>) -> RelaxAggregate {
    let ms: Vec<&RelaxMetrics> = ms.into_iter().collect();
    if ms.is_empty() {
        return RelaxAggregate::default();
    }
    let n = ms.len() as f64;
    let share = |f: &dyn Fn(&RelaxMetrics) -> bool| ms.iter().filter(|m| f(m)).count() as f64 / n;
    let outside: usize = ms.iter().map(|m| m.outside_n).sum();
    let ok: usize = ms.iter().map(|m| m.labelled_ok).sum();
    let level: usize = ms.iter().map(|m| m.cross_level_n).sum();
    RelaxAggregate {
        widened: share(&|m| m.widened),
        outside: ms.iter().map(|m| m.outside).sum::<f64>() / n,
        labels_correct: (outside > 0).then(|| ok as f64 / outside as f64),
        needless: share(&|m| m.needless),
        cross_level: (outside > 0).then(|| level as f64 / outside as f64),
    }
}

/// The markdown table of the relaxation metrics per slice and variant ("Table 12").
pub fn markdown(r: &super::EvalReport) -> String {
    use std::fmt::Write;
    let f3 = |x: f64| format!("{x:.3}");
    let o3 = |x: Option<f64>| x.map_or_else(|| "–".to_string(), |v| format!("{v:.3}"));
    let k = r.k;
    let mut o = format!(
        "## Table 12. Relaxation per slice: R@{k} · nDCG@{k} · outside@{k} · widened (needless) · \
         labels correct\n\n\
         outside@{k} = share of results outside the declared scope (any field, not only subject \
         and level); widened = share of queries a relaxation step widened, needless = widened \
         although every relevant chunk lies in scope; labels correct = share of the results \
         outside the scope whose leakage label names what they violate.\n\n"
    );
    let mut head = "| slice | n |".to_string();
    let mut rule = "|---|---:|".to_string();
    for v in &r.variants {
        let _ = write!(head, " {} |", v.name);
        rule.push_str("---|");
    }
    let _ = writeln!(o, "{head}\n{rule}");
    let cell = |a: &super::Aggregate| {
        let x = &a.relaxation;
        format!(
            "{} · {} · {} · {} ({}) · {}",
            f3(a.recall),
            f3(a.ndcg),
            f3(x.outside),
            f3(x.widened),
            f3(x.needless),
            o3(x.labels_correct)
        )
    };
    for (s, n) in &r.queries.slices {
        let mut row = format!("| {s} | {n} |");
        for v in &r.variants {
            let _ = write!(row, " {} |", cell(&v.slices[s]));
        }
        let _ = writeln!(o, "{row}");
    }
    let mut row = format!("| **all** | {} |", r.queries.count);
    for v in &r.variants {
        let _ = write!(row, " {} |", cell(&v.overall));
    }
    let _ = writeln!(o, "{row}\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Field;
    use crate::scope::Scope;
    use std::collections::BTreeMap;

    fn chunk(id: &str, chapter: &str) -> ChunkRecord {
        crate::corpus::record_of(serde_json::json!({
            "id": id, "text": "t", "subject": "physics", "level": "college", "lang": "en",
            "doc_type": "exercise", "chapter": chapter,
        }))
    }

    fn query(relevant: &str) -> EvalQuery {
        EvalQuery {
            id: "q".into(),
            slice: "s".into(),
            lang: None,
            query: "q".into(),
            scope: Scope::new()
                .with(Field::Subject, "physics")
                .with(Field::Level, "college")
                .with(Field::Chapter, "2"),
            scope_fields: vec![],
            grades: BTreeMap::from([(relevant.to_string(), 1.0)]),
            relevant_sections: vec![],
            expected_fields: vec![],
            confusable: None,
            derived_from: None,
            notes: None,
            line: 1,
        }
    }

    #[test]
    fn outside_labels_and_needless_widening() {
        let (a, b) = (chunk("a", "2"), chunk("b", "3"));
        let corpus: ChunkIndex<'_> = [("a", &a), ("b", &b)].into_iter().collect();
        let widened = Relaxation {
            widened: true,
            ..Default::default()
        };
        // The answer is outside the scope: widening was needed; b's label is right.
        let m = score(
            &query("b"),
            &[&a, &b],
            &[Leakage::InScope, Leakage::CrossTopic],
            Some(&widened),
            &corpus,
            8,
        );
        assert_eq!((m.outside, m.outside_n, m.labelled_ok), (0.5, 1, 1));
        assert!(m.widened && !m.needless);
        // The answer is inside: the same widening is needless, and a wrong label is counted.
        let m = score(
            &query("a"),
            &[&b, &a],
            &[Leakage::CrossLevel, Leakage::InScope],
            Some(&widened),
            &corpus,
            8,
        );
        assert_eq!((m.outside_n, m.cross_level_n, m.labelled_ok), (1, 0, 0));
        assert!(m.needless);
        let agg = aggregate([&m]);
        assert_eq!(agg.labels_correct, Some(0.0));
        assert_eq!(agg.needless, 1.0);
        // Beyond k nothing counts.
        let m = score(
            &query("a"),
            &[&a, &b],
            &[Leakage::InScope, Leakage::CrossTopic],
            None,
            &corpus,
            1,
        );
        assert_eq!((m.outside, m.outside_n), (0.0, 0));
        assert!(!m.widened && !m.needless);
    }
}
