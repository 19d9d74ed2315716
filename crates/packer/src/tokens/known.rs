//! Counts kept with the pieces they were made of, so that a text assembled
//! from counted parts can be recounted without counting those parts again.
//!
//! A count is a sum over the pieces the pre-tokenizer splits a text into,
//! and a piece's tokens depend on its bytes alone. When an entry is counted,
//! [`Recorder`] keeps the lengths of the pieces it counted ([`Known`]).
//! To recount a payload, [`Matcher`] splits the whole payload afresh; where
//! the payload's own pieces, from a part's first byte on, have the same
//! lengths over the same bytes as the part's remembered pieces (the caller
//! checks the bytes), the part's remembered total stands for them, and every
//! other piece is counted. The result is the payload's count, whatever the
//! per-entry argument of [`crate::envelope`] says; when a part's pieces do
//! not line up, there is no result and the caller counts the payload in full.
//!
//! An engine that can say how far past each piece its split read (the
//! built-in one: its DFA walk stops at a byte it has read) lets the
//! recount skip a part's *settled* pieces without splitting them again: a
//! piece's end depends only on the bytes its split read, so pieces that
//! start at the part's first byte and read nothing past the part's last
//! remembered byte are the payload's own pieces wherever those bytes are
//! (by induction from the part's start, where the payload's split must
//! arrive on its own). Only the pieces after them, and the text between
//! parts, are split again.

use super::Engine;

/// The pieces a part of a text was split into, from its first byte, and
/// their tokens; and how many of them are *settled*: split without reading
/// past the part's last remembered byte, so that they are the pieces of any
/// text that has the part's bytes where a piece starts (see the module
/// documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The bytes the pieces cover.
    len: usize,
    /// Their tokens.
    tokens: usize,
    /// Each piece's length in bytes: one byte below 255, else 255 and four
    /// bytes (little-endian).
    lengths: Box<[u8]>,
    /// The settled pieces (see the module documentation): the bytes they
    /// cover, and where the lengths of the pieces after them start in
    /// `lengths`.
    settled: usize,
    settled_lengths: usize,
}

impl Known {
    /// How many bytes, from the part's start, the remembered pieces cover.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no piece is remembered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tokens of the remembered pieces.
    pub fn tokens(&self) -> usize {
        self.tokens
    }
}

/// Marks a length stored in the four bytes that follow.
const LONG: u8 = u8::MAX;

fn push_length(lengths: &mut Vec<u8>, length: usize) {
    if length < usize::from(LONG) {
        lengths.push(length as u8);
    } else {
        lengths.push(LONG);
        lengths.extend_from_slice(&(length as u32).to_le_bytes());
    }
}

/// The first stored length and the rest.
fn pop_length(lengths: &[u8]) -> Option<(usize, &[u8])> {
    let (&first, rest) = lengths.split_first()?;
    if first < LONG {
        return Some((usize::from(first), rest));
    }
    let (long, rest) = rest.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*long) as usize, rest))
}

/// What an engine's walk does with each piece: record an entry's pieces,
/// or match a payload's pieces with remembered ones.
pub(crate) enum Visitor<'v, 'a> {
    Record(&'v mut Recorder<'a>),
    Match(&'v mut Matcher<'a>),
    Skip(&'v mut Skipper<'a>),
    Bound(&'v mut Bound),
}

/// [`Visitor::piece_read`]'s `beyond` when the split may have looked at
/// anything after the piece, up to the end of the text.
pub(crate) const UNKNOWN: usize = usize::MAX;

impl Visitor<'_, '_> {
    /// Whether the engine has found, in an earlier walk of this visitor,
    /// that it can split this text piece by piece (a check of the whole
    /// text, which a walk resumed after a skip need not make again): the
    /// engine sets it.
    pub(crate) fn text_checked(&mut self) -> &mut bool {
        match self {
            Visitor::Record(recorder) => &mut recorder.text_checked,
            Visitor::Match(matcher) => &mut matcher.text_checked,
            Visitor::Skip(skipper) => &mut skipper.text_checked,
            Visitor::Bound(bound) => &mut bound.text_checked,
        }
    }

    /// The next piece, whose end the split decided from its bytes and the
    /// `beyond` bytes after it ([`UNKNOWN`] when it read to the end of the
    /// text, where what follows the text could change the piece).
    #[inline]
    pub(crate) fn piece_read(
        &mut self,
        piece: &str,
        beyond: usize,
        count: impl FnOnce(&str) -> usize,
    ) -> bool {
        match self {
            Visitor::Record(recorder) => recorder.piece(piece, beyond, count),
            Visitor::Match(matcher) => matcher.piece(piece, count),
            Visitor::Skip(skipper) => skipper.piece(piece, count),
            Visitor::Bound(bound) => bound.piece(piece, beyond, count),
        }
    }
}

/// [`crate::tokens::Counter::passes`] with `engine`.
pub(crate) fn passes(engine: &dyn Engine, text: &str, stop: usize, limit: usize) -> bool {
    bound(engine, text, stop, limit, false)
}

/// [`crate::tokens::Counter::settled_passes`] with `engine`.
pub(crate) fn settled_passes(engine: &dyn Engine, text: &str, limit: usize) -> bool {
    bound(engine, text, text.len(), limit, true)
}

/// Whether `text`'s first pieces, those that end by `stop` (and, when
/// `settled`, whose split read nothing past it), pass `limit`.
fn bound(engine: &dyn Engine, text: &str, stop: usize, limit: usize, settled: bool) -> bool {
    let mut bound = Bound {
        stop,
        settled,
        limit,
        position: 0,
        total: 0,
        passed: false,
        text_checked: false,
    };
    engine.walk(text, 0, Visitor::Bound(&mut bound)) && bound.passed
}

/// Adds up the tokens of a text's first pieces, those that end by `stop`
/// (and, when `settled`, were split without reading past it), until they
/// pass `limit`.
pub(crate) struct Bound {
    stop: usize,
    settled: bool,
    limit: usize,
    position: usize,
    total: usize,
    passed: bool,
    text_checked: bool,
}

impl Bound {
    /// The next piece, whose split read `beyond` bytes past it, counted
    /// with `count`; false to stop (a piece ends, or was decided, past
    /// `stop`, or the pieces so far pass the limit).
    #[inline]
    fn piece(&mut self, piece: &str, beyond: usize, count: impl FnOnce(&str) -> usize) -> bool {
        let end = self.position + piece.len();
        let reach = if self.settled {
            end.saturating_add(beyond)
        } else {
            end
        };
        if reach > self.stop {
            return false;
        }
        self.position = end;
        self.total += count(piece);
        if self.total > self.limit {
            self.passed = true;
            return false;
        }
        true
    }
}

/// [`crate::tokens::Counter::record`] with `engine`.
pub(crate) fn record(
    engine: &dyn Engine,
    text: &str,
    from: usize,
    stop_at: usize,
) -> Option<(usize, Known)> {
    record_shared(engine, text, from, stop_at, &[]).map(|(before, known, _)| (before, known))
}

/// [`crate::tokens::Counter::record_shared`] with `engine`.
pub(crate) fn record_shared(
    engine: &dyn Engine,
    text: &str,
    from: usize,
    stop_at: usize,
    shared: &[Shared],
) -> Option<(usize, Known, Vec<Skip>)> {
    let mut recorder = Recorder::new(from, stop_at, shared);
    // About one length per four bytes (a piece is three or four bytes on
    // average), so that the lengths are rarely moved as they grow.
    recorder
        .lengths
        .reserve(stop_at.min(text.len()).saturating_sub(from) / 4);
    if !engine.walk(text, 0, Visitor::Record(&mut recorder)) {
        return None;
    }
    let skips = std::mem::take(&mut recorder.skips);
    recorder
        .finish()
        .map(|(before, known)| (before, known, skips))
}

/// [`crate::tokens::Counter::count_skipping`] with `engine`.
pub(crate) fn count_skipping(engine: &dyn Engine, text: &str, skips: &[Skip]) -> Option<usize> {
    let mut skipper = Skipper {
        skips,
        next: 0,
        position: 0,
        total: 0,
        resume: None,
        text_checked: false,
    };
    let mut at = 0;
    loop {
        if !engine.walk(text, at, Visitor::Skip(&mut skipper)) {
            return None;
        }
        match skipper.resume.take() {
            Some(resume) => at = resume,
            None => return Some(skipper.total),
        }
    }
}

/// A stretch of a recorded text that another text holds byte for byte:
/// `len` bytes from `here` in the recorded text, from `there` in the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shared {
    /// Where the stretch starts in the recorded text.
    pub(crate) here: usize,
    /// Where it starts in the other text.
    pub(crate) there: usize,
    /// Its length in bytes.
    pub(crate) len: usize,
}

/// Pieces of a text that another text is known to have: wherever the other
/// text's split arrives at byte `at`, its next `len` bytes are pieces
/// worth `tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Skip {
    pub(crate) at: usize,
    pub(crate) len: usize,
    pub(crate) tokens: usize,
}

/// Stretches shorter than this are split again rather than skipped. The
/// built-in encodings take a skip at no cost (their split goes on from any
/// piece start), so every settled stretch is kept; another engine starts
/// its walk again after each one.
const SKIP_AT_LEAST: usize = 1;

/// One range of [`crate::tokens::Counter::count_with_known`] with `engine`.
pub(crate) fn count_with_known(
    engine: &dyn Engine,
    text: &str,
    from: usize,
    to: usize,
    spans: &[(usize, &Known)],
) -> Option<usize> {
    let mut matcher = Matcher::new(spans, from, to);
    let mut at = from;
    loop {
        if !engine.walk(text, at, Visitor::Match(&mut matcher)) {
            return None;
        }
        // A part's settled pieces were skipped: split again after them.
        match matcher.resume.take() {
            Some(resume) => at = resume,
            None => return matcher.finish(),
        }
    }
}

/// Counts the pieces of a text, in order, up to the piece that holds byte
/// `stop_at` (which is not counted), and remembers those from byte `from`
/// on.
pub(crate) struct Recorder<'a> {
    from: usize,
    stop_at: usize,
    position: usize,
    before: usize,
    tokens: usize,
    lengths: Vec<u8>,
    aligned: bool,
    /// The furthest byte any remembered piece's split read (exclusive),
    /// [`UNKNOWN`] once one read to the end of the text.
    read: usize,
    /// The last piece end known to be settled: `(end, lengths.len())`.
    settled: (usize, usize),
    /// A later piece end, settled if the part ends at or after `read`:
    /// `(end, read, lengths.len())`. One is enough: a piece's split reads
    /// at least one byte past it, and usually no further, so the piece
    /// before the last one is settled by the time the last one ends (when
    /// not, the later end is not remembered, which only settles less).
    pending: Option<(usize, usize, usize)>,
    /// The stretches another text shares, in order, and the one the
    /// pieces have reached.
    shared: &'a [Shared],
    stretch: usize,
    /// The current stretch's start and end in the recorded text (both
    /// `usize::MAX` past the last one).
    here: usize,
    here_end: usize,
    /// In the current stretch: where its first piece starts and the tokens
    /// before it, the end of its last settled piece and the tokens to
    /// there, and whether a piece has failed to settle.
    first: Option<(usize, usize)>,
    last: Option<(usize, usize)>,
    unsettled: bool,
    skips: Vec<Skip>,
    /// See [`Visitor::text_checked`].
    text_checked: bool,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(from: usize, stop_at: usize, shared: &'a [Shared]) -> Recorder<'a> {
        Recorder {
            from,
            stop_at,
            position: 0,
            before: 0,
            tokens: 0,
            lengths: Vec::new(),
            aligned: true,
            read: 0,
            settled: (from, 0),
            pending: None,
            shared,
            stretch: 0,
            here: shared.first().map_or(usize::MAX, |stretch| stretch.here),
            here_end: shared
                .first()
                .map_or(usize::MAX, |stretch| stretch.here + stretch.len),
            first: None,
            last: None,
            unsettled: false,
            skips: Vec::new(),
            text_checked: false,
        }
    }

    /// Follows a remembered piece from `start` to `end`, split by reading
    /// to `read`, with `before` tokens before it and `after` to its end,
    /// through the shared stretches: a stretch's pieces, from the first that
    /// starts in it, are pieces of the other text wherever that text's split
    /// arrives there, as long as each was split reading only the stretch.
    #[inline]
    fn share(&mut self, start: usize, end: usize, read: usize, before: usize, after: usize) {
        if start < self.here {
            return;
        }
        while start >= self.here_end {
            self.close_stretch();
            self.stretch += 1;
            let (here, len) = self
                .shared
                .get(self.stretch)
                .map_or((usize::MAX, 0), |stretch| (stretch.here, stretch.len));
            self.here = here;
            self.here_end = here.saturating_add(len);
            if start < self.here {
                return;
            }
        }
        if self.unsettled {
            return;
        }
        if self.first.is_none() {
            self.first = Some((start, before));
        }
        if end <= self.here_end && read <= self.here_end {
            self.last = Some((end, after));
        } else {
            self.unsettled = true;
        }
    }

    /// Keeps the current stretch's settled pieces as a skip, when long
    /// enough to be worth one.
    fn close_stretch(&mut self) {
        if let (Some((start, before)), Some((end, after)), Some(stretch)) =
            (self.first, self.last, self.shared.get(self.stretch))
            && end - start >= SKIP_AT_LEAST
        {
            self.skips.push(Skip {
                at: stretch.there + (start - stretch.here),
                len: end - start,
                tokens: after - before,
            });
        }
        self.first = None;
        self.last = None;
        self.unsettled = false;
    }

    /// Settles the pending piece end if its split read nothing past `end`;
    /// true when nothing is pending any more.
    #[inline]
    fn settle(&mut self, end: usize) -> bool {
        match self.pending {
            Some((at, read, lengths)) if read <= end => {
                self.settled = (at, lengths);
                self.pending = None;
                true
            }
            Some(_) => false,
            None => true,
        }
    }

    /// The tokens before `from` and the pieces from `from` on; `None` when
    /// `from` is not where a piece starts.
    pub(crate) fn finish(mut self) -> Option<(usize, Known)> {
        if !self.aligned || self.position < self.from {
            return None;
        }
        self.settle(self.position);
        self.close_stretch();
        Some((
            self.before,
            Known {
                len: self.position - self.from,
                tokens: self.tokens,
                lengths: self.lengths.into_boxed_slice(),
                settled: self.settled.0 - self.from,
                settled_lengths: self.settled.1,
            },
        ))
    }

    /// The next piece, counted with `count`, its split having read `beyond`
    /// bytes after it; false to stop.
    #[inline]
    fn piece(&mut self, piece: &str, beyond: usize, count: impl FnOnce(&str) -> usize) -> bool {
        let start = self.position;
        let end = start + piece.len();
        if end > self.stop_at {
            return false;
        }
        self.position = end;
        if end <= self.from {
            self.before += count(piece);
        } else if start < self.from {
            // `from` is inside a piece: nothing can be remembered.
            self.aligned = false;
            return false;
        } else {
            let before = self.tokens;
            self.tokens += count(piece);
            push_length(&mut self.lengths, piece.len());
            let read = end.saturating_add(beyond);
            self.share(start, end, read, before, self.tokens);
            self.read = self.read.max(read);
            if self.read != UNKNOWN && self.settle(end) {
                self.pending = Some((end, self.read, self.lengths.len()));
            }
        }
        true
    }
}

/// Counts a text whose parts `spans` (start, pieces; in order, not
/// overlapping, none empty) were counted before.
pub(crate) struct Matcher<'a> {
    spans: &'a [(usize, &'a Known)],
    next: usize,
    position: usize,
    /// Where the pieces must end.
    stop: usize,
    total: usize,
    /// The remembered lengths still to be met inside the current part.
    rest: &'a [u8],
    aligned: bool,
    /// Where the split must start again, after a part's settled pieces.
    resume: Option<usize>,
    /// See [`Visitor::text_checked`].
    text_checked: bool,
}

impl<'a> Matcher<'a> {
    /// Pieces from byte `from` (where a piece starts) to byte `stop`.
    pub(crate) fn new(spans: &'a [(usize, &'a Known)], from: usize, stop: usize) -> Matcher<'a> {
        Matcher {
            spans,
            next: 0,
            position: from,
            stop,
            total: 0,
            rest: &[],
            aligned: true,
            resume: None,
            text_checked: false,
        }
    }

    /// The text's count, when every part's pieces were met.
    pub(crate) fn finish(self) -> Option<usize> {
        (self.aligned
            && self.position == self.stop
            && self.rest.is_empty()
            && self.next == self.spans.len())
        .then_some(self.total)
    }

    /// The next piece of the text, counted with `count` when it is in no
    /// part; false to stop (a part's pieces do not line up).
    #[inline]
    fn piece(&mut self, piece: &str, count: impl FnOnce(&str) -> usize) -> bool {
        let start = self.position;
        if start >= self.stop {
            return false;
        }
        self.position += piece.len();
        if self.rest.is_empty() {
            match self.spans.get(self.next) {
                Some(&(at, known)) if at == start => {
                    self.total += known.tokens;
                    self.next += 1;
                    if known.settled > 0 {
                        // This piece starts the settled ones: the split
                        // goes on after them.
                        self.position = at + known.settled;
                        self.rest = &known.lengths[known.settled_lengths..];
                        self.resume = Some(self.position);
                        return false;
                    }
                    self.rest = &known.lengths;
                }
                Some(&(at, _)) if at < start => {
                    // A part starts inside this piece.
                    self.aligned = false;
                    return false;
                }
                _ => {
                    self.total += count(piece);
                    return true;
                }
            }
        }
        match pop_length(self.rest) {
            Some((length, rest)) if length == piece.len() => {
                self.rest = rest;
                true
            }
            _ => {
                self.aligned = false;
                false
            }
        }
    }
}

/// Counts a text, taking the tokens of [`Skip`]s wherever its split
/// arrives at one.
pub(crate) struct Skipper<'a> {
    skips: &'a [Skip],
    next: usize,
    position: usize,
    total: usize,
    /// Where the split must start again, after a skip.
    resume: Option<usize>,
    /// See [`Visitor::text_checked`].
    text_checked: bool,
}

impl Skipper<'_> {
    /// The next piece, counted with `count` unless it starts a skip; false
    /// to stop (to start again after the skip).
    #[inline]
    fn piece(&mut self, piece: &str, count: impl FnOnce(&str) -> usize) -> bool {
        let start = self.position;
        while let Some(skip) = self.skips.get(self.next) {
            if skip.at > start {
                break;
            }
            self.next += 1;
            if skip.at == start {
                self.total += skip.tokens;
                self.position = start + skip.len;
                self.resume = Some(self.position);
                return false;
            }
            // The split did not arrive at this skip's start.
        }
        self.total += count(piece);
        self.position += piece.len();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tests::reference;
    use crate::tokens::{Counter, Encoding};

    #[test]
    fn parts_that_do_not_line_up_give_no_count() {
        let counter = Counter::new(Encoding::Cl100kBase);
        let text = "hello world, hello there";
        // "world," recorded alone is the pieces "world" and ",": in the
        // text they are " world" and ",", so a span at "w" is inside a
        // piece.
        let (_, world) = counter.record("world,", 0, usize::MAX).unwrap();
        assert_eq!(counter.count_with_known(text, &[(7, &world)]), None);
        // A span at a piece start whose remembered lengths differ.
        let (_, other) = counter.record(" worl", 0, usize::MAX).unwrap();
        assert_eq!(counter.count_with_known(text, &[(5, &other)]), None);
        // Where the pieces are the same, the count is the full count.
        let (_, same) = counter.record(" world,", 0, usize::MAX).unwrap();
        assert_eq!(
            counter.count_with_known(text, &[(5, &same)]),
            Some(reference(Encoding::Cl100kBase).encode_ordinary(text).len())
        );
        // `from` inside a piece cannot be recorded.
        assert_eq!(counter.record("hello", 2, usize::MAX), None);
        // Recording stops before the piece that holds `stop_at`.
        let (before, known) = counter.record("ab cd ef", 2, 6).unwrap();
        assert_eq!((before, known.len(), known.tokens()), (1, 3, 1));
    }

    /// A text's pieces pass a limit exactly when tiktoken-rs counts the
    /// text over it, and pieces past `stop` are not counted.
    #[test]
    fn pieces_pass_a_limit_as_the_reference_count_does() {
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let counter = Counter::new(encoding);
            for seed in 0..6 {
                let text = crate::tokens::tests::varied_text(seed, 600);
                let tokens = reference(encoding).encode_ordinary(&text).len();
                for limit in [0, tokens / 2, tokens - 1, tokens, tokens + 1, 10 * tokens] {
                    assert_eq!(
                        counter.passes(&text, text.len(), limit),
                        tokens > limit,
                        "{encoding:?} seed {seed} limit {limit} of {tokens}"
                    );
                }
            }
            // "ab cd ef": "ab", " cd", " ef"; by byte 6 only "ab" and " cd".
            assert!(counter.passes("ab cd ef", 6, 1));
            assert!(!counter.passes("ab cd ef", 6, 2));
            assert!(counter.passes("ab cd ef", 8, 2));
        }
    }

    /// Only the pieces a text's split settles count toward what any longer
    /// text beginning with it passes: "a paramet" is three tokens and "a
    /// parameter" two, so the piece the split read to the end for is left
    /// out.
    #[test]
    fn settled_pieces_pass_a_limit_for_every_longer_text() {
        let counter = Counter::new(Encoding::Cl100kBase);
        let tokens = |text: &str| reference(Encoding::Cl100kBase).encode_ordinary(text).len();
        assert_eq!((tokens("a paramet"), tokens("a parameter")), (3, 2));
        assert!(counter.passes("a paramet", 9, 2));
        assert!(!counter.settled_passes("a paramet", 1));
        assert!(counter.settled_passes("a paramet", 0));
        // Every text that begins with a settled part passes what it passes.
        for seed in 0..6 {
            let text = crate::tokens::tests::varied_text(seed, 400);
            let whole = tokens(&text);
            for cut in (0..text.len())
                .filter(|&at| text.is_char_boundary(at))
                .step_by(37)
            {
                for limit in [0, 1, 5, 20, whole] {
                    if counter.settled_passes(&text[..cut], limit) {
                        assert!(whole > limit, "seed {seed} cut {cut} limit {limit}");
                        assert!(counter.passes(&text, text.len(), limit));
                    }
                }
            }
        }
    }

    #[test]
    fn settled_pieces_end_before_what_the_split_read_past_the_part() {
        let counter = Counter::new(Encoding::Cl100kBase);
        // "hello" | " world" | "  ": the split of " world" read one space
        // past it, inside the text; the final spaces were split by reading
        // to the end, where what follows could change them.
        let (_, known) = counter.record("hello world  ", 0, usize::MAX).unwrap();
        assert_eq!((known.len, known.settled), (13, 11));
        assert_eq!(
            pop_length(&known.lengths[known.settled_lengths..])
                .unwrap()
                .0,
            2
        );
        // A text that is one piece settles nothing.
        let (_, known) = counter.record("hello", 0, usize::MAX).unwrap();
        assert_eq!(known.settled, 0);
    }

    /// Parts recorded alone, then met in payloads where what follows each
    /// part changes how its last pieces split: the recount skips only the
    /// settled pieces and is the reference count every time it answers.
    #[test]
    fn recounts_that_skip_settled_pieces_are_exact_at_every_junction() {
        let parts = [
            "fn main() {\n    x\n}",
            "words and more words   ",
            "trailing spaces  \n\n",
            "digits 12345",
            "it's",
            "it'",
            "line\r\n",
            "<<<>>>",
            "über café",
            "日本語",
            "a",
            " ",
        ];
        let glues = ["", " ", "s", "LL more", "\n", "  x", "678", "!?", "é", ">"];
        let mut answered = 0;
        let mut skipped = 0;
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let counter = Counter::new(encoding);
            let recorded: Vec<Known> = parts
                .iter()
                .map(|part| counter.record(part, 0, usize::MAX).unwrap().1)
                .collect();
            for (a, first) in parts.iter().enumerate() {
                for (b, second) in parts.iter().enumerate() {
                    for glue in glues {
                        let mut text = String::from(glue);
                        let at_a = text.len();
                        text.push_str(first);
                        text.push_str(glue);
                        let at_b = text.len();
                        text.push_str(second);
                        text.push_str(glue);
                        let spans = [(at_a, &recorded[a]), (at_b, &recorded[b])];
                        let expected = reference(encoding).encode_ordinary(&text).len();
                        let mut matcher = Matcher::new(&spans, 0, text.len());
                        let mut at = 0;
                        let mut resumed = 0;
                        let counted = loop {
                            counter.engine.walk(&text, at, Visitor::Match(&mut matcher));
                            match matcher.resume.take() {
                                Some(resume) => {
                                    at = resume;
                                    resumed += 1;
                                }
                                None => break matcher.finish(),
                            }
                        };
                        if let Some(counted) = counted {
                            assert_eq!(counted, expected, "{encoding} {text:?}");
                            answered += 1;
                            skipped += resumed;
                        }
                        assert_eq!(counter.count_with_known(&text, &spans), counted);
                    }
                }
            }
        }
        // Many junctions line up (a glue that joins the part's first piece
        // does not), and settled pieces were skipped.
        assert!(answered > 600, "{answered}");
        assert!(skipped > answered, "{skipped} of {answered}");
    }

    #[test]
    fn lengths_of_any_size_are_kept() {
        let mut lengths = Vec::new();
        for length in [0, 1, 254, 255, 256, 70_000] {
            push_length(&mut lengths, length);
        }
        let mut rest = lengths.as_slice();
        let mut read = Vec::new();
        while let Some((length, more)) = pop_length(rest) {
            read.push(length);
            rest = more;
        }
        assert_eq!(read, [0, 1, 254, 255, 256, 70_000]);
    }
}
