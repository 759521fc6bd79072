//! remark.js slide decks (R's `xaringan`, the usual way R courses make their slides): the deck's
//! Markdown is the text of a `<textarea id="source">` that `remark.create()` renders in the
//! browser. Read as it is, a deck has no text for the indexer (a `textarea` is never read); each
//! slide is rendered here first with the Markdown reader of the sources, in a `<section>` of its
//! own (a slide's heading heads that slide), as remark shows it:
//!
//! - slides are split at a line `---`, and a line `--` (the next part of the same slide, shown
//!   on a click) joins what is around it;
//! - the `name: value` lines that open a slide are its properties, not text, and a layout slide
//!   (`layout: true`, the template of the slides after it) or an excluded one (`exclude: true`)
//!   is not shown;
//! - what follows a line `???` is the presenter's notes, not shown to students;
//! - a content class (`.pull-left[…]`, `.footnote[…]`, chained `.small.red[…]`) shows what its
//!   brackets hold;
//! - an `<img>` is no text, even written as the browser reads it but CommonMark does not.
//!
//! Code blocks are kept as written.

use crate::index::markdown::{body_html_with, Fences};
use regex::Regex;
use std::sync::LazyLock;

/// The deck's source: a `textarea` whose `id` is `source` (group 1, its text).
static SOURCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?is)<textarea\b[^>]*\bid\s*=\s*["']?source\b["']?[^>]*>(.*?)</textarea>"#)
        .expect("valid regex")
});

/// A slide property: `name: value` at the slide's start.
static PROPERTY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z][\w-]*):\s*(.*?)\s*$").expect("valid regex"));

/// A content class opening: `.name[` (names chained by dots), group 0 up to the bracket.
static CLASS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\.[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*\[").expect("valid regex"));

/// `html` with a remark deck's source rendered in place of its `textarea`, slide by slide;
/// `None` when the page is no remark deck (no script calls `remark.create`, or no source).
pub(super) fn deck(html: &str) -> Option<String> {
    if !html.contains("remark.create") {
        return None;
    }
    let m = SOURCE.captures(html)?;
    let whole = m.get(0)?;
    let md = super::decode_references(&m[1]);
    // Each slide opens at remark's address for it: its `name`, else its number (the parts a
    // `--` adds are numbered as slides of their own).
    let mut number = 1;
    let mut slides = String::new();
    for s in split(&md).iter().filter_map(|s| slide(s)) {
        let id = s.name.unwrap_or_else(|| number.to_string());
        number += 1 + s.steps;
        // The headings have no anchors: remark opens a slide by its address, not a heading's.
        let html = body_html_with(&s.md, &mut |_, _| None);
        slides.push_str(&format!(
            "<section class=\"remark-slide\" id=\"{}\">\n{html}\n</section>\n",
            id.replace(['"', '<', '>', '&'], "")
        ));
    }
    Some(format!(
        "{}<div class=\"remark-slides\">\n{slides}</div>{}",
        &html[..whole.start()],
        &html[whole.end()..]
    ))
}

/// The deck's slides, split at `---` lines outside code blocks.
fn split(md: &str) -> Vec<String> {
    let mut slides = vec![String::new()];
    let mut fences = Fences::default();
    for line in md.lines() {
        if !fences.code(line) && line.trim_end() == "---" {
            slides.push(String::new());
            continue;
        }
        let s = slides.last_mut().expect("one slide at least");
        s.push_str(line);
        s.push('\n');
    }
    slides
}

/// A slide as remark shows it.
struct Slide {
    /// Its `name` property, which remark opens it by.
    name: Option<String>,
    /// How many `--` it holds: the parts remark numbers as slides of their own.
    steps: usize,
    /// Its Markdown, without its properties, its `--` lines, its presenter's notes and its
    /// content classes' markup.
    md: String,
}

/// A slide of the deck; `None` for one not shown (a layout or an excluded slide).
fn slide(s: &str) -> Option<Slide> {
    let mut lines = s.lines().skip_while(|l| l.trim().is_empty()).peekable();
    let mut name = None;
    while let Some(c) = lines.peek().and_then(|l| PROPERTY.captures(l)) {
        let (key, value) = (c[1].to_ascii_lowercase(), c[2].to_string());
        let on = value.eq_ignore_ascii_case("true");
        if (key == "layout" || key == "exclude") && on {
            return None;
        }
        if key == "name" && !value.is_empty() {
            name = Some(value);
        }
        lines.next();
    }
    let mut out = String::new();
    let mut steps = 0;
    let mut fences = Fences::default();
    for line in lines {
        let code = fences.code(line);
        if !code && line.trim_end() == "???" {
            break;
        }
        if !code && line.trim_end() == "--" {
            steps += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Some(Slide {
        name,
        steps,
        md: images(&classes(&out)),
    })
}

/// `md` without its `<img …>` tags, outside code blocks and code spans. An image is no text,
/// and the browser reads a tag that CommonMark does not (`<img src = "a.png", width = 80%>`,
/// as slides write them, the comma no attribute's end), which would show as text.
fn images(md: &str) -> String {
    static IMG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)<img\b[^>]*>").expect("valid regex"));
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    for line in md.lines() {
        if fences.code(line) || !line.contains('<') {
            out.push_str(line);
        } else {
            // Code spans (between backticks) are the odd pieces.
            for (i, piece) in line.split('`').enumerate() {
                if i > 0 {
                    out.push('`');
                }
                if i % 2 == 0 {
                    out.push_str(&IMG.replace_all(piece, ""));
                } else {
                    out.push_str(piece);
                }
            }
        }
        out.push('\n');
    }
    out
}

/// `md` with content classes' markup out (`.pull-left[text]` → `text`), outside code blocks and
/// code spans; other brackets (links, `[1]`) kept.
fn classes(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    // For each open bracket, whether it opened a content class (its `]` is markup too).
    let mut open: Vec<bool> = Vec::new();
    for line in md.lines() {
        if fences.code(line) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let mut in_code = false;
        let mut i = 0;
        while i < line.len() {
            let rest = &line[i..];
            let c = rest.chars().next().unwrap_or(' ');
            let after_space = line[..i]
                .chars()
                .next_back()
                .is_none_or(|p| p.is_whitespace() || p == '[');
            if c == '`' {
                in_code = !in_code;
            } else if !in_code && c == '.' && after_space {
                if let Some(m) = CLASS.find(rest) {
                    open.push(true);
                    i += m.end();
                    continue;
                }
            } else if !in_code && c == '[' {
                open.push(false);
            } else if !in_code && c == ']' && open.pop() == Some(true) {
                i += 1;
                continue;
            }
            out.push(c);
            i += c.len_utf8();
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xaringan deck as R Markdown writes it: the title slide, a layout slide, two columns, a
    /// slide shown in two clicks, notes, an excluded slide.
    const DECK: &str = r#"<html><head><title>Lecture 2</title></head><body>
<textarea id="source">
class: center, middle, inverse, title-slide

# Data Science for Economists
## Lecture 2: Version control with Git

---
layout: true
# Header of every slide

---
name: prologue

# Why Git?

.pull-left[
- Track **changes** in [files](https://git-scm.com)
<img src = "git_files/commit.png", width = 80%>
]
.pull-right[.small[Every change is saved.]]

--

And shared: `x[1] &lt;- 2`, with `&lt;img&gt;`.

```r
y &lt;- c(1, 2)[2]
.keep[this]
```

???
Remind them of the lab.

---
exclude: true

# Draft slide
</textarea>
<script src="https://remarkjs.com/downloads/remark-latest.min.js"></script>
<script>var slideshow = remark.create({ratio: '16:9'});</script></body></html>"#;

    #[test]
    fn a_remark_deck_is_read_slide_by_slide_as_remark_shows_it() {
        let out = deck(DECK).expect("a remark deck");
        assert!(!out.contains("<textarea"), "{out}");
        // Each slide opens at its address in the deck: its name, else its number (the layout
        // slide is none).
        assert!(
            out.contains("<section class=\"remark-slide\" id=\"1\">"),
            "{out}"
        );
        assert!(
            out.contains("<section class=\"remark-slide\" id=\"prologue\">"),
            "{out}"
        );
        assert_eq!(out.matches("<section class=\"remark-slide\"").count(), 2);
        // Properties, the layout slide, notes and the excluded slide are not shown.
        for hidden in [
            "class: center",
            "Header of every slide",
            "name: prologue",
            "Remind them",
            "Draft slide",
            "pull-left",
            "--",
        ] {
            assert!(!out.contains(hidden), "{hidden}: {out}");
        }
        assert!(out.contains("<h1>Why Git?</h1>"), "{out}");
        assert!(
            out.contains(
                "Track <strong>changes</strong> in <a href=\"https://git-scm.com\">files</a>"
            ),
            "{out}"
        );
        assert!(out.contains("<p>Every change is saved.</p>"), "{out}");
        assert!(
            out.contains("And shared: <code>x[1] &lt;- 2</code>, with <code>&lt;img&gt;</code>."),
            "{out}"
        );
        // An image is no text, even written as the browser reads it but CommonMark does not.
        assert!(!out.contains("commit.png"), "{out}");
        // Code is kept as written, a content class's look-alike in it too.
        assert!(out.contains("y &lt;- c(1, 2)[2]\n.keep[this]"), "{out}");
    }

    #[test]
    fn slides_are_numbered_as_remark_numbers_them() {
        // A slide shown in three clicks counts three; a named slide keeps its number.
        let md = "# One\n\n--\n\nmore\n\n--\n\nend\n\n---\nname: two\n\n# Two\n\n---\n\n# Three\n";
        let page =
            format!("<textarea id=\"source\">{md}</textarea><script>remark.create()</script>");
        let out = deck(&page).unwrap();
        assert!(out.contains("id=\"1\""), "{out}");
        assert!(out.contains("id=\"two\""), "{out}");
        assert!(out.contains("id=\"5\""), "{out}");
    }

    #[test]
    fn a_page_without_remark_is_no_deck() {
        let page = DECK.replace("remark.create", "other.create");
        assert_eq!(deck(&page), None);
    }
}
