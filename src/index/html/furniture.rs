//! What a page holds besides its text: the elements the reader never reads.

/// Elements never read, whatever the site: page furniture by element, by ARIA landmark role
/// (navigation, banner, contentinfo, search, button) and by the classes of the generators'
/// themes (MkDocs Material, Docusaurus, Hugo, Jekyll's kramdown, Sphinx, Jupyter Book, Quarto,
/// VitePress and PreTeXt: the page's table of contents, its previous / next and back-to-top
/// links, breadcrumb trails (by class, id or schema.org microdata), links to the page's source in
/// a forge's editor ("Edit this page": `…/edit/…`), text for screen readers only, the "Skip to
/// main content" link (Docusaurus, many Jekyll
/// and WordPress themes), a code block's language label, Sphinx's in-page toctree of child pages
/// and its generated index of terms and modules, mystmd's front matter but for its title (badges,
/// links, date and DOI) and its previous / next links, PreTeXt's keyboard help beside each
/// diagram, the prompts of a notebook converted to HTML (`In [1]:`, by nbconvert for
/// `mkdocs-jupyter`, and by nbsphinx), Jupyter Book's "Show code cell output" toggle (the
/// labels its hidden cell's summary switches between), its cells' tag bar and the hidden copy of each cell's code
/// that `mkdocs-jupyter`'s copy button reads; pyodide-mkdocs-theme's terminals, its editors'
/// tooltips and attempt counters, its quizzes' encrypted remarks and the placeholder diagram it
/// hides; its corrections are read when it does not encrypt them, and its encrypted ones are not
/// text, [`super::parts::displayed`]), and the authors and dates LaTeXML writes under a
/// document's title, and those R Markdown's and bookdown's title block writes under the title
/// (`#header > .author`, `.date`: an `h4` that would head the page's first section). An SVG image is never read, but HTML that an
/// `<svg>` holds in a `<foreignObject>` is (Marp's slides put each slide there).
pub(super) const ALWAYS_SKIP: &str = "script, style, noscript, template, nav, header, footer, aside:not(.admonition), \
form, button, input, select, textarea, svg:not(:has(foreignObject)), iframe, canvas, audio, video, object, embed, img, \
[data-chsr-ignore], [data-pagefind-ignore], [hidden], [aria-hidden=true], .headerlink, .anchor-link, a.hash-link, .md-source-file, .md-content__button, \
.md-nav, .md-header, .md-footer, .md-sidebar, .md-search, .md-dialog, .md-top, .md-tags, \
.linenos, .linenodiv, .lineno, .katex-html, .MathJax_Preview, .visually-hidden, .sr-only, .screen-reader-text, .screen-reader-only, \
.admonition-title, .theme-admonition-heading, [class*=admonitionHeading], .callout-title, .callout-title-container, span.callout-header, .accordion-header, \
.admonitionblock td.icon, .exampleblock > .title, .sidebarblock > .title, .listingblock > .title, .expand > .expand-label, \
.tabbed-labels, [role=tablist], .pagination-nav, .theme-doc-footer, .theme-doc-toc-mobile, .toc, #toc, .table-of-contents, \
.breadcrumbs, .theme-doc-breadcrumbs, #breadcrumbs, [itemtype$='/Breadcrumb'], [itemtype$='/BreadcrumbList'], \
.edit-this-page, a[href*='/edit/'], .prev-next, .page-nav, .post-nav, \
[role=navigation], [role=banner], [role=contentinfo], [role=search], [role=button], \
#markdown-toc, .bd-toc, .tocsection, .prev-next-area, .prev-next-bottom, .sphinxsidebar, .contents.topic, \
.header-anchor, .custom-block-title, .codewrapper > .code-label, [class*=skipToContent], .skip-link, .skip-to-content, [class*=language-] > span.lang, \
.toctree-wrapper, .genindextable, .genindex-jumpbox, .modindextable, .modindex-jumpbox, \
.myst-fm-block-header, .myst-fm-block-date-doi, .myst-footer-links, .diagcess__instructions, .ptx-content-footer, \
summary > .collapsed, summary > .expanded, .jp-InputPrompt, .jp-OutputPrompt, .input_prompt, .output_prompt, .nbinput .prompt, .nboutput .prompt, .celltoolbar, .clipboard-copy-txt, \
.py_mk_terminal, .term_btns_wrapper, .compteur_wrapper, .py_mk_ide .tooltiptext, .py_mk_encrypted_qcm, \
.py_mk_hidden > pre.mermaid, .ltx_authors, .ltx_dates, #header > .author, #header > .date, #header > address";
