//! Chat templates rendered in a worker process, with limits.
//!
//! A chat template is a program from a downloaded model folder, a tree's
//! `packer.toml` or an MCP client. In packer's own process a hostile one
//! could overflow the stack with a value nested in a loop, abort it with an
//! allocation of a terabyte, or run for hours: minijinja's instruction
//! fuel bounds none of that. So every front end renders in a worker: a
//! process of its own (`packer __render-worker`, or the Python interpreter
//! importing this package) that limits its own address space and CPU time
//! before it reads the template, renders request after request for one
//! pack, and dies alone. The caller waits for each answer no longer than
//! what is left of the pack's time, and turns a worker that died, ran out
//! of memory or time into `chat-template-limit` with the limit named.
//!
//! The protocol, on the worker's standard input and output: frames of a
//! 4-byte little-endian length and that many bytes. The first frame is the
//! [`RenderSetup`] with the limits, as JSON, answered `{"ready":true}` or
//! with an error; then each job is answered with the rendered text or with
//! a JSON `{"error":{"code":..,"problem":..}}`. A payload and its
//! rendering are the bulk of every frame, and a selection's trials differ
//! from the one before mostly at the end, so neither is escaped and each
//! is sent as a change of the last one: a job is `J`, the marker's length
//! (4 bytes, all ones for none), the marker, how many bytes of the last
//! payload it keeps (4 bytes) and the bytes after them; a text is `T`, how
//! many bytes of the last text sent it keeps and the bytes after them.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use packer::chat::render::{InProcess, Render, RenderSetup, Renderers};
use packer::error::TemplateLimit;
use packer::{Cancel, Error};

/// The bounds on a chat template's work in one pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemplateLimits {
    /// Seconds of rendering, all renders of one pack together (wall time,
    /// starting the worker included).
    pub seconds: u64,
    /// MiB of address space the worker may use.
    pub memory_mib: u64,
}

/// The default time: a published template renders a conversation in
/// milliseconds, and a selection renders it a few hundred times.
pub const DEFAULT_TEMPLATE_SECONDS: u64 = 60;

/// The default memory: a request file is at most 64 MiB, and its
/// rendering a few times that.
pub const DEFAULT_TEMPLATE_MEMORY_MIB: u64 = 2048;

impl Default for TemplateLimits {
    fn default() -> TemplateLimits {
        TemplateLimits {
            seconds: DEFAULT_TEMPLATE_SECONDS,
            memory_mib: DEFAULT_TEMPLATE_MEMORY_MIB,
        }
    }
}

/// Starts workers: the command that runs one (a program and its
/// arguments), and the limits each gets.
#[derive(Debug, Clone)]
pub struct WorkerRenderers {
    command: Vec<OsString>,
    limits: TemplateLimits,
}

impl WorkerRenderers {
    /// Workers run as `command` (a program, then its arguments), which
    /// must call [`serve`] on its standard input and output.
    pub fn new(command: Vec<OsString>, limits: TemplateLimits) -> WorkerRenderers {
        WorkerRenderers { command, limits }
    }

    /// Workers run as this executable with `args` (`__render-worker` for
    /// the `packer` binary).
    pub fn current_exe(args: &[&str], limits: TemplateLimits) -> io::Result<WorkerRenderers> {
        let mut command = vec![std::env::current_exe()?.into_os_string()];
        command.extend(args.iter().map(OsString::from));
        Ok(WorkerRenderers::new(command, limits))
    }
}

/// A job as it crosses: what it keeps of the last payload, the bytes
/// after, and the marker.
struct Job<'a> {
    marker: Option<&'a str>,
    kept: usize,
    tail: &'a str,
}

/// The first byte of a job's frame.
const JOB: u8 = b'J';
/// The first byte of an answer that is a rendered text.
const TEXT: u8 = b'T';
/// A job's marker length when it has no marker.
const NO_MARKER: u32 = u32::MAX;

/// How many leading bytes `new` shares with `last`, cut back to a
/// character boundary (so that what follows is text of its own).
fn kept(last: &str, new: &str) -> usize {
    let (a, b) = (last.as_bytes(), new.as_bytes());
    let shorter = a.len().min(b.len());
    // Block by block (one vectorized compare each), then byte by byte.
    const BLOCK: usize = 64;
    let mut kept = 0;
    while kept + BLOCK <= shorter && a[kept..kept + BLOCK] == b[kept..kept + BLOCK] {
        kept += BLOCK;
    }
    while kept < shorter && a[kept] == b[kept] {
        kept += 1;
    }
    while !new.is_char_boundary(kept) {
        kept -= 1;
    }
    kept
}

/// `last` changed to keep its first `kept` bytes and end with `tail`;
/// `None` when `kept` is not a character boundary of `last`.
fn changed(last: &mut String, kept: usize, tail: &str) -> Option<()> {
    if kept > last.len() || !last.is_char_boundary(kept) {
        return None;
    }
    last.truncate(kept);
    last.push_str(tail);
    Some(())
}

/// A frame's length for `body` bytes, checked.
fn frame_length(body: usize) -> io::Result<[u8; 4]> {
    u32::try_from(body)
        .ok()
        .filter(|&length| length <= MOST_FRAME)
        .map(u32::to_le_bytes)
        .ok_or_else(|| io::Error::other("a frame over 1 GiB"))
}

impl<'a> Job<'a> {
    /// Writes this job as one frame.
    fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let marker = self.marker.unwrap_or_default();
        let marker_length = match self.marker {
            Some(marker) => u32::try_from(marker.len()).map_err(io::Error::other)?,
            None => NO_MARKER,
        };
        let kept = u32::try_from(self.kept).map_err(io::Error::other)?;
        out.write_all(&frame_length(1 + 4 + marker.len() + 4 + self.tail.len())?)?;
        out.write_all(&[JOB])?;
        out.write_all(&marker_length.to_le_bytes())?;
        out.write_all(marker.as_bytes())?;
        out.write_all(&kept.to_le_bytes())?;
        out.write_all(self.tail.as_bytes())?;
        out.flush()
    }

    /// A job read from its frame; `None` for a frame that is not one.
    fn read(frame: &'a [u8]) -> Option<Job<'a>> {
        let rest = frame.strip_prefix(&[JOB])?;
        let (length, rest) = rest.split_first_chunk::<4>()?;
        let (marker, rest) = match u32::from_le_bytes(*length) {
            NO_MARKER => (None, rest),
            length => {
                let (marker, rest) = rest.split_at_checked(length as usize)?;
                (Some(std::str::from_utf8(marker).ok()?), rest)
            }
        };
        let (kept, tail) = rest.split_first_chunk::<4>()?;
        Some(Job {
            marker,
            kept: u32::from_le_bytes(*kept) as usize,
            tail: std::str::from_utf8(tail).ok()?,
        })
    }
}

/// Writes a rendered text as one frame: what it keeps of `last`, the
/// bytes after.
fn write_text(out: &mut impl Write, last: &str, text: &str) -> io::Result<()> {
    let kept = kept(last, text);
    let tail = &text[kept..];
    out.write_all(&frame_length(1 + 4 + tail.len())?)?;
    out.write_all(&[TEXT])?;
    out.write_all(&u32::try_from(kept).map_err(io::Error::other)?.to_le_bytes())?;
    out.write_all(tail.as_bytes())?;
    out.flush()
}

/// A worker's answer frame: a rendered text, made from `last` (the last
/// text it sent, which it then becomes), or JSON.
fn read_answer(frame: Vec<u8>, last: &mut String) -> Option<Answer> {
    if let Some(rest) = frame.strip_prefix(&[TEXT]) {
        let (kept, tail) = rest.split_first_chunk::<4>()?;
        changed(
            last,
            u32::from_le_bytes(*kept) as usize,
            std::str::from_utf8(tail).ok()?,
        )?;
        return Some(Answer {
            ready: None,
            text: Some(last.clone()),
            error: None,
        });
    }
    serde_json::from_slice(&frame).ok()
}

/// The first frame.
#[derive(Serialize, Deserialize)]
struct Setup {
    setup: RenderSetup,
    limits: WireLimits,
}

#[derive(Serialize, Deserialize)]
struct WireLimits {
    seconds: u64,
    memory_mib: u64,
}

/// A worker's answer.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<WireError>,
}

/// The two errors a renderer gives, as data.
#[derive(Serialize, Deserialize)]
struct WireError {
    code: String,
    problem: String,
}

impl WireError {
    fn of(error: Error) -> WireError {
        match error {
            Error::InvalidChatRequest { problem } => WireError {
                code: "invalid-chat-request".into(),
                problem,
            },
            Error::InvalidChatTemplate { problem } => WireError {
                code: "invalid-chat-template".into(),
                problem,
            },
            other => WireError {
                code: "invalid-chat-template".into(),
                problem: format!("cannot be rendered ({})", other.code()),
            },
        }
    }

    fn into_error(self) -> Error {
        match self.code.as_str() {
            "invalid-chat-request" => Error::InvalidChatRequest {
                problem: self.problem,
            },
            _ => Error::InvalidChatTemplate {
                problem: self.problem,
            },
        }
    }
}

/// The largest frame either side reads: a rendering holds a request file
/// (at most 64 MiB) and a payload, a few times over at most.
const MOST_FRAME: u32 = 1 << 30;

fn write_frame(out: &mut impl Write, value: &impl Serialize) -> io::Result<()> {
    let bytes = serde_json::to_vec(value).map_err(io::Error::other)?;
    out.write_all(&frame_length(bytes.len())?)?;
    out.write_all(&bytes)?;
    out.flush()
}

/// The next frame; `None` at the end of the input.
fn read_frame(input: &mut impl Read) -> io::Result<Option<Vec<u8>>> {
    let mut length = [0u8; 4];
    match input.read_exact(&mut length) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let length = u32::from_le_bytes(length);
    if length > MOST_FRAME {
        return Err(io::Error::other("a frame over 1 GiB"));
    }
    let mut bytes = vec![0u8; length as usize];
    input.read_exact(&mut bytes)?;
    Ok(Some(bytes))
}

/// The worker's side: limits this process, reads the setup from `input`,
/// then renders each job until `input` ends. Returns the exit status.
pub fn serve(mut input: impl Read, mut output: impl Write) -> i32 {
    let Ok(Some(first)) = read_frame(&mut input) else {
        return 2;
    };
    let Ok(Setup { setup, limits }) = serde_json::from_slice::<Setup>(&first) else {
        return 2;
    };
    limit_self(&limits);
    let renderer = match InProcess::new(&setup) {
        Ok(renderer) => renderer,
        Err(error) => {
            let answer = Answer {
                ready: None,
                text: None,
                error: Some(WireError::of(error)),
            };
            return i32::from(write_frame(&mut output, &answer).is_err());
        }
    };
    if write_frame(&mut output, &json!({"ready": true})).is_err() {
        return 1;
    }
    // The setup's request and template are no longer needed as text.
    drop(setup);
    // The last payload received and the last text sent.
    let mut payload = String::new();
    let mut last = String::new();
    loop {
        let frame = match read_frame(&mut input) {
            Ok(Some(frame)) => frame,
            Ok(None) => return 0,
            Err(_) => return 1,
        };
        let Some(job) = Job::read(&frame) else {
            return 2;
        };
        if changed(&mut payload, job.kept, job.tail).is_none() {
            return 2;
        }
        let rendered = renderer.render(&payload, job.marker);
        drop(frame);
        let written = match rendered {
            Ok(text) => {
                let written = write_text(&mut output, &last, &text);
                last = text;
                written
            }
            Err(error) => {
                let answer = Answer {
                    ready: None,
                    text: None,
                    error: Some(WireError::of(error)),
                };
                write_frame(&mut output, &answer)
            }
        };
        if written.is_err() {
            return 1;
        }
    }
}

/// Limits this process's address space and CPU time (the CPU limit a
/// little above the pack's time, which the caller enforces first).
#[cfg(unix)]
fn limit_self(limits: &WireLimits) {
    use rustix::process::{Resource, Rlimit, setrlimit};
    let bytes = limits.memory_mib.saturating_mul(1 << 20);
    let _ = setrlimit(
        Resource::As,
        Rlimit {
            current: Some(bytes),
            maximum: Some(bytes),
        },
    );
    let seconds = limits.seconds.saturating_add(5);
    let _ = setrlimit(
        Resource::Cpu,
        Rlimit {
            current: Some(seconds),
            maximum: Some(seconds),
        },
    );
}

#[cfg(not(unix))]
fn limit_self(_limits: &WireLimits) {}

impl Renderers for WorkerRenderers {
    fn start(&self, setup: RenderSetup, cancel: &Cancel) -> Result<Box<dyn Render>, Error> {
        let started = Instant::now();
        let (program, args) = self.command.split_first().ok_or(Error::ChatTemplateLimit {
            limit: TemplateLimit::Ended,
        })?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|_| Error::ChatTemplateLimit {
                limit: TemplateLimit::Ended,
            })?;
        let stdin = child.stdin.take().expect("piped");
        let mut stdout = child.stdout.take().expect("piped");
        let mut stderr = child.stderr.take().expect("piped");
        // Frames and the worker's last words, read as they come.
        let (frames, answers) = mpsc::channel();
        std::thread::spawn(move || {
            while let Ok(Some(frame)) = read_frame(&mut stdout) {
                if frames.send(frame).is_err() {
                    return;
                }
            }
        });
        let words = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = (&mut stderr).take(1 << 16).read_to_end(&mut text);
            String::from_utf8_lossy(&text).into_owned()
        });
        let worker = Worker {
            last: Mutex::new((String::new(), String::new())),
            state: Mutex::new(State {
                child,
                stdin: Some(stdin),
                answers,
                words: Some(words),
                spent: Duration::ZERO,
                stopped: None,
            }),
            limits: self.limits,
            cancel: cancel.clone(),
        };
        let setup = Setup {
            setup,
            limits: WireLimits {
                seconds: self.limits.seconds,
                memory_mib: self.limits.memory_mib,
            },
        };
        let answer = worker.exchange(
            &|stdin| write_frame(stdin, &setup),
            &mut String::new(),
            started,
        )?;
        match answer {
            Answer {
                ready: Some(true), ..
            } => Ok(Box::new(worker)),
            Answer {
                error: Some(error), ..
            } => Err(error.into_error()),
            _ => Err(worker.stop(TemplateLimit::Ended)),
        }
    }
}

/// A running worker, one request at a time.
struct Worker {
    state: Mutex<State>,
    /// The last payload sent and the last text received: what the next
    /// job and answer are changes of.
    last: Mutex<(String, String)>,
    limits: TemplateLimits,
    /// Set when nobody waits for the pack any more: the worker is ended.
    cancel: Cancel,
}

/// How often a wait for the worker looks at [`Worker::cancel`].
const CANCEL_CHECK: Duration = Duration::from_millis(20);

struct State {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<Vec<u8>>,
    words: Option<std::thread::JoinHandle<String>>,
    /// The time spent waiting for the worker so far.
    spent: Duration,
    /// Why the worker was stopped, once it was.
    stopped: Option<TemplateLimit>,
}

impl Worker {
    /// Sends `message` and waits for the answer, no longer than the time
    /// left; `since` is when this exchange began.
    fn exchange(
        &self,
        message: &dyn Fn(&mut ChildStdin) -> io::Result<()>,
        text: &mut String,
        since: Instant,
    ) -> Result<Answer, Error> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(limit) = state.stopped {
            return Err(Error::ChatTemplateLimit { limit });
        }
        let budget = Duration::from_secs(self.limits.seconds);
        let sent = match state.stdin.as_mut() {
            Some(stdin) => message(stdin).is_ok(),
            None => false,
        };
        let received = if sent {
            loop {
                let left = budget.saturating_sub(state.spent + since.elapsed());
                match state.answers.recv_timeout(left.min(CANCEL_CHECK)) {
                    Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => {
                        state.spent += since.elapsed();
                        stop(&mut state, TemplateLimit::Ended, self.limits);
                        return Err(Error::Cancelled);
                    }
                    Err(RecvTimeoutError::Timeout) if left > CANCEL_CHECK => {}
                    received => break received,
                }
            }
        } else {
            Err(RecvTimeoutError::Disconnected)
        };
        state.spent += since.elapsed();
        match received {
            Ok(frame) => read_answer(frame, text).ok_or_else(|| {
                let limit = TemplateLimit::Ended;
                stop(&mut state, limit, self.limits)
            }),
            Err(RecvTimeoutError::Timeout) => {
                let limit = TemplateLimit::Time {
                    seconds: self.limits.seconds,
                };
                Err(stop(&mut state, limit, self.limits))
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(stop(&mut state, TemplateLimit::Ended, self.limits))
            }
        }
    }

    fn stop(&self, limit: TemplateLimit) -> Error {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        stop(&mut state, limit, self.limits)
    }
}

/// Ends the worker and says why: `limit`, unless what it printed as it
/// died says it ran out of memory or stack.
fn stop(state: &mut State, limit: TemplateLimit, limits: TemplateLimits) -> Error {
    if let Some(limit) = state.stopped {
        return Error::ChatTemplateLimit { limit };
    }
    state.stdin = None;
    // How it ended on its own, when it did: its output closed, it is
    // given a moment to be gone before it is made to.
    let mut ended = state.child.try_wait().ok().flatten();
    if limit == TemplateLimit::Ended {
        let until = Instant::now() + Duration::from_secs(2);
        while ended.is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
            ended = state.child.try_wait().ok().flatten();
        }
    }
    let _ = state.child.kill();
    let _ = state.child.wait();
    let words = state
        .words
        .take()
        .and_then(|words| words.join().ok())
        .unwrap_or_default();
    let limit = match limit {
        TemplateLimit::Ended if words.contains("overflowed its stack") => TemplateLimit::Stack,
        TemplateLimit::Ended if words.contains("memory allocation of") => TemplateLimit::Memory {
            mib: limits.memory_mib,
        },
        TemplateLimit::Ended => match ended.and_then(|status| signal_of(&status)) {
            // A stack overflow where no Rust runtime names it (a Python
            // worker): the one way a renderer faults.
            Some(Signal::Fault) => TemplateLimit::Stack,
            Some(Signal::Cpu) => TemplateLimit::Time {
                seconds: limits.seconds,
            },
            None => TemplateLimit::Ended,
        },
        limit => limit,
    };
    state.stopped = Some(limit);
    Error::ChatTemplateLimit { limit }
}

/// The signals that say why a worker ended.
enum Signal {
    /// A segmentation fault or bus error.
    Fault,
    /// Its CPU time limit.
    Cpu,
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<Signal> {
    use std::os::unix::process::ExitStatusExt;
    match status.signal()? {
        // SIGSEGV, SIGBUS.
        11 | 7 => Some(Signal::Fault),
        // SIGXCPU, or SIGKILL past the hard limit.
        24 | 9 => Some(Signal::Cpu),
        _ => None,
    }
}

#[cfg(not(unix))]
fn signal_of(_status: &std::process::ExitStatus) -> Option<Signal> {
    None
}

impl Render for Worker {
    fn render(&self, payload: &str, marker: Option<&str>) -> Result<String, Error> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let (sent, text) = &mut *last;
        let kept = kept(sent, payload);
        let job = Job {
            marker,
            kept,
            tail: &payload[kept..],
        };
        let answer = self.exchange(&|stdin| job.write(stdin), text, Instant::now());
        // The payload the worker now holds (a worker that could not be
        // sent the job was stopped, and is sent nothing again).
        changed(sent, kept, job.tail).expect("`kept` bytes of `sent` are a prefix of it");
        match answer? {
            Answer {
                text: Some(text), ..
            } => Ok(text),
            Answer {
                error: Some(error), ..
            } => Err(error.into_error()),
            _ => Err(self.stop(TemplateLimit::Ended)),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        state.stdin = None;
        let _ = state.child.kill();
        let _ = state.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_and_texts_cross_as_changes_of_the_last() {
        let payloads = [
            "{\"a\": \"\\\"quoted\\\"\\n\"}\u{0}\u{FFFF}é",
            "{\"a\": \"\\\"quoted\\\"\\n\"}\u{0}\u{FFFF}è and more",
            "",
            "x",
            "xé",
            "xè",
        ];
        let (mut sent, mut received) = (String::new(), String::new());
        let (mut payload, mut last) = (String::new(), String::new());
        for (i, new) in payloads.iter().enumerate() {
            let marker = [None, Some(""), Some("\u{E000}m")][i % 3];
            let kept = kept(&sent, new);
            let mut frame = Vec::new();
            Job {
                marker,
                kept,
                tail: &new[kept..],
            }
            .write(&mut frame)
            .unwrap();
            sent = new.to_string();
            let read = read_frame(&mut frame.as_slice()).unwrap().unwrap();
            let job = Job::read(&read).unwrap();
            assert_eq!(job.marker, marker);
            changed(&mut payload, job.kept, job.tail).unwrap();
            assert_eq!(payload, *new);
            // The worker's answer: the payload reversed, as a change of the
            // last text it sent.
            let text: String = new.chars().rev().collect();
            let mut frame = Vec::new();
            write_text(&mut frame, &last, &text).unwrap();
            last = text.clone();
            let read = read_frame(&mut frame.as_slice()).unwrap().unwrap();
            let answer = read_answer(read, &mut received).unwrap();
            assert_eq!(answer.text.as_deref(), Some(text.as_str()));
            assert_eq!(received, text);
        }
    }

    #[test]
    fn a_frame_that_is_no_job_or_no_text_is_refused() {
        assert!(Job::read(b"{\"payload\": \"x\"}").is_none());
        assert!(Job::read(b"J\x05\x00\x00\x00ab").is_none());
        assert!(Job::read(b"J\xff\xff\xff\xff\x00\x00\x00\x00\xc3").is_none());
        let mut last = "é".to_owned();
        assert!(read_answer(b"T\x00\x00\x00\x00\xc3".to_vec(), &mut last).is_none());
        // A change that would cut a character in two, or keep more than
        // there is.
        assert!(read_answer(b"T\x01\x00\x00\x00x".to_vec(), &mut last).is_none());
        assert!(read_answer(b"T\x09\x00\x00\x00x".to_vec(), &mut last).is_none());
        let error = read_answer(
            br#"{"error":{"code":"invalid-chat-template","problem":"p"}}"#.to_vec(),
            &mut last,
        );
        assert!(error.unwrap().error.is_some());
    }
}
