//! The site configuration (`chsr.toml`): which folders to read, the curriculum scope of their
//! pages, rules that read more metadata from page paths and headings, and how page structure maps
//! to document types.
//!
//! ```toml
//! [site]                       # the bundle's search page
//! title = "NSI — search the course"
//! credits = "Course by G. Lassus"
//! licence = "CC BY-SA 4.0"
//!
//! [[source]]
//! path = "nsi-terminale"       # built HTML (or Markdown with format = "markdown")
//! subject = "informatique (NSI)"
//! level = "terminale"
//! lang = "fr"
//! url = "https://example.org/terminale_nsi/"
//! exclude = ["404.html", "**/sommaire/**"]
//! chapter = { path = '(\d+\.\d+)_' }
//!
//! [[source.rule]]
//! pages = ["T6_6_Epreuve_pratique/BNS_*/**"]
//! exam = "BNS épreuve pratique"
//! year = { path = 'BNS_(\d{4})' }
//! paper = { heading = 2, pattern = 'Sujet (\d+)', value = "sujet $1" }
//! ```
//!
//! Every problem is an [`IndexError::Config`] naming the file and the key.

pub use super::publishing::PageUrls;
use super::publishing::Publishing;
use super::IndexError;
use globset::{Glob, GlobSet, GlobSetBuilder};
use regex::Regex;
use serde::Deserialize;
use std::path::{Path, PathBuf};

mod args;
pub use args::{Args, Shorthand};

/// Metadata fields a rule (or a page attribute) may set, by their JSONL names.
pub const RULE_FIELDS: &[&str] = &[
    "subject",
    "level",
    "lang",
    "doc_type",
    "source",
    "chapter",
    "chapter_title",
    "section",
    "topic",
    "year",
    "exam",
    "paper",
    "question_number",
    "session",
    "centre",
];

/// How a value is obtained: a literal, a capture from the page path, or a capture from a heading.
#[derive(Clone, Debug)]
pub enum ValueRule {
    /// The same value for every matching page.
    Literal(String),
    /// `pattern` searched in the page's path (relative to its source, `/`-separated); the value
    /// is `template` with `$1`… replaced (default `$1`, or the whole match without a group).
    Path {
        /// The pattern.
        pattern: Regex,
        /// The value template.
        template: String,
    },
    /// `pattern` searched in the text of headings of `level` (1–6); the value holds for the
    /// content under such a heading, until the next heading of that level or above.
    Heading {
        /// Heading level.
        level: u8,
        /// The pattern.
        pattern: Regex,
        /// The value template.
        template: String,
    },
}

impl ValueRule {
    /// The value for a page path, for literal and path rules (heading rules: `None`).
    pub fn for_path(&self, path: &str) -> Option<String> {
        match self {
            ValueRule::Literal(v) => Some(v.clone()),
            ValueRule::Path { pattern, template } => expand(pattern, template, path),
            ValueRule::Heading { .. } => None,
        }
    }
}

/// `template` with the captures of `pattern`'s first match in `text`, if it matches.
pub fn expand(pattern: &Regex, template: &str, text: &str) -> Option<String> {
    let caps = pattern.captures(text)?;
    let mut out = String::new();
    caps.expand(template, &mut out);
    let out = out.trim().to_string();
    (!out.is_empty()).then_some(out)
}

/// A set of field rules for the pages matching `pages` (all pages when empty).
#[derive(Clone, Debug)]
pub struct Rule {
    /// Globs on the page path; empty: every page of the source.
    pub pages: Option<GlobSet>,
    /// The globs as written (for the report).
    pub pages_text: Vec<String>,
    /// `(field, rule)` pairs, in the order of [`RULE_FIELDS`].
    pub fields: Vec<(&'static str, ValueRule)>,
    /// Document type of exercise statements on these pages (default `exercise`; an exam page
    /// would say `past_paper_question`).
    pub exercise_doc_type: Option<String>,
    /// Document type of corrections (default `solution`).
    pub solution_doc_type: Option<String>,
    /// What groups chunks into one section for section evidence: `chapter`, `page` or `heading`.
    pub section_by: Option<SectionBy>,
    /// Skip these pages entirely.
    pub skip: bool,
}

/// What one section (`section_key`) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionBy {
    /// Every page of one chapter (the default when the chapter is known).
    Chapter,
    /// One page (the default otherwise).
    Page,
    /// The content under one heading (an exam page: one exercise and its correction).
    Heading,
}

/// How page structure is read: which element holds the content, and which titles and classes
/// mark exercises, corrections, statements and tabs to skip.
#[derive(Clone, Debug)]
pub struct Structure {
    /// CSS selectors of the main content, first match wins (`[data-chsr-body]` always first).
    pub content: Vec<String>,
    /// Extra CSS selectors of elements to leave out (navigation and search UI are always out).
    pub ignore: Vec<String>,
    /// Titles of exercise blocks (admonitions, collapsibles, tabs).
    pub exercise: Regex,
    /// Titles of corrections.
    pub solution: Regex,
    /// Titles of a statement (a tab holding an exercise's text).
    pub statement: Regex,
    /// Tab or block titles whose content is left out (e.g. a copy of the Markdown source).
    pub skip: Regex,
    /// Classes that make a block an exercise whatever its title.
    pub exercise_classes: Vec<String>,
}

/// Default content selectors: MkDocs Material, Docusaurus, Hugo themes, Jekyll, Jupyter Book,
/// Sphinx, then generic landmarks.
pub const DEFAULT_CONTENT: &[&str] = &[
    "article.md-content__inner",
    ".theme-doc-markdown",
    "main article",
    "article.bd-article",
    "div[role=main]",
    "main .content",
    "article",
    "main",
    "#content",
    ".content",
    "body",
];

impl Default for Structure {
    fn default() -> Self {
        Structure {
            content: DEFAULT_CONTENT.iter().map(|s| s.to_string()).collect(),
            ignore: Vec::new(),
            // English and French, then the other languages of course sites (Dutch, German,
            // Spanish, Italian, Portuguese): a title that names an exercise, a task or a problem.
            exercise: Regex::new(concat!(
                r"(?i)^\W*(exercices?|exercises?|activités?|activity|problèmes?|problems?|questions?|défi|challenge|à vous|your turn",
                r"|opdrachten|opdracht|oefeningen|oefening|aufgaben|aufgabe|übungen|übung|ejercicios?|actividad(es)?|problemas?",
                r"|esercizi|esercizio|exercícios?|atividades?)\b"
            ))
            .unwrap(),
            // A collapsible block's button may ask for it ("Show me the solution", "Voir la
            // correction", "Afficher le corrigé": the Carpentries' lessons, Bootstrap themes).
            solution: Regex::new(concat!(
                r"(?i)^\W*((show|see|view|reveal|display|voir|afficher|montrer)(\s+me)?(\s+(the|an?|la|le|les|une?))?\s+)?",
                r"(corrections?|corrigés?|corrige|solutions?|réponses?|answers?|answer key|mark scheme",
                r"|oplossingen|oplossing|uitwerkingen|uitwerking|antwoorden|antwoord|musterlösungen|musterlösung|lösungen|lösung",
                r"|soluci[oó]n|soluciones|respuestas?|soluzion[ei]|soluç(ão|ões)|respostas?)\b"
            ))
            .unwrap(),
            statement: Regex::new(r"(?i)^\W*(énoncés?|enonces?|statement|sujet|question)\b").unwrap(),
            skip: Regex::new(r"(?i)^\W*(sources? markdown|markdown source|source code of this page)\b").unwrap(),
            exercise_classes: vec![
                "exercise".into(),
                "exercice".into(),
                "question".into(),
                "challenge".into(),
            ],
        }
    }
}

/// One folder of pages and its scope.
#[derive(Clone, Debug)]
pub struct Source {
    /// Name (id prefix of its chunks, `source` field default): the folder's name unless given.
    pub name: String,
    /// The folder.
    pub path: PathBuf,
    /// Built HTML, Markdown sources or a Docsify site.
    pub format: Format,
    /// Where the folder is served (absolute or relative URL); `None`: relative to the bundle.
    pub url: Option<String>,
    /// Pages left out (globs on the page path).
    pub exclude: GlobSet,
    /// Literal defaults and rules for every page (`subject`, `level`, `lang`, …).
    pub base: Rule,
    /// Further rules, applied in order (a later rule overrides an earlier one).
    pub rules: Vec<Rule>,
    /// Structure patterns.
    pub structure: Structure,
    /// How the site built from it publishes its pages, when they are Markdown (set by
    /// [`Config::recognise_projects`] from its generator's project or forge).
    pub publishing: Publishing,
}

/// Page format of a source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Built HTML pages (`*.html`).
    Html,
    /// Markdown sources with YAML front matter (`*.md`, `*.markdown`).
    Markdown,
    /// A Docsify site: Markdown files shown by its `index.html`, and what that page says (see
    /// [`super::docsify`]).
    Docsify(super::docsify::Shell),
}

/// The bundle page's texts.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SitePage {
    /// Page title.
    pub title: Option<String>,
    /// A line saying whose material this is.
    pub credits: Option<String>,
    /// Licence line.
    pub licence: Option<String>,
    /// Link of the licence.
    pub licence_url: Option<String>,
    /// Interface language of the page (`en` or `fr`; default: the sources' language).
    pub lang: Option<String>,
}

/// A parsed configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The sources, in order.
    pub sources: Vec<Source>,
    /// The bundle page's texts.
    pub site: SitePage,
    /// The configuration file (for messages), if any.
    pub file: Option<PathBuf>,
}

// ---------------------------------------------------------------- raw TOML

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    site: SitePage,
    #[serde(default)]
    structure: Option<RawStructure>,
    #[serde(default)]
    source: Vec<RawSource>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawStructure {
    content: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    exercise: Option<String>,
    solution: Option<String>,
    statement: Option<String>,
    skip: Option<String>,
    exercise_classes: Option<Vec<String>>,
}

// No `deny_unknown_fields` with `flatten` (serde cannot combine them): `rule()` checks the
// flattened keys itself, naming any unknown one.
#[derive(Deserialize)]
struct RawSource {
    path: String,
    name: Option<String>,
    format: Option<String>,
    url: Option<String>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    rule: Vec<RawRule>,
    structure: Option<RawStructure>,
    #[serde(flatten)]
    fields: toml::Table,
}

#[derive(Deserialize)]
struct RawRule {
    #[serde(default)]
    pages: Vec<String>,
    #[serde(default)]
    skip: bool,
    #[serde(flatten)]
    fields: toml::Table,
}

fn cfg_err(file: &str, key: &str, message: impl Into<String>) -> IndexError {
    IndexError::Config {
        file: file.into(),
        key: key.into(),
        message: message.into(),
    }
}

fn regex(file: &str, key: &str, pattern: &str) -> Result<Regex, IndexError> {
    Regex::new(pattern).map_err(|e| cfg_err(file, key, format!("invalid pattern {pattern:?}: {e}")))
}

fn globs(file: &str, key: &str, pats: &[String]) -> Result<GlobSet, IndexError> {
    let mut b = GlobSetBuilder::new();
    for p in pats {
        let g = Glob::new(p.trim_start_matches("./"))
            .map_err(|e| cfg_err(file, key, format!("invalid glob {p:?}: {e}")))?;
        b.add(g);
    }
    b.build()
        .map_err(|e| cfg_err(file, key, format!("invalid globs: {e}")))
}

fn value_rule(file: &str, key: &str, v: &toml::Value) -> Result<ValueRule, IndexError> {
    match v {
        toml::Value::String(s) if !s.trim().is_empty() => Ok(ValueRule::Literal(s.trim().into())),
        toml::Value::Integer(i) => Ok(ValueRule::Literal(i.to_string())),
        toml::Value::Table(t) => {
            let s = |name: &str| -> Result<Option<String>, IndexError> {
                match t.get(name) {
                    None => Ok(None),
                    Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                    Some(_) => Err(cfg_err(file, &format!("{key}.{name}"), "expected a string")),
                }
            };
            for k in t.keys() {
                if !["path", "heading", "pattern", "value"].contains(&k.as_str()) {
                    return Err(cfg_err(
                        file,
                        &format!("{key}.{k}"),
                        "unknown key; a value rule is { path = 'REGEX' } or { heading = N, pattern = 'REGEX' }, with an optional value = '…$1…'",
                    ));
                }
            }
            let template = |re: &Regex| -> Result<String, IndexError> {
                Ok(s("value")?.unwrap_or_else(|| {
                    if re.captures_len() > 1 { "$1" } else { "$0" }.to_string()
                }))
            };
            match (t.get("path"), t.get("heading")) {
                (Some(_), None) => {
                    let pat = s("path")?.unwrap_or_default();
                    let pattern = regex(file, &format!("{key}.path"), &pat)?;
                    let template = template(&pattern)?;
                    Ok(ValueRule::Path { pattern, template })
                }
                (None, Some(toml::Value::Integer(l))) if (1..=6).contains(l) => {
                    let pat = s("pattern")?.ok_or_else(|| {
                        cfg_err(file, key, "a heading rule needs pattern = 'REGEX'")
                    })?;
                    let pattern = regex(file, &format!("{key}.pattern"), &pat)?;
                    let template = template(&pattern)?;
                    Ok(ValueRule::Heading {
                        level: *l as u8,
                        pattern,
                        template,
                    })
                }
                (None, Some(_)) => Err(cfg_err(file, &format!("{key}.heading"), "expected a heading level 1 to 6")),
                _ => Err(cfg_err(
                    file,
                    key,
                    "a value rule needs exactly one of path = 'REGEX' or heading = N",
                )),
            }
        }
        _ => Err(cfg_err(
            file,
            key,
            "expected a non-empty string, an integer, or a rule table { path = … } / { heading = N, pattern = … }",
        )),
    }
}

fn rule(
    file: &str,
    at: &str,
    pages: &[String],
    skip: bool,
    table: &toml::Table,
    extra_ok: &[&str],
) -> Result<Rule, IndexError> {
    let mut fields = Vec::new();
    let mut r = Rule {
        pages: None,
        pages_text: pages.to_vec(),
        fields: Vec::new(),
        exercise_doc_type: None,
        solution_doc_type: None,
        section_by: None,
        skip,
    };
    if !pages.is_empty() {
        r.pages = Some(globs(file, &format!("{at}.pages"), pages)?);
    }
    for (k, v) in table {
        let key = format!("{at}.{k}");
        if let Some(name) = RULE_FIELDS.iter().find(|f| **f == k.as_str()) {
            fields.push((*name, value_rule(file, &key, v)?));
            continue;
        }
        let string = || match v {
            toml::Value::String(s) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            _ => Err(cfg_err(file, &key, "expected a non-empty string")),
        };
        match k.as_str() {
            "exercise_doc_type" => r.exercise_doc_type = Some(string()?),
            "solution_doc_type" => r.solution_doc_type = Some(string()?),
            "section_by" => {
                r.section_by = Some(match string()?.as_str() {
                    "chapter" => SectionBy::Chapter,
                    "page" => SectionBy::Page,
                    "heading" => SectionBy::Heading,
                    other => {
                        return Err(cfg_err(
                            file,
                            &key,
                            format!("{other:?}: expected chapter, page or heading"),
                        ))
                    }
                })
            }
            other if extra_ok.contains(&other) => {}
            other => {
                let own = if at.contains(".rule[") {
                    "pages, skip"
                } else {
                    "path, name, format, url, exclude, rule, structure"
                };
                return Err(cfg_err(
                    file,
                    &key,
                    format!(
                        "unknown key {other:?}; valid: {own}, exercise_doc_type, solution_doc_type, section_by, {}",
                        RULE_FIELDS.join(", ")
                    ),
                ));
            }
        }
    }
    fields.sort_by_key(|(n, _)| RULE_FIELDS.iter().position(|f| f == n));
    r.fields = fields;
    Ok(r)
}

fn structure(
    file: &str,
    at: &str,
    raw: &RawStructure,
    base: &Structure,
) -> Result<Structure, IndexError> {
    let mut s = base.clone();
    if let Some(c) = &raw.content {
        for sel in c {
            scraper::Selector::parse(sel).map_err(|e| {
                cfg_err(
                    file,
                    &format!("{at}.content"),
                    format!("invalid CSS selector {sel:?}: {e}"),
                )
            })?;
        }
        s.content = c.clone();
    }
    if let Some(c) = &raw.ignore {
        for sel in c {
            scraper::Selector::parse(sel).map_err(|e| {
                cfg_err(
                    file,
                    &format!("{at}.ignore"),
                    format!("invalid CSS selector {sel:?}: {e}"),
                )
            })?;
        }
        s.ignore = c.clone();
    }
    for (name, slot, v) in [
        ("exercise", &mut s.exercise, &raw.exercise),
        ("solution", &mut s.solution, &raw.solution),
        ("statement", &mut s.statement, &raw.statement),
        ("skip", &mut s.skip, &raw.skip),
    ] {
        if let Some(p) = v {
            *slot = regex(file, &format!("{at}.{name}"), p)?;
        }
    }
    if let Some(c) = &raw.exercise_classes {
        s.exercise_classes = c.clone();
    }
    Ok(s)
}

impl Config {
    /// Reads and checks a configuration file; relative source paths are resolved against the
    /// file's folder.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_file(path: &Path) -> Result<Config, IndexError> {
        let text = std::fs::read_to_string(path).map_err(|e| IndexError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Config::from_text(&text, path)
    }

    /// Checks the text of the configuration file at `path` (as given on the command line:
    /// messages name it so); relative source paths are resolved against its folder.
    pub fn from_text(text: &str, path: &Path) -> Result<Config, IndexError> {
        let file = path.display().to_string();
        let base = path.parent().unwrap_or(Path::new("."));
        let mut c = Config::parse(text, &file, base)?;
        c.file = Some(path.to_path_buf());
        Ok(c)
    }

    /// Parses a configuration's text; `base` resolves relative source paths.
    pub fn parse(text: &str, file: &str, base: &Path) -> Result<Config, IndexError> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    format!(
                        "line {}",
                        text[..s.start.min(text.len())].lines().count().max(1)
                    )
                })
                .unwrap_or_default();
            cfg_err(file, &at, e.message().to_string())
        })?;
        if raw.source.is_empty() {
            return Err(cfg_err(
                file,
                "source",
                "no [[source]] table: name at least one folder of pages (path, subject, level, lang)",
            ));
        }
        let global = match &raw.structure {
            Some(s) => structure(file, "structure", s, &Structure::default())?,
            None => Structure::default(),
        };
        let mut sources = Vec::new();
        for (i, s) in raw.source.iter().enumerate() {
            let at = format!("source[{i}]");
            let format = match s.format.as_deref() {
                None | Some("html") => Format::Html,
                Some("markdown") | Some("md") => Format::Markdown,
                Some("docsify") => Format::Docsify(Default::default()),
                Some(other) => {
                    return Err(cfg_err(
                        file,
                        &format!("{at}.format"),
                        format!("{other:?}: expected \"html\", \"markdown\" or \"docsify\""),
                    ))
                }
            };
            let path = base.join(&s.path);
            let name = s.name.clone().unwrap_or_else(|| {
                Path::new(s.path.trim_end_matches('/'))
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| format!("site{}", i + 1))
            });
            let mut rules = Vec::new();
            for (j, r) in s.rule.iter().enumerate() {
                rules.push(rule(
                    file,
                    &format!("{at}.rule[{j}]"),
                    &r.pages,
                    r.skip,
                    &r.fields,
                    &[],
                )?);
            }
            let structure = match &s.structure {
                Some(st) => structure(file, &format!("{at}.structure"), st, &global)?,
                None => global.clone(),
            };
            sources.push(Source {
                name,
                path,
                format,
                url: s.url.clone(),
                exclude: globs(file, &format!("{at}.exclude"), &s.exclude)?,
                base: rule(file, &at, &[], false, &s.fields, &[])?,
                rules,
                structure,
                publishing: Publishing::default(),
            });
        }
        let mut names = std::collections::BTreeSet::new();
        for s in &sources {
            if !names.insert(s.name.clone()) {
                return Err(cfg_err(
                    file,
                    "source.name",
                    format!(
                        "two sources are named {:?}: give each a distinct name",
                        s.name
                    ),
                ));
            }
        }
        Ok(Config {
            sources,
            site: raw.site,
            file: None,
        })
    }

    /// The one-site configuration of `chsr index --site DIR --subject … --level … --lang …`.
    pub fn shorthand(s: &Shorthand) -> Result<Config, IndexError> {
        let mut table = toml::Table::new();
        for (k, v) in &s.fields {
            table.insert(k.to_string(), toml::Value::String(v.clone()));
        }
        let base = rule("command line", "--", &[], false, &table, &[])?;
        let name = s
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "site".into());
        Ok(Config {
            sources: vec![Source {
                name,
                path: s.path.clone(),
                format: if s.markdown {
                    Format::Markdown
                } else {
                    Format::Html
                },
                url: s.url.clone(),
                exclude: GlobSet::empty(),
                base,
                rules: Vec::new(),
                structure: Structure::default(),
                publishing: Publishing::default(),
            }],
            site: SitePage::default(),
            file: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_with_rules_parses_and_reports_bad_keys_by_name() {
        let text = r#"
[site]
title = "T"
[[source]]
path = "a"
subject = "maths"
level = "l1"
lang = "fr"
chapter = { path = '(\d+)_' }
[[source.rule]]
pages = ["exam/**"]
paper = { heading = 2, pattern = 'Sujet (\d+)', value = "sujet $1" }
exercise_doc_type = "past_paper_question"
"#;
        let c = Config::parse(text, "chsr.toml", Path::new("/x")).unwrap();
        let s = &c.sources[0];
        assert_eq!(s.name, "a");
        assert_eq!(s.path, Path::new("/x/a"));
        assert_eq!(s.base.fields.len(), 4);
        let ch = &s.base.fields.iter().find(|f| f.0 == "chapter").unwrap().1;
        assert_eq!(ch.for_path("T1/12_x/index.html").as_deref(), Some("12"));
        assert!(matches!(
            s.rules[0].fields[0].1,
            ValueRule::Heading { level: 2, .. }
        ));
        let bad = text.replace("exercise_doc_type", "exercice_doc_type");
        let e = Config::parse(&bad, "chsr.toml", Path::new("/x"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("chsr.toml") && e.contains("exercice_doc_type"),
            "{e}"
        );
        let e = Config::parse(
            "[[source]]\npath = 'a'\nyear = { path = '(' }\n",
            "c.toml",
            Path::new("."),
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("source[0].year.path") && e.contains("invalid pattern"),
            "{e}"
        );
        let e = Config::parse("[site]\n", "c.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains("no [[source]]"), "{e}");
    }
}
