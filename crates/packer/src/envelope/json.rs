//! The JSON envelope of SPEC §2 (the default), byte for byte.
//!
//! The texts here are cut where the count splits (see [`super`]): an entry
//! is stored from its `id` key on, and the `{"` before the key belongs to
//! what precedes it (`{"documents":[{"`, `,{"`, `],"omitted":[{"`).

use super::{Cut, ExcerptLabel, Layout, OMITTED_REASON, Shape};
use crate::fixture::Document;

/// Compact JSON (SPEC §2), the default.
pub(super) struct Json;

impl Layout for Json {
    fn name(&self) -> &'static str {
        "json"
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
    /// its opening `{"`), with an `excerpt` key after `content` for an excerpt;
    /// `"path":PATH` instead of the url for a path, and neither for a path
    /// equal to the id.
    fn document(
        &self,
        document: &Document,
        content: &str,
        excerpt: Option<&ExcerptLabel>,
    ) -> String {
        let mut out = String::with_capacity(content.len() + document.id.len() * 2 + 64);
        out.push_str(r#"id":"#);
        push_string(&mut out, &document.id);
        push_source(&mut out, document);
        out.push_str(r#","format":""#);
        out.push_str(document.format.name());
        out.push_str(r#"","content":"#);
        push_string(&mut out, content);
        if let Some(excerpt) = excerpt {
            out.push_str(r#","excerpt":{"query":"#);
            push_string(&mut out, &excerpt.query);
            out.push_str(r#","lines":"#);
            push_string(&mut out, &excerpt.lines);
            out.push_str(r#","ofChars":"#);
            out.push_str(&excerpt.of_chars.to_string());
            out.push('}');
        }
        out.push('}');
        out
    }

    /// `id":ID,"url":URL,"reason":REASON}` (the entry after its opening
    /// `{"`; the source as in a document's entry).
    fn omitted(&self, document: &Document) -> String {
        let mut out = String::with_capacity(document.id.len() * 2 + 64);
        out.push_str(r#"id":"#);
        push_string(&mut out, &document.id);
        push_source(&mut out, document);
        out.push_str(r#","reason":""#);
        out.push_str(OMITTED_REASON);
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
