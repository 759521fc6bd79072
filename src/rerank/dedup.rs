//! Near-duplicates: word-set Jaccard similarity, and the build-time similarity join that finds
//! every pair of chunks at or above [`DEDUP_THRESHOLD`].
//!
//! The reranker removes a result that nearly duplicates a better-ranked one. It used to compare
//! the results' texts at query time; since display text lives in its own files (fetched for the
//! results shown, not before ranking), the build finds the pairs once over the whole corpus and
//! stores them with each shard ([`crate::format::NearDuplicate`]): ranking needs no text, and the
//! pairs are exactly those the query-time comparison found (same word sets, same arithmetic).
//!
//! The join is the classic prefix-filtered all-pairs join: words are ordered rarest first; two
//! sets with Jaccard ≥ t share a word among the first `|A| − ⌈t·|A|⌉ + 1` of each, and their
//! sizes are within a factor t; each candidate pair is then compared exactly.

use std::collections::HashMap;

/// The similarity from which the reranker treats two chunks as near-duplicates, and down to which
/// the build stores pairs.
pub const DEDUP_THRESHOLD: f64 = 0.75;

/// The set of a text's words (lowercase, 2+ characters) as sorted, distinct 64-bit FNV-1a
/// hashes: the same Jaccard similarity as sets of strings (barring a 64-bit collision), without
/// allocating a string per word. Deterministic, so native and Wasm agree.
pub fn word_set(text: &str) -> Vec<u64> {
    let mut set: Vec<u64> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().nth(1).is_some())
        .map(|w| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            if w.is_ascii() {
                // The same bytes as the general path below, without decoding characters.
                for b in w.bytes() {
                    h = (h ^ b.to_ascii_lowercase() as u64).wrapping_mul(0x0000_0100_0000_01b3);
                }
                return h;
            }
            for c in w.chars().flat_map(char::to_lowercase) {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            h
        })
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// Jaccard similarity of two word sets ([`word_set`]); two empty sets are identical (1).
pub fn set_similarity(a: &[u64], b: &[u64]) -> f64 {
    let inter = overlap(a, b, 0).expect("every overlap reaches 0");
    set_similarity_of(inter, a.len() + b.len())
}

/// The number of words two sorted sets share (a merge), or `None` as soon as the words left
/// cannot bring it to `need`.
fn overlap(a: &[u64], b: &[u64], need: usize) -> Option<usize> {
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        if inter + (a.len() - i).min(b.len() - j) < need {
            return None;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    (inter >= need).then_some(inter)
}

/// [`set_similarity`] of `a` and `b` when it is at least `threshold`, else `None`. The merge
/// stops as soon as the words left cannot bring the overlap to the smallest one that reaches
/// `threshold` (most candidate pairs of a join are rejected after a few words); the value
/// returned is [`set_similarity`]'s, bit for bit.
pub fn similarity_at_least(a: &[u64], b: &[u64], threshold: f64) -> Option<f64> {
    let n = a.len() + b.len();
    // Jaccard = inter / (n − inter) grows with inter: the smallest overlap that reaches the
    // threshold, found with the same arithmetic as the similarity itself.
    let reaches = |x: usize| n == 0 || (x as f64) / ((n - x) as f64) >= threshold;
    let mut need = ((threshold * n as f64) / (1.0 + threshold)).ceil() as usize;
    need = need.min(a.len().min(b.len()) + 1);
    while need > 0 && reaches(need - 1) {
        need -= 1;
    }
    while need <= a.len().min(b.len()) && !reaches(need) {
        need += 1;
    }
    if need > a.len().min(b.len()) && n > 0 {
        return None;
    }
    let inter = overlap(a, b, need)?;
    let sim = set_similarity_of(inter, n);
    (sim >= threshold).then_some(sim)
}

/// Jaccard similarity from the overlap of two sets and the sum of their sizes.
fn set_similarity_of(inter: usize, n: usize) -> f64 {
    let inter = inter as f64;
    let union = n as f64 - inter;
    if union == 0.0 {
        1.0
    } else {
        inter / union
    }
}

/// Jaccard similarity of the word sets of two texts (lowercase, words of 2+ characters).
pub fn similarity(a: &str, b: &str) -> f64 {
    set_similarity(&word_set(a), &word_set(b))
}

/// Every pair `(i, j, similarity)` with `i < j` of `sets` ([`word_set`]s) whose Jaccard
/// similarity is at least `threshold` (> 0), sorted by `(i, j)`.
pub fn similar_pairs(sets: &[Vec<u64>], threshold: f64) -> Vec<(u32, u32, f64)> {
    assert!(threshold > 0.0 && threshold <= 1.0, "threshold in (0, 1]");
    // Words ordered rarest first (ties by hash): prefixes then hold the most selective words.
    let mut df: HashMap<u64, u32> = HashMap::new();
    for s in sets {
        for &w in s {
            *df.entry(w).or_default() += 1;
        }
    }
    let mut words: Vec<(u32, u64)> = df.iter().map(|(&w, &n)| (n, w)).collect();
    words.sort_unstable();
    let rank: HashMap<u64, u32> = words
        .iter()
        .enumerate()
        .map(|(r, &(_, w))| (w, r as u32))
        .collect();
    let ranked: Vec<Vec<u32>> = sets
        .iter()
        .map(|s| {
            let mut r: Vec<u32> = s.iter().map(|w| rank[w]).collect();
            r.sort_unstable();
            r
        })
        .collect();
    let prefix = |n: usize| n - (threshold * n as f64).ceil() as usize + 1;
    let mut out = Vec::new();
    // Two empty sets are identical (similarity 1); an empty set is similar to nothing else.
    let empty: Vec<u32> = (0..sets.len() as u32)
        .filter(|&i| sets[i as usize].is_empty())
        .collect();
    for (a, &i) in empty.iter().enumerate() {
        for &j in &empty[a + 1..] {
            out.push((i, j, 1.0));
        }
    }
    // Prefix index: word rank → sets (already seen) holding it in their prefix.
    let mut index: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut seen: Vec<u32> = Vec::new();
    for (j, r) in ranked.iter().enumerate() {
        if r.is_empty() {
            continue;
        }
        seen.clear();
        let head = &r[..prefix(r.len()).min(r.len())];
        for w in head {
            if let Some(list) = index.get(w) {
                seen.extend_from_slice(list);
            }
        }
        seen.sort_unstable();
        seen.dedup();
        for &i in &seen {
            let (a, b) = (sets[i as usize].len() as f64, r.len() as f64);
            if a.min(b) < threshold * a.max(b) {
                continue;
            }
            if let Some(sim) = similarity_at_least(&sets[i as usize], &sets[j], threshold) {
                out.push((i, j as u32, sim));
            }
        }
        for &w in head {
            index.entry(w).or_default().push(j as u32);
        }
    }
    out.sort_by_key(|x| (x.0, x.1));
    out
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    proptest::proptest! {
    /// The ASCII fast path hashes a word exactly as the general (character) path does.
    #[test]
    fn word_sets_hash_ascii_words_like_any_word(text in "[A-Za-z0-9 .,'ÉéßİΣ-]{0,80}") {
        let general = |w: &str| {
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for c in w.chars().flat_map(char::to_lowercase) {
                let mut buf = [0u8; 4];
                for &b in c.encode_utf8(&mut buf).as_bytes() {
                    h = (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
            h
        };
        let mut want: Vec<u64> = text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().nth(1).is_some())
            .map(general)
            .collect();
        want.sort_unstable();
        want.dedup();
        proptest::prop_assert_eq!(word_set(&text), want);
    }

        /// The early-stopping comparison keeps exactly the pairs that reach the threshold, with
        /// the same similarity.
        #[test]
        fn early_stop_keeps_what_reaches_the_threshold(
            a in proptest::collection::btree_set(0u64..60, 0..40),
            b in proptest::collection::btree_set(0u64..60, 0..40),
            t in proptest::sample::select(vec![0.1, 0.5, 0.6, 0.75, 0.8, 0.9, 0.95, 1.0]),
        ) {
            let (a, b): (Vec<u64>, Vec<u64>) = (a.into_iter().collect(), b.into_iter().collect());
            let s = set_similarity(&a, &b);
            proptest::prop_assert_eq!(similarity_at_least(&a, &b, t), (s >= t).then_some(s));
        }

        /// The join finds exactly the pairs a comparison of every pair finds, with the same
        /// similarity.
        #[test]
        fn join_finds_every_similar_pair(
            texts in proptest::collection::vec("(a|b|c|d|e|f|gg|hh|ii|jj|kk|ll|mm|nn| ){0,12}", 0..24),
            t in proptest::sample::select(vec![0.5, 0.75, 0.9, 1.0]),
        ) {
            let sets: Vec<Vec<u64>> = texts.iter().map(|x| word_set(x)).collect();
            let mut want = Vec::new();
            for i in 0..sets.len() {
                for j in i + 1..sets.len() {
                    let s = set_similarity(&sets[i], &sets[j]);
                    if s >= t {
                        want.push((i as u32, j as u32, s));
                    }
                }
            }
            proptest::prop_assert_eq!(similar_pairs(&sets, t), want);
        }
    }
}
