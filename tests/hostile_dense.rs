//! Forged dense indexes (issue 8): shards whose dense graph or model hash a host serving a forged
//! folder controls are refused with an error or searched with a note, never a panic. Found by
//! review and targeted by the `shard_load` fuzz target; see `tests/hostile.rs` for the rest of
//! the hostile input.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chsr::build::BuildOutput;
use chsr::search::{Library, Variant};
use common::*;

/// A toy query embedder matching [`toy_embed`] (the shards' "model", identified by the SHA-256
/// of [`TOY_FILE`]).
struct Toy(String);
const TOY_FILE: &[u8] = b"toy model for hostile.rs";
impl chsr::search::QueryEmbedder for Toy {
    fn model_sha256(&self) -> &str {
        &self.0
    }
    fn embed_query(&self, q: &str) -> Vec<f32> {
        toy_embed(q)
    }
}

/// instant-distance 0.6's serialised `HnswMap<QVec, u32>`, to forge graphs with.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct GraphBytes {
    hnsw: HnswBytes,
    values: Vec<u32>,
}
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct HnswBytes {
    ef_search: usize,
    points: Vec<chsr::format::QVec>,
    zero: Vec<([u32; 32], [u32; 32])>,
    layers: Vec<Vec<[u32; 32]>>,
}

/// A 60-chunk physics shard with a toy dense index, its payload and decoded graph layout.
fn dense_shard() -> (BuildOutput, chsr::format::ShardPayload, GraphBytes) {
    let chunks: Vec<_> = chsr::corpus::parse_jsonl("spine.jsonl", SPINE)
        .unwrap()
        .into_iter()
        .filter(|c| c.record.subject == "physics" && c.record.level == "college")
        .take(60)
        .collect();
    let f = |t: &str| toy_embed(t);
    let e = chsr::build::Embedder {
        model_id: "toy".into(),
        file: TOY_FILE,
        dims: 6,
        embed: &f,
    };
    let out = chsr::build::build_with(&chunks, &Default::default(), Some(&e));
    // The forged shards below carry their graph inline (a layout the reader still accepts).
    let mut payload = chsr::format::decode_shard(&out.shards[0].bytes).unwrap();
    payload.dense = Some(
        chsr::format::decode_dense_part(out.shards[0].dense_bytes.as_ref().unwrap(), true)
            .unwrap()
            .index,
    );
    let bytes = &payload.dense.as_ref().unwrap().graph;
    let (g, used): (GraphBytes, usize) =
        bincode::serde::decode_from_slice(bytes, bincode::config::standard()).unwrap();
    assert_eq!(used, bytes.len());
    // The mirror is exact: re-encoding gives the very same bytes.
    assert_eq!(
        &bincode::serde::encode_to_vec(&g, bincode::config::standard()).unwrap(),
        bytes
    );
    (out, payload, g)
}

/// Loads `payload` (with `graph` as its dense graph) as the only shard of a consistent manifest
/// (what a host serving a forged folder controls), then searches through the graph.
fn load_forged(
    out: &BuildOutput,
    payload: &chsr::format::ShardPayload,
    graph: Option<&GraphBytes>,
) -> Result<Library, chsr::search::LoadError> {
    let mut p = payload.clone();
    if let Some(g) = graph {
        p.dense.as_mut().unwrap().graph =
            bincode::serde::encode_to_vec(g, bincode::config::standard()).unwrap();
    }
    let bytes = chsr::format::encode_shard(&p);
    let mut m = out.manifest.clone();
    m.shards[0].sha256 = chsr::format::sha256_hex(&bytes);
    m.shards[0].dense = None;
    let file = m.shards[0].file.clone();
    let mut lib = Library::new(m);
    lib.set_embedder(Box::new(Toy(chsr::format::sha256_hex(TOY_FILE))));
    lib.load_shard(&file, &bytes)?;
    let mut o = opts(Variant::A, 5);
    o.dense.exact_max = 0;
    o.dense.exact_fraction = 0.0;
    for q in ["heat", "temperature change of water", ""] {
        let r = lib.search(q, &phys_college(), &o).unwrap();
        assert!(r.results.len() <= 5);
    }
    Ok(lib)
}

/// Found by review of what `DenseIndex::decode_graph` checks, and targeted by the `shard_load`
/// fuzz target (which forces the graph search): the HNSW search indexes its link tables without
/// bounds checks of its own, so a forged graph whose links name missing points, or whose zero
/// layer is shorter than its points, panicked the reader (and, in the browser, aborted the Wasm
/// module). `decode_graph` now checks the link tables and refuses such shards.
#[test]
fn forged_dense_graphs_are_refused() {
    let (out, payload, g) = dense_shard();
    let lib = load_forged(&out, &payload, None).expect("the real graph loads");
    let r = lib
        .search("heat", &phys_college(), &opts(Variant::A, 5))
        .unwrap();
    assert_eq!(
        r.results.len(),
        5,
        "dense-only search works on the toy model"
    );
    let n = g.hnsw.points.len() as u32;
    // The forgeries below need an upper layer: a one-node top layer without links is valid.
    let mut g = g;
    if g.hnsw.layers.is_empty() {
        g.hnsw.layers.push(vec![[u32::MAX; 32]]);
    }
    load_forged(&out, &payload, Some(&g)).expect("a graph with a valid upper layer loads");
    let top = g.hnsw.layers.len() - 1;
    let mut forged: Vec<(&str, GraphBytes)> = Vec::new();
    let mut x = g.clone();
    x.hnsw.zero[0].0[0] = n + 7;
    forged.push(("zero-layer link past the points", x));
    let mut x = g.clone();
    x.hnsw.zero.truncate(1);
    forged.push(("zero layer shorter than the points", x));
    let mut x = g.clone();
    x.hnsw.layers[0][0][0] = x.hnsw.layers[0].len() as u32 + 3;
    forged.push(("upper-layer link past its layer", x));
    let mut x = g.clone();
    x.hnsw.layers[top].clear();
    forged.push(("empty top layer", x));
    let mut x = g.clone();
    let extra = x.hnsw.layers[0].clone();
    x.hnsw.layers[top].extend(extra.iter().cycle().take(2 * n as usize));
    forged.push(("top layer larger than the points", x));
    let mut x = g.clone();
    x.hnsw.points.push(x.hnsw.points[0].clone());
    x.hnsw.zero.push(x.hnsw.zero[0]);
    forged.push(("more points than values", x));
    for (what, x) in &forged {
        match load_forged(&out, &payload, Some(x)) {
            Err(chsr::search::LoadError::Format { error, .. }) => {
                let e = error.to_string();
                assert!(
                    e.starts_with("shard payload does not decode: dense graph"),
                    "{what}: {e}"
                );
            }
            Err(e) => panic!("{what}: unexpected error {e}"),
            Ok(_) => panic!("{what}: a forged graph was accepted"),
        }
    }
}

/// Found by review: the note for a shard whose vectors come from another model sliced the model
/// SHA-256 from the shard by bytes (`[..12]`), which panics when a forged shard puts a
/// multi-byte character there.
#[test]
fn foreign_model_note_survives_a_non_ascii_model_hash() {
    let (out, mut payload, _) = dense_shard();
    payload.dense.as_mut().unwrap().model_sha256 = "aééééééééé-not-hex".into();
    let lib = load_forged(&out, &payload, None).expect("loads; the model only differs");
    let r = lib
        .search("heat", &phys_college(), &opts(Variant::C, 5))
        .unwrap();
    common::assert_note(&r, "not the loaded model");
}
