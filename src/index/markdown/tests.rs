//! Tests of [`super`]: front matter, blocks, headings and their anchors.

use super::*;

#[test]
fn front_matter_admonitions_and_headings() {
    let p = read(
        "---\ntitle: Les piles\nlevel: terminale\nsearch:\n  exclude: false\n---\n# Les piles\n\n## 1. Définition\n\nUne pile.\n\n!!! example \"Exercice 1\"\n    Empiler 3.\n\n    ??? tip \"Correction\"\n        ```python\n        p.push(3)\n        ```\n",
    )
    .unwrap();
    assert!(p.front.contains(&("title".into(), "Les piles".into())));
    assert!(p.front.contains(&("level".into(), "terminale".into())));
    assert!(p.excluded.is_none());
    assert!(p.html.contains("<h2 id=\"1-définition\">"), "{}", p.html);
    assert!(
        p.html.contains("<div class=\"admonition example\">"),
        "{}",
        p.html
    );
    assert!(
        p.html.contains("<summary>Correction</summary>"),
        "{}",
        p.html
    );
    assert!(p.html.contains("p.push(3)"), "{}", p.html);
    let x = read("---\nsearch:\n  exclude: true\n---\nx").unwrap();
    assert!(x.excluded.is_some());
    assert!(read("---\ntitle: [unclosed\n---\nx").is_err());
    assert!(read("---\ntitle: a\nno end").is_err());
}

#[test]
fn hugo_pages_toml_front_matter_and_shortcodes() {
    let p = read(
        "+++\ntitle = \"Les files\"\ndate = 2024-09-01\nweight = 2\ntags = [\"nsi\"]\n+++\n\n# Les files\n\nUne file.\n\n{{< details \"Correction\" >}}\nOn défile.\n{{< /details >}}\n",
    )
    .unwrap();
    assert!(p.front.contains(&("title".into(), "Les files".into())));
    assert!(p.front.contains(&("date".into(), "2024-09-01".into())));
    assert!(
        !p.html.contains("+++") && !p.html.contains("{{<"),
        "{}",
        p.html
    );
    assert!(
        p.html.contains("<summary>Correction</summary>"),
        "{}",
        p.html
    );
    assert!(read("+++\ndraft = true\n+++\nx")
        .unwrap()
        .excluded
        .is_some());
    // Jekyll's and Hugo's ways of keeping a page off the site.
    for front in ["published: false", "build:\n  render: never"] {
        let page = read(&format!("---\n{front}\n---\nx")).unwrap();
        assert!(page.excluded.is_some(), "{front}");
    }
    assert!(read("---\npublished: true\n---\nx")
        .unwrap()
        .excluded
        .is_none());
    let toml = read("+++\ntitle = 'x'\n[build]\nrender = 'never'\n+++\nx").unwrap();
    assert!(toml.excluded.is_some());
    assert!(read("+++\ntitle = \n+++\nx").is_err());
    assert!(read("+++\ntitle = 'a'\nno end").is_err());
}

#[test]
fn colon_blocks_of_docusaurus_vitepress_and_pandoc() {
    let p = read(
        "::: {.callout-tip title=\"Exercice 1\"}\nEmpiler 3.\n\n:::: {.callout-note collapse=\"true\"}\nOn obtient 3.\n::::\n:::\n\n\
         ::: {.columns}\n::: {.column width=\"50%\"}\nÀ gauche.\n:::\n:::\n\n:::tip[Astuce du jour]\nLIFO.\n:::\n\n\
         ::: details Correction\nDépiler.\n:::\n\n::: {#exr-2 .exercise}\nTrier.\n:::\n\n```md\n::: {.callout-note}\n```\nFin.\n",
    )
    .unwrap();
    let h = &p.html;
    for part in [
        "<div class=\"admonition tip\">\n<p class=\"admonition-title\">Exercice 1</p>",
        "<div class=\"admonition note\">",
        "<p class=\"admonition-title\">Astuce du jour</p>",
        "<summary>Correction</summary>",
        "<div class=\"admonition exercise\">",
        "<p>À gauche.</p>",
        "::: {.callout-note}",
        "<p>Fin.</p>",
    ] {
        assert!(h.contains(part), "{part}: {h}");
    }
    // The nested callout stays inside the exercise; the layout divs leave no block.
    let (tip, rest) = h.split_once("Exercice 1").unwrap();
    assert!(!tip.contains("On obtient") && rest.find("On obtient") < rest.find("À gauche"));
    assert!(
        !h.contains("columns") && h.matches(":::").count() == 1,
        "{h}"
    );
}

#[test]
fn pymdownx_blocks_are_read_as_admonitions_details_and_tabs_and_code_stays_code() {
    let p = read(
        "/// admonition | Exercice 2\n    type: example\n\nÉcrire `f`.\n\n//// details | Correction\n    type: tip\n\n```python\ndef f(): pass\n```\n////\n///\n\n/// tab | Énoncé\nLire.\n///\n\n/// warning\nAttention.\n///\n\n```md\n!!! note \"Dans du code\"\n```\n",
    )
    .unwrap();
    let h = &p.html;
    assert!(h.contains("<div class=\"admonition example\">"), "{h}");
    assert!(
        h.contains("<p class=\"admonition-title\">Exercice 2</p>"),
        "{h}"
    );
    assert!(
        h.contains("<details class=\"tip\">") && h.contains("<summary>Correction</summary>"),
        "{h}"
    );
    assert!(h.contains("def f(): pass"), "{h}");
    assert!(h.contains("<div data-chsr-tab=\"Énoncé\">"), "{h}");
    assert!(h.contains("<div class=\"admonition warning\">"), "{h}");
    assert!(!h.contains("///") && !h.contains("type: tip"), "{h}");
    // An admonition's syntax inside a code block is code.
    assert!(h.contains("!!! note"), "{h}");
    assert!(!h.contains("Dans du code</p>"), "{h}");
}

#[test]
fn github_alerts_are_quotes_without_their_marker() {
    // `> [!TIP]` (GitHub, Docsify 5, many course READMEs): the marker is not text.
    let p = read("> [!TIP]\n> Une pile est LIFO.\n").unwrap();
    assert!(p.html.contains("Une pile est LIFO."), "{}", p.html);
    assert!(!p.html.contains("[!TIP]"), "{}", p.html);
}

#[test]
fn a_colon_block_that_opens_with_a_heading_is_titled_by_it() {
    // Quarto's callouts and the Carpentries' Workbench: the heading is the block's title
    // (keeping its anchor) and heads nothing after it; a layout div keeps its heading.
    let html = body_html("::: challenge\n\n## From 1 to N\n\nPrint 1 to 3.\n\n:::\n\nAfter.\n");
    assert!(
        html.contains("<h2 id=\"from-1-to-n\" class=\"admonition-title\">From 1 to N</h2>"),
        "{html}"
    );
    let page = super::super::html::Reader::new(&Default::default()).read(&html, &[], false);
    let of = |t: &str| &page.ctxs[page.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let ex = of("Print 1 to 3");
    assert_eq!(ex.label.as_deref(), Some("From 1 to N"));
    assert_eq!(ex.anchor.as_deref(), Some("from-1-to-n"));
    assert!(of("After").headings.is_empty());
    let html = body_html("::: {.columns}\n\n## Deux colonnes\n\nTexte.\n\n:::\n");
    assert!(html.contains("<h2"), "{html}");
}

#[test]
fn a_block_title_has_an_anchor_only_where_the_generator_keeps_one() {
    // The Workbench keeps a challenge's heading anchor and makes its solution an accordion:
    // a solution's results open at its challenge, an anchor the built page has.
    let md = "::: challenge\n\n## From 1 to N\n\nPrint 1 to 3.\n\n::: solution\n\n## Solution\n\n\
              `range(1, 4)`.\n\n:::\n\n:::\n\n## Solution\n\nA section.\n";
    let html = body_html_with(md, &mut |t, title_of| {
        (title_of != Some("solution")).then(|| slug(t))
    });
    assert!(
        html.contains("<h2 class=\"admonition-title\">Solution</h2>"),
        "{html}"
    );
    assert!(!html.contains("data-chsr"), "{html}");
    // A heading outside any block keeps its anchor.
    assert!(html.contains("<h2 id=\"solution\">Solution</h2>"), "{html}");
    let page = super::super::html::Reader::new(&Default::default()).read(&html, &[], false);
    let of = |t: &str| &page.ctxs[page.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let solution = of("range(1, 4)");
    assert_eq!(solution.role, super::super::html::Role::Solution);
    assert_eq!(solution.anchor.as_deref(), Some("from-1-to-n"));
}

#[test]
fn kramdowns_table_of_contents_placeholder_is_left_out() {
    // A Jekyll course's weekly page: kramdown replaces the list holding `* TOC` and marked
    // `{:toc}` by the page's headings; read as written, "TOC" was a list item on every page.
    let p =
        read("# Week 5\n\n**Contents**\n\n*  TOC\n{:toc}\n\n## Due dates\n\n- Lab 4\n{: .todo}\n")
            .unwrap();
    assert!(!p.html.contains("TOC"), "{}", p.html);
    assert!(p.html.contains("<li>Lab 4</li>"), "{}", p.html);
}

#[test]
fn a_block_line_indented_less_than_its_body_keeps_every_character() {
    // A line indented by one space under an admonition, a multi-byte letter at its fourth byte
    // (it was cut at a fixed width: a panic here, its first characters lost elsewhere).
    let p = read("!!! note \"Exercice\"\n    Écrire le code.\n [Rédigez votre code](https://x.org)\n  - une liste\n").unwrap();
    assert!(p.html.contains("Rédigez votre code"), "{}", p.html);
    assert!(p.html.contains("une liste"), "{}", p.html);
}

#[test]
fn inline_code_that_names_its_language_reads_as_its_code_where_inlinehilite_shows_it() {
    assert_eq!(inline_code("#!python for x in t"), "for x in t");
    assert_eq!(inline_code(":::css p { color: red; }"), "p { color: red; }");
    // A shebang line or a comment is code as written.
    assert_eq!(inline_code("#!/bin/bash"), "#!/bin/bash");
    assert_eq!(inline_code("# !python x"), "# !python x");
    let md = "# Boucle `#!python for ... in ...`\n\nÉcrire `#!py range(3)`.\n";
    let on = Extensions {
        inline_hilite: true,
        ..Extensions::default()
    };
    let html = body_html_in(md, &mut |t, _| Some(slug(t)), on);
    assert!(html.contains("<code>for ... in ...</code>"), "{html}");
    assert!(html.contains("<code>range(3)</code>"), "{html}");
    assert!(html.contains("id=\"boucle-for-in\""), "{html}");
    let off = body_html_in(md, &mut |t, _| Some(slug(t)), Extensions::default());
    assert!(off.contains("<code>#!py range(3)</code>"), "{off}");
}

#[test]
fn a_blocks_title_is_inline_markdown_as_python_markdown_reads_it() {
    let p = read(
        "!!! note \"Définition de la classe **NP**\"\n    Texte.\n\n!!! example \"Exercice 12 <i id=\"ex1\"></i>\"\n    Texte.\n\n\
         ??? tip \"Classe `Arbre` & *fils*\"\n    Texte.\n\n!!! note \"1. Listes\"\n    Texte.\n\n=== \"Onglet **1**\"\n    Texte.\n",
    )
    .unwrap();
    let h = &p.html;
    for part in [
        "<p class=\"admonition-title\">Définition de la classe <strong>NP</strong></p>",
        "<p class=\"admonition-title\">Exercice 12 <i id=\"ex1\"></i></p>",
        "<summary>Classe <code>Arbre</code> &amp; <em>fils</em></summary>",
        // Not a list in a title; a tab's title is an attribute, as written.
        "<p class=\"admonition-title\">1. Listes</p>",
        "data-chsr-tab=\"Onglet **1**\"",
    ] {
        assert!(h.contains(part), "{part}: {h}");
    }
}

#[test]
fn python_markdown_headings_need_no_space_after_their_hashes() {
    let md = "#Exercices\n\nTexte.\n\n??? warning \"Partie difficile\"\n    ####\u{a0}B.2.3 Tentative\n\n    Suite.\n\n```python\n#commentaire\n```\n\n    #code indenté\n\n#\n";
    let on = Extensions {
        python_markdown: true,
        ..Extensions::default()
    };
    let html = body_html_in(md, &mut |t, _| Some(slug(t)), on);
    assert!(
        html.contains("<h1 id=\"exercices\">Exercices</h1>"),
        "{html}"
    );
    assert!(html.contains(">B.2.3 Tentative</h4>"), "{html}");
    // Code stays code, and an indented code block too.
    assert!(
        html.contains("#commentaire") && html.contains("#code indenté"),
        "{html}"
    );
    // CommonMark's own reading elsewhere (GitHub, Docusaurus, Hugo).
    let off = body_html_in(md, &mut |t, _| Some(slug(t)), Extensions::default());
    assert!(off.contains("<p>#Exercices</p>"), "{off}");
}

#[test]
fn python_markdown_reads_a_fence_under_html_as_code() {
    let md = "!!! exercice \"Exercice 6\"\n    <div class = \"decal1\">\n    ```python\n    def f(n):\n        return n\n    ```\n    </div>\n";
    let on = Extensions {
        python_markdown: true,
        ..Extensions::default()
    };
    let html = body_html_in(md, &mut |t, _| Some(slug(t)), on);
    assert!(
        html.contains(
            "<pre><code class=\"language-python\">def f(n):\n    return n\n</code></pre>"
        ),
        "{html}"
    );
    // CommonMark's HTML block runs on over it.
    let off = body_html_in(md, &mut |t, _| Some(slug(t)), Extensions::default());
    assert!(!off.contains("<pre>"), "{off}");
}

#[test]
fn python_markdown_reads_html_in_a_block_as_markup_and_ends_raw_html_with_its_closing_tag() {
    // A French NSI course: a centred figure caption, then a heading; in an exercise, a button
    // link between `<center>` tags; a list in a coloured `div` followed by an image.
    let md = "<center markdown=\"1\">\n\n*Arbre récursif*\n\n</center>\n## <div class = \"encadré2\">__Introduction__</div>\n\n\
              !!! exercice \"Exercice 2\"\n    Représenter l'expression.\n    <center>\n    [Correction de l'exercice 2](corrige.md#ex2)\n    </center>\n\n\
              !!! note \"Noeud\"\n    <div class=\"puce\">\n\n    * la racine\n    </div>\n    ![Illustration](images/arbre.png)\n    ```html\n    <div>\n    ```\n";
    let on = Extensions {
        python_markdown: true,
        md_in_html: true,
        ..Extensions::default()
    };
    let html = body_html_in(md, &mut |t, _| Some(slug(t)), on);
    for part in [
        "<h2 id=\"introduction\"><div class = \"encadré2\"><strong>Introduction</strong></div></h2>",
        "<a href=\"corrige.md#ex2\">Correction de l'exercice 2</a>",
        "<img src=\"images/arbre.png\" alt=\"Illustration\" />",
        // Code stays as written.
        "<code class=\"language-html\">&lt;div&gt;\n</code>",
    ] {
        assert!(html.contains(part), "{part}: {html}");
    }
    // CommonMark's reading elsewhere: raw HTML until a blank line.
    let off = body_html_in(md, &mut |t, _| Some(slug(t)), Extensions::default());
    assert!(off.contains("## <div class"), "{off}");
}

#[test]
fn python_markdown_expands_tabs_before_reading_blocks() {
    // A quiz whose tabs are indented with a tab, their items with a tab and four spaces, the
    // correction's with two tabs: Python-Markdown expands tabs to four columns first.
    let md = "!!! check \"Cocher les affirmations correctes\"\n\t=== \"Proposition\"\n\t    - [ ] Tri par insertion.\n\n\t=== \"Solution\"\n\n\t\t- [x] Tri par sélection.\n\n```sql\nSELECT\t*\n```\n";
    let on = Extensions {
        python_markdown: true,
        ..Extensions::default()
    };
    let html = body_html_in(md, &mut |t, _| Some(slug(t)), on);
    let solution = html
        .split("data-chsr-tab=\"Solution\"")
        .nth(1)
        .unwrap_or("");
    assert!(solution.contains("Tri par sélection"), "{html}");
    assert!(!solution.contains("Tri par insertion"), "{html}");
    // In code too, to the next multiple of four columns.
    assert!(html.contains("SELECT  *"), "{html}");
    assert_eq!(
        raw_html::normalized_whitespace("a\tb\n  \n\tc"),
        "a   b\n\n    c"
    );
}
