//! Step 6: from candidates to results — hits with snippets, section expansion and
//! `[DOCUMENT N]` context — with every chunk a surface adds re-gated against the scope.
//!
//! A result admitted by a widening step carries its label; the chunks added around it (its
//! section, its context) must satisfy the scope *that step* searched ([`scope_for`]): the
//! requested scope for an in-scope result, the scope without its topical fields for a
//! `cross_topic` one, and so on; the locked fields always. So a locked chapter, a requested doc
//! type or year is never left by expansion, and every refused chunk is counted as withheld.

use super::{Cand, Hit, Library, SearchOptions, SearchResponse, Shard, Trace};
use crate::analysis::Lang;
use crate::expand::{expand_section, to_context, Expanded};
use crate::format::ChunkRecord;
use crate::gate;
use crate::relax::{classify, scope_for};
use crate::scope::Scope;
use crate::snippet::Highlighter;
use serde::Serialize;

/// Whether a chunk may appear on any surface of a search over `scope`: the scope of the
/// narrowest step that reaches it admits it ([`classify`], [`scope_for`]); a chunk outside the
/// locks is admitted by none.
pub fn admissible(scope: &Scope, chunk: &ChunkRecord) -> bool {
    gate::admits(&scope_for(scope, classify(scope, chunk)), chunk)
}

/// A section shown on its own ("show the whole section"): its admissible chunks in reading order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Section {
    /// The chunk the section was asked for.
    pub id: String,
    /// The section's admissible chunks, the asked one included, in reading order.
    pub chunks: Vec<Expanded>,
    /// Chunks of the section outside the scope (not returned).
    pub withheld: usize,
    /// Text parts (file names) the section's chunks still need: when not empty, the chunks'
    /// texts are not all there yet; load these and ask again. A search asks only for the parts
    /// of its results' own text (what a page shows first), unless it expands them
    /// (`expand_chars`): the rest of a section may still be on its way.
    pub pending_text: Vec<String>,
}

impl Library {
    /// The loaded chunk with this id.
    pub fn chunk_by_id(&self, id: &str) -> Option<&ChunkRecord> {
        self.locate(id).map(|(s, doc)| &s.chunks()[doc as usize])
    }

    /// The loaded shard holding chunk `id`, and the chunk's position in it.
    fn locate(&self, id: &str) -> Option<(&Shard, u32)> {
        self.loaded().find_map(|s| {
            let doc = s.chunks().iter().position(|c| c.id == id)?;
            Some((s, doc as u32))
        })
    }

    /// The section of chunk `id`, re-gated against `scope` (the scope the result was searched
    /// with, locks included): `None` when the chunk is not loaded or not admissible.
    pub fn section(&self, id: &str, scope: &Scope) -> Option<Section> {
        let (shard, doc) = self.locate(id)?;
        let hit = &shard.chunks()[doc as usize];
        if !admissible(scope, hit) {
            return None;
        }
        let pending_text = shard.text_missing(&[doc], true);
        let within = scope_for(scope, classify(scope, hit));
        let rest = expand_section(hit, shard.chunks(), usize::MAX, &[], |c| {
            gate::admits(&within, c)
        });
        // The rest is in reading order already: the asked chunk goes in its place.
        let mut chunks = rest.chunks;
        let at = chunks.partition_point(|c| {
            crate::expand::natural_cmp(&c.id, &hit.id) == std::cmp::Ordering::Less
        });
        chunks.insert(at, Expanded::of(hit));
        Some(Section {
            id: id.to_string(),
            chunks,
            withheld: rest.withheld,
            pending_text,
        })
    }

    /// `[DOCUMENT N]` context for chunks shown to a student (`ids`, in order), without searching
    /// again: each is re-gated against `scope`; returns the context and how many ids were
    /// withheld (not loaded, their text not loaded, or outside the scope).
    pub fn context_for(&self, ids: &[String], scope: &Scope) -> (String, usize) {
        let mut chunks: Vec<&ChunkRecord> = Vec::new();
        let mut withheld = 0;
        for id in ids {
            match self.chunk_with_text(id) {
                Some(c) if admissible(scope, c) => {
                    if !chunks.iter().any(|x| x.id == c.id) {
                        chunks.push(c);
                    }
                }
                _ => withheld += 1,
            }
        }
        (to_context(chunks), withheld)
    }

    /// The text parts not loaded yet that the results `cands` need, in manifest order: their own
    /// text (snippets, `[DOCUMENT N]` context), and with `sections` (a search that expands its
    /// results) their sections' too. "Show the whole section" asks for the rest itself
    /// ([`Section::pending_text`]): measured on the dev queries (K = 10, 16 KiB text parts),
    /// a first page then waits for 11.6–15.6 kB of text instead of 15.6–23.9 kB (mean per query,
    /// by scope).
    ///
    /// And `next`'s (the candidate after the last result) when a result's near-duplicate pairs
    /// are still to come with its text part (format v13: a shard whose pairs travel with its
    /// text; a shard with no pair at all looks the same): once they are loaded, that result may
    /// give way to `next`, whose text then comes in the same round instead of one more (with
    /// `sections`, its section's too). Measured over every dev question
    /// (`scripts/bench-first-page`, pairs in parts): searches that name text parts, a question,
    /// 1.12 → 1.04 (physics college at 74k chunks), 1.09 → 1.04 and 1.11 → 1.03 (chemistry and
    /// physics college at 250k), for 0.2–0.5 kB more text a question; the next three
    /// candidates: 1.00–1.02 for 1.0–1.7 kB more.
    pub(super) fn text_missing_for(
        &self,
        cands: &[Cand],
        next: Option<&Cand>,
        sections: bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        let may_give_way = cands.iter().any(|c| {
            let s = self.shards[c.key.shard].as_ref();
            s.is_some_and(|s| s.pairs_in_parts && !s.has_text(c.key.doc))
        });
        let next = next.filter(|_| may_give_way);
        for (i, shard) in self.shards.iter().enumerate() {
            let Some(shard) = shard else { continue };
            let docs: Vec<u32> = cands
                .iter()
                .chain(next)
                .filter(|c| c.key.shard == i)
                .map(|c| c.key.doc)
                .collect();
            if !docs.is_empty() {
                out.extend(shard.text_missing(&docs, sections));
            }
        }
        out
    }

    /// The loaded chunk with this id, when its display text is loaded too.
    fn chunk_with_text(&self, id: &str) -> Option<&ChunkRecord> {
        let (s, doc) = self.locate(id)?;
        s.has_text(doc).then(|| &s.chunks()[doc as usize])
    }

    /// Turns candidates into results.
    pub(super) fn hits(
        &self,
        cands: &[Cand],
        scope: &Scope,
        requested: &Scope,
        opts: &SearchOptions,
        trace: &mut Trace,
    ) -> Vec<Hit> {
        let shown: Vec<&str> = cands
            .iter()
            .map(|c| self.chunk(c.key).id.as_str())
            .collect();
        let highlighter = Highlighter::new(&trace.query_terms);
        let hits: Vec<Hit> = cands
            .iter()
            .enumerate()
            .map(|(i, cand)| {
                let c = self.chunk(cand.key);
                let lang = Lang::from_code(&c.lang);
                let expansion = if opts.expand_chars > 0 {
                    let within = scope_for(scope, cand.leakage);
                    expand_section(
                        c,
                        self.shards[cand.key.shard]
                            .as_ref()
                            .map(|s| s.chunks())
                            .unwrap_or(&[]),
                        opts.expand_chars,
                        &shown,
                        |x| gate::admits(&within, x),
                    )
                } else {
                    Default::default()
                };
                Hit {
                    id: c.id.clone(),
                    rank: i + 1,
                    score: cand.score,
                    fused_score: cand.fused,
                    subject: c.subject.clone(),
                    level: c.level.clone(),
                    doc_type: c.doc_type.clone(),
                    lang: c.lang.clone(),
                    source: c.source.clone(),
                    chapter: c.chapter.clone(),
                    chapter_title: c.chapter_title.clone(),
                    section: c.section.clone(),
                    section_title: c.section_title.clone(),
                    section_key: c.section_key.clone(),
                    question_number: c.question_number.clone(),
                    year: c.year.clone(),
                    exam: c.exam.clone(),
                    paper: c.paper.clone(),
                    label: c.label.clone(),
                    subsection: c.subsection.clone(),
                    url: c.url.clone(),
                    title: c.title.clone(),
                    in_scope: gate::admits(requested, c) && gate::admits(scope, c),
                    leakage: cand.leakage,
                    bm25_rank: cand.bm25_rank,
                    dense_rank: cand.dense_rank,
                    adjustments: cand.adjustments.clone(),
                    snippet: highlighter.snippet(&self.analyzer, &c.text, lang, opts.snippet_chars),
                    text: if opts.text {
                        c.text.clone()
                    } else {
                        String::new()
                    },
                    expanded: expansion.chunks,
                    withheld: expansion.withheld,
                }
            })
            .collect();
        trace.withheld = hits.iter().map(|h| h.withheld).sum();
        hits
    }

    /// Packages results (and their expanded sections) as `[DOCUMENT N]` context for a language
    /// model.
    /// Every chunk is re-gated against the scope its result was admitted under ([`scope_for`]).
    pub fn to_context(&self, resp: &SearchResponse) -> String {
        let mut chunks: Vec<&ChunkRecord> = Vec::new();
        for h in &resp.results {
            let within = scope_for(&resp.scope, h.leakage);
            for id in std::iter::once(h.id.as_str()).chain(h.expanded.iter().map(|e| e.id.as_str()))
            {
                if let Some(c) = self.chunk_with_text(id) {
                    if gate::admits(&within, c) && !chunks.iter().any(|x| x.id == c.id) {
                        chunks.push(c);
                    }
                }
            }
        }
        to_context(chunks)
    }
}
