//! Hugging Face's BPE model: merges listed in the file, over the bytes of
//! a `ByteLevel` pre-tokenizer's pieces (Llama 3, Qwen, DeepSeek, OLMo,
//! GPT-4o converted), or over characters without one, as SentencePiece
//! conversions write it (Llama 2, Mistral 7B, Gemma; SPEC §2.2.1: each
//! character is its token, or its bytes' `<0xNN>` tokens with
//! `byte_fallback`, or the `unk_token`, consecutive ones fused with
//! `fuse_unk`), merged by the reference's own loop (the `merge` module), so
//! no assumption about the order of the vocabulary is needed;
//! `ignore_merges` as the file says.
//!
//! Counted around it besides the SentencePiece and byte-level shapes: the
//! `Lowercase` and `NFD` normalizers and the `Whitespace` and
//! `Punctuation` pre-tokenizers (Falcon's and CLIP's components).
//!
//! Refused: byte-level BPE with `byte_fallback`, subword prefixes and
//! suffixes, dropout, and the normalizers `BertNormalizer`, `StripAccents`
//! and `Precompiled` and the pre-tokenizers `BertPreTokenizer` and
//! `WhitespaceSplit`: no reference counts were made for BPE files with
//! them.

use std::borrow::Cow;
use std::fmt;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::error::Error;
use crate::tokens::bpe::merge::{self, Merges};
use crate::tokens::family::{invalid, json_error, unsupported};

use super::vocab::{MergeTable, MergesSeed, Vocab, VocabSeed};
use super::{Family, PieceModel, Pipeline};
use crate::tokens::Engine;

/// A BPE model with listed merges: symbols are token ids.
pub(super) struct Bpe {
    byte_ids: Box<[u32; 256]>,
    merges: MergeTable,
    /// With `ignore_merges`: the vocabulary, to take a whole piece that is
    /// a token as that token (looked up in its byte-level characters).
    whole: Option<Vocab>,
}

struct ListedMerges<'a> {
    byte_ids: &'a [u32; 256],
    merges: &'a MergeTable,
}

impl Merges for ListedMerges<'_> {
    type Symbol = u32;

    fn byte(&self, piece: &[u8], index: usize) -> u32 {
        self.byte_ids[piece[index] as usize]
    }

    fn merge(&self, _: &[u8], left: u32, right: u32) -> Option<(u32, u32)> {
        self.merges.get(left, right)
    }
}

/// The `BPE` family: over bytes when a `ByteLevel` pre-tokenizer makes
/// its pieces, over characters otherwise.
pub(super) const FAMILY: Family = Family {
    name: "BPE",
    check,
    build,
};

/// BERT's normalizer and pre-tokenizer, `StripAccents`, `WhitespaceSplit`
/// and `Precompiled` stay refused with BPE models: no reference counts were
/// made for such files. (`Lowercase`, `NFD`, `Whitespace` and
/// `Punctuation` are counted: the small `bpe-*` files of
/// tests/data/tokenizers, swept over every code point.)
fn check(pipeline: &Pipeline<'_>) -> Result<(), Error> {
    pipeline.refuse_normalizers(&["BertNormalizer", "StripAccents", "Precompiled"])?;
    pipeline.refuse_pre_tokenizers(&["BertPreTokenizer", "WhitespaceSplit"])
}

fn build(raw: &RawValue, pipeline: Pipeline<'_>) -> Result<Box<dyn Engine>, Error> {
    let model = BpeModel::read(raw)?;
    if pipeline.byte_level {
        pipeline.engine(Bpe::from_model(model)?)
    } else {
        pipeline.engine(CharBpe::from_model(model)?)
    }
}

impl PieceModel for Bpe {
    fn count(&self, piece: &str) -> usize {
        Bpe::count(self, piece.as_bytes())
    }
}

impl PieceModel for CharBpe {
    fn count(&self, piece: &str) -> usize {
        CharBpe::count(self, piece)
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

/// A BPE model over characters (SentencePiece conversions: Llama 2,
/// Mistral 7B, Gemma): a piece starts as one symbol per character, a
/// character not in the vocabulary as its bytes' `<0xNN>` tokens
/// (`byte_fallback`) or else the unknown token (consecutive ones fused into
/// one with `fuse_unk`), then merges as listed. The reference's
/// `BPE::merge_word`, step by step.
pub(super) struct CharBpe {
    /// The id of each token that is one character.
    chars: FxHashMap<char, u32>,
    /// With `ignore_merges`: the vocabulary, to take a whole piece that is
    /// a token as that token.
    whole: Option<Vocab>,
    merges: MergeTable,
    /// With `byte_fallback`: the id of each byte's `<0xNN>` token.
    bytes: Option<Box<[Option<u32>; 256]>>,
    unk: Option<u32>,
    fuse_unk: bool,
}

/// Merges of symbols that are token ids (the piece's bytes are not used).
struct IdMerges<'a>(&'a MergeTable);

impl Merges for IdMerges<'_> {
    type Symbol = u32;

    fn byte(&self, _: &[u8], _: usize) -> u32 {
        unreachable!("symbols over characters are given, not made from bytes")
    }

    fn merge(&self, _: &[u8], left: u32, right: u32) -> Option<(u32, u32)> {
        self.0.get(left, right)
    }
}

impl CharBpe {
    fn from_model(model: BpeModel) -> Result<CharBpe, Error> {
        check_common(&model)?;
        if let Some(problem) = model.merge_problem {
            return Err(problem);
        }
        let vocab = model.vocab;
        let merges = MergeTable::new(model.merges);
        let bytes = (model.byte_fallback == Some(true)).then(|| {
            let mut ids = Box::new([None; 256]);
            for (byte, id) in ids.iter_mut().enumerate() {
                *id = vocab.get(&format!("<0x{byte:02X}>"));
            }
            ids
        });
        let unk = match model.unk_token.as_deref() {
            Some(unk) => Some(
                vocab
                    .get(unk)
                    .ok_or_else(|| invalid("its unk_token is not in the vocab"))?,
            ),
            None => None,
        };
        let mut chars = FxHashMap::default();
        for (token, id) in vocab.entries() {
            let mut token = token.chars();
            if let (Some(c), None) = (token.next(), token.next()) {
                // (A token listed twice keeps its last id.)
                chars.insert(c, id);
            }
        }
        Ok(CharBpe {
            chars,
            whole: (model.ignore_merges == Some(true)).then_some(vocab),
            merges,
            bytes,
            unk,
            fuse_unk: model.fuse_unk == Some(true),
        })
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &str) -> usize {
        if piece.is_empty() {
            return 0;
        }
        if let Some(whole) = &self.whole
            && whole.contains(piece)
        {
            return 1;
        }
        let mut symbols: Vec<u32> = Vec::with_capacity(piece.len());
        // The unknown token waiting to be added (fused with the next
        // unknown characters with `fuse_unk`).
        let mut unk: Option<u32> = None;
        for (at, c) in piece.char_indices() {
            let text = &piece[at..at + c.len_utf8()];
            if let Some(&id) = self.chars.get(&c) {
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
        check_common(&model)?;
        let mut byte_ids = [0u32; 256];
        let mut buffer = [0u8; 4];
        for (byte, c) in BYTE_CHARS.iter().enumerate() {
            let Some(id) = model.vocab.get(c.encode_utf8(&mut buffer)) else {
                return Err(invalid(format!(
                    "its vocab has no token for the single byte {byte}"
                )));
            };
            byte_ids[byte] = id;
        }
        if let Some(problem) = model.merge_problem {
            return Err(problem);
        }
        let merges = MergeTable::new(model.merges);
        Ok(Bpe {
            byte_ids: Box::new(byte_ids),
            merges,
            whole: (model.ignore_merges == Some(true)).then_some(model.vocab),
        })
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &[u8]) -> usize {
        if let Some(whole) = &self.whole {
            // A token whose text is the piece's byte-level characters (a
            // token with other characters can never equal a piece).
            let text: String = piece.iter().map(|&b| BYTE_CHARS[b as usize]).collect();
            if whole.contains(&text) {
                return 1;
            }
        }
        let merges = ListedMerges {
            byte_ids: &self.byte_ids,
            merges: &self.merges,
        };
        merge::count(&merges, piece)
    }
}

/// A BPE model's fields, as the reference reads them; its merges as ids.
struct BpeModel {
    vocab: Vocab,
    /// (left id, right id, merged id) of every merge line, in order.
    merges: Vec<[u32; 3]>,
    /// The first merge line that names or makes a token not in `vocab`.
    merge_problem: Option<Error>,
    dropout: Option<f64>,
    byte_fallback: Option<bool>,
    continuing_subword_prefix: Option<String>,
    end_of_word_suffix: Option<String>,
    ignore_merges: Option<bool>,
    unk_token: Option<String>,
    fuse_unk: Option<bool>,
}

impl BpeModel {
    /// Reads the model's JSON in one pass, or two when `merges` comes
    /// before `vocab` (the second pass turns the merges into ids).
    fn read(raw: &RawValue) -> Result<BpeModel, Error> {
        let fields = read_fields(raw.get(), None).map_err(|e| json_error(&e))?;
        let vocab = fields.vocab.expect("a first pass reads the vocab or fails");
        let (merges, merge_problem) = if fields.merges_read {
            (fields.merges, fields.merge_problem)
        } else {
            let again = read_fields(raw.get(), Some(&vocab)).map_err(|e| json_error(&e))?;
            (again.merges, again.merge_problem)
        };
        Ok(BpeModel {
            vocab,
            merges,
            merge_problem,
            dropout: fields.dropout.flatten(),
            byte_fallback: fields.byte_fallback.flatten(),
            continuing_subword_prefix: fields.continuing_subword_prefix.flatten(),
            end_of_word_suffix: fields.end_of_word_suffix.flatten(),
            ignore_merges: fields.ignore_merges.flatten(),
            unk_token: fields.unk_token.flatten(),
            fuse_unk: fields.fuse_unk.flatten(),
        })
    }
}

/// The fields of one pass over a model's JSON (`Some` once seen).
#[derive(Default)]
struct Fields {
    vocab: Option<Vocab>,
    merges: Vec<[u32; 3]>,
    /// Whether `merges` was seen with a vocabulary to read it with.
    merges_read: bool,
    merges_seen: bool,
    merge_problem: Option<Error>,
    dropout: Option<Option<f64>>,
    byte_fallback: Option<Option<bool>>,
    continuing_subword_prefix: Option<Option<String>>,
    end_of_word_suffix: Option<Option<String>>,
    ignore_merges: Option<Option<bool>>,
    unk_token: Option<Option<String>>,
    fuse_unk: Option<Option<bool>>,
}

/// One pass over a model's JSON; with `known` (the vocabulary read by a
/// first pass), `vocab` is skipped and the merges are read with it.
fn read_fields(text: &str, known: Option<&Vocab>) -> Result<Fields, serde_json::Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let fields = FieldsSeed { known }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(fields)
}

struct FieldsSeed<'v> {
    known: Option<&'v Vocab>,
}

impl<'de> DeserializeSeed<'de> for FieldsSeed<'_> {
    type Value = Fields;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Fields, D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// A field's value, refusing a field given twice (as a derived
/// `Deserialize` does).
fn once<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(de::Error::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

impl<'de> Visitor<'de> for FieldsSeed<'_> {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a BPE model")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut fields = Fields::default();
        let mut vocab_seen = false;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "vocab" => {
                    if vocab_seen {
                        return Err(de::Error::duplicate_field("vocab"));
                    }
                    vocab_seen = true;
                    if self.known.is_some() {
                        map.next_value::<IgnoredAny>()?;
                    } else {
                        fields.vocab = Some(map.next_value_seed(VocabSeed)?);
                    }
                }
                "merges" => {
                    if fields.merges_seen {
                        return Err(de::Error::duplicate_field("merges"));
                    }
                    fields.merges_seen = true;
                    let vocab = self.known.or(fields.vocab.as_ref());
                    fields.merges_read = vocab.is_some();
                    fields.merges = map.next_value_seed(MergesSeed {
                        vocab,
                        problem: &mut fields.merge_problem,
                    })?;
                }
                "dropout" => once(&mut map, &mut fields.dropout, "dropout")?,
                "byte_fallback" => once(&mut map, &mut fields.byte_fallback, "byte_fallback")?,
                "continuing_subword_prefix" => once(
                    &mut map,
                    &mut fields.continuing_subword_prefix,
                    "continuing_subword_prefix",
                )?,
                "end_of_word_suffix" => once(
                    &mut map,
                    &mut fields.end_of_word_suffix,
                    "end_of_word_suffix",
                )?,
                "ignore_merges" => once(&mut map, &mut fields.ignore_merges, "ignore_merges")?,
                "unk_token" => once(&mut map, &mut fields.unk_token, "unk_token")?,
                "fuse_unk" => once(&mut map, &mut fields.fuse_unk, "fuse_unk")?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !vocab_seen {
            return Err(de::Error::missing_field("vocab"));
        }
        if !fields.merges_seen {
            return Err(de::Error::missing_field("merges"));
        }
        Ok(fields)
    }
}

/// GPT-2's bytes-to-characters table: printable bytes are themselves, the
/// others are shifted to U+0100 and up.
const BYTE_CHARS: [char; 256] = byte_level_chars();

const fn byte_level_chars() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut next = 256u32;
    let mut byte = 0;
    while byte < 256 {
        let printable = matches!(byte as u8, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
        table[byte] = if printable {
            byte as u8 as char
        } else {
            next += 1;
            match char::from_u32(next - 1) {
                Some(c) => c,
                None => panic!("below U+0200"),
            }
        };
        byte += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_level_table_is_gpt2s() {
        let chars = BYTE_CHARS;
        assert_eq!(chars[b' ' as usize], 'Ġ');
        assert_eq!(chars[b'\n' as usize], 'Ċ');
        assert_eq!(chars[b'a' as usize], 'a');
        assert_eq!(chars[0xAD], 'Ń');
        let distinct: std::collections::HashSet<char> = chars.iter().copied().collect();
        assert_eq!(distinct.len(), 256);
    }
}
