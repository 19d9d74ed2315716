//! Batch packing: JSON Lines of fixtures in, JSON Lines of results out.
//!
//! Each input line is one fixture; each output line is, in the same order,
//! the compact `--format json` (or `summary`) object of packing it (with
//! `windows`, of packing it into windows), or an `{"errors":[...]}` object
//! saying why that line could not be packed. One bad line never stops the
//! batch.
//!
//! Lines are read in bounded chunks on one thread while the previous chunk
//! is packed on every core, so memory stays bounded by the chunk size
//! whatever the length of the input, and each encoding's vocabulary is
//! loaded once for the whole process.

use std::io::{self, BufRead, Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

use rayon::prelude::*;
use serde::Serialize;

use packer::error::{EXIT_DOES_NOT_FIT, EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK};
use packer::fixture::{Fixture, Limits};
use packer::output::{ErrorList, ErrorRecord, Refusal, Summary, WindowsSummary};
use packer::{Error, Request};

/// At most this many lines are read into one chunk, and packed as one group.
const CHUNK_LINES: usize = 1024;
/// At most about this many input bytes are read into one chunk (a chunk
/// always takes at least one line, itself bounded by `max_input_bytes`).
const CHUNK_BYTES: usize = 16 << 20;
/// Chunks read ahead while a group is packed.
const QUEUED_CHUNKS: usize = 4;
/// The reader's buffer.
const READ_BUFFER: usize = 1 << 20;

/// How each line of a batch is packed.
#[derive(Debug, Clone, Default)]
pub struct BatchOptions {
    /// The encoding, budget overrides and packing options, as for one fixture.
    pub request: Request,
    /// The bounds each line must meet (`max_input_bytes` applies to each line).
    pub limits: Limits,
    /// Whether each result carries `payloadText` (`--format json`) or not
    /// (`--format summary`).
    pub with_payload: bool,
}

/// What happened to the lines of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchReport {
    /// Lines read (and results written).
    pub lines: u64,
    /// Lines that were packed.
    pub packed: u64,
    /// Lines refused as invalid input (exit status 3 for one fixture).
    pub invalid: u64,
    /// Lines whose empty envelope or required documents did not fit (exit status 4).
    pub did_not_fit: u64,
    /// Lines that failed unexpectedly (exit status 1).
    pub failed: u64,
}

impl BatchReport {
    /// The batch's exit status: 0 when every line was packed; otherwise the
    /// status of the most serious kind of failure seen: 1 (unexpected),
    /// then 3 (invalid input), then 4 (does not fit).
    pub fn exit_status(&self) -> i32 {
        if self.failed > 0 {
            EXIT_FAILURE
        } else if self.invalid > 0 {
            EXIT_INVALID_INPUT
        } else if self.did_not_fit > 0 {
            EXIT_DOES_NOT_FIT
        } else {
            EXIT_OK
        }
    }

    fn record(&mut self, status: i32) {
        self.lines += 1;
        match status {
            EXIT_OK => self.packed += 1,
            EXIT_INVALID_INPUT => self.invalid += 1,
            EXIT_DOES_NOT_FIT => self.did_not_fit += 1,
            _ => self.failed += 1,
        }
    }
}

/// One failed line, as reported to `on_error` by [`run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The 1-based input line.
    pub line: u64,
    /// The exit status `packer pack` would have ended with.
    pub status: i32,
    /// The `error[CODE]: MESSAGE` lines `packer pack` would print on
    /// standard error (one per problem).
    pub messages: Vec<String>,
}

/// What packing one line gave: its output line, its status, and its
/// diagnostics.
struct Packed {
    out: Vec<u8>,
    status: i32,
    messages: Vec<String>,
}

/// A line as read: its bytes, or the fact that it was longer than the limit
/// (its bytes past the limit were skipped, not kept).
enum Line {
    Bytes(Vec<u8>),
    TooLarge,
}

/// Packs every line of `input` and writes one result line per input line to
/// `output`, in order. `on_error` sees each failed line (for a diagnostic on
/// standard error). Returns the counts; an `Err` is a failure to read the
/// input (`unreadable-input`) or to write the output (`output-failed`),
/// after which the batch stops.
pub fn run(
    input: impl Read + Send + 'static,
    output: &mut (impl Write + ?Sized),
    options: &BatchOptions,
    mut on_error: impl FnMut(&LineError),
) -> Result<BatchReport, Error> {
    let mut report = BatchReport::default();
    let limit = options.limits.max_input_bytes;
    // The reader sends what it has whenever the input has nothing more
    // ready, so a line is answered without waiting for later ones; the
    // packer takes everything queued (up to one chunk) and packs it on every
    // core while the reader goes on. The reader is not joined: if writing
    // fails it ends at its next send, or with the process.
    let (sender, chunks) = mpsc::sync_channel::<io::Result<Vec<Line>>>(QUEUED_CHUNKS);
    std::thread::spawn(move || read_chunks(input, limit, sender));
    while let Ok(first) = chunks.recv() {
        let mut group = first.map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
        while group.len() < CHUNK_LINES && size(&group) < CHUNK_BYTES {
            match chunks.try_recv() {
                Ok(more) => group
                    .extend(more.map_err(|error| Error::UnreadableInput { kind: error.kind() })?),
                Err(_) => break,
            }
        }
        let first_line = report.lines + 1;
        let results: Vec<Packed> = group
            .into_par_iter()
            .map(|line| pack_line(line, options))
            .collect();
        for (offset, packed) in results.into_iter().enumerate() {
            report.record(packed.status);
            if packed.status != EXIT_OK {
                on_error(&LineError {
                    line: first_line + offset as u64,
                    status: packed.status,
                    messages: packed.messages,
                });
            }
            output
                .write_all(&packed.out)
                .map_err(|error| Error::Output { kind: error.kind() })?;
        }
        output
            .flush()
            .map_err(|error| Error::Output { kind: error.kind() })?;
    }
    Ok(report)
}

/// The bytes held by `lines`.
fn size(lines: &[Line]) -> usize {
    lines
        .iter()
        .map(|line| match line {
            Line::Bytes(bytes) => bytes.len(),
            Line::TooLarge => 0,
        })
        .sum()
}

const INTERNAL: &str = "packer failed unexpectedly on this line; please report it with the command line (not the capture)";

/// Reads chunks of lines and sends them until the input ends, the
/// receiver goes away, or reading fails.
fn read_chunks(input: impl Read, limit: u64, sender: mpsc::SyncSender<io::Result<Vec<Line>>>) {
    let mut input = io::BufReader::with_capacity(READ_BUFFER, input);
    loop {
        let mut chunk = Vec::new();
        let mut bytes = 0usize;
        let mut ended = false;
        while chunk.len() < CHUNK_LINES && bytes < CHUNK_BYTES {
            match read_line(&mut input, limit) {
                Ok(Some(line)) => {
                    if let Line::Bytes(b) = &line {
                        bytes += b.len();
                    }
                    chunk.push(line);
                    if input.buffer().is_empty() {
                        // Reading on could wait: send what is here first.
                        break;
                    }
                }
                Ok(None) => {
                    ended = true;
                    break;
                }
                Err(error) => {
                    let _ = sender.send(Err(error));
                    return;
                }
            }
        }
        if !chunk.is_empty() && sender.send(Ok(chunk)).is_err() {
            return;
        }
        if ended {
            return;
        }
    }
}

/// Reads one line without its `\n`, keeping at most `limit` bytes of it;
/// `None` at the end of the input. A final line without `\n` is a line; an
/// empty input has no lines.
fn read_line(input: &mut impl BufRead, limit: u64) -> io::Result<Option<Line>> {
    let mut bytes = Vec::new();
    let read = Read::take(&mut *input, limit.saturating_add(1)).read_until(b'\n', &mut bytes)?;
    if read == 0 {
        return Ok(None);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        return Ok(Some(Line::Bytes(bytes)));
    }
    if bytes.len() as u64 > limit {
        // Skip the rest of the line without keeping it.
        input.skip_until(b'\n')?;
        return Ok(Some(Line::TooLarge));
    }
    Ok(Some(Line::Bytes(bytes)))
}

/// Packs one line into what `packer pack --format json|summary` prints for
/// it, compact on one line: the output object; for something that does not
/// fit, the object with `"error"`; for invalid input, `{"errors":[...]}`.
fn pack_line(line: Line, options: &BatchOptions) -> Packed {
    let packed = catch_unwind(AssertUnwindSafe(|| {
        let bytes = match line {
            Line::Bytes(bytes) => bytes,
            Line::TooLarge => {
                let error = Error::InputTooLarge {
                    limit: options.limits.max_input_bytes,
                    size: None,
                };
                return refused(&error, None);
            }
        };
        let fixture = match Fixture::from_bytes(&bytes, &options.limits) {
            Ok(fixture) => fixture,
            Err(error) => return refused(&error, None),
        };
        let request = &options.request;
        let refusal = |failure: packer::Failure| {
            let refusal = failure.does_not_fit().and_then(|does_not_fit| {
                packer::settings(&fixture, request).ok().map(|settings| {
                    Refusal::new(&fixture, &settings, &request.options, does_not_fit)
                })
            });
            refused(failure.error(), refusal.as_ref())
        };
        if request.options.windows {
            return match packer::pack_windows(&fixture, request) {
                Ok(outcome) => Packed {
                    out: json_line(&WindowsSummary::new(
                        &fixture,
                        &outcome,
                        options.with_payload,
                    )),
                    status: EXIT_OK,
                    messages: Vec::new(),
                },
                Err(failure) => refusal(failure),
            };
        }
        let outcome = match packer::pack(&fixture, request) {
            Ok(outcome) => outcome,
            Err(failure) => return refusal(failure),
        };
        let summary = Summary::new(&fixture, &outcome, options.with_payload);
        Packed {
            out: json_line(&summary),
            status: EXIT_OK,
            messages: Vec::new(),
        }
    }));
    packed.unwrap_or_else(|_| {
        let list = ErrorList {
            errors: vec![ErrorRecord {
                code: "internal",
                message: INTERNAL.into(),
                document: None,
                field: None,
                line: None,
                column: None,
            }],
            more_errors: 0,
        };
        Packed {
            out: json_line(&list),
            status: EXIT_FAILURE,
            messages: list.lines(),
        }
    })
}

/// The line for an error: the refusal object when something does not fit,
/// else the list of problems.
fn refused(error: &Error, refusal: Option<&Refusal<'_>>) -> Packed {
    let list = ErrorList::new(error);
    let messages = list.lines();
    let out = match refusal {
        Some(refusal) => json_line(refusal),
        None => json_line(&list),
    };
    Packed {
        out,
        status: error.exit_status(),
        messages,
    }
}

/// `value` as compact JSON and a newline.
fn json_line(value: &impl Serialize) -> Vec<u8> {
    let mut out = serde_json::to_vec(value).expect("the output types always serialize");
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: u64) -> Vec<Option<Vec<u8>>> {
        let mut reader = input;
        let mut out = Vec::new();
        while let Some(line) = read_line(&mut reader, limit).unwrap() {
            out.push(match line {
                Line::Bytes(bytes) => Some(bytes),
                Line::TooLarge => None,
            });
        }
        out
    }

    #[test]
    fn reads_lines_keeping_empty_ones_and_a_last_line_without_newline() {
        assert_eq!(
            lines(b"a\n\nbc\r\nd", 10),
            vec![
                Some(b"a".to_vec()),
                Some(vec![]),
                Some(b"bc\r".to_vec()),
                Some(b"d".to_vec())
            ]
        );
        assert!(lines(b"", 10).is_empty());
        assert_eq!(lines(b"a\n", 10), vec![Some(b"a".to_vec())]);
    }

    #[test]
    fn a_line_longer_than_the_limit_is_skipped_to_its_end() {
        assert_eq!(
            lines(b"12345\n123456\n1234567890abc\nx", 5),
            vec![Some(b"12345".to_vec()), None, None, Some(b"x".to_vec())]
        );
    }

    #[test]
    fn the_exit_status_names_the_most_serious_failure() {
        let mut report = BatchReport::default();
        report.record(EXIT_OK);
        assert_eq!(report.exit_status(), EXIT_OK);
        report.record(EXIT_DOES_NOT_FIT);
        assert_eq!(report.exit_status(), EXIT_DOES_NOT_FIT);
        report.record(EXIT_INVALID_INPUT);
        assert_eq!(report.exit_status(), EXIT_INVALID_INPUT);
        report.record(EXIT_FAILURE);
        assert_eq!(report.exit_status(), EXIT_FAILURE);
        assert_eq!(report.lines, 4);
    }
}
