//! Writing a file so that a hostile tree cannot redirect the write.
//!
//! `--payload-out` and `--out-dir` may name a place inside a directory
//! packer collects, and a process in that tree may swap a directory on the
//! way for a symbolic link to elsewhere at any moment. A check of the path
//! followed by a write to the path resolves it twice, and the swap can fall
//! between the two. So the place is resolved once, from `/` (or the current
//! directory) one component at a time, each directory opened beneath the
//! last one's descriptor with `O_NOFOLLOW`: a symbolic link met in a
//! *guarded* directory (a collected tree) is refused, a link elsewhere (the
//! user's own) is read and followed by the walk itself, and what is written
//! is written beneath the descriptor the walk ended on (`openat`,
//! `renameat`), so the directory checked is the directory written.

#![cfg(unix)]

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use crate::FileId;

/// Why a place cannot be written.
#[derive(Debug)]
pub enum Refused {
    /// A symbolic link in a guarded directory, as a directory on the way or
    /// as the file named.
    Link,
    /// The file named is one of those that must not be written over.
    Protected,
    /// Something the file system said.
    Io(io::Error),
}

impl From<io::Error> for Refused {
    fn from(error: io::Error) -> Refused {
        Refused::Io(error)
    }
}

impl From<rustix::io::Errno> for Refused {
    fn from(error: rustix::io::Errno) -> Refused {
        Refused::Io(error.into())
    }
}

/// The directories a write must not pass a link in (collected trees), and
/// those it must not write in at all (a checkout's `.git`), by identity.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Collected trees: no symbolic link is followed inside them.
    pub trees: Vec<FileId>,
    /// Directories nothing is written in, at any depth.
    pub closed: Vec<FileId>,
    /// Names never written in a guarded tree (its rule files).
    pub tree_names: Vec<OsString>,
}

/// A place resolved for writing: the directory that holds it, open, and
/// the name in it (which is not a symbolic link, or is the user's own one
/// already followed).
#[derive(Debug)]
pub struct Place {
    /// The directory.
    pub dir: OwnedFd,
    /// The last component.
    pub name: OsString,
    /// Whether the directory lies in a guarded tree.
    pub in_tree: bool,
}

/// How many symbolic links one walk follows at most (as the kernel).
const MOST_LINKS: usize = 40;

fn open_dir(at: impl AsFd, name: &OsStr) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        at,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn root() -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(
        "/",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn current() -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Whether the directory `dir` is one of `ids` or lies beneath one, walking
/// up through `..` to `/`.
fn beneath(dir: &OwnedFd, ids: &[FileId]) -> io::Result<bool> {
    if ids.is_empty() {
        return Ok(false);
    }
    let mut here = rustix::io::dup(dir)?;
    for _ in 0..4096 {
        let id = FileId::of_fd(&here)?;
        if ids.contains(&id) {
            return Ok(true);
        }
        let up = open_dir(&here, OsStr::new(".."))?;
        if FileId::of_fd(&up)? == id {
            return Ok(false);
        }
        here = up;
    }
    Ok(false)
}

/// The components of `path`, `/` at the front for an absolute one.
fn components(path: &Path) -> (bool, VecDeque<OsString>) {
    let absolute = path.is_absolute();
    let parts = path
        .components()
        .filter_map(|component| match component {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    (absolute, parts)
}

/// Resolves `path` for writing (see the module documentation): the
/// directory that holds its last component, opened, and that component.
/// With `follow_last`, a last component that is a link outside a guarded
/// tree is followed like the others; without, any link there is refused.
pub fn resolve(path: &Path, guard: &Guard, follow_last: bool) -> Result<Place, Refused> {
    let (absolute, mut rest) = components(path);
    let mut dir = if absolute { root()? } else { current()? };
    let mut in_tree = beneath(&dir, &guard.trees)?;
    let mut links = 0;
    while let Some(name) = rest.pop_front() {
        if name == ".." {
            dir = open_dir(&dir, &name)?;
            in_tree = beneath(&dir, &guard.trees)?;
            continue;
        }
        let stat = match rustix::fs::statat(&dir, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(stat),
            Err(rustix::io::Errno::NOENT) => None,
            Err(error) => return Err(error.into()),
        };
        let is_link = stat.is_some_and(|stat| FileType::from_raw_mode(stat.st_mode).is_symlink());
        if is_link {
            if in_tree || (rest.is_empty() && !follow_last) {
                return Err(Refused::Link);
            }
            links += 1;
            if links > MOST_LINKS {
                return Err(
                    io::Error::from_raw_os_error(rustix::io::Errno::LOOP.raw_os_error()).into(),
                );
            }
            let target = rustix::fs::readlinkat(&dir, &name, Vec::new())?;
            let target = Path::new(OsStr::from_bytes(target.as_bytes()));
            let (absolute, mut parts) = components(target);
            if absolute {
                dir = root()?;
                in_tree = beneath(&dir, &guard.trees)?;
            }
            parts.extend(rest);
            rest = parts;
            continue;
        }
        if rest.is_empty() {
            return Ok(Place { dir, name, in_tree });
        }
        // A directory on the way, opened without following a link (one
        // swapped in since the look is refused by the open).
        dir = match open_dir(&dir, &name) {
            Ok(next) => next,
            Err(rustix::io::Errno::LOOP) if in_tree => return Err(Refused::Link),
            Err(error) => return Err(error.into()),
        };
        in_tree = in_tree || guard.trees.contains(&FileId::of_fd(&dir)?);
    }
    // No last component (`.`, `/`): a directory.
    Err(io::Error::from(io::ErrorKind::IsADirectory).into())
}

/// Writes `bytes` to `path` so that no file in `read` is written over,
/// nothing in a closed directory is written, and no link in a guarded tree
/// is followed: a regular file (or a new one) is replaced atomically by a
/// temporary file beside it renamed over it, keeping its permissions; a
/// FIFO or a device is written in place after a non-blocking open.
pub fn write_file(
    path: &Path,
    bytes: &[u8],
    guard: &Guard,
    read: &[FileId],
) -> Result<(), Refused> {
    let place = resolve(path, guard, true)?;
    if beneath(&place.dir, &guard.closed)?
        || (place.in_tree && guard.tree_names.contains(&place.name))
    {
        return Err(Refused::Protected);
    }
    let stat = match rustix::fs::statat(&place.dir, &place.name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) => Some(stat),
        Err(rustix::io::Errno::NOENT) => None,
        Err(error) => return Err(error.into()),
    };
    let Some(stat) = stat else {
        return write_atomically(&place, bytes, None);
    };
    let id = FileId::from_stat(&stat);
    if read.contains(&id) {
        return Err(Refused::Protected);
    }
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => write_atomically(
            &place,
            bytes,
            Some(Mode::from_raw_mode(stat.st_mode & 0o7777)),
        ),
        FileType::Directory => Err(io::Error::from(io::ErrorKind::IsADirectory).into()),
        // A link here was swapped in after `resolve` looked: replaced by
        // the rename, never followed, were it written atomically; refused.
        FileType::Symlink => Err(Refused::Link),
        _ => write_in_place(&place, bytes),
    }
}

/// A new file beside the target, renamed over it.
fn write_atomically(place: &Place, bytes: &[u8], mode: Option<Mode>) -> Result<(), Refused> {
    let mut name = OsString::new();
    let mut created = None;
    for attempt in 0..100u32 {
        name = OsString::from(format!(
            ".packer-payload-{}-{attempt}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.subsec_nanos())
        ));
        match rustix::fs::openat(
            &place.dir,
            &name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => {
                created = Some(fd);
                break;
            }
            Err(rustix::io::Errno::EXIST) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    let fd = created.ok_or_else(|| io::Error::from(io::ErrorKind::AlreadyExists))?;
    let written = (|| -> io::Result<()> {
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)?;
        file.sync_all()?;
        let mode = match mode {
            Some(mode) => mode,
            None => new_file_mode(),
        };
        rustix::fs::fchmod(&file, mode)?;
        rustix::fs::renameat(&place.dir, &name, &place.dir, &place.name)?;
        Ok(())
    })();
    if let Err(error) = written {
        let _ = rustix::fs::unlinkat(&place.dir, &name, AtFlags::empty());
        return Err(error.into());
    }
    Ok(())
}

/// What a newly created file gets: read and write for everyone, less the
/// process's umask.
fn new_file_mode() -> Mode {
    let mask = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(mask);
    Mode::from_raw_mode(0o666 & !mask.bits())
}

/// A FIFO, a terminal or a device: opened for writing without blocking (a
/// FIFO nobody reads fails at once), then written with blocking writes.
fn write_in_place(place: &Place, bytes: &[u8]) -> Result<(), Refused> {
    let fd = rustix::fs::openat(
        &place.dir,
        &place.name,
        OFlags::WRONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY | OFlags::NOFOLLOW,
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
    file.flush()?;
    Ok(())
}

/// Makes the directory `path` names, or opens it when it exists and is
/// empty (not a link: in a guarded tree no link on the way either); the
/// directory is returned open, for files to be created beneath it.
pub fn empty_dir(path: &Path, guard: &Guard) -> Result<OwnedFd, EmptyDir> {
    let place = resolve(path, guard, false).map_err(|refused| match refused {
        Refused::Link => EmptyDir::Link,
        refused => EmptyDir::Refused(refused),
    })?;
    match rustix::fs::mkdirat(&place.dir, &place.name, Mode::from_raw_mode(0o777)) {
        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
        Err(error) => return Err(EmptyDir::Refused(error.into())),
    }
    let dir = match open_dir(&place.dir, &place.name) {
        Ok(dir) => dir,
        Err(rustix::io::Errno::LOOP) => return Err(EmptyDir::Link),
        Err(rustix::io::Errno::NOTDIR) => return Err(EmptyDir::NotADirectory),
        Err(error) => return Err(EmptyDir::Refused(error.into())),
    };
    let entries = rustix::fs::Dir::read_from(&dir).map_err(|e| EmptyDir::Refused(e.into()))?;
    let mut any = false;
    for entry in entries {
        let entry = entry.map_err(|e| EmptyDir::Refused(e.into()))?;
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            any = true;
            break;
        }
    }
    if any {
        return Err(EmptyDir::NotEmpty);
    }
    Ok(dir)
}

/// Why an output directory cannot be used.
#[derive(Debug)]
pub enum EmptyDir {
    /// It is a symbolic link.
    Link,
    /// It is not a directory.
    NotADirectory,
    /// It holds files.
    NotEmpty,
    /// The way to it, or the file system, refused.
    Refused(Refused),
}

/// Creates `name` beneath `dir`; fails if anything of that name exists (a
/// symbolic link included).
pub fn create_new(dir: &OwnedFd, name: &str) -> io::Result<std::fs::File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    Ok(std::fs::File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_followed_outside_guarded_trees_and_refused_inside() {
        let base = tempfile::tempdir().unwrap();
        let tree = base.path().join("tree");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(tree.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("out")).unwrap();
        std::os::unix::fs::symlink(&outside, base.path().join("mine")).unwrap();
        std::os::unix::fs::symlink(outside.join("f"), tree.join("sub/file-link")).unwrap();
        let guard = Guard {
            trees: vec![FileId::of_path(&tree).unwrap()],
            ..Guard::default()
        };
        // Through a directory link in the tree, and a file link in it.
        for path in [tree.join("out/payload.json"), tree.join("sub/file-link")] {
            assert!(
                matches!(write_file(&path, b"x", &guard, &[]), Err(Refused::Link)),
                "{path:?}"
            );
        }
        assert!(!outside.join("payload.json").exists());
        assert!(!outside.join("f").exists());
        // The user's own link outside any tree is followed.
        write_file(&base.path().join("mine/p.json"), b"mine", &guard, &[]).unwrap();
        assert_eq!(std::fs::read(outside.join("p.json")).unwrap(), b"mine");
        // A plain path in the tree is written, atomically.
        write_file(&tree.join("sub/p.json"), b"in", &guard, &[]).unwrap();
        assert_eq!(std::fs::read(tree.join("sub/p.json")).unwrap(), b"in");
        let left: Vec<_> = std::fs::read_dir(tree.join("sub")).unwrap().collect();
        assert_eq!(left.len(), 2, "no temporary file is left");
        // `..` out of the tree and back in is still in it.
        let back = tree.join("sub/../out/q.json");
        assert!(matches!(
            write_file(&back, b"x", &guard, &[]),
            Err(Refused::Link)
        ));
        // A file the run read, and a closed directory.
        let id = FileId::of_path(&tree.join("sub/p.json")).unwrap();
        assert!(matches!(
            write_file(&tree.join("sub/p.json"), b"x", &guard, &[id]),
            Err(Refused::Protected)
        ));
        let closed = Guard {
            closed: vec![FileId::of_path(&tree.join("sub")).unwrap()],
            ..guard.clone()
        };
        assert!(matches!(
            write_file(&tree.join("sub/new.json"), b"x", &closed, &[]),
            Err(Refused::Protected)
        ));
    }

    #[test]
    fn an_output_directory_is_new_or_empty_and_never_reached_through_a_tree_link() {
        let base = tempfile::tempdir().unwrap();
        let tree = base.path().join("tree");
        let outside = base.path().join("outside");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, tree.join("out")).unwrap();
        let guard = Guard {
            trees: vec![FileId::of_path(&tree).unwrap()],
            ..Guard::default()
        };
        assert!(matches!(
            empty_dir(&tree.join("out/windows"), &guard),
            Err(EmptyDir::Link)
        ));
        assert!(!outside.join("windows").exists());
        assert!(matches!(
            empty_dir(&tree.join("out"), &guard),
            Err(EmptyDir::Link)
        ));
        // Outside a tree too, the directory itself is no link.
        std::os::unix::fs::symlink(&outside, base.path().join("mine")).unwrap();
        assert!(matches!(
            empty_dir(&base.path().join("mine"), &guard),
            Err(EmptyDir::Link)
        ));
        let dir = empty_dir(&tree.join("windows"), &guard).unwrap();
        create_new(&dir, "window-001.json").unwrap();
        assert!(create_new(&dir, "window-001.json").is_err());
        assert!(matches!(
            empty_dir(&tree.join("windows"), &guard),
            Err(EmptyDir::NotEmpty)
        ));
    }
}
