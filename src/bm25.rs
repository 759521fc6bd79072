//! BM25 over a gated pool of shards.
//!
//! The pool is a list of (shard, admissible bitset). Collection statistics (N, average length,
//! document frequency, section frequency) are those of the *shards* in the pool, not of the
//! admitted subset, so a chunk's score does not change with the scope that admitted it. Postings
//! of inadmissible chunks are skipped before any arithmetic: they are never scored.
//!
//! **Section IDF** ([`score_all`]'s `section_idf`): a term's IDF blends BM25's, over chunks, with
//! the same formula over *sections* (N = the sections of the pool's shards, chunks without one
//! counting one each; df = the sections holding the term). Curriculum questions are answered by a
//! section, and a term that fills one section ("latent heat" in 30 chunks of *Phase Change and
//! Latent Heat*) has a modest chunk IDF but singles that section out; a term spread thinly over
//! every chapter ("value", "calculate") has a high chunk IDF and tells the sections apart poorly.
//!
//! **Section documents** ([`score_sections`]): the admitted chunks of a section read as one
//! document and scored by BM25 (term frequencies summed over them, the section's admitted length
//! against the average section's), so that a question whose words are spread over a section's
//! chunks (the definition in one, the worked example in another) finds the section even when no
//! single chunk holds them all ([`section_blend`] mixes it into the section's evidence).
//!
//! Ranking ties are broken by chunk id, ascending (then by shard order), so results are total
//! and deterministic.

use crate::format::LexicalIndex;
use crate::gate::Bitset;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// A scored chunk: shard position in the pool, chunk index in the shard, score.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scored {
    /// Index of the shard in the pool.
    pub shard: usize,
    /// Index of the chunk in its shard.
    pub doc: u32,
    /// Score (higher is better).
    pub score: f32,
}

/// One member of a pool: a shard's lexical index, its BM25 parameters and its gate.
#[derive(Clone, Copy)]
pub struct PoolShard<'a> {
    /// The shard's lexical index.
    pub index: &'a LexicalIndex,
    /// BM25 k1 of the shard.
    pub k1: f32,
    /// BM25 b of the shard.
    pub b: f32,
    /// Total term count of the shard.
    pub total_len: u64,
    /// Admissible chunks.
    pub gate: &'a Bitset,
    /// Section number of each chunk, numbered from 0 ([`NO_SECTION`] for a chunk without one):
    /// the section frequencies of section IDF.
    pub sections: &'a [u32],
    /// Distinct sections of the shard plus its chunks without a section: section IDF's N.
    pub section_units: u64,
}

/// [`PoolShard::sections`] of a chunk without a section.
pub const NO_SECTION: u32 = u32::MAX;

/// Scores every admissible chunk containing at least one query term and returns the best
/// `window`, sorted by score descending; `id_of(shard, doc)` supplies ids for tie-breaking.
/// `section_idf` as in [`score_all`].
pub fn search<'a>(
    pool: &[PoolShard<'_>],
    terms: &[String],
    section_idf: f64,
    window: usize,
    id_of: impl Fn(usize, u32) -> &'a str,
) -> Vec<Scored> {
    if window == 0 {
        return Vec::new();
    }
    let mut out = score_all(pool, terms, section_idf);
    sort_and_cut(&mut out, window, &id_of);
    out
}

/// The BM25 score of every admitted chunk that matches a term, unsorted (in shard order, then
/// in the order the postings first reach each chunk). Each term's IDF is
/// `(1 − section_idf) · IDF over chunks + section_idf · IDF over sections` (0: BM25's; see the
/// module documentation).
pub fn score_all(pool: &[PoolShard<'_>], terms: &[String], section_idf: f64) -> Vec<Scored> {
    score(pool, terms, section_idf, false).0
}

/// [`score_all`], and the BM25 score of each section read as one document (its admitted chunks;
/// see the module documentation): per pool shard, indexed by section number
/// ([`PoolShard::sections`]), 0 for a section that matches no term.
pub fn score_sections(
    pool: &[PoolShard<'_>],
    terms: &[String],
    section_idf: f64,
) -> (Vec<Scored>, Vec<Vec<f32>>) {
    score(pool, terms, section_idf, true)
}

/// How much of the query each admitted chunk holds: the IDF of the terms it contains over the IDF
/// of every term the pool's shards hold (BM25's IDF over chunks), from 0 to 1, for the chunks
/// holding at least one term; unsorted, as [`score_all`]. Term frequency and length play no
/// part: a chunk covers the query whole when it holds every term the collection knows, as an
/// exercise statement covers the same statement pasted as a question.
pub fn coverage(pool: &[PoolShard<'_>], terms: &[String]) -> Vec<Scored> {
    let whole: f64 = term_idf(pool, terms).1.iter().sum();
    if whole <= 0.0 {
        return Vec::new();
    }
    // BM25 with k1 = 0 weighs each term a chunk holds by its IDF alone.
    let flat: Vec<PoolShard<'_>> = pool.iter().map(|p| PoolShard { k1: 0.0, ..*p }).collect();
    let mut out = score_all(&flat, terms, 0.0);
    for s in &mut out {
        s.score = (f64::from(s.score) / whole) as f32;
    }
    out
}

/// Each term's id in each pool shard, and its BM25 IDF over the chunks of the pool's shards (0
/// for a term no shard holds).
fn term_idf(pool: &[PoolShard<'_>], terms: &[String]) -> (Vec<Vec<Option<usize>>>, Vec<f64>) {
    let n: u64 = pool.iter().map(|p| p.index.doc_len.len() as u64).sum();
    let ids: Vec<Vec<Option<usize>>> = pool
        .iter()
        .map(|p| terms.iter().map(|t| p.index.term_id(t)).collect())
        .collect();
    let idf = (0..terms.len())
        .map(|ti| {
            let df: u64 = pool
                .iter()
                .zip(&ids)
                .filter_map(|(p, id)| id[ti].map(|i| p.index.df[i] as u64))
                .sum();
            if df == 0 {
                0.0
            } else {
                idf_of(n, df)
            }
        })
        .collect();
    (ids, idf)
}

/// BM25's IDF of a term held by `df` of `n` documents.
fn idf_of(n: u64, df: u64) -> f64 {
    ((n as f64 - df as f64 + 0.5) / (df as f64 + 0.5)).ln_1p()
}

/// The admitted length of each section of each pool shard (by section number) and the average
/// over the sections that have admitted chunks.
fn section_lengths(pool: &[PoolShard<'_>]) -> (Vec<Vec<f64>>, f64) {
    let (mut total, mut count) = (0.0, 0u64);
    let lens = pool
        .iter()
        .map(|p| {
            let mut len: Vec<f64> = Vec::new();
            let mut admitted: Vec<bool> = Vec::new();
            for (doc, &s) in p.sections.iter().enumerate() {
                if s == NO_SECTION || !p.gate.contains(doc) {
                    continue;
                }
                let s = s as usize;
                if s >= len.len() {
                    len.resize(s + 1, 0.0);
                    admitted.resize(s + 1, false);
                }
                if !admitted[s] {
                    admitted[s] = true;
                    count += 1;
                }
                let dl = p.index.doc_len[doc] as f64;
                len[s] += dl;
                total += dl;
            }
            len
        })
        .collect();
    (lens, (total / count.max(1) as f64).max(1e-9))
}

/// [`score_all`] and, with `sections`, [`score_sections`]'s section documents, in one pass over
/// the query terms' postings.
fn score(
    pool: &[PoolShard<'_>],
    terms: &[String],
    section_idf: f64,
    sections: bool,
) -> (Vec<Scored>, Vec<Vec<f32>>) {
    let n: u64 = pool.iter().map(|p| p.index.doc_len.len() as u64).sum();
    if n == 0 || terms.is_empty() {
        return (Vec::new(), vec![Vec::new(); pool.len()]);
    }
    let total: u64 = pool.iter().map(|p| p.total_len).sum();
    let avgdl = (total as f64 / n as f64).max(1e-9);
    let mut out: Vec<Scored> = Vec::new();
    // Term ids per shard and IDF from the global document frequencies.
    let (ids, mut idf) = term_idf(pool, terms);
    if section_idf > 0.0 {
        let units: u64 = pool.iter().map(|p| p.section_units).sum();
        let sf = section_frequencies(pool, &ids, terms.len());
        for (w, sf) in idf.iter_mut().zip(sf) {
            *w = (1.0 - section_idf) * *w + section_idf * idf_of(units, sf);
        }
    }
    let (sec_len, avg_sec) = if sections {
        section_lengths(pool)
    } else {
        (vec![Vec::new(); pool.len()], 1.0)
    };
    let mut sec_scores: Vec<Vec<f32>> = sec_len.iter().map(|l| vec![0.0; l.len()]).collect();
    for (si, p) in pool.iter().enumerate() {
        if p.gate.count() == 0 {
            continue;
        }
        let mut acc: Vec<f32> = vec![0.0; p.index.doc_len.len()];
        let mut touched: Vec<u32> = Vec::new();
        let (k1, b) = (p.k1 as f64, p.b as f64);
        // A term's frequency in each section document (reset after each term).
        let len = &sec_len[si];
        let mut sec_tf: Vec<f64> = vec![0.0; len.len()];
        let mut sec_touched: Vec<usize> = Vec::new();
        for (ti, id) in ids[si].iter().enumerate() {
            let Some(id) = id else { continue };
            for (doc, tf) in p.index.postings(*id).flatten() {
                if !p.gate.contains(doc as usize) {
                    continue;
                }
                let dl = p.index.doc_len[doc as usize] as f64;
                let tf = tf as f64;
                let w = idf[ti] * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * dl / avgdl));
                let slot = &mut acc[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc);
                }
                *slot += w as f32;
                if sections {
                    // A pool shard that knows no sections (an empty list) has no section documents.
                    let s = p.sections.get(doc as usize).copied().unwrap_or(NO_SECTION);
                    if s != NO_SECTION {
                        let s = s as usize;
                        if sec_tf[s] == 0.0 {
                            sec_touched.push(s);
                        }
                        sec_tf[s] += tf;
                    }
                }
            }
            for s in sec_touched.drain(..) {
                let tf = std::mem::take(&mut sec_tf[s]);
                let norm = k1 * (1.0 - b + b * len[s] / avg_sec);
                sec_scores[si][s] += (idf[ti] * tf * (k1 + 1.0) / (tf + norm)) as f32;
            }
        }
        out.extend(touched.into_iter().map(|doc| Scored {
            shard: si,
            doc,
            score: acc[doc as usize],
        }));
    }
    (out, sec_scores)
}

/// For each term, the sections of the pool's shards that hold it (a chunk without a section
/// counts as one of its own), from its postings: every chunk, admitted or not, like df.
fn section_frequencies(
    pool: &[PoolShard<'_>],
    ids: &[Vec<Option<usize>>],
    n_terms: usize,
) -> Vec<u64> {
    let mut sf = vec![0u64; n_terms];
    for (p, ids) in pool.iter().zip(ids) {
        // The term (1-based) that last counted each section: no clearing between terms.
        let mut seen: Vec<u32> = Vec::new();
        for (ti, id) in ids.iter().enumerate() {
            let Some(id) = id else { continue };
            for (doc, _) in p.index.postings(*id).flatten() {
                match p.sections.get(doc as usize) {
                    Some(&s) if s != NO_SECTION => {
                        let s = s as usize;
                        if s >= seen.len() {
                            seen.resize(s + 1, 0);
                        }
                        if seen[s] != ti as u32 + 1 {
                            seen[s] = ti as u32 + 1;
                            sf[ti] += 1;
                        }
                    }
                    _ => sf[ti] += 1,
                }
            }
        }
    }
    sf
}

/// A section's own evidence for [`section_blend`]: the section documents' scores
/// ([`score_sections`], per pool shard by section number) and their share of the evidence.
pub struct SectionDocs<'s> {
    /// Score of each section document, per pool shard, by section number.
    pub scores: &'s [Vec<f32>],
    /// Share of the section document in a section's evidence, 0–1 (the rest: its best chunk).
    pub weight: f64,
}

/// Section evidence: blends each chunk's score with its section's evidence,
/// `(1 − weight) · score + weight · evidence(section)`, re-sorts and keeps the first `window`.
/// A section's evidence is its best chunk's score, mixed with `docs` (weight 0: the best chunk
/// alone) as
/// `(1 − docs.weight) · best + docs.weight · doc · (max best / max doc)`: the section document's
/// score brought to the chunks' scale by the ratio of the two maxima over the pool.
///
/// Curriculum material answers a question with a section's worth of text, and a pasted question
/// matches its section's exercises and worked examples more closely than the explanation: the
/// best-matching chunk of a section vouches for the rest of it, and so does the section as a
/// whole. `scored` should hold every matching chunk of the pool (the window is cut after
/// blending). Chunks without a section (`section_of` gives `None`) keep their own score.
/// Sections are per shard, numbered as [`PoolShard::sections`].
pub fn section_blend<'a>(
    scored: Vec<Scored>,
    weight: f64,
    section_of: impl Fn(usize, u32) -> Option<u32>,
    docs: SectionDocs<'_>,
    window: usize,
    id_of: impl Fn(usize, u32) -> &'a str,
) -> Vec<Scored> {
    // A lookup table only: the result's order comes from the total sort below.
    let mut best: FxHashMap<(usize, u32), f32> = FxHashMap::default();
    for s in &scored {
        if let Some(k) = section_of(s.shard, s.doc) {
            let slot = best.entry((s.shard, k)).or_insert(s.score);
            if s.score > *slot {
                *slot = s.score;
            }
        }
    }
    // The section documents' scale, brought to the chunks': the ratio of the two maxima.
    let docs = Some(docs).filter(|d| d.weight > 0.0).and_then(|d| {
        let max_doc = d.scores.iter().flatten().copied().fold(0.0f32, f32::max);
        let max_best = best.values().copied().fold(0.0f32, f32::max);
        (max_doc > 0.0).then(|| (d, max_best as f64 / max_doc as f64))
    });
    let mut out: Vec<Scored> = scored
        .into_iter()
        .map(|s| {
            let sec = match section_of(s.shard, s.doc) {
                Some(k) => {
                    let b = best.get(&(s.shard, k)).copied().unwrap_or(s.score) as f64;
                    match &docs {
                        Some((d, scale)) => {
                            let doc = d.scores[s.shard].get(k as usize).copied().unwrap_or(0.0);
                            (1.0 - d.weight) * b + d.weight * doc as f64 * scale
                        }
                        None => b,
                    }
                }
                None => s.score as f64,
            };
            Scored {
                score: ((1.0 - weight) * s.score as f64 + weight * sec) as f32,
                ..s
            }
        })
        .collect();
    sort_and_cut(&mut out, window, &id_of);
    out
}

/// Sorts by score descending, then id ascending, then shard; keeps the first `window`.
pub fn sort_and_cut<'a>(
    v: &mut Vec<Scored>,
    window: usize,
    id_of: &impl Fn(usize, u32) -> &'a str,
) {
    let cmp = |a: &Scored, b: &Scored| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| id_of(a.shard, a.doc).cmp(id_of(b.shard, b.doc)))
            .then_with(|| a.shard.cmp(&b.shard))
    };
    keep_least(v, window, &cmp);
    v.sort_by(cmp);
}

/// Keeps the `n` least elements of `v` under `cmp` (a total order), in no particular order.
///
/// A bounded heap whose top is the worst element kept: once `n` are kept, most elements cost one
/// comparison with the top. `select_nth_unstable_by` selects the same set (the order is total),
/// but its median-of-medians fallback alone was about 6 kB of the browser's module.
fn keep_least<T>(v: &mut Vec<T>, n: usize, cmp: &impl Fn(&T, &T) -> Ordering) {
    if v.len() <= n {
        return;
    }
    if n == 0 {
        v.clear();
        return;
    }
    for i in (0..n / 2).rev() {
        sift_down(&mut v[..n], i, cmp);
    }
    for j in n..v.len() {
        if cmp(&v[j], &v[0]) == Ordering::Less {
            v.swap(0, j);
            sift_down(&mut v[..n], 0, cmp);
        }
    }
    v.truncate(n);
}

/// Restores the heap (each element not less than its children) below `i`.
fn sift_down<T>(heap: &mut [T], mut i: usize, cmp: &impl Fn(&T, &T) -> Ordering) {
    loop {
        let left = 2 * i + 1;
        if left >= heap.len() {
            return;
        }
        let right = left + 1;
        let child = if right < heap.len() && cmp(&heap[right], &heap[left]) == Ordering::Greater {
            right
        } else {
            left
        };
        if cmp(&heap[child], &heap[i]) != Ordering::Greater {
            return;
        }
        heap.swap(i, child);
        i = child;
    }
}

#[cfg(test)]
impl<'a> PoolShard<'a> {
    /// Test-only: a pool member over the lexical index of `payload` with the shard's own BM25
    /// parameters and total length, the gate `gate`, no sections and 4 section units.
    pub(crate) fn of_payload(payload: &'a crate::format::ShardPayload, gate: &'a Bitset) -> Self {
        PoolShard {
            index: &payload.lexical,
            k1: payload.params.k1,
            b: payload.params.b,
            total_len: payload.lexical.total_len(),
            gate,
            sections: &[],
            section_units: 4,
        }
    }
}

/// Test-only: the decoded first shard of a default build of the JSONL `lines`.
#[cfg(test)]
pub(crate) fn payload_of(lines: &[String]) -> crate::format::ShardPayload {
    let chunks = crate::corpus::parse_jsonl("t.jsonl", &lines.join("\n")).unwrap();
    let out = crate::build::build(&chunks, &crate::build::BuildOptions::default());
    crate::format::decode_shard(&out.shards[0].bytes).unwrap()
}

/// Test-only: [`payload_of`] exercises `c:0`, `c:1`, ... with the texts `texts` (subject `s`,
/// level `l`, English).
#[cfg(test)]
pub(crate) fn exercises_payload(texts: &[&str]) -> crate::format::ShardPayload {
    let lines: Vec<String> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            serde_json::json!({"id": format!("c:{i}"), "text": t, "subject": "s",
                    "level": "l", "lang": "en", "doc_type": "exercise"})
            .to_string()
        })
        .collect();
    payload_of(&lines)
}

#[cfg(test)]
mod tests {
    #[test]
    fn keep_least_keeps_what_a_selection_keeps() {
        // Vectors with many ties on the first key (as scores tie), in scrambled order, every cut.
        for len in [0u64, 1, 2, 3, 7, 64, 300] {
            let v: Vec<(u64, u64)> = (0..len).map(|i| (i * 2_654_435_761 % 5, i)).collect();
            for n in [0, 1, 2, 5, 10, 63, 64, 65, 299, 300, 301] {
                let mut ours = v.clone();
                super::keep_least(&mut ours, n, &|a: &(u64, u64), b: &(u64, u64)| a.cmp(b));
                ours.sort();
                let mut theirs = v.clone();
                theirs.sort();
                theirs.truncate(n);
                assert_eq!(ours, theirs, "len {len}, n {n}");
            }
        }
    }

    use super::*;

    #[test]
    fn coverage_is_the_share_of_the_query_a_chunk_holds() {
        let payload = exercises_payload(&[
            "latent heat fusion",
            "latent heat",
            "pressure gauge",
            "heat",
        ]);
        let doc = |id: &str| payload.chunks.iter().position(|c| c.id == id).unwrap();
        let mut gate = crate::gate::Bitset::empty(payload.chunks.len());
        for id in ["c:0", "c:1", "c:2"] {
            gate.insert(doc(id));
        }
        let pool = [PoolShard::of_payload(&payload, &gate)];
        // "quark" is in no chunk: it weighs nothing.
        let terms: Vec<String> = ["latent", "heat", "fusion", "quark"]
            .map(String::from)
            .into();
        let all = coverage(&pool, &terms);
        let of = |id: &str| {
            all.iter()
                .find(|s| s.doc as usize == doc(id))
                .map(|s| s.score)
        };
        assert!((of("c:0").unwrap() - 1.0).abs() < 1e-6, "{all:?}");
        let part = of("c:1").unwrap();
        assert!(part > 0.3 && part < 0.9, "{part}");
        // No term: not listed; not admitted (c:3, "heat"): never scored.
        assert_eq!(of("c:2"), None);
        assert_eq!(of("c:3"), None);
    }

    #[test]
    fn section_idf_favours_a_term_that_fills_one_section() {
        // "latent" is in three chunks of section a; "value" in one chunk of each of sections
        // b, c, d: the same chunk df, but "latent" singles a section out.
        let chunks = [
            ("a", "latent heat fusion"),
            ("a", "latent heat vaporization"),
            ("a", "latent heat phase"),
            ("b", "value pressure gauge"),
            ("c", "value volume gauge"),
            ("d", "value mass gauge"),
            ("e", "latent value gauge"),
        ];
        let lines: Vec<String> = chunks
            .iter()
            .enumerate()
            .map(|(i, (sec, t))| {
                serde_json::json!({"id": format!("c:{i}"), "text": t, "subject": "s",
                    "level": "l", "lang": "en", "doc_type": "textbook_section",
                    "section_key": sec})
                .to_string()
            })
            .collect();
        let payload = payload_of(&lines);
        let n = payload.chunks.len();
        let sections: Vec<u32> = payload
            .chunks
            .iter()
            .map(|c| (c.section_key.as_deref().unwrap().as_bytes()[0] - b'a') as u32)
            .collect();
        let gate = crate::gate::Bitset::full(n);
        let pool = [PoolShard {
            sections: &sections,
            section_units: 5,
            ..PoolShard::of_payload(&payload, &gate)
        }];
        let terms: Vec<String> = ["latent", "valu"].map(String::from).into();
        let doc = |id: &str| payload.chunks.iter().position(|c| c.id == id).unwrap() as u32;
        let score = |all: &[Scored], id: &str| all.iter().find(|s| s.doc == doc(id)).unwrap().score;
        // BM25's IDF: both terms weigh the same (df 4 each; same lengths).
        let plain = score_all(&pool, &terms, 0.0);
        assert!((score(&plain, "c:0") - score(&plain, "c:3")).abs() < 1e-6);
        // Section IDF: "latent" (2 sections of 5) outweighs "value" (4 of 5).
        let blended = score_all(&pool, &terms, 0.75);
        assert!(score(&blended, "c:0") > score(&blended, "c:3") * 1.5);
        // Only the IDF changes: a chunk's score never depends on the others' admission.
        assert_eq!(blended.len(), plain.len());
        // Section documents: section a holds "latent" three times, e one; b, c, d none.
        let (chunks_again, docs) = score_sections(&pool, &terms[..1], 0.0);
        assert_eq!(chunks_again, score_all(&pool, &terms[..1], 0.0));
        assert!(docs[0][0] > docs[0][4] && docs[0][4] > 0.0, "{docs:?}");
        assert_eq!(&docs[0][1..4], &[0.0, 0.0, 0.0]);
        // A pool shard without section numbers scores its chunks the same and has no documents.
        let bare = [PoolShard {
            sections: &[],
            ..pool[0]
        }];
        let (chunks_bare, docs_bare) = score_sections(&bare, &terms, 0.0);
        assert_eq!(chunks_bare, plain);
        assert!(docs_bare[0].is_empty());
    }

    fn out_input() -> Vec<Scored> {
        [(0, 10.0), (1, 6.0), (2, 2.0), (3, 5.0)]
            .map(|(doc, score)| Scored {
                shard: 0,
                doc,
                score,
            })
            .into()
    }

    #[test]
    fn section_blend_lifts_a_sections_other_chunks() {
        // Chunks 0 and 2 share section 0; chunk 1 is alone in section 1; chunk 3 has no section.
        let sec = [0u32, 1, 0];
        let ids = ["a", "b", "c", "d"];
        let scored = vec![
            Scored {
                shard: 0,
                doc: 0,
                score: 10.0,
            },
            Scored {
                shard: 0,
                doc: 1,
                score: 6.0,
            },
            Scored {
                shard: 0,
                doc: 2,
                score: 2.0,
            },
            Scored {
                shard: 0,
                doc: 3,
                score: 5.0,
            },
        ];
        let out = section_blend(
            scored,
            0.5,
            |_, d| sec.get(d as usize).copied(),
            SectionDocs {
                scores: &[],
                weight: 0.0,
            },
            3,
            |_, d| ids[d as usize],
        );
        let got: Vec<(u32, f32)> = out.iter().map(|s| (s.doc, s.score)).collect();
        // c: 0.5·2 + 0.5·10 = 6 ties b (its own best), broken by id; d keeps 5 and is cut.
        assert_eq!(got, vec![(0, 10.0), (1, 6.0), (2, 6.0)]);
        // With section documents half the evidence: section 1's document scores as much as the
        // best section's best chunk (max 10 / max doc 4 = scale 2.5), section 0's far less.
        let docs = [vec![1.0f32, 4.0]];
        let out = section_blend(
            out_input(),
            0.5,
            |_, d| sec.get(d as usize).copied(),
            SectionDocs {
                scores: &docs,
                weight: 0.5,
            },
            4,
            |_, d| ids[d as usize],
        );
        let got: Vec<(u32, f32)> = out.iter().map(|s| (s.doc, s.score)).collect();
        // a: 0.5·10 + 0.5·(0.5·10 + 0.5·1·2.5) = 8.125; b: 0.5·6 + 0.5·(0.5·6 + 0.5·4·2.5) = 7;
        // c: 0.5·2 + 0.5·6.25 = 4.125; d (no section) keeps 5.
        assert_eq!(got, vec![(0, 8.125), (1, 7.0), (3, 5.0), (2, 4.125)]);
    }
}
