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
    let why = "no data-pagefind-body, which the site's other pages mark their content with \
               (Pagefind indexes only those)";
    let pages = (0..indexed.pages.len())
        .filter(|&i| {
            let p = &indexed.pages[i];
            !p.pagefind_body && p.skipped.is_none() && marked.contains(&p.source.as_str())
        })
        .map(|i| (i, why.to_string()))
        .collect();
    super::duplicates::leave_out(indexed, pages)
}
