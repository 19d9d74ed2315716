//! One line of standard input read as a JSON-RPC 2.0 message, before rmcp
//! sees it: every request that is not valid gets its error here, with the
//! request's id whenever the id can be read, so that no client waits for an
//! answer that never comes.
//!
//! | code | when | id |
//! |---|---|---|
//! | -32700 | the line is not JSON (not UTF-8, bad syntax, a number out of range, or unclosed nesting deeper than 128 levels) | null, unless the number was out of range |
//! | -32600 | JSON, but not a valid request: not one object, `jsonrpc` not `"2.0"`, an id that is not a string or an integer of 64 bits, `method` not a string, `params` not an object or array, neither `method` nor a response's `result` or `error`, a key twice in one object, an unpaired surrogate escape, nesting deeper than 128 levels; a line over the server's limit (see [`oversized`]) | the request's, when it is a string or an integer; else null |
//! | -32602 | `params` that do not fit a method the server serves (`initialize`, `ping`, `tools/list`, `tools/call`) | the request's |
//! | -32601 | a method MCP does not define (rmcp answers MCP's other methods, naming the method) | the request's |
//!
//! A malformed notification (a message with a string `method` and no `id`)
//! gets no answer, as JSON-RPC 2.0 says. Responses from the client go on to
//! rmcp when they parse and are dropped when they do not.
//!
//! The JSON text is read by packer's own strict reader ([`packer::json`]),
//! except a `tools/call`'s `arguments`: those are left as the client wrote
//! them for the tool, which reads them with the same reader and answers a
//! duplicate key, an unpaired surrogate or deep nesting as a tool error
//! with the command line's code and message (see [`RawArguments`]).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, RequestId};
use serde::Serialize;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use packer::error::Position;

/// JSON-RPC's "Parse error".
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC's "Invalid Request".
pub const INVALID_REQUEST: i32 = -32600;
/// The message of every "Method not found" this server writes itself.
const METHOD_NOT_FOUND_MESSAGE: &str =
    "Method not found; this server serves initialize, ping, tools/list and tools/call";

/// JSON-RPC's "Method not found".
pub const METHOD_NOT_FOUND: i32 = -32601;
/// JSON-RPC's "Invalid params".
pub const INVALID_PARAMS: i32 = -32602;

/// The methods this server serves: a request for one of them whose params
/// rmcp cannot read is answered "Invalid params" rather than "Method not
/// found".
const SERVED: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

/// A `tools/call`'s arguments as the client wrote them: the whole request
/// line and where the arguments object lies in it. The server puts it in
/// the request's extensions; the tool reads the arguments from it with the
/// strict reader (and rmcp sees `"arguments":{}` instead).
#[derive(Debug, Clone)]
pub struct RawArguments {
    line: Arc<String>,
    range: Range<usize>,
}

impl RawArguments {
    /// Arguments that come as a text of their own (not from a request
    /// line): they start at offset 0.
    pub fn new(text: String) -> RawArguments {
        let range = 0..text.len();
        RawArguments {
            line: Arc::new(text),
            range,
        }
    }

    /// The arguments' JSON text.
    pub fn text(&self) -> &str {
        &self.line[self.range.clone()]
    }

    /// Where the arguments start in the request line, in bytes.
    pub fn offset(&self) -> usize {
        self.range.start
    }
}

/// What to do with one line.
#[derive(Debug)]
pub enum Read {
    /// A message for rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// An error to answer at once.
    Refused(Refusal),
    /// Nothing: a blank line, a malformed notification, or a malformed
    /// response (`why` says which, for the log).
    Nothing {
        /// Why the line was dropped, if it was not blank.
        why: Option<Refusal>,
    },
}

/// A JSON-RPC error response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The request's id, when it could be read and echoed.
    pub id: Option<RequestId>,
    /// The JSON-RPC error code.
    pub code: i32,
    /// The message: fixed text, names and positions, never bytes of the line.
    pub message: String,
}

impl Refusal {
    fn new(id: Option<RequestId>, code: i32, message: impl Into<String>) -> Refusal {
        Refusal {
            id,
            code,
            message: message.into(),
        }
    }

    /// The response line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct Response<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            error: Body<'a>,
        }
        #[derive(Serialize)]
        struct Body<'a> {
            code: i32,
            message: &'a str,
        }
        let mut line = serde_json::to_vec(&Response {
            jsonrpc: "2.0",
            id: self.id.as_ref(),
            error: Body {
                code: self.code,
                message: &self.message,
            },
        })
        .expect("a refusal always serializes");
        line.push(b'\n');
        line
    }
}

/// The message for a line longer than `limit` bytes.
pub fn oversized(
    id: Option<RequestId>,
    limit: usize,
    max_input_bytes: u64,
    room: usize,
) -> Refusal {
    Refusal::new(
        id,
        INVALID_REQUEST,
        format!(
            "Invalid Request: the message is longer than this server's limit of {limit} bytes \
             (--max-input-bytes {max_input_bytes} plus {room} for the rest of the message); \
             start the server with `packer mcp --max-input-bytes N` to accept larger documents"
        ),
    )
}

/// Reads one line (without its newline).
pub fn read(mut line: Vec<u8>) -> Read {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    // RFC 8259 lets a parser ignore a byte order mark; so does rmcp.
    if line.starts_with(b"\xEF\xBB\xBF") {
        line.drain(..3);
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Read::Nothing { why: None };
    }
    let text = match String::from_utf8(line) {
        Ok(text) => text,
        Err(error) => {
            let at = error.utf8_error().valid_up_to();
            return Read::Refused(Refusal::new(
                None,
                PARSE_ERROR,
                format!("Parse error: the message is not valid UTF-8 at byte {at}"),
            ));
        }
    };
    read_text(Arc::new(text))
}

fn read_text(line: Arc<String>) -> Read {
    let text = line.as_str();
    // The members, each value as text: this checks the JSON grammar of the
    // whole line without nesting limits or building anything.
    let members = match serde_json::from_str::<Object<'_>>(text) {
        Ok(members) => members,
        Err(error) if error.is_data() && serde_json::from_str::<IgnoredAny>(text).is_ok() => {
            return Read::Refused(Refusal::new(
                None,
                INVALID_REQUEST,
                "Invalid Request: a message is one JSON object (batches are not supported)",
            ));
        }
        Err(_) => {
            let message = match packer::json::check(text) {
                Err(error) => super::in_argument_names(&error),
                Ok(()) => "the message is not JSON".into(),
            };
            return Read::Refused(Refusal::new(
                None,
                PARSE_ERROR,
                format!("Parse error: {message}"),
            ));
        }
    };
    let id = match members.one("id") {
        One::Absent => None,
        One::Value(raw) => Some(request_id(raw.get())),
        One::Many => Some(None),
    };
    let method = match members.one("method") {
        One::Value(raw) => serde_json::from_str::<String>(raw.get()).ok(),
        _ => None,
    };
    let notification = id.is_none() && method.is_some();
    let answer = |code: i32, message: String| {
        let refusal = Refusal::new(id.clone().flatten(), code, message);
        if notification {
            Read::Nothing { why: Some(refusal) }
        } else {
            Read::Refused(refusal)
        }
    };

    // A tools/call's arguments are the tool's to read: the rest of the
    // message is read here without them.
    let arguments = match method.as_deref() {
        Some("tools/call") => call_arguments(&members, text),
        _ => None,
    };
    let outer: Cow<'_, str> = match &arguments {
        Some(range) => format!("{}{{}}{}", &text[..range.start], &text[range.end..]).into(),
        None => text.into(),
    };
    if let Err(error) = packer::json::check(&outer) {
        // Positions after the arguments move back to where they are in the line.
        let error = in_request(error, |at| match &arguments {
            Some(range) if at.column > range.start + 1 => Position {
                line: at.line,
                column: at.column + range.len() - 2,
            },
            _ => at,
        });
        let code = match error {
            packer::Error::InvalidJson { .. } => PARSE_ERROR,
            _ => INVALID_REQUEST,
        };
        let kind = if code == PARSE_ERROR {
            "Parse error"
        } else {
            "Invalid Request"
        };
        return answer(
            code,
            format!("{kind}: {}", super::in_argument_names(&error)),
        );
    }

    if let Some(problem) = envelope_problem(&members, id.as_ref(), method.is_some()) {
        return answer(INVALID_REQUEST, format!("Invalid Request: {problem}"));
    }
    let Some(method) = method else {
        // A response (result or error) to a request of the server's.
        return match serde_json::from_str::<ClientJsonRpcMessage>(&outer) {
            Ok(message) => Read::Message(Box::new(message)),
            Err(_) => Read::Nothing {
                why: Some(Refusal::new(
                    None,
                    INVALID_REQUEST,
                    "Invalid Request: a response that does not follow JSON-RPC 2.0",
                )),
            },
        };
    };
    let served = SERVED.contains(&method.as_str());
    let message = match serde_json::from_str::<ClientJsonRpcMessage>(&outer) {
        Ok(message) => message,
        Err(_) if served => {
            return answer(INVALID_PARAMS, params_problem(&members, &method));
        }
        // Only the params can be amiss now, and the method is not one this
        // server serves.
        Err(_) => return answer(METHOD_NOT_FOUND, METHOD_NOT_FOUND_MESSAGE.into()),
    };
    match message {
        JsonRpcMessage::Request(mut request) => {
            if matches!(request.request, ClientRequest::CustomRequest(_)) {
                if served {
                    return answer(INVALID_PARAMS, params_problem(&members, &method));
                }
                // Answered here with fixed text: rmcp's answer would echo
                // the method's name, however long.
                return answer(METHOD_NOT_FOUND, METHOD_NOT_FOUND_MESSAGE.into());
            }
            if let (ClientRequest::CallToolRequest(call), Some(range)) =
                (&mut request.request, arguments)
            {
                call.extensions.insert(RawArguments {
                    line: Arc::clone(&line),
                    range,
                });
            }
            Read::Message(Box::new(JsonRpcMessage::Request(request)))
        }
        message => Read::Message(Box::new(message)),
    }
}

/// What is wrong with the envelope, if anything.
fn envelope_problem(
    members: &Object<'_>,
    id: Option<&Option<RequestId>>,
    has_method: bool,
) -> Option<&'static str> {
    let version = match members.one("jsonrpc") {
        One::Value(raw) => serde_json::from_str::<String>(raw.get()).ok(),
        _ => None,
    };
    if version.as_deref() != Some("2.0") {
        return Some("\"jsonrpc\" must be \"2.0\"");
    }
    if let Some(None) = id {
        return Some("\"id\" must be a string or an integer from -2^63 to 2^63-1");
    }
    let result = !matches!(members.one("result"), One::Absent);
    let error = !matches!(members.one("error"), One::Absent);
    if !has_method {
        return match members.one("method") {
            One::Absent if id.is_some() && result != error => None,
            One::Absent => Some(
                "a message needs \"method\" (a request) or one of \"result\" and \"error\" \
                 (a response)",
            ),
            _ => Some("\"method\" must be a string"),
        };
    }
    if result || error {
        return Some("a request has no \"result\" or \"error\"");
    }
    match members.one("params") {
        One::Absent => None,
        One::Value(raw) if raw.get().starts_with(['{', '[']) => None,
        _ => Some("\"params\" must be an object"),
    }
}

/// Why a served method's params do not fit it, in words.
fn params_problem(members: &Object<'_>, method: &str) -> String {
    let params = match members.one("params") {
        One::Value(raw) => serde_json::from_str::<Object<'_>>(raw.get()).ok(),
        _ => None,
    };
    let problem = match (method, params) {
        (_, None) => "the params must be an object".to_owned(),
        ("tools/call", Some(params)) => {
            let string = |raw: &RawValue| serde_json::from_str::<String>(raw.get()).is_ok();
            match (params.one("name"), params.one("arguments")) {
                (One::Absent, _) => "\"name\", the tool to call, is missing".to_owned(),
                (One::Value(name), _) if !string(name) => "\"name\" must be a string".to_owned(),
                (_, One::Value(arguments))
                    if !arguments.get().starts_with('{') && arguments.get() != "null" =>
                {
                    "\"arguments\" must be an object".to_owned()
                }
                _ => "the params do not follow MCP's schema for tools/call".to_owned(),
            }
        }
        ("initialize", Some(_)) => "initialize takes \"protocolVersion\" (a string), \
             \"capabilities\" (an object) and \"clientInfo\" (an object with \"name\" and \
             \"version\")"
            .to_owned(),
        (method, Some(_)) => format!("the params do not follow MCP's schema for {method}"),
    };
    format!("Invalid params: {problem}")
}

/// The byte range of a `tools/call`'s `params.arguments` object in `line`,
/// when there is exactly one `params` object with exactly one `arguments`
/// object.
fn call_arguments(members: &Object<'_>, line: &str) -> Option<Range<usize>> {
    let One::Value(params) = members.one("params") else {
        return None;
    };
    let params = serde_json::from_str::<Object<'_>>(params.get()).ok()?;
    let One::Value(arguments) = params.one("arguments") else {
        return None;
    };
    let text = arguments.get();
    if !text.starts_with('{') {
        return None;
    }
    // The raw value borrows from `line`: its place is its address's distance
    // from the line's.
    let start = (text.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let range = start..start + text.len();
    (line.get(range.clone()) == Some(text)).then_some(range)
}

/// The id as rmcp keeps it: a string, or an integer literal that fits in
/// 64 bits. Anything else (a fraction, an exponent, 30 digits, null, an
/// unpaired surrogate) cannot be echoed.
pub fn request_id(text: &str) -> Option<RequestId> {
    if text.starts_with('"') {
        return serde_json::from_str::<String>(text)
            .ok()
            .map(|id| RequestId::String(id.into()));
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<i64>().ok().map(RequestId::Number)
}

/// `error` with each line and column it names moved by `place`.
pub fn in_request(error: packer::Error, place: impl Fn(Position) -> Position) -> packer::Error {
    use packer::Error;
    use packer::error::SchemaPlace;
    match error {
        Error::InvalidJson { at, syntax } => Error::InvalidJson {
            at: place(at),
            syntax,
        },
        Error::TooDeep { at } => Error::TooDeep { at: place(at) },
        Error::UnpairedSurrogate { at } => Error::UnpairedSurrogate { at: place(at) },
        Error::InvalidSchema {
            place: SchemaPlace::At(at),
            problem,
        } => Error::InvalidSchema {
            place: SchemaPlace::At(place(at)),
            problem,
        },
        error => error,
    }
}

/// How many times a key appears in an object.
enum One<'a> {
    Absent,
    Value(&'a RawValue),
    Many,
}

/// A JSON object's members in order, each value as its text; keys are
/// bytes (an unpaired surrogate escape in a key reads as WTF-8 instead of
/// failing), and a key may appear more than once.
struct Object<'a> {
    members: Vec<(Vec<u8>, &'a RawValue)>,
}

impl<'a> Object<'a> {
    fn one(&self, key: &str) -> One<'a> {
        let mut found = self
            .members
            .iter()
            .filter(|(name, _)| name == key.as_bytes());
        match (found.next(), found.next()) {
            (None, _) => One::Absent,
            (Some((_, value)), None) => One::Value(value),
            (Some(_), Some(_)) => One::Many,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Object<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Object<'a>, D::Error> {
        struct ObjectVisitor<'a>(PhantomData<&'a ()>);

        impl<'de: 'a, 'a> Visitor<'de> for ObjectVisitor<'a> {
            type Value = Object<'a>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Object<'a>, A::Error> {
                let mut members = Vec::new();
                while let Some(Key(key)) = map.next_key()? {
                    let value: &'de RawValue = map.next_value()?;
                    members.push((key, value));
                }
                Ok(Object { members })
            }
        }

        deserializer.deserialize_map(ObjectVisitor(PhantomData))
    }
}

/// A key's bytes.
struct Key(Vec<u8>);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct KeyVisitor;

        impl Visitor<'_> for KeyVisitor {
            type Value = Key;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }

            fn visit_bytes<E: de::Error>(self, key: &[u8]) -> Result<Key, E> {
                Ok(Key(key.to_vec()))
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(Key(key.as_bytes().to_vec()))
            }
        }

        deserializer.deserialize_bytes(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(line: &str) -> Option<(Option<RequestId>, i32)> {
        match read(line.as_bytes().to_vec()) {
            Read::Refused(refusal) => Some((refusal.id, refusal.code)),
            _ => None,
        }
    }

    fn n(id: i64) -> Option<RequestId> {
        Some(RequestId::Number(id))
    }

    #[test]
    fn every_malformed_request_is_refused_with_its_code_and_its_id_when_readable() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        for (line, expected) in [
            ("not json", (None, PARSE_ERROR)),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
                (None, PARSE_ERROR),
            ),
            (&"[".repeat(100_000), (None, PARSE_ERROR)),
            ("[1,2]", (None, INVALID_REQUEST)),
            ("7", (None, INVALID_REQUEST)),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":1e2,"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#,
                (n(3), INVALID_REQUEST),
            ),
            (r#"{"id":3,"method":"ping"}"#, (n(3), INVALID_REQUEST)),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"ping","params":"x"}"#,
                (n(4), INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":7}"#,
                (n(4), INVALID_REQUEST),
            ),
            (r#"{"jsonrpc":"2.0","method":7}"#, (None, INVALID_REQUEST)),
            (r#"{"jsonrpc":"2.0","id":4}"#, (n(4), INVALID_REQUEST)),
            (
                r#"{"jsonrpc":"2.0","id":3,"result":7,"error":7}"#,
                (n(3), INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"no/such/method","params":[1]}"#,
                (Some(RequestId::String("a".into())), METHOD_NOT_FOUND),
            ),
            (
                r#"{"jsonrpc":"2.0","id":4,"method":"ping","result":{}}"#,
                (n(4), INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"id":6,"method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":1,"a":2}}"#,
                (n(5), INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"p\ud800"}"#,
                (n(5), INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"\udc00","method":"ping"}"#,
                (None, INVALID_REQUEST),
            ),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":1e400}}"#,
                (n(5), PARSE_ERROR),
            ),
            (&deep, (n(8), INVALID_REQUEST)),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":5}}"#,
                (Some(RequestId::String("x".into())), INVALID_PARAMS),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call"}"#,
                (n(6), INVALID_PARAMS),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[]}"#,
                (n(6), INVALID_PARAMS),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"t","arguments":[]}}"#,
                (n(6), INVALID_PARAMS),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":{}}"#,
                (n(6), INVALID_PARAMS),
            ),
        ] {
            assert_eq!(
                refused(line),
                Some(expected),
                "{}",
                &line[..line.len().min(80)]
            );
        }
        assert!(matches!(
            read(b"\xFF{}".to_vec()),
            Read::Refused(Refusal {
                id: None,
                code: PARSE_ERROR,
                ..
            })
        ));
    }

    #[test]
    fn blank_lines_and_malformed_notifications_get_no_answer() {
        for line in [
            "",
            "  \t",
            r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
            r#"{"jsonrpc":"2.0","method":"x","params":{"a":"\ud800"}}"#,
        ] {
            assert!(
                matches!(read(line.as_bytes().to_vec()), Read::Nothing { .. }),
                "{line}"
            );
        }
    }

    #[test]
    fn good_messages_go_on_and_a_tool_call_keeps_its_arguments_as_written() {
        for line in [
            "\u{FEFF}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
        ] {
            assert!(
                matches!(read(line.as_bytes().to_vec()), Read::Message(_)),
                "{line}"
            );
        }
        let line = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count_tokens","arguments":{"text":"\ud800","text":1},"_meta":{}}}"#;
        let Read::Message(message) = read(line.as_bytes().to_vec()) else {
            panic!("refused")
        };
        let JsonRpcMessage::Request(request) = *message else {
            panic!("not a request")
        };
        let ClientRequest::CallToolRequest(call) = request.request else {
            panic!("not a call")
        };
        // rmcp sees an empty object; the tool sees what the client wrote.
        assert_eq!(call.params.arguments, Some(serde_json::Map::new()));
        let raw = call.extensions.get::<RawArguments>().unwrap();
        assert_eq!(raw.text(), r#"{"text":"\ud800","text":1}"#);
        assert_eq!(
            &line[raw.offset()..raw.offset() + raw.text().len()],
            raw.text()
        );
    }

    #[test]
    fn a_refusal_is_one_line_of_json_rpc_with_a_null_id_when_there_is_none() {
        let refusal = Refusal::new(None, PARSE_ERROR, "Parse error: x");
        assert_eq!(
            refusal.to_line(),
            b"{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"Parse error: x\"}}\n"
        );
        let refusal = Refusal::new(Some(RequestId::String("7".into())), INVALID_PARAMS, "m");
        assert!(
            refusal
                .to_line()
                .starts_with(br#"{"jsonrpc":"2.0","id":"7","#)
        );
    }
}
