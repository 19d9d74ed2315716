//! One guarded parse: a work budget counted by the parser's progress
//! callback (deterministic, unlike a clock), a stop when every parse stack
//! is in error recovery, and the position of the first syntax error.

use std::ops::ControlFlow;

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

use crate::clock::Clock;
use crate::{OutlineError, WORK_BASE, WORK_PER_BYTE};

/// The parser calls its progress callback once per this many operations.
const OPERATIONS_PER_CALLBACK: usize = 100;

/// The clock is read once per this many progress calls.
const CALLS_PER_CLOCK: usize = 16;

/// Why the progress callback stopped the parse.
enum Stop {
    /// Every parse stack was in error recovery at this byte offset.
    Error(usize),
    /// The work budget ran out.
    Work,
    /// The clock passed.
    Time,
}

/// The work budget of a parse of `bytes` bytes, in parser operations:
/// [`WORK_PER_BYTE`] a byte plus [`WORK_BASE`].
pub(crate) fn budget_for(bytes: usize) -> usize {
    bytes
        .saturating_mul(WORK_PER_BYTE)
        .saturating_add(WORK_BASE)
}

/// Parses `source` in `language` within the work budget of its size, or
/// says why there is no clean tree.
pub(crate) fn parse(
    language: &tree_sitter::Language,
    source: &str,
    clock: Clock,
) -> Result<Tree, OutlineError> {
    clean(parse_within(language, source, None, budget_for(source.len()), clock).0?)
}

/// Syntax a grammar refuses where the language's compiler accepts it, and
/// how it is rewritten in place (no byte moves) so that it parses: the
/// rewrites a text may need, the text with some of them made, and those of
/// them that the new tree shows where they were meant to be.
#[cfg(any(feature = "typescript", feature = "rust"))]
pub(crate) struct Repair<R> {
    pub(crate) candidates: fn(&str) -> Vec<R>,
    pub(crate) apply: fn(&str, &[R]) -> String,
    pub(crate) landed: fn(Node<'_>, &str, &[R]) -> Vec<R>,
}

/// The tree of `source`, and the text it was parsed from: `source` itself
/// when it parses; else, when it does not parse and has candidates for
/// `repair`, `source` with them made, parsed again (at most twice, each
/// within the work budget) keeping only the rewrites that landed. When
/// every rewrite landed, an error left is one of the file's own, at the
/// same place in it; otherwise the first parse's error stands, as if the
/// file had not been tried again.
#[cfg(any(feature = "typescript", feature = "rust"))]
pub(crate) fn parse_repaired<'s, R>(
    language: &tree_sitter::Language,
    source: &'s str,
    clock: Clock,
    repair: &Repair<R>,
) -> Result<(Tree, std::borrow::Cow<'s, str>), OutlineError> {
    use std::borrow::Cow;
    let error = match parse(language, source, clock) {
        Ok(tree) => return Ok((tree, Cow::Borrowed(source))),
        Err(error @ OutlineError::Syntax { .. }) => error,
        Err(other) => return Err(other),
    };
    let mut rewrites = (repair.candidates)(source);
    for _ in 0..2 {
        if rewrites.is_empty() {
            break;
        }
        let text = (repair.apply)(source, &rewrites);
        let Ok(tree) = parse_with_errors(language, &text, clock) else {
            break;
        };
        let landed = (repair.landed)(tree.root_node(), &text, &rewrites);
        if landed.len() == rewrites.len() {
            return match syntax_error(&tree) {
                None => Ok((tree, Cow::Owned(text))),
                Some(error) => Err(error),
            };
        }
        rewrites = landed;
    }
    Err(error)
}

/// Parses `source` in `language` within the work budget of its size, and
/// returns the finished tree with whatever errors it has (see
/// [`syntax_error`]); refuses only a parse that ran out of work or that
/// the parser gave up on.
#[cfg(any(feature = "typescript", feature = "rust"))]
fn parse_with_errors(
    language: &tree_sitter::Language,
    source: &str,
    clock: Clock,
) -> Result<Tree, OutlineError> {
    parse_within(language, source, None, budget_for(source.len()), clock).0
}

/// Parses only the bytes of `within` (a macro's body), keeping the file's
/// positions, within `budget` operations; returns the clean tree or why
/// there is none, and the operations the parse used.
pub(crate) fn parse_range(
    language: &tree_sitter::Language,
    source: &str,
    within: tree_sitter::Range,
    budget: usize,
    clock: Clock,
) -> (Result<Tree, OutlineError>, usize) {
    let (parsed, used) = parse_within(language, source, Some(within), budget, clock);
    (parsed.and_then(clean), used)
}

/// The tree when it has no error or missing node, or where its first one is.
fn clean(tree: Tree) -> Result<Tree, OutlineError> {
    match syntax_error(&tree) {
        Some(error) => Err(error),
        None => Ok(tree),
    }
}

/// Where the first error or missing node of a tree is, if it has one.
pub(crate) fn syntax_error(tree: &Tree) -> Option<OutlineError> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let at = first_error(root).start_position();
    Some(OutlineError::Syntax {
        line: at.row + 1,
        column: at.column + 1,
    })
}

/// The guarded parse: stops once the parser has done more than `budget`
/// operations (counted by its progress callback, so the same source stops
/// at the same point on every machine), or when every parse stack is in
/// error recovery, or when `clock` has passed; a parse that recovers from
/// an error goes on, and the finished tree holds the error ([`clean`]
/// refuses it). Returns the operations used with the outcome.
fn parse_within(
    language: &tree_sitter::Language,
    source: &str,
    within: Option<tree_sitter::Range>,
    budget: usize,
    clock: Clock,
) -> (Result<Tree, OutlineError>, usize) {
    let mut parser = Parser::new();
    if parser.set_language(language).is_err() {
        return (Err(OutlineError::Grammar), 0);
    }
    if let Some(range) = within
        && parser.set_included_ranges(&[range]).is_err()
    {
        return (Err(OutlineError::Grammar), 0);
    }
    let calls_allowed = budget / OPERATIONS_PER_CALLBACK;
    let mut calls = 0usize;
    let mut stop = None;
    let mut progress = |state: &ParseState| {
        calls += 1;
        if state.has_error() {
            stop = Some(Stop::Error(state.current_byte_offset()));
            ControlFlow::Break(())
        } else if calls > calls_allowed {
            stop = Some(Stop::Work);
            ControlFlow::Break(())
        } else if calls.is_multiple_of(CALLS_PER_CLOCK) && clock.passed() {
            stop = Some(Stop::Time);
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let bytes = source.as_bytes();
    let tree = parser.parse_with_options(
        &mut |at, _| bytes.get(at..).unwrap_or_default(),
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    let used = calls.saturating_mul(OPERATIONS_PER_CALLBACK);
    let outcome = match (stop, tree) {
        (Some(Stop::Work), _) | (None, None) => Err(OutlineError::TooMuchWork { budget }),
        (Some(Stop::Time), _) => Err(OutlineError::TooSlow {
            milliseconds: clock.limit_ms(),
        }),
        (Some(Stop::Error(offset)), _) => {
            let (line, column) = position_of_offset(source, offset);
            Err(OutlineError::Syntax { line, column })
        }
        (None, Some(tree)) => Ok(tree),
    };
    (outcome, used)
}

/// The first error or missing node under a node that has an error, found
/// without recursion.
fn first_error(root: Node<'_>) -> Node<'_> {
    let mut node = root;
    let mut cursor = root.walk();
    loop {
        let mut next = None;
        for child in node.children(&mut cursor) {
            crate::nodes::visited(1);
            if child.is_error() || child.is_missing() {
                return child;
            }
            if child.has_error() {
                next = Some(child);
                break;
            }
        }
        match next {
            Some(child) => node = child,
            None => return node,
        }
    }
}

/// 1-based line and byte column of a byte offset.
fn position_of_offset(source: &str, offset: usize) -> (usize, usize) {
    let before = &source.as_bytes()[..offset.min(source.len())];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |at| at + 1);
    let lines = before.iter().filter(|&&b| b == b'\n').count();
    (lines + 1, before.len() - line_start + 1)
}

#[cfg(all(test, feature = "all"))]
mod tests {
    use super::*;

    /// A clock that does not pass in a test.
    fn never() -> Clock {
        Clock::start(usize::MAX)
    }

    // The grammar itself, not `lang`'s table of them: the walks import
    // the parse, so the parse imports no walk.
    fn typescript() -> tree_sitter::Language {
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
    }

    #[test]
    fn the_budget_is_so_much_a_byte_above_a_floor() {
        assert_eq!(budget_for(0), WORK_BASE);
        assert_eq!(budget_for(1_000), 1_000 * WORK_PER_BYTE + WORK_BASE);
        assert_eq!(budget_for(usize::MAX), usize::MAX);
    }

    #[test]
    fn a_parse_is_refused_exactly_where_its_budget_runs_out_on_every_run() {
        let source = "export const x = f(() => [1, (2 + 3) * 4], { a: b });\n".repeat(2_000);
        let (parsed, used) = parse_within(&typescript(), &source, None, usize::MAX, never());
        assert!(parsed.and_then(clean).is_ok());
        // The count is the parser's operations: the same on every run (and
        // every machine), and a clean file uses a few a byte.
        assert_eq!(
            parse_within(&typescript(), &source, None, usize::MAX, never()).1,
            used
        );
        assert!(
            used > 0 && used < source.len() * WORK_PER_BYTE / 8,
            "{used}"
        );
        // Exactly the work it needs is enough; one progress call less is not.
        assert!(
            parse_within(&typescript(), &source, None, used, never())
                .0
                .is_ok()
        );
        let budget = used - OPERATIONS_PER_CALLBACK;
        let (refused, spent) = parse_within(&typescript(), &source, None, budget, never());
        assert_eq!(refused.err(), Some(OutlineError::TooMuchWork { budget }));
        assert_eq!(spent, used);
    }

    #[test]
    fn a_refused_parse_stops_early_rather_than_finishing_first() {
        let source = "let a = [1, 2, 3];\n".repeat(20_000);
        let (refused, spent) = parse_within(&typescript(), &source, None, 10_000, never());
        assert_eq!(
            refused.err(),
            Some(OutlineError::TooMuchWork { budget: 10_000 })
        );
        assert!(spent <= 10_000 + OPERATIONS_PER_CALLBACK, "{spent}");
    }

    #[test]
    fn a_syntax_error_refuses_the_file_at_its_line_within_the_budget() {
        // The parser recovers from the stray braces and parses on (it stops
        // early only when every parse stack is in error recovery); the
        // error is then found in the tree.
        let source = format!(
            "let a = 1;\n}} }} }}\n{}",
            "let b = [1, 2];\n".repeat(20_000)
        );
        let (parsed, spent) = parse_within(
            &typescript(),
            &source,
            None,
            budget_for(source.len()),
            never(),
        );
        assert_eq!(
            parsed.and_then(clean).err(),
            Some(OutlineError::Syntax { line: 2, column: 1 })
        );
        assert!(spent <= budget_for(source.len()), "{spent}");
    }

    #[test]
    fn error_recovery_deep_in_nesting_stops_at_the_clock() {
        // Method bodies nested 200,000 deep, each a syntax error the
        // parser recovers from: a few operations a byte, as clean files
        // use, but each several times as costly; the clock stops it.
        let source = format!(
            "class A {{{}{}}}\n",
            "m(){".repeat(200_000),
            "}".repeat(200_000)
        );
        let clock = Clock::start(source.len());
        let (parsed, spent) = parse_within(
            &typescript(),
            &source,
            None,
            budget_for(source.len()),
            clock,
        );
        assert_eq!(
            parsed.err(),
            Some(OutlineError::TooSlow {
                milliseconds: clock.limit_ms()
            })
        );
        assert!(spent < budget_for(source.len()), "{spent}");
    }
}
