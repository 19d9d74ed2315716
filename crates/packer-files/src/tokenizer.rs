//! Reading a tokenizer file for [`packer::Tokenizer::from_bytes`].

use std::path::{Path, PathBuf};

use packer::{Error, Tokenizer};

use crate::{OpenError, Opened, open_regular, open_regular_nofollow};

/// Tokenizer files larger than this are refused (the largest current
/// `tokenizer.json` files are about 20 MB).
pub const MAX_TOKENIZER_BYTES: u64 = 256 << 20;

/// Reads and loads the tokenizer file at `path` (or returns the one
/// already loaded from the same content under the same file name).
///
/// ```no_run
/// use packer::Counter;
///
/// let tokenizer = packer_files::load_tokenizer("models/qwen3/tokenizer.json".as_ref())?;
/// let counter = Counter::with_tokenizer(tokenizer);
/// println!("{} tokens with {}", counter.count("Hello, world"), tokenizer.label());
/// # Ok::<(), packer::Error>(())
/// ```
pub fn load_tokenizer(path: &Path) -> Result<Tokenizer, Error> {
    load_opened(path, open_regular(path))
}

/// Like [`load_tokenizer`], for a path that must lie inside one of `roots`
/// (canonical directories): the file is opened without following a link as
/// its last component, and the real path of what was opened is checked, so
/// a link swapped in after the path was checked is refused
/// (`path-outside-root`).
pub fn load_tokenizer_confined(path: &Path, roots: &[PathBuf]) -> Result<Tokenizer, Error> {
    let opened = open_regular_nofollow(path);
    if let Ok(opened) = &opened {
        let real = opened
            .real_path(path)
            .map_err(|error| Error::UnreadableTokenizer { kind: error.kind() })?;
        if !roots.iter().any(|root| real.starts_with(root)) {
            return Err(Error::PathOutsideRoot);
        }
    }
    load_opened(path, opened)
}

fn load_opened(path: &Path, opened: Result<Opened, OpenError>) -> Result<Tokenizer, Error> {
    let opened = opened.map_err(|error| match error {
        OpenError::NotAFile => Error::TokenizerNotAFile,
        error => Error::UnreadableTokenizer { kind: error.kind() },
    })?;
    let bytes = opened
        .read_limited(MAX_TOKENIZER_BYTES)
        .map_err(|error| Error::UnreadableTokenizer { kind: error.kind() })?
        .ok_or_else(|| Error::InvalidTokenizer {
            problem: format!("it is larger than {MAX_TOKENIZER_BYTES} bytes"),
        })?;
    let name = path
        .file_name()
        .map_or_else(|| "tokenizer".into(), |name| name.to_string_lossy());
    Tokenizer::from_bytes(&name, &bytes)
}
