//! A fixture from a directory's text files: one document per file, walked
//! with the `ignore` crate (so `.gitignore`, `.ignore` and hidden files are
//! respected), and every file that cannot become a document reported.
//!
//! Globs only ever narrow the walk: they are matched as a filter after the
//! walker's own rules, so no glob brings in an ignored or hidden file. Those
//! come in only with [`CollectOptions::no_ignore`] and
//! [`CollectOptions::hidden`], and a `.git` entry never does. Files that
//! contain a secret ([`secrets`]), whose path carries one, or whose
//! name marks a credential file (`.env`, `.netrc`, …, even with
//! [`CollectOptions::hidden`]) are skipped unless
//! [`CollectOptions::allow_secrets`]; a path that carries a secret is
//! reported with that part replaced by `[secret]`. Every file (and every
//! rule file) is read beneath the directory without following links; see
//! `docs/security.md`. `--files-from` lists
//! ([`CollectOptions::files_from`]) go through the same rules, and never
//! reach outside the directory.
//!
//! Every front end (`packer collect`, `packer pack --dir`, the MCP server)
//! builds a [`CollectOptions`] and calls [`collect()`]; [`fixture()`] turns
//! the result into a [`Fixture`] for [`packer::pack()`].

pub mod config;
pub mod git;
mod ignores;
mod imports;
pub mod priority;
pub mod secrets;
mod tree;
pub mod value;

use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use ignore::overrides::{Override, OverrideBuilder};
use serde::Serialize;

use packer::budget::PartialBudget;
use packer::error::Error;
use packer::fixture::{Fixture, Limits};
use packer_files::{self as files, FileId};

pub use priority::{PriorityRule, RuleProblem, priority_rules};

/// The default `--max-file-bytes`: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1_048_576;

/// The default `--max-files`: the most files a collection may hold.
pub const DEFAULT_MAX_FILES: usize = 50_000;

/// The default `--max-total-bytes`: the most text a collection may hold
/// (256 MiB).
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 268_435_456;

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

/// What [`collect()`] produces.
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

/// Whether and how to add the `--tree` document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TreeOption {
    /// No tree document.
    #[default]
    None,
    /// A tree document marked `required`.
    Required,
    /// A tree document like any other.
    Optional,
}

impl TreeOption {
    /// The names front ends take for a tree document: `required`,
    /// `optional`.
    pub const NAMES: [&'static str; 2] = ["required", "optional"];

    /// The tree document of one of [`TreeOption::NAMES`].
    pub fn from_name(name: &str) -> Option<TreeOption> {
        match name {
            "required" => Some(TreeOption::Required),
            "optional" => Some(TreeOption::Optional),
            _ => None,
        }
    }
}

/// How to collect. `CollectOptions::default()` is what `packer collect DIR`
/// does in a Git checkout with a known remote.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// The URL the relative paths are joined to; `None` derives it from the
    /// Git remote at the current commit ([`git::web_base`]) and, where there
    /// is none, gives each document its relative `path` instead of a url.
    pub base_url: Option<url::Url>,
    /// Only files matching one of these globs (all files when empty;
    /// gitignore syntax, `!` excludes).
    pub globs: Vec<String>,
    /// Files larger than this are skipped.
    pub max_file_bytes: u64,
    /// The most files (documents and skipped files) a collection may hold.
    pub max_files: usize,
    /// The most bytes of text the documents may hold together.
    pub max_total_bytes: u64,
    /// Also collect hidden files and directories (names starting with `.`).
    /// `.git` stays out regardless.
    pub hidden: bool,
    /// Also collect files that `.gitignore`, `.ignore`, `.git/info/exclude`
    /// or the global Git excludes leave out.
    pub no_ignore: bool,
    /// Collect files in which a [`secrets`] rule finds a secret (by default
    /// they are skipped as `contains-secret`).
    pub allow_secrets: bool,
    /// Priority rules; the last one matching a path sets its priority.
    pub priorities: Vec<PriorityRule>,
    /// Within equal priority, files changed most recently in Git first.
    pub git_order: bool,
    /// Collect exactly these paths (relative to the directory, or absolute
    /// inside it) instead of walking; each still passes every rule.
    pub files_from: Option<Vec<String>>,
    /// Add the directory tree of the collected files as a document.
    pub tree: TreeOption,
    /// Set by another thread to stop the collection early (`cancelled`).
    pub cancel: packer::Cancel,
    /// When not empty, the directory must really lie inside one of these
    /// (canonical) directories: checked on the opened directory, so a link
    /// swapped in after its path was checked is caught
    /// (`path-outside-root`).
    pub confine: Vec<PathBuf>,
}

impl Default for CollectOptions {
    fn default() -> CollectOptions {
        CollectOptions {
            base_url: None,
            globs: Vec::new(),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_files: DEFAULT_MAX_FILES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            hidden: false,
            no_ignore: false,
            allow_secrets: false,
            priorities: Vec::new(),
            git_order: false,
            files_from: None,
            tree: TreeOption::None,
            confine: Vec::new(),
            cancel: packer::Cancel::default(),
        }
    }
}

/// The name of the directory (or, in linked worktrees and submodules, the
/// file) that is never collected.
const GIT_DIR: &str = ".git";

/// The error for a `--base-url` that is not an absolute http(s) URL
/// without credentials, or a bad `--glob`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadOption;

/// Checks a `--base-url`: absolute `http`/`https` with a host and no
/// credentials (the rules a fixture's URLs follow).
pub fn base_url(text: &str) -> Result<url::Url, BadOption> {
    let url = url::Url::parse(text).map_err(|_| BadOption)?;
    let ok = matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.username().is_empty()
        && url.password().is_none()
        && !url.cannot_be_a_base();
    if ok { Ok(url) } else { Err(BadOption) }
}

/// Splits a `--files-from` list: NUL-separated when it contains a NUL
/// (`git ls-files -z`), else one path per line (`\r\n` accepted). Empty
/// entries are dropped; the order and duplicates are kept for [`collect()`]
/// to sort out.
pub fn split_file_list(text: &str) -> Vec<String> {
    let entries: Vec<&str> = if text.contains('\0') {
        text.split('\0').collect()
    } else {
        text.lines().collect()
    };
    entries
        .into_iter()
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Walks `dir` (or takes the `files_from` list) and builds the documents;
/// `progress` is called with the number of files seen so far.
pub fn collect(
    dir: &Path,
    options: &CollectOptions,
    mut progress: impl FnMut(usize),
) -> Result<Collection, Error> {
    let root =
        files::Root::open(dir).map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    if !options.confine.is_empty() {
        let real = root
            .real_path()
            .map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
        if !options
            .confine
            .iter()
            .any(|allowed| real.starts_with(allowed))
        {
            return Err(Error::PathOutsideRoot);
        }
    }
    let globs = glob_filter(dir, &options.globs)?;
    let priorities = priority::Matcher::new(dir, &options.priorities)?;
    // Git is asked only when the urls come from it.
    let checkout = options
        .base_url
        .is_none()
        .then(|| git::checkout(dir))
        .flatten();
    let base = match &options.base_url {
        Some(url) => Some(url.clone()),
        None => checkout.as_ref().and_then(|c| {
            let remote = c.remote.as_deref()?;
            git::web_base(remote, &c.commit, &c.prefix)
        }),
    };
    let mut collection = Collection {
        checkout,
        ..Collection::default()
    };
    let rules = (!options.no_ignore)
        .then(|| root.try_clone().map(|root| ignores::Rules::new(root, dir)))
        .transpose()
        .map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    let visible = walk(
        dir,
        options,
        globs.clone(),
        rules.clone(),
        &mut progress,
        &mut collection.skipped,
        &mut collection.directories,
    )?;
    if let Some(rules) = &rules {
        collection.opened.extend(rules.opened());
    }
    let files = match &options.files_from {
        None => visible,
        Some(list) => {
            let (files, skipped) = listed(dir, list, &visible, options, globs.as_ref());
            collection.skipped.extend(skipped);
            files
        }
    };
    if files.len() + collection.skipped.len() > options.max_files {
        return Err(Error::TooManyFiles {
            limit: options.max_files,
            files: files.len() + collection.skipped.len(),
            counted_all: true,
        });
    }
    let too_much_text = || {
        let bytes = files
            .iter()
            .filter_map(|(_, path)| std::fs::symlink_metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum();
        Error::TooMuchText {
            limit: options.max_total_bytes,
            bytes,
        }
    };
    options.cancel.check()?;
    let mut total = 0u64;
    for (id, path) in &files {
        options.cancel.check()?;
        let relative = path.strip_prefix(dir).unwrap_or(path);
        let remaining = options.max_total_bytes - total;
        let read = Read {
            root: &root,
            relative,
            remaining,
        };
        match document(id, &read, base.as_ref(), options, &mut collection.opened) {
            Ok(mut document) => {
                total += document.content.len() as u64;
                document.priority = priorities.priority(path);
                collection.documents.push(document);
            }
            Err(Skip::Reason(reason)) => collection.skipped.push((id.clone(), reason)),
            Err(Skip::Changed) => collection.changed += 1,
            Err(Skip::SecretName(rule)) => collection
                .skipped
                .push((redacted(id), SkipReason::ContainsSecret(rule))),
            Err(Skip::TooMuchText) => return Err(too_much_text()),
        }
    }
    collection.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    order(dir, &mut collection.documents, options);
    if options.tree != TreeOption::None {
        let mut ids: Vec<&str> = collection.documents.iter().map(|d| d.id.as_str()).collect();
        ids.sort_unstable();
        let tree = CollectedDocument {
            id: TREE_ID.to_owned(),
            url: base.as_ref().map(url::Url::to_string),
            path: base.is_none().then(|| ".".to_owned()),
            format: "text",
            content: tree::render(&ids),
            truncated: false,
            priority: 0,
            required: options.tree == TreeOption::Required,
        };
        collection.documents.insert(0, tree);
    }
    Ok(collection)
}

/// The files the walker's rules, the globs and the `.git` rule let
/// through: (id, path), sorted by id.
fn walk(
    dir: &Path,
    options: &CollectOptions,
    globs: Option<Override>,
    rules: Option<ignores::Rules>,
    progress: &mut impl FnMut(usize),
    skipped: &mut Vec<(String, SkipReason)>,
    directories: &mut Vec<String>,
) -> Result<Files, Error> {
    // The walker reads no rule file itself (see [`ignores`]): it would open
    // them by path, blocking, through links.
    let mut walk = ignore::WalkBuilder::new(dir);
    walk.require_git(false)
        .follow_links(false)
        .hidden(!options.hidden)
        .ignore(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .parents(false);
    // The walker's rules decide what is visible; the globs and the `.git`
    // rule can only take away from that.
    walk.filter_entry(move |entry| {
        if entry.depth() == 0 {
            return true;
        }
        if entry.file_name() == GIT_DIR {
            return false;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        if rules
            .as_ref()
            .is_some_and(|rules| rules.ignored(entry.path(), is_dir))
        {
            return false;
        }
        !globs
            .as_ref()
            .is_some_and(|globs| globs.matched(entry.path(), is_dir).is_ignore())
    });
    let mut files = Vec::new();
    let mut walker = walk.build();
    while let Some(entry) = walker.next() {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                // A directory (or file) the walk could not read: said, not
                // dropped in silence.
                if let Some(path) = error_path(&error)
                    && let Ok(relative) = path.strip_prefix(dir)
                    && !relative.as_os_str().is_empty()
                {
                    let mut id = id_of(relative);
                    if path.is_dir() {
                        id.push('/');
                    }
                    skipped.push((id, SkipReason::Unreadable));
                }
                continue;
            }
        };
        let file_type = entry.file_type();
        if file_type.is_some_and(|t| t.is_dir())
            && let Ok(relative) = entry.path().strip_prefix(dir)
        {
            directories.push(id_of(relative));
        }
        if !file_type.is_some_and(|t| t.is_file()) {
            // A symbolic link, FIFO, socket or device: said, not dropped in
            // silence (a listed path gets its own reason).
            if options.files_from.is_none()
                && !file_type.is_some_and(|t| t.is_dir())
                && let Ok(relative) = entry.path().strip_prefix(dir)
            {
                let id = id_of(relative);
                let id = if secrets::find_in_name(&id).is_some() {
                    redacted(&id)
                } else {
                    id
                };
                skipped.push((id, SkipReason::NotAFile));
            }
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        files.push((id_of(relative), entry.into_path()));
        progress(files.len());
        options.cancel.check()?;
        if options.files_from.is_none() && files.len() > options.max_files {
            return Err(too_many_files(files.len(), walker, options.max_files));
        }
    }
    files.sort();
    Ok(files)
}

/// The path a walk error is about, if it names one.
fn error_path(error: &ignore::Error) -> Option<&Path> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

/// The error for a walk that found more than `limit` files: the rest of
/// the walk is counted, up to ten times the limit, rather than walking a
/// whole disk.
fn too_many_files(found: usize, rest: ignore::Walk, limit: usize) -> Error {
    let cap = limit.saturating_mul(10).max(found);
    let mut files = found;
    for entry in rest.flatten() {
        if files >= cap {
            return Error::TooManyFiles {
                limit,
                files,
                counted_all: false,
            };
        }
        files += usize::from(entry.file_type().is_some_and(|t| t.is_file()));
    }
    Error::TooManyFiles {
        limit,
        files,
        counted_all: true,
    }
}

fn id_of(relative: &Path) -> String {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Files as (id, path), sorted by id.
type Files = Vec<(String, PathBuf)>;

/// The `--files-from` entries that are visible files, and why each other
/// entry is not.
fn listed(
    dir: &Path,
    list: &[String],
    visible: &[(String, PathBuf)],
    options: &CollectOptions,
    globs: Option<&Override>,
) -> (Files, Vec<(String, SkipReason)>) {
    let visible: HashMap<&str, &PathBuf> = visible.iter().map(|(id, p)| (id.as_str(), p)).collect();
    let canonical_dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut files = Vec::new();
    let mut skipped = Vec::new();
    let mut seen = HashSet::new();
    for entry in list {
        let Some(relative) = relative_entry(entry, dir, &canonical_dir) else {
            if seen.insert(entry.clone()) {
                skipped.push((entry.clone(), SkipReason::OutsideDirectory));
            }
            continue;
        };
        let id = id_of(&relative);
        if id.is_empty() || !seen.insert(id.clone()) {
            continue;
        }
        if let Some(path) = visible.get(id.as_str()) {
            files.push((id, (*path).clone()));
            continue;
        }
        let path = dir.join(&relative);
        let reason = if relative.components().any(|c| c.as_os_str() == GIT_DIR) {
            SkipReason::GitInternal
        } else {
            let escapes = path
                .canonicalize()
                .is_ok_and(|real| !real.starts_with(&canonical_dir));
            match std::fs::symlink_metadata(&path) {
                Err(_) => SkipReason::Missing,
                // Through a symbolic link to a directory elsewhere.
                Ok(_) if escapes => SkipReason::OutsideDirectory,
                Ok(m) if !m.is_file() => SkipReason::NotAFile,
                Ok(_) => {
                    let hidden = relative
                        .components()
                        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
                    let globbed = globs.is_some_and(|g| {
                        g.matched(&path, false).is_ignore()
                            || path
                                .ancestors()
                                .skip(1)
                                .take_while(|a| *a != dir)
                                .any(|a| g.matched(a, true).is_ignore())
                    });
                    if hidden && !options.hidden {
                        SkipReason::Hidden
                    } else if globbed {
                        SkipReason::ExcludedByGlob
                    } else {
                        SkipReason::Ignored
                    }
                }
            }
        };
        skipped.push((id, reason));
    }
    files.sort();
    (files, skipped)
}

/// An entry as a path relative to `dir`, or `None` when it leaves `dir`
/// (`..`, or an absolute path elsewhere).
fn relative_entry(entry: &str, dir: &Path, canonical_dir: &Path) -> Option<PathBuf> {
    let path = Path::new(entry);
    let relative = if path.is_absolute() {
        path.strip_prefix(canonical_dir)
            .or_else(|_| path.strip_prefix(dir))
            .ok()?
            .to_path_buf()
    } else {
        path.to_path_buf()
    };
    let mut clean = PathBuf::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => clean.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(clean)
}

/// Sorts by priority (highest first), then in the value order of
/// [`value::place`] (low-value files after the others; with `git_order`,
/// the others by how recently Git changed them, never-committed files
/// last), then by id.
fn order(dir: &Path, documents: &mut [CollectedDocument], options: &CollectOptions) {
    let ranks = if options.git_order {
        git::change_ranks(dir)
    } else {
        HashMap::new()
    };
    let rank = |d: &CollectedDocument| ranks.get(&d.id).copied().unwrap_or(usize::MAX);
    let place = |d: &CollectedDocument| value::place_in(&d.id, &d.content);
    // Entry points and source of the package with the most source first
    // (the main crate of a workspace before its satellites); within a
    // package the shallowest files first, the most imported first among
    // them (the core before adapters and helpers), then by path.
    let mut package_bytes: HashMap<String, usize> = HashMap::new();
    for d in documents.iter().filter(|d| place(d).is_code()) {
        *package_bytes
            .entry(value::package(&d.id).to_owned())
            .or_default() += d.content.len();
    }
    let fan_in: HashMap<String, usize> = if options.git_order {
        HashMap::new()
    } else {
        let files: Vec<(&str, &str)> = documents
            .iter()
            .map(|d| (d.id.as_str(), d.content.as_str()))
            .collect();
        let code: Vec<bool> = documents.iter().map(|d| place(d).is_code()).collect();
        let counts = imports::fan_in(&files, &code);
        documents
            .iter()
            .zip(counts)
            .filter(|(_, count)| *count > 0)
            .map(|(d, count)| (d.id.clone(), count))
            .collect()
    };
    documents.sort_by_cached_key(|d| {
        let place = place(d);
        let (package, name, depth, imported) = if place.is_code() && !options.git_order {
            let name = value::package(&d.id);
            let depth = d.id[name.len()..].matches('/').count();
            let imported = fan_in.get(&d.id).copied().unwrap_or(0);
            (package_bytes[name], name.to_owned(), depth, imported)
        } else {
            (0, String::new(), 0, 0)
        };
        let (place, rank) = if options.git_order {
            (place.is_low_value().then_some(place), rank(d))
        } else {
            (Some(place), 0)
        };
        (
            Reverse(d.priority),
            place,
            rank,
            Reverse(package),
            name,
            depth,
            Reverse(imported),
            d.id.clone(),
        )
    });
}

/// The `--glob` patterns as a plain matcher (gitignore syntax, `!` to
/// exclude, matched relative to `dir`); `None` when there are none.
fn glob_filter(dir: &Path, globs: &[String]) -> Result<Option<Override>, Error> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = OverrideBuilder::new(dir);
    for glob in globs {
        builder.add(glob).map_err(|_| Error::InvalidGlob)?;
    }
    builder.build().map(Some).map_err(|_| Error::InvalidGlob)
}

/// The patterns of `options` that match none of `collection`'s documents:
/// each `--glob` that is not a `!` exclusion, then each `--priority`
/// rule's glob, as given (a pattern that selects nothing is most often a
/// mistake worth saying).
pub fn unmatched_patterns(
    dir: &Path,
    options: &CollectOptions,
    collection: &Collection,
) -> Vec<(Pattern, String)> {
    let ids: Vec<&Path> = collection
        .documents
        .iter()
        .filter(|d| d.id != TREE_ID)
        .map(|d| Path::new(d.id.as_str()))
        .collect();
    let matches_one = |glob: &str| -> bool {
        let mut builder = OverrideBuilder::new(dir);
        if builder.add(glob).is_err() {
            return true;
        }
        let Ok(matcher) = builder.build() else {
            return true;
        };
        ids.iter()
            .any(|id| matcher.matched(id, false).is_whitelist())
    };
    let globs = options
        .globs
        .iter()
        .filter(|glob| !glob.starts_with('!'))
        .filter(|glob| !matches_one(glob))
        .map(|glob| (Pattern::Glob, glob.clone()));
    let rules = options
        .priorities
        .iter()
        .filter(|rule| !matches_one(&rule.glob))
        .map(|rule| {
            (
                Pattern::Priority,
                format!("{}={}", rule.glob, rule.priority),
            )
        });
    globs.chain(rules).collect()
}

/// Which kind of pattern [`unmatched_patterns`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// A `--glob`.
    Glob,
    /// A `--priority` rule.
    Priority,
}

/// Where a file is read from, and how much text may still be collected.
struct Read<'a> {
    root: &'a files::Root,
    relative: &'a Path,
    remaining: u64,
}

/// Why a file did not become a document.
enum Skip {
    /// Reported with its id.
    Reason(SkipReason),
    /// Became a link (or its directory did) after the walk: left out unnamed.
    Changed,
    /// Would take the collection past `--max-total-bytes`.
    TooMuchText,
    /// The path itself carries a secret (rule id): reported under
    /// [`redacted`] names.
    SecretName(&'static str),
}

/// `id` with every component in which a secret rule finds a secret
/// replaced by `[secret]` (the whole id when no one component does).
fn redacted(id: &str) -> String {
    let parts: Vec<&str> = id
        .split('/')
        .map(|part| {
            if secrets::find_in_name(part).is_some() {
                "[secret]"
            } else {
                part
            }
        })
        .collect();
    if parts.contains(&"[secret]") {
        parts.join("/")
    } else {
        "[secret]".to_owned()
    }
}

impl From<SkipReason> for Skip {
    fn from(reason: SkipReason) -> Skip {
        Skip::Reason(reason)
    }
}

/// Reads one file into a document: opened once beneath the directory's
/// descriptor without following links, checked to be a regular file, and
/// read through the descriptor up to the smaller of `--max-file-bytes` and
/// the text still allowed, plus one byte.
fn document(
    id: &str,
    read: &Read<'_>,
    base: Option<&url::Url>,
    options: &CollectOptions,
    opened: &mut Vec<FileId>,
) -> Result<CollectedDocument, Skip> {
    // Checked before anything else, so a name that carries a secret is
    // never reported as it is.
    if !options.allow_secrets {
        if let Some(rule) = secrets::find_in_name(id) {
            return Err(Skip::SecretName(rule.id));
        }
        if let Some(rule) = secrets::credential_file(id) {
            return Err(SkipReason::ContainsSecret(rule).into());
        }
    }
    if id.chars().any(char::is_control)
        || id.contains('\u{FFFD}')
        || (base.is_none() && packer::fixture::check_path(id.to_owned()).is_err())
    {
        return Err(SkipReason::UnusableName.into());
    }
    let file = match read.root.open_file(read.relative) {
        Ok(file) => file,
        // Gone, or a link now: the tree changed since the walk.
        Err(files::OpenError::Link) => return Err(Skip::Changed),
        Err(files::OpenError::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Skip::Changed);
        }
        Err(files::OpenError::NotAFile) => return Err(SkipReason::NotAFile.into()),
        Err(files::OpenError::Io(_)) => return Err(SkipReason::Unreadable.into()),
    };
    opened.push(file.id);
    if file.size > options.max_file_bytes {
        return Err(SkipReason::TooLarge.into());
    }
    if file.size > read.remaining {
        return Err(Skip::TooMuchText);
    }
    let limit = options.max_file_bytes.min(read.remaining);
    let bytes = match file.read_limited(limit) {
        Ok(Some(bytes)) => bytes,
        // It grew after it was opened.
        Ok(None) if limit == options.max_file_bytes => return Err(SkipReason::TooLarge.into()),
        Ok(None) => return Err(Skip::TooMuchText),
        Err(_) => return Err(SkipReason::Unreadable.into()),
    };
    if bytes.contains(&0) {
        return Err(SkipReason::Binary.into());
    }
    let content = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    if content.chars().all(char::is_whitespace) {
        return Err(SkipReason::Blank.into());
    }
    if !options.allow_secrets
        && let Some(rule) = secrets::find_in_file(id, &content)
    {
        return Err(SkipReason::ContainsSecret(rule.id).into());
    }
    let url = base.map(|base| {
        let mut url = base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().extend(id.split('/'));
        }
        url.to_string()
    });
    let lower = id.to_lowercase();
    let format = if lower.ends_with(".md") || lower.ends_with(".markdown") {
        "markdown"
    } else {
        "text"
    };
    Ok(CollectedDocument {
        id: id.to_owned(),
        path: url.is_none().then(|| id.to_owned()),
        url,
        format,
        content,
        truncated: false,
        priority: 0,
        required: false,
    })
}

/// The fixture JSON: budget values given, then the documents.
pub fn fixture_json(collection: &Collection, budget: &PartialBudget) -> String {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Budget {
        #[serde(skip_serializing_if = "Option::is_none")]
        context_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reserved_other_input_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reserved_output_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        safety_tokens: Option<u64>,
    }
    #[derive(Serialize)]
    struct Fixture<'a> {
        #[serde(skip_serializing_if = "Option::is_none")]
        budget: Option<Budget>,
        documents: &'a [CollectedDocument],
    }
    let given = *budget != PartialBudget::default();
    let fixture = Fixture {
        budget: given.then_some(Budget {
            context_tokens: budget.context_tokens,
            reserved_other_input_tokens: budget.reserved_other_input_tokens,
            reserved_output_tokens: budget.reserved_output_tokens,
            safety_tokens: budget.safety_tokens,
        }),
        documents: &collection.documents,
    };
    let mut text = serde_json::to_string_pretty(&fixture).unwrap_or_default();
    text.push('\n');
    text
}

/// The collection as a validated [`Fixture`] (no budget: the request gives
/// it), through the same JSON and the same checks as `packer pack -`, with
/// limits sized to the collection (its own limits were applied while
/// collecting).
pub fn fixture(collection: &Collection) -> Result<Fixture, Error> {
    let json = fixture_json(collection, &PartialBudget::default());
    let limits = Limits {
        max_input_bytes: json.len() as u64,
        max_documents: collection.documents.len(),
    };
    Fixture::from_bytes(json.as_bytes(), &limits)
}

/// How many times [`pack`] packs again to make the `--tree` marks agree
/// with the selection before it gives the tree without marks.
const MARKING_ROUNDS: usize = 4;

/// Packs a collection with `request`: the fixture it makes, and the pack.
///
/// With outlines and a `--tree` document, the tree marks each file that is
/// outlined (` [outline]`) or left out (` [omitted]`) in that same pack:
/// the marks change the tree's count and so possibly the selection, so the
/// collection is packed again with the marks of the last pack until they
/// agree (at most `MARKING_ROUNDS` (4) times); when they never agree, or the
/// marked tree does not fit, the tree has no marks (and says nothing it
/// cannot stand behind). Every pack is exact; the one returned is the one
/// its tree describes.
pub fn pack(
    collection: &Collection,
    request: &packer::Request,
) -> Result<(Fixture, Result<packer::Outcome, packer::Failure>), Error> {
    let mut fixture = fixture(collection)?;
    let first = packer::pack(&fixture, request);
    let tree = fixture.documents.iter().position(|d| d.id == TREE_ID);
    let (Some(tree), Some(_), Ok(unmarked)) = (tree, request.options.outline, &first) else {
        return Ok((fixture, first));
    };
    let plain = fixture.documents[tree].content.clone();
    let mut marks = tree_marks(&fixture, unmarked);
    for _ in 0..MARKING_ROUNDS {
        fixture.documents[tree].content = marked_tree(&fixture, tree, &marks);
        let Ok(outcome) = packer::pack(&fixture, request) else {
            break;
        };
        let now = tree_marks(&fixture, &outcome);
        if now == marks {
            return Ok((fixture, Ok(outcome)));
        }
        marks = now;
    }
    fixture.documents[tree].content = plain;
    Ok((fixture, first))
}

/// Each document's mark in `outcome`: ` [outline]`, ` [omitted]` or none.
fn tree_marks(fixture: &Fixture, outcome: &packer::Outcome) -> Vec<Option<&'static str>> {
    debug_assert_eq!(fixture.documents.len(), outcome.plan.decisions.len());
    outcome
        .plan
        .decisions
        .iter()
        .map(|decision| match (decision.selected, decision.reason) {
            (true, packer::Reason::OutlineFits) => Some(" [outline]"),
            (true, _) => None,
            (false, _) => Some(" [omitted]"),
        })
        .collect()
}

/// The tree document of `fixture` (at index `tree`) with `marks`.
fn marked_tree(fixture: &Fixture, tree: usize, marks: &[Option<&'static str>]) -> String {
    let mut files: Vec<(&str, Option<&str>)> = fixture
        .documents
        .iter()
        .zip(marks)
        .enumerate()
        .filter(|(index, _)| *index != tree)
        .map(|(_, (document, mark))| (document.id.as_str(), *mark))
        .collect();
    files.sort_unstable_by(|a, b| a.0.cmp(b.0));
    tree::render_marked(&files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_follow_the_fixture_rules() {
        assert!(base_url("https://example.com/repo").is_ok());
        assert!(base_url("http://localhost:8080/").is_ok());
        assert_eq!(base_url("ftp://example.com/"), Err(BadOption));
        assert_eq!(base_url("https://user:pw@example.com/"), Err(BadOption));
        assert_eq!(base_url("example.com"), Err(BadOption));
    }

    #[test]
    fn file_lists_split_on_nul_or_newlines() {
        assert_eq!(split_file_list("a\nb c\r\n\nd"), ["a", "b c", "d"]);
        assert_eq!(split_file_list("a\0b\nc\0\0"), ["a", "b\nc"]);
        assert!(split_file_list("").is_empty());
    }

    #[test]
    fn entries_never_leave_the_directory() {
        let dir = Path::new("/r");
        assert_eq!(
            relative_entry("./a/b", dir, dir),
            Some(PathBuf::from("a/b"))
        );
        assert_eq!(relative_entry("/r/a", dir, dir), Some(PathBuf::from("a")));
        assert_eq!(relative_entry("../x", dir, dir), None);
        assert_eq!(relative_entry("a/../../x", dir, dir), None);
        assert_eq!(relative_entry("/etc/passwd", dir, dir), None);
    }
}
