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

use super::Engine;

/// The pieces a part of a text was split into, from its first byte, and
/// their tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The bytes the pieces cover.
    len: usize,
    /// Their tokens.
    tokens: usize,
    /// Each piece's length in bytes: one byte below 255, else 255 and four
    /// bytes (little-endian).
    lengths: Box<[u8]>,
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
    Record(&'v mut Recorder),
    Match(&'v mut Matcher<'a>),
}

impl Visitor<'_, '_> {
    /// The next piece, whose tokens `count` gives; false to stop.
    #[inline]
    pub(crate) fn piece(&mut self, piece: &str, count: impl FnOnce(&str) -> usize) -> bool {
        match self {
            Visitor::Record(recorder) => recorder.piece(piece, count),
            Visitor::Match(matcher) => matcher.piece(piece, count),
        }
    }
}

/// [`crate::tokens::Counter::record`] with `engine`.
pub(crate) fn record(
    engine: &dyn Engine,
    text: &str,
    from: usize,
    stop_at: usize,
) -> Option<(usize, Known)> {
    let mut recorder = Recorder::new(from, stop_at);
    engine
        .walk(text, 0, Visitor::Record(&mut recorder))
        .then(|| recorder.finish())
        .flatten()
}

/// One range of [`crate::tokens::Counter::count_with_known`] with `engine`.
pub(crate) fn count_with_known(
    engine: &dyn Engine,
    text: &str,
    from: usize,
    to: usize,
    spans: &[(usize, &Known)],
) -> Option<usize> {
    let mut matcher = Matcher::new(spans, from, to);
    engine
        .walk(text, from, Visitor::Match(&mut matcher))
        .then(|| matcher.finish())
        .flatten()
}

/// Counts the pieces of a text, in order, up to the piece that holds byte
/// `stop_at` (which is not counted), and remembers those from byte `from`
/// on.
pub(crate) struct Recorder {
    from: usize,
    stop_at: usize,
    position: usize,
    before: usize,
    tokens: usize,
    lengths: Vec<u8>,
    aligned: bool,
}

impl Recorder {
    pub(crate) fn new(from: usize, stop_at: usize) -> Recorder {
        Recorder {
            from,
            stop_at,
            position: 0,
            before: 0,
            tokens: 0,
            lengths: Vec::new(),
            aligned: true,
        }
    }

    /// The tokens before `from` and the pieces from `from` on; `None` when
    /// `from` is not where a piece starts.
    pub(crate) fn finish(self) -> Option<(usize, Known)> {
        if !self.aligned || self.position < self.from {
            return None;
        }
        Some((
            self.before,
            Known {
                len: self.position - self.from,
                tokens: self.tokens,
                lengths: self.lengths.into_boxed_slice(),
            },
        ))
    }

    /// The next piece, counted with `count`; false to stop.
    #[inline]
    fn piece(&mut self, piece: &str, count: impl FnOnce(&str) -> usize) -> bool {
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
            self.tokens += count(piece);
            push_length(&mut self.lengths, piece.len());
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
                    self.rest = &known.lengths;
                    self.next += 1;
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
