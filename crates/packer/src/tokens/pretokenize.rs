//! Pre-tokenizers of tokenizer files: regex splits run exactly as the
//! reference implementations run them, or refused.
//!
//! Hugging Face `tokenizers` runs `Split` patterns with Oniguruma and
//! tiktoken (under Mistral's `tekken.json`) with fancy-regex; both are
//! backtracking engines with look-arounds. packer runs them with
//! `regex-automata`, which has no look-arounds, so a pattern is accepted
//! only when it is exactly runnable:
//!
//! - its syntax is limited to constructs that mean the same in all three
//!   engines (literals, classes, `\p{..}`, `\s`, `\d`, groups, `(?i:..)`,
//!   quantifiers); anchors, word boundaries, `\w`, back-references, POSIX
//!   classes and look-arounds are refused;
//! - except that a pattern may end with the two alternatives
//!   `\s+(?!\S)|\s+`, which every current tokenizer ends with. They are
//!   rewritten as tiktoken's Rust port does: `\s+\z` (a run reaching the end
//!   of the piece), then `\s+\s` with its last character given back (a run
//!   followed by a non-space keeps that run's last space for the next
//!   piece), then `\s+`. Leftmost-first priority across the patterns is the
//!   priority of the alternation they replace, and every position where the
//!   original can start a match is one where the rewrite can, so searches
//!   find the same matches.
//! - a pattern that can match the empty string is refused.
//!
//! Whether a file's split is of the tiktoken family, so that a text may be
//! counted in parts, is decided here too ([`splitting_of`]).

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};

use super::Splitting;
use super::known::UNKNOWN;
use super::walker::Walker;

/// The two final alternatives every current byte-level pattern ends with.
const LOOKAHEAD_TAIL: &str = r"|\s+(?!\S)|\s+";

/// The GPT-2 pattern that Hugging Face's `ByteLevel` pre-tokenizer runs
/// when its `use_regex` is true.
pub(crate) const GPT2_PATTERN: &str =
    r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+";

/// One thread's search state for a [`SplitRegex`]: the regex's, and its
/// walker's when it has one.
pub(crate) struct Cache {
    search: meta::Cache,
    walk: Option<regex_automata::hybrid::dfa::Cache>,
}

/// A split pattern compiled for exact matching.
#[derive(Debug)]
pub(crate) struct SplitRegex {
    regex: Regex,
    /// Per compiled pattern: give back the match's last character.
    give_back: Vec<bool>,
    /// The pattern as the file wrote it.
    source: String,
    /// For a pattern of [`TIKTOKEN_FAMILY`]: the same patterns as one lazy
    /// DFA walked piece by piece, which also says how far past each piece
    /// it read (what the `known` module needs to skip settled pieces).
    walker: Option<Box<Walker>>,
}

/// Why a pattern cannot be run exactly (a short description, never the
/// pattern itself).
pub(crate) type Refusal = &'static str;

impl SplitRegex {
    /// Compiles `pattern` or says why it cannot be run exactly.
    pub(crate) fn new(pattern: &str) -> Result<SplitRegex, Refusal> {
        let (head, rewritten) = match pattern.strip_suffix(LOOKAHEAD_TAIL) {
            Some(head) => (head, true),
            None => (pattern, false),
        };
        check_syntax(head)?;
        let head_at_end;
        let patterns: Vec<&str> = if rewritten {
            head_at_end = format!(r"{head}|\s+\z");
            vec![&head_at_end, r"\s+\s", r"\s+"]
        } else {
            vec![head]
        };
        let regex = Regex::builder()
            .syntax(syntax::Config::new().unicode(true).utf8(true))
            .build_many(&patterns)
            .map_err(|_| "a split pattern that packer's regex engine cannot compile")?;
        if regex.is_match("") {
            return Err("a split pattern that matches the empty string");
        }
        let give_back = if rewritten {
            vec![false, true, false]
        } else {
            vec![false]
        };
        let walker = if rewritten && TIKTOKEN_FAMILY.contains(&pattern) {
            let walked: Vec<(&str, bool)> =
                patterns.iter().copied().zip(give_back.clone()).collect();
            Walker::new(&walked).map(Box::new)
        } else {
            None
        };
        Ok(SplitRegex {
            regex,
            give_back,
            source: pattern.to_owned(),
            walker,
        })
    }

    /// A pattern that the reference runs with Rust's `regex` crate, not
    /// Oniguruma (the `Whitespace` pre-tokenizer's): packer's engine is the
    /// same crate's, so `\w` and `\s` mean the same and nothing needs
    /// checking.
    pub(crate) fn rust(pattern: &str) -> Result<SplitRegex, Refusal> {
        let regex = Regex::builder()
            .syntax(syntax::Config::new().unicode(true).utf8(true))
            .build(pattern)
            .map_err(|_| "a split pattern that packer's regex engine cannot compile")?;
        if regex.is_match("") {
            return Err("a split pattern that matches the empty string");
        }
        Ok(SplitRegex {
            regex,
            give_back: vec![false],
            source: pattern.to_owned(),
            walker: None,
        })
    }

    /// A pattern that matches `literal` and nothing else (a `Split` whose
    /// pattern is a `String`).
    pub(crate) fn literal(literal: &str) -> Result<SplitRegex, Refusal> {
        if literal.is_empty() {
            return Err("a split on the empty string");
        }
        let mut escaped = String::with_capacity(literal.len() * 2);
        for c in literal.chars() {
            if r"\.+*?()|[]{}^$#&-~".contains(c) {
                escaped.push('\\');
            }
            escaped.push(c);
        }
        let regex = Regex::builder()
            .syntax(syntax::Config::new().unicode(true).utf8(true))
            .build(&escaped)
            .map_err(|_| "a split string that packer's regex engine cannot compile")?;
        Ok(SplitRegex {
            regex,
            give_back: vec![false],
            source: literal.to_owned(),
            walker: None,
        })
    }

    /// The pattern as the file wrote it.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// The lazy DFA walk of a [`TIKTOKEN_FAMILY`] pattern.
    pub(crate) fn walker(&self) -> Option<&Walker> {
        self.walker.as_deref()
    }

    /// A search cache for this regex (one per thread).
    pub(crate) fn create_cache(&self) -> Cache {
        Cache {
            search: self.regex.create_cache(),
            walk: self.walker.as_deref().map(Walker::create_cache),
        }
    }

    /// The next match in `text` at or after `from`, as a byte range, found
    /// the way a backtracking engine's unanchored search finds it.
    pub(crate) fn find_at(
        &self,
        cache: &mut Cache,
        text: &str,
        from: usize,
    ) -> Option<(usize, usize)> {
        let input = Input::new(text).range(from..);
        let found = self.regex.search_with(&mut cache.search, &input)?;
        Some((found.start(), self.end_of(text, found)))
    }

    /// The match starting exactly at `from`, if any (for pieces that tile
    /// the text, as tiktoken-style patterns do).
    pub(crate) fn match_at(&self, cache: &mut Cache, text: &str, from: usize) -> Option<usize> {
        let input = Input::new(text).range(from..).anchored(Anchored::Yes);
        let found = self.regex.search_with(&mut cache.search, &input)?;
        Some(self.end_of(text, found))
    }

    fn end_of(&self, text: &str, found: regex_automata::Match) -> usize {
        let end = found.end();
        if self.give_back[found.pattern().as_usize()] {
            let last = text[..end].chars().next_back().map_or(0, char::len_utf8);
            end - last
        } else {
            end
        }
    }
}

/// Accepts only syntax that Oniguruma, fancy-regex and regex-automata read
/// the same way.
fn check_syntax(pattern: &str) -> Result<(), Refusal> {
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let Some(escaped) = chars.next() else {
                    return Err("a split pattern that ends in a backslash");
                };
                match escaped {
                    's' | 'S' | 'd' | 'D' | 'r' | 'n' | 't' | 'f' | 'v' => {}
                    'p' | 'P' => {
                        if chars.peek() != Some(&'{') {
                            return Err("a split pattern with a one-letter \\p class");
                        }
                        // The class name, up to its closing brace.
                        for c in chars.by_ref() {
                            if c == '}' {
                                break;
                            }
                        }
                    }
                    c if c.is_ascii_alphanumeric() => {
                        return Err(
                            "a split pattern with an escape whose meaning differs between regex engines (\\w, \\b, \\h, \\A, \\z, \\x, back-references, ...)",
                        );
                    }
                    _ => {}
                }
            }
            '[' if in_class => {
                if chars.peek() == Some(&':') {
                    return Err("a split pattern with a POSIX bracket class");
                }
                // Nested classes and set operations read differently.
                return Err("a split pattern with a nested character class");
            }
            '[' => {
                in_class = true;
                if chars.peek() == Some(&'^') {
                    chars.next();
                }
                // A `]` first in a class is a literal in Oniguruma only.
                if chars.peek() == Some(&']') {
                    return Err("a split pattern with a class that starts with ]");
                }
            }
            ']' if in_class => in_class = false,
            '&' | '-' | '~' if in_class && chars.peek() == Some(&c) => {
                return Err("a split pattern with class set operations");
            }
            '^' | '$' | '.' if !in_class => {
                return Err("a split pattern with an anchor or a dot");
            }
            '(' if !in_class && chars.peek() == Some(&'?') => {
                chars.next();
                match chars.next() {
                    Some(':') => {}
                    Some('i') if chars.peek() == Some(&':') => {
                        chars.next();
                    }
                    _ => return Err("a split pattern with a look-around or an inline flag"),
                }
            }
            // Possessive quantifiers (`a++`) are Oniguruma-only; lazy ones
            // (`a+?`) mean the same everywhere.
            '+' | '*' | '?' | '}' if !in_class && chars.peek() == Some(&'+') => {
                return Err("a split pattern with a possessive quantifier");
            }
            _ => {}
        }
    }
    Ok(())
}

/// What a `Split` does with the pieces its pattern matches (Hugging Face's
/// `SplitDelimiterBehavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Behavior {
    Removed,
    Isolated,
    MergedWithPrevious,
    MergedWithNext,
    Contiguous,
}

impl Behavior {
    pub(crate) fn parse(name: &str) -> Option<Behavior> {
        Some(match name {
            "Removed" => Behavior::Removed,
            "Isolated" => Behavior::Isolated,
            "MergedWithPrevious" => Behavior::MergedWithPrevious,
            "MergedWithNext" => Behavior::MergedWithNext,
            "Contiguous" => Behavior::Contiguous,
            _ => return None,
        })
    }
}

/// One pre-tokenizer stage, applied to every piece of the stage before.
#[derive(Debug)]
pub(crate) enum Stage {
    /// A `Split` (or `ByteLevel`'s own regex, which is an isolated split).
    Split {
        regex: SplitRegex,
        behavior: Behavior,
        invert: bool,
    },
    /// `ByteLevel` with `add_prefix_space`: a space before every piece that
    /// does not start with one.
    PrefixSpace,
    /// `Metaspace`: every space replaced by `replacement`, the replacement
    /// put before the piece as `prepend` says, then (with `split`) a split
    /// before every replacement (`MergedWithNext`).
    Metaspace {
        replacement: char,
        prepend: PrependScheme,
        split: Option<SplitRegex>,
    },
    /// `WhitespaceSplit`: pieces between whitespace (`char::is_whitespace`),
    /// the whitespace removed.
    WhitespaceSplit,
    /// `BertPreTokenizer`: `WhitespaceSplit`, then every punctuation
    /// character of each piece a piece of its own (see `hf::bert`).
    Bert,
    /// `Punctuation`: a split in which every punctuation character (BERT's
    /// punctuation, see `hf::bert`) is a match of its own, handled as
    /// `behavior` says.
    Punctuation { behavior: Behavior },
}

/// When `Metaspace` puts its replacement before a piece that does not
/// start with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PrependScheme {
    /// Always.
    Always,
    /// Only before the piece that starts the text.
    First,
    /// Never.
    Never,
}

/// The segments of `text` as `find_matches` gives them: `(start, end,
/// is_match)`, tiling the text.
fn segments(
    regex: &SplitRegex,
    cache: &mut Cache,
    text: &str,
    out: &mut Vec<(usize, usize, bool)>,
) {
    out.clear();
    if text.is_empty() {
        out.push((0, 0, false));
        return;
    }
    let mut previous = 0;
    let mut from = 0;
    while from < text.len() {
        let Some((start, end)) = regex.find_at(cache, text, from) else {
            break;
        };
        if previous != start {
            out.push((previous, start, false));
        }
        out.push((start, end, true));
        previous = end;
        from = end;
    }
    if previous != text.len() {
        out.push((previous, text.len(), false));
    }
}

/// The pieces a `Split` makes of `text`, as byte ranges (Hugging Face's
/// `NormalizedString::split`, step by step).
pub(crate) fn split_ranges(
    regex: &SplitRegex,
    behavior: Behavior,
    invert: bool,
    cache: &mut Cache,
    text: &str,
    out: &mut Vec<(usize, usize)>,
) {
    let mut matches = Vec::new();
    segments(regex, cache, text, &mut matches);
    if invert {
        for segment in &mut matches {
            segment.2 = !segment.2;
        }
    }
    split_segments(&matches, behavior, out);
}

/// The pieces a split whose matches are the single characters `is_match`
/// accepts makes of `text`, as byte ranges (the reference's
/// `NormalizedString::split` with a `Fn(char) -> bool` pattern: each such
/// character is a match of its own).
pub(crate) fn split_ranges_by(
    is_match: fn(char) -> bool,
    behavior: Behavior,
    text: &str,
    out: &mut Vec<(usize, usize)>,
) {
    let mut matches = Vec::new();
    if text.is_empty() {
        matches.push((0, 0, false));
    }
    let mut previous = 0;
    for (at, c) in text.char_indices() {
        if is_match(c) {
            if previous < at {
                matches.push((previous, at, false));
            }
            previous = at + c.len_utf8();
            matches.push((at, previous, true));
        }
    }
    if previous < text.len() {
        matches.push((previous, text.len(), false));
    }
    split_segments(&matches, behavior, out);
}

/// The pieces that `behavior` makes of `matches` (segments tiling a text:
/// `(start, end, is_match)`), as byte ranges.
fn split_segments(
    matches: &[(usize, usize, bool)],
    behavior: Behavior,
    out: &mut Vec<(usize, usize)>,
) {
    // (start, end, remove)
    let mut splits: Vec<(usize, usize, bool)> = Vec::with_capacity(matches.len());
    match behavior {
        Behavior::Isolated => splits.extend(matches.iter().map(|&(s, e, _)| (s, e, false))),
        Behavior::Removed => splits.extend(matches.iter().copied()),
        Behavior::Contiguous => {
            let mut previous_match = false;
            for &(s, e, is_match) in matches {
                match splits.last_mut() {
                    Some(last) if is_match == previous_match => last.1 = e,
                    _ => splits.push((s, e, false)),
                }
                previous_match = is_match;
            }
        }
        Behavior::MergedWithPrevious => {
            let mut previous_match = false;
            for &(s, e, is_match) in matches {
                match splits.last_mut() {
                    Some(last) if is_match && !previous_match => last.1 = e,
                    _ => splits.push((s, e, false)),
                }
                previous_match = is_match;
            }
        }
        Behavior::MergedWithNext => {
            let mut previous_match = false;
            for &(s, e, is_match) in matches.iter().rev() {
                match splits.last_mut() {
                    Some(last) if is_match && !previous_match => last.0 = s,
                    _ => splits.push((s, e, false)),
                }
                previous_match = is_match;
            }
            splits.reverse();
        }
    }
    out.clear();
    out.extend(
        splits
            .into_iter()
            .filter(|&(s, e, remove)| !remove && s != e)
            .map(|(s, e, _)| (s, e)),
    );
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

/// How a pre-tokenizer that is one split by `regex` (after a prefix space,
/// or not) splits: [`Splitting::Tiktoken`] only for the patterns of
/// [`TIKTOKEN_FAMILY`] without a prefix space.
pub(crate) fn splitting_of(regex: &SplitRegex, prefix_space: bool) -> Splitting {
    if !prefix_space && TIKTOKEN_FAMILY.contains(&regex.source()) {
        Splitting::Tiktoken
    } else {
        Splitting::Whole
    }
}

/// Counts, with `tokens`, the pieces of one anchored pass of `regex` over
/// `text` that end before the piece containing byte `offset`; returns that
/// count and where the containing piece starts (see
/// [`super::Counter::count_before_piece_at`]).
/// Calls `each` with every piece of one pass of `regex` over `text` from
/// byte `from` (where a piece starts), in order, and how many bytes past
/// the piece the split read to end it ([`UNKNOWN`] when that is not known:
/// only a pattern with a walker says); stops early when `each` returns
/// false.
pub(crate) fn for_each_piece(
    regex: &SplitRegex,
    cache: &mut Cache,
    text: &str,
    from: usize,
    mut each: impl FnMut(&str, usize) -> bool,
) {
    if let (Some(walker), Some(walk)) = (regex.walker(), cache.walk.as_mut()) {
        if let Some(rest) = text.get(from..) {
            walker.for_each_piece(walk, rest, each);
        }
        return;
    }
    let mut start = from;
    while start < text.len() {
        let Some(end) = regex.match_at(cache, text, start) else {
            return;
        };
        if !each(&text[start..end], UNKNOWN) {
            return;
        }
        start = end;
    }
}

pub(crate) fn count_before_piece_at(
    regex: &SplitRegex,
    cache: &mut Cache,
    text: &str,
    offset: usize,
    mut tokens: impl FnMut(&str) -> usize,
) -> (usize, usize) {
    let mut count = 0;
    let mut start = 0;
    while start < text.len() {
        let Some(end) = regex.match_at(cache, text, start) else {
            break;
        };
        if end > offset {
            break;
        }
        count += tokens(&text[start..end]);
        start = end;
    }
    (count, start)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces of one anchored pass of `regex` over `text`: by its
    /// regex, and by its walker (with how far past each piece it read).
    fn both_passes(regex: &SplitRegex, text: &str) -> (Vec<usize>, Vec<usize>) {
        let mut cache = regex.create_cache();
        let mut by_regex = Vec::new();
        let mut start = 0;
        while let Some(end) = regex.match_at(&mut cache, text, start) {
            by_regex.push(end - start);
            start = end;
        }
        let walker = regex
            .walker()
            .expect("a tiktoken-family pattern has a walker");
        let mut cache = walker.create_cache();
        let mut by_walker = Vec::new();
        walker.for_each_piece(&mut cache, text, |piece, _| {
            by_walker.push(piece.len());
            true
        });
        (by_regex, by_walker)
    }

    #[test]
    fn the_walker_splits_as_the_regex_does() {
        let texts = [
            "Hello, world! It's 2026 and the café serves 12345678 crêpes.",
            "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n\n\n   \t  end  ",
            "日本語のテキストと中文文本，还有한국어 텍스트。\r\n\r\n",
            "I'M HERE, you're there, they'LL see; don't  \u{a0}\u{2028} x\n \n",
            "   ",
            "\n",
        ];
        for pattern in TIKTOKEN_FAMILY {
            let regex = SplitRegex::new(pattern).unwrap();
            for text in texts {
                let (by_regex, by_walker) = both_passes(&regex, text);
                assert_eq!(by_regex, by_walker, "{pattern} on {text:?}");
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn the_walker_splits_random_text_as_the_regex_does(
            text in "[ a-zA-Z0-9'\\n\\r\\t.,é日\u{a0}\u{2028}_-]{0,80}",
            which in 0..TIKTOKEN_FAMILY.len(),
        ) {
            let regex = SplitRegex::new(TIKTOKEN_FAMILY[which]).unwrap();
            let (by_regex, by_walker) = both_passes(&regex, &text);
            proptest::prop_assert_eq!(by_regex, by_walker);
        }
    }

    fn pieces(pattern: &str, behavior: Behavior, invert: bool, text: &str) -> Vec<String> {
        let regex = SplitRegex::new(pattern).unwrap();
        let mut cache = regex.create_cache();
        let mut out = Vec::new();
        split_ranges(&regex, behavior, invert, &mut cache, text, &mut out);
        out.into_iter()
            .map(|(s, e)| text[s..e].to_owned())
            .collect()
    }

    #[test]
    fn the_lookahead_tail_gives_back_one_space() {
        assert_eq!(
            pieces(GPT2_PATTERN, Behavior::Isolated, false, "a   b  \n"),
            ["a", "  ", " b", "  \n"]
        );
        assert_eq!(
            pieces(GPT2_PATTERN, Behavior::Isolated, false, "x \u{3000}y"),
            ["x", " ", "\u{3000}", "y"]
        );
    }

    #[test]
    fn behaviours_follow_the_reference_definitions() {
        // The examples of Hugging Face's `SplitDelimiterBehavior` docs.
        let text = "the-final--countdown";
        assert_eq!(
            pieces("-", Behavior::Removed, false, text),
            ["the", "final", "countdown"]
        );
        assert_eq!(
            pieces("-", Behavior::Isolated, false, text),
            ["the", "-", "final", "-", "-", "countdown"]
        );
        assert_eq!(
            pieces("-", Behavior::MergedWithPrevious, false, text),
            ["the-", "final-", "-", "countdown"]
        );
        assert_eq!(
            pieces("-", Behavior::MergedWithNext, false, text),
            ["the", "-final", "-", "-countdown"]
        );
        assert_eq!(
            pieces("-", Behavior::Contiguous, false, text),
            ["the", "-", "final", "--", "countdown"]
        );
        assert_eq!(pieces("-", Behavior::Removed, true, text), ["-", "-", "-"]);
    }

    #[test]
    fn constructs_that_differ_between_engines_are_refused() {
        for pattern in [
            r"\w+",
            r"^a",
            r"a$",
            r"a(?=b)",
            r"(?<!a)b",
            r"\bword",
            r"a++",
            r"[[:alpha:]]",
            r"[a&&b]",
            r".+",
            r"(?i)a",
            r"a*",
            r"\s+(?!\S)",
        ] {
            assert!(SplitRegex::new(pattern).is_err(), "{pattern}");
        }
        for pattern in [
            r"\p{N}{1,3}",
            r"[一-龥぀-ゟ゠-ヿ]+",
            r"(?i:'s|'t)|\s+",
            GPT2_PATTERN,
        ] {
            assert!(SplitRegex::new(pattern).is_ok(), "{pattern}");
        }
    }
}
