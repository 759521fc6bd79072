//! The random cases: a seeded PRNG, the word lists a query mixes with the fixture's own
//! vocabulary, and the random queries, scopes and options drawn from them.

use super::{Case, Fixture, Setup, CASES, GRAPH_CASES, GRAPH_SEED, SEED, SPINE};
use chsr::build::BuildOutput;
use serde_json::{json, Map, Value};
use std::collections::BTreeSet;

/// SplitMix64: a tiny deterministic PRNG, identical on every target.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n` > 0; the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The [`GRAPH_CASES`] cases, drawn from [`GRAPH_SEED`]: words of the scope's own shard, the
/// variants with a dense path, any other options, and `exact_max` = `exact_fraction` = 0 so that
/// every dense search with an admissible chunk goes through the graph.
pub fn graph_cases(fixture: &Fixture) -> Vec<Case> {
    let per_shard = fixture.shard_vocabularies();
    let mut rng = Rng::new(GRAPH_SEED);
    (0..GRAPH_CASES)
        .map(|_| {
            let (scope, shard) = scope(&mut rng, &fixture.dense);
            let query = query(&mut rng, &per_shard[shard]);
            let mut options = options(&mut rng);
            let o = options.as_object_mut().expect("options are an object");
            o.insert(
                "variant".into(),
                json!(*rng.pick(&["A", "B", "C", "D", "E", "F"])),
            );
            // F is lexical-only by default: its dense list is asked for.
            o.insert("dense".into(), json!(true));
            o.insert("exact_max".into(), json!(0));
            o.insert("exact_fraction".into(), json!(0.0));
            Case {
                query,
                scope,
                options,
                setup: Setup::Graph,
            }
        })
        .collect()
}

const STOPWORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "is",
    "what",
    "a",
    "in",
    "to",
    "le",
    "la",
    "les",
    "des",
    "est",
    "une",
    "du",
    "et",
    "pour",
    "qu'est-ce",
];
const DIGITS: &[&str] = &[
    "0", "1", "2", "3", "12", "2021", "2023", "3.5", "1e5", "273.15", "-40", "10^3", "½", "٣",
];
const FORMULAS: &[&str] = &[
    "H2O",
    "H₂O",
    "CO2",
    "CO₂",
    "mv²",
    "mv^2",
    "$mv^{2}$",
    "E=mc^2",
    "q = m c ΔT",
    "ΔH",
    "\\frac{",
    "$$$",
    "x_1",
    "PV=nRT",
    "Fe³⁺",
    "1/2 m v^2",
];
const FRENCH: &[&str] = &[
    "énergie",
    "chaleur",
    "récursive",
    "fonction",
    "élève",
    "Terminale",
    "Première",
    "corrigé",
    "exercice",
    "liste",
    "tableau",
    "algorithme",
    "température",
    "sujet 10",
    "BNS 2021",
    "arbre",
    "complexité",
    "théorème",
    "ÉNERGIE",
    "cœur",
];
const HINTS: &[&str] = &[
    "mark scheme",
    "answer",
    "Paper 2",
    "question 3",
    "O-Level",
    "Table 4.1",
    "definition of",
    "what is",
    "define",
    "chapter 5",
    "worked example",
    "glossary",
    "solution",
    "college",
    "high school",
];
const PUNCT: &[&str] = &[
    "?", "!!", "...", "—", "«", "»", "(", ")", "'", "\"", ";", ",", "-", "/", "*", "#", "&&", "::",
];
const ODD: &[&str] = &[
    "\u{200b}",
    "\u{202e}evil",
    "\u{0000}",
    "\t",
    "\n",
    "caf\u{0065}\u{0301}",
    "Straße",
    "теплота",
    "热量",
    "حرارة",
    "🔥",
    "\u{feff}heat",
    "ＨＥＡＴ",
];

/// The fixture's vocabulary: the distinct alphanumeric words of 3 to 20 characters, sorted, of
/// the chunks of one subject and level (or of every chunk, for `None`).
pub fn vocabulary(pair: Option<(&str, &str)>) -> Vec<String> {
    let mut set = BTreeSet::new();
    for line in SPINE.lines() {
        let v: Value = serde_json::from_str(line).expect("fixture line");
        if let Some((subject, level)) = pair {
            if v["subject"] != subject || v["level"] != level {
                continue;
            }
        }
        let text = v["text"].as_str().unwrap_or("");
        for w in text.split(|c: char| !c.is_alphanumeric()) {
            let n = w.chars().count();
            if (3..=20).contains(&n) {
                set.insert(w.to_string());
            }
        }
    }
    set.into_iter().collect()
}

fn word(rng: &mut Rng, vocab: &[String]) -> String {
    match rng.below(100) {
        0..=64 => rng.pick(vocab).clone(),
        65..=68 => rng.pick(vocab).to_uppercase(),
        69..=74 => rng.pick(STOPWORDS).to_string(),
        75..=78 => rng.pick(DIGITS).to_string(),
        79..=83 => rng.pick(FORMULAS).to_string(),
        84..=88 => rng.pick(FRENCH).to_string(),
        89..=92 => rng.pick(HINTS).to_string(),
        93..=95 => rng.pick(PUNCT).to_string(),
        _ => rng.pick(ODD).to_string(),
    }
}

fn query(rng: &mut Rng, vocab: &[String]) -> String {
    match rng.below(100) {
        0..=3 => String::new(),
        4 => "   \t ".into(),
        5 => {
            // Very long: past the 16 KiB the engine reads.
            let mut q = String::new();
            while q.len() < 17_000 {
                q.push_str(rng.pick(vocab).as_str());
                q.push(' ');
            }
            q
        }
        6 => {
            // Many distinct words: past the 256 terms the engine reads.
            let start = rng.below(vocab.len());
            (0..300)
                .map(|i| vocab[(start + i * 7) % vocab.len()].as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }
        7 => rng.pick(vocab).repeat(200),
        _ => {
            let n = 1 + rng.below(6);
            let sep = [" ", " ", " ", "  ", ", ", "-", "\u{a0}"];
            let mut q = String::new();
            for i in 0..n {
                if i > 0 {
                    q.push_str(rng.pick::<&str>(&sep));
                }
                q.push_str(&word(rng, vocab));
            }
            q
        }
    }
}

fn facet(rng: &mut Rng, lib_facets: &[(String, Vec<String>)], field: &str) -> Option<String> {
    lib_facets
        .iter()
        .find(|(f, _)| f == field)
        .filter(|(_, vals)| !vals.is_empty())
        .map(|(_, vals)| rng.pick(vals).clone())
}

/// A random scope, and the index of the shard it was drawn from.
fn scope(rng: &mut Rng, out: &BuildOutput) -> (Value, usize) {
    let shards = &out.manifest.shards;
    let mut s = Map::new();
    let at = rng.below(shards.len());
    let shard = &shards[at];
    // Facet values of the chosen shard, or (sometimes) of any shard: the latter may empty the gate.
    let other = rng.pick(shards);
    let facets: Vec<(String, Vec<String>)> = (if rng.chance(75) { shard } else { other })
        .facets
        .iter()
        .map(|(f, c)| (f.clone(), c.keys().cloned().collect()))
        .collect();
    match rng.below(100) {
        0..=59 => {
            s.insert("subject".into(), json!(shard.subject));
            s.insert("level".into(), json!(shard.level));
        }
        60..=69 => {
            s.insert("subject".into(), json!(shard.subject));
        }
        70..=74 => {
            s.insert("level".into(), json!(shard.level));
        }
        75..=84 => {}
        85..=92 => {
            // Valid values that never meet (e.g. physics at premiere): the gate admits nothing.
            s.insert("subject".into(), json!(shard.subject));
            s.insert("level".into(), json!(other.level));
        }
        _ => {
            // Values the manifest does not know: an error naming the valid ones.
            let bad = *rng.pick(&["chimie", "lycee", "Physics", " physics ", "", "math"]);
            let field = *rng.pick(&["subject", "level", "doc_type", "lang", "exam"]);
            s.insert(field.into(), json!(bad));
        }
    }
    for (field, percent) in [
        ("doc_type", 25),
        ("chapter", 12),
        ("year", 8),
        ("paper", 5),
        ("exam", 6),
        ("lang", 8),
        ("question_number", 6),
        ("section", 5),
        ("topic", 4),
    ] {
        if !rng.chance(percent) {
            continue;
        }
        let value = match field {
            "topic" => json!(rng.pick(&["thermodynamics", "énergie", "recursion"])),
            "chapter" | "year" | "question_number" | "section" if rng.chance(30) => {
                // A number, sometimes one no chunk has.
                json!(*rng.pick(&[1u64, 2, 3, 5, 11, 14, 2023, 99]))
            }
            _ => match facet(rng, &facets, field) {
                Some(v) => json!(v),
                None => continue,
            },
        };
        s.insert(field.into(), value);
    }
    (Value::Object(s), at)
}

fn options(rng: &mut Rng) -> Value {
    let mut o = Map::new();
    if rng.chance(90) {
        let v = *rng.pick(&["A", "B", "B+", "C", "D", "E", "F"]);
        o.insert("variant".into(), json!(v));
    }
    if rng.chance(85) {
        o.insert(
            "k".into(),
            json!(*rng.pick(&[1u64, 2, 3, 5, 8, 8, 10, 20, 50])),
        );
    }
    if rng.chance(8) {
        let g = *rng.pick(&["gated", "ungated", "post_filtered"]);
        o.insert("gating".into(), json!(g));
    }
    if rng.chance(20) {
        o.insert("allow_fallback".into(), json!(true));
    }
    if rng.chance(8) {
        o.insert("expand_chars".into(), json!(*rng.pick(&[0u64, 200, 2000])));
    }
    if rng.chance(8) {
        o.insert("snippet_chars".into(), json!(*rng.pick(&[16u64, 60, 300])));
    }
    if rng.chance(8) {
        o.insert("dense_weight".into(), json!(*rng.pick(&[0.0, 0.5, 1.0])));
    }
    if rng.chance(20) {
        // The dense path switched on (F's is off by default) or off (A–E's are on).
        o.insert("dense".into(), json!(rng.chance(75)));
    }
    if rng.chance(5) {
        o.insert("rrf_k".into(), json!(*rng.pick(&[0.0, 10.0, 60.5])));
    }
    if rng.chance(5) {
        o.insert("window".into(), json!(*rng.pick(&[1u64, 5, 200])));
    }
    if rng.chance(5) {
        o.insert("k_min".into(), json!(*rng.pick(&[0u64, 3, 8])));
    }
    if rng.chance(30) {
        // As the page and the embed ask: snippets only, no full text.
        o.insert("text".into(), json!(!rng.chance(80)));
    }
    if rng.chance(3) {
        // Invalid options are refused with a message, the same everywhere.
        match rng.below(3) {
            0 => o.insert("k".into(), json!(0)),
            1 => o.insert("variant".into(), json!("Z")),
            _ => o.insert("colour".into(), json!("red")),
        };
    }
    Value::Object(o)
}

/// The [`CASES`] cases, drawn from [`SEED`]; `fixture` provides the scope values.
pub fn cases(fixture: &Fixture) -> Vec<Case> {
    let all = vocabulary(None);
    let per_shard = fixture.shard_vocabularies();
    let mut rng = Rng::new(SEED);
    (0..CASES)
        .map(|_| {
            let setup = match rng.below(10) {
                0..=3 => Setup::Lexical,
                4..=7 => Setup::Dense,
                _ => Setup::DenseNoModel,
            };
            let (scope, shard) = scope(&mut rng, fixture.output(setup));
            let vocab = if rng.chance(85) {
                &per_shard[shard]
            } else {
                &all
            };
            let query = query(&mut rng, vocab);
            let options = options(&mut rng);
            Case {
                query,
                scope,
                options,
                setup,
            }
        })
        .collect()
}
