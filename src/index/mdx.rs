//! MDX pages (`*.mdx`: Docusaurus), Markdown with JSX, read as the built site shows them. Outside
//! code, the module's `import` and `export` statements show nothing and are left out (over the
//! lines they span), as are JSX comments (`{/* … */}`); Docusaurus' `<Tabs>` are content tabs,
//! each `<TabItem>` titled by its `label` (its `value` without one), and `<Admonition
//! type="tip" title="…">` an admonition of its kind, both written as `pymdownx.blocks` for
//! [`super::markdown`] to read; any other component gives way to the Markdown it holds, which
//! the HTML reader reads as text (`<details>` and `<summary>` are HTML).

use super::markdown::{arguments, slash_block, Fences};

/// `md` (an MDX page) as Markdown.
pub fn markdown(md: &str) -> String {
    let md = without_comments(md);
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    let mut depth = 0usize;
    // The statement being skipped: its open brackets (an `import` waits for its `from`).
    let mut statement: Option<(i32, bool)> = None;
    for line in md.lines() {
        if statement.is_none() && fences.code(line) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let t = line.trim();
        if let Some((open, needs_from)) = statement.as_mut() {
            *open += brackets(t);
            *needs_from &= !t.contains(" from ") && !t.starts_with("from ");
            if *open <= 0 && !*needs_from {
                statement = None;
            }
            continue;
        }
        if line.starts_with("import ") || line.starts_with("export ") {
            let open = brackets(t);
            let needs_from = t.starts_with("import ")
                && !t.contains(" from ")
                && !t.starts_with("import '")
                && !t.starts_with("import \"");
            if open > 0 || needs_from {
                statement = Some((open, needs_from));
            }
            continue;
        }
        let (open, close) = (t.strip_prefix('<'), t.strip_prefix("</"));
        let name = |rest: &str| {
            let end = rest
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(rest.len());
            rest[..end].to_string()
        };
        let pad = &line[..line.len() - line.trim_start().len()];
        match (close.map(name), open.map(name)) {
            (Some(n), _) if n == "Tabs" => {}
            (Some(n), _) if (n == "TabItem" || n == "Admonition") && depth > 0 => {
                depth -= 1;
                out.push_str(&slash_block(pad, depth, "tab", "", "").1);
                out.push('\n');
            }
            (_, Some(n)) if n == "Tabs" && t.ends_with('>') => {}
            (_, Some(n)) if (n == "TabItem" || n == "Admonition") && t.ends_with('>') => {
                let inner = t[1 + n.len()..].trim_end_matches('>').trim_end_matches('/');
                let (named, _) = arguments(inner);
                let get = |k: &str| {
                    named
                        .iter()
                        .find(|(key, _)| key == k)
                        .map(|(_, v)| v.clone())
                };
                let (block, title, kind) = if n == "TabItem" {
                    let title = get("label").or_else(|| get("value")).unwrap_or_default();
                    ("tab", title, String::new())
                } else {
                    let kind = get("type").unwrap_or_else(|| "note".into());
                    ("admonition", get("title").unwrap_or_default(), kind)
                };
                let (start, _) = slash_block(pad, depth, block, &title, &kind);
                out.push_str(&start);
                out.push('\n');
                depth += 1;
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// How many more brackets `t` opens than it closes.
fn brackets(t: &str) -> i32 {
    t.chars()
        .map(|c| match c {
            '{' | '(' | '[' => 1,
            '}' | ')' | ']' => -1,
            _ => 0,
        })
        .sum()
}

/// `md` without its JSX comments (`{/* … */}`; an unclosed one is left as it is).
fn without_comments(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(at) = rest.find("{/*") {
        match rest[at..].find("*/}") {
            Some(end) => {
                out.push_str(&rest[..at]);
                rest = &rest[at + end + 3..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_exports_and_comments_are_left_out_and_tabs_are_tabs() {
        let mdx = "---\ntitle: Piles\n---\nimport Tabs from '@theme/Tabs';\nimport {\n  Highlight,\n} from './components';\n\
                   export const meta = {\n  level: 1,\n};\n\n# Les piles {/* à revoir */}\n\n\
                   <Tabs>\n  <TabItem value=\"enonce\" label=\"Énoncé\" default>\n\n  Empiler 3.\n\n  </TabItem>\n\
                   <TabItem value=\"correction\">\n\n```python\nimport os\nexport = 1\n```\n\n</TabItem>\n</Tabs>\n\n\
                   <Admonition type=\"tip\" title=\"Astuce\">\nPensez LIFO.\n</Admonition>\n\n<Highlight color=\"red\">rouge</Highlight>\n";
        assert_eq!(
            markdown(mdx),
            "---\ntitle: Piles\n---\n\n# Les piles \n\n  /// tab | Énoncé\n\n  Empiler 3.\n\n  ///\n\
             /// tab | correction\n\n```python\nimport os\nexport = 1\n```\n\n///\n\n\
             /// admonition | Astuce\n    type: tip\nPensez LIFO.\n///\n\n<Highlight color=\"red\">rouge</Highlight>\n"
        );
    }
}
