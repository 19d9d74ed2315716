//! Reading a chat request and its template for [`packer::Chat`] (SPEC
//! §2.4).
//!
//! The command line and the Python package read the paths their user gave
//! ([`load_chat`], [`chat_of`]); the MCP server reads only inside its roots
//! ([`chat_of`] with roots); a `packer.toml` gives files that its own
//! directory holds, read beneath it by the collecting crate and handed here
//! as bytes ([`chat_from_bytes`]).

use std::path::{Path, PathBuf};

use packer::chat::{ChatRequest, ChatTemplate};
use packer::error::ChatTemplatePlace;
use packer::{Chat, Error};

use crate::{OpenError, open_regular, open_regular_nofollow};

/// Request and template files larger than this are refused (a chat
/// template is tens of kilobytes; a `tokenizer_config.json` with every
/// added token a few megabytes).
pub const MAX_CHAT_FILE_BYTES: u64 = 64 << 20;

/// How the files of a chat request are opened.
#[derive(Debug, Clone, Copy)]
enum Opening<'a> {
    /// As the user's own paths: symbolic links followed.
    AsGiven,
    /// Inside one of these canonical directories: the last component is
    /// not followed if it is a link, and the real path of what was opened
    /// is checked (`path-outside-root` otherwise).
    Inside(&'a [PathBuf]),
}

/// Why a chat file was not read.
enum Unread {
    /// It lies outside every root.
    Outside,
    /// What is wrong, for a message (never the file's contents).
    Problem(String),
}

impl Unread {
    fn into_error(self, error: impl FnOnce(String) -> Error) -> Error {
        match self {
            Unread::Outside => Error::PathOutsideRoot,
            Unread::Problem(problem) => error(problem),
        }
    }
}

/// Reads the request at `request` and its template: `template` (a Jinja
/// file or a `tokenizer_config.json`) when given, else the
/// `chat_template.jinja` or `tokenizer_config.json` beside `tokenizer`
/// (the template of the counter itself when there is no tokenizer file:
/// gpt-oss's for `o200k_harmony`). Special tokens come from the
/// `tokenizer_config.json` beside the tokenizer file when the template
/// file has none. `now` is what `strftime_now` formats.
pub fn load_chat(
    request: &Path,
    template: Option<&Path>,
    tokenizer: Option<&Path>,
    now: i64,
) -> Result<Chat, Error> {
    let bytes = read(request, Opening::AsGiven)
        .map_err(|unread| unread.into_error(|problem| Error::InvalidChatRequest { problem }))?;
    chat(&bytes, template, tokenizer, Opening::AsGiven, now)
}

/// Like [`load_chat`], for a request given as its JSON bytes (an MCP
/// argument, a Python dict). With `roots` (canonical directories), the
/// template file and the files beside the tokenizer file are read only
/// inside them, as [`crate::load_tokenizer_confined`] reads the tokenizer
/// file: a path or a link leading out is `path-outside-root`.
pub fn chat_of(
    request: &[u8],
    template: Option<&Path>,
    tokenizer: Option<&Path>,
    roots: Option<&[PathBuf]>,
    now: i64,
) -> Result<Chat, Error> {
    let opening = roots.map_or(Opening::AsGiven, Opening::Inside);
    chat(request, template, tokenizer, opening, now)
}

/// Like [`load_chat`], for a request and a template file already read (a
/// `packer.toml`'s, read beneath its directory). The files beside
/// `tokenizer` are read as given, or with `roots` (canonical directories)
/// only inside them, as [`chat_of`] reads them: the same rule for every
/// file a request pulls in, whoever named the request.
pub fn chat_from_bytes(
    request: &[u8],
    template: Option<&[u8]>,
    tokenizer: Option<&Path>,
    roots: Option<&[PathBuf]>,
    now: i64,
) -> Result<Chat, Error> {
    let request = ChatRequest::from_bytes(request)?;
    let template = template.map(ChatTemplate::from_bytes).transpose()?;
    let opening = roots.map_or(Opening::AsGiven, Opening::Inside);
    assemble(request, template, tokenizer, opening, now)
}

fn chat(
    request: &[u8],
    template: Option<&Path>,
    tokenizer: Option<&Path>,
    opening: Opening<'_>,
    now: i64,
) -> Result<Chat, Error> {
    let request = ChatRequest::from_bytes(request)?;
    let template = template
        .map(|path| read_template(path, opening))
        .transpose()?;
    assemble(request, template, tokenizer, opening, now)
}

/// The chat of `request` with `template` (given), else the template beside
/// `tokenizer`, else the counter's own; special tokens from the
/// `tokenizer_config.json` beside `tokenizer`.
fn assemble(
    request: ChatRequest,
    template: Option<ChatTemplate>,
    tokenizer: Option<&Path>,
    opening: Opening<'_>,
    now: i64,
) -> Result<Chat, Error> {
    let beside = |name: &str| {
        tokenizer
            .and_then(Path::parent)
            .map(|dir| dir.join(name))
            .filter(|path| path.is_file())
    };
    let config = match beside("tokenizer_config.json") {
        Some(path) => {
            let bytes = read(&path, opening).map_err(|unread| {
                unread.into_error(|problem| Error::InvalidChatTemplate {
                    problem: format!("source tokenizer_config.json {problem}"),
                })
            })?;
            serde_json::from_slice::<serde_json::Value>(&bytes).ok()
        }
        None => None,
    };
    let template = match (template, tokenizer) {
        (Some(template), _) => Some(template),
        (None, Some(_)) => match beside("chat_template.jinja") {
            Some(path) => Some(read_template(&path, opening)?),
            None => match &config {
                Some(config) => Some(ChatTemplate::from_config(config)?.ok_or(
                    Error::ChatTemplateMissing {
                        looked_in: ChatTemplatePlace::ConfigBesideTokenizer,
                    },
                )?),
                None => {
                    return Err(Error::ChatTemplateMissing {
                        looked_in: ChatTemplatePlace::NothingBesideTokenizer,
                    });
                }
            },
        },
        (None, None) => None,
    };
    let template = match (template, &config) {
        (Some(template), Some(config)) => Some(template.with_specials_of(config)),
        (template, _) => template,
    };
    Ok(Chat {
        request,
        template,
        format: packer::chat::ChatFormat::default(),
        now,
        isolation: None,
        cancel: packer::Cancel::default(),
    })
}

fn read_template(path: &Path, opening: Opening<'_>) -> Result<ChatTemplate, Error> {
    let bytes = read(path, opening).map_err(|unread| {
        unread.into_error(|problem| Error::InvalidChatTemplate {
            problem: format!("file {problem}"),
        })
    })?;
    ChatTemplate::from_bytes(&bytes)
}

/// The bytes of a regular file, or what is wrong (never its contents).
fn read(path: &Path, opening: Opening<'_>) -> Result<Vec<u8>, Unread> {
    let cannot = |kind: std::io::ErrorKind| Unread::Problem(format!("cannot be read ({kind})"));
    let opened = match opening {
        Opening::AsGiven => open_regular(path),
        Opening::Inside(roots) => {
            let opened = open_regular_nofollow(path);
            if let Ok(opened) = &opened {
                let real = opened
                    .real_path(path)
                    .map_err(|error| cannot(error.kind()))?;
                if !roots.iter().any(|root| real.starts_with(root)) {
                    return Err(Unread::Outside);
                }
            }
            opened
        }
    };
    let opened = opened.map_err(|error| match error {
        OpenError::NotAFile => {
            Unread::Problem("is not a regular file (a directory, FIFO or device)".into())
        }
        error => cannot(error.kind()),
    })?;
    opened
        .read_limited(MAX_CHAT_FILE_BYTES)
        .map_err(|error| cannot(error.kind()))?
        .ok_or_else(|| Unread::Problem(format!("is larger than {MAX_CHAT_FILE_BYTES} bytes")))
}

/// Seconds since 1970 now, for `strftime_now`.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}
