//! `.ignore`, `.gitignore` and `.git/info/exclude` rules, read the way
//! every other file of a collected tree is read: beneath the directory's
//! descriptor, never through a link, non-blocking, regular files only, up to
//! a size limit (see [`packer_files`]).
//!
//! The `ignore` crate's walker would open these files by path with a
//! blocking `open`, so a FIFO named `.gitignore` would stop the walk for
//! ever, a link to `/dev/zero` would be read without end, and a link out of
//! the tree would be read as rules. So the walker reads no rule file; this
//! matcher, called for every entry it meets, does, with the `ignore` crate's
//! precedence: the deepest `.ignore` rule that matches wins, else the
//! deepest `.gitignore` rule (not above a directory that holds a `.git`),
//! else `info/exclude`, else the user's global Git excludes. Rule files
//! outside the directory (in its parents) are never read. A rule file that
//! is not a regular file is treated as absent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use packer_files::{FileId, Root};

/// The largest rule file read (a larger one is treated as absent).
const MAX_RULE_FILE: u64 = 4 << 20;

/// The rules of one directory.
#[derive(Debug)]
struct Level {
    ignore: Gitignore,
    gitignore: Gitignore,
    exclude: Gitignore,
    /// The directory holds `.git`: `.gitignore` rules above it do not apply.
    has_git: bool,
}

/// Decides, for each entry of the walk, whether rule files ignore it.
#[derive(Debug, Clone)]
pub struct Rules {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: Root,
    /// The walk's top directory, as the walker names its entries.
    top: PathBuf,
    global: Gitignore,
    levels: Mutex<HashMap<PathBuf, Arc<Level>>>,
    /// The last entry's parent directory and its levels, deepest first:
    /// the walk meets a directory's entries one after another.
    last: Mutex<Option<(PathBuf, Vec<Arc<Level>>)>>,
    /// Every rule file opened.
    opened: Mutex<Vec<FileId>>,
}

impl Rules {
    /// Rules for a walk of `top`, whose files are read beneath `root`.
    pub fn new(root: Root, top: &Path) -> Rules {
        let (global, _) = Gitignore::global();
        Rules {
            inner: Arc::new(Inner {
                root,
                top: top.to_path_buf(),
                global,
                levels: Mutex::new(HashMap::new()),
                last: Mutex::new(None),
                opened: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Whether the entry at `path` (as the walker names it, below the top)
    /// is ignored.
    pub fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(relative) = path.strip_prefix(&self.inner.top) else {
            return false;
        };
        // The directories whose rules apply, deepest first: the entry's
        // parent up to the top.
        let Some(parent) = relative.parent() else {
            return false;
        };
        let mut last = self
            .inner
            .last
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if last
            .as_ref()
            .is_none_or(|(directory, _)| directory != parent)
        {
            let levels = parent
                .ancestors()
                .map(|directory| self.level(directory))
                .collect();
            *last = Some((parent.to_path_buf(), levels));
        }
        let levels = last.as_ref().map_or(&[][..], |(_, levels)| &levels[..]);
        let absolute = self.inner.top.join(relative);
        let mut ignore = Match::None;
        let mut gitignore = Match::None;
        let mut exclude = Match::None;
        let mut saw_git = false;
        for level in levels {
            if ignore.is_none() {
                ignore = level.ignore.matched(&absolute, is_dir).map(|_| ());
            }
            if !saw_git && gitignore.is_none() {
                gitignore = level.gitignore.matched(&absolute, is_dir).map(|_| ());
            }
            if !saw_git && exclude.is_none() {
                exclude = level.exclude.matched(&absolute, is_dir).map(|_| ());
            }
            saw_git = saw_git || level.has_git;
        }
        let global = self.inner.global.matched(&absolute, is_dir).map(|_| ());
        ignore.or(gitignore).or(exclude).or(global).is_ignore()
    }

    /// Every rule file opened so far.
    pub fn opened(&self) -> Vec<FileId> {
        self.inner
            .opened
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .clone()
    }

    /// The rules of `directory` (relative to the top), read once.
    fn level(&self, directory: &Path) -> Arc<Level> {
        let mut levels = self
            .inner
            .levels
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        if let Some(level) = levels.get(directory) {
            return level.clone();
        }
        let base = self.inner.top.join(directory);
        let read = |name: &str| self.matcher(&base, &directory.join(name));
        let has_git = self.inner.root.is_directory(&directory.join(".git"));
        let level = Arc::new(Level {
            ignore: read(".ignore"),
            gitignore: read(".gitignore"),
            exclude: if has_git {
                read(".git/info/exclude")
            } else {
                Gitignore::empty()
            },
            has_git,
        });
        levels.insert(directory.to_path_buf(), level.clone());
        level
    }

    /// The rules in the file at `relative`, matched relative to `base`.
    fn matcher(&self, base: &Path, relative: &Path) -> Gitignore {
        let Ok(opened) = self.inner.root.open_file(relative) else {
            return Gitignore::empty();
        };
        self.inner
            .opened
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(opened.id);
        let Ok(Some(bytes)) = opened.read_limited(MAX_RULE_FILE) else {
            return Gitignore::empty();
        };
        let text = String::from_utf8_lossy(&bytes);
        let mut builder = GitignoreBuilder::new(base);
        let source = Some(base.join(relative.file_name().unwrap_or_default()));
        for (index, line) in text.lines().enumerate() {
            let line = if index == 0 {
                line.trim_start_matches('\u{feff}')
            } else {
                line
            };
            // A bad pattern is skipped, as Git does.
            let _ = builder.add_line(source.clone(), line);
        }
        builder.build().unwrap_or_else(|_| Gitignore::empty())
    }
}
