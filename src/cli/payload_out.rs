//! `--payload-out FILE`: the payload written so that no file the run read
//! is replaced and a failure leaves the old file as it was.
//!
//! - A file the run read (the fixture, the tokenizer file, the
//!   `--files-from` list, any collected file) is refused, compared by device
//!   and inode, so a hard link, a symbolic link or another spelling of the
//!   path is caught (`payload-out-is-input`).
//! - A symbolic link inside a collected directory, as the file named or as
//!   a directory on the way to it, is the tree's, not the user's: it is
//!   not followed (`payload-out-is-link`), so a planted link cannot aim the
//!   payload at a file outside the tree.
//! - A regular file (or a new one) is written atomically: a temporary file
//!   beside it, then a rename over it; any other symbolic link is followed,
//!   so the file it names is replaced and the link kept.
//! - A FIFO, a terminal or another device is written in place, opened
//!   without blocking: a FIFO that no process reads is an error, not a hang.

use std::io;
#[cfg(not(unix))]
use std::io::Write;
use std::path::{Path, PathBuf};

use packer::Error;
use packer_files::FileId;

/// The names of rule files in a collected directory.
const RULE_FILES: [&str; 3] = [".gitignore", ".ignore", ".gitattributes"];

/// The files a run read, by id, and the directories it must not write in.
#[derive(Debug, Default)]
pub struct ReadFiles {
    ids: Vec<FileId>,
    directories: Vec<PathBuf>,
    /// The collected directories (real paths).
    collected: Vec<PathBuf>,
    /// The same directories, by identity, for the write itself.
    guard: Guard,
}

/// The directories a write is guarded against, by identity.
#[cfg(unix)]
type Guard = packer_files::write::Guard;

#[cfg(not(unix))]
type Guard = ();

impl ReadFiles {
    /// Adds the file `path` names, when it exists; `-` is standard input,
    /// added by what it is (a file redirected to it is caught too).
    pub fn add_path(&mut self, path: &Path) {
        if path == Path::new("-") {
            #[cfg(unix)]
            if let Ok(id) = FileId::of_fd(io::stdin()) {
                self.ids.push(id);
            }
        } else if let Ok(id) = FileId::of_path(path) {
            self.ids.push(id);
        }
    }

    /// Adds files already identified.
    pub fn extend(&mut self, ids: &[FileId]) {
        self.ids.extend_from_slice(ids);
    }

    /// Refuses any file under `directory` (a collected checkout's `.git`,
    /// whose files packer reads as data).
    pub fn protect(&mut self, directory: &Path) {
        if let Ok(real) = directory.canonicalize() {
            self.directories.push(real);
        }
        #[cfg(unix)]
        if let Ok(id) = FileId::of_path(directory) {
            self.guard.closed.push(id);
        }
    }

    /// Refuses, in the collected `directory`, the files that Git or packer
    /// read as rules (`.gitignore`, `.ignore`, `.gitattributes`), whether
    /// or not this run opened them, and its symbolic links.
    pub fn protect_collected(&mut self, directory: &Path) {
        if let Ok(real) = directory.canonicalize() {
            self.collected.push(real);
        }
        #[cfg(unix)]
        if let Ok(id) = FileId::of_path(directory) {
            self.guard.trees.push(id);
            self.guard.tree_names = RULE_FILES.iter().map(Into::into).collect();
        }
    }

    /// `payload-out-is-input` when `out` names one of the files.
    pub fn refuse(&self, out: &Path) -> Result<(), Error> {
        if let Ok(id) = FileId::of_path(out)
            && self.ids.contains(&id)
        {
            return Err(Error::PayloadOutIsInput);
        }
        let real = out.canonicalize().ok().or_else(|| real_parent(out));
        if let Some(real) = real
            && self.directories.iter().any(|d| real.starts_with(d))
        {
            return Err(Error::PayloadOutIsInput);
        }
        let rule_file = out
            .file_name()
            .is_some_and(|name| RULE_FILES.iter().any(|rule| name == *rule));
        if rule_file
            && let Some(parent) = real_parent(out)
            && self.in_collected(&parent)
        {
            return Err(Error::PayloadOutIsInput);
        }
        let tree_link = out.ancestors().any(|path| {
            std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
                && real_parent(path).is_some_and(|parent| self.in_collected(&parent))
        });
        if tree_link {
            return Err(Error::PayloadOutIsLink);
        }
        Ok(())
    }

    /// Whether the real path `path` is in a collected directory.
    fn in_collected(&self, path: &Path) -> bool {
        self.collected.iter().any(|root| path.starts_with(root))
    }
}

/// The real path of the directory `out` would be written in (`.` for a
/// bare file name).
fn real_parent(out: &Path) -> Option<PathBuf> {
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    parent.unwrap_or(Path::new(".")).canonicalize().ok()
}

/// Writes `bytes` to `out` (see the module documentation), after checking
/// that it is none of the files in `read`. The checks are made again by the
/// write itself, on the directory descriptors it writes through (see
/// `packer_files::write`), so a tree that changes in the meantime cannot
/// redirect it.
#[cfg(unix)]
pub fn write(out: &Path, bytes: &[u8], read: &ReadFiles) -> Result<(), Error> {
    use packer_files::write::{Refused, write_file};
    read.refuse(out)?;
    write_file(out, bytes, &read.guard, &read.ids).map_err(|refused| match refused {
        Refused::Link => Error::PayloadOutIsLink,
        Refused::Protected => Error::PayloadOutIsInput,
        Refused::Io(error) => Error::PayloadOut { kind: error.kind() },
    })
}

/// Writes `bytes` to `out` (see the module documentation), after checking
/// that it is none of the files in `read`.
#[cfg(not(unix))]
pub fn write(out: &Path, bytes: &[u8], read: &ReadFiles) -> Result<(), Error> {
    read.refuse(out)?;
    let failed = |error: io::Error| Error::PayloadOut { kind: error.kind() };
    match std::fs::metadata(out) {
        Ok(metadata) if metadata.is_dir() => Err(failed(io::ErrorKind::IsADirectory.into())),
        Ok(metadata) if !metadata.is_file() => write_in_place(out, bytes).map_err(failed),
        Ok(metadata) => {
            // Replace the file a link names, not the link.
            let target = out.canonicalize().map_err(failed)?;
            write_atomically(&target, bytes, Some(metadata.permissions())).map_err(failed)
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            write_atomically(out, bytes, None).map_err(failed)
        }
        Err(error) => Err(failed(error)),
    }
}

/// A temporary file in `target`'s directory, renamed over `target`.
#[cfg(not(unix))]
fn write_atomically(
    target: &Path,
    bytes: &[u8],
    permissions: Option<std::fs::Permissions>,
) -> io::Result<()> {
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".packer-payload-")
        .tempfile_in(&directory)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    let permissions = match permissions {
        Some(permissions) => permissions,
        None => new_file_permissions(temp.as_file())?,
    };
    temp.as_file().set_permissions(permissions)?;
    temp.persist(target).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(not(unix))]
fn new_file_permissions(file: &std::fs::File) -> io::Result<std::fs::Permissions> {
    Ok(file.metadata()?.permissions())
}

#[cfg(not(unix))]
fn write_in_place(out: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(out)?
        .write_all(bytes)
}
