//! Rust that the grammar does not parse but rustc does, parsed again after
//! a rewrite that moves no byte.
//!
//! The Rust grammar (tree-sitter-rust 0.24) reads `str`, `bool`, `char`
//! and the numeric type names as primitive types wherever they stand, so a
//! macro of one of those names — snapbox's `str![...]`, which test suites
//! call in every other assertion (`.stdout_eq(str![""])`) — is a syntax
//! error there, and the whole file got no outline. rustc accepts it: a
//! primitive type's name is an ordinary identifier in a macro path.
//!
//! Rewrite: the name's last byte becomes `_` (`str!` reads `st_!`), so the
//! invocation parses as a macro call with the same span, rows and columns.
//! A file is tried again only when it does not parse and its text has such
//! an invocation (the name right before `!`, optional spaces, and an
//! opening bracket, not inside a longer name, a raw identifier or a
//! lifetime). The rewrites are kept only when every one is the name of a
//! macro invocation in the new tree (one in a comment or string changes
//! nothing there, so the retry keeps only those that landed); an error
//! left where every rewrite landed is the file's own and refuses it, at
//! its place in the file.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::keep::preorder;
use crate::parse::Repair;

/// The names the grammar reads as primitive types.
const PRIMITIVES: [&str; 17] = [
    "str", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64",
    "i128", "isize", "f32", "f64",
];

/// How a Rust file that does not parse is tried again: see the module
/// documentation and [`crate::parse::parse_repaired`].
pub(crate) const RUST: Repair<(usize, usize)> = Repair {
    candidates,
    apply,
    landed,
};

/// The byte ranges of every macro name in `source` that is a primitive
/// type's: the name, then optional spaces, `!`, optional spaces and `(`,
/// `[` or `{`; not preceded by a byte of an identifier, `#` (a raw
/// identifier) or `'` (a lifetime).
fn candidates(source: &str) -> Vec<(usize, usize)> {
    let bytes = source.as_bytes();
    let skip_spaces = |mut at: usize| {
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\r' | b'\n') {
            at += 1;
        }
        at
    };
    let mut found = Vec::new();
    for (bang, _) in source.match_indices('!') {
        // The name ends at the last byte before the spaces before `!`.
        let mut end = bang;
        while end > 0 && matches!(bytes[end - 1], b' ' | b'\t' | b'\r' | b'\n') {
            end -= 1;
        }
        let after = skip_spaces(bang + 1);
        if !matches!(bytes.get(after), Some(b'(' | b'[' | b'{')) {
            continue;
        }
        let Some(name) = PRIMITIVES
            .iter()
            .find(|name| bytes[..end].ends_with(name.as_bytes()))
        else {
            continue;
        };
        let start = end - name.len();
        let before = start.checked_sub(1).map(|at| bytes[at]);
        if before
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'#' | b'\''))
        {
            continue;
        }
        found.push((start, end));
    }
    found
}

/// `source` with the last byte of each name in `names` made `_`.
fn apply(source: &str, names: &[(usize, usize)]) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for &(_, end) in names {
        bytes[end - 1] = b'_';
    }
    // Only ASCII letters and digits are replaced, by an ASCII byte.
    String::from_utf8(bytes).expect("ASCII replaced by ASCII")
}

/// The names of `names` that are the name of a macro invocation in the
/// tree.
fn landed(root: Node<'_>, _text: &str, names: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut macros = HashSet::new();
    preorder(root, |node, _| {
        if node.kind() == "macro_invocation"
            && let Some(name) = node.child_by_field_name("macro")
        {
            // `snapbox::str!`: the last segment is the rewritten name.
            let last = name.child_by_field_name("name").unwrap_or(name);
            macros.insert((last.start_byte(), last.end_byte()));
        }
        true
    });
    names
        .iter()
        .copied()
        .filter(|name| macros.contains(name))
        .collect()
}

#[cfg(all(test, feature = "rust"))]
mod tests {
    use super::*;
    use crate::OutlineError;
    use crate::clock::Clock;
    use crate::parse::{parse, parse_repaired};
    use crate::{Detail, Language, outline};

    fn grammar() -> tree_sitter::Language {
        tree_sitter_rust::LANGUAGE.into()
    }

    fn never() -> Clock {
        Clock::start(usize::MAX)
    }

    #[test]
    fn a_primitive_named_macro_is_a_syntax_error_to_the_grammar_alone() {
        // The reason for this module: without it the file is refused.
        let source = "fn t() {\n    check(str![\"\"]);\n}\n";
        assert!(matches!(
            parse(&grammar(), source, never()),
            Err(OutlineError::Syntax { line: 2, .. })
        ));
        let (_, text) = parse_repaired(&grammar(), source, never(), &RUST).unwrap();
        assert_eq!(text, "fn t() {\n    check(st_![\"\"]);\n}\n");
    }

    #[test]
    fn candidates_are_names_before_a_bang_and_a_bracket() {
        let source = "str![a] snapbox::str!{b} u8 !(c) mystr![d] r#str![e] 'str![f] str!= x";
        let found: Vec<&str> = candidates(source)
            .into_iter()
            .map(|(start, end)| &source[start..end])
            .collect();
        assert_eq!(found, ["str", "str", "u8"]);
    }

    #[test]
    fn a_test_file_with_snapbox_assertions_gets_its_outline() {
        let source = "use snapbox::str;\n\n/// Checks.\n#[test]\nfn case() {\n    let out = run();\n    out.assert_eq(str![[r#\"\nok\n\"#]]);\n    out.stderr_eq(snapbox::str![\"\"]);\n}\n";
        let outline = outline(Language::Rust, source, Detail::Full)
            .unwrap()
            .expect("an outline");
        // The kept lines are the file's own bytes, not the rewritten ones.
        assert_eq!(
            outline.content,
            "use snapbox::str;\n\n/// Checks.\n#[test]\nfn case() {\n⋮ 6\n"
        );
    }

    #[test]
    fn a_rewrite_that_lands_in_a_string_is_dropped_and_the_rest_kept() {
        let source = "fn a() { let s = \"str![x]\"; f(str![\"\"]); }\n";
        let (tree, text) = parse_repaired(&grammar(), source, never(), &RUST).unwrap();
        assert!(!tree.root_node().has_error());
        assert_eq!(text, "fn a() { let s = \"str![x]\"; f(st_![\"\"]); }\n");
    }

    #[test]
    fn another_error_still_refuses_the_file_at_its_place() {
        let source = "fn a() {\n    f(str![\"\"]);\n}\nfn b( {\n";
        assert!(matches!(
            parse_repaired(&grammar(), source, never(), &RUST),
            Err(OutlineError::Syntax { line: 4, .. })
        ));
    }
}
