//! One file read into a document, or the reason it is not one: opened
//! beneath the directory without following links, size-limited, and
//! checked for text and secrets.

use std::path::Path;

use packer_files::{self as files, FileId};

use crate::{CollectOptions, CollectedDocument, SkipReason, secrets};

/// Where a file is read from, and how much text may still be collected.
pub(crate) struct Read<'a> {
    pub(crate) root: &'a files::Root,
    pub(crate) relative: &'a Path,
    pub(crate) remaining: u64,
}

/// Why a file did not become a document.
pub(crate) enum Skip {
    /// Reported with its id.
    Reason(SkipReason),
    /// Became a link (or its directory did) after the walk: left out unnamed.
    Changed,
    /// Would take the collection past `--max-total-bytes`.
    TooMuchText,
    /// The path itself carries a secret (rule id): reported under
    /// [`redacted`] names.
    SecretName(&'static str),
}

/// `id` with every component in which a secret rule finds a secret
/// replaced by `[secret]` (the whole id when no one component does).
pub(crate) fn redacted(id: &str) -> String {
    let parts: Vec<&str> = id
        .split('/')
        .map(|part| {
            if secrets::find_in_name(part).is_some() {
                "[secret]"
            } else {
                part
            }
        })
        .collect();
    if parts.contains(&"[secret]") {
        parts.join("/")
    } else {
        "[secret]".to_owned()
    }
}

impl From<SkipReason> for Skip {
    fn from(reason: SkipReason) -> Skip {
        Skip::Reason(reason)
    }
}

/// Reads one file into a document: opened once beneath the directory's
/// descriptor without following links, checked to be a regular file, and
/// read through the descriptor up to the smaller of `--max-file-bytes` and
/// the text still allowed, plus one byte.
pub(crate) fn document(
    id: &str,
    read: &Read<'_>,
    base: Option<&url::Url>,
    options: &CollectOptions,
    opened: &mut Vec<FileId>,
) -> Result<CollectedDocument, Skip> {
    // Checked before anything else, so a name that carries a secret is
    // never reported as it is.
    if !options.allow_secrets {
        if let Some(rule) = secrets::find_in_name(id) {
            return Err(Skip::SecretName(rule.id));
        }
        if let Some(rule) = secrets::credential_file(id) {
            return Err(SkipReason::ContainsSecret(rule).into());
        }
    }
    if id.chars().any(char::is_control)
        || id.contains('\u{FFFD}')
        || (base.is_none() && packer::fixture::check_path(id.to_owned()).is_err())
    {
        return Err(SkipReason::UnusableName.into());
    }
    let file = match read.root.open_file(read.relative) {
        Ok(file) => file,
        // Gone, or a link now: the tree changed since the walk.
        Err(files::OpenError::Link) => return Err(Skip::Changed),
        Err(files::OpenError::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Skip::Changed);
        }
        Err(files::OpenError::NotAFile) => return Err(SkipReason::NotAFile.into()),
        Err(files::OpenError::Io(_)) => return Err(SkipReason::Unreadable.into()),
    };
    opened.push(file.id);
    if file.size > options.max_file_bytes {
        return Err(SkipReason::TooLarge.into());
    }
    if file.size > read.remaining {
        return Err(Skip::TooMuchText);
    }
    let limit = options.max_file_bytes.min(read.remaining);
    let bytes = match file.read_limited(limit) {
        Ok(Some(bytes)) => bytes,
        // It grew after it was opened.
        Ok(None) if limit == options.max_file_bytes => return Err(SkipReason::TooLarge.into()),
        Ok(None) => return Err(Skip::TooMuchText),
        Err(_) => return Err(SkipReason::Unreadable.into()),
    };
    if bytes.contains(&0) {
        return Err(SkipReason::Binary.into());
    }
    let content = String::from_utf8(bytes).map_err(|_| SkipReason::NotUtf8)?;
    if content.chars().all(char::is_whitespace) {
        return Err(SkipReason::Blank.into());
    }
    if !options.allow_secrets
        && let Some(rule) = secrets::find_in_file(id, &content)
    {
        return Err(SkipReason::ContainsSecret(rule.id).into());
    }
    let url = base.map(|base| {
        let mut url = base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().extend(id.split('/'));
        }
        url.to_string()
    });
    let lower = id.to_lowercase();
    let format = if lower.ends_with(".md") || lower.ends_with(".markdown") {
        "markdown"
    } else {
        "text"
    };
    Ok(CollectedDocument {
        id: id.to_owned(),
        path: url.is_none().then(|| id.to_owned()),
        url,
        format,
        content,
        truncated: false,
        priority: 0,
        required: false,
    })
}
