//! How to collect: [`CollectOptions`], its defaults and the checks front
//! ends apply to `--base-url` and `--files-from` before they build one.

use std::path::PathBuf;

use crate::PriorityRule;

/// The default `--max-file-bytes`: 1 MiB.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 1_048_576;

/// The default `--max-files`: the most files a collection may hold.
pub const DEFAULT_MAX_FILES: usize = 50_000;

/// The default `--max-total-bytes`: the most text a collection may hold
/// (256 MiB).
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 268_435_456;

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
    /// Git remote at the current commit
    /// ([`git::web_base`](crate::git::web_base)) and, where there is none,
    /// gives each document its relative `path` instead of a url.
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
    /// Collect files in which a [`secrets`](crate::secrets) rule finds a
    /// secret (by default they are skipped as `contains-secret`).
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
/// entries are dropped; the order and duplicates are kept for
/// [`collect()`](crate::collect()) to sort out.
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
}
