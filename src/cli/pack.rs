//! `packer pack`: select whole documents that fit the budget, print the
//! payload and a decision for each, and write `--payload-out`.

use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, ValueEnum};
use packer::envelope::Envelope;
use packer::error::EXIT_OK;
use packer::output::{self, Format};
use packer::{Error, Policy, RequestNames};

use super::{
    Cli, InputArgs, SettingsArgs, envelope_names, out_dir, payload_out, policy_names, query, repo,
    report, usage_error, with_stdout,
};

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

    /// What to print on standard output [default: report on a terminal,
    /// json otherwise]
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,

    /// Also write the exact payload to FILE
    #[arg(long, value_name = "FILE")]
    pub payload_out: Option<PathBuf>,

    /// Draw no progress on standard error (it is drawn only on a terminal,
    /// once the pack has taken a second)
    #[arg(long, short)]
    pub quiet: bool,

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

    /// Put every document into as few windows as possible, each a complete
    /// payload within the budget that names its place (window 2 of 5)
    #[arg(long, conflicts_with = "payload_out")]
    pub windows: bool,

    /// With --windows: write each window's payload, byte for byte, to
    /// DIR/window-001.EXT (a new or empty DIR)
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Send outlines (whole kept lines from a parse: declarations,
    /// signatures, docs) of the source files that do not fit whole
    #[arg(long)]
    pub outline: bool,

    /// With --outline: the percentage of the budget whole documents fill
    /// before the rest go in as outlines [default: 40]
    #[arg(long, value_name = "PERCENT")]
    pub outline_share: Option<u64>,

    /// What the pack is for (an issue to fix, a question): the documents
    /// are tried in their relevance to it, the most relevant whole, the
    /// next as outlines or excerpts
    #[arg(long, value_name = "TEXT", conflicts_with = "query_file")]
    pub query: Option<String>,

    /// The query read from FILE (- for standard input), for long issue texts
    #[arg(long, value_name = "FILE|-")]
    pub query_file: Option<PathBuf>,

    /// Count the whole chat request: the messages (and tools) of FILE with
    /// the payload in place of {{packer:documents}}, rendered with the
    /// model's chat template; the budget is then context - output - safety
    #[arg(long, value_name = "FILE", conflicts_with = "windows")]
    pub request: Option<PathBuf>,

    /// With --request: the chat template, a Jinja file or a
    /// tokenizer_config.json [default: the one beside --tokenizer]
    #[arg(long, value_name = "FILE", requires = "request")]
    pub chat_template: Option<PathBuf>,

    /// With --request: how it is written: template (with its chat
    /// template, as transformers renders it) or harmony (gpt-oss's format
    /// as vLLM renders it with openai-harmony; --encoding o200k_harmony)
    #[arg(long, value_name = "FORMAT", requires = "request", conflicts_with = "chat_template",
          value_parser = ["template", "harmony"])]
    pub chat_format: Option<String>,

    /// With a chat request: the seconds its template may render for in all
    /// (it runs in a worker process that is stopped then)
    #[arg(long, value_name = "N", default_value_t = packer_files::render::DEFAULT_TEMPLATE_SECONDS)]
    pub template_seconds: u64,

    /// With a chat request: the MiB of memory its template's worker
    /// process may use
    #[arg(long, value_name = "MIB", default_value_t = packer_files::render::DEFAULT_TEMPLATE_MEMORY_MIB)]
    pub template_memory: u64,

    /// Collect DIR (as `packer collect`) and pack it, in one process; the
    /// fixture limits give way to --max-files and --max-total-bytes
    #[arg(long, value_name = "DIR", conflicts_with_all = ["fixture", "max_input_bytes", "max_documents"], display_order = 2)]
    pub dir: Option<PathBuf>,

    // Keep last: the heading applies to every flag after it.
    #[command(flatten, next_help_heading = "Collecting (with --dir)")]
    pub collect: repo::CollectFlags,

    /// Which flags that have a default were given on the command line
    /// (filled from the parse; a given flag wins over packer.toml even at
    /// its default value).
    #[arg(skip)]
    pub given: Given,
}

/// The flags with a default value that the command line gave.
#[derive(Debug, Clone, Copy, Default)]
pub struct Given {
    note_omissions_max: bool,
    excerpt_context: bool,
    excerpt_max_chars: bool,
}

impl Given {
    /// What `matches` (the `pack` subcommand's) says was given.
    pub fn of(matches: &clap::ArgMatches) -> Given {
        let given =
            |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        Given {
            note_omissions_max: given("note_omissions_max"),
            excerpt_context: given("excerpt_context"),
            excerpt_max_chars: given("excerpt_max_chars"),
        }
    }
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
    /// The rendered request's exact bytes (with --request)
    Request,
}

impl FormatArg {
    /// The library's format, or `None` for the report (the command line's).
    fn format(self) -> Option<Format> {
        match self {
            FormatArg::Json => Some(Format::Json),
            FormatArg::Summary => Some(Format::Summary),
            FormatArg::Payload => Some(Format::Payload),
            FormatArg::Report => None,
            FormatArg::Request => Some(Format::Request),
        }
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
    say!("{hint}");
}

pub fn run(args: PackArgs) -> Result<i32, Error> {
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
    // People read a table; scripts and pipes get JSON.
    let format = args.format.map_or_else(
        || match io::stdout().is_terminal() {
            true => None,
            false => Some(Format::Json),
        },
        FormatArg::format,
    );
    let result = pack_with(&args, format);
    if let Err(error) = &result
        && error.exit_status() == packer::error::EXIT_INVALID_INPUT
        && matches!(format, Some(Format::Json | Format::Summary))
    {
        let list = output::ErrorList::new(error);
        with_stdout(|out| {
            serde_json::to_writer_pretty(&mut *out, &list)?;
            out.write_all(b"\n")
        })?;
    }
    result
}

fn pack_with(args: &PackArgs, format: Option<Format>) -> Result<i32, Error> {
    let bar = super::progress::Bar::new(args.quiet);
    let job = job(args, &bar)?;
    // packer.toml, the request, the tokenizer file and the chat request;
    // the directory is not walked yet.
    let prepared = packer_job::prepare(&job, args.dir.as_deref())?;
    let request = prepared.request();
    if args.format == Some(FormatArg::Request) && request.chat.is_none() {
        use clap::CommandFactory;
        let error = Cli::command().error(
            clap::error::ErrorKind::MissingRequiredArgument,
            "--format request prints the rendered chat request: give --request FILE",
        );
        return Ok(usage_error(&error));
    }
    if args.payload_out.as_deref() == Some(Path::new("-")) {
        return Err(Error::PayloadOutIsStdout);
    }
    let windows = request.options.windows;
    if let Some(code) = windows_usage(windows, args) {
        return Ok(code);
    }
    // Refused (or created) before anything is read or walked.
    let out_dir = match args.out_dir.as_deref().filter(|_| windows) {
        Some(dir) => Some(out_dir::prepare(dir, args.dir.as_deref())?),
        None => None,
    };
    // Every file this run reads, so that --payload-out replaces none of
    // them; those named on the command line are refused before anything
    // is read.
    let mut read = payload_out::ReadFiles::default();
    if let Some(out) = &args.payload_out {
        if let Some(dir) = &args.dir {
            read.protect(&dir.join(".git"));
            read.protect_collected(dir);
        }
        for path in [
            args.input
                .fixture
                .as_deref()
                .or(args.dir.is_none().then_some(Path::new("-"))),
            args.settings.tokenizer.as_deref(),
            args.collect.files_from.as_deref(),
            args.request.as_deref(),
            args.chat_template.as_deref(),
        ]
        .into_iter()
        .flatten()
        {
            read.add_path(path);
        }
        // The template files read beside the tokenizer file.
        if let (Some(_), Some(dir)) = (
            &request.chat,
            args.settings.tokenizer.as_deref().and_then(Path::parent),
        ) {
            read.add_path(&dir.join("tokenizer_config.json"));
            read.add_path(&dir.join("chat_template.jinja"));
        }
        read.extend(prepared.read_files());
        read.refuse(out)?;
    }
    // A directory's tree, with outlines, marks what the pack made of each
    // file (packer_collect::pack).
    let packed = match &args.dir {
        Some(_) => {
            let collection = prepared.collect(bar.collecting());
            bar.finish();
            let collection = collection?;
            let dir = prepared.directory().expect("a directory job");
            repo::report(dir, &collection, prepared.collect_options());
            read.extend(&collection.opened);
            let packed = prepared.pack_collection(collection);
            bar.finish();
            packed?
        }
        None => {
            let fixture = args
                .input
                .load()
                .inspect_err(|error| first_mistake_hint(args, error))?;
            unused_priorities_hint(&fixture, request);
            let packed = prepared.pack_fixture(fixture);
            bar.finish();
            packed
        }
    };
    let packing = match packed.result {
        Ok(packing) => packing,
        Err(failure) => {
            // Something does not fit: still say what was decided.
            if let Some(does_not_fit) = failure.does_not_fit() {
                let settings = packer::settings(&packed.fixture, &packed.request)?;
                let (fixture, options) = (&packed.fixture, &packed.request.options);
                with_stdout(|out| match format {
                    Some(format) => output::write_refusal(
                        fixture,
                        &settings,
                        options,
                        does_not_fit,
                        format,
                        out,
                    ),
                    None => report::write_refusal(fixture, &settings, options, does_not_fit, out),
                })?;
            }
            return Err(failure.into_error());
        }
    };
    let fixture = &packed.fixture;
    let outcome = match packing {
        packer_job::Packing::One(outcome) => outcome,
        packer_job::Packing::Windows(outcome) => {
            if let Some(dir) = &out_dir {
                out_dir::write(dir, &outcome.windows.windows, outcome.envelope)?;
            }
            with_stdout(|out| match format {
                Some(format) => output::write_windows(fixture, &outcome, format, &mut *out),
                None => {
                    let width = report_width(io::stdout().is_terminal());
                    report::write_windows(fixture, &outcome, width, &mut *out)
                }
            })?;
            return Ok(EXIT_OK);
        }
    };
    if let Some(out) = &args.payload_out {
        payload_out::write(out, outcome.plan.payload_text.as_bytes(), &read)?;
    }
    match format {
        None => {
            let width = report_width(io::stdout().is_terminal());
            with_stdout(|out| report::write_report(fixture, &outcome, width, &mut *out))?;
        }
        Some(format) => with_stdout(|out| output::write(fixture, &outcome, format, &mut *out))?,
    }
    Ok(EXIT_OK)
}

/// On standard error: a capture's priorities go unused when the policy
/// is not `priority` (a query with `priority` uses them too).
fn unused_priorities_hint(fixture: &packer::Fixture, request: &packer::Request) {
    let with = fixture.documents.iter().filter(|d| d.priority != 0).count();
    if with > 0 && request.options.policy != packer::Policy::Priority {
        let policy = request.options.policy.name();
        say!(
            "note: {with} of {} documents carry a priority, which the {policy} policy does not \
             use; --policy priority tries them by priority first",
            fixture.documents.len()
        );
    }
}

/// `--query`, or the text of `--query-file` (UTF-8, at most
/// `--max-input-bytes`; `-` is standard input, so not with a fixture read
/// from it).
fn query_text(args: &PackArgs) -> Result<Option<String>, Error> {
    if let Some(text) = &args.query {
        return Ok(Some(text.clone()));
    }
    let Some(path) = &args.query_file else {
        return Ok(None);
    };
    let fixture_on_stdin = args.dir.is_none()
        && args
            .input
            .fixture
            .as_deref()
            .is_none_or(|fixture| fixture == Path::new("-"));
    if path == Path::new("-") && fixture_on_stdin {
        return Err(Error::InvalidRequest {
            problem: packer::error::RequestProblem::QueryAndFixtureOnStdin,
        });
    }
    let bytes = super::read_input(path, args.input.max_input_bytes)?;
    Ok(Some(packer::fixture::utf8(&bytes)?.to_owned()))
}

/// The job the flags describe: every flag by name (`None` where not
/// given, so that packer.toml fills it), the collecting flags, the files
/// to read, and the worker the chat template renders in.
fn job(args: &PackArgs, bar: &super::progress::Bar) -> Result<packer_job::Job, Error> {
    let given = args.given;
    let names = RequestNames {
        policy: args.policy.map(|policy| policy.name().to_owned()),
        envelope: args.envelope.map(|envelope| envelope.name().to_owned()),
        default_envelope: if args.dir.is_some() {
            Envelope::Markdown
        } else {
            Envelope::Json
        },
        note_omissions: args.note_omissions,
        note_omissions_max: given.note_omissions_max.then_some(args.note_omissions_max),
        excerpt_query: args.excerpt_query.clone(),
        excerpt_context: given.excerpt_context.then_some(args.excerpt_context),
        excerpt_max_chars: given.excerpt_max_chars.then_some(args.excerpt_max_chars),
        windows: args.windows,
        outline: args.outline,
        outline_share: args.outline_share,
        query: query_text(args)?,
        ..args.settings.names()
    };
    let limits = packer_files::render::TemplateLimits {
        seconds: args.template_seconds,
        memory_mib: args.template_memory,
    };
    // The template runs in a worker process, this binary again.
    let workers =
        packer_files::render::WorkerRenderers::current_exe(&[super::RENDER_WORKER], limits)
            .map_err(|error| Error::ReadFailed {
                path: "the packer executable".into(),
                kind: error.kind(),
            })?;
    Ok(packer_job::Job {
        names,
        collect: match &args.dir {
            Some(_) => args.collect.options()?,
            None => packer_collect::CollectOptions::default(),
        },
        tokenizer: args.settings.tokenizer.clone(),
        chat: match &args.request {
            Some(request) => packer_job::ChatSource::File {
                request: request.clone(),
                template: args.chat_template.clone(),
            },
            None => packer_job::ChatSource::None,
        },
        chat_format: args
            .chat_format
            .as_deref()
            .and_then(|name| name.parse().ok())
            .unwrap_or_default(),
        config: args.collect.config_choice(),
        roots: None,
        renderers: Some(std::sync::Arc::new(workers)),
        cancel: packer::Cancel::default(),
        progress: bar.progress(),
    })
}

/// A usage error for what `--windows` does not go with (or what needs it),
/// checked before anything is read: the exit status, once reported.
fn windows_usage(windows: bool, args: &PackArgs) -> Option<i32> {
    use clap::CommandFactory;
    let message = if windows && args.format == Some(FormatArg::Payload) {
        "--format payload prints one payload; with --windows, give --out-dir DIR for each \
         window's payload (and --format json, summary or report)"
    } else if windows && args.payload_out.is_some() {
        "--payload-out writes one payload; with --windows, give --out-dir DIR for each \
         window's payload"
    } else if !windows && args.out_dir.is_some() {
        "--out-dir writes the payloads of --windows: give --windows"
    } else {
        return None;
    };
    let error = Cli::command().error(clap::error::ErrorKind::ArgumentConflict, message);
    Some(usage_error(&error))
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
        None if terminal => report::REPORT_WIDTH,
        None => report::NO_WRAP,
    }
}
