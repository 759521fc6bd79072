//! The walker's blocks that are not running text: code blocks and tables.

use super::parts::{code_lang, collect_code};
use super::Walker;
use scraper::ElementRef;

impl Walker<'_, '_> {
    /// A code block, fenced, with its language. A line of spaces only is an empty line: the
    /// indentation an admonition's Markdown leaves there (Python-Markdown drops it, CommonMark
    /// keeps what is beyond the admonition's) is nothing a student sees.
    pub(super) fn code(&mut self, e: ElementRef<'_>) {
        let mut code = String::new();
        collect_code(e, &mut code);
        if code.lines().any(|l| !l.is_empty() && l.trim().is_empty()) {
            code = code
                .split('\n')
                .map(|l| if l.trim().is_empty() { "" } else { l })
                .collect::<Vec<_>>()
                .join("\n");
        }
        let code = code.trim_end_matches(['\n', ' ', '\t', '\r']);
        let code = code.trim_start_matches('\n');
        if code.trim().is_empty() {
            return;
        }
        let lang = code_lang(e).unwrap_or_default();
        self.push_block(format!("```{lang}\n{code}\n```"), false);
    }

    /// A table, as a pipe table (its first row the header when every cell of it is a `th`).
    pub(super) fn table(&mut self, e: ElementRef<'_>) {
        let (tr, cell) = (&self.r.tr, &self.r.cell);
        let mut rows: Vec<(Vec<String>, bool)> = Vec::new();
        for row in e.select(tr) {
            let cells: Vec<ElementRef<'_>> = row
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| cell.matches(c))
                .collect();
            if cells.is_empty() {
                continue;
            }
            let header = cells.iter().all(|c| c.value().name() == "th");
            let texts = cells
                .iter()
                .map(|c| self.r.inline(*c).replace('|', "\\|"))
                .collect();
            rows.push((texts, header));
        }
        if rows.is_empty() {
            return;
        }
        let mut out = String::new();
        for (i, (cells, header)) in rows.iter().enumerate() {
            out.push_str("| ");
            out.push_str(&cells.join(" | "));
            out.push_str(" |\n");
            if i == 0 && *header {
                out.push('|');
                out.push_str(&vec!["---"; cells.len()].join("|"));
                out.push_str("|\n");
            }
        }
        self.push_block(out.trim_end().to_string(), false);
    }
}
