//! Hugging Face's Unigram model (SentencePiece's unigram language model, as
//! T5, ALBERT, XLNet and many multilingual files convert it): each
//! pre-tokenized piece is cut where the sum of its tokens' scores is
//! highest. The reference's `Unigram::encode_optimized` (the Viterbi
//! search it runs whenever it does not sample) and `Unigram::tokenize`,
//! step by step:
//!
//! - at every character boundary, in order, every vocabulary token that
//!   starts there is tried, shortest first, and keeps the end it reaches
//!   only with a strictly higher total score (the first best wins a tie);
//! - a character that is no one-character token also reaches its end as
//!   the unknown token, scored the lowest score less 10 (`K_UNK_PENALTY`);
//! - on the best path, consecutive unknown tokens (and tokens whose id is
//!   `unk_id`) are fused into one piece;
//! - a piece that is not in the vocabulary is its bytes' `<0xNN>` tokens
//!   with `byte_fallback` when every one of them exists, otherwise the one
//!   unknown token.
//!
//! Scores are the file's `f64`s, read by the same JSON parser the reference
//! reads them with, and added in the same order, so ties fall the same way.
//!
//! Refused with it: the `ByteLevel` and `BertPreTokenizer` pre-tokenizers
//! and the `BertNormalizer`, `NFD` and `StripAccents` normalizers (no
//! reference counts were made for such files). A file without an `unk_id`
//! in its vocabulary is `invalid-tokenizer` (the reference fails on every
//! character it has no token for).

use std::borrow::Cow;

use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::prefixes::Prefixes;
use super::{Family, PieceModel, Pipeline};
use crate::error::Error;
use crate::tokens::Engine;
use crate::tokens::family::{invalid, json_error, over_limit};

/// The `Unigram` family.
pub(super) const FAMILY: Family = Family {
    name: "Unigram",
    check,
    build,
};

/// Unigram files (SentencePiece conversions) cut `▁`-marked pieces; the
/// BERT normalizer and pre-tokenizer, `NFD` and `StripAccents` stay
/// refused with them (no reference counts were made for such files).
fn check(pipeline: &Pipeline<'_>) -> Result<(), Error> {
    pipeline.refuse_pre_tokenizers(&["ByteLevel"])?;
    pipeline.refuse_normalizers(&["BertNormalizer", "NFD", "StripAccents"])?;
    pipeline.refuse_pre_tokenizers(&["BertPreTokenizer"])
}

fn build(raw: &RawValue, pipeline: Pipeline<'_>) -> Result<Box<dyn Engine>, Error> {
    pipeline.engine(Unigram::parse(raw)?)
}

impl PieceModel for Unigram {
    fn count(&self, piece: &str) -> usize {
        Unigram::count(self, piece)
    }
}

/// The reference's penalty below the lowest score for an unknown
/// character.
const K_UNK_PENALTY: f64 = 10.0;

/// A Unigram model: every token's score and whether its id is `unk_id`.
pub(super) struct Unigram {
    /// The tokens, searched by prefix.
    tokens: Prefixes,
    /// Each token's (score, whether the reference sees it as the unknown
    /// token), by its position in `tokens`.
    scores: Vec<(f64, bool)>,
    unk_score: f64,
    /// With `byte_fallback`: which bytes have their `<0xNN>` token.
    byte_tokens: Option<Box<[bool; 256]>>,
}

/// The model as the reference reads it.
#[derive(Deserialize)]
struct UnigramModel<'a> {
    #[serde(borrow)]
    vocab: Vec<(Cow<'a, str>, f64)>,
    #[serde(default)]
    unk_id: Option<usize>,
    #[serde(default)]
    byte_fallback: bool,
}

/// The best path found so far to a position.
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    /// Where its last token starts (`None`: not reached yet).
    from: Option<usize>,
    /// Whether its last token is the unknown token.
    unknown: bool,
}

/// The longest Unigram token read, in bytes (SentencePiece vocabularies'
/// longest are a few dozen).
pub(super) const MOST_TOKEN_BYTES: usize = 256;

impl Unigram {
    /// Reads the model (whose type is Unigram).
    pub(super) fn parse(raw: &RawValue) -> Result<Unigram, Error> {
        let model: UnigramModel = serde_json::from_str(raw.get()).map_err(|e| json_error(&e))?;
        // The reference fails on any character it has no token for when
        // there is no unknown token: such a file has no count for every
        // text.
        let Some(unk_id) = model.unk_id else {
            return Err(invalid("its Unigram model has no unk_id"));
        };
        if unk_id >= model.vocab.len() {
            return Err(invalid("its unk_id is not in the vocab"));
        }
        // Every position of a text is tried against every token that
        // starts there: the work is the text's length times the longest
        // token, so that is bounded.
        if let Some(longest) = model
            .vocab
            .iter()
            .map(|(token, _)| token.len())
            .max()
            .filter(|&longest| longest > MOST_TOKEN_BYTES)
        {
            return Err(over_limit(format!(
                "a Unigram token of {longest} bytes (the limit is {MOST_TOKEN_BYTES}: every \
                 character of a text is tried against the tokens that start there)"
            )));
        }
        let mut by_token: FxHashMap<&str, (f64, bool)> = FxHashMap::default();
        by_token.reserve(model.vocab.len());
        let mut min_score = f64::INFINITY;
        for (id, (token, score)) in model.vocab.iter().enumerate() {
            // As in the reference, a token listed twice keeps its last id,
            // and the score of that id.
            by_token.insert(token.as_ref(), (*score, id == unk_id));
            if *score < min_score {
                min_score = *score;
            }
        }
        let tokens = Prefixes::new(by_token.keys().map(|token| Box::from(*token)));
        let scores = tokens.tokens().map(|token| by_token[token]).collect();
        let byte_tokens = model.byte_fallback.then(|| {
            let mut present = Box::new([false; 256]);
            for (byte, slot) in present.iter_mut().enumerate() {
                *slot = by_token.contains_key(format!("<0x{byte:02X}>").as_str());
            }
            present
        });
        Ok(Unigram {
            tokens,
            scores,
            unk_score: min_score - K_UNK_PENALTY,
            byte_tokens,
        })
    }

    /// The tokens of one piece.
    pub(super) fn count(&self, piece: &str) -> usize {
        if piece.is_empty() {
            return 0;
        }
        let size = piece.len();
        let unreached = Best {
            score: 0.0,
            from: None,
            unknown: false,
        };
        let mut best = vec![unreached; size + 1];
        let mut start = 0;
        while start < size {
            if start % crate::cancel::STEPS_PER_CHECKPOINT < 4 {
                crate::cancel::checkpoint();
            }
            let here = best[start].score;
            let char_len = piece[start..].chars().next().map_or(1, char::len_utf8);
            let mut single = false;
            self.tokens.each("", piece, start, |end, position| {
                let (score, unknown) = self.scores[position];
                let candidate = score + here;
                let target = &mut best[end];
                if target.from.is_none() || candidate > target.score {
                    *target = Best {
                        score: candidate,
                        from: Some(start),
                        unknown,
                    };
                }
                if end - start == char_len {
                    single = true;
                }
            });
            if !single {
                let candidate = self.unk_score + here;
                let target = &mut best[start + char_len];
                if target.from.is_none() || candidate > target.score {
                    *target = Best {
                        score: candidate,
                        from: Some(start),
                        unknown: true,
                    };
                }
            }
            start += char_len;
        }
        // Back from the end: unknown tokens next to each other are one
        // piece.
        let mut count = 0;
        let mut end = size;
        let mut fused_start = None::<(usize, usize)>;
        while end > 0 {
            let node = best[end];
            let from = node.from.expect("every character boundary is reached");
            if node.unknown {
                fused_start = Some(match fused_start {
                    Some((_, fused_end)) => (from, fused_end),
                    None => (from, end),
                });
            } else {
                if let Some((a, b)) = fused_start.take() {
                    count += self.piece_tokens(&piece[a..b]);
                }
                count += self.piece_tokens(&piece[from..end]);
            }
            end = from;
        }
        if let Some((a, b)) = fused_start {
            count += self.piece_tokens(&piece[a..b]);
        }
        count
    }

    /// The tokens one piece of the best path is: itself if it is a token,
    /// else its bytes with `byte_fallback` (when all exist), else the
    /// unknown token.
    fn piece_tokens(&self, piece: &str) -> usize {
        if self.tokens.find(piece).is_some() {
            return 1;
        }
        match &self.byte_tokens {
            Some(present) if piece.bytes().all(|b| present[b as usize]) => piece.len(),
            _ => 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(json: &str) -> Unigram {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        Unigram::parse(&raw).unwrap()
    }

    /// The reference's own doc example: `abcdacdxx` is `abcd a cd xx`.
    #[test]
    fn the_best_path_wins_and_unknowns_fuse() {
        let m = model(
            r#"{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["a",0.0],["b",0.0],
            ["c",0.0],["d",0.0],["cd",1.0],["ab",2.0],["abc",5.0],["abcd",10.0]]}"#,
        );
        assert_eq!(m.count("abcdacdxx"), 4);
        assert_eq!(m.count(""), 0);
        assert_eq!(m.count("xyz"), 1);
        // `<unk>` written out is the unknown token's id, fused with its
        // unknown neighbours.
        assert_eq!(m.count("x<unk>y"), 1);
    }

    #[test]
    fn byte_fallback_spells_unknown_pieces_in_bytes() {
        let mut vocab = vec![r#"["<unk>",-1.0]"#.to_owned(), r#"["a",-1.0]"#.to_owned()];
        vocab.extend((0..=255).map(|b| format!(r#"["<0x{b:02X}>",-5.0]"#)));
        let m = model(&format!(
            r#"{{"type":"Unigram","unk_id":0,"byte_fallback":true,"vocab":[{}]}}"#,
            vocab.join(",")
        ));
        assert_eq!(m.count("aé"), 1 + 2);
        assert_eq!(m.count("é☃a"), 2 + 3 + 1);
        // `<0x41>` written out is that token.
        assert_eq!(m.count("<0x41>"), 1);
    }

    #[test]
    fn a_token_longer_than_the_limit_is_refused_with_its_size() {
        let long = "a".repeat(MOST_TOKEN_BYTES + 1);
        let json =
            format!(r#"{{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["{long}",-1.0]]}}"#);
        let raw: Box<RawValue> = serde_json::from_str(&json).unwrap();
        let Err(error) = Unigram::parse(&raw) else {
            panic!("a token over the limit was read");
        };
        assert_eq!(error.code(), "tokenizer-limit");
        assert!(!error.to_string().contains("aaa"));
        let fits = "a".repeat(MOST_TOKEN_BYTES);
        let json =
            format!(r#"{{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["{fits}",-1.0]]}}"#);
        let raw: Box<RawValue> = serde_json::from_str(&json).unwrap();
        assert!(Unigram::parse(&raw).is_ok());
    }

    #[test]
    fn a_model_without_unk_id_is_invalid() {
        let raw: Box<RawValue> =
            serde_json::from_str(r#"{"type":"Unigram","unk_id":null,"vocab":[["a",0.0]]}"#)
                .unwrap();
        assert!(Unigram::parse(&raw).is_err());
        let raw: Box<RawValue> =
            serde_json::from_str(r#"{"type":"Unigram","unk_id":3,"vocab":[["a",0.0]]}"#).unwrap();
        assert!(Unigram::parse(&raw).is_err());
    }
}
