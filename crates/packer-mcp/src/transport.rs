//! The server's end of standard input and output: one JSON-RPC message per
//! line, each line read under a bound and each one answered.
//!
//! rmcp's own stdio transport drops a line over its fixed 16 MiB bound
//! without an answer, and answers malformed requests without their id or
//! not at all. This one keeps at most `--max-input-bytes` plus
//! [`ROOM`] bytes of a line; a longer line is read through to its end
//! without being kept (only its top-level `id` is picked out on the way) and
//! answered with an error. Every other line goes through [`jsonrpc::read`],
//! which hands rmcp only messages it can serve and answers the rest.

use std::io;
use std::mem;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use super::jsonrpc::{self, Read, Refusal};

/// Room for everything in a message besides the documents or text that
/// `--max-input-bytes` bounds (the JSON-RPC envelope, the tool's name and
/// its other arguments).
pub const ROOM: usize = 64 << 10;

/// The reader's buffer.
const READ_BUFFER: usize = 64 << 10;

/// Standard input and output (or any reader and writer) as rmcp's transport.
pub struct Lines<R, W> {
    reader: BufReader<R>,
    /// The line read so far.
    line: Vec<u8>,
    /// The longest line kept, in bytes (its newline not counted).
    limit: usize,
    /// `--max-input-bytes`, for the message about the limit.
    max_input_bytes: u64,
    /// While the rest of a line over the limit is read and dropped: what is
    /// known of its id.
    skipping: Option<IdScanner>,
    writer: Arc<Mutex<W>>,
    /// An error answer on its way out; the next line is read once it is
    /// written, so a client that floods the server without reading its
    /// answers only stalls itself.
    answering: Option<JoinHandle<()>>,
    /// Whether rmcp has been given an `initialize` request: until then it
    /// ends the session on a notification or a response, so those are
    /// dropped here.
    initialized: bool,
}

impl<R, W> Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Lines from `reader`, answers to `writer`; a line may hold
    /// `max_input_bytes` plus [`ROOM`] bytes.
    pub fn new(reader: R, writer: W, max_input_bytes: u64) -> Lines<R, W> {
        Lines {
            reader: BufReader::with_capacity(READ_BUFFER, reader),
            line: Vec::new(),
            limit: usize::try_from(max_input_bytes)
                .unwrap_or(usize::MAX)
                .saturating_add(ROOM),
            max_input_bytes,
            skipping: None,
            writer: Arc::new(Mutex::new(writer)),
            answering: None,
            initialized: false,
        }
    }

    /// The next line, or the id of one that was too long. Cancel-safe: a
    /// line read in part stays in `self.line` (or `self.skipping`) for the
    /// next call, as nothing is awaited between taking bytes from the
    /// buffer and consuming them.
    async fn next_line(&mut self) -> io::Result<Line> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                // The end of input: a last line without a newline still counts.
                if let Some(scanner) = self.skipping.take() {
                    return Ok(Line::TooLong(scanner.finish()));
                }
                if !self.line.is_empty() {
                    return Ok(Line::Whole(mem::take(&mut self.line)));
                }
                return Ok(Line::End);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            let consumed = newline.map_or(available.len(), |at| at + 1);
            let mut done = None;
            if let Some(scanner) = &mut self.skipping {
                scanner.feed(chunk);
                if newline.is_some() {
                    done = self.skipping.take().map(|s| Line::TooLong(s.finish()));
                }
            } else if self.line.len().saturating_add(chunk.len()) > self.limit {
                let mut scanner = IdScanner::default();
                scanner.feed(&mem::take(&mut self.line));
                scanner.feed(chunk);
                if newline.is_some() {
                    done = Some(Line::TooLong(scanner.finish()));
                } else {
                    self.skipping = Some(scanner);
                }
            } else {
                self.line.extend_from_slice(chunk);
                if newline.is_some() {
                    done = Some(Line::Whole(mem::take(&mut self.line)));
                }
            }
            self.reader.consume(consumed);
            if let Some(line) = done {
                return Ok(line);
            }
        }
    }

    fn answer(&mut self, refusal: &Refusal) {
        log(&format!(
            "answered a message with error {}: {}",
            refusal.code, refusal.message
        ));
        let writer = Arc::clone(&self.writer);
        let line = refusal.to_line();
        self.answering = Some(tokio::spawn(async move {
            if let Err(error) = write_line(&writer, &line).await {
                log(&format!("could not write an answer ({})", error.kind()));
            }
        }));
    }
}

/// One line as read.
enum Line {
    /// A whole line, without its newline.
    Whole(Vec<u8>),
    /// A line over the limit, already dropped.
    TooLong(Scanned),
    /// The end of input.
    End,
}

impl<R, W> Transport<RoleServer> for Lines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), io::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move { write_line(&writer, &line?).await }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(answering) = &mut self.answering {
                let _ = answering.await;
                self.answering = None;
            }
            let line = match self.next_line().await {
                Ok(line) => line,
                Err(error) => {
                    log(&format!("could not read standard input ({})", error.kind()));
                    return None;
                }
            };
            let read = match line {
                Line::End => return None,
                Line::Whole(line) => jsonrpc::read(line),
                Line::TooLong(Scanned::Notification) => Read::Nothing {
                    why: Some(jsonrpc::oversized(
                        None,
                        self.limit,
                        self.max_input_bytes,
                        ROOM,
                    )),
                },
                Line::TooLong(Scanned::Id(id)) => Read::Refused(jsonrpc::oversized(
                    id,
                    self.limit,
                    self.max_input_bytes,
                    ROOM,
                )),
            };
            match read {
                Read::Message(message) => {
                    match &*message {
                        JsonRpcMessage::Request(request)
                            if request.request.method() == "initialize" =>
                        {
                            self.initialized = true;
                        }
                        JsonRpcMessage::Request(_) => {}
                        _ if !self.initialized => {
                            log("dropped a notification or response sent before initialize");
                            continue;
                        }
                        _ => {}
                    }
                    return Some(*message);
                }
                Read::Refused(refusal) => self.answer(&refusal),
                Read::Nothing { why: Some(why) } => log(&format!(
                    "dropped a malformed notification or response: {}",
                    why.message
                )),
                Read::Nothing { why: None } => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), io::Error> {
        if let Some(answering) = self.answering.take() {
            let _ = answering.await;
        }
        self.writer.lock().await.flush().await
    }
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, line: &[u8]) -> io::Result<()> {
    let mut writer = writer.lock().await;
    writer.write_all(line).await?;
    writer.flush().await
}

/// One line of the server's log on standard error (fixed text and numbers
/// only: nothing a client sent).
fn log(message: &str) {
    say!("packer mcp: {message}");
}

/// What [`IdScanner`] learned of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scanned {
    /// An object with a `method` and no `id`: a notification, which gets
    /// no answer.
    Notification,
    /// Anything else, with the id when it could be read.
    Id(Option<RequestId>),
}

/// The longest id text kept while a line is dropped.
const ID_BYTES: usize = 256;

/// The top-level `id` of a JSON object, picked out of its bytes as they go
/// by, for a line too long to keep. It follows strings, escapes and
/// nesting, keeps at most [`ID_BYTES`] of the id and a few bytes of each
/// top-level key, and nothing else.
#[derive(Debug, Default)]
struct IdScanner {
    depth: usize,
    started: bool,
    closed: bool,
    broken: bool,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    in_key: bool,
    /// The key being read (up to 8 bytes; `key_other` when longer or
    /// escaped).
    key: Vec<u8>,
    key_other: bool,
    /// A key was read and its `:` comes next.
    after_key: bool,
    /// A top-level key was written with an escape: it may have been `id`.
    escaped_key: bool,
    in_id: bool,
    id: Vec<u8>,
    /// The id is longer than [`ID_BYTES`].
    id_too_long: bool,
    ids: usize,
    methods: usize,
}

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.broken {
                return;
            }
            if self.in_id {
                if self.id.len() <= ID_BYTES {
                    self.id.push(b);
                } else {
                    self.id_too_long = true;
                }
            }
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                    self.key_other |= self.in_key;
                    self.escaped_key |= self.in_key;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.in_key {
                        self.in_key = false;
                        self.after_key = true;
                    }
                    continue;
                }
                if self.in_key {
                    if self.key.len() < 8 {
                        self.key.push(b);
                    } else {
                        self.key_other = true;
                    }
                }
                continue;
            }
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => {}
                b'"' => {
                    self.in_string = true;
                    if self.depth == 1 && self.expect_key {
                        self.expect_key = false;
                        self.in_key = true;
                        self.key.clear();
                        self.key_other = false;
                    }
                }
                b':' if self.depth == 1 && self.after_key => {
                    self.after_key = false;
                    if !self.key_other && self.key == b"id" {
                        self.in_id = true;
                        self.ids += 1;
                        self.id.clear();
                    } else if !self.key_other && self.key == b"method" {
                        self.methods += 1;
                    }
                }
                b',' if self.depth == 1 => {
                    self.end_id();
                    self.expect_key = true;
                }
                b'{' | b'[' => {
                    if self.depth == 0 {
                        if b == b'{' && !self.started {
                            self.started = true;
                            self.expect_key = true;
                        } else {
                            self.broken = true;
                        }
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    if self.depth == 0 {
                        self.broken = true;
                        return;
                    }
                    self.depth -= 1;
                    if self.depth == 0 {
                        self.end_id();
                        self.closed = true;
                    }
                }
                // A byte order mark before the object.
                0xEF | 0xBB | 0xBF if !self.started => {}
                _ if self.depth == 0 => self.broken = true,
                _ => {}
            }
        }
    }

    /// The id's text ends at a `,` or `}` of the top level (kept: drop it).
    fn end_id(&mut self) {
        if self.in_id {
            self.in_id = false;
            if !self.id_too_long {
                self.id.pop();
            }
        }
    }

    fn finish(self) -> Scanned {
        if self.broken || !self.closed {
            return Scanned::Id(None);
        }
        match self.ids {
            0 if self.methods == 1 && !self.escaped_key => Scanned::Notification,
            1 if !self.id_too_long => Scanned::Id(
                std::str::from_utf8(&self.id)
                    .ok()
                    .and_then(|id| jsonrpc::request_id(id.trim())),
            ),
            _ => Scanned::Id(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&str]) -> Scanned {
        let mut scanner = IdScanner::default();
        for chunk in chunks {
            scanner.feed(chunk.as_bytes());
        }
        scanner.finish()
    }

    fn id(n: i64) -> Scanned {
        Scanned::Id(Some(RequestId::Number(n)))
    }

    #[test]
    fn the_scanner_finds_the_top_level_id_wherever_it_is() {
        let filler = format!("\"{}\"", "x,}]\\\"{[".repeat(50));
        for (chunks, expected) in [
            (vec![r#"{"jsonrpc":"2.0","id":7,"method":"m"}"#], id(7)),
            (
                vec![
                    r#"{"method":"m","params":{"id":1,"a":["#,
                    &filler,
                    r#"]},"id":-42}"#,
                ],
                id(-42),
            ),
            (
                vec![r#"{"id" : "a,b}\"c" , "method":"m"}"#],
                Scanned::Id(Some(RequestId::String("a,b}\"c".into()))),
            ),
            (vec![r#"{"i"#, r#"d":1"#, r#"2}"#], id(12)),
            (vec!["\u{FEFF} {\"id\":3}"], id(3)),
            (vec![r#"{"method":"m","params":{}}"#], Scanned::Notification),
            (vec![r#"{"id":1.5,"method":"m"}"#], Scanned::Id(None)),
            (vec![r#"{"id":1,"id":1,"method":"m"}"#], Scanned::Id(None)),
            (vec![r#"{"id":[1],"method":"m"}"#], Scanned::Id(None)),
            (vec![r#"{"id":1,"method":"m""#], Scanned::Id(None)),
            (vec![r#"{"id":1} x"#], Scanned::Id(None)),
            (vec![r#"[{"id":1}]"#], Scanned::Id(None)),
            (vec![r#"{"\u0069d":1,"method":"m"}"#], Scanned::Id(None)),
        ] {
            assert_eq!(scan(&chunks), expected, "{chunks:?}");
        }
        let id_of = |length: usize| format!(r#"{{"id":"{}"}}"#, "x".repeat(length - 2));
        assert_eq!(
            scan(&[&id_of(ID_BYTES)]),
            Scanned::Id(Some(RequestId::String("x".repeat(ID_BYTES - 2).into())))
        );
        assert_eq!(scan(&[&id_of(ID_BYTES + 1)]), Scanned::Id(None));
    }

    async fn exchange(input: Vec<u8>, max_input_bytes: u64) -> (Vec<ClientJsonRpcMessage>, String) {
        let (out, mut out_reader) = tokio::io::duplex(1 << 20);
        let mut lines = Lines::new(std::io::Cursor::new(input), out, max_input_bytes);
        let mut messages = Vec::new();
        while let Some(message) = lines.receive().await {
            messages.push(message);
        }
        lines.close().await.unwrap();
        drop(lines);
        let mut answers = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_reader, &mut answers)
            .await
            .unwrap();
        (messages, answers)
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_answered_and_the_next_one_read() {
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let limit = 10 + ROOM;
        let request = |size: usize, id: u32| {
            let head = r#"{"jsonrpc":"2.0","method":"ping","params":{"_meta":{"pad":""#;
            let tail = format!(r#""}}}},"id":{id}}}"#);
            let pad = "x".repeat(size - head.len() - tail.len());
            format!("{head}{pad}{tail}\n")
        };
        let input = format!(
            "{init}\n{}{}\n{}{}",
            request(limit, 1),
            request(limit + 1, 2),
            request(3 * READ_BUFFER + limit, 3),
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#
        );
        let (messages, answers) = exchange(input.into_bytes(), 10).await;
        let ids: Vec<_> = messages
            .iter()
            .filter_map(|m| match m {
                JsonRpcMessage::Request(r) => Some(r.id.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(
            ids,
            [0, 1, 4].map(RequestId::Number),
            "the line at the limit and the lines after the long ones"
        );
        let answers: Vec<serde_json::Value> = answers
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(answers.len(), 2);
        for (answer, id) in answers.iter().zip([2, 3]) {
            assert_eq!(answer["id"], id);
            assert_eq!(answer["error"]["code"], -32600);
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(
                message.contains(&format!("limit of {limit} bytes")),
                "{message}"
            );
            assert!(
                message.contains("packer mcp --max-input-bytes N"),
                "{message}"
            );
        }
    }

    #[tokio::test]
    async fn notifications_and_responses_before_initialize_are_dropped() {
        let input = concat!(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":9,"result":{}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        );
        let (messages, answers) = exchange(input.as_bytes().to_vec(), 100).await;
        assert_eq!(messages.len(), 1);
        assert!(answers.is_empty());
    }
}
