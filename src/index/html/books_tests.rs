//! Tests of the HTML reader on book generators' pages: Asciidoctor (AsciiDoc courses, Antora
//! sites), bookdown and Quarto's classed blocks, LaTeXML's notes converted from LaTeX.
use super::*;

#[test]
fn asciidoctor_blocks_are_read_as_their_titles_say() {
    let p = Reader::new(&Structure::default()).read(
        r##"<html lang="fr"><body class="article"><div id="header"><h1>Les boucles</h1>
        <div id="toc" class="toc2"><div id="toctitle">Table des matières</div></div></div>
        <div id="content"><div class="sect1"><h2 id="_la_boucle_for">1. La boucle for</h2><div class="sectionbody">
        <div class="paragraph"><p>Une boucle répète un bloc.</p></div>
        <div class="admonitionblock tip"><table><tr><td class="icon"><div class="title">Astuce</div></td>
        <td class="content">Utiliser <code>range</code> pour compter.</td></tr></table></div>
        <div class="exampleblock"><div class="title">Exemple 1. Exercice 1</div>
        <div class="content"><div class="paragraph"><p>Afficher les entiers de 1 à 3.</p></div></div></div>
        <div class="listingblock"><div class="title">Correction</div><div class="content">
        <pre class="highlight"><code class="language-python" data-lang="python">for i in range(1, 4):
    print(i)</code></pre></div></div>
        <div class="listingblock"><div class="content"><pre>print("fin")</pre></div></div>
        </div></div></div><div id="footer"><div id="footer-text">Dernière mise à jour 2024-09-01</div></div>
        </body></html>"##,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    // An admonition is its title in bold and its text, not a table of its icon and text cells.
    assert_eq!(
        texts,
        [
            "Une boucle répète un bloc.",
            "**Astuce**",
            "Utiliser `range` pour compter.",
            "Afficher les entiers de 1 à 3.",
            "```python\nfor i in range(1, 4):\n    print(i)\n```",
            "```\nprint(\"fin\")\n```",
        ]
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    // The example's caption ("Exemple 1. ") is Asciidoctor's; the title is the author's.
    let ex = of("Afficher");
    assert_eq!(
        (ex.role, ex.label.as_deref()),
        (Role::Exercise, Some("Exercice 1"))
    );
    let sol = of("range(1, 4)");
    assert_eq!((sol.role, sol.answers), (Role::Solution, ex.unit));
    assert_eq!(of("fin").role, Role::Prose);
}

#[test]
fn bookdown_exercise_and_solution_blocks_are_an_exercise_and_its_correction() {
    // bookdown's theorem-like blocks (`::: {.exercise}`, `::: {.solution}`), as in R courses.
    let p = Reader::new(&Structure::default()).read(
        r##"<html lang="en"><body><div class="book"><div class="page-wrapper" role="main">
        <section class="normal" id="section-"><div id="loops" class="section level1">
        <h1><span class="header-section-number">2</span> Loops</h1><p>A for loop repeats.</p>
        <div class="exercise"><p><span id="exr:sum" class="exercise"><strong>Exercise 2.1  </strong></span>Sum 1 to 10 with a loop.</p></div>
        <div class="solution"><p><span class="solution"><em>Solution</em>. </span>Add each to <code>s</code>.</p></div>
        <p>After the exercise.</p></div></section></div></div></body></html>"##,
        &[],
        false,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let ex = of("Sum 1 to 10");
    assert_eq!(ex.role, Role::Exercise);
    // The space that ends the bold label still separates it from the statement.
    assert!(p
        .blocks
        .iter()
        .any(|b| b.text == "**Exercise 2.1** Sum 1 to 10 with a loop."));
    let sol = of("Add each");
    assert_eq!((sol.role, sol.answers), (Role::Solution, ex.unit));
    assert_eq!(of("After the exercise").role, Role::Prose);
}

#[test]
fn latexml_notes_read_their_math_as_tex_and_their_items_with_their_labels() {
    // A problem set written in LaTeX and converted by LaTeXML: MathML with the TeX in
    // `alttext`, a displayed equation as a table of its number's cells and its own, items
    // labelled "(a)" by text, and the author's name under the title.
    let p = Reader::new(&Structure::default()).read(
        r##"<html lang="en"><body><div class="ltx_page_main"><div class="ltx_page_content"><article class="ltx_document">
        <h1 class="ltx_title ltx_title_document">Problem Set 3</h1>
        <div class="ltx_authors"><span class="ltx_creator ltx_role_author"><span class="ltx_personname">Maximilian Pechmann</span></span></div>
        <section class="ltx_section"><h2 class="ltx_title ltx_title_section">Problem 1</h2>
        <p class="ltx_p">For a <math class="ltx_Math" alttext="2\times 2" display="inline"><mrow><mn>2</mn><mo>×</mo><mn>2</mn></mrow></math> matrix</p>
        <table class="ltx_equation ltx_eqn_table"><tbody><tr class="ltx_equation ltx_eqn_row"><td class="ltx_eqn_cell ltx_eqn_center_padleft"></td>
        <td class="ltx_eqn_cell"><math class="ltx_Math" alttext="A=\begin{bmatrix}a&amp;b\\
        c&amp;d\end{bmatrix}," display="block"><mrow><mi>A</mi><mo>=</mo><mtable><mtr><mtd><mi>a</mi></mtd><mtd><mi>b</mi></mtd></mtr></mtable></mrow></math></td>
        <td class="ltx_eqn_cell ltx_eqn_center_padright"></td></tr></tbody></table>
        <ol class="ltx_enumerate"><li class="ltx_item" style="list-style-type:none;"><span class="ltx_tag ltx_tag_item">(a)</span>
        <div class="ltx_para"><p class="ltx_p"><math class="ltx_Math" alttext="A^{-1}" display="inline"><msup><mi>A</mi><mn>-1</mn></msup></math></p></div></li></ol>
        </section></article></div></div></body></html>"##,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    // MathML without `alttext` gives the TeX of its annotation.
    let q = Reader::new(&Structure::default()).read(
        r##"<html><body><main><p>So <math><semantics><msup><mi>x</mi><mn>2</mn></msup>
        <annotation encoding="application/x-TeX">x^2</annotation></semantics></math>.</p></main></body></html>"##,
        &[],
        false,
    );
    assert_eq!(q.blocks[0].text, "So $x^2$.");
    assert_eq!(
        texts,
        [
            "For a $2\\times 2$ matrix",
            "$$A=\\begin{bmatrix}a&b\\\\ c&d\\end{bmatrix},$$",
            "- (a) $A^{-1}$",
        ]
    );
}

#[test]
fn tex_macro_definitions_are_not_text() {
    // Quarto and Pandoc courses define their macros in a hidden block that MathJax reads.
    let p = Reader::new(&Structure::default()).read(
        r##"<html><body><main><h1>2 Introducing Splines</h1><div class="hidden">
        <p><span class="math display">\[
        \def\b#1{\mathbf{#1}}
        \]</span></p></div><p>Here is a short video.</p>
        <p><span class="math display">\[\b{x}^T \b{y}\]</span></p></main></body></html>"##,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["Here is a short video.", "$$\\b{x}^T \\b{y}$$"]);
}

#[test]
fn mathjax_svg_without_its_tex_is_read_in_the_paragraph() {
    // A VitePress course (`markdown.math`): the formula is an SVG of glyphs; its sentence
    // read "are replaced by" alone.
    let p = Reader::new(&Structure::default()).read(
        r#"<main><div class="vp-doc"><p><mjx-container class="MathJax" jax="SVG"><svg role="img"><g data-mml-node="math">
        <g data-mml-node="mi"><path data-c="1D438" d="M1 2"></path></g><g data-mml-node="mo"><path data-c="2192"></path></g>
        <g data-mml-node="mi"><path data-c="1D447"></path></g></g></svg></mjx-container> are replaced by</p></div></main>"#,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["$E → T$ are replaced by"]);
}

#[test]
fn r_markdowns_authors_and_date_do_not_head_the_first_section() {
    // An R Markdown lecture (html_document): under the title, the subtitle, then the author and
    // the date as `h4`s; the author headed the lecture's opening text.
    let p = Reader::new(&Structure::default()).read(
        r#"<html><body><div class="container-fluid main-container"><div class="fluid-row" id="header">
        <h1 class="title toc-ignore">Data Science for Economists</h1><h3 class="subtitle">Lecture 10: Functions in R</h3>
        <h4 class="author">Grant McDermott</h4><h4 class="date">University of Oregon</h4></div>
        <p>Today, we cover the basics of function writing.</p></div></body></html>"#,
        &[],
        false,
    );
    assert_eq!(p.blocks.len(), 1);
    let ctx = &p.ctxs[p.blocks[0].ctx];
    let headings: Vec<&str> = ctx.headings.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(
        headings,
        ["Data Science for Economists", "Lecture 10: Functions in R"]
    );
}

#[test]
fn sphinx_gallerys_notes_and_buttons_around_an_example_are_not_text() {
    // The scipy lecture notes: each example page opens with a note pointing to its download
    // and ends with the buttons, the running time and the gallery's signature; on 178 of 240
    // pages, a chunk of its own or the end of the example's.
    let p = Reader::new(&Structure::default()).read(
        r#"<html><body><div role="main"><div class="sphx-glr-download-link-note admonition note">
        <p class="admonition-title">Note</p><p><a href="\#sphx-glr-download">Click here</a> to download the full example code</p></div>
        <section id="axes"><h1>Axes</h1><p>This example positions axes.</p><pre>plt.axes([.1, .1, .5, .5])</pre>
        <p class="sphx-glr-timing"><strong>Total running time of the script:</strong> ( 0 minutes 0.018 seconds)</p>
        <div class="sphx-glr-footer sphx-glr-footer-example docutils container"><div class="sphx-glr-download">
        <a class="reference download internal" href="plot_axes.py"><code>Download Python source code: plot_axes.py</code></a></div></div>
        <p class="sphx-glr-signature"><a href="https://sphinx-gallery.github.io">Gallery generated by Sphinx-Gallery</a></p>
        </section></div></body></html>"#,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "This example positions axes.",
            "```\nplt.axes([.1, .1, .5, .5])\n```"
        ]
    );
}

#[test]
fn a_quarto_decks_title_slide_authors_are_not_text() {
    // A French signal-processing course's Quarto deck: its title slide named only its authors.
    let p = Reader::new(&Structure::default()).read(
        r#"<html><body><div class="reveal"><div class="slides">
        <section id="title-slide" class="quarto-title-block center"><h1 class="title">Traitement du signal</h1>
        <div class="quarto-title-authors"><div class="quarto-title-author"><div class="quarto-title-author-name">J.-Y. Tourneret, C. Poulliat</div></div></div></section>
        <section id="bibliographie" class="slide level2"><h2>Bibliographie</h2><p>Max et Lacoume, Dunod.</p></section>
        </div></div></body></html>"#,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["Max et Lacoume, Dunod."]);
}
