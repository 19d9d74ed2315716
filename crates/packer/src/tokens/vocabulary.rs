//! The built-in encodings' vocabularies, built into the binary by the build
//! script (see `build.rs` for the layout) and read in place: a token's rank
//! is found by hashing its bytes into a table of ranks, with no parsing,
//! decoding or hashing of the vocabulary when packer starts.
//!
//! [`Vocabulary::count`] merges a piece exactly as tiktoken does: the whole
//! piece if it is a token, otherwise the adjacent pair whose joined bytes
//! have the lowest rank (the leftmost among equals) until no pair is a
//! token. Short pieces run tiktoken's own loop over a vector of parts;
//! longer ones the heap version of the same loop (the `merge` module), so
//! that a piece of `n` bytes costs `O(n log n)`.

mod hash;

use super::merge::{self, Merges};

/// "PKV1" as a little-endian word, the first word of every table.
const MAGIC: u32 = u32::from_le_bytes(*b"PKV1");
/// The header's words: magic, rank slots, hash bits, longest token.
const HEADER: usize = 4;
/// An empty slot of the hash table.
const EMPTY: u32 = u32::MAX;
/// Pieces up to this many bytes run tiktoken's vector loop, which is
/// quadratic but cheaper than a heap for short pieces.
const SHORT_PIECE: usize = 64;

/// One encoding's vocabulary, borrowed from the binary.
#[derive(Clone, Copy)]
pub(crate) struct Vocabulary {
    blob: &'static [u8],
    /// Rank slots (ranks that are special tokens have no bytes).
    slots: usize,
    bits: u32,
    longest: usize,
    /// Where the hash table's words start.
    table: usize,
    /// Where the token bytes start (a byte offset).
    bytes: usize,
}

fn word_at(blob: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_le_bytes(blob[at..at + 4].try_into().expect("four bytes"))
}

impl Vocabulary {
    /// Reads a table's header. Panics on a table the build script did not
    /// make (a build error, not an input error).
    pub(crate) fn new(blob: &'static [u8]) -> Vocabulary {
        assert_eq!(word_at(blob, 0), MAGIC, "a vocabulary table");
        let slots = word_at(blob, 1) as usize;
        let bits = word_at(blob, 2);
        let longest = word_at(blob, 3) as usize;
        let table = HEADER + slots + 1;
        let bytes = 4 * (table + (1 << bits));
        let vocabulary = Vocabulary {
            blob,
            slots,
            bits,
            longest,
            table,
            bytes,
        };
        assert_eq!(
            bytes + vocabulary.word(HEADER + slots) as usize,
            blob.len(),
            "a whole vocabulary table"
        );
        vocabulary
    }

    fn word(&self, index: usize) -> u32 {
        word_at(self.blob, index)
    }

    /// The number of rank slots: one more than the highest ordinary rank.
    #[cfg(test)]
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// The bytes of the token of rank `rank` (empty for a special token's
    /// rank).
    pub(crate) fn token(&self, rank: u32) -> &'static [u8] {
        let rank = rank as usize;
        let start = self.word(HEADER + rank) as usize;
        let end = self.word(HEADER + rank + 1) as usize;
        &self.blob[self.bytes + start..self.bytes + end]
    }

    /// The rank of the token whose bytes are `bytes`, if there is one.
    pub(crate) fn rank(&self, bytes: &[u8]) -> Option<u32> {
        if bytes.is_empty() || bytes.len() > self.longest {
            return None;
        }
        let mask = (1usize << self.bits) - 1;
        let mut at = (hash::hash(bytes) >> (64 - self.bits)) as usize;
        loop {
            let rank = self.word(self.table + at);
            if rank == EMPTY {
                return None;
            }
            if self.token(rank) == bytes {
                return Some(rank);
            }
            at = (at + 1) & mask;
        }
    }

    /// The number of tokens tiktoken makes of `piece`.
    pub(crate) fn count(&self, piece: &[u8]) -> usize {
        if piece.len() <= 1 || self.rank(piece).is_some() {
            return piece.len().min(1);
        }
        if piece.len() <= SHORT_PIECE {
            self.count_short(piece)
        } else {
            merge::count(self, piece)
        }
    }

    /// tiktoken's `_byte_pair_merge`: `parts[i]` is where a part starts and
    /// the rank of it joined with the next part; merge the lowest, leftmost
    /// first, then update the ranks on either side.
    pub(crate) fn count_short(&self, piece: &[u8]) -> usize {
        let rank_of = |bytes: &[u8]| self.rank(bytes).unwrap_or(EMPTY);
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

    /// Every ordinary token's bytes, in rank order (special tokens' ranks
    /// left out).
    pub(crate) fn tokens(&self) -> impl Iterator<Item = &'static [u8]> + '_ {
        (0..self.slots as u32)
            .map(|rank| self.token(rank))
            .filter(|bytes| !bytes.is_empty())
    }
}

impl Merges for Vocabulary {
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
        self.rank(&piece[left.0 as usize..right.1 as usize])
            .map(|rank| (rank, (left.0, right.1)))
    }
}
