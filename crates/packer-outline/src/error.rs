//! Why a file got no outline when it should have had one.

use std::fmt;

/// A file that could not be outlined: the caller sends it whole or not at
/// all, never as a wrong outline.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutlineError {
    /// The source is larger than [`crate::MAX_SOURCE_BYTES`].
    TooLarge {
        /// The source's size in bytes.
        bytes: usize,
    },
    /// The source does not parse cleanly in the language: the parser met a
    /// syntax error (or had to invent a missing token).
    Syntax {
        /// 1-based line of the first error node when the parse finished,
        /// or of the parser's position when it stopped at the first error.
        line: usize,
        /// 1-based column, in bytes, on that line.
        column: usize,
    },
    /// The parser used more than its work budget
    /// ([`crate::WORK_PER_BYTE`] operations per byte, plus a constant).
    TooMuchWork,
    /// The grammar could not be loaded (its ABI does not match the
    /// tree-sitter runtime compiled in).
    Grammar,
}

impl fmt::Display for OutlineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutlineError::TooLarge { bytes } => write!(
                f,
                "source of {bytes} bytes is larger than the {} outlined at most; send it whole or not at all",
                crate::MAX_SOURCE_BYTES
            ),
            OutlineError::Syntax { line, column } => write!(
                f,
                "syntax error at line {line}, column {column}; the file gets no outline"
            ),
            OutlineError::TooMuchWork => {
                write!(
                    f,
                    "parsing took more than its work budget; the file gets no outline"
                )
            }
            OutlineError::Grammar => {
                write!(f, "the grammar does not load in this tree-sitter runtime")
            }
        }
    }
}

impl std::error::Error for OutlineError {}
