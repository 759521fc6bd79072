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
//! **W3 results never count as success.** A result the unfiltered lexical fallback (W3) found
//! (labelled [`Leakage::Fallback`] in the response) keeps its place in the list but counts as
//! not relevant and as matching no expected field: P@K, R@K, nDCG@K and exact-scope success are
//! computed as if its id were no chunk at all. It still counts for leakage and contamination.
//!
//! **Contamination** (the seed paper's definition, not in the reference evaluator): a result
//! *relevant to the topic but from the wrong question, paper or year*. A returned result is
//! contaminating when all of these hold:
//!
//! 1. it is not relevant (not a key of `relevant_grades`) and does not leak (it has the scope's
//!    subject and level: leakage is counted apart);
//! 2. it is **on the query's topic**: its `section_key` is among the *topic sections* (the
//!    query's `relevant_sections` plus the `section_key` of every relevant chunk). Material
//!    without a section key (an exam bank: BNS statements and corrections) has no section to
//!    share; it is on topic when its text is a near-duplicate of an unsectioned relevant chunk
//!    (Jaccard similarity of their sets of lower-cased words of two or more characters ≥
//!    [`TOPIC_JACCARD`] = 0.8): the same exercise set again in another paper or year. Among the
//!    421 BNS corrections of OpenCERB, 552 pairs reach 0.8, about as many as the repeats the
//!    data's README describes (422 statements collapse into 163 exercises), while code keywords
//!    alone put a tenth of all pairs above 0.5;
//! 3. it is **an exam or exercise item** (it carries a question number, an exercise number, a
//!    paper or a year) whose *item identity* (source, chapter, section key, year, paper, question
//!    number, exercise number: an exercise and its solution share it) differs from every relevant
//!    chunk's: another question, paper or year. Course text, worked examples, tables, glossaries
//!    and summaries are no item: they can be off-target, never contaminating;
//! 4. it is not the solution of the very item the query was built from (`answers` equal to the
//!    query's `derived_from`).
//!
//! Every query with at least one relevant chunk in the loaded shards is eligible; its
//! contamination is the share of its top K that is contaminating (0 for an empty list).
//!
//! **Section contamination** (the measure called contamination before the paper's was
//! implemented) counts results that pass the subject and level test but come from another section
//! or question than the relevant material. The rule:
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
//! A query is *eligible* when at least one rule applies; its section contamination is the share
//! of its returned results that are not relevant, have the scope's subject and level, and violate
//! an applicable rule (0 for an empty list). Ineligible queries have no value and are left out of
//! the mean.

use super::queries::EvalQuery;
use crate::format::ChunkRecord;
use crate::gate::Leakage;
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
    /// Share of results on the query's topic from another question, paper or year (the
    /// paper's contamination; `None` when no relevant chunk is in the loaded shards).
    pub contamination: Option<f64>,
    /// Share of results from another section/question (eligible queries only).
    pub section_contamination: Option<f64>,
    /// Results the W3 fallback found (never counted as success).
    pub fallback: usize,
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

/// The graded (relevant) chunks of `q` that `corpus` holds.
pub(crate) fn relevant_chunks<'a>(q: &EvalQuery, corpus: &ChunkIndex<'a>) -> Vec<&'a ChunkRecord> {
    q.grades
        .keys()
        .filter_map(|id| corpus.get(id.as_str()).copied())
        .collect()
}

/// The section keys on the topic of `q`: those it lists as relevant and those of its `relevant`
/// chunks.
pub(crate) fn relevant_sections<'a>(
    q: &'a EvalQuery,
    relevant: &[&'a ChunkRecord],
) -> BTreeSet<&'a str> {
    q.relevant_sections
        .iter()
        .map(String::as_str)
        .chain(relevant.iter().filter_map(|c| c.section_key.as_deref()))
        .collect()
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

/// Section contamination of one result list (see the module docs for the rule); `None` for an
/// ineligible query.
pub fn section_contamination(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    corpus: &ChunkIndex<'_>,
) -> Option<f64> {
    let relevant = relevant_chunks(q, corpus);
    let section_rule = ["chapter", "section", "section_key"]
        .iter()
        .any(|f| q.names(f));
    let sections = relevant_sections(q, &relevant);
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

/// Word-set Jaccard similarity from which two unsectioned chunks are on the same topic (the same
/// exercise set again): see the module docs.
pub const TOPIC_JACCARD: f64 = 0.8;

fn word_set(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_lowercase)
        .collect()
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 {
        0.0
    } else {
        inter as f64 / union as f64
    }
}

/// The exam or exercise item a chunk belongs to (`None` for course material): source, chapter,
/// section key, year, paper, question number and exercise number. An exercise and its solution
/// share it.
pub fn item_identity(c: &ChunkRecord) -> Option<String> {
    if c.question_number.is_none()
        && c.exercise_number.is_none()
        && c.paper.is_none()
        && c.year.is_none()
    {
        return None;
    }
    let part = |x: &Option<String>| x.as_deref().unwrap_or("").to_string();
    Some(format!(
        "{}|{}|{}|{}|{}|{}|{}",
        part(&c.source),
        part(&c.chapter),
        part(&c.section_key),
        part(&c.year),
        part(&c.paper),
        part(&c.question_number),
        part(&c.exercise_number)
    ))
}

/// Per result, whether it is contaminating in the paper's sense (see the module docs); `None`
/// when no relevant chunk of the query is in `corpus`.
pub fn contaminating(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    corpus: &ChunkIndex<'_>,
) -> Option<Vec<bool>> {
    let relevant = relevant_chunks(q, corpus);
    if relevant.is_empty() {
        return None;
    }
    let sections = relevant_sections(q, &relevant);
    let items: BTreeSet<String> = relevant.iter().filter_map(|c| item_identity(c)).collect();
    let unsectioned: Vec<BTreeSet<String>> = relevant
        .iter()
        .filter(|c| c.section_key.is_none())
        .map(|c| word_set(&c.text))
        .collect();
    let on_topic = |c: &ChunkRecord| match c.section_key.as_deref() {
        Some(k) => sections.contains(k),
        None => {
            !unsectioned.is_empty() && {
                let w = word_set(&c.text);
                unsectioned.iter().any(|r| jaccard(&w, r) >= TOPIC_JACCARD)
            }
        }
    };
    Some(
        results
            .iter()
            .map(|c| {
                let relevant = q.grades.contains_key(&c.id);
                let other_item = item_identity(c).is_some_and(|id| !items.contains(&id));
                let own_solution = c.answers.is_some() && c.answers == q.derived_from;
                !relevant && !leaks(q, c) && other_item && !own_solution && on_topic(c)
            })
            .collect(),
    )
}

/// The paper's contamination of one result list: the share of contaminating results (see the
/// module docs); `None` when no relevant chunk of the query is in `corpus`.
pub fn contamination(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    corpus: &ChunkIndex<'_>,
) -> Option<f64> {
    let bad = contaminating(q, results, corpus)?;
    if bad.is_empty() {
        return Some(0.0);
    }
    Some(bad.iter().filter(|b| **b).count() as f64 / bad.len() as f64)
}

/// Every metric of one query. `results` are the returned chunks in rank order (only the first
/// `k` count) and `labels` their leakage labels (a result labelled [`Leakage::Fallback`], found
/// by W3, never counts as success; missing labels count as in scope).
pub fn score(
    q: &EvalQuery,
    results: &[&ChunkRecord],
    labels: &[Leakage],
    corpus: &ChunkIndex<'_>,
    k: usize,
) -> QueryMetrics {
    let results = &results[..results.len().min(k)];
    let w3 = |i: usize| labels.get(i) == Some(&Leakage::Fallback);
    // W3 results keep their rank but match nothing: their id is replaced by one no chunk has.
    let ids: Vec<&str> = results
        .iter()
        .enumerate()
        .map(|(i, c)| if w3(i) { "" } else { c.id.as_str() })
        .collect();
    let counted: Vec<&ChunkRecord> = results
        .iter()
        .enumerate()
        .filter(|(i, _)| !w3(*i))
        .map(|(_, c)| *c)
        .collect();
    QueryMetrics {
        precision: precision_at(&ids, &q.grades, k),
        recall: recall_at(&ids, &q.grades, k),
        ndcg: ndcg_at(&ids, &q.grades, k),
        leakage: leakage(q, results),
        any_leak: results.iter().any(|c| leaks(q, c)),
        contamination: contamination(q, results, corpus),
        section_contamination: section_contamination(q, results, corpus),
        fallback: results.len() - counted.len(),
        exact: exact_scope(&counted, &q.expected_fields),
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
        let m = score(&q, &[&b, &a], &[], &ChunkIndex::new(), 8);
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
    fn section_contamination_rules() {
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
        let v = section_contamination(
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
        let v = section_contamination(&qb, &[&sol, &wrong_q, &other_year, &course], &corpus2);
        assert!((v.unwrap() - 0.5).abs() < EPS);
        // A query naming neither is not eligible.
        let qn = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics"},"relevant_ids":["t"]}"#,
        );
        assert_eq!(section_contamination(&qn, &[&other], &corpus), None);
        assert_eq!(section_contamination(&q, &[], &corpus), Some(0.0));
    }

    fn item(id: &str, section_key: &str, qn: &str) -> ChunkRecord {
        let mut c = chunk(id, "physics", "college", Some(section_key));
        c.doc_type = "exercise".into();
        c.source = Some("cp".into());
        c.chapter = Some(section_key[3..4].into());
        c.question_number = Some(qn.into());
        c
    }

    #[test]
    fn paper_contamination_is_on_topic_from_another_question() {
        // The query asks about section cp:4.1; its relevant material is the section's text and
        // the solution of question 12 (an exercise item).
        let text = chunk("cp:4.1:text:1", "physics", "college", Some("cp:4.1"));
        let mut sol12 = item("cp:4.1:solution:1", "cp:4.1", "12");
        sol12.doc_type = "solution".into();
        let corpus_chunks = [text.clone(), sol12.clone()];
        let corpus: ChunkIndex<'_> = corpus_chunks.iter().map(|c| (c.id.as_str(), c)).collect();
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics","level":"college"},"relevant_grades":{"cp:4.1:text:1":1,"cp:4.1:solution:1":2},"relevant_sections":["cp:4.1"],"derived_from":"cp:4.1:exercise:99"}"#,
        );
        // Exercise 12 (same item as the relevant solution): not contaminating.
        let ex12 = item("cp:4.1:exercise:1", "cp:4.1", "12");
        // Exercise 13 of the same section: on topic, another question: contaminating.
        let ex13 = item("cp:4.1:exercise:2", "cp:4.1", "13");
        // Exercise 13 of another section: off topic, not contaminating (section contamination
        // would count it if the query named its section).
        let far = item("cp:5.2:exercise:1", "cp:5.2", "13");
        // Course text of the same section, not relevant: no item, not contaminating.
        let more_text = chunk("cp:4.1:text:2", "physics", "college", Some("cp:4.1"));
        // The solution of the query's own exercise: not contaminating.
        let mut own = item("cp:4.1:solution:2", "cp:4.1", "99");
        own.doc_type = "solution".into();
        own.answers = Some("cp:4.1:exercise:99".into());
        // An exercise of the same section at another level leaks; it is not contamination.
        let mut leak = item("hs:4.1:exercise:1", "cp:4.1", "13");
        leak.level = "high_school".into();
        let list = [&text, &ex12, &ex13, &far, &more_text, &own, &leak, &sol12];
        let flags = contaminating(&q, &list, &corpus).unwrap();
        assert_eq!(
            flags,
            [false, false, true, false, false, false, false, false]
        );
        assert!((contamination(&q, &list, &corpus).unwrap() - 1.0 / 8.0).abs() < EPS);
        // Without derived_from, the own solution is an item of another question: contaminating.
        let q2 = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics","level":"college"},"relevant_grades":{"cp:4.1:text:1":1,"cp:4.1:solution:1":2},"relevant_sections":["cp:4.1"]}"#,
        );
        assert_eq!(contamination(&q2, &[&own, &text], &corpus), Some(0.5));
        // No relevant chunk in the corpus: not eligible. An empty list scores 0.
        let q3 = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics"},"relevant_ids":["nowhere"]}"#,
        );
        assert_eq!(contamination(&q3, &[&ex13], &corpus), None);
        assert_eq!(contamination(&q, &[], &corpus), Some(0.0));
        // The old measure differs: the query names no section, so it is not eligible.
        assert_eq!(section_contamination(&q, &list, &corpus), None);
    }

    #[test]
    fn paper_contamination_of_unsectioned_exam_items_uses_near_duplicates() {
        let bank = |id: &str, year: &str, paper: &str, text: &str| {
            let mut c = chunk(id, "nsi", "terminale", None);
            c.doc_type = "solution".into();
            c.source = Some("bns".into());
            c.year = Some(year.into());
            c.paper = Some(paper.into());
            c.question_number = Some("1".into());
            c.text = text.into();
            c
        };
        let rel = bank(
            "bns:2022:01.1",
            "2022",
            "sujet 01",
            "def moyenne(tab): somme = 0 for x in tab: somme += x return somme / len(tab)",
        );
        let corpus: ChunkIndex<'_> = [(rel.id.as_str(), &rel)].into_iter().collect();
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"nsi","level":"terminale"},"relevant_grades":{"bns:2022:01.1":2}}"#,
        );
        // The same exercise in another year's paper: on topic, another year: contaminating.
        let again = bank(
            "bns:2023:07.1",
            "2023",
            "sujet 07",
            "def moyenne(tab): somme = 0 for x in tab: somme = somme + x return somme / len(tab)",
        );
        // Another exercise of the same year: off topic.
        let other = bank(
            "bns:2022:02.1",
            "2022",
            "sujet 02",
            "def recherche(tab, n): for i in range(len(tab)): if tab[i] == n: return i return None",
        );
        // Half the words in common (Python keywords) is not the same exercise.
        let half = bank(
            "bns:2022:03.1",
            "2022",
            "sujet 03",
            "def moyenne(tab): somme = 0 for x in tab: total = somme return total",
        );
        assert_eq!(
            contaminating(&q, &[&rel, &again, &other, &half], &corpus).unwrap(),
            [false, true, false, false]
        );
    }

    #[test]
    fn w3_results_never_count_as_success() {
        let q = query(
            r#"{"id":"q","slice":"s","query":"x","scope":{"subject":"physics","level":"college"},"relevant_grades":{"a":2,"b":1},"expected_fields":{"subject":"physics"}}"#,
        );
        let a = chunk("a", "physics", "college", None);
        let b = chunk("b", "physics", "college", None);
        let in_scope = score(
            &q,
            &[&a, &b],
            &[Leakage::InScope, Leakage::InScope],
            &ChunkIndex::new(),
            8,
        );
        assert_eq!(
            (in_scope.recall, in_scope.ndcg, in_scope.exact),
            (1.0, 1.0, true)
        );
        // The same list found by W3: nothing counts, yet both results are returned.
        let w3 = score(
            &q,
            &[&a, &b],
            &[Leakage::Fallback, Leakage::Fallback],
            &ChunkIndex::new(),
            8,
        );
        assert_eq!(
            (w3.recall, w3.ndcg, w3.precision, w3.exact),
            (0.0, 0.0, 0.0, false)
        );
        assert_eq!((w3.returned, w3.fallback), (2, 2));
        // Mixed: b (grade 1) from W3 keeps its rank 2 but gains nothing: only a counts.
        let mixed = score(
            &q,
            &[&a, &b],
            &[Leakage::InScope, Leakage::Fallback],
            &ChunkIndex::new(),
            8,
        );
        assert!((mixed.recall - 0.5).abs() < EPS);
        let ideal = 2.0 + 1.0 / 3f64.log2();
        assert!((mixed.ndcg - 2.0 / ideal).abs() < EPS, "{}", mixed.ndcg);
        assert!(mixed.exact);
        // Another label (a W1 widening) counts as usual.
        let w1 = score(&q, &[&b], &[Leakage::CrossTopic], &ChunkIndex::new(), 8);
        assert_eq!(w1.recall, 0.5);
    }
}
