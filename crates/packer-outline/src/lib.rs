//! Outlines of source files: whole lines kept from a real parse.
//!
//! An outline keeps a file's lines byte for byte, in file order, and
//! replaces each run of elided lines with one marker line `⋮ K` (U+22EE, a
//! space, the number of lines). It is computed as a set of kept lines from
//! a [tree-sitter](https://tree-sitter.github.io) syntax tree, so no line
//! appears twice, and the kept ranges alone rebuild the content
//! ([`Outline::rebuild`]). The crate is pure: text in, line ranges out; it
//! reads no file.
//!
//! # What is kept
//!
//! At [`Detail::Full`]: the first paragraph of the file's leading
//! documentation, imports, type declarations with their fields, function
//! and method signatures however many lines they span (up to and including
//! the line where the body opens), constants and module-level variables up
//! to the line where their value starts, attributes and decorators of kept
//! items, and the first paragraph of each kept item's doc comment (a doc
//! comment is attached when it ends on the line right above the item or its
//! attributes and has no code before or after it on its lines; a comment
//! or attribute that shares its line with code belongs to that code).
//! Bodies are elided with whatever is defined inside them.
//! [`Detail::Signatures`] keeps the same without any documentation: doc
//! comments go, and so does every line that holds nothing but a comment,
//! also inside kept declarations.
//! [`Detail::Public`] keeps, of those, only public or exported items, as
//! each language defines them below, without imports (but Rust's
//! `pub use`) or the file's own attributes. [`Detail::Heads`] keeps one
//! line of each item [`Detail::Public`] keeps — its first line that does
//! not start with `@` (a decorator or annotation), a Python `def` or
//! `class` line rather than its decorator — and no imports (but Rust's
//! `pub use`), attributes, fields or closing lines; in a file with no
//! public item (a test file), one line of each item [`Detail::Signatures`]
//! keeps. [`Detail::First`] keeps one of those lines, the head of the
//! item that spans the most lines (the first on a tie): the file in view
//! at the least cost, when there is room for nothing more. Each
//! level keeps a subset of the lines of the level above it that has an
//! outline.
//!
//! Two rules hold for every language: a run of elided lines whose bytes
//! are no more than its marker's (a lone `}` or a blank line) is kept
//! instead; and containers nested deeper than 48 keep their head only.
//!
//! # Per language
//!
//! - **Rust**: leading `//!`/`/*!` docs and `#![...]` (not at the public
//!   level); `use`, `extern crate`, structs, enums, unions, type aliases
//!   and signatures without body whole; `fn` heads; `const`/`static` up to
//!   the value; `mod`, `trait`, `impl` and `extern` blocks walked inside
//!   with their closing line, except a `#[cfg(test)]` module (head only);
//!   `macro_rules!` by its first line; a macro called where items go
//!   (`cfg_rt! { pub mod runtime; }`) has its braces parsed again as items
//!   (once for every level; in all at most four times the file's size,
//!   within the work budget of four times its size) when they parse
//!   cleanly, else keeps its head. Docs are `///` and
//!   `/** */`. Public: `pub` exactly (not `pub(crate)`); everything in a
//!   `pub trait` and in a trait `impl`; an inherent `impl` when one of its
//!   items is public; `macro_rules!` with `#[macro_export]`. A file
//!   that calls a macro named like a primitive type (snapbox's `str![..]`),
//!   which the grammar refuses and rustc accepts, is parsed again with the
//!   name's last byte made `_` (no byte moves); see "Refusals and guards".
//! - **Python**: the module docstring; imports; assignments at module and
//!   class level up to the value (`__all__` whole); `def` and `class` heads
//!   up to the colon with their decorators, and the first paragraph of
//!   their docstrings; classes walked inside (nested functions are not);
//!   `if`/`try`/`with` at module or class level walked inside, with every
//!   clause's head when something inside is kept. Public: assignments to
//!   names without a leading underscore, and dunder names; every `def` and
//!   `class` at module and class level, whatever its name, is kept at every
//!   level (they are a Python outline's index), so [`Detail::First`] keeps
//!   what [`Detail::Heads`] keeps.
//! - **JavaScript, TypeScript, TSX**: the file's first comment when it is
//!   not attached to an item; imports and exports; function heads; classes
//!   with fields up to their values and method heads; interfaces, type
//!   aliases, enums and function overloads whole; `const`/`let`/`var` up to
//!   the value, or up to the body of a function value; CommonJS
//!   assignments of functions (`Router.prototype.route = function ...`) and
//!   to `module.exports`/`exports`; namespaces and `declare module` walked
//!   inside. Any comment attached to an item is its doc. Exported: under
//!   `export` or `declare`, or declared in the file and named by its
//!   exports: an `export { NAME }` or `export { NAME as alias }` clause
//!   without `from`, `export default NAME`, TypeScript's `export = NAME`,
//!   or CommonJS exports (with what is assigned to properties of those
//!   names); class members unless `private`, `protected` or `#named`.
//!   TypeScript that the grammar refuses but TypeScript accepts (generic
//!   call signatures one per line without `;`, `export type *`, `in`/`out`
//!   variance annotations) is parsed again; see "Refusals and guards".
//! - **Go**: the package comment and clause; imports; type declarations
//!   whole; `const`/`var` specs up to their values, with a group's
//!   parentheses; function and method heads. Any attached comment is the
//!   doc. Exported: a capitalised name.
//! - **Java**: package and imports; classes, interfaces, enums, records and
//!   annotation types with their heads, closing lines, fields up to their
//!   values, enum constants, method and constructor heads, nested types;
//!   Javadoc (`/** */`) is the doc. Public: declared `public`, or a member
//!   of an interface or annotation type.
//! - **C and C++**: the file's first comment when it is not attached to an
//!   item; includes; the first line of each macro; declarations up to an
//!   initializer; typedefs, enums, `using` whole; struct, union and class
//!   bodies walked inside (access labels kept); function heads;
//!   namespaces, `extern "C"` blocks and templates walked inside;
//!   `#if`/`#ifdef` blocks walked inside with their directive and `#endif`
//!   lines. Any attached comment is the doc. Public: not `static`, not in
//!   an anonymous namespace, and in a class only members of `public:`
//!   sections (a `struct` starts public). A `.h` file is parsed as C.
//!
//! # Refusals and guards
//!
//! [`outline`] returns an error rather than a wrong outline: for a source
//! over [`MAX_SOURCE_BYTES`], for any syntax error or missing token
//! ([`OutlineError::Syntax`], at the first one in the tree; the parse
//! stops early when every parse stack is in error recovery), and for a
//! parse that goes past its work budget, [`WORK_PER_BYTE`] operations a
//! byte plus [`WORK_BASE`] ([`OutlineError::TooMuchWork`], which names the
//! budget). The budget counts the parser's operations through its progress
//! callback, not time, so the same file gets the same answer on every
//! machine; clean files, hostile ones included, use 2 to 9 a byte. It
//! returns `Ok(None)` when the outline would keep nothing or be no shorter
//! than the file.
//!
//! A TypeScript or TSX file that does not parse is parsed again (at most
//! twice, each within the budget) with rewrites that move no byte, for
//! syntax the grammar (tree-sitter-typescript 0.23) refuses and TypeScript
//! accepts: a member of an interface or object type that starts a line
//! with `<` (generic call signatures one per line without `;`: the
//! grammar's scanner never ends a member before a `<`), where the
//! indentation byte before the `<` becomes `;`; `export type * from`,
//! where `type` becomes spaces; and `in`/`out` variance annotations, which
//! become spaces. Each rewrite is kept only where the new tree shows it
//! where it was meant to be (a member separator, the `*` of an export, the
//! start of a type parameter), the outline is rebuilt from the file's own
//! text, and a file with any other error is still refused.
//!
//! A Rust file that does not parse is parsed again (at most twice, each
//! within the budget) when it calls a macro whose name the grammar reads
//! as a primitive type (`str![""]`, `u8!(..)`): that name's last byte
//! becomes `_`, kept only where the new tree shows it as a macro's name,
//! and the outline is rebuilt from the file's own text; a file with any
//! other error is still refused.
//!
//! Hostile input costs work linear in the tree and no deep stack: every
//! walk of a whole tree is iterative (a `TreeCursor` and a stack of
//! ancestors on the heap); the rules recurse into at most 48 nested
//! containers; no `Node` method that walks down from the root
//! (`parent`, the siblings) is called (the crate's `clippy.toml` disallows
//! them); and the comments and attributes above each line are found once.
//! The tests outline sources nested 10,000 and 50,000 deep in every
//! language on a 256 KiB stack, within 16 node visits per node of the
//! tree (a count, not a clock).
//!
//! # Features
//!
//! One cargo feature per grammar (`rust`, `python`, `javascript`,
//! `typescript` for TypeScript and TSX, `go`, `java`, `c`, `cpp`), all on
//! by default through `all`. A language whose grammar is off still parses
//! by name and extension ([`Language::from_path`]) but gets `Ok(None)`
//! from [`outline`]; with every grammar off, tree-sitter is not compiled
//! at all.

#[cfg(feature = "parser")]
mod clock;
mod error;
#[cfg(feature = "parser")]
mod keep;
#[cfg(feature = "parser")]
mod lang;
mod language;
mod lines;
#[cfg(all(test, feature = "all"))]
mod nesting_tests;
#[cfg(feature = "parser")]
mod nodes;
#[cfg(feature = "parser")]
mod parse;
#[cfg(feature = "typescript")]
mod repair;
#[cfg(feature = "rust")]
mod repair_rust;

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

/// The processor time a file's parses may take: this many nanoseconds a
/// byte of source, plus [`NANOS_BASE`]; past it the file is
/// [`OutlineError::TooSlow`]. Clean real files take 200 to 600 a byte on
/// the machines packer is measured on.
pub const NANOS_PER_BYTE: u64 = 2_000;

/// The constant part of the time limit (see [`NANOS_PER_BYTE`]): 100 ms.
pub const NANOS_BASE: u64 = 100_000_000;

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
    /// One line per item [`Detail::Public`] keeps (its first line that is
    /// not a decorator or annotation), or, in a file with no public item,
    /// per item [`Detail::Signatures`] keeps; no imports, attributes,
    /// fields or closing lines.
    Heads,
    /// The one line [`Detail::Heads`] keeps of the item that spans the
    /// most lines (the first such item on a tie): the head of a file's
    /// main class, type or block of methods. In Python, what
    /// [`Detail::Heads`] keeps.
    First,
}

impl Detail {
    /// Every level, from most to least.
    pub const ALL: [Detail; 5] = [
        Detail::Full,
        Detail::Signatures,
        Detail::Public,
        Detail::Heads,
        Detail::First,
    ];

    /// The level's name in lowercase: `full`, `signatures`, `public`,
    /// `heads`, `first`.
    pub fn name(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Signatures => "signatures",
            Detail::Public => "public",
            Detail::Heads => "heads",
            Detail::First => "first",
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
///   does not parse cleanly (any syntax error or missing token; for
///   TypeScript, also after the rewrites the crate documentation lists),
///   or when the parse goes past its work budget: a file gets no outline
///   rather than a wrong one.
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
    let Some(kept) = kept_lines(language, source, &[detail])?.and_then(|mut l| l.pop()) else {
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

/// The outlines of `source` in `language` at every level, from one parse:
/// the outline at each of [`Detail::ALL`] that [`outline`] returns, each
/// with its level, leaving out a level whose outline is the same as the
/// level above it. Each outline is strictly shorter than the one before it.
/// Errors and empty results as [`outline`]'s.
pub fn outlines(language: Language, source: &str) -> Result<Vec<(Detail, Outline)>, OutlineError> {
    if source.len() > MAX_SOURCE_BYTES {
        return Err(OutlineError::TooLarge {
            bytes: source.len(),
        });
    }
    let Some(levels) = kept_lines(language, source, &Detail::ALL)? else {
        return Ok(Vec::new());
    };
    let of_lines = lines::line_count(source);
    let mut made: Vec<(Detail, Outline)> = Vec::new();
    for (detail, kept) in Detail::ALL.into_iter().zip(levels) {
        if kept.is_empty() {
            continue;
        }
        let content = lines::rebuild(source, &kept);
        let shorter_than = made.last().map_or(source.len(), |(_, o)| o.content.len());
        if content.len() >= shorter_than {
            continue;
        }
        made.push((
            detail,
            Outline {
                kept,
                of_lines,
                content,
            },
        ));
    }
    Ok(made)
}

/// The kept line ranges at each of `details`, from one parse, or `None`
/// without the language's grammar.
#[cfg(feature = "parser")]
fn kept_lines(
    language: Language,
    source: &str,
    details: &[Detail],
) -> Result<Option<Vec<Vec<Range<usize>>>>, OutlineError> {
    let Some(grammar) = lang::grammar(language) else {
        return Ok(None);
    };
    // The text the tree was parsed from: the source, or for TypeScript the
    // source rewritten without moving a byte (see `repair`).
    let clock = clock::Clock::start(source.len());
    let (tree, text) = match language {
        #[cfg(feature = "typescript")]
        Language::TypeScript | Language::Tsx => {
            parse::parse_repaired(&grammar, source, clock, &repair::TYPESCRIPT)?
        }
        #[cfg(feature = "rust")]
        Language::Rust => parse::parse_repaired(&grammar, source, clock, &repair_rust::RUST)?,
        _ => (
            parse::parse(&grammar, source, clock)?,
            std::borrow::Cow::Borrowed(source),
        ),
    };
    let mut indexed = keep::Keep::new(&text, Detail::Full, grammar, clock);
    indexed.index(tree.root_node());
    let mut levels = Vec::with_capacity(details.len());
    // The rows `Detail::Heads` keeps before short gaps are filled, which
    // `Detail::First` cuts to one.
    let mut heads_rows: Option<Vec<bool>> = None;
    for &detail in details {
        if detail == Detail::First {
            let rows = match heads_rows.take() {
                Some(rows) => rows,
                None => heads(&indexed, language, tree.root_node()).rows,
            };
            let mut keep = indexed.fresh(detail);
            if language == Language::Python {
                keep.rows = rows;
            } else if let Some(row) = largest_head(tree.root_node(), &rows) {
                keep.rows[row] = true;
            }
            keep.fill_short_gaps();
            levels.push(keep.ranges());
            continue;
        }
        if detail == Detail::Heads {
            let mut keep = heads(&indexed, language, tree.root_node());
            heads_rows = Some(keep.rows.clone());
            keep.fill_short_gaps();
            levels.push(keep.ranges());
            continue;
        }
        let mut keep = indexed.fresh(detail);
        lang::walk(language, &mut keep, tree.root_node());
        if detail != Detail::Full {
            keep.drop_comment_lines();
        }
        keep.fill_short_gaps();
        levels.push(keep.ranges());
    }
    Ok(Some(levels))
}

/// Nodes that wrap items rather than define one (a C++ namespace, an
/// `extern "C"` block, a Rust or TypeScript inline module): their head line
/// does not stand for their lines.
#[cfg(feature = "parser")]
const WRAPPERS: [&str; 4] = [
    "namespace_definition",
    "linkage_specification",
    "mod_item",
    "internal_module",
];

/// Of the kept `rows`, the head of the item that spans the most lines (the
/// first of those on a tie).
#[cfg(feature = "parser")]
fn largest_head(root: tree_sitter::Node<'_>, rows: &[bool]) -> Option<usize> {
    let spans = spans_from_rows(root, rows.len());
    (0..rows.len())
        .filter(|&row| rows[row])
        .min_by_key(|&row| (std::cmp::Reverse(spans[row]), row))
}

/// For each of a file's `rows` lines, the most lines spanned by a node that
/// starts on it (the root, [`WRAPPERS`] and their bodies left out): how
/// much of the file a head line stands for. One pass over the tree, each
/// node's parent from the walk's stack (`Node::parent` would walk down from
/// the root for every node, quadratic in the nesting depth).
#[cfg(feature = "parser")]
fn spans_from_rows(root: tree_sitter::Node<'_>, rows: usize) -> Vec<usize> {
    let mut spans = vec![0; rows];
    let wraps = |node: tree_sitter::Node<'_>| WRAPPERS.contains(&node.kind());
    keep::preorder(root, |node, parent| {
        let Some(parent) = parent else {
            return true;
        };
        if wraps(node) || wraps(parent) {
            // Neither a wrapper nor its body stands for its lines.
        } else {
            let (first, last) = (node.start_position().row, keep::end_row(node));
            if let Some(span) = spans.get_mut(first) {
                *span = (*span).max(last.max(first) + 1 - first);
            }
        }
        true
    });
    spans
}

/// The lines [`Detail::Heads`] keeps, before short gaps are filled: one
/// line of each public item, or of every item when there is none.
#[cfg(feature = "parser")]
fn heads<'a>(
    indexed: &keep::Keep<'a>,
    language: Language,
    root: tree_sitter::Node<'_>,
) -> keep::Keep<'a> {
    let mut keep = indexed.fresh(Detail::Heads);
    lang::walk(language, &mut keep, root);
    if !keep.rows.contains(&true) {
        keep = indexed.fresh(Detail::Heads);
        keep.every_item = true;
        lang::walk(language, &mut keep, root);
    }
    keep.drop_comment_lines();
    keep
}

/// Without any grammar compiled in, no language gets an outline.
#[cfg(not(feature = "parser"))]
fn kept_lines(
    _language: Language,
    _source: &str,
    _details: &[Detail],
) -> Result<Option<Vec<Vec<Range<usize>>>>, OutlineError> {
    Ok(None)
}
