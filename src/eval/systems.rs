//! The systems `chsr eval` compares: the variants by name, with the options each searches with,
//! and which pairs of them the paired bootstrap compares.

use crate::search::{SearchOptions, Variant};

/// A system under evaluation: a name and the options it searches with.
#[derive(Clone, Debug, PartialEq)]
pub struct System {
    /// Name shown in reports (`C-bm25`, …).
    pub name: String,
    /// Search options (`k` is set by the harness).
    pub opts: SearchOptions,
}

/// Names of the systems, in the default (pipeline) order: the bootstrap compares consecutive
/// systems, so A → B → B+ → C → D → E follows the ablation of the seed paper, and E → F is what
/// chsr adds. The `-bm25` systems are the lexical-only baselines (B, B+, C with the dense path
/// switched off).
pub const SYSTEMS: &[&str] = &["A", "B", "B+", "C", "D", "E", "F"];

/// chsr's additions to the paper's E, one at a time and cumulative (the second ladder of the
/// report): section evidence; the exercise and other-answer priors with section coverage; label
/// lists and boosts; query hints as hard scope constraints; the evidence trigger; corrections
/// found by their question (the answers list). The dense list
/// switched off then gives F exactly (F is lexical-only by default: its dense list adds no
/// nDCG@8, docs/benchmark.md).
pub const STEPS: &[&str] = &[
    "E+sections",
    "E+priors",
    "E+labels",
    "E+hints",
    "E+evidence",
    "E+answers",
];

/// Lexical-only baselines, F with another relaxation (`F-paper`: the paper's four-case
/// trigger; `F-norelax`: no relaxation), and F with its dense list weighted 0.1 (`F+dense`,
/// what the `dense` option switches on), available by name. Also by name, not listed:
/// `F-dw<W>`, F with its dense list weighted W (0 < W ≤ 10, e.g. `F-dw0.3`), for the
/// dense-weight sweeps of docs/benchmark.md, and `F-lexical`, F's earlier name for its
/// lexical-only form (the same options as `F`).
pub const BASELINES: &[&str] = &[
    "B-bm25",
    "B+-bm25",
    "C-bm25",
    "F-paper",
    "F-norelax",
    "F+dense",
];

/// The paper's E with the first `n` of chsr's additions ([`STEPS`]).
fn e_plus(n: usize) -> SearchOptions {
    let mut o = SearchOptions::for_variant(Variant::E);
    let f = SearchOptions::for_variant(Variant::F);
    if n >= 1 {
        o.stages.sections = true;
        o.section_weight = f.section_weight;
    }
    if n >= 2 {
        o.rerank = crate::rerank::RerankConfig {
            label: 0.0,
            ..f.rerank.clone()
        };
    }
    if n >= 3 {
        o.stages.labels = true;
        o.rerank.label = f.rerank.label;
    }
    if n >= 4 {
        o.stages.hints = true;
    }
    if n >= 5 {
        o.trigger = f.trigger;
    }
    if n >= 6 {
        o.stages.answers = true;
    }
    o
}

/// The system called `name` with cut-off `k`, if it exists.
pub fn system(name: &str, k: usize) -> Option<System> {
    let opts = if let Some(v) = Variant::parse(name) {
        SearchOptions::for_variant(v)
    } else if let Some(i) = STEPS.iter().position(|s| *s == name) {
        e_plus(i + 1)
    } else if name == "F-paper" {
        SearchOptions {
            trigger: crate::relax::Trigger::Paper,
            ..SearchOptions::for_variant(Variant::F)
        }
    } else if name == "F-lexical" {
        let mut o = SearchOptions::for_variant(Variant::F);
        o.stages.dense = false;
        o
    } else if name == "F+dense" {
        let mut o = SearchOptions::for_variant(Variant::F);
        o.stages.dense = true;
        o
    } else if let Some(w) = name
        .strip_prefix("F-dw")
        .and_then(|w| w.parse::<f64>().ok())
        .filter(|w| *w > 0.0 && *w <= 10.0)
    {
        let mut o = SearchOptions {
            dense_weight: w,
            ..SearchOptions::for_variant(Variant::F)
        };
        o.stages.dense = true;
        o
    } else if name == "F-norelax" {
        let mut o = SearchOptions::for_variant(Variant::F);
        o.stages.relax = false;
        o
    } else {
        let base = name.strip_suffix("-bm25").and_then(Variant::parse)?;
        if !matches!(base, Variant::B | Variant::BPlus | Variant::C) {
            return None;
        }
        let mut o = SearchOptions::for_variant(base);
        o.stages.dense = false;
        o
    };
    Some(System {
        name: name.to_string(),
        opts: SearchOptions { k, ..opts },
    })
}

/// Parses a comma-separated list of system names (order kept; duplicates refused).
pub fn parse_systems(list: &str, k: usize) -> Result<Vec<System>, String> {
    let mut out: Vec<System> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let s = system(name, k).ok_or_else(|| {
            format!(
                "unknown variant {name:?}; available: {}, {}, {}",
                SYSTEMS.join(", "),
                STEPS.join(", "),
                BASELINES.join(", ")
            )
        })?;
        if out.iter().any(|x| x.name == s.name) {
            return Err(format!("variant {name:?} is listed twice"));
        }
        out.push(s);
    }
    if out.is_empty() {
        return Err("no variant given".into());
    }
    Ok(out)
}

/// Every available system, in the default order.
pub fn all_systems(k: usize) -> Vec<System> {
    SYSTEMS.iter().filter_map(|n| system(n, k)).collect()
}

/// Parses bootstrap pairs `FROM:TO,FROM:TO` against the systems being run.
pub fn parse_pairs(list: &str, systems: &[System]) -> Result<Vec<(usize, usize)>, String> {
    let idx = |n: &str| {
        systems.iter().position(|s| s.name == n).ok_or_else(|| {
            format!("bootstrap pair names {n:?}, which is not among the variants being run")
        })
    };
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|p| {
            let (a, b) = p
                .split_once(':')
                .ok_or_else(|| format!("bootstrap pair {p:?} is not of the form FROM:TO"))?;
            Ok((idx(a.trim())?, idx(b.trim())?))
        })
        .collect()
}

/// Consecutive pairs of `n` systems: (0,1), (1,2), ….
pub fn consecutive_pairs(n: usize) -> Vec<(usize, usize)> {
    (1..n).map(|i| (i - 1, i)).collect()
}
