//! The whole request (SPEC §2.4): a conversation rendered with the model's
//! chat template, the payload in place of `{{packer:documents}}`, counted
//! exactly as the server will see it.
//!
//! # Rendering
//!
//! A template is rendered as Hugging Face `transformers`'
//! `apply_chat_template` renders it (the `jinja` module: `trim_blocks` and
//! `lstrip_blocks`, `raise_exception`, `strftime_now`, `tojson` as
//! `transformers` writes it, the Python string and dict methods, Python's
//! way of printing `None`, `True` and lists). The variables are `messages`,
//! `tools` (`none` when the request has none), `documents` (`none`),
//! `add_generation_prompt`, the special tokens of the tokenizer's
//! `tokenizer_config.json` (`bos_token`, `eos_token`, ...), and the
//! request's own `templateArguments` (`enable_thinking`, say).
//!
//! # Counting
//!
//! Text the template writes that is a special token counts as that one
//! token; a message's text (the payload included) counts as ordinary text,
//! even where it holds a special token's text. To tell the two apart, a
//! request whose strings hold special-token text is rendered twice: as it
//! is, and with a marker character (a Unicode noncharacter none of its
//! strings holds) after the first character of each such text. The two
//! renderings must be the same once the markers are taken out (else the
//! template treats that text in its own way, and the request is refused);
//! where a marker stands, the special-token text is the message's, and is
//! counted as ordinary text ([`crate::Counter::count_framed`]).
//!
//! Nothing is read from disk here: the front ends read the files.

mod harmony;
mod jinja;
mod literals;
mod marker;
mod numbers;
mod operators;
mod printable;
mod python;
pub mod render;
mod typescript;

use std::sync::Mutex;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use minijinja::Value;
use minijinja::value::ValueKind;

use crate::error::Error;
use crate::tokens::{Counter, Encoding, Stretch};

/// Where the payload goes: the one place in one message's text.
pub const PLACEHOLDER: &str = "{{packer:documents}}";

/// gpt-oss's chat template (the harmony format), used with
/// `--encoding o200k_harmony`.
const HARMONY_TEMPLATE: &str = include_str!("chat/gpt-oss.jinja");

/// A conversation with one placeholder for the payload (`--request FILE`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The request's JSON text, as read.
    text: String,
    messages: Value,
    tools: Value,
    add_generation_prompt: bool,
    arguments: Vec<(String, Value)>,
    /// The path to the string that holds the placeholder: the message's
    /// index, then keys and indices inside it.
    slot: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq)]
enum Step {
    Key(String),
    Index(usize),
}

impl ChatRequest {
    /// Reads a request file: a JSON object `{"messages": [...], "tools":
    /// [...], "addGenerationPrompt": true, "templateArguments": {...}}`
    /// whose messages hold [`PLACEHOLDER`] exactly once.
    pub fn from_bytes(bytes: &[u8]) -> Result<ChatRequest, Error> {
        let problem = |problem: String| Error::InvalidChatRequest { problem };
        let text = std::str::from_utf8(bytes).map_err(|e| {
            problem(format!(
                "is not UTF-8 (at byte {}); save it as UTF-8 JSON",
                e.valid_up_to()
            ))
        })?;
        // The reader every front end shares: a key twice in one object and
        // a lone surrogate are refused here as in a fixture or over MCP.
        match crate::json::check(text) {
            Err(Error::InvalidSchema {
                place: crate::error::SchemaPlace::At(at),
                ..
            }) => {
                return Err(problem(format!(
                    "has a key twice in one object at line {} column {}",
                    at.line, at.column
                )));
            }
            Err(Error::UnpairedSurrogate { at }) => {
                return Err(problem(format!(
                    "holds a lone surrogate escape at line {} column {}",
                    at.line, at.column
                )));
            }
            _ => {}
        }
        let top: Value = serde_json::from_str(text).map_err(|e| {
            problem(format!(
                "is not valid JSON at line {} column {}",
                e.line(),
                e.column()
            ))
        })?;
        if top.kind() != ValueKind::Map {
            return Err(problem("must be a JSON object with `messages`".into()));
        }
        let top = numbers::as_python_reads(text, top).map_err(|refusal| problem(refusal.into()))?;
        let mut messages = Value::UNDEFINED;
        let mut tools = Value::from(());
        let mut add_generation_prompt = true;
        let mut arguments = Vec::new();
        for key in top
            .try_iter()
            .map_err(|_| problem("is not an object".into()))?
        {
            let name = key.as_str().unwrap_or_default().to_owned();
            let value = top.get_item(&key).unwrap_or_default();
            match name.as_str() {
                "messages" => messages = value,
                "tools" => {
                    if !matches!(value.kind(), ValueKind::Seq | ValueKind::None) {
                        return Err(problem("has `tools` that is not a list".into()));
                    }
                    tools = value;
                }
                "addGenerationPrompt" => {
                    if value.kind() != ValueKind::Bool {
                        return Err(problem(
                            "has `addGenerationPrompt` that is not true or false".into(),
                        ));
                    }
                    add_generation_prompt = value.is_true();
                }
                "templateArguments" => {
                    if value.kind() != ValueKind::Map {
                        return Err(problem(
                            "has `templateArguments` that is not an object".into(),
                        ));
                    }
                    for argument in value
                        .try_iter()
                        .map_err(|_| problem("is not an object".into()))?
                    {
                        let argument_name = argument.as_str().unwrap_or_default().to_owned();
                        if RESERVED.contains(&argument_name.as_str()) {
                            return Err(problem(format!(
                                "sets `{argument_name}` in `templateArguments`; it is set by the request itself"
                            )));
                        }
                        let argument_value = value.get_item(&argument).unwrap_or_default();
                        arguments.push((argument_name, argument_value));
                    }
                }
                _ => {
                    return Err(problem(
                        "has a key other than messages, tools, addGenerationPrompt and templateArguments"
                            .into(),
                    ));
                }
            }
        }
        if messages.kind() != ValueKind::Seq || messages.len() == Some(0) {
            return Err(problem(
                "needs `messages`, a list of at least one message".into(),
            ));
        }
        let mut slots = Vec::new();
        for (index, message) in messages.try_iter().into_iter().flatten().enumerate() {
            if message.kind() != ValueKind::Map {
                return Err(problem(format!(
                    "has messages[{index}] that is not an object"
                )));
            }
            if message
                .get_attr("role")
                .ok()
                .and_then(|r| r.as_str().map(str::to_owned))
                .is_none()
            {
                return Err(problem(format!(
                    "has messages[{index}] without a string `role`"
                )));
            }
            let mut path = vec![Step::Index(index)];
            find_placeholders(&message, &mut path, &mut slots);
        }
        find_nowhere_else(&tools, "tools", &problem)?;
        for (name, value) in &arguments {
            find_nowhere_else(value, &format!("templateArguments.{name}"), &problem)?;
        }
        let slot = match slots.len() {
            1 => slots.pop().expect("one"),
            0 => {
                return Err(problem(format!(
                    "has no message whose text holds {PLACEHOLDER}; put it where the documents go"
                )));
            }
            n => {
                return Err(problem(format!(
                    "holds {PLACEHOLDER} {n} times; it must be in one message, once"
                )));
            }
        };
        Ok(ChatRequest {
            text: text.to_owned(),
            messages,
            tools,
            add_generation_prompt,
            arguments,
            slot,
        })
    }

    /// The messages with `payload` in the placeholder's place, and every
    /// string passed through `mark`.
    fn messages_with(&self, payload: &str, mark: &dyn Fn(&str) -> String) -> Value {
        as_transformers_passes(rebuild(&self.messages, &self.slot, 0, payload, mark))
    }
}

/// The names `transformers` copies a message's reasoning between, in the
/// order it looks for one.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

/// The messages as `transformers` 5 hands them to a template: each
/// message's keys whose value is null dropped; and when a message has a
/// reasoning (`reasoning_content`, else `thinking`, else `reasoning`), it
/// also under `thinking` (first, unless the message has its own) and
/// `reasoning_content` (`{"thinking": r, **message, "reasoning_content": r}`).
fn as_transformers_passes(messages: Value) -> Value {
    Value::from(
        messages
            .try_iter()
            .into_iter()
            .flatten()
            .map(|message| {
                if message.kind() != ValueKind::Map {
                    return message;
                }
                let pairs: Vec<(String, Value)> = message
                    .try_iter()
                    .into_iter()
                    .flatten()
                    .map(|key| {
                        let value = message.get_item(&key).unwrap_or_default();
                        (key.as_str().unwrap_or_default().to_owned(), value)
                    })
                    .filter(|(_, value)| !value.is_none())
                    .collect();
                let value_of = |name: &str| {
                    pairs
                        .iter()
                        .find(|(key, _)| key == name)
                        .map(|(_, value)| value.clone())
                };
                let Some(reasoning) = REASONING_FIELDS.iter().find_map(|name| value_of(name))
                else {
                    return Value::from_iter(pairs);
                };
                let has_reasoning_content = value_of("reasoning_content").is_some();
                let mut out = vec![(
                    "thinking".to_owned(),
                    value_of("thinking").unwrap_or_else(|| reasoning.clone()),
                )];
                for (key, value) in pairs {
                    match key.as_str() {
                        "thinking" => {}
                        "reasoning_content" => out.push((key, reasoning.clone())),
                        _ => out.push((key, value)),
                    }
                }
                if !has_reasoning_content {
                    out.push(("reasoning_content".to_owned(), reasoning));
                }
                Value::from_iter(out)
            })
            .collect::<Vec<Value>>(),
    )
}

/// Names the request sets itself, which `templateArguments` may not set.
const RESERVED: &[&str] = &["messages", "tools", "documents", "add_generation_prompt"];

/// Collects the paths of the strings in `value` that hold the placeholder.
fn find_placeholders(value: &Value, path: &mut Vec<Step>, slots: &mut Vec<Vec<Step>>) {
    match value.kind() {
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            for _ in text.matches(PLACEHOLDER) {
                slots.push(path.clone());
            }
        }
        ValueKind::Seq => {
            for (index, item) in value.try_iter().into_iter().flatten().enumerate() {
                path.push(Step::Index(index));
                find_placeholders(&item, path, slots);
                path.pop();
            }
        }
        ValueKind::Map => {
            for key in value.try_iter().into_iter().flatten() {
                let item = value.get_item(&key).unwrap_or_default();
                path.push(Step::Key(key.as_str().unwrap_or_default().to_owned()));
                find_placeholders(&item, path, slots);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Refuses the placeholder outside the messages.
fn find_nowhere_else(
    value: &Value,
    place: &str,
    problem: &dyn Fn(String) -> Error,
) -> Result<(), Error> {
    let mut slots = Vec::new();
    find_placeholders(value, &mut Vec::new(), &mut slots);
    if slots.is_empty() {
        Ok(())
    } else {
        Err(problem(format!(
            "holds {PLACEHOLDER} in `{place}`; it must be in a message's text"
        )))
    }
}

/// A copy of `value` with the string at `slot` (from `depth`) holding
/// `payload` in the placeholder's place, and every string marked.
fn rebuild(
    value: &Value,
    slot: &[Step],
    depth: usize,
    payload: &str,
    mark: &dyn Fn(&str) -> String,
) -> Value {
    let on_path = |step: &Step| slot.get(depth).is_some_and(|at| at.same(step));
    match value.kind() {
        ValueKind::String => {
            let text = value.as_str().unwrap_or_default();
            if depth == slot.len() {
                let (before, after) = text.split_once(PLACEHOLDER).expect("the slot holds it");
                Value::from(format!("{}{}{}", mark(before), mark(payload), mark(after)))
            } else {
                Value::from(mark(text))
            }
        }
        ValueKind::Seq => Value::from(
            value
                .try_iter()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(index, item)| {
                    let step = Step::Index(index);
                    if on_path(&step) {
                        rebuild(&item, slot, depth + 1, payload, mark)
                    } else {
                        rebuild(&item, &[], usize::MAX, payload, mark)
                    }
                })
                .collect::<Vec<Value>>(),
        ),
        ValueKind::Map => Value::from_iter(value.try_iter().into_iter().flatten().map(|key| {
            let item = value.get_item(&key).unwrap_or_default();
            let step = Step::Key(key.as_str().unwrap_or_default().to_owned());
            let item = if on_path(&step) {
                rebuild(&item, slot, depth + 1, payload, mark)
            } else {
                rebuild(&item, &[], usize::MAX, payload, mark)
            };
            (key, item)
        })),
        _ => value.clone(),
    }
}

impl Step {
    fn same(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Key(a), Step::Key(b)) => a == b,
            (Step::Index(a), Step::Index(b)) => a == b,
            _ => false,
        }
    }
}

/// How a request is written out (`--chat-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChatFormat {
    /// The model's chat template, as `transformers` renders it.
    #[default]
    Template,
    /// gpt-oss's harmony format as the `openai-harmony` library writes it
    /// for vLLM (`o200k_harmony` only; no template).
    Harmony,
}

impl ChatFormat {
    /// The names `--chat-format` takes.
    pub fn names() -> &'static [&'static str] {
        &["template", "harmony"]
    }
}

impl std::str::FromStr for ChatFormat {
    type Err = ();

    fn from_str(name: &str) -> Result<ChatFormat, ()> {
        match name {
            "template" => Ok(ChatFormat::Template),
            "harmony" => Ok(ChatFormat::Harmony),
            _ => Err(()),
        }
    }
}

/// A chat template with the special tokens it is rendered with.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatTemplate {
    source: String,
    /// A second template the config names `tool_use`, used when the
    /// request has tools (as `transformers` chooses).
    tool_use: Option<String>,
    specials: Vec<(String, Value)>,
}

/// The special-token names of `tokenizer_config.json` that `transformers`
/// passes to a chat template.
const SPECIAL_NAMES: &[&str] = &[
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
];

impl ChatTemplate {
    /// A template from a file's bytes: a `tokenizer_config.json` (its
    /// `chat_template` and special tokens) when the file is a JSON object,
    /// else the template's own text.
    pub fn from_bytes(bytes: &[u8]) -> Result<ChatTemplate, Error> {
        let problem = |problem: String| Error::InvalidChatTemplate { problem };
        let text = std::str::from_utf8(bytes)
            .map_err(|e| problem(format!("file is not UTF-8 (at byte {})", e.valid_up_to())))?;
        if text.trim_start().starts_with('{')
            && let Ok(config) = serde_json::from_str::<serde_json::Value>(text)
            && config.is_object()
        {
            return ChatTemplate::from_config(&config)?.ok_or(Error::ChatTemplateMissing {
                looked_in: crate::error::ChatTemplatePlace::GivenConfig,
            });
        }
        Ok(ChatTemplate {
            source: text.to_owned(),
            tool_use: None,
            specials: Vec::new(),
        })
    }

    /// The template and special tokens of a parsed `tokenizer_config.json`;
    /// `None` when it has no `chat_template`.
    pub fn from_config(config: &serde_json::Value) -> Result<Option<ChatTemplate>, Error> {
        let problem = |problem: &str| Error::InvalidChatTemplate {
            problem: problem.to_owned(),
        };
        let (source, tool_use) = match config.get("chat_template") {
            None | Some(serde_json::Value::Null) => return Ok(None),
            Some(serde_json::Value::String(source)) => (source.clone(), None),
            Some(serde_json::Value::Array(named)) => {
                let find = |wanted: &str| {
                    named.iter().find_map(|entry| {
                        (entry.get("name")?.as_str()? == wanted)
                            .then(|| entry.get("template")?.as_str().map(str::to_owned))
                            .flatten()
                    })
                };
                let default = find("default").ok_or_else(|| {
                    problem("list of tokenizer_config.json names no `default` template")
                })?;
                (default, find("tool_use"))
            }
            Some(_) => {
                return Err(problem(
                    "in tokenizer_config.json is neither text nor a list",
                ));
            }
        };
        let mut specials = Vec::new();
        for name in SPECIAL_NAMES {
            let text = match config.get(*name) {
                Some(serde_json::Value::String(text)) => Some(text.clone()),
                Some(serde_json::Value::Object(token)) => token
                    .get("content")
                    .and_then(|c| c.as_str())
                    .map(str::to_owned),
                _ => None,
            };
            if let Some(text) = text {
                specials.push(((*name).to_owned(), Value::from(text)));
            }
        }
        if let Some(serde_json::Value::Array(extra)) = config.get("additional_special_tokens") {
            let texts: Vec<Value> = extra
                .iter()
                .filter_map(|token| match token {
                    serde_json::Value::String(text) => Some(Value::from(text.clone())),
                    serde_json::Value::Object(token) => {
                        token.get("content")?.as_str().map(Value::from)
                    }
                    _ => None,
                })
                .collect();
            specials.push(("additional_special_tokens".into(), Value::from(texts)));
        }
        Ok(Some(ChatTemplate {
            source,
            tool_use,
            specials,
        }))
    }

    /// gpt-oss's template, for `--encoding o200k_harmony` (its special
    /// tokens are written in the template itself).
    pub fn harmony() -> ChatTemplate {
        ChatTemplate {
            source: HARMONY_TEMPLATE.to_owned(),
            tool_use: None,
            specials: vec![
                ("bos_token".into(), Value::from("<|startoftext|>")),
                ("eos_token".into(), Value::from("<|return|>")),
                ("pad_token".into(), Value::from("<|endoftext|>")),
            ],
        }
    }

    /// Special tokens from a `tokenizer_config.json` for a template read
    /// from a `.jinja` file (the config beside the tokenizer file).
    pub fn with_specials_of(mut self, config: &serde_json::Value) -> ChatTemplate {
        if self.specials.is_empty()
            && let Ok(Some(from_config)) = ChatTemplate::from_config(&with_template(config))
        {
            self.specials = from_config.specials;
        }
        self
    }
}

/// `config` with a `chat_template` (so that [`ChatTemplate::from_config`]
/// reads its special tokens).
fn with_template(config: &serde_json::Value) -> serde_json::Value {
    let mut config = config.clone();
    if let Some(object) = config.as_object_mut() {
        object.insert(
            "chat_template".into(),
            serde_json::Value::String(String::new()),
        );
    }
    config
}

/// A request ready to be rendered and counted with a payload.
pub struct Framing {
    request: ChatRequest,
    /// The template's text (no marker may occur in it).
    source: String,
    renderer: Box<dyn render::Render>,
    counter: Counter,
    /// Every special token's text, searched in the request's strings.
    specials: Option<AhoCorasick>,
    /// The first failure while counting during a selection.
    failure: Mutex<Option<Error>>,
    /// See [`Framing::frame`].
    frame: std::sync::OnceLock<Option<(String, String)>>,
    /// Whether a string of the request holds a special token's text.
    request_holds_specials: bool,
}

impl std::fmt::Debug for Framing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Framing")
            .field("counts_with", &self.counter.label())
            .finish()
    }
}

/// A rendered request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// The request as the server receives it.
    pub text: String,
    /// The exact count of `text` (SPEC §2.4).
    pub tokens: usize,
}

impl Framing {
    /// Prepares `request` for rendering with `template` and counting with
    /// `counter`; `now` is the time `strftime_now` gives (seconds since
    /// 1970, UTC). Refuses a counter whose framing is not published
    /// (`request-framing-unknown`) and a template that does not parse.
    pub fn new(
        request: ChatRequest,
        template: &ChatTemplate,
        counter: Counter,
        now: i64,
        isolation: &render::Isolation,
        cancel: &crate::Cancel,
    ) -> Result<Framing, Error> {
        let Some(specials) = counter.special_texts() else {
            return Err(Error::RequestFramingUnknown {
                counted_with: counter.label(),
            });
        };
        let source = match (&template.tool_use, request.tools.kind()) {
            (Some(tool_use), ValueKind::Seq) => tool_use.clone(),
            _ => template.source.clone(),
        };
        let setup = render::RenderSetup {
            request: request.text.clone(),
            source: source.clone(),
            specials: template
                .specials
                .iter()
                .map(|(name, value)| {
                    let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
                    (name.clone(), value)
                })
                .collect(),
            marks: specials.iter().map(|text| (*text).to_owned()).collect(),
            now,
        };
        let renderer = match isolation {
            Some(renderers) => renderers.start(setup, cancel)?,
            None => Box::new(render::InProcess::new(&setup)?),
        };
        let specials = if specials.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&specials)
                    .map_err(|_| Error::InvalidChatTemplate {
                        problem:
                            "cannot be used: the tokenizer's special tokens are too many to search"
                                .into(),
                    })?,
            )
        };
        let request_holds_specials = holds_specials(&request, specials.as_ref());
        Ok(Framing {
            request_holds_specials,
            request,
            source,
            renderer,
            counter,
            specials,
            failure: Mutex::new(None),
            frame: std::sync::OnceLock::new(),
        })
    }

    /// A framing in openai-harmony's format, as vLLM renders a chat
    /// completion for gpt-oss (`--chat-format harmony`, see the `harmony`
    /// module): `o200k_harmony` only, in this process (nothing of the
    /// request's runs).
    pub fn harmony_format(
        request: ChatRequest,
        counter: Counter,
        now: i64,
    ) -> Result<Framing, Error> {
        if counter.encoding() != Some(Encoding::O200kHarmony) {
            return Err(Error::InvalidChatRequest {
                problem: format!(
                    "is rendered in harmony's format (--chat-format harmony), which is \
                     gpt-oss's; count it with --encoding o200k_harmony, not {}",
                    counter.label()
                ),
            });
        }
        let texts = counter.special_texts().unwrap_or_default();
        let search = || {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&texts)
                .ok()
        };
        let renderer = harmony::Harmony::new(&request.text, search(), now)?;
        let specials = search();
        let request_holds_specials = holds_specials(&request, specials.as_ref());
        Ok(Framing {
            request_holds_specials,
            request,
            source: String::new(),
            renderer: Box::new(renderer),
            counter,
            specials,
            failure: Mutex::new(None),
            frame: std::sync::OnceLock::new(),
        })
    }

    /// A framing for `counter` alone: the tokenizer file's template, or
    /// gpt-oss's for `o200k_harmony`.
    pub fn harmony_or_refused(
        request: ChatRequest,
        counter: Counter,
        now: i64,
        isolation: &render::Isolation,
        cancel: &crate::Cancel,
    ) -> Result<Framing, Error> {
        if counter.encoding() == Some(Encoding::O200kHarmony) {
            return Framing::new(
                request,
                &ChatTemplate::harmony(),
                counter,
                now,
                isolation,
                cancel,
            );
        }
        Err(Error::RequestFramingUnknown {
            counted_with: counter.label(),
        })
    }

    /// What the request is counted with.
    pub fn counter(&self) -> Counter {
        self.counter
    }

    /// The request rendered with `payload` in its place, and its exact
    /// count.
    pub fn render(&self, payload: &str) -> Result<Rendered, Error> {
        let plain = self.renderer.render(payload, None)?;
        if !self.strings_hold_specials(payload) {
            let tokens = self.count_text(&plain, &[])?;
            return Ok(Rendered {
                text: plain,
                tokens,
            });
        }
        let marker = self.marker(payload)?;
        let marked = self.renderer.render(payload, Some(&marker))?;
        let mut literal = Vec::new();
        let mut unmarked = String::with_capacity(plain.len());
        let mut from = 0;
        for (at, _) in marked.match_indices(marker.as_str()) {
            unmarked.push_str(&marked[from..at]);
            from = at + marker.len();
            // The special-token text whose first character is just
            // before: any match over these bytes is the message's.
            let position = unmarked.len();
            literal.push((position.saturating_sub(1), position + 1));
        }
        unmarked.push_str(&marked[from..]);
        if unmarked != plain {
            return Err(Error::InvalidChatTemplate {
                problem: "treats special-token text inside a message in its own way (it renders \
                          differently when that text is marked as the message's); packer cannot \
                          tell which special tokens the template writes, and refuses rather than \
                          count approximately"
                    .into(),
            });
        }
        let tokens = self.count_text(&plain, &literal)?;
        Ok(Rendered {
            text: plain,
            tokens,
        })
    }

    /// Whether the payload or a string of the request holds a special
    /// token's text.
    fn strings_hold_specials(&self, payload: &str) -> bool {
        self.request_holds_specials
            || self
                .specials
                .as_ref()
                .is_some_and(|search| search.is_match(payload))
    }

    fn count_text(&self, text: &str, literal: &[(usize, usize)]) -> Result<usize, Error> {
        self.counter
            .count_framed(text, literal)
            .ok_or_else(|| Error::UnsupportedTokenizer {
                component: "a special token matched after normalization next to special-token text in a message".into(),
            })
    }

    /// A marker for special-token text that appears nowhere in the
    /// template, the request or `payload` (see the `marker` module).
    fn marker(&self, payload: &str) -> Result<String, Error> {
        marker::free(payload, &self.source, &self.request)
    }

    /// The exact count of the request holding `payload`, for the
    /// selection: a failure is kept (see [`Framing::failure`]) and counts
    /// as more than any budget.
    pub(crate) fn count_or_note(&self, payload: &str) -> usize {
        match self.render(payload) {
            Ok(rendered) => rendered.tokens,
            Err(error) => self.note(error),
        }
    }

    /// [`Framing::count_or_note`], where `stretch` may count the ordinary
    /// stretch of the rendered request that holds the payload from what it
    /// knows of the payload's pieces (see
    /// [`crate::Counter::count_framed_around`]). Exact either way: where the
    /// shortcut does not apply (special-token text in a string, a payload
    /// the template does not write once and as it is), the request is
    /// counted whole.
    pub(crate) fn count_or_note_with(&self, payload: &str, stretch: Stretch<'_>) -> usize {
        match self.count_around(payload, stretch) {
            Ok(Some(tokens)) => tokens,
            Ok(None) => self.count_or_note(payload),
            Err(error) => self.note(error),
        }
    }

    fn count_around(&self, payload: &str, stretch: Stretch<'_>) -> Result<Option<usize>, Error> {
        if payload.is_empty() {
            return Ok(None);
        }
        if self.strings_hold_specials(payload) {
            return Ok(None);
        }
        let Some((before, after)) = self.frame() else {
            return Ok(None);
        };
        let text = self.renderer.render(payload, None)?;
        // The payload is where the stand-in was, and nothing else changed.
        let at = before.len();
        let same = text.len() == at + payload.len() + after.len()
            && text.starts_with(before.as_str())
            && text.ends_with(after.as_str())
            && text.as_bytes()[at..at + payload.len()] == *payload.as_bytes();
        if !same {
            return Ok(None);
        }
        Ok(self
            .counter
            .count_framed_around(&text, (at, at + payload.len()), stretch))
    }

    /// An error unless the template writes the payload: the request is
    /// rendered around a stand-in, which must be in it. A template that
    /// leaves the message out would count a request without the documents
    /// (SPEC §2.4: the payload goes into the request).
    pub(crate) fn check_payload_written(&self) -> Result<(), Error> {
        let text = self.renderer.render(STAND_IN, None)?;
        if text.contains(STAND_IN) {
            return Ok(());
        }
        Err(Error::InvalidChatTemplate {
            problem: "does not write the message that holds {{packer:documents}} (a request \
                      rendered with it leaves the documents out), or writes it changed \
                      beyond trimming; packer packs the documents into that message"
                .into(),
        })
    }

    /// The request rendered around a stand-in payload, cut where the
    /// stand-in is: `None` when the template does not write it exactly
    /// once, as it is.
    fn frame(&self) -> Option<&(String, String)> {
        self.frame
            .get_or_init(|| {
                let stand_in = STAND_IN;
                let text = self.renderer.render(stand_in, None).ok()?;
                let at = text.find(stand_in)?;
                if text[at + stand_in.len()..].contains(stand_in) {
                    return None;
                }
                Some((
                    text[..at].to_owned(),
                    text[at + stand_in.len()..].to_owned(),
                ))
            })
            .as_ref()
    }

    /// Keeps `error` if it is the first failure, and gives a count larger
    /// than any budget for the trial that met it.
    fn note(&self, error: Error) -> usize {
        let mut failure = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        failure.get_or_insert(error);
        usize::MAX / 4
    }

    /// The first failure [`Framing::count_or_note`] met, if any.
    pub(crate) fn failure(&self) -> Option<Error> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// A payload put in the request's place to find where the template writes
/// it (noncharacters around a name: no template trims or cuts them).
const STAND_IN: &str = "\u{FDD0}packer:payload\u{FDD1}";

/// Whether any string of `request` (its messages, tools and template
/// arguments) holds a special token's text.
fn holds_specials(request: &ChatRequest, specials: Option<&AhoCorasick>) -> bool {
    specials.is_some_and(|search| {
        any_string(&request.messages, search)
            || any_string(&request.tools, search)
            || request
                .arguments
                .iter()
                .any(|(_, value)| any_string(value, search))
    })
}

/// Whether any string in `value` holds a special token's text.
fn any_string(value: &Value, search: &AhoCorasick) -> bool {
    match value.kind() {
        ValueKind::String => search.is_match(value.as_str().unwrap_or_default()),
        ValueKind::Seq => value
            .try_iter()
            .into_iter()
            .flatten()
            .any(|item| any_string(&item, search)),
        ValueKind::Map => value
            .try_iter()
            .into_iter()
            .flatten()
            .any(|key| any_string(&value.get_item(&key).unwrap_or_default(), search)),
        _ => false,
    }
}

fn mark_value(value: &Value, mark: &dyn Fn(&str) -> String) -> Value {
    rebuild(value, &[], usize::MAX, "", mark)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::tokens::tests::reference;

    /// 2026-12-03 00:00:00 UTC.
    const NOW: i64 = 1_796_256_000;

    fn request(json: &str) -> ChatRequest {
        ChatRequest::from_bytes(json.as_bytes()).unwrap()
    }

    fn refusal(json: &str) -> String {
        let error = ChatRequest::from_bytes(json.as_bytes()).unwrap_err();
        assert_eq!(error.code(), "invalid-chat-request");
        error.to_string()
    }

    #[test]
    fn a_request_has_one_placeholder_in_one_message() {
        let secret = "SECRET-TEXT";
        assert!(refusal("{\"messages\": [").contains("line 1 column 14"));
        assert!(refusal(r#"[]"#).contains("JSON object"));
        assert!(refusal(r#"{"messages": []}"#).contains("at least one message"));
        let none = refusal(&format!(
            r#"{{"messages": [{{"role": "user", "content": "{secret}"}}]}}"#
        ));
        assert!(none.contains("no message whose text holds"), "{none}");
        assert!(!none.contains(secret), "{none}");
        let twice = refusal(
            r#"{"messages": [{"role": "user", "content": "{{packer:documents}} {{packer:documents}}"}]}"#,
        );
        assert!(twice.contains("2 times"), "{twice}");
        let in_tools = refusal(
            r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}],
                "tools": [{"type": "function", "function": {"name": "{{packer:documents}}"}}]}"#,
        );
        assert!(in_tools.contains("`tools`"), "{in_tools}");
        let roleless = refusal(r#"{"messages": [{"content": "{{packer:documents}}"}]}"#);
        assert!(roleless.contains("messages[0]"), "{roleless}");
        let unknown = refusal(&format!(
            r#"{{"messages": [{{"role": "user", "content": "{{{{packer:documents}}}}"}}], "{secret}": 1}}"#
        ));
        assert!(!unknown.contains(secret), "{unknown}");
        let reserved = refusal(
            r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}],
                "templateArguments": {"messages": []}}"#,
        );
        assert!(reserved.contains("`messages`"), "{reserved}");
        // The reader every front end shares: a key twice, a lone surrogate.
        let twice_keyed = refusal(
            r#"{"messages": [{"role": "user", "content": "{{packer:documents}}", "role": "x"}]}"#,
        );
        assert!(
            twice_keyed.contains("a key twice in one object at line 1 column"),
            "{twice_keyed}"
        );
        let lone =
            refusal(r#"{"messages": [{"role": "user\ud800", "content": "{{packer:documents}}"}]}"#);
        assert!(lone.contains("lone surrogate escape at line 1"), "{lone}");
        // In a content part, as multimodal templates take text.
        request(
            r#"{"messages": [{"role": "user", "content": [{"type": "text", "text": "{{packer:documents}}"}]}]}"#,
        );
    }

    fn harmony(json: &str) -> Framing {
        Framing::new(
            request(json),
            &ChatTemplate::harmony(),
            Counter::new(Encoding::O200kHarmony),
            NOW,
            &None,
            &crate::Cancel::default(),
        )
        .unwrap()
    }

    fn all_specials() -> HashSet<&'static str> {
        crate::tokens::tiktoken::harmony_specials_for_tests()
    }

    #[test]
    fn harmony_special_tokens_are_tiktokens() {
        assert_eq!(
            all_specials(),
            reference(Encoding::O200kHarmony).special_tokens()
        );
    }

    #[test]
    fn harmony_renders_and_counts_as_tiktoken_encodes_the_rendering() {
        let framing = harmony(
            r#"{"messages": [
                {"role": "system", "content": "Answer from the documents."},
                {"role": "user", "content": "Documents:\n{{packer:documents}}\nWhich one?"}],
                "tools": [{"type": "function", "function": {"name": "lookup",
                  "description": "Looks a term up — in the café's index",
                  "parameters": {"type": "object", "properties": {
                    "term": {"type": "string", "description": "The term"},
                    "limit": {"type": "integer", "default": 5}},
                    "required": ["term"]}}}]}"#,
        );
        let payload = r#"{"documents":[{"id":"a","content":"fn main() {}\n"}]}"#;
        let rendered = framing.render(payload).unwrap();
        assert!(rendered.text.starts_with(
            "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\nKnowledge cutoff: 2024-06\nCurrent date: 2026-12-03\n\n"
        ), "{}", rendered.text);
        assert!(rendered.text.contains("// Looks a term up — in the café's index\ntype lookup = (_: {\n// The term\nterm: string,\nlimit?: number, // default: 5,\n}) => any;"), "{}", rendered.text);
        assert!(rendered.text.ends_with(&format!(
            "<|start|>user<|message|>Documents:\n{payload}\nWhich one?<|end|><|start|>assistant"
        )));
        let oracle = reference(Encoding::O200kHarmony);
        let (ids, _) = oracle.encode(&rendered.text, &all_specials()).unwrap();
        assert_eq!(rendered.tokens, ids.len());
        assert!(rendered.tokens > Counter::new(Encoding::O200kHarmony).count(payload) + 100);
    }

    #[test]
    fn special_token_text_in_a_message_is_ordinary_text() {
        let framing = harmony(
            r#"{"messages": [{"role": "user", "content": "Read <|endoftext|> as text: {{packer:documents}}"}]}"#,
        );
        let payload = "a payload that writes <|start|> and <|endoftext|> as text";
        let rendered = framing.render(payload).unwrap();
        // The template's own special tokens are special; the message's
        // `<|start|>` and `<|endoftext|>` are not: tiktoken with every
        // special token allowed but those two, which the template does not
        // write after the first `<|start|>`... so count the template's
        // part and the message's part apart, each as tiktoken splits them.
        let oracle = reference(Encoding::O200kHarmony);
        let at = rendered.text.find("Read <|endoftext|>").unwrap();
        let end = rendered.text[at..].find("<|end|>").unwrap() + at;
        let (before, _) = oracle
            .encode(&rendered.text[..at], &all_specials())
            .unwrap();
        let message = oracle.encode_ordinary(&rendered.text[at..end]);
        let (after, _) = oracle
            .encode(&rendered.text[end..], &all_specials())
            .unwrap();
        assert_eq!(rendered.tokens, before.len() + message.len() + after.len());
        // Counted as tiktoken would with every special token allowed, the
        // message's texts would be three single tokens instead.
        let (all, _) = oracle.encode(&rendered.text, &all_specials()).unwrap();
        assert!(all.len() < rendered.tokens);
    }

    #[test]
    fn a_template_that_looks_at_special_token_text_in_messages_is_refused() {
        let template = ChatTemplate::from_bytes(
            b"{% for m in messages %}{% if '<|start|>' in m.content %}x{% endif %}<|start|>{{ m.content }}<|end|>{% endfor %}",
        )
        .unwrap();
        let framing = Framing::new(
            request(r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}]}"#),
            &template,
            Counter::new(Encoding::O200kHarmony),
            NOW,
            &None,
            &crate::Cancel::default(),
        )
        .unwrap();
        assert!(framing.render("plain").is_ok());
        let error = framing.render("has <|start|> inside").unwrap_err();
        assert_eq!(error.code(), "invalid-chat-template");
        assert!(!error.to_string().contains("has <|start|> inside"));
    }

    #[test]
    fn api_encodings_have_no_published_framing() {
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ] {
            let error = Framing::harmony_or_refused(
                request(r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}]}"#),
                Counter::new(encoding),
                NOW,
                &None,
                &crate::Cancel::default(),
            )
            .unwrap_err();
            assert_eq!(error.code(), "request-framing-unknown");
            assert!(
                error.to_string().contains("--reserved-other-input-tokens"),
                "{error}"
            );
            // A template does not make their framing known either.
            let error = Framing::new(
                request(r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}]}"#),
                &ChatTemplate::harmony(),
                Counter::new(encoding),
                NOW,
                &None,
                &crate::Cancel::default(),
            )
            .unwrap_err();
            assert_eq!(error.code(), "request-framing-unknown");
        }
    }

    #[test]
    fn a_config_gives_the_template_and_its_special_tokens() {
        let config = br#"{"bos_token": {"content": "<s>", "lstrip": false},
            "eos_token": "</s>", "pad_token": null,
            "chat_template": [{"name": "default", "template": "{{ bos_token }}D{{ eos_token }}{{ pad_token }}"},
                              {"name": "tool_use", "template": "{{ bos_token }}T"}]}"#;
        let template = ChatTemplate::from_bytes(config).unwrap();
        let render = |json: &str| {
            Framing::new(
                request(json),
                &template,
                Counter::new(Encoding::O200kHarmony),
                NOW,
                &None,
                &crate::Cancel::default(),
            )
            .unwrap()
            .render("x")
            .unwrap()
            .text
        };
        assert_eq!(
            render(r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}]}"#),
            "<s>D</s>"
        );
        assert_eq!(
            render(
                r#"{"messages": [{"role": "user", "content": "{{packer:documents}}"}], "tools": []}"#
            ),
            "<s>T"
        );
        let error = ChatTemplate::from_bytes(br#"{"eos_token": "</s>"}"#).unwrap_err();
        assert_eq!(error.code(), "invalid-chat-template");
        assert_eq!(
            error.to_string(),
            "the chat template is missing: the tokenizer_config.json given has no \
             chat_template; give it with --chat-template"
        );
    }
}
