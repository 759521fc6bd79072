//! Snippets with highlighted query terms, as plain-text segments.
//!
//! A snippet is a list of segments `{text, hit}`; the page renders each segment as a text node
//! (inside `<mark>` when `hit`), so corpus text is never interpreted as HTML.

use crate::analysis::{normalize_formulas, tokenize, Analyzer, Lang};
use serde::Serialize;

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
pub fn snippet(
    analyzer: &Analyzer,
    text: &str,
    lang: Lang,
    terms: &[String],
    max_chars: usize,
) -> Vec<Segment> {
    // Byte spans of matching tokens in the original text.
    let mut hits: Vec<(usize, usize)> = Vec::new();
    if !terms.is_empty() {
        // A token's match depends only on its text: analyse each distinct token once.
        let mut seen: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
        // Stemming keeps a word's first two letters (the English stemmer's exceptions "dying",
        // "lying", "tying" turn a second-letter y into i, so both are tried), so an alphabetic
        // token whose (folded, lowercased) first two letters start no query term cannot match:
        // its analysis is skipped.
        let prefixes: Vec<String> = terms.iter().map(|t| t.chars().take(2).collect()).collect();
        let may_match = |tok: &str| {
            if tok.len() >= 2 && tok.bytes().all(|b| b.is_ascii_alphabetic()) {
                let head = [
                    tok.as_bytes()[0].to_ascii_lowercase(),
                    tok.as_bytes()[1].to_ascii_lowercase(),
                ];
                let alt = [head[0], if head[1] == b'y' { b'i' } else { head[1] }];
                return prefixes
                    .iter()
                    .any(|p| head.starts_with(p.as_bytes()) || alt.starts_with(p.as_bytes()));
            }
            if !tok.chars().all(char::is_alphabetic) {
                return true;
            }
            let head: String = tok.chars().take(3).collect::<String>().to_lowercase();
            let head = crate::analysis::fold_accents(&head);
            prefixes.iter().any(|p| head.starts_with(p.as_str()))
        };
        for tok in tokenize(text) {
            let matched = *seen.entry(tok.text).or_insert_with(|| {
                if !may_match(tok.text) {
                    return false;
                }
                let norm = normalize_formulas(tok.text);
                let any = tokenize(&norm)
                    .flat_map(|t| analyzer.token_terms(t.text, lang))
                    .any(|t| terms.contains(&t));
                any
            });
            if matched {
                hits.push((tok.start, tok.end));
            }
        }
    }
    let budget = max_chars.max(16);
    let char_len = text.chars().count();
    let (start, end) = if char_len <= budget {
        (0, text.len())
    } else {
        // Choose the window start (at a hit, backed off a little) covering the most hits.
        let mut best = (0usize, 0usize);
        for (i, &(s, _)) in hits.iter().enumerate() {
            let lead = back_off(text, s, budget / 5);
            let stop = forward(text, lead, budget);
            let covered = hits[i..].iter().take_while(|h| h.1 <= stop).count();
            if covered > best.1 {
                best = (lead, covered);
            }
        }
        let s = word_start(text, best.0);
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

fn back_off(text: &str, at: usize, chars: usize) -> usize {
    text[..at]
        .char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(0, |(i, _)| i)
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
