//! Reading a chat request and its template for [`packer::Chat`] (SPEC
//! §2.4).

use std::path::Path;

use packer::chat::{ChatRequest, ChatTemplate};
use packer::{Chat, Error};

use crate::open_regular;

/// Request and template files larger than this are refused (a chat
/// template is tens of kilobytes; a `tokenizer_config.json` with every
/// added token a few megabytes).
pub const MAX_CHAT_FILE_BYTES: u64 = 64 << 20;

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
    let bytes = read(request).map_err(|problem| Error::InvalidChatRequest { problem })?;
    let request = ChatRequest::from_bytes(&bytes)?;
    let beside = |name: &str| {
        tokenizer
            .and_then(Path::parent)
            .map(|dir| dir.join(name))
            .filter(|path| path.is_file())
    };
    let config = match beside("tokenizer_config.json") {
        Some(path) => {
            let bytes = read(&path).map_err(|problem| Error::InvalidChatTemplate {
                problem: format!("source tokenizer_config.json {problem}"),
            })?;
            serde_json::from_slice::<serde_json::Value>(&bytes).ok()
        }
        None => None,
    };
    let template = match (template, tokenizer) {
        (Some(path), _) => Some(read_template(path)?),
        (None, Some(_)) => match beside("chat_template.jinja") {
            Some(path) => Some(read_template(&path)?),
            None => match &config {
                Some(config) => Some(ChatTemplate::from_config(config)?.ok_or_else(|| {
                    Error::InvalidChatTemplate {
                        problem: "is missing: the tokenizer_config.json beside the --tokenizer \
                                  file has no chat_template; give --chat-template FILE"
                            .into(),
                    }
                })?),
                None => {
                    return Err(Error::InvalidChatTemplate {
                        problem: "is missing: there is no chat_template.jinja or \
                                  tokenizer_config.json beside the --tokenizer file; give \
                                  --chat-template FILE"
                            .into(),
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
        now,
    })
}

fn read_template(path: &Path) -> Result<ChatTemplate, Error> {
    let bytes = read(path).map_err(|problem| Error::InvalidChatTemplate {
        problem: format!("file {problem}"),
    })?;
    ChatTemplate::from_bytes(&bytes)
}

/// The bytes of a regular file, or what is wrong (never its contents).
fn read(path: &Path) -> Result<Vec<u8>, String> {
    let opened =
        open_regular(path).map_err(|error| format!("cannot be read ({})", error.kind()))?;
    opened
        .read_limited(MAX_CHAT_FILE_BYTES)
        .map_err(|error| format!("cannot be read ({})", error.kind()))?
        .ok_or_else(|| format!("is larger than {MAX_CHAT_FILE_BYTES} bytes"))
}

/// Seconds since 1970 now, for `strftime_now`.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}
