//! The command line: clap types, and turning parsed arguments into calls of
//! the library. Everything that touches stdin, stdout, stderr and files
//! lives here.

mod init;
mod mcp;
mod payload_out;
mod repo;

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

mod batch;

use packer::budget::MAX_BUDGET_VALUE;
use packer::envelope::{DEFAULT_NOTE_OMISSIONS_MAX, Envelope};
use packer::error::EXIT_OK;
use packer::fixture::{self, DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_INPUT_BYTES};
use packer::output::{self, Format};
use packer::pack::ExcerptOptions;
use packer::{
    Counter, Encoding, Error, Fixture, Limits, Options, PartialBudget, Policy, Request, Tokenizer,
};
use packer_collect::config::Config;

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

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Select whole documents that fit the budget and print the exact payload with a decision for each
    #[command(after_help = pack_after_help())]
    Pack(PackArgs),
    /// Validate a fixture and its budget; print a one-line summary
    #[command(after_help = fixture_and_exit_codes())]
    Validate(ValidateArgs),
    /// Pack JSON Lines of fixtures: one result line per input line, in order
    #[command(after_help = batch::AFTER_HELP)]
    Batch(batch::BatchArgs),
    /// Print the exact ordinary-text token count of raw text
    Count(CountArgs),
    /// List the encodings and models that map to them
    Encodings,
    /// Print the lines of a text around what a query looks for
    Focus(FocusArgs),
    /// Print a fixture made from a directory's text files
    Collect(CollectArgs),
    /// Write a commented starter packer.toml for a directory
    Init(init::InitArgs),
    /// Serve the packer tools over the Model Context Protocol on stdin/stdout
    Mcp(mcp::McpArgs),
    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: ShellArg,
    },
    /// Print the man page (roff)
    Man,
}

#[derive(Debug, Args)]
pub struct FocusArgs {
    /// The Markdown or text file, or - for standard input
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub file: PathBuf,

    /// Keep lines near lines containing any of these terms (split on
    /// whitespace and commas; terms shorter than 2 characters are dropped)
    #[arg(long, value_name = "Q", value_parser = query)]
    pub query: Option<String>,

    /// Lines kept on each side of a matching line
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_CONTEXT)]
    pub context: usize,

    /// Cap the result at this many characters, at a line boundary
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_MAX_CHARS)]
    pub max_chars: usize,

    /// Refuse inputs larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = 1 << 30)]
    pub max_input_bytes: u64,
}

#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The directory to walk
    pub dir: PathBuf,

    #[command(flatten)]
    pub collect: repo::CollectFlags,

    /// Budget values to put in the fixture
    #[command(flatten)]
    pub budget: BudgetArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    /// Bash
    Bash,
    /// Zsh
    Zsh,
    /// Fish
    Fish,
    /// PowerShell
    Powershell,
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
    fn partial(&self) -> PartialBudget {
        if let Some(tokens) = self.budget {
            return PartialBudget {
                context_tokens: Some(tokens),
                reserved_other_input_tokens: Some(0),
                reserved_output_tokens: Some(0),
                safety_tokens: Some(0),
            };
        }
        PartialBudget {
            context_tokens: self.context_tokens,
            reserved_other_input_tokens: self.reserved_other_input_tokens,
            reserved_output_tokens: self.reserved_output_tokens,
            safety_tokens: self.safety_tokens,
        }
    }
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["fixture", "dir"])))]
pub struct PackArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Order in which documents are tried [default: in-order]
    #[arg(long, value_parser = policy_names())]
    pub policy: Option<Policy>,

    /// What to print on standard output
    #[arg(long, value_enum, default_value_t = FormatArg::Json)]
    pub format: FormatArg,

    /// Also write the exact payload to FILE
    #[arg(long, value_name = "FILE")]
    pub payload_out: Option<PathBuf>,

    /// The payload's layout [default: json; markdown with --dir]
    #[arg(long, value_parser = envelope_names())]
    pub envelope: Option<Envelope>,

    /// List the documents left out inside the payload (and count that list)
    #[arg(long)]
    pub note_omissions: bool,

    /// With --note-omissions: list at most N left-out documents, then count the rest
    #[arg(long, value_name = "N", default_value_t = packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX, requires = "note_omissions")]
    pub note_omissions_max: usize,

    /// When a whole document does not fit, try a labelled excerpt of the
    /// lines around these terms
    #[arg(long, value_name = "Q", value_parser = query)]
    pub excerpt_query: Option<String>,

    /// Lines kept on each side of a matching line in an excerpt
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_CONTEXT, requires = "excerpt_query")]
    pub excerpt_context: usize,

    /// Cap an excerpt at this many characters, at a line boundary
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_MAX_CHARS, requires = "excerpt_query")]
    pub excerpt_max_chars: usize,

    /// Collect DIR (as `packer collect`) and pack it, in one process; the
    /// fixture limits give way to --max-files and --max-total-bytes
    #[arg(long, value_name = "DIR", conflicts_with_all = ["fixture", "max_input_bytes", "max_documents"], display_order = 2)]
    pub dir: Option<PathBuf>,

    // Keep last: the heading applies to every flag after it.
    #[command(flatten, next_help_heading = "Collecting (with --dir)")]
    pub collect: repo::CollectFlags,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["fixture"])))]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Check the budget in this payload layout, as `pack --envelope` would
    #[arg(long, default_value = "json", value_parser = envelope_names())]
    pub envelope: Envelope,

    /// Check the budget as `pack --note-omissions` would
    #[arg(long)]
    pub note_omissions: bool,

    /// With --note-omissions: list at most N left-out documents, then count the rest
    #[arg(long, value_name = "N", default_value_t = packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX, requires = "note_omissions")]
    pub note_omissions_max: usize,
}

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The text file, or - for standard input
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub file: PathBuf,

    /// The encoding to count with
    #[arg(long, value_name = "E", value_parser = encoding_names(), default_value = "cl100k_base", conflicts_with = "model")]
    pub encoding: String,

    /// Count with the encoding of this model
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Count with this tokenizer file (Hugging Face tokenizer.json or Mistral tekken.json)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["encoding", "model"])]
    pub tokenizer: Option<PathBuf>,

    /// Refuse inputs larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = 1 << 30)]
    pub max_input_bytes: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Pretty JSON with the payload
    Json,
    /// Pretty JSON without the payload
    Summary,
    /// The payload's exact bytes, no newline added
    Payload,
    /// A table for people
    Report,
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

impl FormatArg {
    fn format(self) -> Format {
        match self {
            FormatArg::Json => Format::Json,
            FormatArg::Summary => Format::Summary,
            FormatArg::Payload => Format::Payload,
            FormatArg::Report => Format::Report,
        }
    }
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

/// On standard error, before the error itself: what to run instead when
/// `pack` was given a directory, or a file that is not a fixture.
fn first_mistake_hint(args: &PackArgs, error: &Error) {
    let named = args
        .input
        .fixture
        .as_deref()
        .filter(|p| *p != Path::new("-"));
    let shown = named.map(|p| output::terminal_safe(&p.to_string_lossy()));
    // A `.json` file that fails is a broken fixture, not a first mistake.
    let not_json = named.is_some_and(|p| {
        p.extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("json"))
    });
    let at_start = not_json
        && (matches!(error, Error::InvalidJson { at, .. } if at.line == 1 && at.column == 1)
            || matches!(error, Error::InvalidUtf8 { .. } | Error::Utf16 { .. }));
    let hint = match (shown, error) {
        (Some(path), Error::ReadFailed { kind, .. })
            if *kind == std::io::ErrorKind::IsADirectory =>
        {
            format!(
                "hint: to pack the files of a directory, run packer pack --dir {path} --budget N"
            )
        }
        (Some(path), _) if at_start => format!(
            "hint: {path} is not a fixture (a JSON capture of documents); to pack files, give \
             their directory: packer pack --dir DIR --budget N (--files-from LIST for some of \
             them), or write a fixture with packer collect DIR"
        ),
        _ => return,
    };
    eprintln!("{hint}");
}

impl ValidateArgs {
    fn options(&self) -> Options {
        Options {
            envelope: self.envelope,
            note_omissions: self.note_omissions,
            note_omissions_max: self.note_omissions_max,
            ..Options::default()
        }
    }
}

impl SettingsArgs {
    fn encoding(&self) -> Result<Option<Encoding>, Error> {
        resolve_encoding(self.encoding.as_deref(), self.model.as_deref())
    }

    fn request(&self, options: Options) -> Result<Request, Error> {
        Ok(Request {
            encoding: self.encoding()?,
            tokenizer: self.tokenizer.as_deref().map(Tokenizer::load).transpose()?,
            budget: self.budget.partial(),
            options,
        })
    }
}

fn resolve_encoding(name: Option<&str>, model: Option<&str>) -> Result<Option<Encoding>, Error> {
    if let Some(model) = model {
        return packer::model_encoding(model).map(Some);
    }
    // The parser only lets listed names through.
    Ok(name.and_then(|name| name.parse().ok()))
}

/// Reads a file (opened read-only) or standard input, at most `limit` bytes.
/// A file that cannot be read is named as the user typed it; a file over
/// the limit has its size stated.
fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    if path == Path::new("-") {
        let stdin = io::stdin().lock();
        if stdin.is_terminal() {
            eprintln!(
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
    eprintln!("{}", text.trim_end());
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
    eprintln!("error[usage]: {summary}");
    packer::error::EXIT_USAGE
}

/// Runs a parsed command and returns its exit status.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        Command::Pack(args) => pack(args),
        Command::Validate(args) => validate(args),
        Command::Batch(args) => batch::batch(args),
        Command::Count(args) => count(args),
        Command::Encodings => encodings(),
        Command::Focus(args) => focus(args),
        Command::Collect(args) => collect(args),
        Command::Init(args) => init::run(&args),
        Command::Mcp(args) => mcp::run(args),
        Command::Completions { shell } => completions(shell),
        Command::Man => man(),
    }
}

fn pack(args: PackArgs) -> Result<i32, Error> {
    if args.dir.is_none()
        && let Some(flag) = args.collect.first_given()
    {
        use clap::CommandFactory;
        let error = Cli::command().error(
            clap::error::ErrorKind::MissingRequiredArgument,
            format!("{flag} collects a directory: give --dir DIR"),
        );
        return Ok(usage_error(&error));
    }
    let format = args.format.format();
    let result = pack_with(&args, format);
    if let Err(error) = &result
        && error.exit_status() == packer::error::EXIT_INVALID_INPUT
        && matches!(format, Format::Json | Format::Summary)
    {
        let list = output::ErrorList::new(error);
        with_stdout(|out| {
            serde_json::to_writer_pretty(&mut *out, &list)?;
            out.write_all(b"\n")
        })?;
    }
    result
}

/// A name from the configuration file (checked when the file was read).
fn named<T: std::str::FromStr>(name: &Option<String>) -> Option<T> {
    name.as_deref().and_then(|name| name.parse().ok())
}

fn pack_with(args: &PackArgs, format: Format) -> Result<i32, Error> {
    // A directory's packer.toml fills what no flag gives.
    let found = match &args.dir {
        Some(dir) => args.collect.config(dir)?,
        None => None,
    };
    let empty = Config::default();
    let file = found.as_ref().map_or(&empty, |found| &found.config);
    let mut request = args.settings.request(Options {
        policy: args
            .policy
            .or_else(|| named(&file.policy))
            .unwrap_or_default(),
        envelope: args.envelope.or_else(|| named(&file.envelope)).unwrap_or(
            if args.dir.is_some() {
                Envelope::Markdown
            } else {
                Envelope::Json
            },
        ),
        note_omissions: args.note_omissions || file.note_omissions == Some(true),
        note_omissions_max: repo::or_file(
            args.note_omissions_max,
            DEFAULT_NOTE_OMISSIONS_MAX,
            file.note_omissions_max,
        ),
        excerpt: args
            .excerpt_query
            .clone()
            .or_else(|| file.excerpt_query.clone())
            .map(|query| ExcerptOptions {
                query,
                context: repo::or_file(
                    args.excerpt_context,
                    packer::focus::DEFAULT_CONTEXT,
                    file.excerpt_context,
                ),
                max_chars: repo::or_file(
                    args.excerpt_max_chars,
                    packer::focus::DEFAULT_MAX_CHARS,
                    file.excerpt_max_chars,
                ),
            }),
    })?;
    let settings = &args.settings;
    if settings.encoding.is_none() && settings.model.is_none() && settings.tokenizer.is_none() {
        if let Some(model) = &file.model {
            request.encoding = Some(packer::model_encoding(model)?);
        } else if file.encoding.is_some() {
            request.encoding = named(&file.encoding);
        }
    }
    if args.dir.is_some() {
        // Each budget value: the flag, else the file.
        let from_file = file.budget();
        let budget = &mut request.budget;
        for (value, from_file) in [
            (&mut budget.context_tokens, from_file.context_tokens),
            (
                &mut budget.reserved_other_input_tokens,
                from_file.reserved_other_input_tokens,
            ),
            (
                &mut budget.reserved_output_tokens,
                from_file.reserved_output_tokens,
            ),
            (&mut budget.safety_tokens, from_file.safety_tokens),
        ] {
            if value.is_none() {
                *value = from_file;
            }
        }
        // Said before the walk, which can take a while.
        if budget.context_tokens.is_none() {
            return Err(Error::InvalidBudget {
                field: "contextTokens",
                problem: packer::error::BudgetProblem::MissingForDirectory,
            });
        }
        // A directory has no budget of its own: the reservations not given
        // are 0.
        for value in [
            &mut budget.reserved_other_input_tokens,
            &mut budget.reserved_output_tokens,
            &mut budget.safety_tokens,
        ] {
            value.get_or_insert(0);
        }
    }
    if args.payload_out.as_deref() == Some(Path::new("-")) {
        return Err(Error::PayloadOutIsStdout);
    }
    // Every file this run reads, so that --payload-out replaces none of
    // them; those named on the command line are refused before anything
    // is read.
    let mut read = payload_out::ReadFiles::default();
    if let Some(out) = &args.payload_out {
        if let Some(dir) = &args.dir {
            read.protect(&dir.join(".git"));
            read.protect_rule_files(dir);
        }
        for path in [
            args.input
                .fixture
                .as_deref()
                .or(args.dir.is_none().then_some(Path::new("-"))),
            args.settings.tokenizer.as_deref(),
            args.collect.files_from.as_deref(),
        ]
        .into_iter()
        .flatten()
        {
            read.add_path(path);
        }
        read.refuse(out)?;
    }
    if let Some(id) = found.as_ref().and_then(|found| found.id) {
        read.extend(&[id]);
        if let Some(out) = &args.payload_out {
            read.refuse(out)?;
        }
    }
    let fixture = match &args.dir {
        Some(dir) => {
            let collection = args
                .collect
                .collect(dir, found.as_ref().map(|f| &f.config))?;
            read.extend(&collection.opened);
            packer_collect::fixture(&collection)?
        }
        None => args
            .input
            .load()
            .inspect_err(|error| first_mistake_hint(args, error))?,
    };
    let outcome = match packer::pack(&fixture, &request) {
        Ok(outcome) => outcome,
        Err(failure) => {
            // Something does not fit: still say what was decided.
            if let Some(does_not_fit) = failure.does_not_fit() {
                let settings = packer::settings(&fixture, &request)?;
                with_stdout(|out| {
                    output::write_refusal(
                        &fixture,
                        &settings,
                        &request.options,
                        does_not_fit,
                        format,
                        out,
                    )
                })?;
            }
            return Err(failure.into_error());
        }
    };
    if let Some(out) = &args.payload_out {
        payload_out::write(out, outcome.plan.payload_text.as_bytes(), &read)?;
    }
    let terminal = io::stdout().is_terminal();
    if format == Format::Report {
        let width = report_width(terminal);
        with_stdout(|out| output::write_report(&fixture, &outcome, width, &mut *out))?;
    } else {
        if terminal && format == Format::Json {
            eprintln!("hint: --format report prints a table for people; json is for scripts");
        }
        with_stdout(|out| output::write(&fixture, &outcome, format, &mut *out))?;
    }
    Ok(EXIT_OK)
}

/// The report's width: `COLUMNS` when set, else 80 columns on a terminal
/// and no wrapping in a file or pipe.
fn report_width(terminal: bool) -> usize {
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|columns| columns.trim().parse::<usize>().ok())
        .filter(|&columns| columns > 0);
    match columns {
        Some(columns) => columns,
        None if terminal => output::REPORT_WIDTH,
        None => output::NO_WRAP,
    }
}

fn validate(args: ValidateArgs) -> Result<i32, Error> {
    let request = args.settings.request(args.options())?;
    let fixture = args.input.load()?;
    let settings = packer::settings(&fixture, &request)?;
    // What `pack` would refuse before selecting: the empty envelope and the
    // required documents.
    packer::pack(&fixture, &request)?;
    let documents = fixture.documents.len();
    let required = fixture.documents.iter().filter(|d| d.required).count();
    let line = format!(
        "valid: {documents} document{}, {required} required, encoding {}, {} tokens available\n",
        if documents == 1 { "" } else { "s" },
        settings.counter().label(),
        settings.available_tokens,
    );
    write_stdout(line.as_bytes())?;
    Ok(EXIT_OK)
}

fn count(args: CountArgs) -> Result<i32, Error> {
    let counter = match &args.tokenizer {
        Some(path) => Counter::with_tokenizer(Tokenizer::load(path)?),
        None => Counter::new(
            resolve_encoding(Some(&args.encoding), args.model.as_deref())?
                .unwrap_or(Encoding::Cl100kBase),
        ),
    };
    let bytes = read_input(&args.file, args.max_input_bytes)?;
    let text = fixture::utf8(&bytes)?;
    let tokens = counter.count(text);
    write_stdout(format!("{tokens}\n").as_bytes())?;
    Ok(EXIT_OK)
}

fn focus(args: FocusArgs) -> Result<i32, Error> {
    let bytes = read_input(&args.file, args.max_input_bytes)?;
    let text = fixture::utf8(&bytes)?;
    let focus = packer::focus::Focus::new(text, args.query.as_deref(), args.context);
    let mut excerpt = focus.excerpt(usize::MAX, args.max_chars);
    // A marker or note line ends with a line break like every other; the
    // original's own ending is kept as it is.
    if !excerpt.ends_as_original {
        excerpt.text.push_str(focus.line_break());
    }
    write_stdout(excerpt.text.as_bytes())?;
    Ok(EXIT_OK)
}

fn collect(args: CollectArgs) -> Result<i32, Error> {
    let found = args.collect.config(&args.dir)?;
    let config = found.as_ref().map(|found| &found.config);
    let collection = args.collect.collect(&args.dir, config)?;
    let mut budget = args.budget.partial();
    if budget == PartialBudget::default()
        && let Some(config) = config
    {
        budget = config.budget();
    }
    write_stdout(packer_collect::fixture_json(&collection, &budget).as_bytes())?;
    Ok(EXIT_OK)
}

fn completions(shell: ShellArg) -> Result<i32, Error> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let shell = match shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "packer", &mut script);
    write_stdout(&script)?;
    Ok(EXIT_OK)
}

const EXAMPLES: &str = "\
Pack a capture and read the decisions as a table:
  packer pack capture.json --format report
Pipe the exact payload into an agent, keeping the plan:
  packer pack capture.json --model gpt-4o --context-tokens 128000 \\
    --reserved-other-input-tokens 6000 --reserved-output-tokens 4000 \\
    --safety-tokens 500 --format summary --payload-out payload.json > plan.json
Fill the budget as fully as possible, listing what was left out in the payload:
  packer pack capture.json --policy max-fill --note-omissions --format payload
Let documents too long to fit go in as excerpts around a query:
  packer pack capture.json --excerpt-query \"exit code, required\"
Check a capture in CI before packing (exit 3 or 4 on failure):
  packer validate capture.json
Count a text's tokens, or print the lines around a query:
  packer count --model gpt-4o README.md
  packer focus --query \"exit code\" README.md";

/// Text as a roff block kept as written (`.nf`), escaped.
fn roff_block(title: &str, text: &str) -> String {
    let body = text
        .replace('\\', "\\e")
        .replace('-', "\\-")
        .lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(".SH {title}\n.nf\n{body}\n.fi\n")
}

/// One page: the top-level synopsis and commands, each command's synopsis
/// and options, then the fixture format, the exit status and examples.
/// Every command is on this page (no other page is referred to).
fn man() -> Result<i32, Error> {
    use clap::CommandFactory;
    let command = Cli::command();
    let mut page = Vec::new();
    let top = clap_mangen::Man::new(command.clone());
    let rendered = top
        .render_title(&mut page)
        .and_then(|()| top.render_name_section(&mut page))
        .and_then(|()| top.render_synopsis_section(&mut page))
        .and_then(|()| top.render_description_section(&mut page))
        .and_then(|()| top.render_options_section(&mut page))
        .and_then(|()| {
            page.extend_from_slice(b".SH COMMANDS\n");
            for sub in command.get_subcommands() {
                let about = sub
                    .get_about()
                    .map(|about| about.to_string())
                    .unwrap_or_default();
                page.extend_from_slice(
                    format!(
                        ".TP\n\\fBpacker {}\\fR\n{}\n",
                        sub.get_name(),
                        about.replace('-', "\\-")
                    )
                    .as_bytes(),
                );
            }
            for sub in command.get_subcommands() {
                page.extend_from_slice(
                    format!(".SH \"PACKER {}\"\n", sub.get_name().to_uppercase()).as_bytes(),
                );
                let bin_name = format!("packer {}", sub.get_name());
                let man = clap_mangen::Man::new(sub.clone().bin_name(bin_name));
                man.render_synopsis_section(&mut page)?;
                man.render_options_section(&mut page)?;
            }
            page.extend_from_slice(roff_block("FIXTURE", FIXTURE).as_bytes());
            page.extend_from_slice(roff_block("\"EXIT STATUS\"", EXIT_CODES).as_bytes());
            page.extend_from_slice(roff_block("EXAMPLES", EXAMPLES).as_bytes());
            top.render_version_section(&mut page)
        });
    rendered.map_err(|error| Error::Output { kind: error.kind() })?;
    write_stdout(&page)?;
    Ok(EXIT_OK)
}

fn encodings() -> Result<i32, Error> {
    let mut text = String::new();
    for encoding in Encoding::ALL {
        text.push_str(&format!(
            "{:<14} {}\n",
            encoding.name(),
            encoding.example_models().join(", ")
        ));
    }
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
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
        assert_eq!(args.format, FormatArg::Json);
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
        assert_eq!(
            resolve_encoding(None, Some("gpt-4o")),
            Ok(Some(Encoding::O200kBase))
        );
        assert_eq!(
            resolve_encoding(Some("p50k_base"), None),
            Ok(Some(Encoding::P50kBase))
        );
        let error = resolve_encoding(None, Some("no-such-model")).unwrap_err();
        assert_eq!(error.exit_status(), 2);
    }
}
