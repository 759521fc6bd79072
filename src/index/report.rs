//! What a run of `chsr index` makes from the pages read, I/O-free (the native CLI and the npm
//! package's Node entry point both call these): the shards, the warnings, the interface
//! language, the chunks as JSONL (`--emit-chunks`), the build report (`--report`) and the lines
//! printed at the end.

use super::config::SitePage;
use super::{IndexError, Indexed};
use crate::build::{build, build_with_model_file, BuildOptions, BuildOutput};
use crate::corpus::SourcedChunk;
use crate::format::model::ModelFormatError;
use crate::format::ChunkRecord;
use serde::Serialize;
use std::collections::BTreeMap;

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

    /// The report of a run that found pages but indexed none (why each was left out).
    pub fn nothing_indexed(indexed: &Indexed) -> Report {
        Report {
            pages: indexed.pages.len(),
            skipped: skipped(indexed),
            warnings: indexed.warnings.clone(),
            ..Report::default()
        }
    }

    /// The report of a run: `warnings` are all of them (pages', the build's, the bundle's),
    /// `bundle_files` the files written beside the shards. The caller adds the `seconds`.
    pub fn new(
        indexed: &Indexed,
        warnings: Vec<String>,
        dense: bool,
        bundle_files: Vec<String>,
    ) -> Report {
        let mut report = Report {
            pages: indexed.pages.len(),
            pages_indexed: indexed.pages.iter().filter(|p| p.skipped.is_none()).count(),
            skipped: skipped(indexed),
            chunks: indexed.chunks.len(),
            coverage: coverage(&indexed.chunks),
            warnings,
            dense,
            bundle_files,
            ..Report::default()
        };
        for c in &indexed.chunks {
            // Counted as stored: an alias (`exercice`) as its canonical type, as students see it.
            let doc_type = crate::doctype::canonical(&c.doc_type).unwrap_or(&c.doc_type);
            *report.doc_types.entry(doc_type.to_string()).or_default() += 1;
            *report
                .scopes
                .entry(format!("{} / {}", c.subject, c.level))
                .or_default() += 1;
        }
        report
    }

    /// The report as `--report` writes it: JSON when `json` (see [`is_json_report`]), else
    /// Markdown.
    pub fn text(&self, json: bool) -> String {
        if json {
            serde_json::to_string_pretty(self).expect("a report serialises") + "\n"
        } else {
            self.markdown()
        }
    }

    /// The lines `chsr index` prints when it is done (on stderr): warnings, chunks per scope,
    /// chunks per document type, and a summary naming the bundle folder `out` (as given).
    /// `report_given`: whether `--report` was given (else the summary points to it).
    pub fn summary(&self, out: &str, report_given: bool) -> Vec<String> {
        let mut lines: Vec<String> = self
            .warnings
            .iter()
            .map(|w| format!("warning: {w}"))
            .collect();
        for (k, v) in &self.scopes {
            lines.push(format!("  {k:<40} {v:>6} chunks"));
        }
        let types: Vec<String> = self
            .doc_types
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        lines.push(format!("  doc types: {}", types.join(", ")));
        lines.push(format!(
            "indexed {} of {} pages ({} left out{}) into {} chunks in {:.2}s{}; bundle in {}",
            self.pages_indexed,
            self.pages,
            self.skipped.len(),
            if self.skipped.is_empty() || report_given {
                ""
            } else {
                "; --report FILE lists them"
            },
            self.chunks,
            self.seconds.get("total").copied().unwrap_or_default(),
            if self.dense {
                " (with the dense path)"
            } else {
                " (lexical shards)"
            },
            out
        ));
        lines
    }
}

/// Whether `--report FILE` writes JSON: the file name's extension is `json`.
pub fn is_json_report(file: &std::path::Path) -> bool {
    file.extension().map(|e| e == "json").unwrap_or(false)
}

/// The error of a run in which every page was left out (`report_given`: the report says why).
pub fn nothing_indexed_error(indexed: &Indexed, report_given: bool) -> IndexError {
    IndexError::Build {
        message: format!(
            "no page gave any text to index: {} pages found, all left out{}",
            indexed.pages.len(),
            if report_given {
                " (the report says why)"
            } else {
                " (--report FILE says why)"
            }
        ),
    }
}

/// Builds the shards of the chunks read, exactly as `chsr build` would from the same records:
/// lexical only, or with the dense path made by the static embedding model `model` (the bytes
/// of a `.chsrm` file).
pub fn shards(indexed: &Indexed, model: Option<&[u8]>) -> Result<BuildOutput, ModelFormatError> {
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
    let opts = BuildOptions::default();
    match model {
        None => Ok(build(&sourced, &opts)),
        Some(bytes) => build_with_model_file(&sourced, &opts, bytes),
    }
}

/// The warnings of a run: the pages', then the build's (document-type aliases, unknown types).
pub fn warnings(indexed: &Indexed, output: &BuildOutput) -> Vec<String> {
    let mut warnings = indexed.warnings.clone();
    warnings.extend(
        output
            .warnings
            .iter()
            .map(|w| format!("{}: {w}", w.level())),
    );
    warnings
}

/// The search page's interface language: the config's `[site] lang`, else `fr` when most
/// chunks are French, else `en`.
pub fn interface_lang(site: &SitePage, chunks: &[ChunkRecord]) -> String {
    site.lang.clone().unwrap_or_else(|| {
        let fr = chunks.iter().filter(|c| c.lang == "fr").count();
        if fr * 2 > chunks.len() { "fr" } else { "en" }.to_string()
    })
}

/// The chunks as JSONL (`--emit-chunks`: `chsr build`'s input format), one record a line.
pub fn chunks_jsonl(chunks: &[ChunkRecord]) -> String {
    let mut s = String::new();
    for c in chunks {
        s.push_str(&serde_json::to_string(c).expect("a chunk record serialises"));
        s.push('\n');
    }
    s
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
