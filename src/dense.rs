//! Dense retrieval over a gated pool: exact scan when the gate is selective, HNSW otherwise.
//!
//! A graph search followed by a filter loses recall when few chunks are admissible (most of the
//! `ef_search` neighbours found are then out of scope). So the gate decides the plan, per shard:
//!
//! * **exact**: the admissible set is small (at most [`DenseConfig::exact_max`] chunks, or at
//!   most [`DenseConfig::exact_fraction`] of the shard): score exactly those vectors;
//! * **graph**: search the HNSW graph (its `ef_search` neighbours), keep admissible hits;
//! * **graph+exact**: the graph left fewer admissible hits than the window asks for (and more
//!   admissible chunks exist), so the shard is scanned exactly instead.
//!
//! Never fewer than `window` results are returned when `window` admissible chunks exist.

use crate::bm25::{sort_and_cut, Scored};
use crate::format::{DenseGraph, QVec};
use crate::gate::Bitset;
use serde::Serialize;

/// Whether this build of the reader has the dense path (cargo feature `dense`, on by default).
/// The browser's lexical module is built without it: every entry point that would load or search
/// vectors returns early on this constant, so the compiler leaves the model, the vector decoding
/// and the vector search out of that module (22 kB of its 200 kB brotli).
pub const BUILT: bool = cfg!(feature = "dense");

/// Thresholds choosing the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseConfig {
    /// Scan exactly when at most this many chunks are admissible.
    pub exact_max: usize,
    /// Scan exactly when at most this fraction of the shard is admissible.
    pub exact_fraction: f64,
}

impl Default for DenseConfig {
    fn default() -> Self {
        DenseConfig {
            exact_max: 2048,
            exact_fraction: 0.25,
        }
    }
}

/// The plan chosen for one shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Plan {
    /// Exact scan of the admissible vectors (selective gate).
    Exact,
    /// HNSW search, admissible hits kept.
    Graph,
    /// HNSW search left too few admissible hits: exact scan instead.
    GraphThenExact,
}

/// A shard's dense index ready to search.
pub struct DenseShard {
    /// The graph (points = chunk vectors, values = chunk indices).
    pub graph: DenseGraph,
    /// For each chunk index, its point id in the graph.
    pub point_of: Vec<u32>,
    /// Vector dimensions.
    pub dims: usize,
}

impl std::fmt::Debug for DenseShard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DenseShard({} vectors × {})",
            self.point_of.len(),
            self.dims
        )
    }
}

impl DenseShard {
    /// Wraps a decoded graph (validated by `DenseIndex::decode_graph`).
    pub fn new(graph: DenseGraph, dims: usize) -> DenseShard {
        let mut point_of = vec![0u32; graph.values.len()];
        for (pid, &doc) in graph.values.iter().enumerate() {
            point_of[doc as usize] = pid as u32;
        }
        DenseShard {
            graph,
            point_of,
            dims,
        }
    }
}

/// Exact scan of the admissible chunks of one shard.
fn exact(shard: &DenseShard, gate: &Bitset, q: &QVec, si: usize) -> Vec<Scored> {
    // Points are stored in graph order; walk them once and keep the admissible ones.
    shard
        .graph
        .iter()
        .zip(&shard.graph.values)
        .filter(|(_, &doc)| gate.contains(doc as usize))
        .map(|((_, p), &doc)| Scored {
            shard: si,
            doc,
            score: q.dot(p),
        })
        .collect()
}

/// Searches the pool; returns the best `window` and the plan used per shard.
pub fn search<'a>(
    pool: &[(&DenseShard, &Bitset)],
    q: &QVec,
    window: usize,
    cfg: &DenseConfig,
    id_of: impl Fn(usize, u32) -> &'a str,
) -> (Vec<Scored>, Vec<Plan>) {
    let mut out = Vec::new();
    let mut plans = Vec::with_capacity(pool.len());
    for (si, (shard, gate)) in pool.iter().enumerate() {
        let admissible = gate.count();
        if admissible == 0 {
            plans.push(Plan::Exact);
            continue;
        }
        let n = gate.universe().max(1);
        if admissible <= cfg.exact_max || (admissible as f64) <= cfg.exact_fraction * n as f64 {
            out.extend(exact(shard, gate, q, si));
            plans.push(Plan::Exact);
            continue;
        }
        let mut search = instant_distance::Search::default();
        let hits: Vec<Scored> = shard
            .graph
            .search(q, &mut search)
            .filter(|item| gate.contains(*item.value as usize))
            .map(|item| Scored {
                shard: si,
                doc: *item.value,
                score: q.dot(item.point),
            })
            .collect();
        if hits.len() < window.min(admissible) {
            out.extend(exact(shard, gate, q, si));
            plans.push(Plan::GraphThenExact);
        } else {
            out.extend(hits);
            plans.push(Plan::Graph);
        }
    }
    sort_and_cut(&mut out, window, &id_of);
    (out, plans)
}

/// Exact nearest neighbours of `q` among all chunks of a shard (for recall measurements).
pub fn exact_all(shard: &DenseShard, q: &QVec, k: usize) -> Vec<u32> {
    let all = Bitset::full(shard.point_of.len());
    let mut v = exact(shard, &all, q, 0);
    v.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.doc.cmp(&b.doc)));
    v.truncate(k);
    v.into_iter().map(|s| s.doc).collect()
}

/// Graph nearest neighbours of `q` in a shard, unfiltered (for recall measurements).
pub fn graph_all(shard: &DenseShard, q: &QVec, k: usize) -> Vec<u32> {
    let mut search = instant_distance::Search::default();
    shard
        .graph
        .search(q, &mut search)
        .take(k)
        .map(|i| *i.value)
        .collect()
}
