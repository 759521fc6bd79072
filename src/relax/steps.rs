//! The relaxation steps of a search (W1 → W2 → W3), as [`Library`] methods: the two triggers,
//! the evidence they compare, and where widened results go (see the [module docs](super)).

use super::notes::{blocked_by_strict, decimal, fallback_step, skipped_w1};
use super::{classify, without_topical, Evidence, Slot, Trigger, Widen};
use super::{STRICT_FIELDS, TOPICAL_FIELDS};
use crate::format::Field;
use crate::gate;
use crate::scope::Scope;
use crate::search::query::Query;
use crate::search::{
    Cand, CouldMatch, Gating, Leakage, Library, RelaxStep, Relaxation, SearchOptions, Stages,
    Trace, NO_SECTION,
};

impl Library {
    /// Progressive scope relaxation, W1 → W2 → W3 (see [`crate::relax`]): the paper's trigger or
    /// the evidence trigger decides, [`classify`] labels every result.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn relax(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        opts: &SearchOptions,
        cands: &mut Vec<Cand>,
        trace: &mut Trace,
    ) -> Relaxation {
        let mut r = Relaxation {
            trigger: opts.trigger.name().to_string(),
            ..Default::default()
        };
        match opts.trigger {
            Trigger::Paper => self.relax_paper(q, scope, opts, cands, trace, &mut r),
            Trigger::Evidence => self.relax_evidence(q, scope, opts, cands, trace, &mut r),
        }
        r
    }

    /// Labels the candidates of a widening pass against the requested scope (`fallback`: W3's
    /// label for whatever is outside the scope).
    fn label(&self, scope: &Scope, new: &mut [Cand], fallback: bool) {
        for c in new {
            c.leakage = match classify(scope, self.chunk(c.key)) {
                Leakage::InScope => Leakage::InScope,
                _ if fallback => Leakage::Fallback,
                l => l,
            };
        }
    }

    /// A gated pass over the widened scope `wide`, its candidates labelled against the requested
    /// `scope`.
    fn widened(
        &self,
        q: &Query<'_>,
        wide: &Scope,
        scope: &Scope,
        opts: &SearchOptions,
        trace: &mut Trace,
    ) -> Vec<Cand> {
        let mut new = self.pass(q, wide, Gating::Gated, opts, false, trace);
        self.label(scope, &mut new, false);
        new
    }

    /// Appends a widening pass's new candidates after the current ones (the paper's placement);
    /// returns how many were new.
    fn append(&self, cands: &mut Vec<Cand>, new: Vec<Cand>) -> usize {
        let before = cands.len();
        for c in new {
            if !cands.iter().any(|x| x.key == c.key) {
                cands.push(c);
            }
        }
        cands.len() - before
    }

    /// Alternates the current (in-scope) candidates with a widening pass's candidates outside
    /// the scope, in-scope first, each side in its own order; returns how many were new.
    fn alternate(&self, cands: &mut Vec<Cand>, new: Vec<Cand>) -> usize {
        let mut wide: Vec<Cand> = new
            .into_iter()
            .filter(|c| c.leakage != Leakage::InScope && !cands.iter().any(|x| x.key == c.key))
            .collect();
        let added = wide.len();
        let mut inside = std::mem::take(cands).into_iter();
        let mut outside = wide.drain(..);
        loop {
            match (inside.next(), outside.next()) {
                (None, None) => break,
                (a, b) => cands.extend(a.into_iter().chain(b)),
            }
        }
        added
    }

    /// Places a widening pass's candidates first, in the pass's own order (in-scope and widened
    /// chunks interleaved by their scores in the widened pool), then the current candidates it
    /// did not return; returns how many were new.
    fn lead(&self, cands: &mut Vec<Cand>, new: Vec<Cand>) -> usize {
        let added = new
            .iter()
            .filter(|c| !cands.iter().any(|x| x.key == c.key))
            .count();
        let old = std::mem::replace(cands, new);
        for c in old {
            if !cands.iter().any(|x| x.key == c.key) {
                cands.push(c);
            }
        }
        added
    }

    /// Splits shard files into those the query could match (by their term filters) and those
    /// it cannot. While the term-filter file is not loaded, nothing can be ruled out and that
    /// file is what to load first: it is the one file asked for (the client loads it, searches
    /// again, and then gets the shards themselves).
    fn split_matchable(&self, files: &[String], q: &Query<'_>) -> (Vec<String>, Vec<String>) {
        let pos = |f: &String| self.manifest().shards.iter().position(|e| &e.file == f);
        let verdicts: Vec<CouldMatch> = files
            .iter()
            .map(|f| pos(f).map_or(CouldMatch::Yes, |i| self.could_match(i, q)))
            .collect();
        if verdicts.contains(&CouldMatch::Unknown) {
            if let Some(t) = &self.manifest().terms {
                return (vec![t.file.clone()], Vec::new());
            }
        }
        let (could, cannot): (Vec<_>, Vec<_>) = files
            .iter()
            .cloned()
            .zip(verdicts)
            .partition(|(_, v)| *v != CouldMatch::No);
        (
            could.into_iter().map(|(f, _)| f).collect(),
            cannot.into_iter().map(|(f, _)| f).collect(),
        )
    }

    /// The section evidence on each side of a widening step ([`super::unit_scores`]):
    /// the chunks `wide` admits in the loaded shards it needs, scored together, split by `side`
    /// (0: kept, 1: added), which is decided once per shard (subject and level are per shard;
    /// other fields by the shard's gate), not per scored chunk. When `wide` is the first pass's
    /// scope (W1 with no topical field to drop), the first pass's scores are read again: the
    /// same pool, statistics and terms give the same scores.
    fn step_evidence(
        &self,
        q: &Query<'_>,
        terms: &[String],
        wide: &Scope,
        side: Side<'_>,
        section_idf: f64,
    ) -> (Vec<f32>, Vec<f32>) {
        let wide_pool = self.gate_step(wide, Gating::Gated);
        let shards = &wide_pool.shards;
        let scored = q.scope_scores(wide, terms).unwrap_or_else(|| {
            std::rc::Rc::new(crate::bm25::score_all(
                &wide_pool.lexical(),
                terms,
                section_idf,
            ))
        });
        let sides: Vec<ShardSide> = shards
            .iter()
            .map(|s| {
                let (subject, level) = (&s.payload.subject, &s.payload.level);
                match side {
                    Side::OtherLevel(want) => ShardSide::All(usize::from(level.trim() != want)),
                    Side::OutsideScope(scope) => {
                        let kept = gate::gate_shard(scope, subject, level, s.chunks());
                        match kept.count() {
                            0 => ShardSide::All(1),
                            n if n == kept.universe() => ShardSide::All(0),
                            _ => ShardSide::Outside(kept),
                        }
                    }
                }
            })
            .collect();
        let mut best = super::unit_scores(&scored, 2, |si, doc| {
            let s = shards[si];
            let unit = match s.sections[doc as usize] {
                NO_SECTION => (1 << 32) | u64::from(doc),
                k => u64::from(k),
            };
            Some(Slot {
                side: match &sides[si] {
                    ShardSide::All(side) => *side,
                    ShardSide::Outside(kept) => usize::from(!kept.contains(doc as usize)),
                },
                unit,
            })
        });
        let added = best.pop().unwrap_or_default();
        (best.pop().unwrap_or_default(), added)
    }

    /// Where a label the query names designates chunks, among those `wide` admits:
    /// `(inside scope, outside it)`.
    fn label_sides(&self, label: &str, scope: &Scope, wide: &Scope) -> (bool, bool) {
        let matcher = crate::rerank::LabelMatcher::new(label);
        let (shards, _) = self.pass_shards(wide, Gating::Gated);
        let (mut inside, mut outside) = (false, false);
        for c in shards.iter().flat_map(|s| s.chunks()) {
            if gate::admits(wide, c) && matcher.matches(c) {
                if gate::admits(scope, c) {
                    inside = true;
                } else {
                    outside = true;
                }
            }
        }
        (inside, outside)
    }

    /// The evidence trigger: W1 runs when the sections it would add are stronger lexical evidence
    /// than the scope's (its ranking leads above `widen_ratio`, alternates with the in-scope
    /// results above `mix_ratio`) or when a label the query names lies only outside the topic;
    /// W2 runs when another level's sections are stronger by `level_ratio`; W3 when nothing was
    /// found and `allow_fallback` allows it.
    #[allow(clippy::too_many_arguments)]
    fn relax_evidence(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        opts: &SearchOptions,
        cands: &mut Vec<Cand>,
        trace: &mut Trace,
        r: &mut Relaxation,
    ) {
        let terms = trace.query_terms.clone();
        let weak = trace.weak_evidence.as_ref().is_some_and(|w| w.weak);
        let ratio = opts.widen_ratio;
        let mix = opts.mix_ratio.min(ratio);
        let mut ev = Evidence {
            ratio,
            mix_ratio: mix,
            level_ratio: opts.level_ratio,
            ..Default::default()
        };
        let fmt = |v: &[f32]| decimal(v.first().copied().unwrap_or(0.0).into(), 2, false);
        let (ratio_t, mix_t) = (decimal(ratio, 6, true), decimal(mix, 6, true));
        // W1: the requested level's other topics (same shards, same statistics).
        let w1 = without_topical(scope);
        let topical: Vec<String> = TOPICAL_FIELDS
            .iter()
            .filter(|f| scope.get(**f).is_some() && !scope.is_locked(**f))
            .map(|f| f.name().to_string())
            .collect();
        let (inside, outside) = self.step_evidence(
            q,
            &terms,
            &w1,
            Side::OutsideScope(scope),
            opts.section_idf(),
        );
        // Whether anything at the requested level matches a query term (any topic).
        let level_matches = !inside.is_empty() || !outside.is_empty();
        let scores = format!(
            "best section outside the topic scores {} against {} in scope",
            fmt(&outside),
            fmt(&inside)
        );
        // A label the query names ("Table 4.1", "Appendix G") designates material directly:
        // when it is in scope the scope holds what was asked for, when it is only outside the
        // topic the scope is the wrong one; otherwise the scores decide.
        let label = q
            .understanding
            .label
            .as_ref()
            .filter(|_| opts.stages.labels && !topical.is_empty());
        let (fire, why) = match label.map(|l| (l, self.label_sides(l, scope, &w1))) {
            Some((l, (true, _))) => {
                ev.label = Some("in_scope".into());
                (
                    Widen::No,
                    format!(
                        "the query names {}, which is in scope",
                        crate::format::json::quote(l)
                    ),
                )
            }
            Some((l, (false, true))) => {
                ev.label = Some("outside_topic".into());
                (
                    Widen::Lead,
                    format!(
                        "the query names {}, which is outside the topic",
                        crate::format::json::quote(l)
                    ),
                )
            }
            other => {
                if other.is_some() {
                    ev.label = Some("nowhere".into());
                }
                if super::fires(&inside, &outside, ratio) {
                    (Widen::Lead, format!("{scores} (ratio > {ratio_t})"))
                } else if super::fires(&inside, &outside, mix) {
                    (
                        Widen::Mix,
                        format!("{scores} (ratio > {mix_t}, ≤ {ratio_t})"),
                    )
                } else {
                    (Widen::No, format!("{scores} (ratio ≤ {mix_t})"))
                }
            }
        };
        if topical.is_empty() {
            // Locked topical fields: would the step have widened without the lock?
            let blocked = has_locked_topical(scope) && {
                let mut free = scope.clone();
                free.locked.clear();
                let (inside, outside) = self.step_evidence(
                    q,
                    &terms,
                    &without_topical(&free),
                    Side::OutsideScope(scope),
                    opts.section_idf(),
                );
                super::fires(&inside, &outside, mix)
            };
            if blocked {
                r.case = "locked".into();
            }
            r.steps.push(
                RelaxStep::skipped(
                    "W1",
                    scope.to_json(),
                    if blocked {
                        format!(
                            "{}: a better match lies outside the lock",
                            skipped_w1(scope)
                        )
                    } else {
                        skipped_w1(scope)
                    },
                )
                .blocked_by_lock(blocked),
            );
        } else if fire != Widen::No {
            let new = self.widened(q, &w1, scope, opts, trace);
            let (added, case, how) = if fire == Widen::Lead {
                let added = self.lead(cands, new);
                (added, "stronger_outside_topic", "the widened ranking leads")
            } else {
                let added = self.alternate(cands, new);
                (
                    added,
                    "comparable_outside_topic",
                    "in-scope and widened results alternate",
                )
            };
            r.widened = true;
            r.case = case.into();
            r.steps.push(RelaxStep::ran(
                "W1",
                topical.clone(),
                w1.to_json(),
                added,
                format!("{why}: dropped the topical constraints; {how}"),
            ));
        } else {
            r.steps.push(RelaxStep::skipped(
                "W1",
                w1.to_json(),
                format!("not needed: {why}"),
            ));
        }
        if !topical.is_empty() {
            ev.cross_topic = Some(outside);
        }
        ev.in_scope = Some(inside);
        // W2: the subject's other levels, unless a strict key pins the request. Weak evidence
        // lowers W2's bar only when W1 did not widen: a student on the wrong chapter is served by
        // their own level's other chapters.
        let weak_level = weak && !r.widened;
        ev.level_ratio = w2_ratio(opts, weak_level);
        let strict = w2_blockers(scope, q);
        let mut w2 = w1.clone();
        w2.relax(Field::Level);
        let level_locked = scope.is_locked(Field::Level);
        if let Some(level) = scope
            .get(Field::Level)
            .filter(|_| strict.is_empty() && !level_locked)
        {
            let (_, missing) = self.pass_shards(&w2, Gating::Gated);
            if missing.is_empty() {
                let (here, other) =
                    self.step_evidence(q, &terms, &w2, Side::OtherLevel(level), opts.section_idf());
                let level_ratio = w2_ratio(opts, weak_level);
                let level_t = decimal(level_ratio, 6, true);
                let fired = super::fires(&here, &other, level_ratio);
                let note = format!(
                    "best section at another level scores {} against {} at this level",
                    fmt(&other),
                    fmt(&here)
                );
                ev.level = Some(here);
                ev.cross_level = Some(other);
                if fired {
                    let new = self.widened(q, &w2, scope, opts, trace);
                    let added = self.lead(cands, new);
                    if !r.widened {
                        r.case = "stronger_other_level".into();
                    }
                    r.widened = true;
                    r.steps.push(RelaxStep::ran(
                        "W2",
                        vec!["level".into()],
                        w2.to_json(),
                        added,
                        format!("{note} (ratio > {level_t}): dropped the level"),
                    ));
                } else {
                    r.steps.push(RelaxStep::skipped(
                        "W2",
                        w2.to_json(),
                        format!("not needed: {note} (ratio ≤ {level_t})"),
                    ));
                }
            } else if !level_matches || weak_level {
                // Nothing at this level matches, or nothing matches well: the other levels are
                // worth loading — those whose term summary says the query could match there.
                let (could, cannot) = self.split_matchable(&missing, q);
                r.pending_shards = could.clone();
                if !level_matches {
                    r.case = "no_match_in_level".into();
                }
                let why = if level_matches {
                    "nothing at this level matches the query well"
                } else {
                    "nothing at this level matches the query"
                };
                r.steps.push(RelaxStep::skipped(
                    "W2",
                    w2.to_json(),
                    if could.is_empty() {
                        format!(
                            "{why}, and no query term is in the other levels' shards ({}:                              their term summaries): nothing to load",
                            cannot.join(", ")
                        )
                    } else if cannot.is_empty() {
                        format!("{why}: load {} and search again", could.join(", "))
                    } else {
                        format!(
                            "{why}: load {} and search again (not {}: no query term there)",
                            could.join(", "),
                            cannot.join(", ")
                        )
                    },
                ));
            } else {
                r.steps.push(RelaxStep::skipped(
                    "W2",
                    w2.to_json(),
                    format!(
                        "not compared: this level matches the query and the other levels' shards \
                         ({}) are not loaded",
                        missing.join(", ")
                    ),
                ));
            }
        } else {
            // A locked level: would another level have been stronger evidence?
            let blocked = level_locked && strict.is_empty() && {
                let mut free = w1.clone();
                free.locked.clear();
                free.relax(Field::Level);
                let (_, missing) = self.pass_shards(&free, Gating::Gated);
                let level = scope.get(Field::Level).unwrap_or_default().to_string();
                if missing.is_empty() {
                    let (here, other) = self.step_evidence(
                        q,
                        &terms,
                        &free,
                        Side::OtherLevel(&level),
                        opts.section_idf(),
                    );
                    super::fires(&here, &other, w2_ratio(opts, weak_level))
                } else {
                    // The other levels are not loaded: unlocked, W2 would have asked for those
                    // the query could match when nothing at this level matches (well). Without
                    // the term filters that is not known: the lock is not said to have stopped
                    // anything, and the filters are asked for (only they: a locked level never
                    // loads another level's shards), so that the next search can say.
                    (!level_matches || weak_level)
                        && if self.terms_loaded() {
                            !self.split_matchable(&missing, q).0.is_empty()
                        } else {
                            r.pending_shards = self
                                .manifest()
                                .terms
                                .iter()
                                .map(|t| t.file.clone())
                                .collect();
                            false
                        }
                }
            };
            if blocked && !r.widened {
                r.case = "locked".into();
            }
            r.steps.push(
                RelaxStep::skipped(
                    "W2",
                    w2.to_json(),
                    if scope.get(Field::Level).is_none() {
                        "skipped: the scope has no level to drop".into()
                    } else if level_locked {
                        "skipped: the level is locked".into()
                    } else {
                        blocked_by_strict(&strict)
                    },
                )
                .blocked_by_lock(blocked),
            );
        }
        // W3: the unfiltered lexical fallback, when allowed and nothing was found.
        if cands.is_empty() {
            self.w3(q, scope, &w2, "nothing found: ", opts, cands, trace, r);
        }
        if r.case.is_empty() {
            let none = ev.in_scope.iter().chain(&ev.cross_topic).all(Vec::is_empty)
                && ev.cross_level.as_ref().is_none_or(Vec::is_empty);
            r.case = if none { "no_match" } else { "strong_in_scope" }.into();
        }
        r.evidence = Some(ev);
    }

    /// W3 when its trigger fired: the [`fallback`](Self::fallback) when `allow_fallback` allows
    /// it (its note starts with `why`), else a step saying it did not run over `last`, the scope
    /// the previous step searched.
    #[allow(clippy::too_many_arguments)]
    fn w3(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        last: &Scope,
        why: &str,
        opts: &SearchOptions,
        cands: &mut Vec<Cand>,
        trace: &mut Trace,
        r: &mut Relaxation,
    ) {
        if opts.allow_fallback {
            let added = self.fallback(q, scope, opts, cands, trace, r);
            r.widened = true;
            r.steps.push(fallback_step(scope, added, why));
        } else {
            r.steps.push(RelaxStep::skipped(
                "W3",
                last.to_json(),
                "not run: the unfiltered fallback needs allow_fallback",
            ));
        }
    }

    /// W3: the unfiltered lexical fallback over the loaded shards (asking for every other shard
    /// within the locks the query could match), appended and labelled
    /// `fallback`; returns how many results it added.
    #[allow(clippy::too_many_arguments)]
    fn fallback(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        opts: &SearchOptions,
        cands: &mut Vec<Cand>,
        trace: &mut Trace,
        r: &mut Relaxation,
    ) -> usize {
        // Every shard within the locks: those not loaded yet whose term filter could match the
        // query are asked for (`pending_shards`), and the client searches again once they are in.
        let (_, missing) = self.pass_shards(&scope.locks_only(), Gating::Gated);
        for f in self.split_matchable(&missing, q).0 {
            if !r.pending_shards.contains(&f) {
                r.pending_shards.push(f);
            }
        }
        let lexical_only = SearchOptions {
            stages: Stages {
                dense: false,
                rerank: false,
                ..opts.stages
            },
            ..opts.clone()
        };
        // Unfiltered except for the locked fields: a lock is never relaxed, not even here.
        let mut new = self.pass(
            q,
            &scope.locks_only(),
            Gating::Ungated,
            &lexical_only,
            false,
            trace,
        );
        self.label(scope, &mut new, true);
        self.append(cands, new)
    }

    /// The paper's four-case trigger: widen on no result, on a result off the requested subject,
    /// or (no subject in the scope) on fewer than `k_min` results; widened results come after
    /// the in-scope ones.
    #[allow(clippy::too_many_arguments)]
    fn relax_paper(
        &self,
        q: &Query<'_>,
        scope: &Scope,
        opts: &SearchOptions,
        cands: &mut Vec<Cand>,
        trace: &mut Trace,
        r: &mut Relaxation,
    ) {
        let subject = scope.get(Field::Subject);
        let n = cands.len().min(opts.k);
        let off_subject = subject.is_some_and(|s| {
            cands
                .iter()
                .take(opts.k)
                .any(|c| self.chunk(c.key).subject != s)
        });
        r.case = if n == 0 {
            "zero_results"
        } else if off_subject {
            "off_subject"
        } else if subject.is_none() && n < opts.k_min {
            "few_without_subject"
        } else if subject.is_some() {
            "enough_in_subject"
        } else {
            "enough"
        }
        .to_string();
        if !matches!(
            r.case.as_str(),
            "zero_results" | "off_subject" | "few_without_subject"
        ) {
            return;
        }
        let needs_more = |cands: &Vec<Cand>| cands.len() < opts.k_min.max(1);
        let mut current = scope.clone();
        // W1: drop topical constraints.
        let topical: Vec<Field> = TOPICAL_FIELDS
            .iter()
            .copied()
            .filter(|f| current.get(*f).is_some() && !current.is_locked(*f))
            .collect();
        if topical.is_empty() {
            r.steps.push(
                RelaxStep::skipped("W1", current.to_json(), skipped_w1(&current))
                    .blocked_by_lock(has_locked_topical(&current)),
            );
        } else {
            for f in &topical {
                current.relax(*f);
            }
            let new = self.widened(q, &current, scope, opts, trace);
            let added = self.append(cands, new);
            r.widened = true;
            r.steps.push(RelaxStep::ran(
                "W1",
                topical.iter().map(|f| f.name().to_string()).collect(),
                current.to_json(),
                added,
                format!("{} triggered: dropped the topical constraints", r.case),
            ));
        }
        // W2: drop the level, unless a strict key pins the request.
        if needs_more(cands) {
            let strict = w2_blockers(&current, q);
            if current.get(Field::Level).is_none() {
                r.steps.push(RelaxStep::skipped(
                    "W2",
                    current.to_json(),
                    "skipped: the scope has no level to drop",
                ));
            } else if current.is_locked(Field::Level) {
                r.steps.push(
                    RelaxStep::skipped("W2", current.to_json(), "skipped: the level is locked")
                        .blocked_by_lock(true),
                );
            } else if !strict.is_empty() {
                r.steps.push(RelaxStep::skipped(
                    "W2",
                    current.to_json(),
                    blocked_by_strict(&strict),
                ));
            } else {
                current.relax(Field::Level);
                let (_, missing) = self.pass_shards(&current, Gating::Gated);
                if !missing.is_empty() {
                    r.pending_shards = self.split_matchable(&missing, q).0;
                }
                let new = self.widened(q, &current, scope, opts, trace);
                let added = self.append(cands, new);
                r.widened = true;
                r.steps.push(RelaxStep::ran(
                    "W2",
                    vec!["level".into()],
                    current.to_json(),
                    added,
                    if missing.is_empty() {
                        "dropped the level: other levels of the subject searched".into()
                    } else {
                        format!(
                            "dropped the level; shards not loaded yet: {}",
                            missing.join(", ")
                        )
                    },
                ));
            }
        }
        // W3: unfiltered lexical fallback, only when explicitly allowed.
        if needs_more(cands) {
            self.w3(q, scope, &current, "", opts, cands, trace, r);
        }
    }
}

/// The ratio W2 must exceed: `level_ratio`, or — when the scope's own evidence is weak
/// ([`crate::search::weak`]) — W1's lower `mix_ratio`: a level whose best section is clearly
/// stronger than a scope that matches nothing well is worth showing, labelled.
fn w2_ratio(opts: &SearchOptions, weak: bool) -> f64 {
    if weak {
        opts.level_ratio.min(opts.mix_ratio)
    } else {
        opts.level_ratio
    }
}

/// What blocks W2 (dropping the level): a strict scope key (paper, year, question number, doc
/// type), or a document type the query asks for (the paper's content-type and mark-scheme flags:
/// "mark scheme", "corrigé", "past paper" want that level's own material).
fn w2_blockers(scope: &Scope, q: &Query<'_>) -> Vec<String> {
    let mut out: Vec<String> = STRICT_FIELDS
        .iter()
        .filter(|f| scope.get(**f).is_some())
        .map(|f| f.name().to_string())
        .collect();
    if let Some(t) = &q.understanding.wants_doc_type {
        out.push(format!("the query asks for {t}"));
    }
    out
}

/// Whether the scope locks a topical field it sets (W1 then has it to keep).
fn has_locked_topical(scope: &Scope) -> bool {
    TOPICAL_FIELDS
        .iter()
        .any(|f| scope.get(*f).is_some() && scope.is_locked(*f))
}

/// How [`Library::step_evidence`] splits the chunks a step admits: 0 (kept) or 1 (added).
#[derive(Clone, Copy)]
enum Side<'a> {
    /// Added: the chunks outside this scope.
    OutsideScope(&'a Scope),
    /// Added: the chunks of shards at another level than this one.
    OtherLevel(&'a str),
}

/// One shard's side of a step: the same for all its chunks, or by its gate for the kept scope.
enum ShardSide {
    All(usize),
    Outside(gate::Bitset),
}
