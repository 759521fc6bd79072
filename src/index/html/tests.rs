//! Tests of the HTML reader on the structures of MkDocs Material, Docusaurus, Hugo, Sphinx and
//! Jupyter Book pages.
use super::*;

fn read(html: &str) -> PageText {
    Reader::new(&Structure::default()).read(html, &[], false)
}

#[test]
fn navigation_is_left_out_and_code_keeps_its_indentation() {
    let p = read(
        r##"<html><head><title>T - Site</title></head><body><nav>Menu Accueil</nav>
            <article class="md-content__inner"><h1 id="t">4.3 Tri<a class="headerlink" href="#t">¶</a></h1>
            <p>Le <strong>tri</strong> par <code>insertion</code>.</p>
            <div class="highlight"><table class="highlighttable"><tr><td class="linenos"><div class="linenodiv"><pre>1
2</pre></div></td><td class="code"><div><pre><code><span class="k">def</span> f(x):
    <span>return</span> x
</code></pre></div></td></tr></table></div>
            <table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>x|y</td></tr></table>
            </article><footer>© 2024</footer></body></html>"##,
    );
    assert_eq!(p.title.as_deref(), Some("4.3 Tri"));
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "Le **tri** par `insertion`.",
            "```\ndef f(x):\n    return x\n```",
            "| a | b |\n|---|---|\n| 1 | x\\|y |",
        ]
    );
    assert!(!texts
        .iter()
        .any(|t| t.contains("Menu") || t.contains("2024") || t.contains('¶')));
    assert_eq!(
        p.ctxs[p.blocks[0].ctx].headings[0].anchor.as_deref(),
        Some("t")
    );
}

#[test]
fn docusaurus_and_hugo_pages_read_the_same_way() {
    // Docusaurus 3: content in .theme-doc-markdown, code lines as spans ended by <br>,
    // admonitions as .theme-admonition with a heading div, tabs as role=tabpanel.
    let p = read(
        r##"<html lang="en"><body><nav class="navbar">Docs Blog</nav><main><article>
            <nav class="theme-doc-breadcrumbs">Home › Loops</nav>
            <div class="theme-doc-markdown markdown"><h1>Loops</h1>
            <h2 class="anchor" id="while-loops">While loops<a href="#while-loops" class="hash-link">#</a></h2>
            <div class="language-python codeBlockContainer_x"><pre class="prism-code language-python"><code><span class="token-line"><span>while n &gt; 0:</span><br></span><span class="token-line"><span>    n -= 1</span><br></span></code></pre></div>
            <div class="theme-admonition theme-admonition-tip admonition_x alert alert--success"><div class="admonitionHeading_x">Exercise 2</div><div class="admonitionContent_x"><p>Count down from 10.</p></div></div>
            <div class="tabs-container"><ul role="tablist"><li role="tab">Statement</li><li role="tab">Solution</li></ul>
            <div role="tabpanel"><p>Sum 1..n.</p></div><div role="tabpanel"><p>n*(n+1)/2</p></div></div>
            </div></article></main><footer>© Docs</footer></body></html>"##,
    );
    assert_eq!(p.lang.as_deref(), Some("en"));
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert!(
        texts.contains(&"```python\nwhile n > 0:\n    n -= 1\n```"),
        "{texts:?}"
    );
    assert!(
        !texts
            .iter()
            .any(|t| t.contains("Home") || t.contains("Docs Blog") || t.contains('#')),
        "{texts:?}"
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    assert_eq!(of("Count down").role, Role::Exercise);
    assert_eq!(of("Sum 1..n").role, Role::Exercise);
    assert_eq!(of("n*(n+1)/2").role, Role::Solution);
    assert_eq!(of("n*(n+1)/2").answers, of("Sum 1..n").unit);
    assert_eq!(
        of("while").headings.last().unwrap().anchor.as_deref(),
        Some("while-loops")
    );
    // Hugo (chroma): lines as spans with their own newlines.
    let h = read(
        r##"<html><body><header>Site</header><main><article class="markdown book-article"><h2 id="x">X</h2>
            <div class="highlight"><pre tabindex="0" class="chroma"><code class="language-python" data-lang="python"><span class="line"><span class="cl">def f():
</span></span><span class="line"><span class="cl">    return 1
</span></span></code></pre></div></article></main></body></html>"##,
    );
    assert_eq!(h.blocks[0].text, "```python\ndef f():\n    return 1\n```");
}

#[test]
fn sphinx_and_jupyter_book_furniture_is_left_out() {
    // Jupyter Book 0.x (sphinx-book-theme): the `main` element holds the page's table of
    // contents column and its previous / next links beside the text; Sphinx's classic themes
    // put navigation bars in `div.related[role=navigation]` and a docutils "Contents" topic
    // in the text; Jekyll's kramdown writes a page's table of contents as `ul#markdown-toc`.
    let p = read(
        r##"<html><body><main class="bd-content" role="main">
            <div class="topbar"><div class="bd-toc"><div class="tocsection onthispage">Contents</div>
            <nav id="bd-toc-nav"><ul><li><a href="#uses">Common Uses</a></li></ul></nav></div></div>
            <div id="main-content"><div class="section" id="about"><h1>About Python</h1>
            <div class="contents topic" id="contents"><p class="topic-title">Contents</p><ul><li>Uses</li></ul></div>
            <div class="section" id="uses"><h2>Common Uses</h2><p>Python is used in data science.</p></div></div>
            <div class="prev-next-area"><a class="left-prev"><p class="prev-next-subtitle">previous</p>
            <p class="prev-next-title">QuickStart</p></a></div></div>
            <div class="related" role="navigation"><ul><li>index</li><li>next</li></ul></div>
            <ul id="markdown-toc"><li><a href="#uses">Common Uses</a></li></ul>
            </main></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Python is used in data science."]);
    assert_eq!(p.title.as_deref(), Some("About Python"));
}

#[test]
fn a_notebook_converted_to_html_is_read_without_its_prompts_tags_and_hidden_copies() {
    // nbconvert's JupyterLab template as mkdocs-jupyter writes it (a prompt, a tag bar, the
    // copy button's hidden copy of the code), and nbsphinx's prompt.
    let p = read(
        r##"<html><body><main><h1>Piles</h1>
            <div class="jp-Cell jp-CodeCell celltag_exo"><div class="jp-InputArea">
            <div class="jp-InputPrompt jp-InputArea-prompt">In [1]:</div>
            <div class="jp-CodeMirrorEditor"><div class="celltoolbar"><span class="cell-tag">exo</span></div>
            <div class="highlight-ipynb hl-python"><pre><span class="n">p</span> = [1, 2]</pre></div>
            <div class="clipboard-copy-txt" id="cell-1">p = [1, 2]</div></div></div>
            <div class="jp-OutputArea"><div class="jp-OutputPrompt jp-OutputArea-prompt">Out[1]:</div>
            <div class="jp-RenderedText"><pre>[1, 2]</pre></div></div></div>
            <div class="nbinput docutils container"><div class="prompt highlight-none"><pre>[2]:</pre></div>
            <div class="input_area highlight-ipython3"><pre>p.pop()</pre></div></div>
            </main></body></html>"##,
    );
    let text: String = p.blocks.iter().map(|b| format!("{}\n", b.text)).collect();
    assert_eq!(text.matches("p = [1, 2]").count(), 1, "{text}");
    for noise in ["In [1]", "Out[1]", "exo", "[2]:"] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    assert!(
        text.contains("[1, 2]") && text.contains("p.pop()"),
        "{text}"
    );
}

#[test]
fn pyodide_mkdocs_themes_widgets_are_left_out_and_its_plain_corrections_read() {
    // pyodide-mkdocs-theme 5.7 (MkDocs Material): an exercise's statement, its Python editor
    // (a tooltip, an attempts counter), its correction after it, encrypted (compressed bytes
    // with record separators) or not, a terminal and its buttons, a quiz question and its
    // encrypted remark, the placeholder diagram it hides.
    let page = |correction: &str| {
        read(&format!(
            r##"<html><body><article class="md-content__inner"><h1>Piles</h1>
            <h2 id="ex1">Exercice 1</h2><p>Écrire une fonction <code>est_pair</code>.</p>
            <div id="global_editor_1" class="py_mk_ide"><div class="py_mk_wrapper md-typeset">
            <span class="comment tooltip"><span class="tooltiptext bottom">(Dés-)Active le code après la ligne # Tests</span></span>
            <div class="compteur_wrapper"><div class="compteur">5/5</div></div></div></div>
            <div class="py_mk_hidden" id="solution_editor_1">{correction}</div>
            <div class="term_wrapper"><div class="py_mk_wrapper term_solo py_mk_terminal"></div>
            <div class="term_btns_wrapper"><div class="tooltip"><span class="tooltiptext">Tronquer ou non le feedback</span></div></div></div>
            <div class="admonition tip py_mk_admonition_qcm"><p>Que vaut n après la boucle ?</p>
            <details class="tip py_mk_hidden py_mk_encrypted_qcm"><summary>Remarque</summary>050I040z0l0h</details></div>
            <div class="admonition tip py_mk_hidden"><pre class="mermaid"><code>graph TB
                a</code></pre></div>
            </article></body></html>"##
        ))
    };
    let text =
        |p: &PageText| -> String { p.blocks.iter().map(|b| format!("{}\n", b.text)).collect() };
    let encrypted = page(".128013\u{1e}=iPuamb) yg(vn:dscSorw\u{1e}050q0A0F0f");
    let t = text(&encrypted);
    assert!(
        t.contains("Écrire une fonction") && t.contains("Que vaut n"),
        "{t}"
    );
    for noise in [
        "Active le code",
        "5/5",
        "iPuamb",
        "Tronquer",
        "Remarque",
        "050I040z",
        "graph TB",
    ] {
        assert!(!t.contains(noise), "{noise} in {t}");
    }
    // Not encrypted, the correction is read, as a correction.
    let plain = page(
        r#"<details class="tip"><summary>Solution</summary><pre><code>def est_pair(n):
    return n % 2 == 0</code></pre></details>"#,
    );
    let solution = plain
        .blocks
        .iter()
        .find(|b| b.text.contains("return n % 2 == 0"))
        .map(|b| plain.ctxs[b.ctx].role);
    assert_eq!(solution, Some(Role::Solution), "{}", text(&plain));
}

#[test]
fn mystmd_front_matter_and_page_links_are_left_out() {
    // Jupyter Book 2 (mystmd): each page opens with a front-matter block holding its title, then
    // its badges and links (edit, GitHub, downloads), its authors and its date and DOI, and ends
    // with links to the previous and next pages; only the title is the page's.
    let p = read(
        r##"<html lang="en"><body><main><article class="article content">
            <div class="myst-fm-block mb-8 pt-9"><div class="myst-fm-block-header flex">
            <div class="myst-fm-block-badges"><a href="https://creativecommons.org/licenses/by/4.0/">CC-BY-4.0</a></div>
            <a class="myst-fm-edit-link" href="https://github.com/x/y/edit/main/cartopy.md">Edit</a></div>
            <h1 class="myst-fm-block-title mb-0">Introduction to Cartopy</h1>
            <header class="myst-fm-authors-affiliations"><div class="myst-fm-authors-list">
            <span class="myst-fm-author"><button type="button"><span class="myst-fm-author-name">The Community</span></button></span></div></header>
            <div class="myst-fm-block-date-doi flex"><div class="myst-fm-doi-badge">
            <a class="myst-fm-doi-link" href="https://doi.org/10.5281/zenodo.7884571">https://doi.org/10.5281/zenodo.7884571</a></div></div></div>
            <p>Cartopy draws maps.</p>
            <div class="myst-footer-links flex"><a class="myst-footer-link myst-footer-link-prev" href="/core/numpy">
            <div class="myst-footer-link-group">Core Packages</div>NumPy Basics</a>
            <a class="myst-footer-link myst-footer-link-next" href="/appendix/glossary"><div class="myst-footer-link-group">Appendix</div>Glossary</a></div>
            </article></main></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Cartopy draws maps."]);
    assert_eq!(p.title.as_deref(), Some("Introduction to Cartopy"));
}

#[test]
fn a_sphinx_search_page_is_left_out_but_not_a_page_with_a_search_box() {
    // Sphinx (here the pydata theme of Jupyter Book) loads searchtools.js only on search.html,
    // whose results it fills in; Just the Docs (Jekyll) has a #search-results on every page.
    let search = read(
        r##"<html lang="en"><head><script src="_static/searchtools.js?v=1"></script></head><body>
            <main id="main-content"><h1>Search</h1><form class="bd-search"><input name="q"></form>
            <div id="search-results"></div><ul><li>Repository</li><li>Open issue</li></ul></main></body></html>"##,
    );
    assert!(
        search.skip.as_deref().unwrap().contains("search page"),
        "{:?}",
        search.skip
    );
    let page = read(
        r##"<html lang="en"><head><script src="assets/js/just-the-docs.js"></script></head><body>
            <div class="site-header"><div class="search"><input id="search-input"><div id="search-results" class="search-results"></div></div></div>
            <main><h1>Binary search</h1><p>Halve the interval at each step.</p></main></body></html>"##,
    );
    assert_eq!(page.skip, None);
    let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Halve the interval at each step."]);
}

#[test]
fn marp_slides_are_read_but_svg_images_are_not() {
    // Marp (bespoke HTML): every slide is a <section> inside <svg><foreignObject>, with the
    // deck's header and footer repeated on each; an inline SVG figure stays out.
    let p = read(
        r##"<html><body><div class="bespoke-marp-osc"><button>Previous slide</button></div><div>
            <svg data-marpit-svg="" viewBox="0 0 1280 720"><foreignObject width="1280" height="720">
            <section id="1"><h1 id="git">Using Git</h1><footer>Copyright 2023</footer></section></foreignObject></svg>
            <svg data-marpit-svg="" viewBox="0 0 1280 720"><foreignObject width="1280" height="720">
            <section id="2"><header>COM6018</header><h2 id="what-is-git">What is Git?</h2>
            <ul><li>Git is a <code>version control system</code></li></ul>
            <svg viewBox="0 0 10 10"><text>figure label</text></svg>
            <footer>Copyright 2023</footer></section></foreignObject></svg></div></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["- Git is a `version control system`"]);
    let ctx = &p.ctxs[p.blocks[0].ctx];
    assert_eq!(
        ctx.headings.last().unwrap().anchor.as_deref(),
        Some("what-is-git")
    );
    assert_eq!(p.title.as_deref(), Some("Using Git"));
}

#[test]
fn quarto_callouts_are_units_titled_without_their_screen_reader_words() {
    // Quarto 1.3+: a callout's title in .callout-title-container, after words for screen
    // readers only; a "Back to top" link with role=button at the end of the page.
    let p = read(
        r##"<html lang="en"><body><main class="content" id="quarto-document-content">
            <header id="title-block-header" class="quarto-title-block"><h1 class="title">Tutorial 3</h1></header>
            <div class="callout callout-style-default callout-tip callout-titled">
            <div class="callout-header d-flex"><div class="callout-icon-container"><i class="callout-icon"></i></div>
            <div class="callout-title-container flex-fill"><span class="screen-reader-only">Tip</span>Exercise 2</div></div>
            <div class="callout-body-container callout-body"><p>Compute the mean of c(2, 4).</p></div></div>
            <a onclick="window.scrollTo(0, 0); return false;" role="button" id="quarto-back-to-top"><i class="bi bi-arrow-up"></i> Back to top</a>
            </main></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Compute the mean of c(2, 4)."]);
    let ctx = &p.ctxs[p.blocks[0].ctx];
    assert_eq!(
        (ctx.role, ctx.label.as_deref()),
        (Role::Exercise, Some("Exercise 2"))
    );
    assert_eq!(p.title.as_deref(), Some("Tutorial 3"));
}

#[test]
fn exercises_corrections_and_tabs_become_linked_units() {
    let p = read(
        r##"<article class="md-content__inner"><h2 id="s">Sujet 01</h2>
            <div class="admonition example"><p class="admonition-title">Exercice 1</p>
              <p>Écrire une fonction.</p>
              <details class="success"><summary>Correction</summary><pre><code>def f():
    pass</code></pre></details>
            </div>
            <div class="admonition example"><p class="admonition-title">Exercice 01.2</p>
              <div class="tabbed-set"><div class="tabbed-labels"><label>Énoncé</label><label>Correction</label><label>Source Markdown</label></div>
              <div class="tabbed-content"><div class="tabbed-block"><p>Compléter.</p></div>
              <div class="tabbed-block"><p>Réponse.</p></div><div class="tabbed-block"><p>copie</p></div></div></div>
            </div>
            <div class="admonition note"><p class="admonition-title">À retenir</p><p>Texte.</p></div></article>"##,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let ex = of("Écrire");
    assert_eq!(
        (ex.role, ex.label.as_deref()),
        (Role::Exercise, Some("Exercice 1"))
    );
    let sol = of("def f");
    assert_eq!(sol.role, Role::Solution);
    assert_eq!(sol.answers, ex.unit);
    let st = of("Compléter");
    assert_eq!(st.role, Role::Exercise);
    let ans = of("Réponse");
    assert_eq!((ans.role, ans.answers), (Role::Solution, st.unit));
    assert!(!p.blocks.iter().any(|b| b.text.contains("copie")));
    assert_eq!(of("Texte").role, Role::Prose);
    assert!(p.blocks.iter().any(|b| b.text == "**À retenir**"));
}

#[test]
fn heading_rules_and_page_attributes_set_metadata_under_their_heading() {
    let rules: Vec<HeadingRule> = vec![(
        "paper",
        2,
        Regex::new(r"Sujet (\d+)").unwrap(),
        "sujet $1".into(),
    )];
    let p = Reader::new(&Structure::default()).read(
            r##"<meta name="chsr:level" content="terminale"><main><h2>▶ Sujet 07</h2><p>a</p>
            <section data-chsr-doc-type="syllabus"><p>b</p></section><h2>Annexe</h2><p>c</p></main>"##,
            &rules,
            true,
        );
    assert_eq!(p.meta, vec![("level".to_string(), "terminale".to_string())]);
    let ctx = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text == t).unwrap().ctx];
    assert_eq!(
        ctx("a").heading_fields,
        vec![("paper", "sujet 07".to_string())]
    );
    assert_eq!(ctx("a").headings[0].anchor.as_deref(), Some("sujet-07"));
    assert_eq!(
        ctx("b").attr_fields,
        vec![("doc_type", "syllabus".to_string())]
    );
    assert!(ctx("c").heading_fields.is_empty());
}

#[test]
fn mdbook_pages_keep_the_main_text_without_the_hidden_lines_of_rust_examples() {
    // mdBook 0.4: sidebar and menu bar outside <main>, previous / next after it; a Rust example's
    // lines hidden behind its "show hidden lines" toggle are `<span class="boring">`.
    let p = read(
        r##"<html lang="en"><head><title>Loops - A Book</title></head><body>
            <nav id="mdbook-sidebar" class="sidebar" aria-label="Table of contents"><ol class="chapter"><li>1. Intro</li></ol></nav>
            <div id="mdbook-page-wrapper" class="page-wrapper"><div class="page">
            <div id="mdbook-menu-bar" class="menu-bar sticky"><h1 class="menu-title">A Book</h1></div>
            <div id="mdbook-content" class="content"><main>
            <h1 id="loops"><a class="header" href="#loops">Loops</a></h1>
            <pre class="playground"><code class="language-rust edition2021"><span class="boring">#![allow(unused)]
</span><span class="boring">fn main() {
</span>let mut n = 3;
while n > 0 { n -= 1; }
<span class="boring">}</span></code></pre>
            </main><nav class="nav-wrapper" aria-label="Page navigation"><a rel="next" href="x.html">Next</a></nav></div>
            </div></div></body></html>"##,
    );
    assert_eq!(p.title.as_deref(), Some("Loops"));
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec!["```rust\nlet mut n = 3;\nwhile n > 0 { n -= 1; }\n```"]
    );
    assert_eq!(
        p.ctxs[p.blocks[0].ctx].headings[0].anchor.as_deref(),
        Some("loops")
    );
}

#[test]
fn vitepress_containers_are_units_and_code_labels_are_left_out() {
    // VitePress 1: content in main > .vp-doc; `::: tip Exercise 1` is a .custom-block with a
    // .custom-block-title; a code block's wrapper holds a copy button and a language label.
    let p = read(
        r##"<html lang="en-US"><body><div id="app"><header class="VPNav">Guide</header>
            <aside class="VPSidebar"><nav>Lists</nav></aside><div class="VPContent"><div class="VPDoc">
            <div class="aside"><div class="VPDocAsideOutline">On this page</div></div>
            <div class="content"><div class="content-container"><main class="main"><div class="vp-doc">
            <h1 id="lists" tabindex="-1">Lists <a class="header-anchor" href="#lists" aria-label="Permalink to &quot;Lists&quot;">&#8203;</a></h1>
            <div class="language-js vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">js</span><pre class="shiki vp-code"><code><span class="line"><span>xs.push(1)</span></span></code></pre></div>
            <div class="tip custom-block"><p class="custom-block-title">Exercise 1</p><p>Append 2.</p></div>
            <div class="info custom-block"><p class="custom-block-title">Note</p><p>Lists grow.</p></div>
            </div></main><footer class="VPDocFooter"><nav class="prev-next"><span class="desc">Next</span></nav></footer></div></div>
            </div></div></div></body></html>"##,
    );
    assert_eq!(p.title.as_deref(), Some("Lists"));
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "```js\nxs.push(1)\n```",
            "Append 2.",
            "**Note**",
            "Lists grow."
        ]
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text == t).unwrap().ctx];
    assert_eq!(of("Append 2.").role, Role::Exercise);
    assert_eq!(of("Append 2.").label.as_deref(), Some("Exercise 1"));
    assert_eq!(of("Lists grow.").role, Role::Prose);
}

#[test]
fn sphinx_toctrees_indexes_and_single_page_builds_are_left_out() {
    // Any Sphinx theme (Furo, Read the Docs): a `.. toctree::` in a page is a list of links to
    // child pages; genindex is a table of terms; `singlehtml` puts every document on one page,
    // each after a `<span id="document-NAME">`.
    let p = read(
        r##"<html><body><article role="main"><section id="c"><h1>Course</h1><p>Intro.</p>
            <div class="toctree-wrapper compound"><p class="caption" role="heading"><span class="caption-text">Table of Contents</span></p>
            <ul><li class="toctree-l1"><a class="reference internal" href="a.html">Loops</a></li></ul></div></section></article></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Intro."]);
    let g = read(
        r##"<html><body><div role="main"><h1 id="index">Index</h1>
            <div class="genindex-jumpbox"><a href="#A"><strong>A</strong></a> | <a href="#B"><strong>B</strong></a></div>
            <h2 id="A">A</h2><table style="width: 100%" class="indextable genindextable"><tr><td><ul><li>add, <a href="x.html#add">[1]</a></li></ul></td></tr></table>
            </div></body></html>"##,
    );
    assert!(g.blocks.is_empty(), "{:?}", g.blocks);
    let s = read(
        r##"<html><body><div role="main"><section id="course"><h1>Course</h1>
            <span id="document-loops"></span><section id="loops"><h2>Loops</h2><p>A loop.</p></section>
            <span id="document-lists"></span><section id="lists"><h2>Lists</h2><p>A list.</p></section>
            </section></div></body></html>"##,
    );
    assert!(
        s.skip.as_deref().unwrap().contains("singlehtml"),
        "{:?}",
        s.skip
    );
}

#[test]
fn docusaurus_list_pages_and_skip_links_are_left_out() {
    // Docusaurus 3 (a textbook's gh-pages): the blog's index, tag, author and archive pages
    // list the posts' summaries, each post being its own page; they say so by the classes
    // on `<html>` (the archive only by `plugin-blog` without `blog-post-page`).
    let list = |class: &str| {
        read(&format!(
            r##"<html lang="en" class="{class}"><body><div role="region" aria-label="Skip to main content">
            <a class="skipToContent_fXgn" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
            <main class="col col--7"><article class="margin-bottom--xl"><header><h2 class="title_f1Hy"><a href="/blog/welcome">Welcome</a></h2></header>
            <div class="markdown"><p>Docusaurus blogging features are powered by the blog plugin.</p></div></article></main></body></html>"##
        ))
    };
    for class in [
        "blog-wrapper blog-list-page plugin-blog plugin-id-default",
        "blog-wrapper blog-tags-post-list-page plugin-blog plugin-id-default",
        "blog-wrapper blog-authors-posts-page plugin-blog plugin-id-default",
        "plugin-blog plugin-id-default",
        "docs-wrapper docs-tags-doc-list-page plugin-docs plugin-id-default",
    ] {
        let p = list(class);
        assert!(
            p.skip.as_deref().unwrap().contains("list of posts"),
            "{class}: {:?}",
            p.skip
        );
    }
    let post = list("blog-wrapper blog-post-page plugin-blog plugin-id-default");
    assert_eq!(post.skip, None);
    // A page of its own (`src/pages`) without `main article`: read from the body, without the
    // skip link that opens it.
    let page = read(
        r##"<html class="plugin-pages plugin-id-default"><body><div role="region" aria-label="Skip to main content">
            <a class="skipToContent_fXgn" href="#__docusaurus_skipToContent_fallback">Skip to main content</a></div>
            <div id="__docusaurus"><div class="profile"><h1>Profile</h1><p>Intermediate</p></div></div></body></html>"##,
    );
    let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, vec!["Intermediate"]);
}

#[test]
fn a_hand_written_table_of_contents_is_left_out_and_adjacent_links_stay_apart() {
    // Docusaurus 2 (a bootcamp's handbook): "Table of Contents" written in the Markdown, a list
    // whose every link goes to a section of the page; and a row of link buttons with nothing
    // between them, laid out apart by the theme's CSS.
    let p = read(
        r##"<html><body><main><article><div class="theme-doc-markdown markdown"><h1>Student Handbook</h1>
            <h2 class="anchor" id="table-of-contents">Table of Contents<a href="#table-of-contents" class="hash-link">#</a></h2>
            <ul><li><a href="#the-big-picture">The Big Picture</a><ul><li><a href="#general-philosophy">General philosophy</a></li>
            <li><a href="#growth-mindset">Growth mindset</a></li></ul></li><li><a href="#class-structure">Class Structure</a> </li></ul>
            <h2 class="anchor" id="the-big-picture">The Big Picture</h2><p>Welcome! See <a href="#pairing">pairing</a>.</p>
            <ul><li><a href="#a">A</a>: the first step</li><li><a href="#b">B</a></li><li><a href="#c">C</a></li></ul>
            <div class="course-row"><p>Our full-time tracks take 28 weeks.</p><a href="https://a.example/" class="track-button">Full-Time Full Stack</a><a href="https://b.example/" class="track-button">Part-Time Intro</a></div>
            </div></article></main></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "Welcome! See pairing.",
            // Text besides the links: a list of the course's, not a table of contents.
            "- A: the first step",
            "- B",
            "- C",
            "Our full-time tracks take 28 weeks.",
            "Full-Time Full Stack Part-Time Intro",
        ]
    );
    // Markup around words stays joined to them.
    let q = read(
        r##"<html><body><main><p>H<sub>2</sub>O and <a href="#x">re</a><b>use</b></p></main></body></html>"##,
    );
    assert_eq!(q.blocks[0].text, "H2O and re**use**");
}

#[test]
fn exercises_and_corrections_are_told_by_their_titles_in_the_languages_of_course_sites() {
    // A Docusaurus course in Dutch titles its exercises "Opdracht"; German, Spanish, Italian
    // and Portuguese courses have their own words.
    let s = Structure::default();
    for title in [
        "Opdracht 3",
        "Oefening: lussen",
        "Aufgabe 2",
        "Übung 1",
        "Ejercicio 4",
        "Esercizio 1",
        "Exercício 2",
    ] {
        assert!(s.exercise.is_match(title), "{title}");
        assert!(!s.solution.is_match(title), "{title}");
    }
    for title in [
        "Oplossing",
        "Uitwerking opdracht 3",
        "Lösung",
        "Musterlösung",
        "Solución",
        "Soluzione",
        "Solução",
        "Respuestas",
    ] {
        assert!(s.solution.is_match(title), "{title}");
    }
    // Ordinary headings stay course text.
    for title in [
        "Opdrachtgever en klant",
        "Aufgabenstellung",
        "Lösungsansatz",
        "Antwoordt",
    ] {
        assert!(
            !s.exercise.is_match(title) && !s.solution.is_match(title),
            "{title}"
        );
    }
    let p = read(
        r##"<main><div class="theme-admonition"><div class="admonitionHeading">Opdracht 1</div>
            <div class="admonitionContent"><p>Schrijf een functie.</p></div></div>
            <details><summary>Oplossing</summary><p>def f(): pass</p></details></main>"##,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let ex = of("Schrijf");
    assert_eq!(ex.role, Role::Exercise);
    let sol = of("def f");
    assert_eq!((sol.role, sol.answers), (Role::Solution, ex.unit));
}

#[test]
fn a_title_that_only_names_an_index_file_gives_way_to_the_breadcrumb() {
    // Docusaurus 3 (a Dutch course's gh-pages): a page that sets no title is titled by its
    // file's name, "index", in its h1 and its <title>; the breadcrumb names it.
    let page = |crumbs: &str| {
        read(&format!(
            r##"<html><head><title>index | Webontwikkeling</title></head><body><main><article>
            <nav aria-label="Breadcrumbs"><ul class="breadcrumbs">{crumbs}</ul></nav>
            <div class="theme-doc-markdown markdown"><header><h1>index</h1></header>
            <h2 id="bitcoin-current">Bitcoin Current</h2><p>Maak een nieuw project aan.</p></div>
            </article></main></body></html>"##
        ))
    };
    let p = page(
        r#"<li class="breadcrumbs__item"><a class="breadcrumbs__link" href="/exercises">Oefeningen</a></li>
           <li class="breadcrumbs__item breadcrumbs__item--active"><span class="breadcrumbs__link">Bitcoin current</span></li>"#,
    );
    assert_eq!(p.title.as_deref(), Some("Bitcoin current"));
    assert_eq!(page("").title, None);
    // A real title is kept, whatever the breadcrumb says.
    let q = read(
        r#"<html><body><ul class="breadcrumbs"><li class="breadcrumbs__item--active">Sorts</li></ul>
           <main><h1>Insertion sort</h1><p>Text.</p></main></body></html>"#,
    );
    assert_eq!(q.title.as_deref(), Some("Insertion sort"));
}

#[test]
fn articles_side_by_side_are_parts_of_the_content_or_a_list_of_posts() {
    // PreTeXt (an open linear-algebra textbook's gh-pages): each activity, definition and
    // example of a section is an `article` inside `main`; `main article` names the first
    // activity, not the section, whose text is read whole.
    let p = read(
        r##"<html lang="en-US"><body><main class="ptx-main"><div id="ptx-content" class="ptx-content">
        <section class="section" id="sec-vectors"><h2 class="heading">Vectors</h2>
        <article class="activity project-like"><h4 class="heading">Preview Activity 2.1.1.</h4><p>Sketch the vectors.</p></article>
        <p>A vector is a list of numbers.</p>
        <article class="definition definition-like"><h4 class="heading">Definition 2.1.2.</h4><p>A linear combination sums scalar multiples.</p></article>
        <details class="example example-like born-hidden-knowl"><summary class="knowl__link"><h5 class="heading">Example 2.1.3.</h5></summary>
        <article class="example example-like knowl__content"><p>Take the cyclic group of order 2.</p></article></details>
        <figure class="figure"><details class="instructions diagcess__instructions"><summary>Diagram Exploration Keyboard Controls</summary>
        <table><tr><td>Enter, A</td><td>Activate keyboard driven exploration</td></tr></table></details></figure>
        <p>Vectors add tip to tail.</p>
        </section><section class="exercises" id="sec-vectors-ex"><h3 class="heading">Exercises</h3>
        <article class="exercise exercise-like" id="sec-vectors-ex-1"><h4 class="heading">1.</h4><p>Sketch two vectors.</p></article>
        </section></div><div class="ptx-content-footer"><a class="previous-button button" href="chap1.html"><span class="name">Prev</span></a>
        <a class="next-button button" href="sec-span.html"><span class="name">Next</span></a></div></main></body></html>"##,
    );
    assert_eq!(p.skip, None);
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    for t in [
        "Sketch the vectors.",
        "A vector is a list of numbers.",
        "A linear combination",
    ] {
        assert!(texts.iter().any(|x| x.contains(t)), "{t}: {texts:?}");
    }
    assert!(
        !texts
            .iter()
            .any(|x| x.contains("Keyboard") || x.contains("Prev")),
        "{texts:?}"
    );
    // A heading heads its own section or article: the text after an activity is the
    // section's, linked at the section's id (the heading has none of its own).
    let headings = |t: &str| {
        let b = p.blocks.iter().find(|b| b.text.contains(t)).unwrap();
        let h = &p.ctxs[b.ctx].headings;
        h.iter()
            .map(|h| (h.text.clone(), h.anchor.clone()))
            .collect::<Vec<_>>()
    };
    let section = vec![("Vectors".to_string(), Some("sec-vectors".to_string()))];
    assert_eq!(headings("A vector is a list"), section);
    assert_eq!(headings("tip to tail"), section);
    assert_eq!(headings("Sketch the").len(), 2);
    // A collapsible example titled by a heading: its title read once, as that heading.
    assert!(!texts.iter().any(|x| x.contains("**Example")), "{texts:?}");
    assert_eq!(headings("cyclic group")[1].0, "Example 2.1.3.");
    // An exercise marked up as its own article is an exercise, labelled by its heading.
    let ex = &p.ctxs[p
        .blocks
        .iter()
        .find(|b| b.text.contains("two vectors"))
        .unwrap()
        .ctx];
    assert_eq!((ex.role, ex.label.as_deref()), (Role::Exercise, Some("1.")));
    assert_eq!(
        headings("two vectors")[1].1.as_deref(),
        Some("sec-vectors-ex-1")
    );
    // One `article` in `main`, with another nested in it, is the content as before.
    let one = read(
        r#"<html><body><nav><p>Menu</p></nav><main><aside><p>Aside</p></aside><article><h1>Piles</h1>
           <p>Une pile.</p><article><p>Un exemple.</p></article></article></main></body></html>"#,
    );
    let texts: Vec<&str> = one.blocks.iter().map(|b| b.text.as_str()).collect();
    assert!(texts.iter().any(|x| x.contains("Un exemple")), "{texts:?}");
    assert!(!texts.iter().any(|x| x.contains("Aside")), "{texts:?}");
    // Articles each titled by a link to another page are post summaries (Docusaurus 2 alpha's
    // blog index, without the page classes of later versions): left out.
    let list = read(
        r#"<html><body><main class="col col--8">
           <article><header><h2><a href="/blog/2019/05/30/welcome">Welcome</a></h2></header><section class="markdown"><p>Blog features.</p></section></article>
           <article><header><h2><a href="/blog/2019/05/29/hello-world">Hello</a></h2></header><section class="markdown"><p>Welcome to this blog.</p></section></article>
           </main></body></html>"#,
    );
    assert!(
        list.skip.as_deref().unwrap_or("").contains("list of posts"),
        "{:?}",
        list.skip
    );
}

#[test]
fn a_heading_that_names_an_exercise_or_its_correction_makes_a_unit_until_the_next_heading() {
    // A plain Markdown course (Docusaurus, QuantEcon's lectures, Jekyll): exercises and
    // corrections as headings, not blocks.
    let p = read(
        r##"<main><h1>Boucles</h1><p>Une boucle répète.</p>
        <h2>Exercice 1</h2><p>Afficher 1 à 3.</p>
        <h3>Correction</h3><pre><code>for i in range(1, 4): print(i)</code></pre>
        <h2>Exercice 2 : les tables</h2><p>Afficher la table de 7.</p>
        <details><summary>Correction</summary><p>for i in range(11): print(7 * i)</p></details>
        <h2>Solutions en ligne</h2><p>Basthon exécute Python dans le navigateur.</p>
        <h2>Questions</h2><p>Pourquoi une boucle ?</p>
        <h2>Pour aller plus loin</h2><p>Les compréhensions.</p></main>"##,
    );
    let of = |t: &str| &p.ctxs[p.blocks.iter().find(|b| b.text.contains(t)).unwrap().ctx];
    let (ex1, ex2) = (of("Afficher 1"), of("table de 7"));
    assert_eq!(
        (ex1.role, ex1.label.as_deref()),
        (Role::Exercise, Some("Exercice 1"))
    );
    assert_eq!(ex2.role, Role::Exercise);
    assert_ne!(ex1.unit, ex2.unit);
    let (s1, s2) = (of("range(1, 4)"), of("7 * i"));
    assert_eq!((s1.role, s1.answers), (Role::Solution, ex1.unit));
    assert_eq!((s2.role, s2.answers), (Role::Solution, ex2.unit));
    for t in ["Une boucle", "Basthon", "Pourquoi", "compréhensions"] {
        assert_eq!(of(t).role, Role::Prose, "{t}");
    }
}

#[test]
fn hugo_learn_breadcrumbs_and_edit_links_are_furniture_and_its_expand_is_collapsible() {
    // Hugo's Learn theme: a top bar with a link to the forge's editor and a microdata
    // breadcrumb trail, inside the region read as the content.
    let p = read(
        r##"<html><body><section id="body"><div id="top-bar">
        <div id="top-github-link"><a class="github-link" href="https://github.com/u/c/edit/main/content/piles.md">Edit this page</a></div>
        <div id="breadcrumbs" itemscope="" itemtype="http://data-vocabulary.org/Breadcrumb"><span class="links">
        <a href="/fr/">Cours</a> > <a href="/fr/structures/">Structures</a> > Piles</span></div></div>
        <div id="body-inner"><h1>Piles</h1><p>Une pile est LIFO.</p>
        <ol itemscope itemtype="https://schema.org/BreadcrumbList"><li>Accueil</li><li>Piles</li></ol>
        </div></section></body></html>"##,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(texts, ["Une pile est LIFO."]);
    // Its `expand` shortcode is a collapsible block titled by its label.
    let p = read(
        r##"<div id="body-inner"><h1>Piles</h1><div class="notices tip"><p><strong>Exercice 1</strong></p><p>Empiler 1, 2, 3.</p></div>
        <div class="expand"><div class="expand-label" style="cursor: pointer;"><i class="fas fa-chevron-right"></i><span>Correction</span></div>
        <div class="expand-content" style="display: none;"><p>On dépile 3.</p></div></div></div>"##,
    );
    let sol = &p.ctxs[p
        .blocks
        .iter()
        .find(|b| b.text.contains("dépile"))
        .unwrap()
        .ctx];
    assert_eq!(
        (sol.role, sol.label.as_deref()),
        (Role::Solution, Some("Correction"))
    );
    assert!(!p.blocks.iter().any(|b| b.text.contains("**Correction**")));
}
