//! Time and size of hostile queries over the spine fixture: `cargo bench --bench hostile_query`.
//!
//! Not a timed test: the test suite (tests/hostile.rs) checks truncation and result shape; this
//! benchmark measures how long the worst queries take and fails only past a generous bound
//! (`HOSTILE_QUERY_BOUND_MS`, default 2000 ms per search in an optimised build), so a regression
//! to unbounded work shows without making CI flaky on a busy machine.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use chsr::build::{build, BuildOptions};
    use chsr::corpus::parse_jsonl;
    use chsr::format::Field;
    use chsr::scope::Scope;
    use chsr::search::{Library, SearchOptions, Variant};
    use std::time::Instant;
    const SPINE: &str = include_str!("../tests/fixtures/spine.jsonl");

    let bound: f64 = std::env::var("HOSTILE_QUERY_BOUND_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000.0);
    let out = build(
        &parse_jsonl("spine.jsonl", SPINE).unwrap(),
        &BuildOptions::default(),
    );
    let mut lib = Library::new(out.manifest.clone());
    for s in &out.shards {
        for (file, bytes) in s.files() {
            lib.load_file(file, bytes).unwrap();
        }
    }
    let mb = 1 << 20;
    let words: String = (0..)
        .map(|i| format!("w{i} "))
        .take_while({
            let mut n = 0;
            move |w: &String| {
                n += w.len();
                n <= mb
            }
        })
        .collect();
    let cases: Vec<(&str, String)> = vec![
        ("1 MB of one word", "heat ".repeat(mb / 5)),
        ("1 MB of distinct words", words),
        ("1 MB of one letter", "x".repeat(mb)),
        (
            "1 MB of glossary phrases",
            "specific heat capacity énergie cinétique ".repeat(mb / 42),
        ),
        (
            "1 MB of control characters",
            "\u{1}\u{7}\u{1b}".repeat(mb / 3),
        ),
        ("1 MB of formula", "$mv^{2}$ \\frac{1}{2} ".repeat(mb / 21)),
        (
            "1 MB of mixed scripts",
            "chaleur مرحبا 中文 шалом ".repeat(mb / 40),
        ),
    ];
    let scopes = [
        Scope::new(),
        Scope::new()
            .with(Field::Subject, "physics")
            .with(Field::Level, "college"),
    ];
    let mut worst: f64 = 0.0;
    println!(
        "{:<28} {:>9} {:>8} {:>9} {:>10}",
        "query", "bytes", "variant", "scope", "ms"
    );
    for (name, q) in &cases {
        for v in [Variant::B, Variant::C, Variant::E] {
            for (si, scope) in scopes.iter().enumerate() {
                let opts = SearchOptions::for_variant(v);
                let t = Instant::now();
                let r = lib.search(q, scope, &opts).expect("hostile query searches");
                let ms = t.elapsed().as_secs_f64() * 1000.0;
                assert!(r.trace.truncated, "{name}: not reported truncated");
                worst = worst.max(ms);
                println!(
                    "{:<28} {:>9} {:>8} {:>9} {:>10.2}",
                    name,
                    q.len(),
                    v.name(),
                    if si == 0 { "none" } else { "phys/col" },
                    ms
                );
            }
        }
    }
    println!("worst: {worst:.2} ms (bound {bound} ms)");
    if worst > bound {
        eprintln!("error: a hostile query took {worst:.2} ms, more than {bound} ms");
        std::process::exit(1);
    }
}
