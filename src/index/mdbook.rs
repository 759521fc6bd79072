//! mdBook's `{{#include file}}` (and `{{#rustdoc_include file}}`): the file's text in place of
//! the directive, as mdBook's preprocessor writes it before the chapter is rendered, in code
//! blocks too. A part of the file can be named: `file.rs:2` (a line), `:2:10`, `:2:`, `::10`
//! (lines, from 1), or `file.rs:name` (the lines between `ANCHOR: name` and `ANCHOR_END:
//! name`, the markers' lines left out). Paths are from the including file's folder and must stay
//! inside the book (the folder of its `book.toml`: the Rust book's listings are beside `src/`);
//! an escaped directive (`\{{#include …}}`) is text, without its
//! backslash. Included files are expanded in turn, a few levels deep.

use regex::Regex;
use std::sync::LazyLock;

/// An include directive: its escape (1), kind (2) and argument (3).
static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\\?)\{\{#(include|rustdoc_include)\s+([^}\s]+)\s*\}\}").expect("valid regex")
});

/// How deep included files are expanded.
const DEPTH: usize = 5;

/// `text`, a page at `rel` (from the book's root: `src/cours/piles.md`), with its includes
/// expanded; `read` reads a file from the book's root, and a directive whose file is outside
/// the book or not found is left out and named in `missing`.
pub fn includes(
    text: &str,
    rel: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
) -> String {
    expand(text, folder(rel), read, missing, DEPTH)
}

/// The pages' folder `src` (`book.toml`'s `src`) as a path from the book's root without `.`
/// or `..`; empty when it is the root or would leave it (includes then stay in the pages' folder).
pub fn in_book(src: &str) -> String {
    resolve("", src).unwrap_or_default()
}

fn folder(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(dir, _)| dir)
}

fn expand(
    text: &str,
    dir: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    depth: usize,
) -> String {
    if !text.contains("{{#") {
        return text.to_string();
    }
    DIRECTIVE
        .replace_all(text, |c: &regex::Captures| {
            if !c[1].is_empty() {
                return c[0][1..].to_string();
            }
            let arg = &c[3];
            let (name, part) = arg
                .split_once(':')
                .map_or((arg, None), |(n, p)| (n, Some(p)));
            let Some(path) = resolve(dir, name) else {
                missing.push(name.to_string());
                return String::new();
            };
            let Some(file) = read(&path) else {
                missing.push(name.to_string());
                return String::new();
            };
            let body = select(&file, part);
            if depth == 0 {
                return body;
            }
            expand(&body, folder(&path), read, missing, depth - 1)
        })
        .into_owned()
}

/// `name` from folder `dir`, as a path from the book's root; `None` when it leaves the book.
fn resolve(dir: &str, name: &str) -> Option<String> {
    if name.starts_with(['/', '\\']) || name.contains("://") || name.get(1..2) == Some(":") {
        return None;
    }
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in name.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

/// The part of `file` that `part` names (all of it without one).
fn select(file: &str, part: Option<&str>) -> String {
    let lines: Vec<&str> = file.lines().collect();
    let Some(part) = part.filter(|p| !p.is_empty()) else {
        return file.trim_end_matches('\n').to_string();
    };
    let number = |s: &str| s.trim().parse::<usize>().ok();
    let (from, to) = match part.split_once(':') {
        Some((a, b)) => (number(a).unwrap_or(1), number(b).unwrap_or(lines.len())),
        None => match number(part) {
            Some(n) => (n, n),
            None => {
                // An anchor's lines, its markers and any other anchor's left out.
                let start = format!("ANCHOR: {part}");
                let end = format!("ANCHOR_END: {part}");
                let Some(at) = lines.iter().position(|l| l.contains(&start)) else {
                    return String::new();
                };
                let inside = lines[at + 1..].iter().take_while(|l| !l.contains(&end));
                return inside
                    .filter(|l| !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:"))
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n");
            }
        },
    };
    let from = from.max(1);
    if from > lines.len() || to < from {
        return String::new();
    }
    lines[from - 1..to.min(lines.len())].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn includes_are_the_files_text_or_the_part_they_name() {
        let files: HashMap<&str, &str> = [
            (
                "cours/exemple.rs",
                "// ANCHOR: pile\nlet mut p = vec![];\n// ANCHOR_END: pile\np.push(3);\n",
            ),
            (
                "partage/rappel.md",
                "Une pile est LIFO.\n{{#include ../cours/exemple.rs:4}}\n",
            ),
        ]
        .into();
        let read = |p: &str| files.get(p).map(|s| s.to_string());
        let page = "# Piles\n\n{{#include ../partage/rappel.md}}\n\n```rust\n{{#rustdoc_include exemple.rs:pile}}\n```\n\n\
                    Lignes : {{#include exemple.rs:2:3}} / {{#include exemple.rs::1}}\n\n\
                    Écrire `\\{{#include fichier.md}}`. {{#include ../../hors.md}} {{#include absent.md}}\n";
        let mut missing = Vec::new();
        let out = includes(page, "cours/piles.md", &read, &mut missing);
        assert_eq!(
            out,
            "# Piles\n\nUne pile est LIFO.\np.push(3);\n\n```rust\nlet mut p = vec![];\n```\n\n\
             Lignes : let mut p = vec![];\n// ANCHOR_END: pile / // ANCHOR: pile\n\n\
             Écrire `{{#include fichier.md}}`.  \n"
        );
        assert_eq!(missing, ["../../hors.md", "absent.md"]);
    }

    #[test]
    fn the_pages_folder_is_a_plain_path_inside_the_book() {
        assert_eq!(in_book("./src/"), "src");
        assert_eq!(in_book("livre/./chapitres"), "livre/chapitres");
        assert_eq!(in_book("."), "");
        // A pages folder outside the book keeps includes inside the pages' folder.
        assert_eq!(in_book("../src"), "");
        assert_eq!(in_book("C:/livre"), "");
    }
}
