//! Display text: a shard's text list and its text parts, each checked before it is attached
//! (manifest → text list → parts), and which of them a search's results still need.
//!
//! Ranking reads only the shard; the text of a result (its snippet, its section, its context)
//! sits in text parts that the shard's text list names ([`crate::format::TextList`]). A page
//! fetches the list with the shard and a part when a result needs it; natively every part is
//! read with its shard ([`Library::load_needed_from_dir`]).

use super::load::{verified, Shard, NO_SECTION};
use super::{Library, LoadError};
use crate::format::{decode_text_list, decode_text_part, sha256_hex, TextEntry, TextListEntry};
use serde::Serialize;

/// A text part a loaded shard still lacks, with the shard it belongs to (what a page shows
/// while it downloads).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NeededText {
    /// The part: file, SHA-256, bytes, first chunk, chunks.
    pub part: TextEntry,
    /// The shard's file.
    pub shard: String,
    /// The shard's subject.
    pub subject: String,
    /// The shard's level.
    pub level: String,
}

impl Shard {
    /// Whether every chunk's display text is loaded.
    pub fn has_all_text(&self) -> bool {
        self.text_loaded.iter().all(|&l| l)
    }

    /// Whether the shard's text parts are known: its text list is loaded, or it has none (its
    /// text is inside the shard).
    pub fn text_listed(&self) -> bool {
        self.text_blocks.is_empty() || !self.text.is_empty()
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

    /// The files to load before the text of `docs` and of every chunk of their sections can be
    /// shown (a result's snippet, its section and its context all read them): the text parts
    /// not loaded yet, in part order, or the shard's text list when it is not loaded yet (it
    /// names the parts).
    pub fn text_missing(&self, docs: &[u32]) -> Vec<String> {
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
            if s != NO_SECTION {
                for (other, _) in self.sections.iter().enumerate().filter(|(_, &x)| x == s) {
                    mark(other as u32);
                }
            }
        }
        let mut wanted = want
            .iter()
            .zip(&self.text_loaded)
            .enumerate()
            .filter(|(_, (&w, &loaded))| w && !loaded)
            .map(|(p, _)| p)
            .peekable();
        if wanted.peek().is_none() {
            return Vec::new();
        }
        if !self.text_listed() {
            return self
                .entry
                .text_list
                .iter()
                .map(|l| l.file.clone())
                .collect();
        }
        wanted.map(|p| self.text[p].file.clone()).collect()
    }
}

impl Library {
    /// The text lists of the loaded shards that are not loaded yet, in manifest order: a page
    /// fetches a shard's list with the shard.
    pub fn text_lists_needed(&self) -> Vec<TextListEntry> {
        self.loaded()
            .filter(|s| !s.text_listed())
            .filter_map(|s| s.entry.text_list.clone())
            .collect()
    }

    /// The text parts of the loaded shards (whose text lists are loaded) that are not loaded
    /// yet, in manifest order (a page that keeps a scope for offline use fetches them all; a
    /// search asks only for those its results need, `SearchResponse::pending_text`).
    pub fn text_needed(&self) -> Vec<NeededText> {
        self.loaded()
            .flat_map(|s| {
                s.text
                    .iter()
                    .zip(&s.text_loaded)
                    .filter(|(_, &l)| !l)
                    .map(|(t, _)| NeededText {
                        part: t.clone(),
                        shard: s.entry.file.clone(),
                        subject: s.entry.subject.clone(),
                        level: s.entry.level.clone(),
                    })
            })
            .collect()
    }

    /// The manifest position of the shard whose text list is stored in `file`.
    pub(super) fn shard_with_text_list(&self, file: &str) -> Option<usize> {
        self.manifest
            .shards
            .iter()
            .position(|s| s.text_list.as_ref().is_some_and(|t| t.file == file))
    }

    /// The manifest position of the loaded shard, and the position of its text part, stored in
    /// `file` (a part is known once its shard's text list is loaded).
    pub(super) fn shard_with_text(&self, file: &str) -> Option<(usize, usize)> {
        self.shards.iter().enumerate().find_map(|(i, s)| {
            let s = s.as_ref()?;
            s.text.iter().position(|t| t.file == file).map(|p| (i, p))
        })
    }

    /// Whether `file` is the text list or a text part of a loaded shard, loaded.
    pub(super) fn is_text_loaded(&self, file: &str) -> bool {
        self.loaded().any(|s| {
            (s.text_listed() && s.entry.text_list.as_ref().is_some_and(|t| t.file == file))
                || s.text
                    .iter()
                    .zip(&s.text_loaded)
                    .any(|(t, &loaded)| loaded && t.file == file)
        })
    }

    /// Verifies (against the manifest's SHA-256) and attaches the text list `file` of a loaded
    /// shard: its text parts become known (and loadable). Loading it again is a no-op.
    pub fn load_text_list(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_text_list_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_text_list`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_text_list_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let i = self
            .shard_with_text_list(file)
            .ok_or_else(|| LoadError::UnknownFile(file.to_string()))?;
        let e = &self.manifest.shards[i];
        let listed = e.text_list.clone().expect("found by its text list");
        let Some(shard) = self.shards[i].as_mut() else {
            return Err(LoadError::PartBeforeShard {
                file: file.into(),
                shard: e.file.clone(),
            });
        };
        if shard.text_listed() {
            return Ok(());
        }
        let list = verified(file, bytes, &listed.sha256, sha256, |b, _| {
            decode_text_list(b)
        })?;
        let blocks: Vec<(u32, u32)> = list.parts.iter().map(|t| (t.first, t.chunks)).collect();
        if list.subject != e.subject
            || list.level != e.level
            || list.shard_sha256 != e.sha256
            || blocks != shard.text_blocks
        {
            return Err(LoadError::Mismatch {
                file: file.into(),
                expected: format!(
                    "the text parts of {} ({}/{}): {:?} (first chunk, chunks)",
                    e.file, e.subject, e.level, shard.text_blocks
                ),
                found: format!(
                    "text parts {blocks:?} of {}/{} for the shard with SHA-256 {}",
                    list.subject, list.level, list.shard_sha256
                ),
            });
        }
        shard.text = list.parts;
        Ok(())
    }

    /// Verifies (against the SHA-256 in its shard's text list), decodes and attaches the text
    /// part `file` of a loaded shard: its chunks get their display text. Loading a part again
    /// is a no-op. The shard and its text list come first.
    pub fn load_text(&mut self, file: &str, bytes: &[u8]) -> Result<(), LoadError> {
        self.load_text_with_digest(file, bytes, &sha256_hex(bytes))
    }

    /// As [`Library::load_text`], with the file's SHA-256 (hex) computed by the caller over
    /// exactly `bytes` (see [`Library::load_shard_with_digest`]).
    pub fn load_text_with_digest(
        &mut self,
        file: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<(), LoadError> {
        let Some((i, p)) = self.shard_with_text(file) else {
            // Not named by a loaded text list: say which shard's list to load first when the
            // file name is one of a shard's (`<shard stem>.<hash>.chsrx`).
            let stem = file.rsplitn(3, '.').nth(2);
            let owner = self
                .manifest
                .shards
                .iter()
                .zip(&self.shards)
                .find(|(s, _)| s.text_list.is_some() && s.file.rsplitn(3, '.').nth(2) == stem);
            return Err(match owner {
                Some((s, loaded))
                    if file.ends_with(".chsrx")
                        && !loaded.as_ref().is_some_and(Shard::text_listed) =>
                {
                    LoadError::PartBeforeShard {
                        file: file.into(),
                        shard: format!(
                            "{} (its text list {})",
                            s.file,
                            s.text_list.as_ref().map(|t| t.file.as_str()).unwrap_or("")
                        ),
                    }
                }
                _ => LoadError::UnknownFile(file.to_string()),
            });
        };
        let shard = self.shards[i]
            .as_mut()
            .expect("found among the loaded shards");
        if shard.text_loaded[p] {
            return Ok(());
        }
        let t = shard.text[p].clone();
        let e = &shard.entry;
        let part = verified(file, bytes, &t.sha256, sha256, decode_text_part)?;
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
        let chunks = &mut shard.payload.chunks[t.first as usize..][..t.chunks as usize];
        for (c, text) in chunks.iter_mut().zip(part.texts) {
            c.text = text;
        }
        shard.text_loaded[p] = true;
        Ok(())
    }
}
