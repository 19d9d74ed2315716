//! A fixture from a directory's text files: one document per file, walked
//! with the `ignore` crate (so `.gitignore`, `.ignore` and hidden files are
//! respected), and every file that cannot become a document reported.
//!
//! Globs only ever narrow the walk: they are matched as a filter after the
//! walker's own rules, so no glob brings in an ignored or hidden file. Those
//! come in only with [`CollectOptions::no_ignore`] and
//! [`CollectOptions::hidden`], and a `.git` entry never does.

pub mod secrets;

use std::fs;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};
use serde::Serialize;

use crate::budget::PartialBudget;
use crate::error::Error;

/// The default `--max-file-bytes`: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1_048_576;

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
            SkipReason::UnusableName => "its path has control characters",
            SkipReason::Unreadable => "cannot be read",
        };
        text.to_owned()
    }
}

/// One document of a collected fixture, in the fixture's wire format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollectedDocument {
    /// The path relative to the directory, with `/` separators.
    pub id: String,
    /// The base URL joined with the percent-encoded relative path.
    pub url: String,
    /// `markdown` for `.md`/`.markdown`, else `text`.
    pub format: &'static str,
    /// The file's text.
    pub content: String,
    /// Always false: files are read whole.
    pub truncated: bool,
}

/// What `packer collect` produces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Collection {
    /// Documents sorted by path.
    pub documents: Vec<CollectedDocument>,
    /// Files left out, with why, sorted by path.
    pub skipped: Vec<(String, SkipReason)>,
}

/// How to collect.
#[derive(Debug, Clone)]
pub struct CollectOptions {
    /// The URL the relative paths are joined to.
    pub base_url: url::Url,
    /// Only files matching one of these globs (all files when empty).
    pub globs: Vec<String>,
    /// Files larger than this are skipped.
    pub max_file_bytes: u64,
    /// Also collect hidden files and directories (names starting with `.`).
    /// `.git` stays out regardless.
    pub hidden: bool,
    /// Also collect files that `.gitignore`, `.ignore`, `.git/info/exclude`
    /// or the global Git excludes leave out.
    pub no_ignore: bool,
    /// Collect files in which a [`secrets`] rule finds a secret (by default
    /// they are skipped as `contains-secret`).
    pub allow_secrets: bool,
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

/// Walks `dir` and builds the documents; `progress` is called with the
/// number of files seen so far.
pub fn collect(
    dir: &Path,
    options: &CollectOptions,
    mut progress: impl FnMut(usize),
) -> Result<Collection, Error> {
    let metadata =
        fs::metadata(dir).map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    if !metadata.is_dir() {
        return Err(Error::UnreadableInput {
            kind: std::io::ErrorKind::NotADirectory,
        });
    }
    let globs = glob_filter(dir, &options.globs)?;
    let mut walk = ignore::WalkBuilder::new(dir);
    walk.require_git(false)
        .follow_links(false)
        .hidden(!options.hidden);
    if options.no_ignore {
        walk.ignore(false)
            .git_ignore(false)
            .git_exclude(false)
            .git_global(false)
            .parents(false);
    }
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
        !globs
            .as_ref()
            .is_some_and(|globs| globs.matched(entry.path(), is_dir).is_ignore())
    });
    let mut files = Vec::new();
    for entry in walk.build() {
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(dir) else {
            continue;
        };
        let id = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        files.push((id, entry.into_path()));
        progress(files.len());
    }
    files.sort();
    let mut collection = Collection::default();
    for (id, path) in files {
        match document(&id, &path, options) {
            Ok(document) => collection.documents.push(document),
            Err(reason) => collection.skipped.push((id, reason)),
        }
    }
    Ok(collection)
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

fn document(
    id: &str,
    path: &Path,
    options: &CollectOptions,
) -> Result<CollectedDocument, SkipReason> {
    if id.chars().any(char::is_control) || id.contains('\u{FFFD}') {
        return Err(SkipReason::UnusableName);
    }
    let size = fs::metadata(path)
        .map_err(|_| SkipReason::Unreadable)?
        .len();
    if size > options.max_file_bytes {
        return Err(SkipReason::TooLarge);
    }
    let bytes = fs::read(path).map_err(|_| SkipReason::Unreadable)?;
    if bytes.len() as u64 > options.max_file_bytes {
        return Err(SkipReason::TooLarge);
    }
    if bytes.contains(&0) {
        return Err(SkipReason::Binary);
    }
    let content = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    if content.chars().all(char::is_whitespace) {
        return Err(SkipReason::Blank);
    }
    if !options.allow_secrets
        && let Some(rule) = secrets::find(&content)
    {
        return Err(SkipReason::ContainsSecret(rule.id));
    }
    let mut url = options.base_url.clone();
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.pop_if_empty().extend(id.split('/'));
    }
    let lower = id.to_lowercase();
    let format = if lower.ends_with(".md") || lower.ends_with(".markdown") {
        "markdown"
    } else {
        "text"
    };
    Ok(CollectedDocument {
        id: id.to_owned(),
        url: url.to_string(),
        format,
        content,
        truncated: false,
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
}
