//! A document's entry in the envelope and its counts (the part before
//! its final cut, and what each thing that can follow it adds), and the
//! maker of entries for one layout, counter and note cap.

use super::{Cut, Ending, Envelope, Omission, Shape};
use crate::fixture::Document;
use crate::tokens::{Counter, Known, Shared, Skip};

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
    pub(super) text: String,
    pub(super) counts: EntryCounts,
    /// The pieces counted from the entry's first byte, for the payload's
    /// recount ([`Envelopes::recount`](super::Envelopes::recount)).
    pub(super) known: Known,
}

/// An entry's token counts for each thing that can follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCounts {
    /// When another entry of its list follows (joined).
    pub next: usize,
    /// For a document: as the last document, for each `Ending`. For an
    /// omitted entry: `[last of the list, last listed before the count]`.
    pub(super) ends: [usize; 4],
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
    pub(super) envelope: Envelope,
    pub(super) counter: Counter,
    /// With omission notes: how many omitted documents are listed at most.
    pub(super) note_max: Option<usize>,
    /// Whether the entries are a window's (`--windows`).
    pub(super) windows: bool,
    /// Tokens of each ending and of the omitted list's two endings, for the
    /// layouts whose entries are counted alone.
    pub(super) ending_tokens: [usize; 4],
    pub(super) list_end_tokens: [usize; 2],
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

    pub(super) fn with_shape(
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
    pub(super) fn shape(&self) -> &'static Shape {
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
    pub(super) fn write(
        &self,
        document: &Document,
        content: &str,
        label: Option<&Label>,
        share: bool,
    ) -> (Entry, Vec<Skip>) {
        self.counted(self.written(document, content, label), share)
    }

    /// A document's entry text, not yet counted: `content` (its own or a
    /// derived document's) and, for a derived document, its label.
    pub fn written(&self, document: &Document, content: &str, label: Option<&Label>) -> Written {
        let mut verbatim = Vec::new();
        let text = self
            .envelope
            .layout()
            .document(document, content, label, &mut verbatim);
        Written { text, verbatim }
    }

    /// The entry of `written`, counted.
    pub fn entry(&self, written: Written) -> Entry {
        self.counted(written, false).0
    }

    /// The endings an entry is counted before (see [`EntryCounts::ends`]).
    fn endings(&self) -> &'static [Ending] {
        match (self.note_max, self.windows) {
            (Some(_), true) => &[
                Ending::Plain,
                Ending::NoneOmitted,
                Ending::Listed,
                Ending::MoreOnly,
            ],
            (Some(_), false) => &[Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly],
            (None, _) => &[Ending::Plain],
        }
    }

    /// Counts no larger than those of any entry whose counted pieces
    /// (see [`Entries::passes`]) hold `tokens`: each of an entry's counts
    /// is those pieces' tokens and what follows them, never less.
    pub fn floor(&self, tokens: usize) -> EntryCounts {
        let mut ends = [0; 4];
        for &ending in self.endings() {
            ends[ending as usize] = match self.envelope.cut() {
                Cut::FinalRun => tokens,
                Cut::Newline { .. } => tokens + self.ending_tokens[ending as usize],
            };
        }
        EntryCounts { next: tokens, ends }
    }

    /// Whether the entry `written` counts more than `limit` tokens in the
    /// pieces [`Entries::floor`] stands for, found from its first pieces
    /// alone (a few of them when it is far over the limit): then its
    /// counts are at least `floor(limit + 1)`. `false` when it does not,
    /// or when the counter cannot tell that way (count it then).
    pub fn passes(&self, written: &mut Written, limit: usize) -> bool {
        let text = &mut written.text;
        match self.envelope.cut() {
            // The pieces before the one holding the final `}`, with the
            // join after it, as `JsonSplit` counts them.
            Cut::FinalRun => with_join(text, self.shape().join, |joined, last| {
                self.counter.passes(joined, last, limit)
            }),
            Cut::Newline {
                position: Some(start),
            } => {
                let full = numbered(start, text);
                self.counter.passes(&full, full.len(), limit)
            }
            Cut::Newline { position: None } => self.counter.passes(text, text.len(), limit),
        }
    }

    /// Whether every entry of `document` — whole, outlined or excerpted,
    /// whatever its content — counts more than `limit` tokens in the pieces
    /// [`Entries::floor`] stands for, found before any is written: the
    /// pieces of the text all of them begin with (see [`Entries::opening`])
    /// that the split decides from that text alone are pieces of each of
    /// them, so when those pass `limit`, so does each entry
    /// ([`Counter::settled_passes`]). `false` when that does not show it.
    pub(crate) fn opening_passes(&self, document: &Document, limit: usize) -> bool {
        let opening = self.opening(document);
        match self.envelope.cut() {
            Cut::Newline {
                position: Some(start),
            } => self
                .counter
                .settled_passes(&numbered(start, &opening), limit),
            Cut::FinalRun | Cut::Newline { position: None } => {
                self.counter.settled_passes(&opening, limit)
            }
        }
    }

    /// The text every entry of `document` begins with: the longest that
    /// its entries with no label, an outline's and an excerpt's, each with
    /// no content and with content that needs a longer fence, have in
    /// common (the layouts write the label and the content after the
    /// document's id and source, which are the same in each).
    fn opening(&self, document: &Document) -> String {
        let outline = Label::Outline(OutlineLabel {
            lines: String::new(),
            of_lines: 0,
        });
        let excerpt = Label::Excerpt(ExcerptLabel {
            query: String::new(),
            lines: String::new(),
            of_chars: 0,
        });
        let mut opening: Option<String> = None;
        for content in ["", "````"] {
            for label in [None, Some(&outline), Some(&excerpt)] {
                let text = self.written(document, content, label).text;
                opening = Some(match opening {
                    None => text,
                    Some(mut opening) => {
                        let mut common = opening
                            .bytes()
                            .zip(text.bytes())
                            .take_while(|(a, b)| a == b)
                            .count();
                        while !opening.is_char_boundary(common) {
                            common -= 1;
                        }
                        opening.truncate(common);
                        opening
                    }
                });
            }
        }
        opening.unwrap_or_default()
    }

    /// The entry of `written` and, when `share`, the pieces its content is
    /// sure to have (see [`Counter::record_shared`]).
    fn counted(&self, written: Written, share: bool) -> (Entry, Vec<Skip>) {
        let Written { mut text, verbatim } = written;
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
        let endings = self.endings();
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
                        let full = numbered(start, &text);
                        let from = full.len() - text.len();
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

/// An entry's text before it is counted (see [`Entries::written`]).
#[derive(Debug)]
pub struct Written {
    text: String,
    verbatim: Vec<super::Verbatim>,
}

impl Written {
    /// The entry's text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// `text` as the first entry of a numbered list starting `start`, as it is
/// counted (`Envelopes::position_tokens` adds what other positions cost).
fn numbered(start: &str, text: &str) -> String {
    let mut full = String::with_capacity(start.len() + 1 + text.len());
    full.push_str(start);
    full.push('1');
    full.push_str(text);
    full
}

/// `f` of a JSON entry `text` followed by `join` and of where the entry's
/// final `}` is (its last byte): the join is written after the text while
/// `f` runs and taken off again, so that the entry is not copied.
fn with_join<R>(text: &mut String, join: &str, f: impl FnOnce(&str, usize) -> R) -> R {
    let len = text.len();
    text.push_str(join);
    let result = f(text, len - 1);
    text.truncate(len);
    result
}

/// A JSON entry's count up to its final punctuation run, and where that run
/// starts (see the module documentation).
pub(super) struct JsonSplit {
    pub(super) stable: usize,
    pub(super) tail_start: usize,
    pub(super) next: usize,
    /// The pieces before the tail.
    pub(super) known: Known,
}

impl JsonSplit {
    /// The split of `text` followed by `join`, and the pieces the `shared`
    /// stretches give another text (see [`Counter::record_shared`]).
    /// `text` is followed by `join` while it is counted, and given back
    /// as it was (so that the entry is not copied).
    pub(super) fn new(
        text: &mut String,
        counter: &Counter,
        join: &str,
        shared: &[Shared],
    ) -> (JsonSplit, Vec<Skip>) {
        with_join(text, join, |joined, last| {
            let (stable, tail_start, known, skips) =
                match counter.record_shared(joined, 0, last, shared) {
                    Some((_, known, skips)) => (known.tokens(), known.len(), known, skips),
                    None => {
                        let (stable, tail_start) = counter.count_before_piece_at(joined, last);
                        (stable, tail_start, Known::default(), Vec::new())
                    }
                };
            // `joined[tail_start..]` is already the tail followed by the join.
            let next = stable + counter.count(&joined[tail_start..]);
            let split = JsonSplit {
                stable,
                tail_start,
                next,
                known,
            };
            (split, skips)
        })
    }

    fn followed_by(&self, text: &str, counter: &Counter, ending: &str) -> usize {
        let tail = &text[self.tail_start..];
        let mut joined = String::with_capacity(tail.len() + ending.len());
        joined.push_str(tail);
        joined.push_str(ending);
        self.stable + counter.count(&joined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{Format, Source};
    use crate::tokens::Encoding;

    fn document(content: &str) -> Document {
        Document {
            index: 0,
            id: "src/lib.rs".into(),
            source: Source::Url("https://example.com/lib.rs".into()),
            format: Format::Text,
            content: content.into(),
            priority: 0,
            required: false,
        }
    }

    /// Entries in `envelope` with the `encoding`th of three encodings, with
    /// or without notes and windows, and no label, an excerpt's or an
    /// outline's (`label` 0, 1, 2).
    fn maker_and_label(
        envelope: Envelope,
        encoding: usize,
        notes: bool,
        windows: bool,
        label: usize,
    ) -> (Entries, Option<Label>) {
        let counter = Counter::new(
            [
                Encoding::Cl100kBase,
                Encoding::O200kBase,
                Encoding::P50kBase,
            ][encoding],
        );
        let note_max = notes.then_some(3);
        let maker = if windows {
            Entries::for_windows(envelope, counter, note_max)
        } else {
            Entries::new(envelope, counter, note_max)
        };
        let label = match label {
            0 => None,
            1 => Some(Label::Excerpt(ExcerptLabel {
                query: "a query".into(),
                lines: "1-3,8-9".into(),
                of_chars: 120,
            })),
            _ => Some(Label::Outline(OutlineLabel {
                lines: "1-2".into(),
                of_lines: 9,
            })),
        };
        (maker, label)
    }

    fn at_least(counts: EntryCounts, floor: EntryCounts) -> bool {
        counts.next >= floor.next && counts.ends.iter().zip(floor.ends).all(|(c, f)| *c >= f)
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(64))]

        /// Whenever an entry's first pieces pass a limit, its counts are at
        /// least the floor past that limit, in every layout, with and
        /// without notes and windows, excerpt and outline labels alike; and
        /// its pieces pass exactly the limits below what the floor stands
        /// for.
        #[test]
        fn an_entry_that_passes_a_limit_counts_at_least_the_floor_past_it(
            content in "[a-z0-9 ,.:{}\"\\\\\n\t日本🙂<>&-]{0,120}",
            limit in 0usize..80,
            envelope in 0usize..3,
            encoding in 0usize..3,
            notes in proptest::bool::ANY,
            windows in proptest::bool::ANY,
            label in 0usize..3,
        ) {
            let envelope = Envelope::ALL[envelope];
            let (maker, label) = maker_and_label(envelope, encoding, notes, windows, label);
            let document = document(&content);
            let mut written = maker.written(&document, &content, label.as_ref());
            let text = written.text().to_owned();
            let passes = maker.passes(&mut written, limit);
            // Asking leaves the text as it was.
            proptest::prop_assert_eq!(written.text(), text.as_str());
            let entry = maker.entry(written);
            // The same entry as written and counted in one step.
            let direct = maker.document(&document, &content, label.as_ref());
            proptest::prop_assert_eq!(entry.text(), direct.text());
            proptest::prop_assert_eq!(entry.counts(), direct.counts());
            proptest::prop_assert!(at_least(entry.counts(), maker.floor(0)));
            if passes {
                proptest::prop_assert!(at_least(entry.counts(), maker.floor(limit + 1)));
            }
            let counts = entry.counts();
            let mut again = maker.written(&document, &content, label.as_ref());
            // No count is below what the pieces hold: they never pass the
            // smallest of them.
            let least = counts
                .ends
                .into_iter()
                .chain([counts.next])
                .filter(|&count| count > 0)
                .min()
                .unwrap_or(0);
            proptest::prop_assert!(!maker.passes(&mut again, least));
            // In a layout whose every count is the pieces' own tokens and
            // what follows (markdown, xml), the counts are the floor of
            // those tokens, and the pieces pass a limit exactly when the
            // entry counts more than it.
            if envelope.cut() != Cut::FinalRun {
                let alone = counts.next;
                proptest::prop_assert_eq!(counts, maker.floor(alone));
                proptest::prop_assert_eq!(passes, alone > limit);
                proptest::prop_assert!(maker.passes(&mut again, alone - 1));
            }
        }

        /// Every entry of a document begins with its opening, and when the
        /// opening passes a limit so does each entry's count, in every
        /// layout and label, whatever the document's id, source and
        /// content.
        #[test]
        fn an_opening_that_passes_a_limit_is_passed_by_every_entry(
            id in "[a-zA-Z0-9/_. -]{1,24}|[a-z ]{0,8}[\"<>&`\\\\日本🙂]{1,4}[a-z]{0,8}",
            source in proptest::option::of("https://[a-z.]{1,12}/[a-z/\"<>&]{0,16}"),
            content in "[a-z0-9 ,.:{}\"\\\\\n\t日本🙂<>&`-]{0,80}",
            limit in 0usize..40,
            envelope in 0usize..3,
            encoding in 0usize..3,
            notes in proptest::bool::ANY,
            windows in proptest::bool::ANY,
            markdown in proptest::bool::ANY,
            label in 0usize..3,
        ) {
            let (maker, label) =
                maker_and_label(Envelope::ALL[envelope], encoding, notes, windows, label);
            let document = Document {
                id: id.clone(),
                source: source.map_or(Source::Path(id), Source::Url),
                format: if markdown { Format::Markdown } else { Format::Text },
                ..document(&content)
            };
            let mut written = maker.written(&document, &content, label.as_ref());
            proptest::prop_assert!(written.text().starts_with(&maker.opening(&document)));
            if maker.opening_passes(&document, limit) {
                proptest::prop_assert!(maker.passes(&mut written, limit));
            }
        }
    }

    #[test]
    fn an_opening_passes_what_its_settled_pieces_pass() {
        let counter = Counter::new(Encoding::Cl100kBase);
        let document = Document {
            id: "src/deeply/nested/module/with/a/long/name.rs".into(),
            ..document("fn main() {}\n")
        };
        for envelope in Envelope::ALL {
            let maker = Entries::new(envelope, counter, None);
            let opening = maker.opening(&document);
            assert!(opening.contains(&document.id), "{envelope:?}: {opening:?}");
            // The id alone is more than eight tokens; the piece that ends
            // the opening is not counted, since what follows may change it.
            assert!(maker.opening_passes(&document, 8), "{envelope:?}");
            let counted = match envelope.cut() {
                Cut::Newline {
                    position: Some(start),
                } => numbered(start, &opening),
                Cut::FinalRun | Cut::Newline { position: None } => opening,
            };
            let whole = counter.count(&counted);
            assert!(!maker.opening_passes(&document, whole), "{envelope:?}");
        }
    }
}
