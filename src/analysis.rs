//! Text analysis shared by the shard builder and the query path.
//!
//! The pipeline, applied identically to chunk text at build time and to queries at search time:
//!
//! 1. **Formula normalisation** ([`normalize_formulas`]): Unicode super/subscripts become `^n` / `_n`,
//!    LaTeX delimiters and braces are dropped, `\frac{a}{b}` becomes `a/b`, common LaTeX commands
//!    become their plain symbol, so `KE = 1/2 mv²`, `mv^2` and `$mv^{2}$` all yield the term `mv^2`.
//! 2. **Tokenisation** ([`tokenize`]): runs of letters and digits; `^` or `_` between two word
//!    characters joins a compound (`mv^2`, `v_0`); a decimal point between digits joins a number
//!    (`0.13`); apostrophes split French elisions (`l'énergie` → `l`, `énergie`).
//! 3. **Term normalisation** ([`Analyzer::term`]): lowercase, stopword removal (English and French
//!    lists), Snowball stemming in the chunk's language (`rust-stemmers`), then accent folding.
//!    Compounds also emit their base (`mv^2` → `mv^2`, `mv`). One-letter words are dropped; numbers
//!    of any length are kept (question numbers and years matter here).
//!
//! [`ANALYZER_VERSION`] is recorded in every shard; a reader refuses shards analysed differently.

use crate::unicode::{compose_starters, decompose_canonical, is_combining_mark};
use rust_stemmers::{Algorithm, Stemmer};
use std::borrow::Cow;

/// Version of the analysis pipeline. Bump it whenever a change would alter the terms produced.
pub const ANALYZER_VERSION: u32 = 1;

/// Maximum number of query terms kept; longer queries are truncated and the trace says so.
pub const MAX_QUERY_TERMS: usize = 256;

/// Maximum number of bytes of a query that are read at all (a 1 MB query is cut here first).
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// Language of a text, choosing the stemmer and stopword list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    /// English: Snowball English stemmer, English stopwords.
    En,
    /// French: Snowball French stemmer, French stopwords.
    Fr,
    /// Any other language: no stemming, both stopword lists.
    Other,
}

impl Lang {
    /// Parses an ISO 639-1 code (`en`, `fr`, case-insensitive; `en-GB` counts as `en`).
    pub fn from_code(code: &str) -> Lang {
        let c = code.trim().to_ascii_lowercase();
        if c == "en" || c.starts_with("en-") || c.starts_with("en_") {
            Lang::En
        } else if c == "fr" || c.starts_with("fr-") || c.starts_with("fr_") {
            Lang::Fr
        } else {
            Lang::Other
        }
    }

    /// The ISO code of the language (`other` for [`Lang::Other`]).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
            Lang::Other => "other",
        }
    }
}

/// A token of the original text with its byte span, before term normalisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    /// Byte offset of the token start in the normalised text.
    pub start: usize,
    /// Byte offset one past the token end.
    pub end: usize,
    /// The token text as it appears (after formula normalisation, before lowercasing).
    pub text: &'a str,
}

/// Analyzer holding the stemmers (creating them is cheap but not free).
pub struct Analyzer {
    en: Stemmer,
    fr: Stemmer,
}

impl Default for Analyzer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyzer")
    }
}

/// Result of analysing a query: its terms and whether it was cut to [`MAX_QUERY_TERMS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QueryTerms {
    /// Distinct terms, in order of first appearance.
    pub terms: Vec<String>,
    /// True when the query was longer than the limits and was truncated.
    pub truncated: bool,
}

impl Analyzer {
    /// Creates an analyzer with English and French stemmers.
    pub fn new() -> Self {
        Analyzer {
            en: Stemmer::create(Algorithm::English),
            fr: Stemmer::create(Algorithm::French),
        }
    }

    /// Analyses a document text into its index terms (with repetitions, in order).
    pub fn analyze(&self, text: &str, lang: Lang) -> Vec<String> {
        let norm = normalize_formulas(text);
        let mut out = Vec::new();
        for tok in tokenize(&norm) {
            self.push_terms(tok.text, lang, &mut out);
        }
        out
    }

    /// Analyses a query for a pool whose chunks are in `langs`: each word is normalised with the
    /// stemmer of every language present, so a query meets documents analysed in any of them.
    /// Returns distinct terms; the query is bounded by [`MAX_QUERY_BYTES`] and [`MAX_QUERY_TERMS`].
    pub fn analyze_query(&self, query: &str, langs: &[Lang]) -> QueryTerms {
        let (q, mut truncated) = bound_query(query);
        let norm = normalize_formulas(q);
        let mut terms: Vec<String> = Vec::new();
        let mut scratch = Vec::new();
        let langs: &[Lang] = if langs.is_empty() {
            &[Lang::Other]
        } else {
            langs
        };
        'outer: for tok in tokenize(&norm) {
            for &lang in langs {
                scratch.clear();
                self.push_terms(tok.text, lang, &mut scratch);
                for t in scratch.drain(..) {
                    if !terms.contains(&t) {
                        if terms.len() == MAX_QUERY_TERMS {
                            truncated = true;
                            break 'outer;
                        }
                        terms.push(t);
                    }
                }
            }
        }
        QueryTerms { terms, truncated }
    }

    /// Normalises one token into zero, one or two terms (a compound also yields its base).
    fn push_terms(&self, token: &str, lang: Lang, out: &mut Vec<String>) {
        // Most tokens are ASCII and already lower-case: no copy for them.
        let lower: Cow<'_, str> = if !token.is_ascii() {
            Cow::Owned(token.to_lowercase())
        } else if token.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(token.to_ascii_lowercase())
        } else {
            Cow::Borrowed(token)
        };
        if let Some(pos) = lower.find(['^', '_']) {
            // Compound such as mv^2 or v_0: keep it whole (accent-folded), and emit its base.
            let whole = fold_accents(&lower);
            let base = &lower[..pos];
            out.push(whole);
            if let Some(t) = self.word_term(base, lang) {
                out.push(t);
            }
            return;
        }
        if let Some(t) = self.word_term(&lower, lang) {
            out.push(t);
        }
    }

    /// Normalises a lowercase word: stopwords and one-letter words are dropped, numbers kept.
    fn word_term(&self, lower: &str, lang: Lang) -> Option<String> {
        if lower.is_empty() {
            return None;
        }
        let first = lower.chars().next()?;
        if first.is_ascii_digit() {
            return Some(lower.to_string());
        }
        if lower.chars().count() < 2 {
            return None;
        }
        let stop = if lower.is_ascii() {
            is_stopword(lower, lang)
        } else {
            is_stopword(&fold_accents(lower), lang)
        };
        if stop {
            return None;
        }
        let stemmed = match lang {
            Lang::En => self.en.stem(lower),
            Lang::Fr => self.fr.stem(lower),
            Lang::Other => Cow::Borrowed(lower),
        };
        // fold_accents leaves ASCII as it is: the stem is the term (one copy at most).
        let t = if stemmed.is_ascii() {
            stemmed.into_owned()
        } else {
            fold_accents(&stemmed)
        };
        if t.is_empty() {
            None
        } else {
            Some(t)
        }
    }

    /// The terms of a single token in `lang` (used for highlighting matches in snippets).
    pub fn token_terms(&self, token: &str, lang: Lang) -> Vec<String> {
        let mut out = Vec::new();
        self.push_terms(token, lang, &mut out);
        out
    }
}

/// The part of a query that is read at all: its first [`MAX_QUERY_BYTES`] bytes, cut on a
/// character boundary, and whether anything was cut. Every stage that reads the query text
/// (analysis, understanding, glossary expansion, embedding) reads only this part, so the work a
/// query causes is bounded whatever its length.
pub fn bound_query(query: &str) -> (&str, bool) {
    if query.len() <= MAX_QUERY_BYTES {
        return (query, false);
    }
    let mut cut = MAX_QUERY_BYTES;
    while !query.is_char_boundary(cut) {
        cut -= 1;
    }
    (&query[..cut], true)
}

/// Removes diacritics (NFD, then drops combining marks, then NFC): `énergie` → `energie`.
///
/// Character by character: each one's canonical decomposition without its marks, composed with
/// what precedes it where NFC would compose two non-marks (Hangul jamo); the same text as
/// `s.nfd().filter(|c| !is_combining_mark(*c)).nfc()` (see [`crate::unicode`]).
pub fn fold_accents(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut last: Option<char> = None;
    for c in s.chars() {
        decompose_canonical(c, &mut |x| {
            if is_combining_mark(x) {
                return;
            }
            if let Some(composed) = last.and_then(|l| compose_starters(l, x)) {
                out.pop();
                out.push(composed);
                last = Some(composed);
            } else {
                out.push(x);
                last = Some(x);
            }
        });
    }
    out
}

fn superscript(c: char) -> Option<char> {
    Some(match c {
        '⁰' => '0',
        '¹' => '1',
        '²' => '2',
        '³' => '3',
        '⁴' => '4',
        '⁵' => '5',
        '⁶' => '6',
        '⁷' => '7',
        '⁸' => '8',
        '⁹' => '9',
        '⁺' => '+',
        '⁻' => '-',
        'ⁿ' => 'n',
        _ => return None,
    })
}

fn subscript(c: char) -> Option<char> {
    Some(match c {
        '₀' => '0',
        '₁' => '1',
        '₂' => '2',
        '₃' => '3',
        '₄' => '4',
        '₅' => '5',
        '₆' => '6',
        '₇' => '7',
        '₈' => '8',
        '₉' => '9',
        '₊' => '+',
        '₋' => '-',
        _ => return None,
    })
}

/// LaTeX commands replaced by a plain equivalent (others lose their backslash and stay a word).
const LATEX_SYMBOLS: &[(&str, &str)] = &[
    ("cdot", " "),
    ("times", " "),
    ("left", ""),
    ("right", ""),
    ("mathrm", ""),
    ("text", ""),
    ("mathbf", ""),
    ("displaystyle", ""),
    ("quad", " "),
    ("approx", " "),
    ("sqrt", " sqrt "),
    ("alpha", "α"),
    ("beta", "β"),
    ("gamma", "γ"),
    ("delta", "δ"),
    ("Delta", "Δ"),
    ("theta", "θ"),
    ("lambda", "λ"),
    ("mu", "μ"),
    ("pi", "π"),
    ("rho", "ρ"),
    ("sigma", "σ"),
    ("omega", "ω"),
    ("Omega", "Ω"),
];

/// Normalises formula notation so that equivalent spellings produce the same tokens.
///
/// `x²` → `x^2`, `H₂O` → `H_2O`, `$mv^{2}$` → `mv^2`, `\frac{1}{2}` → `1/2`, `\(`, `\)`, `$` and
/// braces are removed, `\alpha` → `α`. Text without formulas passes through unchanged.
pub fn normalize_formulas(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(d) = superscript(c) {
            if !out.ends_with('^') {
                out.push('^');
            }
            out.push(d);
            // Consecutive superscripts continue the same exponent: x¹⁰ → x^10.
            while let Some(&n) = chars.peek() {
                match superscript(n) {
                    Some(d2) => {
                        out.push(d2);
                        chars.next();
                    }
                    None => break,
                }
            }
            continue;
        }
        if let Some(d) = subscript(c) {
            out.push('_');
            out.push(d);
            while let Some(&n) = chars.peek() {
                match subscript(n) {
                    Some(d2) => {
                        out.push(d2);
                        chars.next();
                    }
                    None => break,
                }
            }
            continue;
        }
        match c {
            '$' | '{' | '}' => {}
            '\\' => {
                // LaTeX: \( \) \[ \] delimiters, \frac, named commands.
                match chars.peek().copied() {
                    Some('(') | Some(')') | Some('[') | Some(']') => {
                        chars.next();
                        out.push(' ');
                    }
                    Some(n) if n.is_ascii_alphabetic() => {
                        let mut name = String::new();
                        while let Some(&n) = chars.peek() {
                            if n.is_ascii_alphabetic() && name.len() < 32 {
                                name.push(n);
                                chars.next();
                            } else {
                                break;
                            }
                        }
                        if name == "frac" || name == "dfrac" || name == "tfrac" {
                            // \frac{a}{b} → a/b: the first closing brace becomes a slash.
                            let mut depth = 0usize;
                            let mut done = false;
                            while let Some(&n) = chars.peek() {
                                chars.next();
                                match n {
                                    '{' => depth += 1,
                                    '}' => {
                                        depth = depth.saturating_sub(1);
                                        if depth == 0 {
                                            out.push('/');
                                            done = true;
                                            break;
                                        }
                                    }
                                    _ => out.push(n),
                                }
                            }
                            if !done {
                                out.push(' ');
                            }
                        } else if let Some((_, rep)) =
                            LATEX_SYMBOLS.iter().find(|(n, _)| *n == name.as_str())
                        {
                            out.push_str(rep);
                        } else {
                            out.push(' ');
                            out.push_str(&name);
                            out.push(' ');
                        }
                    }
                    _ => out.push(' '),
                }
            }
            '−' | '–' => out.push('-'),
            _ => out.push(c),
        }
    }
    out
}

fn is_word_char(c: char) -> bool {
    // ASCII holds no combining mark: most characters of most texts never reach the tables.
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Splits normalised text into tokens (see the module documentation for the rules).
pub fn tokenize(text: &str) -> impl Iterator<Item = Token<'_>> + '_ {
    let mut iter = text.char_indices().peekable();
    std::iter::from_fn(move || {
        // Skip to the next word character.
        let (start, _) = loop {
            let (i, c) = iter.next()?;
            if is_word_char(c) {
                break (i, c);
            }
        };
        let mut end = text.len();
        let mut prev_digit = text[start..].starts_with(|c: char| c.is_ascii_digit());
        while let Some(&(i, c)) = iter.peek() {
            if is_word_char(c) {
                prev_digit = c.is_ascii_digit();
                iter.next();
                continue;
            }
            // Joiners: ^ or _ followed by a word char; '.' or ',' between digits.
            let next = text[i + c.len_utf8()..].chars().next();
            let joins = match c {
                '^' | '_' => next.is_some_and(is_word_char),
                '.' => prev_digit && next.is_some_and(|n| n.is_ascii_digit()),
                _ => false,
            };
            if joins {
                iter.next();
                continue;
            }
            end = i;
            break;
        }
        Some(Token {
            start,
            end,
            text: &text[start..end],
        })
    })
}

/// English stopwords (function words that carry no topic), sorted for binary search.
const STOP_EN: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "now",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// French stopwords, accent-folded (function words that carry no topic), sorted for binary search.
const STOP_FR: &[&str] = &[
    "ai", "as", "au", "aussi", "aux", "avec", "avez", "avoir", "avons", "c", "ca", "car", "ce",
    "ceci", "cela", "ces", "cet", "cette", "chez", "d", "dans", "de", "des", "donc", "dont", "du",
    "elle", "elles", "en", "entre", "est", "et", "etait", "ete", "etre", "eux", "il", "ils", "j",
    "je", "l", "la", "le", "les", "leur", "leurs", "lors", "lui", "m", "ma", "mais", "me", "meme",
    "mes", "moi", "mon", "n", "ne", "ni", "nos", "notre", "nous", "on", "ont", "ou", "par", "pas",
    "plus", "pour", "puis", "qu", "que", "qui", "s", "sa", "sans", "se", "sera", "ses", "si",
    "son", "sont", "sous", "sur", "t", "ta", "te", "tes", "toi", "ton", "tres", "tu", "un", "une",
    "vers", "vos", "votre", "vous", "y",
];

/// Whether a folded lowercase word is a stopword for `lang` (both lists for [`Lang::Other`]).
pub fn is_stopword(folded: &str, lang: Lang) -> bool {
    match lang {
        Lang::En => STOP_EN.binary_search(&folded).is_ok(),
        Lang::Fr => STOP_FR.binary_search(&folded).is_ok(),
        Lang::Other => {
            STOP_EN.binary_search(&folded).is_ok() || STOP_FR.binary_search(&folded).is_ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str, lang: Lang) -> Vec<String> {
        Analyzer::new().analyze(text, lang)
    }

    #[test]
    fn word_characters_are_the_unicode_classes_for_every_character() {
        // The ASCII shortcut must not change which characters make words (hence the terms
        // every shard was built with).
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(
                is_word_char(c),
                c.is_alphanumeric() || is_combining_mark(c),
                "{c:?}"
            );
        }
    }

    #[test]
    fn stopword_lists_are_sorted_for_binary_search() {
        for list in [STOP_EN, STOP_FR] {
            assert!(
                list.windows(2).all(|w| w[0] < w[1]),
                "sorted, no duplicates"
            );
        }
        assert!(is_stopword("the", Lang::En) && is_stopword("which", Lang::En));
        assert!(!is_stopword("heat", Lang::En) && !is_stopword("aaa", Lang::En));
        assert!(is_stopword("les", Lang::Fr) && !is_stopword("chaleur", Lang::Fr));
        assert!(is_stopword("the", Lang::Other) && is_stopword("les", Lang::Other));
    }

    #[test]
    fn formula_spellings_meet() {
        let a = terms("KE = 1/2 mv²", Lang::En);
        let b = terms("KE = 1/2 mv^2", Lang::En);
        let c = terms("$KE = \\frac{1}{2} mv^{2}$", Lang::En);
        assert!(a.contains(&"mv^2".to_string()), "{a:?}");
        assert_eq!(a, b);
        assert_eq!(b, c);
    }

    #[test]
    fn subscripts_and_chemistry() {
        assert_eq!(normalize_formulas("H₂O"), "H_2O");
        let t = terms("H₂O and v₀", Lang::En);
        assert!(t.contains(&"h_2o".to_string()), "{t:?}");
        assert!(t.contains(&"v_0".to_string()), "{t:?}");
    }

    #[test]
    fn english_stemming_and_stopwords() {
        assert_eq!(
            terms("What is the specific heat of metals?", Lang::En),
            vec!["specif", "heat", "metal"]
        );
    }

    #[test]
    fn french_stemming_elision_and_accents() {
        let t = terms("L'énergie cinétique des systèmes", Lang::Fr);
        assert_eq!(t, vec!["energ", "cinet", "system"]);
        // A French query meets French documents whatever its accents.
        assert_eq!(
            terms("energie cinetique", Lang::Fr),
            terms("énergie cinétique", Lang::Fr)
        );
    }

    #[test]
    fn numbers_and_decimals_are_kept() {
        let t = terms("question 3 of paper 2, 2019: 0.13 g", Lang::En);
        assert_eq!(t, vec!["question", "3", "paper", "2", "2019", "0.13"]);
    }

    #[test]
    fn query_is_bounded() {
        let a = Analyzer::new();
        let long: String = (0..5000).map(|i| format!("w{i} ")).collect();
        let q = a.analyze_query(&long, &[Lang::En]);
        assert!(q.truncated);
        assert_eq!(q.terms.len(), MAX_QUERY_TERMS);
        let huge = "x".repeat(1 << 20);
        let q = a.analyze_query(&huge, &[Lang::En]);
        assert!(q.truncated);
        assert!(q.terms.len() <= 1);
    }

    #[test]
    fn query_terms_cover_every_pool_language() {
        let a = Analyzer::new();
        let q = a.analyze_query("énergies", &[Lang::En, Lang::Fr]);
        assert!(q.terms.contains(&"energ".to_string()), "{:?}", q.terms);
    }

    #[test]
    fn tokens_keep_offsets() {
        let text = "mv^2 and l'eau";
        let toks: Vec<_> = tokenize(text).collect();
        let spans: Vec<_> = toks.iter().map(|t| (t.start, t.end, t.text)).collect();
        assert_eq!(
            spans,
            vec![(0, 4, "mv^2"), (5, 8, "and"), (9, 10, "l"), (11, 14, "eau")]
        );
    }

    #[test]
    fn hostile_text_never_panics() {
        let a = Analyzer::new();
        for s in [
            "\\frac{",
            "\\",
            "$$$",
            "^^^__",
            "x^",
            "\u{0}\u{202e}abc",
            "\\frac{1}{",
            "１２３",
        ] {
            let _ = a.analyze(s, Lang::En);
            let _ = a.analyze_query(s, &[Lang::Fr, Lang::En]);
        }
    }
}
