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
    format!("window-{index:03}.{}", envelope.extension())
}

/// The output directory, opened once.
pub struct Directory(Opened);

/// Refuses `dir` unless it is an empty directory or does not exist yet
/// (then it is created), and opens it. Called before anything is packed.
/// Inside the collected directory `tree`, no symbolic link on the way to
/// it is followed, then or later (the files are created beneath the
/// directory opened now).
pub fn prepare(dir: &Path, tree: Option<&Path>) -> Result<Directory, Error> {
    Opened::prepare(dir, tree).map(Directory)
}

/// Writes every window's payload into `dir` (opened by [`prepare`]).
pub fn write(dir: &Directory, windows: &[Window], envelope: Envelope) -> Result<(), Error> {
    let failed = |error: io::Error| Error::OutDir { kind: error.kind() };
    for window in windows {
        let name = file_name(window.index, envelope);
        let mut file = dir.0.create_new(&name).map_err(failed)?;
        file.write_all(window.payload_text.as_bytes())
            .map_err(failed)?;
    }
    Ok(())
}

#[cfg(unix)]
struct Opened(rustix::fd::OwnedFd);

#[cfg(unix)]
impl Opened {
    fn prepare(dir: &Path, tree: Option<&Path>) -> Result<Opened, Error> {
        use packer_files::write::{EmptyDir, Guard, Refused, empty_dir};
        let refused = |problem| Error::OutDirRefused { problem };
        let guard = Guard {
            trees: tree
                .and_then(|tree| packer_files::FileId::of_path(tree).ok())
                .into_iter()
                .collect(),
            ..Guard::default()
        };
        match empty_dir(dir, &guard) {
            Ok(fd) => Ok(Opened(fd)),
            Err(EmptyDir::Link | EmptyDir::Refused(Refused::Link)) => Err(refused(
                "is a symbolic link, or is reached through one in the collected directory",
            )),
            Err(EmptyDir::NotADirectory) => Err(refused("is not a directory")),
            Err(EmptyDir::NotEmpty) => Err(refused("is not empty")),
            Err(EmptyDir::Refused(Refused::Io(error))) => Err(Error::OutDir { kind: error.kind() }),
            Err(EmptyDir::Refused(Refused::Protected)) => Err(refused("is not a directory")),
        }
    }

    /// Creates `name` in the directory; fails if anything of that name
    /// exists (a symbolic link included).
    fn create_new(&self, name: &str) -> io::Result<fs::File> {
        packer_files::write::create_new(&self.0, name)
    }
}

/// The output directory, by its path.
#[cfg(not(unix))]
struct Opened(std::path::PathBuf);

#[cfg(not(unix))]
impl Opened {
    fn prepare(dir: &Path, _tree: Option<&Path>) -> Result<Opened, Error> {
        let refused = |problem| Error::OutDirRefused { problem };
        match fs::symlink_metadata(dir) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(refused("is a symbolic link"));
            }
            Ok(metadata) if !metadata.is_dir() => return Err(refused("is not a directory")),
            Ok(_) => {
                let mut entries =
                    fs::read_dir(dir).map_err(|error| Error::OutDir { kind: error.kind() })?;
                if entries.next().is_some() {
                    return Err(refused("is not empty"));
                }
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => {
                fs::create_dir(dir).map_err(|error| Error::OutDir { kind: error.kind() })?;
            }
            Err(error) => return Err(Error::OutDir { kind: error.kind() }),
        }
        Ok(Opened(dir.to_path_buf()))
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
