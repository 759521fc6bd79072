//! Shards for the asymmetric-encoding measurement: documents embedded by the transformer, queries
//! by a static model trained into the same space (`chsr tokenlearn --doc-vectors`).
//!
//! ```text
//! cargo run --release --example asym_build -- OUT_DIR MODEL.chsrm DOC_VECTORS.jsonl CORPUS.jsonl...
//! ```
//!
//! Builds exactly as `chsr build --model MODEL.chsrm` does, except that each chunk's dense vector
//! is read from DOC_VECTORS.jsonl (`{"id", "vector"}` lines) instead of being pooled by the static
//! model; the model file is still published beside the shards and embeds the queries, so
//! `chsr eval --shards OUT_DIR` measures the pair. A measuring tool: `chsr build` has no such path.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use chsr::build::{build_with, index_text, write_output, BuildOptions, Embedder};
    use chsr::corpus::read_corpus;
    use chsr::embed::StaticModel;
    use std::collections::HashMap;

    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: asym_build OUT_DIR MODEL.chsrm DOC_VECTORS.jsonl CORPUS.jsonl...");
        std::process::exit(2);
    }
    let model_bytes = std::fs::read(&args[1]).expect("model file");
    let model = StaticModel::from_bytes(&model_bytes).expect("model decodes");
    let mut by_id: HashMap<String, Vec<f32>> = HashMap::new();
    for line in std::fs::read_to_string(&args[2])
        .expect("doc vectors")
        .lines()
    {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let vec: Vec<f32> = v["vector"]
            .as_array()
            .expect("vector")
            .iter()
            .map(|x| x.as_f64().expect("number") as f32)
            .collect();
        by_id.insert(v["id"].as_str().expect("id").to_string(), vec);
    }
    let chunks = read_corpus(&args[3..]).expect("corpus").chunks;
    // The builder embeds index texts; map each text back to its chunk's vector.
    let mut by_text: HashMap<String, Vec<f32>> = HashMap::new();
    for c in &chunks {
        let v = by_id
            .get(&c.record.id)
            .unwrap_or_else(|| panic!("no vector for {}", c.record.id));
        by_text.insert(index_text(&c.record), v.clone());
    }
    let embed = |t: &str| {
        by_text
            .get(t)
            .cloned()
            .unwrap_or_else(|| panic!("no vector for an index text"))
    };
    let h = model.header();
    let e = Embedder {
        model_id: format!(
            "{} static d{} {} ({} rows), documents by the transformer",
            h.source_model,
            h.dims,
            h.quantization.name(),
            h.rows
        ),
        file: &model_bytes,
        dims: model.dims(),
        embed: &embed,
    };
    let out = build_with(&chunks, &BuildOptions::default(), Some(&e));
    write_output(&out, std::path::Path::new(&args[0])).expect("write shards");
    eprintln!("built {} shards into {}", out.shards.len(), args[0]);
}
