//! Opening files that a hostile tree cannot redirect.
//!
//! Every file packer reads is opened once and then checked through the open
//! descriptor, never by its path again:
//!
//! - it is opened non-blocking, so a FIFO or a device cannot make packer
//!   wait, and must be a regular file (checked with `fstat`);
//! - it is read through the descriptor up to a limit plus one byte, so a
//!   file that grows (or a device swapped in) cannot make packer hold more;
//! - a file inside a collected directory is opened beneath the directory's
//!   own descriptor one component at a time, never following a symbolic
//!   link ([`Root::open_file`]), so swapping a file or a directory for a
//!   link between the walk and the read lets nothing from outside in;
//! - [`Root::real_path`] gives the directory's real path from its
//!   descriptor, so a caller that must stay inside some roots checks what
//!   was opened rather than what a path said before it was opened.
//!
//! The library (`packer`) reads no file; the command line, the MCP server,
//! the Python package and the collecting crate open files through this
//! crate, which also reads tokenizer files for the library to load
//! ([`load_tokenizer`], [`load_tokenizer_confined`]) and runs chat
//! templates in worker processes with limits ([`render`]).

mod chat;
pub mod render;
mod tokenizer;
pub mod write;

pub use chat::{MAX_CHAT_FILE_BYTES, chat_from_bytes, chat_of, load_chat, now};
pub use tokenizer::{MAX_TOKENIZER_BYTES, load_tokenizer, load_tokenizer_confined};

use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

/// Which file: the device and inode it lives on. Two paths (hard links,
/// symbolic links, `./x` and `x`) that lead to one file have one id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId {
    device: u64,
    inode: u64,
}

impl FileId {
    /// The id of an open file.
    pub fn of(file: &File) -> io::Result<FileId> {
        file.metadata()
            .map(|metadata| FileId::from_metadata(&metadata))
    }

    /// The id of an open descriptor (standard input, say).
    #[cfg(unix)]
    pub fn of_fd(fd: impl std::os::fd::AsFd) -> io::Result<FileId> {
        Ok(FileId::from_stat(&rustix::fs::fstat(fd)?))
    }

    /// The id of what a `stat` describes.
    #[cfg(unix)]
    // The fields are not `u64` on every platform.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_stat(stat: &rustix::fs::Stat) -> FileId {
        FileId {
            device: stat.st_dev as u64,
            inode: stat.st_ino as u64,
        }
    }

    /// The id of the file `path` names, following symbolic links.
    pub fn of_path(path: &Path) -> io::Result<FileId> {
        std::fs::metadata(path).map(|metadata| FileId::from_metadata(&metadata))
    }

    #[cfg(unix)]
    fn from_metadata(metadata: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            device: metadata.dev(),
            inode: metadata.ino(),
        }
    }

    #[cfg(not(unix))]
    fn from_metadata(metadata: &std::fs::Metadata) -> FileId {
        // Without inodes, the size and the modification time stand in; a
        // false match only refuses a --payload-out that was safe.
        FileId {
            device: metadata.len(),
            inode: metadata
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as u64),
        }
    }
}

/// Where an open descriptor is now, from `/proc/self/fd`.
#[cfg(target_os = "linux")]
fn fd_path(fd: &impl std::os::fd::AsRawFd) -> io::Result<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd()))
}

/// Why a file was not opened.
#[derive(Debug)]
pub enum OpenError {
    /// The operating system refused (missing, permission, ...).
    Io(io::Error),
    /// It is a directory, a FIFO, a device or a socket, not a regular file.
    NotAFile,
    /// A component of the path is a symbolic link or is no longer a
    /// directory: the tree changed since it was walked, or a link leads
    /// elsewhere.
    Link,
}

impl OpenError {
    /// The operating system's kind of failure, for messages that take one.
    pub fn kind(&self) -> io::ErrorKind {
        match self {
            OpenError::Io(error) => error.kind(),
            OpenError::NotAFile => io::ErrorKind::InvalidInput,
            OpenError::Link => io::ErrorKind::NotFound,
        }
    }
}

/// An opened regular file, its size when opened and its id.
#[derive(Debug)]
pub struct Opened {
    /// The open file.
    pub file: File,
    /// Its size in bytes when it was opened.
    pub size: u64,
    /// Which file it is.
    pub id: FileId,
}

impl Opened {
    fn check(file: File) -> Result<Opened, OpenError> {
        let metadata = file.metadata().map_err(OpenError::Io)?;
        if !metadata.is_file() {
            return Err(OpenError::NotAFile);
        }
        Ok(Opened {
            size: metadata.len(),
            id: FileId::from_metadata(&metadata),
            file,
        })
    }

    /// The file's real path, read from its descriptor (on Linux; elsewhere
    /// `path` canonicalized), so a caller that must stay inside some
    /// directories checks what was opened.
    pub fn real_path(&self, path: &Path) -> io::Result<PathBuf> {
        #[cfg(target_os = "linux")]
        {
            let _ = path;
            fd_path(&self.file)
        }
        #[cfg(not(target_os = "linux"))]
        {
            path.canonicalize()
        }
    }

    /// Reads the file through its descriptor: `Ok(None)` when it holds more
    /// than `limit` bytes (no more than `limit + 1` are read).
    pub fn read_limited(self, limit: u64) -> io::Result<Option<Vec<u8>>> {
        if self.size > limit {
            return Ok(None);
        }
        read_limited(self.file, limit, self.size)
    }
}

/// Reads at most `limit + 1` bytes from `reader`: `Ok(None)` when there
/// were more than `limit`. `hint` sizes the buffer (never past the limit).
pub fn read_limited(reader: impl Read, limit: u64, hint: u64) -> io::Result<Option<Vec<u8>>> {
    let capacity = usize::try_from(hint.min(limit).min(64 << 20)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Opens the regular file `path` names for reading (following symbolic
/// links: the path is the user's own), without blocking on a FIFO or a
/// device.
pub fn open_regular(path: &Path) -> Result<Opened, OpenError> {
    Opened::check(open_nonblocking(path, false).map_err(OpenError::Io)?)
}

/// Opens the regular file `path` names, refusing a symbolic link as its
/// last component (a link in a directory above it is still followed; see
/// [`Root`] for a path that must not leave a directory).
pub fn open_regular_nofollow(path: &Path) -> Result<Opened, OpenError> {
    match open_nonblocking(path, true) {
        Ok(file) => Opened::check(file),
        Err(error) if is_link_error(&error) => Err(OpenError::Link),
        Err(error) => Err(OpenError::Io(error)),
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path, nofollow: bool) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    if nofollow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    Ok(File::from(fd))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path, nofollow: bool) -> io::Result<File> {
    if nofollow && std::fs::symlink_metadata(path)?.file_type().is_symlink() {
        return Err(io::Error::new(io::ErrorKind::Other, "symbolic link"));
    }
    File::open(path)
}

/// Whether opening failed because a component was a symbolic link (or a
/// link was swapped in for a directory).
fn is_link_error(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        let code = error.raw_os_error();
        code == Some(rustix::io::Errno::LOOP.raw_os_error())
            || code == Some(rustix::io::Errno::NOTDIR.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        error.kind() == io::ErrorKind::Other
    }
}

/// A directory opened once, beneath which files are opened without ever
/// following a symbolic link.
#[derive(Debug)]
pub struct Root {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    path: PathBuf,
}

impl Root {
    /// Opens the directory `path` (a link naming the directory itself is
    /// followed: the path is the caller's own).
    pub fn open(path: &Path) -> io::Result<Root> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(Root {
                fd,
                path: path.to_path_buf(),
            })
        }
        #[cfg(not(unix))]
        {
            if !std::fs::metadata(path)?.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "not a directory",
                ));
            }
            Ok(Root {
                path: path.to_path_buf(),
            })
        }
    }

    /// Another handle on the same opened directory.
    pub fn try_clone(&self) -> io::Result<Root> {
        Ok(Root {
            #[cfg(unix)]
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }

    /// Whether `relative` names a directory beneath this one, reached
    /// without following a link.
    pub fn is_directory(&self, relative: &Path) -> bool {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let mut directory: Option<std::os::fd::OwnedFd> = None;
            for component in relative.components() {
                let Component::Normal(name) = component else {
                    return false;
                };
                let at = directory.as_ref().unwrap_or(&self.fd);
                match rustix::fs::openat(
                    at,
                    name,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                ) {
                    Ok(next) => directory = Some(next),
                    Err(_) => return false,
                }
            }
            directory.is_some()
        }
        #[cfg(not(unix))]
        {
            std::fs::symlink_metadata(self.path.join(relative)).is_ok_and(|m| m.is_dir())
        }
    }

    /// The path the directory was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory's real path, read from its descriptor (on Linux), so
    /// it is where the opened directory is now, whatever the path said.
    pub fn real_path(&self) -> io::Result<PathBuf> {
        #[cfg(target_os = "linux")]
        {
            fd_path(&self.fd)
        }
        #[cfg(not(target_os = "linux"))]
        {
            self.path.canonicalize()
        }
    }

    /// Opens the regular file at `relative` (only plain components: no
    /// `..`, no root) beneath this directory, each directory on the way and
    /// the file itself opened without following a symbolic link.
    pub fn open_file(&self, relative: &Path) -> Result<Opened, OpenError> {
        let mut names = Vec::new();
        for component in relative.components() {
            match component {
                Component::Normal(name) => names.push(name),
                Component::CurDir => {}
                _ => return Err(OpenError::Link),
            }
        }
        let Some((last, parents)) = names.split_last() else {
            return Err(OpenError::NotAFile);
        };
        self.open_beneath(parents, last)
    }

    #[cfg(unix)]
    fn open_beneath(
        &self,
        parents: &[&std::ffi::OsStr],
        last: &std::ffi::OsStr,
    ) -> Result<Opened, OpenError> {
        use rustix::fs::{Mode, OFlags};
        let link = |error: rustix::io::Errno| {
            let error = io::Error::from(error);
            if is_link_error(&error) {
                OpenError::Link
            } else {
                OpenError::Io(error)
            }
        };
        let mut directory: Option<std::os::fd::OwnedFd> = None;
        for name in parents {
            let at = directory.as_ref().unwrap_or(&self.fd);
            let next = rustix::fs::openat(
                at,
                *name,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(link)?;
            directory = Some(next);
        }
        let at = directory.as_ref().unwrap_or(&self.fd);
        let fd = rustix::fs::openat(
            at,
            last,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
            Mode::empty(),
        )
        .map_err(link)?;
        Opened::check(File::from(fd))
    }

    #[cfg(not(unix))]
    fn open_beneath(
        &self,
        parents: &[&std::ffi::OsStr],
        last: &std::ffi::OsStr,
    ) -> Result<Opened, OpenError> {
        let mut path = self.path.clone();
        for name in parents {
            path.push(name);
            if std::fs::symlink_metadata(&path)
                .map_err(OpenError::Io)?
                .file_type()
                .is_symlink()
            {
                return Err(OpenError::Link);
            }
        }
        path.push(last);
        open_regular_nofollow(&path)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> tempfile::TempDir {
        let base = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(base.path().join("root/sub")).unwrap();
        std::fs::create_dir_all(base.path().join("outside")).unwrap();
        std::fs::write(base.path().join("root/sub/a.txt"), "inside").unwrap();
        std::fs::write(base.path().join("outside/a.txt"), "OUTSIDE").unwrap();
        base
    }

    fn read(root: &Root, relative: &str) -> Result<String, String> {
        match root.open_file(Path::new(relative)) {
            Ok(opened) => {
                Ok(String::from_utf8(opened.read_limited(100).unwrap().unwrap()).unwrap())
            }
            Err(error) => Err(format!("{error:?}")),
        }
    }

    #[test]
    fn files_beneath_the_root_are_read_and_links_are_not_followed() {
        let base = tree();
        let root = Root::open(&base.path().join("root")).unwrap();
        assert_eq!(read(&root, "sub/a.txt").unwrap(), "inside");
        symlink(
            base.path().join("outside/a.txt"),
            base.path().join("root/file-link"),
        )
        .unwrap();
        symlink(
            base.path().join("outside"),
            base.path().join("root/dir-link"),
        )
        .unwrap();
        symlink("sub/a.txt", base.path().join("root/inner-link")).unwrap();
        assert_eq!(read(&root, "file-link").unwrap_err(), "Link");
        assert_eq!(read(&root, "dir-link/a.txt").unwrap_err(), "Link");
        assert_eq!(read(&root, "inner-link").unwrap_err(), "Link");
        assert_eq!(read(&root, "../outside/a.txt").unwrap_err(), "Link");
        assert_eq!(read(&root, "sub").unwrap_err(), "NotAFile");
        assert!(read(&root, "missing").unwrap_err().starts_with("Io("));
    }

    #[test]
    fn a_directory_swapped_for_a_link_after_opening_the_root_leaks_nothing() {
        let base = tree();
        let root = Root::open(&base.path().join("root")).unwrap();
        std::fs::rename(base.path().join("root/sub"), base.path().join("moved")).unwrap();
        symlink(base.path().join("outside"), base.path().join("root/sub")).unwrap();
        assert_eq!(read(&root, "sub/a.txt").unwrap_err(), "Link");
    }

    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let base = tree();
        let fifo = base.path().join("root/fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let root = Root::open(&base.path().join("root")).unwrap();
        assert_eq!(read(&root, "fifo").unwrap_err(), "NotAFile");
        assert!(matches!(open_regular(&fifo), Err(OpenError::NotAFile)));
        assert!(matches!(
            open_regular(Path::new("/dev/zero")),
            Err(OpenError::NotAFile)
        ));
        assert!(matches!(
            open_regular(base.path()),
            Err(OpenError::NotAFile)
        ));
    }

    #[test]
    fn reads_stop_one_byte_past_the_limit() {
        let zero = File::open("/dev/zero").unwrap();
        assert_eq!(read_limited(zero, 1000, u64::MAX).unwrap(), None);
        assert_eq!(read_limited(&b"abc"[..], 3, 0).unwrap().unwrap(), b"abc");
        assert_eq!(read_limited(&b"abcd"[..], 3, 0).unwrap(), None);
    }

    #[test]
    fn ids_name_one_file_by_every_path() {
        let base = tree();
        let a = base.path().join("root/sub/a.txt");
        std::fs::hard_link(&a, base.path().join("hard")).unwrap();
        symlink(&a, base.path().join("soft")).unwrap();
        let id = FileId::of_path(&a).unwrap();
        assert_eq!(FileId::of_path(&base.path().join("hard")).unwrap(), id);
        assert_eq!(FileId::of_path(&base.path().join("soft")).unwrap(), id);
        assert_eq!(open_regular(&a).unwrap().id, id);
        assert_ne!(
            FileId::of_path(&base.path().join("outside/a.txt")).unwrap(),
            id
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_real_path_is_where_the_directory_is_now() {
        let base = tree();
        let root = Root::open(&base.path().join("root")).unwrap();
        std::fs::rename(base.path().join("root"), base.path().join("elsewhere")).unwrap();
        assert_eq!(
            root.real_path().unwrap(),
            base.path().canonicalize().unwrap().join("elsewhere")
        );
    }
}
