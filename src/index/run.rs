//! The whole of `chsr index` (native): read the sources (folders walked, pages read in
//! parallel), build the shards, write them, the bundle, the chunks (`--emit-chunks`) and the
//! build report (`--report`). Everything but the I/O, the threads and the progress bars is the
//! target-independent core (`super`, [`super::report`], [`super::bundle`]) that the npm
//! package's `bin/chsr.mjs` runs through Wasm in the same order.

use super::config::{Config, Source};
use super::report::{self, Report};
use super::{base_url, bundle, read_sources, IndexError, Indexed};
use crate::build::write_output;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Every page file of a source, as `/`-separated paths relative to it, sorted: entries by file
/// name (bytes), names starting with `.` left out, folders followed where [`super::publishing::walks`]
/// says, files kept by [`super::page_extensions`] and [`super::pages_found`]. (`bin/chsr.mjs` walks folders the same way.)
pub fn list_pages(source: &Source) -> Result<Vec<String>, IndexError> {
    fn walk(
        source: &Source,
        dir: &Path,
        rel: &str,
        exts: &[&str],
        out: &mut Vec<String>,
    ) -> Result<(), IndexError> {
        let io = |e: std::io::Error| IndexError::Io {
            path: dir.display().to_string(),
            message: e.to_string(),
        };
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .map_err(io)?
            .collect::<Result<_, _>>()
            .map_err(io)?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            let path = e.path();
            let r = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if path.is_dir() {
                if super::publishing::walks(&source.publishing, &r) {
                    walk(source, &path, &r, exts, out)?;
                }
            } else if exts.iter().any(|x| name.to_lowercase().ends_with(x)) {
                out.push(r);
            }
        }
        Ok(())
    }
    if !source.path.is_dir() {
        return Err(super::not_a_folder(source));
    }
    let mut out = Vec::new();
    walk(
        source,
        &source.path,
        "",
        super::page_extensions(source),
        &mut out,
    )?;
    super::pages_found(source, out)
}

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

fn io(path: &Path, e: impl std::fmt::Display) -> IndexError {
    IndexError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// A progress bar on a terminal, hidden otherwise.
fn bar(total: usize) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let b = indicatif::ProgressBar::new(total as u64);
    b.set_style(
        indicatif::ProgressStyle::with_template("{spinner} reading pages {pos}/{len} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b
}

/// A spinner with a message on a terminal, hidden otherwise.
fn spinner(message: &'static str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let s = indicatif::ProgressBar::new_spinner();
    s.set_message(message);
    s.enable_steady_tick(std::time::Duration::from_millis(120));
    s
}

/// Runs `chsr index`: returns the report (also written with `--report`).
pub fn run(cfg: &Config, opts: &RunOptions) -> Result<Report, IndexError> {
    let t0 = Instant::now();
    std::fs::create_dir_all(&opts.out).map_err(|e| io(&opts.out, e))?;
    // Each folder is walked once: the bar's total and the reading share the listing.
    let pages = cfg
        .sources
        .iter()
        .map(list_pages)
        .collect::<Result<Vec<_>, _>>()?;
    let total: usize = pages.iter().map(Vec::len).sum();
    let base_urls = cfg
        .sources
        .iter()
        .map(|s| base_url(s, &opts.out))
        .collect::<Result<Vec<_>, _>>()?;
    let bar = bar(total);
    let progress = |p: &str| {
        bar.inc(1);
        bar.set_message(p.to_string());
    };
    let indexed: Indexed = read_sources(cfg, &pages, &base_urls, opts.skip_unscoped, &progress)?;
    bar.finish_and_clear();
    let t_read = t0.elapsed().as_secs_f64();
    if indexed.chunks.is_empty() {
        if let Some(p) = &opts.report {
            write_report(&Report::nothing_indexed(&indexed), p)?;
        }
        return Err(report::nothing_indexed_error(
            &indexed,
            opts.report.is_some(),
        ));
    }
    let t1 = Instant::now();
    let spinner = spinner(if opts.model.is_some() {
        "building shards and the HNSW graphs"
    } else {
        "building shards"
    });
    let model = match &opts.model {
        Some(p) => Some(std::fs::read(p).map_err(|e| io(p, e))?),
        None => None,
    };
    let output = report::shards(&indexed, model.as_deref()).map_err(|e| {
        let p = opts.model.as_deref().unwrap_or(Path::new(""));
        io(p, e)
    })?;
    spinner.finish_and_clear();
    let t_build = t1.elapsed().as_secs_f64();
    let t2 = Instant::now();
    let shards_dir = opts.out.join("shards");
    if shards_dir.exists() {
        std::fs::remove_dir_all(&shards_dir).map_err(|e| io(&shards_dir, e))?;
    }
    write_output(&output, &shards_dir).map_err(|e| io(&shards_dir, e))?;
    let mut warnings = report::warnings(&indexed, &output);
    let pkg = match &opts.pkg {
        Some(p) if bundle::is_pkg(p) => Some(p.clone()),
        Some(p) => return Err(bundle::not_a_pkg(&p.display().to_string())),
        None => pkg_candidates().into_iter().find(|p| bundle::is_pkg(p)),
    };
    if pkg.is_none() {
        warnings.push(
            "no Wasm package found (looked in $CHSR_PKG, next to the binary, in the checkout it was built from, \
             and in node_modules/chsr/pkg): the bundle has no pkg/ and its page cannot search until pkg/chsr.js, \
             pkg/chsr_lexical_bg.wasm, pkg/chsr_bg.wasm and pkg/chsr_scalar_bg.wasm are added; pass --pkg DIR or set CHSR_PKG (the npm package's pkg/ will do: \
             npm install chsr), or run scripts/build-site in a checkout"
                .into(),
        );
    }
    let lang = report::interface_lang(&cfg.site, &indexed.chunks);
    let (files, _) = bundle::write_bundle(&opts.out, &cfg.site, &lang, pkg.as_deref())?;
    if let Some(p) = &opts.emit_chunks {
        std::fs::write(p, report::chunks_jsonl(&indexed.chunks)).map_err(|e| io(p, e))?;
    }
    let t_write = t2.elapsed().as_secs_f64();
    let mut report = Report::new(&indexed, warnings, opts.model.is_some(), files);
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

/// Writes the report as JSON (`.json`) or Markdown.
fn write_report(report: &Report, p: &Path) -> Result<(), IndexError> {
    std::fs::write(p, report.text(report::is_json_report(p))).map_err(|e| io(p, e))
}

/// Where `chsr index` looks for the Wasm package when `--pkg` is not given: `$CHSR_PKG`, then
/// beside the binary (`pkg/`, `../share/chsr/pkg`), then the checkout a binary in
/// `target/release/` was built in (`www/pkg`, `pkg`), then the npm package installed in the
/// current folder (`node_modules/chsr/pkg`).
pub fn pkg_candidates() -> Vec<PathBuf> {
    let mut c = Vec::new();
    if let Some(p) = std::env::var_os("CHSR_PKG") {
        c.push(PathBuf::from(p));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            c.push(dir.join("pkg"));
            c.push(dir.join("../share/chsr/pkg"));
            // A binary built in a checkout (target/release/chsr) uses the checkout's package.
            c.push(dir.join("../../www/pkg"));
            c.push(dir.join("../../pkg"));
        }
    }
    c.push(PathBuf::from("node_modules/chsr/pkg"));
    c
}
