//! Tests of the HTML reader on how a page's text is written: inline code, code blocks' blank
//! lines, list items' paragraphs.
use super::*;

fn read(html: &str) -> PageText {
    Reader::new(&Structure::default()).read(html, &[], false)
}

#[test]
fn inline_code_is_read_without_the_spaces_around_it() {
    // A Markdown source's `` `lst ` ``: CommonMark keeps the space, Python-Markdown (the built
    // MkDocs page) strips it; a student sees `lst` either way.
    let p = read(
        "<main><p>Dans <code>lst </code>, <kbd> Ctrl </kbd> et <code>a b</code> ; une espace : <code> </code>.</p></main>",
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["Dans `lst`, `Ctrl` et `a b` ; une espace : ` `."]);
}

#[test]
fn a_code_lines_of_spaces_only_are_empty_and_its_indentation_stays() {
    // A Markdown source's code block in an admonition keeps the spaces of its blank lines
    // beyond the admonition's indentation; the built MkDocs page has none there.
    let p = read(
        "<main><pre><code class=\"language-python\">def f():\n    x = 1\n    \n    return x\n  \n</code></pre></main>",
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        ["```python\ndef f():\n    x = 1\n\n    return x\n```"]
    );
}

#[test]
fn a_list_items_second_paragraph_continues_it_and_is_no_item_of_its_own() {
    let p = read(
        "<main><ul><li><p>Corriger l'erreur.</p><p>Puis exécuter.</p><ul><li>Sous-point.</li></ul><p>Fin de l'item.</p></li><li>Autre item.</li></ul></main>",
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "- Corriger l'erreur.",
            "  Puis exécuter.",
            "  - Sous-point.",
            "  Fin de l'item.",
            "- Autre item."
        ]
    );
}
