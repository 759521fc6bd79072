//! SVG charts written by hand (no plotting crate): leakage against recall per variant, and
//! recall per slice as grouped bars. The output is deterministic for a given report.

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
    for v in ticks(yt, ys) {
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{2:.1}\" y2=\"{1:.1}\" stroke=\"#e5e5e5\"/>\
             <text x=\"{3:.1}\" y=\"{4:.1}\" text-anchor=\"end\" {FONT} font-size=\"11\" fill=\"#444\">{5:.2}</text>",
            l,
            y(v),
            l + pw,
            l - 6.0,
            y(v) + 4.0,
            v
        );
    }
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
    let _ = writeln!(
        o,
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\" {FONT} font-size=\"12\" fill=\"#222\">R@{} (higher is better)</text>",
        t + ph / 2.0,
        r.k
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
    for v in ticks(yt, ys) {
        let _ = writeln!(
            o,
            "<line x1=\"{l}\" y1=\"{0:.1}\" x2=\"{1:.1}\" y2=\"{0:.1}\" stroke=\"#e5e5e5\"/>\
             <text x=\"{2:.1}\" y=\"{3:.1}\" text-anchor=\"end\" {FONT} font-size=\"11\" fill=\"#444\">{4:.1}</text>",
            y(v),
            l + pw,
            l - 6.0,
            y(v) + 4.0,
            v
        );
    }
    let _ = writeln!(
        o,
        "<text transform=\"translate(16 {:.1}) rotate(-90)\" text-anchor=\"middle\" {FONT} font-size=\"12\" fill=\"#222\">R@{}</text>",
        t + ph / 2.0,
        r.k
    );
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
