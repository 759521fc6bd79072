//! `chsr index` for JavaScript (wasm32, feature `indexer`): the I/O-free core behind the npm
//! package's `bin/chsr.mjs`, which walks the folders, reads and writes the files, and calls
//! [`ChsrIndexer`] in the order the native [`run`](super) does, so both write the same bytes.
//!
//! ```js
//! const ix = new ChsrIndexer(args, (file) => fs.readFileSync(file, 'utf8'), skipUnscoped);
//! const pages = ix.sources().map((s, i) => ix.checkPages(i, isFolder, listed(s.path, s.extensions)));
//! ix.setBaseUrl(i, ix.configuredUrl(i) ?? relativeUrl(realOut, realSource));
//! for (const rel of pages) ix.addPage(i, rel, ix.wants(i, rel) ? fs.readFileSync(file) : undefined);
//! ix.build(undefined, '');            // lexical shards
//! for (const f of ix.outputFiles()) write(f, ix.outputFile(f)); write('manifest.json', ix.manifestJson());
//! ```

use super::config::{Args, Config, Format};
use super::html::Reader;
use super::report::{self, Report};
use super::{
    bundle, configured_url, page_extensions, publishing, read_page, skip_reason, IndexError,
    Indexed,
};
use crate::build::BuildOutput;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wasm_bindgen::prelude::*;

fn js_err(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

fn to_js<T: serde::Serialize>(v: &T) -> Result<JsValue, JsError> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(js_err)
}

/// The command line's arguments, as `bin/chsr.mjs` parses them (absent or `null` when not given).
#[derive(serde::Deserialize, Default)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct JsArgs {
    config: Option<String>,
    site: Option<String>,
    markdown: Option<String>,
    subject: Option<String>,
    level: Option<String>,
    lang: Option<String>,
    doc_type: Option<String>,
    url: Option<String>,
}

/// A source as JavaScript needs it to find its pages.
#[derive(serde::Serialize)]
struct JsSource {
    name: String,
    /// The folder, as the configuration (or the command line) gives it: relative to the
    /// working directory, or absolute.
    path: String,
    format: &'static str,
    /// Page file endings (lowercase).
    extensions: &'static [&'static str],
}

/// One run of `chsr index`: the configuration, the pages read so far, then the shards.
#[wasm_bindgen]
pub struct ChsrIndexer {
    cfg: Config,
    readers: Vec<Reader>,
    base_urls: Vec<Option<String>>,
    skip_unscoped: bool,
    indexed: Indexed,
    output: Option<BuildOutput>,
    warnings: Vec<String>,
    report: Option<Report>,
    /// The caller's `read(file)`: the bytes (or text) of the configuration file, a Docsify
    /// shell, a snippet's file.
    read: js_sys::Function,
}

/// What the caller's `read(file)` returned: a file's bytes (a `Uint8Array`, such as Node's
/// `Buffer`), or its text.
fn file_bytes(v: JsValue) -> Option<Vec<u8>> {
    match v.as_string() {
        Some(text) => Some(text.into_bytes()),
        None => v
            .is_instance_of::<js_sys::Uint8Array>()
            .then(|| js_sys::Uint8Array::new(&v).to_vec()),
    }
}

#[wasm_bindgen]
impl ChsrIndexer {
    /// Reads the command line's arguments (`{config, site, markdown, subject, level, lang,
    /// docType, url}`); `read(file)` returns a file's bytes (the configuration, a Docsify site's
    /// `index.html`, a file a Markdown source includes; its text will do), or throws.
    #[wasm_bindgen(constructor)]
    pub fn new(
        args: JsValue,
        read: &js_sys::Function,
        skip_unscoped: bool,
    ) -> Result<ChsrIndexer, JsError> {
        let a: JsArgs = serde_wasm_bindgen::from_value(args).map_err(js_err)?;
        let args = Args {
            config: a.config.map(PathBuf::from),
            site: a.site.map(PathBuf::from),
            markdown: a.markdown.map(PathBuf::from),
            subject: a.subject,
            level: a.level,
            lang: a.lang,
            doc_type: a.doc_type,
            url: a.url,
        };
        let js_read = read.clone();
        let read = |p: &Path| -> Result<String, IndexError> {
            let path = p.display().to_string();
            let io = |message: String| IndexError::Io {
                path: path.clone(),
                message,
            };
            let v = read
                .call1(&JsValue::NULL, &JsValue::from_str(&path))
                .map_err(|e| {
                    io(js_sys::Error::from(e)
                        .message()
                        .as_string()
                        .unwrap_or_default())
                })?;
            let bytes = file_bytes(v).ok_or_else(|| io("read(file) returned no bytes".into()))?;
            String::from_utf8(bytes).map_err(|_| io("stream did not contain valid UTF-8".into()))
        };
        let cfg = args.config(read).map_err(js_err)?;
        let readers = cfg
            .sources
            .iter()
            .map(|s| Reader::new(&s.structure))
            .collect();
        Ok(ChsrIndexer {
            base_urls: vec![None; cfg.sources.len()],
            cfg,
            readers,
            skip_unscoped,
            indexed: Indexed::default(),
            output: None,
            warnings: Vec::new(),
            report: None,
            read: js_read,
        })
    }

    /// The sources, in order: `[{name, path, format, extensions}]`.
    pub fn sources(&self) -> Result<JsValue, JsError> {
        let v: Vec<JsSource> = self
            .cfg
            .sources
            .iter()
            .map(|s| JsSource {
                name: s.name.clone(),
                path: s.path.display().to_string(),
                format: match s.format {
                    Format::Html => "html",
                    Format::Markdown => "markdown",
                    Format::Docsify(_) => "docsify",
                },
                extensions: page_extensions(s),
            })
            .collect();
        to_js(&v)
    }

    /// Whether the folder at `rel` in source `i` is looked into for pages
    /// ([`publishing::walks`]).
    #[wasm_bindgen(js_name = walksFolder)]
    pub fn walks_folder(&self, i: usize, rel: &str) -> Result<bool, JsError> {
        Ok(publishing::walks(&self.source(i)?.publishing, rel))
    }

    /// The pages of source `i` among the files listed (`pages`, found with its `extensions`
    /// and [`Self::walks_folder`], sorted): those [`super::pages_found`] keeps. Throws the
    /// native CLI's error when its path is not a folder, or when it holds no page.
    #[wasm_bindgen(js_name = checkPages)]
    pub fn check_pages(
        &self,
        i: usize,
        is_folder: bool,
        pages: Vec<String>,
    ) -> Result<Vec<String>, JsError> {
        let s = self.source(i)?;
        if !is_folder {
            return Err(js_err(super::not_a_folder(s)));
        }
        super::pages_found(s, pages).map_err(js_err)
    }

    /// Where source `i` is served as configured (its `url`, ending in `/`), or `undefined`:
    /// then it is relative to the bundle ([`relative_url`]).
    #[wasm_bindgen(js_name = configuredUrl)]
    pub fn configured_url(&self, i: usize) -> Result<Option<String>, JsError> {
        Ok(configured_url(self.source(i)?))
    }

    /// Sets where source `i` is served (ending in `/`).
    #[wasm_bindgen(js_name = setBaseUrl)]
    pub fn set_base_url(&mut self, i: usize, url: String) -> Result<(), JsError> {
        self.source(i)?;
        self.base_urls[i] = Some(url);
        Ok(())
    }

    /// Whether page `rel` of source `i` is read (not left out by `exclude` or a `skip` rule):
    /// only then does [`Self::add_page`] need its bytes.
    pub fn wants(&self, i: usize, rel: &str) -> Result<bool, JsError> {
        Ok(skip_reason(self.source(i)?, rel).is_none())
    }

    /// Reads page `rel` (a `/`-separated path in source `i`; `bytes`: the file, `undefined`
    /// when [`Self::wants`] said no). Pages come in order: sources in order, pages sorted.
    #[wasm_bindgen(js_name = addPage)]
    pub fn add_page(&mut self, i: usize, rel: &str, bytes: Option<Vec<u8>>) -> Result<(), JsError> {
        let source = self.cfg.sources.get(i).ok_or_else(|| no_source(i))?;
        let base = self.base_urls[i]
            .as_deref()
            .ok_or_else(|| JsError::new("setBaseUrl first"))?;
        let load = || {
            bytes.ok_or_else(|| IndexError::Build {
                message: format!("{}: bytes not given", super::page_name(source, rel)),
            })
        };
        let include = |p: &Path| {
            let path = JsValue::from_str(&p.display().to_string());
            let bytes = file_bytes(self.read.call1(&JsValue::NULL, &path).ok()?)?;
            Some(super::charset::decode(bytes).0)
        };
        let page = read_page(
            source,
            &self.readers[i],
            base,
            rel,
            load,
            &include,
            self.skip_unscoped,
        )
        .map_err(js_err)?;
        self.indexed.add(page);
        Ok(())
    }

    /// Chunks read so far.
    #[wasm_bindgen(js_name = chunkCount)]
    pub fn chunk_count(&self) -> usize {
        self.indexed.chunks.len()
    }

    /// The error message when no page gave any text (`report_given`: `--report` was given).
    #[wasm_bindgen(js_name = nothingIndexedError)]
    pub fn nothing_indexed_error(&self, report_given: bool) -> String {
        report::nothing_indexed_error(&self.indexed, report_given).to_string()
    }

    /// Builds the shards: lexical, or with the dense path when `model` (a `.chsrm` file's bytes,
    /// named `model_path` in messages) is given.
    pub fn build(&mut self, model: Option<Vec<u8>>, model_path: &str) -> Result<(), JsError> {
        // Every page is in: duplicates and lesson folders can be told (as `read_sources` does
        // natively).
        self.indexed.settle();
        let output = report::shards(&self.indexed, model.as_deref())
            .map_err(|e| JsError::new(&format!("{model_path}: {e}")))?;
        self.warnings = report::warnings(&self.indexed, &output);
        self.output = Some(output);
        Ok(())
    }

    /// The shard folder's files besides `manifest.json`, in the order `chsr build` writes them
    /// (each shard, its dense part, then the model and the term-filter file).
    #[wasm_bindgen(js_name = outputFiles)]
    pub fn output_files(&self) -> Result<Vec<String>, JsError> {
        let out = self.output()?;
        let mut v: Vec<String> = out
            .shards
            .iter()
            .flat_map(|s| s.files().into_iter().map(|(f, _)| f.to_string()))
            .collect();
        v.extend(out.extra_files().into_iter().map(|(f, _)| f.to_string()));
        Ok(v)
    }

    /// The bytes of one of [`Self::output_files`].
    #[wasm_bindgen(js_name = outputFile)]
    pub fn output_file(&self, name: &str) -> Result<Vec<u8>, JsError> {
        let out = self.output()?;
        for s in &out.shards {
            if let Some((_, b)) = s.files().into_iter().find(|(f, _)| *f == name) {
                return Ok(b.to_vec());
            }
        }
        match out.extra_files().into_iter().find(|(f, _)| *f == name) {
            Some((_, b)) => Ok(b.to_vec()),
            None => Err(JsError::new(&format!("no output file {name}"))),
        }
    }

    /// `manifest.json`'s text.
    #[wasm_bindgen(js_name = manifestJson)]
    pub fn manifest_json(&self) -> Result<String, JsError> {
        Ok(self.output()?.manifest.to_json())
    }

    /// Adds a warning (e.g. no Wasm package for the bundle).
    #[wasm_bindgen(js_name = addWarning)]
    pub fn add_warning(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    /// The search page's interface language.
    pub fn lang(&self) -> String {
        report::interface_lang(&self.cfg.site, &self.indexed.chunks)
    }

    /// The bundle's files besides the shards and the Wasm package, in the order they are
    /// written: `[{name, text}]`, `text` `null` for a browser file the package ships.
    #[wasm_bindgen(js_name = bundleFiles)]
    pub fn bundle_files(&self) -> Result<JsValue, JsError> {
        let files: Vec<BTreeMap<&str, Option<String>>> =
            bundle::files(&self.cfg.site, &self.lang())
                .into_iter()
                .map(|(name, text)| {
                    BTreeMap::from([("name", Some(name.to_string())), ("text", text)])
                })
                .collect();
        to_js(&files)
    }

    /// The chunks as JSONL (`--emit-chunks`).
    #[wasm_bindgen(js_name = chunksJsonl)]
    pub fn chunks_jsonl(&self) -> String {
        report::chunks_jsonl(&self.indexed.chunks)
    }

    /// Makes the report once everything is written: `bundle_files` as written (relative to the
    /// bundle), `seconds` as `{step: seconds}`, `dense` whether a model was used.
    pub fn finish(
        &mut self,
        bundle_files: Vec<String>,
        seconds: JsValue,
        dense: bool,
    ) -> Result<(), JsError> {
        let seconds: BTreeMap<String, f64> =
            serde_wasm_bindgen::from_value(seconds).map_err(js_err)?;
        let mut r = Report::new(&self.indexed, self.warnings.clone(), dense, bundle_files);
        r.seconds = seconds;
        self.report = Some(r);
        Ok(())
    }

    /// The report's text (`--report`): the final one after [`Self::finish`], else the report of
    /// a run that indexed nothing. `json`: see [`report_is_json`].
    #[wasm_bindgen(js_name = reportText)]
    pub fn report_text(&self, json: bool) -> String {
        match &self.report {
            Some(r) => r.text(json),
            None => Report::nothing_indexed(&self.indexed).text(json),
        }
    }

    /// The lines printed when done (see `Report::summary`); `out` as given on the command line.
    pub fn summary(&self, out: &str, report_given: bool) -> Result<Vec<String>, JsError> {
        let r = self
            .report
            .as_ref()
            .ok_or_else(|| JsError::new("finish first"))?;
        Ok(r.summary(out, report_given))
    }
}

impl ChsrIndexer {
    fn source(&self, i: usize) -> Result<&super::config::Source, JsError> {
        self.cfg.sources.get(i).ok_or_else(|| no_source(i))
    }

    fn output(&self) -> Result<&BuildOutput, JsError> {
        self.output
            .as_ref()
            .ok_or_else(|| JsError::new("build first"))
    }
}

fn no_source(i: usize) -> JsError {
    JsError::new(&format!("no source {i}"))
}

/// The relative URL from folder `from` to folder `to` (both canonical: `fs.realpathSync`),
/// ending in `/`, as the native CLI computes it.
#[wasm_bindgen(js_name = relativeUrl)]
pub fn relative_url(from: &str, to: &str) -> String {
    super::relative_url_between(Path::new(from), Path::new(to))
}

/// Whether `--report FILE` writes JSON (the file's extension is `json`).
#[wasm_bindgen(js_name = reportIsJson)]
pub fn report_is_json(file: &str) -> bool {
    report::is_json_report(Path::new(file))
}

/// The Wasm package files the bundle needs ([`bundle::PKG_FILES`]), and those it copies when
/// present (with the types).
#[wasm_bindgen(js_name = pkgFiles)]
pub fn pkg_files(copied: bool) -> Vec<String> {
    let list = if copied {
        bundle::PKG_COPIED
    } else {
        bundle::PKG_FILES
    };
    list.iter().map(|s| s.to_string()).collect()
}

/// The text the bundle ships for the browser file `name` (`bundle::shipped_text`: a JavaScript
/// module compacted, anything else as it is), so that the npm package writes the CLI's bytes.
#[wasm_bindgen(js_name = shippedText)]
pub fn shipped_text(name: &str, text: &str) -> String {
    bundle::shipped_text(name, text)
}

/// The error for a `--pkg` folder that holds no Wasm package.
#[wasm_bindgen(js_name = notAPkg)]
pub fn not_a_pkg(path: &str) -> String {
    bundle::not_a_pkg(path).to_string()
}

/// The names of the browser files a bundle gets (`bundle::ASSET_NAMES`: the `<chsr-search>` element,
/// the client, their modules, CSS and types); the npm package ships them beside `bin/`.
#[wasm_bindgen(js_name = assetNames)]
pub fn asset_names() -> Vec<String> {
    bundle::ASSET_NAMES.iter().map(|n| n.to_string()).collect()
}
