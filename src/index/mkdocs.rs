//! MkDocs projects: a folder that holds `mkdocs.yml` is a project, not a site. Given as a built
//! site (`--site`, an HTML source), what is read is the site it builds (`site_dir`, `site/`
//! unless it says otherwise); given as Markdown sources (`--markdown`), its pages (`docs_dir`,
//! `docs/`): the project's own `README.md`, the files its pages include and its theme's
//! templates are not pages. Snippets are then looked for from the project's folder, as MkDocs
//! does ([`super::included_paths`]).

use super::config::{Config, Format};
use std::path::Path;

/// Where an MkDocs project keeps its pages and writes its site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// `docs_dir` (default `docs`).
    pub docs_dir: String,
    /// `site_dir` (default `site`).
    pub site_dir: String,
}

/// The folders `mkdocs.yml` names (its top-level `docs_dir` and `site_dir`, read line by line:
/// the file may hold tags such as `!!python/name:` that a YAML reader refuses).
pub fn project(yml: &str) -> Project {
    let key = |name: &str| {
        yml.lines().find_map(|l| {
            let v = l.strip_prefix(name)?.trim_start().strip_prefix(':')?;
            let v = v.split(" #").next().unwrap_or(v).trim();
            let v = v.trim_matches(['"', '\'']).trim_end_matches('/');
            (!v.is_empty()).then(|| v.to_string())
        })
    };
    Project {
        docs_dir: key("docs_dir").unwrap_or_else(|| "docs".into()),
        site_dir: key("site_dir").unwrap_or_else(|| "site".into()),
    }
}

impl Config {
    /// Reads `mkdocs.yml` (or `mkdocs.yaml`) in each HTML or Markdown source's folder with
    /// `read` (`None`: absent or unreadable) and, when the folder is an MkDocs project, points
    /// the source at its built site or at its pages ([`project`]).
    pub fn recognise_mkdocs(&mut self, read: impl Fn(&Path) -> Option<String>) {
        for s in &mut self.sources {
            if matches!(s.format, Format::Docsify(_)) {
                continue;
            }
            let yml = ["mkdocs.yml", "mkdocs.yaml"]
                .iter()
                .find_map(|f| read(&s.path.join(f)));
            if let Some(p) = yml.as_deref().map(project) {
                let folder = match s.format {
                    Format::Markdown => p.docs_dir,
                    _ => p.site_dir,
                };
                s.path = s.path.join(folder);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folders_mkdocs_yml_names_or_its_defaults() {
        let yml = "site_name: NSI\ndocs_dir: 'cours/'  # the pages\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n";
        let p = project(yml);
        assert_eq!(
            (p.docs_dir.as_str(), p.site_dir.as_str()),
            ("cours", "site")
        );
        let q = project("site_name: x\n  docs_dir: nested, not top level\n");
        assert_eq!(q.docs_dir, "docs");
    }
}
