//! Pages for the tests of the rules that leave whole pages out ([`super::duplicates`],
//! [`super::copies`]).

use super::{Indexed, PageOutcome};
use crate::format::ChunkRecord;

/// A page of the source `book` at `path`, titled `title`, one chunk per text (as written).
pub fn page(path: &str, title: &str, texts: &[String]) -> (PageOutcome, Vec<ChunkRecord>) {
    let chunks: Vec<ChunkRecord> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| ChunkRecord {
            id: format!("book:{path}#{i}"),
            text: t.clone(),
            subject: "informatique".into(),
            level: "l1".into(),
            lang: "en".into(),
            doc_type: "textbook_section".into(),
            url: Some(format!("{path}#{i}")),
            path: Some(path.into()),
            section_key: Some(format!("book:{path}")),
            title: Some(title.into()),
            ..Default::default()
        })
        .collect();
    let outcome = PageOutcome {
        source: "book".into(),
        path: path.into(),
        chunks: chunks.len(),
        skipped: None,
        default_section: true,
        pagefind_body: false,
        nav_trail: Vec::new(),
        listed: false,
    };
    (outcome, chunks)
}

/// The pages, in order, as the index holds them once read.
pub fn indexed(pages: Vec<(PageOutcome, Vec<ChunkRecord>)>) -> Indexed {
    let mut ix = Indexed::default();
    for (o, c) in pages {
        ix.add((o, c, Vec::new()));
    }
    ix
}
