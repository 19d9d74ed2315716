//! The normalizers and pre-tokenizers of WordPiece files (BERT and the
//! embedding models built on it), each the reference's own rule
//! (`tokenizers`' `normalizers/bert.rs`, `normalizers/strip.rs`,
//! `normalizers/utils.rs`, `normalizers/unicode.rs`,
//! `pre_tokenizers/bert.rs` and `pre_tokenizers/whitespace.rs`), with the
//! same character tables:
//!
//! - punctuation, control, format and private-use characters and
//!   nonspacing marks: the `unicode_categories` crate 0.1.1, as the
//!   reference classifies them (not the newest Unicode);
//! - NFD and `StripAccents`' combining marks: `unicode-normalization-
//!   alignments` (Unicode 9.0.0), as the reference normalizes;
//! - whitespace and lowercase: Rust's `char::is_whitespace` and
//!   `char::to_lowercase`, one character at a time (so a final capital
//!   sigma is `σ`, never `ς`), as the reference calls them.
//!
//! Each rule only writes text: the reference's alignments to the original
//! text change no count.

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// `BertNormalizer`'s options, as the file gives them (`strip_accents`
/// already resolved: unset follows `lowercase`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BertOptions {
    pub(crate) clean_text: bool,
    pub(crate) handle_chinese_chars: bool,
    pub(crate) strip_accents: bool,
    pub(crate) lowercase: bool,
}

/// `BertNormalizer`'s whitespace: tab, newline and carriage return, and
/// every `char::is_whitespace` character.
fn is_bert_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// `BertNormalizer`'s control characters: Cc, Cf and Co (the crate's
/// `is_other`), except tab, newline and carriage return.
fn is_bert_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// The CJK blocks `BertNormalizer` puts spaces around.
fn is_chinese_char(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

/// `BertNormalizer`: clean the text (remove NUL, U+FFFD and control
/// characters, every whitespace character a space), put spaces around CJK
/// ideographs, strip accents (NFD, then nonspacing marks removed), and
/// lowercase, each as the options say, in that order.
pub(crate) fn bert_normalize(text: &str, options: BertOptions) -> String {
    let mut out: String = if options.clean_text {
        text.chars()
            .filter(|&c| !(c == '\0' || c == '\u{FFFD}' || is_bert_control(c)))
            .map(|c| if is_bert_whitespace(c) { ' ' } else { c })
            .collect()
    } else {
        text.to_owned()
    };
    if options.handle_chinese_chars && out.chars().any(is_chinese_char) {
        let mut spaced = String::with_capacity(out.len() + 8);
        for c in out.chars() {
            if is_chinese_char(c) {
                spaced.push(' ');
                spaced.push(c);
                spaced.push(' ');
            } else {
                spaced.push(c);
            }
        }
        out = spaced;
    }
    if options.strip_accents {
        out = nfd(&out).filter(|c| !c.is_mark_nonspacing()).collect();
    }
    if options.lowercase {
        out = lowercase(&out);
    }
    out
}

/// The reference's NFD (`unicode-normalization-alignments`' tables).
fn nfd(text: &str) -> impl Iterator<Item = char> + '_ {
    text.nfd().map(|(c, _)| c)
}

/// The `NFD` normalizer.
pub(crate) fn nfd_string(text: &str) -> String {
    nfd(text).collect()
}

/// The `Lowercase` normalizer (and `BertNormalizer`'s): each character's
/// `char::to_lowercase`, on its own.
pub(crate) fn lowercase(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The `StripAccents` normalizer: every combining mark (Mn, Mc, Me in
/// `unicode-normalization-alignments`' tables) removed; it decomposes
/// nothing itself.
pub(crate) fn strip_accents(text: &str) -> String {
    text.chars()
        .filter(|&c| !unicode_normalization_alignments::char::is_combining_mark(c))
        .collect()
}

/// `BertPreTokenizer`'s punctuation, and the `Punctuation`
/// pre-tokenizer's: ASCII punctuation (symbols such as `$`, `+`, `^` too)
/// and every character of a P category in the crate's tables.
pub(crate) fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// A pre-tokenizer's split of a text into the words it hands on.
pub(crate) type Split = fn(&str, &mut dyn FnMut(&str));

/// `WhitespaceSplit`: each nonempty piece between whitespace.
pub(crate) fn whitespace_split(text: &str, each: &mut dyn FnMut(&str)) {
    for piece in text.split(char::is_whitespace) {
        if !piece.is_empty() {
            each(piece);
        }
    }
}

/// `BertPreTokenizer`: the pieces between whitespace (removed), then every
/// punctuation character of each a piece of its own.
pub(crate) fn bert_split(text: &str, each: &mut dyn FnMut(&str)) {
    let mut start = 0;
    for (at, c) in text.char_indices() {
        let whitespace = c.is_whitespace();
        if whitespace || is_bert_punctuation(c) {
            if start < at {
                each(&text[start..at]);
            }
            let end = at + c.len_utf8();
            if !whitespace {
                each(&text[at..end]);
            }
            start = end;
        }
    }
    if start < text.len() {
        each(&text[start..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(split: Split, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        split(text, &mut |piece| out.push(piece.to_owned()));
        out
    }

    #[test]
    fn bert_splits_as_the_reference_does() {
        // The reference's own test case.
        assert_eq!(
            pieces(bert_split, "Hey friend!     How are you?!?"),
            ["Hey", "friend", "!", "How", "are", "you", "?", "!", "?"]
        );
        assert_eq!(
            pieces(bert_split, "a$b¿c d\u{3000}e"),
            ["a", "$", "b", "¿", "c", "d", "e"]
        );
        assert_eq!(pieces(whitespace_split, "  a\tb\u{85}c  "), ["a", "b", "c"]);
    }

    #[test]
    fn bert_normalizes_as_the_reference_does() {
        let uncased = BertOptions {
            clean_text: true,
            handle_chinese_chars: true,
            strip_accents: true,
            lowercase: true,
        };
        assert_eq!(
            bert_normalize("Héllo\u{0}\u{FFFD}\u{200B}\tWÖRLD", uncased),
            "hello world"
        );
        assert_eq!(bert_normalize("野口 Rika", uncased), " 野  口  rika");
        // One character at a time: a final capital sigma is σ.
        assert_eq!(bert_normalize("ΟΔΟΣ", uncased), "οδοσ");
        let cased = BertOptions {
            strip_accents: false,
            lowercase: false,
            ..uncased
        };
        assert_eq!(bert_normalize("Héllo\u{7}", cased), "Héllo");
        assert_eq!(strip_accents("e\u{301}\u{903}"), "e");
        assert_eq!(nfd_string("\u{e9}"), "e\u{301}");
    }
}
