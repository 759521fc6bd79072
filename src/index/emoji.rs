//! Emoji shortcodes (`:heart:`, `:arrow_right:`, `:octicons-star-24:`) in Markdown sources,
//! which MkDocs' `pymdownx.emoji` shows as icons: no words of the page's text, its titles or its
//! headings (the built page has an image there). Left out before the Markdown is read, but in
//! code ([`emoji_free`]), and from a heading's text before MkDocs' anchor is made of it
//! ([`super::anchors`]).

use super::markdown::Fences;
use std::borrow::Cow;

/// `text` without the emoji shortcodes it holds as words (`:heart:`, `:arrow_right:`,
/// `:octicons-star-24:`, `:+1:`: a name that starts with a letter, `+` or `-` and holds a letter
/// or digit, between colons that neither follow nor precede a letter or digit), which the site
/// shows as icons; `10:30:45`, `a:b:c`, `Note:important:` and a table's `|:---:|` stay.
pub fn without_emoji(text: &str) -> Cow<'_, str> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::new();
    let (mut from, mut at) = (0, 0);
    while let Some(i) = text[at..].find(':').map(|i| i + at) {
        let after = &text[i + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_+-".contains(c)))
            .unwrap_or(after.len());
        let name = &after[..len];
        let named = name.starts_with(|c: char| c.is_ascii_alphabetic() || "+-".contains(c))
            && name.contains(|c: char| c.is_ascii_alphanumeric());
        let closed = after[len..].starts_with(':');
        let before = text[..i].chars().next_back().is_none_or(|c| !word(c));
        // (not a link's scheme: `[PHP]:https://…`)
        let end = after[len..]
            .chars()
            .nth(1)
            .is_none_or(|c| !word(c) && c != '/');
        if named && closed && before && end {
            out.push_str(&text[from..i]);
            from = i + len + 2;
            // The icon's attribute list (`:simple-nintendo:{ .nintendo }`) goes with it.
            from += attr_list_len(&text[from..]);
            // The space after it goes with it, else the space before it: the text around
            // keeps its spacing, a line its indentation, and emphasis still closes
            // (`**Règle d'or :heart:**`).
            if text[from..].starts_with(' ') {
                from += 1;
            } else {
                out.truncate(out.trim_end_matches([' ', '\t']).len());
            }
            at = from;
        } else {
            at = i + 1;
        }
    }
    if from == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// The length of the attribute list `text` starts with (`attr_list`'s `{ .gold }`, `{: #id }`,
/// `{title="x"}`), 0 when it starts with none.
fn attr_list_len(text: &str) -> usize {
    let Some(inner) = text.strip_prefix('{') else {
        return 0;
    };
    let Some(end) = inner
        .find(['}', '{', '\n'])
        .filter(|e| inner[*e..].starts_with('}'))
    else {
        return 0;
    };
    let body = inner[..end].strip_prefix(':').unwrap_or(&inner[..end]);
    let attr = |t: &str| {
        t.starts_with(['.', '#']) || t.split_once('=').is_some_and(|(k, _)| !k.is_empty())
    };
    let words = || body.split_whitespace();
    match words().next().is_some() && words().all(attr) {
        true => end + 2,
        false => 0,
    }
}

/// Markdown `md` without emoji shortcodes ([`without_emoji`]) but in code: fenced blocks and
/// inline code spans (between runs of backticks) keep theirs.
pub fn emoji_free(md: &str) -> String {
    let mut fences = Fences::default();
    let mut out: Vec<String> = Vec::new();
    for line in md.lines() {
        if fences.code(line) || !line.contains(':') {
            out.push(line.to_string());
            continue;
        }
        // Outside and inside code spans in turn, split at each run of backticks.
        let mut kept = String::with_capacity(line.len());
        let (mut code, mut rest) = (false, line);
        while !rest.is_empty() {
            let end = rest.find('`').unwrap_or(rest.len());
            let (part, after) = rest.split_at(end);
            kept.push_str(&if code {
                part.into()
            } else {
                without_emoji(part)
            });
            let ticks = after.len() - after.trim_start_matches('`').len();
            kept.push_str(&after[..ticks]);
            rest = &after[ticks..];
            code = !code;
        }
        out.push(kept);
    }
    out.join("\n") + if md.ends_with('\n') { "\n" } else { "" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortcodes_are_left_out_but_times_ratios_tables_links_and_code_stay() {
        let cases = [
            ("**Règle d'or :heart:**", "**Règle d'or**"),
            (":star: :star: Code à trous", "Code à trous"),
            // With its attribute list; braces that are none stay.
            (
                "Nintendo :simple-nintendo:{ .nintendo }. Ils",
                "Nintendo. Ils",
            ),
            (":fontawesome-solid-star:{: .gold #s } Étoile", "Étoile"),
            (":x:{ici} et {}", "{ici} et {}"),
            (
                "    :arrow_right: [Rédigez](https://x)",
                "    [Rédigez](https://x)",
            ),
            ("(:skull: difficile :skull:)", "(difficile)"),
            ("Bravo :+1: !", "Bravo !"),
            ("Attention :octicons-alert-16:", "Attention"),
            ("Départ à 10:30:45.", "Départ à 10:30:45."),
            (
                "Le ratio a:b:c, Note:important:",
                "Le ratio a:b:c, Note:important:",
            ),
            ("|:------:|------|", "|:------:|------|"),
            (
                "[PHP]:https://developer.mozilla.org",
                "[PHP]:https://developer.mozilla.org",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(without_emoji(text), want, "{text}");
        }
        let md = "# Tables :heart:\n\nLire `d[:key:]` puis :star:\n\n```python\nx = {'a':b:c}  # :warning:\n```\n";
        assert_eq!(
            emoji_free(md),
            "# Tables\n\nLire `d[:key:]` puis\n\n```python\nx = {'a':b:c}  # :warning:\n```\n"
        );
    }
}
