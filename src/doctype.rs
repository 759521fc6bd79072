//! The document-type vocabulary: the canonical `doc_type` values the engine understands, what
//! each means, the other names people give them (in English and French), and the words of a
//! query that ask for one.
//!
//! The canonical types are the ones of the OpenCERB corpus. They carry meaning in three places:
//! the page shows a label for each (`solution` reads "Answer / mark scheme", "Corrigé"), the
//! reranker boosts the type a query asks for ("corrigé de l'exercice 2" → `solution`), and the
//! reranker holds back `exercise` statements when a query asks for none. A corpus that writes
//! `corrigé` or `mark scheme` instead of `solution` would get none of that, so the builder maps
//! every alias to its canonical type ([`canonical`]) and keeps (and reports) values it does not
//! know.
//!
//! Query understanding ([`crate::understand`]) reads its document-type intents from
//! [`QUERY_CUES`], which lives here so that a word read in a query and the same word written as a
//! `doc_type` mean the same type.

use crate::analysis::fold_accents;

/// A canonical document type and its meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocType {
    /// The value stored in shards, e.g. `solution`.
    pub name: &'static str,
    /// One line saying what material it is.
    pub meaning: &'static str,
    /// Other names accepted for it in a corpus, as people write them (compared after
    /// [`normalize`], so case, accents and separators do not matter).
    pub aliases: &'static [&'static str],
}

/// The canonical document types, in the order documentation lists them.
pub const DOC_TYPES: &[DocType] = &[
    DocType {
        name: "textbook_section",
        meaning: "course text: a section of a textbook, lesson or course notes",
        aliases: &[
            "textbook",
            "cours",
            "course",
            "course notes",
            "lesson",
            "leçon",
            "lecture notes",
            "notes",
            "manuel",
            "chapitre de cours",
        ],
    },
    DocType {
        name: "exercise",
        meaning: "an exercise or question for the student to solve (its answer is a `solution`)",
        aliases: &[
            "exercises",
            "exercice",
            "exercices",
            "question",
            "questions",
            "problem",
            "problems",
            "mcq",
            "qcm",
            "multiple choice",
            "quiz",
        ],
    },
    DocType {
        name: "solution",
        meaning: "the answer, correction or mark scheme of an exercise or exam question",
        aliases: &[
            "solutions",
            "answer",
            "answers",
            "answer key",
            "corrigé",
            "corrigés",
            "correction",
            "corrections",
            "réponse",
            "réponses",
            "mark scheme",
            "mark schemes",
            "marking scheme",
            "marking guide",
            "barème",
        ],
    },
    DocType {
        name: "past_paper_question",
        meaning: "a question or exercise from a past exam paper (give `exam`, `year`, `paper`)",
        aliases: &[
            "past paper",
            "past papers",
            "exam question",
            "exam questions",
            "sujet",
            "sujets",
            "sujet d'examen",
            "annale",
            "annales",
        ],
    },
    DocType {
        name: "worked_example",
        meaning: "an example solved step by step in the course",
        aliases: &[
            "worked examples",
            "example",
            "examples",
            "exemple",
            "exemples",
            "exemple résolu",
            "exemples résolus",
            "exercice résolu",
            "exercices résolus",
            "exercice corrigé",
            "exercices corrigés",
            "sample problem",
        ],
    },
    DocType {
        name: "summary",
        meaning: "the summary of a chapter or section",
        aliases: &[
            "summaries",
            "résumé",
            "synthèse",
            "recap",
            "key points",
            "à retenir",
            "l'essentiel",
        ],
    },
    DocType {
        name: "glossary",
        meaning: "a term and its definition",
        aliases: &[
            "glossaire",
            "définition",
            "définitions",
            "vocabulary",
            "vocabulaire",
            "lexique",
            "key terms",
        ],
    },
    DocType {
        name: "key_equations",
        meaning: "the key equations or formulas of a chapter",
        aliases: &[
            "equations",
            "key equation",
            "formulas",
            "formulae",
            "key formulas",
            "formulaire",
            "équations clés",
        ],
    },
    DocType {
        name: "table",
        meaning: "a data table (its caption, e.g. `Table 4.1`, goes in `label`)",
        aliases: &["tables", "tableau", "tableaux", "data table"],
    },
];

/// How a value is compared with the vocabulary: lower case, accents removed, and every run of
/// spaces, hyphens, underscores, apostrophes or other punctuation read as one `_`
/// (`Corrigé`, `corrige`, ` CORRIGÉ ` are equal; so are `mark scheme`, `mark-scheme`,
/// `Mark_Scheme`).
pub fn normalize(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in fold_accents(&value.to_lowercase()).chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// The canonical type a `doc_type` value means: itself when canonical (in any case or spelling
/// [`normalize`] equates), the type it is an alias of, or `None` when the vocabulary does not know
/// it.
pub fn canonical(value: &str) -> Option<&'static str> {
    let v = normalize(value);
    DOC_TYPES
        .iter()
        .find(|t| t.name == v || t.aliases.iter().any(|a| normalize(a) == v))
        .map(|t| t.name)
}

/// The canonical type names, in [`DOC_TYPES`] order.
pub fn names() -> impl Iterator<Item = &'static str> {
    DOC_TYPES.iter().map(|t| t.name)
}

/// Words and phrases of a query that ask for a document type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryCue {
    /// The canonical type asked for.
    pub doc_type: &'static str,
    /// Query words (lower case, accents removed) that ask for it.
    pub words: &'static [&'static str],
    /// Phrases (lower case, accents removed) whose presence anywhere in the query asks for it.
    pub phrases: &'static [&'static str],
}

/// The document-type cues of queries, by priority: the first type with a cue in the query wins.
///
/// They are fewer than the aliases on purpose: a word like `question`, `sujet` or `cours` names a
/// document type in a corpus, but in a query it mostly opens pasted exercise text or names a scope
/// ("sujet 7 question 3"), so reading it as an intent would boost the wrong material. Every cue
/// that is also a `doc_type` value means the same type in both places (checked by a test).
pub const QUERY_CUES: &[QueryCue] = &[
    QueryCue {
        doc_type: "solution",
        words: &[
            "answer",
            "answers",
            "solution",
            "solutions",
            "corrige",
            "correction",
        ],
        phrases: &["mark scheme", "marking guide"],
    },
    QueryCue {
        doc_type: "worked_example",
        words: &[],
        phrases: &["worked example", "exemple resolu"],
    },
    QueryCue {
        doc_type: "past_paper_question",
        words: &["enonce"],
        phrases: &["past paper"],
    },
    QueryCue {
        doc_type: "glossary",
        words: &["glossary", "definition", "define", "vocabulaire"],
        phrases: &[],
    },
    QueryCue {
        doc_type: "exercise",
        words: &["mcq", "qcm", "exercise", "exercises"],
        phrases: &["multiple choice"],
    },
    QueryCue {
        doc_type: "table",
        words: &["table", "tableau"],
        phrases: &[],
    },
];

/// The document type a query asks for, from its `words` (lower case, accents removed) and its
/// whole text `lower` (lower case, accents removed), by [`QUERY_CUES`].
pub fn query_intent(words: &[String], lower: &str) -> Option<&'static str> {
    QUERY_CUES
        .iter()
        .find(|cue| {
            cue.words.iter().any(|w| words.iter().any(|x| x == w))
                || cue.phrases.iter().any(|p| lower.contains(p))
        })
        .map(|cue| cue.doc_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_map_to_canonical_types_whatever_the_spelling() {
        for (value, want) in [
            ("corrigé", "solution"),
            ("Corrigé", "solution"),
            ("CORRIGE", "solution"),
            ("correction", "solution"),
            ("answers", "solution"),
            ("Mark scheme", "solution"),
            ("marking_guide", "solution"),
            ("mark-scheme", "solution"),
            ("barème", "solution"),
            ("exercices", "exercise"),
            ("Question", "exercise"),
            ("cours", "textbook_section"),
            ("Leçon", "textbook_section"),
            ("Textbook Section", "textbook_section"),
            ("sujet", "past_paper_question"),
            ("past paper", "past_paper_question"),
            ("exam question", "past_paper_question"),
            ("Exemple résolu", "worked_example"),
            ("résumé", "summary"),
            ("glossaire", "glossary"),
            ("formulaire", "key_equations"),
            ("tableau", "table"),
            (" solution ", "solution"),
        ] {
            assert_eq!(canonical(value), Some(want), "{value:?}");
        }
        assert_eq!(canonical("essay"), None);
        assert_eq!(canonical(""), None);
    }

    #[test]
    fn every_canonical_name_is_its_own_type_and_no_alias_is_claimed_twice() {
        let mut seen = std::collections::BTreeMap::new();
        for t in DOC_TYPES {
            assert_eq!(canonical(t.name), Some(t.name));
            assert_eq!(normalize(t.name), t.name, "canonical names are normalised");
            for a in t.aliases.iter().chain([&t.name]) {
                if let Some(other) = seen.insert(normalize(a), t.name) {
                    panic!("{a:?} is claimed by {other} and {}", t.name);
                }
            }
        }
    }

    #[test]
    fn query_cues_agree_with_the_vocabulary() {
        for cue in QUERY_CUES {
            assert!(
                names().any(|n| n == cue.doc_type),
                "{} is not canonical",
                cue.doc_type
            );
            for w in cue.words.iter().chain(cue.phrases) {
                if let Some(t) = canonical(w) {
                    assert_eq!(t, cue.doc_type, "{w:?} means {t} as a doc_type");
                }
            }
        }
    }

    #[test]
    fn query_intent_reads_the_first_matching_type() {
        let ws = |q: &str| -> Vec<String> { q.split(' ').map(String::from).collect() };
        let q = "corrige de l'exercice 2";
        assert_eq!(query_intent(&ws(q), q), Some("solution"));
        let q = "o-level mark scheme for the past paper";
        assert_eq!(query_intent(&ws(q), q), Some("solution"));
        let q = "past papers on waves";
        assert_eq!(query_intent(&ws(q), q), Some("past_paper_question"));
        let q = "heat flow";
        assert_eq!(query_intent(&ws(q), q), None);
    }
}
