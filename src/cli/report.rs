//! The report writer of `chsr eval`: the SVG charts, the JSON report, the per-query runs
//! (JSONL) and the markdown report it was asked for, and the summary tables it prints.

use super::args::EvalArgs;
use chsr::eval::queries::EvalQuery;
use chsr::eval::{report, svg, EvalReport, SystemRun};

/// Writes the files the flags ask for (`--charts`, `--json`, `--runs`, `--report`).
pub(super) fn write(
    a: &EvalArgs,
    rep: &EvalReport,
    queries: &[EvalQuery],
    runs: &[SystemRun],
) -> Result<(), String> {
    let mut links = report::ChartLinks::default();
    if let Some(dir) = &a.charts {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for (name, svg) in [
            ("leakage_recall.svg", svg::leakage_recall(rep)),
            ("slice_recall.svg", svg::slice_recall(rep)),
            ("stage_attribution.svg", svg::stage_attribution(rep)),
            ("outcomes.svg", svg::outcomes(rep)),
        ] {
            let path = dir.join(name);
            std::fs::write(&path, svg).map_err(|e| format!("{}: {e}", path.display()))?;
            let link = a
                .report
                .as_deref()
                .map(|r| relative_link(r, &path))
                .unwrap_or_else(|| name.to_string());
            let slot = match name {
                "leakage_recall.svg" => &mut links.scatter,
                "slice_recall.svg" => &mut links.slices,
                "stage_attribution.svg" => &mut links.attribution,
                _ => &mut links.outcomes,
            };
            *slot = Some(link);
        }
    }
    if let Some(path) = &a.json {
        write_file(path, &report::to_json(rep))?;
    }
    if let Some(path) = &a.runs {
        write_file(path, &report::runs_jsonl(queries, runs))?;
    }
    if let Some(path) = &a.report {
        write_file(path, &report::to_markdown(rep, &links))?;
    }
    Ok(())
}

/// Prints the summary to stdout: the metrics per variant, the bootstrap pairs, where the misses
/// were lost and the outcomes, and the relaxation of the variants that widened.
pub(super) fn print(rep: &EvalReport, k: usize) {
    println!(
        "{:<10} {:>6} {:>6} {:>6} {:>6} {:>8} {:>6} {:>7} {:>6} {:>9} {:>9}",
        "variant",
        "P",
        "R",
        "nDCG",
        "leak",
        "any-leak",
        "contam",
        "sec-con",
        "ESS",
        "p50 ms",
        "p95 ms"
    );
    let opt = |x: Option<f64>| x.map(|c| format!("{c:.3}")).unwrap_or_else(|| "-".into());
    for v in &rep.variants {
        let o = &v.overall;
        println!(
            "{:<10} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>8.3} {:>6} {:>7} {:>6.3} {:>9.3} {:>9.3}",
            v.name,
            o.precision,
            o.recall,
            o.ndcg,
            o.leakage,
            o.any_leak_rate,
            opt(o.contamination),
            opt(o.section_contamination),
            o.ess,
            o.latency_ms_p50,
            o.latency_ms_p95
        );
    }
    for p in &rep.bootstrap.pairs {
        let m = &p.metrics;
        println!(
            "{} -> {}: dR {:+.3} (p {:.3})  dnDCG {:+.3} (p {:.3})  dleak {:+.3} (p {:.3})  dESS {:+.3} (p {:.3})",
            p.from,
            p.to,
            m.recall.mean_diff,
            m.recall.p_value,
            m.ndcg.mean_diff,
            m.ndcg.p_value,
            m.leakage.mean_diff,
            m.leakage.p_value,
            m.ess.mean_diff,
            m.ess.p_value
        );
    }
    for v in &rep.variants {
        let t = &v.taxonomy.overall;
        let a = &t.attribution;
        let shares = a
            .shares
            .as_ref()
            .map(|sh| {
                sh.iter()
                    .filter(|(_, x)| **x > 0.0)
                    .map(|(s, x)| format!("{} {x:.3}", s.name()))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_else(|| "-".into());
        let oc = &t.outcomes;
        println!(
            "{}: {} of {} queries miss, lost at: {shares}; outcomes: {}",
            v.name,
            a.queries,
            oc.n,
            chsr::eval::taxonomy::Outcome::ALL
                .iter()
                .map(|o| format!("{} {}", o.name(), oc.counts[o]))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    for a in &rep.judge.attributes {
        println!(
            "judge {}: covered {} of {}, agreement {}, kappa {} (all queries, abstention a \
             category), {} (covered only)",
            a.attribute,
            a.covered,
            a.n,
            opt(a.agreement),
            opt(a.kappa),
            opt(a.kappa_covered)
        );
    }
    for v in &rep.variants {
        let Some(x) = &v.overall.expansion else {
            continue;
        };
        println!(
            "{}: expansion ({} chars): section R@{k} {} -> {} ({} queries), label R@{k} {} -> {}, \
             {:.1} chunks added ({} on a topic section), {:.0} words added",
            v.name,
            rep.expand_chars.unwrap_or(0),
            opt(x.section_recall_shown),
            opt(x.section_recall_context),
            x.section_n,
            opt(x.label_recall_shown),
            opt(x.label_recall_context),
            x.added,
            opt(x.added_on_topic),
            x.words_added
        );
    }
    for v in rep
        .variants
        .iter()
        .filter(|v| v.overall.relaxation.widened > 0.0)
    {
        let x = &v.overall.relaxation;
        println!(
            "{}: relaxation widened {:.3} of the queries (needlessly {:.3}), outside@{} {:.3}, \
             labels correct {}",
            v.name,
            x.widened,
            x.needless,
            k,
            x.outside,
            x.labels_correct
                .map(|c| format!("{c:.3}"))
                .unwrap_or_else(|| "-".into())
        );
    }
}

fn write_file(path: &std::path::Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The path of `target` relative to the folder of `from` (a file), with `/` separators; the
/// file name alone when the folders cannot be resolved.
fn relative_link(from: &std::path::Path, target: &std::path::Path) -> String {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let resolve = |p: &std::path::Path| {
        let p = if p.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            p
        };
        std::fs::create_dir_all(p).ok()?;
        p.canonicalize().ok()
    };
    let (Some(a), Some(b)) = (
        from.parent().and_then(resolve),
        target.parent().and_then(resolve),
    ) else {
        return name;
    };
    let a: Vec<_> = a.components().collect();
    let b: Vec<_> = b.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().to_string()),
    );
    parts.push(name);
    parts.join("/")
}
