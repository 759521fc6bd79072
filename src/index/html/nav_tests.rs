//! Tests of the HTML reader on what a theme writes for its own navigation and search without
//! `<nav>`: sidebars, menus and lists of a site's pages, told from a teacher's lists by their
//! links, and the search page its script fills in.
use super::*;

fn texts(html: &str) -> Vec<String> {
    let p = Reader::new(&Structure::default()).read(html, &[], false);
    p.blocks.into_iter().map(|b| b.text).collect()
}

#[test]
fn a_sidebar_of_the_sites_pages_without_nav_is_left_out() {
    // Composing Programs (Pelican, a theme of its own): each chapter's page opens with a
    // `div.nav-docs` listing every section of the chapter, headed by their titles, inside the
    // `section.content` that holds the text. It made a chunk per section listed, on each page.
    let html = r##"<html><head><title>3.3 Exceptions</title></head><body>
        <section class="content"><div class="nav-docs"><h3>Chapter 3<a id="hide_contents">Hide contents</a></h3>
        <div class="nav-docs-section"><h3><a href="../pages/32-functional-programming.html">3.2 Functional Programming</a></h3>
        <li><a href="../pages/32-functional-programming.html#expressions">3.2.1 Expressions</a>
        <li><a href="../pages/32-functional-programming.html#definitions">3.2.2 Definitions</a></div>
        <div class="nav-docs-section"><h3><a href="../pages/33-exceptions.html">3.3 Exceptions</a></h3>
        <li><a href="../pages/33-exceptions.html#exception-objects">3.3.1 Exception Objects</a></div></div>
        <div class="inner-content"><h2>3.3 Exceptions</h2><p>Programmers must be always mindful of errors.</p>
        <p><i>Continue</i>: <a href="../pages/34-interpreters.html">3.4 Interpreters</a></p></div></section></body></html>"##;
    assert_eq!(
        texts(html),
        [
            "Programmers must be always mindful of errors.",
            "*Continue*: 3.4 Interpreters"
        ]
    );
    // The same page's text under the sidebar's own headings stays: a heading is no link text,
    // and one paragraph of prose is more than a tenth of the links' letters.
    let prose = html.replace(
        "<li><a href=\"../pages/33-exceptions.html#exception-objects\">3.3.1 Exception Objects</a>",
        "<p>Exceptions are raised by a program that cannot go on, and handled by the code that called it.</p>",
    );
    assert!(texts(&prose)
        .iter()
        .any(|t| t.starts_with("Exceptions are raised")));
}

#[test]
fn a_sidebar_is_left_out_whole_with_its_headings() {
    // The same site's other pages: the sidebar is the site's menu and a link to another site
    // under their headings; read list by list, "Related Sites" headed the page's own text.
    let p = Reader::new(&Structure::default()).read(
        r##"<html><body><section class="content"><div class="nav-docs">
        <div class="nav-docs-section"><h3>Main</h3><ul><li><a href="./">Text</a></li>
        <li><a href="./projects.html">Projects</a></li><li><a href="./tutor.html">Tutor</a></li>
        <li><a href="./about.html">About</a></li></ul></div>
        <div class="nav-docs-section"><h3>Related Sites</h3><ul><li><a href="http://inst.eecs.berkeley.edu/~cs61a">CS 61A Course</a></li></ul></div></div>
        <div class="inner-content"><p>Composing Programs is authored and maintained by John DeNero.</p></div>
        </section></body></html>"##,
        &[],
        false,
    );
    let texts: Vec<&str> = p.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        ["Composing Programs is authored and maintained by John DeNero."]
    );
    assert!(p.ctxs[p.blocks[0].ctx].headings.is_empty());
}

#[test]
fn lists_of_other_sites_files_or_prose_are_read() {
    let t = texts(
        r##"<html><body><main><h1>Ressources</h1>
        <ul><li><a href="https://docs.python.org/3/">Documentation de Python</a></li>
        <li><a href="https://www.france-ioi.org/">France-IOI</a></li><li><a href="https://pythontutor.com/">Python Tutor</a></li></ul>
        <h2>Sujet 4</h2><ul><li><a href="../data/2026/sujet_04.pdf">Sujet</a></li><li><a href="culture.py">culture.py</a></li>
        <li><a href="plantes.py">plantes.py</a></li><li><a href="mesures.csv">mesures.csv</a></li></ul>
        <ul><li>Une <a href="piles/">pile</a> se manipule par le haut, comme une pile d'assiettes.</li>
        <li>Une <a href="files/">file</a> est servie dans l'ordre d'arrivée.</li><li><a href="arbres/">Arbres</a></li></ul>
        </main></body></html>"##,
    );
    // Other sites' resources: the teacher's choice. An exam's files: its content.
    assert!(t.iter().any(|t| t == "- France-IOI"), "{t:?}");
    assert!(t.iter().any(|t| t == "- culture.py"), "{t:?}");
    // Links inside sentences: the teacher's text.
    assert!(t.iter().any(|t| t.contains("pile d'assiettes")), "{t:?}");
    assert!(t.iter().any(|t| t == "- Arbres"), "{t:?}");
}

#[test]
fn absolute_links_to_the_pages_own_host_are_links_within_the_site() {
    // Zola writes every link with the site's base URL: a section's page lists its pages so.
    let page = |host: &str| {
        format!(
            r##"<html><head><link rel="stylesheet" href="https://me.github.io/guide/site.css"></head>
            <body><main><h2>Introduction</h2><h3>Pages:</h3><ul>
            <li><a href="https://{host}/guide/introduction/overview/">Overview</a></li>
            <li><a href="https://{host}/guide/introduction/wgpu-api/">Wgpu API</a></li>
            <li><a href="https://{host}/guide/introduction/support/">Contribution and Support</a></li></ul>
            <p>Read them in order.</p></main></body></html>"##
        )
    };
    assert_eq!(texts(&page("me.github.io")), ["Read them in order."]);
    assert_eq!(
        texts(&page("other.example")),
        [
            "- Overview",
            "- Wgpu API",
            "- Contribution and Support",
            "Read them in order."
        ]
    );
}

#[test]
fn the_label_of_a_list_left_out_goes_with_it() {
    // HonKit: a book's home page says "目录:" (contents), then lists its chapters; the
    // `anchor-navigation-ex` plugin adds a floating list of the page's one heading.
    let t = texts(
        r##"<html><body><section class="normal markdown-section"><div id="anchor-navigation-ex-navbar">
        <ul><li><a href="#manuel">Manuel</a></li></ul></div><h1 id="manuel">Manuel</h1><p>Bienvenue.</p>
        <p>目录:</p><ul><li><a href="lab01.html">实验一</a></li><li><a href="lab02.html">实验二</a></li>
        <li><a href="lab03.html">实验三</a></li></ul>
        <p>Voici, dans l'ordre, les travaux pratiques de la semaine prochaine :</p>
        <ul><li><a href="tp1.html">TP 1</a></li><li><a href="tp2.html">TP 2</a></li><li><a href="tp3.html">TP 3</a></li></ul>
        </section></body></html>"##,
    );
    // A longer sentence is the teacher's text, and stays.
    assert_eq!(
        t,
        [
            "Bienvenue.",
            "Voici, dans l'ordre, les travaux pratiques de la semaine prochaine :"
        ]
    );
}

#[test]
fn mkdocs_search_page_is_left_out_but_not_the_search_dialog_of_every_page() {
    // The readthedocs theme's search.html: its content is the box its script fills in. The
    // mkdocs theme has the same box in a dialog beside every page's content.
    let read = |html: &str| Reader::new(&Structure::default()).read(html, &[], false);
    let search = read(
        r##"<html><body><div role="main"><h1 id="search">Search Results</h1>
        <form id="content_search"><input id="mkdocs-search-query" name="q"></form>
        <div id="mkdocs-search-results" class="search-results">Searching...</div></div></body></html>"##,
    );
    assert!(search
        .skip
        .as_deref()
        .is_some_and(|s| s.contains("search page")));
    let page = read(
        r##"<html><body><div class="container"><div role="main"><h1>Euler</h1><p>The Euler method steps.</p></div></div>
        <div class="modal" id="mkdocs_search_modal"><div id="mkdocs-search-results"></div></div></body></html>"##,
    );
    assert_eq!(page.skip, None);
}

#[test]
fn a_themes_label_before_the_code_is_not_code_but_a_line_after_it_is() {
    // A hand-made theme keeps a hidden "Copied" label and a copy icon in each `pre`, before its
    // `code`; a Hugo shortcode with a blank line in its code gives the lines after it a `<p>`.
    let t = texts(
        r##"<html><body><main><pre><p class="copy">Copied</p><i class="far fa-clone"></i><code class="language-python">import math
x = 4</code></pre>
        <pre><code class="language-c">double end = MPI_Wtime();
</code><p>double total = end - start;</p></pre></main></body></html>"##,
    );
    assert_eq!(
        t,
        [
            "```python\nimport math\nx = 4\n```",
            "```c\ndouble end = MPI_Wtime();\ndouble total = end - start;\n```"
        ]
    );
}

#[test]
fn a_link_back_to_the_section_above_the_title_is_left_out() {
    // A French NSI course (MkDocs Material): each exam correction opens, above its title, with
    // a link back to the year's index; it made a chunk of its own on 122 pages.
    let t = texts(
        r##"<html><body><article class="md-content__inner">
        <p><a href="../../2022/EP"><span class="twemoji"><svg viewBox="0 0 24 24"><path d="M2 12"/></svg></span> Index des sujets 2022</a> </p>
        <h1 id="corrige">Corrigé sujet 01 - Année : 2022</h1>
        <p><a class="md-button" href="../../officiels/22-NSI-01.pdf">Sujet 01 - 2022</a></p>
        <h2 id="exercice-1">Exercice 1</h2><p>On parcourt le mot.</p>
        <p><a href="../2022-S02/">Sujet 02</a></p></article></body></html>"##,
    );
    // Under the title, a link to a file or to another page is the teacher's.
    assert_eq!(t, ["Sujet 01 - 2022", "On parcourt le mot.", "Sujet 02"]);
    // A block that holds the title is no link above it: its one link stays.
    let wrapped = texts(
        r##"<html><body><main><div class="wrap"><h1>Sujets 2022</h1>
        <p><a href="s1/">Sujet 1</a></p></div></main></body></html>"##,
    );
    assert_eq!(wrapped, ["Sujet 1"]);
    // A sentence with a link above the title is text.
    let sentence = texts(
        r##"<html><body><main><p>Ce cours suit <a href="../programme/">le programme</a> de 2019.</p>
        <h1>Les piles</h1><p>Une pile.</p></main></body></html>"##,
    );
    assert_eq!(
        sentence,
        ["Ce cours suit le programme de 2019.", "Une pile."]
    );
}

#[test]
fn a_page_whose_content_is_encrypted_is_left_out() {
    // mkdocs-encryptcontent-plugin: a French NSI site protects its corrections; each page's
    // content is the ciphertext, hidden, and the password form its script shows.
    let read = |html: &str| Reader::new(&Structure::default()).read(html, &[], false);
    let html = r##"<html><head><title>Correction des exercices - NSI</title></head><body>
        <article class="md-content__inner md-typeset">
        <div id="mkdocs-encrypted-content" style="display:none">8EKR5F4HeJ0QyF+TQr7fNg==;+jMJCY5xk+4lipNC6TNgM2eGNMHKrIGGa33nM97</div>
        <div id="mkdocs-decrypted-content" style="display:none"><form id="mkdocs-decrypt-form">
        <h1>Page protégée par un mot de passe</h1><p>Contacter l'administrateur du site</p>
        <input type="password" id="mkdocs-content-password"></form></div></article></body></html>"##;
    let p = read(html);
    assert!(p.skip.as_deref().is_some_and(|s| s.contains("encrypted")));
    // Without the plugin's ciphertext, the page is read.
    let plain = read(&html.replace("mkdocs-encrypted-content", "corrige"));
    assert_eq!(plain.skip, None);
}

#[test]
fn a_titled_block_that_only_points_to_a_page_is_left_out_but_not_one_giving_files() {
    // A French NSI course lists each exam exercise with a collapsible "Corrigé disponible"
    // holding only a link to the page of the correction, which is indexed there; Sphinx's
    // "See also" points to a chapter. The home page's "Grand Oral" box gives the teacher's
    // files beside a page of subjects: read.
    let t = texts(
        r##"<html><body><article class="md-content__inner"><h2>Exercice 6</h2>
        <ol><li><p><a href="../sujets/21-ME1.pdf">Métropole (Jour 1) - Exercice 1</a></p>
        <details class="question"><summary>Corrigé disponible</summary>
        <p><a href="../Corriges/21-ME1/#exercice-1">Accéder au corrigé</a></p></details></li></ol>
        <div class="admonition seealso"><p class="admonition-title">See also</p><p><a href="numpy/index.html#numpy">chapter on numpy</a></p></div>
        <div class="admonition tip"><p class="admonition-title">Grand Oral</p><ul>
        <li><a href="data/GO_Eduscol.pdf">Guide Eduscol pour le Grand Oral</a></li>
        <li><a href="sujets/">Liste de sujets NSI</a></li></ul></div></article></body></html>"##,
    );
    assert_eq!(
        t,
        [
            "- Métropole (Jour 1) - Exercice 1",
            "**Grand Oral**",
            "- Guide Eduscol pour le Grand Oral",
            "- Liste de sujets NSI"
        ]
    );
}

#[test]
fn links_on_the_host_the_site_is_served_from_are_the_sites_own() {
    // The course links each correction by its full address and names no canonical address:
    // given where the site is served (`--url`), the pointer is told; without it, it is read.
    let html = r##"<html><body><article><h2>Exercice 6</h2><p>Sujets de 2021.</p>
        <details class="question"><summary>Corrigé disponible</summary>
        <p><a href="https://nsi.example.github.io/Terminale/Corriges/21-ME1/">Accéder au corrigé</a></p></details>
        </article></body></html>"##;
    let reader = Reader::new(&Structure::default());
    let served = reader.read_at(html, &[], false, "https://nsi.example.github.io/");
    let texts = |p: &PageText| p.blocks.iter().map(|b| b.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&served), ["Sujets de 2021."]);
    let unknown = reader.read(html, &[], false);
    assert_eq!(
        texts(&unknown),
        [
            "Sujets de 2021.",
            "Corrigé disponible",
            "Accéder au corrigé"
        ]
    );
}

#[test]
fn a_menu_bar_with_the_sites_name_above_the_title_is_left_out() {
    // A Terminale NSI course's notebooks converted to HTML open with a bar of the site's name
    // and its chapters; it was a chunk of chapter names on each page.
    let bar = r#"<div class="barre_de_menu"><p class="important">Cours de NSI Première</p>
        <a href="01.html">Constructions élémentaires</a> <a href="02.html">Booléens</a>
        <a href="03.html">Fonctions</a> <a href="04.html">Chaînes de caractères</a>
        <a href="05.html">Tableaux</a> <a href="06.html">p-uplets et dictionnaires</a></div>"#;
    let above = texts(&format!(
        "<html><body><main>{bar}<h1>Chapitre 4</h1><p>Un texte.</p></main></body></html>"
    ));
    assert_eq!(above, ["Un texte."]);
    // Under the title, the same words beside the links are the teacher's: read.
    let below = texts(&format!(
        "<html><body><main><h1>Chapitre 4</h1>{bar}<p>Un texte.</p></main></body></html>"
    ));
    assert!(
        below.iter().any(|t| t.contains("Cours de NSI Première")),
        "{below:?}"
    );
}
