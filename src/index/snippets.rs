//! MkDocs snippets (`pymdownx.snippets`): a Markdown source can include other files, a line
//! `--8<-- "includes/2023/enonce.md"` (or a block of names between two `--8<--` lines) standing
//! for the file's text, indented as the line is. MkDocs Material sites use them for what several
//! pages share and for code kept in its own files (exercise statements, corrections, programs);
//! without them a page holds only the line. Expanded here, before the page is read, as the
//! extension expands them: recursively (a file that includes itself is not read again), a name
//! may select lines (`file.py:3:10`, `file.py:3`, `file.py:1:3,7:9`) or a section (`file.md:name`,
//! between `--8<-- [start:name]` and `--8<-- [end:name]`, marker lines themselves never read), and
//! `;--8<--` is the line itself, escaped. A file that cannot be read leaves nothing, and a warning
//! naming it.

use regex::Regex;
use std::sync::LazyLock;

/// A one-line snippet: indentation (1), escape (2), the quoted name (3 or 4).
static LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^([ \t]*)(;*)-+8<-+[ \t]+(?:"([^"\r\n]+)"|'([^'\r\n]+)')[ \t]*$"#)
        .expect("valid regex")
});

/// A block's opening or closing line: indentation (1), escape (2).
static BLOCK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([ \t]*)(;*)-+8<-+[ \t]*$").expect("valid regex"));

/// A section marker inside an included file, after anything (a comment's `#`): `--8<--
/// [start:name]` or `[end:name]`.
static SECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"-+8<-+[ \t]+\[[ \t]*(start|end)[ \t]*:[ \t]*([A-Za-z][\w-]*)[ \t]*\]")
        .expect("valid regex")
});

/// How deep included files may include others.
const MAX_DEPTH: usize = 8;

/// `text` with its snippets replaced by the files `read` gives (by the name as written, its
/// selector removed); the names that could not be read are pushed to `missing`.
pub fn expand(
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    expand_into(text, read, missing, &mut Vec::new(), &mut out);
    out
}

fn expand_into(
    text: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    stack: &mut Vec<String>,
    out: &mut String,
) {
    let mut block: Option<String> = None;
    for line in text.lines() {
        if let Some(indent) = &block {
            match BLOCK.captures(line) {
                Some(c) if c[2].is_empty() => block = None,
                _ => {
                    let name = line.trim();
                    if !name.is_empty() && !name.starts_with(';') {
                        let indent = indent.clone();
                        include(name, &indent, read, missing, stack, out);
                    }
                }
            }
            continue;
        }
        if let Some(c) = LINE.captures(line) {
            if !c[2].is_empty() {
                out.push_str(&line.replacen(';', "", 1));
                out.push('\n');
                continue;
            }
            let name = c.get(3).or(c.get(4)).map_or("", |m| m.as_str());
            include(name, &c[1], read, missing, stack, out);
            continue;
        }
        if let Some(c) = BLOCK.captures(line) {
            if c[2].is_empty() {
                block = Some(c[1].to_string());
            } else {
                out.push_str(&line.replacen(';', "", 1));
                out.push('\n');
            }
            continue;
        }
        if stack.is_empty() || !SECTION.is_match(line) {
            out.push_str(line);
            out.push('\n');
        }
    }
}

/// Appends the file `name` names (its selector applied), each line indented by `indent`.
fn include(
    name: &str,
    indent: &str,
    read: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    stack: &mut Vec<String>,
    out: &mut String,
) {
    let found = read(name).map(|t| (name, t, None)).or_else(|| {
        let (file, selector) = name.split_once(':')?;
        read(file).map(|t| (file, t, Some(selector)))
    });
    let Some((file, text, selector)) = found else {
        missing.push(name.to_string());
        return;
    };
    if stack.iter().any(|f| f == file) || stack.len() >= MAX_DEPTH {
        return;
    }
    let Some(text) = select(&text, selector) else {
        missing.push(name.to_string());
        return;
    };
    let mut inner = String::new();
    stack.push(file.to_string());
    expand_into(&text, read, missing, stack, &mut inner);
    stack.pop();
    push_indented(out, indent, &inner);
}

/// Appends `text`'s lines to `out`, each but the empty ones after `indent`: an included file
/// stands where the line that included it stood, inside the same admonition or tab.
pub fn push_indented(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str(indent);
        }
        out.push_str(line);
        out.push('\n');
    }
}

/// The lines of `text` a selector keeps: `3:10`, `3`, `:10`, `1:3,7:9` (1-based, inclusive),
/// or a section's name; `None` when a named section is not in the file.
fn select(text: &str, selector: Option<&str>) -> Option<String> {
    let Some(sel) = selector.filter(|s| !s.is_empty()) else {
        return Some(text.to_string());
    };
    let lines: Vec<&str> = text.lines().collect();
    let numeric = sel
        .chars()
        .all(|c| c.is_ascii_digit() || c == ':' || c == ',');
    if numeric {
        let mut out = Vec::new();
        for range in sel.split(',') {
            let (a, b) = range.split_once(':').unwrap_or((range, range));
            let start = a.parse::<usize>().unwrap_or(1).max(1);
            let end = b.parse::<usize>().unwrap_or(lines.len()).min(lines.len());
            if start <= end {
                out.extend_from_slice(&lines[start - 1..end]);
            }
        }
        return Some(out.join("\n"));
    }
    let mut inside = false;
    let mut found = false;
    let mut out = Vec::new();
    for line in lines {
        match SECTION.captures(line) {
            Some(c) if &c[2] == sel => {
                inside = &c[1] == "start";
                found = true;
            }
            Some(_) => {}
            None if inside => out.push(line),
            None => {}
        }
    }
    found.then(|| out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(name: &str) -> Option<String> {
        match name {
            "includes/enonce.md" => Some("Écrire une fonction `renverse`.\n".into()),
            "code/tri.py" => Some(
                "# --8<-- [start:tri]\ndef tri(t):\n    return sorted(t)\n# --8<-- [end:tri]\nprint(tri([2, 1]))\n"
                    .into(),
            ),
            "nested.md" => Some("Avant.\n--8<-- \"includes/enonce.md\"\n--8<-- \"nested.md\"\n".into()),
            _ => None,
        }
    }

    fn run(text: &str) -> (String, Vec<String>) {
        let mut missing = Vec::new();
        let out = expand(text, &files, &mut missing);
        (out, missing)
    }

    #[test]
    fn a_line_stands_for_its_file_indented_as_it_is() {
        let (out, missing) = run("=== \"Énoncé\"\n    --8<-- \"includes/enonce.md\"\nFin.\n");
        assert_eq!(
            out,
            "=== \"Énoncé\"\n    Écrire une fonction `renverse`.\nFin.\n"
        );
        assert!(missing.is_empty());
        let (out, _) = run("```python\n--8<-- 'code/tri.py:2:3'\n```\n");
        assert_eq!(out, "```python\ndef tri(t):\n    return sorted(t)\n```\n");
    }

    #[test]
    fn blocks_sections_escapes_and_nesting() {
        let (out, _) =
            run("--8<--\nincludes/enonce.md\n;commented.md\n\ncode/tri.py:tri\n--8<--\n");
        assert_eq!(
            out,
            "Écrire une fonction `renverse`.\ndef tri(t):\n    return sorted(t)\n"
        );
        let (out, _) = run(";--8<-- \"includes/enonce.md\"\n");
        assert_eq!(out, "--8<-- \"includes/enonce.md\"\n");
        // A file that includes itself is read once; section markers are never text.
        let (out, missing) = run("--8<-- \"nested.md\"\n--8<-- \"code/tri.py\"\n");
        assert_eq!(
            out,
            "Avant.\nÉcrire une fonction `renverse`.\ndef tri(t):\n    return sorted(t)\nprint(tri([2, 1]))\n"
        );
        assert!(missing.is_empty());
    }

    #[test]
    fn what_cannot_be_read_leaves_nothing_and_is_named() {
        let (out, missing) = run("A.\n--8<-- \"absent.md\"\n--8<-- \"code/tri.py:nowhere\"\nB.\n");
        assert_eq!(out, "A.\nB.\n");
        assert_eq!(missing, ["absent.md", "code/tri.py:nowhere"]);
    }
}
