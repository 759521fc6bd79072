//! Step 2: the query, understood once per search.
//!
//! A search may run several passes (the first one, then relaxation's W1, W2, W3). What depends
//! only on the query text is computed here once: the understanding (hints, intents, a label),
//! the detected language, the analysed terms with their cross-language expansion (once per set
//! of pool languages, since a pass over another level may add a language), and the query vector.

use crate::analysis::{Analyzer, Lang, MAX_QUERY_TERMS};
use crate::bm25::Scored;
use crate::format::Field;
use crate::glossary::Glossary;
use crate::scope::Scope;
use crate::understand::{detect_lang, understand, Understanding};
use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

/// The analysed terms of a query over a pool of languages.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Terms {
    /// Terms searched (analysed query terms, then the glossary's additions).
    pub(crate) terms: Vec<String>,
    /// The glossary's additions, in order.
    pub(crate) expansion: Vec<String>,
    /// Whether the query was cut to [`MAX_QUERY_TERMS`].
    pub(crate) truncated: bool,
}

/// A query and everything a pass reads from it.
pub(crate) struct Query<'q> {
    /// The (bounded) query text.
    pub(crate) text: &'q str,
    /// What query understanding read (empty unless the variant understands queries).
    pub(crate) understanding: Understanding,
    /// Hints left as soft rerank evidence (set by the hints step).
    pub(crate) soft: Vec<(Field, String)>,
    /// Whether to expand terms across languages (the understanding stage).
    expand: bool,
    /// The query's language (for the glossary), detected once.
    lang: OnceCell<Lang>,
    /// Terms per pool language set.
    terms: RefCell<Vec<(Vec<Lang>, Rc<Terms>)>>,
    /// The query vector of the loaded model, embedded once.
    vector: OnceCell<Vec<f32>>,
    /// The first pass's BM25 score of every matching chunk over its (gated) scope, with that
    /// scope and the terms: the relaxation's evidence over the same scope reads them instead of
    /// scoring the postings again.
    scope_scores: RefCell<Option<ScopeScores>>,
}

/// A gated scope, query terms, and the BM25 score of every chunk of that scope matching them.
type ScopeScores = (Scope, Vec<String>, Rc<Vec<Scored>>);

impl<'q> Query<'q> {
    /// Understands `text` when `understand` is set (variant E).
    pub(crate) fn new(text: &'q str, understand_it: bool) -> Query<'q> {
        let understanding = if understand_it {
            understand(text)
        } else {
            Understanding::default()
        };
        // Understanding detected the language already (the glossary reads it).
        let lang = OnceCell::new();
        if understand_it {
            let _ = lang.set(Lang::from_code(&understanding.lang));
        }
        Query {
            text,
            understanding,
            soft: Vec::new(),
            expand: understand_it,
            lang,
            terms: RefCell::new(Vec::new()),
            vector: OnceCell::new(),
            scope_scores: RefCell::new(None),
        }
    }

    /// Keeps the BM25 scores of `terms` over the gated `scope` (every matching chunk, unsorted,
    /// as [`crate::bm25::score_all`] returns them).
    pub(crate) fn keep_scope_scores(&self, scope: &Scope, terms: &[String], scored: &[Scored]) {
        *self.scope_scores.borrow_mut() =
            Some((scope.clone(), terms.to_vec(), Rc::new(scored.to_vec())));
    }

    /// The scores kept by [`Query::keep_scope_scores`] for exactly this gated scope and these
    /// terms, if any.
    pub(crate) fn scope_scores(&self, scope: &Scope, terms: &[String]) -> Option<Rc<Vec<Scored>>> {
        self.scope_scores
            .borrow()
            .as_ref()
            .filter(|(s, t, _)| s == scope && t.as_slice() == terms)
            .map(|(_, _, v)| Rc::clone(v))
    }

    /// The analysed terms over a pool of `langs` (sorted, deduplicated): the analyser's terms,
    /// then the glossary's cross-language additions up to [`MAX_QUERY_TERMS`].
    pub(crate) fn terms(
        &self,
        analyzer: &Analyzer,
        glossary: &Glossary,
        langs: &[Lang],
    ) -> Rc<Terms> {
        if let Some((_, t)) = self.terms.borrow().iter().find(|(l, _)| l == langs) {
            return Rc::clone(t);
        }
        let q = analyzer.analyze_query(self.text, langs);
        let mut t = Terms {
            terms: q.terms,
            expansion: Vec::new(),
            truncated: q.truncated,
        };
        if self.expand {
            let qlang = *self.lang.get_or_init(|| detect_lang(self.text));
            for x in glossary.expand(self.text, qlang, langs, analyzer) {
                if !t.terms.contains(&x) && t.terms.len() < MAX_QUERY_TERMS {
                    t.expansion.push(x.clone());
                    t.terms.push(x);
                }
            }
        }
        let t = Rc::new(t);
        self.terms
            .borrow_mut()
            .push((langs.to_vec(), Rc::clone(&t)));
        t
    }

    /// The query vector, embedded by `embed` on first use; `fresh` tells whether this call
    /// embedded it (for the timings).
    pub(crate) fn vector(&self, embed: impl FnOnce() -> Vec<f32>) -> (&[f32], bool) {
        let mut fresh = false;
        let v = self.vector.get_or_init(|| {
            fresh = true;
            embed()
        });
        (v, fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_analysed_once_per_language_set_and_match_a_fresh_analysis() {
        let (a, g) = (Analyzer::new(), Glossary::builtin());
        let q = Query::new("chaleur spécifique de l'eau", true);
        let fr = q.terms(&a, &g, &[Lang::Fr]);
        let again = q.terms(&a, &g, &[Lang::Fr]);
        assert!(
            Rc::ptr_eq(&fr, &again),
            "the second pass reuses the analysis"
        );
        let both = q.terms(&a, &g, &[Lang::En, Lang::Fr]);
        assert!(
            !Rc::ptr_eq(&fr, &both),
            "another language set is analysed on its own"
        );
        let direct = a.analyze_query(q.text, &[Lang::En, Lang::Fr]);
        assert!(both.terms.starts_with(&direct.terms));
        assert_eq!(both.terms.len(), direct.terms.len() + both.expansion.len());
        // Without understanding, no glossary term is added.
        let plain = Query::new("chaleur spécifique de l'eau", false);
        assert!(plain
            .terms(&a, &g, &[Lang::En, Lang::Fr])
            .expansion
            .is_empty());
    }
}
