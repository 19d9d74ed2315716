//! What a collection is: its documents, in the fixture's wire format, and
//! the files left out, with why.

use serde::Serialize;

use packer_files::FileId;

use crate::{git, value};

/// The id of the `--tree` document. No file's id ends with `/`, so it
/// cannot collide with one.
pub const TREE_ID: &str = "tree:/";

/// Why a file did not become a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// A secret-detection rule (named by its id) matched the content.
    ContainsSecret(&'static str),
    /// Larger than `--max-file-bytes`.
    TooLarge,
    /// Contains a NUL byte.
    Binary,
    /// Not valid UTF-8.
    NotUtf8,
    /// Empty or only whitespace.
    Blank,
    /// The relative path has control characters, so it cannot be an id.
    UnusableName,
    /// The file could not be read.
    Unreadable,
    /// Listed in `--files-from` but does not exist.
    Missing,
    /// Listed in `--files-from` but is a directory, a symbolic link or
    /// another non-regular file.
    NotAFile,
    /// Listed in `--files-from` but outside the directory.
    OutsideDirectory,
    /// Listed in `--files-from` but inside a `.git` directory.
    GitInternal,
    /// Listed in `--files-from` but hidden (and no `--hidden`).
    Hidden,
    /// Listed in `--files-from` but ignored (and no `--no-ignore`).
    Ignored,
    /// Listed in `--files-from` but left out by `--glob`.
    ExcludedByGlob,
}

impl SkipReason {
    /// The stable machine code, e.g. `contains-secret`.
    pub fn code(self) -> &'static str {
        match self {
            SkipReason::ContainsSecret(_) => "contains-secret",
            SkipReason::TooLarge => "too-large",
            SkipReason::Binary => "binary",
            SkipReason::NotUtf8 => "not-utf8",
            SkipReason::Blank => "blank",
            SkipReason::UnusableName => "unusable-name",
            SkipReason::Unreadable => "unreadable",
            SkipReason::Missing => "missing",
            SkipReason::NotAFile => "not-a-file",
            SkipReason::OutsideDirectory => "outside-directory",
            SkipReason::GitInternal => "git-internal",
            SkipReason::Hidden => "hidden",
            SkipReason::Ignored => "ignored",
            SkipReason::ExcludedByGlob => "excluded-by-glob",
        }
    }

    /// A short phrase for the report on standard error. For a secret it
    /// names the rule, never the secret.
    pub fn describe(self) -> String {
        let text = match self {
            SkipReason::ContainsSecret(rule) => {
                return format!(
                    "contains-secret (rule {rule}); pass --allow-secrets to collect it anyway"
                );
            }
            SkipReason::TooLarge => "larger than --max-file-bytes",
            SkipReason::Binary => "binary (contains a NUL byte)",
            SkipReason::NotUtf8 => "not UTF-8",
            SkipReason::Blank => "empty or only whitespace",
            SkipReason::UnusableName => {
                "its path has control characters (or, without a url, cannot be written as a path)"
            }
            SkipReason::Unreadable => "cannot be read",
            SkipReason::Missing => "does not exist",
            SkipReason::NotAFile => {
                "not a regular file (symbolic links, FIFOs and devices are not read)"
            }
            SkipReason::OutsideDirectory => "outside the directory",
            SkipReason::GitInternal => "inside .git (never collected)",
            SkipReason::Hidden => "hidden (pass --hidden to collect it)",
            SkipReason::Ignored => {
                "ignored by .gitignore or .ignore (pass --no-ignore to collect it)"
            }
            SkipReason::ExcludedByGlob => "left out by --glob",
        };
        text.to_owned()
    }
}

/// One document of a collected fixture, in the fixture's wire format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectedDocument {
    /// The path relative to the directory, with `/` separators (or
    /// [`TREE_ID`]).
    pub id: String,
    /// The base URL joined with the percent-encoded relative path, when
    /// there is a base URL (a `--base-url`, or a forge remote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The relative path (the id), when there is no base URL (SPEC §1.1):
    /// a plain directory, a copy, a checkout without a forge remote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `markdown` for `.md`/`.markdown`, else `text`.
    pub format: &'static str,
    /// The file's text.
    pub content: String,
    /// Always false: files are read whole.
    pub truncated: bool,
    /// From the last matching `--priority` rule (0 when none matches).
    #[serde(skip_serializing_if = "is_zero")]
    pub priority: i64,
    /// True only for the `--tree` document (unless made optional).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

fn is_zero(value: &i64) -> bool {
    *value == 0
}

/// What [`collect()`](crate::collect()) produces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    /// Documents: the tree first (with `--tree`), then by priority
    /// (highest first), then in the value order ([`value`]; with
    /// `--git-order`, low-value files last and the others most recently
    /// changed first), then by path.
    pub documents: Vec<CollectedDocument>,
    /// Files left out, with why, sorted by path.
    pub skipped: Vec<(String, SkipReason)>,
    /// The Git checkout the urls were derived from (without a base URL).
    pub checkout: Option<git::Checkout>,
    /// Every file opened while collecting, documents, skipped files and
    /// rule files alike (so that `--payload-out` can refuse to replace one).
    pub opened: Vec<FileId>,
    /// The directories the walk entered (relative, `/`-separated; `""`
    /// for `DIR` itself), so that a caller keeping a result can tell when
    /// a file appears in one or leaves it (its modification time changes).
    pub directories: Vec<String>,
    /// Files that were walked but were gone or had become a symbolic link
    /// (or their directory had) when they were opened: the tree changed
    /// while it was collected. They are left out and, since their names may come from
    /// elsewhere, not named.
    pub changed: usize,
}

impl Collection {
    /// The low-value documents the value order put after the others
    /// (those no `--priority` rule raised above 0), in document order, with
    /// the rule that placed each (`licence`, `changelog`, `lock file`, ...;
    /// see [`value`]).
    pub fn placed_last(&self) -> Vec<(&str, &'static str)> {
        self.documents
            .iter()
            .filter(|d| d.priority <= 0)
            .filter_map(|d| match value::place_in(&d.id, &d.content) {
                value::Place::Last(rule) if d.id != TREE_ID => Some((d.id.as_str(), rule)),
                _ => None,
            })
            .collect()
    }
}
