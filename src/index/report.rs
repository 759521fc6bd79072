//! The whole of `chsr index` (native): read the sources, build the shards, write the bundle, the
//! chunks (`--emit-chunks`) and the build report (`--report`).

use super::config::Config;
use super::{base_url, bundle, pkg_candidates, read_sources, IndexError, Indexed};
use crate::build::{build, build_with_model_file, write_output, BuildOptions};
use crate::corpus::SourcedChunk;
use crate::format::ChunkRecord;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of a run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The bundle folder.
    pub out: PathBuf,
    /// Write the chunks here (JSONL, `chsr build`'s format).
    pub emit_chunks: Option<PathBuf>,
    /// Write the build report here (`.json`: JSON; otherwise Markdown).
    pub report: Option<PathBuf>,
    /// Leave out pages without subject, level or language instead of failing.
    pub skip_unscoped: bool,
    /// Static embedding model (`.chsrm`) for the dense path; `None`: lexical shards only.
    pub model: Option<PathBuf>,
    /// The Wasm package folder; `None`: looked for (see [`pkg_candidates`]).
    pub pkg: Option<PathBuf>,
}

/// What a run did (also the JSON report).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// Pages found.
    pub pages: usize,
    /// Pages that gave chunks.
    pub pages_indexed: usize,
    /// Pages left out, with the reason (`source/path: why`).
    pub skipped: Vec<(String, String)>,
    /// Chunks.
    pub chunks: usize,
    /// Chunks per document type.
    pub doc_types: BTreeMap<String, usize>,
    /// Chunks per (subject, level).
    pub scopes: BTreeMap<String, usize>,
    /// Share of chunks with each metadata field set, in percent.
    pub coverage: BTreeMap<String, f64>,
    /// Warnings.
    pub warnings: Vec<String>,
    /// Seconds reading pages, building shards, writing files.
    pub seconds: BTreeMap<String, f64>,
    /// Whether the shards have a dense path.
    pub dense: bool,
    /// Bundle files written (relative to the bundle folder), shards excepted.
    pub bundle_files: Vec<String>,
}

fn coverage(chunks: &[ChunkRecord]) -> BTreeMap<String, f64> {
    let n = chunks.len().max(1) as f64;
    type Has = fn(&ChunkRecord) -> bool;
    let fields: [(&str, Has); 13] = [
        ("title", |c| c.title.is_some()),
        ("url", |c| c.url.is_some()),
        ("chapter", |c| c.chapter.is_some()),
        ("section_title", |c| c.section_title.is_some()),
        ("section_key", |c| c.section_key.is_some()),
        ("topic", |c| c.topic.is_some()),
        ("year", |c| c.year.is_some()),
        ("exam", |c| c.exam.is_some()),
        ("paper", |c| c.paper.is_some()),
        ("question_number", |c| c.question_number.is_some()),
        ("answers", |c| c.answers.is_some()),
        ("exercise_number", |c| c.exercise_number.is_some()),
        ("section", |c| c.section.is_some()),
    ];
    fields
        .iter()
        .map(|(name, has)| {
            let k = chunks.iter().filter(|c| has(c)).count() as f64;
            (name.to_string(), (1000.0 * k / n).round() / 10.0)
        })
        .collect()
}

impl Report {
    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        let mut s = String::from("# chsr index report\n\n");
        s.push_str(&format!(
            "{} pages found, {} indexed, {} left out; {} chunks; dense path: {}.\n\n",
            self.pages,
            self.pages_indexed,
            self.skipped.len(),
            self.chunks,
            if self.dense {
                "yes"
            } else {
                "no (lexical shards)"
            }
        ));
        s.push_str("| step | seconds |\n|---|---:|\n");
        for (k, v) in &self.seconds {
            s.push_str(&format!("| {k} | {v:.2} |\n"));
        }
        s.push_str("\n## Chunks per scope\n\n| subject / level | chunks |\n|---|---:|\n");
        for (k, v) in &self.scopes {
            s.push_str(&format!("| {k} | {v} |\n"));
        }
        s.push_str("\n## Chunks per document type\n\n| doc_type | chunks |\n|---|---:|\n");
        for (k, v) in &self.doc_types {
            s.push_str(&format!("| {k} | {v} |\n"));
        }
        s.push_str("\n## Metadata coverage (share of chunks with the field)\n\n| field | % |\n|---|---:|\n");
        for (k, v) in &self.coverage {
            s.push_str(&format!("| {k} | {v:.1} |\n"));
        }
        s.push_str("\n## Pages left out\n\n");
        if self.skipped.is_empty() {
            s.push_str("None.\n");
        }
        for (p, why) in &self.skipped {
            s.push_str(&format!("- `{p}`: {why}\n"));
        }
        s.push_str("\n## Warnings\n\n");
        if self.warnings.is_empty() {
            s.push_str("None.\n");
        }
        for w in &self.warnings {
            s.push_str(&format!("- {w}\n"));
        }
        s
    }
}

fn io(path: &Path, e: impl std::fmt::Display) -> IndexError {
    IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Runs `chsr index`: returns the report (also written with `--report`).
pub fn run(cfg: &Config, opts: &RunOptions) -> Result<Report, IndexError> {
    let t0 = Instant::now();
    std::fs::create_dir_all(&opts.out).map_err(|e| io(&opts.out, e))?;
    let total: usize = cfg
        .sources
        .iter()
        .map(|s| super::list_pages(s).map(|p| p.len()))
        .sum::<Result<usize, _>>()?;
    let base_urls = cfg
        .sources
        .iter()
        .map(|s| base_url(s, &opts.out))
        .collect::<Result<Vec<_>, _>>()?;
    let bar = if std::io::stderr().is_terminal() {
        let b = indicatif::ProgressBar::new(total as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "{spinner} reading pages {pos}/{len} {wide_msg}",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let progress = |p: &str| {
        bar.inc(1);
        bar.set_message(p.to_string());
    };
    let indexed: Indexed = read_sources(cfg, &base_urls, opts.skip_unscoped, &progress)?;
    bar.finish_and_clear();
    let t_read = t0.elapsed().as_secs_f64();
    if indexed.chunks.is_empty() {
        let report = Report {
            pages: indexed.pages.len(),
            skipped: skipped(&indexed),
            warnings: indexed.warnings.clone(),
            ..Report::default()
        };
        if let Some(p) = &opts.report {
            write_report(&report, p)?;
        }
        return Err(IndexError::Build {
            message: format!(
                "no page gave any text to index: {} pages found, all left out{}",
                indexed.pages.len(),
                if opts.report.is_some() {
                    " (the report says why)"
                } else {
                    " (--report FILE says why)"
                }
            ),
        });
    }
    let t1 = Instant::now();
    let sourced: Vec<SourcedChunk> = indexed
        .chunks
        .iter()
        .map(|c| SourcedChunk {
            record: c.clone(),
            visibility: None,
            vector: None,
            file: c.path.clone().unwrap_or_default(),
            line: 0,
        })
        .collect();
    let spinner = if std::io::stderr().is_terminal() {
        let s = indicatif::ProgressBar::new_spinner();
        s.set_message(if opts.model.is_some() {
            "building shards and the HNSW graphs"
        } else {
            "building shards"
        });
        s.enable_steady_tick(std::time::Duration::from_millis(120));
        s
    } else {
        indicatif::ProgressBar::hidden()
    };
    let bopts = BuildOptions::default();
    let output = match &opts.model {
        None => build(&sourced, &bopts),
        Some(p) => {
            let bytes = std::fs::read(p).map_err(|e| io(p, e))?;
            build_with_model_file(&sourced, &bopts, &bytes).map_err(|e| io(p, e))?
        }
    };
    spinner.finish_and_clear();
    let t_build = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let shards_dir = opts.out.join("shards");
    if shards_dir.exists() {
        std::fs::remove_dir_all(&shards_dir).map_err(|e| io(&shards_dir, e))?;
    }
    write_output(&output, &shards_dir).map_err(|e| io(&shards_dir, e))?;
    let mut warnings = indexed.warnings.clone();
    warnings.extend(
        output
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", w.level())),
    );
    let pkg = match &opts.pkg {
        Some(p) if bundle::is_pkg(p) => Some(p.clone()),
        Some(p) => {
            return Err(IndexError::Io {
                path: p.display().to_string(),
                message: "not a Wasm package folder (no chsr.js and chsr_bg.wasm; build one with scripts/build-site)".into(),
            })
        }
        None => pkg_candidates().into_iter().find(|p| bundle::is_pkg(p)),
    };
    if pkg.is_none() {
        warnings.push(
            "no Wasm package found (looked in $CHSR_PKG, next to the binary, and in the checkout it was built from): \
             the bundle has no pkg/ and its page cannot search until pkg/chsr.js and pkg/chsr_bg.wasm are added; \
             run scripts/build-site once, or pass --pkg DIR"
                .into(),
        );
    }
    let lang = cfg.site.lang.clone().unwrap_or_else(|| {
        let fr = indexed.chunks.iter().filter(|c| c.lang == "fr").count();
        if fr * 2 > indexed.chunks.len() {
            "fr"
        } else {
            "en"
        }
        .to_string()
    });
    let (files, _) = bundle::write_bundle(&opts.out, &cfg.site, &lang, pkg.as_deref())?;
    if let Some(p) = &opts.emit_chunks {
        let mut s = String::new();
        for c in &indexed.chunks {
            s.push_str(&serde_json::to_string(c).map_err(|e| io(p, e))?);
            s.push('\n');
        }
        std::fs::write(p, s).map_err(|e| io(p, e))?;
    }
    let t_write = t2.elapsed().as_secs_f64();
    let mut report = Report {
        pages: indexed.pages.len(),
        pages_indexed: indexed.pages.iter().filter(|p| p.skipped.is_none()).count(),
        skipped: skipped(&indexed),
        chunks: indexed.chunks.len(),
        coverage: coverage(&indexed.chunks),
        warnings,
        dense: opts.model.is_some(),
        bundle_files: files,
        ..Report::default()
    };
    for c in &indexed.chunks {
        *report.doc_types.entry(c.doc_type.clone()).or_default() += 1;
        *report
            .scopes
            .entry(format!("{} / {}", c.subject, c.level))
            .or_default() += 1;
    }
    report.seconds.insert("1 read pages".into(), t_read);
    report.seconds.insert("2 build shards".into(), t_build);
    report.seconds.insert("3 write".into(), t_write);
    report
        .seconds
        .insert("total".into(), t0.elapsed().as_secs_f64());
    if let Some(p) = &opts.report {
        write_report(&report, p)?;
    }
    Ok(report)
}

fn skipped(indexed: &Indexed) -> Vec<(String, String)> {
    indexed
        .pages
        .iter()
        .filter_map(|p| {
            p.skipped
                .as_ref()
                .map(|w| (format!("{}/{}", p.source, p.path), w.clone()))
        })
        .collect()
}

/// Writes the report as JSON (`.json`) or Markdown.
fn write_report(report: &Report, p: &Path) -> Result<(), IndexError> {
    let text = if p.extension().map(|e| e == "json").unwrap_or(false) {
        serde_json::to_string_pretty(report).map_err(|e| io(p, e))? + "\n"
    } else {
        report.markdown()
    };
    std::fs::write(p, text).map_err(|e| io(p, e))
}
