//! Hugging Face `tokenizer.json` with a byte-level BPE model.
//!
//! # What is accepted
//!
//! A `BPE` model over bytes: a `ByteLevel` pre-tokenizer last (with or
//! without its own regex and prefix space), before it any number of `Split`
//! (regex or literal, every behaviour, `invert`) and `Digits`
//! pre-tokenizers, nested `Sequence`s flattened; no normalizer or `NFC`
//! (alone or in a `Sequence`); `ignore_merges` as the file says. The BPE
//! loop is the reference's own (see the `merge` module), so no assumption
//! about the order of the vocabulary is needed.
//!
//! # What is refused, and why
//!
//! Everything else is `unsupported-tokenizer`, naming the component:
//! WordPiece, WordLevel and Unigram models (SentencePiece), BPE with
//! `byte_fallback` or without a `ByteLevel` pre-tokenizer (merges over
//! characters, `▁` word markers), subword prefixes and suffixes, dropout,
//! normalizers other than NFC, other pre-tokenizers, and split patterns that
//! packer's regex engine cannot run exactly (see the `pretokenize` module).

mod model;
mod pipeline;

use std::borrow::Cow;

use regex_automata::meta::Cache;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::file::{TopLevel, json_error, unsupported};
use super::known::Visitor;
use super::pretokenize::{
    Behavior, SplitRegex, Stage, count_before_piece_at, for_each_piece, split_ranges, splitting_of,
};
use super::{Engine, Splitting};
use crate::error::Error;
use crate::tokens::bpe::{Pieces, with_state};
use model::Bpe;
use pipeline::{parse_normalizer, parse_pre_tokenizer};

/// The family of files with a `model` (see [`Family`](super::file::Family)).
pub(super) fn read(top: &TopLevel) -> Option<Result<Box<dyn Engine>, Error>> {
    let model = top.model?;
    let engine = hugging_face(model, top.normalizer.as_ref(), top.pre_tokenizer.as_ref());
    Some(engine.map(|engine| Box::new(engine) as Box<dyn Engine>))
}

/// The file formats, for messages.
const KNOWN_MODELS: [&str; 4] = ["BPE", "WordPiece", "WordLevel", "Unigram"];

/// The name of a component type for a message: the type itself when it is
/// one of the reference's names, otherwise a neutral description (the
/// file's contents are never echoed).
fn component(known: &[&str], kind: Option<&str>, what: &str) -> String {
    match kind {
        Some(kind) if known.contains(&kind) => format!("the {kind} {what}"),
        Some(_) => format!("a {what} of an unknown type"),
        None => format!("a {what} without a type"),
    }
}

#[derive(Deserialize)]
struct ModelType<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
}

/// A loaded `tokenizer.json`: normalization, pre-tokenizer stages and BPE.
struct HuggingFace {
    nfc: bool,
    stages: Vec<Stage>,
    bpe: Bpe,
    splitting: Splitting,
}

impl HuggingFace {
    /// Runs `f` with this thread's search caches (one per split stage) and
    /// piece counts.
    fn with_state<R>(&self, f: impl FnOnce(&mut Vec<Cache>, &mut Pieces) -> R) -> R {
        let caches = || -> Vec<Cache> {
            self.stages
                .iter()
                .filter_map(|stage| match stage {
                    Stage::Split { regex, .. } => Some(regex.create_cache()),
                    Stage::PrefixSpace => None,
                })
                .collect()
        };
        with_state(self, caches, f)
    }

    fn normalize<'t>(&self, text: &'t str) -> Cow<'t, str> {
        use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
        if self.nfc && is_nfc_quick(text.chars()) != IsNormalized::Yes {
            Cow::Owned(text.nfc().collect())
        } else {
            Cow::Borrowed(text)
        }
    }

    /// Applies stages `stage..` to `piece` and hands every final piece on.
    fn run_stages(
        &self,
        stage: usize,
        caches: &mut [Cache],
        piece: &str,
        each: &mut dyn FnMut(&str),
    ) {
        let Some(current) = self.stages.get(stage) else {
            each(piece);
            return;
        };
        match current {
            Stage::PrefixSpace => {
                if piece.starts_with(' ') {
                    self.run_stages(stage + 1, caches, piece, each);
                } else {
                    let spaced = format!(" {piece}");
                    self.run_stages(stage + 1, caches, &spaced, each);
                }
            }
            Stage::Split {
                regex,
                behavior,
                invert,
            } => {
                let (cache, rest) = caches.split_first_mut().expect("one cache per split stage");
                let mut ranges = Vec::new();
                split_ranges(regex, *behavior, *invert, cache, piece, &mut ranges);
                for (start, end) in ranges {
                    self.run_stages(stage + 1, rest, &piece[start..end], each);
                }
            }
        }
    }
}

impl Engine for HuggingFace {
    fn count(&self, text: &str) -> usize {
        let text = self.normalize(text);
        self.with_state(|caches, pieces| {
            let mut count = 0;
            self.run_stages(0, caches, &text, &mut |piece: &str| {
                if !piece.is_empty() {
                    count += pieces.tokens(piece, |piece| self.bpe.count(piece));
                }
            });
            count
        })
    }

    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        let Some(regex) = self.one_split(text) else {
            return (0, 0);
        };
        self.with_state(|caches, pieces| {
            count_before_piece_at(regex, &mut caches[0], text, offset, |piece| {
                pieces.tokens(piece, |piece| self.bpe.count(piece))
            })
        })
    }

    fn splitting(&self) -> Splitting {
        self.splitting
    }

    fn walk(&self, text: &str, from: usize, mut visit: Visitor<'_, '_>) -> bool {
        let Some(regex) = self.one_split(text) else {
            return false;
        };
        self.with_state(|caches, pieces| {
            for_each_piece(regex, &mut caches[0], text, from, |piece| {
                visit.piece(piece, |piece| {
                    pieces.tokens(piece, |piece| self.bpe.count(piece))
                })
            });
        });
        true
    }
}

impl HuggingFace {
    /// The one tiktoken-family split that counts `text` piece by piece, as
    /// [`Engine::count`] would: `None` unless the pipeline is
    /// [`Splitting::Tiktoken`] and its normalizer leaves `text` as it is.
    fn one_split(&self, text: &str) -> Option<&SplitRegex> {
        if self.splitting != Splitting::Tiktoken {
            return None;
        }
        if self.nfc {
            use unicode_normalization::{IsNormalized, is_nfc_quick};
            if is_nfc_quick(text.chars()) != IsNormalized::Yes {
                return None;
            }
        }
        match self.stages.as_slice() {
            [Stage::Split { regex, .. }] => Some(regex),
            _ => None,
        }
    }
}

fn hugging_face(
    model: &RawValue,
    normalizer: Option<&Value>,
    pre_tokenizer: Option<&Value>,
) -> Result<HuggingFace, Error> {
    let kind: ModelType = serde_json::from_str(model.get()).map_err(|e| json_error(&e))?;
    match kind.kind.as_deref() {
        Some("BPE") | None => {}
        other => return Err(unsupported(component(&KNOWN_MODELS, other, "model"))),
    }
    let nfc = parse_normalizer(normalizer)?;
    let (stages, byte_level) = parse_pre_tokenizer(pre_tokenizer)?;
    if !byte_level {
        return Err(unsupported(
            "a BPE model without a ByteLevel pre-tokenizer (merges over characters rather than bytes)",
        ));
    }
    let bpe = Bpe::parse(model)?;
    // A tiktoken-family pattern matches every character, so keeping its
    // matches and removing the rest (`Removed` with `invert`, as converted
    // OpenAI files say it) is the same split as `Isolated`.
    let splitting = match stages.as_slice() {
        [
            Stage::Split {
                regex,
                behavior: Behavior::Isolated,
                invert: false,
            }
            | Stage::Split {
                regex,
                behavior: Behavior::Removed,
                invert: true,
            },
        ] => splitting_of(regex, false),
        _ => Splitting::Whole,
    };
    Ok(HuggingFace {
        nfc,
        stages,
        bpe,
        splitting,
    })
}
