//! Hugging Face `tokenizer.json`: the normalizer, pre-tokenizers and added
//! tokens every model family shares, and one module per family, listed in
//! [`MODELS`] (BPE over bytes or over characters, WordPiece, Unigram, ...).
//! Each family's module says what it accepts around its model (its
//! `check`) and what in the model it refuses; a family is added as one
//! module and one line in [`MODELS`].
//!
//! # What is accepted
//!
//! - Normalizers: none, `NFC`, `NFKC`, `NFKD`, `Prepend`, `Replace` with a
//!   literal pattern or a regex run exactly (the `pretokenize` module's
//!   rules for split patterns; ` {2,}` of SentencePiece conversions),
//!   `Strip`, the `BertNormalizer` (`clean_text`,
//!   `handle_chinese_chars`, `strip_accents`, unset following `lowercase`,
//!   `lowercase`), `Lowercase`, `NFD`, `StripAccents` and `Precompiled`
//!   (SentencePiece's compiled rules: T5, ALBERT, XLM-R; the `precompiled`
//!   module), and `Sequence`s of them (NFC only alone or with NFC). Their
//!   character tables are the reference's (the `bert` module).
//! - Pre-tokenizers: a `ByteLevel` last (with or without its own regex and
//!   prefix space; its pieces are counted over their bytes), `Split` (regex
//!   or literal, every behaviour, `invert`), `Digits`, `Metaspace` (every
//!   `prepend_scheme`, `split` true or false), `BertPreTokenizer`,
//!   `WhitespaceSplit`, `Whitespace` and `Punctuation` (BERT's punctuation,
//!   every behaviour), nested `Sequence`s flattened, or none (then a text
//!   is one word).
//! - Models: the families of [`MODELS`], each with the normalizers and
//!   pre-tokenizers its module's `check` lets through. A model without a
//!   `type` is the family the reference reads it as (a list vocabulary is
//!   Unigram's, anything else BPE's).
//!
//! NFC, NFKC and NFKD are the reference's own: the tables of
//! `unicode-normalization-alignments` (Unicode 9.0.0), which `tokenizers`
//! normalizes with, not the newest Unicode's (see docs/unicode-tables.md).
//!
//! The file's `added_tokens` are matched as the reference matches them with
//! `encode_special_tokens` (SPEC §2.2): a token marked special is ordinary
//! text, any other is one token, with its flags (the `added` module). Each
//! stretch between them is normalized on its own (so `Prepend` writes its
//! `▁` after each such token, as the reference does).
//!
//! Packing counts entry by entry only for byte-level files with one
//! tiktoken-family split and no normalizer but NFC ([`Splitting::Tiktoken`]);
//! every other file packs by counting each candidate payload whole.
//!
//! The post-processor (BERT's `[CLS]` and `[SEP]`), the decoder, and the
//! file's `truncation` and `padding` are not consulted: a count is the
//! text's own tokens, as `encode(text, add_special_tokens=False)` gives
//! them without truncation or padding.
//!
//! # What is refused, and why
//!
//! Everything else is `unsupported-tokenizer`, naming the component: a
//! model type no family counts, what a family's module refuses (no
//! reference counts were made for it, or packer cannot count it exactly),
//! other normalizers (`Nmt`; `Replace` with a regex that packer's engine
//! cannot run exactly, NFC in a `Sequence` with others), other
//! pre-tokenizers, `Metaspace` with `ByteLevel`, or with the `first` scheme
//! after another pre-tokenizer or after a `Precompiled` normalizer, and
//! split patterns that packer's regex engine cannot run exactly (see the
//! `pretokenize` module). A model
//! the reference itself would fail with on some text is `invalid-tokenizer`
//! (each family's module says which).

mod added;
mod bert;
mod bpe;
mod pipeline;
mod precompiled;
mod prefixes;
mod unigram;
mod vocab;
mod wordlevel;
mod wordpiece;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::family::{TopLevel, json_error, unsupported};
use super::known::Visitor;
use super::pretokenize::{
    Behavior, Cache, PrependScheme, SplitRegex, Stage, count_before_piece_at, for_each_piece,
    split_ranges, split_ranges_by, splitting_of,
};
use super::{Engine, Splitting, Stretch};
use crate::error::Error;
use crate::tokens::bpe::{Pieces, with_state};
use added::{Added, AddedToken, Split};
use pipeline::{Norm, PreTokenizer, check_growth, parse_normalizer, parse_pre_tokenizer};

/// The family of files with a `model` (see [`Family`](super::family::Family)).
pub(super) fn read(top: &TopLevel) -> Option<Result<Box<dyn Engine>, Error>> {
    let model = top.model?;
    Some(hugging_face(
        model,
        top.normalizer.as_ref(),
        top.pre_tokenizer.as_ref(),
        top.added_tokens,
    ))
}

/// The model families counted, one module each: a model's `type` is
/// looked up here.
const MODELS: &[Family] = &[
    bpe::FAMILY,
    wordpiece::FAMILY,
    unigram::FAMILY,
    wordlevel::FAMILY,
];

/// One model family: its type, what it refuses around it, how it is read.
pub(super) struct Family {
    /// The model's `type` in the file.
    name: &'static str,
    /// Refuses normalizers and pre-tokenizers this family is not counted
    /// with (no reference counts were made for them).
    check: fn(&Pipeline<'_>) -> Result<(), Error>,
    /// Reads the model and builds the engine on the pipeline
    /// ([`Pipeline::engine`]).
    build: fn(&RawValue, Pipeline<'_>) -> Built,
}

/// An engine built, or why not.
type Built = Result<Box<dyn Engine>, Error>;

/// A family's model: the tokens of one piece the pre-tokenizer cut (never
/// empty). Called once per piece not yet counted, so statically: the
/// engine is generic over it and one dynamic call is made per text.
pub(super) trait PieceModel: Send + Sync + 'static {
    /// The tokens of `piece`.
    fn count(&self, piece: &str) -> usize;
}

/// The reference's model types, to name an unsupported one in a message.
const REFERENCE_MODELS: [&str; 4] = ["BPE", "WordPiece", "WordLevel", "Unigram"];

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
    /// Whether the vocabulary is a JSON list (only Unigram's is).
    #[serde(rename = "vocab", default, deserialize_with = "is_list")]
    vocab_is_list: bool,
}

/// Whether a value is a JSON list, reading no further than its first byte
/// (the vocabulary is read again by its family).
fn is_list<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let raw = <&RawValue>::deserialize(deserializer)?;
    Ok(raw.get().starts_with('['))
}

/// A loaded `tokenizer.json`: normalization, pre-tokenizer stages and the
/// model.
struct HuggingFace<M> {
    /// The normalizer's steps, in order.
    normalizer: Vec<Norm>,
    stages: Vec<Stage>,
    model: M,
    splitting: Splitting,
    /// The file's added tokens, if it has any.
    added: Option<Added>,
}

/// `quick` (one of `unicode-normalization-alignments`' quick checks) over
/// `text`, run only over its runs of non-ASCII characters: the check
/// passes every ASCII character and starts afresh after one (an ASCII
/// character is allowed and a starter in every form), so the verdict is
/// the same, and the ASCII between runs is passed over bytewise.
fn quick_check(
    text: &str,
    quick: impl Fn(std::str::Chars<'_>) -> unicode_normalization_alignments::IsNormalized,
) -> unicode_normalization_alignments::IsNormalized {
    use unicode_normalization_alignments::IsNormalized;
    let bytes = text.as_bytes();
    let mut verdict = IsNormalized::Yes;
    let mut at = 0;
    while let Some(start) = next_non_ascii(bytes, at) {
        let end = bytes[start..]
            .iter()
            .position(u8::is_ascii)
            .map_or(bytes.len(), |offset| start + offset);
        match quick(text[start..end].chars()) {
            IsNormalized::No => return IsNormalized::No,
            IsNormalized::Maybe => verdict = IsNormalized::Maybe,
            IsNormalized::Yes => {}
        }
        at = end;
    }
    verdict
}

/// Where the first byte at or after `from` that is not ASCII is: blocks
/// of ASCII are passed over a word at a time.
fn next_non_ascii(bytes: &[u8], from: usize) -> Option<usize> {
    const BLOCK: usize = 64;
    let mut at = from;
    while at + BLOCK <= bytes.len() && bytes[at..at + BLOCK].is_ascii() {
        at += BLOCK;
    }
    bytes[at..]
        .iter()
        .position(|byte| !byte.is_ascii())
        .map(|offset| at + offset)
}

/// The reference's NFKC and NFKD (`unicode-normalization-alignments`'
/// tables, as for NFC), with the quick checks of the same tables.
fn nfkc(text: &str) -> Cow<'_, str> {
    use unicode_normalization_alignments::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
    if quick_check(text, |chars| is_nfkc_quick(chars)) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkc().map(|(c, _)| c).collect())
    }
}

fn nfkd(text: &str) -> Cow<'_, str> {
    use unicode_normalization_alignments::{IsNormalized, UnicodeNormalization, is_nfkd_quick};
    if quick_check(text, |chars| is_nfkd_quick(chars)) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfkd().map(|(c, _)| c).collect())
    }
}

/// The reference's NFC (`unicode-normalization-alignments`' tables), with
/// its quick check (same tables) to leave normalized text as it is.
fn nfc(text: &str) -> Cow<'_, str> {
    use unicode_normalization_alignments::{IsNormalized, UnicodeNormalization, is_nfc_quick};
    if quick_check(text, |chars| is_nfc_quick(chars)) == IsNormalized::Yes {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.nfc().map(|(c, _)| c).collect())
    }
}

impl<M: PieceModel> HuggingFace<M> {
    /// Runs `f` with this thread's search caches (one per split stage) and
    /// piece counts.
    fn with_state<R>(&self, f: impl FnOnce(&mut Vec<Cache>, &mut Pieces) -> R) -> R {
        let caches = || -> Vec<Cache> {
            self.stages
                .iter()
                .filter_map(|stage| match stage {
                    Stage::Split { regex, .. }
                    | Stage::Metaspace {
                        split: Some(regex), ..
                    } => Some(regex.create_cache()),
                    Stage::PrefixSpace
                    | Stage::Metaspace { split: None, .. }
                    | Stage::WhitespaceSplit
                    | Stage::Bert
                    | Stage::Punctuation { .. } => None,
                })
                .collect()
        };
        with_state(self, caches, f)
    }

    /// The model's tokens of one piece, remembered in `pieces` (the cache
    /// hands the piece's bytes on; the model reads the `str` itself).
    fn piece_tokens(&self, pieces: &mut Pieces, piece: &str) -> usize {
        pieces.tokens(piece, |_| self.model.count(piece))
    }

    fn normalize<'t>(&self, text: &'t str) -> Cow<'t, str> {
        self.normalize_at(text, false).0
    }

    /// The normalizer's steps applied to `text`, and whether the result
    /// still starts where the original text did, given that `text` does
    /// (`at_origin`): for `Metaspace`'s `first` scheme, which looks at the
    /// original offset of the normalized text's first character. Only a
    /// step that removes the first characters moves it (a left `Strip`, a
    /// `Replace` with nothing).
    fn normalize_at<'t>(&self, text: &'t str, at_origin: bool) -> (Cow<'t, str>, bool) {
        let mut out = Cow::Borrowed(text);
        let mut origin = at_origin;
        for step in &self.normalizer {
            match step {
                Norm::Nfc => {
                    if let Cow::Owned(composed) = nfc(&out) {
                        out = Cow::Owned(composed);
                    }
                }
                // (Neither maps a character to nothing: `origin` stays.)
                Norm::Nfkc => {
                    if let Cow::Owned(composed) = nfkc(&out) {
                        out = Cow::Owned(composed);
                    }
                }
                Norm::Nfkd => {
                    if let Cow::Owned(decomposed) = nfkd(&out) {
                        out = Cow::Owned(decomposed);
                    }
                }
                Norm::Prepend(prefix) => {
                    if !out.is_empty() {
                        out = Cow::Owned(format!("{prefix}{out}"));
                    }
                }
                Norm::Replace { pattern, content } => {
                    if !pattern.is_empty() && out.contains(pattern.as_str()) {
                        origin &= !(content.is_empty() && out.starts_with(pattern.as_str()));
                        out = Cow::Owned(out.replace(pattern.as_str(), content));
                    }
                }
                Norm::ReplaceRegex { regex, content } => {
                    let mut cache = regex.create_cache();
                    let mut replaced = String::new();
                    let mut kept = 0;
                    while let Some((start, end)) = regex.find_at(&mut cache, &out, kept) {
                        origin &= !(start == 0 && content.is_empty());
                        replaced.push_str(&out[kept..start]);
                        replaced.push_str(content);
                        kept = end;
                    }
                    if kept > 0 {
                        replaced.push_str(&out[kept..]);
                        out = Cow::Owned(replaced);
                    }
                }
                Norm::Strip { left, right } => {
                    let mut kept: &str = &out;
                    if *left {
                        let trimmed = kept.trim_start();
                        origin &= trimmed.len() == kept.len();
                        kept = trimmed;
                    }
                    if *right {
                        kept = kept.trim_end();
                    }
                    if kept.len() != out.len() {
                        out = Cow::Owned(kept.to_owned());
                    }
                }
                // (Only with WordPiece models, which have no `Metaspace`:
                // `origin` is not read after these.)
                Norm::Bert(options) => out = Cow::Owned(bert::bert_normalize(&out, *options)),
                Norm::Lowercase => out = Cow::Owned(bert::lowercase(&out)),
                Norm::Nfd => out = Cow::Owned(bert::nfd_string(&out)),
                Norm::StripAccents => out = Cow::Owned(bert::strip_accents(&out)),
                // (`Metaspace`'s `first` scheme is refused with it: where
                // the reference puts a removed first character is its
                // alignments' business.)
                Norm::Precompiled(charsmap) => {
                    if let Cow::Owned(normalized) = charsmap.normalize(&out) {
                        out = Cow::Owned(normalized);
                    }
                }
            }
        }
        (out, origin)
    }

    /// Whether the added tokens change anything in `text`: the text of a
    /// token that is not special occurs in it, or one searched in
    /// normalized text could occur once `text` is normalized.
    fn added_tokens_act(&self, text: &str) -> bool {
        let Some(added) = &self.added else {
            return false;
        };
        added.occurs(text) || (added.normalized_plain() && self.normalize(text) != text)
    }

    /// The count of a normalized stretch with no added token in it;
    /// `origin`: whether it starts where the original text starts.
    fn count_plain(
        &self,
        caches: &mut [Cache],
        pieces: &mut Pieces,
        text: &str,
        origin: bool,
    ) -> usize {
        let mut count = 0;
        let mut seen = 0usize;
        self.run_stages(0, caches, text, origin, &mut |piece: &str| {
            if !piece.is_empty() {
                seen += 1;
                if seen.is_multiple_of(crate::cancel::STEPS_PER_CHECKPOINT) {
                    crate::cancel::checkpoint();
                }
                count += self.piece_tokens(pieces, piece);
            }
        });
        count
    }

    /// [`HuggingFace::count_plain`] for a pipeline that is one split of the
    /// tiktoken family: its pieces as one anchored pass finds them (the
    /// matches that tile the text, which the split makes its pieces).
    fn count_split(
        &self,
        regex: &SplitRegex,
        cache: &mut Cache,
        pieces: &mut Pieces,
        text: &str,
    ) -> usize {
        let mut count = 0;
        let mut seen = 0usize;
        for_each_piece(regex, cache, text, 0, |piece, _| {
            seen += 1;
            if seen.is_multiple_of(crate::cancel::STEPS_PER_CHECKPOINT) {
                crate::cancel::checkpoint();
            }
            count += self.piece_tokens(pieces, piece);
            true
        });
        count
    }

    /// Applies stages `stage..` to `piece` and hands every final piece on.
    fn run_stages(
        &self,
        stage: usize,
        caches: &mut [Cache],
        piece: &str,
        origin: bool,
        each: &mut dyn FnMut(&str),
    ) {
        // The reference drops empty pieces (and puts nothing before one).
        if piece.is_empty() {
            return;
        }
        let Some(current) = self.stages.get(stage) else {
            each(piece);
            return;
        };
        match current {
            Stage::PrefixSpace => {
                if piece.starts_with(' ') {
                    self.run_stages(stage + 1, caches, piece, origin, each);
                } else {
                    let spaced = format!(" {piece}");
                    self.run_stages(stage + 1, caches, &spaced, origin, each);
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
                    let origin = origin && start == 0;
                    self.run_stages(stage + 1, rest, &piece[start..end], origin, each);
                }
            }
            Stage::Punctuation { behavior } => {
                let mut ranges = Vec::new();
                split_ranges_by(bert::is_bert_punctuation, *behavior, piece, &mut ranges);
                for (start, end) in ranges {
                    let origin = origin && start == 0;
                    self.run_stages(stage + 1, caches, &piece[start..end], origin, each);
                }
            }
            Stage::WhitespaceSplit | Stage::Bert => {
                let split: bert::Split = match current {
                    Stage::Bert => bert::bert_split,
                    _ => bert::whitespace_split,
                };
                split(piece, &mut |word| {
                    self.run_stages(
                        stage + 1,
                        caches,
                        word,
                        origin && word.as_ptr() == piece.as_ptr(),
                        each,
                    )
                })
            }
            Stage::Metaspace {
                replacement,
                prepend,
                split,
            } => {
                let mut buffer = [0u8; 4];
                let replacement: &str = replacement.encode_utf8(&mut buffer);
                let mut text = piece.replace(' ', replacement);
                let prepend = match prepend {
                    PrependScheme::Always => true,
                    PrependScheme::First => origin,
                    PrependScheme::Never => false,
                };
                if prepend && !text.starts_with(replacement) {
                    text.insert_str(0, replacement);
                }
                match split {
                    Some(regex) => {
                        let (cache, rest) =
                            caches.split_first_mut().expect("one cache per split stage");
                        let mut ranges = Vec::new();
                        split_ranges(
                            regex,
                            Behavior::MergedWithNext,
                            false,
                            cache,
                            &text,
                            &mut ranges,
                        );
                        for (start, end) in ranges {
                            let origin = origin && start == 0;
                            self.run_stages(stage + 1, rest, &text[start..end], origin, each);
                        }
                    }
                    None => self.run_stages(stage + 1, caches, &text, origin, each),
                }
            }
        }
    }
}

impl<M: PieceModel> Engine for HuggingFace<M> {
    fn count(&self, text: &str) -> usize {
        let Some(added) = self.added.as_ref().filter(|_| self.added_tokens_act(text)) else {
            let (text, origin) = self.normalize_at(text, true);
            return self.with_state(|caches, pieces| match self.single_split() {
                Some(regex) => self.count_split(regex, &mut caches[0], pieces, &text),
                None => self.count_plain(caches, pieces, &text, origin),
            });
        };
        // The reference's `extract_and_normalize` (see the `added` module).
        self.with_state(|caches, pieces| {
            let mut count = 0;
            for (kind, start, end) in added.split_raw(text) {
                if kind == Split::Token {
                    count += 1;
                    continue;
                }
                let (stretch, origin) = self.normalize_at(&text[start..end], start == 0);
                for (kind, start, end) in added.split_normalized(&stretch) {
                    count += match kind {
                        Split::Token => 1,
                        Split::Text => self.count_plain(
                            caches,
                            pieces,
                            &stretch[start..end],
                            origin && start == 0,
                        ),
                    };
                }
            }
            count
        })
    }

    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        let Some(regex) = self.one_split(text) else {
            return (0, 0);
        };
        self.with_state(|caches, pieces| {
            count_before_piece_at(regex, &mut caches[0], text, offset, |piece| {
                self.piece_tokens(pieces, piece)
            })
        })
    }

    fn splitting(&self) -> Splitting {
        self.splitting
    }

    fn may_cross(&self, text: &str) -> bool {
        let Some(added) = &self.added else {
            return false;
        };
        let normalized = self.normalize(text);
        added.may_cross(text, Some(&*normalized).filter(|n| *n != text))
    }

    fn special_texts(&self) -> Option<Vec<&str>> {
        Some(
            self.added
                .as_ref()
                .map(|added| added.special_texts().collect())
                .unwrap_or_default(),
        )
    }

    fn count_framed(&self, text: &str, literal: &[(usize, usize)]) -> Option<usize> {
        let Some(added) = &self.added else {
            return Some(self.count(text));
        };
        let overlaps =
            |start: usize, end: usize| literal.iter().any(|&(from, to)| from < end && start < to);
        // The reference's `extract_and_normalize` with special tokens
        // matched (see the `added` module), except inside `literal`.
        self.with_state(|caches, pieces| {
            let mut count = 0;
            let keep_raw = |start: usize, end: usize| !overlaps(start, end);
            for (kind, start, end) in added.split_raw_keeping(text, &keep_raw) {
                if kind == Split::Token {
                    count += 1;
                    continue;
                }
                let raw = &text[start..end];
                let (stretch, origin) = self.normalize_at(raw, start == 0);
                let same = *stretch == *raw;
                let touched = overlaps(start, end);
                if touched && !same && added.normalized_special() {
                    // Where a normalized special token sits in the raw
                    // text is not known once the normalizer changed it.
                    return None;
                }
                let keep_normalized =
                    |a: usize, b: usize| !touched || (same && !overlaps(start + a, start + b));
                for (kind, a, b) in added.split_normalized_keeping(&stretch, &keep_normalized) {
                    count += match kind {
                        Split::Token => 1,
                        Split::Text => {
                            self.count_plain(caches, pieces, &stretch[a..b], origin && a == 0)
                        }
                    };
                }
            }
            Some(count)
        })
    }

    fn count_framed_around(
        &self,
        text: &str,
        hole: (usize, usize),
        stretch: Stretch<'_>,
    ) -> Option<usize> {
        let Some(added) = &self.added else {
            let (normalized, _) = self.normalize_at(text, true);
            if *normalized != *text || self.splitting != Splitting::Tiktoken {
                return None;
            }
            return Some(stretch(text, hole.0).unwrap_or_else(|| self.count(text)));
        };
        let pieces = added.split_raw_keeping(text, &|_, _| true);
        let holder = pieces.iter().position(|&(kind, start, end)| {
            kind == Split::Text && start <= hole.0 && hole.1 <= end
        })?;
        // The holder's count from what `stretch` knows, asked before this
        // engine's state is borrowed (`stretch` counts with this engine).
        let (_, start, end) = pieces[holder];
        let raw = &text[start..end];
        let known = if self.splitting == Splitting::Tiktoken
            && *self.normalize_at(raw, start == 0).0 == *raw
            && added.split_normalized_keeping(raw, &|_, _| true).len() == 1
        {
            stretch(raw, hole.0 - start)
        } else {
            None
        };
        self.with_state(|caches, counts| {
            let mut count = 0;
            for (at, &(kind, start, end)) in pieces.iter().enumerate() {
                if kind == Split::Token {
                    count += 1;
                    continue;
                }
                if at == holder
                    && let Some(known) = known
                {
                    count += known;
                    continue;
                }
                let raw = &text[start..end];
                let (normalized, origin) = self.normalize_at(raw, start == 0);
                for (kind, a, b) in added.split_normalized_keeping(&normalized, &|_, _| true) {
                    count += match kind {
                        Split::Token => 1,
                        Split::Text => {
                            self.count_plain(caches, counts, &normalized[a..b], origin && a == 0)
                        }
                    };
                }
            }
            Some(count)
        })
    }

    fn walk(&self, text: &str, from: usize, mut visit: Visitor<'_, '_>) -> bool {
        // The text is checked once for all the walks of one visitor (one
        // count resumes its walk after each skip).
        let checked = *visit.text_checked();
        let split = if checked {
            self.single_split()
        } else {
            self.one_split(text)
        };
        let Some(regex) = split else {
            return false;
        };
        *visit.text_checked() = true;
        self.with_state(|caches, pieces| {
            // With how far past each piece the split read, so that a
            // recount can skip the settled ones.
            for_each_piece(regex, &mut caches[0], text, from, |piece, beyond| {
                visit.piece_read(piece, beyond, |piece| self.piece_tokens(pieces, piece))
            });
        });
        true
    }
}

impl<M: PieceModel> HuggingFace<M> {
    /// The one tiktoken-family split that counts `text` piece by piece, as
    /// [`Engine::count`] would: `None` unless the pipeline is
    /// [`Splitting::Tiktoken`], its normalizer leaves `text` as it is, and
    /// no added token that is not special occurs in it (then its added
    /// tokens change nothing, see the `added` module).
    fn one_split(&self, text: &str) -> Option<&SplitRegex> {
        if self.splitting != Splitting::Tiktoken {
            return None;
        }
        // (Tiktoken splitting is only given with NFC steps or none.)
        if !self.normalizer.is_empty() {
            use unicode_normalization_alignments::{IsNormalized, is_nfc_quick};
            if quick_check(text, |chars| is_nfc_quick(chars)) != IsNormalized::Yes {
                return None;
            }
        }
        if self.added.as_ref().is_some_and(|added| added.occurs(text)) {
            return None;
        }
        self.single_split()
    }

    /// The pipeline's one split stage, unchecked (see
    /// [`HuggingFace::one_split`]).
    fn single_split(&self) -> Option<&SplitRegex> {
        if self.splitting != Splitting::Tiktoken {
            return None;
        }
        match self.stages.as_slice() {
            [Stage::Split { regex, .. }] => Some(regex),
            _ => None,
        }
    }
}

/// What a `tokenizer.json` says around its model, read before the model:
/// its family checks it ([`Family::check`]) and builds its engine on it
/// ([`Pipeline::engine`]).
pub(super) struct Pipeline<'a> {
    normalizer: Vec<Norm>,
    stages: Vec<Stage>,
    /// Whether a `ByteLevel` pre-tokenizer ends the stages (its pieces are
    /// then counted over their bytes).
    pub(super) byte_level: bool,
    /// The pre-tokenizers' types, in order.
    pre_tokenizers: Vec<&'static str>,
    added_tokens: Option<&'a RawValue>,
    /// The model's type (its family's name), for refusals.
    model: &'static str,
}

impl Pipeline<'_> {
    /// Refuses the first normalizer step whose type is one of `names`, as
    /// not counted with this model.
    pub(super) fn refuse_normalizers(&self, names: &[&str]) -> Result<(), Error> {
        match self
            .normalizer
            .iter()
            .find(|step| names.contains(&step.name()))
        {
            Some(step) => Err(unsupported(format!(
                "the {} normalizer with a {} model",
                step.name(),
                self.model
            ))),
            None => Ok(()),
        }
    }

    /// Refuses the first pre-tokenizer whose type is one of `names`, as
    /// not counted with this model.
    pub(super) fn refuse_pre_tokenizers(&self, names: &[&str]) -> Result<(), Error> {
        match self.pre_tokenizers.iter().find(|name| names.contains(name)) {
            Some(name) => Err(unsupported(format!(
                "the {name} pre-tokenizer with a {} model",
                self.model
            ))),
            None => Ok(()),
        }
    }

    /// The engine that counts with `model` after this pipeline, with the
    /// file's added tokens.
    pub(super) fn engine<M: PieceModel>(self, model: M) -> Result<Box<dyn Engine>, Error> {
        let Pipeline {
            normalizer,
            stages,
            byte_level,
            added_tokens,
            ..
        } = self;
        // A tiktoken-family pattern matches every character, so keeping its
        // matches and removing the rest (`Removed` with `invert`, as
        // converted OpenAI files say it) is the same split as `Isolated`.
        let splitting = match stages.as_slice() {
            _ if !byte_level || !normalizer.iter().all(|step| matches!(step, Norm::Nfc)) => {
                Splitting::Whole
            }
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
        let mut engine = HuggingFace {
            normalizer,
            stages,
            model,
            splitting,
            added: None,
        };
        if let Some(raw) = added_tokens {
            let tokens: Option<Vec<AddedToken>> =
                serde_json::from_str(raw.get()).map_err(|e| json_error(&e))?;
            // A normalized token is searched for as the whole normalizer
            // writes it (the reference normalizes its text when it is
            // added).
            let normalize = |text: &str| engine.normalize(text).into_owned();
            engine.added = Added::new(tokens.as_deref().unwrap_or_default(), &normalize)?;
        }
        Ok(Box::new(engine))
    }
}

/// Reads the pipeline, then hands it to the family the model's type names.
fn hugging_face(
    model: &RawValue,
    normalizer: Option<&Value>,
    pre_tokenizer: Option<&Value>,
    added_tokens: Option<&RawValue>,
) -> Result<Box<dyn Engine>, Error> {
    let kind: ModelType = serde_json::from_str(model.get()).map_err(|e| json_error(&e))?;
    // The reference reads a model without a type as the first of BPE,
    // WordPiece, WordLevel and Unigram whose fields it reads: a vocabulary
    // that is a list (of pieces and scores) is only Unigram's; any other is
    // read as BPE (a map, as the other three write it).
    let kind = match kind.kind.as_deref() {
        Some(kind) => kind,
        None if kind.vocab_is_list => "Unigram",
        None => "BPE",
    };
    let Some(family) = MODELS.iter().find(|family| family.name == kind) else {
        return Err(unsupported(component(
            &REFERENCE_MODELS,
            Some(kind),
            "model",
        )));
    };
    let normalizer = parse_normalizer(normalizer)?;
    let PreTokenizer {
        stages,
        byte_level,
        names,
    } = parse_pre_tokenizer(pre_tokenizer)?;
    check_growth(&normalizer)?;
    let pipeline = Pipeline {
        normalizer,
        stages,
        byte_level,
        pre_tokenizers: names,
        added_tokens,
        model: family.name,
    };
    (family.check)(&pipeline)?;
    let Pipeline {
        normalizer, stages, ..
    } = &pipeline;
    let metaspace_at = stages
        .iter()
        .position(|stage| matches!(stage, Stage::Metaspace { .. }));
    if byte_level && metaspace_at.is_some() {
        return Err(unsupported(
            "a Metaspace pre-tokenizer together with ByteLevel",
        ));
    }
    if let Some(at) = metaspace_at
        && at > 0
        && matches!(
            stages[at],
            Stage::Metaspace {
                prepend: PrependScheme::First,
                ..
            }
        )
    {
        // Which piece is "first" then depends on the reference's offsets of
        // the pieces before it.
        return Err(unsupported(
            "a Metaspace pre-tokenizer with prepend_scheme first after another pre-tokenizer",
        ));
    }
    if normalizer
        .iter()
        .any(|step| matches!(step, Norm::Precompiled(_)))
        && stages.iter().any(|stage| {
            matches!(
                stage,
                Stage::Metaspace {
                    prepend: PrependScheme::First,
                    ..
                }
            )
        })
    {
        return Err(unsupported(
            "a Precompiled normalizer with a Metaspace pre-tokenizer of prepend_scheme first",
        ));
    }
    if normalizer.iter().any(|step| matches!(step, Norm::Nfc))
        && !normalizer.iter().all(|step| matches!(step, Norm::Nfc))
    {
        // NFC composes across what another step writes (a mark after a
        // replaced space); supported alone only.
        return Err(unsupported(
            "an NFC normalizer in a Sequence with other normalizers",
        ));
    }
    (family.build)(model, pipeline)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The quick checks run over the non-ASCII runs alone give the
        /// verdict of the whole text's.
        #[test]
        fn quick_checks_over_non_ascii_runs_agree_with_the_whole(
            text in "[a \u{300}\u{301}\u{334}\u{345}\u{e9}\u{212b}\u{1100}\u{1161}\u{ac00}\u{fb01}\u{2126}A.]{0,24}",
            ascii in 0usize..200,
        ) {
            // Runs of ASCII long enough to be passed over in blocks.
            let text = format!("{}{text}{}{text}", "x".repeat(ascii), "y".repeat(ascii / 3));
            use unicode_normalization_alignments::{is_nfc_quick, is_nfkc_quick, is_nfkd_quick};
            proptest::prop_assert_eq!(quick_check(&text, |c| is_nfc_quick(c)), is_nfc_quick(text.chars()));
            proptest::prop_assert_eq!(quick_check(&text, |c| is_nfkc_quick(c)), is_nfkc_quick(text.chars()));
            proptest::prop_assert_eq!(quick_check(&text, |c| is_nfkd_quick(c)), is_nfkd_quick(text.chars()));
        }
    }

    /// The quick check that lets text through unnormalized follows the same
    /// tables as the normalization: wherever it says yes, NFC changes
    /// nothing, for every character alone, after a letter, around marks of
    /// low and high combining class, and doubled.
    #[test]
    fn the_quick_check_agrees_with_the_references_nfc() {
        use unicode_normalization_alignments::{IsNormalized, UnicodeNormalization, is_nfc_quick};
        let mut text = String::new();
        let mut yes = 0;
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            for shape in 0..5 {
                text.clear();
                match shape {
                    0 => text.push(c),
                    1 => text.extend(['a', c, '\u{334}']),
                    2 => text.extend(['a', '\u{345}', c]),
                    3 => text.extend([c, c]),
                    _ => text.extend([c, '\u{301}']),
                }
                if is_nfc_quick(text.chars()) == IsNormalized::Yes {
                    yes += 1;
                    let normalized: String = text.nfc().map(|(c, _)| c).collect();
                    assert_eq!(normalized, text, "U+{:04X} shape {shape}", c as u32);
                }
            }
        }
        assert!(yes > 3_000_000, "{yes}");
    }

    /// Unicode 9.0's tables: U+11935 U+11930 (Dives Akuru, Unicode 13) and
    /// the Unicode 16 pairs stay apart; older pairs compose.
    #[test]
    fn nfc_is_unicode_9s() {
        assert_eq!(unicode_normalization_alignments::UNICODE_VERSION, (9, 0, 0));
        assert_eq!(nfc("\u{11935}\u{11930}"), "\u{11935}\u{11930}");
        assert_eq!(nfc("\u{16D63}\u{16D67}"), "\u{16D63}\u{16D67}");
        assert_eq!(nfc("e\u{301}"), "\u{e9}");
        assert!(matches!(nfc("plain"), Cow::Borrowed(_)));
    }
}
