//! TypeScript that the grammar does not parse but TypeScript does, parsed
//! again after rewrites that move no byte.
//!
//! The TypeScript grammar (tree-sitter-typescript 0.23) refuses three
//! things real code uses:
//!
//! - **A member that starts with `<` on its own line** in an interface or
//!   object type, as generic call signatures (overloads) written without
//!   semicolons do. TypeScript ends a member at a line break; the
//!   grammar's scanner never inserts the missing `;` before a `<` (it
//!   cannot tell it from a comparison), so the next line is an error.
//!   Rewrite: the indentation byte right before the `<` becomes `;`.
//! - **`export type * from '…'`** and `export type * as ns from '…'`
//!   (TypeScript 5.0). Rewrite: `type` becomes spaces.
//! - **Variance annotations** on type parameters, `<in T>`, `<out O>`,
//!   `<in out T>` (TypeScript 4.7). Rewrite: `in`/`out` become spaces.
//!
//! Each rewrite keeps every byte where it was, so the rewritten file's tree
//! has the lines, rows and columns of the file itself, and an outline made
//! from it is rebuilt from the file's own text. A rewrite is only used
//! when the tree parsed from the rewritten text shows it where it was
//! meant to be: the `;` as the separator of an interface's or object
//! type's members, the blanked `type` before the `*` of an export, the
//! blanked `in`/`out` right before a type parameter. A file is tried again
//! only when it does not parse: first with every rewrite its text
//! suggests, then, if some of them were not where they were meant to be,
//! once more with only those that were. If an error remains where every
//! rewrite landed, the file is refused with that error (a real one, at its
//! place in the file, since no byte moved); otherwise with its first error,
//! as if it had not been tried again.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::keep::preorder;
use crate::parse::Repair;

/// One rewrite: the bytes `start..end` of the file, each replaced by `;`
/// (a separator, one byte) or by a space (a blanked keyword).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rewrite {
    start: usize,
    end: usize,
    kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `;` between two members of an interface or object type.
    Separator,
    /// `type` in `export type *`.
    TypeOnlyStar,
    /// `in` or `out` before a type parameter.
    Variance,
}

/// How a TypeScript or TSX file that does not parse is tried again: see the module
/// documentation and [`crate::parse::parse_repaired`].
pub(crate) const TYPESCRIPT: Repair<Rewrite> = Repair {
    candidates,
    apply,
    landed,
};

/// `source` with `rewrites` made.
fn apply(source: &str, rewrites: &[Rewrite]) -> String {
    let mut bytes = source.as_bytes().to_vec();
    for rewrite in rewrites {
        let with = match rewrite.kind {
            Kind::Separator => b';',
            Kind::TypeOnlyStar | Kind::Variance => b' ',
        };
        bytes[rewrite.start..rewrite.end].fill(with);
    }
    // Only ASCII bytes that were ASCII (spaces, tabs, letters) are replaced.
    String::from_utf8(bytes).expect("ASCII replaced by ASCII")
}

/// The rewrites of `rewrites` that are where they were meant to be in the
/// tree of the rewritten `text`.
fn landed(root: Node<'_>, text: &str, rewrites: &[Rewrite]) -> Vec<Rewrite> {
    // One pass over the tree: the separators of members, the stars of
    // exports, the starts of type parameters.
    let (mut separators, mut stars, mut parameters) =
        (HashSet::new(), HashSet::new(), HashSet::new());
    preorder(root, |node, parent| {
        let parent_kind = parent.map_or("", |parent| parent.kind());
        match node.kind() {
            ";" if matches!(parent_kind, "object_type" | "interface_body") => {
                separators.insert(node.start_byte());
            }
            "*" if matches!(parent_kind, "export_statement" | "namespace_export") => {
                stars.insert(node.start_byte());
            }
            // A type parameter, or its name after a `const` modifier.
            "type_parameter" => {
                parameters.insert(node.start_byte());
            }
            "type_identifier" if parent_kind == "type_parameter" => {
                parameters.insert(node.start_byte());
            }
            _ => {}
        }
        true
    });
    let next = |at: usize| {
        text.as_bytes()[at..]
            .iter()
            .position(|byte| !byte.is_ascii_whitespace())
            .map_or(text.len(), |skipped| at + skipped)
    };
    rewrites
        .iter()
        .copied()
        .filter(|rewrite| match rewrite.kind {
            Kind::Separator => separators.contains(&rewrite.start),
            Kind::TypeOnlyStar => stars.contains(&next(rewrite.end)),
            Kind::Variance => parameters.contains(&next(rewrite.end)),
        })
        .collect()
}

/// Every rewrite the text of `source` suggests, in file order, found
/// without parsing (the tree of the rewritten text decides which stay).
fn candidates(source: &str) -> Vec<Rewrite> {
    let mut found = separators(source);
    found.extend(keywords(source));
    found.sort_by_key(|rewrite| rewrite.start);
    found
}

/// The last byte of indentation before each line that starts with `<`
/// after a line of code that can end a member (not one that ends with an
/// operator, an opening bracket, `,`, `;` or `=>`); comment lines between
/// them are skipped.
fn separators(source: &str) -> Vec<Rewrite> {
    let mut found = Vec::new();
    // The trimmed text of the last line of code seen.
    let mut previous: &str = "";
    let mut start = 0;
    for line in source.split_inclusive('\n') {
        let trimmed = line.trim();
        // Indentation of spaces and tabs only: the byte rewritten is one.
        let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
        let comment = trimmed.starts_with("//")
            || trimmed.starts_with("/*")
            || trimmed.starts_with('*')
            || trimmed.ends_with("*/");
        if line[indent..].starts_with('<')
            && indent > 0
            && !previous.is_empty()
            && !previous.ends_with("=>")
            && !previous.ends_with([':', '=', '|', '&', ',', ';', '(', '[', '{', '<', '?'])
        {
            found.push(Rewrite {
                start: start + indent - 1,
                end: start + indent,
                kind: Kind::Separator,
            });
        }
        if !trimmed.is_empty() && !comment {
            previous = trimmed;
        }
        start += line.len();
    }
    found
}

/// `type` in `export type *`, and `in`/`out` where a type parameter's
/// modifiers go: after `<`, `,`, `const` or `in` (comments between
/// skipped), before a name.
fn keywords(source: &str) -> Vec<Rewrite> {
    let tokens = tokens(source);
    let word = |index: usize| match tokens.get(index) {
        Some(&Token::Word(start, end)) => Some(&source[start..end]),
        _ => None,
    };
    let mut found = Vec::new();
    for (index, &token) in tokens.iter().enumerate() {
        let Token::Word(start, end) = token else {
            continue;
        };
        let before = index.checked_sub(1).map(|before| tokens[before]);
        let after = tokens.get(index + 1).copied();
        match &source[start..end] {
            "type"
                if before.is_some()
                    && word(index - 1) == Some("export")
                    && matches!(after, Some(Token::Mark(b'*', _))) =>
            {
                found.push(Rewrite {
                    start,
                    end,
                    kind: Kind::TypeOnlyStar,
                });
            }
            "in" | "out" => {
                let after_opening = match before {
                    Some(Token::Mark(mark, _)) => matches!(mark, b'<' | b','),
                    Some(Token::Word(..)) => matches!(word(index - 1), Some("in" | "const")),
                    None => false,
                };
                let before_name = matches!(after, Some(Token::Word(next, _))
                    if next > end && !source.as_bytes()[next].is_ascii_digit());
                if after_opening && before_name {
                    found.push(Rewrite {
                        start,
                        end,
                        kind: Kind::Variance,
                    });
                }
            }
            _ => {}
        }
    }
    found
}

/// A word or a punctuation byte of the source, by its byte offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    /// A run of `A-Za-z0-9_$`: `start..end`.
    Word(usize, usize),
    /// Any other byte that is not whitespace or in a comment, and where.
    Mark(u8, usize),
}

/// The words and punctuation of `source`, in one pass, without whitespace
/// or comments (`//` to the end of the line, `/* */`). Strings are not
/// told apart: a rewrite suggested inside one does not land where it is
/// meant to be, and is left out.
fn tokens(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let word_byte = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
    let mut tokens = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if word_byte(byte) {
            let start = at;
            while at < bytes.len() && word_byte(bytes[at]) {
                at += 1;
            }
            tokens.push(Token::Word(start, at));
        } else if bytes[at..].starts_with(b"//") {
            at = bytes[at..]
                .iter()
                .position(|&byte| byte == b'\n')
                .map_or(bytes.len(), |newline| at + newline);
        } else if bytes[at..].starts_with(b"/*") {
            at = bytes[at + 2..]
                .windows(2)
                .position(|pair| pair == b"*/")
                .map_or(bytes.len(), |close| at + 2 + close + 2);
        } else {
            if !byte.is_ascii_whitespace() {
                tokens.push(Token::Mark(byte, at));
            }
            at += 1;
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;
    use crate::OutlineError;
    use crate::clock::Clock;
    use crate::parse::{parse, parse_repaired};

    fn typescript() -> tree_sitter::Language {
        crate::lang::grammar(Language::TypeScript).expect("the grammar")
    }

    fn kinds(source: &str) -> Vec<(Kind, &str)> {
        candidates(source)
            .into_iter()
            .map(|rewrite| (rewrite.kind, &source[rewrite.start..rewrite.end]))
            .collect()
    }

    #[test]
    fn the_text_suggests_separators_before_members_that_open_with_a_bracket() {
        let source = "type F = {\n  <T>(a: T): T\n  // two\n  <T, U>(a: T, b: U): U\n}\nconst f =\n  <T,>(a: T) => a\n";
        assert_eq!(candidates(source).len(), 1);
        assert_eq!(kinds(source), vec![(Kind::Separator, " ")]);
        assert_eq!(
            candidates(source)[0].start,
            source.find("  <T, U>").unwrap() + 1
        );
    }

    #[test]
    fn the_text_suggests_blanking_type_before_a_star_and_variance_before_a_name() {
        let source = "export type * from './a'\nexport type { B } from './b'\ninterface I<in out T, const in U, out> {}\nfor (const k in o) {}\ntype J<\n  /** why */\n  out A,\n  // why\n  in B,\n> = A\n";
        assert_eq!(
            kinds(source),
            vec![
                (Kind::TypeOnlyStar, "type"),
                (Kind::Variance, "in"),
                (Kind::Variance, "out"),
                (Kind::Variance, "in"),
                (Kind::Variance, "out"),
                (Kind::Variance, "in"),
            ]
        );
    }

    #[test]
    fn the_text_is_read_once_however_many_comment_ends_and_lines_it_has() {
        // Each `in` follows a `*/` that opens no comment and sits on one
        // long line: a look back for the comment's start or the line's
        // would read the whole text again for each of them.
        let source = "a */ in b, ".repeat(100_000);
        assert_eq!(candidates(&source), Vec::new());
        let source = format!(
            "type T = {{\n  a: b\n{}}}\n",
            "  <T>(a: T): T\n".repeat(100_000)
        );
        assert_eq!(candidates(&source).len(), 100_000);
    }

    #[test]
    fn text_beyond_ascii_is_read_by_bytes_and_never_rewritten() {
        // An ideographic space is not indentation that can become `;`, and
        // comment markers are looked for between the bytes of characters.
        let source = "type F = {\n  a: b\n\u{3000}<T>(a: T): T\n}\n/*é*/ é // ü\n<in T>ü\n";
        assert_eq!(kinds(source), vec![(Kind::Variance, "in")]);
        for (at, _) in source.char_indices() {
            let _ = candidates(&source[at..]);
        }
    }

    #[test]
    fn a_file_the_grammar_refuses_parses_with_rewrites_that_move_no_byte() {
        let source = "export interface Pick {\n  <T>(a: T): T\n  <T, U>(a: T, b: U): U\n}\nexport type * from './more'\nexport interface Box<out T> {\n  get(): T\n}\n";
        assert!(parse(&typescript(), source, Clock::start(source.len())).is_err());
        let (tree, text) = parse_repaired(
            &typescript(),
            source,
            Clock::start(source.len()),
            &TYPESCRIPT,
        )
        .expect("a tree");
        assert!(!tree.root_node().has_error());
        assert_eq!(text.len(), source.len());
        assert_eq!(
            text,
            "export interface Pick {\n  <T>(a: T): T\n ;<T, U>(a: T, b: U): U\n}\nexport      * from './more'\nexport interface Box<    T> {\n  get(): T\n}\n"
        );
    }

    #[test]
    fn a_rewrite_that_would_not_land_where_it_is_meant_is_left_out() {
        // The JSX line starts with `<` after a line that could end a member:
        // its `;` would be text, not a separator, so only the other
        // rewrite is made.
        let source =
            "export type * from './a'\nconst x = (\n  <div>\n    a\n    <b />\n  </div>\n)\n";
        let grammar = crate::lang::grammar(Language::Tsx).expect("the grammar");
        assert!(kinds(source).contains(&(Kind::Separator, " ")));
        let (_, text) = parse_repaired(&grammar, source, Clock::start(source.len()), &TYPESCRIPT)
            .expect("a tree");
        assert_eq!(text, source.replacen("type", "    ", 1));
    }

    #[test]
    fn a_real_error_is_still_refused_and_named_at_its_line() {
        let source = "export interface Pick {\n  <T>(a: T): T\n  <T, U>(a: T, b: U): U\n}\nfunction f( {\n}\n";
        assert!(matches!(
            parse(&typescript(), source, Clock::start(source.len())),
            Err(OutlineError::Syntax { line: 3, .. })
        ));
        assert!(matches!(
            parse_repaired(
                &typescript(),
                source,
                Clock::start(source.len()),
                &TYPESCRIPT
            ),
            Err(OutlineError::Syntax { line: 5, .. })
        ));
        // With nothing to rewrite, the error is the parse's own.
        let broken = "export const a = 1;\nfunction f( {\n}\n";
        assert_eq!(
            parse_repaired(
                &typescript(),
                broken,
                Clock::start(broken.len()),
                &TYPESCRIPT
            )
            .err(),
            parse(&typescript(), broken, Clock::start(broken.len())).err()
        );
    }
}
