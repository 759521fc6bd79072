//! A page's blocks → chunks with curriculum metadata.
//!
//! Blocks are grouped by what they belong to: an exercise or a correction is one unit; course text
//! is grouped by its deepest heading. A group longer than the limit is cut between blocks (a
//! block longer than the limit — a long listing — between lines, each piece fenced again), so a
//! chunk never splits a paragraph, a table or a line of code. Every chunk's text opens with the
//! page title and its heading (as OpenCERB's chunks do), records its page URL at the nearest
//! heading anchor, and a correction names the exercise it answers.

use super::config::SectionBy;
use super::html::{Heading, PageText, Role};
use crate::format::ChunkRecord;

/// Longest course-text chunk, in characters (cut between blocks above it).
pub const PROSE_CHARS: usize = 1200;
/// Longest exercise or correction chunk (kept whole up to this, so a correction stays one unit).
pub const UNIT_CHARS: usize = 2400;

/// What the page's rules resolved, before the blocks' own context.
#[derive(Clone, Debug)]
pub struct PageMeta {
    /// Chunk id prefix (`source:page`).
    pub key: String,
    /// Page URL (no fragment).
    pub url: String,
    /// What joins a heading's anchor to the URL: `#`, or Docsify's `?id=`.
    pub fragment: &'static str,
    /// Page path as read (the `path` field).
    pub path: String,
    /// `(field, value)` for the page (source defaults, rules, `chsr:` meta tags).
    pub fields: Vec<(&'static str, String)>,
    /// Document type of exercise statements (default `exercise`).
    pub exercise_doc_type: String,
    /// Document type of corrections (default `solution`).
    pub solution_doc_type: String,
    /// What one section is.
    pub section_by: SectionBy,
    /// The source name (id prefix and default `source`).
    pub source: String,
}

fn get<'a>(fields: &'a [(&'static str, String)], name: &str) -> Option<&'a String> {
    fields
        .iter()
        .rev()
        .find(|(f, _)| *f == name)
        .map(|(_, v)| v)
}

/// Splits an oversized block: code between lines (each piece fenced), text between sentences.
fn split_block(text: &str, limit: usize) -> Vec<String> {
    if text.chars().count() <= limit {
        return vec![text.to_string()];
    }
    if let Some(rest) = text.strip_prefix("```") {
        let (open, body) = rest.split_once('\n').unwrap_or((rest, ""));
        let body = body
            .strip_suffix("```")
            .unwrap_or(body)
            .trim_end_matches('\n');
        let mut out = Vec::new();
        let mut cur = String::new();
        for line in body.lines() {
            if !cur.is_empty() && cur.chars().count() + line.chars().count() + 1 > limit {
                out.push(format!("```{open}\n{}\n```", cur.trim_end_matches('\n')));
                cur.clear();
            }
            cur.push_str(line);
            cur.push('\n');
        }
        if !cur.trim().is_empty() {
            out.push(format!("```{open}\n{}\n```", cur.trim_end_matches('\n')));
        }
        return out;
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in text.split_inclusive(' ') {
        if !cur.is_empty() && cur.chars().count() + word.chars().count() > limit {
            out.push(cur.trim().to_string());
            cur.clear();
        }
        cur.push_str(word);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A heading path below the page title, for display (`Sujet 01 › Exercice 01.2`).
fn section_path(headings: &[Heading], title: Option<&str>) -> Option<String> {
    let parts: Vec<&str> = headings
        .iter()
        .filter(|h| Some(h.text.as_str()) != title && h.level > 1)
        .map(|h| h.text.as_str())
        .collect();
    (!parts.is_empty()).then(|| parts.join(" › "))
}

/// An exercise's number: the first number of its label (`Exercice 3`, `activité 10.6`) that
/// is not a year (`Exercice (Polynésie 2021)` has none, `Bac 2023 – Exercice 2` is 2).
fn exercise_number(label: &str) -> Option<String> {
    static NUMBER: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\d+(?:\.\d+)*").expect("valid pattern"));
    let year = |n: &str| {
        n.len() == 4
            && n.bytes().all(|b| b.is_ascii_digit())
            && (n.starts_with("19") || n.starts_with("20"))
    };
    NUMBER
        .find_iter(label)
        .map(|m| m.as_str())
        .find(|n| !year(n))
        .map(str::to_string)
}

/// The chunks of one page.
pub fn chunks(page: &PageText, meta: &PageMeta) -> Vec<ChunkRecord> {
    // Groups in page order: a unit (exercise/correction) or a heading context of prose.
    let mut order: Vec<(bool, usize)> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for (bi, b) in page.blocks.iter().enumerate() {
        let ctx = &page.ctxs[b.ctx];
        let key = match ctx.unit {
            Some(u) if ctx.role != Role::Prose => (true, u),
            _ => (false, b.ctx),
        };
        // Prose under the same headings stays one group even when an exercise sat between.
        let key = if !key.0 {
            let same = order.iter().position(|k| {
                !k.0 && {
                    let c = &page.ctxs[k.1];
                    c.headings == ctx.headings
                        && c.attr_fields == ctx.attr_fields
                        && c.heading_fields == ctx.heading_fields
                }
            });
            same.map(|i| order[i]).unwrap_or(key)
        } else {
            key
        };
        match order.iter().position(|k| *k == key) {
            Some(i) => members[i].push(bi),
            None => {
                order.push(key);
                members.push(vec![bi]);
            }
        }
    }
    let title = page.title.as_deref();
    let mut out: Vec<ChunkRecord> = Vec::new();
    let mut unit_first: Vec<(usize, String)> = Vec::new();
    let mut pending_answers: Vec<(usize, usize)> = Vec::new();
    for (gi, key) in order.iter().enumerate() {
        let blocks: Vec<&super::html::Block> =
            members[gi].iter().map(|&i| &page.blocks[i]).collect();
        let ctx = &page.ctxs[blocks[0].ctx];
        let limit = if key.0 { UNIT_CHARS } else { PROSE_CHARS };
        // An exercise opened by a heading is named by it: the headings under it ("1)", "2)")
        // are its parts, and the first of them neither names nor opens the whole exercise.
        let headings = match (key.0, ctx.label.as_deref()) {
            (true, Some(l)) => ctx
                .headings
                .iter()
                .rposition(|h| h.text == l)
                // (not the page's own title: a page that is one exercise keeps its sections)
                .filter(|&i| Some(ctx.headings[i].text.as_str()) != title)
                .map_or(&ctx.headings[..], |i| &ctx.headings[..=i]),
            _ => &ctx.headings[..],
        };
        // Pieces of at most `limit` characters, cut between blocks.
        let mut pieces: Vec<String> = Vec::new();
        let mut cur = String::new();
        let mut cur_tight = false;
        // In an exercise, the headings of its parts are read in its text, where each part
        // starts ("1)", "Partie B"): the chunk's head names the exercise only.
        let mut above: &[Heading] = headings;
        for b in &blocks {
            // (part, whether it is a list item joined to its neighbours by one line break)
            let mut parts: Vec<(String, bool)> = Vec::new();
            if key.0 {
                let hs = &page.ctxs[b.ctx].headings;
                let same = hs.iter().zip(above).take_while(|(a, b)| a == b).count();
                parts.extend(
                    hs[same..]
                        .iter()
                        .map(|h| (format!("**{}**", h.text), false)),
                );
                above = hs;
            }
            parts.extend(
                split_block(&b.text, limit)
                    .into_iter()
                    .map(|p| (p, b.tight)),
            );
            for (part, tight) in parts {
                if !cur.is_empty() && cur.chars().count() + part.chars().count() + 2 > limit {
                    pieces.push(std::mem::take(&mut cur));
                }
                if !cur.is_empty() {
                    cur.push_str(if tight && cur_tight { "\n" } else { "\n\n" });
                }
                cur.push_str(&part);
                cur_tight = tight;
            }
        }
        if !cur.is_empty() {
            pieces.push(cur);
        }
        let section_title = section_path(headings, title);
        let deepest = headings
            .iter()
            .rev()
            .find(|h| Some(h.text.as_str()) != title || h.level > 1);
        let anchor = ctx
            .anchor
            .clone()
            .or_else(|| headings.iter().rev().find_map(|h| h.anchor.clone()));
        let mut header: Vec<&str> = Vec::new();
        if let Some(t) = title {
            header.push(t);
        }
        if let Some(h) = deepest {
            header.push(&h.text);
        }
        if let Some(l) = ctx.label.as_deref() {
            // Not when the heading or the title says it already (after its section number:
            // "2. Exercício 1", a page titled "2.9. Exercises").
            let said = |t: &str| t.ends_with(l);
            if !deepest.is_some_and(|h| said(&h.text)) && !title.is_some_and(said) {
                header.push(l);
            }
        }
        if ctx.role == Role::Solution && ctx.label.is_none() {
            header.push("Correction");
        }
        let head = header.join(" — ");
        // Fields: page, then headings, then the role, then explicit attributes.
        let mut fields = meta.fields.clone();
        fields.extend(ctx.heading_fields.iter().cloned());
        match ctx.role {
            Role::Exercise => fields.push(("doc_type", meta.exercise_doc_type.clone())),
            Role::Solution => fields.push(("doc_type", meta.solution_doc_type.clone())),
            Role::Prose => {}
        }
        fields.extend(ctx.attr_fields.iter().cloned());
        let chapter = get(&fields, "chapter").cloned();
        let section_key = match meta.section_by {
            SectionBy::Chapter if chapter.is_some() => {
                format!("{}:{}", meta.source, chapter.clone().unwrap_or_default())
            }
            SectionBy::Heading => match (ctx.unit, deepest) {
                (_, Some(h)) => format!(
                    "{}#{}",
                    meta.key,
                    h.anchor.clone().unwrap_or_else(|| h.text.clone())
                ),
                _ => meta.key.clone(),
            },
            _ => meta.key.clone(),
        };
        for (pi, body) in pieces.into_iter().enumerate() {
            let id = format!("{}:{}", meta.key, out.len() + 1);
            if pi == 0 && key.0 {
                unit_first.push((key.1, id.clone()));
                if let Some(a) = ctx.answers {
                    pending_answers.push((out.len(), a));
                }
            }
            let text = if head.is_empty() {
                body
            } else {
                format!("{head}\n{body}")
            };
            let f = |n: &str| get(&fields, n).cloned();
            out.push(ChunkRecord {
                id,
                text,
                subject: f("subject").unwrap_or_default(),
                level: f("level").unwrap_or_default(),
                lang: f("lang").unwrap_or_default(),
                doc_type: f("doc_type").unwrap_or_else(|| "textbook_section".into()),
                source: Some(f("source").unwrap_or_else(|| meta.source.clone())),
                chapter: chapter.clone(),
                chapter_title: f("chapter_title").or_else(|| title.map(str::to_string)),
                section: f("section"),
                section_title: section_title.clone(),
                subsection: None,
                section_key: Some(section_key.clone()),
                topic: f("topic"),
                year: f("year"),
                exam: f("exam"),
                paper: f("paper"),
                question_number: f("question_number"),
                exercise_group: None,
                exercise_number: if key.0 {
                    ctx.label.as_deref().and_then(exercise_number)
                } else {
                    None
                },
                session: f("session"),
                centre: f("centre"),
                label: None,
                answers: None,
                path: Some(meta.path.clone()),
                url: Some(match &anchor {
                    Some(a) => format!("{}{}{a}", meta.url, meta.fragment),
                    None => meta.url.clone(),
                }),
                title: title.map(str::to_string),
            });
        }
    }
    for (ci, unit) in pending_answers {
        if let Some((_, id)) = unit_first.iter().find(|(u, _)| *u == unit) {
            out[ci].answers = Some(id.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::config::Structure;
    use crate::index::html::Reader;

    /// A page of source `s` at `url`, its scope given.
    fn meta(url: &str) -> PageMeta {
        PageMeta {
            key: "s:p".into(),
            url: url.into(),
            fragment: "#",
            path: "p/index.html".into(),
            fields: vec![
                ("subject", "nsi".into()),
                ("level", "premiere".into()),
                ("lang", "fr".into()),
            ],
            exercise_doc_type: "exercise".into(),
            solution_doc_type: "solution".into(),
            section_by: SectionBy::Page,
            source: "s".into(),
        }
    }

    #[test]
    fn a_correction_is_one_chunk_that_answers_its_exercise_and_links_to_its_heading() {
        let html = r##"<article class="md-content__inner"><h1 id="v">Variables</h1>
            <h2 id="inc">L'incrémentation</h2><p>On ajoute 1.</p>
            <div class="admonition example"><p class="admonition-title">Exercice 2</p><p>Écrire.</p>
            <details><summary>Correction</summary><pre><code>for k in range(3):
    print(k)
</code></pre></details></div><p>Suite du cours.</p></article>"##;
        let page = Reader::new(&Structure::default()).read(html, &[], false);
        let c = chunks(&page, &meta("https://x.org/p/"));
        assert_eq!(c.len(), 3, "{c:#?}");
        assert_eq!(
            c[0].text,
            "Variables — L'incrémentation\nOn ajoute 1.\n\nSuite du cours."
        );
        assert_eq!(c[0].doc_type, "textbook_section");
        assert_eq!(c[1].doc_type, "exercise");
        assert_eq!(c[1].exercise_number.as_deref(), Some("2"));
        assert_eq!(c[2].doc_type, "solution");
        assert!(
            c[2].text.contains("for k in range(3):\n    print(k)"),
            "{}",
            c[2].text
        );
        assert_eq!(c[2].answers.as_deref(), Some(c[1].id.as_str()));
        assert_eq!(c[2].url.as_deref(), Some("https://x.org/p/#inc"));
        assert_eq!(c[2].title.as_deref(), Some("Variables"));
        assert_eq!(c[2].section_title.as_deref(), Some("L'incrémentation"));
    }

    #[test]
    fn an_exercise_number_is_its_labels_first_number_but_a_year() {
        for (label, number) in [
            ("Exercice 3", Some("3")),
            ("activité 10.6", Some("10.6")),
            ("Exercice 07.2", Some("07.2")),
            ("Exercice 19.1", Some("19.1")),
            ("Exercice (Polynésie 2021)", None),
            ("Bac 2023 – Exercice 2", Some("2")),
            ("Exercice 2 (sujet 1999)", Some("2")),
            ("Exercice", None),
        ] {
            assert_eq!(exercise_number(label).as_deref(), number, "{label}");
        }
    }

    #[test]
    fn a_numbered_exercise_heading_is_an_exercise_named_once() {
        // Org mode's export numbers its sections ("2.14 Exercício 9"); a Jupyter Book page is
        // titled "2.9. Exercises". The number is no part of the exercise's name, and the chunk
        // does not repeat a name its heading or title says.
        let html = r##"<html><body><div id="content"><h1 class="title">PHP</h1>
            <div class="outline-2"><h2 id="o1"><span class="section-number-2">2.14</span> Exercício 9</h2>
            <div class="outline-text-2"><p>Crie uma página.</p></div></div>
            <div class="outline-2"><h2 id="o2"><span class="section-number-2">2.15</span> Soluções das equações</h2>
            <p>Uma equação.</p></div></div></body></html>"##;
        let page = Reader::new(&Structure::default()).read(html, &[], false);
        let meta = meta("p.html");
        let c = chunks(&page, &meta);
        assert_eq!(c[0].text, "PHP — 2.14 Exercício 9\nCrie uma página.");
        assert_eq!(
            (c[0].doc_type.as_str(), c[0].exercise_number.as_deref()),
            ("exercise", Some("9"))
        );
        // Solutions of equations, not a correction.
        assert_eq!(c[1].doc_type, "textbook_section", "{c:#?}");
        let titled = Reader::new(&Structure::default()).read(
            r##"<main><h1>2.9. Exercises</h1><p>Evaluate 7 * 6.</p></main>"##,
            &[],
            false,
        );
        let c = chunks(&titled, &meta);
        assert_eq!(c[0].text, "2.9. Exercises\nEvaluate 7 * 6.");
        assert_eq!(c[0].doc_type, "exercise");
    }

    #[test]
    fn an_exercise_heading_names_and_opens_its_exercise_not_its_first_part() {
        // David Roche's activities: "activité 10.6" (h2) in parts "1)", "2)" (h3); a
        // written exam's correction: "Exercice 4" in "Partie A", "Partie B".
        let html = r##"<article class="md-content__inner"><h1 id="t">Activités</h1>
            <h2 id="a105">activité 10.5</h2><p>Lire.</p>
            <h2 id="a106">activité 10.6</h2><h3 id="1">1)</h3><ul><li>Tracer le graphe.</li></ul>
            <h3 id="2">2)</h3><ul><li>Le parcourir.</li></ul></article>"##;
        let page = Reader::new(&Structure::default()).read(html, &[], false);
        let c = chunks(&page, &meta("https://x.org/c10a/"));
        let last = c.last().expect("chunks");
        assert_eq!(
            last.text,
            "Activités — activité 10.6\n**1)**\n\n- Tracer le graphe.\n\n**2)**\n\n- Le parcourir.",
            "{c:#?}"
        );
        assert_eq!(last.url.as_deref(), Some("https://x.org/c10a/#a106"));
        assert_eq!(last.section_title.as_deref(), Some("activité 10.6"));
        assert_eq!(last.exercise_number.as_deref(), Some("10.6"));
        // A page that is one exercise keeps its sections in its chunks' heads and links.
        let one = r##"<article class="md-content__inner"><h1 id="t">Exercice 4</h1>
            <h2 id="pa">Partie A</h2><p>Un arbre.</p><h2 id="pb">Partie B</h2><p>Un tas.</p></article>"##;
        let page = Reader::new(&Structure::default()).read(one, &[], false);
        let c = chunks(&page, &meta("https://x.org/e4/"));
        assert_eq!(c[0].url.as_deref(), Some("https://x.org/e4/#pa"), "{c:#?}");
        assert_eq!(
            c[0].text,
            "Exercice 4 — Partie A\nUn arbre.\n\n**Partie B**\n\nUn tas."
        );
    }

    #[test]
    fn long_code_is_cut_between_lines_and_each_piece_stays_fenced() {
        let code: String = (0..400).map(|i| format!("    x{i} = {i}\n")).collect();
        let parts = split_block(&format!("```python\n{code}```"), 1000);
        assert!(parts.len() > 1);
        for p in &parts {
            assert!(
                p.starts_with("```python\n    x") && p.ends_with("\n```"),
                "{p}"
            );
            assert!(p.chars().count() <= 1000 + 20);
        }
    }
}
