//! Step 4: one retrieval pass over a scope, as named steps — gate, lexical lists (BM25, labels,
//! answers), dense list, fusion, post-filter (baselines only), rerank — over the shards the gate
//! chose.
//!
//! Relaxation runs the same pass over a widened scope ([`crate::relax`]); only the first pass
//! (`primary`) writes the trace's per-query facts.

use super::query::Query;
use super::{Key, Library, SearchOptions, Shard, Trace, NO_ANSWER, NO_SECTION};
use crate::analysis::{Lang, MAX_QUERY_TERMS};
use crate::bm25::{self, PoolShard};
use crate::clock::now_ms;
use crate::expand::natural_cmp;
use crate::fusion::{fuse, rank_in, RankedList, Source};
use crate::gate::{self, Bitset, Gating, Leakage};
use crate::rerank::{rerank, Adjustment, Candidate};
use crate::scope::Scope;

use super::response::Probe;

/// A candidate of a pass, with its scores and leakage label.
pub(crate) struct Cand {
    pub(crate) key: Key,
    pub(crate) fused: f64,
    pub(crate) score: f64,
    pub(crate) bm25_rank: Option<usize>,
    pub(crate) dense_rank: Option<usize>,
    pub(crate) adjustments: Vec<Adjustment>,
    pub(crate) leakage: Leakage,
}

impl Cand {
    /// A candidate with no score (browsing).
    fn unscored(key: Key) -> Cand {
        Cand {
            key,
            fused: 0.0,
            score: 0.0,
            bm25_rank: None,
            dense_rank: None,
            adjustments: Vec::new(),
            leakage: Leakage::InScope,
        }
    }
}

/// The shards of a pass and their gates. Keys inside a pass are positions in `shards`; they
/// become manifest positions when the pass ends.
pub(crate) struct Pool<'a> {
    pub(crate) shards: Vec<&'a Shard>,
    pub(crate) gates: Vec<Bitset>,
    pub(crate) manifest_idx: Vec<usize>,
}

impl<'a> Pool<'a> {
    fn id(&self, si: usize, doc: u32) -> &'a str {
        self.shards[si].payload.chunks[doc as usize].id.as_str()
    }

    fn chunk(&self, k: Key) -> &'a crate::format::ChunkRecord {
        &self.shards[k.shard].payload.chunks[k.doc as usize]
    }

    /// The pool as BM25 sees it: each shard's inverted index, parameters and gate.
    pub(crate) fn lexical(&self) -> Vec<PoolShard<'_>> {
        self.lexical_over(&self.gates)
    }

    /// The pool's shards as BM25 sees them, each admitting `gates[i]` instead of its gate.
    fn lexical_over<'b>(&'b self, gates: &'b [Bitset]) -> Vec<PoolShard<'b>> {
        self.shards
            .iter()
            .zip(gates)
            .map(|(s, g)| PoolShard {
                index: &s.payload.lexical,
                k1: s.payload.params.k1,
                b: s.payload.params.b,
                total_len: s.total_len,
                gate: g,
                sections: &s.sections,
                section_units: s.section_units,
            })
            .collect()
    }

    /// Keys are shard positions inside a pass: makes them manifest positions, and labels what an
    /// ungated baseline let through.
    fn finish(&self, cands: &mut [Cand], scope: &Scope, gating: Gating) {
        for c in cands.iter_mut() {
            if gating != Gating::Gated && !gate::admits(scope, self.chunk(c.key)) {
                c.leakage = Leakage::Ungated;
            }
            c.key.shard = self.manifest_idx[c.key.shard];
        }
    }

    /// Languages present in the pool (sorted).
    fn langs(&self) -> Vec<Lang> {
        let mut langs: Vec<Lang> = self
            .shards
            .iter()
            .flat_map(|s| s.langs.iter().copied())
            .collect();
        crate::order::sort(&mut langs);
        langs.dedup();
        langs
    }
}

impl Library {
    /// The loaded shards a pass over `scope` reads, and the files it would read that are not
    /// loaded.
    pub(crate) fn pass_shards(&self, scope: &Scope, gating: Gating) -> (Vec<&Shard>, Vec<String>) {
        let mut shards = Vec::new();
        let mut missing = Vec::new();
        for i in self.shard_indices(scope, gating) {
            match &self.shards[i] {
                Some(s) => shards.push(s),
                None => missing.push(self.manifest.shards[i].file.clone()),
            }
        }
        (shards, missing)
    }

    /// Gate step: the pool's shards and the bitset of the chunks each admits (locked fields
    /// are enforced in every gating mode).
    pub(crate) fn gate_step(&self, scope: &Scope, gating: Gating) -> Pool<'_> {
        let (shards, _) = self.pass_shards(scope, gating);
        let gates = shards
            .iter()
            .map(|s| {
                gate::gate_mode(
                    scope,
                    gating,
                    &s.payload.subject,
                    &s.payload.level,
                    s.chunks(),
                )
            })
            .collect();
        let manifest_idx = shards
            .iter()
            .map(|s| {
                self.manifest
                    .shards
                    .iter()
                    .position(|e| e.file == s.entry.file)
                    .unwrap_or(0)
            })
            .collect();
        Pool {
            shards,
            gates,
            manifest_idx,
        }
    }

    /// One retrieval pass: gate, lexical and dense lists, fusion, post-filter, rerank.
    pub(crate) fn pass(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        gating: Gating,
        opts: &SearchOptions,
        primary: bool,
        trace: &mut Trace,
    ) -> Vec<Cand> {
        let st = opts.stages;
        let t0 = now_ms();
        let pool = self.gate_step(scope, gating);
        let t_gate = now_ms();
        trace.timings.gate_ms += t_gate - t0;
        if primary {
            trace.shards = pool.shards.iter().map(|s| s.entry.file.clone()).collect();
            trace.pool_chunks = pool.shards.iter().map(|s| s.chunks().len()).sum();
            trace.admissible = pool.gates.iter().map(Bitset::count).sum();
        }
        let terms = q.terms(&self.analyzer, &self.glossary, &pool.langs());
        if primary {
            trace.expansion = terms.expansion.clone();
            trace.query_terms = terms.terms.clone();
            trace.truncated = terms.truncated;
            if terms.truncated {
                trace.notes.push(format!(
                    "the query was truncated to its first {MAX_QUERY_TERMS} distinct terms"
                ));
            }
        }
        if terms.terms.is_empty() {
            return self.browse_step(&pool, scope, gating, opts, primary, trace);
        }
        let mut lists = Vec::new();
        if st.lexical {
            // The first gated pass keeps its scores for the relaxation's evidence over this scope
            // (only when a relaxation will read them).
            let keep = (primary && gating == Gating::Gated && st.relax).then_some(scope);
            self.lexical_step(
                &pool,
                &terms.terms,
                q,
                opts,
                primary,
                keep,
                trace,
                &mut lists,
            );
        }
        if st.lexical && st.answers {
            // The query's own terms (the glossary's additions are not the student's question).
            let own = &terms.terms[..terms.terms.len() - terms.expansion.len()];
            answers_step(&pool, own, opts, &mut lists);
        }
        let t_lex = now_ms();
        trace.timings.lexical_ms += t_lex - t_gate;
        if st.dense {
            match self.dense_step(&pool, q, &terms.terms, opts, primary, trace) {
                Some(keys) => lists.push(RankedList {
                    source: Source::Dense,
                    keys,
                }),
                None if !st.lexical => return Vec::new(),
                None => {}
            }
        }
        let t_dense = now_ms();
        let mut cands = fuse_step(&pool, &lists, opts);
        if primary && opts.probe {
            trace.probe = Some(probe(&pool, &lists, &cands));
        }
        if gating == Gating::PostFiltered {
            cands.truncate(opts.k);
            let dropped = gate::post_filter(&mut cands, scope, |c| pool.chunk(c.key));
            if primary {
                trace.post_filtered_out = dropped;
            }
        }
        if st.rerank {
            cands = self.rerank_step(&pool, cands, q, opts, primary, trace);
        }
        pool.finish(&mut cands, scope, gating);
        trace.timings.dense_ms += t_dense - t_lex;
        trace.timings.fusion_ms += now_ms() - t_dense;
        cands
    }

    /// Browse step: a query with no searchable term (empty, or only stopwords) lists the scope
    /// in id order.
    fn browse_step(
        &self,
        pool: &Pool<'_>,
        scope: &Scope,
        gating: Gating,
        opts: &SearchOptions,
        primary: bool,
        trace: &mut Trace,
    ) -> Vec<Cand> {
        if primary {
            trace.browse = true;
            trace
                .notes
                .push("no searchable term in the query: browsing the scope in id order".into());
        }
        let mut cands: Vec<Cand> = browse(pool, opts.k)
            .into_iter()
            .map(Cand::unscored)
            .collect();
        // Ungated browsing lists every shard: drop what is outside the scope when post-filtering,
        // and label the rest, exactly as for a ranked list.
        if gating == Gating::PostFiltered {
            let dropped = gate::post_filter(&mut cands, scope, |c| pool.chunk(c.key));
            if primary {
                trace.post_filtered_out = dropped;
            }
        }
        pool.finish(&mut cands, scope, gating);
        cands
    }

    /// Lexical step: the BM25 list (blended with section evidence when on) and, when the query
    /// names a label, the admissible chunks carrying it. With `keep` (the pool's gated scope),
    /// every matching chunk's score is kept in the query ([`Query::keep_scope_scores`]).
    #[allow(clippy::too_many_arguments)]
    fn lexical_step(
        &self,
        pool: &Pool<'_>,
        terms: &[String],
        q: &Query<'_>,
        opts: &SearchOptions,
        primary: bool,
        keep: Option<&Scope>,
        trace: &mut Trace,
        lists: &mut Vec<RankedList<Key>>,
    ) {
        let st = opts.stages;
        let window = opts.window();
        let shards: &[&Shard] = &pool.shards;
        let id_of = |si: usize, doc: u32| shards[si].payload.chunks[doc as usize].id.as_str();
        let bm = pool.lexical();
        let section_idf = opts.section_idf();
        let scored = if st.sections && opts.section_weight > 0.0 {
            // Every matching chunk is scored, so that each section's evidence is complete,
            // then the blended list is cut to the window.
            let (all, docs) = bm25::score_sections(&bm, terms, section_idf);
            if let Some(scope) = keep {
                q.keep_scope_scores(scope, terms, &all);
            }
            let section_of = |si: usize, doc: u32| {
                Some(pool.shards[si].sections[doc as usize]).filter(|&k| k != NO_SECTION)
            };
            let docs = bm25::SectionDocs {
                scores: &docs,
                weight: opts.section_doc,
            };
            bm25::section_blend(all, opts.section_weight, section_of, docs, window, id_of)
        } else {
            bm25::search(&bm, terms, section_idf, window, id_of)
        };
        if primary {
            trace.lexical_candidates = scored.len();
        }
        lists.push(RankedList {
            source: Source::Bm25,
            keys: scored
                .iter()
                .map(|s| Key {
                    shard: s.shard,
                    doc: s.doc,
                })
                .collect(),
        });
        // A label named in the query ("Table 4.1", "Appendix G") designates chunks directly:
        // the admissible ones form a third list, in id order, so the fusion keeps them in the
        // window even when the query's other words pull BM25 elsewhere (the rerank then lifts
        // them).
        if let (true, Some(label)) = (st.labels, &q.understanding.label) {
            let matcher = crate::rerank::LabelMatcher::new(label);
            let mut keys = Vec::new();
            for (si, (s, g)) in pool.shards.iter().zip(&pool.gates).enumerate() {
                for d in g.iter() {
                    if matcher.matches(&s.payload.chunks[d]) {
                        keys.push(Key {
                            shard: si,
                            doc: d as u32,
                        });
                    }
                }
            }
            keys.sort_by(|a, b| {
                id_of(a.shard, a.doc)
                    .cmp(id_of(b.shard, b.doc))
                    .then(a.shard.cmp(&b.shard))
            });
            keys.truncate(window);
            if !keys.is_empty() {
                lists.push(RankedList {
                    source: Source::Label,
                    keys,
                });
            }
        }
    }

    /// Dense step: the nearest vectors over the gated pool, or `None` when the dense path is
    /// unavailable or has no evidence.
    ///
    /// A query none of whose terms occurs in a shard's lexicon is out of vocabulary there (a
    /// typo, gibberish, another language without a glossary entry): the static model has no
    /// better evidence than that lexicon, so the shard gives the dense path nothing (in a
    /// widened pass, the nearest vectors of the original level to a word only the other level
    /// knows would be noise).
    fn dense_step(
        &self,
        pool: &Pool<'_>,
        q: &Query<'_>,
        terms: &[String],
        opts: &SearchOptions,
        primary: bool,
        trace: &mut Trace,
    ) -> Option<Vec<Key>> {
        let known_in: Vec<bool> = pool
            .shards
            .iter()
            .map(|s| {
                // A caller's own query vector is evidence of its own.
                opts.query_vector.is_some()
                    || terms.iter().any(|t| s.payload.lexical.term_id(t).is_some())
            })
            .collect();
        if !known_in.contains(&true) {
            if primary {
                // Nothing for the vector path to do: a page need not fetch the model for it.
                trace.dense_path = false;
                trace.notes.push(
                    "no query term occurs in the searched shards: the dense path was skipped"
                        .into(),
                );
            }
            return None;
        }
        // Copied only when some shard knows no term (the usual pass searches them all).
        let narrowed: Option<Vec<Bitset>> = known_in.contains(&false).then(|| {
            pool.gates
                .iter()
                .zip(&known_in)
                .map(|(g, &k)| if k { g.clone() } else { Bitset::empty(g.len()) })
                .collect()
        });
        let shards: &[&Shard] = &pool.shards;
        let id_of = |si: usize, doc: u32| shards[si].payload.chunks[doc as usize].id.as_str();
        self.dense_list(
            q,
            &pool.shards,
            narrowed.as_deref().unwrap_or(&pool.gates),
            opts.window(),
            opts,
            trace,
            primary,
            &id_of,
        )
    }

    /// Rerank step: metadata-aware boosts and near-duplicate removal over the fused window.
    fn rerank_step(
        &self,
        pool: &Pool<'_>,
        mut cands: Vec<Cand>,
        q: &Query<'_>,
        opts: &SearchOptions,
        primary: bool,
        trace: &mut Trace,
    ) -> Vec<Cand> {
        cands.truncate(opts.window());
        let rc: Vec<Candidate<'_, usize>> = cands
            .iter()
            .enumerate()
            .map(|(i, c)| Candidate {
                key: i,
                chunk: pool.chunk(c.key),
                score: c.score,
                dense_rank: c.dense_rank,
                adjustments: Vec::new(),
                near: pool.shards[c.key.shard]
                    .payload
                    .near_duplicates_of(c.key.doc),
            })
            .collect();
        let (kept, dups) = rerank(rc, &q.understanding, &q.soft, &opts.rerank, opts.k);
        if primary {
            trace.duplicates = dups;
        }
        let mut slots: Vec<Option<Cand>> = cands.into_iter().map(Some).collect();
        kept.into_iter()
            .filter_map(|k| {
                let mut c = slots[k.key].take()?;
                c.score = k.score;
                c.adjustments = k.adjustments;
                Some(c)
            })
            .collect()
    }
}

/// The fewest distinct terms of a question the answers step reads as a pasted exercise: a
/// shorter one is a search ("tableau des indices"), which many exercises hold whole.
const ANSWERS_MIN_TERMS: usize = 8;

/// Answers step: a correction found by its question. A correction rarely repeats its question's
/// words (a mark scheme's "0.0122 M", a correction that is code), so when a student pastes a
/// question and asks for corrections, the words match the exercise, which the scope leaves out,
/// and not its correction. When an exercise that admissible corrections answer ([`Shard::answers`];
/// one the scope does not admit itself) holds the question whole — at least
/// `opts.answers_coverage` of its IDF ([`bm25::coverage`]: the pasted statement is that
/// exercise) — its corrections form a list, best-covered first, fused with the others. The
/// exercise is only evidence: only admissible chunks enter the list, as everywhere. A question
/// that is no exercise's (a new one, or one the site does not have) gets no list: corrections of
/// merely similar exercises would push the correction's own words down; nor does a question of
/// fewer than [`ANSWERS_MIN_TERMS`] terms.
fn answers_step(
    pool: &Pool<'_>,
    terms: &[String],
    opts: &SearchOptions,
    lists: &mut Vec<RankedList<Key>>,
) {
    if terms.len() < ANSWERS_MIN_TERMS {
        return;
    }
    // The exercises the admissible corrections answer, those the scope does not admit itself.
    let mut asked: Vec<Bitset> = Vec::with_capacity(pool.shards.len());
    let mut any = false;
    for (s, g) in pool.shards.iter().zip(&pool.gates) {
        let mut b = Bitset::empty(s.chunks().len());
        if !s.answers.is_empty() {
            for d in g.iter() {
                let e = s.answers[d];
                if e != NO_ANSWER && !g.contains(e as usize) {
                    b.insert(e as usize);
                    any = true;
                }
            }
        }
        asked.push(b);
    }
    if !any {
        return;
    }
    // The corrections of each exercise that holds the question whole (few: a scan each).
    let mut keys: Vec<(f32, Key)> = Vec::new();
    for e in bm25::coverage(&pool.lexical_over(&asked), terms) {
        if f64::from(e.score) < opts.answers_coverage {
            continue;
        }
        let answers = &pool.shards[e.shard].answers;
        for d in pool.gates[e.shard].iter() {
            if answers[d] == e.doc {
                let key = Key {
                    shard: e.shard,
                    doc: d as u32,
                };
                keys.push((e.score, key));
            }
        }
    }
    if keys.is_empty() {
        return;
    }
    crate::order::sort_by(&mut keys, |a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| pool.id(a.1.shard, a.1.doc).cmp(pool.id(b.1.shard, b.1.doc)))
            .then_with(|| a.1.shard.cmp(&b.1.shard))
    });
    keys.truncate(opts.window());
    lists.push(RankedList {
        source: Source::Answers,
        keys: keys.into_iter().map(|(_, k)| k).collect(),
    });
}

/// Fusion step: reciprocal rank fusion of the typed lists (ties broken by id, then shard).
fn fuse_step(pool: &Pool<'_>, lists: &[RankedList<Key>], opts: &SearchOptions) -> Vec<Cand> {
    let shards: &[&Shard] = &pool.shards;
    fuse(lists, opts.dense_weight, opts.rrf_k, |k: &Key| {
        (
            shards[k.shard].payload.chunks[k.doc as usize].id.as_str(),
            k.shard,
        )
    })
    .iter()
    .map(|f| Cand {
        key: f.key,
        fused: f.score,
        score: f.score,
        bm25_rank: rank_in(f, lists, Source::Bm25),
        dense_rank: rank_in(f, lists, Source::Dense),
        adjustments: Vec::new(),
        leakage: Leakage::InScope,
    })
    .collect()
}

/// The per-stage candidate lists, for `explain`.
fn probe(pool: &Pool<'_>, lists: &[RankedList<Key>], cands: &[Cand]) -> Probe {
    let ids = |keys: &[Key]| -> Vec<String> {
        keys.iter()
            .map(|k| pool.id(k.shard, k.doc).to_string())
            .collect()
    };
    let list = |s: Source| {
        lists
            .iter()
            .find(|l| l.source == s)
            .map(|l| ids(&l.keys))
            .unwrap_or_default()
    };
    Probe {
        bm25: list(Source::Bm25),
        dense: list(Source::Dense),
        fused: cands
            .iter()
            .map(|c| pool.id(c.key.shard, c.key.doc).to_string())
            .collect(),
    }
}

/// The first `k` admissible chunks in id order (browsing a scope with an empty query).
fn browse(pool: &Pool<'_>, k: usize) -> Vec<Key> {
    let mut all: Vec<(&str, usize, u32)> = Vec::new();
    for (si, (s, g)) in pool.shards.iter().zip(&pool.gates).enumerate() {
        for d in g.iter() {
            all.push((s.payload.chunks[d].id.as_str(), si, d as u32));
        }
    }
    crate::order::sort_by(&mut all, |a, b| natural_cmp(a.0, b.0));
    all.into_iter()
        .take(k)
        .map(|(_, shard, doc)| Key { shard, doc })
        .collect()
}
