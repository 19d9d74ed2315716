//! The walk: the files the walker's rules (`.gitignore`, `.ignore`, hidden
//! files), the `--glob` patterns and the `.git` rule let through.

use std::path::{Path, PathBuf};

use ignore::overrides::{Override, OverrideBuilder};

use packer::error::Error;

use crate::read::redacted;
use crate::{CollectOptions, SkipReason, ignores, secrets};

/// The name of the directory (or, in linked worktrees and submodules, the
/// file) that is never collected.
pub(crate) const GIT_DIR: &str = ".git";

/// The files the walker's rules, the globs and the `.git` rule let
/// through: (id, path), sorted by id.
pub(crate) fn walk(
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

pub(crate) fn id_of(relative: &Path) -> String {
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Files as (id, path), sorted by id.
pub(crate) type Files = Vec<(String, PathBuf)>;

/// The `--glob` patterns as a plain matcher (gitignore syntax, `!` to
/// exclude, matched relative to `dir`); `None` when there are none.
pub(crate) fn glob_filter(dir: &Path, globs: &[String]) -> Result<Option<Override>, Error> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = OverrideBuilder::new(dir);
    for glob in globs {
        builder.add(glob).map_err(|_| Error::InvalidGlob)?;
    }
    builder.build().map(Some).map_err(|_| Error::InvalidGlob)
}
