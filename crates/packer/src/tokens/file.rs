//! Tokenizer files: loaded once and counted with exactly, or refused.
//!
//! # Families
//!
//! A file is read by the first family in `FAMILIES` that recognises its
//! top level; each family lives in its own module and builds its own
//! engine:
//!
//! - Hugging Face `tokenizer.json` with a BPE, WordPiece or Unigram model
//!   (the `hf` module says exactly which components are accepted and which
//!   refused);
//! - Mistral `tekken.json` (the `tekken` module).
//!
//! A new family is one module and one line in `FAMILIES` (and, if it reads
//! top-level keys no family reads yet, their fields in `TopLevel`). What
//! the families share (`TopLevel`, the refusals) is the `family` module,
//! which imports none of them.
//!
//! Counting is ordinary text (SPEC §2.2): no BOS/EOS, and text that looks
//! like a *special* token is split and merged like any other text; the
//! file's added tokens that are not marked special (Qwen3's `<think>`) are
//! matched as the tokens they are, as Hugging Face `tokenizers` matches them
//! with `encode_special_tokens=True`. The post-processor and decoder only
//! matter for special tokens and decoding (BERT's post-processor adds
//! `[CLS]` and `[SEP]`, as `add_special_tokens=True` would), and the
//! `truncation` and `padding` settings only shape a model's input: none of
//! them is consulted.
//!
//! A component that no family can count exactly is `unsupported-tokenizer`,
//! naming the component. A file that is not valid JSON or not a consistent
//! tokenizer is `invalid-tokenizer`, with a position or a count, never its
//! contents.
//!
//! # Loaded once per file
//!
//! A loaded file is kept for the life of the process, one engine per
//! distinct content (by SHA-256) and one [`Tokenizer`] per content and file
//! name, so that a [`Tokenizer`] and the [`super::Counter`] over it are
//! plain references, `Copy` and free to pass to threads. A long-running
//! front end that loads many different files keeps each one.

use std::fmt;
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::family::{Family, TopLevel, invalid, json_error};
use super::{Engine, hf, tekken};
use crate::error::Error;
// `Splitting` was first defined here; `tokens::file::Splitting` still names it.
pub use super::Splitting;

/// A tokenizer file loaded for counting (see the module documentation).
///
/// The library reads no file: the caller reads it (`packer_files` does it
/// safely for packer's front ends).
///
/// ```no_run
/// use packer::{Counter, Tokenizer};
///
/// let bytes = std::fs::read("models/qwen3/tokenizer.json").unwrap();
/// let tokenizer = Tokenizer::from_bytes("tokenizer.json", &bytes)?;
/// let counter = Counter::with_tokenizer(tokenizer);
/// println!("{} tokens with {}", counter.count("Hello, world"), tokenizer.label());
/// # Ok::<(), packer::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct Tokenizer(&'static Loaded);

struct Loaded {
    label: &'static str,
    name: &'static str,
    sha256: &'static str,
    engine: &'static dyn Engine,
}

impl PartialEq for Tokenizer {
    fn eq(&self, other: &Tokenizer) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Tokenizer {}

impl fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tokenizer")
            .field("name", &self.0.name)
            .field("sha256", &self.0.sha256)
            .finish()
    }
}

/// Every file loaded so far: (content hash, file name) and its tokenizer.
static LOADED: Mutex<Vec<([u8; 32], &'static Loaded)>> = Mutex::new(Vec::new());

impl Tokenizer {
    /// Loads a tokenizer from the bytes of a file called `file_name` (the
    /// name only labels the output, as `tokenizer:{file_name}`).
    pub fn from_bytes(file_name: &str, bytes: &[u8]) -> Result<Tokenizer, Error> {
        let hash: [u8; 32] = Sha256::digest(bytes).into();
        let mut loaded = LOADED.lock().unwrap_or_else(|poison| poison.into_inner());
        if let Some(&(_, found)) = loaded
            .iter()
            .find(|(h, found)| *h == hash && found.name == file_name)
        {
            return Ok(Tokenizer(found));
        }
        let engine = match loaded.iter().find(|(h, _)| *h == hash) {
            Some((_, found)) => found.engine,
            None => &*Box::leak(parse(bytes)?),
        };
        let name: &'static str = Box::leak(file_name.to_owned().into_boxed_str());
        let this: &'static Loaded = Box::leak(Box::new(Loaded {
            label: Box::leak(format!("tokenizer:{name}").into_boxed_str()),
            name,
            sha256: Box::leak(hex(&hash).into_boxed_str()),
            engine,
        }));
        loaded.push((hash, this));
        Ok(Tokenizer(this))
    }

    /// Reads a tokenizer file and counts `texts` with it, keeping nothing:
    /// [`Tokenizer::from_bytes`] keeps every file for the life of the
    /// process, which a fuzzer feeding millions of files cannot afford.
    #[doc(hidden)]
    pub fn count_once(bytes: &[u8], texts: &[&str]) -> Result<Vec<usize>, Error> {
        let engine = parse(bytes)?;
        Ok(texts.iter().map(|text| engine.count(text)).collect())
    }

    /// The file name it was loaded from.
    pub fn name(&self) -> &'static str {
        self.0.name
    }

    /// `tokenizer:{file name}`, the output's `encoding` value.
    pub fn label(&self) -> &'static str {
        self.0.label
    }

    /// The lowercase hex SHA-256 of the file's bytes.
    pub fn sha256(&self) -> &'static str {
        self.0.sha256
    }

    pub(crate) fn engine(&self) -> &'static dyn Engine {
        self.0.engine
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every family, in the order they are tried.
const FAMILIES: &[Family] = &[hf::read, tekken::read];

/// Parses a tokenizer file with the first family that recognises it.
fn parse(bytes: &[u8]) -> Result<Box<dyn Engine>, Error> {
    let top: TopLevel = serde_json::from_slice(bytes).map_err(|e| json_error(&e))?;
    FAMILIES.iter().find_map(|read| read(&top)).unwrap_or_else(|| {
        Err(invalid(
            "it is neither a tokenizer.json (no `model`) nor a tekken.json (no `config` and `vocab`)",
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(json: &str) -> (String, String) {
        let error = parse(json.as_bytes()).err().expect("refused");
        (error.code().to_owned(), error.to_string())
    }

    #[test]
    fn other_models_and_components_are_refused_by_name_without_echoing() {
        let (code, message) = refusal(r#"{"model":{"type":"SecretModelName"}}"#);
        assert_eq!(code, "unsupported-tokenizer");
        assert!(message.contains("a model of an unknown type"), "{message}");
        assert!(!message.contains("SecretModelName"), "{message}");
        let (_, message) = refusal(
            r#"{"normalizer":{"type":"Nmt"},"pre_tokenizer":null,"model":{"type":"Unigram","unk_id":0,"vocab":[["a",0.0]]}}"#,
        );
        assert!(message.contains("the Nmt normalizer"), "{message}");
        let (_, message) = refusal(
            r#"{"normalizer":null,"pre_tokenizer":{"type":"UnicodeScripts"},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
        );
        assert!(
            message.contains("the UnicodeScripts pre-tokenizer"),
            "{message}"
        );
        let (_, message) = refusal(
            r#"{"pre_tokenizer":{"type":"Split","pattern":{"Regex":"SECRETX\\w+"},"behavior":"Isolated","invert":false},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
        );
        assert!(message.contains("escape"), "{message}");
        assert!(!message.contains("SECRETX"), "{message}");
    }

    #[test]
    fn malformed_files_are_invalid_with_a_position() {
        let (code, message) = refusal("{\n  \"model\": [1, 2,");
        assert_eq!(code, "invalid-tokenizer");
        assert!(message.contains("line 2"), "{message}");
        let (code, _) = refusal(r#"{"something":"else"}"#);
        assert_eq!(code, "invalid-tokenizer");
        // The reference fails on every word it does not know.
        let (code, message) =
            refusal(r#"{"model":{"type":"WordLevel","vocab":{"a":0},"unk_token":"[UNK]"}}"#);
        assert_eq!(code, "invalid-tokenizer");
        assert!(
            message.contains("unk_token is not in the vocab"),
            "{message}"
        );
        // Without one, as the reference: a field missing, with its place.
        let (code, message) = refusal(r#"{"model":{"type":"WordLevel","vocab":{"a":0}}}"#);
        assert_eq!(code, "invalid-tokenizer");
        assert!(message.contains("at line 1 column"), "{message}");
        let (code, message) = refusal(
            r#"{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}"#,
        );
        assert_eq!(code, "invalid-tokenizer");
        assert!(message.contains("single byte 0"), "{message}");
    }
}
