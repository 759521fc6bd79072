//! Postings by term range: a large shard's postings live in parts (`*.chsri`) named by its part
//! list; a search needs the parts of its own terms (`Library::postings_needed`), refuses to run
//! without them, and then ranks exactly as with the postings inside the shard. Every way of
//! getting a part wrong is a clear error that leaves the library as it was.

use chsr::build::{build, BuildOptions, BuildOutput};
use chsr::corpus::parse_jsonl;
use chsr::format::{
    encode_part_list, encode_postings_part, merkle, sha256_hex, Field, Manifest, PartList,
    PostingsPart,
};
use chsr::scope::Scope;
use chsr::search::{Library, SearchError, SearchOptions, Variant};

mod common;
use common::{built_file, library, library_with, SPINE};

fn spine(block: usize) -> BuildOutput {
    build(
        &parse_jsonl("spine.jsonl", SPINE).unwrap(),
        &BuildOptions {
            postings_block_bytes: Some(block),
            postings_inline_bytes: block.saturating_mul(8),
            ..BuildOptions::default()
        },
    )
}

fn physics_hs() -> Scope {
    Scope::new()
        .with(Field::Subject, "physics")
        .with(Field::Level, "high_school")
}

fn ranked(lib: &Library, q: &str, v: Variant) -> Vec<(String, u64)> {
    let r = lib
        .search(q, &physics_hs(), &SearchOptions::for_variant(v))
        .unwrap();
    r.results
        .iter()
        .map(|h| (h.id.clone(), h.score.to_bits()))
        .collect()
}

#[test]
fn a_search_needs_the_postings_of_its_own_terms_and_then_ranks_as_with_inline_postings() {
    let (split, inline) = (spine(256), spine(usize::MAX));
    let all: usize = split.shards.iter().map(|s| s.postings.len()).sum();
    assert!(all > 5, "the spine's shards are cut into postings parts");
    assert!(inline.shards.iter().all(|s| s.postings.is_empty()));
    let mut lib = library_with(&split, |f| !f.ends_with(".chsri"));
    let whole = library(&inline);
    let opts = SearchOptions::for_variant(Variant::F);
    for q in [
        "specific heat of water",
        "chaleur massique",
        "Newton's second law of motion",
        "entropie et désordre",
        "",
    ] {
        let needed = lib.postings_needed(q, &opts);
        if q.is_empty() {
            assert!(needed.is_empty(), "browsing reads no postings");
            continue;
        }
        // (A query may find its parts loaded by an earlier one: the glossary's expansions
        // share terms across languages.)
        assert!(needed.len() < all, "{q}: {needed:?} of {all}");
        if q.starts_with("specific") {
            assert!(!needed.is_empty());
        }
        if !needed.is_empty() {
            match lib.search(q, &physics_hs(), &opts) {
                Err(SearchError::NotLoaded(files)) => assert_eq!(files, needed),
                other => panic!("{q}: searched without its postings: {other:?}"),
            }
        }
        for f in &needed {
            lib.load_postings(f, built_file(&split, f)).unwrap();
        }
        assert!(lib.postings_needed(q, &opts).is_empty());
        for v in [Variant::C, Variant::E, Variant::F] {
            assert_eq!(ranked(&lib, q, v), ranked(&whole, q, v), "{q} ({v:?})");
        }
    }
    let left = lib.postings_remaining().len();
    assert!(left > 0 && left < all);
}

#[test]
fn a_postings_part_is_checked_before_it_is_attached() {
    let split = spine(256);
    let s = split
        .shards
        .iter()
        .find(|s| s.postings.len() >= 2)
        .expect("a shard in parts");
    let (p0, p1) = (&s.postings[0], &s.postings[1]);
    let bytes0 = &s.postings_bytes[0];
    let mut lib = Library::new(split.manifest.clone());
    // Before its shard, then before its part list: the error says what to load first.
    let e = lib.load_postings(&p0.file, bytes0).unwrap_err();
    assert_eq!(e.code(), "load.part_before_shard", "{e}");
    lib.load_shard(&s.entry.file, &s.bytes).unwrap();
    let e = lib.load_postings(&p0.file, bytes0).unwrap_err();
    assert!(e.to_string().contains("part list"), "{e}");
    let list = s.entry.part_list.as_ref().unwrap();
    lib.load_part_list(&list.file, s.part_list_bytes.as_ref().unwrap())
        .unwrap();
    // Another part's bytes: the list's Merkle roots refuse them, whether they are this
    // shard's or another's (whose audit path has another length), or this part's bytes with
    // their path changed.
    let e = lib
        .load_postings(&p0.file, &s.postings_bytes[1])
        .unwrap_err();
    assert_eq!(e.code(), "load.integrity", "{e}");
    let others: Vec<&Vec<u8>> = (split.shards.iter())
        .filter(|o| o.entry.file != s.entry.file)
        .flat_map(|o| &o.postings_bytes)
        .collect();
    assert!(!others.is_empty(), "another shard in postings parts");
    for other in others {
        let e = lib.load_postings(&p0.file, other).unwrap_err();
        assert_eq!(e.code(), "load.integrity", "{e}");
    }
    let mut path_changed = bytes0.clone();
    *path_changed.last_mut().unwrap() ^= 1;
    let e = lib.load_postings(&p0.file, &path_changed).unwrap_err();
    assert_eq!(e.code(), "load.integrity", "{e}");
    // Cut short (a download that stopped): the frame's own check says so.
    let e = lib
        .load_postings(&p0.file, &bytes0[..bytes0.len() / 2])
        .unwrap_err();
    assert_eq!(e.code(), "load.format", "{e}");
    assert!(e.to_string().contains("truncated"), "{e}");
    assert!(!lib.is_loaded(&p0.file));
    lib.load_postings(&p0.file, bytes0).unwrap();
    lib.load_postings(&p0.file, bytes0).unwrap(); // again: a no-op
    assert!(lib.is_loaded(&p0.file) && !lib.is_loaded(&p1.file));
}

/// A part whose digest is right (a forged list's Merkle roots cover it) but whose postings or terms are not
/// those of its range: refused, and the part stays unloaded.
#[test]
fn forged_postings_with_a_matching_digest_are_refused() {
    let split = spine(256);
    let i = split
        .shards
        .iter()
        .position(|s| s.postings.len() >= 2)
        .unwrap();
    let s = &split.shards[i];
    let p = &s.postings[0];
    // Every part's frame (the file without its audit path), text parts first: the Merkle
    // tree's leaves, in order.
    let n = s.text_bytes.len() + s.postings_bytes.len();
    let depth = chsr::format::decode_part_list(s.part_list_bytes.as_ref().unwrap())
        .unwrap()
        .depth;
    // The subtree of a leaf whose root the list gives: (its place, first leaf, leaves).
    let subtrees = merkle::subtrees(n, depth);
    let subtree = |leaf: usize| {
        let at = (subtrees.iter())
            .position(|&(f, m)| (f..f + m).contains(&leaf))
            .unwrap();
        (at, subtrees[at].0, subtrees[at].1)
    };
    let frames: Vec<Vec<u8>> = (s.text_bytes.iter().chain(&s.postings_bytes))
        .enumerate()
        .map(|(i, f)| {
            let (_, first, m) = subtree(i);
            merkle::frame_and_root(f, i - first, m).unwrap().0.to_vec()
        })
        .collect();
    let leaf = s.text_bytes.len();
    let real = chsr::format::decode_postings_part(&frames[leaf], true).unwrap();
    let forge = |edit: &dyn Fn(&mut PostingsPart)| {
        let mut forged = real.clone();
        edit(&mut forged);
        // A forged list: the subtree over the forged part and the others, its root listed.
        let mut frames = frames.clone();
        frames[leaf] = encode_postings_part(&forged);
        let leaves: Vec<merkle::Node> = frames.iter().map(|f| merkle::leaf(f)).collect();
        let mut list: PartList =
            chsr::format::decode_part_list(s.part_list_bytes.as_ref().unwrap()).unwrap();
        let (at, first, m) = subtree(leaf);
        let (root, paths) = merkle::tree(&leaves[first..first + m]);
        let part = merkle::with_path(frames[leaf].clone(), &paths[leaf - first]);
        list.roots[at] = chsr::format::hex(&root);
        list.postings[0].bytes = part.len() as u64;
        let list_bytes = encode_part_list(&list);
        let mut m: Manifest = split.manifest.clone();
        let e = m.shards[i].part_list.as_mut().unwrap();
        e.sha256 = sha256_hex(&list_bytes);
        e.bytes = list_bytes.len() as u64;
        let list_file = e.file.clone();
        let mut lib = Library::new(m);
        lib.load_shard(&s.entry.file, &s.bytes).unwrap();
        lib.load_part_list(&list_file, &list_bytes).unwrap();
        (lib, part)
    };
    let refused = |edit: &dyn Fn(&mut PostingsPart), code: &str| {
        let (mut lib, part) = forge(edit);
        let e = lib.load_postings(&p.file, &part).unwrap_err();
        assert_eq!(e.code(), code, "{e}");
        assert!(!lib.is_loaded(&p.file));
    };
    // Document ids past the shard's end, same length.
    refused(
        &|f| f.postings.iter_mut().for_each(|b| *b = 0x7f),
        "load.format",
    );
    // A document frequency that the postings do not match.
    refused(&|f| f.df[0] += 1, "load.format");
    // Another term count, or bytes of another length: not this part's range.
    refused(&|f| f.terms += 1, "load.mismatch");
    refused(
        &|f| {
            // One posting fewer, and its term's frequency: well formed, of another length.
            let t = f.df.iter().position(|&d| d >= 2).unwrap();
            let (s, e) = (f.offsets[t] as usize, f.offsets[t + 1] as usize);
            let ends: Vec<usize> = (s..e).filter(|&i| f.postings[i] & 0x80 == 0).collect();
            let cut = ends[ends.len() - 3] + 1;
            f.postings.drain(cut..e);
            f.df[t] -= 1;
            for o in &mut f.offsets[t + 1..] {
                *o -= (e - cut) as u32;
            }
        },
        "load.mismatch",
    );
    // Terms that are not the range's: out of order, another first term, past the next part's.
    refused(&|f| f.dictionary.swap(0, 1), "load.mismatch");
    refused(
        &|f| f.dictionary[0] = format!("{}x", f.dictionary[0]),
        "load.mismatch",
    );
    let next = s.postings[1].first_term.clone();
    refused(
        &|f| *f.dictionary.last_mut().unwrap() = next.clone(),
        "load.mismatch",
    );
    // The same edit-free forgery loads: the checks refuse what changed, nothing else.
    let (mut lib, part) = forge(&|_| {});
    lib.load_postings(&p.file, &part).unwrap();
    assert!(lib.is_loaded(&p.file));
}

/// A page fetches a shard's part list with the shard: the list, loaded first, already tells which
/// postings parts a query needs (by the parts' first terms), so that they download alongside the
/// shard. Those are at least the parts the shard's own dictionary names, and they load once the
/// shard is in.
#[test]
fn a_part_list_before_its_shard_names_the_postings_to_fetch_with_it() {
    let split = spine(256);
    let opts = SearchOptions::for_variant(Variant::F);
    for q in [
        "specific heat of water",
        "Newton's second law",
        "chaleur massique de l'eau",
        "zzzz qqqq",
    ] {
        let mut early = Library::new(split.manifest.clone());
        let mut late = Library::new(split.manifest.clone());
        for s in &split.shards {
            if let (Some(l), Some(b)) = (&s.entry.part_list, &s.part_list_bytes) {
                early.load_part_list(&l.file, b).unwrap();
                assert!(early.is_loaded(&l.file), "held until its shard arrives");
            }
        }
        let before = early.postings_needed(q, &opts);
        for s in &split.shards {
            for (file, bytes) in s.files() {
                if !file.ends_with(".chsri") {
                    late.load_file(file, bytes).unwrap();
                    if !file.ends_with(".chsrl") {
                        early.load_file(file, bytes).unwrap();
                    }
                }
            }
        }
        let after = late.postings_needed(q, &opts);
        assert_eq!(
            early.postings_needed(q, &opts),
            after,
            "{q}: attached on arrival"
        );
        assert!(
            after.iter().all(|f| before.contains(f)),
            "{q}: {after:?} not all in {before:?}"
        );
        for f in &before {
            early.load_postings(f, built_file(&split, f)).unwrap();
        }
        assert!(early.postings_needed(q, &opts).is_empty());
        early.search(q, &physics_hs(), &opts).unwrap();
    }
}

/// A part list that arrived first but does not agree with its shard (here: another build's first
/// terms) is not attached; loading it again says why.
#[test]
fn a_part_list_that_does_not_fit_its_shard_is_not_attached() {
    let split = spine(256);
    let i = split
        .shards
        .iter()
        .position(|s| !s.postings.is_empty())
        .unwrap();
    let s = &split.shards[i];
    let mut list = chsr::format::decode_part_list(s.part_list_bytes.as_ref().unwrap()).unwrap();
    list.postings[0].first_term = "zzzz".into();
    let bytes = encode_part_list(&list);
    let mut m = split.manifest.clone();
    let e = m.shards[i].part_list.as_mut().unwrap();
    e.sha256 = sha256_hex(&bytes);
    let file = e.file.clone();
    let mut lib = Library::new(m);
    lib.load_part_list(&file, &bytes).unwrap();
    lib.load_shard(&s.entry.file, &s.bytes).unwrap();
    assert!(!lib.is_loaded(&file), "not attached");
    let err = lib.load_part_list(&file, &bytes).unwrap_err();
    assert_eq!(err.code(), "load.mismatch", "{err}");
}
