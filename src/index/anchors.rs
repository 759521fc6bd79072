//! Heading anchors of Markdown sources, as the generator (or forge) that shows the pages makes
//! them, so that a result links to its heading on the published page. Each makes its own from a
//! heading's text: MkDocs drops accents (`2.1 Définition` → `21-definition`), GitHub keeps them
//! and writes each space as a `-` (`exercice-1--la-pile` for `Exercice 1 : la pile`), Pandoc
//! keeps `.`, Sphinx drops leading digits, and each numbers a repeated heading its own way.

use crate::analysis::fold_accents;
use std::collections::HashMap;

/// How a generator or forge makes a heading's anchor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Anchors {
    /// Python-Markdown's `toc` (MkDocs; the default for a folder of Markdown pages): accents
    /// and other non-ASCII characters dropped, punctuation dropped, runs of spaces and `-` one
    /// `-`, lowercase; emoji shortcodes (`:star:`) left out, as the page shows icons; a repeat
    /// gets `_1`, `_2`.
    #[default]
    MkDocs,
    /// github-slugger (GitHub, Docusaurus; Hugo's `github` IDs, Jekyll's GFM, mdBook; mystmd
    /// too, unchecked): lowercase, punctuation and symbols removed, each space a `-`; a repeat
    /// gets `-1`, `-2`.
    GitHub,
    /// GitLab (and its self-hosted forges): as GitHub, then runs of `-` squeezed into one.
    GitLab,
    /// Gitea and Forgejo: every run of characters other than letters, digits, `_` and `-` is one
    /// `-`, none at either end.
    Gitea,
    /// Pandoc's `auto_identifiers` (Quarto, bookdown): lowercase, every character but letters,
    /// digits, `_`, `-` and `.` removed, spaces `-`, nothing before the first letter
    /// (`section` when nothing is left).
    Pandoc,
    /// docutils (Sphinx, Jupyter Book 1): accents dropped, lowercase, runs of anything but ASCII
    /// letters and digits one `-`, leading digits and `-` removed.
    Docutils,
    /// VitePress: accents dropped, runs of punctuation and spaces one `-` (none at either end),
    /// `_` before a leading digit, lowercase.
    VitePress,
}

/// The anchors of one page's headings: [`Slugs::slug`] in the order of the page's headings.
pub struct Slugs {
    style: Anchors,
    seen: HashMap<String, usize>,
}

impl Slugs {
    /// The anchors of a new page, in `style`.
    pub fn new(style: Anchors) -> Slugs {
        Slugs {
            style,
            seen: HashMap::new(),
        }
    }

    /// The anchor of the page's next heading, whose text is `text`.
    pub fn slug(&mut self, text: &str) -> String {
        let base = base(self.style, text);
        if self.style == Anchors::MkDocs {
            // Python-Markdown's `unique`: `a`, `a_1`, `a_2` (an empty one becomes `_1`).
            let mut id = base;
            while id.is_empty() || self.seen.contains_key(&id) {
                id = match id
                    .rsplit_once('_')
                    .and_then(|(s, n)| Some((s, n.parse::<u64>().ok()?)))
                {
                    Some((stem, n)) => format!("{stem}_{}", n + 1),
                    None => format!("{id}_1"),
                };
            }
            self.seen.insert(id.clone(), 0);
            return id;
        }
        if self.style == Anchors::Docutils && self.seen.contains_key(&base) {
            // docutils gives a repeated section `id1`, `id2`, … (one count a page).
            let n = self.seen.entry(String::new()).or_insert(0);
            *n += 1;
            let id = format!("id{n}");
            self.seen.insert(id.clone(), 0);
            return id;
        }
        // github-slugger's rule (the others number their repeats the same way): the base's
        // count of repeats goes up until a free anchor is found.
        let mut slug = base.clone();
        while self.seen.contains_key(&slug) {
            let n = self.seen.entry(base.clone()).or_insert(0);
            *n += 1;
            slug = format!("{base}-{n}");
        }
        self.seen.insert(slug.clone(), 0);
        slug
    }
}

/// `text` with accents removed and what is not ASCII then dropped (Python's
/// `normalize('NFKD', …).encode('ascii', 'ignore')`, for the characters a heading holds: spaces
/// of other widths are spaces, superscript digits digits, the `fi` and `fl` ligatures letters).
fn ascii(text: &str) -> String {
    let compatible: String = text
        .chars()
        .map(|c| match c {
            '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
            '¹' => '1',
            '²' => '2',
            '³' => '3',
            c => c,
        })
        .collect::<String>()
        .replace('ﬁ', "fi")
        .replace('ﬂ', "fl");
    fold_accents(&compatible)
        .chars()
        .filter(char::is_ascii)
        .collect()
}

/// A heading's anchor before repeats are numbered.
fn base(style: Anchors, text: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    match style {
        Anchors::MkDocs => {
            let t = ascii(&super::emoji::without_emoji(text));
            let kept: String = t
                .chars()
                .filter(|&c| word(c) || c.is_whitespace() || c == '-')
                .collect();
            join_runs(&kept.trim().to_lowercase(), |c| {
                c == '-' || c.is_whitespace()
            })
        }
        Anchors::GitHub | Anchors::GitLab => {
            // Letters and decimal digits: `²`, `½` or `①` are symbols to them.
            let decimal = |c: char| {
                c.is_ascii_digit()
                    || (c.is_numeric()
                        && !matches!(c, '²' | '³' | '¹' | '¼'..='¾' | '\u{2070}'..='\u{209f}'
                            | '\u{2150}'..='\u{218f}' | '\u{2460}'..='\u{24ff}'))
            };
            let s: String = text
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphabetic() || decimal(c) || c == '_' || c == '-' => Some(c),
                    _ => None,
                })
                .collect();
            if style == Anchors::GitLab {
                join_runs(&s, |c| c == '-')
            } else {
                s
            }
        }
        Anchors::Gitea => join_runs(&text.trim().to_lowercase(), |c| !(word(c) || c == '-'))
            .trim_matches('-')
            .to_string(),
        Anchors::Pandoc => {
            let kept: String = text
                .to_lowercase()
                .chars()
                .filter(|&c| word(c) || c == '-' || c == '.' || c.is_whitespace())
                .collect();
            let s: String = kept
                .split_whitespace()
                .collect::<Vec<_>>()
                .join("-")
                .chars()
                .skip_while(|c| !c.is_alphabetic())
                .collect();
            if s.is_empty() {
                "section".into()
            } else {
                s
            }
        }
        Anchors::Docutils => {
            let t = ascii(&text.to_lowercase());
            join_runs(&t, |c| !c.is_ascii_alphanumeric())
                .trim_start_matches(|c: char| c == '-' || c.is_ascii_digit())
                .trim_end_matches('-')
                .to_string()
        }
        Anchors::VitePress => {
            // Without its accents (NFKD without combining marks); every run of spaces and ASCII
            // punctuation (`_` and `-` included) one `-`.
            let t = fold_accents(text);
            let special =
                |c: char| c.is_whitespace() || c.is_ascii_punctuation() || "“”‘’".contains(c);
            let s = join_runs(&t, special);
            let s = s.trim_matches('-');
            let s = if s.starts_with(|c: char| c.is_ascii_digit()) {
                format!("_{s}")
            } else {
                s.to_string()
            };
            s.to_lowercase()
        }
    }
}

/// `s` with every run of characters that `sep` matches written as one `-`.
fn join_runs(s: &str, sep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if sep(c) {
            if !in_run {
                out.push('-');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADINGS: [&str; 5] = [
        "Exercice 1 : la pile",
        "Exercice 1 : la pile",
        "L'arbre ABR (rappel)",
        "2.1 Définition",
        "1.3.3 Mémoïsation automatique en Python (HP)",
    ];

    #[test]
    fn each_generators_anchors() {
        // Each as the generator's own rules write them for these headings.
        let cases: [(Anchors, [&str; 5]); 7] = [
            (
                Anchors::MkDocs,
                [
                    "exercice-1-la-pile",
                    "exercice-1-la-pile_1",
                    "larbre-abr-rappel",
                    "21-definition",
                    "133-memoisation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::GitHub,
                [
                    "exercice-1--la-pile",
                    "exercice-1--la-pile-1",
                    "larbre-abr-rappel",
                    "21-définition",
                    "133-mémoïsation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::GitLab,
                [
                    "exercice-1-la-pile",
                    "exercice-1-la-pile-1",
                    "larbre-abr-rappel",
                    "21-définition",
                    "133-mémoïsation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::Gitea,
                [
                    "exercice-1-la-pile",
                    "exercice-1-la-pile-1",
                    "l-arbre-abr-rappel",
                    "2-1-définition",
                    "1-3-3-mémoïsation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::Pandoc,
                [
                    "exercice-1-la-pile",
                    "exercice-1-la-pile-1",
                    "larbre-abr-rappel",
                    "définition",
                    "mémoïsation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::Docutils,
                [
                    "exercice-1-la-pile",
                    "id1",
                    "l-arbre-abr-rappel",
                    "definition",
                    "memoisation-automatique-en-python-hp",
                ],
            ),
            (
                Anchors::VitePress,
                [
                    "exercice-1-la-pile",
                    "exercice-1-la-pile-1",
                    "l-arbre-abr-rappel",
                    "_2-1-definition",
                    "_1-3-3-memoisation-automatique-en-python-hp",
                ],
            ),
        ];
        for (style, want) in cases {
            let mut slugs = Slugs::new(style);
            assert_eq!(HEADINGS.map(|h| slugs.slug(h)), want, "{style:?}");
        }
    }

    #[test]
    fn mkdocs_anchors_of_icons_other_spaces_and_repeats() {
        // What the NSI première site (MkDocs Material) wrote for this heading.
        let mut mk = Slugs::new(Anchors::MkDocs);
        let heading = "1.3.3 :arrow_right: Mémoïsation automatique en Python (HP) :star: :star:";
        assert_eq!(mk.slug(heading), "133-memoisation-automatique-en-python-hp");
        assert_eq!(mk.slug("Unité\u{a0}: m² à 10:30:45"), "unite-m2-a-103045");
        let mut mk = Slugs::new(Anchors::MkDocs);
        assert_eq!(
            ["a", "a", "a_1", ""].map(|h| mk.slug(h)),
            ["a", "a_1", "a_2", "_1"]
        );
        let mut gh = Slugs::new(Anchors::GitHub);
        assert_eq!(["a", "a-1", "a"].map(|h| gh.slug(h)), ["a", "a-1", "a-2"]);
        // What Hugo 0.111 (GitHub's style) wrote for these headings.
        let mut hugo = Slugs::new(Anchors::GitHub);
        let got = ["Les *piles* et les **files**", "Unité : m² — 10:30"].map(|h| hugo.slug(h));
        assert_eq!(got, ["les-piles-et-les-files", "unité--m--1030"]);
        // Pandoc's identifier of a heading without a letter.
        assert_eq!(Slugs::new(Anchors::Pandoc).slug("2024"), "section");
    }
}
