//! `--payload-out FILE`: the payload written so that no file the run read
//! is replaced and a failure leaves the old file as it was.
//!
//! - A file the run read (the fixture, the tokenizer file, the
//!   `--files-from` list, any collected file) is refused, compared by device
//!   and inode, so a hard link, a symbolic link or another spelling of the
//!   path is caught (`payload-out-is-input`).
//! - A regular file (or a new one) is written atomically: a temporary file
//!   beside it, then a rename over it; a symbolic link is followed, so the
//!   file it names is replaced and the link kept.
//! - A FIFO, a terminal or another device is written in place, opened
//!   without blocking: a FIFO that no process reads is an error, not a hang.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use packer::Error;
use packer::files::FileId;

/// The files a run read, by id.
#[derive(Debug, Default)]
pub struct ReadFiles(Vec<FileId>);

impl ReadFiles {
    /// Adds the file `path` names, when it exists (standard input, `-`,
    /// is no file).
    pub fn add_path(&mut self, path: &Path) {
        if path != Path::new("-")
            && let Ok(id) = FileId::of_path(path)
        {
            self.0.push(id);
        }
    }

    /// Adds files already identified.
    pub fn extend(&mut self, ids: &[FileId]) {
        self.0.extend_from_slice(ids);
    }

    /// `payload-out-is-input` when `out` names one of the files.
    pub fn refuse(&self, out: &Path) -> Result<(), Error> {
        match FileId::of_path(out) {
            Ok(id) if self.0.contains(&id) => Err(Error::PayloadOutIsInput),
            _ => Ok(()),
        }
    }
}

/// Writes `bytes` to `out` (see the module documentation), after checking
/// that it is none of the files in `read`.
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

/// What a newly created file would get: read and write for everyone, less
/// the process's umask (the temporary file starts private).
#[cfg(unix)]
fn new_file_permissions(_file: &std::fs::File) -> io::Result<std::fs::Permissions> {
    use std::os::unix::fs::PermissionsExt;
    let mask = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    rustix::process::umask(mask);
    Ok(std::fs::Permissions::from_mode(0o666 & !mask.bits()))
}

#[cfg(not(unix))]
fn new_file_permissions(file: &std::fs::File) -> io::Result<std::fs::Permissions> {
    Ok(file.metadata()?.permissions())
}

/// A FIFO, a terminal or a device: opened for writing without blocking (a
/// FIFO nobody reads fails at once), then written with blocking writes.
#[cfg(unix)]
fn write_in_place(out: &Path, bytes: &[u8]) -> io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(
        out,
        OFlags::WRONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
        Mode::empty(),
    )
    .map_err(|error| {
        if error == rustix::io::Errno::NXIO {
            io::Error::new(io::ErrorKind::BrokenPipe, "no process reads the FIFO")
        } else {
            error.into()
        }
    })?;
    let flags = rustix::fs::fcntl_getfl(&fd)?;
    rustix::fs::fcntl_setfl(&fd, flags - OFlags::NONBLOCK)?;
    let mut file = std::fs::File::from(fd);
    file.write_all(bytes)?;
    file.flush()
}

#[cfg(not(unix))]
fn write_in_place(out: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(out)?
        .write_all(bytes)
}
