//! The command line: clap types, and turning parsed arguments into calls of
//! the library. Everything that touches stdin, stdout, stderr and files
//! lives here.
//!
//! This file holds the `Cli` and `Command` definitions, the argument groups
//! several subcommands flatten, the value parsers, reading input, writing
//! output and the dispatch; each subcommand (its arguments and its `run`)
//! has a file of its own under `cli/`.

mod batch;
mod collect;
mod completions;
mod count;
mod encodings;
mod focus;
mod init;
mod man;
mod mcp;
mod out_dir;
mod pack;
mod payload_out;
mod progress;
mod repo;
mod report;
mod validate;

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};

use packer::budget::MAX_BUDGET_VALUE;
use packer::envelope::Envelope;
use packer::error::EXIT_OK;
use packer::fixture::{self, DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_INPUT_BYTES};
use packer::output;
use packer::{Encoding, Error, Fixture, Limits, Policy, Request, RequestNames};

const EXIT_CODES: &str = "\
Exit codes:
  0  packed (an empty selection is still success); a closed output pipe is success
  1  unexpected failure (writing output or --payload-out, or an internal error)
  2  usage error (bad flags, unknown --model, --payload-out naming the input or -,
     bad --base-url or --glob, a query without a usable term); the last line on
     stderr is error[usage]: ... or error[CODE]: ...
  3  invalid input: unreadable, too large, not UTF-8, not JSON, schema or validation
     failure; every problem gets a line (up to 20), and with --format json|summary
     stdout gets {\"errors\":[{code, message, document, field, line, column}]}
  4  does not fit: empty-envelope-does-not-fit or required-does-not-fit; the line
     gives needed, available and the shortfall, and with --format json|summary|report
     stdout still gets the decisions with \"error\": {code, message, shortfallTokens}

Errors are lines on stderr: error[CODE]: MESSAGE. Messages never echo capture
bytes (content, URLs, ids): only positions, field names and numbers.";

const FIXTURE: &str = "\
Fixture: one JSON object (UTF-8), for example
  {\"encoding\": \"cl100k_base\",
   \"budget\": {\"contextTokens\": 256, \"reservedOtherInputTokens\": 64,
              \"reservedOutputTokens\": 64, \"safetyTokens\": 16},
   \"documents\": [{\"id\": \"intro\", \"url\": \"https://example.com/intro\",
                  \"format\": \"markdown\", \"content\": \"# Intro...\",
                  \"truncated\": false, \"priority\": 0, \"required\": false}]}
  encoding   optional, default cl100k_base (see `packer encodings`)
  budget     four whole numbers 0..2^53-1; the budget flags override them;
             available = context - other input - output - safety
  id         non-empty, unique, no control characters
  url        absolute http or https URL with a host, no user name or password
  path       instead of url, for a file: relative, / between parts (no . or ..)
  format     \"markdown\" or \"text\"
  content    not empty and not only whitespace
  truncated  present and false (a truncated capture cannot be packed whole)
  priority   optional whole number -1000..=1000, default 0 (--policy priority)
  required   optional true|false: taken first, or packing fails (exit 4)
Unknown fields, duplicate keys and unpaired surrogate escapes are refused.";

/// The fixture format, then the exit codes (after `--help`).
fn fixture_and_exit_codes() -> String {
    format!("{FIXTURE}\n\n{EXIT_CODES}")
}

const PACK_EXAMPLES: &str = "\
Examples:
  packer pack --dir . --budget 32000 --format payload     a repository or any directory
  packer pack capture.json --budget 8000 --format report  a capture (a fixture, below)
  packer pack --dir . --model gpt-4o --context-tokens 128000 --reserved-output-tokens 4000
  git diff -z --name-only main... | packer pack --dir . --files-from - --budget 60000";

/// `pack --help`: examples, the fixture format, the exit codes.
fn pack_after_help() -> String {
    format!("{PACK_EXAMPLES}\n\n{FIXTURE}\n\n{EXIT_CODES}")
}

/// Pack whole documents into an LLM context under an exact token budget.
#[derive(Debug, Parser)]
#[command(name = "packer", version, after_help = fixture_and_exit_codes())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per run: boxing the largest variant would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Select whole documents that fit the budget and print the exact payload with a decision for each
    #[command(after_help = pack_after_help())]
    Pack(pack::PackArgs),
    /// Validate a fixture and its budget; print a one-line summary
    #[command(after_help = fixture_and_exit_codes())]
    Validate(validate::ValidateArgs),
    /// Pack JSON Lines of fixtures: one result line per input line, in order
    #[command(after_help = batch::AFTER_HELP)]
    Batch(batch::BatchArgs),
    /// Print the exact ordinary-text token count of raw text
    Count(count::CountArgs),
    /// List the encodings and models that map to them
    Encodings,
    /// Print the lines of a text around what a query looks for
    Focus(focus::FocusArgs),
    /// Print a fixture made from a directory's text files
    Collect(collect::CollectArgs),
    /// Write a commented starter packer.toml for a directory
    Init(init::InitArgs),
    /// Serve the packer tools over the Model Context Protocol on stdin/stdout
    Mcp(mcp::McpArgs),
    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: completions::ShellArg,
    },
    /// Print the man page (roff)
    Man,
}

/// Where a fixture comes from and how much of it is accepted.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// The fixture file, or - for standard input
    #[arg(value_name = "FIXTURE|-")]
    pub fixture: Option<PathBuf>,

    /// Refuse inputs larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_INPUT_BYTES, value_parser = byte_count, allow_negative_numbers = true, display_order = 90)]
    pub max_input_bytes: u64,

    /// Refuse fixtures with more documents than this
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_DOCUMENTS, value_parser = whole_number, allow_negative_numbers = true, display_order = 91)]
    pub max_documents: usize,
}

/// The encoding and budget flags, each overriding the fixture.
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Count with this encoding instead of the fixture's
    #[arg(long, value_name = "E", value_parser = encoding_names(), conflicts_with = "model")]
    pub encoding: Option<String>,

    /// Count with the encoding of this model (e.g. gpt-4o, gpt-4, davinci)
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Count with this tokenizer file (Hugging Face tokenizer.json or Mistral tekken.json)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["encoding", "model"])]
    pub tokenizer: Option<PathBuf>,

    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// The four budget values as flags.
#[derive(Debug, Args)]
pub struct BudgetArgs {
    /// The payload may use N tokens: --context-tokens N with every
    /// reservation 0
    #[arg(long, value_name = "N", value_parser = budget_value(), conflicts_with_all = ["context_tokens", "reserved_other_input_tokens", "reserved_output_tokens", "safety_tokens"], display_order = 1)]
    pub budget: Option<u64>,

    /// The model's context window in tokens
    #[arg(long, value_name = "N", value_parser = budget_value(), allow_negative_numbers = true)]
    pub context_tokens: Option<u64>,

    /// Tokens reserved for instructions, history and tools
    #[arg(long, value_name = "N", value_parser = budget_value(), allow_negative_numbers = true)]
    pub reserved_other_input_tokens: Option<u64>,

    /// Tokens reserved for the model's answer
    #[arg(long, value_name = "N", value_parser = budget_value(), allow_negative_numbers = true)]
    pub reserved_output_tokens: Option<u64>,

    /// Tokens kept as a safety margin
    #[arg(long, value_name = "N", value_parser = budget_value(), allow_negative_numbers = true)]
    pub safety_tokens: Option<u64>,
}

impl BudgetArgs {
    /// `names` with the budget flags given (`--budget` is the library's
    /// whole-budget shorthand).
    fn names(&self, names: RequestNames) -> RequestNames {
        RequestNames {
            budget: self.budget,
            context_tokens: self.context_tokens,
            reserved_other_input_tokens: self.reserved_other_input_tokens,
            reserved_output_tokens: self.reserved_output_tokens,
            safety_tokens: self.safety_tokens,
            ..names
        }
    }
}

/// The library's policies, each with its one-line description.
pub(crate) fn policy_names() -> impl clap::builder::TypedValueParser<Value = Policy> {
    library_values(Policy::ALL.map(|p| (p.name(), p.description())))
}

/// The library's layouts, each with its one-line description.
pub(crate) fn envelope_names() -> impl clap::builder::TypedValueParser<Value = Envelope> {
    library_values(Envelope::ALL.map(|e| (e.name(), e.description())))
}

/// A flag's values from one of the library's lists: `(name, description)`
/// each, parsed back with the library's `FromStr`.
fn library_values<T>(
    values: impl IntoIterator<Item = (&'static str, &'static str)>,
) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr + Clone + Send + Sync + 'static,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(
        values
            .into_iter()
            .map(|(name, help)| clap::builder::PossibleValue::new(name).help(help)),
    )
    .try_map(|name| name.parse::<T>())
}

fn encoding_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Encoding::ALL.map(Encoding::name))
}

/// A budget value: a whole number from 0 to 2^53-1, said so when it is not.
fn budget_value() -> impl clap::builder::TypedValueParser<Value = u64> {
    |text: &str| -> Result<u64, String> {
        match text.parse::<i128>() {
            Ok(n) if (0..=i128::from(MAX_BUDGET_VALUE)).contains(&n) => Ok(n as u64),
            _ => Err(format!(
                "a budget value must be a whole number from 0 to {MAX_BUDGET_VALUE}"
            )),
        }
    }
}

/// A query with at least one term of two or more characters.
fn query(text: &str) -> Result<String, String> {
    if packer::focus::terms(text).is_empty() {
        Err("the query has no term of two or more characters (terms are split on spaces and commas)".into())
    } else {
        Ok(text.to_owned())
    }
}

/// A count or size: a whole number from 0 up, said so when it is not.
fn whole_number(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .map_err(|_| "must be a whole number from 0 up".to_owned())
}

/// A size in bytes: a whole number from 0 up, said so when it is not.
fn byte_count(text: &str) -> Result<u64, String> {
    text.parse::<u64>()
        .map_err(|_| "must be a whole number of bytes from 0 up".to_owned())
}

impl InputArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_input_bytes: self.max_input_bytes,
            max_documents: self.max_documents,
        }
    }

    fn load(&self) -> Result<Fixture, Error> {
        let path = self.fixture.as_deref().unwrap_or(Path::new("-"));
        let bytes = read_input(path, self.max_input_bytes)?;
        Fixture::from_bytes(&bytes, &self.limits())
    }
}

impl SettingsArgs {
    /// The encoding, model, tokenizer and budget flags by name, for the
    /// library to build the request from.
    fn names(&self) -> RequestNames {
        self.budget.names(RequestNames {
            encoding: self.encoding.clone(),
            model: self.model.clone(),
            tokenizer: self.tokenizer.is_some(),
            ..RequestNames::default()
        })
    }

    /// The request `names` make, with the `--tokenizer` file loaded.
    fn request(&self, names: &RequestNames) -> Result<Request, Error> {
        let mut request = names.build()?;
        request.tokenizer = self
            .tokenizer
            .as_deref()
            .map(packer_files::load_tokenizer)
            .transpose()?;
        Ok(request)
    }
}

/// Reads a file (opened read-only) or standard input, at most `limit` bytes.
/// A file that cannot be read is named as the user typed it; a file over
/// the limit has its size stated.
pub(crate) fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    if path == Path::new("-") {
        let stdin = io::stdin().lock();
        if stdin.is_terminal() {
            say!(
                "reading from standard input (a terminal): paste the text, then press Ctrl-D; or give a file path"
            );
        }
        return fixture::read_bounded(stdin, limit);
    }
    let failed = |error: io::Error| Error::ReadFailed {
        path: output::terminal_safe(&path.to_string_lossy()),
        kind: error.kind(),
    };
    let file = File::open(path).map_err(failed)?;
    // Only a regular file has a size worth stating (a device says 0).
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|metadata| metadata.len());
    match fixture::read_bounded(file, limit) {
        Err(Error::UnreadableInput { kind }) => Err(failed(kind.into())),
        Err(Error::InputTooLarge { limit, .. }) => Err(Error::InputTooLarge { limit, size }),
        other => other,
    }
}

/// Writes to standard output; a closed pipe ends quietly as success.
fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    with_stdout(|out| out.write_all(bytes))
}

/// Runs `write` on buffered standard output and flushes it; a closed pipe
/// ends quietly as success.
fn with_stdout(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), Error> {
    let mut stdout = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match write(&mut stdout).and_then(|()| stdout.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            Err(Error::Output { kind: error.kind() })
        }
        _ => Ok(()),
    }
}

/// Prints a command-line error as clap renders it, then one
/// `error[usage]: ...` line (help and version go to standard output as
/// usual), and returns the exit status.
pub fn usage_error(error: &clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) || error.exit_code() == EXIT_OK
    {
        let _ = error.print();
        return error.exit_code();
    }
    let rendered = error.render().to_string();
    // clap's tip to put a negative number after `--` is wrong for packer:
    // the value would become the fixture path.
    let lines: Vec<&str> = rendered
        .lines()
        .filter(|line| !line.contains("as a value, use '-- "))
        .collect();
    let text = lines.join("\n").replace("\n\n\n", "\n\n");
    say!("{}", text.trim_end());
    // The first line, with the indented lines that complete it when it
    // ends in a colon ("the following required arguments were not provided:").
    let mut summary = lines
        .first()
        .map(|line| line.trim_start_matches("error: ").trim().to_owned())
        .unwrap_or_else(|| "bad command line".into());
    if summary.ends_with(':') {
        let rest: Vec<&str> = lines[1..]
            .iter()
            .take_while(|line| line.starts_with("  "))
            .map(|line| line.trim())
            .collect();
        summary = format!("{} {}", summary, rest.join(", "));
    }
    say!("error[usage]: {summary}");
    packer::error::EXIT_USAGE
}

/// The first argument that makes this process a chat-template worker
/// (`packer_files::render`) for another packer process: not a subcommand,
/// so that no help, completion or man page lists it.
pub const RENDER_WORKER: &str = "__render-worker";

/// Parses the command line, noting which flags with a default value were
/// given (see [`pack::Given`]).
pub fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().try_get_matches()?;
    let mut cli = Cli::from_arg_matches(&matches)?;
    if let (Command::Pack(args), Some(("pack", pack))) = (&mut cli.command, matches.subcommand()) {
        args.given = pack::Given::of(pack);
    }
    Ok(cli)
}

/// Runs a parsed command and returns its exit status.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        Command::Pack(args) => pack::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Batch(args) => batch::batch(args),
        Command::Count(args) => count::run(args),
        Command::Encodings => encodings::run(),
        Command::Focus(args) => focus::run(args),
        Command::Collect(args) => collect::run(args),
        Command::Init(args) => init::run(&args),
        Command::Mcp(args) => mcp::run(args),
        Command::Completions { shell } => completions::run(shell),
        Command::Man => man::run(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("packer").chain(args.iter().copied()))
    }

    #[test]
    fn pack_takes_its_defaults() {
        let Command::Pack(args) = parse(&["pack", "f.json"]).unwrap().command else {
            panic!("not pack");
        };
        assert_eq!(args.policy, None);
        assert_eq!(args.format, None);
        assert_eq!(args.input.max_input_bytes, 1_048_576);
        assert_eq!(args.input.max_documents, 100);
        assert!(!args.note_omissions);
    }

    #[test]
    fn bad_flags_are_usage_errors() {
        for args in [
            &["pack"][..],
            &["pack", "f.json", "--policy", "random"],
            &["pack", "f.json", "--format", "xml"],
            &["pack", "f.json", "--encoding", "gpt2"],
            &["pack", "f.json", "--context-tokens", "-1"],
            &["pack", "f.json", "--context-tokens", "9007199254740992"],
            &[
                "pack",
                "f.json",
                "--encoding",
                "cl100k_base",
                "--model",
                "gpt-4",
            ],
            &["frobnicate"],
        ] {
            let error = parse(args).unwrap_err();
            assert_eq!(error.exit_code(), 2, "{args:?}");
        }
    }

    #[test]
    fn models_resolve_to_encodings_and_unknown_models_are_usage_errors() {
        let encoding = |args: &[&str]| {
            let Command::Pack(args) = parse(args).unwrap().command else {
                panic!("not pack");
            };
            args.settings.names().encoding()
        };
        assert_eq!(
            encoding(&["pack", "f.json", "--model", "gpt-4o"]),
            Ok(Some(Encoding::O200kBase))
        );
        assert_eq!(
            encoding(&["pack", "f.json", "--encoding", "p50k_base"]),
            Ok(Some(Encoding::P50kBase))
        );
        let error = encoding(&["pack", "f.json", "--model", "no-such-model"]).unwrap_err();
        assert_eq!(error.exit_status(), 2);
    }

    #[test]
    fn the_budget_flag_is_the_whole_budget() {
        let Command::Pack(args) = parse(&["pack", "f.json", "--budget", "900"])
            .unwrap()
            .command
        else {
            panic!("not pack");
        };
        let budget = args.settings.names().build().unwrap().budget;
        assert_eq!(budget.context_tokens, Some(900));
        assert_eq!(budget.reserved_other_input_tokens, Some(0));
        assert_eq!(budget.reserved_output_tokens, Some(0));
        assert_eq!(budget.safety_tokens, Some(0));
    }
}
