//! Tables' delimiter rows as GitHub and Python-Markdown read them.
//!
//! A delimiter row (`| :---: | ---: |`) may hold tabs as well as spaces around its cells
//! (GitHub's and Python-Markdown's `tables` trim both: a table typed with the Tab key, such as
//! `| :---------------: \t| :---: |\t`). `pulldown-cmark` takes a row with a tab for no delimiter
//! row, and the table for one paragraph of pipes: such rows are read with spaces instead.

use super::Fences;
use std::borrow::Cow;

/// `md` with the tabs of its tables' delimiter rows (outside code, after their indentation) as
/// spaces.
pub(super) fn delimiter_rows_without_tabs(md: &str) -> Cow<'_, str> {
    if !md.contains('\t') {
        return Cow::Borrowed(md);
    }
    let mut fences = Fences::default();
    let mut out = String::with_capacity(md.len());
    let mut changed = false;
    for line in md.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let body = line.trim_start_matches([' ', '\t']);
        if !fences.code(bare) && delimiter_row(bare) && body.contains('\t') {
            // Its indentation as it is (a tab there places the table in a block).
            out.push_str(&line[..line.len() - body.len()]);
            out.push_str(&body.replace('\t', " "));
            changed = true;
        } else {
            out.push_str(line);
        }
    }
    match changed {
        true => Cow::Owned(out),
        false => Cow::Borrowed(md),
    }
}

/// Whether a line is a table's delimiter row: cells of `-` with an optional `:` at either end,
/// between pipes (at least one), spaces and tabs around them.
fn delimiter_row(line: &str) -> bool {
    let t = line.trim_matches([' ', '\t']);
    if !t.contains('|') || !t.contains('-') {
        return false;
    }
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').all(|cell| {
        let c = cell.trim_matches([' ', '\t']);
        let c = c.strip_prefix(':').unwrap_or(c);
        let c = c.strip_suffix(':').unwrap_or(c);
        !c.is_empty() && c.bytes().all(|b| b == b'-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delimiter_row_typed_with_tabs_is_read_with_spaces() {
        let md = "| a\t| b |\n| :---: \t| :---: |\t\n| 1\t| 2 |\n";
        assert_eq!(
            delimiter_rows_without_tabs(md),
            "| a\t| b |\n| :---:  | :---: | \n| 1\t| 2 |\n"
        );
        assert!(delimiter_row("---|:--"));
        // Indented by a tab in a block: the indentation stays.
        assert_eq!(delimiter_rows_without_tabs("\t| --- |\t\n"), "\t| --- | \n");
        for unchanged in [
            // Not delimiter rows, or inside code.
            "a\t| b\n",
            "|\t---\ttext |\n",
            "```\n| ---\t|\n```\n",
            "- item\n\t- nested\n",
        ] {
            assert!(
                matches!(delimiter_rows_without_tabs(unchanged), Cow::Borrowed(_)),
                "{unchanged}"
            );
        }
    }
}
