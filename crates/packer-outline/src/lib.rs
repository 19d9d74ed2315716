//! CRATE_DOCS

mod error;
#[cfg(feature = "parser")]
mod keep;
#[cfg(feature = "parser")]
mod lang;
mod language;
mod lines;
#[cfg(feature = "parser")]
mod parse;

use std::ops::Range;

pub use error::OutlineError;
pub use language::Language;
pub use lines::MARKER;

/// The largest source outlined, in bytes (4 MiB); a larger one is
/// [`OutlineError::TooLarge`].
pub const MAX_SOURCE_BYTES: usize = 4 << 20;

/// The parser's work budget: this many operations per byte of source, plus
/// [`WORK_BASE`]. Clean real files use a few per byte; a parse that goes
/// past the budget is [`OutlineError::TooMuchWork`]. The budget counts the
/// parser's operations, not time, so the same file gets the same answer on
/// every machine.
pub const WORK_PER_BYTE: usize = 64;

/// The constant part of the work budget (see [`WORK_PER_BYTE`]).
pub const WORK_BASE: usize = 100_000;

/// How much of a file an outline keeps, from most to least. Each level
/// keeps a subset of the lines the level before it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Detail {
    /// The module's leading documentation (its first paragraph), imports,
    /// declarations with their fields, whole signatures, constants, and the
    /// first paragraph of each item's doc comment.
    Full,
    /// [`Detail::Full`] without any documentation.
    Signatures,
    /// [`Detail::Signatures`] of public or exported items only.
    Public,
}

impl Detail {
    /// Every level, from most to least.
    pub const ALL: [Detail; 3] = [Detail::Full, Detail::Signatures, Detail::Public];

    /// The level's name in lowercase: `full`, `signatures`, `public`.
    pub fn name(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Signatures => "signatures",
            Detail::Public => "public",
        }
    }
}

/// A file's outline: which of its lines are kept, and the content they make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outline {
    /// The kept lines: 0-based half-open ranges of line numbers, sorted,
    /// disjoint and non-adjacent (between two ranges at least one line is
    /// elided).
    pub kept: Vec<Range<usize>>,
    /// The file's line count under the line rule.
    pub of_lines: usize,
    /// The kept lines byte for byte in file order, each run of elided lines
    /// replaced by one marker line `⋮ K`; equal to
    /// [`Outline::rebuild`]`(source, &kept)`.
    pub content: String,
}

impl Outline {
    /// The kept lines as 1-based inclusive ranges joined by commas, as in
    /// `1-12,40-41`; a range of a single line is written as its number
    /// alone (`7`, not `7-7`).
    pub fn lines_label(&self) -> String {
        lines::label(&self.kept)
    }

    /// The content made from a file and kept line ranges alone: lines are
    /// split at `\n` (a final newline starts no new line, `\r` stays part
    /// of its line); kept lines are copied byte for byte in file order;
    /// each run of elided lines, including a first or a last one, becomes
    /// one line `⋮ K` (U+22EE, a space, the number of lines); the result
    /// ends with a newline exactly when its last kept line had one in the
    /// file, and a final marker ends with one when the file does. Ranges
    /// may overlap or touch; lines past the file's end are ignored.
    pub fn rebuild(source: &str, kept: &[Range<usize>]) -> String {
        lines::rebuild(source, kept)
    }
}

/// The outline of `source` in `language` at `detail`.
///
/// - `Err` when the source is larger than [`MAX_SOURCE_BYTES`], when it
///   does not parse cleanly (any syntax error or missing token), or when
///   the parse goes past its work budget: a file gets no outline rather
///   than a wrong one.
/// - `Ok(None)` when the outline would keep nothing, or would not be
///   strictly shorter than the source in bytes, or when this build has no
///   grammar for the language ([`Language::has_grammar`]).
///
/// Pure and thread-safe: each call makes its own parser.
pub fn outline(
    language: Language,
    source: &str,
    detail: Detail,
) -> Result<Option<Outline>, OutlineError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(OutlineError::TooLarge {
            bytes: source.len(),
        });
    }
    let Some(kept) = kept_lines(language, source, detail)? else {
        return Ok(None);
    };
    if kept.is_empty() {
        return Ok(None);
    }
    let content = lines::rebuild(source, &kept);
    if content.len() >= source.len() {
        return Ok(None);
    }
    Ok(Some(Outline {
        kept,
        of_lines: lines::line_count(source),
        content,
    }))
}

/// The kept line ranges, or `None` without the language's grammar.
#[cfg(feature = "parser")]
fn kept_lines(
    language: Language,
    source: &str,
    detail: Detail,
) -> Result<Option<Vec<Range<usize>>>, OutlineError> {
    let Some(grammar) = lang::grammar(language) else {
        return Ok(None);
    };
    let tree = parse::parse(&grammar, source)?;
    let mut keep = keep::Keep::new(source, detail, grammar);
    lang::walk(language, &mut keep, tree.root_node());
    if detail != Detail::Full {
        keep.drop_comment_lines(tree.root_node());
    }
    keep.fill_short_gaps();
    Ok(Some(keep.ranges()))
}

/// Without any grammar compiled in, no language gets an outline.
#[cfg(not(feature = "parser"))]
fn kept_lines(
    _language: Language,
    _source: &str,
    _detail: Detail,
) -> Result<Option<Vec<Range<usize>>>, OutlineError> {
    Ok(None)
}
