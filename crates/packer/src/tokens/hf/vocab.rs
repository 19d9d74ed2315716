//! A BPE model's vocabulary and merges in a few flat arrays, read straight
//! from the file's JSON.
//!
//! A `tokenizer.json` of 200k tokens and 500k merges (gpt-oss, Gemma 3) is
//! read once to count a handful of words: a map of 200k boxed strings and
//! a list of 500k pairs of strings, as `serde` would build them, cost more
//! memory than the file itself. Here every token's text is copied once
//! into one string, each merge is turned into ids as it is read (never
//! kept as text), and both are found through tables of `u32` indices.

use std::borrow::Cow;
use std::fmt;
use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::error::Error;
use crate::tokens::family::invalid;

/// An open-addressing index into a list of entries (linear probing), at
/// most 3/5 full: 0 for an empty slot, else an entry's index + 1 in the low
/// `index_bits`, and above it bits of the entry's hash, so that most slots
/// of other entries are passed over without looking at the entry.
struct Slots {
    slots: Box<[u32]>,
    index_bits: u32,
}

impl Slots {
    /// Room for `entries` entries.
    fn new(entries: usize) -> Slots {
        let entries = u32::try_from(entries).expect("fewer than 2³² entries");
        Slots {
            slots: vec![0; entries as usize + entries as usize * 2 / 3 + 1].into_boxed_slice(),
            index_bits: (u32::BITS - entries.leading_zeros()).max(1),
        }
    }

    /// Where the search for `hash` starts, and the tag of its slot.
    fn start(&self, hash: u64) -> (usize, u32) {
        // The hash times 2⁶⁴ ÷ φ: its top bits place the entry, lower
        // ones tag it.
        let spread = hash.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = ((u128::from(spread) * self.slots.len() as u128) >> 64) as usize;
        let tag = ((spread >> 16) as u32)
            .checked_shl(self.index_bits)
            .unwrap_or(0);
        (slot, tag)
    }

    /// The slot that holds the entry of `hash` that `is` accepts, and
    /// that entry's index; or the empty slot where it would go.
    fn find(&self, hash: u64, is: impl Fn(usize) -> bool) -> (usize, Option<usize>) {
        let (mut slot, tag) = self.start(hash);
        let index_mask = u32::MAX.checked_shr(32 - self.index_bits).unwrap_or(0);
        loop {
            match self.slots[slot] {
                0 => return (slot, None),
                taken if taken & !index_mask == tag => {
                    let index = (taken & index_mask) as usize - 1;
                    if is(index) {
                        return (slot, Some(index));
                    }
                }
                _ => {}
            }
            slot = if slot + 1 == self.slots.len() {
                0
            } else {
                slot + 1
            };
        }
    }

    /// Puts the entry `index`, of `hash`, in `slot` (found by
    /// [`Slots::find`]).
    fn put(&mut self, slot: usize, hash: u64, index: usize) {
        let (_, tag) = self.start(hash);
        self.slots[slot] = tag | (index as u32 + 1);
    }
}

/// Token texts and their ids: every text one after another in `text`,
/// found by hash.
pub(super) struct Vocab {
    /// Every token's text, one after another.
    text: String,
    /// Each token's (start in `text`, id); its text ends where the next
    /// one's starts.
    tokens: Vec<[u32; 2]>,
    slots: Slots,
}

impl Default for Vocab {
    fn default() -> Vocab {
        Vocab {
            text: String::new(),
            tokens: Vec::new(),
            slots: Slots::new(0),
        }
    }
}

impl Vocab {
    /// The token at `index`'s text.
    fn text_at(&self, index: usize) -> &str {
        let start = self.tokens[index][0] as usize;
        let end = self
            .tokens
            .get(index + 1)
            .map_or(self.text.len(), |next| next[0] as usize);
        &self.text[start..end]
    }

    /// Adds a token (not yet findable: see [`Vocab::index`]); false when
    /// the texts are too long to index with `u32`.
    fn push(&mut self, token: &str, id: u32) -> bool {
        let start = self.text.len() as u32;
        self.text.push_str(token);
        if u32::try_from(self.text.len()).is_err() {
            return false;
        }
        self.tokens.push([start, id]);
        true
    }

    /// Makes every token pushed findable. As in a map built entry by entry,
    /// a text listed twice keeps its last id (its earlier entry, no longer
    /// indexed, stays in place).
    fn index(&mut self) {
        let mut slots = Slots::new(self.tokens.len());
        for index in 0..self.tokens.len() {
            let token = self.text_at(index);
            let hash = hash(token);
            let (slot, _) = slots.find(hash, |other| self.text_at(other) == token);
            slots.put(slot, hash, index);
        }
        self.slots = slots;
    }

    /// The id of `token`, if it is in the vocabulary.
    pub(super) fn get(&self, token: &str) -> Option<u32> {
        let (_, found) = self
            .slots
            .find(hash(token), |index| self.text_at(index) == token);
        found.map(|index| self.tokens[index][1])
    }

    /// Whether `token` is in the vocabulary.
    pub(super) fn contains(&self, token: &str) -> bool {
        self.get(token).is_some()
    }

    /// Every entry read, in order, as (text, id) (a text listed twice is
    /// there twice, with each of its ids).
    pub(super) fn entries(&self) -> impl Iterator<Item = (&str, u32)> {
        (0..self.tokens.len()).map(|index| (self.text_at(index), self.tokens[index][1]))
    }
}

fn hash(token: &str) -> u64 {
    FxBuildHasher.hash_one(token)
}

/// Reads a `vocab` object (token → id) into a [`Vocab`].
pub(super) struct VocabSeed;

impl<'de> DeserializeSeed<'de> for VocabSeed {
    type Value = Vocab;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Vocab, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for VocabSeed {
    type Value = Vocab;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of tokens to ids")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Vocab, A::Error> {
        let mut vocab = Vocab::default();
        while let Some(token) = access.next_key::<Cow<'de, str>>()? {
            let id: u32 = access.next_value()?;
            if !vocab.push(&token, id) {
                return Err(de::Error::custom("a vocab too large"));
            }
        }
        vocab.index();
        Ok(vocab)
    }
}

/// Merges by pair of ids, found by hash: each merge line once, in order
/// (a merge's line is its index), and a table of indices into them.
pub(super) struct MergeTable {
    /// (left id, right id, merged id) of each line.
    merges: Box<[[u32; 3]]>,
    slots: Slots,
}

fn pair_hash(left: u32, right: u32) -> u64 {
    (u64::from(left) << 32) | u64::from(right)
}

impl MergeTable {
    /// The table of `merges` ((left id, right id, merged id) of each
    /// line). As in the reference, a pair listed twice keeps its last line.
    pub(super) fn new(merges: Vec<[u32; 3]>) -> MergeTable {
        let merges = merges.into_boxed_slice();
        let mut slots = Slots::new(merges.len());
        for (index, &[left, right, _]) in merges.iter().enumerate() {
            let hash = pair_hash(left, right);
            let (slot, _) = slots.find(hash, |other| merges[other][..2] == [left, right]);
            slots.put(slot, hash, index);
        }
        MergeTable { merges, slots }
    }

    /// The line and merged id of `left` followed by `right`, if they merge.
    pub(super) fn get(&self, left: u32, right: u32) -> Option<(u32, u32)> {
        let (_, found) = self.slots.find(pair_hash(left, right), |index| {
            self.merges[index][..2] == [left, right]
        });
        found.map(|index| (index as u32, self.merges[index][2]))
    }
}

/// Reads a `merges` list, turning each line into ids with `vocab` as it is
/// read (without a vocabulary, only checks the lines' shape). The first
/// line that names or makes a token not in the vocabulary is kept in
/// `problem` (and the reading goes on, so that a JSON error later in the
/// file is still the one reported).
pub(super) struct MergesSeed<'v> {
    pub(super) vocab: Option<&'v Vocab>,
    pub(super) problem: &'v mut Option<Error>,
}

impl<'de> DeserializeSeed<'de> for MergesSeed<'_> {
    type Value = Vec<[u32; 3]>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Vec<[u32; 3]>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MergesSeed<'_> {
    type Value = Vec<[u32; 3]>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of merges")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<[u32; 3]>, A::Error> {
        let mut merges = Vec::new();
        let mut joined = String::new();
        let mut line = 0usize;
        while let Some(MergeLine(a, b)) = seq.next_element()? {
            if let Some(vocab) = self.vocab.filter(|_| self.problem.is_none()) {
                match resolve(vocab, &a, &b, line, &mut joined) {
                    Ok(merge) => merges.push(merge),
                    Err(problem) => *self.problem = Some(problem),
                }
            }
            line += 1;
        }
        Ok(merges)
    }
}

/// One line of `merges`: `"a b"` (older files) or `["a", "b"]`.
struct MergeLine<'a>(Cow<'a, str>, Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for MergeLine<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = MergeLine<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a merge: \"a b\" or [\"a\", \"b\"]")
            }
            fn visit_borrowed_str<E: serde::de::Error>(
                self,
                s: &'de str,
            ) -> Result<Self::Value, E> {
                match s.split_once(' ') {
                    Some((a, b)) if !b.contains(' ') => {
                        Ok(MergeLine(Cow::Borrowed(a), Cow::Borrowed(b)))
                    }
                    _ => Err(E::custom("a merge line that is not two tokens")),
                }
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                match s.split_once(' ') {
                    Some((a, b)) if !b.contains(' ') => {
                        Ok(MergeLine(Cow::Owned(a.into()), Cow::Owned(b.into())))
                    }
                    _ => Err(E::custom("a merge line that is not two tokens")),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let a: Cow<'de, str> = seq
                    .next_element()?
                    .ok_or_else(|| serde::de::Error::custom("a merge of fewer than two tokens"))?;
                let b: Cow<'de, str> = seq
                    .next_element()?
                    .ok_or_else(|| serde::de::Error::custom("a merge of fewer than two tokens"))?;
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(serde::de::Error::custom("a merge of more than two tokens"));
                }
                Ok(MergeLine(a, b))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// (left id, right id, merged id) of merge line `line`, `a b`.
fn resolve(
    vocab: &Vocab,
    a: &str,
    b: &str,
    line: usize,
    joined: &mut String,
) -> Result<[u32; 3], Error> {
    let missing = || {
        invalid(format!(
            "merges[{line}] names a token that is not in the vocab"
        ))
    };
    let a_id = vocab.get(a).ok_or_else(missing)?;
    let b_id = vocab.get(b).ok_or_else(missing)?;
    joined.clear();
    joined.push_str(a);
    joined.push_str(b);
    let merged = vocab.get(joined).ok_or_else(|| {
        invalid(format!(
            "merges[{line}] makes a token that is not in the vocab"
        ))
    })?;
    // (A line's index + 1 is kept as a `u32`.)
    if u32::try_from(line + 1).is_err() {
        return Err(invalid("it has too many merges"));
    }
    Ok([a_id, b_id, merged])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(json: &str) -> Vocab {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        VocabSeed.deserialize(&mut deserializer).unwrap()
    }

    #[test]
    fn a_token_listed_twice_keeps_its_last_id() {
        let vocab = vocab(r#"{"a":0,"b":1,"a":2,"\u0120":3,"":4}"#);
        assert_eq!(vocab.get("a"), Some(2));
        assert_eq!(vocab.get("b"), Some(1));
        assert_eq!(vocab.get("Ġ"), Some(3));
        assert_eq!(vocab.get(""), Some(4));
        assert_eq!(vocab.get("ab"), None);
        assert!(!Vocab::default().contains("a"));
        assert!(!Vocab::default().contains(""));
    }

    #[test]
    fn every_token_of_a_large_vocabulary_is_found() {
        let entries: Vec<String> = (0..5000).map(|i| format!(r#""t{i}":{}"#, 7 * i)).collect();
        let vocab = vocab(&format!("{{{}}}", entries.join(",")));
        for i in 0..5000 {
            assert_eq!(vocab.get(&format!("t{i}")), Some(7 * i));
        }
        assert_eq!(vocab.get("t5000"), None);
        assert_eq!(vocab.get("t"), None);
    }

    /// A pair listed twice keeps its last line; pairs that differ only
    /// in order, or by ids far apart, are told apart.
    #[test]
    fn merges_are_found_by_pair_with_their_last_line() {
        for base in [0, 3_000_000_000] {
            let merges = vec![
                [base + 2, base + 1, 9],
                [base + 1, base + 2, 7],
                [base + 1, base + 5, 8],
                [base + 1, base + 2, 6],
                [base, base, 5],
            ];
            let table = MergeTable::new(merges);
            assert_eq!(table.get(base + 1, base + 2), Some((3, 6)));
            assert_eq!(table.get(base + 2, base + 1), Some((0, 9)));
            assert_eq!(table.get(base + 1, base + 5), Some((2, 8)));
            assert_eq!(table.get(base, base), Some((4, 5)));
            assert_eq!(table.get(base + 2, base + 2), None);
            assert_eq!(table.get(base + 5, base + 1), None);
            assert_eq!(table.get(u32::MAX, 0), None);
        }
        assert_eq!(MergeTable::new(Vec::new()).get(0, 0), None);
        let many: Vec<[u32; 3]> = (0..20_000).map(|i| [i % 100, i / 100, i + 1]).collect();
        let table = MergeTable::new(many);
        for i in 0..20_000 {
            assert_eq!(table.get(i % 100, i / 100), Some((i, i + 1)));
        }
        assert_eq!(table.get(100, 0), None);
    }
}
