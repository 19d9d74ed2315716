//! A split pattern walked as tiktoken's split runs it: anchored at each
//! piece start, leftmost-first over the pattern's alternatives, with the
//! negative look-ahead `\s+(?!\S)` rewritten as bpe-openai does (`\s+$` at
//! the end of text, else `\s+\s` minus its last character, the second
//! pattern a one-character look-ahead). One forward lazy DFA, walked byte
//! by byte by a short loop that also says how far past each piece it read
//! (see the `known` module).

use regex_automata::hybrid::LazyStateID;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::util::start;
use regex_automata::{Anchored, MatchKind};

use super::known::UNKNOWN;

/// A split pattern as one forward lazy DFA: the pieces are anchored
/// searches, so a match's end and pattern are all that is needed, and no
/// reverse automaton or capture engine is built.
#[derive(Debug)]
pub(crate) struct Walker {
    regex: DFA,
    /// Per pattern: give back the match's last character.
    lookahead: Vec<bool>,
}

/// A lazy DFA gives up only when configured to (a cache budget or quit
/// bytes, set for Unicode word boundaries); the split's is not.
const NEVER: &str = "the split DFA never gives up";

/// The split's anchored start state, and the cache's clear count when it
/// was found (a state id holds until the cache is cleared).
#[derive(Clone, Copy)]
pub(crate) struct Anchor {
    state: LazyStateID,
    clears: usize,
}

impl Walker {
    /// The walker of `patterns`, tried in order; each with whether its
    /// match's last character is a look-ahead to give back. `None` when
    /// the lazy DFA cannot run them (a pattern that does not compile, or
    /// one with a Unicode word boundary, on which it would give up).
    pub(crate) fn new(patterns: &[(&str, bool)]) -> Option<Walker> {
        let (patterns, lookahead): (Vec<&str>, Vec<bool>) = patterns.iter().copied().unzip();
        if patterns
            .iter()
            .any(|pattern| pattern.contains(r"\b") || pattern.contains(r"\B"))
        {
            return None;
        }
        let regex = DFA::builder()
            .configure(DFA::config().match_kind(MatchKind::LeftmostFirst))
            .thompson(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
            .build_many(&patterns)
            .ok()?;
        Some(Walker { regex, lookahead })
    }

    /// A search cache for this walker (one per thread).
    pub(crate) fn create_cache(&self) -> Cache {
        self.regex.create_cache()
    }

    /// Calls `each` with every piece of `text`, in order, as tiktoken's
    /// pre-tokenizer splits it, and how many bytes after the piece the
    /// split read to end it ([`UNKNOWN`] when it read to the end of the
    /// text); stops early when `each` returns false.
    pub(crate) fn for_each_piece(
        &self,
        cache: &mut Cache,
        text: &str,
        mut each: impl FnMut(&str, usize) -> bool,
    ) {
        let mut start = 0;
        let mut anchor = None;
        while start < text.len() {
            let (end, beyond) = self.next_piece(cache, &mut anchor, text, start);
            if !each(&text[start..end], beyond) {
                return;
            }
            start = end;
        }
    }

    /// The end of the piece of `text` that starts at `start` (where the
    /// split arrived), and how many bytes after it the split read to end it
    /// ([`UNKNOWN`] when it read to the end of the text).
    #[inline(always)]
    pub(crate) fn next_piece(
        &self,
        cache: &mut Cache,
        anchor: &mut Option<Anchor>,
        text: &str,
        start: usize,
    ) -> (usize, usize) {
        let Some((found, pattern, read)) = self.piece_end(cache, anchor, text.as_bytes(), start)
        else {
            // Every character matches `\s+` or one of the other
            // alternatives, so this cannot happen; count the rest as
            // one piece rather than drop it.
            return (text.len(), UNKNOWN);
        };
        let mut end = found;
        if self.lookahead[pattern] {
            // Drop the one look-ahead character.
            let last = text[start..end]
                .chars()
                .next_back()
                .map_or(0, char::len_utf8);
            end -= last;
        }
        (end, read.map_or(UNKNOWN, |read| read - end))
    }

    /// The end of the leftmost-first match anchored at `start`, the index
    /// of its pattern, and the end of the bytes read to find it (`None`
    /// when the walk read to the end of the text): the lazy DFA walked byte
    /// by byte (an anchored
    /// search with no look-behind starts in the same state for every
    /// piece; a match is seen one byte late, and the walk stops at the dead
    /// state that follows the preferred match). Pieces are a few bytes, so
    /// this short loop costs less than a general search's set-up per piece.
    #[inline]
    fn piece_end(
        &self,
        cache: &mut Cache,
        anchor: &mut Option<Anchor>,
        text: &[u8],
        start: usize,
    ) -> Option<(usize, usize, Option<usize>)> {
        // The pattern of the last match state is looked up once, after the
        // walk: state ids hold until the cache is cleared, which a
        // transition never taken before can do; then the walk is redone
        // looking each match's pattern up on the spot.
        let mut state = self.start_state(cache, anchor);
        let clears = cache.clear_count();
        let mut found = None;
        let mut read = None;
        for (at, &byte) in text.iter().enumerate().skip(start) {
            state = self.regex.next_state(cache, state, byte).expect(NEVER);
            if state.is_tagged() {
                if state.is_match() {
                    found = Some((at, state));
                } else if state.is_dead() {
                    read = Some(at + 1);
                    break;
                }
            }
        }
        if read.is_none() {
            state = self.regex.next_eoi_state(cache, state).expect(NEVER);
            if state.is_match() {
                found = Some((text.len(), state));
            }
        }
        let (end, state) = found?;
        if cache.clear_count() != clears {
            return self.piece_end_looking_up(cache, text, start);
        }
        let pattern = self.regex.match_pattern(cache, state, 0).as_usize();
        Some((end, pattern, read))
    }

    /// The anchored start state: the one in `anchor` while the cache has
    /// not been cleared since it was found (every piece starts there, and
    /// finding it afresh cost more than the walk of a short piece).
    #[inline(always)]
    fn start_state(&self, cache: &mut Cache, anchor: &mut Option<Anchor>) -> LazyStateID {
        let clears = cache.clear_count();
        if let Some(kept) = anchor
            && kept.clears == clears
        {
            return kept.state;
        }
        let anchored = start::Config::new().anchored(Anchored::Yes);
        let state = self.regex.start_state(cache, &anchored).expect(NEVER);
        *anchor = Some(Anchor {
            state,
            clears: cache.clear_count(),
        });
        state
    }

    /// [`Builtin::piece_end`], looking each match's pattern up as it is
    /// met (for a walk during which the cache was cleared).
    #[cold]
    fn piece_end_looking_up(
        &self,
        cache: &mut Cache,
        text: &[u8],
        start: usize,
    ) -> Option<(usize, usize, Option<usize>)> {
        let anchored = start::Config::new().anchored(Anchored::Yes);
        let mut state = self.regex.start_state(cache, &anchored).expect(NEVER);
        let mut found = None;
        for (at, &byte) in text.iter().enumerate().skip(start) {
            state = self.regex.next_state(cache, state, byte).expect(NEVER);
            if state.is_tagged() {
                if state.is_match() {
                    let pattern = self.regex.match_pattern(cache, state, 0);
                    found = Some((at, pattern.as_usize()));
                } else if state.is_dead() {
                    return found.map(|(end, pattern)| (end, pattern, Some(at + 1)));
                }
            }
        }
        state = self.regex.next_eoi_state(cache, state).expect(NEVER);
        if state.is_match() {
            let pattern = self.regex.match_pattern(cache, state, 0);
            found = Some((text.len(), pattern.as_usize()));
        }
        found.map(|(end, pattern)| (end, pattern, None))
    }
}
