//! The dense step of a pass: embed the query once, search the gated vectors of every shard whose
//! vectors come from the loaded model.

use super::query::Query;
use super::{Key, Library, SearchOptions, Shard, Trace};
use crate::clock::now_ms;
use crate::dense::{self, DenseShard};
use crate::format::QVec;
use crate::gate::Bitset;

/// Adds a note to the trace of the primary pass, once.
fn note_once(trace: &mut Trace, primary: bool, m: String) {
    if primary && !trace.notes.contains(&m) {
        trace.notes.push(m);
    }
}

impl Library {
    /// The dense list of a pass, or `None` (with a note) when the dense path is unavailable.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn dense_list<'a>(
        &self,
        q: &Query<'_>,
        shards: &[&'a Shard],
        gates: &[Bitset],
        window: usize,
        opts: &SearchOptions,
        trace: &mut Trace,
        primary: bool,
        id_of: &impl Fn(usize, u32) -> &'a str,
    ) -> Option<Vec<Key>> {
        if !dense::BUILT {
            let note =
                "dense path unavailable: this build of the engine has none (the lexical module)";
            note_once(trace, primary, note.into());
            return None;
        }
        if let (Some(spec), Some(qv)) = (&self.manifest.query_vectors, &opts.query_vector) {
            // Vectors brought with the corpus: the caller's query vector (checked in `search`).
            let sha = format!("{}{}", crate::format::BYO_PREFIX, spec.model_id);
            return self.dense_with(qv, &sha, shards, gates, window, opts, trace, primary, id_of);
        }
        if let Some(spec) = &self.manifest.query_vectors {
            let note = format!(
                "dense path unavailable: these shards hold vectors from {}; pass query_vector (and vector_model)",
                crate::format::json::quote(&spec.model_id)
            );
            note_once(trace, primary, note);
            return None;
        }
        let Some(embedder) = &self.embedder else {
            note_once(
                trace,
                primary,
                "dense path unavailable: no embedding model loaded".into(),
            );
            return None;
        };
        let t0 = now_ms();
        let (v, fresh) = q.vector(|| embedder.embed_query(q.text));
        if fresh {
            trace.timings.embed_ms += now_ms() - t0;
        }
        let sha = embedder.model_sha256().to_string();
        self.dense_with(v, &sha, shards, gates, window, opts, trace, primary, id_of)
    }

    /// Dense search of the pool's shards whose vectors come from the model `model_sha256`.
    #[allow(clippy::too_many_arguments)]
    fn dense_with<'a>(
        &self,
        v: &[f32],
        model_sha256: &str,
        shards: &[&'a Shard],
        gates: &[Bitset],
        window: usize,
        opts: &SearchOptions,
        trace: &mut Trace,
        primary: bool,
        id_of: &impl Fn(usize, u32) -> &'a str,
    ) -> Option<Vec<Key>> {
        let mut pool = Vec::new();
        let mut positions = Vec::new();
        for (si, (s, g)) in shards.iter().zip(gates).enumerate() {
            let note = match (&s.dense, &s.payload.dense, &s.entry.dense) {
                (Some(d), Some(meta), _) if meta.model_sha256 == model_sha256 => {
                    pool.push((d, g));
                    positions.push(si);
                    continue;
                }
                (Some(_), Some(meta), _) => format!(
                    "{}: vectors from model {} ({}), not the loaded model: rebuild with `chsr build --model`",
                    s.entry.file,
                    meta.model_id,
                    meta.model_sha256.chars().take(12).collect::<String>()
                ),
                (_, _, Some(part)) => {
                    format!("{}: vectors not loaded yet ({})", s.entry.file, part.file)
                }
                _ => format!("{}: no dense index in this shard", s.entry.file),
            };
            note_once(trace, primary, note);
        }
        if pool.is_empty() {
            return None;
        }
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let unit: Vec<f32> = if norm > 0.0 {
            v.iter().map(|x| x / norm).collect()
        } else {
            v.to_vec()
        };
        let qv = QVec::quantize(&unit);
        let pool_refs: Vec<(&DenseShard, &Bitset)> = pool.iter().map(|(d, g)| (*d, *g)).collect();
        let (scored, plans) = dense::search(&pool_refs, &qv, window, &opts.dense, |si, doc| {
            id_of(positions[si], doc)
        });
        if primary {
            trace.dense_plans = plans;
            trace.dense_candidates = scored.len();
        }
        Some(
            scored
                .into_iter()
                .map(|s| Key {
                    shard: positions[s.shard],
                    doc: s.doc,
                })
                .collect(),
        )
    }
}
