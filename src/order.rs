//! One sort for the cold paths.
//!
//! Every `sort_by` with its own element type and comparator instantiates the standard library's
//! whole stable sort (about ten functions, 4 kB of Wasm each time): the browser module carried 224
//! sort functions, 80 kB of code before wasm-opt. The query's hot sorts (scores, candidates,
//! fused lists) keep their own; the rest (a shard's languages, facet values, a section's chunks in
//! reading order, `explain`'s shards, browsing a scope) sort a list of indices through one shared
//! instantiation, then move the elements into that order. The result is exactly that of
//! `sort_by` (a stable sort has one result for a given comparator), at the price of an indirect
//! call per comparison and one allocation, nothing on lists this size.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`: the same order as `v.sort_by(cmp)`.
pub fn sort_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = {
        let items = &*v;
        sorted_indices(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    let mut old: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(
        order
            .into_iter()
            .map(|i| old[i].take().expect("each index once")),
    );
}

/// Sorts `v` stably in ascending order: the same order as `v.sort()`.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

/// Sorts `v` stably by `key`: the same order as `v.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `0..n` sorted stably by `cmp` over indices: the one instantiation of the standard sort.
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_is_that_of_the_standard_stable_sort() {
        // Ties (equal keys) keep their input order, as `sort_by` keeps them.
        let base: Vec<(u8, usize)> = [3u8, 1, 2, 1, 3, 0, 2, 2, 1, 0, 3, 3]
            .iter()
            .copied()
            .zip(0..)
            .collect();
        for n in 0..=base.len() {
            let mut ours = base[..n].to_vec();
            let mut std = ours.clone();
            sort_by_key(&mut ours, |x| x.0);
            std.sort_by_key(|x| x.0);
            assert_eq!(ours, std);
            let mut ours = base[..n].to_vec();
            let mut std = ours.clone();
            // Odd keys first, then by key; ties in input order.
            let cmp =
                |a: &(u8, usize), b: &(u8, usize)| (b.0 % 2).cmp(&(a.0 % 2)).then(a.0.cmp(&b.0));
            sort_by(&mut ours, cmp);
            std.sort_by(cmp);
            assert_eq!(ours, std);
        }
        let mut words = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort(&mut words);
        assert_eq!(words, ["a", "a", "b", "c"]);
    }
}
