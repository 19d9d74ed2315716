//! A gpt-oss request rendered as vLLM renders a chat completion for it
//! (`--chat-format harmony`): the request's messages and tools turned into
//! harmony messages as vLLM's chat-completions path turns them, then
//! written as OpenAI's `openai-harmony` library writes a conversation for
//! completion (`render_conversation_for_completion`, next turn the
//! assistant's).
//!
//! What is written:
//!
//! - a system message: the model identity, the knowledge cutoff, the
//!   current date (`now`, UTC), the reasoning effort (`templateArguments`
//!   `reasoning_effort`, default medium) and the valid channels, with the
//!   line that sends calls to the commentary channel when there are
//!   function tools;
//! - a developer message when the first message is a `system` or
//!   `developer` message with text (`# Instructions`) or there are tools
//!   (`# Tools`, the function tools as TypeScript-like types in
//!   `namespace functions { ... }`, see [`super::typescript`]);
//! - user messages as they are; an assistant message's `content` on the
//!   final channel, its `reasoning` on the analysis channel (dropped before
//!   the last final answer); an assistant's tool calls each as a message
//!   `to=functions.NAME` on the commentary channel with content type
//!   `json` and the call's `arguments` string, its `content` (if any) on
//!   the commentary channel first; a tool result from `functions.NAME` (the
//!   call whose `id` is its `tool_call_id`) `to=assistant` on the
//!   commentary channel;
//! - then `<|start|>assistant`.
//!
//! What vLLM releases render differently, or the library writes as pieces
//! that would count otherwise than the whole text, is refused
//! (`invalid-chat-request`), never rendered another way: see
//! [`Harmony::new`].

use aho_corasick::AhoCorasick;
use serde_json::Value;

use super::render::Render;
use super::{PLACEHOLDER, typescript};
use crate::error::Error;

/// The model identity `SystemContent.new()` writes.
const IDENTITY: &str = "You are ChatGPT, a large language model trained by OpenAI.";
/// The knowledge cutoff `SystemContent.new()` writes.
const CUTOFF: &str = "2024-06";

/// A request rendered in harmony's format.
pub struct Harmony {
    messages: Vec<Value>,
    tools: Vec<Value>,
    /// Each tool's `function`, keys in their order.
    functions: Vec<typescript::Json>,
    effort: String,
    date: String,
    marks: Option<AhoCorasick>,
}

/// One harmony message: its header and its text.
struct Message {
    /// `user`, `assistant`, ..., or a tool's name.
    author: String,
    recipient: Option<String>,
    channel: Option<&'static str>,
    content_type: Option<&'static str>,
    text: String,
}

fn refused(problem: impl Into<String>) -> Error {
    Error::InvalidChatRequest {
        problem: format!(
            "{} (--chat-format harmony renders only what openai-harmony and vLLM render one way)",
            problem.into()
        ),
    }
}

impl Harmony {
    /// Reads the request (its JSON text, as `ChatRequest` read it), with
    /// `marks` the special tokens' texts to mark and `now` the time (seconds
    /// since 1970, UTC). Refuses what it cannot render exactly as the
    /// library does in vLLM: `addGenerationPrompt` false; template
    /// arguments other than `reasoning_effort` (low, medium, high); tools
    /// other than functions, or with parameters that are not an object or
    /// defaults holding a fraction or an integer beyond 64 bits; a `system`
    /// or `developer` message after the first; a role other than `system`,
    /// `developer`, `user`, `assistant` and `tool`; a message whose content
    /// is not text or text parts, or is several parts where the library
    /// writes each apart (user and final assistant text); `reasoning_content`
    /// or `thinking` (vLLM reads `reasoning`); a tool call without a string
    /// name and string arguments, or a name with white space; and reasoning
    /// in an earlier turn that a later final answer follows (vLLM releases
    /// drop it or keep it).
    pub fn new(text: &str, marks: Option<AhoCorasick>, now: i64) -> Result<Harmony, Error> {
        let top: Value =
            serde_json::from_str(text).map_err(|_| refused("is not JSON that serde_json reads"))?;
        let messages = top
            .get("messages")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let tools = match top.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(tools)) => tools.clone(),
            Some(_) => return Err(refused("has `tools` that is not a list")),
        };
        if top.get("addGenerationPrompt") == Some(&Value::Bool(false)) {
            return Err(refused(
                "sets addGenerationPrompt false; vLLM always renders for completion",
            ));
        }
        let mut effort = "medium".to_owned();
        if let Some(arguments) = top.get("templateArguments").and_then(Value::as_object) {
            for (name, value) in arguments {
                match (name.as_str(), value.as_str()) {
                    ("reasoning_effort", Some(level @ ("low" | "medium" | "high"))) => {
                        effort = level.to_owned();
                    }
                    ("reasoning_effort", _) => {
                        return Err(refused(
                            "has a reasoning_effort other than low, medium, high",
                        ));
                    }
                    _ => {
                        return Err(refused(format!(
                            "sets `{name}` in `templateArguments`; only reasoning_effort is read"
                        )));
                    }
                }
            }
        }
        #[derive(serde::Deserialize)]
        struct Ordered {
            tools: Option<Vec<typescript::Json>>,
        }
        let ordered: Ordered = serde_json::from_str(text)
            .map_err(|_| refused("has a number in `tools` that is not finite"))?;
        let functions: Vec<typescript::Json> = ordered
            .tools
            .unwrap_or_default()
            .iter()
            .filter_map(|tool| tool.get("function").cloned())
            .collect();
        for (index, tool) in tools.iter().enumerate() {
            check_tool(tool).map_err(|problem| refused(format!("has tools[{index}] {problem}")))?;
        }
        for (index, function) in functions.iter().enumerate() {
            if let Some(parameters) = function.get("parameters") {
                typescript::check_defaults(parameters)
                    .map_err(|problem| refused(format!("has tools[{index}] {problem}")))?;
            }
        }
        let harmony = Harmony {
            messages,
            tools,
            functions,
            effort,
            date: utc_date(now),
            marks,
        };
        // Every refusal of the messages shows with any payload.
        harmony.conversation("", &|text| text.to_owned())?;
        Ok(harmony)
    }

    /// The harmony messages of the request with `payload` in its place and
    /// every string passed through `mark`.
    fn conversation(
        &self,
        payload: &str,
        mark: &dyn Fn(&str) -> String,
    ) -> Result<Vec<Message>, Error> {
        let text = |value: &str| -> String {
            match value.split_once(PLACEHOLDER) {
                Some((before, after)) => {
                    format!("{}{}{}", mark(before), mark(payload), mark(after))
                }
                None => mark(value),
            }
        };
        let mut rest: &[Value] = &self.messages;
        let mut instructions = None;
        if let Some(first) = rest.first()
            && matches!(role(first), Some("system" | "developer"))
        {
            instructions = flatten(first.get("content"))
                .map_err(|problem| refused(format!("has messages[0] {problem}")))?
                .map(|joined| text(&joined));
            rest = &rest[1..];
        }
        let mut out = vec![];
        let functions = &self.functions;
        let developer =
            instructions.as_ref().is_some_and(|i| !i.is_empty()) || !self.tools.is_empty();
        let mut system = format!(
            "{IDENTITY}\nKnowledge cutoff: {CUTOFF}\nCurrent date: {}\n\nReasoning: {}\n\n# Valid \
             channels: analysis, commentary, final. Channel must be included for every message.",
            self.date, self.effort
        );
        if !functions.is_empty() {
            system
                .push_str("\nCalls to these tools must go to the commentary channel: 'functions'.");
        }
        out.push(Message::plain("system", system));
        if developer {
            let mut sections = vec![];
            if let Some(instructions) = instructions {
                sections.push("# Instructions".to_owned());
                sections.push(instructions);
            }
            if !functions.is_empty() {
                let functions: Vec<typescript::Json> = functions
                    .iter()
                    .map(|function| typescript::mark(function, &text))
                    .collect();
                sections.push(typescript::tools_section(&functions));
            }
            out.push(Message::plain("developer", sections.join("\n\n")));
        }
        let offset = self.messages.len() - rest.len();
        let mut names = std::collections::HashMap::new();
        for message in rest {
            if let Some(Value::Array(calls)) = message.get("tool_calls") {
                for call in calls {
                    let name = call.pointer("/function/name").and_then(Value::as_str);
                    match call.get("id") {
                        None | Some(Value::Null) => {}
                        Some(Value::String(id)) => {
                            names.insert(id.as_str(), name);
                        }
                        Some(_) => return Err(refused("has a tool call whose id is not a string")),
                    }
                }
            }
        }
        let mut user_at = None;
        let mut earliest_analysis = None;
        for (index, message) in rest.iter().enumerate() {
            let at =
                |problem: String| refused(format!("has messages[{}] {problem}", index + offset));
            let before = out.len();
            self.message(message, &names, &text, &mut out).map_err(at)?;
            for (position, written) in out.iter().enumerate().skip(before) {
                if written.author == "user" {
                    user_at = Some(position);
                }
                if written.channel == Some("analysis") && earliest_analysis.is_none() {
                    earliest_analysis = Some((position, index + offset));
                }
            }
        }
        let last_final = out
            .iter()
            .rposition(|m| m.author == "assistant" && m.channel == Some("final"));
        if let Some(last_final) = last_final {
            if let (Some((analysis, index)), Some(user)) = (earliest_analysis, user_at)
                && analysis < last_final
                && analysis < user
            {
                return Err(refused(format!(
                    "has reasoning in messages[{index}], in an earlier turn a later final answer \
                     follows; vLLM releases drop it or keep it, so its count is not known"
                )));
            }
            let mut position = 0;
            out.retain(|m| {
                position += 1;
                !(position - 1 < last_final && m.channel == Some("analysis"))
            });
        }
        Ok(out)
    }

    /// Appends the harmony messages of one chat message (after the first).
    fn message(
        &self,
        message: &Value,
        names: &std::collections::HashMap<&str, Option<&str>>,
        text: &dyn Fn(&str) -> String,
        out: &mut Vec<Message>,
    ) -> Result<(), String> {
        let Some(object) = message.as_object() else {
            return Err("that is not an object".into());
        };
        for key in ["reasoning_content", "thinking"] {
            if object.get(key).is_some_and(|v| !v.is_null()) {
                return Err(format!(
                    "with `{key}`; vLLM reads an assistant's reasoning from `reasoning` only"
                ));
            }
        }
        let reasoning = match object.get("reasoning") {
            None | Some(Value::Null) => None,
            Some(Value::String(reasoning)) if reasoning.is_empty() => None,
            Some(Value::String(reasoning)) => Some(text(reasoning)),
            Some(_) => return Err("with a `reasoning` that is not a string".into()),
        };
        let calls = match object.get("tool_calls") {
            None => &[][..],
            Some(Value::Array(calls)) => &calls[..],
            Some(_) => return Err("with `tool_calls` that is not a list".into()),
        };
        let role = role(message).unwrap_or_default();
        match role {
            "assistant" if !calls.is_empty() => {
                if let Some(content) = flatten(object.get("content"))?.filter(|c| !c.is_empty()) {
                    out.push(Message::plain("assistant", text(&content)).on("commentary"));
                }
                if let Some(reasoning) = reasoning {
                    out.push(Message::plain("assistant", reasoning).on("analysis"));
                }
                for call in calls {
                    let name = call.pointer("/function/name").and_then(Value::as_str);
                    let arguments = call.pointer("/function/arguments");
                    let (Some(name), None | Some(Value::String(_) | Value::Null)) =
                        (name, arguments)
                    else {
                        return Err(
                            "with a tool call whose name or arguments is not a string".into()
                        );
                    };
                    check_name(name)?;
                    let arguments = match call.pointer("/function/arguments") {
                        Some(Value::String(arguments)) => text(arguments),
                        _ => String::new(),
                    };
                    let mut call = Message::plain("assistant", arguments).on("commentary");
                    call.recipient = Some(format!("functions.{}", text(name)));
                    call.content_type = Some("json");
                    out.push(call);
                }
            }
            "tool" => {
                let id = match object.get("tool_call_id") {
                    None => "",
                    Some(Value::String(id)) => id.as_str(),
                    Some(_) => return Err("with a tool_call_id that is not a string".into()),
                };
                let name = match names.get(id) {
                    None => "",
                    Some(Some(name)) => name,
                    Some(None) => return Err("answering a tool call without a name".into()),
                };
                let content = flatten(object.get("content"))?.unwrap_or_default();
                let mut result =
                    Message::plain(&format!("functions.{}", text(name)), text(&content));
                result.channel = Some("commentary");
                result.recipient = Some("assistant".into());
                out.push(result);
            }
            "assistant" | "user" => {
                if role == "assistant"
                    && let Some(reasoning) = reasoning
                {
                    out.push(Message::plain("assistant", reasoning).on("analysis"));
                }
                let content = single_text(object.get("content"))?;
                if role == "user" {
                    out.push(Message::plain("user", text(&content)));
                } else if !content.is_empty() {
                    out.push(Message::plain("assistant", text(&content)).on("final"));
                }
            }
            "system" | "developer" => {
                return Err(format!(
                    "with role {role} after the first message; vLLM releases write it as a \
                     {role} message or as developer instructions"
                ));
            }
            _ => return Err("with a role openai-harmony does not know".into()),
        }
        Ok(())
    }

    fn mark(&self, text: &str, marker: Option<&str>) -> String {
        super::render::marked(text, self.marks.as_ref(), marker)
    }
}

impl Render for Harmony {
    fn render(&self, payload: &str, marker: Option<&str>) -> Result<String, Error> {
        let messages = self.conversation(payload, &|text| self.mark(text, marker))?;
        let mut out = String::new();
        for message in messages {
            out.push_str("<|start|>");
            out.push_str(&message.author);
            if let Some(recipient) = &message.recipient {
                out.push_str(" to=");
                out.push_str(recipient);
            }
            if let Some(channel) = message.channel {
                out.push_str("<|channel|>");
                out.push_str(channel);
            }
            if let Some(content_type) = message.content_type {
                out.push(' ');
                out.push_str(content_type);
            }
            out.push_str("<|message|>");
            out.push_str(&message.text);
            let call = message.author == "assistant" && message.recipient.is_some();
            out.push_str(if call { "<|call|>" } else { "<|end|>" });
        }
        out.push_str("<|start|>assistant");
        Ok(out)
    }
}

impl Message {
    fn plain(author: &str, text: String) -> Message {
        Message {
            author: author.to_owned(),
            recipient: None,
            channel: None,
            content_type: None,
            text,
        }
    }

    fn on(mut self, channel: &'static str) -> Message {
        self.channel = Some(channel);
        self
    }
}

fn role(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// A content's text as vLLM flattens it (a string, or the text parts
/// joined); `None` for none.
fn flatten(content: Option<&Value>) -> Result<Option<String>, String> {
    match content {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(Value::Array(parts)) => {
            let mut texts = vec![];
            for part in parts {
                texts.push(part_text(part)?);
            }
            Ok((!texts.is_empty()).then(|| texts.concat()))
        }
        Some(_) => Err("with content that is neither text nor a list of parts".into()),
    }
}

/// A user's or a final answer's text: one string or one text part (the
/// library writes each part apart, which may count otherwise than the
/// parts joined).
fn single_text(content: Option<&Value>) -> Result<String, String> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.clone()),
        Some(Value::Array(parts)) if parts.is_empty() => Ok(String::new()),
        Some(Value::Array(parts)) if parts.len() == 1 => part_text(&parts[0]),
        Some(Value::Array(_)) => Err(
            "with several content parts; openai-harmony writes each apart, which may count \
             otherwise than the text joined; join them into one string"
                .into(),
        ),
        Some(_) => Err("with content that is neither text nor a list of parts".into()),
    }
}

fn part_text(part: &Value) -> Result<String, String> {
    match (
        part.get("type").and_then(Value::as_str),
        part.get("text").and_then(Value::as_str),
    ) {
        (Some("text"), Some(text)) => Ok(text.to_owned()),
        _ => Err("with a content part that is not {\"type\": \"text\", \"text\": ...}".into()),
    }
}

/// A name written in a header: white space in it could join the text
/// around it into other tokens than the library's pieces make.
fn check_name(name: &str) -> Result<(), String> {
    if name.chars().any(char::is_whitespace) {
        return Err("with a tool name that holds white space".into());
    }
    Ok(())
}

fn check_tool(tool: &Value) -> Result<(), String> {
    if tool.get("type").and_then(Value::as_str) != Some("function") {
        return Err("whose type is not \"function\"".into());
    }
    let Some(function) = tool.get("function") else {
        return Err("without `function`".into());
    };
    let Some(name) = function.get("name").and_then(Value::as_str) else {
        return Err("without a string name".into());
    };
    check_name(name)?;
    match function.get("description") {
        None | Some(Value::Null | Value::String(_)) => {}
        Some(_) => return Err("whose description is not a string".into()),
    }
    match function.get("parameters") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::Object(_)) => Ok(()),
        Some(_) => Err("whose parameters are not an object".into()),
    }
}

/// `now` as `%Y-%m-%d`, UTC.
fn utc_date(now: i64) -> String {
    let (year, month, day) = super::jinja::civil_from_days(now.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_days() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(1_796_256_000), "2026-12-03");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(utc_date(-1), "1969-12-31");
    }
}
