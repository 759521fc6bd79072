//! The command line's ways of saying what to index: `--config FILE`, or one site given by its
//! folder and scope values.

use super::{Config, IndexError};
use std::path::{Path, PathBuf};

/// What the command line gives for the one-site shorthand (`chsr index --site DIR …`).
#[derive(Clone, Debug, Default)]
pub struct Shorthand {
    /// The folder.
    pub path: PathBuf,
    /// Markdown sources instead of built HTML.
    pub markdown: bool,
    /// `(field, value)` pairs: subject, level, lang, doc_type… as given.
    pub fields: Vec<(&'static str, String)>,
    /// Where the site is served.
    pub url: Option<String>,
}

/// What the command line says to index: `--config FILE`, or the one-site shorthand (`--site DIR`
/// or `--markdown DIR` with `--subject`, `--level`, `--lang`, `--doc-type`, `--url`).
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--site`.
    pub site: Option<PathBuf>,
    /// `--markdown`.
    pub markdown: Option<PathBuf>,
    /// `--subject`.
    pub subject: Option<String>,
    /// `--level`.
    pub level: Option<String>,
    /// `--lang`.
    pub lang: Option<String>,
    /// `--doc-type`.
    pub doc_type: Option<String>,
    /// `--url`.
    pub url: Option<String>,
}

impl Args {
    /// The configuration the arguments give; `read` reads the configuration file's text, each
    /// source's site generator configuration ([`Config::recognise_projects`]) and each HTML or
    /// Docsify source's `index.html` ([`Config::recognise_docsify`]).
    pub fn config(
        &self,
        read: impl Fn(&Path) -> Result<String, IndexError>,
    ) -> Result<Config, IndexError> {
        let mut cfg = self.config_only(&read)?;
        cfg.recognise_projects(|p| read(p).ok())?;
        cfg.recognise_docsify(|p| read(p).ok());
        Ok(cfg)
    }

    fn config_only(
        &self,
        read: impl Fn(&Path) -> Result<String, IndexError>,
    ) -> Result<Config, IndexError> {
        let usage = |m: &str| IndexError::Usage { message: m.into() };
        if let Some(c) = &self.config {
            if self.subject.is_some()
                || self.level.is_some()
                || self.lang.is_some()
                || self.url.is_some()
            {
                return Err(usage("--subject/--level/--lang/--url go with --site or --markdown; with --config, set them in the config"));
            }
            return Config::from_text(&read(c)?, c);
        }
        let Some(path) = self.site.clone().or(self.markdown.clone()) else {
            return Err(usage(
                "say what to index: --config chsr.toml, --site DIR (built HTML) or --markdown DIR",
            ));
        };
        let mut fields = Vec::new();
        for (k, v) in [
            ("subject", &self.subject),
            ("level", &self.level),
            ("lang", &self.lang),
            ("doc_type", &self.doc_type),
        ] {
            if let Some(v) = v {
                fields.push((k, v.clone()));
            }
        }
        Config::shorthand(&Shorthand {
            path,
            markdown: self.markdown.is_some(),
            fields,
            url: self.url.clone(),
        })
    }
}
