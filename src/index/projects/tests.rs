use super::*;
use std::collections::HashMap;

fn files(list: &[(&str, &str)]) -> HashMap<String, String> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn of(list: &[(&str, &str)]) -> Option<Project> {
    let f = files(list);
    detect(&|n| f.get(n).cloned())
}

#[test]
fn the_folders_mkdocs_yml_names_or_its_defaults() {
    let yml = "site_name: NSI\ndocs_dir: 'cours/'  # the pages\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n";
    let p = of(&[("mkdocs.yml", yml)]).unwrap();
    assert_eq!((p.docs(), p.site_dir.as_str()), ("cours", "site"));
    // Read by Python-Markdown: `#Titre` is a heading.
    assert!(p.publishing.extensions.python_markdown);
    // `md_in_html` when the project lists it.
    assert!(!p.publishing.extensions.md_in_html);
    let md_in_html = format!("{yml}  - md_in_html\n");
    let p = of(&[("mkdocs.yml", md_in_html.as_str())]).unwrap();
    assert!(p.publishing.extensions.md_in_html);
    let q = of(&[(
        "mkdocs.yaml",
        "site_name: x\n  docs_dir: nested, not top level\n",
    )])
    .unwrap();
    assert_eq!((q.docs(), q.site_dir.as_str()), ("docs", "site"));
}

#[test]
fn the_pages_mkdocs_exclude_search_leaves_out_of_the_sites_search() {
    let yml = "site_name: NSI\nplugins:\n  - search\n  - exclude-search:           # the plugin\n      exclude:\n        - '**/hidden/**'      # whole folders\n        - xtra/*.md           # snippets\n      ignore:\n        - xtra/kept.md#intro\n  - awesome-pages:\n      exclude:\n        - other.md\n";
    let p = of(&[("mkdocs.yml", yml)]).unwrap().publishing.unsearched;
    assert_eq!(p.patterns, ["**/hidden/**", "xtra/*"]);
    assert_eq!(p.kept, ["xtra/kept"]);
    let flow = "plugins:\n- exclude-search:\n    exclude: [\"a.md\", b/*]\n";
    let p = of(&[("mkdocs.yml", flow)]).unwrap().publishing.unsearched;
    assert_eq!(p.patterns, ["a", "b/*"]);
    let none = of(&[("mkdocs.yml", "plugins:\n  - search\n")]).unwrap();
    assert_eq!(none.publishing.unsearched, Unsearched::default());
}

impl Project {
    fn docs(&self) -> &str {
        self.pages_dir.as_deref().unwrap_or("")
    }
}

#[test]
fn each_generator_by_its_configuration_and_where_it_writes() {
    // (files, generator, site folder, pages folder)
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str, &'a str);
    let cases: &[Case] = &[
        (
            &[("hugo.toml", "title = 'x'\n")],
            "Hugo",
            "public",
            "content",
        ),
        (
            &[(
                "config.toml",
                "baseURL = 'https://x/'\npublishDir = \"docs\"\ncontentDir = 'pages'\n",
            )],
            "Hugo",
            "docs",
            "pages",
        ),
        (
            &[("hugo.toml", "[languages.fr]\n  contentDir = 'content.fr'\n")],
            "Hugo",
            "public",
            "content.fr",
        ),
        (&[("_config.yml", "title: x\n")], "Jekyll", "_site", ""),
        (
            &[("_config.yml", "destination: ./out\n")],
            "Jekyll",
            "./out",
            "",
        ),
        (
            &[("_config.yml", "title: x\n"), ("_toc.yml", "root: intro\n")],
            "Jupyter Book",
            "_build/html",
            "",
        ),
        (
            &[("myst.yml", "version: 1\n")],
            "Jupyter Book (mystmd)",
            "_build/html",
            "",
        ),
        (
            &[(
                "book.toml",
                "[book]\nsrc = \"pages\"\n[build]\nbuild-dir = \"site\"\n",
            )],
            "mdBook",
            "site",
            "pages",
        ),
        (
            &[("docusaurus.config.ts", "export default {}")],
            "Docusaurus",
            "build",
            "docs",
        ),
        (
            &[("_quarto.yml", "project:\n  type: website\n")],
            "Quarto",
            "_site",
            "",
        ),
        (
            &[("_quarto.yml", "project:\n  type: book\n")],
            "Quarto",
            "_book",
            "",
        ),
        (
            &[(
                "_quarto.yml",
                "project:\n  type: website\n  output-dir: docs\n",
            )],
            "Quarto",
            "docs",
            "",
        ),
        (
            &[("_bookdown.yml", "book_filename: x\n")],
            "bookdown",
            "_book",
            "",
        ),
        (
            &[("config.yaml", "carpentry: 'swc'\ntitle: 'Python'\n")],
            "Carpentries Workbench",
            "site/docs",
            "",
        ),
        (
            &[("conf.py", "project = 'x'\n")],
            "Sphinx",
            "_build/html",
            "",
        ),
        (
            &[("source/conf.py", "project = 'x'\n")],
            "Sphinx",
            "build/html",
            "",
        ),
        (
            &[(".vitepress/config.mts", "export default {}")],
            "VitePress",
            ".vitepress/dist",
            "",
        ),
    ];
    for (list, generator, site, pages) in cases {
        let p = of(list).unwrap_or_else(|| panic!("{list:?}: no project"));
        assert_eq!(
            (p.generator, p.site_dir.as_str(), p.docs()),
            (*generator, *site, *pages),
            "{list:?}"
        );
    }
    // Where each serves a Markdown page.
    let urls = |list: &[(&str, &str)]| of(list).unwrap().publishing.urls;
    assert_eq!(urls(&[("mkdocs.yml", "")]), PageUrls::Folders);
    assert_eq!(urls(&[("hugo.toml", "")]), PageUrls::Folders);
    // Unless told to serve `page.html`.
    let files = [(
        "mkdocs.yml",
        "site_name: x\nuse_directory_urls: False  # hors ligne\n",
    )];
    assert_eq!(urls(&files), PageUrls::Html);
    let kept = [("mkdocs.yml", "use_directory_urls: true\n")];
    assert_eq!(urls(&kept), PageUrls::Folders);
    assert_eq!(urls(&[("hugo.toml", "uglyURLs = true\n")]), PageUrls::Html);
    assert_eq!(urls(&[("hugo.yaml", "uglyurls: true\n")]), PageUrls::Html);
    assert_eq!(urls(&[("_quarto.yml", "")]), PageUrls::Html);
    assert_eq!(urls(&[("book.toml", "")]), PageUrls::Html);
    assert_eq!(urls(&[("_config.yml", "title: x\n")]), PageUrls::Html);
    let pretty = [("_config.yml", "permalink: pretty\n")];
    assert_eq!(urls(&pretty), PageUrls::Folders);
    // A `config.toml` without Hugo's `baseURL` is some other tool's.
    assert_eq!(of(&[("config.toml", "[tool]\nname = 'x'\n")]), None);
    assert_eq!(of(&[("index.html", "<html></html>")]), None);
}

#[test]
fn a_built_root_page_makes_a_built_site_but_a_jekyll_template_does_not() {
    let built = files(&[
        ("index.html", "<!DOCTYPE html><html></html>"),
        ("_config.yml", "include: [_static]\n"),
    ]);
    assert!(built_root(&|n| built.get(n).cloned()));
    let source = files(&[(
        "index.html",
        "---\nlayout: home\n---\n<p>{{ site.title }}</p>",
    )]);
    assert!(!built_root(&|n| source.get(n).cloned()));
}

#[test]
fn notebooks_are_pages_where_the_generator_renders_them_and_its_output_is_not() {
    let nb = |list: &[(&str, &str)]| of(list).unwrap().publishing.notebooks == Notebooks::Pages;
    assert!(nb(&[
        ("_config.yml", "title: x\n"),
        ("_toc.yml", "root: intro\n")
    ]));
    assert!(nb(&[("myst.yml", "version: 1\n")]));
    assert!(nb(&[("_quarto.yml", "project:\n  type: website\n")]));
    let plugin = "plugins:\n  - search\n  - mkdocs-jupyter:\n      execute: false\n";
    assert!(nb(&[("mkdocs.yml", plugin)]));
    // Without the plugin, MkDocs copies a notebook as a file to download.
    assert!(!nb(&[("mkdocs.yml", "plugins:\n  - search\n")]));
    assert!(!nb(&[("_config.yml", "title: x\n")]));
    assert!(!nb(&[("book.toml", "")]));
    // The folders beside the pages that are its output or installed packages.
    let not_pages = |list: &[(&str, &str)]| of(list).unwrap().publishing.output;
    let jupyter_book = [("_config.yml", ""), ("_toc.yml", "")];
    assert_eq!(not_pages(&jupyter_book), ["_build"]);
    assert_eq!(not_pages(&[("_quarto.yml", "")]), ["_site"]);
    let jekyll = [("_config.yml", "destination: docs\n")];
    assert_eq!(not_pages(&jekyll), ["docs", "vendor"]);
}

#[test]
fn what_jekyll_and_mdbook_publish() {
    let config = "title: Cours\ncollections:\n  # les cours\n  cours:\n    output: true # publiés\n    permalink: /:collection/:name\n  staffers:\n    output: false\n  modules:\ndefaults:\n  - scope:\n      output: true\n";
    assert_eq!(jekyll_outputs(config), ["cours"]);
    assert_eq!(
        jekyll_outputs("collections: [a, b]\n"),
        Vec::<String>::new()
    );
    let p = of(&[("_config.yml", config)]).unwrap().publishing;
    let published = p.jekyll.as_ref().map(|j| j.published.clone());
    assert_eq!(published, Some(vec!["_posts".to_string(), "_cours".into()]));
    assert!(p.unpublished("_modules/week-1.md").is_some());
    let book = of(&[("book.toml", "")]).unwrap().publishing;
    assert!(book.unpublished("SUMMARY.md").is_some() && book.jekyll.is_none());
    // mdBook builds the chapters its SUMMARY.md links to, no other file.
    let summary = "# Summary\n\n[Introduction](README.md)\n\n- [Piles](./cours/piles.md)\n  - [Files](cours/les%20files.md#intro)\n- [Brouillon]()\n- [Rust](https://www.rust-lang.org)\n";
    let book = of(&[("book.toml", ""), ("src/SUMMARY.md", summary)])
        .unwrap()
        .publishing;
    for rel in ["README.md", "cours/piles.md", "cours/les files.md"] {
        assert_eq!(book.unpublished(rel), None, "{rel}");
    }
    assert!(book.unpublished("cours/brouillon.md").is_some());
    // MkDocs: what `exclude_docs` and `draft_docs` leave out, and `templates/`.
    let yml = "site_name: NSI\nexclude_docs: |\n  *.py.md\n  # brouillons\n  /drafts/\ndraft_docs: _wip.md\nnav:\n  - index.md\n";
    let mkdocs = of(&[("mkdocs.yml", yml)]).unwrap().publishing;
    assert_eq!(
        mkdocs.excluded.written().collect::<Vec<_>>(),
        ["/templates/", "*.py.md", "/drafts/", "_wip.md"]
    );
    // Quarto: its render targets, read from `project:`.
    let yml = "project:\n  type: book\n  render:\n    - index.md\n    - \"!materials/*/no_render\" # brouillons\n\nformat: html\n";
    assert_eq!(
        yaml_list(yml, "render"),
        ["index.md", "!materials/*/no_render"]
    );
    let quarto = of(&[("_quarto.yml", yml)]).unwrap().publishing;
    assert_eq!(quarto.quarto.map(|q| q.render.written().count()), Some(2));
    // Docusaurus: MDX pages, front matter slugs; MkDocs: neither.
    let docusaurus = of(&[("docusaurus.config.js", "")]).unwrap().publishing;
    assert!(docusaurus.mdx && docusaurus.front_urls == FrontUrls::Docusaurus);
    assert!(docusaurus.unpublished("bases/_rappel.mdx").is_some());
    assert!(docusaurus.unpublished("_partials/x.md").is_some());
    assert_eq!(docusaurus.unpublished("bases/piles.mdx"), None);
    let mkdocs = of(&[("mkdocs.yml", "")]).unwrap().publishing;
    assert!(!mkdocs.mdx && mkdocs.front_urls == FrontUrls::None);
}

#[test]
fn a_hugo_sites_languages_from_its_configuration_or_its_configuration_folder() {
    let langs = |list: &[(&str, &str)]| {
        let p = of(list).expect("a project");
        assert_eq!(p.generator, "Hugo");
        p.publishing.languages.map(|l| {
            let codes = l.codes.join(",");
            (codes, l.default, l.default_in_subdir, l.folder)
        })
    };
    // Hugo Learn's example site: `baseURL = "/"` is a Hugo configuration too.
    let learn =
        "baseURL = \"/\"\ndefaultContentLanguage = \"en\"\ndefaultContentLanguageInSubdir= true\n\
                 [Languages]\n[Languages.en]\ntitle = \"Docs\"\n[Languages.fr]\ntitle = \"Docs\"\n";
    assert_eq!(
        langs(&[("config.toml", learn)]),
        Some(("en,fr".into(), "en".into(), true, None))
    );
    // The configuration folder, its languages in their own file.
    let folder = [
        (
            "config/_default/hugo.toml",
            "defaultContentLanguage = 'fr'\n",
        ),
        (
            "config/_default/languages.toml",
            "[fr]\nweight = 1\n[en]\nweight = 2\n",
        ),
    ];
    assert_eq!(
        langs(&folder),
        Some(("fr,en".into(), "fr".into(), false, None))
    );
    // The content folder read is a language's own: its pages are in that language.
    let dirs = "contentDir = 'content/fr'\n[languages.fr]\ncontentDir = 'content/fr'\n\
                [languages.en]\ncontentDir = 'pages'\n";
    assert_eq!(
        langs(&[("hugo.toml", dirs)]),
        Some(("fr,en".into(), "en".into(), false, Some("fr".into())))
    );
    // Every language's folder in one folder: that folder is read, each page in its folder's
    // language (the default's folder the project's `contentDir`).
    let siblings = "contentDir = 'content/en'\n[languages.fr]\ncontentDir = 'content/fr'\n\
                    [languages.en]\ntitle = 'x'\n";
    let p = of(&[("hugo.toml", siblings)]).expect("a project");
    assert_eq!(p.pages_dir.as_deref(), Some("content"));
    let l = p.publishing.languages.expect("languages");
    assert_eq!((l.folder, l.parent.as_deref()), (None, Some("content")));
    assert_eq!(
        l.by_folder,
        [
            ("fr".to_string(), "fr".to_string()),
            ("en".into(), "en".into())
        ]
    );
    assert_eq!(langs(&[("hugo.toml", "title = 'x'\n")]), None);
    // A `config.toml` without `baseURL` is another tool's.
    assert!(of(&[("config.toml", "title = 'x'\n")]).is_none_or(|p| p.generator != "Hugo"));
}
