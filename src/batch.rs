//! Batch packing: JSON Lines of fixtures in, JSON Lines of results out.
//!
//! Each input line is one fixture; each output line is, in the same order,
//! the compact `--format json` (or `summary`) object of packing it, or an
//! `{"errors":[...]}` object saying why that line could not be packed. One
//! bad line never stops the batch.
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

use crate::error::{EXIT_DOES_NOT_FIT, EXIT_FAILURE, EXIT_INVALID_INPUT, EXIT_OK};
use crate::fixture::{Fixture, Limits};
use crate::output::Summary;
use crate::{Error, Request};

/// At most this many lines are held (read, being packed, or rendered) per chunk.
const CHUNK_LINES: usize = 1024;
/// At most about this many input bytes are held per chunk (a chunk always
/// takes at least one line, itself bounded by `max_input_bytes`).
const CHUNK_BYTES: usize = 16 << 20;

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
    /// The stable code (`invalid-json`, ...; `internal` for a bug).
    pub code: &'static str,
    /// The message, as `packer pack` would print it.
    pub message: String,
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
    input: impl BufRead + Send + 'static,
    output: &mut (impl Write + ?Sized),
    options: &BatchOptions,
    mut on_error: impl FnMut(&LineError),
) -> Result<BatchReport, Error> {
    let mut report = BatchReport::default();
    let limit = options.limits.max_input_bytes;
    // One chunk is packed while the next is read. The reader is not joined:
    // if writing fails it ends at its next send, or with the process.
    let (sender, chunks) = mpsc::sync_channel::<io::Result<Vec<Line>>>(1);
    std::thread::spawn(move || read_chunks(input, limit, sender));
    for chunk in chunks {
        let chunk = chunk.map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
        let first_line = report.lines + 1;
        let results: Vec<(Vec<u8>, Result<(), Error>, bool)> = chunk
            .into_par_iter()
            .map(|line| pack_line(line, options))
            .collect();
        for (offset, (bytes, outcome, panicked)) in results.into_iter().enumerate() {
            let status = match (&outcome, panicked) {
                (_, true) => EXIT_FAILURE,
                (Ok(()), false) => EXIT_OK,
                (Err(error), false) => error.exit_status(),
            };
            report.record(status);
            if status != EXIT_OK {
                let (code, message) = match &outcome {
                    Err(error) if !panicked => (error.code(), error.to_string()),
                    _ => ("internal", INTERNAL.to_string()),
                };
                on_error(&LineError {
                    line: first_line + offset as u64,
                    code,
                    message,
                });
            }
            output
                .write_all(&bytes)
                .map_err(|error| Error::Output { kind: error.kind() })?;
        }
    }
    output
        .flush()
        .map_err(|error| Error::Output { kind: error.kind() })?;
    Ok(report)
}

const INTERNAL: &str = "packer failed unexpectedly on this line; please report it with the command line (not the capture)";

/// Reads chunks of lines and sends them until the input ends, the
/// receiver goes away, or reading fails.
fn read_chunks(
    mut input: impl BufRead,
    limit: u64,
    sender: mpsc::SyncSender<io::Result<Vec<Line>>>,
) {
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

/// Packs one line: its output line, the outcome, and whether packing panicked.
fn pack_line(line: Line, options: &BatchOptions) -> (Vec<u8>, Result<(), Error>, bool) {
    let packed = catch_unwind(AssertUnwindSafe(|| {
        let bytes = match line {
            Line::Bytes(bytes) => bytes,
            Line::TooLarge => {
                return Err(Error::InputTooLarge {
                    limit: options.limits.max_input_bytes,
                });
            }
        };
        let fixture = Fixture::from_bytes(&bytes, &options.limits)?;
        let outcome = crate::pack(&fixture, &options.request)?;
        let mut out = Vec::with_capacity(bytes.len() + 512);
        let summary = Summary::new(&fixture, &outcome, options.with_payload);
        serde_json::to_writer(&mut out, &summary).expect("writing to a Vec cannot fail");
        out.push(b'\n');
        Ok(out)
    }));
    match packed {
        Ok(Ok(out)) => (out, Ok(()), false),
        Ok(Err(error)) => (
            errors_line(&error.to_string(), error.code()),
            Err(error),
            false,
        ),
        Err(_) => (errors_line(INTERNAL, "internal"), Ok(()), true),
    }
}

/// `{"errors":[{"code":CODE,"message":MESSAGE}]}` and a newline.
fn errors_line(message: &str, code: &str) -> Vec<u8> {
    #[derive(Serialize)]
    struct Errors<'a> {
        errors: [ErrorObject<'a>; 1],
    }
    #[derive(Serialize)]
    struct ErrorObject<'a> {
        code: &'a str,
        message: &'a str,
    }
    let mut out = serde_json::to_vec(&Errors {
        errors: [ErrorObject { code, message }],
    })
    .expect("serializing strings cannot fail");
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
