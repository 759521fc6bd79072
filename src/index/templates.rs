//! Template tags in Markdown sources: Liquid (Jekyll), Jinja (`mkdocs-macros`), Nunjucks
//! (Eleventy). A tag (`{% for … %}`, `{% if … %}`, `{% include … %}`) is run when the site is
//! built and shows nothing itself: it is left out, over as many lines as it spans, and the text
//! between tags stays. Three tags say what their text is: `{% highlight python %}` …
//! `{% endhighlight %}` is a code block, `{% raw %}` … `{% endraw %}` is its text as written,
//! `{% comment %}` … `{% endcomment %}` (and `{# … #}`) is no text. Expressions (`{{ … }}`) that
//! [`super::macros`] cannot run stay as written: what a macro shows is the site's own code, and
//! their text is the best reading of it (on the NSI sites' sources, leaving them out loses the
//! corrections: F nDCG@8 0.696 → 0.577).
//! Two exceptions: an expression that starts a link's address (Jekyll's `{{ page.root }}`) is
//! left out there ([`link_addresses`]), so the link reads as its text; and one that shows a
//! value of a `{% for %}` loop it is in (`{{ module }}`) is left out, since the data it loops
//! over is not read.
//! Code blocks are left as they are.

use super::markdown::Fences;

/// What the scanner is inside of, across lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// Text.
    Text,
    /// A tag or a comment, until this closing delimiter.
    Template(&'static str),
    /// `{% comment %}` … `{% endcomment %}`.
    Comment,
    /// `{% raw %}` … `{% endraw %}`.
    Raw,
    /// `{% highlight %}` … `{% endhighlight %}`.
    Highlight,
}

/// The name a tag starts with (`{%- if x -%}` → `if`).
fn tag_name(tag: &str) -> &str {
    let t = tag.trim_start_matches(['{', '%', '-']).trim_start();
    t.split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
}

/// A line that is only the tag named `name` (its arguments after), if it is.
fn only_tag<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let t = line.trim();
    let inner = t.strip_prefix("{%")?.strip_suffix("%}")?;
    let inner = inner.trim_matches('-').trim();
    let rest = inner.strip_prefix(name)?;
    (rest.is_empty() || rest.starts_with(' ')).then(|| rest.trim())
}

/// A link's address that starts with a template expression (`[loop]({{ page.root }}/ref.html)`,
/// Jekyll's usual way to its site's root): the expression left out, so the link is read as a
/// link (its spaces made it text, address and all).
static LINK_EXPRESSION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\]\((\s*\{\{[^{}]*\}\})+").expect("valid regex")
});

/// `md` with template expressions left out of the start of link addresses, outside code.
pub fn link_addresses(md: &str) -> String {
    if !md.contains("]({{") && !md.contains("]( {{") {
        return md.to_string();
    }
    let mut fences = Fences::default();
    let mut out: Vec<std::borrow::Cow<'_, str>> = Vec::new();
    for line in md.lines() {
        out.push(if fences.code(line) {
            line.into()
        } else {
            LINK_EXPRESSION.replace_all(line, "](")
        });
    }
    out.join("\n") + if md.ends_with('\n') { "\n" } else { "" }
}

/// `md` without its template tags (see the module). Text without `{%` or `{#` is returned as it
/// is.
pub fn strip(md: &str) -> String {
    if !md.contains("{%") && !md.contains("{#") {
        return md.to_string();
    }
    let mut out = String::with_capacity(md.len());
    let mut fences = Fences::default();
    let mut inside = Inside::Text;
    // The variables of the `{% for x in … %}` loops the line is in.
    let mut loops: Vec<String> = Vec::new();
    let mut offset = 0;
    for line in md.lines() {
        offset += line.len() + 1;
        let later = md.get(offset.min(md.len())..).unwrap_or("");
        match inside {
            Inside::Comment | Inside::Raw | Inside::Highlight => {
                let end = match inside {
                    Inside::Comment => "endcomment",
                    Inside::Raw => "endraw",
                    _ => "endhighlight",
                };
                if only_tag(line, end).is_some() {
                    if inside == Inside::Highlight {
                        out.push_str("```\n");
                    }
                    inside = Inside::Text;
                } else if inside != Inside::Comment {
                    out.push_str(line);
                    out.push('\n');
                }
                continue;
            }
            Inside::Text if fences.code(line) => {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            _ => {}
        }
        if inside == Inside::Text {
            if let Some(lang) = only_tag(line, "highlight") {
                let lang = lang.split_whitespace().next().unwrap_or("");
                out.push_str(&format!("```{lang}\n"));
                inside = Inside::Highlight;
                continue;
            }
            if only_tag(line, "raw").is_some() {
                inside = Inside::Raw;
                continue;
            }
            if only_tag(line, "comment").is_some() {
                inside = Inside::Comment;
                continue;
            }
        }
        let (text, next) = strip_line(line, inside, later, &mut loops);
        inside = next;
        let removed = text.len() != line.len();
        if !(removed && text.trim().is_empty()) {
            out.push_str(&text);
            out.push('\n');
        }
    }
    out
}

/// `text`, onto `out`, without the expressions that show a value of a loop it is in (`{{ module }}`,
/// `{{ todo.name }}` inside `{% for todo in page.todos %}`): a value of data the site is built
/// from, which the text of the expression does not tell (just-the-class's calendar page read
/// "{{ module }}"). Other expressions stay (a macro's text: see the module).
fn push_without_loop_values(out: &mut String, text: &str, loops: &[String]) {
    let mut rest = text;
    while let Some(at) = rest.find("{{").filter(|_| !loops.is_empty()) {
        let Some(len) = rest[at..].find("}}") else {
            break;
        };
        let inner = rest[at + 2..at + len].trim_matches(['-', ' ']);
        let name = inner
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        out.push_str(&rest[..at]);
        if !loops.iter().any(|v| v == name) {
            out.push_str(&rest[at..at + len + 2]);
        }
        rest = &rest[at + len + 2..];
    }
    out.push_str(rest);
}

/// Whether the text after a `{#` is a heading's attribute list (`## Piles {#piles}`), not a
/// Jinja comment.
fn heading_id(after: &str) -> bool {
    after.find('}').is_some_and(|e| {
        e > 0
            && after[..e]
                .chars()
                .all(|c| c.is_alphanumeric() || "-_:.".contains(c))
    })
}

/// The length of the Jinja comment `text` starts with (`{# … #}`, through its `#}`, over lines
/// too), if it starts with one: what the site's build never runs nor shows (a teacher's
/// exercise commented out, whose `{{ exercice() }}` numbers nothing).
pub fn comment_len(text: &str) -> Option<usize> {
    let after = text.strip_prefix("{#")?;
    if heading_id(after) {
        return None;
    }
    after.find("#}").map(|e| e + 4)
}

/// One line without its templates, starting `inside` one (or text); what it ends inside of.
/// `later` is the text after the line: a `{%` or `{#` that nothing closes, or a heading's
/// `{#id}`, is text. The `for` loops it opens and closes are kept in `loops`.
fn strip_line(
    line: &str,
    mut inside: Inside,
    later: &str,
    loops: &mut Vec<String>,
) -> (String, Inside) {
    let mut text = String::with_capacity(line.len());
    let mut rest = line;
    loop {
        if let Inside::Template(close) = inside {
            match rest.find(close) {
                Some(at) => {
                    rest = &rest[at + close.len()..];
                    inside = Inside::Text;
                }
                None => return (text, inside),
            }
        }
        let open = ["{%", "{#"]
            .iter()
            .filter_map(|d| rest.find(d).map(|at| (at, *d)))
            .min();
        let Some((at, d)) = open else {
            push_without_loop_values(&mut text, rest, loops);
            return (text, Inside::Text);
        };
        let close = if d == "{%" { "%}" } else { "#}" };
        let after = &rest[at + 2..];
        let id = d == "{#" && heading_id(after);
        // `{{%` is Hugo's shortcode delimiter (one shown as written), no tag.
        let hugo = d == "{%" && rest[..at].ends_with('{');
        if id || hugo || !(after.contains(close) || later.contains(close)) {
            text.push_str(&rest[..at + 2]);
            rest = after;
            continue;
        }
        push_without_loop_values(&mut text, &rest[..at], loops);
        let tag = if d == "{%" { tag_name(&rest[at..]) } else { "" };
        match tag {
            "for" => {
                let var = rest[at + 2..]
                    .trim_start_matches('-')
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .trim_end_matches(',');
                loops.push(var.to_string());
            }
            "endfor" => {
                loops.pop();
            }
            _ => {}
        }
        if matches!(tag, "comment" | "raw") {
            // Inline `{% raw %}…{% endraw %}`: the text between stays; a comment goes.
            let end = if tag == "raw" { "endraw" } else { "endcomment" };
            let keep = end == "endraw";
            let body_at = rest[at..].find("%}").map(|e| at + e + 2);
            let closing = body_at.and_then(|b| {
                rest[b..]
                    .match_indices("{%")
                    .find(|(i, _)| tag_name(&rest[b + i..]) == end)
                    .map(|(i, _)| b + i)
            });
            if let (Some(b), Some(c)) = (body_at, closing) {
                if keep {
                    text.push_str(&rest[b..c]);
                }
                let after = rest[c..].find("%}").map_or(rest.len(), |e| c + e + 2);
                rest = &rest[after..];
                continue;
            }
        }
        rest = after;
        inside = Inside::Template(close);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_left_out_over_the_lines_they_span_and_expressions_stay() {
        let md = "# Cours\n\nVoir [le plan]({{ site.baseurl }}/plan).\n{% for m in site.modules %}\n- {{ m }}\n{% endfor %}\n\
                  {%- include nav.html\n    titre=\"Plan\" -%}\n!!! example \"{{ exercice() }}\"\n    Trier. {% if x %}Oui{% endif %}\n\
                  Fin {# une note #} du cours.\n";
        assert_eq!(
            strip(md),
            "# Cours\n\nVoir [le plan]({{ site.baseurl }}/plan).\n- \n!!! example \"{{ exercice() }}\"\n    Trier. Oui\nFin  du cours.\n"
        );
    }

    #[test]
    fn a_loops_values_are_left_out_and_other_expressions_stay() {
        // A Jekyll course's calendar lists its modules; a MkDocs course loops over its
        // exercises with a macro that shows each one.
        let md = "# Calendar\n{% for module in site.modules %}\n{{ module }}\n{%- endfor %}\n\
                  {% for todo in page.todos %}<li>{{ todo.name }} due {{todo.due}}</li>{% endfor %}\n\
                  {% for ex in exercices %}\n{{ IDE(ex) }}\n{% endfor %}\nAfter: {{ module }}\n";
        assert_eq!(
            strip(md),
            "# Calendar\n<li> due </li>\n{{ IDE(ex) }}\nAfter: {{ module }}\n"
        );
    }

    #[test]
    fn highlight_is_code_raw_is_text_comment_is_nothing_and_code_stays() {
        let md = "{% highlight python %}\nprint({% x %})\n{% endhighlight %}\n{% raw %}\n{% littéral %}\n{% endraw %}\n\
                  {% comment %}\nbrouillon\n{% endcomment %}\nUn {% raw %}{% x %}{% endraw %} écrit.\n```jinja\n{% if a %}\n```\n";
        assert_eq!(
            strip(md),
            "```python\nprint({% x %})\n```\n{% littéral %}\nUn {% x %} écrit.\n```jinja\n{% if a %}\n```\n"
        );
        assert_eq!(strip("sans gabarit"), "sans gabarit");
        // A heading's `{#id}` and a `{%` that nothing closes are text.
        let ids = "## Piles {#piles}\n\nUn {% sans fin.\n{# commentaire #}\n";
        assert_eq!(strip(ids), "## Piles {#piles}\n\nUn {% sans fin.\n");
    }

    #[test]
    fn a_link_whose_address_starts_with_an_expression_is_read_as_a_link() {
        let md = "We call it a [loop variable]({{ page.root }}/reference.html#loop-variable).\n```\n[x]({{ y }})\n```\n";
        assert_eq!(
            link_addresses(md),
            "We call it a [loop variable](/reference.html#loop-variable).\n```\n[x]({{ y }})\n```\n"
        );
    }
}
