//! Hugo's shortcodes in Markdown sources (`{{< name args >}}`, `{{% name args %}}`), read as
//! the site shows them. A shortcode is a template the site's theme fills in, so its output is not
//! in the source; what a student reads around it is:
//!
//! - a collapsible block (`details`, `expand`, `spoiler`) is one, titled by its `title` or
//!   `summary` argument or its first (`{{< details "Correction" >}}`): a correction is read as a
//!   correction, as on the built site;
//! - a note (`notice`, `hint`, `alert`, `admonition`, `callout`, or one named by its kind:
//!   `note`, `tip`, `warning`…) is an admonition of that kind, titled by its `title` argument or
//!   the one after its kind (`{{% notice tip "Exercice 2" %}}`);
//! - a tab (`tab`) is a content tab titled by its `title` or `name` argument or its first;
//! - `highlight` is a code block in its language;
//! - any other shortcode that encloses text (`{{< columns >}} … {{< /columns >}}`) gives way to
//!   its text, and one that does not (`figure`, `youtube`, `ref`) is left out.
//!
//! Blocks are written as `pymdownx.blocks` (`/// details | Correction` … `///`, one slash more a
//! level of nesting), which [`super::markdown`] reads as MkDocs' own. Code is left as it is: a
//! shortcode in a fenced block is an example of one.

use super::markdown::{arguments, slash_block, Fences};
use regex::Regex;
use std::sync::LazyLock;

/// A shortcode: `<` or `%` (1), `/` of a closing one (2), name (3), arguments (4).
static SHORTCODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{([<%])\s*(/?)\s*([\w./-]+)((?:[^>%}]|[>%][^}]|\}[^}])*?)\s*[>%]\}\}")
        .expect("valid regex")
});
/// An escaped shortcode: `<` or `%` (1), its text (2), `>` or `%` (3).
static ESCAPED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{([<%])/\*(.*?)\*/([>%])\}\}").expect("valid regex"));
/// What an enclosing shortcode becomes.
enum Kind {
    /// `/// details | title` (kind given by `type:`).
    Details(String),
    /// `/// admonition | title` of a kind.
    Note(String, String),
    /// `/// tab | title`.
    Tab(String),
    /// A code fence in a language.
    Code(String),
    /// Its text alone.
    Text,
}

const NOTE_KINDS: &[&str] = &[
    "note",
    "tip",
    "info",
    "warning",
    "danger",
    "caution",
    "important",
    "attention",
    "success",
    "question",
    "example",
    "abstract",
];

fn kind(name: &str, raw: &str) -> Kind {
    let (named, pos) = arguments(raw);
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| named.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    };
    let name = name.to_ascii_lowercase();
    match name.as_str() {
        "details" | "expand" | "spoiler" | "collapse" => {
            let title = get(&["title", "summary"]).or_else(|| pos.first().cloned());
            Kind::Details(title.unwrap_or_default())
        }
        "tab" => Kind::Tab(
            get(&["title", "name"])
                .or_else(|| pos.first().cloned())
                .unwrap_or_default(),
        ),
        "highlight" => Kind::Code(pos.first().cloned().unwrap_or_default()),
        "notice" | "hint" | "alert" | "admonition" | "callout" => {
            let kind = get(&["type", "style", "color"])
                .or_else(|| pos.first().cloned())
                .filter(|k| k.chars().all(|c| c.is_alphanumeric() || c == '-'))
                .unwrap_or_else(|| "note".into());
            let title = get(&["title"]).or_else(|| pos.get(1).cloned());
            Kind::Note(kind, title.unwrap_or_default())
        }
        n if NOTE_KINDS.contains(&n) => Kind::Note(
            name.clone(),
            get(&["title"])
                .or_else(|| pos.first().cloned())
                .unwrap_or_default(),
        ),
        _ => Kind::Text,
    }
}

/// `md` with Hugo's shortcodes read as the module says. Text without `{{<` or `{{%` is
/// returned as it is.
pub fn shortcodes(md: &str) -> String {
    if !md.contains("{{<") && !md.contains("{{%") {
        return md.to_string();
    }
    // A shortcode written to be shown (`{{</* name */>}}`, in a theme's documentation) is shown
    // as a call, everywhere (`{{< name >}}`): Hugo reads shortcodes in code blocks too.
    if md.contains("{{</*") || md.contains("{{%/*") {
        // Marked apart until the others are read (a NUL is no character of a page).
        let shown = ESCAPED.replace_all(md, "{{\u{0}$1$2$3}}");
        return shortcodes_of(&shown).replace("\u{0}", "");
    }
    shortcodes_of(md)
}

/// [`shortcodes`], once escaped ones are shown.
fn shortcodes_of(md: &str) -> String {
    let joined = joined_calls(md);
    let lines: Vec<&str> = joined.iter().map(String::as_str).collect();
    // The last line that closes each shortcode (`{{< /name >}}`, names lowercased): one that
    // opens before it encloses text.
    let mut last_closing = std::collections::HashMap::new();
    for (i, l) in lines.iter().enumerate() {
        for c in SHORTCODE.captures_iter(l).filter(|c| &c[2] == "/") {
            last_closing.insert(c[3].to_ascii_lowercase(), i);
        }
    }
    let closes_after =
        |i: usize, name: &str| last_closing.get(&name.to_ascii_lowercase()) > Some(&i);
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    // Open enclosing shortcodes: name, and the line that closes each (None: nothing).
    let mut open: Vec<(String, Option<String>)> = Vec::new();
    let mut in_code = false;
    for (i, line) in lines.iter().enumerate() {
        let alone = SHORTCODE.captures(line.trim()).filter(|c| {
            c.get(0)
                .is_some_and(|m| m.as_str().len() == line.trim().len())
        });
        if in_code {
            // Inside `highlight`: only its closing ends it.
            if alone
                .as_ref()
                .is_some_and(|c| &c[2] == "/" && c[3].eq_ignore_ascii_case("highlight"))
            {
                in_code = false;
                if let Some((_, Some(end))) = open.pop() {
                    out.push_str(&end);
                    out.push('\n');
                }
            } else {
                out.push_str(line);
                out.push('\n');
            }
            continue;
        }
        if fences.code(line) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if let Some(c) = alone {
            let name = c[3].to_string();
            if &c[2] == "/" {
                if let Some(at) = open
                    .iter()
                    .rposition(|(n, _)| n.eq_ignore_ascii_case(&name))
                {
                    for (_, end) in open.drain(at..).rev() {
                        if let Some(end) = end {
                            out.push_str(&end);
                            out.push('\n');
                        }
                    }
                }
                continue;
            }
            if closes_after(i, &name) {
                let pad = &line[..line.len() - line.trim_start().len()];
                let block = |name, title: &str, kind: &str| {
                    let (start, end) = slash_block(pad, open.len(), name, title, kind);
                    (Some(start), Some(end))
                };
                let (start, end) = match kind(&name, &c[4]) {
                    Kind::Details(t) => block("details", &t, ""),
                    Kind::Note(k, t) => block("admonition", &t, &k),
                    Kind::Tab(t) => block("tab", &t, ""),
                    Kind::Code(lang) => {
                        in_code = true;
                        (Some(format!("{pad}```{lang}")), Some(format!("{pad}```")))
                    }
                    Kind::Text => (None, None),
                };
                if let Some(s) = start {
                    out.push_str(&s);
                    out.push('\n');
                }
                open.push((name, end));
                continue;
            }
        }
        // Shortcodes within a line: their text stays, the tags go.
        out.push_str(&SHORTCODE.replace_all(line, ""));
        out.push('\n');
    }
    for (_, end) in open.into_iter().rev().flat_map(|(n, e)| e.map(|e| (n, e))) {
        out.push_str(&end);
        out.push('\n');
    }
    out
}

/// The lines of `md`, a shortcode written over several lines (`{{< asciinema` … `speed=2 >}}`)
/// joined into one, outside code blocks.
fn joined_calls(md: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut fences = Fences::default();
    let mut open = false;
    for line in md.lines() {
        if open {
            let last = out.last_mut().expect("an open call has its line");
            last.push(' ');
            last.push_str(line.trim());
        } else if fences.code(line) {
            out.push(line.to_string());
            continue;
        } else {
            out.push(line.to_string());
        }
        let last = out.last().expect("just pushed");
        let start = last.rfind("{{<").into_iter().chain(last.rfind("{{%")).max();
        open = start.is_some_and(|at| !last[at..].contains(">}}") && !last[at..].contains("%}}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_pymdownx_blocks_and_other_tags_give_way_to_their_text() {
        let md = "Une file. {{< figure src=\"f.png\" >}}\n\n{{< details \"Correction\" >}}\nOn enfile.\n{{< /details >}}\n\n\
                  {{% notice tip \"Exercice 2\" %}}\nÉcrire `enfiler`.\n{{% /notice %}}\n\n{{< tabs >}}\n{{% tab title=\"Énoncé\" %}}\n\
                  Le sujet.\n{{% /tab %}}\n{{< /tabs >}}\n\n{{< mark >}}important{{< /mark >}}, vu {{< ref \"p.md\" >}}.\n";
        let out = shortcodes(md);
        assert_eq!(
            out,
            "Une file. \n\n/// details | Correction\nOn enfile.\n///\n\n/// admonition | Exercice 2\n    type: tip\n\
             Écrire `enfiler`.\n///\n\n//// tab | Énoncé\nLe sujet.\n////\n\nimportant, vu .\n"
        );
    }

    #[test]
    fn an_escaped_shortcode_is_shown_as_a_call_in_text_and_code() {
        let md = "Un bouton : `{{</* button href=\"/\" */>}}`.\n\n```go\n{{%/* notice tip */%}}\nTexte\n{{%/* /notice */%}}\n```\n";
        assert_eq!(
            shortcodes(md),
            "Un bouton : `{{< button href=\"/\" >}}`.\n\n```go\n{{% notice tip %}}\nTexte\n{{% /notice %}}\n```\n"
        );
        // Shown as a call, `{{% … %}}` is no template tag either.
        let inline = shortcodes("Le délimiteur `{{%/* tab */%}}` lit du Markdown.\n");
        assert_eq!(
            super::super::templates::strip(&inline),
            "Le délimiteur `{{% tab %}}` lit du Markdown.\n"
        );
    }

    #[test]
    fn highlight_is_code_and_code_is_left_as_it_is() {
        let md = "{{< highlight python >}}\ndef f():\n    return \"{{< x >}}\"\n{{< /highlight >}}\n```\n{{< details \"Exemple\" >}}\n```\n";
        assert_eq!(
            shortcodes(md),
            "```python\ndef f():\n    return \"{{< x >}}\"\n```\n```\n{{< details \"Exemple\" >}}\n```\n"
        );
        // A shortcode that no closing one follows encloses nothing: it is left out. Indented
        // blocks keep their indentation; text without shortcodes is unchanged.
        assert_eq!(shortcodes("{{< details Correction >}}\nfin"), "\nfin\n");
        assert_eq!(
            shortcodes("  {{% hint warning %}}\n  Attention.\n  {{% /hint %}}\n"),
            "  /// admonition | \n      type: warning\n  Attention.\n  ///\n"
        );
        assert_eq!(shortcodes("a {{ b }} c"), "a {{ b }} c");
        // A call written over several lines is one.
        assert_eq!(
            shortcodes("Voir :\n{{< asciinema\n  cast=\"a.cast\"\n  speed=2 >}}\nFin.\n"),
            "Voir :\n\nFin.\n"
        );
    }
}
