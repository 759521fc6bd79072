//! SVG charts written by hand (no plotting crate): leakage against recall per variant, recall
//! per slice as grouped bars, and the failure taxonomy as stacked bars (stage attribution and
//! outcome categories per variant). The output is deterministic for a given report.

use super::taxonomy::{Outcome, Stage};
use super::EvalReport;
use std::fmt::Write as _;

/// Series colours (colour-blind-safe Tableau 10 order).
const PALETTE: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
];

const FONT: &str = "font-family=\"Helvetica, Arial, sans-serif\"";

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" axis maximum and tick step covering `max` (at least `floor`).
fn nice_axis(max: f64, floor: f64) -> (f64, f64) {
    let m = if max.is_finite() {
        max.max(floor)
    } else {
        floor
    };
    for step in [0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0] {
        let n = (m / step - 1e-9).ceil().max(1.0);
        if n <= 6.0 {
            return (n * step, step);
        }
    }
    (m, m / 5.0)
}

/// Room above the largest value of a share, without passing 1 when the value does not.
fn headroom(max: f64, factor: f64) -> f64 {
    if max <= 1.0 {
        (max * factor).min(1.0)
    } else {
        max * factor
    }
}

fn ticks(top: f64, step: f64) -> Vec<f64> {
    let n = (top / step).round() as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// Horizontal grid lines from `x.0` to `x.1` at `values` (placed by `y`), each labelled left of
/// the plot with `decimals` digits.
fn y_grid(o: &mut String, values: &[f64], x: (f64, f64), y: impl Fn(f64) -> f64, decimals: usize) {
    for &v in values {
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{2:.1}\" y2=\"{1:.1}\" stroke=\"#e5e5e5\"/>\
             <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\" {FONT} font-size=\"11\" fill=\"#444\">{5:.6$}</text>",
            x.0,
            y(v),
            x.1,
            x.0 - 6.0,
            y(v) + 4.0,
            v,
            decimals
        );
    }
}

/// The y-axis title, rotated, centred on `mid` at `x` from the image's left edge.
fn y_title(o: &mut String, x: f64, mid: f64, label: &str) {
    let _ = writeln!(
        o,
        "<text transform=\"translate({x} {mid:.1}) rotate(-90)\" text-anchor=\"middle\" {FONT} font-size=\"12\" fill=\"#222\">{}</text>",
        esc(label)
    );
}

fn header(o: &mut String, w: u32, h: u32, title: &str) {
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{t}\">",
        t = esc(title)
    );
    let _ = writeln!(o, "<title>{}</title>", esc(title));
    let _ = writeln!(o, "<rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>");
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" {FONT} font-size=\"15\" font-weight=\"bold\" fill=\"#222\">{}</text>",
        w / 2,
        esc(title)
    );
}

/// Scatter of leakage (x) against R@K (y), one labelled point per variant.
pub fn leakage_recall(r: &EvalReport) -> String {
    let (w, h) = (560u32, 420u32);
    let (l, rt, t, b) = (70.0, 30.0, 44.0, 56.0);
    let pw = w as f64 - l - rt;
    let ph = h as f64 - t - b;
    let max_leak = r
        .variants
        .iter()
        .map(|v| v.overall.leakage)
        .fold(0.0, f64::max);
    let max_rec = r
        .variants
        .iter()
        .map(|v| v.overall.recall)
        .fold(0.0, f64::max);
    let (xt, xs) = nice_axis(headroom(max_leak, 1.1), 0.1);
    let (yt, ys) = nice_axis(headroom(max_rec, 1.1), 0.1);
    let x = |v: f64| l + v / xt * pw;
    let y = |v: f64| t + ph - v / yt * ph;
    let mut o = String::new();
    header(
        &mut o,
        w,
        h,
        &format!("Leakage vs recall at K = {} ({})", r.k, r.queries.file),
    );
    for v in ticks(xt, xs) {
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#e5e5e5\"/>\
             <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\" {FONT} font-size=\"11\" fill=\"#444\">{4:.2}</text>",
            x(v),
            t,
            t + ph,
            t + ph + 16.0,
            v
        );
    }
    y_grid(&mut o, &ticks(yt, ys), (l, l + pw), y, 2);
    let _ = writeln!(
        o,
        "<rect x=\"{l}\" y=\"{t}\" width=\"{pw}\" height=\"{ph}\" fill=\"none\" stroke=\"#888\"/>"
    );
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" {FONT} font-size=\"12\" fill=\"#222\">leak@{} (share of results outside the scope's subject or level; lower is better)</text>",
        l + pw / 2.0,
        h as f64 - 14.0,
        r.k
    );
    y_title(
        &mut o,
        18.0,
        t + ph / 2.0,
        &format!("R@{} (higher is better)", r.k),
    );
    for (i, v) in r.variants.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let (px, py) = (x(v.overall.leakage), y(v.overall.recall));
        let anchor_right = px > l + pw * 0.7;
        let _ = writeln!(
            o,
            "<circle cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"6\" fill=\"{c}\" stroke=\"#222\" stroke-width=\"0.8\"><title>{}: leak {:.3}, R {:.3}</title></circle>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\" {FONT} font-size=\"12\" fill=\"#222\">{} ({:.3}, {:.3})</text>",
            esc(&v.name),
            v.overall.leakage,
            v.overall.recall,
            if anchor_right { px - 10.0 } else { px + 10.0 },
            py - 8.0 - 14.0 * (i % 2) as f64,
            if anchor_right { "end" } else { "start" },
            esc(&v.name),
            v.overall.leakage,
            v.overall.recall
        );
    }
    o.push_str("</svg>\n");
    o
}

/// Grouped bars of R@K per slice (and over all queries), one bar per variant.
pub fn slice_recall(r: &EvalReport) -> String {
    let mut groups: Vec<(String, Vec<f64>)> = r
        .queries
        .slices
        .keys()
        .map(|s| {
            (
                s.clone(),
                r.variants.iter().map(|v| v.slices[s].recall).collect(),
            )
        })
        .collect();
    groups.push((
        "all".into(),
        r.variants.iter().map(|v| v.overall.recall).collect(),
    ));
    let nv = r.variants.len().max(1);
    let bar = 14.0;
    let gap = 18.0;
    let group_w = bar * nv as f64 + gap;
    let (l, rt, t, b) = (56.0, 20.0, 64.0, 96.0);
    let pw = group_w * groups.len() as f64;
    let w = (l + pw + rt).ceil() as u32;
    let h = 400u32;
    let ph = h as f64 - t - b;
    let max = groups
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max);
    let (yt, ys) = nice_axis(headroom(max, 1.05), 0.2);
    let y = |v: f64| t + ph - v / yt * ph;
    let mut o = String::new();
    header(
        &mut o,
        w,
        h,
        &format!("R@{} per slice ({})", r.k, r.queries.file),
    );
    // Legend.
    let mut lx = l;
    for (i, v) in r.variants.iter().enumerate() {
        let c = PALETTE[i % PALETTE.len()];
        let _ = writeln!(
            o,
            "<rect x=\"{lx:.1}\" y=\"36\" width=\"12\" height=\"12\" fill=\"{c}\"/>\
             <text x=\"{:.1}\" y=\"46\" {FONT} font-size=\"12\" fill=\"#222\">{}</text>",
            lx + 16.0,
            esc(&v.name)
        );
        lx += 28.0 + 7.5 * v.name.chars().count() as f64;
    }
    y_grid(&mut o, &ticks(yt, ys), (l, l + pw), y, 1);
    y_title(&mut o, 16.0, t + ph / 2.0, &format!("R@{}", r.k));
    for (gi, (name, vals)) in groups.iter().enumerate() {
        let gx = l + gi as f64 * group_w + gap / 2.0;
        for (vi, v) in vals.iter().enumerate() {
            let c = PALETTE[vi % PALETTE.len()];
            let bx = gx + vi as f64 * bar;
            let _ = writeln!(
                o,
                "<rect x=\"{bx:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{c}\"><title>{} / {}: {v:.3}</title></rect>",
                y(*v),
                bar - 1.0,
                (t + ph - y(*v)).max(0.0),
                esc(name),
                esc(&r.variants[vi].name)
            );
        }
        let cx = gx + bar * nv as f64 / 2.0;
        let _ = writeln!(
            o,
            "<text transform=\"translate({cx:.1} {:.1}) rotate(-35)\" text-anchor=\"end\" {FONT} font-size=\"12\" fill=\"#222\"{}>{}</text>",
            t + ph + 14.0,
            if name == "all" { " font-weight=\"bold\"" } else { "" },
            esc(name)
        );
    }
    let _ = writeln!(
        o,
        "<line x1=\"{l}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#888\"/>",
        t + ph,
        l + pw
    );
    o.push_str("</svg>\n");
    o
}

/// Colour of a stage in the attribution chart.
fn stage_colour(s: Stage) -> &'static str {
    match s {
        Stage::Gate => "#e15759",
        Stage::CandidateRecall => "#4e79a7",
        Stage::Fusion => "#f28e2b",
        Stage::Rerank => "#59a14f",
        Stage::Dedup => "#b07aa1",
        Stage::Unknown => "#bab0ac",
    }
}

/// Colour of an outcome category.
fn outcome_colour(o: Outcome) -> &'static str {
    match o {
        Outcome::Success => "#59a14f",
        Outcome::PrecisionOnly => "#edc948",
        Outcome::RecallOnly => "#4e79a7",
        Outcome::Both => "#e15759",
    }
}

/// One bar of a stacked chart: its label, its segments (shares summing to 1, or `None` for an
/// empty bar), a tooltip per segment and a note written above it.
struct StackedBar {
    label: String,
    segments: Option<Vec<(f64, String)>>,
    note: String,
}

/// Stacked bars of shares (0 to 1), one per variant, with a legend on the right.
fn stacked_bars(
    title: &str,
    y_label: &str,
    legend: &[(&str, &str)],
    bars: &[StackedBar],
) -> String {
    let bar = 40.0;
    let gap = 30.0;
    let (l, t, b) = (62.0, 56.0, 60.0);
    let legend_w = 190.0;
    let pw = (bar + gap) * bars.len().max(1) as f64;
    let w = (l + pw + 20.0 + legend_w).ceil() as u32;
    let h = 400u32;
    let ph = h as f64 - t - b;
    let y = |v: f64| t + ph - v * ph;
    let mut o = String::new();
    header(&mut o, w, h, title);
    y_grid(&mut o, &ticks(1.0, 0.2), (l, l + pw), y, 1);
    y_title(&mut o, 18.0, t + ph / 2.0, y_label);
    for (i, sb) in bars.iter().enumerate() {
        let bx = l + gap / 2.0 + i as f64 * (bar + gap);
        let mut acc = 0.0;
        for (j, (v, tip)) in sb.segments.iter().flatten().enumerate() {
            if *v > 0.0 {
                let _ = writeln!(
                    o,
                    "<rect x=\"{bx:.1}\" y=\"{:.1}\" width=\"{bar:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>",
                    y(acc + v),
                    v * ph,
                    legend[j % legend.len()].1,
                    esc(tip)
                );
            }
            acc += v;
        }
        let _ = writeln!(
            o,
            "<text x=\"{0:.1}\" y=\"{1:.1}\" text-anchor=\"middle\" {FONT} font-size=\"10\" fill=\"#444\">{2}</text>\
             <text x=\"{0:.1}\" y=\"{3:.1}\" text-anchor=\"middle\" {FONT} font-size=\"12\" fill=\"#222\">{4}</text>",
            bx + bar / 2.0,
            if sb.segments.is_some() { t - 6.0 } else { t + ph - 6.0 },
            esc(&sb.note),
            t + ph + 18.0,
            esc(&sb.label)
        );
    }
    let _ = writeln!(
        o,
        "<line x1=\"{l}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#888\"/>",
        t + ph,
        l + pw
    );
    // Legend, top category first as in the stack.
    let lx = l + pw + 20.0;
    for (j, (name, colour)) in legend.iter().enumerate().rev() {
        let ly = t + 8.0 + (legend.len() - 1 - j) as f64 * 20.0;
        let _ = writeln!(
            o,
            "<rect x=\"{lx:.1}\" y=\"{ly:.1}\" width=\"12\" height=\"12\" fill=\"{colour}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" {FONT} font-size=\"12\" fill=\"#222\">{}</text>",
            lx + 18.0,
            ly + 10.0,
            esc(name)
        );
    }
    o.push_str("</svg>\n");
    o
}

/// Stacked bars per variant: the query-weighted share of the missing relevant chunks lost at
/// each stage, over the queries that miss (R@K < 1).
pub fn stage_attribution(r: &EvalReport) -> String {
    let legend: Vec<(&str, &str)> = Stage::ALL
        .iter()
        .map(|s| (s.name(), stage_colour(*s)))
        .collect();
    let bars: Vec<StackedBar> = r
        .variants
        .iter()
        .map(|v| {
            let a = &v.taxonomy.overall.attribution;
            StackedBar {
                label: v.name.clone(),
                segments: a.shares.as_ref().map(|sh| {
                    Stage::ALL
                        .iter()
                        .map(|s| {
                            (
                                sh[s],
                                format!(
                                    "{} / {}: {:.3} of the missing chunks ({} chunks)",
                                    v.name,
                                    s.name(),
                                    sh[s],
                                    a.chunks[s]
                                ),
                            )
                        })
                        .collect()
                }),
                note: if a.queries == 0 {
                    "no miss".into()
                } else {
                    format!("n = {}", a.queries)
                },
            }
        })
        .collect();
    stacked_bars(
        &format!(
            "Where the missing relevant chunks were lost, K = {} ({})",
            r.k, r.queries.file
        ),
        "share of the missing chunks (queries with R@K < 1)",
        &legend,
        &bars,
    )
}

/// Stacked bars per variant: the share of the queries in each outcome category.
pub fn outcomes(r: &EvalReport) -> String {
    let legend: Vec<(&str, &str)> = Outcome::ALL
        .iter()
        .map(|o| (o.label(), outcome_colour(*o)))
        .collect();
    let bars: Vec<StackedBar> = r
        .variants
        .iter()
        .map(|v| {
            let oc = &v.taxonomy.overall.outcomes;
            StackedBar {
                label: v.name.clone(),
                segments: (oc.n > 0).then(|| {
                    Outcome::ALL
                        .iter()
                        .map(|o| {
                            (
                                oc.shares[o],
                                format!(
                                    "{} / {}: {:.3} ({} queries)",
                                    v.name,
                                    o.label(),
                                    oc.shares[o],
                                    oc.counts[o]
                                ),
                            )
                        })
                        .collect()
                }),
                note: format!("n = {}", oc.n),
            }
        })
        .collect();
    stacked_bars(
        &format!("Outcome per query, K = {} ({})", r.k, r.queries.file),
        "share of the queries",
        &legend,
        &bars,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_are_nice() {
        let close = |(a, b): (f64, f64), (c, d): (f64, f64)| (a - c).abs() < 1e-9 && b == d;
        assert!(close(nice_axis(0.27, 0.1), (0.3, 0.05)));
        assert!(close(nice_axis(0.0, 0.1), (0.1, 0.05)));
        assert!(close(nice_axis(0.93, 0.2), (1.0, 0.2)));
        assert_eq!(ticks(0.3, 0.05).len(), 7);
        assert!(close(nice_axis(headroom(1.0, 1.05), 0.2), (1.0, 0.2)));
        assert!(close(nice_axis(headroom(0.443, 1.1), 0.1), (0.5, 0.1)));
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
