//! The payload's exact serialization (SPEC §2) and its exact count, kept
//! document by document so that packing never re-counts a growing envelope.
//!
//! # Why the count splits per entry
//!
//! tiktoken pre-tokenizes text with a regex, left to right, and counts each
//! piece on its own; so the count of a text is the sum over its pieces, and
//! a point where the text is always split lets the two sides be counted
//! apart. The envelope has such a point before every entry's `id` key:
//!
//! ```text
//! {"documents":[{"id":"a",...,"content":"...end."},{"id":"b",...}]}
//!               ^^^^                           ^^^^^^^^^^
//! ```
//!
//! Every entry ends with `}` (after a string's closing quote, or after the
//! digits of an excerpt's `ofChars`). The piece holding that `}` is a run of
//! punctuation (no split alternative other than the punctuation run accepts a
//! quote or a brace followed by a brace), and a punctuation run stops only at
//! a letter, a digit or whitespace. What follows the entry is always
//! punctuation and then the letters of a key: `,{"` + `id`, `]}` and the end,
//! or `],"` + `omitted`. So the run stops exactly before that key, whatever
//! the entry holds, and the pieces before the run depend on nothing after the
//! entry. No alternative looks behind, so the pieces after the key depend on
//! nothing before it.
//!
//! Each [`Entry`] therefore keeps the count of its pieces up to that final
//! run (its `stable` count), and the short run itself, which is counted
//! together with what follows the entry in the envelope being measured. The
//! count of any envelope is then a sum of per-entry numbers (see
//! [`Layout::total`]), exact by construction; the tests check it against an
//! independent tokenizer on every arrangement they build.

use std::collections::BTreeSet;

use crate::fixture::Document;
use crate::tokens::Counter;

/// The envelope with no documents.
pub const EMPTY: &str = r#"{"documents":[]}"#;
/// The envelope with no documents and an empty `omitted` list.
const EMPTY_NONE_OMITTED: &str = r#"{"documents":[],"omitted":[]}"#;
/// The start of an envelope with no documents and some omitted ones, up to
/// the first omitted entry's `id`.
const EMPTY_TO_OMITTED: &str = r#"{"documents":[],"omitted":[{""#;
/// The start of an envelope with documents, up to the first `id`.
const OPEN: &str = r#"{"documents":[{""#;
/// What follows an entry that has a next entry in the same list.
const NEXT: &str = r#",{""#;
/// What follows the last entry of the last list.
const END: &str = "]}";
/// What follows the last document when some are omitted.
const TO_OMITTED: &str = r#"],"omitted":[{""#;
/// What follows the last document when the `omitted` list is empty.
const NONE_OMITTED: &str = r#"],"omitted":[]}"#;

/// The reason every omitted entry carries.
pub const OMITTED_REASON: &str = "whole-document-does-not-fit";

/// A JSON string literal, escaped exactly like `serde_json::to_string` and
/// JavaScript's `JSON.stringify`.
fn push_string(out: &mut String, value: &str) {
    // Serializing a &str into a String cannot fail.
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

/// The text of a focused excerpt's provenance: `"excerpt":{...}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptLabel {
    /// The query the excerpt was focused on.
    pub query: String,
    /// 1-based inclusive line ranges of the original, e.g. `12-40,88-101`.
    pub lines: String,
    /// The original's length in characters.
    pub of_chars: usize,
}

/// `{"id":ID,"url":URL,"format":FORMAT,"content":CONTENT}`, with an
/// `excerpt` key after `content` when the content is an excerpt.
pub fn document_json(document: &Document, content: &str, excerpt: Option<&ExcerptLabel>) -> String {
    let mut out = String::with_capacity(content.len() + document.url.len() + 64);
    out.push_str(r#"{"id":"#);
    push_string(&mut out, &document.id);
    out.push_str(r#","url":"#);
    push_string(&mut out, &document.url);
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

/// `{"id":ID,"url":URL,"reason":REASON}`.
pub fn omitted_json(document: &Document) -> String {
    let mut out = String::with_capacity(document.id.len() + document.url.len() + 64);
    out.push_str(r#"{"id":"#);
    push_string(&mut out, &document.id);
    out.push_str(r#","url":"#);
    push_string(&mut out, &document.url);
    out.push_str(r#","reason":""#);
    out.push_str(OMITTED_REASON);
    out.push_str(r#""}"#);
    out
}

/// One entry of an envelope list, with its exact counts.
#[derive(Debug, Clone)]
pub struct Entry {
    json: String,
    /// Tokens of the entry's pieces before its final punctuation run
    /// (counted from its `id` key on).
    stable: usize,
    /// Where the final punctuation run starts in `json`.
    tail_start: usize,
    /// The entry's tokens when another entry follows it.
    next: usize,
    /// The entry's tokens when it is the last of its list.
    last: usize,
    /// For a document entry with omissions noted: its tokens as the last
    /// document when the `omitted` list is empty.
    none_omitted: usize,
}

/// An entry's token counts for each thing that can follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCounts {
    /// When another entry of its list follows.
    pub next: usize,
    /// When it is the last of its list (for documents with omissions
    /// noted: when some documents are omitted).
    pub last: usize,
    /// For documents with omissions noted: last, with nothing omitted.
    pub none_omitted: usize,
}

impl Entry {
    /// Counts a document's entry (`json` from [`document_json`]);
    /// `notes_omissions` says whether an `omitted` list follows the documents.
    pub fn document(json: String, counter: &Counter, notes_omissions: bool) -> Entry {
        let last_ending = if notes_omissions { TO_OMITTED } else { END };
        let mut entry = Entry::new(json, counter, last_ending);
        if notes_omissions {
            entry.none_omitted = entry.followed_by(counter, NONE_OMITTED);
        }
        entry
    }

    /// Counts an omitted entry (`json` from [`omitted_json`]).
    pub fn omitted(json: String, counter: &Counter) -> Entry {
        Entry::new(json, counter, END)
    }

    /// Counts an entry whose last-of-list ending is `last_ending`.
    fn new(json: String, counter: &Counter, last_ending: &str) -> Entry {
        // The entry from its `id` key on, followed by a representative
        // ending; the final `}` is the last byte before the ending.
        let body = &json[2..];
        let mut text = String::with_capacity(body.len() + NEXT.len());
        text.push_str(body);
        text.push_str(NEXT);
        let (stable, start) = counter.count_before_piece_at(&text, body.len() - 1);
        // `text[start..]` is already the tail followed by `NEXT`.
        let next = stable + counter.count(&text[start..]);
        let mut entry = Entry {
            stable,
            tail_start: start + 2,
            json,
            next,
            last: 0,
            none_omitted: 0,
        };
        entry.last = entry.followed_by(counter, last_ending);
        entry
    }

    /// The entry's tokens from its `id` key to the end of `ending`.
    fn followed_by(&self, counter: &Counter, ending: &str) -> usize {
        let tail = &self.json[self.tail_start..];
        let mut text = String::with_capacity(tail.len() + ending.len());
        text.push_str(tail);
        text.push_str(ending);
        self.stable + counter.count(&text)
    }

    /// The entry's JSON text.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The entry's counts.
    pub fn counts(&self) -> EntryCounts {
        EntryCounts {
            next: self.next,
            last: self.last,
            none_omitted: self.none_omitted,
        }
    }
}

/// Every entry an envelope can be built from, counted once.
#[derive(Debug, Clone)]
pub struct Layout {
    counter: Counter,
    documents: Vec<Entry>,
    /// The omitted entries, when omissions are noted.
    omitted: Option<Vec<Entry>>,
    open: usize,
    empty: usize,
    empty_none_omitted: usize,
}

impl Layout {
    /// A layout of document entries and, when omissions are noted, one
    /// omitted entry per document (both in input order, counted with
    /// `counter` by [`Entry::document`] and [`Entry::omitted`]).
    pub fn new(counter: Counter, documents: Vec<Entry>, omitted: Option<Vec<Entry>>) -> Layout {
        let empty = counter.count(if omitted.is_some() {
            EMPTY_TO_OMITTED
        } else {
            EMPTY
        });
        Layout {
            counter,
            documents,
            omitted,
            open: counter.count(OPEN),
            empty,
            empty_none_omitted: counter.count(EMPTY_NONE_OMITTED),
        }
    }

    /// Document `index`'s entry counts.
    pub fn counts(&self, index: usize) -> EntryCounts {
        self.documents[index].counts()
    }

    /// The layout of `documents` as whole documents (counted one after the
    /// other; packing counts them in parallel).
    pub fn of_documents(counter: Counter, documents: &[Document], notes_omissions: bool) -> Layout {
        let entries = documents
            .iter()
            .map(|d| {
                Entry::document(
                    document_json(d, &d.content, None),
                    &counter,
                    notes_omissions,
                )
            })
            .collect();
        let omitted = notes_omissions.then(|| {
            documents
                .iter()
                .map(|d| Entry::omitted(omitted_json(d), &counter))
                .collect()
        });
        Layout::new(counter, entries, omitted)
    }

    /// The counter the layout counts with.
    pub fn counter(&self) -> Counter {
        self.counter
    }

    /// How many documents the layout holds.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the layout holds no documents.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Whether omitted documents are listed in the envelope.
    pub fn notes_omissions(&self) -> bool {
        self.omitted.is_some()
    }

    /// The tokens document `index` adds when another document follows it:
    /// the weight of a document in a sum that ends elsewhere.
    pub fn next_tokens(&self, index: usize) -> usize {
        self.documents[index].next
    }

    /// The tokens of `{"documents":[{"`, before the first document.
    pub fn open_tokens(&self) -> usize {
        self.open
    }

    /// The tokens document `index` adds as the last document (without
    /// omissions: followed by `]}`).
    pub fn last_tokens(&self, index: usize) -> usize {
        self.documents[index].last
    }

    /// The exact count of the envelope whose documents are `order` (in that
    /// order) and, with omissions noted, whose omitted list is every other
    /// document in input order.
    pub fn total(&self, order: &[usize]) -> usize {
        let mut tally = Tally::new(self);
        for &index in order {
            tally.push(index);
        }
        tally.total()
    }

    /// The envelope's text for documents `order`.
    pub fn render(&self, order: &[usize]) -> String {
        self.render_with(order, |_| None)
    }

    /// The envelope's text for documents `order`, where `replace` may give
    /// another entry's JSON for a document (a focused excerpt).
    pub fn render_with<'e>(
        &'e self,
        order: &[usize],
        replace: impl Fn(usize) -> Option<&'e str>,
    ) -> String {
        let mut out = String::new();
        out.push_str(r#"{"documents":["#);
        for (position, &index) in order.iter().enumerate() {
            if position > 0 {
                out.push(',');
            }
            out.push_str(replace(index).unwrap_or(&self.documents[index].json));
        }
        out.push(']');
        if let Some(omitted) = &self.omitted {
            out.push_str(r#","omitted":["#);
            let chosen: BTreeSet<usize> = order.iter().copied().collect();
            let mut first = true;
            for (index, entry) in omitted.iter().enumerate() {
                if chosen.contains(&index) {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&entry.json);
            }
            out.push(']');
        }
        out.push('}');
        out
    }
}

/// The running count of an envelope being filled: documents are added at
/// the end of the `documents` list (and leave the `omitted` list).
#[derive(Debug, Clone)]
pub struct Tally<'a> {
    layout: &'a Layout,
    /// The last document's counts.
    last: Option<EntryCounts>,
    /// Sum of `next` over the documents in the envelope.
    next_sum: usize,
    /// Documents still omitted (only with omissions noted).
    omitted: BTreeSet<usize>,
    /// Sum of `next` over the omitted entries.
    omitted_next_sum: usize,
}

impl<'a> Tally<'a> {
    /// The envelope with no documents (every document omitted, when
    /// omissions are noted).
    pub fn new(layout: &'a Layout) -> Tally<'a> {
        let (omitted, omitted_next_sum) = match &layout.omitted {
            Some(entries) => (
                (0..entries.len()).collect(),
                entries.iter().map(|e| e.next).sum(),
            ),
            None => (BTreeSet::new(), 0),
        };
        Tally {
            layout,
            last: None,
            next_sum: 0,
            omitted,
            omitted_next_sum,
        }
    }

    /// The exact count of the current envelope.
    pub fn total(&self) -> usize {
        self.total_of(
            self.last,
            self.next_sum,
            self.omitted.last().copied(),
            self.omitted_next_sum,
        )
    }

    /// The exact count of the envelope with `index` added at the end.
    pub fn total_with(&self, index: usize) -> usize {
        self.total_with_at(index, true)
    }

    /// The exact count of the envelope with `index` added: at the end when
    /// `at_end`, else anywhere before the current last document (the count
    /// does not depend on where).
    pub fn total_with_at(&self, index: usize, at_end: bool) -> usize {
        self.total_with_counts(index, self.layout.counts(index), at_end)
    }

    /// [`Tally::total_with_at`] for document `index` given as another entry
    /// with `counts` (a focused excerpt of it).
    pub fn total_with_counts(&self, index: usize, counts: EntryCounts, at_end: bool) -> usize {
        let (omitted_last, omitted_next_sum) = self.without_omitted(index);
        self.total_of(
            if at_end { Some(counts) } else { self.last },
            self.next_sum + counts.next,
            omitted_last,
            omitted_next_sum,
        )
    }

    /// Adds `index` at the end of the documents.
    pub fn push(&mut self, index: usize) {
        self.push_counts(index, self.layout.counts(index), true);
    }

    /// Adds document `index`, given as an entry with `counts`: at the end
    /// when `at_end`, else before the current last document.
    pub fn push_counts(&mut self, index: usize, counts: EntryCounts, at_end: bool) {
        let (_, omitted_next_sum) = self.without_omitted(index);
        self.omitted.remove(&index);
        self.omitted_next_sum = omitted_next_sum;
        self.next_sum += counts.next;
        if at_end || self.last.is_none() {
            self.last = Some(counts);
        }
    }

    /// The omitted list's last entry and `next` sum once `index` leaves it.
    fn without_omitted(&self, index: usize) -> (Option<usize>, usize) {
        match &self.layout.omitted {
            Some(entries) if self.omitted.contains(&index) => {
                let last = if self.omitted.last() == Some(&index) {
                    self.omitted.range(..index).next_back().copied()
                } else {
                    self.omitted.last().copied()
                };
                (last, self.omitted_next_sum - entries[index].next)
            }
            _ => (self.omitted.last().copied(), self.omitted_next_sum),
        }
    }

    fn total_of(
        &self,
        last: Option<EntryCounts>,
        next_sum: usize,
        omitted_last: Option<usize>,
        omitted_next_sum: usize,
    ) -> usize {
        let layout = self.layout;
        let documents = match (last, &layout.omitted, omitted_last) {
            (None, Some(_), None) => layout.empty_none_omitted,
            (None, _, _) => layout.empty,
            (Some(last), Some(_), None) => layout.open + next_sum - last.next + last.none_omitted,
            (Some(last), _, _) => layout.open + next_sum - last.next + last.last,
        };
        let omitted = match (&layout.omitted, omitted_last) {
            (Some(entries), Some(last)) => {
                omitted_next_sum - entries[last].next + entries[last].last
            }
            _ => 0,
        };
        documents + omitted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Format;
    use crate::tokens::Encoding;

    fn document(index: usize, id: &str, content: &str) -> Document {
        Document {
            index,
            id: id.into(),
            url: format!("https://example.com/{index}"),
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

    #[test]
    fn serializes_the_exact_shape_and_escapes() {
        let doc = document(0, "a\"b", "line\n\ttab \u{1} \\ \u{7f} é \u{2028}");
        assert_eq!(
            document_json(&doc, &doc.content, None),
            "{\"id\":\"a\\\"b\",\"url\":\"https://example.com/0\",\"format\":\"markdown\",\"content\":\"line\\n\\ttab \\u0001 \\\\ \u{7f} é \u{2028}\"}"
        );
        assert_eq!(
            omitted_json(&doc),
            "{\"id\":\"a\\\"b\",\"url\":\"https://example.com/0\",\"reason\":\"whole-document-does-not-fit\"}"
        );
        let label = ExcerptLabel {
            query: "q".into(),
            lines: "1-2,5-9".into(),
            of_chars: 1234,
        };
        assert!(document_json(&doc, "x", Some(&label)).ends_with(
            r#""content":"x","excerpt":{"query":"q","lines":"1-2,5-9","ofChars":1234}}"#
        ));
    }

    fn reference(encoding: Encoding, text: &str) -> usize {
        crate::tokens::tests::reference(encoding)
            .encode_ordinary(text)
            .len()
    }

    #[test]
    fn every_arrangement_counts_like_a_full_count() {
        let contents = [
            "ends in spaces   ",
            "ends in a backslash \\",
            "12345",
            "don'",
            "日本語",
            "quote \"",
            "x",
            "line\n\n",
            "  \u{3000}",
            "!!!",
        ];
        let documents: Vec<Document> = contents
            .iter()
            .enumerate()
            .map(|(index, content)| document(index, &format!("d{index}"), content))
            .collect();
        let orders: [&[usize]; 5] = [
            &[],
            &[0],
            &[1, 0],
            &[9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
            &[3, 5, 6, 2],
        ];
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let counter = Counter::new(encoding);
            for notes in [false, true] {
                let layout = Layout::of_documents(counter, &documents, notes);
                for order in orders {
                    let text = layout.render(order);
                    assert_eq!(
                        layout.total(order),
                        reference(encoding, &text),
                        "{encoding} {order:?} {text}"
                    );
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
