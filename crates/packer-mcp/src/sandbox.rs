//! The directories a client may have packed: `--root DIR` (repeatable,
//! default the current directory), and the one check every path goes
//! through before anything is read.
//!
//! A path is first placed lexically (joined to the first root when
//! relative, `.` and `..` resolved as text), so a path outside every root is
//! refused without asking the file system whether it exists. Then it is
//! canonicalized, which resolves every symbolic link, and checked again: a
//! link inside a root that leads out is refused the same way. The walk that
//! follows never follows links (see `packer_collect`).

use std::path::{Component, Path, PathBuf};

use super::ToolError;

/// The canonical roots, in the order given.
#[derive(Debug, Clone)]
pub struct Roots {
    roots: Vec<PathBuf>,
}

impl Roots {
    /// Canonicalizes each root; a root that does not exist or is not a
    /// directory is refused (`None` names it by its position).
    pub fn new(given: &[PathBuf]) -> Result<Roots, usize> {
        let mut roots = Vec::with_capacity(given.len().max(1));
        let current = [PathBuf::from(".")];
        let given = if given.is_empty() {
            &current[..]
        } else {
            given
        };
        for (index, root) in given.iter().enumerate() {
            match root.canonicalize() {
                Ok(path) if path.is_dir() => roots.push(path),
                _ => return Err(index),
            }
        }
        Ok(Roots { roots })
    }

    /// The canonical roots.
    pub fn paths(&self) -> &[PathBuf] {
        &self.roots
    }

    /// The directory `given` names, if it lies inside a root: relative paths
    /// start at the first root. One that cannot be read is
    /// `unreadable-input`, as `packer pack --dir` says.
    pub fn resolve(&self, given: &str) -> Result<PathBuf, ToolError> {
        self.resolve_or(given, |kind| packer::Error::ReadFailed {
            path: packer::output::terminal_safe(given),
            kind,
        })
    }

    /// The tokenizer file `given` names, if it lies inside a root. One that
    /// cannot be read is `unreadable-tokenizer`, as `--tokenizer` says.
    pub fn resolve_tokenizer(&self, given: &str) -> Result<PathBuf, ToolError> {
        self.resolve_or(given, |kind| packer::Error::UnreadableTokenizer { kind })
    }

    /// The chat template file `given` names, if it lies inside a root. One
    /// that cannot be read is `invalid-chat-template`, as
    /// `--chat-template` says.
    pub fn resolve_chat_template(&self, given: &str) -> Result<PathBuf, ToolError> {
        self.resolve_or(given, |kind| packer::Error::InvalidChatTemplate {
            problem: format!("file cannot be read ({kind})"),
        })
    }

    /// `given` placed and checked against the roots; `unreadable` is the
    /// error for a path inside a root that cannot be canonicalized.
    fn resolve_or(
        &self,
        given: &str,
        unreadable: impl FnOnce(std::io::ErrorKind) -> packer::Error,
    ) -> Result<PathBuf, ToolError> {
        let first = &self.roots[0];
        let joined = first.join(given);
        let lexical = normalize(&joined).ok_or(ToolError::OutsideRoot)?;
        if !self.contains(&lexical) {
            return Err(ToolError::OutsideRoot);
        }
        let canonical = lexical
            .canonicalize()
            .map_err(|error| ToolError::Packer(unreadable(error.kind())))?;
        if !self.contains(&canonical) {
            return Err(ToolError::OutsideRoot);
        }
        Ok(canonical)
    }

    fn contains(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root))
    }
}

/// `path` (absolute) with `.` dropped and each `..` removing the component
/// before it, without touching the file system; `None` when a `..` would
/// climb above the file system's root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::Normal(name) => out.push(name),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_resolves_dots_as_text() {
        assert_eq!(
            normalize(Path::new("/a/b/../c/./d")),
            Some(PathBuf::from("/a/c/d"))
        );
        assert_eq!(normalize(Path::new("/a/../..")), None);
        assert_eq!(normalize(Path::new("/..")), None);
    }

    fn temp_tree() -> (PathBuf, Roots) {
        let base = std::env::temp_dir().join(format!(
            "packer-sandbox-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir_all(base.join("root/inside")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        let roots = Roots::new(&[base.join("root")]).unwrap();
        (base, roots)
    }

    #[test]
    fn paths_inside_a_root_resolve_and_escapes_are_refused() {
        let (base, roots) = temp_tree();
        let root = roots.paths()[0].clone();
        assert_eq!(roots.resolve(".").unwrap(), root);
        assert_eq!(roots.resolve("inside").unwrap(), root.join("inside"));
        assert_eq!(
            roots.resolve("inside/../inside").unwrap(),
            root.join("inside")
        );
        assert_eq!(
            roots
                .resolve(root.join("inside").to_str().unwrap())
                .unwrap(),
            root.join("inside")
        );
        for escape in ["..", "../outside", "inside/../../outside", "/", "/etc"] {
            assert_eq!(
                roots.resolve(escape).unwrap_err(),
                ToolError::OutsideRoot,
                "{escape}"
            );
        }
        // Not there: the path is inside, so the file system is asked.
        assert_eq!(
            roots.resolve("missing").unwrap_err().code(),
            "unreadable-input"
        );
        // A tokenizer file that is not there is named as the command line
        // names it.
        assert_eq!(
            roots.resolve_tokenizer("missing.json").unwrap_err().code(),
            "unreadable-tokenizer"
        );
        // Outside and not there: refused before asking.
        assert_eq!(
            roots.resolve("../missing").unwrap_err(),
            ToolError::OutsideRoot
        );
        assert_eq!(
            roots.resolve_tokenizer("../missing.json").unwrap_err(),
            ToolError::OutsideRoot
        );
        std::fs::remove_dir_all(base).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_link_inside_a_root_that_leads_out_is_refused() {
        let (base, roots) = temp_tree();
        std::os::unix::fs::symlink(base.join("outside"), base.join("root/link")).unwrap();
        std::os::unix::fs::symlink(base.join("root/inside"), base.join("root/alias")).unwrap();
        assert_eq!(roots.resolve("link").unwrap_err(), ToolError::OutsideRoot);
        assert_eq!(
            roots.resolve("alias").unwrap(),
            roots.paths()[0].join("inside")
        );
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn a_root_that_is_not_a_directory_is_refused() {
        let (base, _) = temp_tree();
        assert_eq!(
            Roots::new(&[base.join("root"), base.join("nope")]).unwrap_err(),
            1
        );
        std::fs::remove_dir_all(base).unwrap();
    }
}
