//! A Markdown page's front matter: YAML between `---` lines or Hugo's TOML between `+++`
//! lines, its scalar values, and whether it leaves the page out.

use yaml_rust2::{Yaml, YamlLoader};

/// Splits and parses the front matter; `Err` names what is wrong with it.
/// Front-matter pairs, why it excludes the page (if it does), and the body after it.
pub(super) type Front<'a> = (Vec<(String, String)>, Option<String>, &'a str);

/// The text between a `fence` line (`---`, `+++`) that `t` starts with and the next one, and
/// the body after it; `None` when `t` does not start with one, `Err` when none closes it.
fn fenced<'a>(t: &'a str, fence: &str) -> Option<Result<(&'a str, &'a str), String>> {
    let rest = t
        .strip_prefix(fence)
        .filter(|r| r.starts_with('\n') || r.starts_with("\r\n"))?;
    let Some(end) = rest.find(&format!("\n{fence}")) else {
        return Some(Err(format!(
            "front matter opened with {fence} but never closed"
        )));
    };
    let body =
        rest[end + 1 + fence.len()..].trim_start_matches(fence.chars().next().unwrap_or('-'));
    let body = body.split_once('\n').map(|(_, b)| b).unwrap_or("");
    Some(Ok((&rest[..end], body)))
}

pub(super) fn front_matter(text: &str) -> Result<Front<'_>, String> {
    let t = text.strip_prefix('\u{feff}').unwrap_or(text);
    if let Some(front) = fenced(t, "+++") {
        let (toml, body) = front?;
        return toml_front_matter(toml, body);
    }
    let Some(front) = fenced(t, "---") else {
        return Ok((Vec::new(), None, t));
    };
    let (yaml, body) = front?;
    let docs = YamlLoader::load_from_str(yaml).map_err(|e| format!("front matter: {e}"))?;
    let mut out = Vec::new();
    let mut excluded = None;
    if let Some(Yaml::Hash(h)) = docs.first() {
        for (k, v) in h {
            let Some(k) = k.as_str() else { continue };
            let scalar = match v {
                Yaml::String(s) => Some(s.clone()),
                Yaml::Integer(i) => Some(i.to_string()),
                Yaml::Real(r) => Some(r.clone()),
                Yaml::Boolean(b) => Some(b.to_string()),
                _ => None,
            };
            match (k, v) {
                ("draft", Yaml::Boolean(true)) => {
                    excluded = Some("draft: true in its front matter".into())
                }
                ("chsr_ignore", Yaml::Boolean(true)) => {
                    excluded = Some("chsr_ignore: true in its front matter".into())
                }
                // Jekyll's unpublished page, and Hugo's page it does not render.
                ("published", Yaml::Boolean(false)) => {
                    excluded = Some("published: false in its front matter".into())
                }
                ("build", Yaml::Hash(b))
                    if b.get(&Yaml::String("render".into()))
                        == Some(&Yaml::String("never".into())) =>
                {
                    excluded = Some("build: render: never in its front matter".into())
                }
                ("search", Yaml::Hash(s))
                    if s.get(&Yaml::String("exclude".into())) == Some(&Yaml::Boolean(true)) =>
                {
                    excluded = Some("search: exclude: true in its front matter".into());
                }
                _ => {}
            }
            if let Some(s) = scalar {
                out.push((k.replace('-', "_"), s));
            }
        }
    } else if !docs.is_empty() && !matches!(docs.first(), Some(Yaml::Null)) {
        return Err("front matter is not a mapping of keys to values".into());
    }
    Ok((out, excluded, body))
}

/// Hugo's TOML front matter (the text between its `+++` lines): its scalar values (dates as
/// written), `draft = true` or `[build] render = 'never'` leaving the page out.
fn toml_front_matter<'a>(toml: &str, body: &'a str) -> Result<Front<'a>, String> {
    let table = toml
        .parse::<toml::Table>()
        .map_err(|e| format!("front matter (TOML): {}", e.message()))?;
    let mut out = Vec::new();
    let mut excluded = None;
    for (k, v) in &table {
        let scalar = match v {
            toml::Value::String(s) => Some(s.clone()),
            toml::Value::Integer(i) => Some(i.to_string()),
            toml::Value::Float(f) => Some(f.to_string()),
            toml::Value::Boolean(b) => Some(b.to_string()),
            toml::Value::Datetime(d) => Some(d.to_string()),
            _ => None,
        };
        if k == "draft" && v.as_bool() == Some(true) {
            excluded = Some("draft = true in its front matter".into());
        }
        let render = v.get("render").and_then(|r| r.as_str());
        if k == "build" && render == Some("never") {
            excluded = Some("build: render = 'never' in its front matter".into());
        }
        if let Some(s) = scalar {
            out.push((k.replace('-', "_"), s));
        }
    }
    Ok((out, excluded, body))
}
