//! The built-in encodings' vocabularies, built into the binary by the build
//! script (see `build.rs` for the layout) and read in place: a token's rank
//! is found by hashing its bytes into a table of ranks, with no parsing,
//! decoding or hashing of the vocabulary when packer starts.
//!
//! A vocabulary is [`Ranks`]: its pieces are merged by the `bpe` module's
//! ranked merge, exactly as tiktoken merges them.

mod hash;

use crate::tokens::bpe::Ranks;

/// "PKV1" as a little-endian word, the first word of every table.
const MAGIC: u32 = u32::from_le_bytes(*b"PKV1");
/// The header's words: magic, rank slots, hash bits, longest token.
const HEADER: usize = 4;
/// An empty slot of the hash table.
const EMPTY: u32 = u32::MAX;

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

    /// Every ordinary token's bytes, in rank order (special tokens' ranks
    /// left out).
    pub(crate) fn tokens(&self) -> impl Iterator<Item = &'static [u8]> + '_ {
        (0..self.slots as u32)
            .map(|rank| self.token(rank))
            .filter(|bytes| !bytes.is_empty())
    }
}

impl Ranks for Vocabulary {
    #[inline]
    fn rank(&self, bytes: &[u8]) -> Option<u32> {
        Vocabulary::rank(self, bytes)
    }
}
