//! Mistral `tekken.json`: tiktoken's split pattern and ranks, read from a
//! file.
//!
//! Accepted: the split pattern and the first
//! `default_vocab_size - default_num_special_tokens` base64 ranks, merged
//! as tiktoken merges (the pair whose joined bytes have the lowest rank; see
//! the `bpe` module). A split pattern that packer's regex engine cannot run
//! exactly is refused (see the `pretokenize` module).

use std::borrow::Cow;

use base64::Engine as _;
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::family::{TekkenConfig, TopLevel, invalid, json_error, unsupported};
use super::known::Visitor;
use super::pretokenize::{
    Behavior, Cache, SplitRegex, count_before_piece_at, for_each_piece, split_ranges, splitting_of,
};
use super::{Engine, Splitting};
use crate::error::Error;
use crate::tokens::bpe::{Pieces, count_ranked, with_state};

/// The family of files with a `config` and a `vocab` (see [`Family`](super::family::Family)).
pub(super) fn read(top: &TopLevel) -> Option<Result<Box<dyn Engine>, Error>> {
    let (Some(config), Some(vocab)) = (&top.config, top.vocab) else {
        return None;
    };
    Some(tekken(config, vocab).map(|engine| Box::new(engine) as Box<dyn Engine>))
}

/// A loaded `tekken.json`: one split pattern and ranked byte strings.
struct Tekken {
    regex: SplitRegex,
    ranks: FxHashMap<Box<[u8]>, u32>,
    splitting: Splitting,
}

impl Tekken {
    /// Runs `f` with this thread's search cache and piece counts.
    fn with_state<R>(&self, f: impl FnOnce(&mut Cache, &mut Pieces) -> R) -> R {
        with_state(self, || self.regex.create_cache(), f)
    }
}

impl Engine for Tekken {
    fn count(&self, text: &str) -> usize {
        self.with_state(|cache, pieces| {
            let mut ranges = Vec::new();
            split_ranges(
                &self.regex,
                Behavior::Isolated,
                false,
                cache,
                text,
                &mut ranges,
            );
            ranges
                .into_iter()
                .map(|(start, end)| {
                    pieces.tokens(&text[start..end], |piece| count_ranked(&self.ranks, piece))
                })
                .sum()
        })
    }

    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        if self.splitting != Splitting::Tiktoken {
            return (0, 0);
        }
        self.with_state(|cache, pieces| {
            count_before_piece_at(&self.regex, cache, text, offset, |piece| {
                pieces.tokens(piece, |piece| count_ranked(&self.ranks, piece))
            })
        })
    }

    fn splitting(&self) -> Splitting {
        self.splitting
    }

    fn walk(&self, text: &str, from: usize, mut visit: Visitor<'_, '_>) -> bool {
        if self.splitting != Splitting::Tiktoken {
            return false;
        }
        self.with_state(|cache, pieces| {
            for_each_piece(&self.regex, cache, text, from, |piece, beyond| {
                visit.piece_read(piece, beyond, |piece| {
                    pieces.tokens(piece, |piece| count_ranked(&self.ranks, piece))
                })
            });
        });
        true
    }
}

#[derive(Deserialize)]
struct TekkenToken<'a> {
    rank: u64,
    #[serde(borrow)]
    token_bytes: Cow<'a, str>,
}

fn tekken(config: &TekkenConfig, vocab: &RawValue) -> Result<Tekken, Error> {
    let vocab: Vec<TekkenToken> = serde_json::from_str(vocab.get()).map_err(|e| json_error(&e))?;
    let inner = config
        .default_vocab_size
        .checked_sub(config.default_num_special_tokens)
        .ok_or_else(|| invalid("its default_num_special_tokens exceeds its default_vocab_size"))?;
    if inner > vocab.len() as u64 {
        return Err(invalid(format!(
            "its config asks for {inner} ordinary ranks but the vocab has {}",
            vocab.len()
        )));
    }
    let mut ranks: FxHashMap<Box<[u8]>, u32> = FxHashMap::default();
    ranks.reserve(inner as usize);
    let engine = base64::engine::general_purpose::STANDARD;
    for (index, token) in vocab.iter().take(inner as usize).enumerate() {
        if token.rank != index as u64 {
            return Err(invalid(format!("vocab[{index}] has rank {}", token.rank)));
        }
        let bytes = engine
            .decode(token.token_bytes.as_bytes())
            .map_err(|_| invalid(format!("vocab[{index}].token_bytes is not base64")))?;
        if bytes.is_empty() {
            return Err(invalid(format!("vocab[{index}] is an empty token")));
        }
        if ranks.insert(bytes.into(), index as u32).is_some() {
            return Err(invalid(format!("vocab[{index}] repeats an earlier token")));
        }
    }
    if let Some(byte) = (0..=255u8).find(|b| !ranks.contains_key(&[*b][..])) {
        return Err(invalid(format!("no rank holds the single byte {byte}")));
    }
    let regex = SplitRegex::new(&config.pattern).map_err(unsupported)?;
    let splitting = splitting_of(&regex, false);
    Ok(Tekken {
        regex,
        ranks,
        splitting,
    })
}
