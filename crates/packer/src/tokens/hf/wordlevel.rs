//! Hugging Face's WordLevel model (word-level vocabularies trained with
//! `WordLevelTrainer`): each pre-tokenized piece is one token, its own when
//! the vocabulary has it, the `unk_token` otherwise. The reference's
//! `WordLevel::tokenize`, so a count is the number of pieces the pipeline
//! cuts, whatever the vocabulary holds.
//!
//! Accepted with every normalizer and pre-tokenizer the pipeline reads (the
//! model adds nothing to how a text is cut). A file whose `unk_token` is not
//! in its vocabulary is `invalid-tokenizer` (the reference fails on every
//! word it does not know).

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Built, Family, PieceModel, Pipeline};
use crate::tokens::family::{invalid, json_error};

/// The `WordLevel` family.
pub(super) const FAMILY: Family = Family {
    name: "WordLevel",
    check: |_| Ok(()),
    build,
};

/// The model as the reference reads it: `vocab` (ids are `u32`s) and
/// `unk_token` are required.
#[derive(Deserialize)]
struct WordLevelModel<'a> {
    #[serde(borrow)]
    unk_token: Cow<'a, str>,
    #[serde(borrow)]
    vocab: HashMap<Cow<'a, str>, u32>,
}

/// One token per piece.
struct WordLevel;

impl PieceModel for WordLevel {
    fn count(&self, _piece: &str) -> usize {
        1
    }
}

fn build(raw: &RawValue, pipeline: Pipeline<'_>) -> Built {
    let model: WordLevelModel = serde_json::from_str(raw.get()).map_err(|e| json_error(&e))?;
    if !model.vocab.contains_key(model.unk_token.as_ref()) {
        return Err(invalid("its unk_token is not in the vocab"));
    }
    pipeline.engine(WordLevel)
}
