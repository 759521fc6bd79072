//! A site prepared for Pagefind, read as its author told Pagefind to read it. Its attributes
//! say what is the content and what is not: `data-pagefind-ignore` leaves an element out (any
//! value; on the content element, the page) and `data-pagefind-body` marks a page's content,
//! in one element or several (what lies between them is not read; [`super::html`] reads both, after chsr's own `data-chsr-ignore` and `data-chsr-body`).
//! Pagefind indexes only the pages that have `data-pagefind-body` once any page of the site has
//! it (Astro Starlight marks every documentation page so, not its 404 page or its landing pages
//! built otherwise): so does a source here, and the other pages are listed as left out with why.

use super::Indexed;

/// Leaves out, in each source where some page marks its content with `data-pagefind-body`, the
/// pages that do not; returns how many. Idempotent.
pub fn only_marked_pages(indexed: &mut Indexed) -> usize {
    let marked: Vec<&str> = indexed
        .pages
        .iter()
        .filter(|p| p.pagefind_body && p.skipped.is_none())
        .map(|p| p.source.as_str())
        .collect();
    let leave_out: Vec<usize> = (0..indexed.pages.len())
        .filter(|&i| {
            let p = &indexed.pages[i];
            !p.pagefind_body && p.skipped.is_none() && marked.contains(&p.source.as_str())
        })
        .collect();
    if leave_out.is_empty() {
        return 0;
    }
    let spans = indexed.page_spans();
    let mut keep = vec![true; indexed.chunks.len()];
    for &i in &leave_out {
        keep[spans[i].clone()].fill(false);
        let p = &mut indexed.pages[i];
        p.chunks = 0;
        p.skipped = Some(
            "no data-pagefind-body, which the site's other pages mark their content with \
             (Pagefind indexes only those)"
                .into(),
        );
    }
    let mut keep = keep.into_iter();
    indexed.chunks.retain(|_| keep.next().unwrap_or(true));
    leave_out.len()
}
