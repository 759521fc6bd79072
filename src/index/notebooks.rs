//! Jupyter notebooks (`*.ipynb`, nbformat 4) → the Markdown page their generator shows.
//!
//! Jupyter Book, mystmd, Quarto and MkDocs' `mkdocs-jupyter` render a notebook as a page: its
//! Markdown cells as Markdown, its code cells as code, then what each printed or returned. A
//! notebook is read the same way, into Markdown that [`super::markdown::read`] reads as any
//! other page: a Markdown cell as it is, a code cell as a fenced block in the kernel's language,
//! a text output (`stdout`, a result that has only its `text/plain` form; terminal colours
//! removed) as a block of text, a `text/markdown` result
//! as Markdown; a result shown as an image or as HTML (a plot, a table) keeps only what it says
//! in Markdown, errors and `stderr` are left out. What the generators hide is left out too:
//! Jupyter Book's `remove-cell`, `remove-input` and `remove-output` tags, Quarto's `#| include:
//! false`, `#| echo: false` and `#| output: false` options (and the option lines themselves). A
//! first raw cell of YAML between `---` lines is the page's front matter, as Quarto and
//! Jupyter Book read it; other raw cells are for other output formats and are left out.

use serde_json::Value;

/// The Markdown of notebook `text` (its JSON). `Err` says what is wrong: not JSON (with the
/// line and column), not a notebook, an older nbformat, or which cell is malformed.
pub fn markdown(text: &str) -> Result<String, String> {
    let nb: Value = serde_json::from_str(text.trim_start_matches('\u{feff}'))
        .map_err(|e| format!("not a Jupyter notebook: its JSON is invalid ({e})"))?;
    let Some(cells) = nb.get("cells").and_then(Value::as_array) else {
        return Err(if nb.get("worksheets").is_some() {
            "a Jupyter notebook of nbformat 3 or older, which is not read: convert it with `jupyter nbconvert --to notebook --nbformat 4`".into()
        } else {
            "not a Jupyter notebook: no \"cells\" list".into()
        });
    };
    let language = ["kernelspec", "language_info"]
        .iter()
        .find_map(|k| {
            let spec = nb.get("metadata")?.get(k)?;
            spec.get("language")
                .or_else(|| spec.get("name"))
                .and_then(Value::as_str)
        })
        .filter(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'+'))
        .unwrap_or("python");
    let mut out = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let at = |what: &str| format!("cell {}: {what}", i + 1);
        let source = lines(cell.get("source")).ok_or_else(|| at("\"source\" is not text"))?;
        let tags: Vec<&str> = cell
            .get("metadata")
            .and_then(|m| m.get("tags"))
            .and_then(Value::as_array)
            .map(|t| t.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if tags.contains(&"remove-cell") {
            continue;
        }
        match cell.get("cell_type").and_then(Value::as_str) {
            Some("markdown") => block(&mut out, &source),
            Some("raw") if i == 0 && source.starts_with("---") => block(&mut out, &source),
            Some("raw") => {}
            Some("code") => {
                let (options, code) = quarto_options(&source);
                let option = |name: &str| options.iter().any(|(k, v)| *k == name && *v == "false");
                if option("include") {
                    continue;
                }
                if !tags.contains(&"remove-input") && !option("echo") && !code.trim().is_empty() {
                    block(&mut out, &fenced(language, code.trim_end()));
                }
                if !tags.contains(&"remove-output") && !option("output") {
                    let outputs = cell.get("outputs").and_then(Value::as_array);
                    for o in outputs.into_iter().flatten() {
                        output(&mut out, o);
                    }
                }
            }
            _ => return Err(at("\"cell_type\" is not markdown, code or raw")),
        }
    }
    Ok(out)
}

/// A cell's or an output's text: a string, or a list of strings joined.
fn lines(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => parts.iter().map(|p| p.as_str()).collect(),
        _ => None,
    }
}

/// Appends a block of Markdown, a blank line after the previous one.
fn block(out: &mut String, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    if !out.is_empty() {
        out.push_str("\n\n");
    }
    out.push_str(text.trim_end());
}

/// `code` as a fenced block, its fence longer than any run of backticks in it.
fn fenced(language: &str, code: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{language}\n{code}\n{fence}")
}

/// Quarto's cell options (`#| echo: false` lines at the cell's top) and the code after them.
fn quarto_options(source: &str) -> (Vec<(&str, &str)>, &str) {
    let mut options = Vec::new();
    let mut rest = source;
    while let Some(line) = rest.lines().next() {
        let Some(option) = line.trim_start().strip_prefix("#|") else {
            break;
        };
        if let Some((k, v)) = option.split_once(':') {
            options.push((k.trim(), v.trim()));
        }
        rest = rest.get(line.len() + 1..).unwrap_or("");
    }
    (options, rest)
}

/// Appends what a code cell's output shows as text.
fn output(out: &mut String, o: &Value) {
    match o.get("output_type").and_then(Value::as_str) {
        Some("stream") if o.get("name").and_then(Value::as_str) == Some("stdout") => {
            if let Some(text) = lines(o.get("text")) {
                block(out, &fenced("text", without_ansi(&text).trim_end()));
            }
        }
        Some("execute_result" | "display_data") => {
            let Some(data) = o.get("data").and_then(Value::as_object) else {
                return;
            };
            if let Some(md) = lines(data.get("text/markdown")) {
                block(out, &md);
            } else if data.keys().all(|k| k == "text/plain") {
                // Shown as text only when it has no other form (an image, HTML, LaTeX, a
                // script): its text is then a Python `repr`, not what the page shows.
                if let Some(text) = lines(data.get("text/plain")) {
                    block(out, &fenced("text", without_ansi(&text).trim_end()));
                }
            }
        }
        _ => {}
    }
}

/// `text` without ANSI terminal escapes (`ESC [ 1 ; 34 m`, the colours a kernel prints).
fn without_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_in_order_code_fenced_in_the_kernels_language_and_what_it_printed() {
        let nb = r##"{"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
          "cells": [
            {"cell_type": "raw", "metadata": {}, "source": ["---\n", "title: Les tableaux\n", "---"]},
            {"cell_type": "markdown", "metadata": {}, "source": ["# Parcours\n", "\n", "Un tableau se parcourt."]},
            {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": "t = [3, 1]\nprint(max(t))",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": ["3\n"]},
                         {"output_type": "stream", "name": "stderr", "text": ["DeprecationWarning\n"]}]},
            {"cell_type": "code", "metadata": {}, "source": "len(t)",
             "outputs": [{"output_type": "execute_result", "data": {"text/plain": ["\u001b[1;34m2\u001b[0m"]}, "metadata": {}}]},
            {"cell_type": "code", "metadata": {}, "source": "Matrix(t)",
             "outputs": [{"output_type": "execute_result", "data": {"text/latex": "$M$", "text/plain": "Matrix([[3, 1]])"}}]},
            {"cell_type": "code", "metadata": {}, "source": "plot(t)",
             "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": ["<Figure size 640x480>"]}},
                         {"output_type": "error", "ename": "NameError", "evalue": "x", "traceback": []}]},
            {"cell_type": "raw", "metadata": {}, "source": "\\newpage"}
          ]}"##;
        let md = markdown(nb).unwrap();
        assert_eq!(
            md,
            "---\ntitle: Les tableaux\n---\n\n# Parcours\n\nUn tableau se parcourt.\n\n\
             ```python\nt = [3, 1]\nprint(max(t))\n```\n\n```text\n3\n```\n\n\
             ```python\nlen(t)\n```\n\n```text\n2\n```\n\n```python\nMatrix(t)\n```\n\n\
             ```python\nplot(t)\n```"
        );
    }

    #[test]
    fn what_jupyter_book_and_quarto_hide_is_left_out() {
        let nb = r##"{"metadata": {"language_info": {"name": "ocaml"}}, "cells": [
            {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "source": "import secret", "outputs": []},
            {"cell_type": "code", "metadata": {"tags": ["remove-input"]}, "source": "show()",
             "outputs": [{"output_type": "execute_result", "data": {"text/markdown": "**Résultat** : 42"}}]},
            {"cell_type": "code", "metadata": {"tags": ["remove-output", "hide-input"]}, "source": "let x = 1",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": "noise"}]},
            {"cell_type": "code", "metadata": {}, "source": "#| include: false\nsetup ()", "outputs": []},
            {"cell_type": "code", "metadata": {}, "source": "#| echo: false\n#| label: fig-1\ndraw ()",
             "outputs": [{"output_type": "stream", "name": "stdout", "text": "dessin"}]},
            {"cell_type": "code", "metadata": {}, "source": "#| echo: true\nlet s = \"```\"", "outputs": []}
        ]}"##;
        let md = markdown(nb).unwrap();
        assert_eq!(
            md,
            "**Résultat** : 42\n\n```ocaml\nlet x = 1\n```\n\n```text\ndessin\n```\n\n\
             ````ocaml\nlet s = \"```\"\n````"
        );
    }

    #[test]
    fn a_file_that_is_no_notebook_says_why() {
        let err = |t: &str| markdown(t).unwrap_err();
        assert!(err("{\"cells\": [}").starts_with("not a Jupyter notebook: its JSON is invalid ("));
        assert!(
            err("{\"cells\": [}").contains("line 1 column"),
            "{}",
            err("{\"cells\": [}")
        );
        assert_eq!(
            err("{\"metadata\": {}}"),
            "not a Jupyter notebook: no \"cells\" list"
        );
        assert!(err("{\"worksheets\": []}").contains("nbformat 3 or older"));
        let bad = r#"{"cells": [{"cell_type": "markdown", "source": "ok"}, {"cell_type": "code", "source": 3}]}"#;
        assert_eq!(err(bad), "cell 2: \"source\" is not text");
        let kind = r#"{"cells": [{"cell_type": "heading", "source": "x"}]}"#;
        assert_eq!(
            err(kind),
            "cell 1: \"cell_type\" is not markdown, code or raw"
        );
    }
}
