//! `packer batch`: JSON Lines of fixtures on standard input (or a file), one
//! JSON Lines result per input line on standard output.

mod lines;

use std::io;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use packer::Error;
use packer::fixture::{DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_INPUT_BYTES};
use packer::{Limits, RequestNames};

use super::{SettingsArgs, envelope_names, policy_names};
use lines::BatchOptions;

pub const AFTER_HELP: &str = "\
Each input line is one fixture (the JSON object `packer pack` reads, on one
line). Each output line is, in the same order, the object `packer pack
--format json|summary` prints (compact, on one line), or
{\"errors\":[{\"code\":CODE,\"message\":MESSAGE}]} for a line that could not
be packed; one bad line never stops the batch, and each is also reported on
stderr as error[CODE]: input line N: MESSAGE.

Exit codes:
  0  every line was packed
  1  a line failed unexpectedly, or the output could not be written
  2  usage error (bad flags, unknown --model)
  3  some line was invalid input (and none failed unexpectedly)
  4  some line's empty envelope or required documents did not fit (and no line
     was invalid)";

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The JSON Lines file (one fixture per line), or - for standard input
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub input: PathBuf,

    /// Refuse lines longer than this many bytes (each such line gets an
    /// error result; the batch goes on)
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INPUT_BYTES)]
    pub max_input_bytes: u64,

    /// Refuse fixtures with more documents than this
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DOCUMENTS)]
    pub max_documents: usize,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Order in which documents are tried
    #[arg(long, default_value = "in-order", value_parser = policy_names())]
    pub policy: packer::Policy,

    /// What each result line holds
    #[arg(long, value_enum, default_value_t = BatchFormatArg::Json)]
    pub format: BatchFormatArg,

    /// The payloads' layout
    #[arg(long, default_value = "json", value_parser = envelope_names())]
    pub envelope: packer::Envelope,

    /// List the documents left out inside each payload (and count that list)
    #[arg(long)]
    pub note_omissions: bool,

    /// With --note-omissions: list at most N left-out documents, then count the rest
    #[arg(long, value_name = "N", default_value_t = packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX, requires = "note_omissions")]
    pub note_omissions_max: usize,

    /// When a whole document does not fit, try a labelled excerpt of the
    /// lines around these terms
    #[arg(long, value_name = "Q")]
    pub excerpt_query: Option<String>,

    /// Lines kept on each side of a matching line in an excerpt
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_CONTEXT, requires = "excerpt_query")]
    pub excerpt_context: usize,

    /// Cap an excerpt at this many characters, at a line boundary
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_MAX_CHARS, requires = "excerpt_query")]
    pub excerpt_max_chars: usize,

    /// Pack each line's documents into as few windows as possible: each
    /// result is the object of `pack --windows`
    #[arg(long)]
    pub windows: bool,

    /// Send outlines of the source files that do not fit whole
    #[arg(long)]
    pub outline: bool,

    /// With --outline: the percentage of the budget whole documents fill
    /// before the rest go in as outlines [default: 40]
    #[arg(long, value_name = "PERCENT")]
    pub outline_share: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchFormatArg {
    /// The JSON object of `pack --format json`, on one line
    Json,
    /// The JSON object of `pack --format summary`, on one line
    Summary,
}

/// Runs the batch; the exit status says whether any line failed.
pub fn batch(args: BatchArgs) -> Result<i32, Error> {
    let excerpt = args.excerpt_query.is_some();
    let request = args.settings.request(&RequestNames {
        policy: Some(args.policy.name().to_owned()),
        envelope: Some(args.envelope.name().to_owned()),
        note_omissions: args.note_omissions,
        note_omissions_max: args.note_omissions.then_some(args.note_omissions_max),
        excerpt_query: args.excerpt_query,
        excerpt_context: excerpt.then_some(args.excerpt_context),
        excerpt_max_chars: excerpt.then_some(args.excerpt_max_chars),
        windows: args.windows,
        outline: args.outline,
        outline_share: args.outline_share,
        ..args.settings.names()
    })?;
    let options = BatchOptions {
        request,
        limits: Limits {
            max_input_bytes: args.max_input_bytes,
            max_documents: args.max_documents,
        },
        with_payload: args.format == BatchFormatArg::Json,
    };
    let on_error = |error: &lines::LineError| {
        for message in &error.messages {
            // `error[CODE]: MESSAGE` becomes `error[CODE]: input line N: MESSAGE`.
            match message.split_once("]: ") {
                Some((code, rest)) => say!("{code}]: input line {}: {rest}", error.line),
                None => say!("{message}"),
            }
        }
    };
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let report = if args.input == std::path::Path::new("-") {
        lines::run(io::stdin(), &mut out, &options, on_error)
    } else {
        let file = std::fs::File::open(&args.input).map_err(|error| Error::ReadFailed {
            path: packer::output::terminal_safe(&args.input.to_string_lossy()),
            kind: error.kind(),
        })?;
        lines::run(file, &mut out, &options, on_error)
    };
    match report {
        Ok(report) => Ok(report.exit_status()),
        // A closed output pipe is success for what was written.
        Err(Error::Output {
            kind: io::ErrorKind::BrokenPipe,
        }) => Ok(packer::error::EXIT_OK),
        Err(error) => Err(error),
    }
}
