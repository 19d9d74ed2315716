//! Rendering a request, here or elsewhere.
//!
//! A chat template is a program from wherever the model's files came from:
//! a downloaded model folder, a tree's `packer.toml`, an MCP client. A
//! template can nest a value deeper than any stack, ask for more memory
//! than the machine has or loop for hours, and minijinja's instruction fuel
//! bounds none of that. So what renders is a seam: [`Render`] renders a
//! request with a payload, again and again during a selection, and
//! [`Renderers`] starts one from a [`RenderSetup`] (plain data, so that a
//! worker process can be sent it). [`InProcess`] renders in this process;
//! the front ends start one in a worker process with limits on its memory
//! and time, where a crash is an error and not the end of the caller.

use std::sync::Arc;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use minijinja::Value;
use serde::{Deserialize, Serialize};

use super::{ChatRequest, jinja};
use crate::Cancel;
use crate::error::Error;

/// What a renderer needs to render a request with any payload: the request
/// file's text, the template's, the special tokens the template is given,
/// the special tokens' texts to mark, and the time. Plain data: a worker
/// process is sent it as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RenderSetup {
    /// The request's JSON text, as [`ChatRequest::from_bytes`] reads it.
    pub request: String,
    /// The template's text (the `tool_use` one for a request with tools).
    pub source: String,
    /// The special tokens the template is given (`bos_token`, ...).
    pub specials: Vec<(String, serde_json::Value)>,
    /// The texts of the counter's special tokens, which
    /// [`Render::render`] marks in the request's strings when asked.
    pub marks: Vec<String>,
    /// What `strftime_now` formats: seconds since 1970, UTC.
    pub now: i64,
}

/// Renders one request with a payload.
pub trait Render: Send + Sync {
    /// The request rendered with `payload` in the placeholder's place;
    /// with `marker`, every special token's text in the request's strings
    /// (the payload's too) has `marker` after its first character.
    fn render(&self, payload: &str, marker: Option<&str>) -> Result<String, Error>;
}

/// Starts renderers: where a request's template runs.
pub trait Renderers: Send + Sync + std::fmt::Debug {
    /// A renderer for `setup` (refusing a template that does not parse);
    /// a render under way when `cancel` is set ends with
    /// [`Error::Cancelled`].
    fn start(&self, setup: RenderSetup, cancel: &Cancel) -> Result<Box<dyn Render>, Error>;
}

/// Where a [`crate::Chat`]'s template runs: `None` is this process.
pub type Isolation = Option<Arc<dyn Renderers>>;

/// A request rendered in this process: minijinja with its own bounds
/// (instructions, output and the sizes templates ask of filters), and
/// nothing against a template that nests a value deeper than the stack.
pub struct InProcess {
    request: ChatRequest,
    environment: jinja::Environment,
    marks: Option<AhoCorasick>,
}

impl InProcess {
    /// Reads the request and compiles the template of `setup`.
    pub fn new(setup: &RenderSetup) -> Result<InProcess, Error> {
        let request = ChatRequest::from_bytes(setup.request.as_bytes())?;
        let mut globals: Vec<(String, Value)> = setup
            .specials
            .iter()
            .map(|(name, value)| (name.clone(), Value::from_serialize(value)))
            .collect();
        globals.extend(request.arguments.iter().cloned());
        let environment = jinja::Environment::new(setup.source.clone(), globals, setup.now)?;
        let marks = if setup.marks.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&setup.marks)
                    .map_err(|_| Error::InvalidChatTemplate {
                        problem:
                            "cannot be used: the tokenizer's special tokens are too many to search"
                                .into(),
                    })?,
            )
        };
        Ok(InProcess {
            request,
            environment,
            marks,
        })
    }
}

impl Render for InProcess {
    fn render(&self, payload: &str, marker: Option<&str>) -> Result<String, Error> {
        let mark = |text: &str| marked(text, self.marks.as_ref(), marker);
        let messages = self.request.messages_with(payload, &mark);
        let tools = super::mark_value(&self.request.tools, &mark);
        let arguments: Vec<(String, Value)> = self
            .request
            .arguments
            .iter()
            .map(|(name, value)| (name.clone(), super::mark_value(value, &mark)))
            .collect();
        self.environment.render(
            messages,
            tools,
            self.request.add_generation_prompt,
            &arguments,
        )
    }
}

/// [`Renderers`] that render in this process.
#[derive(Debug, Clone, Copy, Default)]
pub struct HereRenderers;

impl Renderers for HereRenderers {
    fn start(&self, setup: RenderSetup, _cancel: &Cancel) -> Result<Box<dyn Render>, Error> {
        Ok(Box::new(InProcess::new(&setup)?))
    }
}

/// `text` with `marker` after the first character of each special
/// token's text `search` finds in it; `text` as it is without either.
pub(super) fn marked(text: &str, search: Option<&AhoCorasick>, marker: Option<&str>) -> String {
    let (Some(search), Some(marker)) = (search, marker) else {
        return text.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for found in search.find_iter(text) {
        let first = text[found.start()..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        out.push_str(&text[from..found.start() + first]);
        out.push_str(marker);
        from = found.start() + first;
    }
    out.push_str(&text[from..]);
    out
}
