//! reveal.js slide decks written in Markdown: each `<section data-markdown>` holds its slides'
//! Markdown in a `<textarea data-template>` (or a `<script type="text/template">`), which the
//! deck's own script renders in the browser. Read as it is, a deck has no text for the indexer
//! (a `textarea` is never read); rendered here first with the Markdown reader of the sources,
//! its slides are read like any HTML page (the `---` between slides becomes a rule, and each
//! slide's heading starts a section, as a slide deck's titles do). remark.js decks (R's
//! `xaringan`) are read the same way ([`remark`]).

use regex::Regex;
use std::sync::LazyLock;

mod remark;

/// The template of a `data-markdown` section: the section's start tag, then the element holding
/// its Markdown (a textarea's text, group 2, or a script's, group 3).
static TEMPLATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?is)(<section\b[^>]*\bdata-markdown\b[^>]*>\s*)(?:<textarea\b[^>]*\bdata-template\b[^>]*>(.*?)</textarea>|<script\b[^>]*\btype\s*=\s*["']?text/template["']?[^>]*>(.*?)</script>)"#,
    )
    .expect("valid regex")
});

/// `html` with the Markdown of every reveal.js `data-markdown` section rendered in place of the
/// element that holds it, or a remark.js deck's source rendered slide by slide; `html` itself
/// when it has none (a section that names an external Markdown file, `data-markdown="slides.md"`,
/// holds no template and is left as it is).
pub fn markdown_slides(html: &str) -> std::borrow::Cow<'_, str> {
    if let Some(deck) = remark::deck(html) {
        return deck.into();
    }
    if !html.contains("data-markdown") {
        return html.into();
    }
    TEMPLATE.replace_all(html, |c: &regex::Captures<'_>| {
        // A textarea's text is the page's characters with their references decoded (what the
        // deck's script reads, `textContent`); a script's is as written.
        let md = match c.get(2) {
            Some(textarea) => decode_references(textarea.as_str()),
            None => c[3].to_string(),
        };
        format!("{}{}", &c[1], super::markdown::body_html(&dedent(&md)))
    })
}

/// `text` with its character references decoded: the five of XML and numeric ones (`&#60;`,
/// `&#x3C;`); any other `&…;` is kept as written.
fn decode_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // (bytes, not characters: a reference is ASCII, and what follows a bare `&` may not be)
        let end = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&b| b == b';');
        let decoded = end.and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => name.strip_prefix('#').and_then(|n| {
                    match n.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok(),
                        None => n.parse().ok(),
                    }
                    .and_then(char::from_u32)
                }),
            };
            c.map(|c| (c, end + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The template's lines without the indentation they all share (a deck's templates are often
/// indented with the HTML around them, which Markdown would read as code).
fn dedent(md: &str) -> String {
    let indent = md
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    md.lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_textarea_s_references_are_decoded_as_a_browser_decodes_them() {
        assert_eq!(
            decode_references("&#60;ol&#x3E; &amp;lt; &quot;q&apos; &nbsp; &#xZZ; & a;"),
            "<ol> &lt; \"q' &nbsp; &#xZZ; & a;"
        );
        // A bare `&` before text that is not ASCII (a deck's "&gt; PS — …" once stopped the
        // indexer).
        assert_eq!(decode_references("R&D and cow— €;"), "R&D and cow— €;");
        assert_eq!(decode_references("&amp;é"), "&é");
    }

    #[test]
    fn markdown_slides_are_rendered_in_place_and_other_pages_are_unchanged() {
        let deck = r#"<div class="reveal"><div class="slides"><section>
<section data-markdown><textarea data-template>
    # MPI: an introduction

    Processes send **messages**; `a &lt; b`.

    ---

    ## Point-to-point

    - send
    - receive
</textarea></section>
<section data-markdown><script type="text/template">## Collectives
Broadcast to every rank: `x < y`, &copy; kept.</script></section>
<section data-markdown="slides.md"></section>
<section><h2>Plain slide</h2><p>Already HTML.</p></section>
</section></div></div>"#;
        let out = markdown_slides(deck);
        assert!(
            !out.contains("textarea") && !out.contains("text/template"),
            "{out}"
        );
        assert!(
            out.contains("<h1 id=\"mpi-an-introduction\">MPI: an introduction</h1>"),
            "{out}"
        );
        assert!(
            out.contains("<strong>messages</strong>; <code>a &lt; b</code>"),
            "{out}"
        );
        assert!(out.contains("<li>receive</li>"), "{out}");
        assert!(
            out.contains("<h2 id=\"collectives\">Collectives</h2>"),
            "{out}"
        );
        assert!(out.contains("<code>x &lt; y</code>, © kept."), "{out}");
        assert!(
            out.contains(r#"<section data-markdown="slides.md"></section>"#),
            "{out}"
        );
        assert!(out.contains("<h2>Plain slide</h2>"), "{out}");
        let page =
            "<html><body><main><p>A textarea: <textarea>x</textarea></p></main></body></html>";
        assert!(matches!(
            markdown_slides(page),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
