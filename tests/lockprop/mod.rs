//! The lock invariant, shared by the native test (`tests/lock.rs`) and the Wasm test
//! (`tests/wasm.rs`, asserting on what `ChsrIndex` hands to JavaScript): for random scopes, locks,
//! queries and options — every variant and gating, relaxation with the fallback allowed, section
//! expansion — no result, no expanded chunk and no `[DOCUMENT N]` of the context leaves a locked
//! field; expanded chunks also keep the requested doc type and year of an in-scope result; and the
//! trace says how many section chunks were withheld.
#![allow(dead_code)]

use serde_json::{json, Value};

/// The spine fixture (288 chunks over five subject-level pairs).
pub const SPINE: &str = include_str!("../fixtures/spine.jsonl");

/// Random cases drawn per run (seeded: the same cases every run).
pub const CASES: usize = 160;

/// SplitMix64: a seeded PRNG with no platform randomness.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// One case: a query, a scope (with `lock`) and options.
#[derive(Debug, Clone)]
pub struct Case {
    pub query: String,
    pub scope: Value,
    pub options: Value,
}

/// Draws the cases from the spine's own chunks (so scopes name real chapters, doc types, years).
pub fn cases() -> Vec<Case> {
    let chunks: Vec<Value> = SPINE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let words: Vec<String> = chunks
        .iter()
        .flat_map(|c| {
            c["text"]
                .as_str()
                .unwrap_or("")
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|w| w.chars().count() > 3)
        .collect();
    let mut rng = Rng::new(0x10C5);
    let mut out = Vec::new();
    for _ in 0..CASES {
        // A scope built around a real chunk, so locked values exist.
        let c = rng.pick(&chunks).clone();
        let mut scope = serde_json::Map::new();
        let mut lockable = Vec::new();
        for f in ["subject", "level", "chapter", "doc_type", "year", "section"] {
            let v = &c[f];
            if v.is_null()
                || !rng.chance(if f == "subject" || f == "level" {
                    80
                } else {
                    45
                })
            {
                continue;
            }
            let v = match v {
                Value::Number(n) => Value::String(n.to_string()),
                other => other.clone(),
            };
            scope.insert(f.into(), v);
            lockable.push(f);
        }
        let lock: Vec<&str> = lockable
            .iter()
            .copied()
            .filter(|_| rng.chance(60))
            .collect();
        if lock.is_empty() && !lockable.is_empty() {
            // Most cases lock something.
            scope.insert("lock".into(), json!([*rng.pick(&lockable)]));
        } else {
            scope.insert("lock".into(), json!(lock));
        }
        let n = 1 + rng.below(5);
        let query = (0..n)
            .map(|_| rng.pick(&words).clone())
            .collect::<Vec<_>>()
            .join(" ");
        let variant = *rng.pick(&["A", "B", "B+", "C", "D", "E", "F", "F"]);
        let mut options = json!({
            "variant": variant,
            "k": 1 + rng.below(20),
            "allow_fallback": rng.chance(60),
            "expand_chars": *rng.pick(&[0usize, 300, 3000, 100_000]),
        });
        if rng.chance(20) {
            options["gating"] = json!(*rng.pick(&["ungated", "post_filtered"]));
        }
        if rng.chance(30) {
            options["trigger"] = json!("paper");
            options["k_min"] = json!(rng.below(10));
        }
        if rng.chance(30) {
            options["widen_ratio"] = json!(0.0);
            options["level_ratio"] = json!(0.0);
        }
        out.push(Case {
            query,
            scope: Value::Object(scope),
            options,
        });
    }
    out
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The locked `field = value` pairs of a case's scope.
pub fn locks(scope: &Value) -> Vec<(String, String)> {
    scope["lock"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str())
                .filter_map(|f| text(&scope[f]).map(|v| (f.to_string(), v)))
                .collect()
        })
        .unwrap_or_default()
}

/// Checks a search response (`{results, trace}` as JSON) against the case's locks; `context` is
/// the `[DOCUMENT N]` text of the same search, when the caller has it. Returns the number of
/// chunks checked.
pub fn check(case: &Case, resp: &Value, context: Option<&str>) -> usize {
    let locks = locks(&case.scope);
    let mut checked = 0;
    let holds = |x: &Value, what: &str| {
        for (f, v) in &locks {
            assert_eq!(
                text(&x[f.as_str()]).as_deref(),
                Some(v.as_str()),
                "{what} {} leaves the locked {f}={v}\ncase: {case:?}",
                x["id"]
            );
        }
    };
    let results = resp["results"].as_array().expect("results");
    let mut withheld = 0;
    for h in results {
        holds(h, "result");
        checked += 1;
        withheld += h["withheld"].as_u64().unwrap_or(0);
        for e in h["expanded"].as_array().into_iter().flatten() {
            holds(e, "expanded chunk");
            checked += 1;
            // An in-scope result's section stays inside the requested doc type and year.
            if h["leakage"] == "in_scope" {
                for f in ["doc_type", "year", "chapter", "level"] {
                    if let Some(v) = text(&case.scope[f]) {
                        assert_eq!(
                            text(&e[f]).as_deref(),
                            Some(v.as_str()),
                            "expanded chunk {} of in-scope {} leaves {f}={v}\ncase: {case:?}",
                            e["id"],
                            h["id"]
                        );
                    }
                }
            }
        }
    }
    assert_eq!(
        resp["trace"]["withheld"].as_u64().unwrap_or(0),
        withheld,
        "the trace counts the withheld chunks of every result"
    );
    if let Some(ctx) = context {
        // Every document of the context is one of the results or their expanded chunks.
        let mut allowed: Vec<&str> = Vec::new();
        for h in results {
            allowed.push(h["id"].as_str().unwrap());
            for e in h["expanded"].as_array().into_iter().flatten() {
                allowed.push(e["id"].as_str().unwrap());
            }
        }
        for line in ctx.lines().filter_map(|l| l.strip_prefix("id: ")) {
            assert!(
                allowed.contains(&line),
                "context holds {line}, which no surface showed"
            );
        }
    }
    checked
}
