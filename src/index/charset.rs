//! A page's bytes as text, read as a browser would read them. Text that is valid UTF-8 is UTF-8
//! (what every generator writes, and what GitHub Pages and most hosts declare in their
//! `Content-Type`, which a browser obeys before anything in the page); else a UTF-16 byte-order
//! mark decides; else the charset the page declares in its first 1,024 bytes (`<meta
//! charset="iso-8859-1">`, `<meta http-equiv="Content-Type" content="text/html;
//! charset=windows-1252">`, `<?xml … encoding="…"?>`), with the names and meanings of the WHATWG
//! Encoding Standard (`latin1` and `iso-8859-1` are windows-1252); else windows-1252, which
//! browsers assume for an undeclared page in English or a Western European language. Older
//! hand-written course pages, word-processor exports and Markdown saved by Windows editors are
//! Latin-1: their accented letters used to be replaced by U+FFFD.

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE, UTF_8, WINDOWS_1252};

/// How many bytes a page's charset declaration is looked for in (the HTML standard's prescan).
const PRESCAN: usize = 1024;

/// A page's bytes as text, and how they were read when they were not UTF-8 (for the build
/// report: the page was read, but the author may want to know how).
pub fn decode(bytes: Vec<u8>) -> (String, Option<String>) {
    // UTF-8 (nearly every page) becomes the text without a copy.
    let bytes = match String::from_utf8(bytes) {
        Ok(text) => return (text, None),
        Err(e) => e.into_bytes(),
    };
    let bytes = bytes.as_slice();
    if let Some((encoding, bom)) = Encoding::for_bom(bytes) {
        return read_as(encoding, &bytes[bom..], "its byte-order mark says");
    }
    let declared = declared(&bytes[..bytes.len().min(PRESCAN)]);
    match declared
        .as_deref()
        .map(|l| (l, Encoding::for_label(l.as_bytes())))
    {
        // A page that says UTF-8 (or UTF-16, which a browser then reads as UTF-8) and is not.
        Some((_, Some(e))) if e == UTF_8 || e == UTF_16LE || e == UTF_16BE => (
            String::from_utf8_lossy(bytes).into_owned(),
            Some("not valid UTF-8, as it says it is: unreadable bytes replaced".into()),
        ),
        Some((_, Some(e))) => read_as(e, bytes, "the charset it declares"),
        Some((label, None)) => read_as(
            WINDOWS_1252,
            bytes,
            &format!("not UTF-8, and its charset {label:?} is none a browser knows"),
        ),
        None => read_as(
            WINDOWS_1252,
            bytes,
            "not UTF-8 and no charset declared: what browsers assume",
        ),
    }
}

fn read_as(encoding: &'static Encoding, bytes: &[u8], why: &str) -> (String, Option<String>) {
    let (text, bad) = encoding.decode_without_bom_handling(bytes);
    let name = encoding.name();
    let note = if bad {
        format!("read as {name} ({why}); bytes that are not {name} replaced")
    } else {
        format!("read as {name} ({why})")
    };
    (text.into_owned(), Some(note))
}

/// The charset label a page's head declares: a `<meta>` tag's `charset` (either form), or an
/// XML declaration's `encoding`.
fn declared(head: &[u8]) -> Option<String> {
    let lower = head.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = find(&lower[at..], b"<meta") {
        let tag = &lower[at + i..];
        let end = tag.iter().position(|&b| b == b'>').unwrap_or(tag.len());
        if let Some(label) = value_after(&tag[..end], b"charset") {
            return Some(label);
        }
        at += i + end.max(1);
    }
    let xml = lower.strip_prefix(b"<?xml")?;
    let end = xml.iter().position(|&b| b == b'>').unwrap_or(xml.len());
    value_after(&xml[..end], b"encoding")
}

/// The value of `name=` in `tag` (quoted or not, spaces around `=` allowed).
fn value_after(tag: &[u8], name: &[u8]) -> Option<String> {
    let i = find(tag, name)?;
    let rest = tag[i + name.len()..].trim_ascii_start();
    let rest = rest.strip_prefix(b"=")?.trim_ascii_start();
    let rest = rest
        .strip_prefix(b"\"")
        .or_else(|| rest.strip_prefix(b"'"))
        .unwrap_or(rest);
    let end = rest
        .iter()
        .position(|&b| matches!(b, b'"' | b'\'' | b';' | b'>' | b'/') || b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    let label = std::str::from_utf8(&rest[..end]).ok()?;
    (!label.is_empty()).then(|| label.to_string())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `é`, `à` and `œ` in windows-1252 (0xe9, 0xe0, 0x9c), which are not UTF-8.
    const LATIN: &[u8] = b"Le r\xe9sultat \xe0 l'\x9cil nu";

    fn page(head: &str, body: &[u8]) -> Vec<u8> {
        [
            format!("<!doctype html><html><head>{head}</head><body><p>").as_bytes(),
            body,
        ]
        .concat()
    }

    #[test]
    fn utf8_is_read_as_it_is_even_where_the_page_says_otherwise() {
        let bytes = page("<meta charset=\"iso-8859-1\">", "Le résultat".as_bytes());
        let (text, note) = decode(bytes);
        assert!(text.ends_with("Le résultat") && note.is_none());
        // A byte-order mark stays where it is, as it always was.
        assert_eq!(decode("\u{feff}# Piles".into()).0, "\u{feff}# Piles");
    }

    #[test]
    fn a_page_that_is_not_utf8_is_read_in_the_charset_it_declares_or_windows_1252() {
        // (declaration, the text's bytes, how it is read)
        const LATIN9: &[u8] = b"Le r\xe9sultat \xe0 l'\xbdil nu";
        let declared = "(the charset it declares)";
        let cases: &[(&str, &[u8], String)] = &[
            (
                "<meta charset=\"ISO-8859-1\">",
                LATIN,
                format!("windows-1252 {declared}"),
            ),
            (
                "<META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=latin1\">",
                LATIN,
                format!("windows-1252 {declared}"),
            ),
            (
                "<meta charset=iso-8859-15 />",
                LATIN9,
                format!("ISO-8859-15 {declared}"),
            ),
            (
                "<meta name=viewport content=\"width=device-width\">",
                LATIN,
                "windows-1252 (not UTF-8 and no charset declared: what browsers assume)".into(),
            ),
            (
                "<meta charset=\"klingon\">",
                LATIN,
                "windows-1252 (not UTF-8, and its charset \"klingon\" is none a browser knows)"
                    .into(),
            ),
        ];
        for (head, body, how) in cases {
            let (text, note) = decode(page(head, body));
            assert!(text.ends_with("Le résultat à l'œil nu"), "{head}: {text}");
            assert_eq!(
                note.as_deref(),
                Some(format!("read as {how}").as_str()),
                "{head}"
            );
        }
        // Latin-9's own letters: 0xa4 is € in ISO-8859-15, ¤ in windows-1252.
        let (text, _) = decode(page("<meta charset=iso-8859-15>", b"5 \xa4"));
        assert!(text.ends_with("5 €"), "{text}");
        let xml = b"<?xml version='1.0' encoding='windows-1250'?>\n<p>\x8aKODA</p>";
        assert_eq!(
            decode(xml.to_vec()).0,
            "<?xml version='1.0' encoding='windows-1250'?>\n<p>ŠKODA</p>"
        );
    }

    #[test]
    fn a_page_that_says_utf8_and_is_not_keeps_its_text_with_replacements() {
        let (text, note) = decode(page("<meta charset=utf-8>", LATIN));
        assert!(
            text.ends_with("Le r\u{fffd}sultat \u{fffd} l'\u{fffd}il nu"),
            "{text}"
        );
        assert!(note.unwrap().contains("unreadable bytes replaced"));
    }

    #[test]
    fn utf16_with_its_byte_order_mark() {
        let le: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain("Arbre é".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(decode(le).0, "Arbre é");
    }
}
