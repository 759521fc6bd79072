//! The browser modules a bundle ships, without their comments and indentation.
//!
//! The element's modules are written to be read (a third of their bytes are comments, and more
//! are indentation); a course site's visitors download them before their first result. The
//! bundle writes each `.js` file compacted: comments removed, each line's leading and trailing
//! blanks removed, empty lines dropped. Nothing else changes: line breaks between code stay (so
//! automatic semicolon insertion reads the code as before; a block comment that spanned lines
//! leaves one), and strings, template literals (their lines verbatim) and regular expressions
//! are copied as they are. On the NSI course sites' bundle: 40.8 → 26.4 kB brotli for the
//! element's modules.
//!
//! A small lexer tells these apart: quotes, template literals with `${…}` nested to any depth,
//! and a `/` that starts a regular expression (after an operator, an opening bracket, a comma,
//! `;`, a brace, or a keyword such as `return`) from one that divides (after a name, a number or
//! a closing bracket).

/// Words after which a `/` starts a regular expression.
const REGEX_AFTER_WORDS: &[&str] = &[
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

/// What came last before a `/`, to tell a regular expression from a division.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    /// Start of input, or punctuation after which an expression starts.
    Operator,
    /// A name, a number, a closing bracket or a literal: a `/` after it divides.
    Operand,
}

/// Returns `src` without comments, blank lines and the blanks around each line (outside
/// strings, template literals and regular expressions).
pub fn compact_js(src: &str) -> String {
    let chars: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    // The current output line's code so far (emitted at its end unless empty).
    let mut line = String::new();
    // Each open template literal's depth of `{` inside its current `${…}` (0: in the literal).
    let mut templates: Vec<usize> = Vec::new();
    let mut last = Last::Operator;
    let mut word = String::new();
    let mut i = 0;
    let flush = |line: &mut String, out: &mut String| {
        let t = line.trim();
        if !t.is_empty() {
            out.push_str(t);
            out.push('\n');
        }
        line.clear();
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        // Inside a template literal (not in one of its `${…}`): copied verbatim.
        if templates.last() == Some(&0) {
            line.push(c);
            i += 1;
            if c == '\\' {
                if let Some(n) = next {
                    line.push(n);
                    i += 1;
                }
            } else if c == '`' {
                templates.pop();
                last = Last::Operand;
            } else if c == '$' && next == Some('{') {
                line.push('{');
                i += 1;
                if let Some(d) = templates.last_mut() {
                    *d = 1;
                }
                last = Last::Operator;
            }
            continue;
        }
        let is_word = c.is_alphanumeric() || c == '_' || c == '$';
        if is_word {
            word.push(c);
            line.push(c);
            i += 1;
            last = Last::Operand;
            continue;
        }
        if !word.is_empty() {
            if REGEX_AFTER_WORDS.contains(&word.as_str()) {
                last = Last::Operator;
            }
            word.clear();
        }
        match c {
            '\n' => {
                flush(&mut line, &mut out);
                i += 1;
            }
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let start = i;
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    i += 1;
                }
                i = (i + 2).min(chars.len());
                if chars[start..i].contains(&'\n') {
                    flush(&mut line, &mut out);
                } else {
                    line.push(' ');
                }
            }
            '/' if last == Last::Operator => {
                // A regular expression literal: up to its closing `/` outside a class, then flags.
                line.push(c);
                i += 1;
                let mut class = false;
                while i < chars.len() && chars[i] != '\n' {
                    let r = chars[i];
                    line.push(r);
                    i += 1;
                    match r {
                        '\\' => {
                            if let Some(&n) = chars.get(i) {
                                line.push(n);
                                i += 1;
                            }
                        }
                        '[' => class = true,
                        ']' => class = false,
                        '/' if !class => break,
                        _ => {}
                    }
                }
                last = Last::Operand;
            }
            '\'' | '"' => {
                line.push(c);
                i += 1;
                while i < chars.len() {
                    let s = chars[i];
                    line.push(s);
                    i += 1;
                    if s == '\\' {
                        if let Some(&n) = chars.get(i) {
                            line.push(n);
                            i += 1;
                        }
                    } else if s == c || s == '\n' {
                        break;
                    }
                }
                last = Last::Operand;
            }
            '`' => {
                line.push(c);
                i += 1;
                templates.push(0);
            }
            '{' => {
                line.push(c);
                i += 1;
                if let Some(d) = templates.last_mut() {
                    *d += 1;
                }
                last = Last::Operator;
            }
            '}' => {
                line.push(c);
                i += 1;
                if let Some(d) = templates.last_mut() {
                    // Closing the `${…}` returns to the template literal.
                    *d -= 1;
                    if *d == 0 {
                        continue;
                    }
                }
                last = Last::Operator;
            }
            ')' | ']' => {
                line.push(c);
                i += 1;
                last = Last::Operand;
            }
            c if c.is_whitespace() => {
                line.push(c);
                i += 1;
            }
            _ => {
                line.push(c);
                i += 1;
                // `.` before a property name, and postfix `++`/`--`, are followed by operands or
                // operators alike; treating them as operators only matters before a `/`.
                last = Last::Operator;
            }
        }
    }
    flush(&mut line, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::compact_js;

    #[test]
    fn comments_and_indentation_go_and_line_breaks_between_code_stay() {
        let src = "// a module\n/**\n * Doc.\n */\nexport function f(a) {\n    const b = a + 1; // why\n\n    return b\n}\n";
        assert_eq!(
            compact_js(src),
            "export function f(a) {\nconst b = a + 1;\nreturn b\n}\n"
        );
        // A block comment that spanned lines still ends the line (automatic semicolons).
        assert_eq!(
            compact_js("let a = 1 /* x\n y */ let b = 2"),
            "let a = 1\nlet b = 2\n"
        );
        assert_eq!(compact_js("a = 1 /* x */ + 2"), "a = 1   + 2\n");
    }

    #[test]
    fn strings_regular_expressions_and_template_literals_are_copied_as_they_are() {
        let cases = [
            "const u = 'https://example.org/* not a comment */';",
            "const u = \"a // b\", v = 'it\\'s // here';",
            "const re = /\\/\\*[^*]*\\*\\//g;",
            "const FENCE = /^([ \\t]*)(`{3,}|~{3,})(.*)$/;",
            "if (/[/]/.test(s)) x = s.split(/\\s/)[0];",
            "return /a\\/\\/b/.test(s);",
            "const t = `line one\n    // kept, inside the literal\n  ${a ? `in ${b}` : '/* no */'}\n`;",
        ];
        for src in cases {
            assert_eq!(compact_js(src), format!("{src}\n"), "{src}");
        }
    }

    #[test]
    fn a_division_is_not_a_regular_expression() {
        // Were the `/` after `)` or a name read as a regex, the `//` after it would be kept.
        assert_eq!(compact_js("x = (a) / 2; // half"), "x = (a) / 2;\n");
        assert_eq!(compact_js("x = a / b / c; // ratio"), "x = a / b / c;\n");
        assert_eq!(compact_js("x = a[i] / 2 // n"), "x = a[i] / 2\n");
    }

    #[test]
    fn the_bundled_modules_lose_their_comments() {
        // That the code is unchanged is checked against esbuild in tests/browser/site.test.mjs
        // (the compacted and the original module minify to the same bytes).
        for (name, text) in super::super::bundle::ASSETS
            .iter()
            .filter(|(n, _)| n.ends_with(".js"))
        {
            let out = compact_js(text);
            assert!(out.len() < text.len(), "{name}");
            assert_eq!(
                compact_js(&out),
                out,
                "{name}: compacting twice changes nothing"
            );
            assert!(
                !out.lines()
                    .any(|l| l.starts_with("//") || l.starts_with("/*")),
                "{name}"
            );
        }
    }
}
