//! A shard's parts as the builder publishes them: its text parts and postings parts, framed,
//! bound by the Merkle tree whose subtrees' roots its part list gives ([`crate::format::merkle`]).

use crate::format::pairs::StoredPair;
use crate::format::{
    encode_part_list, encode_postings_part, encode_text_part, part_file, sha256_hex, ChunkDisplay,
    LexicalIndex, PartList, PartListEntry, PostingsEntry, PostingsPart, TextEntry, TextPart,
    FORMAT_VERSION, PART_KEY_HEX, PART_LIST_FORMAT,
};

/// Who a shard's parts belong to: its file stem, subject, level and SHA-256.
pub(super) struct ShardId<'a> {
    /// The shard file's stem (`subject--level`).
    pub stem: &'a str,
    /// Its subject.
    pub subject: &'a str,
    /// Its level.
    pub level: &'a str,
    /// Its SHA-256, which every part names.
    pub sha256: &'a str,
}

/// The text parts of a shard (its chunks' display text and display-only metadata, `texts` in
/// shard order, and their near-duplicate pairs, `pairs` sorted by chunk, cut into `blocks`):
/// each part's chunk count and framed file, without its audit path yet ([`parts_and_list`]).
pub(super) fn text_parts(
    id: &ShardId,
    blocks: &[u32],
    texts: Vec<(String, ChunkDisplay)>,
    pairs: Vec<StoredPair>,
) -> Vec<(u32, Vec<u8>)> {
    let mut first = 0u32;
    let mut texts = texts.into_iter();
    let mut pairs = pairs.into_iter().peekable();
    blocks
        .iter()
        .map(|&n| {
            let (texts, display) = texts.by_ref().take(n as usize).unzip();
            let near = std::iter::from_fn(|| pairs.next_if(|p| p.chunk < first + n)).collect();
            let part = encode_text_part(&TextPart {
                subject: id.subject.to_string(),
                level: id.level.to_string(),
                shard_sha256: id.sha256.to_string(),
                first,
                texts,
                display,
                near,
            });
            first += n;
            (n, part)
        })
        .collect()
}

/// The postings parts of a shard (its dictionary and postings, `lexical` whole, cut into
/// `blocks` of terms): each part's term count, first term and framed file, without its audit
/// path yet ([`parts_and_list`]).
pub(super) fn postings_parts(
    id: &ShardId,
    blocks: &[u32],
    lexical: &LexicalIndex,
) -> Vec<(u32, String, Vec<u8>)> {
    let offsets = &lexical.offsets;
    let mut first = 0u32;
    blocks
        .iter()
        .map(|&n| {
            let (a, b) = (first as usize, (first + n) as usize);
            let from = offsets[a];
            let part = encode_postings_part(&PostingsPart {
                subject: id.subject.to_string(),
                level: id.level.to_string(),
                shard_sha256: id.sha256.to_string(),
                first,
                terms: n,
                dictionary: lexical.terms[a..b].to_vec(),
                df: lexical.df[a..b].to_vec(),
                offsets: offsets[a..=b].iter().map(|&o| o - from).collect(),
                postings: lexical.postings[from as usize..offsets[b] as usize].to_vec(),
            });
            first += n;
            (n, lexical.terms[a].clone(), part)
        })
        .collect()
}

/// A shard's parts as published, and its part list.
pub(super) struct Parts {
    /// The text parts' entries and files (frame and audit path).
    pub text: Vec<(TextEntry, Vec<u8>)>,
    /// The postings parts' entries and files.
    pub postings: Vec<(PostingsEntry, Vec<u8>)>,
    /// The part list's manifest entry and file, when the shard has parts.
    pub list: Option<(PartListEntry, Vec<u8>)>,
}

/// Binds a shard's parts to its part list ([`crate::format::merkle`]): the Merkle tree over
/// the framed parts (text, then postings), each file its frame then its audit path, named by
/// the shard's stem, its leaf and the root's first 16 hex digits (`part_file`; the list gives
/// stem and key, and the roots of its subtrees).
pub(super) fn parts_and_list(
    id: &ShardId,
    text: Vec<(u32, Vec<u8>)>,
    postings: Vec<(u32, String, Vec<u8>)>,
) -> Parts {
    use crate::format::merkle;
    let leaves: Vec<merkle::Node> = (text.iter().map(|(_, f)| f))
        .chain(postings.iter().map(|(_, _, f)| f))
        .map(|f| merkle::leaf(f))
        .collect();
    if leaves.is_empty() {
        return Parts {
            text: Vec::new(),
            postings: Vec::new(),
            list: None,
        };
    }
    // The roots of the subtrees the list gives, and each part's path within its subtree.
    let depth = merkle::list_depth(leaves.len());
    let (mut roots, mut paths) = (Vec::new(), Vec::new());
    for (first, n) in merkle::subtrees(leaves.len(), depth) {
        let (root, p) = merkle::tree(&leaves[first..first + n]);
        roots.push(crate::format::hex(&root));
        paths.extend(p);
    }
    // Named by the whole tree's root (a change to any part renames them all, as every part
    // names its shard's SHA-256 anyway).
    let root = crate::format::hex(&merkle::root(&leaves));
    let key = &root[..PART_KEY_HEX];
    let name = |i: usize, ext: &str| part_file(id.stem, i, key, ext);
    let (mut leaf, mut first) = (0usize, 0u32);
    let text: Vec<(TextEntry, Vec<u8>)> = text
        .into_iter()
        .map(|(chunks, frame)| {
            let file = merkle::with_path(frame, &std::mem::take(&mut paths[leaf]));
            let entry = TextEntry {
                file: name(leaf, "chsrx"),
                bytes: file.len() as u64,
                first,
                chunks,
            };
            (leaf, first) = (leaf + 1, first + chunks);
            (entry, file)
        })
        .collect();
    first = 0;
    let postings: Vec<(PostingsEntry, Vec<u8>)> = postings
        .into_iter()
        .map(|(terms, first_term, frame)| {
            let file = merkle::with_path(frame, &std::mem::take(&mut paths[leaf]));
            let entry = PostingsEntry {
                file: name(leaf, "chsri"),
                bytes: file.len() as u64,
                first,
                terms,
                first_term,
            };
            (leaf, first) = (leaf + 1, first + terms);
            (entry, file)
        })
        .collect();
    let list = encode_part_list(&PartList {
        format: PART_LIST_FORMAT.into(),
        format_version: FORMAT_VERSION,
        subject: id.subject.to_string(),
        level: id.level.to_string(),
        shard_sha256: id.sha256.to_string(),
        depth,
        roots,
        stem: id.stem.to_string(),
        key: key.to_string(),
        text: text.iter().map(|(e, _)| e.clone()).collect(),
        postings: postings.iter().map(|(e, _)| e.clone()).collect(),
    });
    let list_sha = sha256_hex(&list);
    let entry = PartListEntry {
        file: format!("{}.{}.chsrl", id.stem, &list_sha[..16]),
        sha256: list_sha,
        bytes: list.len() as u64,
        text_parts: text.len() as u32,
        text_bytes: text.iter().map(|(e, _)| e.bytes).sum(),
        postings_parts: postings.len() as u32,
        postings_bytes: postings.iter().map(|(e, _)| e.bytes).sum(),
    };
    Parts {
        text,
        postings,
        list: Some((entry, list)),
    }
}
