//! A multilingual Hugo site's languages, read from its configuration: which language each page
//! of its sources is in and where Hugo serves it.
//!
//! Hugo translates a page **by its file's name** (`cours.fr.md` beside `cours.en.md`, the
//! language a code its configuration lists) or **by content folder** (a language's own
//! `contentDir`). A page whose name names no language is in the site's default language
//! (`defaultContentLanguage`, English unless set). Every language but the default is served
//! under its code (`/fr/cours/`), the default too with `defaultContentLanguageInSubdir = true`.
//! Read so, a page's language is what its built copy's `<html lang>` says, and its address the
//! one Hugo gives it.

use super::projects::key;
use std::borrow::Cow;

/// A Hugo site's languages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Languages {
    /// The codes its configuration lists (`en`, `fr`, `pt-br`), lower case, in its order.
    pub codes: Vec<String>,
    /// The default content language (`defaultContentLanguage`; `en` unless set).
    pub default: String,
    /// Whether the default language is served under its code too
    /// (`defaultContentLanguageInSubdir = true`).
    pub default_in_subdir: bool,
    /// The language of the content folder read, when it is a language's own `contentDir`.
    pub folder: Option<String>,
    /// The languages' own content folders (`fr`, `content/fr`), from the project's folder.
    pub dirs: Vec<(String, String)>,
    /// The folder that holds every language's own content folder, when they are its children
    /// (`content` of `content/en` and `content/fr`), from the project's folder: then it is the
    /// folder read, and [`Self::by_folder`] names each child's language.
    pub parent: Option<String>,
    /// The children of [`Self::parent`] that are content folders, each with its language
    /// (`english` and `en` for `content/english`), when that folder is read: a page under one
    /// is in its language.
    pub by_folder: Vec<(String, String)>,
}

/// One language of a configuration: its code and its own content folder, if it has one.
#[derive(Debug, PartialEq, Eq)]
pub struct Language {
    /// Its code, lower case.
    pub code: String,
    /// Its `contentDir`, if it has one.
    pub content_dir: Option<String>,
}

impl Languages {
    /// The language of the page at `rel` (a path in the content folder) and that path without
    /// the language in its file's name (`a/cours.fr.md` → `fr`, `a/cours.md`).
    pub fn of<'a, 'r>(&'a self, rel: &'r str) -> (&'a str, Cow<'r, str>) {
        // In the folder of every language's content folder, the page's is its first folder.
        let under = rel.split_once('/').and_then(|(top, rest)| {
            let (_, code) = self.by_folder.iter().find(|(dir, _)| dir == top)?;
            Some((code.as_str(), rest))
        });
        let (folder_lang, rel) = match under {
            Some((code, rest)) => (Some(code), rest),
            None => (self.folder.as_deref(), rel),
        };
        let (folder, name) = rel.rsplit_once('/').map_or(("", rel), |(f, n)| (f, n));
        let named = name.rsplit_once('.').and_then(|(stem, ext)| {
            let (page, code) = stem.rsplit_once('.')?;
            let code = self.codes.iter().find(|c| c.eq_ignore_ascii_case(code))?;
            let sep = if folder.is_empty() { "" } else { "/" };
            Some((code.as_str(), format!("{folder}{sep}{page}.{ext}")))
        });
        match named {
            Some((code, path)) => (code, path.into()),
            None => (folder_lang.unwrap_or(&self.default), rel.into()),
        }
    }

    /// The language whose own content folder is `dir` (a path from the project's folder), if
    /// one is.
    pub fn of_folder(&self, dir: &str) -> Option<&str> {
        let dir = dir.trim_end_matches('/');
        let dir = dir.strip_prefix("./").unwrap_or(dir);
        let child = || {
            let (parent, name) = dir.rsplit_once('/')?;
            (self.parent.as_deref() == Some(parent)).then_some(())?;
            let (_, code) = self.by_folder.iter().find(|(d, _)| d == name)?;
            Some(code.as_str())
        };
        (self.dirs.iter())
            .find(|(_, d)| d.trim_end_matches('/').trim_start_matches("./") == dir)
            .map(|(code, _)| code.as_str())
            .or_else(child)
    }

    /// The own content folder of language `code`, if it has one.
    fn of_folder_code(&self, code: &str) -> Option<&str> {
        (self.dirs.iter())
            .find(|(c, _)| c == code)
            .map(|(_, d)| d.as_str())
    }

    /// The folder Hugo serves the pages of language `code` under (`fr/`), empty for the default
    /// language served at the root.
    pub fn prefix(&self, code: &str) -> String {
        if code == self.default && !self.default_in_subdir {
            String::new()
        } else {
            format!("{code}/")
        }
    }
}

/// The languages of a Hugo site whose configuration is `config` (and `languages_file`, as
/// [`listed`] reads it) and whose content folder is `content`, or `None` when it lists none.
/// When every language has a content folder of its own (its `contentDir`, or `content` for
/// one without) and they are the children of one folder, that folder is read
/// ([`Languages::parent`]); otherwise `content` is, one language's folder if it is one.
pub fn hugo(config: &str, languages_file: Option<&str>, content: &str) -> Option<Languages> {
    let listed = listed(config, languages_file);
    if listed.is_empty() {
        return None;
    }
    let default =
        key(config, "defaultContentLanguage").map_or("en".into(), |d| d.to_ascii_lowercase());
    let in_subdir = key(config, "defaultContentLanguageInSubdir").is_some_and(|v| v == "true");
    let mut languages = Languages {
        dirs: (listed.iter())
            .filter_map(|l| Some((l.code.clone(), l.content_dir.clone()?)))
            .collect(),
        codes: listed.into_iter().map(|l| l.code).collect(),
        default,
        default_in_subdir: in_subdir,
        folder: None,
        parent: None,
        by_folder: Vec::new(),
    };
    let clean = |d: &str| d.trim_start_matches("./").trim_end_matches('/').to_string();
    let dirs: Vec<String> = (languages.codes.iter())
        .map(|code| languages.of_folder_code(code).unwrap_or(content))
        .map(clean)
        .collect();
    let split: Vec<Option<(&str, &str)>> = dirs.iter().map(|d| d.rsplit_once('/')).collect();
    let parent = split.first().copied().flatten().map(|(p, _)| p);
    let children = parent
        .is_some_and(|p| !p.is_empty() && split.iter().all(|s| s.is_some_and(|(q, _)| q == p)));
    let mut names: Vec<&str> = split.iter().flatten().map(|(_, name)| *name).collect();
    names.sort_unstable();
    names.dedup();
    if dirs.len() >= 2 && children && names.len() == dirs.len() {
        languages.by_folder = (split.iter().flatten().zip(&languages.codes))
            .map(|((_, name), code)| (name.to_string(), code.clone()))
            .collect();
        languages.parent = parent.map(str::to_string);
    } else {
        languages.folder = languages.of_folder(content).map(str::to_string);
    }
    Some(languages)
}

/// The languages a Hugo configuration lists, in its order: TOML tables (`[languages.fr]`,
/// `[Languages.fr.params]`) or a YAML mapping (`languages:` then `  fr:`), each with its
/// `contentDir` if it has one. `languages_file` is Hugo's `config/_default/languages.toml` or
/// `.yaml`, whose top-level tables or keys are the languages.
pub fn listed(config: &str, languages_file: Option<&str>) -> Vec<Language> {
    let mut out: Vec<Language> = Vec::new();
    let add = |code: &str, content_dir: Option<String>, out: &mut Vec<Language>| {
        let code = code.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
        let valid = !code.is_empty()
            && code.len() <= 12
            && code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return;
        }
        match out.iter_mut().find(|l| l.code == code) {
            Some(l) => l.content_dir = l.content_dir.take().or(content_dir),
            None => out.push(Language { code, content_dir }),
        }
    };
    for (text, under) in [
        (config, Some("languages")),
        (languages_file.unwrap_or(""), None),
    ] {
        // TOML: the table a line opens, and its `contentDir`.
        let mut table: Option<String> = None;
        // YAML: the indentation of the languages' keys, and the current language.
        let mut yaml: Option<(usize, Option<String>)> = None;
        for line in text.lines() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let indent = line.len() - line.trim_start().len();
            if let Some(header) = t.strip_prefix('[') {
                let header = header.trim_start_matches('[');
                let header = header.split(']').next().unwrap_or_default();
                let mut parts = header.split('.');
                table = match under {
                    Some(u)
                        if parts
                            .next()
                            .is_some_and(|p| p.trim().eq_ignore_ascii_case(u)) =>
                    {
                        parts.next().map(str::to_string)
                    }
                    Some(_) => None,
                    None => parts.next().map(str::to_string),
                };
                let deeper = header.split('.').count() > if under.is_some() { 2 } else { 1 };
                if let Some(code) = &table {
                    if !deeper {
                        add(code, None, &mut out);
                    }
                }
                yaml = None;
                continue;
            }
            if let Some(code) = &table {
                if let Some(dir) = key(t, "contentDir") {
                    add(code, Some(dir), &mut out);
                }
                continue;
            }
            // YAML.
            match (&mut yaml, under) {
                (None, Some(u)) if indent == 0 && key(t, u).is_none() && is_key(t, u) => {
                    yaml = Some((usize::MAX, None));
                }
                (None, None) if indent == 0 => {
                    if let Some((code, _)) = t.split_once(':') {
                        add(code, None, &mut out);
                        yaml = Some((0, Some(code.to_string())));
                    }
                }
                (Some((at, current)), _) => {
                    if under.is_some() && indent == 0 {
                        yaml = None;
                        continue;
                    }
                    if *at == usize::MAX {
                        *at = indent;
                    }
                    if indent == *at {
                        if let Some((code, _)) = t.split_once(':') {
                            add(code, None, &mut out);
                            *current = Some(code.to_string());
                        }
                    } else if indent > *at {
                        if let (Some(code), Some(dir)) = (current.as_deref(), key(t, "contentDir"))
                        {
                            add(code, Some(dir), &mut out);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Whether a line opens key `name` (`languages:` or `languages =`), any case.
pub(crate) fn is_key(line: &str, name: &str) -> bool {
    line.get(..name.len())
        .is_some_and(|k| k.eq_ignore_ascii_case(name))
        && line[name.len()..].trim_start().starts_with([':', '='])
}

/// `LANG/404.html`, LANG a language tag (`ur`, `fr`, `pt-BR`, `zh_CN`): a translation's 404 page.
pub fn language_404(rel: &str) -> bool {
    let Some(lang) = rel.strip_suffix("/404.html") else {
        return false;
    };
    let mut parts = lang.splitn(2, ['-', '_']);
    let primary = parts.next().unwrap_or("");
    let region = parts.next();
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_lowercase())
        && region.is_none_or(|r| {
            (2..=4).contains(&r.len()) && r.bytes().all(|b| b.is_ascii_alphanumeric())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(config: &str, file: Option<&str>) -> Vec<(String, Option<String>)> {
        listed(config, file)
            .into_iter()
            .map(|l| (l.code, l.content_dir))
            .collect()
    }

    #[test]
    fn languages_from_toml_tables_yaml_and_a_languages_file() {
        let toml =
            "baseURL = '/'\n[params]\n  x = 1\n[Languages]\n[Languages.en]\ntitle = 'Docs'\n\
                    [[Languages.en.menu.shortcuts]]\nname = 'x'\n[Languages.fr]\ntitle = 'Docs'\n\
                    [Languages.fr.params]\n[outputs]\nhome = ['HTML']\n";
        assert_eq!(
            codes(toml, None),
            [("en".to_string(), None), ("fr".to_string(), None)]
        );
        let dirs = "[languages.fr]\n  contentDir = 'content/fr' # French\n[languages.en]\n  contentDir = \"content/en\"\n";
        assert_eq!(
            codes(dirs, None),
            [
                ("fr".to_string(), Some("content/fr".to_string())),
                ("en".to_string(), Some("content/en".to_string()))
            ]
        );
        let yaml = "baseURL: /\nlanguages:\n  fr:\n    weight: 1\n    contentDir: contenu\n    params:\n      x: 1\n  en:\n    weight: 2\ntitle: x\nmenu:\n  en: 1\n";
        assert_eq!(
            codes(yaml, None),
            [
                ("fr".to_string(), Some("contenu".to_string())),
                ("en".to_string(), None)
            ]
        );
        let file = "[en]\nweight = 1\n[en.params]\n[fr]\ncontentDir = 'fr'\n";
        assert_eq!(
            codes("baseURL = '/'\n", Some(file)),
            [
                ("en".to_string(), None),
                ("fr".to_string(), Some("fr".to_string()))
            ]
        );
        let file = "en:\n  weight: 1\nfr:\n  contentDir: fr\n";
        assert_eq!(
            codes("", Some(file)),
            [
                ("en".to_string(), None),
                ("fr".to_string(), Some("fr".to_string()))
            ]
        );
        // A site without languages, or one naming them elsewhere.
        assert!(codes(
            "baseURL = '/'\nlanguageCode = 'fr'\n[params]\nlanguages = 2\n",
            None
        )
        .is_empty());
    }

    #[test]
    fn a_page_in_the_language_its_file_names_served_under_its_code() {
        let langs = Languages {
            codes: vec!["en".into(), "fr".into()],
            default: "en".into(),
            default_in_subdir: false,
            folder: None,
            dirs: Vec::new(),
            parent: None,
            by_folder: Vec::new(),
        };
        assert_eq!(
            langs.of("cours/piles.fr.md"),
            ("fr", "cours/piles.md".into())
        );
        assert_eq!(langs.of("_index.FR.md"), ("fr", "_index.md".into()));
        assert_eq!(
            langs.of("cours/piles.en.md"),
            ("en", "cours/piles.md".into())
        );
        // No code, or one the site does not list: the default language.
        assert_eq!(langs.of("cours/piles.md"), ("en", "cours/piles.md".into()));
        assert_eq!(langs.of("cours/v1.2.md"), ("en", "cours/v1.2.md".into()));
        assert_eq!(langs.prefix("fr"), "fr/");
        assert_eq!(langs.prefix("en"), "");
        let sub = Languages {
            default_in_subdir: true,
            folder: Some("fr".into()),
            ..langs
        };
        assert_eq!(sub.prefix("en"), "en/");
        // A language's own content folder: its pages are in its language.
        assert_eq!(sub.of("cours/piles.md"), ("fr", "cours/piles.md".into()));
    }

    #[test]
    fn the_folder_of_every_languages_content_folder_has_each_page_in_its_folders_language() {
        let yaml = "contentDir: content/en\nlanguages:\n  en:\n    title: Docs\n  no:\n    \
                    contentDir: content/no\n  fa:\n    contentDir: ./content/fa/\n";
        let l = hugo(yaml, None, "content/en").expect("languages");
        assert_eq!(l.parent.as_deref(), Some("content"));
        assert_eq!(l.folder, None);
        assert_eq!(l.of("no/docs/x.md"), ("no", "docs/x.md".into()));
        assert_eq!(l.of("en/docs/x.md"), ("en", "docs/x.md".into()));
        // A translation by file name inside a folder; a page beside the folders.
        assert_eq!(l.of("en/docs/x.fa.md"), ("fa", "docs/x.md".into()));
        assert_eq!(l.of("_index.md"), ("en", "_index.md".into()));
        assert_eq!(l.of_folder("content/en"), Some("en"));
        assert_eq!(l.of_folder("content/fa"), Some("fa"));
        // Folders that are not all children of one folder, or the same folder twice: the
        // project's `contentDir` alone is read.
        for (content, other) in [
            (
                "content",
                "languages:\n  en:\n    title: Docs\n  fr:\n    contentDir: content/fr\n",
            ),
            (
                "en",
                "languages:\n  en:\n    title: Docs\n  fr:\n    contentDir: fr\n",
            ),
            (
                "c/fr",
                "languages:\n  en:\n    title: Docs\n  fr:\n    contentDir: c/fr\n",
            ),
        ] {
            let l = hugo(other, None, content).expect("languages");
            assert_eq!((l.parent, l.by_folder.len()), (None, 0), "{other}");
        }
    }
}
