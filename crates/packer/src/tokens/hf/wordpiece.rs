//! Hugging Face's WordPiece model (BERT and the embedding models built on
//! it: MiniLM, bge, e5): each pre-tokenized word is cut greedily, longest
//! match first, into tokens of the vocabulary, every token after the first
//! looked up with the `continuing_subword_prefix` (`##`) before it. A word
//! with a part that matches nothing, or longer than
//! `max_input_chars_per_word` characters, is the one `unk_token`. The
//! reference's `WordPiece::tokenize`, step by step.
//!
//! Refused with it: the `ByteLevel` and `Metaspace` pre-tokenizers. A file
//! whose `unk_token` is not in its vocabulary is `invalid-tokenizer` (the
//! reference fails on every word it cannot cut).

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::prefixes::Prefixes;
use super::{Family, PieceModel, Pipeline};
use crate::error::Error;
use crate::tokens::Engine;
use crate::tokens::family::{invalid, json_error};

/// The `WordPiece` family.
pub(super) const FAMILY: Family = Family {
    name: "WordPiece",
    check,
    build,
};

/// WordPiece works on words: no byte-level characters, no `▁`.
fn check(pipeline: &Pipeline<'_>) -> Result<(), Error> {
    pipeline.refuse_pre_tokenizers(&["ByteLevel", "Metaspace"])?;
    pipeline.refuse_normalizers(&["Precompiled"])
}

fn build(raw: &RawValue, pipeline: Pipeline<'_>) -> Result<Box<dyn Engine>, Error> {
    pipeline.engine(WordPiece::parse(raw)?)
}

impl PieceModel for WordPiece {
    fn count(&self, piece: &str) -> usize {
        WordPiece::count(self, piece)
    }
}

/// A WordPiece model: its vocabulary (the ids play no part in a count).
pub(super) struct WordPiece {
    vocab: Prefixes,
    prefix: Box<str>,
    max_chars: usize,
}

/// The model as the reference reads it: every field is required.
#[derive(Deserialize)]
struct WordPieceModel<'a> {
    #[serde(borrow)]
    unk_token: Cow<'a, str>,
    #[serde(borrow)]
    continuing_subword_prefix: Cow<'a, str>,
    max_input_chars_per_word: usize,
    #[serde(borrow)]
    vocab: std::collections::HashMap<Cow<'a, str>, u32>,
}

impl WordPiece {
    /// Reads the model (whose type is WordPiece).
    pub(super) fn parse(raw: &RawValue) -> Result<WordPiece, Error> {
        let model: WordPieceModel = serde_json::from_str(raw.get()).map_err(|e| json_error(&e))?;
        // The reference fails on a word it cannot cut when the unknown
        // token is not in the vocabulary; such a file has no count for
        // every text.
        if !model.vocab.contains_key(model.unk_token.as_ref()) {
            return Err(invalid("its unk_token is not in the vocab"));
        }
        Ok(WordPiece {
            vocab: Prefixes::new(
                model
                    .vocab
                    .into_keys()
                    .map(|token| Box::from(token.as_ref())),
            ),
            prefix: Box::from(model.continuing_subword_prefix.as_ref()),
            max_chars: model.max_input_chars_per_word,
        })
    }

    /// The tokens of one word: at each position the longest token that
    /// starts there (after the continuing prefix but at the word's start),
    /// as the reference finds it trying from the word's end; a word with a
    /// position no token starts at is the one unknown token.
    pub(super) fn count(&self, word: &str) -> usize {
        if word.chars().count() > self.max_chars {
            return 1;
        }
        let mut count = 0;
        let mut start = 0;
        while start < word.len() {
            let lead = if start > 0 { &*self.prefix } else { "" };
            let mut longest = None;
            self.vocab
                .each(lead, word, start, |end, _| longest = Some(end));
            let Some(end) = longest else {
                return 1;
            };
            count += 1;
            start = end;
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(json: &str) -> WordPiece {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        WordPiece::parse(&raw).unwrap()
    }

    #[test]
    fn words_are_cut_longest_match_first() {
        let wp = model(
            r###"{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##",
            "max_input_chars_per_word":9,
            "vocab":{"[UNK]":0,"un":1,"##aff":2,"##able":3,"una":4,"##ffable":5,"é":6,"##é":7}}"###,
        );
        // `una` is longest first, then `##ffable`.
        assert_eq!(wp.count("unaffable"), 1 + 1);
        assert_eq!(wp.count("unaff"), 1);
        assert_eq!(wp.count("éé"), 2);
        // A part with no match: the whole word is one unknown token.
        assert_eq!(wp.count("unx"), 1);
        assert_eq!(wp.count("unununununu"), 1);
        assert_eq!(wp.count(""), 0);
    }

    #[test]
    fn an_unknown_token_outside_the_vocab_is_invalid() {
        let raw: Box<RawValue> = serde_json::from_str(
            r###"{"unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":9,"vocab":{"a":0}}"###,
        )
        .unwrap();
        assert!(WordPiece::parse(&raw).is_err());
    }
}
