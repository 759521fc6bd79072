//! How the site built from Markdown sources publishes them, as its generator (or the code forge
//! that shows them) does: where each page is served (front matter addresses included), its
//! headings' anchors, which files are pages (notebooks, MDX, Jekyll's `_` folders, mdBook's
//! chapters, Quarto's render targets) and which folders are the generator's output rather than
//! pages. Set for a source by
//! [`super::config::Config::recognise_projects`]; read when its pages are listed
//! ([`walks`], [`Publishing::unpublished`]) and linked ([`super::urls::page_url_path`]).

use super::anchors::Anchors;

/// Whether a source's Jupyter notebooks (`*.ipynb`) are pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notebooks {
    /// Files the site offers for download (a generator that does not render them).
    #[default]
    Files,
    /// Pages: a generator renders them (Jupyter Book, mystmd, Quarto, MkDocs with
    /// `mkdocs-jupyter`), or a forge shows them.
    Pages,
    /// Pages when the source has no other page: a folder no generator publishes (a folder of
    /// notebooks is a course of notebooks; beside Markdown pages, a notebook may be a file they
    /// offer for download, as a generator's site would).
    Alone,
}

/// How a source's Markdown pages are published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Publishing {
    /// Where a page is served.
    pub urls: PageUrls,
    /// How its headings' anchors are made.
    pub anchors: Anchors,
    /// Whether its Jupyter notebooks (`*.ipynb`) are pages.
    pub notebooks: Notebooks,
    /// Whether its pages are MDX (Markdown with JSX), `*.mdx` files among them (Docusaurus,
    /// which reads its `.md` pages as MDX too).
    pub mdx: bool,
    /// Folders not looked into for pages, relative to the source: the output of a generator
    /// whose pages are in its project's own folder (Jupyter Book's `_build`, Quarto's `_site`,
    /// Jekyll's `_site` and `vendor`). `node_modules` is never looked into ([`walks`]).
    pub output: Vec<String>,
    /// Where its pages are in the book whose `{{#include file}}` directives are expanded
    /// (mdBook, [`super::mdbook`]): the pages' folder from the book's root (`src`), or `None`
    /// when a generator has no such directive. An include may name any file of the book (the
    /// Rust book's listings are beside `src/`, not in it), none outside it.
    pub mdbook_includes: Option<String>,
    /// Files that are not pages: mdBook's `SUMMARY.md` (the book's table of contents, shown as
    /// its navigation).
    pub contents: Vec<String>,
    /// The pages its generator builds, when it builds only those it is given: the chapters an
    /// mdBook's `SUMMARY.md` links to (paths from the source's root).
    pub listed: Option<Vec<String>>,
    /// Pages its build leaves out, as gitignore-style patterns from the pages' folder: MkDocs'
    /// `exclude_docs` and `draft_docs`, and the `templates/` folder it always leaves out;
    /// Docusaurus' partials, files and folders whose name starts with `_`.
    pub excluded: Patterns,
    /// A Jekyll site's rules, when it is one.
    pub jekyll: Option<Jekyll>,
    /// A Quarto project's rules, when it is one.
    pub quarto: Option<Quarto>,
    /// Which front matter keys, if any, set a page's address.
    pub front_urls: FrontUrls,
    /// Whether its addresses are lower case (Hugo's, unless `disablePathToLower = true`).
    pub lower_case_urls: bool,
    /// Whether it is a Carpentries Workbench lesson (sandpaper), which serves its folders'
    /// pages at the site's root ([`Publishing::served_path`]).
    pub workbench: bool,
    /// How its navigation places its pages (MkDocs' `nav`, or its folders).
    pub nav: super::sitenav::SiteNav,
    /// Whether a front matter it cannot read is part of the page's text, as MkDocs shows it (a
    /// `---` never closed is a rule, YAML it cannot parse stays on the page), instead of an
    /// error that names the page.
    pub front_matter_as_text: bool,
    /// The Python-Markdown extensions that change what its pages say (an MkDocs project's).
    pub extensions: super::markdown::Extensions,
    /// Which of its pages the site shows only to who gives a password.
    pub encrypted: Encrypted,
    /// A multilingual Hugo site's languages: a page's language and the folder it is served
    /// under.
    pub languages: Option<super::translations::Languages>,
    /// An MkDocs project's `mkdocs-macros` macros that can be run ([`super::macros`]).
    pub macros: Option<super::macros::Macros>,
    /// Pages its site's own search leaves out (the `mkdocs-exclude-search` plugin).
    pub unsearched: Unsearched,
    /// A built MkDocs site's own search index: the pages its search finds.
    pub site_search: Option<super::site_search::SiteSearch>,
}

/// The pages an MkDocs site's own search leaves out, as its `mkdocs-exclude-search` plugin
/// says (`exclude:` entries, fnmatch patterns of the pages' paths: `xtra/*.md`, `dir/*`,
/// `second.md`; `ignore:` names sections of such pages kept, so those pages are kept whole).
/// A section alone (`third.md#some-heading`) is not left out: the page is.
#[derive(Clone, Debug, Default)]
pub struct Unsearched {
    /// The `exclude` patterns that name pages, without their `.md`.
    pub patterns: Vec<String>,
    /// The pages `ignore` keeps sections of, without their `.md`.
    pub kept: Vec<String>,
    /// `patterns` compiled (one that does not compile matches nothing).
    matchers: Vec<regex::Regex>,
}

impl PartialEq for Unsearched {
    fn eq(&self, other: &Self) -> bool {
        self.patterns == other.patterns && self.kept == other.kept
    }
}

impl Eq for Unsearched {}

impl Unsearched {
    /// From the plugin's `exclude` and `ignore` entries.
    pub fn new(exclude: &[String], ignore: &[String]) -> Unsearched {
        let page = |e: &String| {
            let e = e.trim_start_matches('/');
            e.strip_suffix(".md").unwrap_or(e).to_string()
        };
        let patterns: Vec<String> = exclude
            .iter()
            .filter(|e| !e.contains('#'))
            .map(page)
            .collect();
        Unsearched {
            matchers: patterns.iter().filter_map(|p| fnmatch(p)).collect(),
            patterns,
            kept: ignore
                .iter()
                .filter_map(|e| e.split_once('#'))
                .map(|(f, _)| page(&f.to_string()))
                .collect(),
        }
    }

    /// Whether the page at `rel` (from the pages' folder) is left out of the site's
    /// search: a pattern matches its path without `.md` or its address (`dir/index.md` is
    /// `dir`), as the plugin matches its search index's locations. The home page never is.
    pub fn excludes(&self, rel: &str) -> bool {
        let stem = rel.rsplit_once('.').map_or(rel, |(stem, _)| stem);
        let address = stem
            .strip_suffix("/index")
            .or_else(|| stem.strip_suffix("/README"))
            .unwrap_or(stem);
        if stem == "index" || stem == "README" || self.kept.iter().any(|k| k == stem) {
            return false;
        }
        self.matchers
            .iter()
            .any(|m| m.is_match(stem) || m.is_match(address))
    }
}

/// Python's `fnmatch` pattern as a regular expression (case-sensitive, as on the systems sites
/// are built on): `*` is any text, `/` included, `?` one character, `[…]` one of a set (`[!…]`
/// one not in it).
fn fnmatch(pattern: &str) -> Option<regex::Regex> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut re = String::from("^");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        // A set runs to the first `]` after its first character; unclosed, `[` is itself.
        let close = (c == '[')
            .then(|| (i + 1..chars.len()).find(|&j| chars[j] == ']'))
            .flatten();
        match (c, close) {
            ('*', _) => re.push_str(".*"),
            ('?', _) => re.push('.'),
            ('[', Some(end)) => {
                let set: String = chars[i..end].iter().collect();
                let set = set.replace('\\', "\\\\").replace('[', "\\[");
                re.push('[');
                match set.strip_prefix('!') {
                    Some(not) => re.push_str(&format!("^{not}")),
                    None if set.starts_with('^') => re.push_str(&format!("\\{set}")),
                    None => re.push_str(&set),
                }
                re.push(']');
                i = end + 1;
            }
            (c, _) => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// Pages a site encrypts (MkDocs' `encryptcontent` plugin): their built copy is ciphertext
/// behind a password form, and read from the sources they would show what the teacher keeps
/// for some students (a correction before the lesson ends).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encrypted {
    /// None.
    #[default]
    None,
    /// Those whose front matter sets a `password`.
    Marked,
    /// Every page (its `global_password`).
    All,
}

impl Encrypted {
    /// Why a page with front matter `front` is left out, if it is.
    pub fn why(self, front: &[(String, String)]) -> Option<String> {
        let own = front.iter().any(|(k, v)| k == "password" && !v.is_empty());
        let plugin = "its site encrypts it (mkdocs-encryptcontent-plugin)";
        match self {
            Encrypted::None => None,
            Encrypted::Marked if !own => None,
            Encrypted::Marked => Some(format!("{plugin}: only a password shows it")),
            Encrypted::All => Some(format!(
                "{plugin}'s global password: only it shows the page"
            )),
        }
    }
}

/// The folders of a Carpentries Workbench lesson whose Markdown files are its pages, each
/// served at the site's root ([`Publishing::served_path`]) but the learner profiles, all on one.
const WORKBENCH_PAGES: [&str; 4] = ["episodes", "learners", "instructors", "profiles"];

/// The front matter keys that set a page's address, as its generator reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FrontUrls {
    /// None (MkDocs, Quarto, mdBook, …).
    #[default]
    None,
    /// Jekyll's `permalink: /cours/piles/` (one without `:` placeholders).
    Jekyll,
    /// Hugo's `url: /cours/piles/`, or `slug: piles` in place of the page's own name.
    Hugo,
    /// Docusaurus' `slug: /piles` (from the docs' root) or `slug: piles` (beside the page), or
    /// `id: piles` in place of its name; it also serves `01-intro.md` as `intro`, without the
    /// number that orders it.
    Docusaurus,
}

/// Where the site built from Markdown sources serves a page `a/b.md`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageUrls {
    /// At `a/b/` (MkDocs, Hugo, Docusaurus; the default).
    #[default]
    Folders,
    /// At `a/b.html` (Quarto, bookdown, Jupyter Book, mdBook, Jekyll, VitePress; and any
    /// `.qmd` or `.Rmd` page).
    Html,
    /// At `a/b.md` itself, as a code forge shows a repository's files (a source whose `url` is
    /// a GitHub, GitLab or Gitea file view: [`super::forges`]).
    Files,
}

/// What Jekyll publishes of a folder starting with `_`: only its posts (`_posts`) and the
/// collections its `_config.yml` outputs (`collections: {cours: {output: true}}`); the others
/// (`_includes`, `_layouts`, `_data`, a collection without `output`) are shown inside other
/// pages, if at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Jekyll {
    /// The `_` folders whose pages are published: `_posts` and each output collection's.
    pub published: Vec<String>,
}

/// What a Quarto project renders: every page but those whose name, or a folder's on their path,
/// starts with `_` (includes, extensions; a `.` one is never looked into), and when its `_quarto.yml` lists `project:
/// render:` targets, only those (globs from the project's folder; a `!` one leaves out what it
/// matches, a folder with all it holds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Quarto {
    /// The `render` targets, as written.
    pub render: Patterns,
}

/// Path patterns compiled once (globs from the source's root, `*` not crossing a `/`; a `!` one
/// takes back what it matches): a pattern hits a page when it matches the page or a folder on
/// its path.
#[derive(Clone, Debug, Default)]
pub struct Patterns(Vec<Pattern>);

#[derive(Clone, Debug)]
struct Pattern {
    written: String,
    back: bool,
    folder: bool,
    matcher: Option<globset::GlobMatcher>,
}

impl PartialEq for Patterns {
    fn eq(&self, other: &Self) -> bool {
        self.written().eq(other.written())
    }
}

impl Eq for Patterns {}

impl Patterns {
    /// Gitignore-style patterns (MkDocs' `exclude_docs`): one without a `/` but at its end
    /// matches a name at any depth, `/drafts/` only from the root, a trailing `/` only folders.
    pub fn gitignore(list: &[String]) -> Patterns {
        Patterns::compile(list, |p| {
            if p.contains('/') {
                p.trim_start_matches('/').to_string()
            } else {
                format!("**/{p}")
            }
        })
    }

    /// Patterns from the root (Quarto's render targets: `materials/*`, `!materials/*/no_render`).
    pub fn rooted(list: &[String]) -> Patterns {
        Patterns::compile(list, |p| p.trim_start_matches("./").to_string())
    }

    fn compile(list: &[String], glob: impl Fn(&str) -> String) -> Patterns {
        Patterns(
            list.iter()
                .map(|written| {
                    let (back, p) = match written.strip_prefix('!') {
                        Some(rest) => (true, rest),
                        None => (false, written.as_str()),
                    };
                    let folder = p.ends_with('/');
                    let matcher = globset::GlobBuilder::new(&glob(p.trim_end_matches('/')))
                        .literal_separator(true)
                        .build()
                        .ok()
                        .map(|g| g.compile_matcher());
                    Pattern {
                        written: written.clone(),
                        back,
                        folder,
                        matcher,
                    }
                })
                .collect(),
        )
    }

    /// The patterns as written.
    pub fn written(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|p| p.written.as_str())
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn hits(p: &Pattern, rel: &str) -> bool {
        let Some(m) = &p.matcher else { return false };
        let mut hit = !p.folder && m.is_match(rel);
        let mut path = rel;
        while let Some((parent, _)) = path.rsplit_once('/') {
            hit |= m.is_match(parent);
            path = parent;
        }
        hit
    }

    /// Whether they leave out the page at `rel`, gitignore's way: the last pattern that hits it
    /// decides.
    pub fn ignore(&self, rel: &str) -> bool {
        self.0
            .iter()
            .rev()
            .find(|p| Patterns::hits(p, rel))
            .is_some_and(|p| !p.back)
    }

    /// Whether they take the page at `rel`, Quarto's way: a pattern hits it and no `!` one does.
    pub fn take(&self, rel: &str) -> bool {
        let (back, take): (Vec<&Pattern>, Vec<&Pattern>) = self.0.iter().partition(|p| p.back);
        take.iter().any(|p| Patterns::hits(p, rel)) && !back.iter().any(|p| Patterns::hits(p, rel))
    }
}

/// Whether the folder at `rel` (relative to the source, `/`-separated) is looked into for
/// pages: not a generator's output ([`Publishing::output`]) nor a folder of libraries a page
/// loads, whose HTML files are theirs, never a course's pages: `node_modules` (packages'
/// READMEs), Quarto's `site_libs`, and the `libs` beside a Quarto or R Markdown document
/// (`slides_files/libs/`: reveal.js's speaker view, in every deck).
pub fn walks(publishing: &Publishing, rel: &str) -> bool {
    let mut folders = rel.rsplit('/');
    let name = folders.next().unwrap_or(rel);
    let libs = name == "site_libs"
        || (name == "libs" && folders.next().is_some_and(|p| p.ends_with("_files")));
    name != "node_modules" && !libs && !publishing.output.iter().any(|f| f == rel)
}

impl Publishing {
    /// Whether the heading that opens a block of kind `kind` (`::: challenge` then `## From 1
    /// to N`), which titles it, keeps its anchor on the built page: Quarto makes every such
    /// heading its callout's title, without an anchor; the Carpentries' Workbench keeps a
    /// challenge's and turns a solution, hint or spoiler into an accordion (anchored by its
    /// own numbered id, which its sources do not give).
    pub fn title_anchored(&self, kind: &str) -> bool {
        if self.quarto.is_some() {
            return false;
        }
        !(self.workbench && matches!(kind, "solution" | "hint" | "spoiler"))
    }

    /// What becomes of a folder's `README.md` with an index page beside it (`index.md`,
    /// `index.markdown`, `index.html`; `exists` says whether a file of the source is there):
    /// Jekyll (GitHub Pages) serves it at `README.html` (`Ok`: that address, as a `permalink`),
    /// MkDocs and a plain folder publish the index in its place (`Err`: why it is no page).
    /// And in Hugo, a page inside a leaf bundle (a folder with an `index.md`, not the site's
    /// root) is one of its resources, which Hugo does not publish as a page (`Err`).
    /// `None`: none of these.
    pub fn by_an_index_page(
        &self,
        rel: &str,
        exists: &dyn Fn(&str) -> bool,
    ) -> Option<Result<String, &'static str>> {
        let (folder, name) = rel.rsplit_once('/').map_or(("", rel), |(f, n)| (f, n));
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let at = |f: &str, file: &str| {
            if f.is_empty() {
                file.to_string()
            } else {
                format!("{f}/{file}")
            }
        };
        let index = ["index.md", "index.markdown", "index.html"];
        let has_index = |f: &str| index.iter().any(|i| exists(&at(f, i)));
        if self.front_urls == FrontUrls::Hugo {
            let mut folders = std::iter::successors(Some(folder), |f: &&str| {
                f.rsplit_once('/').map(|(parent, _)| parent)
            });
            // A translated bundle's `index.fr.md` is its index too.
            let langs = self.languages.as_ref().map_or(&[][..], |l| &l.codes[..]);
            let translated: Vec<String> = langs.iter().map(|c| format!("index.{c}.md")).collect();
            let has_index = |f: &str| has_index(f) || translated.iter().any(|i| exists(&at(f, i)));
            let stem = (langs.iter())
                .find_map(|c| stem.strip_suffix(&format!(".{c}")))
                .unwrap_or(stem);
            let resource = !stem.eq_ignore_ascii_case("index")
                && folders.any(|f| !f.is_empty() && has_index(f));
            return resource.then_some(Err("a resource of a Hugo leaf bundle (a folder with an index.md), which Hugo does not publish as a page"));
        }
        if !stem.eq_ignore_ascii_case("readme") || !has_index(folder) {
            return None;
        }
        if self.jekyll.is_some() {
            return Some(Ok(format!("/{}", at(folder, &format!("{stem}.html")))));
        }
        (self.anchors == Anchors::MkDocs && self.urls == PageUrls::Folders).then_some(Err(
            "a README beside its folder's index page, which MkDocs publishes in its place",
        ))
    }

    /// Why the page at `rel` is left out as one its site's own search does not find, if it is:
    /// a page of the built site (`built`) its search index leaves out, or a Markdown page
    /// `mkdocs-exclude-search` leaves out.
    pub fn not_searched(&self, rel: &str, built: bool) -> Option<&'static str> {
        if built {
            self.site_search.as_ref()?.leaves_out(rel).then_some(
                "not in the site's own search index (search/search_index.json): a page its search leaves out (search: exclude, mkdocs-exclude-search, encryption) or a file the site copies as it is",
            )
        } else {
            self.unsearched.excludes(rel).then_some(
                "left out of the site's own search (mkdocs-exclude-search's exclude in mkdocs.yml)",
            )
        }
    }

    /// Why the page at `rel` is not a page of the site on its own, if it is not.
    pub fn unpublished(&self, rel: &str) -> Option<&'static str> {
        if self.contents.iter().any(|f| f == rel) {
            return Some(
                "the book's table of contents (SUMMARY.md), which the site shows as its navigation",
            );
        }
        if self
            .listed
            .as_ref()
            .is_some_and(|l| !l.iter().any(|p| p == rel))
        {
            return Some(
                "not a chapter of the book's SUMMARY.md, from which mdBook builds the book",
            );
        }
        if self.workbench {
            let page = match rel.split_once('/') {
                Some((folder, name)) => WORKBENCH_PAGES.contains(&folder) && !name.contains('/'),
                None => ["index", "LICENSE", "CODE_OF_CONDUCT"]
                    .iter()
                    .any(|p| rel.rsplit_once('.').is_some_and(|(stem, _)| stem == *p)),
            };
            if !page {
                return Some("not a page of the Carpentries Workbench lesson, which builds index.md, LICENSE.md, CODE_OF_CONDUCT.md and the pages in episodes/, learners/, instructors/ and profiles/");
            }
        }
        if self.excluded.ignore(rel) {
            return Some("left out of the site by its generator (MkDocs' exclude_docs, draft_docs and templates/ folder; Docusaurus' _ partials)");
        }
        if let Some(quarto) = &self.quarto {
            if rel.split('/').any(|s| s.starts_with('_')) {
                return Some("a file or folder starting with _, which Quarto does not render (an include, an extension)");
            }
            if !quarto.render.is_empty() && !quarto.render.take(rel) {
                return Some("not among the render targets of the Quarto project (project: render: in _quarto.yml)");
            }
        }
        let jekyll = self.jekyll.as_ref()?;
        let (top, _) = rel.split_once('/')?;
        (top.starts_with('_') && !jekyll.published.iter().any(|p| p == top)).then_some(
            "in a Jekyll folder starting with _ (includes, layouts, data, or a collection without output: true), which Jekyll does not publish as pages: what its pages' templates show of it is in the built site (index _site with --site)",
        )
    }

    /// A path as Hugo makes it an address: spaces as dashes, lower case unless
    /// `disablePathToLower`.
    fn hugo_path(&self, path: &str) -> String {
        let path = path.replace(' ', "-");
        if self.lower_case_urls {
            path.to_lowercase()
        } else {
            path
        }
    }

    /// The language of the page at `rel`, when its generator says it (a multilingual Hugo
    /// site: [`super::translations`]).
    pub fn page_lang(&self, rel: &str) -> Option<&str> {
        self.languages.as_ref().map(|l| l.of(rel).0)
    }

    /// The path Jekyll serves a page at, as a source path: a post's `_posts/2024-01-05-titre.md`
    /// at `2024/01/05/titre.md`, a collection's `_cours/piles.md` at `cours/piles.md`; any other
    /// as it is.
    pub fn served_path<'a>(&self, rel: &'a str) -> std::borrow::Cow<'a, str> {
        if self.workbench {
            // The Carpentries' Workbench: `episodes/05-loop.md`, `learners/reference.md` and
            // `instructors/instructor-notes.md` at the root (`05-loop.html`); the setup
            // instructions on the home page, the learner profiles on one page.
            return match rel.split_once('/') {
                Some(("learners", "setup.md")) => "index.md".into(),
                Some(("profiles", _)) => "profiles.md".into(),
                Some((folder, name)) if WORKBENCH_PAGES.contains(&folder) => name.into(),
                _ => rel.into(),
            };
        }
        if self.front_urls == FrontUrls::Hugo {
            // `Thème 1/Les Arbres.md` at `thème-1/les-arbres/`; a translation's
            // `cours.fr.md` at `fr/cours/`.
            return match &self.languages {
                Some(l) => {
                    let (lang, path) = l.of(rel);
                    format!("{}{}", l.prefix(lang), self.hugo_path(&path)).into()
                }
                None => self.hugo_path(rel).into(),
            };
        }
        if self.front_urls == FrontUrls::Docusaurus {
            return rel
                .split('/')
                .map(without_number)
                .collect::<Vec<_>>()
                .join("/")
                .into();
        }
        if self.jekyll.is_none() {
            return rel.into();
        }
        let Some((top, rest)) = rel.split_once('/') else {
            return rel.into();
        };
        if top == "_posts" {
            // The file name's date, then its title (a post's folders, its categories, dropped).
            let name = rest.rsplit('/').next().unwrap_or(rest);
            let date: Vec<&str> = name.splitn(4, '-').collect();
            let dated = date.len() == 4
                && [4, 2, 2]
                    .iter()
                    .zip(&date)
                    .all(|(n, p)| p.len() == *n && p.bytes().all(|b| b.is_ascii_digit()));
            return if dated {
                format!("{}/{}/{}/{}", date[0], date[1], date[2], date[3]).into()
            } else {
                rest.into()
            };
        }
        match top.strip_prefix('_') {
            Some(collection) => format!("{collection}/{rest}").into(),
            None => rel.into(),
        }
    }
}

/// A path segment without the number Docusaurus orders it by (`01-intro.md` → `intro.md`,
/// `2. Les piles` → `Les piles`; its `numberPrefixParser`: digits, then `-`, `_` or `.`, and a
/// name that does not start with one of them).
fn without_number(segment: &str) -> &str {
    let digits = segment.len()
        - segment
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .len();
    if digits == 0 {
        return segment;
    }
    let rest = segment[digits..].trim_start();
    let after = rest.trim_start_matches(['-', '_', '.']);
    if after.len() == rest.len() {
        return segment;
    }
    let name = after.trim_start();
    if name.is_empty() || name.starts_with(['-', '_', '.']) {
        segment
    } else {
        name
    }
}

/// Where a page's front matter says it is served (`front`: its keys and values), as a path
/// from its source's root, when its generator reads such a key ([`FrontUrls`]); `rel` is the
/// page's path and `default` where it is served otherwise (`cours/piles/`).
pub fn front_url(
    publishing: &Publishing,
    rel: &str,
    front: &[(String, String)],
    default: &str,
) -> Option<String> {
    let get = |k: &str| {
        front
            .iter()
            .find(|(f, _)| f == k)
            .map(|(_, v)| v.trim())
            .filter(|v| !v.is_empty())
    };
    // `slug` (or Docusaurus' `id`) in place of the page's last segment.
    let renamed = |name: &str| {
        let folder = default.trim_end_matches('/');
        let folder = folder.rsplit_once('/').map_or("", |(f, _)| f);
        let sep = if folder.is_empty() { "" } else { "/" };
        format!("{folder}{sep}{name}/")
    };
    match publishing.front_urls {
        FrontUrls::None => None,
        FrontUrls::Jekyll => get("permalink")
            .filter(|p| !p.contains(':'))
            .map(|p| p.trim_start_matches('/').to_string()),
        // Hugo takes `url` as written, and makes a `slug` an address as it does a file name.
        FrontUrls::Hugo => get("url")
            .map(|u| u.trim_start_matches('/').to_string())
            .map(|u| match &publishing.languages {
                // Under its language's folder, unless written with it.
                Some(l) => {
                    let prefix = l.prefix(l.of(rel).0);
                    if u.starts_with(&prefix) || format!("{u}/") == prefix {
                        u
                    } else {
                        format!("{prefix}{u}")
                    }
                }
                None => u,
            })
            .or_else(|| get("slug").map(|s| renamed(&publishing.hugo_path(s)))),
        FrontUrls::Docusaurus => match get("slug") {
            Some(s) if s.starts_with('/') => {
                let s = s.trim_matches('/');
                Some(if s.is_empty() {
                    String::new()
                } else {
                    format!("{s}/")
                })
            }
            Some(s) => Some(renamed(s.trim_end_matches('/'))),
            None => get("id").map(&renamed),
        },
    }
}

#[cfg(test)]
mod tests;
