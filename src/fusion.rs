//! Reciprocal rank fusion (RRF): `score(d) = Σ_lists 1 / (k + rank_list(d))`, ranks 1-based.
//!
//! Each input list is already cut to the rank window. A document absent from a list contributes
//! nothing for it. The per-list ranks are kept for explanations. Ties on the fused score are
//! broken by the best single-list rank (lower first), then by id ascending, so the order is total.

/// A fused candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Fused<K> {
    /// The candidate's key.
    pub key: K,
    /// Fused score.
    pub score: f64,
    /// 1-based rank in each input list (`None` if absent).
    pub ranks: Vec<Option<usize>>,
}

/// Default RRF constant.
pub const DEFAULT_RRF_K: f64 = 60.0;

/// Where a ranked list comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// BM25 over the gated pool (with section evidence when on).
    Bm25,
    /// Chunks carrying a label the query names ("Table 4.1"), in id order.
    Label,
    /// Nearest vectors over the gated pool.
    Dense,
    /// Admissible corrections ranked by the BM25 score of the exercise each answers.
    Answers,
}

/// A ranked list of keys from one [`Source`].
#[derive(Clone, Debug, PartialEq)]
pub struct RankedList<K> {
    /// Where the list comes from.
    pub source: Source,
    /// Keys, best first, cut to the rank window.
    pub keys: Vec<K>,
}

/// Fuses typed lists: the dense list weighs `dense_weight`, the others 1
/// ([`weighted_rrf`]). A candidate's rank in one source is [`rank_in`].
pub fn fuse<K: Clone + PartialEq, I: Ord>(
    lists: &[RankedList<K>],
    dense_weight: f64,
    k: f64,
    id_of: impl Fn(&K) -> I,
) -> Vec<Fused<K>> {
    let keys: Vec<&[K]> = lists.iter().map(|l| l.keys.as_slice()).collect();
    let weights: Vec<f64> = lists
        .iter()
        .map(|l| match l.source {
            Source::Dense => dense_weight,
            Source::Bm25 | Source::Label | Source::Answers => 1.0,
        })
        .collect();
    weighted_rrf(&keys, &weights, k, id_of)
}

/// The 1-based rank of a fused candidate in the list of `source`, if that list holds it.
pub fn rank_in<K>(f: &Fused<K>, lists: &[RankedList<K>], source: Source) -> Option<usize> {
    lists
        .iter()
        .position(|l| l.source == source)
        .and_then(|i| f.ranks[i])
}

/// Fuses ranked lists with equal weights. `id_of` gives the tie-breaking id of a key.
pub fn rrf<K: Clone + PartialEq, I: Ord>(
    lists: &[Vec<K>],
    k: f64,
    id_of: impl Fn(&K) -> I,
) -> Vec<Fused<K>> {
    weighted_rrf(lists, &vec![1.0; lists.len()], k, id_of)
}

/// Fuses ranked lists, list `i` contributing `weights[i] / (k + rank)` (missing weights are 1).
pub fn weighted_rrf<K: Clone + PartialEq, I: Ord>(
    lists: &[impl AsRef<[K]>],
    weights: &[f64],
    k: f64,
    id_of: impl Fn(&K) -> I,
) -> Vec<Fused<K>> {
    let mut out: Vec<Fused<K>> = Vec::new();
    for (li, list) in lists.iter().enumerate() {
        for (r, key) in list.as_ref().iter().enumerate() {
            let rank = r + 1;
            let contrib = weights.get(li).copied().unwrap_or(1.0) / (k + rank as f64);
            match out.iter_mut().find(|f| f.key == *key) {
                Some(f) => {
                    f.score += contrib;
                    f.ranks[li] = Some(rank);
                }
                None => {
                    let mut ranks = vec![None; lists.len()];
                    ranks[li] = Some(rank);
                    out.push(Fused {
                        key: key.clone(),
                        score: contrib,
                        ranks,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| best_rank(a).cmp(&best_rank(b)))
            .then_with(|| id_of(&a.key).cmp(&id_of(&b.key)))
    });
    out
}

fn best_rank<K>(f: &Fused<K>) -> usize {
    f.ranks
        .iter()
        .flatten()
        .copied()
        .min()
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_fusion() {
        // BM25: a b c ; dense: c a d   (k = 60)
        let lex = vec!["a", "b", "c"];
        let den = vec!["c", "a", "d"];
        let f = rrf(&[lex, den], 60.0, |k| *k);
        let got: Vec<(&str, f64)> = f.iter().map(|x| (x.key, x.score)).collect();
        let a = 1.0 / 61.0 + 1.0 / 62.0;
        let c = 1.0 / 63.0 + 1.0 / 61.0;
        let b = 1.0 / 62.0;
        let d = 1.0 / 63.0;
        assert_eq!(
            got.iter().map(|x| x.0).collect::<Vec<_>>(),
            vec!["a", "c", "b", "d"]
        );
        for ((_, s), e) in got.iter().zip([a, c, b, d]) {
            assert!((s - e).abs() < 1e-12);
        }
        assert_eq!(f[1].ranks, vec![Some(3), Some(1)]);
        assert_eq!(f[3].ranks, vec![None, Some(3)]);
    }

    #[test]
    fn ties_break_by_best_rank_then_id() {
        // x is 1st in list 0, y is 1st in list 1: same score, same best rank → id order.
        let f = rrf(&[vec!["y2", "x"], vec!["x2", "y"]], 60.0, |k| *k);
        let order: Vec<&str> = f.iter().map(|x| x.key).collect();
        assert_eq!(order, vec!["x2", "y2", "x", "y"]);
        // Smaller k weighs the top ranks more.
        let f = rrf(&[vec!["a", "b"], vec!["b"]], 1.0, |k| *k);
        assert_eq!(f[0].key, "b");
    }
}
