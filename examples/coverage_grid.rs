//! Runs files for the section-coverage grid (docs/benchmark.md, *Section coverage*): variants E and D on a
//! query set for every setting of `RerankConfig::coverage_*`, one `chsr eval --runs` file per
//! setting, to be compared by `scripts/cv-quality select-ess`.
//!
//! ```text
//! cargo run --release --example coverage_grid -- SHARDS QUERIES.jsonl OUTDIR
//! scripts/cv-quality select-ess E OUTDIR/off.jsonl... (see docs/benchmark.md for the full line)
//! ```
//!
//! Settings: `off` (no coverage), then `r{places}-m{margin}-d{dense}` for places {1, 2, 3} ×
//! margin {0.8, 0.85, 0.9, 0.93, 0.95, 0.97} × dense {0, 1, 2, 4, 7, 9, 19}; the environment
//! variables `SLOTS`, `MARGINS` and `DENSES` (comma-separated) replace a list.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use chsr::eval;
    use chsr::scope::Scope;
    use chsr::search::{Gating, Library, SearchOptions, Variant};
    use std::path::PathBuf;

    fn list<T: std::str::FromStr + Clone>(var: &str, default: &[T]) -> Vec<T> {
        match std::env::var(var) {
            Ok(v) => v
                .split(',')
                .map(|x| {
                    x.trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("{var}: cannot read {x:?}"))
                })
                .collect(),
            Err(_) => default.to_vec(),
        }
    }

    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: coverage_grid SHARDS QUERIES.jsonl OUTDIR");
        std::process::exit(2);
    }
    let dir = PathBuf::from(&args[1]);
    let text = std::fs::read_to_string(&args[2]).expect("queries readable");
    let out = PathBuf::from(&args[3]);
    std::fs::create_dir_all(&out).expect("output folder");
    let queries = eval::queries::parse_queries(&args[2], &text).expect("queries parse");
    let mut lib = Library::open_dir(&dir).expect("shards open");
    lib.load_needed_from_dir(&dir, &Scope::new(), Gating::Ungated)
        .expect("shards load");
    lib.load_model_from_dir(&dir).expect("model loads");

    let mut grid: Vec<(String, usize, f64, usize)> = vec![("off".into(), 0, 1.0, 0)];
    for r in list("SLOTS", &[1usize, 2, 3]) {
        for m in list("MARGINS", &[0.8f64, 0.85, 0.9, 0.93, 0.95, 0.97]) {
            for d in list("DENSES", &[0usize, 1, 2, 4, 7, 9, 19]) {
                grid.push((format!("r{r}-m{m}-d{d}"), r, m, d));
            }
        }
    }
    // LEXICAL=1: variant F without its dense list, the lexical margin varied instead
    // (`dense` is then unused).
    let lexical = std::env::var("LEXICAL").is_ok_and(|v| v == "1");
    if lexical {
        grid = vec![("off".into(), 0, 1.0, 0)];
        for r in list("SLOTS", &[1usize, 2, 3]) {
            for m in list("MARGINS", &[0.8f64, 0.85, 0.9, 0.93, 0.95, 0.97, 0.99]) {
                grid.push((format!("r{r}-l{m}"), r, m, 0));
            }
        }
    }
    for (label, slots, margin, dense) in grid {
        if lexical {
            let mut opts = SearchOptions::for_variant(Variant::F);
            opts.stages.dense = std::env::var("WITH_DENSE").is_ok();
            opts.rerank.coverage_slots = slots;
            opts.rerank.coverage_lexical_margin = margin;
            let systems = vec![eval::System {
                name: "F-lexical".into(),
                opts,
            }];
            let runs = eval::run_systems(&lib, &queries, &systems, 1).expect("searches run");
            let path = out.join(format!("{label}.jsonl"));
            std::fs::write(&path, eval::report::runs_jsonl(&queries, &runs)).expect("runs written");
            eprintln!("{}", path.display());
            continue;
        }
        let systems: Vec<eval::System> = [Variant::E, Variant::D]
            .into_iter()
            .map(|v| {
                let mut opts = SearchOptions::for_variant(v);
                opts.rerank.coverage_slots = slots;
                opts.rerank.coverage_margin = margin;
                opts.rerank.coverage_dense = dense;
                eval::System {
                    name: if v == Variant::E { "E" } else { "D" }.into(),
                    opts,
                }
            })
            .collect();
        let runs = eval::run_systems(&lib, &queries, &systems, 1).expect("searches run");
        let path = out.join(format!("{label}.jsonl"));
        std::fs::write(&path, eval::report::runs_jsonl(&queries, &runs)).expect("runs written");
        eprintln!("{}", path.display());
    }
}
