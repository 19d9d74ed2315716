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
    /// The parser used more than its work budget, [`crate::WORK_PER_BYTE`]
    /// operations a byte of the source plus [`crate::WORK_BASE`]. The count
    /// is the parser's, not a clock's: the same file is refused on every
    /// machine. (A macro body parsed again that goes past its budget only
    /// keeps the macro's head; see the crate documentation.)
    TooMuchWork {
        /// The budget that ran out, in parser operations.
        budget: usize,
    },
    /// The parses of the file took more processor time than
    /// [`crate::NANOS_PER_BYTE`] a byte plus [`crate::NANOS_BASE`]: a
    /// source that costs several times what clean files cost (error
    /// recovery inside deep nesting). A clock, so a file near the limit may
    /// be outlined on a faster machine.
    TooSlow {
        /// The limit that passed, in milliseconds of processor time.
        milliseconds: u64,
    },
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
            OutlineError::TooMuchWork { budget } => write!(
                f,
                "parsing took more than its work budget of {budget} parser operations ({} a byte plus {}); the file gets no outline",
                crate::WORK_PER_BYTE,
                crate::WORK_BASE
            ),
            OutlineError::TooSlow { milliseconds } => write!(
                f,
                "parsing took more than its time limit of {milliseconds} ms of processor time ({} µs a byte plus {} ms); the file gets no outline",
                crate::NANOS_PER_BYTE / 1_000,
                crate::NANOS_BASE / 1_000_000
            ),
            OutlineError::Grammar => {
                write!(f, "the grammar does not load in this tree-sitter runtime")
            }
        }
    }
}

impl std::error::Error for OutlineError {}

#[cfg(test)]
mod tests {
    use super::OutlineError;

    #[test]
    fn a_refusal_for_work_names_its_budget_and_how_it_was_made() {
        assert_eq!(
            OutlineError::TooMuchWork { budget: 164_000 }.to_string(),
            "parsing took more than its work budget of 164000 parser operations (64 a byte plus 100000); the file gets no outline"
        );
    }
}
