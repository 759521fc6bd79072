//! A built MkDocs site's own search index (`search/search_index.json`, which MkDocs' search
//! plugin writes): the pages the site's search finds. A page it leaves out (MkDocs Material's
//! `search: exclude` front matter, the `mkdocs-exclude-search` plugin, an encrypted page) or
//! an HTML file the site copies as it is (an example web page of a lesson on HTML) is not a
//! page a student searches, and is left out of the index too, as it is from the sources.

use std::collections::BTreeSet;

/// The pages a built site's search index holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteSearch {
    /// Their addresses from the site's root, percent-decoded, without fragments: `dir/page/`,
    /// `dir/page.html`, and `` for the home page.
    pages: BTreeSet<String>,
    /// The first folder of each address in a folder.
    folders: BTreeSet<String>,
}

impl SiteSearch {
    /// The index MkDocs writes (an object with `config` and a `docs` list of records, each with
    /// its `location`), when `json` is one with records; `None` otherwise.
    pub fn read(json: &str) -> Option<SiteSearch> {
        let v: serde_json::Value = serde_json::from_str(json).ok()?;
        v.get("config")?.as_object()?;
        let mut pages = BTreeSet::new();
        for record in v.get("docs")?.as_array()? {
            let location = record.get("location")?.as_str()?;
            let page = location.split('#').next().unwrap_or_default();
            pages.insert(percent_decoded(page));
        }
        let folders = pages
            .iter()
            .filter_map(|p| p.split_once('/'))
            .map(|(top, _)| top.to_string())
            .collect();
        (!pages.is_empty()).then_some(SiteSearch { pages, folders })
    }

    /// Whether the built page at `rel` (`dir/page/index.html`, `dir/page.html`) is one the
    /// site's search leaves out: not in its index, and in a folder the index has pages of, or at
    /// the site's root (a translation, or another site published under this one, has its own
    /// index in its own folder).
    pub fn leaves_out(&self, rel: &str) -> bool {
        let folder = rel.strip_suffix("index.html");
        let address = folder.unwrap_or(rel);
        if self.pages.contains(address) || self.pages.contains(rel) {
            return false;
        }
        match rel.split_once('/') {
            Some((top, _)) => self.folders.contains(top),
            None => true,
        }
    }
}

/// `text` with its `%XX` escapes decoded as UTF-8 (an invalid sequence is kept as written).
fn percent_decoded(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_the_sites_search_leaves_out_is_one_of_its_folders_not_in_its_index() {
        let json = r#"{"config": {"lang": ["fr"]}, "docs": [
            {"location": "", "text": "", "title": "Accueil"},
            {"location": "T1/cours/", "title": "Cours"},
            {"location": "T1/cours/#1-les-listes", "title": "1. Les listes"},
            {"location": "T2/D%C3%A9codeuses/", "title": "Décodeuses"},
            {"location": "T3/page.html", "title": "Page"}]}"#;
        let s = SiteSearch::read(json).unwrap();
        for kept in [
            "index.html",
            "T1/cours/index.html",
            "T2/Décodeuses/index.html",
            "T3/page.html",
            // A folder the index has no page of: a translation's own site.
            "en/T1/cours/index.html",
        ] {
            assert!(!s.leaves_out(kept), "{kept}");
        }
        for out in [
            "T1/corrige/index.html",
            "T1/cours/capitales.html",
            "notes.html",
        ] {
            assert!(s.leaves_out(out), "{out}");
        }
        // Not MkDocs' index, or one without records: nothing is left out.
        assert!(SiteSearch::read(r#"{"docs": [{"location": "a/"}]}"#).is_none());
        assert!(SiteSearch::read(r#"{"config": {}, "docs": []}"#).is_none());
        assert!(SiteSearch::read("[1, 2").is_none());
        assert_eq!(percent_decoded("a%20(b)%C3%A9%zz%"), "a (b)é%zz%");
    }
}
