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

/// Parses `source` in `language`, or says why there is no clean tree.
pub(crate) fn parse(language: &tree_sitter::Language, source: &str) -> Result<Tree, OutlineError> {
    parse_within(language, source, None)
}

/// Parses only the bytes of `within` (a macro's body), keeping the file's
/// positions, or says why there is no clean tree.
pub(crate) fn parse_range(
    language: &tree_sitter::Language,
    source: &str,
    within: tree_sitter::Range,
) -> Result<Tree, OutlineError> {
    parse_within(language, source, Some(within))
}

fn parse_within(
    language: &tree_sitter::Language,
    source: &str,
    within: Option<tree_sitter::Range>,
) -> Result<Tree, OutlineError> {
    let mut parser = Parser::new();
    parser
        .set_language(language)
        .map_err(|_| OutlineError::Grammar)?;
    let mut work_bytes = source.len();
    if let Some(range) = within {
        parser
            .set_included_ranges(&[range])
            .map_err(|_| OutlineError::Grammar)?;
        work_bytes = range.end_byte.saturating_sub(range.start_byte);
    }
    let budget = work_bytes
        .saturating_mul(WORK_PER_BYTE)
        .saturating_add(WORK_BASE)
        / OPERATIONS_PER_CALLBACK;
    let mut calls = 0usize;
    let mut stop = None;
    let mut progress = |state: &ParseState| {
        calls += 1;
        if state.has_error() {
            stop = Some(Stop::Error(state.current_byte_offset()));
            ControlFlow::Break(())
        } else if calls > budget {
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
    match (stop, tree) {
        (Some(Stop::Work), _) => Err(OutlineError::TooMuchWork),
        (Some(Stop::Error(offset)), _) => {
            let (line, column) = position_of_offset(source, offset);
            Err(OutlineError::Syntax { line, column })
        }
        (None, None) => Err(OutlineError::TooMuchWork),
        (None, Some(tree)) => {
            let root = tree.root_node();
            if root.has_error() {
                let at = first_error(root).start_position();
                return Err(OutlineError::Syntax {
                    line: at.row + 1,
                    column: at.column + 1,
                });
            }
            Ok(tree)
        }
    }
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
