//! Answers of `pack_directory` kept between calls: an agent packs the same
//! tree turn after turn, and a tree that has not changed packs the same.
//!
//! An answer is kept with the state of everything it was made from: the
//! metadata (size, modification and change times, inode, kind) of every
//! file collected or skipped, of every directory walked (a file added or
//! removed changes its directory's times) and its `.gitignore` and
//! `.ignore`, of `packer.toml`, of the Git files the urls come from, of the
//! user's global Git excludes and configuration, and of the tokenizer file. A later call with
//! the same arguments gets the kept answer only when all of it is the same
//! (nothing is read but metadata); anything else packs again. An answer
//! made while any of those was changed within [`SETTLING`] is not kept,
//! since a file written twice within one tick of the file system's clock
//! keeps its times (as Git treats a "racily clean" index entry). Calls with
//! a chat request are never kept (a template may render the date).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// Changes more recent than this before a call make its answer unkept.
pub(crate) const SETTLING: Duration = Duration::from_secs(2);

/// At most this many answers are kept, the least recently used dropped.
const MOST_ANSWERS: usize = 16;

/// At most this many bytes of answers (text and summary) are kept.
const MOST_BYTES: usize = 64 << 20;

/// At most this many Git reference files are stamped; a repository with
/// more gets no kept answers.
const MOST_REFS: usize = 10_000;

/// What a path was when stamped: `None` when it was absent or could not
/// be read.
type Seen = Option<(u64, i64, i64, i64, i64, u64, bool)>;

/// The state of the files an answer was made from.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    paths: Vec<PathBuf>,
    seen: Vec<Seen>,
}

impl Stamp {
    /// The state of `paths` now; `None` when one of them changed after
    /// `since` (less [`SETTLING`]), or when this platform gives no change
    /// times.
    pub(crate) fn new(paths: Vec<PathBuf>, since: SystemTime) -> Option<Stamp> {
        let settled = since
            .checked_sub(SETTLING)?
            .duration_since(SystemTime::UNIX_EPOCH)
            .ok()?;
        let settled = (settled.as_secs() as i64, i64::from(settled.subsec_nanos()));
        let seen: Vec<Seen> = paths.iter().map(|path| seen(path)).collect();
        for (_, modified, modified_ns, changed, changed_ns, _, _) in seen.iter().flatten() {
            if (*modified, *modified_ns) >= settled || (*changed, *changed_ns) >= settled {
                return None;
            }
        }
        Some(Stamp { paths, seen })
    }

    /// Whether every path is as it was.
    fn holds(&self) -> bool {
        self.paths
            .iter()
            .zip(&self.seen)
            .all(|(path, was)| seen(path) == *was)
    }

    fn bytes(&self) -> usize {
        self.paths
            .iter()
            .map(|path| path.as_os_str().len() + 64)
            .sum()
    }
}

#[cfg(unix)]
fn seen(path: &Path) -> Seen {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::symlink_metadata(path).ok()?;
    Some((
        metadata.len(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec(),
        metadata.ino(),
        metadata.is_dir(),
    ))
}

#[cfg(not(unix))]
fn seen(_path: &Path) -> Seen {
    None
}

/// The paths whose state a directory's answer depends on, beyond those
/// `collection` names: `dir`'s configuration files and Git files. `None`
/// when the answer should not be kept (a name that is not UTF-8, a Git
/// directory elsewhere, too many references).
pub(crate) fn paths_of(
    dir: &Path,
    collection: &packer_collect::Collection,
    tokenizer: Option<&Path>,
) -> Option<Vec<PathBuf>> {
    let mut paths = vec![dir.to_path_buf()];
    let names = collection
        .documents
        .iter()
        .map(|d| d.id.as_str())
        .filter(|id| *id != packer_collect::TREE_ID)
        .chain(collection.skipped.iter().map(|(id, _)| id.as_str()))
        .chain(collection.directories.iter().map(String::as_str));
    for id in names {
        if id.contains(char::REPLACEMENT_CHARACTER) {
            return None;
        }
        paths.push(dir.join(id.trim_end_matches('/')));
    }
    // The rule files of every directory walked: a changed .gitignore
    // changes what is collected without touching its directory.
    for walked in &collection.directories {
        for name in [".gitignore", ".ignore"] {
            paths.push(dir.join(walked).join(name));
        }
    }
    for name in ["packer.toml", ".packer.toml"] {
        paths.push(dir.join(name));
    }
    let git = dir.join(".git");
    match std::fs::symlink_metadata(&git) {
        Ok(metadata) if metadata.is_dir() => {
            for name in ["HEAD", "index", "packed-refs", "config", "info/exclude"] {
                paths.push(git.join(name));
            }
            let mut refs = Vec::new();
            walk_refs(&git.join("refs"), &mut refs)?;
            paths.extend(refs);
        }
        Ok(_) => return None,
        Err(_) => paths.push(git),
    }
    paths.extend(tokenizer.map(Path::to_path_buf));
    paths.extend(git_global_files());
    Some(paths)
}

/// The user's global Git excludes file that collecting reads, and the
/// configuration files that choose it (as the `ignore` crate finds them).
fn git_global_files() -> Vec<PathBuf> {
    let given = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut files: Vec<PathBuf> = ignore::gitignore::gitconfig_excludes_path()
        .into_iter()
        .collect();
    files.extend(given("GIT_CONFIG_GLOBAL").map(PathBuf::from));
    files.extend(home.as_ref().map(|home| home.join(".gitconfig")));
    let xdg = given("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    files.extend(xdg.map(|xdg| xdg.join("git/config")));
    files.push(
        given("GIT_CONFIG_SYSTEM").map_or_else(|| PathBuf::from("/etc/gitconfig"), PathBuf::from),
    );
    files
}

/// Every file and directory under `dir` (not through links), at most
/// [`MOST_REFS`].
fn walk_refs(dir: &Path, refs: &mut Vec<PathBuf>) -> Option<()> {
    refs.push(dir.to_path_buf());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Some(());
    };
    for entry in entries.flatten() {
        if refs.len() >= MOST_REFS {
            return None;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => walk_refs(&path, refs)?,
            _ => refs.push(path),
        }
    }
    Some(())
}

/// A kept answer: the call's key, the state it was made from, the text and
/// summary.
struct Kept {
    key: String,
    stamp: Stamp,
    text: String,
    summary: Value,
    bytes: usize,
}

/// The kept answers, the most recently used last.
#[derive(Default)]
pub(crate) struct Cache {
    kept: Mutex<VecDeque<Kept>>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache").finish_non_exhaustive()
    }
}

impl Cache {
    /// The answer kept for `key`, if the files it was made from are as
    /// they were; an answer whose files changed is dropped.
    pub(crate) fn get(&self, key: &str) -> Option<(String, Value)> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = kept.iter().position(|k| k.key == key)?;
        let entry = kept.remove(at)?;
        if !entry.stamp.holds() {
            return None;
        }
        let answer = (entry.text.clone(), entry.summary.clone());
        kept.push_back(entry);
        Some(answer)
    }

    /// Keeps an answer, dropping the least recently used past the limits.
    pub(crate) fn keep(&self, key: String, stamp: Stamp, text: &str, summary: &Value) {
        let bytes = key.len() + text.len() + summary.to_string().len() + stamp.bytes();
        if bytes > MOST_BYTES / 4 {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|k| k.key != key);
        kept.push_back(Kept {
            key,
            stamp,
            text: text.to_owned(),
            summary: summary.clone(),
            bytes,
        });
        while kept.len() > MOST_ANSWERS || kept.iter().map(|k| k.bytes).sum::<usize>() > MOST_BYTES
        {
            kept.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aged(path: &Path) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(3600))
            .unwrap();
    }

    #[test]
    fn a_stamp_holds_until_a_file_changes_and_a_fresh_change_is_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").unwrap();
        // Just written: its change time is now, so nothing is kept.
        assert!(Stamp::new(vec![file.clone()], SystemTime::now()).is_none());
        aged(&file);
        let later = SystemTime::now() + SETTLING + Duration::from_secs(1);
        let stamp = Stamp::new(vec![file.clone(), dir.path().join("absent")], later).unwrap();
        assert!(stamp.holds());
        // The same size, a new modification time.
        std::fs::write(&file, "two").unwrap();
        assert!(!stamp.holds());
    }

    #[test]
    fn answers_are_kept_by_key_and_dropped_when_their_files_change() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "one").unwrap();
        aged(&file);
        let later = SystemTime::now() + SETTLING + Duration::from_secs(1);
        let cache = Cache::default();
        let stamp = Stamp::new(vec![file.clone()], later).unwrap();
        cache.keep("k".into(), stamp, "text", &serde_json::json!({"a": 1}));
        assert_eq!(cache.get("other"), None);
        assert_eq!(
            cache.get("k"),
            Some(("text".to_owned(), serde_json::json!({"a": 1})))
        );
        std::fs::write(&file, "two").unwrap();
        assert_eq!(cache.get("k"), None);
        // Dropped, not merely missed.
        assert!(cache.kept.lock().unwrap().is_empty());
        for n in 0..MOST_ANSWERS + 3 {
            let stamp = Stamp::new(vec![dir.path().join("absent")], later).unwrap();
            cache.keep(n.to_string(), stamp, "t", &Value::Null);
        }
        assert_eq!(cache.kept.lock().unwrap().len(), MOST_ANSWERS);
        assert_eq!(cache.get("0"), None);
        assert!(cache.get(&(MOST_ANSWERS + 2).to_string()).is_some());
    }
}
