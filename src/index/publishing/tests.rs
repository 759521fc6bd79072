use super::*;

#[test]
fn an_encrypted_page_is_left_out_where_its_site_encrypts() {
    let with = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    let why = |e: Encrypted, front: &[(String, String)]| e.why(front).is_some();
    assert!(why(Encrypted::Marked, &with("password", "corr_SQL")));
    assert!(!why(Encrypted::Marked, &with("title", "Cours")));
    assert!(!why(Encrypted::None, &with("password", "corr_SQL")));
    assert!(why(Encrypted::All, &with("title", "Cours")));
}

#[test]
fn a_block_titles_anchor_is_kept_as_its_generator_keeps_it() {
    let workbench = Publishing {
        workbench: true,
        ..Publishing::default()
    };
    assert!(workbench.title_anchored("challenge"));
    assert!(!workbench.title_anchored("solution"));
    assert!(!workbench.title_anchored("hint"));
    let quarto = Publishing {
        quarto: Some(Quarto::default()),
        ..Publishing::default()
    };
    assert!(!quarto.title_anchored("callout-exercise"));
    assert!(Publishing::default().title_anchored("solution"));
}

#[test]
fn a_workbench_lessons_pages_are_served_at_the_sites_root() {
    let lesson = Publishing {
        workbench: true,
        ..Publishing::default()
    };
    let served = |rel| lesson.served_path(rel).into_owned();
    assert_eq!(served("episodes/05-loop.md"), "05-loop.md");
    assert_eq!(served("episodes/05-loop.Rmd"), "05-loop.Rmd");
    assert_eq!(served("learners/reference.md"), "reference.md");
    assert_eq!(
        served("instructors/instructor-notes.md"),
        "instructor-notes.md"
    );
    assert_eq!(served("learners/setup.md"), "index.md");
    assert_eq!(served("profiles/learner-profiles.md"), "profiles.md");
    assert_eq!(served("index.md"), "index.md");
    for rel in [
        "README.md",
        "CONTRIBUTING.md",
        "episodes/fig/README.md",
        "site/x.md",
    ] {
        assert!(lesson.unpublished(rel).is_some(), "{rel}");
    }
    for rel in [
        "index.md",
        "LICENSE.md",
        "episodes/05-loop.md",
        "profiles/a.md",
    ] {
        assert_eq!(lesson.unpublished(rel), None, "{rel}");
    }
}

#[test]
fn a_jekyll_sites_underscore_folders_posts_and_collections() {
    let site = Publishing {
        jekyll: Some(Jekyll {
            published: vec!["_posts".into(), "_cours".into()],
        }),
        ..Publishing::default()
    };
    for rel in ["_includes/enonce.md", "_staffers/kevin.md", "_layouts/x.md"] {
        assert!(site.unpublished(rel).is_some(), "{rel}");
    }
    for rel in [
        "_posts/2024-01-05-bienvenue.md",
        "_cours/piles.md",
        "index.md",
        "_index.md",
    ] {
        assert_eq!(site.unpublished(rel), None, "{rel}");
    }
    let served = |rel| site.served_path(rel).into_owned();
    assert_eq!(
        served("_posts/2024-01-05-bienvenue.md"),
        "2024/01/05/bienvenue.md"
    );
    assert_eq!(
        served("_posts/annonces/2024-01-05-bienvenue.md"),
        "2024/01/05/bienvenue.md"
    );
    assert_eq!(served("_posts/sans-date.md"), "sans-date.md");
    assert_eq!(served("_cours/piles.md"), "cours/piles.md");
    assert_eq!(served("cours/piles.md"), "cours/piles.md");
    // Elsewhere, `_` folders are pages like any other, served where they are.
    let mkdocs = Publishing::default();
    assert_eq!(mkdocs.unpublished("_cours/piles.md"), None);
    assert_eq!(mkdocs.served_path("_cours/piles.md"), "_cours/piles.md");
}

#[test]
fn output_folders_and_packages_are_not_walked() {
    let book = Publishing {
        output: vec!["_build".into()],
        contents: vec!["SUMMARY.md".into()],
        ..Publishing::default()
    };
    assert!(!walks(&book, "_build") && !walks(&book, "outils/node_modules"));
    // Libraries a page loads: Quarto's, and a deck's beside it.
    assert!(!walks(&book, "site_libs") && !walks(&book, "slides/Slides_files/libs"));
    assert!(walks(&book, "Slides_files") && walks(&book, "cours/libs"));
    assert!(walks(&book, "chapitres") && walks(&book, "chapitres/_build"));
    assert!(book.unpublished("SUMMARY.md").is_some());
    assert_eq!(book.unpublished("chapitres/SUMMARY.md"), None);
}

#[test]
fn front_matter_addresses_as_each_generator_reads_them() {
    let with = |front_urls| Publishing {
        front_urls,
        ..Publishing::default()
    };
    let front = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let url = |p: &Publishing, pairs: &[(&str, &str)], default: &str| {
        front_url(p, "page.md", &front(pairs), default)
    };
    let jekyll = with(FrontUrls::Jekyll);
    assert_eq!(
        url(&jekyll, &[("permalink", "/staff/")], "equipe.html").as_deref(),
        Some("staff/")
    );
    assert_eq!(url(&jekyll, &[("permalink", "/:path/")], "a.html"), None);
    let hugo = with(FrontUrls::Hugo);
    assert_eq!(
        url(&hugo, &[("url", "/cours/lifo/")], "cours/piles/").as_deref(),
        Some("cours/lifo/")
    );
    assert_eq!(
        url(&hugo, &[("slug", "lifo")], "cours/piles/").as_deref(),
        Some("cours/lifo/")
    );
    let docusaurus = with(FrontUrls::Docusaurus);
    assert_eq!(
        url(&docusaurus, &[("slug", "/")], "intro/").as_deref(),
        Some("")
    );
    assert_eq!(
        url(&docusaurus, &[("slug", "/bases/piles")], "a/b/").as_deref(),
        Some("bases/piles/")
    );
    assert_eq!(
        url(&docusaurus, &[("slug", "lifo")], "bases/piles/").as_deref(),
        Some("bases/lifo/")
    );
    assert_eq!(
        url(&docusaurus, &[("id", "lifo")], "piles/").as_deref(),
        Some("lifo/")
    );
    // Where the generator reads none of them, they say nothing.
    assert_eq!(
        url(&Publishing::default(), &[("slug", "lifo")], "piles/"),
        None
    );
    assert_eq!(url(&docusaurus, &[("title", "Piles")], "piles/"), None);
    // Docusaurus serves a numbered file or folder without its number.
    let served = |rel| docusaurus.served_path(rel).into_owned();
    assert_eq!(served("01-Bases/02_variables.md"), "Bases/variables.md");
    assert_eq!(served("2. Les piles/index.md"), "Les piles/index.md");
    assert_eq!(served("2024/bilan.md"), "2024/bilan.md");
    assert_eq!(served("3-/x.md"), "3-/x.md");
}

#[test]
fn what_a_quarto_project_renders() {
    let all = Publishing {
        quarto: Some(Quarto::default()),
        ..Publishing::default()
    };
    assert!(all.unpublished("_includes/rappel.qmd").is_some());
    assert!(all.unpublished("cours/_partie.qmd").is_some());
    assert_eq!(all.unpublished("cours/piles.qmd"), None);
    // A project's render targets, as the Quarto course template lists them.
    let listed = Publishing {
        quarto: Some(Quarto {
            render: Patterns::rooted(
                &[
                    "index.md",
                    "setup.md",
                    "materials/*",
                    "!materials/*/no_render",
                ]
                .map(String::from),
            ),
        }),
        ..Publishing::default()
    };
    for rel in [
        "index.md",
        "materials/01-piles.md",
        "materials/tp/files.qmd",
    ] {
        assert_eq!(listed.unpublished(rel), None, "{rel}");
    }
    for rel in [
        "LICENSE.md",
        "README.md",
        "materials/tp/no_render/brouillon.md",
    ] {
        assert!(listed.unpublished(rel).is_some(), "{rel}");
    }
}

#[test]
fn what_mkdocs_exclude_docs_leaves_out() {
    let site = Publishing {
        excluded: Patterns::gitignore(
            &[
                "/templates/",
                "*.py.md",
                "/brouillons/",
                "old/",
                "!old/garder.md",
            ]
            .map(String::from),
        ),
        ..Publishing::default()
    };
    for rel in [
        "templates/base.md",
        "tp/exo.py.md",
        "brouillons/piles.md",
        "cours/old/piles.md",
    ] {
        assert!(site.unpublished(rel).is_some(), "{rel}");
    }
    for rel in [
        "cours/templates/x.md",
        "cours/brouillons/x.md",
        "old/garder.md",
        "cours/old.md",
    ] {
        assert_eq!(site.unpublished(rel), None, "{rel}");
    }
}

#[test]
fn a_multilingual_hugo_sites_pages_where_hugo_serves_each_language() {
    let site = Publishing {
        front_urls: FrontUrls::Hugo,
        lower_case_urls: true,
        languages: Some(super::super::translations::Languages {
            codes: vec!["fr".into(), "en".into()],
            default: "fr".into(),
            default_in_subdir: false,
            folder: None,
            dirs: Vec::new(),
            parent: None,
            by_folder: Vec::new(),
        }),
        ..Publishing::default()
    };
    assert_eq!(site.served_path("Cours/Piles.en.md"), "en/cours/piles.md");
    assert_eq!(site.served_path("Cours/Piles.fr.md"), "cours/piles.md");
    assert_eq!(site.served_path("Cours/Files.md"), "cours/files.md");
    assert_eq!(site.page_lang("Cours/Piles.en.md"), Some("en"));
    assert_eq!(site.page_lang("Cours/Files.md"), Some("fr"));
    // `url` under the page's language, unless written with it; a `slug` in its folder.
    let front = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    let url =
        |rel: &str, k: &str, v: &str, default: &str| front_url(&site, rel, &front(k, v), default);
    assert_eq!(
        url("a.en.md", "url", "/stacks/", "en/a/").as_deref(),
        Some("en/stacks/")
    );
    assert_eq!(
        url("a.en.md", "url", "/en/stacks/", "en/a/").as_deref(),
        Some("en/stacks/")
    );
    assert_eq!(
        url("a.fr.md", "url", "/piles/", "a/").as_deref(),
        Some("piles/")
    );
    assert_eq!(
        url("a.en.md", "slug", "Stacks", "en/a/").as_deref(),
        Some("en/stacks/")
    );
    // A translated leaf bundle: its `index.en.md` is its index, its other pages resources.
    let files = ["b/index.fr.md", "b/index.en.md", "b/annexe.md"];
    let exists = |p: &str| files.contains(&p);
    assert_eq!(site.by_an_index_page("b/index.en.md", &exists), None);
    assert!(matches!(
        site.by_an_index_page("b/annexe.md", &exists),
        Some(Err(_))
    ));
    // Without languages, `piles.en.md` is a page of that name.
    let plain = Publishing {
        languages: None,
        ..site.clone()
    };
    assert_eq!(plain.served_path("Cours/Piles.en.md"), "cours/piles.en.md");
    assert_eq!(plain.page_lang("Cours/Piles.en.md"), None);
}

#[test]
fn pages_left_out_of_the_sites_search_are_matched_as_mkdocs_exclude_search_matches_them() {
    let list = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let u = Unsearched::new(
        &list(&[
            "xtra/*.md",
            "second.md",
            "/*/fifth.md",
            "dir/*",
            "third.md#some-heading",
            "v[0-9]*",
            "N*/*/*/*.py",
        ]),
        &list(&["dir/kept.md#a-section"]),
    );
    // `*` runs over `/`; a pattern matches a page's path or its address.
    for page in [
        "xtra/start_REM.md",
        "xtra/deep/er.md",
        "second.md",
        "sub/fifth.md",
        "dir/a.md",
        "dir/sub/index.md",
        "v1.2/cours.md",
    ] {
        assert!(u.excludes(page), "{page}");
    }
    // A section's exclusion leaves its page; a page `ignore` keeps a section of stays; the
    // home page always does; a pattern of other files names no page; sets are sets.
    for page in [
        "third.md",
        "dir/kept.md",
        "index.md",
        "N1/a/b/c.md",
        "sub/second.md",
        "va/cours.md",
        "xtra.md",
    ] {
        assert!(!u.excludes(page), "{page}");
    }
    assert!(!Unsearched::default().excludes("xtra/a.md"));
    // Sets as Python's fnmatch reads them: negated, a literal `^`, an unclosed `[`.
    let fnmatch = |name: &str, pattern: &str| fnmatch(pattern).is_some_and(|r| r.is_match(name));
    assert!(fnmatch("b", "[!a]"));
    assert!(!fnmatch("a", "[!a]"));
    assert!(fnmatch("^", "[^x]"));
    assert!(fnmatch("[x", "[x"));
}
