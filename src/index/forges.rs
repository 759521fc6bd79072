//! Markdown sources read where a code forge shows them: a course kept as Markdown files in a
//! GitHub, GitLab or Gitea (Codeberg, Forgejo) repository, with no site generator, is read by
//! students on the forge itself, each file at its own address (`…/blob/main/cours/piles.md`)
//! and each heading at the anchor the forge gives it. A source whose `url` is a forge's file view
//! ([`forge_of`]) gets those addresses ([`super::config::PageUrls::Files`]) and anchors; its
//! notebooks are pages too, as the forges render them.

use super::anchors::Anchors;

/// The anchors of the forge whose file view `url` is (the folder of a repository at a branch,
/// tag or commit): `https://github.com/OWNER/REPO/blob/REF/…` or `/tree/REF/…`, a GitLab
/// `…/-/blob/REF/…` or `…/-/tree/REF/…` on any host (gitlab.com, framagit.org,
/// forge.apps.education.fr), a Gitea or Forgejo `…/src/branch/REF/…` (or `/src/tag/`,
/// `/src/commit/`) on any host (codeberg.org). `None` for any other address (a published site).
pub fn forge_of(url: &str) -> Option<Anchors> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let (host, path) = rest.split_once('/')?;
    let host = host.to_ascii_lowercase();
    let parts: Vec<&str> = path.split('/').collect();
    let has = |pair: [&str; 2]| parts.windows(2).any(|w| w == pair);
    if has(["-", "blob"]) || has(["-", "tree"]) {
        return Some(Anchors::GitLab);
    }
    if ["src/branch", "src/tag", "src/commit"]
        .iter()
        .any(|p| has([&p[..3], &p[4..]]))
    {
        return Some(Anchors::Gitea);
    }
    let github = host == "github.com" || host == "www.github.com";
    (github && parts.len() >= 4 && ["blob", "tree"].contains(&parts[2])).then_some(Anchors::GitHub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forges_file_view_by_its_address() {
        let cases = [
            (
                "https://github.com/prof/nsi/blob/main/cours/",
                Some(Anchors::GitHub),
            ),
            (
                "https://github.com/prof/nsi/tree/v2/",
                Some(Anchors::GitHub),
            ),
            (
                "https://gitlab.com/prof/nsi/-/blob/main/docs/",
                Some(Anchors::GitLab),
            ),
            (
                "https://forge.apps.education.fr/prof/nsi/-/tree/main/",
                Some(Anchors::GitLab),
            ),
            (
                "https://codeberg.org/prof/nsi/src/branch/main/",
                Some(Anchors::Gitea),
            ),
            // Published sites, and a repository's home page, are not file views.
            ("https://prof.github.io/nsi/", None),
            ("https://github.com/prof/nsi", None),
            ("https://github.com/prof/blob/", None),
            ("https://prof.forge.apps.education.fr/nsi/", None),
            ("../cours/", None),
        ];
        for (url, want) in cases {
            assert_eq!(forge_of(url), want, "{url}");
        }
    }
}
