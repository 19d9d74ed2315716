//! The payload's exact serialization in each layout (SPEC §2, §2.1), the
//! bounded omission note (SPEC §3.1), and the exact count of any envelope,
//! kept entry by entry so that packing never re-counts a growing envelope.
//!
//! One seam, three layouts: [`Envelope::Json`] (`json.rs`, the default),
//! [`Envelope::Xml`] (`xml.rs`) and [`Envelope::Markdown`] (`markdown.rs`).
//! Each is one file implementing the `Layout` trait — its name and
//! description, a `Shape` (its fixed texts), the two functions that write a
//! document's entry and an omitted document's entry, and where its entries
//! are cut for counting — and one line of the `LAYOUTS` registry; counting,
//! rendering, the omission cap and every front end's list of names are
//! shared.
//!
//! # The shape of every envelope
//!
//! ```text
//! no documents:  EMPTY[e]
//! documents:     OPEN entry JOIN entry JOIN ... entry ENDING[e]
//! then, with omission notes and some listed:
//!                omitted JOIN' omitted ... omitted (LIST_END | MORE_JOIN more(M))
//! or, with none listed but M not listed:  more(M)
//! ```
//!
//! where `e` says what follows the documents: nothing (no notes), an empty
//! note, a note with listed entries, or a note with only a count. The note
//! lists the first `N` omitted documents in input order (`N` is
//! `--note-omissions-max`) and `more(M)` counts the other `M`.
//!
//! # Why the count splits per entry
//!
//! tiktoken pre-tokenizes text with a regex, left to right, and counts each
//! piece on its own; so the count of a text is the sum over its pieces, and
//! a point where the text is always split lets the two sides be counted
//! apart. None of the split patterns (`cl100k_base`, `o200k_base`, and the
//! GPT-2 pattern of `p50k`/`r50k`) looks behind, and the only look-ahead is
//! one character (`\s+(?!\S)`).
//!
//! **JSON.** The envelope has such a point before every entry's `id` key:
//!
//! ```text
//! {"documents":[{"id":"a",...,"content":"...end."},{"id":"b",...}]}
//!               ^^^^                           ^^^^^^^^^^
//! ```
//!
//! Every entry ends with `}` (after a string's closing quote, or after the
//! digits of an excerpt's `ofChars` or an outline's `ofLines`). The piece holding that `}` is a run of
//! punctuation (no split alternative other than the punctuation run accepts a
//! quote or a brace followed by a brace), and a punctuation run stops only at
//! a letter, a digit or whitespace. What follows the entry is always
//! punctuation and then the letters of a key: `,{"` + `id`, `]}` and the end,
//! `],"` + `omitted`, or `],"` + `omittedMore`. So the run stops exactly
//! before that key, whatever the entry holds, and the pieces before the run
//! depend on nothing after the entry. Each JSON entry therefore keeps the
//! count of its pieces up to that final run, and the short run itself is
//! counted together with each thing that can follow the entry.
//!
//! **XML and Markdown.** Every cut is a non-blank character and one `\n`,
//! followed by a character that is neither whitespace nor `/` (`>\n` then
//! `<` in XML; `` `\n`` or `s\n` or a url's last character and `\n`, then `#`
//! or `-`, in Markdown). The piece holding that `\n` ends right after it in
//! every pattern, whatever follows or if nothing does: in `cl100k_base` and
//! `o200k_base` a punctuation run takes the newlines after it (`[\r\n]*`, or
//! `[\r\n/]*`, which is why `/` may not follow) and a letter or digit run
//! leaves the `\n` to `\s*[\r\n]+`; in the GPT-2 pattern the `\n` is a piece
//! of its own (`\s+` before a non-space, `\s+$` at the end). So
//! `count(A + B) == count(A) + count(B)` at every cut, and each entry is
//! counted alone. (A blank line at a cut would not do: `\n\n` at the end of
//! a text is one GPT-2 piece and before `#` two.) The one text that depends
//! on a document's position, XML's `index` number, is surrounded by `="` and
//! `" id`, punctuation runs that stop at a digit and at a space, so its digits
//! are pieces of their own and are counted apart ([`Envelopes::position_tokens`]).
//!
//! The count of any envelope is then a sum of per-entry numbers (see
//! [`Tally`]), exact by construction; packing also recounts the final
//! payload once and treats a difference as an internal error, and the tests
//! check every arrangement they build against an independent tokenizer.
//!
//! The recount ([`Envelopes::recount`]) does not lean on the argument
//! above: it splits the payload afresh, on every thread, and wherever the
//! payload's own split arrives at an entry's first byte, the entry's
//! remembered pieces stand for the payload's (a piece's tokens depend on
//! its bytes alone). Pieces whose split read nothing past the entry's
//! remembered bytes (all but the last one or two, with the built-in
//! encodings) are the payload's own pieces by the same reasoning and are
//! not split again; the pieces after them must have the remembered lengths;
//! every other piece (joins, tails, position numbers, the note) is counted.
//! See [`crate::tokens::Known`].

use std::str::FromStr;

use crate::fixture::Document;

mod counted;
mod entry;
mod json;
mod markdown;
mod tally;
mod xml;

pub use counted::Envelopes;
pub use entry::{Entries, Entry, EntryCounts, ExcerptLabel, Label, OutlineLabel, Written};
pub use tally::Tally;

/// The reason an omitted entry carries when its document does not fit.
pub const OMITTED_REASON: &str = "whole-document-does-not-fit";

/// Why a note lists a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Omission {
    /// It does not fit (in a window: not even alone).
    DoesNotFit,
    /// It is in another window (`--windows`).
    InAnotherWindow,
}

impl Omission {
    /// The reason's code in the JSON and XML notes.
    pub fn code(self) -> &'static str {
        match self {
            Omission::DoesNotFit => OMITTED_REASON,
            Omission::InAnotherWindow => "in-another-window",
        }
    }

    /// The reason in words (the Markdown notes of windows).
    pub fn words(self) -> &'static str {
        match self {
            Omission::DoesNotFit => "whole document does not fit",
            Omission::InAnotherWindow => "in another window",
        }
    }
}

/// How many omitted documents a note lists by default (SPEC §3.1).
pub const DEFAULT_NOTE_OMISSIONS_MAX: usize = 50;

/// The JSON envelope with no documents.
pub const EMPTY: &str = r#"{"documents":[]}"#;

/// One payload layout (SPEC §2, §2.1): its name, its fixed texts, how it
/// writes a document's entry and an omitted document's entry, and where
/// its entries are cut for counting (see the module documentation). Each
/// layout is one file of this folder; [`LAYOUTS`] lists them.
pub(crate) trait Layout: Sync {
    /// The name used on the command line, over MCP, in Python and in the
    /// output.
    fn name(&self) -> &'static str;
    /// One line for `--help`, the MCP schema and Python's documentation.
    fn description(&self) -> &'static str;
    /// The extension of a file holding a payload (`--out-dir`).
    fn extension(&self) -> &'static str;
    /// Where a window's label goes in the payload (a byte offset where
    /// the payload's split always has a boundary on both sides) and the
    /// label of window `index` of `count` (`window 2 of 5`, SPEC §3.2).
    fn window_label(&self, index: usize, count: usize) -> (usize, String);
    /// The fixed texts.
    fn shape(&self) -> &'static Shape;
    /// The fixed texts of a window's envelope (`--windows`), whose note
    /// lists the documents that are not in it.
    fn windows_shape(&self) -> &'static Shape {
        self.shape()
    }
    /// The text after the last listed omitted entry when `more` are not
    /// listed.
    fn more(&self, more: usize) -> String;
    /// A document's entry as stored (without what [`Cut`] says precedes
    /// it): `content` is its own or a derived document's (an excerpt or an
    /// outline), with that document's label.
    /// The layout notes in `verbatim`, in order, the stretches of `content`
    /// it copies byte for byte (noting fewer only costs counting time).
    fn document(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        verbatim: &mut Vec<Verbatim>,
    ) -> String;
    /// An omitted document's entry in the note, listed for `omission`; in
    /// a window's note when `windows`.
    fn omitted(&self, document: &Document, omission: Omission, windows: bool) -> String;
    /// Where the count of an envelope splits between entries.
    fn cut(&self) -> Cut;
}

/// A stretch of a document's content that its entry holds byte for byte:
/// the content's own pieces there are the entry's (see
/// [`crate::tokens::Counter::record_verbatim`]), so the content's count
/// reuses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Verbatim {
    /// Where the stretch starts in the content.
    pub content: usize,
    /// Where it starts in the entry.
    pub entry: usize,
    /// Its length in bytes.
    pub len: usize,
}

impl Verbatim {
    /// Notes that `out` is about to receive `len` bytes of the content
    /// from `content` on.
    pub(crate) fn note(verbatim: &mut Vec<Verbatim>, out: &str, content: usize, len: usize) {
        if len > 0 {
            verbatim.push(Verbatim {
                content,
                entry: out.len(),
                len,
            });
        }
    }
}

/// Where a layout's entries are cut for counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Before the entry's final punctuation run, which is counted with
    /// what follows (JSON).
    FinalRun,
    /// After the `\n` that ends each entry. `position` is the text every
    /// document entry starts with before its 1-based position number, for
    /// a layout that writes one (XML).
    Newline {
        /// The text before the position number.
        position: Option<&'static str>,
    },
}

/// Every layout, in the order `--help` lists them; the first is the
/// default. A new layout is a file in this folder and a line here.
const LAYOUTS: &[&dyn Layout] = &[&json::Json, &xml::Xml, &markdown::Markdown];

/// The payload's layout (`--envelope`): one of [`Envelope::ALL`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Envelope(u8);

#[allow(non_upper_case_globals)]
impl Envelope {
    /// Compact JSON (SPEC §2), the default.
    pub const Json: Envelope = Envelope(0);
    /// `<document>` elements (SPEC §2.1).
    pub const Xml: Envelope = Envelope(1);
    /// A heading and a fenced block per document (SPEC §2.1).
    pub const Markdown: Envelope = Envelope(2);

    /// Every layout.
    pub const ALL: [Envelope; LAYOUTS.len()] = {
        let mut all = [Envelope(0); LAYOUTS.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = Envelope(i as u8);
            i += 1;
        }
        all
    };

    /// The names of [`Envelope::ALL`], in the same order.
    pub fn names() -> [&'static str; LAYOUTS.len()] {
        Envelope::ALL.map(Envelope::name)
    }

    /// The name used on the command line and in the output.
    pub fn name(self) -> &'static str {
        self.layout().name()
    }

    /// The extension of a file holding a payload in this layout.
    pub fn extension(self) -> &'static str {
        self.layout().extension()
    }

    /// Where window `index` of `count` puts its label, and the label.
    pub fn window_label(self, index: usize, count: usize) -> (usize, String) {
        self.layout().window_label(index, count)
    }

    /// One line that says what the layout looks like.
    pub fn description(self) -> &'static str {
        self.layout().description()
    }

    fn layout(self) -> &'static dyn Layout {
        LAYOUTS[usize::from(self.0)]
    }

    fn more(self, more: usize) -> String {
        self.layout().more(more)
    }

    fn cut(self) -> Cut {
        self.layout().cut()
    }

    /// The text before a document's position number, for a layout that
    /// writes one.
    fn position(self) -> Option<&'static str> {
        match self.cut() {
            Cut::Newline { position } => position,
            Cut::FinalRun => None,
        }
    }
}

impl std::fmt::Debug for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The name is not one of `json`, `xml`, `markdown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownEnvelope;

impl std::fmt::Display for UnknownEnvelope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unknown envelope; use json, xml or markdown")
    }
}

impl std::error::Error for UnknownEnvelope {}

impl FromStr for Envelope {
    type Err = UnknownEnvelope;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Envelope::ALL
            .into_iter()
            .find(|envelope| envelope.name() == name)
            .ok_or(UnknownEnvelope)
    }
}

/// A layout's fixed texts (see the module documentation).
pub(crate) struct Shape {
    /// Before the first document.
    open: &'static str,
    /// Between two documents.
    join: &'static str,
    /// After the last document, for each `Ending`.
    endings: [&'static str; 4],
    /// The envelope with no documents, up to the first omitted entry, for
    /// each [`Ending`].
    empties: [&'static str; 4],
    /// Between two omitted entries.
    omitted_join: &'static str,
    /// After the last omitted entry when every omitted document is listed.
    list_end: &'static str,
    /// After the last listed omitted entry when some are not listed (then
    /// comes the layout's `more(M)`).
    more_join: &'static str,
}

/// What follows the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Nothing: omissions are not noted.
    Plain = 0,
    /// A note that lists nothing.
    NoneOmitted = 1,
    /// A note whose first entry follows.
    Listed = 2,
    /// A note with only the count of documents not listed.
    MoreOnly = 3,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Format;
    use crate::tokens::{Counter, Encoding, Known};

    fn document(index: usize, id: &str, content: &str) -> Document {
        Document {
            index,
            id: id.into(),
            source: crate::fixture::Source::Url(format!("https://example.com/{index}")),
            format: if index.is_multiple_of(2) {
                Format::Markdown
            } else {
                Format::Text
            },
            content: content.into(),
            priority: 0,
            required: false,
        }
    }

    fn reference(encoding: Encoding, text: &str) -> usize {
        crate::tokens::tests::reference(encoding)
            .encode_ordinary(text)
            .len()
    }

    /// A document's content count, which reuses the pieces its entry
    /// shares with it, is the reference count of the content, in every
    /// layout and with junctions that change pieces at every stretch's edge
    /// (escapes, `</document_content`, spaces and newlines before them).
    #[test]
    fn content_counts_that_reuse_the_entrys_pieces_are_exact() {
        let mut contents: Vec<String> = [
            "fn main() {\n    let x = \"quoted  \";\n\t\ttabs and words   \n}\n",
            "plain words of text that run on for a while without any escape",
            "before </document_content> after, and spaces   </document_content",
            "trailing spaces and a backslash   \\   ",
            "\u{1}control\u{1f} \u{7f} é 日本語 \r\n\r\n  end",
            "```\ncode fence inside\n````\n",
        ]
        .map(String::from)
        .to_vec();
        for seed in 0..12 {
            contents.push(crate::tokens::tests::varied_text(seed, 600));
        }
        let mut skipped = 0;
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let counter = Counter::new(encoding);
            for envelope in Envelope::ALL {
                let entries = Entries::new(envelope, counter, Some(3));
                for (index, content) in contents.iter().enumerate() {
                    let document = document(index, &format!("d{index}"), content);
                    let (entry, tokens) = entries.document_and_count(&document);
                    assert_eq!(
                        tokens,
                        reference(encoding, content),
                        "{encoding} {envelope} {content:?}"
                    );
                    let (alone, skips) = entries.write(&document, content, None, true);
                    assert_eq!(alone.text, entry.text);
                    skipped += skips.len();
                }
            }
        }
        assert!(skipped > 100, "{skipped}");
    }

    #[test]
    fn serializes_the_exact_json_shape_and_escapes() {
        let doc = document(0, "a\"b", "line\n\ttab \u{1} \\ \u{7f} é \u{2028}");
        let layout = Envelopes::build(
            Counter::new(Encoding::Cl100kBase),
            Envelope::Json,
            &[doc],
            Some(50),
        );
        assert_eq!(
            layout.render(&[0]),
            "{\"documents\":[{\"id\":\"a\\\"b\",\"url\":\"https://example.com/0\",\"format\":\"markdown\",\"content\":\"line\\n\\ttab \\u0001 \\\\ \u{7f} é \u{2028}\"}],\"omitted\":[]}"
        );
        assert_eq!(
            layout.render(&[]),
            "{\"documents\":[],\"omitted\":[{\"id\":\"a\\\"b\",\"url\":\"https://example.com/0\",\"reason\":\"whole-document-does-not-fit\"}]}"
        );
        let label = Label::Excerpt(ExcerptLabel {
            query: "q".into(),
            lines: "1-2,5-9".into(),
            of_chars: 1234,
        });
        let doc = document(0, "a", "x");
        assert!(
            json::Json
                .document(&doc, "x", Some(&label), &mut Vec::new())
                .ends_with(
                    r#""content":"x","excerpt":{"query":"q","lines":"1-2,5-9","ofChars":1234}}"#
                )
        );
        let outline = Label::Outline(OutlineLabel {
            lines: "1-12,40".into(),
            of_lines: 41,
        });
        assert!(
            json::Json
                .document(&doc, "x", Some(&outline), &mut Vec::new())
                .ends_with(r#""content":"x","outline":{"lines":"1-12,40","ofLines":41}}"#)
        );
    }

    #[test]
    fn a_path_is_written_where_a_url_would_be_and_not_at_all_when_it_is_the_id() {
        use crate::fixture::Source;
        let mut same = document(0, "src/lib.rs", "fn f() {}");
        same.source = Source::Path("src/lib.rs".into());
        let mut other = document(1, "guide", "Read me.");
        other.source = Source::Path("docs/guide.md".into());
        let documents = [same, other];
        let expected = [
            (
                Envelope::Json,
                "{\"documents\":[{\"id\":\"src/lib.rs\",\"format\":\"markdown\",\"content\":\"fn f() {}\"},\
                 {\"id\":\"guide\",\"path\":\"docs/guide.md\",\"format\":\"text\",\"content\":\"Read me.\"}],\
                 \"omitted\":[]}",
                "{\"documents\":[],\"omitted\":[{\"id\":\"src/lib.rs\",\"reason\":\"whole-document-does-not-fit\"},\
                 {\"id\":\"guide\",\"path\":\"docs/guide.md\",\"reason\":\"whole-document-does-not-fit\"}]}",
            ),
            (
                Envelope::Xml,
                "<documents>\n\
                 <document index=\"1\" id=\"src/lib.rs\">\n<document_content>\nfn f() {}\n</document_content>\n</document>\n\
                 <document index=\"2\" id=\"guide\">\n<source>docs/guide.md</source>\n<document_content>\nRead me.\n</document_content>\n</document>\n\
                 </documents>\n<omitted_documents>\n</omitted_documents>",
                "<documents>\n</documents>\n<omitted_documents>\n\
                 <omitted id=\"src/lib.rs\" reason=\"whole-document-does-not-fit\"/>\n\
                 <omitted id=\"guide\" reason=\"whole-document-does-not-fit\">docs/guide.md</omitted>\n\
                 </omitted_documents>",
            ),
            (
                Envelope::Markdown,
                "# Documents\n## src/lib.rs\n```markdown\nfn f() {}\n```\n\
                 ## guide\nSource: docs/guide.md\n```text\nRead me.\n```\n\
                 # Omitted documents (whole document does not fit)\n(none)\n",
                "# Documents\n(none)\n# Omitted documents (whole document does not fit)\n\
                 - src/lib.rs\n- guide: docs/guide.md\n",
            ),
        ];
        for (envelope, all, none) in expected {
            let counter = Counter::new(Encoding::Cl100kBase);
            let layout = Envelopes::build(counter, envelope, &documents, Some(50));
            assert_eq!(layout.render(&[0, 1]), all, "{envelope}");
            assert_eq!(layout.render(&[]), none, "{envelope}");
            for order in [&[0, 1][..], &[1], &[0], &[]] {
                let text = layout.render(order);
                assert_eq!(
                    layout.total(order),
                    reference(Encoding::Cl100kBase, &text),
                    "{envelope} {order:?}"
                );
            }
        }
    }

    #[test]
    fn serializes_the_exact_xml_shape_and_escapes() {
        let documents = [
            document(0, "a\"<&>'", "x </document_content> y </document_contents"),
            document(1, "b", "plain"),
        ];
        let mut documents = documents.to_vec();
        documents[1].source =
            crate::fixture::Source::Url("https://example.com/?a=1&b=<2>\"".into());
        let layout = Envelopes::build(
            Counter::new(Encoding::Cl100kBase),
            Envelope::Xml,
            &documents,
            None,
        );
        assert_eq!(
            layout.render(&[1, 0]),
            "<documents>\n\
             <document index=\"1\" id=\"b\">\n<source>https://example.com/?a=1&amp;b=&lt;2&gt;\"</source>\n<document_content>\nplain\n</document_content>\n</document>\n\
             <document index=\"2\" id=\"a&quot;&lt;&amp;&gt;'\">\n<source>https://example.com/0</source>\n<document_content>\nx &lt;/document_content> y &lt;/document_contents\n</document_content>\n</document>\n\
             </documents>"
        );
        assert_eq!(layout.render(&[]), "<documents>\n</documents>");
        let notes = Envelopes::build(
            Counter::new(Encoding::Cl100kBase),
            Envelope::Xml,
            &documents,
            Some(1),
        );
        assert_eq!(
            notes.render(&[]),
            "<documents>\n</documents>\n<omitted_documents>\n\
             <omitted id=\"a&quot;&lt;&amp;&gt;'\" reason=\"whole-document-does-not-fit\">https://example.com/0</omitted>\n\
             <omitted_more count=\"1\"/>\n</omitted_documents>"
        );
        let label = Label::Excerpt(ExcerptLabel {
            query: "q \"x\" <y>".into(),
            lines: "1-2".into(),
            of_chars: 99,
        });
        assert!(xml::Xml.document(&documents[1], "e", Some(&label), &mut Vec::new()).starts_with(
            "\" id=\"b\" excerpt_query=\"q &quot;x&quot; &lt;y&gt;\" excerpt_lines=\"1-2\" excerpt_of_chars=\"99\">\n"
        ));
        let outline = Label::Outline(OutlineLabel {
            lines: "1-2,9".into(),
            of_lines: 30,
        });
        assert!(
            xml::Xml
                .document(&documents[1], "e", Some(&outline), &mut Vec::new())
                .starts_with("\" id=\"b\" outline_lines=\"1-2,9\" outline_of_lines=\"30\">\n")
        );
    }

    #[test]
    fn serializes_the_exact_markdown_shape() {
        let documents = [
            document(0, "src/a.rs", "fn a() {}\n// ```` fence"),
            document(1, "b", "plain"),
        ];
        let layout = Envelopes::build(
            Counter::new(Encoding::Cl100kBase),
            Envelope::Markdown,
            &documents,
            Some(0),
        );
        assert_eq!(
            layout.render(&[0]),
            "# Documents\n## src/a.rs\nSource: https://example.com/0\n`````markdown\nfn a() {}\n// ```` fence\n`````\n\
             # Omitted documents (whole document does not fit)\n- and 1 more\n"
        );
        let layout = Envelopes::build(
            Counter::new(Encoding::Cl100kBase),
            Envelope::Markdown,
            &documents,
            Some(5),
        );
        assert_eq!(
            layout.render(&[]),
            "# Documents\n(none)\n# Omitted documents (whole document does not fit)\n- src/a.rs: https://example.com/0\n- b: https://example.com/1\n"
        );
        assert_eq!(
            layout.render(&[0, 1]),
            "# Documents\n## src/a.rs\nSource: https://example.com/0\n`````markdown\nfn a() {}\n// ```` fence\n`````\n\
             ## b\nSource: https://example.com/1\n```text\nplain\n```\n\
             # Omitted documents (whole document does not fit)\n(none)\n"
        );
    }

    #[test]
    fn every_arrangement_counts_like_a_full_count() {
        let contents = [
            "ends in spaces   ",
            "ends in a backslash \\",
            "12345",
            "don'",
            "日本語",
            "quote \" and </document_content> and ``` fence",
            "x",
            "line\n\n",
            "  \u{3000}",
            "!!!",
            "/slash first\n",
            "\n\nnewlines first",
        ];
        let documents: Vec<Document> = contents
            .iter()
            .enumerate()
            .map(|(index, content)| document(index, &format!("d{index}"), content))
            .collect();
        let orders: [&[usize]; 6] = [
            &[],
            &[0],
            &[1, 0],
            &[9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
            &[3, 5, 6, 2],
            &[11, 10, 0],
        ];
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let counter = Counter::new(encoding);
            for envelope in Envelope::ALL {
                for notes in [None, Some(0), Some(1), Some(3), Some(50)] {
                    let layout = Envelopes::build(counter, envelope, &documents, notes);
                    for order in orders {
                        let (text, parts) = layout.render_parts(order, |_| None);
                        assert_eq!(
                            layout.total(order),
                            reference(encoding, &text),
                            "{encoding} {envelope} {notes:?} {order:?} {text}"
                        );
                        // The recount matches the payload's pieces with
                        // every entry's remembered ones (no fallback).
                        let spans: Vec<(usize, &Known)> = parts
                            .iter()
                            .map(|&(at, entry)| (at, &entry.known))
                            .collect();
                        assert_eq!(
                            counter.count_with_known(&text, &spans),
                            Some(reference(encoding, &text)),
                            "{encoding} {envelope} {notes:?} {order:?} {text}"
                        );
                        // Every document entry remembers its pieces.
                        assert!(parts.len() >= order.len());
                    }
                    let all: Vec<usize> = (0..documents.len()).collect();
                    assert_eq!(
                        layout.total(&all),
                        reference(encoding, &layout.render(&all))
                    );
                }
            }
        }
    }

    #[test]
    fn xml_position_numbers_are_counted_at_every_size() {
        // Enough documents that positions reach three and four digits.
        let documents: Vec<Document> = (0..1_100)
            .map(|index| document(index, &format!("d{index}"), "x"))
            .collect();
        let all: Vec<usize> = (0..documents.len()).collect();
        for encoding in [Encoding::Cl100kBase, Encoding::R50kBase] {
            let counter = Counter::new(encoding);
            let layout = Envelopes::build(counter, Envelope::Xml, &documents, Some(50));
            for size in [9, 10, 99, 100, 999, 1000, 1_100] {
                let order = &all[..size];
                assert_eq!(
                    layout.total(order),
                    reference(encoding, &layout.render(order)),
                    "{encoding} {size}"
                );
            }
        }
    }

    #[test]
    fn the_note_is_cut_at_its_cap_and_counts_the_rest() {
        let documents: Vec<Document> = (0..120)
            .map(|index| document(index, &format!("d{index}"), "some text"))
            .collect();
        let counter = Counter::new(Encoding::Cl100kBase);
        let layout = Envelopes::build(counter, Envelope::Json, &documents, Some(50));
        let text = layout.render(&[3, 60]);
        assert!(text.contains(r#"{"id":"d50","#));
        assert!(!text.contains(r#"{"id":"d51","#));
        assert!(text.ends_with(r#"],"omittedMore":68}"#), "{text}");
        let (_, parts) = layout.render_parts(&[3, 60], |_| None);
        assert_eq!(
            layout.recount(&text, &parts),
            reference(Encoding::Cl100kBase, &text)
        );
        // A tally filled one document at a time agrees with a full count at
        // every step, including when a listed document leaves the note.
        let mut tally = Tally::new(&layout);
        for index in [5, 119, 0, 50, 51, 52, 1] {
            let mut order: Vec<usize> = Vec::new();
            let with = tally.total_with(index);
            tally.push(index);
            assert_eq!(with, tally.total());
            order.extend(
                [5, 119, 0, 50, 51, 52, 1]
                    .iter()
                    .take_while(|&&i| i != index),
            );
            order.push(index);
            assert_eq!(
                tally.total(),
                reference(Encoding::Cl100kBase, &layout.render(&order))
            );
        }
    }
}
