//! Per-query metrics at a cut-off K.
//!
//! The definitions of R@K, graded nDCG@K, leakage and exact-scope success follow the reference
//! evaluator shipped with OpenCERB (`eval_bm25.py`) exactly:
//!
//! - **hits** = returned ids (first K) that are keys of `relevant_grades`, whatever the grade;
//! - **P@K** = hits / K (a short list is not rewarded);
//! - **R@K** = hits / min(|relevant|, K) (0 when nothing is relevant);
//! - **nDCG@K** = DCG / IDCG with linear gains: DCG = Σ_r grade(id_r) / log2(r + 2) over the
//!   returned ranks r = 0, 1, …; IDCG the same over the K largest grades; 0 when IDCG is 0;
//! - **leakage** = share of the returned results whose subject or level differs from the scope's
//!   (0 for an empty list); **any-leak** = at least one such result;
//! - **exact-scope success** = at least one returned result whose every `expected_fields` value
//!   equals the chunk's field, both rendered as Python's `str()` renders them (an integer field
//!   stored as `"4"` matches `4`; a missing field is `None`). An empty `expected_fields` is met by
//!   any non-empty list, as `all([])` is true in Python.
//!
//! **Contamination** (not in the reference evaluator) counts results that pass the subject and
//! level test but come from another section or question than the relevant material. The rule:
//!
//! 1. *Section rule* — applies when the scope or `expected_fields` names `chapter`, `section` or
//!    `section_key` and the relevant material has section keys (the query's `relevant_sections`
//!    plus the `section_key` of every relevant chunk). A result violates it when its `section_key`
//!    is not among them (a result without a section key violates it too).
//! 2. *Question rule* — applies when the scope or `expected_fields` names `question_number` and at
//!    least one relevant chunk has a question number. The identity of a question is
//!    (source, chapter, year, paper, question_number). A result violates it when it has a question
//!    number and its identity differs from every relevant chunk's.
//!
//! A query is *eligible* when at least one rule applies; its contamination is the share of its
//! returned results that are not relevant, have the scope's subject and level, and violate an
//! applicable rule (0 for an empty list). Ineligible queries have no contamination value and are
//! left out of the mean.

use super::queries::EvalQuery;
use crate::format::ChunkRecord;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// Chunk id → record, for the fields of relevant chunks that were not returned.
pub type ChunkIndex<'a> = HashMap<&'a str, &'a ChunkRecord>;

/// The metrics of one query under one system.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct QueryMetrics {
    /// Precision@K.
    pub precision: f64,
    /// Recall@K.
    pub recall: f64,
    /// Graded nDCG@K.
    pub ndcg: f64,
    /// Share of results outside the scope's subject or level.
    pub leakage: f64,
    /// Whether any result is outside the scope's subject or level.
    pub any_leak: bool,
    /// Share of results from another section/question (eligible queries only).
    pub contamination: Option<f64>,
    /// Exact-scope success.
    pub exact: bool,
    /// Number of results returned (≤ K).
    pub returned: usize,
}

/// Number of returned ids that are relevant (ids beyond `k` are ignored).
pub fn hits(ids: &[&str], grades: &std::collections::BTreeMap<String, f64>, k: usize) -> usize {
    let set: BTreeSet<&str> = ids.iter().take(k).copied().collect();
    set.iter().filter(|id| grades.contains_key(**id)).count()
}

/// Precision@K = hits / K.
pub fn precision_at(
    ids: &[&str],
    grades: &std::collections::BTreeMap<String, f64>,
    k: usize,
) -> f64 {
    if k == 0 {
        return 0.0;
    }
    hits(ids, grades, k) as f64 / k as f64
}

/// Recall@K = hits / min(|relevant|, K); 0 when nothing is relevant.
pub fn recall_at(ids: &[&str], grades: &std::collections::BTreeMap<String, f64>, k: usize) -> f64 {
    let denom = grades.len().min(k);
    if denom == 0 {
        return 0.0;
    }
    hits(ids, grades, k) as f64 / denom as f64
}

/// Graded nDCG@K with linear gains (the reference evaluator's definition).
pub fn ndcg_at(ids: &[&str], grades: &std::collections::BTreeMap<String, f64>, k: usize) -> f64 {
    let mut ideal: Vec<f64> = grades.values().copied().collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(r, g)| g / (r as f64 + 2.0).log2())
        .sum();
    if idcg == 0.0 {
        return 0.0;
    }
    // A fold from +0.0, not `sum()`, which starts from -0.0: an empty list scores 0, not -0.
    let dcg: f64 = ids
        .iter()
        .take(k)
        .enumerate()
        .map(|(r, id)| grades.get(*id).copied().unwrap_or(0.0) / (r as f64 + 2.0).log2())
        .fold(0.0, |a, x| a + x);
    dcg / idcg
}

/// Whether a chunk lies outside the scope's subject or level (fields the scope leaves open
/// cannot leak).
pub fn leaks(q: &EvalQuery, c: &ChunkRecord) -> bool {
    use crate::format::Field;
    q.scope.get(Field::Subject).is_some_and(|s| s != c.subject)
        || q.scope.get(Field::Level).is_some_and(|l| l != c.level)
}

/// Share of results outside the scope's subject or level; 0 for an empty list.
pub fn leakage(q: &EvalQuery, results: &[&ChunkRecord]) -> f64 {
    if results.is_empty() {
        return 0.0;
    }
    results.iter().filter(|c| leaks(q, c)).count() as f64 / results.len() as f64
}

/// The value of any corpus field of a record by its JSONL name.
pub fn record_field<'a>(c: &'a ChunkRecord, name: &str) -> Option<&'a str> {
    Some(match name {
        "id" => &c.id,
        "text" => &c.text,
        "subject" => &c.subject,
        "level" => &c.level,
        "lang" => &c.lang,
        "doc_type" => &c.doc_type,
        "source" => c.source.as_deref()?,
        "chapter" => c.chapter.as_deref()?,
        "chapter_title" => c.chapter_title.as_deref()?,
        "section" => c.section.as_deref()?,
        "section_title" => c.section_title.as_deref()?,
        "subsection" => c.subsection.as_deref()?,
        "section_key" => c.section_key.as_deref()?,
        "topic" => c.topic.as_deref()?,
        "year" => c.year.as_deref()?,
        "exam" => c.exam.as_deref()?,
        "paper" => c.paper.as_deref()?,
        "question_number" => c.question_number.as_deref()?,
        "exercise_group" => c.exercise_group.as_deref()?,
        "exercise_number" => c.exercise_number.as_deref()?,
        "session" => c.session.as_deref()?,
        "centre" => c.centre.as_deref()?,
        "label" => c.label.as_deref()?,
        "answers" => c.answers.as_deref()?,
        "path" => c.path.as_deref()?,
        _ => return None,
    })
}

/// Whether a chunk carries every expected field value (Python `str()` comparison; a missing
/// field reads as `None`).
pub fn matches_expected(c: &ChunkRecord, expected: &[(String, String)]) -> bool {
    expected
        .iter()
        .all(|(f, v)| record_field(c, f).unwrap_or("None") == v)
}

/// Exact-scope success: some result carries every expected field value.
pub fn exact_scope(results: &[&ChunkRecord], expected: &[(String, String)]) -> bool {
    results.iter().any(|c| matches_expected(c, expected))
}

fn question_identity(c: &ChunkRecord) -> Option<String> {
    let qn = c.question_number.as_deref()?;
    let part = |x: &Option<String>| x.as_deref().unwrap_or("").to_string();
    Some(format!(
        "{}|{}|{}|{}|{qn}",
        part(&c.source),
        part(&c.chapter),
        part(&c.year),
        part(&c.paper)
    ))
}

/// Contamination of one result list (see the module docs for the rule); `None` for an
/// ineligible query.
pub fn contamination(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    corpus: &ChunkIndex<'_>,
) -> Option<f64> {
    let relevant: Vec<&ChunkRecord> = q
        .grades
        .keys()
        .filter_map(|id| corpus.get(id.as_str()).copied())
        .collect();
    let section_rule = ["chapter", "section", "section_key"]
        .iter()
        .any(|f| q.names(f));
    let sections: BTreeSet<&str> = q
        .relevant_sections
        .iter()
        .map(String::as_str)
        .chain(relevant.iter().filter_map(|c| c.section_key.as_deref()))
        .collect();
    let section_rule = section_rule && !sections.is_empty();
    let questions: BTreeSet<String> = relevant
        .iter()
        .filter_map(|c| question_identity(c))
        .collect();
    let question_rule = q.names("question_number") && !questions.is_empty();
    if !section_rule && !question_rule {
        return None;
    }
    if results.is_empty() {
        return Some(0.0);
    }
    let bad = results
        .iter()
        .filter(|c| !q.grades.contains_key(&c.id) && !leaks(q, c))
        .filter(|c| {
            (section_rule
                && !c
                    .section_key
                    .as_deref()
                    .is_some_and(|k| sections.contains(k)))
                || (question_rule
                    && question_identity(c).is_some_and(|id| !questions.contains(&id)))
        })
        .count();
    Some(bad as f64 / results.len() as f64)
}

/// Every metric of one query. `results` are the returned chunks in rank order (only the first
/// `k` count).
pub fn score(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    corpus: &ChunkIndex<'_>,
    k: usize,
) -> QueryMetrics {
    let results = &results[..results.len().min(k)];
    let ids: Vec<&str> = results.iter().map(|c| c.id.as_str()).collect();
    QueryMetrics {
        precision: precision_at(&ids, &q.grades, k),
        recall: recall_at(&ids, &q.grades, k),
        ndcg: ndcg_at(&ids, &q.grades, k),
        leakage: leakage(q, results),
        any_leak: results.iter().any(|c| leaks(q, c)),
        contamination: contamination(q, results, corpus),
        exact: exact_scope(results, &q.expected_fields),
        returned: results.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::queries::parse_query_line;
    use std::collections::BTreeMap;

    fn grades(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn chunk(id: &str, subject: &str, level: &str, section_key: Option<&str>) -> ChunkRecord {
        ChunkRecord {
            id: id.into(),
            subject: subject.into(),
            level: level.into(),
            lang: "en".into(),
            doc_type: "textbook_section".into(),
            section_key: section_key.map(Into::into),
            ..Default::default()
        }
    }

    fn query(json: &str) -> EvalQuery {
        parse_query_line("t.jsonl", 1, json).unwrap().unwrap()
    }

    const EPS: f64 = 1e-12;

    #[test]
    fn precision_and_recall_by_hand() {
        let g = grades(&[("a", 1.0), ("b", 1.0), ("c", 2.0)]);
        let ids = ["x", "a", "y", "c"];
        // 2 hits of 3 relevant; K = 8.
        assert!((precision_at(&ids, &g, 8) - 2.0 / 8.0).abs() < EPS);
        assert!((recall_at(&ids, &g, 8) - 2.0 / 3.0).abs() < EPS);
        // K = 2 cuts the list to [x, a]: 1 hit / min(3, 2).
        assert!((recall_at(&ids, &g, 2) - 0.5).abs() < EPS);
        assert_eq!(recall_at(&ids, &BTreeMap::new(), 8), 0.0);
    }

    #[test]
    fn recall_denominator_is_k_when_more_are_relevant() {
        // 20 relevant chunks, K = 8: 4 hits give 4 / 8, not 4 / 20.
        let g: BTreeMap<String, f64> = (0..20).map(|i| (format!("r{i}"), 1.0)).collect();
        let ids = ["r0", "r5", "n1", "r7", "n2", "r19", "n3", "n4"];
        assert!((recall_at(&ids, &g, 8) - 0.5).abs() < EPS);
        let all: Vec<String> = (0..8).map(|i| format!("r{i}")).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        assert!((recall_at(&all, &g, 8) - 1.0).abs() < EPS);
    }

    #[test]
    fn graded_ndcg_by_hand() {
        // Grades: t = 2, s1 = s2 = 1. Ideal [2, 1, 1]: 2/log2(2) + 1/log2(3) + 1/log2(4)
        //   = 2 + 0.6309297535714575 + 0.5 = 3.1309297535714575.
        // Returned [s1, x, t]: 1/log2(2) + 0 + 2/log2(4) = 1 + 1 = 2.
        let g = grades(&[("t", 2.0), ("s1", 1.0), ("s2", 1.0)]);
        let v = ndcg_at(&["s1", "x", "t"], &g, 8);
        assert!((v - 2.0 / 3.130_929_753_571_457_5).abs() < 1e-12, "{v}");
        assert!((ndcg_at(&["t", "s1", "s2"], &g, 8) - 1.0).abs() < EPS);
        assert_eq!(ndcg_at(&["x"], &g, 8), 0.0);
        // An empty list scores +0 (reports print "0.000", not "-0.000").
        assert!(ndcg_at(&[], &g, 8).is_sign_positive());
        // IDCG only counts the K best grades: K = 1, ideal [2]; returned [s1] → 1 / 2.
        assert!((ndcg_at(&["s1"], &g, 1) - 0.5).abs() < EPS);
        assert_eq!(ndcg_at(&["s1"], &grades(&[("s1", 0.0)]), 8), 0.0);
    }

    #[test]
    fn leakage_counts_subject_or_level_mismatches() {
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics","level":"college"},"relevant_ids":["a"]}"#,
        );
        let a = chunk("a", "physics", "college", None);
        let b = chunk("b", "physics", "high_school", None);
        let c = chunk("c", "chemistry", "college", None);
        let d = chunk("d", "chemistry", "high_school", None);
        assert!((leakage(&q, &[&a, &b, &c, &d]) - 0.75).abs() < EPS);
        assert_eq!(leakage(&q, &[&a]), 0.0);
        assert_eq!(leakage(&q, &[]), 0.0);
        let m = score(&q, &[&b, &a], &ChunkIndex::new(), 8);
        assert!(m.any_leak && (m.leakage - 0.5).abs() < EPS && m.returned == 2);
    }

    #[test]
    fn exact_scope_compares_like_python_str() {
        // The query gives chapter as an integer, the corpus stored it as text "4": they match.
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics"},"relevant_ids":["a"],"expected_fields":{"subject":"physics","chapter":4,"question_number":"09.1"}}"#,
        );
        let mut c = chunk("a", "physics", "college", None);
        c.chapter = Some("4".into());
        c.question_number = Some("09.1".into());
        assert!(exact_scope(&[&c], &q.expected_fields));
        // "9.1" is not "09.1"; a missing field is None.
        c.question_number = Some("9.1".into());
        assert!(!exact_scope(&[&c], &q.expected_fields));
        c.question_number = None;
        assert!(!exact_scope(&[&c], &q.expected_fields));
        // A float 4.0 renders as "4.0" and does not match "4".
        let qf = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{},"relevant_ids":["a"],"expected_fields":{"chapter":4.0}}"#,
        );
        let mut c4 = chunk("a", "physics", "college", None);
        c4.chapter = Some("4".into());
        assert!(!exact_scope(&[&c4], &qf.expected_fields));
        // String "4" in the query matches too; empty expected fields need a non-empty list.
        let qs = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{},"relevant_ids":["a"],"expected_fields":{"chapter":"4"}}"#,
        );
        assert!(exact_scope(&[&c4], &qs.expected_fields));
        assert!(exact_scope(&[&c4], &[]));
        assert!(!exact_scope(&[], &[]));
    }

    #[test]
    fn contamination_rules() {
        let corpus_chunks = [
            chunk("t", "physics", "college", Some("cp:4.1")),
            chunk("s1", "physics", "college", Some("cp:4.1")),
        ];
        let corpus: ChunkIndex<'_> = corpus_chunks.iter().map(|c| (c.id.as_str(), c)).collect();
        // Section rule: the query names a chapter and a section.
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics","level":"college"},"relevant_grades":{"t":2,"s1":1},"relevant_sections":["cp:4.1"],"expected_fields":{"chapter":4,"section":1}}"#,
        );
        let same = chunk("o1", "physics", "college", Some("cp:4.1"));
        let other = chunk("o2", "physics", "college", Some("cp:5.2"));
        let none = chunk("o3", "physics", "college", None);
        let leak = chunk("o4", "physics", "high_school", Some("hs:4.1"));
        // relevant t: clean; same section: clean; other section and no section: contaminated;
        // leaked (wrong level): counted as leakage, not contamination.
        let v = contamination(
            &q,
            &[&corpus_chunks[0], &same, &other, &none, &leak],
            &corpus,
        );
        assert!((v.unwrap() - 2.0 / 5.0).abs() < EPS);
        // Question rule only (a BNS-like query with no section).
        let mut sol = chunk("bns:09.1", "nsi", "terminale", None);
        sol.question_number = Some("09.1".into());
        sol.year = Some("2021".into());
        let corpus2: ChunkIndex<'_> = [(sol.id.as_str(), &sol)].into_iter().collect();
        let qb = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"nsi","level":"terminale","year":2021},"relevant_grades":{"bns:09.1":2},"expected_fields":{"question_number":"09.1"}}"#,
        );
        let mut wrong_q = sol.clone();
        wrong_q.id = "bns:10.1".into();
        wrong_q.question_number = Some("10.1".into());
        let mut other_year = sol.clone();
        other_year.id = "bns22:09.1".into();
        other_year.year = Some("2022".into());
        let course = chunk("course", "nsi", "terminale", None);
        let v = contamination(&qb, &[&sol, &wrong_q, &other_year, &course], &corpus2);
        assert!((v.unwrap() - 0.5).abs() < EPS);
        // A query naming neither is not eligible.
        let qn = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics"},"relevant_ids":["t"]}"#,
        );
        assert_eq!(contamination(&qn, &[&other], &corpus), None);
        assert_eq!(contamination(&q, &[], &corpus), Some(0.0));
    }
}
