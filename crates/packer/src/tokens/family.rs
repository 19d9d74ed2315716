//! What every tokenizer file family shares: the signature a family reads a
//! file with, the file's top level it reads from, and the refusals it
//! gives.
//!
//! A leaf: the families (`hf`, `tekken`) import it, and `file`, which
//! tries them in turn, imports them and it; it imports neither.

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::Engine;
use crate::error::Error;

/// A family of tokenizer files (see [`super::file`]).
///
/// `None` when the top level is not this family's; otherwise the engine
/// for the file, or why there is none.
pub(super) type Family = fn(&TopLevel) -> Option<Result<Box<dyn Engine>, Error>>;

/// A tokenizer file's top level: what any family reads of it (each
/// family's own parts are read by that family).
#[derive(Deserialize)]
pub(super) struct TopLevel<'a> {
    /// `tokenizer.json`'s model.
    #[serde(borrow)]
    pub(super) model: Option<&'a RawValue>,
    /// `tokenizer.json`'s normalizer.
    pub(super) normalizer: Option<Value>,
    /// `tokenizer.json`'s pre-tokenizer.
    pub(super) pre_tokenizer: Option<Value>,
    /// `tokenizer.json`'s added tokens.
    #[serde(borrow)]
    pub(super) added_tokens: Option<&'a RawValue>,
    /// `tekken.json`'s config.
    pub(super) config: Option<TekkenConfig>,
    /// `tekken.json`'s ranks.
    #[serde(borrow)]
    pub(super) vocab: Option<&'a RawValue>,
}

/// `config`: what a `tekken.json` says of its pattern and ranks. Read with
/// the top level, so that a malformed config is refused with its place in
/// the file.
#[derive(Deserialize)]
pub(super) struct TekkenConfig {
    /// The split pattern.
    pub(super) pattern: String,
    /// The vocabulary's size, special tokens included.
    pub(super) default_vocab_size: u64,
    /// How many of its tokens are special.
    pub(super) default_num_special_tokens: u64,
}

/// `unsupported-tokenizer`, naming the component no engine can count with.
pub(super) fn unsupported(component: impl Into<String>) -> Error {
    Error::UnsupportedTokenizer {
        component: component.into(),
    }
}

/// `tokenizer-limit`, saying what is over which limit (numbers only).
pub(super) fn over_limit(problem: impl Into<String>) -> Error {
    Error::TokenizerLimit {
        problem: problem.into(),
    }
}

/// `invalid-tokenizer`, saying what is wrong (never the file's contents).
pub(super) fn invalid(problem: impl Into<String>) -> Error {
    Error::InvalidTokenizer {
        problem: problem.into(),
    }
}

/// A JSON error as `invalid-tokenizer`, with its position.
pub(super) fn json_error(error: &serde_json::Error) -> Error {
    let problem = match error.classify() {
        serde_json::error::Category::Data => "has a field of the wrong shape",
        serde_json::error::Category::Eof => "ends early",
        _ => "is not valid JSON",
    };
    invalid(format!(
        "at line {} column {} it {problem}",
        error.line(),
        error.column()
    ))
}
