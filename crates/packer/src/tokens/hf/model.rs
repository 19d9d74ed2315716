//! Hugging Face's BPE model: merges listed in the file, over the bytes of
//! a `ByteLevel` pre-tokenizer's pieces, merged by the reference's own loop
//! (the `merge` module), so no assumption about the order of the
//! vocabulary is needed.

use std::borrow::Cow;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::tokens::bpe::merge::{self, Merges};
use crate::tokens::file::{invalid, json_error, unsupported};

use super::unigram::Unigram;
use super::wordpiece::WordPiece;

/// A BPE model with listed merges: symbols are token ids.
pub(super) struct Bpe {
    byte_ids: Box<[u32; 256]>,
    /// (left id, right id) → (line in `merges`, merged id).
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    /// With `ignore_merges`: every token's bytes, to take a whole piece
    /// that is a token as that token.
    whole: Option<FxHashMap<Box<[u8]>, u32>>,
}

struct ListedMerges<'a> {
    byte_ids: &'a [u32; 256],
    merges: &'a FxHashMap<(u32, u32), (u32, u32)>,
}

impl Merges for ListedMerges<'_> {
    type Symbol = u32;

    fn byte(&self, piece: &[u8], index: usize) -> u32 {
        self.byte_ids[piece[index] as usize]
    }

    fn merge(&self, _: &[u8], left: u32, right: u32) -> Option<(u32, u32)> {
        self.merges.get(&(left, right)).copied()
    }
}

/// The models a `tokenizer.json` can hold that packer counts with.
pub(super) enum Model {
    /// Over the bytes of `ByteLevel` pieces.
    Bytes(Bpe),
    /// Over characters, SentencePiece style.
    Chars(CharBpe),
    /// Not BPE: WordPiece, over the words of the pre-tokenizer.
    WordPiece(WordPiece),
    /// Not BPE: Unigram, over the pieces of the pre-tokenizer.
    Unigram(Unigram),
}

impl Model {
    /// Reads the model (whose type is BPE): over bytes when a `ByteLevel`
    /// pre-tokenizer makes its pieces, over characters otherwise.
    pub(super) fn parse(raw: &RawValue, byte_level: bool) -> Result<Model, Error> {
        let model: BpeModel = serde_json::from_str(raw.get()).map_err(|e| json_error(&e))?;
        if byte_level {
            Bpe::from_model(model).map(Model::Bytes)
        } else {
            CharBpe::from_model(model).map(Model::Chars)
        }
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &[u8]) -> usize {
        match self {
            Model::Bytes(bpe) => bpe.count(piece),
            Model::Chars(bpe) => {
                bpe.count(std::str::from_utf8(piece).expect("pieces are cut from a str"))
            }
            Model::WordPiece(model) => {
                model.count(std::str::from_utf8(piece).expect("pieces are cut from a str"))
            }
            Model::Unigram(model) => {
                model.count(std::str::from_utf8(piece).expect("pieces are cut from a str"))
            }
        }
    }
}

/// Refuses what no BPE model here counts exactly.
fn check_common(model: &BpeModel) -> Result<(), Error> {
    if model.dropout.is_some_and(|d| d != 0.0) {
        return Err(unsupported(
            "a BPE model with dropout (its counts are random)",
        ));
    }
    if model
        .continuing_subword_prefix
        .as_deref()
        .is_some_and(|p| !p.is_empty())
        || model
            .end_of_word_suffix
            .as_deref()
            .is_some_and(|s| !s.is_empty())
    {
        return Err(unsupported("a BPE model with a subword prefix or suffix"));
    }
    Ok(())
}

/// Merges by pair of ids: (left id, right id) → (line in `merges`, merged
/// id).
type MergeMap = FxHashMap<(u32, u32), (u32, u32)>;

/// The file's merges.
fn listed_merges(model: &BpeModel) -> Result<MergeMap, Error> {
    let mut merges: MergeMap = FxHashMap::default();
    merges.reserve(model.merges.len());
    let mut joined = String::new();
    for (line, MergeLine(a, b)) in model.merges.iter().enumerate() {
        let missing = || {
            invalid(format!(
                "merges[{line}] names a token that is not in the vocab"
            ))
        };
        let a_id = *model.vocab.get(a.as_ref()).ok_or_else(missing)?;
        let b_id = *model.vocab.get(b.as_ref()).ok_or_else(missing)?;
        joined.clear();
        joined.push_str(a);
        joined.push_str(b);
        let merged = *model.vocab.get(joined.as_str()).ok_or_else(|| {
            invalid(format!(
                "merges[{line}] makes a token that is not in the vocab"
            ))
        })?;
        let rank = u32::try_from(line).map_err(|_| invalid("it has too many merges"))?;
        // As in the reference, a pair listed twice keeps its last line.
        merges.insert((a_id, b_id), (rank, merged));
    }
    Ok(merges)
}

/// A BPE model over characters (SentencePiece conversions: Llama 2,
/// Mistral 7B, Gemma): a piece starts as one symbol per character, a
/// character not in the vocabulary as its bytes' `<0xNN>` tokens
/// (`byte_fallback`) or else the unknown token (consecutive ones fused into
/// one with `fuse_unk`), then merges as listed. The reference's
/// `BPE::merge_word`, step by step.
pub(super) struct CharBpe {
    vocab: FxHashMap<Box<str>, u32>,
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    /// With `byte_fallback`: the id of each byte's `<0xNN>` token.
    bytes: Option<Box<[Option<u32>; 256]>>,
    unk: Option<u32>,
    fuse_unk: bool,
    ignore_merges: bool,
}

/// Merges of symbols that are token ids (the piece's bytes are not used).
struct IdMerges<'a>(&'a FxHashMap<(u32, u32), (u32, u32)>);

impl Merges for IdMerges<'_> {
    type Symbol = u32;

    fn byte(&self, _: &[u8], _: usize) -> u32 {
        unreachable!("symbols over characters are given, not made from bytes")
    }

    fn merge(&self, _: &[u8], left: u32, right: u32) -> Option<(u32, u32)> {
        self.0.get(&(left, right)).copied()
    }
}

impl CharBpe {
    fn from_model(model: BpeModel) -> Result<CharBpe, Error> {
        check_common(&model)?;
        let merges = listed_merges(&model)?;
        let bytes = (model.byte_fallback == Some(true)).then(|| {
            let mut ids = Box::new([None; 256]);
            for (byte, id) in ids.iter_mut().enumerate() {
                *id = model.vocab.get(format!("<0x{byte:02X}>").as_str()).copied();
            }
            ids
        });
        let unk = match model.unk_token.as_deref() {
            Some(unk) => Some(
                *model
                    .vocab
                    .get(unk)
                    .ok_or_else(|| invalid("its unk_token is not in the vocab"))?,
            ),
            None => None,
        };
        let vocab = model
            .vocab
            .into_iter()
            .map(|(token, id)| (Box::from(token.as_ref()), id))
            .collect();
        Ok(CharBpe {
            vocab,
            merges,
            bytes,
            unk,
            fuse_unk: model.fuse_unk == Some(true),
            ignore_merges: model.ignore_merges == Some(true),
        })
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &str) -> usize {
        if piece.is_empty() {
            return 0;
        }
        if self.ignore_merges && self.vocab.contains_key(piece) {
            return 1;
        }
        let mut symbols: Vec<u32> = Vec::with_capacity(piece.len());
        // The unknown token waiting to be added (fused with the next
        // unknown characters with `fuse_unk`).
        let mut unk: Option<u32> = None;
        for (at, c) in piece.char_indices() {
            let text = &piece[at..at + c.len_utf8()];
            if let Some(&id) = self.vocab.get(text) {
                symbols.extend(unk.take());
                symbols.push(id);
                continue;
            }
            if let Some(bytes) = &self.bytes {
                let fallback: Option<Vec<u32>> =
                    text.bytes().map(|b| bytes[usize::from(b)]).collect();
                if let Some(fallback) = fallback {
                    // As the reference does, a waiting unknown token stays
                    // waiting (it comes after these).
                    symbols.extend(fallback);
                    continue;
                }
            }
            if let Some(unk_id) = self.unk {
                unk = match unk {
                    Some(waiting) if self.fuse_unk => Some(waiting),
                    Some(waiting) => {
                        symbols.push(waiting);
                        Some(unk_id)
                    }
                    None => Some(unk_id),
                };
            }
        }
        symbols.extend(unk);
        merge::count_symbols(&IdMerges(&self.merges), piece.as_bytes(), symbols)
    }
}

impl Bpe {
    /// Reads a byte-level model or says why it cannot be counted with.
    fn from_model(model: BpeModel) -> Result<Bpe, Error> {
        if model.byte_fallback == Some(true) {
            return Err(unsupported("a byte-level BPE model with byte_fallback"));
        }
        if model.dropout.is_some_and(|d| d != 0.0) {
            return Err(unsupported(
                "a BPE model with dropout (its counts are random)",
            ));
        }
        if model
            .continuing_subword_prefix
            .as_deref()
            .is_some_and(|p| !p.is_empty())
            || model
                .end_of_word_suffix
                .as_deref()
                .is_some_and(|s| !s.is_empty())
        {
            return Err(unsupported("a BPE model with a subword prefix or suffix"));
        }
        let chars = byte_level_chars();
        let mut char_bytes: FxHashMap<char, u8> = FxHashMap::default();
        for (byte, c) in chars.iter().enumerate() {
            char_bytes.insert(*c, byte as u8);
        }
        let mut byte_ids = [0u32; 256];
        let mut buffer = [0u8; 4];
        for (byte, c) in chars.iter().enumerate() {
            let Some(&id) = model.vocab.get(&*c.encode_utf8(&mut buffer)) else {
                return Err(invalid(format!(
                    "its vocab has no token for the single byte {byte}"
                )));
            };
            byte_ids[byte] = id;
        }
        let merges = listed_merges(&model)?;
        let whole = if model.ignore_merges == Some(true) {
            let mut whole: FxHashMap<Box<[u8]>, u32> = FxHashMap::default();
            whole.reserve(model.vocab.len());
            'tokens: for (token, &id) in &model.vocab {
                let mut bytes = Vec::with_capacity(token.len());
                for c in token.chars() {
                    // A token with other characters can never equal a piece.
                    let Some(&byte) = char_bytes.get(&c) else {
                        continue 'tokens;
                    };
                    bytes.push(byte);
                }
                whole.insert(bytes.into(), id);
            }
            Some(whole)
        } else {
            None
        };
        Ok(Bpe {
            byte_ids: Box::new(byte_ids),
            merges,
            whole,
        })
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &[u8]) -> usize {
        if let Some(whole) = &self.whole
            && whole.contains_key(piece)
        {
            return 1;
        }
        let merges = ListedMerges {
            byte_ids: &self.byte_ids,
            merges: &self.merges,
        };
        merge::count(&merges, piece)
    }
}

#[derive(Deserialize)]
struct BpeModel<'a> {
    #[serde(borrow, deserialize_with = "vocab_map")]
    vocab: FxHashMap<Cow<'a, str>, u32>,
    #[serde(borrow)]
    merges: Vec<MergeLine<'a>>,
    #[serde(default)]
    dropout: Option<f64>,
    #[serde(default)]
    byte_fallback: Option<bool>,
    #[serde(default, borrow)]
    continuing_subword_prefix: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    end_of_word_suffix: Option<Cow<'a, str>>,
    #[serde(default)]
    ignore_merges: Option<bool>,
    #[serde(default, borrow)]
    unk_token: Option<Cow<'a, str>>,
    #[serde(default)]
    fuse_unk: Option<bool>,
}

/// A `vocab` object as a map, sized once: its entries are read into a list
/// first, so the map is built without growing and rehashing 150k entries
/// (JSON gives no length up front).
fn vocab_map<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<FxHashMap<Cow<'de, str>, u32>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = FxHashMap<Cow<'de, str>, u32>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a map of tokens to ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut access: A,
        ) -> Result<Self::Value, A::Error> {
            let mut entries: Vec<(Cow<'de, str>, u32)> = Vec::new();
            while let Some(entry) = access.next_entry()? {
                entries.push(entry);
            }
            let mut map = FxHashMap::default();
            map.reserve(entries.len());
            // As with a map read directly, a repeated token keeps its last id.
            map.extend(entries);
            Ok(map)
        }
    }
    deserializer.deserialize_map(Visitor)
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

/// GPT-2's bytes-to-characters table: printable bytes are themselves, the
/// others are shifted to U+0100 and up.
fn byte_level_chars() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    for byte in 0..=255u8 {
        let printable = matches!(byte, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        table[byte as usize] = if printable {
            char::from(byte)
        } else {
            let c = char::from_u32(next).expect("below U+0200");
            next += 1;
            c
        };
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_level_table_is_gpt2s() {
        let chars = byte_level_chars();
        assert_eq!(chars[b' ' as usize], 'Ġ');
        assert_eq!(chars[b'\n' as usize], 'Ċ');
        assert_eq!(chars[b'a' as usize], 'a');
        assert_eq!(chars[0xAD], 'Ń');
        let distinct: std::collections::HashSet<char> = chars.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
    }
}
