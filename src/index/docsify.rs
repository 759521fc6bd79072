//! Docsify sites: a published Docsify site is one `index.html` that loads `docsify.js`, beside
//! the course's Markdown files, which the script fetches and renders in the browser. Its HTML
//! holds no text to read, so a source whose root `index.html` is such a shell is read as its
//! Markdown files ([`super::config::Format::Docsify`]), with Docsify's addresses: `guide.md` is
//! `#/guide` (`guide` in history mode), a folder's `README.md` is the folder, and a heading is
//! `?id=slug` after it, Docsify's slug. Files named `_…` (`_sidebar.md`, `_navbar.md`,
//! `_coverpage.md`, `_404.md`) or in a folder named so (`_media/`), and the sidebar, navbar and
//! cover page the shell names, are parts of pages, not pages; `?>` and `!>` (Docsify's tip and
//! warning paragraphs) are read as paragraphs, a heading's `:id=name` is its anchor, and a file a
//! page embeds (`':include'`) is read in its place ([`embed`]).

use super::config::{Config, Format};
use super::markdown::{self, MarkdownPage};
use regex::Regex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::LazyLock;

/// What a Docsify site's `index.html` says about its pages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shell {
    /// `routerMode: 'history'`: pages at `guide`, not `#/guide`.
    pub history: bool,
    /// `homepage: 'intro.md'`: the file shown at the site's root instead of `README.md`.
    pub homepage: Option<String>,
    /// The files `loadSidebar`, `loadNavbar` and `coverpage` name (by file name).
    pub partials: Vec<String>,
    /// The shell's `<html lang>`: the language of every page.
    pub lang: Option<String>,
}

/// A `<script>` element: its attributes (group 1) and its text (group 2).
static SCRIPT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?is)<script\b([^>]*)>(.*?)</script\s*>").expect("valid regex"));

/// A `src` attribute's value.
static SRC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))"#).expect("valid regex")
});

/// An option of `window.$docsify` with a string value: its name (group 1) and value (group 2).
static OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"\b(routerMode|homepage|loadSidebar|loadNavbar|coverpage)\s*:\s*["'`]([^"'`]+)["'`]"#,
    )
    .expect("valid regex")
});

/// A JavaScript block comment.
static BLOCK_COMMENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)/\*.*?\*/").expect("valid regex"));

/// The `lang` of the `<html>` start tag.
static LANG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)<html\b[^>]*?\blang\s*=\s*["']?([A-Za-z][A-Za-z0-9_-]*)"#)
        .expect("valid regex")
});

/// A heading's `:id=name` (Docsify's explicit anchor) at the end of its line.
static HEADING_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\s{0,3}#{1,6}\s.*?)\s+:id=([^\s]+)\s*$").expect("valid regex"));

/// The shell `html` is, if it is a Docsify site's page: one of its scripts loads Docsify (its
/// `src` names `docsify`) or configures it (`window.$docsify`). Only scripts count, so a page
/// that shows Docsify's configuration as an example is not a shell.
pub fn shell(html: &str) -> Option<Shell> {
    let mut found = false;
    let mut shell = Shell::default();
    for c in SCRIPT.captures_iter(html) {
        let (attrs, body) = (&c[1], &c[2]);
        let src = SRC
            .captures(attrs)
            .and_then(|s| s.iter().skip(1).flatten().next());
        if src.is_some_and(|s| s.as_str().to_ascii_lowercase().contains("docsify")) {
            found = true;
        }
        if !body.contains("$docsify") {
            continue;
        }
        found = true;
        // Options commented out (`// routerMode: 'history',`) say nothing.
        let code: String = body
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let code = BLOCK_COMMENT.replace_all(&code, "");
        for o in OPTION.captures_iter(&code) {
            let value = o[2].trim().to_string();
            match &o[1] {
                "routerMode" => shell.history = value == "history",
                "homepage" => shell.homepage = Some(value),
                _ => {
                    let name = value.rsplit('/').next().unwrap_or(&value).to_string();
                    shell.partials.push(name);
                }
            }
        }
    }
    shell.lang = LANG.captures(html).map(|c| c[1].to_string());
    found.then_some(shell)
}

impl Config {
    /// Reads each HTML source's `index.html` with `read` (`None`: unreadable or absent) and
    /// makes the source a [`Format::Docsify`] one when that page is a Docsify [`shell`]; a
    /// source configured as `docsify` takes its options from it the same way.
    pub fn recognise_docsify(&mut self, read: impl Fn(&Path) -> Option<String>) {
        for s in &mut self.sources {
            if s.format == Format::Markdown {
                continue;
            }
            if let Some(found) = read(&s.path.join("index.html")).and_then(|html| shell(&html)) {
                s.format = Format::Docsify(found);
            }
        }
    }
}

/// Whether page `rel` is a part of pages rather than a page: a file named `_…` or in a folder
/// named so (Docsify's `_media/`, what pages embed), or one the shell names as its sidebar,
/// navbar or cover page.
pub fn partial(rel: &str, shell: &Shell) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.split('/').any(|s| s.starts_with('_')) || shell.partials.iter().any(|p| p == name)
}

/// The address of page `rel` relative to the site's root, given `encoded`, its path with each
/// segment percent-encoded: `#/guide` for `guide.md`, `#/` for `README.md` (or the shell's
/// homepage), `#/dir/` for `dir/README.md`; without `#/` in history mode.
pub fn url_path(rel: &str, encoded: &str, shell: &Shell) -> String {
    let prefix = if shell.history { "" } else { "#/" };
    if shell.homepage.as_deref() == Some(rel) {
        return prefix.to_string();
    }
    let stem = encoded
        .trim_end_matches(".markdown")
        .trim_end_matches(".md");
    let (dir, name) = match stem.rsplit_once('/') {
        Some((d, n)) => (format!("{d}/"), n),
        None => (String::new(), stem),
    };
    let root_readme = dir.is_empty() && shell.homepage.is_some();
    if name.eq_ignore_ascii_case("readme") && !root_readme {
        format!("{prefix}{dir}")
    } else {
        format!("{prefix}{stem}")
    }
}

/// Docsify's slug of a heading's text: ASCII capitals lowered, punctuation (ASCII, and the
/// general and supplemental punctuation blocks) removed, each run of spaces and hyphens one
/// hyphen, a leading digit prefixed with `_`, and `-1`, `-2`, … after a slug the page already
/// has (`seen`).
pub fn slug(text: &str, seen: &mut HashMap<String, usize>) -> String {
    let mut s = String::new();
    for c in text.trim().chars() {
        let removed = matches!(c as u32, 0x2000..=0x206F | 0x2E00..=0x2E7F)
            || "\\'!\"#$%&()*+,./:;<=>?@[]^`{|}~".contains(c);
        if removed {
            continue;
        }
        if c.is_whitespace() || c == '-' {
            if !s.ends_with('-') {
                s.push('-');
            }
        } else {
            s.push(c.to_ascii_lowercase());
        }
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    let count = seen.entry(s.clone()).or_insert(0);
    let out = if *count == 0 {
        s.clone()
    } else {
        format!("{s}-{count}")
    };
    *count += 1;
    out
}

/// The Markdown with Docsify's own syntax made CommonMark, outside fenced code: `?> ` and
/// `!> ` dropped from the start of a paragraph, a heading's `:id=name` made `{#name}`.
fn commonmark(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut fences = markdown::Fences::default();
    for line in body.lines() {
        if !fences.code(line) {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("?> ").or_else(|| t.strip_prefix("!> ")) {
                out.push_str(&line[..line.len() - t.len()]);
                out.push_str(rest);
                out.push('\n');
                continue;
            }
            if let Some(c) = HEADING_ID.captures(line) {
                out.push_str(&format!("{} {{#{}}}\n", &c[1], &c[2]));
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A Docsify embed, alone on its line: indentation (1), the file (2), the options (3).
static EMBED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(\s*)\[[^\]]*\]\(\s*([^)\s]+)\s+["']([^"']*:include[^"']*)["']\s*\)\s*$"#)
        .expect("valid regex")
});

/// `text` with its embeds (`[exercice](exo.md ':include')`, `[code](tri.py ':include
/// :type=code')`) replaced by the files `read` gives: Markdown as Markdown (its front matter
/// left out), any other file, or one embedded with `:type=code`, as a fenced code block of its
/// extension's language. What Docsify shows in a frame or a player (a web address, an HTML
/// page, a video, a sound) is left as it is; the names that could not be read are pushed to
/// `missing`.
pub fn embed(
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fences = markdown::Fences::default();
    for line in text.lines() {
        let found = (!fences.code(line)).then(|| EMBED.captures(line)).flatten();
        let Some(c) = found.filter(|c| !c[2].contains("://")) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let (indent, name, options) = (&c[1], &c[2], &c[3]);
        let ext = name
            .rsplit_once('.')
            .map_or("", |(_, e)| e)
            .to_ascii_lowercase();
        let code = options.contains(":type=code");
        let shown_as_is = !code
            && matches!(
                ext.as_str(),
                "html" | "htm" | "mp4" | "webm" | "ogg" | "mp3" | "wav" | "m4a" | "pdf"
            );
        if shown_as_is {
            // A frame, a video or a sound: nothing to read.
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let Some(body) = read(name) else {
            missing.push(name.to_string());
            continue;
        };
        let body = if code || !matches!(ext.as_str(), "md" | "markdown") {
            let lang = if ext == "md" { "markdown" } else { &ext };
            format!("```{lang}\n{}\n```", body.trim_end())
        } else {
            markdown::without_front_matter(&body).to_string()
        };
        super::snippets::push_indented(&mut out, indent, &body);
    }
    out
}

/// Reads a Docsify page: front matter as for Markdown sources, Docsify's syntax and slugs.
pub fn read(text: &str) -> Result<MarkdownPage, String> {
    markdown::read_as(text, |body| {
        let mut seen = HashMap::new();
        markdown::body_html_with(&commonmark(body), &mut |t, _| Some(slug(t, &mut seen)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHELL: &str = r#"<!DOCTYPE html><html><head><title>NSI</title></head><body>
<div id="app">Chargement…</div>
<script>
  window.$docsify = {
    name: 'NSI',
    // homepage: 'accueil.md',
    /* routerMode: 'hash', */
    loadSidebar: true,
    coverpage: 'couverture.md',
    routerMode: "history",
  }
</script>
<script src="//cdn.jsdelivr.net/npm/docsify@4"></script>
</body></html>"#;

    #[test]
    fn a_shell_is_known_by_its_scripts_only() {
        let s = shell(SHELL).expect("a Docsify shell");
        assert!(s.history);
        assert_eq!(s.homepage, None, "commented out");
        assert_eq!(s.partials, vec!["couverture.md".to_string()]);
        assert_eq!(s.lang, None);
        // Loading Docsify without configuring it is enough; hash mode is the default.
        let bare = r#"<html lang="fr"><body><div id="app"></div><script src="lib/docsify.min.js"></script></body></html>"#;
        let fr = Shell {
            lang: Some("fr".into()),
            ..Shell::default()
        };
        assert_eq!(shell(bare), Some(fr));
        // A page that shows Docsify's configuration as an example is an ordinary page.
        let doc = "<html><body><pre><code>&lt;script&gt;\nwindow.$docsify = {}\n&lt;/script&gt;\
                   </code></pre><script src=\"/assets/main.js\"></script></body></html>";
        assert_eq!(shell(doc), None);
    }

    #[test]
    fn addresses_are_docsify_routes() {
        assert_eq!(
            url_path(
                "cours/récursivité.md",
                "cours/r%C3%A9cursivit%C3%A9.md",
                &Shell::default()
            ),
            "#/cours/r%C3%A9cursivit%C3%A9"
        );
        let hash = Shell::default();
        assert_eq!(url_path("README.md", "README.md", &hash), "#/");
        assert_eq!(
            url_path("cours/README.md", "cours/README.md", &hash),
            "#/cours/"
        );
        assert_eq!(
            url_path("cours/piles.md", "cours/piles.md", &hash),
            "#/cours/piles"
        );
        let history = Shell {
            history: true,
            homepage: Some("accueil.md".into()),
            ..Shell::default()
        };
        assert_eq!(url_path("accueil.md", "accueil.md", &history), "");
        assert_eq!(url_path("README.md", "README.md", &history), "README");
        assert_eq!(
            url_path("cours/piles.md", "cours/piles.md", &history),
            "cours/piles"
        );
    }

    #[test]
    fn partials_are_not_pages() {
        let s = shell(SHELL).unwrap();
        assert!(partial("_sidebar.md", &s));
        assert!(partial("cours/_sidebar.md", &s));
        assert!(partial("_media/exemple.md", &s));
        assert!(partial("couverture.md", &s));
        assert!(!partial("cours/piles.md", &s));
    }

    #[test]
    fn slugs_are_docsify_s() {
        let mut seen = HashMap::new();
        assert_eq!(
            slug("Les piles : définition", &mut seen),
            "les-piles-définition"
        );
        assert_eq!(
            slug("Les piles : définition", &mut seen),
            "les-piles-définition-1"
        );
        assert_eq!(slug("2. L’algorithme", &mut seen), "_2-lalgorithme");
        assert_eq!(slug("Exercice n°3 (bis)", &mut seen), "exercice-n°3-bis");
    }

    #[test]
    fn embedded_files_are_read_in_place() {
        let files = |name: &str| match name {
            "_media/rappel.md" => {
                Some("---\nauteur: M. Martin\n---\nUne **pile** est LIFO.\n".to_string())
            }
            "code/pile.py" => Some("def empiler(p, x):\n    p.append(x)\n".to_string()),
            _ => None,
        };
        let mut missing = Vec::new();
        let out = embed(
            "# Piles\n[rappel](_media/rappel.md ':include')\n[code](code/pile.py \":include\")\n[vidéo](https://example.org/v.mp4 ':include')\n[démo](demo.html ':include')\n[absent](absent.md ':include')\n```\n[code](code/pile.py ':include')\n```\n",
            &files,
            &mut missing,
        );
        assert_eq!(
            out,
            "# Piles\nUne **pile** est LIFO.\n```py\ndef empiler(p, x):\n    p.append(x)\n```\n[vidéo](https://example.org/v.mp4 ':include')\n[démo](demo.html ':include')\n```\n[code](code/pile.py ':include')\n```\n"
        );
        assert_eq!(missing, ["absent.md"]);
    }

    #[test]
    fn tips_and_heading_ids_are_read() {
        let page = read(
            "# Piles\n\n?> Une **pile** est LIFO.\n\n## Exemple :id=ex\n\n```\n?> code\n```\n",
        )
        .unwrap();
        assert!(
            page.html
                .contains("<p>Une <strong>pile</strong> est LIFO.</p>"),
            "{}",
            page.html
        );
        assert!(
            page.html.contains("<h2 id=\"ex\">Exemple</h2>"),
            "{}",
            page.html
        );
        assert!(page.html.contains("<h1 id=\"piles\">"), "{}", page.html);
        assert!(
            page.html.contains("?&gt; code"),
            "code is left as it is: {}",
            page.html
        );
    }
}
