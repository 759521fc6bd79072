//! `chsr index` end to end, through the binary, on real course pages (tests/fixtures/sites): the
//! bundle's layout, the chunks' metadata read from paths, headings and tabs, code kept verbatim,
//! navigation left out, determinism, and errors that name the page or the key.
#![cfg(not(target_arch = "wasm32"))]

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sites")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("chsr-index-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `text` to `path` under `root`, making its folders.
fn write_file(root: &Path, path: &str, text: &str) {
    let f = root.join(path);
    std::fs::create_dir_all(f.parent().unwrap()).unwrap();
    std::fs::write(f, text).unwrap();
}

fn chsr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chsr"))
        .args(args)
        .output()
        .expect("run chsr")
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "chsr failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const CONFIG: &str = r#"
[site]
title = "NSI : rechercher dans le cours"
credits = "Cours de Gilles Lassus"
licence = "CC BY-SA 4.0"

[[source]]
path = "FIX/nsi-premiere"
subject = "informatique (NSI)"
level = "premiere"
lang = "fr"
exclude = ["**/sommaire/**"]
chapter = { path = '/(\d+\.\d+)_' }

[[source]]
path = "FIX/nsi-terminale"
subject = "informatique (NSI)"
level = "terminale"
lang = "fr"
url = "https://example.org/terminale/"
chapter = { path = '/(\d+\.\d+)_' }

[[source.rule]]
pages = ["T6_6_Epreuve_pratique/BNS_*/**"]
exam = "BNS épreuve pratique"
year = { path = 'BNS_(\d{4})' }
paper = { heading = 3, pattern = '(?i)exercice\s+(\d+)\.\d+', value = "sujet $1" }
question_number = { heading = 3, pattern = '(?i)exercice\s+(\d+\.\d+)' }
exercise_doc_type = "past_paper_question"
section_by = "heading"
"#;

/// Indexes the two fixture sites into `dir/out`; returns the chunks and the report.
fn index_sites(dir: &Path) -> (Vec<Value>, String) {
    let cfg = dir.join("chsr.toml");
    std::fs::write(
        &cfg,
        CONFIG.replace("FIX", &fixtures().display().to_string()),
    )
    .unwrap();
    let (out, chunks, report) = (
        dir.join("out"),
        dir.join("chunks.jsonl"),
        dir.join("report.md"),
    );
    ok(&chsr(&[
        "index",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--emit-chunks",
        chunks.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]));
    let chunks = std::fs::read_to_string(chunks)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (chunks, std::fs::read_to_string(report).unwrap())
}

fn find(chunks: &[Value], f: impl Fn(&Value) -> bool) -> &Value {
    chunks
        .iter()
        .find(|c| f(c))
        .expect("a chunk matching the test")
}

#[test]
fn a_built_site_becomes_a_bundle_of_scoped_chunks_read_from_its_structure() {
    let dir = tmp("sites");
    let (chunks, report) = index_sites(&dir);
    let out = dir.join("out");
    for f in [
        "shards/manifest.json",
        "index.html",
        "chsr-search.js",
        "chsr-client.js",
        "controller.js",
        "view.js",
        "page.css",
    ] {
        assert!(out.join(f).is_file(), "bundle lacks {f}");
    }
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(
        page.contains("NSI : rechercher dans le cours") && page.contains("Cours de Gilles Lassus")
    );
    assert!(
        !page.contains("OpenCERB"),
        "the bundle page credits the demo corpus"
    );
    // Every chunk is scoped; nothing from navigation, headers or footers.
    for c in &chunks {
        for f in ["subject", "level", "lang", "doc_type", "url", "title"] {
            assert!(
                c[f].as_str().is_some_and(|s| !s.is_empty()),
                "{f} missing in {c}"
            );
        }
        let t = c["text"].as_str().unwrap();
        assert!(
            !t.contains("Accueil Terminale NSI Rechercher") && !t.contains("Made with Material"),
            "{t}"
        );
        assert!(!t.contains("⚓︎") && !t.contains("Permanent link"), "{t}");
    }
    // The exam page: paper and question from its headings, year from its path, the tabs as
    // statement and correction, the copy of the Markdown source left out.
    let sol = find(&chunks, |c| {
        c["doc_type"] == "solution" && c["question_number"] == "07.1"
    });
    assert_eq!(sol["paper"], "sujet 07");
    assert_eq!(sol["year"], "2030");
    assert_eq!(sol["exam"], "BNS épreuve pratique");
    assert_eq!(
        sol["url"],
        "https://example.org/terminale/T6_6_Epreuve_pratique/BNS_2030/#exercice-071"
    );
    let text = sol["text"].as_str().unwrap();
    assert!(
        text.contains("def compte_voyelles(mot):\n    n = 0\n    for lettre in mot:\n        if lettre in 'aeiouy':\n            n += 1"),
        "indentation lost: {text}"
    );
    assert!(
        !text.contains("1\n2\n3"),
        "line numbers in the code: {text}"
    );
    let st = find(&chunks, |c| {
        c["doc_type"] == "past_paper_question" && c["question_number"] == "07.1"
    });
    assert_eq!(sol["answers"], st["id"]);
    assert!(!chunks.iter().any(|c| c["text"]
        .as_str()
        .unwrap()
        .contains("copie du Markdown source")));
    let st2 = find(&chunks, |c| {
        c["doc_type"] == "past_paper_question" && c["question_number"] == "07.2"
    });
    assert!(st2["text"]
        .as_str()
        .unwrap()
        .contains("| tableau | résultat |\n|---|---|\n| `[3, 9, 2]` | `9` |"));
    // A course page: chapter from the path, exercises and their corrections linked, the page's
    // own relative URL (no `url` for this source: relative to the bundle).
    let ex = find(&chunks, |c| {
        c["doc_type"] == "exercise" && c["level"] == "premiere" && c["chapter"] == "1.1"
    });
    let corr = find(&chunks, |c| c["answers"] == ex["id"]);
    assert_eq!(corr["doc_type"], "solution");
    let url = corr["url"].as_str().unwrap();
    assert!(
        url.contains("nsi-premiere/T1_Demarrer_en_Python/1.1_Variables/cours/#"),
        "{url}"
    );
    assert!(!url.starts_with('/') && !url.contains("://"), "{url}");
    // What was left out, and why.
    assert!(
        report.contains("sommaire/index.html`: excluded"),
        "{report}"
    );
    assert!(
        report.contains("overrides/main.html`: not an HTML page"),
        "{report}"
    );
    // The shards answer `chsr search`, gated: a première search returns terminale material only
    // labelled as such (recursion is a terminale topic: the première scope's evidence is weak and
    // W2 widens, labelled `cross_level`).
    let shards = out.join("shards");
    // `chsr search` of the built shards in the NSI subject, with the arguments `extra`.
    let search = |extra: &[&str]| {
        let shards = shards.to_str().unwrap();
        let args = [
            "search",
            "--shards",
            shards,
            "--subject",
            "informatique (NSI)",
        ];
        chsr(&[&args[..], extra].concat())
    };
    let json = ok(&search(&[
        "--level",
        "premiere",
        "--json",
        "-k",
        "8",
        "fonction récursive qui s'appelle elle-même",
    ]));
    let r: Value = serde_json::from_str(&json).unwrap();
    assert!(r["results"].as_array().unwrap().iter().all(|h| {
        (h["level"] == "premiere" && h["in_scope"] == true)
            || (h["leakage"] == "cross_level" && h["in_scope"] == false)
    }));
    let json = ok(&search(&[
        "--level",
        "terminale",
        "--exam",
        "BNS épreuve pratique",
        "--year",
        "2030",
        "--paper",
        "sujet 07",
        "--doc-type",
        "solution",
        "--json",
        "-k",
        "3",
        "compter les voyelles d'un mot",
    ]));
    let r: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["results"][0]["id"], sol["id"]);
    assert_eq!(r["results"][0]["url"], sol["url"]);
    // A scope value the index does not have is a clear error naming the valid ones.
    let bad = search(&["--level", "terminale", "--paper", "sujet 99", "voyelles"]);
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        !bad.status.success()
            && err.contains("unknown paper \"sujet 99\"")
            && err.contains("sujet 07"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_site_indexes_to_the_same_bytes() {
    let (a, b) = (tmp("det-a"), tmp("det-b"));
    index_sites(&a);
    index_sites(&b);
    let files = |d: &Path| {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(d.join("out/shards"))
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(files(&a), files(&b));
    let _ = (std::fs::remove_dir_all(&a), std::fs::remove_dir_all(&b));
}

#[test]
fn a_page_without_a_level_is_an_error_naming_it_unless_skipped() {
    let dir = tmp("unscoped");
    let site = fixtures().join("nsi-terminale");
    let out = dir.join("out");
    // `chsr index` of the site into `out`, with the arguments `extra`.
    let index = |extra: &[&str]| {
        let args = [
            "index",
            "--site",
            site.to_str().unwrap(),
            "--subject",
            "informatique (NSI)",
            "--out",
            out.to_str().unwrap(),
        ];
        chsr(&[&args[..], extra].concat())
    };
    let o = index(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "indexed pages without a level");
    assert!(
        err.contains("nsi-terminale/") && err.contains("index.html") && err.contains("no level"),
        "{err}"
    );
    assert!(err.contains("--skip-unscoped"), "{err}");
    let report = dir.join("r.json");
    // Every page of this site lacks a level: nothing to index, a clear error, and the report.
    let o = index(&["--skip-unscoped", "--report", report.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("no page gave any text"),
        "{err}"
    );
    let r: Value = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    assert_eq!(r["pages_indexed"], 0);
    assert!(r["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s[1].as_str().unwrap().contains("no level")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_config_names_the_file_and_the_key() {
    let dir = tmp("badcfg");
    let cfg = dir.join("chsr.toml");
    // `chsr index` on the config `toml`: whether it succeeded, and its stderr.
    let index = |toml: &str| {
        std::fs::write(&cfg, toml).unwrap();
        let o = chsr(&[
            "index",
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            dir.join("o").to_str().unwrap(),
        ]);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (passed, err) = index("[[source]]\npath = \"x\"\nsubject = \"s\"\nlevel = \"l\"\nlang = \"fr\"\nchaptre = \"1\"\n");
    assert!(
        !passed && err.contains("chsr.toml") && err.contains("chaptre"),
        "{err}"
    );
    let (passed, err) =
        index("[[source]]\npath = \"missing\"\nsubject = \"s\"\nlevel = \"l\"\nlang = \"fr\"\n");
    assert!(
        !passed && err.contains("missing") && err.contains("not a folder"),
        "{err}"
    );
    // A built site given as Markdown sources: the message says what to use instead.
    let (passed, err) = index(&format!(
        "[[source]]\npath = {:?}\nformat = \"markdown\"\nsubject = \"s\"\nlevel = \"l\"\nlang = \"fr\"\n",
        fixtures().join("nsi-premiere")
    ));
    assert!(
        !passed && err.contains("no Markdown") && err.contains("--site"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `chsr index --markdown src` (NSI, French, at `level`, with `extra` arguments) into `dir`: the
/// chunks it emits.
fn index_markdown(src: &Path, dir: &Path, level: &str, extra: &[&str]) -> Vec<Value> {
    index_folder("--markdown", src, dir, level, extra).0
}

/// `chsr index DOOR src` (`--site` or `--markdown`; NSI, French, at `level`, with `extra`
/// arguments) into `dir` (the bundle in `out/`): the chunks it emits and its JSON report.
fn index_folder(
    door: &str,
    src: &Path,
    dir: &Path,
    level: &str,
    extra: &[&str],
) -> (Vec<Value>, Value) {
    let (out, chunks, report) = (dir.join("out"), dir.join("c.jsonl"), dir.join("r.json"));
    let mut args = vec![
        "index",
        door,
        src.to_str().unwrap(),
        "--subject",
        "informatique (NSI)",
        "--level",
        level,
        "--lang",
        "fr",
        "--out",
        out.to_str().unwrap(),
        "--emit-chunks",
        chunks.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    ok(&chsr(&args));
    let chunks = std::fs::read_to_string(chunks)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let report = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    (chunks, report)
}

#[test]
fn markdown_sources_go_through_the_same_chunker() {
    let dir = tmp("md");
    let src = fixtures().join("markdown-course");
    let chunks = index_markdown(
        &src,
        &dir,
        "terminale",
        &["--url", "https://example.org/cours"],
    );
    assert!(
        chunks
            .iter()
            .all(|c| c["title"] == "Les piles" && c["chapter"] == "1.1"),
        "draft page indexed or front matter lost"
    );
    let text = find(&chunks, |c| c["doc_type"] == "textbook_section")["text"]
        .as_str()
        .unwrap();
    assert!(text.starts_with("Les piles — Définition\n"), "{text}");
    assert!(text.contains("```python\np = []\np.append(3)"), "{text}");
    assert!(text.contains("| opération | effet |\n|---|---|"), "{text}");
    let ex = find(&chunks, |c| c["doc_type"] == "exercise");
    let sol = find(&chunks, |c| c["doc_type"] == "solution");
    assert_eq!(sol["answers"], ex["id"]);
    // A folder of Markdown pages is read as MkDocs shows it: its pretty URLs and
    // Python-Markdown's anchors, without accents.
    assert_eq!(
        sol["url"],
        "https://example.org/cours/chapitre-1/piles/#definition"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `chsr index --site SITE --subject cs --level university` into `dir`: its JSON report and
/// the chunks it emits.
fn index_cs_site(site: &Path, dir: &Path) -> (Value, Vec<Value>) {
    let (out, report, chunks) = (dir.join("out"), dir.join("r.json"), dir.join("c.jsonl"));
    let arg = |p: &Path| p.to_str().unwrap().to_string();
    let (site, out, report_a, chunks_a) = (arg(site), arg(&out), arg(&report), arg(&chunks));
    ok(&chsr(&[
        "index",
        "--site",
        &site,
        "--subject",
        "cs",
        "--level",
        "university",
        "--out",
        &out,
        "--report",
        &report_a,
        "--emit-chunks",
        &chunks_a,
    ]));
    let r = serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let c = std::fs::read_to_string(chunks)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (r, c)
}

#[test]
fn a_root_page_that_only_redirects_an_empty_file_or_the_404_page_is_reported_as_such() {
    // Sphinx's and Jupyter Book's root `index.html` is one `<meta http-equiv="Refresh">` line;
    // mdBook, MkDocs, Docusaurus, Hugo… write a root `404.html` for GitHub Pages, and one at the
    // root of each translation (Docusaurus i18n: `ur/404.html`).
    let dir = tmp("redirect");
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("docs")).unwrap();
    std::fs::create_dir_all(site.join("ur")).unwrap();
    std::fs::write(
        site.join("ur/404.html"),
        "<html lang=\"ur\"><body><main><h1>Page Not Found</h1><p>We could not find what you were looking for.</p></main></body></html>",
    )
    .unwrap();
    std::fs::write(
        site.join("index.html"),
        "<meta http-equiv=\"Refresh\" content=\"0; url=docs/index.html\" />\n",
    )
    .unwrap();
    std::fs::write(site.join("docs/empty.html"), "").unwrap();
    std::fs::write(
        site.join("404.html"),
        "<html><body><main><h1>Document not found (404)</h1><p>This URL is invalid.</p></main></body></html>",
    )
    .unwrap();
    std::fs::write(
        site.join("docs/index.html"),
        "<!DOCTYPE html><html lang=\"en\"><body><main><h1>Loops</h1><p>A loop repeats.</p></main></body></html>",
    )
    .unwrap();
    let (r, _) = index_cs_site(&site, &dir);
    assert_eq!(r["pages_indexed"], 1);
    let skipped = r["skipped"].as_array().unwrap();
    let why = |page: &str| {
        skipped
            .iter()
            .find(|s| s[0].as_str().unwrap().ends_with(page))
            .map(|s| s[1].as_str().unwrap().to_string())
    };
    assert_eq!(skipped.len(), 4, "{skipped:?}");
    for page in ["site/404.html", "site/ur/404.html"] {
        assert!(why(page).unwrap().contains("404 page"), "{skipped:?}");
    }
    assert!(
        why("site/index.html").unwrap().contains("redirect"),
        "{skipped:?}"
    );
    assert_eq!(why("docs/empty.html").as_deref(), Some("an empty file"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_page_published_twice_is_indexed_once_and_the_report_names_the_copy() {
    // mdBook writes the book's first chapter again as the root index.html.
    let dir = tmp("twice");
    let site = dir.join("site");
    std::fs::create_dir_all(&site).unwrap();
    let page = |title: &str, body: &str| {
        format!("<!DOCTYPE html><html lang=\"en\"><body><nav>Contents</nav><main><h1>{title}</h1><p>{body}</p></main></body></html>")
    };
    let intro = page("Introduction", "This book teaches loops and recursion.");
    std::fs::write(site.join("index.html"), &intro).unwrap();
    std::fs::write(site.join("introduction.html"), &intro).unwrap();
    std::fs::write(site.join("loops.html"), page("Loops", "A loop repeats.")).unwrap();
    let (r, chunks) = index_cs_site(&site, &dir);
    assert_eq!(r["pages_indexed"], 2);
    let skipped = r["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0][0].as_str().unwrap().ends_with("site/index.html"));
    assert_eq!(
        skipped[0][1],
        "the same text as introduction.html (indexed once)"
    );
    let urls: Vec<&str> = chunks.iter().map(|c| c["url"].as_str().unwrap()).collect();
    assert_eq!(urls.len(), 2, "{urls:?}");
    assert!(urls.iter().any(|u| u.contains("introduction")), "{urls:?}");
    assert!(!urls.iter().any(|u| u.contains("index.html")), "{urls:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_chapter_a_lessons_pages_are_one_section() {
    let dir = tmp("lessons");
    let src = dir.join("site");
    let page = |path: &str, text: &str| write_file(&src, path, text);
    // A lesson (its course and its exercises), and a course alone in its folder.
    page(
        "t1/boucles/cours.md",
        "# Boucles\n\nUne boucle `for` répète des instructions.\n",
    );
    page(
        "t1/boucles/exercices.md",
        "# Exercices\n\n!!! example \"Exercice 1\"\n    Écrire une boucle qui compte jusqu'à 10.\n",
    );
    page(
        "t1/listes/cours.md",
        "# Listes\n\nUne liste range des valeurs.\n",
    );
    let chunks = index_markdown(&src, &dir, "premiere", &[]);
    let key = |path: &str| find(&chunks, |c| c["path"] == path)["section_key"].clone();
    let lesson = key("t1/boucles/cours.md");
    assert!(
        lesson.as_str().unwrap().ends_with(":t1/boucles/"),
        "{lesson}"
    );
    assert_eq!(key("t1/boucles/exercices.md"), lesson);
    assert!(find(&chunks, |c| c["path"] == "t1/boucles/exercices.md"
        && c["doc_type"] == "exercise")
    .is_object());
    assert!(key("t1/listes/cours.md")
        .as_str()
        .unwrap()
        .ends_with(":t1/listes/cours"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pages_named_by_their_role_are_named_by_their_sidebar_section() {
    // A course published as a "Cours" and an "Exercices" page per chapter, in folders at the
    // site's root, each chapter a section of MkDocs Material's sidebar.
    let dir = tmp("navtrail");
    let src = dir.join("site");
    let chapters = [("c10", "C10 : algo graphes"), ("c11", "C11 : routage")];
    for (i, (folder, chapter)) in chapters.iter().enumerate() {
        for (role, title, body) in [
            (
                "c",
                "Cours",
                "<p>Un parcours visite chaque sommet du graphe.</p>",
            ),
            (
                "e",
                "Exercices",
                "<h2>Exercice 1</h2><p>Appliquer le parcours au graphe.</p>",
            ),
        ] {
            let nav = format!(
                r#"<nav class="md-nav md-nav--primary"><ul><li class="md-nav__item md-nav__item--nested">
                <label class="md-nav__link">{chapter}</label><nav class="md-nav"><ul>
                <li class="md-nav__item"><a class="md-nav__link md-nav__link--active" href="./">{title}</a></li>
                </ul></nav></li></ul></nav>"#
            );
            let html = format!(
                "<html><head><title>{title} - NSI</title></head><body>{nav}<article class=\"md-content__inner md-typeset\"><h1>{title}</h1>{body}<p>Chapitre {i}.</p></article></body></html>"
            );
            write_file(&src, &format!("{folder}{role}/index.html"), &html);
        }
    }
    let (chunks, _) = index_folder("--site", &src, &dir, "terminale", &[]);
    let page = |path: &str| find(&chunks, |c| c["path"] == path);
    let exercises = page("c10e/index.html");
    assert_eq!(exercises["title"], "C10 : algo graphes › Exercices");
    assert_eq!(exercises["chapter_title"], "C10 : algo graphes");
    assert_eq!(page("c11c/index.html")["title"], "C11 : routage › Cours");
    // A chapter's pages are one lesson.
    assert_eq!(
        page("c10c/index.html")["section_key"],
        exercises["section_key"]
    );
    assert_ne!(
        page("c11c/index.html")["section_key"],
        exercises["section_key"]
    );
    // Its sources read alike: MkDocs' `nav` gives the sections, and a page without a heading of
    // its own is shown under its navigation label.
    let project = dir.join("project");
    let nav = "site_name: NSI\nnav:\n  - 'C10 : algo graphes':\n    - 'Cours': c10c.md\n    - 'Exercices': c10e.md\n  - 'C11 : routage':\n    - 'Cours': c11c.md\n    - 'Exercices': c11e.md\n";
    write_file(&project, "mkdocs.yml", nav);
    for f in ["c10c", "c10e", "c11c", "c11e"] {
        write_file(
            &project,
            &format!("docs/{f}.md"),
            &format!("## Exercice 1\n\nAppliquer le parcours au graphe {f}.\n"),
        );
    }
    let (chunks, _) = index_folder("--markdown", &project, &dir.join("md"), "terminale", &[]);
    let exercises = find(&chunks, |c| c["path"] == "c10e.md");
    assert_eq!(exercises["title"], "C10 : algo graphes › Exercices");
    assert_eq!(exercises["chapter_title"], "C10 : algo graphes");
    // Without a `nav`, MkDocs' folders are its sections and a file's name titles a page.
    let folders = dir.join("folders");
    write_file(&folders, "mkdocs.yml", "site_name: NSI\n");
    for f in ["1.4_if", "1.5_fonctions"] {
        let text = format!("Écrire une fonction du chapitre {f}.\n");
        write_file(&folders, &format!("docs/{f}/exercices.md"), &text);
    }
    let (chunks, _) = index_folder("--markdown", &folders, &dir.join("f"), "premiere", &[]);
    let page = find(&chunks, |c| c["path"] == "1.5_fonctions/exercices.md");
    assert_eq!(page["title"], "1.5 fonctions › Exercices");
    // With awesome-pages, a folder's `.pages` titles its section, as the built site shows it.
    let yml = "site_name: NSI\nplugins:\n  - search\n  - awesome-pages\n";
    write_file(&folders, "mkdocs.yml", yml);
    write_file(
        &folders,
        "docs/1.5_fonctions/.pages",
        "title: Les fonctions\n",
    );
    let (chunks, _) = index_folder("--markdown", &folders, &dir.join("p"), "premiere", &[]);
    let page = find(&chunks, |c| c["path"] == "1.5_fonctions/exercices.md");
    assert_eq!(page["title"], "Les fonctions › Exercices");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_mkdocs_projects_macros_show_what_its_built_pages_show() {
    // The `mkdocs-macros` plugin runs `main.py`'s macros on each page: a correction marked
    // `False` is not on the site yet, one marked `True` is its text, exercises are numbered.
    let dir = tmp("mkdocs-macros");
    let project = dir.join("project");
    write_file(
        &project,
        "mkdocs.yml",
        "site_name: NSI\nplugins:\n  - search\n  - macros\n",
    );
    let main = "def define_env(env):\n    @env.macro\n    def correction(bool, texte):\n        if bool == False:\n            return \"\"\n        else:\n            return texte\n\n    env.variables['n'] = 0\n    @env.macro\n    def exercice():\n        env.variables['n'] += 1\n        return f\"Exercice {env.variables['n']}\"\n";
    write_file(&project, "main.py", main);
    let page = "# Piles\n\n## {{ exercice() }}\n\nEmpiler 3 puis 4.\n\n{{ correction(False, \"\"\"\n??? tip \"Correction\"\n    La pile contient 4 au sommet, secret.\n\"\"\") }}\n\n## {{ exercice() }}\n\nDépiler.\n\n{{ correction(True, \"\"\"\n??? tip \"Correction\"\n    On obtient 4, puis 3.\n\"\"\") }}\n";
    write_file(&project, "docs/piles.md", page);
    let (chunks, _) = index_folder("--markdown", &project, &dir, "terminale", &[]);
    let texts: Vec<&str> = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let all = texts.join("\n");
    assert!(!all.contains("secret") && !all.contains("{{"), "{texts:?}");
    assert!(all.contains("On obtient 4, puis 3."), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.starts_with("Piles — Exercice 2")),
        "{texts:?}"
    );
    let solutions = chunks
        .iter()
        .filter(|c| c["doc_type"] == "solution")
        .count();
    assert_eq!(solutions, 1, "{texts:?}");
    // Without the plugin, the calls are text, as MkDocs shows them.
    write_file(&project, "mkdocs.yml", "site_name: NSI\n");
    let (chunks, _) = index_folder("--markdown", &project, &dir, "terminale", &[]);
    let all: String = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert!(
        all.contains("secret") && all.contains("exercice()"),
        "{all}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_mkdocs_pages_markdown_is_python_markdowns_and_a_notebooks_is_commonmark() {
    // MkDocs reads `#Piles` as a heading; mkdocs-jupyter's notebooks are read by nbconvert,
    // where it is text, and mkdocs-macros does not run on them.
    let dir = tmp("mkdocs-notebook");
    let project = dir.join("project");
    let yml = "site_name: NSI\nplugins:\n  - macros\n  - mkdocs-jupyter\n";
    write_file(&project, "mkdocs.yml", yml);
    let main = "def define_env(env):\n    @env.macro\n    def cache():\n        return ''\n";
    write_file(&project, "main.py", main);
    write_file(
        &project,
        "docs/piles.md",
        "#Piles\n\nUne pile est LIFO. {{ cache() }}\n",
    );
    let notebook = r##"{"nbformat": 4, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["#Files\n", "\n", "Une file est FIFO. {{ cache() }}"]}
    ]}"##;
    write_file(&project, "docs/files.ipynb", notebook);
    let (chunks, _) = index_folder("--markdown", &project, &dir, "terminale", &[]);
    let text = |path: &str| find(&chunks, |c| c["path"] == path)["text"].clone();
    assert_eq!(text("piles.md"), "Piles\nUne pile est LIFO.");
    let files = text("files.ipynb").to_string();
    assert!(
        files.contains("#Files") && files.contains("{{ cache() }}"),
        "{files}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pages_an_mkdocs_site_leaves_out_of_its_own_search_are_left_out_and_reported() {
    // mkdocs-exclude-search (a French NSI template's): the snippets in `xtra/` are not found
    // by the site's own search, nor a teacher's `hidden/` folder; they were indexed.
    let dir = tmp("exclude-search");
    let project = dir.join("project");
    let yml = "site_name: NSI\nplugins:\n  - search\n  - exclude-search:\n      exclude:\n        - '**/hidden/**'\n        - xtra/*.md\n";
    write_file(&project, "mkdocs.yml", yml);
    let page = |t: &str| {
        format!("# {t}\n\nUne pile est une structure LIFO : le dernier entré sort le premier.\n")
    };
    write_file(&project, "docs/index.md", &page("Accueil"));
    write_file(&project, "docs/piles.md", &page("Piles"));
    write_file(&project, "docs/xtra/start_REM.md", &page("Rappel"));
    write_file(
        &project,
        "docs/T1/hidden/corrige/index.md",
        &page("Corrigé"),
    );
    let (chunks, report) = index_folder("--markdown", &project, &dir, "terminale", &[]);
    let mut paths: Vec<&str> = chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    paths.sort();
    assert_eq!(paths, ["index.md", "piles.md"]);
    let skipped = report["skipped"].to_string();
    for page in ["xtra/start_REM.md", "T1/hidden/corrige/index.md"] {
        assert!(
            skipped.contains(&format!("{page}\",\"left out of the site's own search")),
            "{skipped}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_built_mkdocs_sites_pages_its_search_does_not_find_are_left_out_and_reported() {
    // The built site's search index has no record of a page marked `search: exclude` nor of
    // an example web page a lesson on HTML ships beside itself; a translation under `en/` has
    // an index of its own, and is read.
    let dir = tmp("site-search-index");
    let site = dir.join("site");
    let page = |t: &str| {
        format!("<html lang=\"fr\"><head><title>{t}</title></head><body><main><h1>{t}</h1><p>Une pile est une structure LIFO : le dernier entré est le premier sorti.</p></main></body></html>")
    };
    for (path, title) in [
        ("index.html", "Accueil"),
        ("T1/piles/index.html", "Piles"),
        ("T1/corrige/index.html", "Corrigé"),
        ("T1/piles/capitales.html", "Capitales"),
        ("en/T1/stacks/index.html", "Stacks"),
    ] {
        write_file(&site, path, &page(title));
    }
    let index = r#"{"config": {"lang": ["fr"]}, "docs": [{"location": "", "title": "Accueil"},
        {"location": "T1/piles/", "title": "Piles"}, {"location": "T1/piles/#intro", "title": "Intro"}]}"#;
    write_file(&site, "search/search_index.json", index);
    let (chunks, report) = index_folder("--site", &site, &dir, "terminale", &[]);
    let mut paths: Vec<&str> = chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    paths.sort();
    assert_eq!(
        paths,
        [
            "T1/piles/index.html",
            "en/T1/stacks/index.html",
            "index.html"
        ]
    );
    let skipped = report["skipped"].to_string();
    for page in ["T1/corrige/index.html", "T1/piles/capitales.html"] {
        assert!(
            skipped.contains(&format!("{page}\",\"not in the site's own search index")),
            "{skipped}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn math_is_its_tex_between_dollars_in_a_built_site_as_in_its_sources() {
    // MkDocs with pymdownx.arithmatex (generic): the sources write `$n$` and `$$…$$`, the built
    // page holds `\(n\)` and `\[…\]` for the browser to typeset. The sources' math lost its
    // dollars (`2T`), the built page's kept arithmatex's delimiters: the same sentence read two
    // ways, where OpenCERB's chunks and the documentation write `$2T$`.
    let dir = tmp("math-dollars");
    let md = "# Complexité\n\nLe premier jour, on traite $n$ enveloppes en un temps $T$ ; le double en $2T$.\n\n$$\nT(n) = a \\times n\n$$\n\nL'algorithme est en $O(n)$, un prix à payer raisonnable.\n";
    write_file(&dir.join("src"), "cours.md", md);
    let html = r#"<html lang="fr"><head><title>Complexité</title></head><body><main><h1 id="complexite">Complexité</h1>
<p>Le premier jour, on traite <span class="arithmatex">\(n\)</span> enveloppes en un temps <span class="arithmatex">\(T\)</span> ; le double en <span class="arithmatex">\(2T\)</span>.</p>
<div class="arithmatex">\[
T(n) = a \times n
\]</div>
<p>L'algorithme est en <span class="arithmatex">\(O(n)\)</span>, un prix à payer raisonnable.</p></main></body></html>"#;
    write_file(&dir.join("site/cours"), "index.html", html);
    let text = |door: &str, folder: &str| {
        let chunks = index_folder(door, &dir.join(folder), &dir.join(door), "premiere", &[]).0;
        assert_eq!(chunks.len(), 1, "{chunks:?}");
        chunks[0]["text"].as_str().unwrap().to_string()
    };
    let expected = "Complexité\nLe premier jour, on traite $n$ enveloppes en un temps $T$ ; le double en $2T$.\n\n$$T(n) = a \\times n$$\n\nL'algorithme est en $O(n)$, un prix à payer raisonnable.";
    assert_eq!(text("--markdown", "src"), expected);
    assert_eq!(text("--site", "site"), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_mkdocs_project_is_read_as_mkdocs_builds_it_copies_and_unclosed_front_matter_included() {
    // A lycée's MkDocs sources: its `nav` links to `cours-git.md`; the Pandoc steps that made
    // it left `cours-source.md` beside it, which MkDocs publishes too; and a page whose front
    // matter is never closed, which MkDocs shows as a rule and text.
    let dir = tmp("mkdocs-as-built");
    let project = dir.join("project");
    let nav = "site_name: NSI\nmarkdown_extensions:\n  - pymdownx.emoji\n  - pymdownx.inlinehilite\nplugins:\n  - encryptcontent:\n      remember_password: True\nnav:\n  - Tables:\n    - Cours: ch19/cours-git.md\n";
    write_file(&project, "mkdocs.yml", nav);
    let lesson: String = (0..40).map(|i| format!("mot{i} ")).collect();
    let git = format!(
        "# Tables :heart: `#!python csv`\n\nUn fichier CSV se lit ligne par ligne. {lesson}\n"
    );
    write_file(&project, "docs/ch19/cours-git.md", &git);
    let source = format!("# Tables {{-}}\n\nUn fichier CSV se lit ligne à ligne. {lesson}\n");
    write_file(&project, "docs/ch19/cours-source.md", &source);
    let unclosed = "---\ntitle: Automatismes\n\n## Automatisme 1\n\nProgrammer index_min.\n";
    write_file(&project, "docs/auto.md", unclosed);
    write_file(
        &project,
        "docs/ch19/corrige_exo.md",
        "Réponse : la ligne 3.\n",
    );
    // A correction its site keeps behind a password is not read from its sources either.
    let protected = "---\npassword: \"corr_SQL\"\n---\n# Correction\n\nSELECT nom FROM eleves;\n";
    write_file(&project, "docs/ch19/correction.md", protected);
    let (chunks, r) = index_folder("--markdown", &project, &dir.join("md"), "premiere", &[]);
    let paths: std::collections::BTreeSet<&str> =
        chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["auto.md", "ch19/corrige_exo.md", "ch19/cours-git.md"]
    );
    // An emoji shortcode is an icon on the page, no word of its title.
    let git = find(&chunks, |c| c["path"] == "ch19/cours-git.md");
    assert_eq!(git["title"], "Tables `csv`");
    // A page without a heading that the `nav` does not list is titled by its file's name.
    let corrige = find(&chunks, |c| c["path"] == "ch19/corrige_exo.md");
    assert_eq!(corrige["title"], "Corrige exo");
    let skipped = r["skipped"].to_string();
    assert!(
        skipped.contains("a copy of ch19/cours-git.md, which the site's navigation lists"),
        "{skipped}"
    );
    assert!(
        skipped.contains("correction.md\",\"its site encrypts it (mkdocs-encryptcontent-plugin): only a password shows it"),
        "{skipped}"
    );
    let auto: Vec<&str> = (chunks.iter())
        .filter(|c| c["path"] == "auto.md")
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(
        auto.iter().any(|t| t.contains("Programmer index_min.")),
        "{auto:?}"
    );
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains(
            "auto.md: front matter opened with --- but never closed: read as the page's text"
        ),
        "{warnings}"
    );
    // Built, the copy is a page its sidebar does not mark as the current one.
    let site = dir.join("site");
    for (path, active, word) in [
        ("ch19/", " md-nav__link--active", "par"),
        ("ch19 copie/", "", "à"),
    ] {
        let html = format!(
            "<html><body><nav class=\"md-nav md-nav--primary\"><ul class=\"md-nav__list\"><li class=\"md-nav__item\"><a href=\"/ch19/\" class=\"md-nav__link{active}\">Cours</a></li></ul></nav>\
             <article class=\"md-content__inner md-typeset\"><h1>Tables</h1><p>Un fichier CSV se lit ligne {word} ligne. {lesson}</p></article></body></html>"
        );
        write_file(&site, &format!("{path}index.html"), &html);
    }
    let (chunks, r) = index_folder("--site", &site, &dir.join("built"), "premiere", &[]);
    assert!(
        chunks.iter().all(|c| c["path"] == "ch19/index.html"),
        "{chunks:?}"
    );
    let skipped = r["skipped"].to_string();
    assert!(skipped.contains("a copy of ch19/index.html"), "{skipped}");
    // Without a generator, the same page is an error that names it.
    std::fs::remove_file(project.join("mkdocs.yml")).unwrap();
    let out = chsr(&[
        "index",
        "--markdown",
        project.join("docs").to_str().unwrap(),
        "--subject",
        "nsi",
        "--level",
        "premiere",
        "--lang",
        "fr",
        "--out",
        dir.join("plain").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("auto.md: front matter opened with --- but never closed"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_theme_template_that_names_html_tags_in_a_comment_is_not_a_page() {
    // The pydata Sphinx theme (Jupyter Book) writes Jinja templates into every build's
    // `_static/`, ending in `.html`; one says `<body>` in a comment.
    let dir = tmp("template");
    let site = dir.join("site");
    std::fs::create_dir_all(site.join("_static")).unwrap();
    std::fs::write(
        site.join("_static/webpack-macros.html"),
        "<!--\n  AUTO-GENERATED from webpack.config.js, do **NOT** edit by hand.\n-->\n{# Load FontAwesome icons #}\n\
         {% macro head_pre_icons() %}\n  <link href=\"{{ pathto('_static/all.min.css', 1) }}\" rel=\"stylesheet\" />\n{% endmacro %}\n\
         {% macro body_post() %}\n  <!-- Scripts loaded after <body> so the DOM is not blocked -->\n\
         <script src=\"{{ pathto('_static/scripts/bootstrap.js', 1) }}\"></script>\n{% endmacro %}\n",
    )
    .unwrap();
    std::fs::write(
        site.join("loops.html"),
        "<!-- built by Sphinx --><!DOCTYPE html><html lang=\"en\"><body><main><h1>Loops</h1><p>A loop repeats.</p></main></body></html>",
    )
    .unwrap();
    let (r, chunks) = index_cs_site(&site, &dir);
    assert_eq!(r["pages_indexed"], 1, "{r}");
    let skipped = r["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0][0]
        .as_str()
        .unwrap()
        .ends_with("_static/webpack-macros.html"));
    assert!(
        skipped[0][1].as_str().unwrap().contains("template"),
        "{skipped:?}"
    );
    assert!(chunks
        .iter()
        .all(|c| !c["text"].as_str().unwrap().contains("macro")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_docsify_site_is_read_from_its_markdown_at_docsify_s_addresses() {
    // A Docsify site as published: one `index.html` that loads docsify.js beside the Markdown
    // it renders in the browser, its sidebar and cover page among them.
    let dir = tmp("docsify");
    let (r, chunks) = index_cs_site(&fixtures().join("docsify-course"), &dir);
    assert_eq!(r["pages_indexed"], 3, "{r}");
    let mut skipped: Vec<&str> = r["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            s[0].as_str()
                .unwrap()
                .rsplit("docsify-course/")
                .next()
                .unwrap()
        })
        .collect();
    skipped.sort();
    assert_eq!(
        skipped,
        ["_media/rappel.md", "_sidebar.md", "couverture.md"]
    );
    let url = |needle: &str| {
        let c = find(&chunks, |c| c["text"].as_str().unwrap().contains(needle));
        c["url"].as_str().unwrap().to_string()
    };
    assert!(url("Bienvenue").ends_with("/docsify-course/#/?id=cours-de-nsi"));
    assert!(
        url("organise des valeurs").ends_with("/docsify-course/#/cours/?id=structures-de-données")
    );
    assert!(url("LIFO").ends_with("#/cours/piles?id=les-piles"));
    assert!(url("au sommet").ends_with("#/cours/piles?id=définition"));
    // A file the page embeds (`':include'`) is read in its place, in the page's section.
    assert!(url("Un rappel que les pages incluent").ends_with("#/cours/piles?id=définition"));
    assert!(url("est_vide").ends_with("#/cours/piles?id=exo-1"));
    let text: String = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    // Docsify's paragraph markers and GitHub's alert marker are not text; code is kept as it is.
    assert!(!text.contains("?> Une") && !text.contains("!> ") && !text.contains("[!TIP]"));
    assert!(
        text.contains("?> ceci est du code") && text.contains("append"),
        "{text}"
    );
    // The shell's language is every page's.
    assert!(chunks.iter().all(|c| c["lang"] == "fr"), "{chunks:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn markdown_sources_include_their_snippets_as_mkdocs_does() {
    // An MkDocs project's sources: its practical-exam page includes each statement and
    // correction from `includes/` (beside `docs/`), and shows the statement's Markdown in a
    // fenced tab, which the statement's own fences close early.
    let dir = tmp("snippets");
    let src = fixtures().join("mkdocs-project/docs");
    let chunks = index_markdown(&src, &dir, "terminale", &[]);
    let of = |needle: &str| find(&chunks, |c| c["text"].as_str().unwrap().contains(needle));
    let statement = of("prend une chaîne de caractères");
    assert_eq!(statement["exercise_number"], "01.1", "{statement}");
    let correction = of("sol = lettre + sol");
    assert_eq!(correction["doc_type"], "solution", "{correction}");
    assert_eq!(correction["answers"], statement["id"]);
    assert!(
        !correction["text"].as_str().unwrap().contains("[start:"),
        "{correction}"
    );
    // What follows the fenced tab is read as the page goes on, not as code.
    let next = of("moyenne pondérée");
    assert_eq!(next["section_title"], "Sujet 02 › Exercice 02.1", "{next}");
    let parcours = of("parcourir la liste");
    assert!(
        parcours["url"]
            .as_str()
            .unwrap()
            .ends_with("cours/#parcours"),
        "{parcours}"
    );
    for c in &chunks {
        let t = c["text"].as_str().unwrap();
        assert!(
            !t.contains("{.") && !t.contains("{:") && !t.contains("\"includes/"),
            "{t}"
        );
    }
    // An escaped snippet line is text.
    assert!(of("un exemple de la syntaxe")["text"]
        .as_str()
        .unwrap()
        .contains("--8<--"));
    // The project's folder given instead of `docs/`: its pages are read, not its README or
    // the files they include.
    let root = index_markdown(&fixtures().join("mkdocs-project"), &dir, "terminale", &[]);
    let texts = |cs: &[Value]| -> Vec<String> {
        cs.iter()
            .map(|c| c["text"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(texts(&root), texts(&chunks));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_generators_project_folder_is_read_as_the_site_it_builds_or_says_how_to_build_it() {
    // A Hugo project, not built yet: its configuration, a theme template, a page's Markdown.
    let dir = tmp("project");
    let p = dir.join("cours");
    let write = |path: &str, text: &str| write_file(&p, path, text);
    write("hugo.toml", "baseURL = 'https://example.org/'\n");
    write(
        "layouts/_default/baseof.html",
        "<!DOCTYPE html><html><body>{{ block \"main\" . }}{{ end }}</body></html>",
    );
    write(
        "content/piles/_index.md",
        "---\ntitle: Piles\n---\n# Piles\n\nUne pile est LIFO.\n",
    );
    let (site, out, emitted) = (p.to_str().unwrap(), dir.join("out"), dir.join("c.jsonl"));
    let run = |what: &str| {
        let (out, emitted) = (out.to_str().unwrap(), emitted.to_str().unwrap());
        chsr(&[
            "index",
            what,
            site,
            "--subject",
            "nsi",
            "--level",
            "terminale",
            "--lang",
            "fr",
            "--out",
            out,
            "--emit-chunks",
            emitted,
        ])
    };
    let chunks = || std::fs::read_to_string(&emitted).unwrap();
    // As a built site: the error names the generator, the command and where the site will be.
    let o = run("--site");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    for part in [
        "(Hugo), not a built site",
        "`hugo`",
        "cours/public",
        "--markdown",
    ] {
        assert!(err.contains(part), "{err}");
    }
    // Its Markdown pages are `content/`, not the templates.
    ok(&run("--markdown"));
    assert!(chunks().contains("est LIFO") && !chunks().contains("block"));
    // Built, the site in `public/` is what is read.
    write("public/index.html", "<!DOCTYPE html><html lang=\"fr\"><body><main><h1>Cours</h1><p>Le sommaire.</p></main></body></html>");
    write("public/piles/index.html", "<!DOCTYPE html><html lang=\"fr\"><body><main><h1>Piles</h1><p>Une pile, construite.</p></main></body></html>");
    ok(&run("--site"));
    assert!(chunks().contains("pile, construite") && !chunks().contains("block"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_jupyter_books_notebooks_are_pages_and_its_build_and_packages_are_not() {
    // A Jupyter Book project built once: its `_build/` holds copies of every page (the executed
    // notebook, the sources the site offers), and an npm tool's `node_modules/` a README.
    let dir = tmp("jupyter-book");
    let p = dir.join("livre");
    let write = |path: &str, text: &str| write_file(&p, path, text);
    write("_config.yml", "title: NSI\n");
    write("_toc.yml", "format: jb-book\nroot: intro\n");
    write("intro.md", "# Introduction\n\nLe livre du cours.\n");
    let notebook = r##"{"nbformat": 4, "metadata": {"kernelspec": {"language": "python"}}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Les piles\n", "\n", "Une pile est une structure LIFO."]},
        {"cell_type": "code", "metadata": {}, "source": "p = [1, 2]\nprint(p.pop())", "outputs": [{"output_type": "stream", "name": "stdout", "text": "2\n"}]}
    ]}"##;
    write("chapitres/piles.ipynb", notebook);
    write("_build/jupyter_execute/chapitres/piles.ipynb", notebook);
    write(
        "_build/html/_sources/intro.md",
        "# Introduction\n\nLe livre du cours.\n",
    );
    write(
        "node_modules/outil/README.md",
        "# outil\n\nInstall with npm.\n",
    );
    let (out, emitted) = (dir.join("out"), dir.join("c.jsonl"));
    let index = || {
        chsr(&[
            "index",
            "--markdown",
            p.to_str().unwrap(),
            "--subject",
            "nsi",
            "--level",
            "terminale",
            "--lang",
            "fr",
            "--out",
            out.to_str().unwrap(),
            "--emit-chunks",
            emitted.to_str().unwrap(),
        ])
    };
    ok(&index());
    let chunks: Vec<serde_json::Value> = std::fs::read_to_string(&emitted)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let urls: Vec<&str> = chunks.iter().map(|c| c["url"].as_str().unwrap()).collect();
    // The notebook is a page where Jupyter Book serves it, with its code and what it printed;
    // nothing is read from `_build/` or `node_modules/`.
    assert!(
        urls.iter()
            .any(|u| u.contains("livre/chapitres/piles.html#les-piles")),
        "{urls:?}"
    );
    assert!(
        urls.iter()
            .all(|u| !u.contains("_build") && !u.contains("node_modules")),
        "{urls:?}"
    );
    let text: String = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert!(
        text.contains("structure LIFO") && text.contains("p.pop()"),
        "{text}"
    );
    assert!(!text.contains("Install with npm"), "{text}");
    // Without the project's configuration, a notebook is a file the site offers, not a page.
    std::fs::remove_file(p.join("_toc.yml")).unwrap();
    std::fs::remove_file(p.join("_config.yml")).unwrap();
    ok(&index());
    let plain = std::fs::read_to_string(&emitted).unwrap();
    assert!(!plain.contains("structure LIFO") && plain.contains("livre du cours"));
    // A notebook that is not one is an error naming the page.
    write("_config.yml", "title: NSI\n");
    write("_toc.yml", "format: jb-book\nroot: intro\n");
    write("chapitres/casse.ipynb", "{\"cells\": [");
    let o = index();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("chapitres/casse.ipynb") && err.contains("not a Jupyter notebook"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_of_notebooks_alone_is_read_and_beside_markdown_they_are_files() {
    // No generator's project: a teacher's folder of notebooks is a course of notebooks, each
    // a page; once the folder has a Markdown page, its notebooks are files it may offer.
    let dir = tmp("notebooks-alone");
    let p = dir.join("carnets");
    let write = |path: &str, text: &str| write_file(&p, path, text);
    let notebook = r##"{"nbformat": 4, "metadata": {"kernelspec": {"language": "python"}}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Les files\n", "\n", "Une file est une structure FIFO."]},
        {"cell_type": "code", "metadata": {}, "source": "f = [1, 2]\nprint(f.pop(0))", "outputs": []}
    ]}"##;
    write("tp/files.ipynb", notebook);
    write(
        "tp/Piles.IPYNB",
        &notebook.replace("files", "piles").replace("FIFO", "LIFO"),
    );
    let (chunks, _) = index_folder("--markdown", &p, &dir, "terminale", &[]);
    let pages: BTreeSet<&str> = chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(pages, BTreeSet::from(["tp/Piles.IPYNB", "tp/files.ipynb"]));
    let files = find(&chunks, |c| c["path"] == "tp/files.ipynb");
    assert!(
        files["text"].as_str().unwrap().contains("structure FIFO")
            && files["text"].as_str().unwrap().contains("f.pop(0)"),
        "{files}"
    );
    write("index.md", "# TP\n\nLes carnets du cours.\n");
    let (chunks, _) = index_folder("--markdown", &p, &dir, "terminale", &[]);
    let pages: BTreeSet<&str> = chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(pages, BTreeSet::from(["index.md"]));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn markdown_pages_link_to_their_headings_where_they_are_read() {
    // One page; where it is read decides its address and its headings' anchors.
    let dir = tmp("anchors");
    let p = dir.join("cours");
    let write = |path: &str, text: &str| write_file(&p, path, text);
    let page = "# Les piles\n\n## 2.1 Définition\n\nUne pile est LIFO.\n\n## Exercice 1 : empiler\n\nEmpiler 3.\n\n\
                ## Exercice 1 : empiler\n\nEmpiler 4.\n";
    write("docs/piles.md", page);
    let (out, emitted) = (dir.join("out"), dir.join("c.jsonl"));
    let (out_arg, emitted_arg) = (out.to_str().unwrap(), emitted.to_str().unwrap());
    let urls = |source: &str, url: Option<&str>| {
        let mut args = vec![
            "index",
            "--markdown",
            source,
            "--subject",
            "nsi",
            "--level",
            "terminale",
            "--lang",
            "fr",
            "--out",
            out_arg,
            "--emit-chunks",
            emitted_arg,
        ];
        if let Some(u) = url {
            args.extend(["--url", u]);
        }
        ok(&chsr(&args));
        std::fs::read_to_string(&emitted)
            .unwrap()
            .lines()
            .map(|l| {
                let c: serde_json::Value = serde_json::from_str(l).unwrap();
                c["url"].as_str().unwrap().to_string()
            })
            .collect::<Vec<_>>()
    };
    let docs = p.join("docs");
    let docs = docs.to_str().unwrap();
    // On GitHub: the file itself, GitHub's anchors (each space a `-`, accents kept, repeats
    // numbered).
    let github = "https://github.com/prof/nsi/blob/main/docs/";
    assert_eq!(
        urls(docs, Some(github)),
        [
            format!("{github}piles.md#21-définition"),
            format!("{github}piles.md#exercice-1--empiler"),
            format!("{github}piles.md#exercice-1--empiler-1"),
        ]
    );
    // On GitLab (a self-hosted one), its own anchors.
    let gitlab = "https://forge.apps.education.fr/prof/nsi/-/blob/main/docs/";
    assert_eq!(
        urls(docs, Some(gitlab))[1],
        format!("{gitlab}piles.md#exercice-1-empiler")
    );
    // Built by MkDocs (the project's folder given): its page, Python-Markdown's anchors
    // (accents dropped, repeats `_1`).
    write("mkdocs.yml", "site_name: NSI\n");
    let site = "https://prof.github.io/nsi/";
    assert_eq!(
        urls(p.to_str().unwrap(), Some(site)),
        [
            format!("{site}piles/#21-definition"),
            format!("{site}piles/#exercice-1-empiler"),
            format!("{site}piles/#exercice-1-empiler_1"),
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_jekyll_projects_posts_and_collections_are_pages_where_jekyll_serves_them() {
    let dir = tmp("jekyll");
    let p = dir.join("site");
    let write = |path: &str, text: &str| write_file(&p, path, text);
    write(
        "_config.yml",
        "title: NSI\ncollections:\n  cours:\n    output: true\n  staffers:\n",
    );
    write(
        "index.md",
        "---\ntitle: Accueil\n---\n# Accueil\n\nLe cours de NSI.\n",
    );
    write(
        "_posts/2024-09-02-rentree.md",
        "---\ntitle: Rentrée\n---\n# Rentrée\n\nLes cours reprennent lundi.\n",
    );
    write("_cours/piles.md", "# Les piles\n\nUne pile est LIFO.\n");
    write("_staffers/prof.md", "# M. Prof\n\nBureau 12.\n");
    write("_includes/pied.md", "Licence CC BY-SA.\n");
    let url = ["--url", "https://prof.github.io/nsi/"];
    let (chunks, r) = index_folder("--markdown", &p, &dir, "terminale", &url);
    let chunks = serde_json::to_string(&chunks).unwrap();
    for url in [
        "https://prof.github.io/nsi/#accueil",
        "https://prof.github.io/nsi/2024/09/02/rentree.html#rentrée",
        "https://prof.github.io/nsi/cours/piles.html#les-piles",
    ] {
        assert!(
            chunks.contains(&format!("\"url\":\"{url}\"")),
            "{url} in {chunks}"
        );
    }
    assert!(
        !chunks.contains("Bureau 12") && !chunks.contains("Licence"),
        "{chunks}"
    );
    // What Jekyll does not publish is listed as left out, with why.
    let skipped = r["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(skipped
        .iter()
        .all(|s| s[1].as_str().unwrap().contains("Jekyll does not publish")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_mdbooks_chapters_include_files_from_anywhere_in_the_book_and_nothing_outside_it() {
    let dir = tmp("mdbook");
    let b = dir.join("livre");
    let write = |path: &str, text: &str| write_file(&b, path, text);
    write(
        "book.toml",
        "[book]\ntitle = \"Rust en NSI\"\nsrc = \"./src\"\n",
    );
    write("src/SUMMARY.md", "# Sommaire\n\n- [Les piles](piles.md)\n");
    // The listings live beside `src/`, as in the Rust book.
    write(
        "listings/piles/src/main.rs",
        "// ANCHOR: empiler\nfn empiler(p: &mut Vec<i32>, x: i32) { p.push(x) }\n// ANCHOR_END: empiler\n",
    );
    write("../secret.md", "Mot de passe du serveur.\n");
    write(
        "src/piles.md",
        "# Les piles\n\nUne pile se remplit par le haut.\n\n```rust\n{{#rustdoc_include ../listings/piles/src/main.rs:empiler}}\n```\n\n{{#include ../../secret.md}}\n",
    );
    let (chunks, r) = index_folder("--markdown", &b, &dir, "terminale", &[]);
    let chunks = serde_json::to_string(&chunks).unwrap();
    assert!(
        chunks.contains("fn empiler(p: &mut Vec<i32>, x: i32)"),
        "{chunks}"
    );
    assert!(
        !chunks.contains("Mot de passe") && !chunks.contains("ANCHOR"),
        "{chunks}"
    );
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str().filter(|w| w.contains("#include")))
        .collect();
    assert!(
        warnings.len() == 1 && warnings[0].contains("livre/src/piles.md: \"../../secret.md\""),
        "{warnings:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pages_folder_given_alone_is_published_as_its_project_or_github_pages_publishes_it() {
    let dir = tmp("alone");
    // Index `folder` with `url`; the URLs of its chunks.
    let urls = |folder: &Path, url: &str| {
        let (chunks, _) = index_folder("--markdown", folder, &dir, "terminale", &["--url", url]);
        let mut urls: Vec<String> = chunks
            .iter()
            .map(|c| c["url"].as_str().unwrap().to_string())
            .collect();
        urls.sort();
        urls.dedup();
        urls
    };
    // An mdBook's `src/` given without its `book.toml`: its chapters at `page.html`, its
    // SUMMARY.md no page.
    let book = dir.join("livre");
    write_file(&book, "book.toml", "[book]\ntitle = \"NSI\"\n");
    write_file(
        &book,
        "src/SUMMARY.md",
        "# Sommaire\n\n- [Les piles](piles.md)\n",
    );
    write_file(&book, "src/piles.md", "# Les piles\n\nUne pile est LIFO.\n");
    assert_eq!(
        urls(&book.join("src"), "https://nsi.example.org/livre/"),
        ["https://nsi.example.org/livre/piles.html#les-piles"]
    );
    // A folder of Markdown served by GitHub Pages, which builds it with Jekyll.
    let plain = dir.join("depot");
    write_file(&plain, "README.md", "# Accueil\n\nLe cours de NSI.\n");
    write_file(
        &plain,
        "cours/piles.md",
        "# Les piles : LIFO\n\nUne pile.\n",
    );
    write_file(&plain, "_brouillons/files.md", "# Les files\n\nÀ venir.\n");
    assert_eq!(
        urls(&plain, "https://prof.github.io/nsi/"),
        [
            "https://prof.github.io/nsi/#accueil",
            "https://prof.github.io/nsi/cours/piles.html#les-piles--lifo",
        ]
    );
    // Under its own domain, which its `CNAME` file names.
    write_file(&plain, "CNAME", "nsi.example.org\n");
    assert_eq!(
        urls(&plain, "https://nsi.example.org/")[1],
        "https://nsi.example.org/cours/piles.html#les-piles--lifo"
    );
    // With `.nojekyll`, GitHub Pages builds nothing; anywhere else, a plain folder is served as
    // MkDocs serves one (`cours/piles/`).
    write_file(&plain, ".nojekyll", "");
    assert_eq!(
        urls(&plain, "https://nsi.example.org/"),
        [
            "https://nsi.example.org/#accueil",
            "https://nsi.example.org/_brouillons/files/#les-files",
            "https://nsi.example.org/cours/piles/#les-piles-lifo",
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_counts_a_doc_type_alias_as_the_type_it_is_stored_as() {
    let dir = tmp("alias");
    write_file(
        &dir,
        "cours/piles.md",
        "# Les piles\n\nUne pile est LIFO.\n",
    );
    write_file(&dir, "cours/exercices.md", "# Exercices\n\nEmpiler 3.\n");
    write_file(
        &dir,
        "chsr.toml",
        "[[source]]\npath = \"cours\"\nformat = \"markdown\"\nsubject = \"nsi\"\nlevel = \"terminale\"\nlang = \"fr\"\n\n\
         [[source.rule]]\npages = [\"exercices.md\"]\ndoc_type = \"exercice\"\n",
    );
    let report = dir.join("r.json");
    let arg = |x: &Path| x.to_str().unwrap().to_string();
    let o = chsr(&[
        "index",
        "--config",
        &arg(&dir.join("chsr.toml")),
        "--out",
        &arg(&dir.join("out")),
        "--report",
        &arg(&report),
    ]);
    ok(&o);
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        r["doc_types"],
        serde_json::json!({"exercise": 1, "textbook_section": 1})
    );
    // The summary printed at the end says the same.
    let summary = String::from_utf8_lossy(&o.stderr);
    assert!(
        summary.contains("doc types: exercise 1, textbook_section 1"),
        "{summary}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_latin1_page_is_read_in_the_charset_it_declares_and_its_accents_are_kept() {
    let dir = tmp("latin1");
    let site = dir.join("site");
    let page = b"<!doctype html><html lang=\"fr\"><head><meta http-equiv=\"Content-Type\" \
        content=\"text/html; charset=iso-8859-1\"><title>Piles</title></head><body><main>\
        <h1>Les piles</h1><p>Le dernier \xe9l\xe9ment ajout\xe9 est le premier retir\xe9.</p>\
        </main></body></html>";
    std::fs::create_dir_all(site.join("cours")).unwrap();
    std::fs::write(site.join("cours/piles.html"), page).unwrap();
    let (chunks, r) = index_folder("--site", &site, &dir, "premiere", &[]);
    let chunks = serde_json::to_string(&chunks).unwrap();
    assert!(
        chunks.contains("Le dernier élément ajouté est le premier retiré."),
        "{chunks}"
    );
    // The report says how the page was read.
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("cours/piles.html: read as windows-1252 (the charset it declares)"),
        "{warnings}"
    );
    // A search finds it by its accented words.
    let shards = dir.join("out/shards");
    let found = ok(&chsr(&[
        "search",
        "--shards",
        shards.to_str().unwrap(),
        "élément retiré",
    ]));
    assert!(found.contains("premier retiré"), "{found}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_site_prepared_for_pagefind_is_read_as_its_attributes_say() {
    let dir = tmp("pagefind");
    let site = dir.join("site");
    let page = |body: &str| {
        format!("<!doctype html><html lang=\"fr\"><head><title>x</title></head><body>{body}</body></html>")
    };
    // Its pages mark their content (one of them in two parts); one part of it is for Pagefind
    // to skip.
    write_file(
        &site,
        "cours/piles/index.html",
        &page(
            "<div class=\"banner\"><p>Inscriptions ouvertes jusqu'au 3 octobre.</p></div>\
               <div data-pagefind-body><h1>Les piles</h1><p>Une pile est LIFO.</p>\
               <p data-pagefind-ignore>Dernière modification : 2 septembre.</p></div>\
               <div class=\"pub\"><p>Stage de rentrée : inscrivez-vous.</p></div>\
               <section data-pagefind-body><p>Empiler 3 puis dépiler rend 3.</p></section>",
        ),
    );
    write_file(
        &site,
        "cours/files/index.html",
        &page("<main data-pagefind-body><h1>Les files</h1><p>Une file est FIFO.</p></main>"),
    );
    // A page without the mark, which Pagefind leaves out once other pages have it, and one whose
    // content says to skip it.
    write_file(
        &site,
        "plan/index.html",
        &page("<main><h1>Plan du site</h1><p>Piles, files.</p></main>"),
    );
    write_file(
        &site,
        "brouillon/index.html",
        &page("<main data-pagefind-body data-pagefind-ignore=\"all\"><h1>Brouillon</h1><p>À venir.</p></main>"),
    );
    let (chunks, r) = index_folder("--site", &site, &dir, "terminale", &[]);
    let texts: Vec<&str> = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert_eq!(
        texts,
        [
            "Les files\nUne file est FIFO.",
            "Les piles\nUne pile est LIFO.\n\nEmpiler 3 puis dépiler rend 3."
        ]
    );
    let skipped = r["skipped"].to_string();
    assert!(
        skipped.contains("data-pagefind-ignore on the content")
            && skipped.contains("no data-pagefind-body"),
        "{skipped}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_readme_beside_its_folders_index_page_is_where_the_generator_puts_it() {
    let dir = tmp("readme");
    let urls = |folder: &Path, url: &str| {
        let (chunks, r) = index_folder("--markdown", folder, &dir, "terminale", &["--url", url]);
        let urls: Vec<String> = chunks
            .iter()
            .map(|c| c["url"].as_str().unwrap().to_string())
            .collect();
        (urls, r["skipped"].to_string())
    };
    let write = |root: &Path| {
        write_file(root, "index.md", "# Accueil\n\nLe cours de NSI.\n");
        write_file(root, "README.md", "# Le dépôt\n\nLes sources du site.\n");
        write_file(
            root,
            "cours/README.md",
            "# Les piles\n\nUne pile est LIFO.\n",
        );
    };
    // MkDocs publishes the index in the README's place (and a README alone as the index).
    let mkdocs = dir.join("mkdocs");
    write_file(&mkdocs, "mkdocs.yml", "site_name: NSI\n");
    write(&mkdocs.join("docs"));
    let (found, skipped) = urls(&mkdocs, "https://nsi.example.org/");
    assert_eq!(
        found,
        [
            "https://nsi.example.org/cours/#les-piles",
            "https://nsi.example.org/#accueil"
        ]
    );
    assert!(
        skipped.contains("which MkDocs publishes in its place"),
        "{skipped}"
    );
    // GitHub Pages (Jekyll) serves it at README.html.
    let pages = dir.join("pages");
    write(&pages);
    let (found, _) = urls(&pages, "https://prof.github.io/nsi/");
    assert_eq!(
        found,
        [
            "https://prof.github.io/nsi/README.html#le-dépôt",
            "https://prof.github.io/nsi/cours/#les-piles",
            "https://prof.github.io/nsi/#accueil",
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hugo_projects_pages_are_linked_where_hugo_serves_them() {
    // Checked against the site Hugo 0.111 builds from these files: `public/theme1/les_arbres/`,
    // `public/theme1/les-graphes-é/`, `public/cours/readme/`, `public/cours/piles/`,
    // `public/cours/les-files/`, `public/Arbres/Binaires/` and no page for the leaf bundle's
    // `annexe.md` or `extra/sous.md`.
    let dir = tmp("hugo");
    let site = dir.join("site");
    let page = |title: &str| format!("---\ntitle: {title}\n---\n# {title}\n\nTexte.\n");
    write_file(
        &site,
        "hugo.toml",
        "baseURL = 'https://ex.org/'\ntitle = 'NSI'\n",
    );
    for (path, title) in [
        ("content/Theme1/Les_Arbres.md", "Arbres"),
        ("content/Theme1/Les Graphes é.md", "Graphes"),
        ("content/cours/README.md", "Lisez-moi"),
        ("content/cours/piles/index.md", "Piles"),
        ("content/cours/piles/annexe.md", "Annexe"),
        ("content/cours/piles/extra/sous.md", "Sous"),
    ] {
        write_file(&site, path, &page(title));
    }
    // A `slug` made an address as a file name is, a `url` taken as written.
    let front = |key: &str, title: &str| format!("---\n{key}\n---\n# {title}\n\nTexte.\n");
    write_file(
        &site,
        "content/cours/s.md",
        &front("slug: Les Files", "Files"),
    );
    write_file(
        &site,
        "content/cours/u.md",
        &front("url: /Arbres/Binaires/", "Binaires"),
    );
    let (chunks, r) = index_folder(
        "--markdown",
        &site,
        &dir,
        "terminale",
        &["--url", "https://ex.org/"],
    );
    let urls: Vec<&str> = chunks.iter().map(|c| c["url"].as_str().unwrap()).collect();
    assert_eq!(
        urls,
        [
            "https://ex.org/theme1/les-graphes-é/#graphes",
            "https://ex.org/theme1/les_arbres/#arbres",
            "https://ex.org/cours/readme/#lisez-moi",
            "https://ex.org/cours/piles/#piles",
            "https://ex.org/cours/les-files/#files",
            "https://ex.org/Arbres/Binaires/#binaires",
        ]
    );
    let skipped = r["skipped"].to_string();
    assert_eq!(
        skipped.matches("a resource of a Hugo leaf bundle").count(),
        2,
        "{skipped}"
    );
    // With `disablePathToLower`, the files' own case.
    write_file(
        &site,
        "hugo.toml",
        "baseURL = 'https://ex.org/'\ndisablePathToLower = true\n",
    );
    let (chunks, _) = index_folder(
        "--markdown",
        &site,
        &dir,
        "terminale",
        &["--url", "https://ex.org/"],
    );
    assert_eq!(chunks[1]["url"], "https://ex.org/Theme1/Les_Arbres/#arbres");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hugo_site_translated_by_file_name_has_each_page_in_its_language_and_place() {
    // Hugo serves `cours/piles.en.md` at `/en/cours/piles/` and the default language's pages at
    // the root; a page whose name names no language is in the default one.
    let dir = tmp("hugo-i18n");
    let site = dir.join("site");
    write_file(
        &site,
        "config.toml",
        "baseURL = \"/\"\ndefaultContentLanguage = \"fr\"\n[languages.fr]\nweight = 1\n[languages.en]\nweight = 2\n",
    );
    let page = |title: &str, text: &str| format!("---\ntitle: {title}\n---\n{text}\n");
    for (path, title, text) in [
        (
            "content/_index.fr.md",
            "Accueil",
            "Le cours de NSI de terminale.",
        ),
        (
            "content/_index.en.md",
            "Home",
            "The computer science course.",
        ),
        (
            "content/cours/piles.fr.md",
            "Piles",
            "Une pile est une structure LIFO.",
        ),
        (
            "content/cours/piles.en.md",
            "Stacks",
            "A stack is a LIFO structure.",
        ),
        (
            "content/cours/files.md",
            "Files",
            "Une file est une structure FIFO.",
        ),
        (
            "content/cours/arbres/index.en.md",
            "Trees",
            "A tree is a graph without cycles.",
        ),
        (
            "content/cours/arbres/annexe.md",
            "Annexe",
            "Une ressource du paquet.",
        ),
    ] {
        write_file(&site, path, &page(title, text));
    }
    let (out, chunks) = (dir.join("out"), dir.join("c.jsonl"));
    let (site_arg, out_arg, chunks_arg) = (
        site.to_str().unwrap(),
        out.to_str().unwrap(),
        chunks.to_str().unwrap(),
    );
    let args = [
        "index",
        "--markdown",
        site_arg,
        "--subject",
        "informatique (NSI)",
        "--level",
        "terminale",
        "--url",
        "https://ex.org/",
        "--out",
        out_arg,
        "--emit-chunks",
        chunks_arg,
    ];
    ok(&chsr(&args));
    let read = || -> Vec<(String, String)> {
        let text = std::fs::read_to_string(&chunks).unwrap();
        let mut all: Vec<(String, String)> = text
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|c| {
                (
                    c["url"].as_str().unwrap().to_string(),
                    c["lang"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        all.sort();
        all
    };
    let at = |u: &str, l: &str| (format!("https://ex.org/{u}"), l.to_string());
    assert_eq!(
        read(),
        [
            at("", "fr"),
            at("cours/files/", "fr"),
            at("cours/piles/", "fr"),
            at("en/", "en"),
            at("en/cours/arbres/", "en"),
            at("en/cours/piles/", "en"),
        ]
    );
    // A page that nothing names is titled by its file's name, without its language.
    write_file(
        &site,
        "content/cours/sans_titre.en.md",
        "## Listes\n\nA list holds values in order.\n",
    );
    ok(&chsr(&args));
    let text = std::fs::read_to_string(&chunks).unwrap();
    assert!(text.contains("\"title\":\"Sans titre\""), "{text}");
    // `--lang` says every page's language, as it does for a built site's `<html lang>`.
    let mut with_lang = args.to_vec();
    with_lang.extend(["--lang", "fr"]);
    ok(&chsr(&with_lang));
    assert!(read().iter().all(|(_, l)| l == "fr"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_hugo_sites_language_folders_are_in_their_languages_read_whole_or_alone() {
    // Translation by content folder: each language's pages in its own `contentDir`.
    let dir = tmp("hugo-dirs");
    let site = dir.join("site");
    write_file(
        &site,
        "hugo.yaml",
        "baseURL: https://ex.org/\ndefaultContentLanguage: fr\nlanguages:\n  fr:\n    contentDir: content/fr\n    weight: 1\n  en:\n    contentDir: content/en\n    weight: 2\n",
    );
    write_file(
        &site,
        "content/fr/piles.md",
        "# Piles\n\nUne pile est une structure LIFO.\n",
    );
    write_file(
        &site,
        "content/en/stacks.md",
        "# Stacks\n\nA stack is a LIFO structure.\n",
    );
    let index = |folder: &Path| -> Vec<(String, String)> {
        let (out, chunks) = (dir.join("out"), dir.join("c.jsonl"));
        ok(&chsr(&[
            "index",
            "--markdown",
            folder.to_str().unwrap(),
            "--subject",
            "informatique (NSI)",
            "--level",
            "terminale",
            "--url",
            "https://ex.org/",
            "--out",
            out.to_str().unwrap(),
            "--emit-chunks",
            chunks.to_str().unwrap(),
        ]));
        let text = std::fs::read_to_string(&chunks).unwrap();
        let chunk = |l: &str| serde_json::from_str::<Value>(l).unwrap();
        let pair = |c: Value| {
            (
                c["url"].as_str().unwrap().into(),
                c["lang"].as_str().unwrap().into(),
            )
        };
        text.lines().map(chunk).map(pair).collect()
    };
    // The project: every language's folder, the default language at the root.
    assert_eq!(
        index(&site),
        [
            (
                "https://ex.org/en/stacks/#stacks".to_string(),
                "en".to_string()
            ),
            ("https://ex.org/piles/#piles".into(), "fr".into())
        ]
    );
    // Another language's folder given alone: its project's, in its language, under its code.
    assert_eq!(
        index(&site.join("content/en")),
        [(
            "https://ex.org/en/stacks/#stacks".to_string(),
            "en".to_string()
        )]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_carpentries_lesson_is_indexed_once_with_its_challenges_and_solutions() {
    // The Workbench publishes each episode three times: the learner's page, the instructor's
    // (the same with a note) and once more on the "all in one" page.
    let dir = tmp("carpentries");
    let site = dir.join("site");
    let episode = |n: usize, note: &str| {
        let prose: String = (0..12)
            .map(|i| format!("<p>Episode {n}, paragraph {i}: a loop repeats the instructions of its body for each item.</p>\n"))
            .collect();
        format!(
            "<section id=\"ep{n}\"><h2>Episode {n}</h2>{prose}{note}\
             <div class=\"callout challenge\"><span class=\"callout-header\">Challenge</span>\
             <div class=\"callout-inner\"><h3 class=\"callout-title\">Counting {n}</h3>\
             <div class=\"callout-content\"><p>Write a loop that counts to {n}.</p></div></div></div>\
             <div class=\"accordion challenge-accordion\"><div class=\"accordion-item\">\
             <button class=\"accordion-button\"><h4 class=\"accordion-header\">Show me the solution</h4></button>\
             <div class=\"accordion-collapse collapse\"><div class=\"accordion-body\">\
             <pre><code>for i in range({n}):\n    print(i)</code></pre></div></div></div></div></section>"
        )
    };
    let page = |title: &str, body: &str| {
        format!("<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>")
    };
    write_file(&site, "01-loops.html", &page("Loops", &episode(1, "")));
    write_file(&site, "02-more.html", &page("More loops", &episode(2, "")));
    let note = "<div class=\"callout instructor\"><p>Instructor note: live-code this episode and let learners predict each output first.</p></div>";
    write_file(
        &site,
        "instructor/01-loops.html",
        &page("Loops", &episode(1, note)),
    );
    write_file(
        &site,
        "instructor/02-more.html",
        &page("More loops", &episode(2, "")),
    );
    let aio = format!(
        "<p>Content from Loops</p>{}<p>Content from More loops</p>{}",
        episode(1, ""),
        episode(2, "")
    );
    write_file(&site, "aio.html", &page("All in One View", &aio));
    let (chunks, r) = index_folder("--site", &site, &dir, "terminale", &[]);
    let paths: std::collections::BTreeSet<&str> =
        chunks.iter().map(|c| c["path"].as_str().unwrap()).collect();
    // Each learner's page is indexed, where a student's results open; of the instructor's
    // views, only the note that one adds.
    assert_eq!(
        paths.into_iter().collect::<Vec<_>>(),
        ["01-loops.html", "02-more.html", "instructor/01-loops.html"]
    );
    let note = chunks
        .iter()
        .filter(|c| c["path"] == "instructor/01-loops.html")
        .map(|c| c["text"].as_str().unwrap())
        .collect::<Vec<_>>();
    assert_eq!(note.len(), 1, "{note:?}");
    assert!(note[0].contains("Instructor note"), "{note:?}");
    let skipped = r["skipped"].to_string();
    for p in ["aio.html", "instructor/02-more.html"] {
        assert!(skipped.contains(p), "{p} not listed as left out: {skipped}");
    }
    assert!(
        skipped.contains("a copy: its text is on other pages"),
        "{skipped}"
    );
    // Every passage once, each challenge an exercise and its solution the correction answering it.
    for t in [
        "Episode 1, paragraph 3",
        "Episode 2, paragraph 3",
        "Instructor note",
        "counts to 1",
        "counts to 2",
    ] {
        let n = chunks
            .iter()
            .filter(|c| c["text"].as_str().unwrap().contains(t))
            .count();
        assert_eq!(n, 1, "{t}");
    }
    for n in [1, 2] {
        let ex = chunks
            .iter()
            .find(|c| {
                c["text"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("counts to {n}"))
            })
            .unwrap();
        assert_eq!(ex["doc_type"], "exercise");
        let sol = chunks
            .iter()
            .find(|c| c["text"].as_str().unwrap().contains(&format!("range({n})")))
            .unwrap();
        assert_eq!(
            (&sol["doc_type"], &sol["answers"]),
            (&"solution".into(), &ex["id"])
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_carpentries_workbench_lessons_sources_are_linked_where_it_publishes_them() {
    let dir = tmp("workbench");
    let src = dir.join("lesson");
    write_file(
        &src,
        "config.yaml",
        "carpentry: 'swc'\ntitle: 'Python'\nepisodes:\n- 01-loops.md\n",
    );
    write_file(
        &src,
        "README.md",
        "# Python\n\nHow to contribute to this lesson's repository.\n",
    );
    write_file(
        &src,
        "index.md",
        "---\nsite: sandpaper::sandpaper_site\n---\n\nThis lesson teaches Python.\n",
    );
    write_file(
        &src,
        "learners/setup.md",
        "---\ntitle: Setup\n---\n\n## Installing Python\n\nInstall Anaconda.\n",
    );
    write_file(
        &src,
        "episodes/01-loops.md",
        "---\ntitle: Loops\n---\n\n:::::: questions\n\n- How can I repeat an action?\n\n::::::\n\n\
         A loop repeats its body.\n\n:::::::::: challenge\n\n## From 1 to N\n\nPrint 1 to 3.\n\n\
         ::::: solution\n\n## Solution\n\n```python\nfor n in range(1, 4):\n    print(n)\n```\n\n:::::\n\n::::::::::\n",
    );
    write_file(&src, "episodes/fig/README.md", "Figures of the episodes.\n");
    let (chunks, r) = index_folder("--markdown", &src, &dir, "terminale", &[]);
    let page = |t: &str| {
        let c = chunks
            .iter()
            .find(|c| c["text"].as_str().unwrap().contains(t))
            .unwrap_or_else(|| panic!("no chunk holds {t:?}"));
        let url = c["url"].as_str().unwrap();
        (
            url.rsplit("lesson/").next().unwrap().to_string(),
            c["doc_type"].clone(),
        )
    };
    assert_eq!(page("A loop repeats").0, "01-loops.html");
    assert_eq!(page("Install Anaconda").0, "#installing-python");
    assert_eq!(
        page("repeat an action"),
        ("01-loops.html".to_string(), "textbook_section".into())
    );
    assert_eq!(
        page("Print 1 to 3"),
        ("01-loops.html#from-1-to-n".to_string(), "exercise".into())
    );
    assert_eq!(page("range(1, 4)").1, "solution");
    let skipped = r["skipped"].to_string();
    for p in ["README.md", "episodes/fig/README.md"] {
        assert!(skipped.contains(p), "{p}: {skipped}");
    }
    assert!(!chunks
        .iter()
        .any(|c| c["text"].as_str().unwrap().contains("contribute")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn links_on_the_host_given_by_url_are_the_sites_own_pages() {
    // A built course that links its corrections by their full address and names no canonical
    // address: with `--url`, a collapsible block that only points to a correction's page is
    // left out (the page itself is indexed); without it, nothing tells the link is the site's.
    let dir = tmp("url-host");
    let p = dir.join("site");
    write_file(
        &p,
        "terminale/arbres/index.html",
        r#"<html lang="fr"><head><title>Arbres</title></head><body><article><h1>Arbres</h1>
        <h2>Exercice 6</h2><p>Parcourir un arbre binaire en largeur.</p>
        <details class="question"><summary>Corrigé disponible</summary>
        <p><a href="https://prof.github.io/nsi/corriges/arbres/">Accéder au corrigé</a></p></details>
        </article></body></html>"#,
    );
    let texts = |extra: &[&str]| {
        let (chunks, _) = index_folder("--site", &p, &dir.join("o"), "terminale", extra);
        serde_json::to_string(&chunks).unwrap()
    };
    let served = texts(&["--url", "https://prof.github.io/nsi/"]);
    assert!(
        served.contains("Parcourir") && !served.contains("Accéder"),
        "{served}"
    );
    assert!(texts(&[]).contains("Accéder au corrigé"));
    let _ = std::fs::remove_dir_all(&dir);
}
