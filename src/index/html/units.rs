//! The walker's blocks with a title: admonitions, collapsible blocks, tabs and exercises marked
//! up as their own element, which make exercise and correction units; headings that name an
//! exercise or a correction, which make one of what follows them; and the scope of the
//! headings inside a section, an article or a collapsible block.

use super::{clean_title, parts, Role, Unit, Walker};
use regex::Regex;
use scraper::ElementRef;
use std::sync::LazyLock;

impl Walker<'_, '_> {
    /// Walks what `f` walks with the headings inside it heading it alone: a heading inside a
    /// section, an article or a collapsible block (Sphinx, Quarto and PreTeXt nest a page's
    /// sections; a PreTeXt activity is an article, its examples collapsible) does not head what
    /// follows it, which belongs to the headings outside.
    pub(super) fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.flush();
        let outline = (self.headings.clone(), self.hfields.clone());
        let hunits = self.hunits.len();
        f(self);
        self.flush();
        if self.headings != outline.0 {
            (self.headings, self.hfields) = outline;
            self.dirty = true;
        }
        if self.hunits.len() != hunits {
            self.hunits.truncate(hunits);
            self.dirty = true;
        }
    }

    /// The unit what is read now belongs to: the innermost block's, else the heading's.
    pub(super) fn unit(&self) -> Option<&Unit> {
        self.units.last().or(self.hunits.last().map(|(_, u)| u))
    }

    /// A heading of `level` titled `text`: it ends the heading units of its level and below, and
    /// starts one when it names an exercise ("Exercice 3", "Exercise 2.1") or a correction
    /// ("Correction", which answers the exercise it follows), as a plain Markdown course
    /// writes them; not inside a block, whose own title says what it is. The section number a
    /// generator puts before a heading ("2.14 Exercício 9": Org mode, Sphinx's and Quarto's
    /// numbered sections) is not part of its name.
    pub(super) fn heading_unit(&mut self, level: u8, text: &str) {
        let name = without_section_number(text);
        // What a heading names may follow a course's code or a part's name ("MATH5824 -
        // Solution to Exercises 3", "Chapitre 3 : Exercices").
        static SEPARATOR: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"\s[-:–—|]\s").expect("valid regex"));
        let after = SEPARATOR.splitn(name, 2).nth(1).unwrap_or("");
        let said = |word: &Regex, correction: bool| {
            names(word, name, correction) || (!after.is_empty() && names(word, after, correction))
        };
        let ended = self
            .hunits
            .iter()
            .rev()
            .take_while(|(l, _)| *l >= level)
            .find_map(|(_, u)| (u.role == Role::Exercise).then_some(u.unit).flatten());
        self.hunits.retain(|(l, _)| *l < level);
        if !self.units.is_empty() {
            return;
        }
        let st = &self.r.structure;
        let inside = self.hunits.last().map(|(_, u)| (u.role, u.unit));
        // A heading that ends by saying it is a correction ("22-NSIJ1G11 : Corrigé",
        // "Exercice 3 (corrigé)", "TD 4 - Solutions").
        static ENDS_CORRECTED: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)[:\-–—(|]\s*(corrig[ée]s?|corrections?|solutions?)\s*\)?\s*$")
                .expect("valid regex")
        });
        let unit = if said(&st.solution, true) || ENDS_CORRECTED.is_match(name) {
            let answers = match inside {
                Some((Role::Exercise, u)) => u,
                _ => ended,
            };
            Some((Role::Solution, answers))
        } else if said(&st.exercise, false) {
            // Under a correction's heading (a page of an exam's corrections), an exercise's
            // heading heads its correction.
            match inside {
                Some((Role::Solution, _)) => Some((Role::Solution, None)),
                _ => Some((Role::Exercise, None)),
            }
        } else {
            None
        };
        if let Some((role, answers)) = unit {
            let u = Unit {
                role,
                unit: Some(self.new_unit()),
                answers,
                label: Some(name.to_string()),
                anchor: None,
            };
            if role == Role::Exercise {
                self.last_exercise = u.unit;
            }
            self.hunits.push((level, u));
        }
    }

    pub(super) fn summary(&self, e: ElementRef<'_>) -> Option<String> {
        e.children()
            .filter_map(ElementRef::wrap)
            .find(|c| c.value().name() == "summary")
            .map(|s| clean_title(&self.r.inline(s)))
    }

    pub(super) fn is_admonition(&self, e: ElementRef<'_>) -> bool {
        let v = e.value();
        v.classes().any(|c| {
            matches!(
                c,
                "admonition"
                    | "theme-admonition"
                    | "callout"
                    | "alert"
                    | "notices"
                    | "note-box"
                    | "custom-block"
                    | "accordion-item"
                    | "admonitionblock"
                    | "exampleblock"
                    | "sidebarblock"
                    | "listingblock"
                    | "expand"
            ) || c.starts_with("admonition_")
        })
    }

    pub(super) fn admonition_title(&self, e: ElementRef<'_>) -> Option<String> {
        // Not one inside what the page never shows (a hidden block's summary); titles are
        // left out of the text themselves, and so may be the headings that hold them.
        let shown = |h: &ElementRef<'_>| {
            !h.ancestors()
                .take_while(|a| a.id() != e.id())
                .filter_map(ElementRef::wrap)
                .any(|a| self.r.skipped(a) && !self.r.admonition_title.matches(&a))
        };
        let first = e.select(&self.r.admonition_title).find(shown)?;
        // A title element may hold the title in one of its own (Bootstrap's accordion button
        // around its `.accordion-header`, as the Carpentries' lessons write it).
        let title = first
            .select(&self.r.admonition_title)
            .map(|h| clean_title(&self.r.inline(h)))
            .find(|s| !s.is_empty())
            .or_else(|| Some(clean_title(&self.r.inline(first))))
            .filter(|s| !s.is_empty())?;
        // Asciidoctor numbers an example block's title with its caption ("Example 1. ",
        // "Exemple 1. "): the title is what the author wrote.
        static CAPTION: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"^\p{L}+\s+\d+\.\s+").expect("valid regex"));
        let example = e
            .value()
            .has_class("exampleblock", scraper::CaseSensitivity::CaseSensitive);
        Some(if example {
            CAPTION.replace(&title, "").into_owned()
        } else {
            title
        })
    }

    pub(super) fn is_tabs(&self, e: ElementRef<'_>) -> bool {
        e.value()
            .has_class("tabbed-set", scraper::CaseSensitivity::AsciiCaseInsensitive)
            || e.value().has_class(
                "tabs-container",
                scraper::CaseSensitivity::AsciiCaseInsensitive,
            )
    }

    /// A tab set: each panel read with its label (pymdownx `tabbed`, Docusaurus tabs).
    pub(super) fn tabs(&mut self, e: ElementRef<'_>) {
        self.flush();
        let labels: Vec<String> = e
            .select(&self.r.tab_labels)
            .map(|l| clean_title(&l.text().collect::<String>()))
            .collect();
        let blocks: Vec<ElementRef<'_>> = e.select(&self.r.tab_panels).collect();
        if blocks.is_empty() {
            self.children(e);
            return;
        }
        // A quiz's choices and its correction side by side ("Réponses" and "Correction", the
        // right choices checked in the second): a panel of unchecked choices only, beside one
        // that checks some, is the question's choices whatever its label, not a correction.
        let boxes: Vec<(usize, usize)> = blocks.iter().map(|b| parts::checkboxes(*b)).collect();
        let checks = boxes.iter().any(|&(_, checked)| checked > 0);
        for (i, b) in blocks.into_iter().enumerate() {
            let choices = checks && boxes[i].0 >= 2 && boxes[i].1 == 0;
            let label = labels.get(i).cloned().filter(|_| !choices);
            self.unit_block(b, label, false);
        }
    }

    /// Whether a block holds its own correction: a tab or a collapsible block, among its
    /// children, titled as one (a quiz question whose title is the question, its choices and
    /// correction in tabs under it).
    fn holds_correction(&self, e: ElementRef<'_>) -> bool {
        let solution = |t: String| self.r.structure.solution.is_match(&clean_title(&t));
        e.children().filter_map(ElementRef::wrap).any(|c| {
            if self.is_tabs(c) {
                c.select(&self.r.tab_labels)
                    .any(|l| solution(l.text().collect()))
            } else if c.value().name() == "details" {
                self.summary(c).is_some_and(solution)
            } else {
                self.is_admonition(c) && self.admonition_title(c).is_some_and(solution)
            }
        })
    }

    /// A block with a title: a skipped block, a correction, an exercise, a statement, or a plain
    /// block whose title is kept as a bold line.
    pub(super) fn unit_block(
        &mut self,
        e: ElementRef<'_>,
        title: Option<String>,
        own_classes: bool,
    ) {
        self.flush();
        let st = &self.r.structure;
        let t = title.clone().unwrap_or_default();
        let classed = own_classes
            && e.value()
                .classes()
                .any(|c| st.exercise_classes.iter().any(|x| x == c));
        // A block classed as a correction (bookdown's and Quarto's `::: {.solution}`) is one
        // whatever its title.
        let corrects = own_classes
            && e.value()
                .has_class("solution", scraper::CaseSensitivity::AsciiCaseInsensitive);
        let inside = self.unit().map(|u| (u.role, u.unit, u.anchor.clone()));
        // Its own id, or that of a wrapper it is alone in (the Workbench's accordion).
        fn id(e: ElementRef<'_>) -> Option<String> {
            e.value()
                .attr("id")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        }
        let wrapper = e
            .parent()
            .and_then(ElementRef::wrap)
            .filter(|p| p.children().filter_map(ElementRef::wrap).count() == 1);
        let titled = || e.select(&self.r.admonition_title).next().and_then(id);
        let anchor = id(e).or_else(|| wrapper.and_then(id)).or_else(titled);
        let unit = if !t.is_empty() && st.skip.is_match(&t) {
            return;
        } else if corrects || (!t.is_empty() && st.solution.is_match(&t)) {
            // A correction inside its exercise answers it and, without an anchor of its own,
            // opens there.
            let (answers, anchor) = match inside {
                Some((Role::Exercise, u, at)) => (u, anchor.or(at)),
                _ => (self.last_exercise, anchor),
            };
            Some(Unit {
                role: Role::Solution,
                unit: Some(self.new_unit()),
                answers,
                label: title,
                anchor,
            })
        } else if (!t.is_empty() && st.statement.is_match(&t))
            && matches!(inside, Some((Role::Exercise, _, _)))
        {
            None
        } else if (!t.is_empty()
            && (st.exercise.is_match(&t) || st.statement.is_match(&t))
            && !only_questions(&t))
            || classed
            || (own_classes && !t.is_empty() && inside.is_none() && self.holds_correction(e))
        {
            let u = self.new_unit();
            Some(Unit {
                role: Role::Exercise,
                unit: Some(u),
                answers: None,
                label: title,
                anchor,
            })
        } else {
            // A title that a heading of the block repeats (PreTeXt's `<summary><h5>`) is read
            // once, as that heading.
            let repeated = || {
                // (not one left out as the title itself, as a Bootstrap accordion's header)
                let h = e.select(&self.r.headings).find(|h| !self.r.skipped(*h));
                h.is_some_and(|h| clean_title(&self.r.inline(h)) == t)
            };
            if !t.is_empty() && !repeated() {
                self.push_block(format!("**{t}**"), false);
            }
            None
        };
        match unit {
            Some(u) => {
                let exercise = (u.role == Role::Exercise).then_some(u.unit).flatten();
                self.units.push(u);
                self.dirty = true;
                self.children(e);
                self.flush();
                self.units.pop();
                self.dirty = true;
                if exercise.is_some() {
                    self.last_exercise = exercise;
                }
            }
            None => {
                self.children(e);
                self.flush();
            }
        }
    }

    fn new_unit(&mut self) -> usize {
        self.next_unit += 1;
        self.next_unit
    }
}

/// Whether a title is "Questions" alone: a lesson's guiding questions (the Carpentries'
/// `questions` block opens every episode) or a FAQ as often as exercises.
fn only_questions(title: &str) -> bool {
    title
        .trim_matches(|c: char| !c.is_alphanumeric())
        .eq_ignore_ascii_case("questions")
}

/// A heading's or a title's name without the section number a generator puts before it
/// ("2.14 Exercício 9", Jupyter Book's "3.14. Exercises").
pub(crate) fn without_section_number(text: &str) -> &str {
    static NUMBER: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\d+(\.\d+)*\.?\s+").expect("valid regex"));
    NUMBER.find(text).map_or(text, |m| &text[m.end()..])
}

/// Whether a heading names what `word` matches: the word alone ("Exercices", "Correction"),
/// with a number ("Exercice 3", "Exercise 2.1", "Exercice n°4") or a title after a colon or a
/// dash ("Exercice : les piles"); a correction may also say what it corrects ("Correction de
/// l'exercice 2", "Solution to Exercise 1"). Not a heading that only starts with the word
/// ("Solutions en ligne", "Exercise numbering"), nor "Questions" without a number.
fn names(word: &Regex, text: &str, correction: bool) -> bool {
    static REST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*((n[°o]\.?|#)?\s*(\d+|[ivxlc]+\b|[a-z](\s|$|[.):,]))|[:.\-–—(]|$)")
            .expect("valid regex")
    });
    // What a correction corrects: an exercise, a question, a problem, a paper or a test, a
    // chapter's or a number ("Solution to Exercise 1", "Correction de l'exercice 2",
    // "Correction du sujet 0", "Solutions to 3.1"), not any noun ("Solutions to Maxwell's
    // Equations" is a chapter of a physics course).
    static OF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?i)^\s*((de|du|des|d'|d’|of|to|for|à|aux?)\s*(l'|l’|la|le|les|the|this|these|ce|cet|cette|ces)?\s*)?",
            r"(exerc|exercí|ejercicio|esercizi|aufgabe|übung|opdracht|oefening|activit|question|problem|probl|task|tâche",
            r"|td|tp|sujet|devoir|ds\b|contr[oô]le|examen|exam|[ée]preuve|bac|paper|test|quiz|homework|assignment|lab",
            r"|worksheet|feuille|s[ée]rie|partiel|interro|[ée]valuation|chap|q\d|\d)"
        ))
        .expect("valid regex")
    });
    word.find(text).is_some_and(|m| {
        let rest = &text[m.end()..];
        let numbered = rest.trim_start().starts_with(|c: char| c.is_ascii_digit());
        if m.as_str().to_lowercase().contains("question") && !numbered {
            return false;
        }
        REST.is_match(rest) || (correction && OF.is_match(rest))
    })
}
