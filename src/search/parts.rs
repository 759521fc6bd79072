//! A shard's parts: its part list, its postings parts and its text parts, each checked before
//! it is attached (manifest → part list → parts), and which of them a search still needs.
//!
//! Ranking reads the shard and the postings of the query's terms, which sit, in a large shard,
//! in postings parts by term range; the text of a result (its snippet, its section, its context)
//! sits in text parts. The shard's part list ([`crate::format::PartList`]) names both. A page
//! fetches the list with the shard, the postings parts a query needs before it searches
//! ([`Library::postings_needed`]) and a text part when a result needs it; natively every part is
//! read with its shard ([`Library::load_needed_from_dir`]).

use super::load::{merkle_verified, verified, Shard, NO_SECTION};
use super::query::Query;
use super::{Library, LoadError, SearchError, SearchOptions};
use crate::analysis::Lang;
use crate::format::json::{list, quote};
use crate::format::pairs;
use crate::format::{
    decode_part_list, decode_postings_part, decode_text_part, parts_holding, sha256_hex,
    PartListEntry, PostingsEntry, ShardEntry, TextEntry,
};
use serde::Serialize;

/// A part a shard still lacks, with the shard it belongs to (what a page shows while it
/// downloads).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Needed<P> {
    /// The part, as its part list names it.
    pub part: P,
    /// The shard's file.
    pub shard: String,
    /// The shard's subject.
    pub subject: String,
    /// The shard's level.
    pub level: String,
}

/// A text part still to load: file, SHA-256, bytes, first chunk, chunks.
pub type NeededText = Needed<TextEntry>;
/// A postings part still to load: file, SHA-256, bytes, first term, terms, first term's text.
pub type NeededPostings = Needed<PostingsEntry>;

impl<P: Clone> Needed<P> {
    /// `part` of the shard `e`.
    fn of(e: &ShardEntry, part: &P) -> Needed<P> {
        Needed {
            part: part.clone(),
            shard: e.file.clone(),
            subject: e.subject.clone(),
            level: e.level.clone(),
        }
    }
}

impl Shard {
    /// Whether every chunk's display text is loaded.
    pub fn has_all_text(&self) -> bool {
        self.text_loaded.iter().all(|&l| l)
    }

    /// Whether the shard's parts are known: its part list is loaded, or it has none (its text
    /// and postings are inside the shard).
    pub fn parts_listed(&self) -> bool {
        self.listed
    }

    /// Whether the postings of every term are loaded (inside the shard, or every part loaded).
    pub fn has_all_postings(&self) -> bool {
        self.postings_loaded.iter().all(|&l| l)
    }

    /// The files to load before the postings of `terms` can be read: the postings parts not
    /// loaded yet whose term range holds any of them (by the part list's first terms: a term the
    /// shard does not have may cost the part it would be in), in term order, or the shard's part
    /// list when it is not loaded yet (it names the parts).
    pub fn postings_missing<'t>(&self, terms: impl IntoIterator<Item = &'t str>) -> Vec<String> {
        if self.has_all_postings() {
            return Vec::new();
        }
        let want = if self.parts_listed() {
            parts_holding(&self.postings, terms)
        } else {
            // Without the list, any term may need a part: the list comes first.
            vec![terms.into_iter().next().is_some(); self.postings_blocks.len()]
        };
        self.files_to_load(&want, &self.postings_loaded, |p| &self.postings[p].file)
    }

    /// The files of the parts `want`ed and not `loaded` yet (in part order, `file` naming part
    /// `p`), or the shard's part list when some are wanted and it is not loaded yet (it names
    /// them).
    fn files_to_load<'s>(
        &'s self,
        want: &[bool],
        loaded: &[bool],
        file: impl Fn(usize) -> &'s String,
    ) -> Vec<String> {
        let mut wanted = (0..want.len())
            .filter(|&p| want[p] && !loaded[p])
            .peekable();
        if wanted.peek().is_none() {
            Vec::new()
        } else if !self.parts_listed() {
            self.entry
                .part_list
                .iter()
                .map(|l| l.file.clone())
                .collect()
        } else {
            wanted.map(|p| file(p).clone()).collect()
        }
    }

    /// The text part holding chunk `doc` (its position among the shard's text blocks), when the
    /// text lives in parts.
    fn text_part_of(&self, doc: u32) -> Option<usize> {
        let blocks = &self.text_blocks;
        let i = blocks.partition_point(|&(first, n)| first + n <= doc);
        (i < blocks.len()).then_some(i)
    }

    /// Whether chunk `doc`'s display text is loaded (inside the shard, or its part loaded).
    pub fn has_text(&self, doc: u32) -> bool {
        self.text_part_of(doc).is_none_or(|p| self.text_loaded[p])
    }

    /// The files to load before the text of `docs` can be shown, and with `sections` the text of
    /// every chunk of their sections too ("show the whole section" reads them): the text parts
    /// not loaded yet, in part order, or the shard's part list when it is not loaded yet (it
    /// names the parts).
    pub fn text_missing(&self, docs: &[u32], sections: bool) -> Vec<String> {
        if self.has_all_text() {
            return Vec::new();
        }
        let mut want = vec![false; self.text_blocks.len()];
        let mut mark = |doc: u32| {
            if let Some(p) = self.text_part_of(doc) {
                want[p] = true;
            }
        };
        for &d in docs {
            mark(d);
            let s = self.sections[d as usize];
            if sections && s != NO_SECTION {
                for (other, _) in self.sections.iter().enumerate().filter(|(_, &x)| x == s) {
                    mark(other as u32);
                }
            }
        }
        self.files_to_load(&want, &self.text_loaded, |p| &self.text[p].file)
    }
}

impl Library {
    /// The part lists of the loaded shards that are not loaded yet, in manifest order: a page
    /// fetches a shard's list with the shard.
    pub fn part_lists_needed(&self) -> Vec<PartListEntry> {
        self.loaded()
            .filter(|s| !s.parts_listed())
            .filter_map(|s| s.entry.part_list.clone())
            .collect()
    }

    /// The text parts of the loaded shards (whose part lists are loaded) that are not loaded
    /// yet, in manifest order (a page that keeps a scope for offline use fetches them all; a
    /// search asks only for those its results need, `SearchResponse::pending_text`).
    pub fn text_needed(&self) -> Vec<NeededText> {
        self.loaded()
            .flat_map(|s| {
                s.text
                    .iter()
                    .zip(&s.text_loaded)
                    .filter(|(_, &l)| !l)
                    .map(|(t, _)| Needed::of(&s.entry, t))
            })
            .collect()
    }

    /// The manifest position of the shard whose part list is stored in `file`.
    pub(super) fn shard_with_part_list(&self, file: &str) -> Option<usize> {
        self.manifest
            .shards
            .iter()
            .position(|s| s.part_list.as_ref().is_some_and(|t| t.file == file))
    }

    /// The manifest position of the loaded shard, and the position of its text part, stored in
    /// `file` (a part is known once its shard's part list is loaded).
    pub(super) fn shard_with_text(&self, file: &str) -> Option<(usize, usize)> {
        self.shards.iter().enumerate().find_map(|(i, s)| {
            let s = s.as_ref()?;
            s.text.iter().position(|t| t.file == file).map(|p| (i, p))
        })
    }

    /// The manifest position of the loaded shard, and the position of its postings part,
    /// stored in `file` (a part is known once its shard's part list is loaded).
    pub(super) fn shard_with_postings(&self, file: &str) -> Option<(usize, usize)> {
        self.shards.iter().enumerate().find_map(|(i, s)| {
            let s = s.as_ref()?;
            s.postings
                .iter()
                .position(|t| t.file == file)
                .map(|p| (i, p))
        })
    }

    /// Whether `file` is the part list, a postings part or a text part of a loaded shard,
    /// loaded.
    pub(super) fn is_part_loaded(&self, file: &str) -> bool {
        self.pending_lists.iter().flatten().any(|(f, _)| f == file)
            || self.loaded().any(|s| {
                (s.parts_listed() && s.entry.part_list.as_ref().is_some_and(|t| t.file == file))
                    || s.text
                        .iter()
                        .zip(&s.text_loaded)
                        .any(|(t, &loaded)| loaded && t.file == file)
                    || s.postings
                        .iter()
                        .zip(&s.postings_loaded)
                        .any(|(t, &loaded)| loaded && t.file == file)
            })
    }

    /// The postings parts of the loaded shards (whose part lists are loaded) that are not loaded
    /// yet, in manifest order (a page loads them after the first result, so that the next
    /// queries need no download).
    pub fn postings_remaining(&self) -> Vec<NeededPostings> {
        let mut out = Vec::new();
        for ((e, s), pending) in self
            .manifest
            .shards
            .iter()
            .zip(&self.shards)
            .zip(&self.pending_lists)
        {
            match (s, pending) {
                (Some(s), _) => out.extend(
                    s.postings
                        .iter()
                        .zip(&s.postings_loaded)
                        .filter(|(_, &l)| !l)
                        .map(|(t, _)| Needed::of(e, t)),
                ),
                // A list waiting for its shard: every part is still to come.
                (None, Some((_, list))) => {
                    out.extend(list.postings.iter().map(|t| Needed::of(e, t)))
                }
                (None, None) => {}
            }
        }
        out
    }

    /// The files a search of `query` needs loaded besides the shards of its scope
    /// ([`Library::shards_needed`]): the postings parts of the query's terms in every loaded
    /// shard (any pass of the search, relaxation's included, may read them), or a shard's part
    /// list first when it is not loaded. Empty when every postings part is loaded (always
    /// natively, and in small shards, whose postings are inside them). The terms are those of
    /// every language set a pass could search with, so that no pass finds a term missing.
    pub fn postings_needed(&self, query: &str, opts: &SearchOptions) -> Vec<String> {
        let pending = || {
            self.pending_lists
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.as_ref().map(|(_, list)| (i, list)))
        };
        if self.loaded().all(Shard::has_all_postings)
            && pending().all(|(_, l)| l.postings.is_empty())
        {
            return Vec::new();
        }
        let (text, _) = crate::analysis::bound_query(query);
        let q = Query::new(text, opts.stages.understand);
        let mut langs: Vec<Lang> = self
            .loaded()
            .flat_map(|s| s.langs.iter().copied())
            .chain(pending().flat_map(|(i, _)| self.shard_langs[i].iter().copied()))
            .collect();
        crate::order::sort(&mut langs);
        langs.dedup();
        let mut terms: Vec<String> = Vec::new();
        // Every non-empty subset of the loaded languages (at most En, Fr and Other).
        for mask in 1..(1u32 << langs.len()) {
            let set: Vec<Lang> = (0..langs.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| langs[i])
                .collect();
            for t in &q.terms(&self.analyzer, &self.glossary, &set).terms {
                if !terms.contains(t) {
                    terms.push(t.clone());
                }
            }
        }
        let mut out: Vec<String> = Vec::new();
        let mut add = |f: String| {
            if !out.contains(&f) {
                out.push(f);
            }
        };
        for s in self.loaded() {
            s.postings_missing(terms.iter().map(String::as_str))
                .into_iter()
                .for_each(&mut add);
        }
        // A shard on its way: the parts whose term range holds a query term (by the list's first
        // terms; a term the shard does not have may cost a part it did not need).
        for (_, list) in pending() {
            let want = parts_holding(&list.postings, terms.iter().map(String::as_str));
            for (e, _) in list.postings.iter().zip(want).filter(|(_, w)| *w) {
                add(e.file.clone());
            }
        }
        out
    }

    /// [`Library::postings_needed`] as the search's precondition: an error naming the files
    /// when some are missing (a pass would otherwise read a term's postings as empty).
    pub(super) fn check_postings(
        &self,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<(), SearchError> {
        let missing = self.postings_needed(query, opts);
        if missing.is_empty() {
            Ok(())
        } else {
            Err(SearchError::NotLoaded(missing))
        }
    }

    /// Verifies (its frame and audit path against its shard's part list's Merkle roots,
    /// [`crate::format::merkle`]), decodes, checks (its shard, its term range, every posting)
    /// and attaches the postings part `file` of a loaded shard. Loading a part again is a no-op.
    /// The shard and its part list come first.
    pub fn load_postings(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        let Some((i, p)) = self.shard_with_postings(file) else {
            return Err(self.unlisted_part(file, ".chsri"));
        };
        let shard = self.shards[i]
            .as_mut()
            .expect("found among the loaded shards");
        if shard.postings_loaded[p] {
            return Ok(());
        }
        let t = shard.postings[p].clone();
        let next_first = shard.postings.get(p + 1).map(|n| n.first_term.clone());
        let e = &shard.entry;
        let leaf = (
            shard.text.len() + p,
            shard.text.len() + shard.postings.len(),
        );
        let part = merkle_verified(file, bytes, &shard.parts_roots, leaf, decode_postings_part)?;
        let lex = &mut shard.payload.lexical;
        let (first, end) = (t.first as usize, (t.first + t.terms) as usize);
        let (from, to) = (lex.offsets[first] as usize, lex.offsets[end] as usize);
        let n = t.terms as usize;
        // Its terms sorted, the first the list's, the last before the next part's first.
        let terms_fit = part.dictionary.windows(2).all(|w| w[0] < w[1])
            && part.dictionary.first() == Some(&t.first_term)
            && next_first
                .as_ref()
                .is_none_or(|nf| part.dictionary.last().is_some_and(|l| l < nf));
        if part.subject != e.subject
            || part.level != e.level
            || part.shard_sha256 != e.sha256
            || part.first != t.first
            || part.terms != t.terms
            || part.dictionary.len() != n
            || part.df.len() != n
            || part.offsets.len() != n + 1
            || part.offsets.windows(2).any(|w| w[0] > w[1])
            || part.offsets.last().map(|&o| o as usize) != Some(part.postings.len())
            || part.postings.len() != to - from
            || !terms_fit
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "terms {first}..{end} of {} ({}/{}) from {}: {} bytes of postings",
                    e.file,
                    e.subject,
                    e.level,
                    quote(&t.first_term),
                    to - from
                ),
                found: format!(
                    "{} terms from {} ({} listed, from {}, sorted: {}) of {}/{} for the shard \
                     with SHA-256 {}: {} bytes of postings",
                    part.terms,
                    part.first,
                    part.dictionary.len(),
                    quote(part.dictionary.first().map_or("", String::as_str)),
                    terms_fit,
                    part.subject,
                    part.level,
                    part.shard_sha256,
                    part.postings.len()
                ),
            });
        }
        lex.terms[first..end].clone_from_slice(&part.dictionary);
        lex.df[first..end].copy_from_slice(&part.df);
        for (o, &rel) in lex.offsets[first..end].iter_mut().zip(&part.offsets) {
            *o = from as u32 + rel;
        }
        lex.postings[from..to].copy_from_slice(&part.postings);
        if let Err(error) = lex.validate_postings(first..end, shard.payload.chunks.len()) {
            // As before it arrived: empty terms without postings.
            lex.terms[first..end].iter_mut().for_each(String::clear);
            lex.df[first..end].fill(0);
            lex.offsets[first..end].fill(from as u32);
            lex.postings[from..to].fill(0);
            return Err(LoadError::Format {
                file: file.into(),
                error,
            });
        }
        shard.postings_loaded[p] = true;
        Ok(())
    }

    /// The error for a part `file` (of kind `ext`) that no loaded part list names: which shard
    /// and part list to load first when the name is one of a shard's (`<stem>.<leaf>.<root
    /// hash><ext>`), else an unknown file.
    fn unlisted_part(&self, file: &str, ext: &str) -> LoadError {
        let stem = file.rsplitn(4, '.').nth(3);
        let owner = self
            .manifest
            .shards
            .iter()
            .zip(&self.shards)
            .find(|(s, _)| s.part_list.is_some() && s.file.rsplitn(3, '.').nth(2) == stem);
        match owner {
            Some((s, loaded))
                if file.ends_with(ext) && !loaded.as_ref().is_some_and(Shard::parts_listed) =>
            {
                LoadError::PartBeforeShard {
                    file: file.into(),
                    shard: format!(
                        "{} (its part list {})",
                        s.file,
                        s.part_list.as_ref().map(|t| t.file.as_str()).unwrap_or("")
                    ),
                }
            }
            _ => LoadError::UnknownFile(file.to_string()),
        }
    }

    /// Verifies (against the manifest's SHA-256) and attaches the part list `file` of a shard:
    /// its postings and text parts become known (and loadable once the shard is). Before its
    /// shard, the list is held (and tells [`Library::postings_needed`] which parts a query needs,
    /// so that they download with the shard) and attached when the shard loads. Loading it again
    /// is a no-op.
    pub fn load_part_list(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_part_list_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_part_list`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_part_list_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_part_list(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let e = &self.manifest.shards[i];
        let listed = e.part_list.clone().expect("found by its part list");
        if self.shards[i].as_ref().is_some_and(Shard::parts_listed)
            || self.pending_lists[i].is_some()
        {
            return Ok(());
        }
        let list = verified(file, bytes, &listed.sha256, sha256, |b, _| {
            decode_part_list(b)
        })?;
        if list.subject != e.subject
            || list.level != e.level
            || list.shard_sha256 != e.sha256
            || list.text.len() != listed.text_parts as usize
            || list.postings.len() != listed.postings_parts as usize
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "the parts of {} ({}/{}): {} text and {} postings parts",
                    e.file, e.subject, e.level, listed.text_parts, listed.postings_parts
                ),
                found: format!(
                    "{} text and {} postings parts of {}/{} for the shard with SHA-256 {}",
                    list.text.len(),
                    list.postings.len(),
                    list.subject,
                    list.level,
                    list.shard_sha256
                ),
            });
        }
        match self.shards[i].as_mut() {
            Some(shard) => attach_list(shard, file, list),
            None => {
                // Held until its shard arrives (then checked against it and attached).
                self.pending_lists[i] = Some((file.to_string(), list));
                Ok(())
            }
        }
    }

    /// Attaches the part list that arrived before shard `i` (just loaded); a list that does
    /// not agree with the shard is dropped, and loading it again reports why.
    pub(super) fn attach_pending_list(&mut self, i: usize) {
        if let (Some((file, list)), Some(shard)) =
            (self.pending_lists[i].take(), self.shards[i].as_mut())
        {
            let _ = attach_list(shard, &file, list);
        }
    }
}

/// Checks a part list (already checked against the manifest) against its loaded shard — the
/// shard's own text and postings blocks, and the first term of each postings block — and
/// attaches it.
fn attach_list(
    shard: &mut Shard,
    file: &str,
    list: crate::format::PartList,
) -> Result<(), LoadError> {
    let e = &shard.entry;
    let blocks: Vec<(u32, u32)> = list.text.iter().map(|t| (t.first, t.chunks)).collect();
    let terms: Vec<(u32, u32)> = list.postings.iter().map(|t| (t.first, t.terms)).collect();
    if list.subject != e.subject
        || list.level != e.level
        || list.shard_sha256 != e.sha256
        || blocks != shard.text_blocks
        || terms != shard.postings_blocks
        || list
            .postings
            .windows(2)
            .any(|w| w[0].first_term >= w[1].first_term)
    {
        return Err(LoadError::Mismatch {
            file: file.into(),
            expected: format!(
                "the parts of {} ({}/{}): text {} (first chunk, chunks), postings {} \
                     (first term, terms)",
                e.file,
                e.subject,
                e.level,
                pairs(&shard.text_blocks),
                pairs(&shard.postings_blocks)
            ),
            found: format!(
                "text {}, postings {} of {}/{} for the shard with SHA-256 {}",
                pairs(&blocks),
                pairs(&terms),
                list.subject,
                list.level,
                list.shard_sha256
            ),
        });
    }
    // Each part's range of the dictionary, by its first term (the parts bring the terms).
    shard.payload.lexical.blocks = list
        .postings
        .iter()
        .map(|t| (t.first, t.first_term.clone()))
        .collect();
    shard.text = list.text;
    shard.postings = list.postings;
    shard.parts_roots = (list.depth, list.roots);
    shard.listed = true;
    Ok(())
}

impl Library {
    /// Verifies (its frame and audit path against its shard's part list's Merkle roots,
    /// [`crate::format::merkle`]), decodes and attaches the text part `file` of a loaded shard:
    /// its chunks get their display text and display-only metadata
    /// ([`crate::format::ChunkDisplay`]). Loading a part again is a no-op. The shard and its
    /// part list come first.
    pub fn load_text(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        let Some((i, p)) = self.shard_with_text(file) else {
            return Err(self.unlisted_part(file, ".chsrx"));
        };
        let shard = self.shards[i]
            .as_mut()
            .expect("found among the loaded shards");
        if shard.text_loaded[p] {
            return Ok(());
        }
        let t = shard.text[p].clone();
        let e = &shard.entry;
        let leaf = (p, shard.text.len() + shard.postings.len());
        let part = merkle_verified(file, bytes, &shard.parts_roots, leaf, decode_text_part)?;
        if part.subject != e.subject
            || part.level != e.level
            || part.shard_sha256 != e.sha256
            || part.first != t.first
            || part.texts.len() != t.chunks as usize
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "the text of chunks {}..{} of {} ({}/{})",
                    t.first,
                    t.first + t.chunks,
                    e.file,
                    e.subject,
                    e.level
                ),
                found: format!(
                    "the text of {} chunks from {} of {}/{} for the shard with SHA-256 {}",
                    part.texts.len(),
                    part.first,
                    part.subject,
                    part.level,
                    part.shard_sha256
                ),
            });
        }
        // Its chunks' near-duplicate pairs (format v13: unless the shard file held its own),
        // sorted by chunk then other id as the builder wrote them, among the shard's: the
        // loaded parts' chunks are other ranges.
        let near = (part.near.is_empty() || shard.pairs_in_parts)
            .then(|| pairs::resolved(part.near, &shard.payload.chunks))
            .flatten()
            .filter(|v| {
                v.windows(2)
                    .all(|w| (w[0].chunk, &w[0].of) <= (w[1].chunk, &w[1].of))
            })
            .ok_or_else(|| LoadError::Format {
                file: file.into(),
                error: crate::format::FormatError::Decode(
                    "near-duplicate pairs out of order, past the shard's chunks, or in a text \
                     part of a shard that holds its own"
                        .into(),
                ),
            })?;
        let all = &mut shard.payload.near_duplicates;
        let at = all.partition_point(|n| n.chunk < t.first);
        let mut after = all.split_off(at);
        all.extend(near);
        all.append(&mut after);
        let chunks = &mut shard.payload.chunks[t.first as usize..][..t.chunks as usize];
        for ((c, text), d) in chunks.iter_mut().zip(part.texts).zip(part.display) {
            c.put_display(text, d);
        }
        shard.text_loaded[p] = true;
        Ok(())
    }
}

/// `(first, count)` pairs as `[(0, 12), (12, 9)]`, for error messages.
fn pairs(v: &[(u32, u32)]) -> String {
    list(v.iter().map(|(a, b)| format!("({a}, {b})")))
}
