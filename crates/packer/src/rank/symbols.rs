//! Symbols: what a query names the way code does (an identifier in
//! backticks, `camelCase`, `snake_case`, a call `name(`, a path or a file
//! name) matched against the names each source file defines.
//!
//! A file's definitions are found by a lexical scan of its text for the
//! words each language defines a name with (`fn`, `def`, `class`,
//! `func`, `function`, `interface`, `type`, `struct`, `#define`, a method
//! head at the start of a line): the ranking reads every file of a tree, and
//! a parse of every file costs several times the whole pack. The outlines,
//! which must be exact, come from a real parse (`packer-outline`).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// The names a source text defines.
static DEFINITIONS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"\b(?:fn|struct|enum|trait|type|mod|union)\s+([A-Za-z_]\w*)",
        r"\bmacro_rules!\s+([A-Za-z_]\w*)",
        r"\b(?:def|class)\s+([A-Za-z_]\w*)",
        r"\bfunc\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)",
        r"\b(?:function|interface|class|enum|type)\s+([A-Za-z_$][\w$]*)",
        r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=",
        r"(?m)^\s*(?:export\s+)?(?:async\s+)?([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*[:{]",
        r"(?m)^[\w<>\[\], \t*&:]+?\b([A-Za-z_]\w*)[ \t]*\([^;\n]*$",
        r"(?m)^\s*#define\s+([A-Za-z_]\w*)",
    ]
    .iter()
    .map(|pattern| Regex::new(pattern).expect("a definition pattern compiles"))
    .collect()
});

/// Words that start a statement, not a definition.
const KEYWORDS: &[&str] = &[
    "case", "catch", "delete", "else", "for", "if", "match", "new", "return", "sizeof", "switch",
    "while",
];

/// The names `text` defines (three characters or more).
pub(super) fn definitions(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for pattern in DEFINITIONS.iter() {
        for found in pattern.captures_iter(text) {
            if let Some(name) = found.get(1).map(|m| m.as_str())
                && name.len() > 2
                && !KEYWORDS.contains(&name)
            {
                names.insert(name.to_owned());
            }
        }
    }
    names
}

static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`\n]{1,80})`").expect("compiles"));
static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[A-Za-z_]\w*\b").expect("compiles"));
static CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b([A-Za-z_]\w{2,})\s*\(").expect("compiles"));
static PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|rs|go|ts|js|java|c|h|cc|cpp|hpp|tsx|jsx|md)\b",
    )
    .expect("compiles")
});

/// What a query names the way code does: identifiers (quoted in
/// backticks, or shaped like code: `camelCase`, `snake_case`, a call),
/// and paths or file names.
pub(super) fn query_symbols(query: &str) -> BTreeSet<String> {
    let mut symbols = BTreeSet::new();
    for quoted in QUOTED.captures_iter(query) {
        for word in WORD.find_iter(&quoted[1]) {
            if word.as_str().len() > 2 {
                symbols.insert(word.as_str().to_owned());
            }
        }
    }
    for word in WORD.find_iter(query) {
        let word = word.as_str();
        if word.len() < 3 {
            continue;
        }
        let bytes = word.as_bytes();
        let camel = bytes
            .windows(2)
            .any(|pair| pair[0].is_ascii_lowercase() && pair[1].is_ascii_uppercase());
        let snake = word.trim_matches('_').contains('_');
        if camel || snake {
            symbols.insert(word.to_owned());
        }
    }
    for call in CALL.captures_iter(query) {
        symbols.insert(call[1].to_owned());
    }
    for path in PATH.find_iter(query) {
        symbols.insert(path.as_str().to_owned());
    }
    symbols
}

/// Whether `symbol` is a path or a file name (it names a file, not a
/// definition).
pub(super) fn is_path(symbol: &str) -> bool {
    symbol.contains('/') || symbol.contains('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_found_in_each_language() {
        let found = definitions(
            "pub fn walk_parallel() {}\nstruct Walker;\ndef load_config(x):\nclass Reader:\n\
             func (w *Walk) Visit() {}\nexport function createApp() {}\ninterface Options {}\n\
             #define MAX_DEPTH 4\nstatic int parse_value(const char *s) {\n",
        );
        for name in [
            "walk_parallel",
            "Walker",
            "load_config",
            "Reader",
            "Visit",
            "createApp",
            "Options",
            "MAX_DEPTH",
            "parse_value",
        ] {
            assert!(found.contains(name), "{name}: {found:?}");
        }
        assert!(!found.contains("if"));
    }

    #[test]
    fn a_query_names_code_by_its_shape() {
        let symbols = query_symbols(
            "`WalkParallel` hangs when the visitor panics; see src/walk.rs and call parse_args() \
             with --follow. Plain words do not count.",
        );
        for symbol in ["WalkParallel", "src/walk.rs", "parse_args"] {
            assert!(symbols.contains(symbol), "{symbol}: {symbols:?}");
        }
        assert!(!symbols.contains("Plain"));
        assert!(is_path("src/walk.rs") && !is_path("parse_args"));
    }
}
