//! The JSON envelope of SPEC §2 (the default), byte for byte.
//!
//! The texts here are cut where the count splits (see [`super`]): an entry
//! is stored from its `id` key on, and the `{"` before the key belongs to
//! what precedes it (`{"documents":[{"`, `,{"`, `],"omitted":[{"`).

use super::{Cut, Label, Layout, Omission, Shape, Verbatim};
use crate::fixture::Document;

/// Compact JSON (SPEC §2), the default.
pub(super) struct Json;

impl Layout for Json {
    fn name(&self) -> &'static str {
        "json"
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn window_label(&self, index: usize, count: usize) -> (usize, String) {
        ("{".len(), format!("\"window\":\"{index} of {count}\","))
    }

    fn description(&self) -> &'static str {
        "Compact JSON (the default)"
    }

    fn shape(&self) -> &'static Shape {
        &SHAPE
    }

    fn cut(&self) -> Cut {
        Cut::FinalRun
    }

    /// The text after the last listed omitted entry when `more` are not listed.
    fn more(&self, more: usize) -> String {
        format!(r#"omittedMore":{more}}}"#)
    }

    /// `id":ID,"url":URL,"format":FORMAT,"content":CONTENT}` (the entry after
    /// its opening `{"`), with an `excerpt` key after `content` for an excerpt
    /// and an `outline` key for an outline;
    /// `"path":PATH` instead of the url for a path, and neither for a path
    /// equal to the id.
    fn document(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        verbatim: &mut Vec<Verbatim>,
    ) -> String {
        // Room for the keys, the source, a few escapes (a line break is
        // one) and the join the entry is counted with, so that the text is
        // rarely moved while it is written and counted.
        let source = document
            .shown_source()
            .map_or(0, |source| source.as_str().len());
        let mut out = String::with_capacity(
            content.len() + content.len() / 16 + 2 * (document.id.len() + source) + 128,
        );
        out.push_str(r#"id":"#);
        push_string(&mut out, &document.id);
        push_source(&mut out, document);
        out.push_str(r#","format":""#);
        out.push_str(document.format.name());
        out.push_str(r#"","content":"#);
        push_content(&mut out, content, verbatim);
        match label {
            Some(Label::Excerpt(excerpt)) => {
                out.push_str(r#","excerpt":{"query":"#);
                push_string(&mut out, &excerpt.query);
                out.push_str(r#","lines":"#);
                push_string(&mut out, &excerpt.lines);
                out.push_str(r#","ofChars":"#);
                out.push_str(&excerpt.of_chars.to_string());
                out.push('}');
            }
            Some(Label::Outline(outline)) => {
                out.push_str(r#","outline":{"lines":"#);
                push_string(&mut out, &outline.lines);
                out.push_str(r#","ofLines":"#);
                out.push_str(&outline.of_lines.to_string());
                out.push('}');
            }
            None => {}
        }
        out.push('}');
        out
    }

    /// `id":ID,"url":URL,"reason":REASON}` (the entry after its opening
    /// `{"`; the source as in a document's entry).
    fn omitted(&self, document: &Document, omission: Omission, _windows: bool) -> String {
        let mut out = String::with_capacity(document.id.len() * 2 + 64);
        out.push_str(r#"id":"#);
        push_string(&mut out, &document.id);
        push_source(&mut out, document);
        out.push_str(r#","reason":""#);
        out.push_str(omission.code());
        out.push_str(r#""}"#);
        out
    }
}

/// The JSON envelope's fixed texts.
const SHAPE: Shape = Shape {
    open: r#"{"documents":[{""#,
    join: r#",{""#,
    endings: [
        "]}",
        r#"],"omitted":[]}"#,
        r#"],"omitted":[{""#,
        r#"],"omitted":[],""#,
    ],
    empties: [
        r#"{"documents":[]}"#,
        r#"{"documents":[],"omitted":[]}"#,
        r#"{"documents":[],"omitted":[{""#,
        r#"{"documents":[],"omitted":[],""#,
    ],
    omitted_join: r#",{""#,
    list_end: "]}",
    more_join: r#"],""#,
};

/// `,"url":URL` or `,"path":PATH`, or nothing for a path equal to the id.
fn push_source(out: &mut String, document: &Document) {
    if let Some(source) = document.shown_source() {
        out.push_str(",\"");
        out.push_str(source.field());
        out.push_str("\":");
        push_string(out, source.as_str());
    }
}

/// A JSON string literal, escaped exactly like `serde_json::to_string` and
/// JavaScript's `JSON.stringify`.
pub(super) fn push_string(out: &mut String, value: &str) {
    // Serializing a &str into a String cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

/// [`push_string`] for a document's content, noting the stretches copied
/// unescaped. Escapes like `serde_json`: `"` and `\\` with a backslash,
/// the control characters with a short escape where JSON has one and
/// `\u00xx` (lowercase hexadecimal) otherwise, nothing else.
fn push_content(out: &mut String, content: &str, verbatim: &mut Vec<Verbatim>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(content.len() + 2);
    out.push('"');
    // Whether a byte is escaped: `"`, `\\` and the control characters.
    const ESCAPED: [bool; 256] = {
        let mut escaped = [false; 256];
        let mut byte = 0;
        while byte < 0x20 {
            escaped[byte] = true;
            byte += 1;
        }
        escaped[b'"' as usize] = true;
        escaped[b'\\' as usize] = true;
        escaped
    };
    let bytes = content.as_bytes();
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        at = may_escape(bytes, at);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        if !ESCAPED[usize::from(byte)] {
            at += 1;
            continue;
        }
        let escape = match byte {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => "",
        };
        Verbatim::note(verbatim, out, copied, at - copied);
        out.push_str(&content[copied..at]);
        if escape.is_empty() {
            out.push_str("\\u00");
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        } else {
            out.push_str(escape);
        }
        at += 1;
        copied = at;
    }
    Verbatim::note(verbatim, out, copied, content.len() - copied);
    out.push_str(&content[copied..]);
    out.push('"');
}

/// The first byte from `at` on that may be escaped: eight bytes at a time,
/// a word's lowest byte that is below `0x20`, `"` or `\\` (the test for
/// each byte of a word is exact up to its first match, which is all that
/// is used), then byte by byte for the last few; the caller looks at the
/// byte found.
fn may_escape(bytes: &[u8], mut at: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    // A byte of `x` is zero: `(x - 1) & !x` has its high bit set there.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x;
    while let Some(word) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        let quote = zero(word ^ (ONES * u64::from(b'"')));
        let backslash = zero(word ^ (ONES * u64::from(b'\\')));
        let found = (control | quote | backslash) & HIGH;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The content is escaped exactly as `serde_json` escapes a string, and
    /// every noted stretch is the content's bytes.
    #[test]
    fn content_is_escaped_like_serde_json_and_stretches_are_copies() {
        let mut samples: Vec<String> = (0u8..=0x7f).map(|b| char::from(b).to_string()).collect();
        samples.extend(
            [
                "",
                "plain",
                "line one\nline \"two\"\t\\ end\r\n",
                "\u{0}\u{1f}\u{7f}é日本\u{2028}",
                "\"\"\"",
                "trailing\\",
            ]
            .map(String::from),
        );
        // Each escaped byte, and bytes on either side of the ones tested
        // for (`0x1f`, `0x20`, `!`, `#`, `[`, `]`, `0x7f`, a multi-byte
        // character), at every offset of a text longer than a word.
        for special in [
            "\u{0}", "\u{1f}", "\n", "\"", "\\", " ", "!", "#", "[", "]", "\u{7f}", "é",
        ] {
            for at in 0..20 {
                let mut text = "abcdefghijklmnopqrstuvwx".to_owned();
                text.insert_str(at, special);
                samples.push(text.clone());
                text.insert(at / 2, '\t');
                samples.push(text);
            }
        }
        for content in &samples {
            let mut out = String::from("x");
            let mut verbatim = Vec::new();
            push_content(&mut out, content, &mut verbatim);
            let mut expected = String::from("x");
            push_string(&mut expected, content);
            assert_eq!(out, expected, "{content:?}");
            for stretch in &verbatim {
                assert!(stretch.len > 0);
                assert_eq!(
                    &out[stretch.entry..stretch.entry + stretch.len],
                    &content[stretch.content..stretch.content + stretch.len]
                );
            }
        }
    }
}
