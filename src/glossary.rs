//! Cross-language query expansion with a curriculum glossary (English ↔ French).
//!
//! Cameroon's curriculum is bilingual: a student may ask in French about material written in
//! English, or the reverse. When the query's language is absent from the searched shards, the
//! glossary (`data/glossary-en-fr.tsv`, compiled into the binary; its header notes its source)
//! maps the terms and phrases it recognises to the other language, analysed like documents of
//! that language, and the expansion is recorded in the trace.

use crate::analysis::{fold_accents, Analyzer, Lang};

/// The bundled glossary file.
pub const GLOSSARY_TSV: &str = include_str!("../data/glossary-en-fr.tsv");

/// A bilingual glossary: pairs of (English variants, French variants).
#[derive(Clone, Debug, Default)]
pub struct Glossary {
    pairs: Vec<(Vec<String>, Vec<String>)>,
}

fn norm(s: &str) -> String {
    let f = fold_accents(&s.to_lowercase()).replace(['\'', '’'], " ");
    f.split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Glossary {
    /// Parses a TSV glossary (`english<TAB>french`, variants separated by `|`, `#` comments).
    pub fn parse(tsv: &str) -> Glossary {
        let mut pairs = Vec::new();
        for line in tsv.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut cols = line.split('\t');
            let (Some(en), Some(fr)) = (cols.next(), cols.next()) else {
                continue;
            };
            let split = |s: &str| {
                s.split('|')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            };
            pairs.push((split(en), split(fr)));
        }
        Glossary { pairs }
    }

    /// The bundled glossary.
    pub fn builtin() -> Glossary {
        Glossary::parse(GLOSSARY_TSV)
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether the glossary is empty.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Translations of the glossary terms found in `query` (language `from`) into `to`, longest
    /// phrases first, as raw target-language phrases.
    pub fn translate(&self, query: &str, from: Lang, to: Lang) -> Vec<String> {
        let q = format!(" {} ", norm(query));
        let mut found: Vec<(usize, &Vec<String>)> = Vec::new();
        for (en, fr) in &self.pairs {
            let (src, dst) = match (from, to) {
                (Lang::Fr, Lang::En) => (fr, en),
                (Lang::En, Lang::Fr) => (en, fr),
                _ => return Vec::new(),
            };
            if let Some(len) = src
                .iter()
                .filter(|s| q.contains(&format!(" {} ", norm(s))))
                .map(|s| s.len())
                .max()
            {
                found.push((len, dst));
            }
        }
        crate::order::sort_by_key(&mut found, |f| std::cmp::Reverse(f.0));
        let mut out: Vec<String> = Vec::new();
        for (_, dst) in found {
            for d in dst {
                if !out.contains(d) {
                    out.push(d.clone());
                }
            }
        }
        out
    }

    /// Expansion terms for a query in `qlang` searched over shards in `pool_langs`: only when the
    /// query's language is absent from the pool. Terms are analysed in the target language.
    pub fn expand(
        &self,
        query: &str,
        qlang: Lang,
        pool_langs: &[Lang],
        analyzer: &Analyzer,
    ) -> Vec<String> {
        if qlang == Lang::Other || pool_langs.contains(&qlang) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for target in pool_langs
            .iter()
            .copied()
            .filter(|l| *l != Lang::Other && *l != qlang)
        {
            for phrase in self.translate(query, qlang, target) {
                for t in analyzer.analyze(&phrase, target) {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_glossary_parses() {
        let g = Glossary::builtin();
        assert!(g.len() > 100, "{}", g.len());
    }

    #[test]
    fn french_query_gets_english_terms() {
        let g = Glossary::builtin();
        let t = g.translate(
            "Quelle est la capacité thermique massique de l'eau ?",
            Lang::Fr,
            Lang::En,
        );
        assert_eq!(t.first().map(String::as_str), Some("specific heat"));
        let a = Analyzer::new();
        let e = g.expand("énergie cinétique d'une voiture", Lang::Fr, &[Lang::En], &a);
        assert!(
            e.contains(&"kinet".to_string()) && e.contains(&"energi".to_string()),
            "{e:?}"
        );
        // Same language in the pool: no expansion.
        assert!(g
            .expand("énergie cinétique", Lang::Fr, &[Lang::Fr, Lang::En], &a)
            .is_empty());
    }

    #[test]
    fn english_query_gets_french_terms() {
        let g = Glossary::builtin();
        let t = g.translate("binary tree traversal", Lang::En, Lang::Fr);
        assert!(t.contains(&"arbre binaire".to_string()), "{t:?}");
    }
}
