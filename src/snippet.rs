//! Snippets with highlighted query terms, as plain-text segments.
//!
//! A snippet is a list of segments `{text, hit}`; the page renders each segment as a text node
//! (inside `<mark>` when `hit`), so corpus text is never interpreted as HTML.

use crate::analysis::{normalize_formulas, tokenize, Analyzer, Lang};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cell::RefCell;

/// A piece of snippet text; `hit` marks a query-term match.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Segment {
    /// The text, verbatim from the chunk.
    pub text: String,
    /// Whether this piece matches a query term.
    pub hit: bool,
}

/// Default snippet length in characters.
pub const SNIPPET_CHARS: usize = 280;

/// Builds a snippet of about `max_chars` characters around the densest cluster of query terms.
/// For several texts of one query, prepare a [`Highlighter`] once instead.
pub fn snippet(
    analyzer: &Analyzer,
    text: &str,
    lang: Lang,
    terms: &[String],
    max_chars: usize,
) -> Vec<Segment> {
    Highlighter::new(terms).snippet(analyzer, text, lang, max_chars)
}

/// The query side of snippets, prepared once per query: the analysed terms, their first two
/// letters, and the two-letter ASCII heads those allow.
///
/// Stemming keeps a word's first two letters (the English stemmer's exceptions "dying", "lying",
/// "tying" turn a second-letter y into i, so both are tried), so an alphabetic token whose
/// (folded, lowercased) first two letters start no query term cannot match: its analysis is
/// skipped.
pub struct Highlighter<'t> {
    terms: &'t [String],
    prefixes: Vec<String>,
    ascii: AsciiPairs,
    /// Whether a token matches a term, per language, for every token analysed so far: the
    /// texts of one query's results share most of their words, each analysed once.
    seen: RefCell<Vec<(Lang, FxHashMap<String, bool>)>>,
}

impl<'t> Highlighter<'t> {
    /// Prepares the terms of a query (as the analyzer produced them).
    pub fn new(terms: &'t [String]) -> Highlighter<'t> {
        let prefixes: Vec<String> = terms.iter().map(|t| t.chars().take(2).collect()).collect();
        let ascii = AsciiPairs::of(&prefixes);
        Highlighter {
            terms,
            prefixes,
            ascii,
            seen: RefCell::new(Vec::new()),
        }
    }

    /// Whether a token can match a term, from its first letters alone.
    fn may_match(&self, tok: &str) -> bool {
        if tok.len() >= 2 && tok.bytes().all(|b| b.is_ascii_alphabetic()) {
            let (a, b) = (
                tok.as_bytes()[0].to_ascii_lowercase(),
                tok.as_bytes()[1].to_ascii_lowercase(),
            );
            return self.ascii.has(a, b) || (b == b'y' && self.ascii.has(a, b'i'));
        }
        if !tok.chars().all(char::is_alphabetic) {
            return true;
        }
        let head: String = tok.chars().take(3).collect::<String>().to_lowercase();
        let head = crate::analysis::fold_accents(&head);
        self.prefixes.iter().any(|p| head.starts_with(p.as_str()))
    }

    /// Byte spans of the tokens of `text` that match a term.
    fn hits(&self, analyzer: &Analyzer, text: &str, lang: Lang) -> Vec<(usize, usize)> {
        let mut hits = Vec::new();
        if self.terms.is_empty() {
            return hits;
        }
        // A token's match depends only on its text and language: each distinct token is
        // analysed once per query.
        let mut all = self.seen.borrow_mut();
        let at = match all.iter().position(|(l, _)| *l == lang) {
            Some(i) => i,
            None => {
                all.push((lang, FxHashMap::default()));
                all.len() - 1
            }
        };
        let seen = &mut all[at].1;
        for tok in tokenize(text) {
            // The cheap prefix test first: most tokens never reach the table.
            if !self.may_match(tok.text) {
                continue;
            }
            let matched = match seen.get(tok.text) {
                Some(&m) => m,
                None => {
                    // An ASCII token holds no formula notation ($, braces, backslash,
                    // super- or subscripts): normalising and re-tokenising it gives it back.
                    let m = if tok.text.is_ascii() {
                        analyzer
                            .token_terms(tok.text, lang)
                            .iter()
                            .any(|t| self.terms.contains(t))
                    } else {
                        let norm = normalize_formulas(tok.text);
                        let m = tokenize(&norm)
                            .flat_map(|t| analyzer.token_terms(t.text, lang))
                            .any(|t| self.terms.contains(&t));
                        m
                    };
                    seen.insert(tok.text.to_string(), m);
                    m
                }
            };
            if matched {
                hits.push((tok.start, tok.end));
            }
        }
        hits
    }

    /// A snippet of `text` (see [`snippet`]).
    pub fn snippet(
        &self,
        analyzer: &Analyzer,
        text: &str,
        lang: Lang,
        max_chars: usize,
    ) -> Vec<Segment> {
        let hits = self.hits(analyzer, text, lang);
        segments(text, &hits, max_chars)
    }
}

/// The snippet's segments: a window of about `max_chars` characters over the most hits.
fn segments(text: &str, hits: &[(usize, usize)], max_chars: usize) -> Vec<Segment> {
    let budget = max_chars.max(16);
    let char_len = text.chars().count();
    let (start, end) = if char_len <= budget {
        (0, text.len())
    } else {
        let lead = window_start(text, hits, budget);
        let s = word_start(text, lead);
        (s, word_end(text, s, forward(text, s, budget)))
    };
    let mut out = Vec::new();
    let push = |out: &mut Vec<Segment>, t: &str, hit: bool| {
        if t.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(last) if last.hit == hit => last.text.push_str(t),
            _ => out.push(Segment {
                text: t.to_string(),
                hit,
            }),
        }
    };
    if start > 0 {
        push(&mut out, "…", false);
    }
    let mut pos = start;
    for &(s, e) in hits.iter().filter(|h| h.0 >= start && h.1 <= end) {
        // A blank gap between two hits joins them into one highlighted phrase.
        let gap = &text[pos..s];
        let joins =
            pos > start && out.last().is_some_and(|l| l.hit) && gap.chars().all(|c| c == ' ');
        push(&mut out, gap, joins);
        push(&mut out, &text[s..e], true);
        pos = e;
    }
    push(&mut out, &text[pos..end], false);
    if end < text.len() {
        push(&mut out, "…", false);
    }
    out
}

/// The two-letter ASCII heads a query term can start with, as a 256 × 256 bit table: a term
/// whose prefix is one ASCII letter admits every second letter, an empty term every head.
struct AsciiPairs(Vec<u64>);

impl AsciiPairs {
    fn of(prefixes: &[String]) -> AsciiPairs {
        let mut bits = vec![0u64; 1024];
        let mut set = |a: u8, b: u8| {
            let i = (a as usize) << 8 | b as usize;
            bits[i / 64] |= 1 << (i % 64);
        };
        for p in prefixes {
            match *p.as_bytes() {
                [] => (0..=255).for_each(|a| (0..=255).for_each(|b| set(a, b))),
                [a] => (0..=255).for_each(|b| set(a, b)),
                [a, b] => set(a, b),
                // A non-ASCII prefix never heads an ASCII token.
                _ => {}
            }
        }
        AsciiPairs(bits)
    }

    #[inline]
    fn has(&self, a: u8, b: u8) -> bool {
        let i = (a as usize) << 8 | b as usize;
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
}

/// The byte where the snippet window starts: at a hit, backed off by a fifth of the budget,
/// chosen to cover the most hits within `budget` characters; the first such start wins (0 when
/// there is no hit). Positions are in characters: the hits' are counted in one pass (they are
/// sorted and disjoint), and as the start moves right so does the window's end, so one pointer
/// walks the hits it covers.
fn window_start(text: &str, hits: &[(usize, usize)], budget: usize) -> usize {
    let mut spans: Vec<(usize, usize)> = Vec::with_capacity(hits.len());
    let (mut at, mut chars) = (0usize, 0usize);
    for &(s, e) in hits {
        chars += text[at..s].chars().count();
        let first = chars;
        chars += text[s..e].chars().count();
        spans.push((first, chars));
        at = e;
    }
    let mut best = (0usize, 0usize);
    let mut j = 0;
    for (i, &(first, _)) in spans.iter().enumerate() {
        let lead = first.saturating_sub(budget / 5);
        let stop = lead + budget;
        j = j.max(i);
        while j < spans.len() && spans[j].1 <= stop {
            j += 1;
        }
        if j - i > best.1 {
            best = (lead, j - i);
        }
    }
    text.char_indices()
        .nth(best.0)
        .map_or(text.len(), |(b, _)| b)
}

fn forward(text: &str, from: usize, chars: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| from + i)
}

fn word_start(text: &str, at: usize) -> usize {
    if at == 0 {
        return 0;
    }
    // Move forward to the start of the next word so we never cut one in half.
    match text[at..].find(char::is_whitespace) {
        Some(i) if i < 40 => at + i + text[at + i..].chars().next().map_or(0, char::len_utf8),
        _ => at,
    }
}

/// Moves the window end `at` back to a word break (at most 40 bytes), but only within the second
/// half of the window `from..at`: with a short budget, the last blank before `at` can be the one
/// just before the start (found by fuzzing: the window then ended before it began, and slicing
/// panicked), or one that would cut the hit out of its own snippet.
fn word_end(text: &str, from: usize, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    match text[from..at].rfind(char::is_whitespace) {
        Some(i) if i > (at - from) / 2 && at - (from + i) < 40 => from + i,
        _ => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window rule stated directly (quadratic): back off from each hit, walk `budget`
    /// characters, count the hits that end inside; the first best start wins.
    #[cfg(not(target_arch = "wasm32"))]
    fn window_start_reference(text: &str, hits: &[(usize, usize)], budget: usize) -> usize {
        let mut best = (0usize, 0usize);
        for (i, &(s, _)) in hits.iter().enumerate() {
            let chars = budget / 5;
            let lead = text[..s]
                .char_indices()
                .rev()
                .nth(chars.saturating_sub(1))
                .map_or(0, |(b, _)| b);
            let stop = forward(text, lead, budget);
            let covered = hits[i..].iter().take_while(|h| h.1 <= stop).count();
            if covered > best.1 {
                best = (lead, covered);
            }
        }
        best.0
    }

    #[cfg(not(target_arch = "wasm32"))]
    proptest::proptest! {
        #[test]
        fn window_start_follows_the_rule(
            words in proptest::collection::vec(
                (proptest::sample::select(vec!["a", "heat", "énergie", "∆H", "x²", "水", " ", "  "]),
                 proptest::bool::ANY),
                0..120),
            budget in 16usize..200,
        ) {
            let mut text = String::new();
            let mut hits = Vec::new();
            for (w, hit) in &words {
                let s = text.len();
                text.push_str(w);
                if *hit && !w.trim().is_empty() {
                    hits.push((s, text.len()));
                }
                text.push(' ');
            }
            proptest::prop_assert_eq!(
                window_start(&text, &hits, budget),
                window_start_reference(&text, &hits, budget)
            );
        }
    }

    #[test]
    fn marks_matches_and_keeps_text_verbatim() {
        let a = Analyzer::new();
        let terms = a.analyze_query("specific heat", &[Lang::En]).terms;
        let segs = snippet(
            &a,
            "The specific heat of water is high.",
            Lang::En,
            &terms,
            280,
        );
        let joined: String = segs.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(joined, "The specific heat of water is high.");
        let hits: Vec<&str> = segs
            .iter()
            .filter(|s| s.hit)
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(hits, vec!["specific heat"]);
    }

    #[test]
    fn long_text_is_windowed_around_hits() {
        let a = Analyzer::new();
        let text = format!(
            "{} the entropy rises {}",
            "filler words here. ".repeat(60),
            "more text. ".repeat(60)
        );
        let terms = a.analyze_query("entropy", &[Lang::En]).terms;
        let segs = snippet(&a, &text, Lang::En, &terms, 120);
        let joined: String = segs.iter().map(|s| s.text.as_str()).collect();
        assert!(joined.starts_with('…') && joined.ends_with('…'), "{joined}");
        assert!(joined.chars().count() < 140, "{}", joined.chars().count());
        assert!(segs.iter().any(|s| s.hit && s.text == "entropy"));
    }

    /// The prefilter that skips most tokens must mark exactly what analysing every token marks.
    #[test]
    fn prefilter_marks_what_full_analysis_marks() {
        let a = Analyzer::new();
        let cases = [
            (
                "die lie tie",
                "Cells dying, lying flat, tying knots; they die.",
                Lang::En,
            ),
            (
                "énergie cinétique",
                "L'Énergie CINÉTIQUE et l'energie potentielle.",
                Lang::Fr,
            ),
            (
                "H2O yield",
                "Water (H₂O, h2o) yields; yielding YIELDED.",
                Lang::En,
            ),
            ("ions", "Ions, ionic, Ion-exchange: ionisation.", Lang::En),
            (
                "mv^2 v_0 9.81",
                "Kinetic energy MV^2/2 at speed v_0, with g = 9.81 m/s^2 (9.81.)",
                Lang::En,
            ),
        ];
        for (query, text, lang) in cases {
            let terms = a.analyze_query(query, &[lang]).terms;
            let got: Vec<String> = snippet(&a, text, lang, &terms, 280)
                .into_iter()
                .filter(|s| s.hit)
                .flat_map(|s| {
                    tokenize(&s.text)
                        .map(|t| t.text.to_string())
                        .collect::<Vec<_>>()
                })
                .collect();
            let want: Vec<String> = tokenize(text)
                .filter(|tok| {
                    tokenize(&normalize_formulas(tok.text))
                        .flat_map(|t| a.token_terms(t.text, lang))
                        .any(|t| terms.contains(&t))
                })
                .map(|t| t.text.to_string())
                .collect();
            assert_eq!(got, want, "{query:?} in {text:?}");
            assert!(!want.is_empty(), "{query:?} matches nothing in {text:?}");
        }
    }
}
