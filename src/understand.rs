//! Query understanding: scope hints and intents read from the query text.
//!
//! Students type their scope as often as they pick it: "O-Level physics paper 2 question 3",
//! "corrigé de l'exercice 2 du sujet 10 BNS 2021", "what is enthalpy". This module reads such
//! cues with explicit patterns (English and French) and returns:
//!
//! * **scope hints** ([`Understanding::hints`]): field values named in the text (subject, level,
//!   chapter, paper, year, question number). They are only taken from *short* queries (at most
//!   [`MAX_HINT_WORDS`] words): a long query is pasted exercise text, whose incidental words
//!   ("see Table 2", "in 2019") are content, not a request. A hint is then checked against the
//!   manifest (it must name an existing value) before the pipeline merges it; the explicit scope
//!   from the page or caller always wins, and conflicts are reported;
//! * **intents** used as soft evidence by the reranker: the document type wanted (solutions for
//!   "answer", "mark scheme", "corrigé"…, read by [`crate::doctype::query_intent`]), a definition
//!   request, an explicit table/figure label;
//! * the query **language**, detected from stopwords and accents.

use crate::analysis::{fold_accents, is_stopword, tokenize, Lang};
use crate::format::Field;
use crate::scope::FieldMap;
use serde::Serialize;

/// Longest query (in words) from which scope hints are read.
pub const MAX_HINT_WORDS: usize = 16;

/// What the query text says about its scope and intent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Understanding {
    /// Detected language of the query (`en`, `fr` or `other`).
    pub lang: String,
    /// Scope values named in the text (before validation against the manifest).
    pub hints: FieldMap,
    /// Document type the query asks for (soft: used as a rerank boost).
    pub wants_doc_type: Option<String>,
    /// Whether the query asks for a definition ("what is X", a bare term, "définition de X").
    pub definition: bool,
    /// An explicit label the query names, normalised like `table 4.1`.
    pub label: Option<String>,
    /// Whether hints were read (the query is short enough to be a request).
    pub short: bool,
}

fn words(q: &str) -> Vec<String> {
    tokenize(q)
        .map(|t| fold_accents(&t.text.to_lowercase()))
        .collect()
}

/// Detects the language of a query: French if French stopwords or French accents dominate.
pub fn detect_lang(query: &str) -> Lang {
    lang_of(query, &words(query))
}

/// [`detect_lang`] over the query's words, already read.
fn lang_of(query: &str, ws: &[String]) -> Lang {
    let (mut en, mut fr) = (0usize, 0usize);
    for w in ws {
        let e = is_stopword(w, Lang::En);
        let f = is_stopword(w, Lang::Fr);
        if e && !f {
            en += 1;
        }
        if f && !e {
            fr += 1;
        }
    }
    fr += query
        .chars()
        .filter(|c| "éèêàùçôîûëï«»".contains(*c))
        .count()
        .min(3);
    fr += query.matches("l'").count() + query.matches("d'").count() + query.matches("qu'").count();
    if fr > en {
        Lang::Fr
    } else if en > 0 || ws.is_empty() {
        Lang::En
    } else {
        Lang::Other
    }
}

fn number_after(ws: &[String], i: usize) -> Option<String> {
    let n = ws.get(i + 1)?;
    if n.chars().all(|c| c.is_ascii_digit() || c == '.') && n.chars().next()?.is_ascii_digit() {
        Some(n.trim_end_matches('.').to_string())
    } else {
        None
    }
}

fn strip_zeros(n: &str) -> String {
    let t = n.trim_start_matches('0');
    if t.is_empty() {
        "0".into()
    } else {
        t.to_string()
    }
}

/// Reads hints and intents from a query.
pub fn understand(query: &str) -> Understanding {
    let ws = words(query);
    let lang = lang_of(query, &ws);
    let lower = fold_accents(&query.to_lowercase());
    let mut u = Understanding {
        lang: lang.code().to_string(),
        short: ws.len() <= MAX_HINT_WORDS,
        ..Default::default()
    };
    // Document type wanted (soft), from short requests only: in pasted exercise text, words like
    // "answer" or "solution" are content ("explain your answer"), not a request. The cue words
    // belong to the document-type vocabulary, so that they mean what the same word means as a
    // corpus `doc_type`.
    let has = |w: &str| ws.iter().any(|x| x == w);
    let phrase = |p: &str| lower.contains(p);
    if u.short {
        u.wants_doc_type = crate::doctype::query_intent(&ws, &lower).map(String::from);
    }
    // Definition request: "what is X", "define X", "définition de X", or a bare 1–3 word term.
    let content: Vec<&String> = ws.iter().filter(|w| !is_stopword(w, lang)).collect();
    u.definition = lower.trim_start().starts_with("what is ")
        || lower.trim_start().starts_with("what are ")
        || lower.trim_start().starts_with("define ")
        || lower.contains("definition de ")
        || lower.contains("definition of ")
        || (!content.is_empty()
            && content.len() <= 3
            && ws.len() <= 4
            && !content
                .iter()
                .any(|w| w.chars().all(|c| c.is_ascii_digit())));
    // Explicit labels: "Table 4.1", "Figure 2.3", "Appendix G".
    for (i, w) in ws.iter().enumerate() {
        if matches!(
            w.as_str(),
            "table" | "tableau" | "figure" | "appendix" | "annexe"
        ) {
            if let Some(n) = ws.get(i + 1).filter(|n| {
                n.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
                    && n.chars()
                        .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase() || n.len() == 1)
            }) {
                let kind = match w.as_str() {
                    "tableau" => "table",
                    "annexe" => "appendix",
                    k => k,
                };
                u.label = Some(format!("{kind} {}", n.to_lowercase()));
                break;
            }
        }
    }
    if !u.short {
        return u;
    }
    // Scope hints, from short queries only.
    let mut sujet: Option<String> = None;
    let mut exercice: Option<String> = None;
    for (i, w) in ws.iter().enumerate() {
        match w.as_str() {
            "chapter" | "chapitre" | "ch" => {
                if let Some(n) = number_after(&ws, i) {
                    u.hints.insert(Field::Chapter, n);
                }
            }
            "question" | "q" | "no" => {
                if let Some(n) = number_after(&ws, i) {
                    u.hints.insert(Field::QuestionNumber, n);
                }
            }
            "exercice" | "exercise" | "ex" => {
                if let Some(n) = number_after(&ws, i) {
                    exercice = Some(n);
                }
            }
            "paper" | "epreuve" => {
                if let Some(n) = number_after(&ws, i) {
                    u.hints.insert(Field::Paper, format!("paper {n}"));
                }
            }
            "sujet" => {
                if let Some(n) = number_after(&ws, i) {
                    sujet = Some(n);
                }
            }
            _ => {}
        }
        // Years: a 4-digit 19xx/20xx next to an exam cue word.
        if w.len() == 4
            && (w.starts_with("19") || w.starts_with("20"))
            && w.chars().all(|c| c.is_ascii_digit())
        {
            let near = |j: usize| {
                ws.get(j).is_some_and(|x| {
                    matches!(
                        x.as_str(),
                        "bns"
                            | "bac"
                            | "session"
                            | "exam"
                            | "paper"
                            | "gce"
                            | "sujet"
                            | "june"
                            | "juin"
                            | "november"
                    )
                })
            };
            if (i > 0 && near(i - 1)) || near(i + 1) || has("bns") || has("gce") || has("session") {
                u.hints.insert(Field::Year, w.clone());
            }
        }
    }
    if phrase("epreuve pratique") || has("bns") {
        u.hints.insert(Field::Exam, "epreuve pratique".into());
    } else if phrase("epreuve ecrite") {
        u.hints.insert(Field::Exam, "epreuve ecrite".into());
    }
    if let Some(s) = &sujet {
        u.hints.insert(Field::Paper, format!("sujet {s:0>2}"));
        if let Some(e) = &exercice {
            u.hints
                .insert(Field::QuestionNumber, format!("{s:0>2}.{}", strip_zeros(e)));
        }
    } else if let Some(e) = exercice {
        if !u.hints.contains_key(&Field::QuestionNumber) {
            u.hints.insert(Field::QuestionNumber, e);
        }
    }
    // A bare "question 3" / "exercice 3" names no exam or chapter: it is usually the first words
    // of a pasted exercise, not a request for question 3 of something. Keep the question number
    // only with an exam, paper, year or chapter cue, or when the query asks for an answer.
    let anchored = [Field::Paper, Field::Year, Field::Chapter]
        .iter()
        .any(|f| u.hints.contains_key(f));
    if !anchored && u.wants_doc_type.is_none() {
        u.hints.remove(&Field::QuestionNumber);
    }
    // Levels and subjects: cue words, resolved against the manifest by the pipeline.
    let levels: &[(&str, &str)] = &[
        ("o-level", "o-level"),
        ("o level", "o-level"),
        ("ordinary level", "o-level"),
        ("a-level", "a-level"),
        ("a level", "a-level"),
        ("advanced level", "a-level"),
        ("premiere", "premiere"),
        ("1re", "premiere"),
        ("1ere", "premiere"),
        ("terminale", "terminale"),
        ("high school", "high_school"),
        ("lycee", "high_school"),
        ("college", "college"),
        ("university", "college"),
    ];
    let padded = format!(" {} ", lower.replace(['(', ')', ',', '.'], " "));
    for (cue, level) in levels {
        if padded.contains(&format!(" {cue} ")) {
            u.hints.insert(Field::Level, (*level).to_string());
            break;
        }
    }
    let subjects: &[(&str, &str)] = &[
        ("chemistry", "chemistry"),
        ("chimie", "chemistry"),
        ("physics", "physics"),
        ("physique", "physics"),
        ("biology", "biology"),
        ("biologie", "biology"),
        ("mathematics", "mathematics"),
        ("maths", "mathematics"),
        ("nsi", "informatique"),
        ("informatique", "informatique"),
        ("computer science", "computer science"),
    ];
    for (cue, subject) in subjects {
        if padded.contains(&format!(" {cue} ")) {
            u.hints.insert(Field::Subject, (*subject).to_string());
            break;
        }
    }
    u
}

/// Resolves a hinted value against known values: exact, then case/accent/separator-insensitive,
/// then (for subjects and levels) a known value that contains the hint as a word
/// (`informatique` → `informatique (NSI)`), then numerically equal (`sujet 4` → `sujet 04`).
pub fn resolve(hint: &str, known: &[String]) -> Option<String> {
    let norm = |s: &str| {
        fold_accents(&s.to_lowercase())
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { ' ' })
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let h = norm(hint);
    if let Some(k) = known.iter().find(|k| k.as_str() == hint) {
        return Some(k.clone());
    }
    if let Some(k) = known.iter().find(|k| norm(k) == h) {
        return Some(k.clone());
    }
    let digits = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|x| !x.is_empty())
            .map(strip_zeros)
            .collect()
    };
    let words_of = |s: &str| -> Vec<String> {
        norm(s)
            .split(' ')
            .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
            .map(String::from)
            .collect()
    };
    if let Some(k) = known
        .iter()
        .find(|k| !digits(&h).is_empty() && digits(k) == digits(&h) && words_of(k) == words_of(&h))
    {
        return Some(k.clone());
    }
    let hits: Vec<&String> = known
        .iter()
        .filter(|k| format!(" {} ", norm(k)).contains(&format!(" {h} ")))
        .collect();
    if hits.len() == 1 {
        return Some(hits[0].clone());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_exam_cues_in_english() {
        let u = understand("O-Level physics paper 2 question 3 mark scheme 2019 exam");
        assert_eq!(
            u.hints.get(&Field::Level).map(String::as_str),
            Some("o-level")
        );
        assert_eq!(
            u.hints.get(&Field::Subject).map(String::as_str),
            Some("physics")
        );
        assert_eq!(
            u.hints.get(&Field::Paper).map(String::as_str),
            Some("paper 2")
        );
        assert_eq!(
            u.hints.get(&Field::QuestionNumber).map(String::as_str),
            Some("3")
        );
        assert_eq!(u.hints.get(&Field::Year).map(String::as_str), Some("2019"));
        assert_eq!(u.wants_doc_type.as_deref(), Some("solution"));
        // No function word in either language: no language claimed.
        assert_eq!(u.lang, "other");
    }

    #[test]
    fn reads_exam_cues_in_french() {
        let u =
            understand("Corrigé de l'exercice 2 du sujet 7 de la BNS 2021 (épreuve pratique NSI)");
        assert_eq!(u.lang, "fr");
        assert_eq!(
            u.hints.get(&Field::Paper).map(String::as_str),
            Some("sujet 07")
        );
        assert_eq!(
            u.hints.get(&Field::QuestionNumber).map(String::as_str),
            Some("07.2")
        );
        assert_eq!(u.hints.get(&Field::Year).map(String::as_str), Some("2021"));
        assert_eq!(
            u.hints.get(&Field::Subject).map(String::as_str),
            Some("informatique")
        );
        assert_eq!(u.wants_doc_type.as_deref(), Some("solution"));
        let u = understand("cours de Terminale sur les arbres");
        assert_eq!(
            u.hints.get(&Field::Level).map(String::as_str),
            Some("terminale")
        );
    }

    #[test]
    fn a_bare_exercise_number_is_not_a_scope() {
        let u = understand("Exercice 3 : écrire une fonction qui renvoie le maximum");
        assert!(
            !u.hints.contains_key(&Field::QuestionNumber),
            "{:?}",
            u.hints
        );
        let u = understand("chapter 4 question 63 answer");
        assert_eq!(
            u.hints.get(&Field::QuestionNumber).map(String::as_str),
            Some("63")
        );
    }

    #[test]
    fn long_pasted_text_gives_no_scope_hint() {
        let q = "A 2019 study measured the heat released when 3.0 g of sodium reacts with water in a calorimeter; \
                 using the data in Table 5.1 and chapter 4 results, explain your answer carefully";
        let u = understand(q);
        assert!(!u.short);
        assert!(u.hints.is_empty(), "{:?}", u.hints);
        assert_eq!(u.label.as_deref(), Some("table 5.1"));
    }

    #[test]
    fn definitions_and_labels() {
        assert!(understand("what is enthalpy").definition);
        assert!(understand("atom").definition);
        assert!(understand("définition de récursivité").definition);
        assert!(!understand("how does a calorimeter measure the heat of a reaction").definition);
        assert_eq!(
            understand("see Table 2.4 for values").label.as_deref(),
            Some("table 2.4")
        );
    }

    #[test]
    fn resolves_hints_against_known_values() {
        let known = vec!["sujet 04".to_string(), "sujet 10".to_string()];
        assert_eq!(resolve("sujet 4", &known).as_deref(), Some("sujet 04"));
        assert_eq!(resolve("sujet 10", &known).as_deref(), Some("sujet 10"));
        assert_eq!(resolve("sujet 5", &known), None);
        let subjects = vec!["chemistry".to_string(), "informatique (NSI)".to_string()];
        assert_eq!(
            resolve("informatique", &subjects).as_deref(),
            Some("informatique (NSI)")
        );
        let levels = vec!["high_school".to_string(), "O-Level".to_string()];
        assert_eq!(
            resolve("high_school", &levels).as_deref(),
            Some("high_school")
        );
        assert_eq!(resolve("o-level", &levels).as_deref(), Some("O-Level"));
    }

    #[test]
    fn language_detection() {
        assert_eq!(
            detect_lang("Écrire une fonction qui renvoie le maximum d'une liste"),
            Lang::Fr
        );
        assert_eq!(
            detect_lang("Write a function that returns the maximum of a list"),
            Lang::En
        );
    }
}
