//! Words for ranking: a text's words and identifiers, each identifier also
//! split into its parts (`parseHTTPResponse` → `parse`, `http`,
//! `response`; `max_file_bytes` → `max`, `file`, `bytes`), lower case,
//! without the words every issue and every file uses.

/// Words that say nothing about which file a task needs: English function
/// words, and what issue templates write around every report.
const STOP: &[&str] = &[
    "about",
    "actual",
    "add",
    "added",
    "adding",
    "after",
    "all",
    "already",
    "also",
    "although",
    "an",
    "and",
    "another",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "behavior",
    "behaviour",
    "being",
    "between",
    "both",
    "bug",
    "but",
    "by",
    "call",
    "called",
    "calls",
    "can",
    "case",
    "cases",
    "code",
    "could",
    "default",
    "describe",
    "description",
    "did",
    "do",
    "does",
    "done",
    "during",
    "each",
    "either",
    "else",
    "error",
    "errors",
    "every",
    "example",
    "examples",
    "expected",
    "false",
    "feature",
    "file",
    "files",
    "fix",
    "fixed",
    "for",
    "from",
    "get",
    "gets",
    "got",
    "had",
    "has",
    "have",
    "having",
    "he",
    "hello",
    "here",
    "hi",
    "how",
    "however",
    "if",
    "in",
    "input",
    "into",
    "is",
    "issue",
    "it",
    "its",
    "just",
    "least",
    "less",
    "like",
    "line",
    "lines",
    "made",
    "make",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "need",
    "needs",
    "neither",
    "new",
    "no",
    "none",
    "not",
    "now",
    "null",
    "of",
    "old",
    "on",
    "one",
    "only",
    "or",
    "other",
    "our",
    "output",
    "over",
    "please",
    "problem",
    "reproduce",
    "reproduction",
    "request",
    "return",
    "returns",
    "run",
    "running",
    "same",
    "see",
    "seems",
    "set",
    "sets",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "steps",
    "still",
    "such",
    "support",
    "supports",
    "than",
    "thank",
    "thanks",
    "that",
    "the",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "though",
    "through",
    "time",
    "to",
    "too",
    "true",
    "two",
    "under",
    "upon",
    "us",
    "use",
    "used",
    "using",
    "value",
    "values",
    "version",
    "versions",
    "very",
    "want",
    "was",
    "way",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "within",
    "without",
    "work",
    "working",
    "works",
    "would",
    "yes",
    "you",
    "your",
];

/// [`STOP`], for a quick look-up.
static STOP_SET: std::sync::LazyLock<rustc_hash::FxHashSet<&'static str>> =
    std::sync::LazyLock::new(|| STOP.iter().copied().collect());

/// Whether `word` (lower case) says nothing about which file a task needs.
pub(super) fn is_stop(word: &str) -> bool {
    STOP_SET.contains(word)
}

/// Calls `each` with every word of `text` for ranking, in order: each
/// identifier (letters, digits, `_`, starting with a letter or `_`) split
/// at `_` and at case changes into lower-case parts, and the whole
/// identifier too when it has more than one part; words of one character
/// and stop words are left out.
pub(super) fn each_term(text: &str, mut each: impl FnMut(&str)) {
    // The word in lower case, and where each of its parts lies in it.
    let mut lower = String::new();
    let mut parts: Vec<std::ops::Range<usize>> = Vec::new();
    for word in identifiers(text) {
        lower.clear();
        lower.push_str(word);
        lower.make_ascii_lowercase();
        parts.clear();
        split_identifier(word, &mut parts);
        if parts.len() > 1 {
            keep(&lower, &mut each);
        }
        for part in &parts {
            keep(&lower[part.clone()], &mut each);
        }
    }
}

fn keep(term: &str, each: &mut impl FnMut(&str)) {
    if term.len() > 1 && !is_stop(term) {
        each(term);
    }
}

/// Every term of `text`, in order.
pub(super) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_term(text, |term| out.push(term.to_owned()));
    out
}

/// The identifiers of `text`: ASCII letters, digits and `_`, starting with
/// a letter or `_`.
pub(super) fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() && !(bytes[at].is_ascii_alphabetic() || bytes[at] == b'_') {
            at += 1;
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        Some(&text[start..at])
    })
}

/// Where `word`'s parts lie in it (an identifier: ASCII letters, digits
/// and `_`): split at `_`, then at each change from lower to upper case,
/// before the last capital of a run of capitals followed by a lower-case
/// letter (`HTTPResponse` → `HTTP`, `Response`), and between letters and
/// digits.
pub(super) fn split_identifier(word: &str, parts: &mut Vec<std::ops::Range<usize>>) {
    let bytes = word.as_bytes();
    let mut start = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'_' {
            if start < i {
                parts.push(start..i);
            }
            start = i + 1;
            continue;
        }
        if i == start {
            continue;
        }
        let previous = bytes[i - 1];
        let next = bytes.get(i + 1).copied().filter(|&n| n != b'_');
        let boundary = (previous.is_ascii_lowercase() && c.is_ascii_uppercase())
            || (previous.is_ascii_uppercase()
                && c.is_ascii_uppercase()
                && next.is_some_and(|n| n.is_ascii_lowercase()))
            || (previous.is_ascii_digit() != c.is_ascii_digit());
        if boundary {
            parts.push(start..i);
            start = i;
        }
    }
    if start < bytes.len() {
        parts.push(start..bytes.len());
    }
}

/// The terms of a path: its components and the parts of each name.
pub(super) fn path_terms(path: &str) -> Vec<String> {
    let spaced: String = path
        .chars()
        .map(|c| if matches!(c, '/' | '.' | '-') { ' ' } else { c })
        .collect();
    terms(&spaced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_words_are_sorted_for_the_binary_search() {
        assert!(STOP.windows(2).all(|pair| pair[0] < pair[1]));
    }

    #[test]
    fn identifiers_are_split_at_underscores_case_and_digits() {
        let split = |word: &str| {
            let mut parts = Vec::new();
            split_identifier(word, &mut parts);
            parts
                .into_iter()
                .map(|part| word[part].to_ascii_lowercase())
                .collect::<Vec<_>>()
        };
        assert_eq!(split("parseHTTPResponse"), ["parse", "http", "response"]);
        assert_eq!(split("max_file_bytes"), ["max", "file", "bytes"]);
        assert_eq!(split("WalkParallel"), ["walk", "parallel"]);
        assert_eq!(split("utf8Decode"), ["utf", "8", "decode"]);
        assert_eq!(split("__init__"), ["init"]);
        assert_eq!(
            terms("The WalkParallel visitor panics in walk.rs"),
            [
                "walkparallel",
                "walk",
                "parallel",
                "visitor",
                "panics",
                "walk",
                "rs"
            ]
        );
        assert_eq!(
            path_terms("src/hono-base.ts"),
            ["src", "hono", "base", "ts"]
        );
    }
}
