//! The built-in encodings' vocabularies, built into the binary by the build
//! script (see `build.rs` for the layout) and read in place: a token's rank
//! is found by hashing its bytes into a table of ranks. Only that table is
//! built when an encoding is first used (about 200,000 hashes for
//! `o200k_base`); carrying it in the binary would add 4 MB to it.
//!
//! A vocabulary is [`Ranks`]: its pieces are merged by the `bpe` module's
//! ranked merge, exactly as tiktoken merges them.

mod hash;

use crate::tokens::bpe::Ranks;

/// "PKV2" as a little-endian word, the first word of every table.
const MAGIC: u32 = u32::from_le_bytes(*b"PKV2");
/// The header's words: magic, rank slots, longest token.
const HEADER: usize = 3;
/// An empty slot of the hash table.
const EMPTY: u32 = u32::MAX;

/// One encoding's vocabulary: its tokens borrowed from the binary, and an
/// open-addressing hash table of ranks (linear probing, at most half full)
/// found from the top `bits` bits of [`hash::hash`] of a token's bytes.
pub(crate) struct Vocabulary {
    blob: &'static [u8],
    /// Rank slots (ranks that are special tokens have no bytes).
    slots: usize,
    bits: u32,
    longest: usize,
    /// Where the token bytes start (a byte offset).
    bytes: usize,
    table: Box<[u32]>,
}

fn word_at(blob: &[u8], index: usize) -> u32 {
    let at = index * 4;
    u32::from_le_bytes(blob[at..at + 4].try_into().expect("four bytes"))
}

impl Vocabulary {
    /// Reads a table's header and hashes its tokens. Panics on a table the
    /// build script did not make (a build error, not an input error).
    pub(crate) fn new(blob: &'static [u8]) -> Vocabulary {
        assert_eq!(word_at(blob, 0), MAGIC, "a vocabulary table");
        let slots = word_at(blob, 1) as usize;
        let longest = word_at(blob, 2) as usize;
        let bytes = 4 * (HEADER + slots + 1);
        let mut bits = 1;
        while (1usize << bits) < 2 * slots {
            bits += 1;
        }
        let mut vocabulary = Vocabulary {
            blob,
            slots,
            bits,
            longest,
            bytes,
            table: vec![EMPTY; 1 << bits].into_boxed_slice(),
        };
        assert_eq!(
            bytes + vocabulary.word(HEADER + slots) as usize,
            blob.len(),
            "a whole vocabulary table"
        );
        let mask = (1usize << bits) - 1;
        for rank in 0..slots as u32 {
            let token = vocabulary.token(rank);
            if token.is_empty() {
                continue;
            }
            let mut at = (hash::hash(token) >> (64 - bits)) as usize;
            while vocabulary.table[at] != EMPTY {
                at = (at + 1) & mask;
            }
            vocabulary.table[at] = rank;
        }
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
            let rank = self.table[at];
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
