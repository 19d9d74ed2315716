//! Tokenizer files: Hugging Face `tokenizer.json` (byte-level BPE) and
//! Mistral `tekken.json`, loaded once and counted with exactly, or refused.
//!
//! # What is accepted
//!
//! - `tokenizer.json` with a `BPE` model over bytes: a `ByteLevel`
//!   pre-tokenizer last (with or without its own regex and prefix space),
//!   before it any number of `Split` (regex or literal, every behaviour,
//!   `invert`) and `Digits` pre-tokenizers, nested `Sequence`s flattened; no
//!   normalizer or `NFC` (alone or in a `Sequence`); `ignore_merges` as the
//!   file says. The BPE loop is the reference's own (see the `merge` module),
//!   so no assumption about the order of the vocabulary is needed.
//! - `tekken.json`: the split pattern and the first
//!   `default_vocab_size - default_num_special_tokens` base64 ranks, merged
//!   as tiktoken merges (the pair whose joined bytes have the lowest rank).
//!
//! Counting is ordinary text: no BOS/EOS, no added or special tokens (the
//! file's `added_tokens` are not consulted, so text that looks like one is
//! split and merged like any other text). The post-processor and decoder
//! only matter for special tokens and decoding, and are not consulted.
//!
//! # What is refused, and why
//!
//! Everything else is `unsupported-tokenizer`, naming the component:
//! WordPiece, WordLevel and Unigram models (SentencePiece), BPE with
//! `byte_fallback` or without a `ByteLevel` pre-tokenizer (merges over
//! characters, `▁` word markers), subword prefixes and suffixes, dropout,
//! normalizers other than NFC, other pre-tokenizers, and split patterns that
//! packer's regex engine cannot run exactly (see the `pretokenize` module).
//! A file that is not valid JSON or not a consistent tokenizer is
//! `invalid-tokenizer`, with a position or a count, never its contents.
//!
//! # Loaded once per file
//!
//! A loaded file is kept for the life of the process, one engine per
//! distinct content (by SHA-256) and one [`Tokenizer`] per content and file
//! name, so that a [`Tokenizer`] and the [`super::Counter`] over it are
//! plain references, `Copy` and free to pass to threads. A long-running
//! front end that loads many different files keeps each one.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::sync::Mutex;

use base64::Engine as _;
use regex_automata::meta::Cache;
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

use super::Engine;
use super::bpe::merge::{self, Merges};
use super::bpe::{Pieces, count_ranked, with_state};
use super::pretokenize::{Behavior, GPT2_PATTERN, SplitRegex, Stage, split_ranges};
use crate::error::Error;
// `Splitting` was first defined here; `tokens::file::Splitting` still names it.
pub use super::Splitting;

/// A tokenizer file loaded for counting (see the module documentation).
///
/// ```no_run
/// use packer::{Counter, Tokenizer};
///
/// let tokenizer = Tokenizer::load("models/qwen3/tokenizer.json".as_ref())?;
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

/// Tokenizer files larger than this are refused (the largest current
/// `tokenizer.json` files are about 20 MB).
pub const MAX_TOKENIZER_BYTES: u64 = 256 << 20;

impl Tokenizer {
    /// Reads and loads the tokenizer file at `path` (or returns the one
    /// already loaded from the same content under the same file name).
    pub fn load(path: &Path) -> Result<Tokenizer, Error> {
        Tokenizer::load_opened(path, crate::files::open_regular(path))
    }

    /// Like [`Tokenizer::load`], for a path that must lie inside one of
    /// `roots` (canonical directories): the file is opened without
    /// following a link as its last component, and the real path of what
    /// was opened is checked, so a link swapped in after the path was
    /// checked is refused (`path-outside-root`).
    pub fn load_confined(path: &Path, roots: &[std::path::PathBuf]) -> Result<Tokenizer, Error> {
        let opened = crate::files::open_regular_nofollow(path);
        if let Ok(opened) = &opened {
            let real = opened
                .real_path(path)
                .map_err(|error| Error::UnreadableTokenizer { kind: error.kind() })?;
            if !roots.iter().any(|root| real.starts_with(root)) {
                return Err(Error::PathOutsideRoot);
            }
        }
        Tokenizer::load_opened(path, opened)
    }

    fn load_opened(
        path: &Path,
        opened: Result<crate::files::Opened, crate::files::OpenError>,
    ) -> Result<Tokenizer, Error> {
        use crate::files::OpenError;
        let opened = opened.map_err(|error| match error {
            OpenError::NotAFile => Error::TokenizerNotAFile,
            error => Error::UnreadableTokenizer { kind: error.kind() },
        })?;
        let bytes = opened
            .read_limited(MAX_TOKENIZER_BYTES)
            .map_err(|error| Error::UnreadableTokenizer { kind: error.kind() })?
            .ok_or_else(|| Error::InvalidTokenizer {
                problem: format!("it is larger than {MAX_TOKENIZER_BYTES} bytes"),
            })?;
        let name = path
            .file_name()
            .map_or_else(|| "tokenizer".into(), |name| name.to_string_lossy());
        Tokenizer::from_bytes(&name, &bytes)
    }

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
            None => &*Box::leak(Box::new(FileEngine::parse(bytes)?)) as &'static dyn Engine,
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

/// The file formats, for messages.
const KNOWN_MODELS: [&str; 4] = ["BPE", "WordPiece", "WordLevel", "Unigram"];
const KNOWN_NORMALIZERS: [&str; 15] = [
    "BertNormalizer",
    "Strip",
    "StripAccents",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Sequence",
    "Lowercase",
    "Nmt",
    "Precompiled",
    "Replace",
    "Prepend",
    "ByteLevel",
    "ByteFallback",
];
const KNOWN_PRE_TOKENIZERS: [&str; 12] = [
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Metaspace",
    "Whitespace",
    "Sequence",
    "Split",
    "Punctuation",
    "WhitespaceSplit",
    "Digits",
    "UnicodeScripts",
    "FixedLength",
];

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

fn unsupported(component: impl Into<String>) -> Error {
    Error::UnsupportedTokenizer {
        component: component.into(),
    }
}

fn invalid(problem: impl Into<String>) -> Error {
    Error::InvalidTokenizer {
        problem: problem.into(),
    }
}

fn json_error(error: &serde_json::Error) -> Error {
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

/// The split patterns whose shape the per-entry counting argument was
/// checked for (see [`Splitting::Tiktoken`]).
const TIKTOKEN_FAMILY: [&str; 5] = [
    // cl100k_base and Llama 3.
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // Qwen2, Qwen2.5, Qwen3.
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // o200k_base.
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    // Mistral tekken.
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+",
    GPT2_PATTERN,
];

/// A loaded tokenizer file: normalization, pre-tokenizer stages and BPE.
pub(crate) struct FileEngine {
    nfc: bool,
    stages: Vec<Stage>,
    bpe: Bpe,
    splitting: Splitting,
}

/// The two merge rules (see the `merge` module).
enum Bpe {
    /// Hugging Face: merges listed in the file, symbols are token ids.
    Listed {
        byte_ids: Box<[u32; 256]>,
        /// (left id, right id) → (line in `merges`, merged id).
        merges: FxHashMap<(u32, u32), (u32, u32)>,
        /// With `ignore_merges`: every token's bytes, to take a whole piece
        /// that is a token as that token.
        whole: Option<FxHashMap<Box<[u8]>, u32>>,
    },
    /// tiktoken: ranks of byte strings; symbols are byte ranges.
    Ranked { ranks: FxHashMap<Box<[u8]>, u32> },
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

impl Bpe {
    fn count(&self, piece: &[u8]) -> usize {
        match self {
            Bpe::Listed {
                byte_ids,
                merges,
                whole,
            } => {
                if let Some(whole) = whole
                    && whole.contains_key(piece)
                {
                    return 1;
                }
                merge::count(&ListedMerges { byte_ids, merges }, piece)
            }
            Bpe::Ranked { ranks } => count_ranked(ranks, piece),
        }
    }
}

impl FileEngine {
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

    /// Parses a `tokenizer.json` or a `tekken.json`.
    fn parse(bytes: &[u8]) -> Result<FileEngine, Error> {
        let top: TopLevel = serde_json::from_slice(bytes).map_err(|e| json_error(&e))?;
        if let Some(model) = top.model {
            return hugging_face(model, top.normalizer, top.pre_tokenizer);
        }
        if let (Some(config), Some(vocab)) = (top.config, top.vocab) {
            return tekken(config, vocab);
        }
        Err(invalid(
            "it is neither a tokenizer.json (no `model`) nor a tekken.json (no `config` and `vocab`)",
        ))
    }
}

impl Engine for FileEngine {
    fn count(&self, text: &str) -> usize {
        let text = self.normalize(text);
        self.with_state(|caches, pieces| {
            let mut count = 0;
            self.run_stages(0, caches, &text, &mut |piece: &str| {
                if !piece.is_empty() {
                    count += pieces.tokens(piece.as_bytes(), |piece| self.bpe.count(piece));
                }
            });
            count
        })
    }

    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        if self.splitting != Splitting::Tiktoken {
            return (0, 0);
        }
        if self.nfc {
            use unicode_normalization::{IsNormalized, is_nfc_quick};
            if is_nfc_quick(text.chars()) != IsNormalized::Yes {
                return (0, 0);
            }
        }
        let [Stage::Split { regex, .. }] = self.stages.as_slice() else {
            return (0, 0);
        };
        self.with_state(|caches, pieces| {
            let cache = &mut caches[0];
            let mut count = 0;
            let mut start = 0;
            while start < text.len() {
                let Some(end) = regex.match_at(cache, text, start) else {
                    break;
                };
                if end > offset {
                    break;
                }
                count += pieces.tokens(&text.as_bytes()[start..end], |piece| self.bpe.count(piece));
                start = end;
            }
            (count, start)
        })
    }

    fn splitting(&self) -> Splitting {
        self.splitting
    }
}

#[derive(Deserialize)]
struct TopLevel<'a> {
    #[serde(borrow)]
    model: Option<&'a RawValue>,
    normalizer: Option<Value>,
    pre_tokenizer: Option<Value>,
    config: Option<TekkenConfig>,
    #[serde(borrow)]
    vocab: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TekkenConfig {
    pattern: String,
    default_vocab_size: u64,
    default_num_special_tokens: u64,
}

#[derive(Deserialize)]
struct TekkenToken<'a> {
    rank: u64,
    #[serde(borrow)]
    token_bytes: Cow<'a, str>,
}

fn tekken(config: TekkenConfig, vocab: &RawValue) -> Result<FileEngine, Error> {
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
    Ok(FileEngine {
        nfc: false,
        stages: vec![Stage::Split {
            regex,
            behavior: Behavior::Isolated,
            invert: false,
        }],
        bpe: Bpe::Ranked { ranks },
        splitting,
    })
}

fn splitting_of(regex: &SplitRegex, prefix_space: bool) -> Splitting {
    if !prefix_space && TIKTOKEN_FAMILY.contains(&regex.source()) {
        Splitting::Tiktoken
    } else {
        Splitting::Whole
    }
}

#[derive(Deserialize)]
struct ModelType<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
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

fn hugging_face(
    model: &RawValue,
    normalizer: Option<Value>,
    pre_tokenizer: Option<Value>,
) -> Result<FileEngine, Error> {
    let kind: ModelType = serde_json::from_str(model.get()).map_err(|e| json_error(&e))?;
    match kind.kind.as_deref() {
        Some("BPE") | None => {}
        other => return Err(unsupported(component(&KNOWN_MODELS, other, "model"))),
    }
    let nfc = parse_normalizer(normalizer.as_ref())?;
    let (stages, byte_level) = parse_pre_tokenizer(pre_tokenizer.as_ref())?;
    if !byte_level {
        return Err(unsupported(
            "a BPE model without a ByteLevel pre-tokenizer (merges over characters rather than bytes)",
        ));
    }
    let model: BpeModel = serde_json::from_str(model.get()).map_err(|e| json_error(&e))?;
    if model.byte_fallback == Some(true) {
        return Err(unsupported("a BPE model with byte_fallback"));
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
    let mut merges: FxHashMap<(u32, u32), (u32, u32)> = FxHashMap::default();
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
    Ok(FileEngine {
        nfc,
        stages,
        bpe: Bpe::Listed {
            byte_ids: Box::new(byte_ids),
            merges,
            whole,
        },
        splitting,
    })
}

fn type_of(value: &Value) -> Option<&str> {
    value.get("type").and_then(Value::as_str)
}

/// Whether the normalizer is NFC (true) or absent (false); refuses others.
fn parse_normalizer(value: Option<&Value>) -> Result<bool, Error> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(false);
    };
    match type_of(value) {
        Some("NFC") => Ok(true),
        Some("Sequence") => {
            let list = value
                .get("normalizers")
                .and_then(Value::as_array)
                .ok_or_else(|| invalid("a Sequence normalizer has no `normalizers` list"))?;
            let mut nfc = false;
            for item in list {
                nfc |= parse_normalizer(Some(item))?;
            }
            Ok(nfc)
        }
        other => Err(unsupported(component(
            &KNOWN_NORMALIZERS,
            other,
            "normalizer",
        ))),
    }
}

/// The stages and whether a `ByteLevel` pre-tokenizer ends them.
fn parse_pre_tokenizer(value: Option<&Value>) -> Result<(Vec<Stage>, bool), Error> {
    let mut flat = Vec::new();
    if let Some(value) = value.filter(|v| !v.is_null()) {
        flatten(value, &mut flat)?;
    }
    let mut stages = Vec::new();
    let mut byte_level = false;
    for (index, item) in flat.iter().enumerate() {
        if byte_level {
            return Err(unsupported(
                "a pre-tokenizer after ByteLevel (it would see byte-level characters)",
            ));
        }
        match type_of(item) {
            Some("ByteLevel") => {
                byte_level = true;
                let flag = |name: &str, default: bool| {
                    item.get(name).and_then(Value::as_bool).unwrap_or(default)
                };
                if flag("add_prefix_space", true) {
                    stages.push(Stage::PrefixSpace);
                }
                if flag("use_regex", true) {
                    stages.push(Stage::Split {
                        regex: SplitRegex::new(GPT2_PATTERN).map_err(unsupported)?,
                        behavior: Behavior::Isolated,
                        invert: false,
                    });
                }
            }
            Some("Split") => stages.push(parse_split(item, index)?),
            Some("Digits") => {
                let individual = item
                    .get("individual_digits")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                // `char::is_numeric` is \p{N}; every numeric character is a
                // match of its own, as a one-character regex gives.
                stages.push(Stage::Split {
                    regex: SplitRegex::new(r"\p{N}").map_err(unsupported)?,
                    behavior: if individual {
                        Behavior::Isolated
                    } else {
                        Behavior::Contiguous
                    },
                    invert: false,
                });
            }
            other => {
                return Err(unsupported(component(
                    &KNOWN_PRE_TOKENIZERS,
                    other,
                    "pre-tokenizer",
                )));
            }
        }
    }
    Ok((stages, byte_level))
}

fn flatten<'v>(value: &'v Value, out: &mut Vec<&'v Value>) -> Result<(), Error> {
    if type_of(value) == Some("Sequence") {
        let list = value
            .get("pretokenizers")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("a Sequence pre-tokenizer has no `pretokenizers` list"))?;
        for item in list {
            flatten(item, out)?;
        }
    } else {
        out.push(value);
    }
    Ok(())
}

fn parse_split(item: &Value, index: usize) -> Result<Stage, Error> {
    let pattern = item
        .get("pattern")
        .ok_or_else(|| invalid(format!("pre-tokenizer {index} (Split) has no pattern")))?;
    let regex = if let Some(regex) = pattern.get("Regex").and_then(Value::as_str) {
        SplitRegex::new(regex).map_err(unsupported)?
    } else if let Some(literal) = pattern.get("String").and_then(Value::as_str) {
        SplitRegex::literal(literal).map_err(unsupported)?
    } else {
        return Err(invalid(format!(
            "pre-tokenizer {index} (Split) has a pattern that is neither Regex nor String"
        )));
    };
    let behavior = item
        .get("behavior")
        .and_then(Value::as_str)
        .and_then(Behavior::parse)
        .ok_or_else(|| {
            invalid(format!(
                "pre-tokenizer {index} (Split) has no known behavior"
            ))
        })?;
    let invert = item.get("invert").and_then(Value::as_bool).unwrap_or(false);
    Ok(Stage::Split {
        regex,
        behavior,
        invert,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(json: &str) -> (String, String) {
        let error = FileEngine::parse(json.as_bytes()).err().expect("refused");
        (error.code().to_owned(), error.to_string())
    }

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

    #[test]
    fn other_models_and_components_are_refused_by_name_without_echoing() {
        let (code, message) = refusal(r#"{"model":{"type":"Unigram","vocab":[["a",0.0]]}}"#);
        assert_eq!(code, "unsupported-tokenizer");
        assert!(message.contains("the Unigram model"), "{message}");
        let (code, message) = refusal(r#"{"model":{"type":"SecretModelName"}}"#);
        assert_eq!(code, "unsupported-tokenizer");
        assert!(!message.contains("SecretModelName"), "{message}");
        let (_, message) = refusal(
            r#"{"normalizer":{"type":"NFKC"},"pre_tokenizer":null,"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
        );
        assert!(message.contains("the NFKC normalizer"), "{message}");
        let (_, message) = refusal(
            r#"{"normalizer":null,"pre_tokenizer":{"type":"Metaspace"},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
        );
        assert!(message.contains("the Metaspace pre-tokenizer"), "{message}");
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
        let (code, message) = refusal(
            r#"{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"a":0},"merges":[]}}"#,
        );
        assert_eq!(code, "invalid-tokenizer");
        assert!(message.contains("single byte 0"), "{message}");
    }
}
