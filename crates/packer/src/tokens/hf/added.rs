//! A `tokenizer.json`'s `added_tokens`, matched exactly as Hugging Face
//! `tokenizers` matches them under SPEC §2.2's reading: `encode(text,
//! add_special_tokens=False)` with `encode_special_tokens=True`.
//!
//! # The reference's rule (`AddedVocabulary::extract_and_normalize`)
//!
//! 1. The tokens with `normalized: false` are found in the raw text, all in
//!    one leftmost-longest, non-overlapping search (special ones too).
//! 2. Each stretch between those matches is normalized on its own, and the
//!    tokens with `normalized: true` (their text normalized the same way)
//!    are found in it by a second such search.
//! 3. Every match is one token; the stretches left are pre-tokenized and
//!    merged as ordinary text, each on its own (an added token is a hard
//!    boundary for the pre-tokenizer).
//!
//! In each search (`find_matches`), a match of a token marked `special` is
//! skipped (`encode_special_tokens`): its text stays ordinary text, but the
//! search has consumed it, so no other match starts inside it. So is a
//! match of a `single_word` token with a word character (`\w`) right before
//! or after it. A kept match with `lstrip` takes the whitespace before it
//! (back to the previous match), with `rstrip` the whitespace after it;
//! those spaces are part of the one token.
//!
//! # Where nothing changes
//!
//! Where no text of a token that is not special occurs, no match is kept:
//! the text is one stretch, counted as if the file had no added tokens.
//! [`Added::occurs`] says whether one does (in the raw text and, for
//! normalized tokens, in their normalized form); the engine counts piece by
//! piece only texts where none does.

use std::borrow::Cow;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex_automata::meta::Regex;
use rustc_hash::FxHashSet;
use serde::Deserialize;

use crate::error::Error;
use crate::tokens::family::{invalid, over_limit};

/// One entry of `added_tokens`, as the reference deserializes it (every
/// field is required there).
#[derive(Deserialize)]
pub(super) struct AddedToken<'a> {
    #[serde(borrow)]
    content: Cow<'a, str>,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
    normalized: bool,
    special: bool,
}

/// A token's behaviour once matched.
#[derive(Debug, Clone, Copy)]
struct Flags {
    special: bool,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
}

/// One leftmost-longest search over some of the tokens.
struct Trie {
    search: AhoCorasick,
    /// The flags of each pattern, by pattern index.
    flags: Vec<Flags>,
}

/// A piece of a searched text: a kept match (one token) or ordinary text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Split {
    Token,
    Text,
}

/// The added vocabulary of a file (see the module documentation).
pub(super) struct Added {
    /// Tokens with `normalized: false`, searched in the raw text.
    raw: Option<Trie>,
    /// Tokens with `normalized: true`, their text normalized, searched in
    /// each normalized stretch.
    normalized: Option<Trie>,
    /// Every text of a token that is not special, in the form it is
    /// searched in: where none occurs, the vocabulary changes nothing.
    occurs: Option<AhoCorasick>,
    /// Whether some token that is not special is searched in normalized
    /// text (then a text the normalizer changes is always counted in full).
    normalized_plain: bool,
    /// The edges a token's text could run across (see [`Added::may_cross`]).
    edges: Edges,
    /// The text of every token marked special, as written in the file.
    special: Vec<String>,
    /// Whether some special token is searched in normalized text.
    normalized_special: bool,
}

/// What [`Added::may_cross`] looks for at the edges of a text.
#[derive(Default)]
struct Edges {
    /// Every nonempty proper prefix of every token's text (special ones
    /// too: a skipped match still consumes its text), as its length and
    /// its polynomial hash (base [`HASH_BASE`]): one entry per prefix, so a token of `L` bytes
    /// costs `L` entries, not the `L²/2` bytes of its prefixes' texts. A
    /// hash that matches by chance only makes [`Added::may_cross`] say
    /// "may" of a text that cannot cross, which costs a count, never
    /// exactness.
    prefixes: FxHashSet<(u64, usize)>,
    longest_prefix: usize,
    /// Texts of tokens (not special) that take what is after them:
    /// `rstrip` (whitespace) or `single_word` (the next character).
    glued_right: Vec<(Box<str>, bool)>,
    /// Texts of tokens (not special) that take what is before them.
    glued_left: Vec<(Box<str>, bool)>,
    /// Some token's text starts with an ASCII digit.
    digit_first: bool,
}

/// The most added tokens a file may have (Gemma's have about six thousand,
/// Qwen3's 26): each is a pattern of the search built at load.
pub(super) const MOST_ADDED_TOKENS: usize = 100_000;

/// The most bytes their texts may hold in all (the search's memory grows
/// with them: 4 MiB of patterns take about 450 MB).
pub(super) const MOST_ADDED_BYTES: usize = 4 << 20;

impl Added {
    /// The added vocabulary of `tokens`, with `normalize` the file's
    /// normalizer; `None` when there is none.
    pub(super) fn new(
        tokens: &[AddedToken<'_>],
        normalize: &dyn Fn(&str) -> String,
    ) -> Result<Option<Added>, Error> {
        let mut raw: (Vec<String>, Vec<Flags>) = Default::default();
        let mut normalized: (Vec<String>, Vec<Flags>) = Default::default();
        let mut plain = Vec::new();
        let mut normalized_plain = false;
        let mut edges = Edges::default();
        let mut seen = FxHashSet::default();
        let mut seen_normalized: FxHashSet<String> = FxHashSet::default();
        let mut special = Vec::new();
        let mut normalized_special = false;
        if tokens.len() > MOST_ADDED_TOKENS {
            return Err(over_limit(format!(
                "{} added tokens (the limit is {MOST_ADDED_TOKENS})",
                tokens.len()
            )));
        }
        let bytes: usize = tokens.iter().map(|token| token.content.len()).sum();
        if bytes > MOST_ADDED_BYTES {
            return Err(over_limit(format!(
                "added tokens of {bytes} bytes in all (the limit is {MOST_ADDED_BYTES})"
            )));
        }
        for token in tokens {
            // The reference ignores empty tokens, and keeps one per text.
            if token.content.is_empty() || !seen.insert(token.content.as_ref()) {
                continue;
            }
            let flags = Flags {
                special: token.special,
                single_word: token.single_word,
                lstrip: token.lstrip,
                rstrip: token.rstrip,
            };
            let text = if token.normalized {
                normalize(&token.content)
            } else {
                token.content.to_string()
            };
            let (texts, all_flags) = if token.normalized {
                &mut normalized
            } else {
                &mut raw
            };
            if token.normalized && !seen_normalized.insert(text.clone()) {
                // Two tokens normalized to one text: one pattern is enough
                // to say where a token is, but which one's flags apply would
                // be the reference's hash order.
                return Err(invalid(
                    "two of its added tokens are the same text once normalized",
                ));
            }
            if text.is_empty() {
                continue;
            }
            if token.special {
                special.push(token.content.to_string());
                normalized_special |= token.normalized;
            }
            edges.note(&text, flags);
            if !token.special {
                normalized_plain |= token.normalized;
                plain.push(text.clone());
                if token.normalized && text != token.content {
                    // Raw text that holds the token's own form may
                    // normalize to it.
                    plain.push(token.content.to_string());
                }
            }
            texts.push(text);
            all_flags.push(flags);
        }
        if raw.0.is_empty() && normalized.0.is_empty() {
            return Ok(None);
        }
        let trie = |(texts, flags): (Vec<String>, Vec<Flags>)| -> Result<Option<Trie>, Error> {
            if texts.is_empty() {
                return Ok(None);
            }
            let search = AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostLongest)
                .kind(search_kind(&texts))
                .build(&texts)
                .map_err(|_| invalid("its added tokens are too many to search"))?;
            Ok(Some(Trie { search, flags }))
        };
        let occurs = if plain.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .kind(search_kind(&plain))
                    .build(&plain)
                    .map_err(|_| invalid("its added tokens are too many to search"))?,
            )
        };
        Ok(Some(Added {
            raw: trie(raw)?,
            normalized: trie(normalized)?,
            occurs,
            normalized_plain,
            edges,
            special,
            normalized_special,
        }))
    }

    /// Whether the text of a token that is not special occurs in `text`
    /// (as it is, or normalized for a normalized token): if not, and the
    /// normalizer leaves `text` as it is, the added vocabulary changes
    /// nothing in it.
    pub(super) fn occurs(&self, text: &str) -> bool {
        self.occurs.as_ref().is_some_and(|ac| ac.is_match(text))
    }

    /// Whether some token that is not special is searched in normalized
    /// text.
    pub(super) fn normalized_plain(&self) -> bool {
        self.normalized_plain
    }

    /// The pieces of raw `text` (step 1 of the module documentation).
    pub(super) fn split_raw(&self, text: &str) -> Vec<(Split, usize, usize)> {
        find_matches(text, self.raw.as_ref(), &|_, _| false)
    }

    /// The pieces of a normalized stretch (step 2).
    pub(super) fn split_normalized(&self, text: &str) -> Vec<(Split, usize, usize)> {
        find_matches(text, self.normalized.as_ref(), &|_, _| false)
    }

    /// [`Added::split_raw`], where a match of a special token is one token
    /// (as the reference matches it with `split_special_tokens=False`)
    /// when `keep_special(start, end)` says so.
    pub(super) fn split_raw_keeping(
        &self,
        text: &str,
        keep_special: &dyn Fn(usize, usize) -> bool,
    ) -> Vec<(Split, usize, usize)> {
        find_matches(text, self.raw.as_ref(), keep_special)
    }

    /// [`Added::split_normalized`], keeping special matches as
    /// [`Added::split_raw_keeping`] does.
    pub(super) fn split_normalized_keeping(
        &self,
        text: &str,
        keep_special: &dyn Fn(usize, usize) -> bool,
    ) -> Vec<(Split, usize, usize)> {
        find_matches(text, self.normalized.as_ref(), keep_special)
    }

    /// The text of every token marked special.
    pub(super) fn special_texts(&self) -> impl Iterator<Item = &str> {
        self.special.iter().map(String::as_str)
    }

    /// Whether some special token is searched in normalized text.
    pub(super) fn normalized_special(&self) -> bool {
        self.normalized_special
    }

    /// Whether a token's text could run across an edge of `text` when
    /// `text` is put between other texts: `text` ends with a proper prefix
    /// of a token's text, or starts or ends with a token that takes what
    /// is next to it (`lstrip`, `rstrip`, `single_word`), or ends with a
    /// digit where some token's text starts with one (numbers are written
    /// beside envelope texts). `normalized` is `text` normalized, when that
    /// differs.
    pub(super) fn may_cross(&self, text: &str, normalized: Option<&str>) -> bool {
        std::iter::once(text)
            .chain(normalized)
            .any(|text| self.edges.may_cross(text))
    }
}

impl Edges {
    fn note(&mut self, text: &str, flags: Flags) {
        let mut hash = 0u64;
        for (at, &byte) in text.as_bytes().iter().enumerate() {
            if at > 0 && text.is_char_boundary(at) {
                self.longest_prefix = self.longest_prefix.max(at);
                self.prefixes.insert((hash, at));
            }
            hash = hash
                .wrapping_mul(HASH_BASE)
                .wrapping_add(u64::from(byte) + 1);
        }
        self.digit_first |= text.starts_with(|c: char| c.is_ascii_digit());
        if flags.special {
            return;
        }
        if flags.rstrip || flags.single_word {
            self.glued_right.push((text.into(), flags.rstrip));
        }
        if flags.lstrip || flags.single_word {
            self.glued_left.push((text.into(), flags.lstrip));
        }
    }

    fn may_cross(&self, text: &str) -> bool {
        // The hash of each ending of `text`, one byte longer at a time.
        let bytes = text.as_bytes();
        let (mut hash, mut power) = (0u64, 1u64);
        for at in (0..bytes.len()).rev() {
            let length = bytes.len() - at;
            if length > self.longest_prefix {
                break;
            }
            hash = hash.wrapping_add((u64::from(bytes[at]) + 1).wrapping_mul(power));
            power = power.wrapping_mul(HASH_BASE);
            if text.is_char_boundary(at) && self.prefixes.contains(&(hash, length)) {
                return true;
            }
        }
        if self.digit_first && text.ends_with(|c: char| c.is_ascii_digit()) {
            return true;
        }
        let right = |(token, strip): &(Box<str>, bool)| {
            let end = if *strip { text.trim_end() } else { text };
            end.ends_with(&**token) || text.ends_with(&**token)
        };
        let left = |(token, strip): &(Box<str>, bool)| {
            let start = if *strip { text.trim_start() } else { text };
            start.starts_with(&**token) || text.starts_with(&**token)
        };
        self.glued_right.iter().any(right) || self.glued_left.iter().any(left)
    }
}

/// A token longer than this is searched with a contiguous NFA: the DFA
/// the search would otherwise build costs time in the square of a long
/// token's length (30,000 bytes: seconds; 100,000: minutes).
const LONGEST_FOR_DFA: usize = 512;

/// How to search `texts`: the search's own choice, or for a long token a
/// contiguous NFA (linear to build, a little slower to run).
fn search_kind(texts: &[impl AsRef<[u8]>]) -> Option<AhoCorasickKind> {
    texts
        .iter()
        .any(|text| text.as_ref().len() > LONGEST_FOR_DFA)
        .then_some(AhoCorasickKind::ContiguousNFA)
}

/// The base of [`Edges`]' polynomial hashes of texts (odd, so that
/// multiplying by it loses nothing mod 2^64).
const HASH_BASE: u64 = 0x9E37_79B9_7F4A_7C15;

/// `^\w` and `\w$` of the reference (the `regex` crate's Unicode `\w`).
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\A\w\z").expect("a valid regex"));

fn is_word(c: char) -> bool {
    let mut buffer = [0u8; 4];
    WORD.is_match(&*c.encode_utf8(&mut buffer))
}

/// The reference's `AddedVocabulary::find_matches`: the pieces of
/// `sentence`, in order, covering it. A match of a special token is
/// skipped (`encode_special_tokens`) unless `keep_special` says to keep
/// the match at those bytes.
fn find_matches(
    sentence: &str,
    trie: Option<&Trie>,
    keep_special: &dyn Fn(usize, usize) -> bool,
) -> Vec<(Split, usize, usize)> {
    let Some(trie) = trie.filter(|_| !sentence.is_empty()) else {
        return vec![(Split::Text, 0, sentence.len())];
    };
    let mut splits = Vec::new();
    let mut start_offset = 0;
    for found in trie.search.find_iter(sentence) {
        let (mut start, mut stop) = (found.start(), found.end());
        let flags = trie.flags[found.pattern().as_usize()];
        if flags.special && !keep_special(start, stop) {
            continue;
        }
        if flags.single_word {
            let start_space = sentence[..start]
                .chars()
                .next_back()
                .is_none_or(|c| !is_word(c));
            let stop_space = sentence[stop..].chars().next().is_none_or(|c| !is_word(c));
            if !start_space || !stop_space {
                continue;
            }
        }
        if flags.lstrip {
            // `\s*$` over what precedes (the `regex` crate's `\s` is
            // White_Space, as `char::is_whitespace`), not before the
            // previous match's end.
            let new_start = sentence[..start].trim_end().len();
            start = new_start.max(start_offset);
        }
        if flags.rstrip {
            let rest = &sentence[stop..];
            stop += rest.len() - rest.trim_start().len();
        }
        if start_offset < start {
            splits.push((Split::Text, start_offset, start));
        }
        splits.push((Split::Token, start, stop));
        start_offset = stop;
    }
    if start_offset != sentence.len() {
        splits.push((Split::Text, start_offset, sentence.len()));
    }
    splits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(content: &str, special: bool) -> AddedToken<'_> {
        AddedToken {
            content: Cow::Borrowed(content),
            single_word: false,
            lstrip: false,
            rstrip: false,
            normalized: false,
            special,
        }
    }

    #[test]
    fn a_text_ending_in_a_token_s_prefix_may_cross_and_a_long_token_costs_its_length() {
        let flags = Flags {
            special: false,
            single_word: false,
            lstrip: false,
            rstrip: false,
        };
        let mut edges = Edges::default();
        edges.note("<|endoftext|>", flags);
        edges.note("héllo", flags);
        assert!(edges.may_cross("text <|endof"));
        assert!(edges.may_cross("say h"));
        assert!(edges.may_cross("say hé"));
        assert!(!edges.may_cross("say hello"));
        assert!(!edges.may_cross("text |endof"));
        // Its whole text is not a proper prefix.
        assert!(!edges.may_cross("x<|endoftext|>"));
        // A token of 200,000 bytes: 200,000 entries (its prefixes' texts
        // would be 20 GB).
        let long = "a".repeat(200_000);
        let mut edges = Edges::default();
        edges.note(&long, flags);
        assert_eq!(edges.prefixes.len(), 199_999);
        assert!(edges.may_cross(&format!("b{}", &long[..150_000])));
        assert!(!edges.may_cross(&"b".repeat(1_000)));
    }

    fn pieces(added: &Added, text: &str) -> Vec<String> {
        added
            .split_raw(text)
            .into_iter()
            .map(|(kind, a, b)| match kind {
                Split::Token => format!("[{}]", &text[a..b]),
                Split::Text => text[a..b].to_owned(),
            })
            .collect()
    }

    #[test]
    fn special_matches_are_text_but_still_consume_their_span() {
        let tokens = [
            token("<|a|>", true),
            token("a|>x", false),
            token("<t>", false),
        ];
        let added = Added::new(&tokens, &|s| s.to_owned()).unwrap().unwrap();
        assert_eq!(pieces(&added, "<t>hi<t>"), ["[<t>]", "hi", "[<t>]"]);
        // `<|a|>` is found first and skipped: `a|>x` inside it never matches.
        assert_eq!(pieces(&added, "<|a|>x"), ["<|a|>x"]);
        assert!(added.occurs("a|>x"));
        assert!(!added.occurs("<|a|>"));
    }

    #[test]
    fn flags_act_as_the_reference_applies_them() {
        let mut word = token("ab", false);
        word.single_word = true;
        let mut left = token("<l>", false);
        left.lstrip = true;
        let mut right = token("<r>", false);
        right.rstrip = true;
        let tokens = [word, left, right];
        let added = Added::new(&tokens, &|s| s.to_owned()).unwrap().unwrap();
        assert_eq!(pieces(&added, "ab xab ab"), ["[ab]", " xab ", "[ab]"]);
        assert_eq!(pieces(&added, "x  <l>  y"), ["x", "[  <l>]", "  y"]);
        assert_eq!(pieces(&added, "x  <r> \n y"), ["x  ", "[<r> \n ]", "y"]);
        assert_eq!(pieces(&added, "<r>  <l>"), ["[<r>  ]", "[<l>]"]);
        assert!(added.may_cross("x <l", None));
        assert!(added.may_cross("  <l>x", None));
        assert!(added.may_cross("x<r>  ", None));
        assert!(added.may_cross("xab", None));
        assert!(!added.may_cross("x<l>y", None));
    }
}
