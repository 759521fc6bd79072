//! `chsr index`: a course site (built HTML or Markdown sources) to chunks, shards and a
//! self-contained search bundle; the work is `chsr::index::run`, this module maps the flags.

use super::args::IndexArgs;

/// Runs `chsr index`; the summary goes to stderr.
pub(super) fn run(a: IndexArgs) -> Result<(), String> {
    use chsr::index::config::{Args, Config};
    use chsr::index::run::{run, RunOptions};
    use chsr::index::IndexError;
    let args = Args {
        config: a.config.clone(),
        site: a.site.clone(),
        markdown: a.markdown.clone(),
        subject: a.subject.clone(),
        level: a.level.clone(),
        lang: a.lang.clone(),
        doc_type: a.doc_type.clone(),
        url: a.url.clone(),
    };
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p).map_err(|e| IndexError::Io {
            path: p.display().to_string(),
            message: e.to_string(),
        })
    };
    let cfg: Config = args.config(read).map_err(|e| e.to_string())?;
    let report = run(
        &cfg,
        &RunOptions {
            out: a.out.clone(),
            emit_chunks: a.emit_chunks.clone(),
            report: a.report.clone(),
            skip_unscoped: a.skip_unscoped,
            model: a.model.clone(),
            pkg: a.pkg.clone(),
        },
    )
    .map_err(|e| e.to_string())?;
    let out = a.out.display().to_string();
    for line in report.summary(&out, a.report.is_some()) {
        eprintln!("{line}");
    }
    Ok(())
}
