//! What every byte-pair engine shares: the ranked merge and the per-thread
//! piece cache.
//!
//! A ranked vocabulary ([`Ranks`]: the built-in tables, `tekken.json`)
//! merges a piece exactly as tiktoken does: the whole piece if it is a
//! token, otherwise the adjacent pair whose joined bytes have the lowest
//! rank (the leftmost among equals) until no pair is a token. Short pieces
//! run tiktoken's own loop over a vector of parts ([`count_short`]);
//! longer ones the heap version of the same loop (the `merge` module, which
//! Hugging Face's listed merges run too), so that a piece of `n` bytes
//! costs `O(n log n)`.
//!
//! Each engine keeps, per thread, its search state (split-regex caches) and
//! the counts of the short pieces it has seen ([`with_state`]): most pieces
//! are common words and punctuation, and a lookup is cheaper than running
//! the byte-pair encoder again.

pub(crate) mod merge;

use std::any::Any;
use std::cell::RefCell;

use rustc_hash::FxHashMap;

use merge::Merges;

/// A vocabulary of ranked byte strings (tiktoken's kind).
pub(crate) trait Ranks {
    /// The rank of the token whose bytes are `bytes`, if there is one.
    fn rank(&self, bytes: &[u8]) -> Option<u32>;
}

impl Ranks for FxHashMap<Box<[u8]>, u32> {
    fn rank(&self, bytes: &[u8]) -> Option<u32> {
        self.get(bytes).copied()
    }
}

/// No rank (an empty slot of a part's rank).
const EMPTY: u32 = u32::MAX;
/// Pieces up to this many bytes run tiktoken's vector loop, which is
/// quadratic but cheaper than a heap for short pieces.
const SHORT_PIECE: usize = 64;

/// The number of tokens tiktoken makes of `piece`.
pub(crate) fn count_ranked<R: Ranks>(ranks: &R, piece: &[u8]) -> usize {
    if piece.len() <= 1 || ranks.rank(piece).is_some() {
        return piece.len().min(1);
    }
    if piece.len() <= SHORT_PIECE {
        count_short(ranks, piece)
    } else {
        merge::count(&Ranked(ranks), piece)
    }
}

/// tiktoken's `_byte_pair_merge`: `parts[i]` is where a part starts and
/// the rank of it joined with the next part; merge the lowest, leftmost
/// first, then update the ranks on either side.
pub(crate) fn count_short<R: Ranks>(ranks: &R, piece: &[u8]) -> usize {
    let rank_of = |bytes: &[u8]| ranks.rank(bytes).unwrap_or(EMPTY);
    let mut parts: Vec<(usize, u32)> = Vec::with_capacity(piece.len() + 1);
    let mut lowest = (EMPTY, usize::MAX);
    for i in 0..piece.len() - 1 {
        let rank = rank_of(&piece[i..i + 2]);
        if rank < lowest.0 {
            lowest = (rank, i);
        }
        parts.push((i, rank));
    }
    parts.push((piece.len() - 1, EMPTY));
    parts.push((piece.len(), EMPTY));
    // The rank of parts `i` and `i + 1` joined once `i + 1` and `i + 2`
    // are one part (before `i + 2` is removed).
    let joined = |parts: &[(usize, u32)], i: usize| {
        if i + 3 < parts.len() {
            rank_of(&piece[parts[i].0..parts[i + 3].0])
        } else {
            EMPTY
        }
    };
    while lowest.0 != EMPTY {
        let i = lowest.1;
        if i > 0 {
            parts[i - 1].1 = joined(&parts, i - 1);
        }
        parts[i].1 = joined(&parts, i);
        parts.remove(i + 1);
        lowest = (EMPTY, usize::MAX);
        for (i, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
            if rank < lowest.0 {
                lowest = (rank, i);
            }
        }
    }
    parts.len() - 1
}

/// Ranked merges for the heap loop: symbols are byte ranges of the piece,
/// and two merge when their joined bytes are a token.
pub(crate) struct Ranked<'a, R>(pub(crate) &'a R);

impl<R: Ranks> Merges for Ranked<'_, R> {
    type Symbol = (u32, u32);

    fn byte(&self, _: &[u8], index: usize) -> (u32, u32) {
        (index as u32, index as u32 + 1)
    }

    fn merge(
        &self,
        piece: &[u8],
        left: (u32, u32),
        right: (u32, u32),
    ) -> Option<(u32, (u32, u32))> {
        self.0
            .rank(&piece[left.0 as usize..right.1 as usize])
            .map(|rank| (rank, (left.0, right.1)))
    }
}

/// Pieces up to this many bytes are remembered.
const CACHED_PIECE_BYTES: usize = 24;
/// Each thread remembers at most this many pieces per engine (then starts over).
const CACHED_PIECES: usize = 1 << 16;

/// One thread's counts of the short pieces one engine has seen.
#[derive(Default)]
pub(crate) struct Pieces(FxHashMap<Box<str>, u32>);

impl Pieces {
    /// The tokens of `piece`: remembered, or counted with `count` (and
    /// remembered when the piece is short).
    #[inline]
    pub(crate) fn tokens(&mut self, piece: &str, count: impl FnOnce(&[u8]) -> usize) -> usize {
        if piece.len() > CACHED_PIECE_BYTES {
            return count(piece.as_bytes());
        }
        if let Some(tokens) = self.known(piece) {
            return tokens;
        }
        let tokens = count(piece.as_bytes());
        self.remember(piece, tokens);
        tokens
    }

    /// The remembered tokens of `piece`. Not generic and kept out of line,
    /// so that every engine's loop calls this one function, with the map's
    /// lookup inlined into it (measured with callgrind, the cheapest way).
    #[inline(never)]
    fn known(&self, piece: &str) -> Option<usize> {
        self.0.get(piece).map(|&tokens| tokens as usize)
    }

    /// Remembers the tokens of `piece`, starting over when the map is full
    /// (out of line, like [`Pieces::known`]).
    #[inline(never)]
    fn remember(&mut self, piece: &str, tokens: usize) {
        if self.0.len() >= CACHED_PIECES {
            self.0.clear();
        }
        self.0.insert(piece.into(), tokens as u32);
    }
}

/// One thread's state for one engine.
struct State {
    /// The engine's own search state (its split regexes' caches: the
    /// regexes are shared, their lazily built states are not, so threads
    /// never contend for a cache).
    search: Box<dyn Any>,
    pieces: Pieces,
}

thread_local! {
    /// Per thread, per engine (by address): engines live for the whole
    /// process (built-in ones are statics, file ones are leaked), so an
    /// address is never reused by another engine.
    static STATES: RefCell<FxHashMap<usize, State>> = RefCell::new(FxHashMap::default());
}

/// Runs `f` with this thread's state for `engine`: its search state, made
/// by `new` on the thread's first use of the engine, and its piece counts.
///
/// `engine` must live for the rest of the process, and `f` must not count
/// with another engine (the state is borrowed while it runs).
pub(crate) fn with_state<E: ?Sized, S: 'static, R>(
    engine: &E,
    new: impl FnOnce() -> S,
    f: impl FnOnce(&mut S, &mut Pieces) -> R,
) -> R {
    STATES.with(|states| {
        let mut states = states.borrow_mut();
        let state = states
            .entry(engine as *const E as *const () as usize)
            .or_insert_with(|| State {
                search: Box::new(new()),
                pieces: Pieces::default(),
            });
        let search = state
            .search
            .downcast_mut::<S>()
            .expect("one engine, one kind of search state");
        f(search, &mut state.pieces)
    })
}
