//! Math that MathJax 3 rendered when the site was built (VitePress' `markdown.math`, which
//! runs `markdown-it-mathjax3`; `mathjax-node` and other pre-renderers): an SVG picture, or
//! CommonHTML elements, whose characters are only named by code point (`data-c="1D465"` on each
//! glyph, `mjx-c1D465` as a class), the TeX it came from gone. Read as nothing, every formula
//! of such a site was lost ("… are replaced by" and no grammar). The glyphs are read back in
//! the order of the MathML tree MathJax keeps (`data-mml-node`, or the `mjx-*` element names),
//! as TeX-like text: `E → E + T`, `x^{2}`, `\frac{a}{b}`, a table's rows split by `\\`.

use scraper::{ElementRef, Node};

/// The text of a MathJax 3 output element (`mjx-container` without its TeX), `$…$`, or
/// `$$…$$` when displayed; `None` when it holds no glyph MathJax named.
pub(super) fn glyphs(container: ElementRef<'_>) -> Option<String> {
    let mut out = String::new();
    node(container, &mut out);
    let text = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    let display = container.value().attr("display") == Some("true");
    Some(if display {
        format!("$${text}$$")
    } else {
        format!("${text}$")
    })
}

/// The MathML element an output element draws: SVG's `data-mml-node`, CommonHTML's element
/// name (`mjx-mi` → `mi`).
fn kind<'a>(e: &'a ElementRef<'_>) -> Option<&'a str> {
    let v = e.value();
    v.attr("data-mml-node")
        .or_else(|| v.name().strip_prefix("mjx-"))
}

/// The MathML children of `e`: the nearest descendants that draw a MathML element.
fn parts<'a>(e: ElementRef<'a>) -> Vec<ElementRef<'a>> {
    let mut out = Vec::new();
    for c in e.children().filter_map(ElementRef::wrap) {
        if kind(&c).is_some_and(is_node) {
            out.push(c);
        } else {
            out.extend(parts(c));
        }
    }
    out
}

/// Whether a name is one of MathML's (CommonHTML also names its glyphs and boxes `mjx-c`,
/// `mjx-num`, `mjx-box`, …, which are not: what they hold is read through them).
fn is_node(k: &str) -> bool {
    k.starts_with('m') || k == "TeXAtom" || k == "semantics"
}

fn node(e: ElementRef<'_>, out: &mut String) {
    let kids = parts(e);
    let write = |i: usize, out: &mut String| {
        if let Some(k) = kids.get(i) {
            let mut s = String::new();
            node(*k, &mut s);
            out.push_str(s.trim());
        }
    };
    let braced = |i: usize, out: &mut String| {
        out.push('{');
        write(i, out);
        out.push('}');
    };
    match kind(&e).unwrap_or("") {
        "mi" | "mn" | "mtext" | "ms" => chars(e, out),
        "mo" => {
            let mut op = String::new();
            chars(e, &mut op);
            match op.as_str() {
                "(" | "[" | "{" | "|" => out.push_str(&op),
                ")" | "]" | "}" | "," | "." | ";" | "!" | "'" | "′" => {
                    while out.ends_with(' ') {
                        out.pop();
                    }
                    out.push_str(&op);
                    if op == "," || op == ";" {
                        out.push(' ');
                    }
                }
                _ => {
                    out.push(' ');
                    out.push_str(&op);
                    out.push(' ');
                }
            }
        }
        "mspace" => out.push(' '),
        "mphantom" => {}
        "msup" | "mover" => {
            write(0, out);
            out.push('^');
            braced(1, out);
        }
        "msub" | "munder" => {
            write(0, out);
            out.push('_');
            braced(1, out);
        }
        "msubsup" | "munderover" => {
            write(0, out);
            out.push('_');
            braced(1, out);
            out.push('^');
            braced(2, out);
        }
        "mfrac" => {
            out.push_str("\\frac");
            braced(0, out);
            braced(1, out);
        }
        "msqrt" => {
            out.push_str("\\sqrt{");
            for k in &kids {
                node(*k, out);
            }
            out.push('}');
        }
        "mroot" => {
            out.push_str("\\sqrt[");
            write(1, out);
            out.push(']');
            braced(0, out);
        }
        // A table's rows split by `\\`, a row's cells by `&`.
        k @ ("mtable" | "mtr" | "mlabeledtr") => {
            let split = if k == "mtable" { " \\\\ " } else { " & " };
            for (i, part) in kids.iter().enumerate() {
                if i > 0 {
                    out.push_str(split);
                }
                node(*part, out);
            }
        }
        _ => {
            for k in &kids {
                node(*k, out);
            }
        }
    }
}

/// The characters a token draws: its glyphs' code points (SVG `data-c`, CommonHTML's
/// `mjx-cXXXX` class), and text MathJax wrote as text (an SVG `<text>`, CommonHTML's text).
fn chars(e: ElementRef<'_>, out: &mut String) {
    for d in e.descendants() {
        match d.value() {
            Node::Element(v) => {
                let code = v.attr("data-c").or_else(|| {
                    v.classes()
                        .find_map(|c| c.strip_prefix("mjx-c").filter(|h| !h.is_empty()))
                });
                if let Some(c) = code
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
                {
                    out.push(plain(c));
                }
            }
            Node::Text(t) => out.push_str(t),
            _ => {}
        }
    }
}

/// A mathematical alphanumeric symbol as the letter or digit it styles (`𝑥` → `x`, `𝐁` → `B`,
/// `𝜋` → `π`, `𝟐` → `2`), as compatibility normalisation reads it; any other character as it is.
fn plain(c: char) -> char {
    let u = c as u32;
    let letter = |i: u32| {
        if i < 26 {
            char::from_u32('A' as u32 + i)
        } else {
            char::from_u32('a' as u32 + i - 26)
        }
    };
    let greek = |i: u32| match i {
        17 => Some('ϴ'),
        0..=24 => char::from_u32(0x391 + i),
        25 => Some('∇'),
        26..=50 => char::from_u32(0x3B1 + i - 26),
        51 => Some('∂'),
        _ => ['ϵ', 'ϑ', 'ϰ', 'ϕ', 'ϱ', 'ϖ']
            .get((i - 52) as usize)
            .copied(),
    };
    let mapped = match u {
        0x210E => Some('h'),
        0x1D400..=0x1D6A3 => letter((u - 0x1D400) % 52),
        0x1D6A4 => Some('ı'),
        0x1D6A5 => Some('ȷ'),
        0x1D6A8..=0x1D7C9 => greek((u - 0x1D6A8) % 58),
        0x1D7CE..=0x1D7FF => char::from_u32('0' as u32 + (u - 0x1D7CE) % 10),
        _ => None,
    };
    mapped.unwrap_or(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::{Html, Selector};

    fn read(html: &str) -> Option<String> {
        let doc = Html::parse_fragment(html);
        let sel = Selector::parse("mjx-container").unwrap();
        let c = doc.select(&sel).next().unwrap();
        glyphs(c)
    }

    #[test]
    fn styled_letters_digits_and_greek_read_as_themselves() {
        assert_eq!(plain('\u{1D465}'), 'x'); // 𝑥, italic
        assert_eq!(plain('\u{1D401}'), 'B'); // 𝐁, bold
        assert_eq!(plain('\u{1D70B}'), 'π'); // 𝜋, italic
        assert_eq!(plain('\u{1D6BA}'), 'Σ'); // 𝚺, bold
        assert_eq!(plain('\u{1D7D0}'), '2'); // 𝟐, bold
        assert_eq!(plain('\u{210E}'), 'h'); // ℎ, italic h
        assert_eq!(plain('→'), '→');
    }

    #[test]
    fn an_svg_formula_reads_as_its_glyphs_in_the_order_of_its_tree() {
        // What markdown-it-mathjax3 writes for `$x^2 + \frac{a}{b}$` (paths without their
        // outlines): the script after its base, the fraction's parts in order.
        let svg = r#"<mjx-container class="MathJax" jax="SVG"><svg><g data-mml-node="math">
            <g data-mml-node="msup"><g data-mml-node="mi"><path data-c="1D465"></path></g>
            <g data-mml-node="mn"><path data-c="32"></path></g></g>
            <g data-mml-node="mo"><path data-c="2B"></path></g>
            <g data-mml-node="mfrac"><g data-mml-node="mi"><path data-c="1D44E"></path></g>
            <g data-mml-node="mi"><path data-c="1D44F"></path></g><rect></rect></g></g></svg></mjx-container>"#;
        assert_eq!(read(svg).as_deref(), Some("$x^{2} + \\frac{a}{b}$"));
        // A displayed grammar rule, a table of its alternatives.
        let rule = r#"<mjx-container class="MathJax" jax="SVG" display="true"><svg><g data-mml-node="math">
            <g data-mml-node="mtable"><g data-mml-node="mtr"><g data-mml-node="mtd"><g data-mml-node="mi"><path data-c="1D438"></path></g></g>
            <g data-mml-node="mtd"><g data-mml-node="mo"><path data-c="2192"></path></g></g>
            <g data-mml-node="mtd"><g data-mml-node="mtext"><path data-c="1D422"></path><path data-c="1D41F"></path></g>
            <g data-mml-node="mstyle"><g data-mml-node="mspace"></g></g><g data-mml-node="mi"><path data-c="1D447"></path></g></g></g>
            <g data-mml-node="mtr"><g data-mml-node="mtd"></g><g data-mml-node="mtd"><g data-mml-node="mo"><path data-c="7C"></path></g></g>
            <g data-mml-node="mtd"><g data-mml-node="mi"><path data-c="1D700"></path></g></g></g></g></g></svg></mjx-container>"#;
        assert_eq!(read(rule).as_deref(), Some("$$E & → & if T \\\\ & | & ε$$"));
    }

    #[test]
    fn commonhtml_output_reads_the_same() {
        // MathJax 3's CommonHTML output names each glyph by a class: `f(x)`.
        let chtml = r#"<mjx-container class="MathJax CtxtMenu_Attached_0" jax="CHTML"><mjx-math class="MJX-TEX">
            <mjx-mi class="mjx-i"><mjx-c class="mjx-c1D453 TEX-I"></mjx-c></mjx-mi><mjx-mo class="mjx-n"><mjx-c class="mjx-c28"></mjx-c></mjx-mo>
            <mjx-mi class="mjx-i"><mjx-c class="mjx-c1D465 TEX-I"></mjx-c></mjx-mi><mjx-mo class="mjx-n"><mjx-c class="mjx-c29"></mjx-c></mjx-mo>
            </mjx-math></mjx-container>"#;
        assert_eq!(read(chtml).as_deref(), Some("$f(x)$"));
        // Nothing MathJax named: no text.
        assert_eq!(read(r#"<mjx-container><svg></svg></mjx-container>"#), None);
    }
}
