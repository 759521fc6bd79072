//! The consistency judge: a rule-based reader that re-derives subject, level and paper from what
//! a query record says of itself (its text and its notes), and abstains when there is no explicit
//! cue.
//!
//! It checks whether the scope labels can be recovered from what a student actually typed: where
//! the judge and the label agree, a system that infers the scope from the query could get it
//! right; where the judge abstains, only an explicit scope (a UI choice) can gate the search.
//!
//! The rules are generic cue rules over word tokens (maximal runs of letters and digits,
//! compared in lower case, accents kept so that French *collège* is not English *college*):
//!
//! | attribute | value | cue |
//! |---|---|---|
//! | subject | `chemistry` | the word *chemistry* or *chimie* |
//! | subject | `physics` | the word *physics*; *en physique*, *cours de physique* |
//! | subject | `informatique (NSI)` | *NSI*, *BNS*, *informatique(s)* |
//! | level | `college` | the word *college*; the book title *Chemistry 2e* |
//! | level | `high_school` | *high school* |
//! | level | `premiere` | *1re*, *1ère*, *en première*, *classe de première*, *première NSI*, or a capitalised *Première* that does not open a sentence |
//! | level | `terminale` | *Tle*, *en terminale*, *classe de terminale*, *terminale NSI*, a capitalised *Terminale* that does not open a sentence, or *BNS* (the Terminale practical-exam bank) |
//! | level | `A-Level` / `O-Level` | *A-Level*, *AS-Level*, *O-Level* (hyphenated, or with a capital *Level*) |
//! | paper | `sujet NN` | *sujet* followed by a number (two digits, as exam banks number them) |
//! | paper | `Paper N` | a capitalised *Paper* followed by a number |
//!
//! **Notes.** As in the seed paper, the judge reads the query's notes too: the record's `notes`
//! field (or `description`), appended to the query text as a separate paragraph. OpenCERB's
//! records have neither; their `derivation` is written from the labels ("held-out BNS
//! statement", …) and is never read, as it would let the labels vouch for themselves.
//!
//! **Question format → paper** (the seed paper's MCQ / structured cue). Exam boards that number
//! their papers by format (Cambridge O-Level and A-Level: Paper 1 multiple choice, Paper 2
//! structured questions) let the format name the paper. The judge reads the format: *mcq* when
//! the text lists at least three options, as upper-case letters in order (`A)`, `(B)`, `C.`) or
//! as a dash list (` - option`, three or more); *structured* when it has lettered sub-parts
//! (`(a)` then `(b)`) or a mark allocation (`[2]`, `[3 marks]`) and no options. When the level
//! cue names such a board (O-Level, A-Level) and no explicit paper cue is present, *mcq* reads as
//! `Paper 1` and *structured* as `Paper 2`; without such a board the format names no paper (a
//! textbook's multiple-choice item belongs to no paper), and it is reported on its own.
//!
//! **Agreement.** Per attribute, the judge's reading is compared with the label (`(none)` when
//! the query has none). Cohen's κ is computed over **all** queries, an abstention being its own
//! category (`(abstain)`, which no label equals): the paper's κ. The κ over the covered queries
//! only (those where the judge did not abstain) is kept as a second number.
//!
//! Lower-case *première* / *terminale* alone are not cues (French uses them for "first" and
//! "final": *la première valeur*, *récursivité terminale*). When the cues of one attribute
//! disagree (*Handbook of Chemistry and Physics*), the judge abstains on that attribute.

use super::queries::EvalQuery;
use super::stats::cohen_kappa;
use crate::format::Field;
use serde::Serialize;
use std::collections::BTreeMap;

/// What the judge reads from a query text (`None` = abstains).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Reading {
    /// Subject.
    pub subject: Option<String>,
    /// Level.
    pub level: Option<String>,
    /// Exam paper.
    pub paper: Option<String>,
    /// Question format (`mcq`, `structured`).
    pub format: Option<String>,
}

/// The question format of a text: `mcq` (three or more listed options), `structured` (lettered
/// sub-parts or mark allocations) or `None`.
pub fn question_format(text: &str) -> Option<&'static str> {
    let b = text.as_bytes();
    // Upper-case option letters in order: "A)", "(A)", "A.", "A:" after a space or the start.
    let mut next = b'A';
    for i in 0..b.len() {
        let c = b[i];
        if c != next || next > b'D' {
            continue;
        }
        let before_ok = i == 0 || b[i - 1].is_ascii_whitespace() || b[i - 1] == b'(';
        let after = b.get(i + 1).copied();
        let after_ok = matches!(after, Some(b')' | b'.' | b':'))
            && b.get(i + 2).is_none_or(|x| x.is_ascii_whitespace());
        if before_ok && after_ok {
            next += 1;
        }
    }
    let dashes = text.matches(" - ").count() + text.matches("\n- ").count();
    if next > b'C' || dashes >= 3 {
        return Some("mcq");
    }
    let parts = text.contains("(a)") && text.contains("(b)");
    let marks = text.split('[').skip(1).any(|rest| {
        let inner = rest.split(']').next().unwrap_or("");
        let inner = inner
            .trim_end_matches("marks")
            .trim_end_matches("mark")
            .trim();
        !inner.is_empty() && inner.len() <= 2 && inner.bytes().all(|x| x.is_ascii_digit())
    });
    (parts || marks).then_some("structured")
}

struct Token<'a> {
    lower: String,
    orig: &'a str,
    start: usize,
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start.take() {
            let orig = &text[s..i];
            out.push(Token {
                lower: orig.to_lowercase(),
                orig,
                start: s,
            });
        }
    }
    out
}

/// Whether the token at `i` opens a sentence (nothing but markup before it since the last
/// sentence end).
fn opens_sentence(text: &str, tok: &Token<'_>) -> bool {
    let before = text[..tok.start].trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, '*' | '_' | '#' | '>' | '`' | '"' | '«' | '(' | '[' | '-')
    });
    before.is_empty() || before.ends_with(['.', '!', '?', ':', ';', '\n'])
}

fn capitalised(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_uppercase)
}

/// Collects the distinct values cued for one attribute; one value → that value, none or a
/// conflict → abstain.
#[derive(Default)]
struct Votes(Vec<String>);

impl Votes {
    fn add(&mut self, v: impl Into<String>) {
        let v = v.into();
        if !self.0.contains(&v) {
            self.0.push(v);
        }
    }
    fn verdict(self) -> Option<String> {
        match self.0.len() {
            1 => self.0.into_iter().next(),
            _ => None,
        }
    }
}

/// Reads subject, level and paper from a query text.
pub fn read(text: &str) -> Reading {
    let t = tokens(text);
    let w = |i: usize| t.get(i).map(|x| x.lower.as_str()).unwrap_or("");
    let mut subject = Votes::default();
    let mut level = Votes::default();
    let mut paper = Votes::default();
    for i in 0..t.len() {
        let prev = if i > 0 { w(i - 1) } else { "" };
        let prev2 = if i > 1 { w(i - 2) } else { "" };
        let next = w(i + 1);
        match w(i) {
            "chemistry" | "chimie" => {
                subject.add("chemistry");
                if next == "2e" {
                    level.add("college");
                }
            }
            "physics" => subject.add("physics"),
            "physique" if prev == "en" || (prev == "de" && prev2 == "cours") => {
                subject.add("physics")
            }
            "nsi" | "informatique" | "informatiques" => subject.add("informatique (NSI)"),
            "bns" => {
                subject.add("informatique (NSI)");
                level.add("terminale");
            }
            "college" => level.add("college"),
            "high" if next == "school" => level.add("high_school"),
            "1re" | "1ère" | "1ere" => level.add("premiere"),
            "tle" => level.add("terminale"),
            x @ ("première" | "premiere" | "terminale") => {
                let value = if x == "terminale" {
                    "terminale"
                } else {
                    "premiere"
                };
                let explicit = prev == "en"
                    || (prev == "de" && prev2 == "classe")
                    || next == "nsi"
                    || (capitalised(t[i].orig) && !opens_sentence(text, &t[i]));
                if explicit {
                    level.add(value);
                }
            }
            x @ ("a" | "as" | "o") if next == "level" => {
                let hyphen = text[t[i].start + t[i].orig.len()..t[i + 1].start] == *"-";
                let upper = t[i].orig.chars().all(char::is_uppercase);
                if upper && (hyphen || capitalised(t[i + 1].orig)) {
                    level.add(if x == "o" { "O-Level" } else { "A-Level" });
                }
            }
            "sujet" => {
                if let Ok(n) = next.parse::<u32>() {
                    paper.add(format!("sujet {n:02}"));
                }
            }
            "paper" if capitalised(t[i].orig) => {
                if let Ok(n) = next.parse::<u32>() {
                    paper.add(format!("Paper {n}"));
                }
            }
            _ => {}
        }
    }
    let format = question_format(text);
    let level = level.verdict();
    let board = matches!(level.as_deref(), Some("A-Level" | "O-Level"));
    if board && paper.0.is_empty() {
        match format {
            Some("mcq") => paper.add("Paper 1"),
            Some("structured") => paper.add("Paper 2"),
            _ => {}
        }
    }
    Reading {
        subject: subject.verdict(),
        level,
        paper: paper.verdict(),
        format: format.map(str::to_string),
    }
}

/// Reads a query record: its text and, as a separate paragraph, its notes.
pub fn read_query(q: &EvalQuery) -> Reading {
    match &q.notes {
        Some(n) => read(&format!("{}\n\n{n}", q.query)),
        None => read(&q.query),
    }
}

/// The category an abstention counts as in the κ over all queries.
pub const ABSTAIN: &str = "(abstain)";

/// The label the judge is compared with when a query has none for an attribute.
pub const NO_LABEL: &str = "(none)";

/// Agreement of the judge with the labels on one attribute.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Agreement {
    /// Attribute (`subject`, `level`, `paper`).
    pub attribute: String,
    /// Queries.
    pub n: usize,
    /// Queries where the judge did not abstain.
    pub covered: usize,
    /// covered / n.
    pub coverage: f64,
    /// Share of covered queries where the judge equals the label.
    pub agreement: Option<f64>,
    /// Cohen's κ of judge vs label over every query, an abstention being its own category (the
    /// paper's κ).
    pub kappa: Option<f64>,
    /// Cohen's κ of judge vs label over the covered queries only.
    pub kappa_covered: Option<f64>,
}

/// Coverage and agreement of one attribute within one slice.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SliceAgreement {
    /// Queries.
    pub n: usize,
    /// Queries where the judge did not abstain.
    pub covered: usize,
    /// Share of covered queries where the judge equals the label.
    pub agreement: Option<f64>,
}

/// The judge's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgeReport {
    /// Per attribute, over all queries.
    pub attributes: Vec<Agreement>,
    /// Per slice, per attribute.
    pub slices: BTreeMap<String, BTreeMap<String, SliceAgreement>>,
    /// Per slice, the question formats read (`mcq`, `structured`, `none`): queries.
    pub formats: BTreeMap<String, BTreeMap<String, usize>>,
    /// Queries with notes the judge read.
    pub notes: usize,
}

fn labels(q: &EvalQuery) -> [(&'static str, String); 3] {
    let scope = |f: Field| q.scope.get(f).map(str::to_string);
    [
        (
            "subject",
            scope(Field::Subject).unwrap_or_else(|| NO_LABEL.into()),
        ),
        (
            "level",
            scope(Field::Level).unwrap_or_else(|| NO_LABEL.into()),
        ),
        (
            "paper",
            scope(Field::Paper)
                .or_else(|| q.expected("paper").map(str::to_string))
                .unwrap_or_else(|| NO_LABEL.into()),
        ),
    ]
}

/// Runs the judge over a query set and compares it with the scope labels (`paper` also from
/// `expected_fields`).
pub fn judge(queries: &[EvalQuery]) -> JudgeReport {
    let mut pairs: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    let mut all: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
    let mut slices: BTreeMap<String, BTreeMap<String, (usize, usize, usize)>> = BTreeMap::new();
    let mut formats: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for q in queries {
        let r = read_query(q);
        *formats
            .entry(q.slice.clone())
            .or_default()
            .entry(r.format.clone().unwrap_or_else(|| "none".into()))
            .or_default() += 1;
        let said = [r.subject, r.level, r.paper];
        for ((attr, gold), said) in labels(q).into_iter().zip(said) {
            let e = slices
                .entry(q.slice.clone())
                .or_default()
                .entry(attr.to_string())
                .or_default();
            e.0 += 1;
            all.entry(attr)
                .or_default()
                .push((said.clone().unwrap_or_else(|| ABSTAIN.into()), gold.clone()));
            if let Some(s) = said {
                e.1 += 1;
                e.2 += usize::from(s == gold);
                pairs.entry(attr).or_default().push((s, gold));
            } else {
                pairs.entry(attr).or_default();
            }
        }
    }
    let n = queries.len();
    let attributes = ["subject", "level", "paper"]
        .iter()
        .map(|a| {
            let p = pairs.get(a).map(Vec::as_slice).unwrap_or(&[]);
            let agree = p.iter().filter(|(x, y)| x == y).count();
            Agreement {
                attribute: a.to_string(),
                n,
                covered: p.len(),
                coverage: if n == 0 {
                    0.0
                } else {
                    p.len() as f64 / n as f64
                },
                agreement: (!p.is_empty()).then(|| agree as f64 / p.len() as f64),
                kappa: cohen_kappa(all.get(a).map(Vec::as_slice).unwrap_or(&[])),
                kappa_covered: cohen_kappa(p),
            }
        })
        .collect();
    let slices = slices
        .into_iter()
        .map(|(s, m)| {
            let m = m
                .into_iter()
                .map(|(a, (n, c, g))| {
                    (
                        a,
                        SliceAgreement {
                            n,
                            covered: c,
                            agreement: (c > 0).then(|| g as f64 / c as f64),
                        },
                    )
                })
                .collect();
            (s, m)
        })
        .collect();
    JudgeReport {
        attributes,
        slices,
        formats,
        notes: queries.iter().filter(|q| q.notes.is_some()).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: Option<&str>, l: Option<&str>, p: Option<&str>) -> Reading {
        Reading {
            subject: s.map(Into::into),
            level: l.map(Into::into),
            paper: p.map(Into::into),
            format: None,
        }
    }

    #[test]
    fn reads_explicit_cues() {
        assert_eq!(
            read("Chemistry 2e chapter 4 End of Chapter Exercises question 63 answer"),
            r(Some("chemistry"), Some("college"), None)
        );
        assert_eq!(
            read("College Physics 2e chapter 3 question 23 answer"),
            r(Some("physics"), Some("college"), None)
        );
        assert_eq!(
            read("Correction de l'exercice 2 du sujet 7 de la BNS 2023 (épreuve pratique NSI)"),
            r(
                Some("informatique (NSI)"),
                Some("terminale"),
                Some("sujet 07")
            )
        );
        assert_eq!(
            read("Exercice de Première NSI sur les listes"),
            r(Some("informatique (NSI)"), Some("premiere"), None)
        );
        assert_eq!(
            read("Cours de Terminale : les arbres").level.as_deref(),
            Some("terminale")
        );
        assert_eq!(
            read("A-Level Paper 2 mechanics").level.as_deref(),
            Some("A-Level")
        );
        assert_eq!(
            read("A-Level Paper 2 mechanics").paper.as_deref(),
            Some("Paper 2")
        );
        assert_eq!(read("O Level revision").level.as_deref(), Some("O-Level"));
        assert_eq!(
            read("what is a high school physics lab").level.as_deref(),
            Some("high_school")
        );
    }

    #[test]
    fn abstains_without_a_cue() {
        assert_eq!(read("what is entropy"), Reading::default());
        // French ordinal and adjective uses are not level cues.
        assert_eq!(
            read("Renvoyer l'indice de la première occurrence du minimum."),
            Reading::default()
        );
        assert_eq!(read("Première étape : trier la liste."), Reading::default());
        assert_eq!(
            read("Écrire une version récursive terminale."),
            Reading::default()
        );
        // French collège is not English college; "a level surface" is no A-Level.
        assert_eq!(read("un exercice de collège").level, None);
        assert_eq!(read("A level surface has no slope").level, None);
        // Conflicting cues: abstain.
        assert_eq!(
            read("The Handbook of Chemistry and Physics lists solubilities").subject,
            None
        );
        assert_eq!(read("sujet Métropole 2").paper, None);
    }

    #[test]
    fn agreement_and_kappa_against_labels() {
        let q = |id: &str, text: &str, subject: &str, level: &str| {
            crate::eval::queries::parse_query_line(
                "t.jsonl",
                1,
                &serde_json::json!({"id": id, "slice": "s", "query": text,
                    "scope": {"subject": subject, "level": level}, "relevant_ids": ["x"]})
                .to_string(),
            )
            .unwrap()
            .unwrap()
        };
        let qs = vec![
            q("1", "chemistry question", "chemistry", "college"),
            q("2", "physics question", "physics", "college"),
            q("3", "physics again", "chemistry", "college"),
            q("4", "no cue at all", "physics", "college"),
        ];
        let rep = judge(&qs);
        let s = &rep.attributes[0];
        assert_eq!((s.n, s.covered), (4, 3));
        assert!((s.coverage - 0.75).abs() < 1e-12);
        assert!((s.agreement.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        // Judge vs label: (chem, chem), (phys, phys), (phys, chem): p_o = 2/3;
        // judge: chem 1, phys 2; label: chem 2, phys 1; p_e = (1·2 + 2·1)/9 = 4/9;
        // κ = (2/3 − 4/9) / (5/9) = 0.4.
        assert!((s.kappa_covered.unwrap() - 0.4).abs() < 1e-12);
        // Over all four queries, the abstention is a category of its own: judge chem 1, phys 2,
        // (abstain) 1; label chem 2, phys 2; p_o = 2/4; p_e = (1·2 + 2·2 + 1·0)/16 = 6/16;
        // κ = (1/2 − 3/8) / (5/8) = 0.2.
        assert!((s.kappa.unwrap() - 0.2).abs() < 1e-12);
        assert_eq!(rep.attributes[1].covered, 0);
        assert_eq!(rep.attributes[1].agreement, None);
        assert_eq!(rep.slices["s"]["subject"].covered, 3);
    }

    #[test]
    fn reads_question_formats_and_the_paper_they_name() {
        assert_eq!(
            question_format("What is 2 + 2? - 3 - 4 - 5 - 22"),
            Some("mcq")
        );
        assert_eq!(
            question_format("Which is a vector? A) mass B) speed C) velocity D) time"),
            Some("mcq")
        );
        assert_eq!(
            question_format("Which is a vector? (A) mass (B) speed (C) velocity"),
            Some("mcq")
        );
        assert_eq!(
            question_format("Balance: (a) H2 + O2 (b) Na + Cl2"),
            Some("structured")
        );
        assert_eq!(question_format("State Ohm's law. [2]"), Some("structured"));
        assert_eq!(
            question_format("State Ohm's law. [3 marks]"),
            Some("structured")
        );
        assert_eq!(question_format("what is entropy"), None);
        // A formula with minus signs and a citation in brackets are neither.
        assert_eq!(question_format("v = u - at, see [Table 4.1]"), None);
        // With a board that numbers papers by format, the format names the paper...
        let mcq = read("O-Level physics: Which is a vector? A) mass B) speed C) velocity D) time");
        assert_eq!(mcq.paper.as_deref(), Some("Paper 1"));
        assert_eq!(mcq.format.as_deref(), Some("mcq"));
        let st = read("A-Level chemistry. Balance: (a) H2 + O2 (b) Na + Cl2 [4]");
        assert_eq!(st.paper.as_deref(), Some("Paper 2"));
        // ... an explicit paper cue wins ...
        assert_eq!(
            read("A-Level Paper 3: (a) define (b) explain")
                .paper
                .as_deref(),
            Some("Paper 3")
        );
        // ... and without such a board the format names no paper.
        let textbook = read("Which is a vector? - mass - speed - velocity");
        assert_eq!(
            (textbook.paper, textbook.format.as_deref()),
            (None, Some("mcq"))
        );
    }

    #[test]
    fn reads_the_notes_too() {
        let line = |notes: &str| {
            crate::eval::queries::parse_query_line(
                "t.jsonl",
                1,
                &serde_json::json!({"id": "q", "slice": "s", "query": "Define (a) work (b) power",
                    "notes": notes, "scope": {"subject": "physics"}, "relevant_ids": ["x"]})
                .to_string(),
            )
            .unwrap()
            .unwrap()
        };
        let q = line("O-Level Physics, 2019");
        let r = read_query(&q);
        assert_eq!(r.subject.as_deref(), Some("physics"));
        assert_eq!(r.level.as_deref(), Some("O-Level"));
        // The structured question and the board in the notes give the paper.
        assert_eq!(r.paper.as_deref(), Some("Paper 2"));
        // Without notes, the text alone has no cue.
        let bare = read_query(&line(""));
        assert_eq!((bare.subject, bare.level, bare.paper), (None, None, None));
    }
}
