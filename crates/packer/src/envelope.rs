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
use crate::tokens::{Counter, Known, Shared, Skip};

mod json;
mod markdown;
mod xml;

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

/// The provenance of a focused excerpt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptLabel {
    /// The query the excerpt was focused on.
    pub query: String,
    /// 1-based inclusive line ranges of the original, e.g. `12-40,88-101`.
    pub lines: String,
    /// The original's length in characters.
    pub of_chars: usize,
}

/// The outline a derived document is (SPEC §2.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineLabel {
    /// 1-based inclusive ranges of the kept lines, e.g. `1-12,40-41`.
    pub lines: String,
    /// The file's line count.
    pub of_lines: usize,
}

/// What a derived document is, for its label in the payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Label {
    /// A focused excerpt (SPEC §2).
    Excerpt(ExcerptLabel),
    /// An outline (SPEC §2.3).
    Outline(OutlineLabel),
}

/// One entry of an envelope list, with its exact counts.
#[derive(Debug, Clone)]
pub struct Entry {
    text: String,
    counts: EntryCounts,
    /// The pieces counted from the entry's first byte, for the payload's
    /// recount ([`Envelopes::recount`]).
    known: Known,
}

/// An entry's token counts for each thing that can follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCounts {
    /// When another entry of its list follows (joined).
    pub next: usize,
    /// For a document: as the last document, for each `Ending`. For an
    /// omitted entry: `[last of the list, last listed before the count]`.
    ends: [usize; 4],
}

impl Entry {
    /// The entry's stored text (see [`Envelope`]'s layouts).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The entry's counts.
    pub fn counts(&self) -> EntryCounts {
        self.counts
    }

    /// The pieces counted from the entry's first byte (none when the
    /// counter cannot say).
    pub fn known(&self) -> &Known {
        &self.known
    }
}

/// Writes and counts the entries of one envelope: the layout, the counter
/// and whether (and how far) omissions are noted. Cheap to copy and safe to
/// share between threads.
#[derive(Debug, Clone, Copy)]
pub struct Entries {
    envelope: Envelope,
    counter: Counter,
    /// With omission notes: how many omitted documents are listed at most.
    note_max: Option<usize>,
    /// Whether the entries are a window's (`--windows`).
    windows: bool,
    /// Tokens of each ending and of the omitted list's two endings, for the
    /// layouts whose entries are counted alone.
    ending_tokens: [usize; 4],
    list_end_tokens: [usize; 2],
}

impl Entries {
    /// Entries in `envelope`, counted with `counter`; `note_max` is `Some`
    /// (the cap on listed documents) when omissions are noted.
    pub fn new(envelope: Envelope, counter: Counter, note_max: Option<usize>) -> Entries {
        Entries::with_shape(envelope, counter, note_max, false)
    }

    /// Entries of windows (`--windows`): with omission notes, each window's
    /// note lists the documents that are not in it, in the layout's
    /// windows shape, and documents are counted for every ending (a
    /// window's count is also reckoned without its note).
    pub fn for_windows(envelope: Envelope, counter: Counter, note_max: Option<usize>) -> Entries {
        Entries::with_shape(envelope, counter, note_max, true)
    }

    fn with_shape(
        envelope: Envelope,
        counter: Counter,
        note_max: Option<usize>,
        windows: bool,
    ) -> Entries {
        let mut entries = Entries {
            envelope,
            counter,
            note_max,
            windows,
            ending_tokens: [0; 4],
            list_end_tokens: [0; 2],
        };
        let shape = entries.shape();
        entries.ending_tokens = shape.endings.map(|text| counter.count(text));
        entries.list_end_tokens = [shape.list_end, shape.more_join].map(|text| counter.count(text));
        entries
    }

    /// The fixed texts these entries are written among.
    fn shape(&self) -> &'static Shape {
        let layout = self.envelope.layout();
        if self.windows {
            layout.windows_shape()
        } else {
            layout.shape()
        }
    }

    /// The layout.
    pub fn envelope(&self) -> Envelope {
        self.envelope
    }

    /// The counter.
    pub fn counter(&self) -> Counter {
        self.counter
    }

    /// With omission notes: how many omitted documents are listed at most.
    pub fn note_max(&self) -> Option<usize> {
        self.note_max
    }

    /// A document's entry: `content` (its own or a derived document's)
    /// and, for a derived document, its label.
    pub fn document(&self, document: &Document, content: &str, label: Option<&Label>) -> Entry {
        self.write(document, content, label, false).0
    }

    /// A document's entry with its own content, and the content's count
    /// alone (its `contentTokens`): the pieces the entry shares with the
    /// content byte for byte are not split a second time.
    pub fn document_and_count(&self, document: &Document) -> (Entry, usize) {
        let content = &document.content;
        let (entry, skips) = self.write(document, content, None, true);
        let tokens = self.counter.count_skipping(content, &skips);
        (entry, tokens)
    }

    /// A document's entry and, when `share`, the pieces its content is
    /// sure to have (see [`Counter::record_shared`]).
    fn write(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        share: bool,
    ) -> (Entry, Vec<Skip>) {
        let mut verbatim = Vec::new();
        let mut text = self
            .envelope
            .layout()
            .document(document, content, label, &mut verbatim);
        // Where the stretches lie in the text the entry is recorded in.
        let shared = |shift: usize| -> Vec<Shared> {
            if !share {
                return Vec::new();
            }
            verbatim
                .iter()
                .map(|v| Shared {
                    here: shift + v.entry,
                    there: v.content,
                    len: v.len,
                })
                .collect()
        };
        let endings: &[Ending] = match (self.note_max, self.windows) {
            (Some(_), true) => &[
                Ending::Plain,
                Ending::NoneOmitted,
                Ending::Listed,
                Ending::MoreOnly,
            ],
            (Some(_), false) => &[Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly],
            (None, _) => &[Ending::Plain],
        };
        let shape = self.shape();
        let mut ends = [0; 4];
        let (next, known, skips) = match self.envelope.cut() {
            Cut::FinalRun => {
                let (split, skips) =
                    JsonSplit::new(&mut text, &self.counter, shape.join, &shared(0));
                for &ending in endings {
                    ends[ending as usize] =
                        split.followed_by(&text, &self.counter, shape.endings[ending as usize]);
                }
                (split.next, split.known, skips)
            }
            Cut::Newline { position } => {
                let (alone, known, skips) = match position {
                    // Counted at position 1; `Envelopes::position_tokens`
                    // adds what other positions cost beyond that.
                    Some(start) => {
                        let mut full = String::with_capacity(text.len() + 20);
                        full.push_str(start);
                        full.push('1');
                        let from = full.len();
                        full.push_str(&text);
                        match self
                            .counter
                            .record_shared(&full, from, usize::MAX, &shared(from))
                        {
                            Some((before, known, skips)) => (before + known.tokens(), known, skips),
                            None => (self.counter.count(&full), Known::default(), Vec::new()),
                        }
                    }
                    None => match self.counter.record_shared(&text, 0, usize::MAX, &shared(0)) {
                        Some((_, known, skips)) => (known.tokens(), known, skips),
                        None => (self.counter.count(&text), Known::default(), Vec::new()),
                    },
                };
                for &ending in endings {
                    ends[ending as usize] = alone + self.ending_tokens[ending as usize];
                }
                (alone, known, skips)
            }
        };
        let entry = Entry {
            text,
            counts: EntryCounts { next, ends },
            known,
        };
        (entry, skips)
    }

    /// An omitted document's entry in the note (it does not fit).
    pub fn omitted(&self, document: &Document) -> Entry {
        self.omitted_because(document, Omission::DoesNotFit)
    }

    /// A document's entry in the note, listed for `omission`.
    pub fn omitted_because(&self, document: &Document, omission: Omission) -> Entry {
        let mut text = self
            .envelope
            .layout()
            .omitted(document, omission, self.windows);
        let shape = self.shape();
        let (next, ends, known) = match self.envelope.cut() {
            Cut::FinalRun => {
                let (split, _) = JsonSplit::new(&mut text, &self.counter, shape.omitted_join, &[]);
                let ends = [shape.list_end, shape.more_join]
                    .map(|ending| split.followed_by(&text, &self.counter, ending));
                (split.next, ends, split.known)
            }
            Cut::Newline { .. } => {
                let (alone, known) = match self.counter.record(&text, 0, usize::MAX) {
                    Some((_, known)) => (known.tokens(), known),
                    None => (self.counter.count(&text), Known::default()),
                };
                (alone, self.list_end_tokens.map(|end| alone + end), known)
            }
        };
        Entry {
            text,
            counts: EntryCounts {
                next,
                ends: [ends[0], ends[1], 0, 0],
            },
            known,
        }
    }
}

/// A JSON entry's count up to its final punctuation run, and where that run
/// starts (see the module documentation).
struct JsonSplit {
    stable: usize,
    tail_start: usize,
    next: usize,
    /// The pieces before the tail.
    known: Known,
}

impl JsonSplit {
    /// The split of `text` followed by `join`, and the pieces the `shared`
    /// stretches give another text (see [`Counter::record_shared`]).
    /// `text` is followed by `join` while it is counted, and given back
    /// as it was (so that the entry is not copied).
    fn new(
        text: &mut String,
        counter: &Counter,
        join: &str,
        shared: &[Shared],
    ) -> (JsonSplit, Vec<Skip>) {
        let len = text.len();
        text.push_str(join);
        let joined = text.as_str();
        // The final `}` is the last byte of the entry.
        let (stable, tail_start, known, skips) =
            match counter.record_shared(joined, 0, len - 1, shared) {
                Some((_, known, skips)) => (known.tokens(), known.len(), known, skips),
                None => {
                    let (stable, tail_start) = counter.count_before_piece_at(joined, len - 1);
                    (stable, tail_start, Known::default(), Vec::new())
                }
            };
        // `joined[tail_start..]` is already the tail followed by the join.
        let next = stable + counter.count(&joined[tail_start..]);
        text.truncate(len);
        let split = JsonSplit {
            stable,
            tail_start,
            next,
            known,
        };
        (split, skips)
    }

    fn followed_by(&self, text: &str, counter: &Counter, ending: &str) -> usize {
        let tail = &text[self.tail_start..];
        let mut joined = String::with_capacity(tail.len() + ending.len());
        joined.push_str(tail);
        joined.push_str(ending);
        self.stable + counter.count(&joined)
    }
}

/// Every entry an envelope can be built from, counted once.
#[derive(Debug, Clone)]
pub struct Envelopes {
    entries: Entries,
    documents: Vec<Entry>,
    /// The omitted entries, when omissions are noted.
    omitted: Option<Vec<Entry>>,
    open: usize,
    empties: [usize; 4],
    /// XML: `positions[k]` is what the position numbers `1..=k` cost beyond
    /// `1` each; `None` when that is zero for every `k` (then every
    /// envelope's count is a plain sum of per-entry numbers).
    positions: Option<Vec<usize>>,
}

impl Envelopes {
    /// How the entries are made, the documents' entries and the omitted
    /// ones, given back.
    pub(crate) fn into_parts(self) -> (Entries, Vec<Entry>, Option<Vec<Entry>>) {
        (self.entries, self.documents, self.omitted)
    }

    /// A layout of document entries and, when omissions are noted, one
    /// omitted entry per document (both in input order, made by `entries`).
    pub fn new(entries: Entries, documents: Vec<Entry>, omitted: Option<Vec<Entry>>) -> Envelopes {
        let counter = entries.counter;
        let shape = entries.shape();
        let positions = entries
            .envelope
            .position()
            .map(|_| {
                let one = counter.count("1");
                let mut sums = Vec::with_capacity(documents.len() + 1);
                sums.push(0);
                let mut sum = 0;
                for position in 1..=documents.len() {
                    sum += counter.count(&position.to_string()) - one;
                    sums.push(sum);
                }
                sums
            })
            .filter(|sums| sums.last().is_some_and(|&last| last > 0));
        Envelopes {
            documents,
            omitted,
            open: counter.count(shape.open),
            empties: shape.empties.map(|text| counter.count(text)),
            positions,
            entries,
        }
    }

    /// The layout of `documents` as whole documents in `envelope` (counted
    /// one after the other; packing counts them in parallel), with omission
    /// notes listing at most `note_max` documents when it is `Some`.
    pub fn build(
        counter: Counter,
        envelope: Envelope,
        documents: &[Document],
        note_max: Option<usize>,
    ) -> Envelopes {
        let entries = Entries::new(envelope, counter, note_max);
        let documents_entries = documents
            .iter()
            .map(|d| entries.document(d, &d.content, None))
            .collect();
        let omitted = note_max.map(|_| documents.iter().map(|d| entries.omitted(d)).collect());
        Envelopes::new(entries, documents_entries, omitted)
    }

    /// The JSON layout of `documents` as whole documents, with every
    /// omitted document listed when `notes_omissions`.
    pub fn of_documents(
        counter: Counter,
        documents: &[Document],
        notes_omissions: bool,
    ) -> Envelopes {
        Envelopes::build(
            counter,
            Envelope::Json,
            documents,
            notes_omissions.then_some(usize::MAX),
        )
    }

    /// Document `index`'s entry counts.
    pub fn counts(&self, index: usize) -> EntryCounts {
        self.documents[index].counts
    }

    /// How this layout's entries are written and counted (for excerpts).
    pub fn entries(&self) -> Entries {
        self.entries
    }

    /// The counter the layout counts with.
    pub fn counter(&self) -> Counter {
        self.entries.counter
    }

    /// The layout's envelope.
    pub fn envelope(&self) -> Envelope {
        self.entries.envelope
    }

    /// How many documents the layout holds.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the layout holds no documents.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Whether every envelope of these entries counts as the sum of its
    /// parts with this counter's added tokens: no added token's text can
    /// run across the edge of any text an envelope is made of (its fixed
    /// texts, position numbers, the note's count and every entry), nor
    /// take what is beside it (see
    /// [`Counter::added_token_may_cross`]). An added token inside one
    /// text is counted with it (the counter then counts that text whole).
    /// Always true without added tokens (the built-in encodings).
    pub fn added_tokens_stay_inside(&self) -> bool {
        let counter = self.entries.counter;
        let envelope = self.entries.envelope;
        let shape = self.entries.shape();
        let fixed = [
            shape.open,
            shape.join,
            shape.omitted_join,
            shape.list_end,
            shape.more_join,
            // Any number: a digit at its end stands for all of them.
            "0",
        ]
        .into_iter()
        .chain(shape.endings)
        .chain(shape.empties)
        .chain(envelope.position())
        .all(|text| !counter.added_token_may_cross(text));
        fixed
            && !counter.added_token_may_cross(&envelope.more(0))
            && self
                .documents
                .iter()
                .chain(self.omitted.iter().flatten())
                .all(|entry| !counter.added_token_may_cross(&entry.text))
    }

    /// Whether omitted documents are listed in the envelope.
    pub fn notes_omissions(&self) -> bool {
        self.omitted.is_some()
    }

    /// Whether the count of every envelope without notes is
    /// `open_tokens + Σ next_tokens - next_tokens(last) + last_tokens(last)`
    /// over its documents, whatever their number (false only for XML when
    /// some position numbers cost more tokens than `1`).
    pub fn additive(&self) -> bool {
        self.positions.is_none()
    }

    /// What the position numbers `1..=documents` cost beyond one `1` each
    /// (XML; zero for the other layouts).
    pub fn position_tokens(&self, documents: usize) -> usize {
        self.positions.as_ref().map_or(0, |sums| sums[documents])
    }

    /// The tokens document `index` adds when another document follows it:
    /// the weight of a document in a sum that ends elsewhere.
    pub fn next_tokens(&self, index: usize) -> usize {
        self.documents[index].counts.next
    }

    /// The tokens before the first document (`{"documents":[{"` in JSON).
    pub fn open_tokens(&self) -> usize {
        self.open
    }

    /// The tokens document `index` adds as the last document, without
    /// omission notes (in JSON: followed by `]}`).
    pub fn last_tokens(&self, index: usize) -> usize {
        self.documents[index].counts.ends[Ending::Plain as usize]
    }

    /// The exact count of the envelope whose documents are `order` (in that
    /// order) and, with omissions noted, whose note lists the other
    /// documents in input order.
    pub fn total(&self, order: &[usize]) -> usize {
        Tally::holding(self, order).total()
    }

    /// [`Envelopes::total`] as if omissions were not noted (a window's
    /// count before its note, `--windows`).
    pub fn total_without_notes(&self, order: &[usize]) -> usize {
        let mut tally = Tally::without_notes(self);
        for &index in order {
            tally.push(index);
        }
        tally.total()
    }

    /// The tokens document `index` adds as the last document before the
    /// note that ends the cheapest way (the least of its counts for each
    /// ending of a note); `last_tokens` without notes.
    pub fn least_last_tokens(&self, index: usize) -> usize {
        let ends = self.documents[index].counts.ends;
        match self.omitted {
            None => ends[Ending::Plain as usize],
            Some(_) => [Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly]
                .map(|ending| ends[ending as usize])
                .into_iter()
                .min()
                .expect("three endings"),
        }
    }

    /// The note's part of a window's count at most, whatever the window
    /// holds (`--windows`): what the last document's ending adds over its
    /// plain one, plus the largest `N` listed entries with the costliest
    /// ending and the costliest count of those not listed. Zero without
    /// notes.
    pub fn note_bound(&self) -> usize {
        let Some(omitted) = &self.omitted else {
            return 0;
        };
        let plain = Ending::Plain as usize;
        let endings = [Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly];
        let ending = self
            .documents
            .iter()
            .flat_map(|entry| {
                endings
                    .map(|e| entry.counts.ends[e as usize].saturating_sub(entry.counts.ends[plain]))
            })
            .chain(endings.map(|e| self.empties[e as usize].saturating_sub(self.empties[plain])))
            .max()
            .unwrap_or(0);
        let mut nexts: Vec<usize> = omitted.iter().map(|entry| entry.counts.next).collect();
        nexts.sort_unstable_by(|a, b| b.cmp(a));
        let shown = self.entries.note_max.unwrap_or(0).min(nexts.len());
        let listed: usize = nexts[..shown].iter().sum();
        let last = omitted
            .iter()
            .map(|entry| {
                entry.counts.ends[0]
                    .max(entry.counts.ends[1])
                    .saturating_sub(entry.counts.next)
            })
            .max()
            .unwrap_or(0);
        let more = (0..=omitted.len().saturating_sub(shown))
            .map(|m| self.more_tokens(m))
            .max()
            .unwrap_or(0);
        ending + listed + last + more
    }

    /// The least a note that lists `listed` omitted documents (or as many
    /// as it may list, when fewer) can cost: the `listed − 1` smallest
    /// `next` counts and the cheapest last entry. Zero without notes or
    /// with nothing listed.
    pub fn least_note(&self, listed: usize) -> usize {
        let Some(omitted) = &self.omitted else {
            return 0;
        };
        let listed = listed.min(self.entries.note_max.unwrap_or(0));
        if listed == 0 {
            return 0;
        }
        let mut nexts: Vec<usize> = omitted.iter().map(|entry| entry.counts.next).collect();
        nexts.sort_unstable();
        let last = omitted
            .iter()
            .map(|entry| entry.counts.ends[0].min(entry.counts.ends[1]))
            .min()
            .unwrap_or(0);
        nexts[..listed - 1].iter().sum::<usize>() + last
    }

    /// The envelope's text for documents `order`.
    pub fn render(&self, order: &[usize]) -> String {
        self.render_with(order, |_| None)
    }

    /// The envelope's text for documents `order`, where `replace` may give
    /// another entry for a document (a focused excerpt).
    pub fn render_with<'e>(
        &'e self,
        order: &[usize],
        replace: impl Fn(usize) -> Option<&'e Entry>,
    ) -> String {
        self.render_parts(order, replace).0
    }

    /// The envelope's text, as [`Envelopes::render_with`] writes it, and
    /// where each entry with remembered pieces starts in it.
    pub fn render_parts<'e>(
        &'e self,
        order: &[usize],
        replace: impl Fn(usize) -> Option<&'e Entry>,
    ) -> (String, Vec<(usize, &'e Entry)>) {
        let mut parts = Vec::new();
        let mut part = |out: &String, entry: &'e Entry| {
            if !entry.known.is_empty() {
                parts.push((out.len(), entry));
            }
        };
        let shape = self.entries.shape();
        let listed: Vec<usize> = match &self.omitted {
            Some(_) => {
                let mut chosen = vec![false; self.documents.len()];
                for &index in order {
                    chosen[index] = true;
                }
                (0..self.documents.len()).filter(|&i| !chosen[i]).collect()
            }
            None => Vec::new(),
        };
        let note_max = self.entries.note_max.unwrap_or(0);
        let shown = listed.len().min(note_max);
        let more = listed.len() - shown;
        let ending = self.ending(shown, more);
        let mut out = String::new();
        if order.is_empty() {
            out.push_str(shape.empties[ending as usize]);
        } else {
            out.push_str(shape.open);
            for (position, &index) in order.iter().enumerate() {
                if position > 0 {
                    out.push_str(shape.join);
                }
                if let Some(start) = self.envelope().position() {
                    out.push_str(start);
                    out.push_str(&(position + 1).to_string());
                }
                let entry = replace(index).unwrap_or(&self.documents[index]);
                part(&out, entry);
                out.push_str(&entry.text);
            }
            out.push_str(shape.endings[ending as usize]);
        }
        if let Some(omitted) = &self.omitted {
            for (n, &index) in listed[..shown].iter().enumerate() {
                if n > 0 {
                    out.push_str(shape.omitted_join);
                }
                part(&out, &omitted[index]);
                out.push_str(&omitted[index].text);
            }
            if more > 0 {
                if shown > 0 {
                    out.push_str(shape.more_join);
                }
                out.push_str(&self.envelope().more(more));
            } else if shown > 0 {
                out.push_str(shape.list_end);
            }
        }
        (out, parts)
    }

    /// The exact count of `text`, a payload that [`Envelopes::render_parts`]
    /// wrote with `parts`, counted afresh: the text is split again up to
    /// each entry's first byte and after its settled pieces, and each
    /// entry's remembered pieces stand for the payload's own pieces where
    /// the split arrives at the entry's start and the bytes are the same;
    /// every other piece is counted. When anything fails to line up, the
    /// text is counted whole.
    pub fn recount(&self, text: &str, parts: &[(usize, &Entry)]) -> usize {
        let same_bytes = parts.iter().all(|&(at, entry)| {
            let len = entry.known.len();
            text.as_bytes().get(at..at + len) == Some(&entry.text.as_bytes()[..len])
        });
        let spans: Vec<(usize, &Known)> = parts.iter().map(|&(at, e)| (at, &e.known)).collect();
        let counter = self.entries.counter;
        same_bytes
            .then(|| counter.count_with_known(text, &spans))
            .flatten()
            .unwrap_or_else(|| counter.count(text))
    }

    /// The exact count of `text`, which holds a payload rendered by
    /// [`Envelopes::render_parts`] (with `parts`) from byte `at`: the
    /// entries' remembered pieces stand for theirs, as in
    /// [`Envelopes::recount`]. `None` when that does not apply; count
    /// `text` whole then.
    pub(crate) fn count_holding(
        &self,
        text: &str,
        at: usize,
        parts: &[(usize, &Entry)],
    ) -> Option<usize> {
        let same_bytes = parts.iter().all(|&(start, entry)| {
            let len = entry.known.len();
            text.as_bytes().get(at + start..at + start + len) == Some(&entry.text.as_bytes()[..len])
        });
        if !same_bytes {
            return None;
        }
        // The last entry is split afresh: what follows it in `text` is not
        // what followed it when its pieces were remembered.
        let spans: Vec<(usize, &Known)> = parts[..parts.len().saturating_sub(1)]
            .iter()
            .map(|&(start, entry)| (at + start, &entry.known))
            .collect();
        self.entries.counter.count_with_known(text, &spans)
    }

    fn ending(&self, shown: usize, more: usize) -> Ending {
        match (&self.omitted, shown, more) {
            (None, _, _) => Ending::Plain,
            (Some(_), 0, 0) => Ending::NoneOmitted,
            (Some(_), 0, _) => Ending::MoreOnly,
            (Some(_), _, _) => Ending::Listed,
        }
    }

    /// The tokens of the note's count of `more` documents not listed.
    fn more_tokens(&self, more: usize) -> usize {
        self.counter().count(&self.envelope().more(more))
    }
}

/// The documents still omitted, in input order, with prefix counts and
/// sums of their `next` counts (a Fenwick tree), so that the first `N` of
/// them and their tokens are found in logarithmic time.
#[derive(Debug, Clone)]
struct Omitted {
    flags: Vec<bool>,
    /// 1-based Fenwick trees: how many are omitted, and their `next` sum.
    counts: Vec<usize>,
    sums: Vec<usize>,
    total: usize,
}

impl Omitted {
    fn all(entries: &[Entry]) -> Omitted {
        let n = entries.len();
        let mut counts = vec![0; n + 1];
        let mut sums = vec![0; n + 1];
        for i in 1..=n {
            counts[i] += 1;
            sums[i] += entries[i - 1].counts.next;
            let parent = i + (i & i.wrapping_neg());
            if parent <= n {
                counts[parent] += counts[i];
                sums[parent] += sums[i];
            }
        }
        Omitted {
            flags: vec![true; n],
            counts,
            sums,
            total: n,
        }
    }

    fn remove(&mut self, index: usize, next: usize) {
        if !self.flags[index] {
            return;
        }
        self.flags[index] = false;
        self.total -= 1;
        let mut i = index + 1;
        while i < self.counts.len() {
            self.counts[i] -= 1;
            self.sums[i] -= next;
            i += i & i.wrapping_neg();
        }
    }

    /// The index of the `k`-th omitted document (1-based `k <= total`).
    fn kth(&self, k: usize) -> usize {
        let n = self.counts.len() - 1;
        let mut position = 0;
        let mut rest = k;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = position + step;
            if next <= n && self.counts[next] < rest {
                position = next;
                rest -= self.counts[next];
            }
            step /= 2;
        }
        position
    }

    /// The `next` sum of the omitted documents at indices `0..=index`.
    fn sum_through(&self, index: usize) -> usize {
        let mut i = index + 1;
        let mut sum = 0;
        while i > 0 {
            sum += self.sums[i];
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

/// The note of an envelope: how many omitted documents it lists, their
/// `next` sum, the last one listed, and how many it only counts.
struct NoteView {
    shown: usize,
    sum: usize,
    last: usize,
    more: usize,
}

/// The running count of an envelope being filled: documents are added to
/// the `documents` list (and leave the omission note).
#[derive(Debug, Clone)]
pub struct Tally<'a> {
    layout: &'a Envelopes,
    /// The last document's counts.
    last: Option<EntryCounts>,
    /// Sum of `next` over the documents in the envelope.
    next_sum: usize,
    /// How many documents the envelope holds.
    documents: usize,
    /// Documents still omitted (only with omissions noted).
    omitted: Option<Omitted>,
}

impl<'a> Tally<'a> {
    /// The envelope with no documents (every document omitted, when
    /// omissions are noted).
    pub fn new(layout: &'a Envelopes) -> Tally<'a> {
        Tally {
            layout,
            last: None,
            next_sum: 0,
            documents: 0,
            omitted: layout.omitted.as_deref().map(Omitted::all),
        }
    }

    /// The envelope holding `order`, in that order (the others omitted,
    /// when omissions are noted).
    pub fn holding(layout: &'a Envelopes, order: &[usize]) -> Tally<'a> {
        let mut tally = Tally::new(layout);
        for &index in order {
            tally.push(index);
        }
        tally
    }

    /// The envelope with no documents, counted as if omissions were not
    /// noted.
    pub fn without_notes(layout: &'a Envelopes) -> Tally<'a> {
        Tally {
            layout,
            last: None,
            next_sum: 0,
            documents: 0,
            omitted: None,
        }
    }

    /// The exact count of the current envelope.
    pub fn total(&self) -> usize {
        self.total_of(self.last, self.next_sum, self.documents, None)
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
        let last = if at_end {
            Some(counts)
        } else {
            self.last.or(Some(counts))
        };
        self.total_of(
            last,
            self.next_sum + counts.next,
            self.documents + 1,
            Some(index),
        )
    }

    /// The exact count of the envelope with a document it holds as an
    /// entry with counts `old` held as one with `new` instead (an outline
    /// sent whole), `is_last` when it is the last document.
    pub fn total_replacing(&self, old: EntryCounts, new: EntryCounts, is_last: bool) -> usize {
        let last = if is_last { Some(new) } else { self.last };
        self.total_of(
            last,
            self.next_sum - old.next + new.next,
            self.documents,
            None,
        )
    }

    /// Holds a document as an entry with counts `new` instead of `old` (see
    /// [`Tally::total_replacing`]).
    pub fn replace(&mut self, old: EntryCounts, new: EntryCounts, is_last: bool) {
        self.next_sum = self.next_sum - old.next + new.next;
        if is_last {
            self.last = Some(new);
        }
    }

    /// Adds `index` at the end of the documents.
    pub fn push(&mut self, index: usize) {
        self.push_counts(index, self.layout.counts(index), true);
    }

    /// Adds document `index`, given as an entry with `counts`: at the end
    /// when `at_end`, else before the current last document.
    pub fn push_counts(&mut self, index: usize, counts: EntryCounts, at_end: bool) {
        if let (Some(omitted), Some(entries)) = (&mut self.omitted, &self.layout.omitted) {
            omitted.remove(index, entries[index].counts.next);
        }
        self.next_sum += counts.next;
        self.documents += 1;
        if at_end || self.last.is_none() {
            self.last = Some(counts);
        }
    }

    /// The note once `without` (if omitted) leaves it.
    fn note(&self, without: Option<usize>) -> Option<NoteView> {
        let omitted = self.omitted.as_ref()?;
        let entries = self.layout.omitted.as_ref()?;
        let without = without.filter(|&index| omitted.flags[index]);
        let total = omitted.total - usize::from(without.is_some());
        let shown = total.min(self.layout.entries.note_max.unwrap_or(0));
        let more = total - shown;
        if shown == 0 {
            return Some(NoteView {
                shown,
                sum: 0,
                last: 0,
                more,
            });
        }
        let mut last = omitted.kth(shown);
        let mut sum = omitted.sum_through(last);
        if let Some(gone) = without
            && gone <= last
        {
            last = omitted.kth(shown + 1);
            sum = omitted.sum_through(last) - entries[gone].counts.next;
        }
        Some(NoteView {
            shown,
            sum,
            last,
            more,
        })
    }

    fn total_of(
        &self,
        last: Option<EntryCounts>,
        next_sum: usize,
        documents: usize,
        without: Option<usize>,
    ) -> usize {
        let layout = self.layout;
        let note = self.note(without);
        let ending = match &note {
            None => Ending::Plain,
            Some(note) => layout.ending(note.shown, note.more),
        } as usize;
        let documents_part = match last {
            None => layout.empties[ending],
            Some(last) => {
                layout.open + next_sum - last.next
                    + last.ends[ending]
                    + layout.position_tokens(documents)
            }
        };
        let note_part = match (&note, &layout.omitted) {
            (Some(note), Some(entries)) if note.shown > 0 => {
                let last = entries[note.last].counts;
                note.sum - last.next
                    + if note.more > 0 {
                        last.ends[1] + layout.more_tokens(note.more)
                    } else {
                        last.ends[0]
                    }
            }
            (Some(note), _) if note.more > 0 => layout.more_tokens(note.more),
            _ => 0,
        };
        documents_part + note_part
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
