//! The Markdown envelope (SPEC §2.1): a heading per document with its id,
//! its url on the next line, and its content verbatim in a backtick fence
//! longer than any backtick run inside it.
//!
//! The exact bytes (README "The payload" shows an example):
//!
//! ```text
//! # Documents\n
//! ## {id}\n   (an outline: ## {id} (outline: lines {lines} of {N})\n)
//! Source: {url}\n
//! Excerpt: lines {lines} of {N} characters, for the query {JSON(Q)}\n   (excerpts only)
//! {fence}{format}\n
//! {content}\n
//! {fence}\n
//! ... one such entry per selected document, in payload order ...
//! ```
//!
//! `{fence}` is as many backticks as the longest run of backticks in the
//! content plus one, and at least three. With no documents the envelope is
//! `# Documents\n(none)\n`. Omission notes follow as
//! `# Omitted documents (whole document does not fit)\n`, then one
//! `- {id}: {url}\n` per document (or `(none)\n`), and `- and {M} more\n`
//! when the list is cut (SPEC §3.1). Ids have no control characters and urls
//! no whitespace, so each stays on its line.
//!
//! Every cut between these texts is a non-blank character and one `\n`,
//! followed by `#` or `-` (see [`super`]): no blank line sits at a cut,
//! because a run of newlines is split differently when it ends the text.

use super::{Cut, Label, Layout, Omission, Shape, Verbatim};
use crate::fixture::Document;

/// A heading and a fenced block per document (SPEC §2.1).
pub(super) struct Markdown;

impl Layout for Markdown {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn extension(&self) -> &'static str {
        "md"
    }

    fn window_label(&self, index: usize, count: usize) -> (usize, String) {
        ("# Documents".len(), format!(" (window {index} of {count})"))
    }

    fn description(&self) -> &'static str {
        "A heading and a fenced block per document"
    }

    fn shape(&self) -> &'static Shape {
        &SHAPE
    }

    fn cut(&self) -> Cut {
        Cut::Newline { position: None }
    }

    /// The line counting the omitted documents not listed.
    fn more(&self, more: usize) -> String {
        format!("- and {more} more\n")
    }

    /// A document's entry, from its heading to its closing fence line.
    fn document(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        verbatim: &mut Vec<Verbatim>,
    ) -> String {
        let fence = "`".repeat(fence(content));
        let mut out = String::with_capacity(content.len() + document.id.len() * 2 + 96);
        out.push_str("## ");
        out.push_str(&document.id);
        if let Some(Label::Outline(outline)) = label {
            out.push_str(" (outline: lines ");
            out.push_str(&outline.lines);
            out.push_str(" of ");
            out.push_str(&outline.of_lines.to_string());
            out.push(')');
        }
        out.push('\n');
        if let Some(source) = document.shown_source() {
            out.push_str("Source: ");
            out.push_str(source.as_str());
            out.push('\n');
        }
        if let Some(Label::Excerpt(excerpt)) = label {
            out.push_str("Excerpt: lines ");
            out.push_str(&excerpt.lines);
            out.push_str(" of ");
            out.push_str(&excerpt.of_chars.to_string());
            out.push_str(" characters, for the query ");
            super::json::push_string(&mut out, &excerpt.query);
            out.push('\n');
        }
        out.push_str(&fence);
        out.push_str(document.format.name());
        out.push('\n');
        Verbatim::note(verbatim, &out, 0, content.len());
        out.push_str(content);
        out.push('\n');
        out.push_str(&fence);
        out.push('\n');
        out
    }

    /// `- {id}: {url}\n`, or `- {id}\n` for a path equal to the id; in a
    /// window's note, the reason in words follows in parentheses:
    /// `- {id}: {url} (in another window)\n`.
    fn omitted(&self, document: &Document, omission: Omission, windows: bool) -> String {
        let mut out = format!("- {}", document.id);
        if let Some(source) = document.shown_source() {
            out.push_str(": ");
            out.push_str(source.as_str());
        }
        if windows {
            out.push_str(" (");
            out.push_str(omission.words());
            out.push(')');
        }
        out.push('\n');
        out
    }

    fn windows_shape(&self) -> &'static Shape {
        &WINDOWS_SHAPE
    }
}

/// The heading of the omission notes.
const NOTES: &str = "# Omitted documents (whole document does not fit)\n";

/// The Markdown envelope's fixed texts.
const SHAPE: Shape = Shape {
    open: "# Documents\n",
    join: "",
    endings: [
        "",
        "# Omitted documents (whole document does not fit)\n(none)\n",
        NOTES,
        NOTES,
    ],
    empties: [
        "# Documents\n(none)\n",
        "# Documents\n(none)\n# Omitted documents (whole document does not fit)\n(none)\n",
        "# Documents\n(none)\n# Omitted documents (whole document does not fit)\n",
        "# Documents\n(none)\n# Omitted documents (whole document does not fit)\n",
    ],
    omitted_join: "",
    list_end: "",
    more_join: "",
};

/// The heading of a window's note (`--windows`).
const WINDOWS_NOTES: &str = "# Not in this window\n";

/// The Markdown envelope's fixed texts in a window (`--windows`): its note
/// lists the documents that are not in it, each with its reason.
const WINDOWS_SHAPE: Shape = Shape {
    open: "# Documents\n",
    join: "",
    endings: [
        "",
        "# Not in this window\n(none)\n",
        WINDOWS_NOTES,
        WINDOWS_NOTES,
    ],
    empties: [
        "# Documents\n(none)\n",
        "# Documents\n(none)\n# Not in this window\n(none)\n",
        "# Documents\n(none)\n# Not in this window\n",
        "# Documents\n(none)\n# Not in this window\n",
    ],
    omitted_join: "",
    list_end: "",
    more_join: "",
};

/// The fence for `content`: one backtick more than its longest run, and at
/// least three.
fn fence(content: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for b in content.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    (longest + 1).max(3)
}

#[cfg(test)]
mod tests {
    use super::fence;

    #[test]
    fn the_fence_outruns_every_backtick_run_inside() {
        assert_eq!(fence("no backticks"), 3);
        assert_eq!(fence("`code` and ``more``"), 3);
        assert_eq!(fence("```rust\nfn x() {}\n```"), 4);
        assert_eq!(fence("a ````` b ` c"), 6);
    }
}
