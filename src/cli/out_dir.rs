//! `--out-dir DIR` with `--windows`: each window's payload, byte for byte,
//! in `DIR/window-001.EXT` (`json`, `xml` or `md` by envelope).
//!
//! Nothing is ever replaced: `DIR` must be new (it is created, its parent
//! must exist) or an empty directory, and not a symbolic link; each file is
//! created new, relative to the directory opened once without following a
//! link (on Unix), so a link or file that appears in the meantime is an
//! error, never followed or overwritten.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use packer::{Envelope, Error, Window};

/// The file name of window `index` in `envelope`: at least three digits,
/// more when there are 1,000 windows or more.
pub fn file_name(index: usize, envelope: Envelope) -> String {
    let extension = if envelope == Envelope::Xml {
        "xml"
    } else if envelope == Envelope::Markdown {
        "md"
    } else {
        "json"
    };
    format!("window-{index:03}.{extension}")
}

/// Refuses `dir` unless it is an empty directory or does not exist yet
/// (then it is created). Called before anything is packed.
pub fn prepare(dir: &Path) -> Result<(), Error> {
    let refused = |problem| Error::OutDirRefused { problem };
    match fs::symlink_metadata(dir) {
        Ok(metadata) if metadata.file_type().is_symlink() => Err(refused("is a symbolic link")),
        Ok(metadata) if !metadata.is_dir() => Err(refused("is not a directory")),
        Ok(_) => {
            let mut entries =
                fs::read_dir(dir).map_err(|error| Error::OutDir { kind: error.kind() })?;
            if entries.next().is_some() {
                return Err(refused("is not empty"));
            }
            Ok(())
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            fs::create_dir(dir).map_err(|error| Error::OutDir { kind: error.kind() })
        }
        Err(error) => Err(Error::OutDir { kind: error.kind() }),
    }
}

/// Writes every window's payload into `dir` (prepared by [`prepare`]).
pub fn write(dir: &Path, windows: &[Window], envelope: Envelope) -> Result<(), Error> {
    let failed = |error: io::Error| Error::OutDir { kind: error.kind() };
    let directory = Directory::open(dir).map_err(failed)?;
    for window in windows {
        let name = file_name(window.index, envelope);
        let mut file = directory.create_new(&name).map_err(failed)?;
        file.write_all(window.payload_text.as_bytes())
            .map_err(failed)?;
    }
    Ok(())
}

/// The output directory, opened once.
#[cfg(unix)]
struct Directory(rustix::fd::OwnedFd);

#[cfg(unix)]
impl Directory {
    fn open(dir: &Path) -> io::Result<Directory> {
        use rustix::fs::{Mode, OFlags};
        let fd = rustix::fs::open(
            dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        Ok(Directory(fd))
    }

    /// Creates `name` in the directory; fails if anything of that name
    /// exists (a symbolic link included).
    fn create_new(&self, name: &str) -> io::Result<fs::File> {
        use rustix::fs::{Mode, OFlags};
        let fd = rustix::fs::openat(
            &self.0,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        )?;
        Ok(fs::File::from(fd))
    }
}

/// The output directory, by its path.
#[cfg(not(unix))]
struct Directory(std::path::PathBuf);

#[cfg(not(unix))]
impl Directory {
    fn open(dir: &Path) -> io::Result<Directory> {
        Ok(Directory(dir.to_path_buf()))
    }

    fn create_new(&self, name: &str) -> io::Result<fs::File> {
        fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.0.join(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_have_three_digits_or_more() {
        assert_eq!(file_name(1, Envelope::Json), "window-001.json");
        assert_eq!(file_name(42, Envelope::Xml), "window-042.xml");
        assert_eq!(file_name(1234, Envelope::Markdown), "window-1234.md");
    }
}
