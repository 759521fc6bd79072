//! HNSW recall@10 against exact search, per shard of a built folder, with the dev queries (or
//! chunk texts) embedded by the folder's model; plus query-embedding and dense-search times.
//!
//!     cargo run --release --example hnsw_recall -- www/shards tests/data/opencerb/dev/queries.jsonl

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use chsr::dense::{exact_all, graph_all, DenseShard};
    use chsr::format::{decode_dense_part, decode_shard, Manifest, QVec};
    use chsr::search::{ModelEmbedder, QueryEmbedder};
    use std::time::Instant;

    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(args.get(1).map(String::as_str).unwrap_or("www/shards"));
    let queries = args
        .get(2)
        .map(String::as_str)
        .unwrap_or("tests/data/opencerb/dev/queries.jsonl");
    let manifest =
        Manifest::from_json(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let entry = manifest
        .model
        .clone()
        .expect("the folder has no model (build with --model)");
    let model = ModelEmbedder::from_bytes(&std::fs::read(dir.join(&entry.file)).unwrap()).unwrap();
    let qs: Vec<(String, String, String)> = std::fs::read_to_string(queries)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["query"].as_str().unwrap().to_string(),
                v["scope"]["subject"].as_str().unwrap().to_string(),
                v["scope"]["level"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let t = Instant::now();
    let vecs: Vec<Vec<f32>> = qs.iter().map(|q| model.embed_query(&q.0)).collect();
    let embed_us = t.elapsed().as_secs_f64() * 1e6 / qs.len() as f64;
    println!(
        "query embedding: {embed_us:.1} µs per query (mean over {} dev queries)",
        qs.len()
    );
    println!("| shard | chunks | queries | recall@10 graph vs exact | graph µs | exact µs | bytes per 1,000 chunks (dense part) |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for s in &manifest.shards {
        let p = decode_shard(&std::fs::read(dir.join(&s.file)).unwrap()).unwrap();
        let part = s.dense.as_ref().expect("the shard has a dense part");
        let d = &decode_dense_part(&std::fs::read(dir.join(&part.file)).unwrap(), true)
            .unwrap()
            .index;
        let shard = DenseShard::new(d.decode_graph(p.chunks.len()).unwrap(), d.dims as usize);
        let mine: Vec<&Vec<f32>> = qs
            .iter()
            .zip(&vecs)
            .filter(|(q, _)| q.1 == s.subject && q.2 == s.level)
            .map(|(_, v)| v)
            .collect();
        let (mut hit, mut total, mut tg, mut te) = (0usize, 0usize, 0f64, 0f64);
        for v in &mine {
            let q = QVec::quantize(v);
            let t = Instant::now();
            let g = graph_all(&shard, &q, 10);
            tg += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let e = exact_all(&shard, &q, 10);
            te += t.elapsed().as_secs_f64();
            total += e.len();
            hit += e.iter().filter(|x| g.contains(x)).count();
        }
        let n = mine.len().max(1) as f64;
        println!(
            "| {} / {} | {} | {} | {:.3} | {:.0} | {:.0} | {:.0} |",
            s.subject,
            s.level,
            p.chunks.len(),
            mine.len(),
            hit as f64 / total.max(1) as f64,
            tg * 1e6 / n,
            te * 1e6 / n,
            d.graph.len() as f64 * 1000.0 / p.chunks.len() as f64
        );
    }
}
