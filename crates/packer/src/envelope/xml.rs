//! The XML envelope of SPEC §2.1: Anthropic's long-context layout, one
//! `<document index="{i}" id="...">` per selected document.
//!
//! Every cut between the texts here is `>\n` followed by `<` (see
//! [`super`]), and the only text that depends on a document's position is
//! its `index` number, which the pre-tokenizer always splits off on its own
//! (`="` before it and `"` after it are punctuation runs that stop at a
//! digit and at a space), so its tokens are counted apart.

use super::{Cut, Label, Layout, Omission, Shape, Verbatim};
use crate::fixture::Document;

/// `<document>` elements (SPEC §2.1).
pub(super) struct Xml;

impl Layout for Xml {
    fn name(&self) -> &'static str {
        "xml"
    }

    fn extension(&self) -> &'static str {
        "xml"
    }

    fn window_label(&self, index: usize, count: usize) -> (usize, String) {
        (
            "<documents".len(),
            format!(" window=\"{index} of {count}\""),
        )
    }

    fn description(&self) -> &'static str {
        "<document> elements with <source> and <document_content>"
    }

    fn shape(&self) -> &'static Shape {
        &SHAPE
    }

    fn cut(&self) -> Cut {
        Cut::Newline {
            position: Some(ENTRY_START),
        }
    }

    /// The count of omitted documents not listed, then the end of the list.
    fn more(&self, more: usize) -> String {
        format!("<omitted_more count=\"{more}\"/>\n</omitted_documents>")
    }

    /// A document entry after its position number: from the `"` closing
    /// `index` to `</document>\n`. The content is as given, except that
    /// `</document_content` is written `&lt;/document_content`.
    fn document(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        verbatim: &mut Vec<Verbatim>,
    ) -> String {
        let mut out = String::with_capacity(content.len() + document.id.len() * 2 + 128);
        out.push_str("\" id=\"");
        push_attr(&mut out, &document.id);
        out.push('"');
        match label {
            Some(Label::Excerpt(excerpt)) => {
                out.push_str(" excerpt_query=\"");
                push_attr(&mut out, &excerpt.query);
                out.push_str("\" excerpt_lines=\"");
                push_attr(&mut out, &excerpt.lines);
                out.push_str("\" excerpt_of_chars=\"");
                out.push_str(&excerpt.of_chars.to_string());
                out.push('"');
            }
            Some(Label::Outline(outline)) => {
                out.push_str(" outline_lines=\"");
                push_attr(&mut out, &outline.lines);
                out.push_str("\" outline_of_lines=\"");
                out.push_str(&outline.of_lines.to_string());
                out.push('"');
            }
            None => {}
        }
        out.push_str(">\n");
        if let Some(source) = document.shown_source() {
            out.push_str("<source>");
            push_text(&mut out, source.as_str());
            out.push_str("</source>\n");
        }
        out.push_str("<document_content>\n");
        let mut rest = content;
        while let Some(at) = rest.find("</document_content") {
            Verbatim::note(verbatim, &out, content.len() - rest.len(), at);
            out.push_str(&rest[..at]);
            out.push_str("&lt;");
            rest = &rest[at + 1..];
        }
        Verbatim::note(verbatim, &out, content.len() - rest.len(), rest.len());
        out.push_str(rest);
        out.push_str("\n</document_content>\n</document>\n");
        out
    }

    /// `<omitted id="{ATTR(id)}" reason="{REASON}">{TEXT(url)}</omitted>\n`,
    /// or `<omitted id="{ATTR(id)}" reason="{REASON}"/>\n` for a path equal
    /// to the id.
    fn omitted(&self, document: &Document, omission: Omission, _windows: bool) -> String {
        let mut out = String::with_capacity(document.id.len() * 2 + 64);
        out.push_str("<omitted id=\"");
        push_attr(&mut out, &document.id);
        out.push_str("\" reason=\"");
        out.push_str(omission.code());
        match document.shown_source() {
            Some(source) => {
                out.push_str("\">");
                push_text(&mut out, source.as_str());
                out.push_str("</omitted>\n");
            }
            None => out.push_str("\"/>\n"),
        }
        out
    }
}

/// The XML envelope's fixed texts.
const SHAPE: Shape = Shape {
    open: "<documents>\n",
    join: "",
    endings: [
        "</documents>",
        "</documents>\n<omitted_documents>\n</omitted_documents>",
        "</documents>\n<omitted_documents>\n",
        "</documents>\n<omitted_documents>\n",
    ],
    empties: [
        "<documents>\n</documents>",
        "<documents>\n</documents>\n<omitted_documents>\n</omitted_documents>",
        "<documents>\n</documents>\n<omitted_documents>\n",
        "<documents>\n</documents>\n<omitted_documents>\n",
    ],
    omitted_join: "",
    list_end: "</omitted_documents>",
    more_join: "",
};

/// What every document entry starts with, before its position number.
const ENTRY_START: &str = "<document index=\"";

/// `ATTR(s)`: `&` `<` `>` `"` as entities, nothing else.
fn push_attr(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

/// `TEXT(s)`: `&` `<` `>` as entities, nothing else.
fn push_text(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}
