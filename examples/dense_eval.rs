//! Dense-only retrieval quality of static embedding models on the OpenCERB dev queries.
//!
//! ```text
//! cargo run --release --example dense_eval -- [--slices] [--corpus C.jsonl] [--queries Q.jsonl] MODEL.chsrm...
//! ```
//!
//! For each model: embeds every chunk text, then for each query embeds the query and ranks the
//! chunks of the query's scope (every scope field equal to the chunk's, compared as strings,
//! integers as decimal strings) by exact cosine, ties by corpus order. Reports nDCG@8 (graded,
//! IDCG from the best 8 grades) and Recall@8 (hits / min(|relevant|, 8)), overall and, with
//! `--slices`, per slice; plus file size, model load time, chunk embedding time and the median
//! query embedding time.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use chsr::corpus::read_files;
    use chsr::embed::{dot, StaticModel};
    use chsr::format::{ChunkRecord, Field};
    use serde_json::Value;
    use std::collections::BTreeMap;
    use std::path::PathBuf;
    use std::time::Instant;

    const K: usize = 8;

    struct Query {
        text: String,
        slice: String,
        scope: Vec<(Option<Field>, String)>,
        grades: BTreeMap<String, f64>,
    }

    fn scalar(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }

    fn load_queries(path: &PathBuf) -> Vec<Query> {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("query line is JSON");
                let scope = v["scope"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| (Field::parse(k), scalar(v)))
                            .collect()
                    })
                    .unwrap_or_default();
                let grades = v["relevant_grades"]
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, g)| (k.clone(), g.as_f64().unwrap_or(0.0)))
                            .collect()
                    })
                    .unwrap_or_default();
                Query {
                    text: v["query"].as_str().unwrap_or_default().to_string(),
                    slice: v["slice"].as_str().unwrap_or("none").to_string(),
                    scope,
                    grades,
                }
            })
            .collect()
    }

    fn admissible(c: &ChunkRecord, scope: &[(Option<Field>, String)]) -> bool {
        scope.iter().all(|(f, v)| match f {
            Some(f) => c.get(*f) == Some(v.as_str()),
            None => false,
        })
    }

    #[derive(Default, Clone)]
    struct Acc {
        n: usize,
        ndcg: f64,
        recall: f64,
    }

    pub fn main() {
        let mut corpus = PathBuf::from("tests/data/opencerb/corpus/chunks.jsonl");
        let mut queries = PathBuf::from("tests/data/opencerb/dev/queries.jsonl");
        let mut slices = false;
        let mut models = Vec::new();
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--corpus" => corpus = args.next().expect("--corpus PATH").into(),
                "--queries" => queries = args.next().expect("--queries PATH").into(),
                "--slices" => slices = true,
                _ => models.push(PathBuf::from(a)),
            }
        }
        if models.is_empty() {
            eprintln!("usage: dense_eval [--slices] [--corpus C] [--queries Q] MODEL...");
            std::process::exit(2);
        }
        let chunks: Vec<ChunkRecord> = read_files(&[corpus])
            .expect("corpus reads")
            .into_iter()
            .map(|c| c.record)
            .collect();
        let qs = load_queries(&queries);
        let pools: Vec<Vec<usize>> = qs
            .iter()
            .map(|q| {
                (0..chunks.len())
                    .filter(|&i| admissible(&chunks[i], &q.scope))
                    .collect()
            })
            .collect();
        println!(
            "{} chunks, {} queries; K = {K}; dense-only, exact cosine inside the gated scope",
            chunks.len(),
            qs.len()
        );
        println!(
            "{:<34} {:>9} {:>4} {:>5} {:>6} {:>7} {:>7} {:>8} {:>7} {:>9}",
            "model",
            "bytes",
            "D",
            "quant",
            "rows",
            "nDCG@8",
            "R@8",
            "load ms",
            "docs s",
            "query µs"
        );
        for path in &models {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let t = Instant::now();
            let model = StaticModel::from_bytes(&bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let load_ms = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let docs: Vec<Vec<f32>> = chunks.iter().map(|c| model.embed(&c.text)).collect();
            let doc_secs = t.elapsed().as_secs_f64();
            let mut per_slice: BTreeMap<String, Acc> = BTreeMap::new();
            let mut q_us = Vec::with_capacity(qs.len());
            for (q, pool) in qs.iter().zip(&pools) {
                let t = Instant::now();
                let qv = model.embed_query(&q.text);
                q_us.push(t.elapsed().as_secs_f64() * 1e6);
                let mut scored: Vec<(f32, usize)> =
                    pool.iter().map(|&i| (dot(&qv, &docs[i]), i)).collect();
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let top: Vec<&str> = scored
                    .iter()
                    .take(K)
                    .map(|&(_, i)| chunks[i].id.as_str())
                    .collect();
                let dcg: f64 = top
                    .iter()
                    .enumerate()
                    .map(|(r, id)| {
                        q.grades.get(*id).copied().unwrap_or(0.0) / ((r + 2) as f64).log2()
                    })
                    .sum();
                let mut ideal: Vec<f64> = q.grades.values().copied().collect();
                ideal.sort_by(|a, b| b.total_cmp(a));
                let idcg: f64 = ideal
                    .iter()
                    .take(K)
                    .enumerate()
                    .map(|(r, g)| g / ((r + 2) as f64).log2())
                    .sum();
                let hits = top.iter().filter(|id| q.grades.contains_key(**id)).count();
                let denom = q.grades.len().min(K);
                for key in [q.slice.as_str(), "ALL"] {
                    let a = per_slice.entry(key.to_string()).or_default();
                    a.n += 1;
                    a.ndcg += if idcg > 0.0 { dcg / idcg } else { 0.0 };
                    a.recall += if denom > 0 {
                        hits as f64 / denom as f64
                    } else {
                        0.0
                    };
                }
            }
            q_us.sort_by(f64::total_cmp);
            let median = q_us[q_us.len() / 2];
            let h = model.header();
            let all = &per_slice["ALL"];
            println!(
                "{:<34} {:>9} {:>4} {:>5} {:>6} {:>7.3} {:>7.3} {:>8.1} {:>7.2} {:>9.1}",
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                bytes.len(),
                h.dims,
                h.quantization.name(),
                h.rows,
                all.ndcg / all.n as f64,
                all.recall / all.n as f64,
                load_ms,
                doc_secs,
                median
            );
            if slices {
                for (k, a) in &per_slice {
                    println!(
                        "    {:<20} n={:<4} nDCG@8 {:.3}  R@8 {:.3}",
                        k,
                        a.n,
                        a.ndcg / a.n as f64,
                        a.recall / a.n as f64
                    );
                }
            }
        }
    }
}
