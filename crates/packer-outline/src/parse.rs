//! One guarded parse: a work budget counted by the parser's progress
//! callback (deterministic, unlike a clock), a stop at the first syntax
//! error, and the position of that error.

use std::ops::ControlFlow;

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Tree};

use crate::{OutlineError, WORK_BASE, WORK_PER_BYTE};

/// The parser calls its progress callback once per this many operations.
const OPERATIONS_PER_CALLBACK: usize = 100;

/// Why the progress callback stopped the parse.
enum Stop {
    /// Every parse stack was in error recovery at this byte offset.
    Error(usize),
    /// The work budget ran out.
    Work,
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
pub(crate) fn parse(language: &tree_sitter::Language, source: &str) -> Result<Tree, OutlineError> {
    parse_within(language, source, None, budget_for(source.len())).0
}

/// Parses only the bytes of `within` (a macro's body), keeping the file's
/// positions, within `budget` operations; returns the clean tree or why
/// there is none, and the operations the parse used.
pub(crate) fn parse_range(
    language: &tree_sitter::Language,
    source: &str,
    within: tree_sitter::Range,
    budget: usize,
) -> (Result<Tree, OutlineError>, usize) {
    parse_within(language, source, Some(within), budget)
}

/// The guarded parse: stops at the first syntax error, or once the parser
/// has done more than `budget` operations (counted by its progress
/// callback, so the same source stops at the same point on every machine).
/// Returns the operations used with the outcome.
fn parse_within(
    language: &tree_sitter::Language,
    source: &str,
    within: Option<tree_sitter::Range>,
    budget: usize,
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
        (Some(Stop::Work), _) | (None, None) => Err(OutlineError::TooMuchWork),
        (Some(Stop::Error(offset)), _) => {
            let (line, column) = position_of_offset(source, offset);
            Err(OutlineError::Syntax { line, column })
        }
        (None, Some(tree)) => {
            let root = tree.root_node();
            if root.has_error() {
                let at = first_error(root).start_position();
                Err(OutlineError::Syntax {
                    line: at.row + 1,
                    column: at.column + 1,
                })
            } else {
                Ok(tree)
            }
        }
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
            crate::keep::visited(1);
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
