//! A `--files-from` list: the entries that are files the walk let through,
//! and why each other entry is not collected.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use ignore::overrides::Override;

use crate::walk::{Files, GIT_DIR, id_of};
use crate::{CollectOptions, SkipReason};

/// The `--files-from` entries that are visible files, and why each other
/// entry is not.
pub(crate) fn listed(
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

#[cfg(test)]
mod tests {
    use super::*;

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
