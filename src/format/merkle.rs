//! The Merkle tree that binds a shard's parts to its part list (format v12).
//!
//! A part list used to give every part's digest (16 bytes each, which no compressor shortens):
//! at 250k chunks physics college's list was 115 kB brotli, downloaded before any first result,
//! for the 20 to 30 parts a question reads. The list now gives the roots of the Merkle tree's
//! subtrees [`list_depth`] levels down (about `√n` roots for `n` parts) over all the shard's
//! parts (its text parts in chunk order, then its postings parts in term order), and each part
//! file carries, after its frame, its *audit path* within its subtree: the digests of the
//! subtrees beside it from its leaf up to its subtree's root (`⌈log2 n⌉ / 2` or so, 16 bytes
//! each). A reader hashes the frame, folds the path and compares the result with the list's
//! root of that subtree; the chain manifest → part list → part stays as strong as it was
//! (128-bit truncated SHA-256 throughout). The depth trades the list's bytes (16 a root,
//! downloaded once) against the paths' (16 a level, with every part a question reads): with `q`
//! parts a question, `16·2^d + 16·q·(h − d)` is least near `2^d ≈ 1.4·q`, and `√n` roots put
//! that at the 15 to 35 parts of the demo's and the course sites' questions.
//!
//! The tree is Certificate Transparency's (RFC 6962 §2.1, RFC 9162 §2.1): a leaf hashes `0x00`
//! and its data, an inner node `0x01` and its two children, and a tree of `n` leaves splits at
//! the largest power of two below `n`, so that every `n` has one tree and one path per leaf.

use sha2::{Digest, Sha256};

/// Bytes of a node's digest (the first 128 bits of a SHA-256, as a part list's digests were).
pub const NODE_BYTES: usize = 16;

/// A node of the tree: the first [`NODE_BYTES`] of a SHA-256.
pub type Node = [u8; NODE_BYTES];

fn truncated(digest: &[u8]) -> Node {
    digest[..NODE_BYTES]
        .try_into()
        .expect("a SHA-256 has 32 bytes")
}

/// The leaf of a part whose framed file (without its path) is `data`.
pub fn leaf(data: &[u8]) -> Node {
    truncated(&Sha256::new_with_prefix([0u8]).chain_update(data).finalize())
}

/// The inner node over `left` and `right`.
fn parent(left: &Node, right: &Node) -> Node {
    let mut v = [1u8; 1 + 2 * NODE_BYTES];
    v[1..1 + NODE_BYTES].copy_from_slice(left);
    v[1 + NODE_BYTES..].copy_from_slice(right);
    truncated(&Sha256::digest(v))
}

/// The largest power of two below `n` (`n` ≥ 2): where a tree of `n` leaves splits.
fn split(n: usize) -> usize {
    debug_assert!(n >= 2);
    1 << (usize::BITS - 1 - (n - 1).leading_zeros())
}

/// The root over `leaves` (at least one).
pub fn root(leaves: &[Node]) -> Node {
    match leaves.len() {
        0 => panic!("a Merkle tree has at least one leaf"),
        1 => leaves[0],
        n => {
            let k = split(n);
            parent(&root(&leaves[..k]), &root(&leaves[k..]))
        }
    }
}

/// The root over `leaves` (at least one) and the audit path of every leaf (the roots of the
/// subtrees beside it, from the leaf up), in one pass over the tree: O(n log n) hashes, not a
/// tree walk per leaf.
pub fn tree(leaves: &[Node]) -> (Node, Vec<Vec<Node>>) {
    match leaves.len() {
        0 => panic!("a Merkle tree has at least one leaf"),
        1 => (leaves[0], vec![Vec::new()]),
        n => {
            let k = split(n);
            let (left, mut paths) = tree(&leaves[..k]);
            let (right, right_paths) = tree(&leaves[k..]);
            paths.iter_mut().for_each(|p| p.push(right));
            paths.extend(right_paths.into_iter().map(|mut p| {
                p.push(left);
                p
            }));
            (parent(&left, &right), paths)
        }
    }
}

/// How many levels below its root a part list gives a tree of `n` leaves ([`subtrees`]): half
/// its height, so that it lists about `√n` roots.
pub fn list_depth(n: usize) -> u32 {
    n.max(1).ilog2() / 2
}

/// The subtrees `depth` levels below the root of a tree of `n` leaves (a leaf alone is not
/// split further), in leaf order, as (first leaf, leaves).
pub fn subtrees(n: usize, depth: u32) -> Vec<(usize, usize)> {
    if depth == 0 || n <= 1 {
        return vec![(0, n)];
    }
    let k = split(n);
    let mut out = subtrees(k, depth - 1);
    out.extend(
        subtrees(n - k, depth - 1)
            .into_iter()
            .map(|(a, m)| (a + k, m)),
    );
    out
}

/// How many subtrees [`subtrees`] gives, without listing them: a tree's left part is perfect
/// (a power of two), so it holds `min(k, 2^(depth−1))` of them, and the walk goes on down the
/// right.
pub fn subtree_count(mut n: usize, mut depth: u32) -> usize {
    let mut count = 0;
    while depth > 0 && n > 1 {
        let k = split(n);
        count += k.min(1 << (depth - 1).min(usize::BITS - 1));
        (n, depth) = (n - k, depth - 1);
    }
    count + 1
}

/// The subtree of [`subtrees`] that holds leaf `i` of `n`, without listing them: (its place
/// among them, its first leaf, its leaves).
pub fn subtree_of(i: usize, n: usize, depth: u32) -> (usize, usize, usize) {
    let (mut at, mut first, mut len, mut d) = (0, 0, n, depth);
    while d > 0 && len > 1 {
        let k = split(len);
        if i - first < k {
            len = k;
        } else {
            at += k.min(1 << (d - 1).min(usize::BITS - 1));
            (first, len) = (first + k, len - k);
        }
        d -= 1;
    }
    (at, first, len)
}

/// How many nodes the audit path of leaf `i` of `n` holds (none when `i` ≥ `n`).
pub fn path_len(i: usize, n: usize) -> usize {
    if i >= n || n == 1 {
        return 0;
    }
    let k = split(n);
    1 + if i < k {
        path_len(i, k)
    } else {
        path_len(i - k, n - k)
    }
}

/// The root that `leaf`, as leaf `i` of `n` with audit path `path` (its nodes one after the
/// other, as a part file carries them), leads to (RFC 9162 §2.1.3.2); `None` when the path has
/// the wrong length for that leaf.
pub fn root_from_path(leaf: Node, i: usize, n: usize, path: &[u8]) -> Option<Node> {
    if i >= n || path.len() != path_len(i, n) * NODE_BYTES {
        return None;
    }
    let (mut f, mut s, mut r) = (i, n - 1, leaf);
    for p in path.chunks_exact(NODE_BYTES) {
        let p: &Node = p.try_into().expect("chunks of NODE_BYTES");
        if s == 0 {
            return None;
        }
        if f & 1 == 1 || f == s {
            r = parent(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = parent(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    (s == 0).then_some(r)
}

/// A part file: its frame, then its audit path (from [`tree`]).
pub fn with_path(frame: Vec<u8>, path: &[Node]) -> Vec<u8> {
    let mut out = frame;
    for node in path {
        out.extend_from_slice(node);
    }
    out
}

/// The frame of a part file of leaf `i` of `n` and the root it leads to, or `None` when the
/// file is too short to hold the path that leaf needs.
pub fn frame_and_root(bytes: &[u8], i: usize, n: usize) -> Option<(&[u8], Node)> {
    let nodes = path_len(i, n);
    let at = bytes.len().checked_sub(nodes * NODE_BYTES)?;
    let (frame, path) = bytes.split_at(at);
    Some((frame, root_from_path(leaf(frame), i, n, path)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(n: usize) -> Vec<Node> {
        (0..n)
            .map(|i| leaf(format!("part {i}").as_bytes()))
            .collect()
    }

    /// The audit path of leaf `i` among `leaves`, leaf by leaf: the oracle [`tree`] is checked
    /// against.
    pub fn path(leaves: &[Node], i: usize) -> Vec<Node> {
        assert!(i < leaves.len(), "leaf {i} of {}", leaves.len());
        let n = leaves.len();
        if n == 1 {
            return Vec::new();
        }
        let k = split(n);
        let (mut p, other) = if i < k {
            (path(&leaves[..k], i), root(&leaves[k..]))
        } else {
            (path(&leaves[k..], i - k), root(&leaves[..k]))
        };
        p.push(other);
        p
    }

    /// A path as a part file carries it.
    fn flat(path: &[Node]) -> Vec<u8> {
        path.concat()
    }

    #[test]
    fn every_leaf_of_every_tree_size_leads_to_the_root_with_its_path() {
        for n in 1..=70 {
            let l = leaves(n);
            let r = root(&l);
            let (r2, paths) = tree(&l);
            assert_eq!((r2, paths.len()), (r, n));
            for i in 0..n {
                let p = path(&l, i);
                assert_eq!(p, paths[i], "leaf {i} of {n}");
                assert_eq!(p.len(), path_len(i, n), "leaf {i} of {n}");
                assert!(p.len() <= (n as f64).log2().ceil() as usize);
                assert_eq!(
                    root_from_path(l[i], i, n, &flat(&p)),
                    Some(r),
                    "leaf {i} of {n}"
                );
            }
        }
    }

    #[test]
    fn a_changed_leaf_path_or_position_leads_elsewhere() {
        let l = leaves(13);
        let r = root(&l);
        let p = flat(&path(&l, 5));
        assert_eq!(root_from_path(l[5], 5, 13, &p), Some(r));
        // Another part's bytes in place of leaf 5.
        assert_ne!(root_from_path(l[6], 5, 13, &p), Some(r));
        // A node of the path changed.
        let mut bad = p.clone();
        bad[NODE_BYTES] ^= 1;
        assert_ne!(root_from_path(l[5], 5, 13, &bad), Some(r));
        // The right bytes claimed for another position. (The tree's size is not the path's to
        // prove: the reader takes it from the part list, which the manifest's digest covers.)
        assert_ne!(root_from_path(l[5], 4, 13, &p), Some(r));
        // A path of the wrong length is refused outright.
        assert_eq!(root_from_path(l[5], 5, 13, &p[..2 * NODE_BYTES]), None);
        assert_eq!(root_from_path(l[5], 5, 13, &p[..p.len() - 1]), None);
        assert_eq!(root_from_path(l[5], 13, 13, &p), None);
    }

    #[test]
    fn the_tree_is_rfc_6962s() {
        // Three leaves: the root is H(1, H(1, a, b), c), split at 2.
        let l = leaves(3);
        assert_eq!(root(&l), parent(&parent(&l[0], &l[1]), &l[2]));
        assert_eq!(path(&l, 2), vec![parent(&l[0], &l[1])]);
        assert_eq!(path(&l, 0), vec![l[1], l[2]]);
        // A leaf hashes 0x00 and its data; an inner node cannot pass for a leaf.
        assert_eq!(
            &leaf(b"part 0")[..],
            &Sha256::digest(b"\0part 0")[..NODE_BYTES]
        );
    }

    #[test]
    fn a_list_gives_about_the_square_root_of_the_parts_in_subtrees_that_tile_them() {
        assert_eq!(
            [1, 3, 4, 15, 16, 64, 514, 4770].map(list_depth),
            [0, 0, 1, 1, 2, 3, 4, 6]
        );
        for n in 1..=300 {
            for depth in 0..=10 {
                let t = subtrees(n, depth);
                // In leaf order, one after the other, every leaf once.
                let mut next = 0;
                for &(first, m) in &t {
                    assert!(m >= 1 && first == next, "{n} {depth}: {t:?}");
                    next += m;
                }
                assert_eq!(next, n);
                assert!(t.len() <= (1 << depth).min(n));
                // Counted and found without listing them.
                assert_eq!(subtree_count(n, depth), t.len(), "{n} {depth}");
                for (at, &(first, m)) in t.iter().enumerate() {
                    for i in first..first + m {
                        assert_eq!(subtree_of(i, n, depth), (at, first, m), "{n} {depth} {i}");
                    }
                }
                // Each is a subtree of the whole tree: the whole root is the tree over their
                // roots split as the whole tree splits (checked through the paths: a leaf's
                // path within its subtree, then on up, is its path in the whole tree).
                if n <= 40 && depth <= 3 {
                    let l = leaves(n);
                    for &(first, m) in &t {
                        for i in first..first + m {
                            let inner = path(&l[first..first + m], i - first);
                            assert_eq!(inner[..], path(&l, i)[..inner.len()], "{n} {depth} {i}");
                        }
                    }
                }
            }
        }
        // The depth the list uses for the demo's chemistry (514 parts: 512 and 2): 10 roots,
        // eight subtrees of 64 parts (paths of 6 nodes instead of 10) and two single parts.
        let t = subtrees(514, list_depth(514));
        assert_eq!(t.len(), 10);
        assert_eq!(t[..8].iter().map(|&(_, m)| m).sum::<usize>(), 512);
    }

    #[test]
    fn a_part_file_gives_back_its_frame_and_root() {
        let frames: Vec<Vec<u8>> = (0..9).map(|i| vec![i as u8; 40 + i]).collect();
        let l: Vec<Node> = frames.iter().map(|f| leaf(f)).collect();
        let r = root(&l);
        for (i, f) in frames.iter().enumerate() {
            let file = with_path(f.clone(), &path(&l, i));
            let (frame, got) = frame_and_root(&file, i, 9).unwrap();
            assert_eq!((frame, got), (&f[..], r));
            // A byte of the frame or of the path changed: another root.
            let mut bad = file.clone();
            bad[0] ^= 1;
            assert_ne!(frame_and_root(&bad, i, 9).unwrap().1, r);
            let last = bad.len() - 1;
            bad[0] ^= 1;
            bad[last] ^= 1;
            assert_ne!(frame_and_root(&bad, i, 9).unwrap().1, r);
        }
        // Too short for its path.
        assert!(frame_and_root(&[0u8; 10], 0, 9).is_none());
    }
}
