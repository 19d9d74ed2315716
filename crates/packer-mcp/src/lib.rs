//! `packer mcp`: the packer tools over the Model Context Protocol, on
//! standard input and output, for agent launchers.
//!
//! A thin front end: each tool call's arguments become the library's
//! request types ([`packer::Request`], [`packer_collect::CollectOptions`]),
//! the library packs, and the outcome goes back as the payload text plus a
//! compact summary. Standard output carries only the protocol; anything
//! else goes to standard error. The server reads only inside its roots,
//! never writes a file and never touches the network.
//!
//! The command line parses `packer mcp`'s flags into [`Settings`] and calls
//! [`run`]; nothing here knows the command line.

/// `eprintln!` that does not panic when standard error is closed: the
/// server's log is for people, and a closed one must not end the server.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod cache;
mod jsonrpc;
mod sandbox;
mod summary;
mod tools;
mod transport;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use packer::error::{CommandLine, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, Names, Setting};
use packer::output::{ErrorList, ErrorRecord};
use packer::{Counter, Encoding, Fixture, Limits, RequestNames, Tokenizer};

use jsonrpc::RawArguments;
use sandbox::Roots;
use summary::PackSummary;
use tools::Arguments;
use transport::Lines;

/// What the server may read and how it answers (`packer mcp`'s flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// The directories that pack_directory may read (the current directory
    /// when empty); relative paths start at the first.
    pub roots: Vec<PathBuf>,
    /// Where a pack's summary goes.
    pub summary: SummaryPlace,
    /// The most bytes of pack_documents documents or a count_tokens text.
    pub max_input_bytes: u64,
    /// The most documents of a pack_documents call.
    pub max_documents: usize,
    /// The bounds on a call's chat template, which renders in a worker
    /// process: this executable run with `worker_argument`.
    pub template_limits: packer_files::render::TemplateLimits,
    /// The argument that makes this executable a chat-template worker.
    pub worker_argument: &'static str,
    /// The most calls that pack or count at once; more wait (see
    /// [`MOST_WAITING`]).
    pub max_calls: usize,
}

/// The most calls that wait for one of the `max_calls` places; a call
/// beyond them is answered at once with `busy`.
pub const MOST_WAITING: usize = 64;

/// Where a pack's summary goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SummaryPlace {
    /// As structuredContent, with an output schema.
    Structured,
    /// As a second text block after the payload.
    Text,
    /// Not at all: the payload alone.
    None,
}

/// Why a tool call failed: the library's error, or one only a server has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolError {
    /// The library refused (same code and message as the command line).
    Packer(packer::Error),
    /// A path outside every root.
    OutsideRoot,
    /// Arguments that do not follow the tool's schema.
    Usage(String),
    /// Every place is taken and too many calls wait.
    Busy {
        /// Calls packing at once, the limit.
        running: usize,
        /// Calls waiting, the limit.
        waiting: usize,
    },
    /// The client cancelled the call.
    Cancelled,
    /// A bug: packing panicked.
    Internal,
}

impl ToolError {
    /// The stable code, as in `error[CODE]`.
    pub fn code(&self) -> &'static str {
        match self {
            ToolError::Packer(error) => error.code(),
            ToolError::OutsideRoot => "path-outside-root",
            ToolError::Usage(_) => "usage",
            ToolError::Busy { .. } => "busy",
            ToolError::Cancelled => "cancelled",
            ToolError::Internal => "internal",
        }
    }

    /// The message: field names, indices and numbers, never argument or
    /// capture bytes. For several problems, the first one's.
    pub fn message(&self) -> String {
        match self {
            ToolError::Packer(error) => in_argument_names(error),
            ToolError::OutsideRoot => "the path lies outside every root this server may read \
                 (its --root directories); give a path inside one of them"
                .into(),
            ToolError::Usage(message) => message.clone(),
            ToolError::Busy { running, waiting } => format!(
                "the server is already packing {running} calls with {waiting} more waiting, its \
                 limit (`packer mcp --max-calls`); call again when one has been answered"
            ),
            ToolError::Cancelled => "the call was cancelled".into(),
            ToolError::Internal => {
                "packer failed unexpectedly; please report it with the call's arguments (not the documents)".into()
            }
        }
    }

    /// Every problem, as the command line lists them for invalid input.
    ///
    /// A problem's line and column are left out (the document index and
    /// the field name say where it is): the client sees its arguments, not
    /// the request line they came in. Errors of the JSON text itself (a
    /// key twice, an unpaired surrogate) keep the position their message
    /// names, counted in the request line.
    pub fn list(&self) -> ErrorList {
        let ToolError::Packer(error) = self else {
            return ErrorList {
                errors: vec![ErrorRecord {
                    code: self.code(),
                    message: self.message(),
                    document: None,
                    field: None,
                    line: None,
                    column: None,
                }],
                more_errors: 0,
            };
        };
        let (problems, more_errors) = error.problems();
        let errors = problems
            .into_iter()
            .map(|mut problem| {
                problem.at = None;
                ErrorRecord {
                    code: problem.error.code(),
                    message: problem.message_with(&ToolArguments),
                    document: problem.document,
                    field: problem.field,
                    line: None,
                    column: None,
                }
            })
            .collect();
        ErrorList {
            errors,
            more_errors,
        }
    }
}

/// The tool arguments that do what the command line's flags do, as the
/// library's messages name them here; the request is the fixture.
pub(crate) struct ToolArguments;

impl Names for ToolArguments {
    fn name(&self, setting: Setting) -> &'static str {
        match setting {
            Setting::TokenizerFile => "the tokenizer file",
            Setting::FixtureAt => "the request at",
            Setting::NoteOmissions => "the argument noteOmissions",
            Setting::NoteOmissionsMax => "the argument noteOmissionsMax",
            Setting::BaseUrl => "the argument baseUrl",
            Setting::Glob => "the argument globs",
            Setting::GlobPattern => "an entry of the argument globs",
            Setting::Encoding => "the argument encoding",
            Setting::EncodingName => "the argument 'encoding'",
            Setting::PolicyName => "the argument 'policy'",
            Setting::EnvelopeName => "the argument 'envelope'",
            Setting::EncodingOrModel => "the argument 'encoding' or 'model'",
            Setting::OneCounter => {
                "at most one of the arguments 'encoding', 'model' and 'tokenizer'"
            }
            Setting::NoteOmissionsMaxAlone => "the argument 'noteOmissionsMax'",
            Setting::NoteOmissionsOn => "the argument 'noteOmissions'",
            Setting::ExcerptQuery => "the argument 'excerptQuery'",
            Setting::Windows => "the argument 'windows'",
            // The tools take the whole budget: a margin is a lower budget.
            Setting::SafetyTokens => "a lower argument 'budget'",
            Setting::OutlineShare => "the argument 'outlineShare'",
            Setting::OutlineOn => "the argument 'outline'",
            Setting::RequestFile => "the argument 'request'",
            Setting::RequestFileSubject => "the argument 'request'",
            Setting::ChatTemplate => "the argument 'chatTemplate'",
            // The tools take the whole budget: what lies outside the
            // payload is kept out of it with a lower budget.
            Setting::ReservedOtherInput => "a lower argument 'budget'",
            Setting::PriorityGlob => "a priority glob",
            Setting::Query => "the argument 'query'",
            // The server's own flags: a client cannot raise them.
            Setting::TemplateSeconds => "`packer mcp --template-seconds`",
            Setting::TemplateMemory => "`packer mcp --template-memory`",
            // No tool takes separate budget values or excerpt sizes.
            _ => CommandLine.name(setting),
        }
    }
}

/// A library message as a tool caller reads it: a flag that has a tool
/// argument is named by that argument.
fn in_argument_names(error: &packer::Error) -> String {
    error.message(&ToolArguments)
}

impl From<packer::Error> for ToolError {
    fn from(error: packer::Error) -> ToolError {
        match error {
            packer::Error::PathOutsideRoot => ToolError::OutsideRoot,
            error => ToolError::Packer(error),
        }
    }
}

/// The server: its roots and settings, shared by every call.
#[derive(Debug, Clone)]
struct Server {
    /// One place per call that may pack at once.
    places: Arc<tokio::sync::Semaphore>,
    /// How many calls wait for a place.
    waiting: Arc<std::sync::atomic::AtomicUsize>,
    max_calls: usize,
    roots: Arc<Roots>,
    summary: SummaryPlace,
    limits: Limits,
    /// Where a call's chat template renders.
    renderers: Arc<dyn packer::chat::render::Renderers>,
    /// `pack_directory`'s answers of unchanged trees.
    cache: Arc<cache::Cache>,
}

/// A successful call: the text the model reads and the summary.
struct Answer {
    text: String,
    summary: Value,
}

impl Server {
    fn call(
        &self,
        name: &str,
        arguments: &RawArguments,
        cancel: &packer::Cancel,
    ) -> Result<Answer, ToolError> {
        match name {
            tools::PACK_DIRECTORY => self.pack_directory(arguments, cancel),
            tools::PACK_DOCUMENTS => self.pack_documents(arguments, cancel),
            tools::COUNT_TOKENS => self.count_tokens(arguments, cancel),
            _ => Err(ToolError::Usage(format!(
                "no such tool; the tools are {}, {} and {}",
                tools::PACK_DIRECTORY,
                tools::PACK_DOCUMENTS,
                tools::COUNT_TOKENS
            ))),
        }
    }

    fn pack_directory(
        &self,
        arguments: &RawArguments,
        cancel: &packer::Cancel,
    ) -> Result<Answer, ToolError> {
        let started = std::time::SystemTime::now();
        let args = Arguments::new(arguments, tools::PACK_DIRECTORY_ARGUMENTS)?;
        let path = args
            .string("path")?
            .ok_or_else(|| ToolError::Usage("the argument 'path' is missing".into()))?;
        let names = args.request_names(tools::DIRECTORY_ENVELOPE)?;
        let collect = args.collect_options()?;
        let dir = self.roots.resolve(path)?;
        if !dir.is_dir() {
            return Err(ToolError::Usage(format!(
                "{} is a file, not a directory; give the directory that holds it (and the \
                 argument 'files' to pack only some of its files)",
                packer::output::terminal_safe(path)
            )));
        }
        // The directory's packer.toml (or .packer.toml) fills what no
        // argument gives, as on the command line; the directory is
        // checked again on the opened directory (a link swapped in after
        // `resolve` is caught).
        let job = self.job(&args, names, collect, cancel)?;
        let prepared = packer_job::prepare(&job, Some(&dir))?;
        let request = prepared.request();
        let window = match args.window()? {
            // The file's `windows = true`: the first window, as the
            // argument would give.
            None if request.options.windows => Some(1),
            window => window,
        };
        if window.is_some() && request.chat.is_some() {
            // Refused before the walk, as the library refuses it.
            return Err(windows_with_request());
        }
        // The same call on an unchanged tree gets the answer it got (a
        // chat template may render the date: those are never kept).
        let key = request.chat.is_none().then(|| {
            let canonical = serde_json::from_str::<Value>(arguments.text())
                .map_or_else(|_| arguments.text().to_owned(), |value| value.to_string());
            format!("{}\n{canonical}", dir.display())
        });
        if let Some(key) = &key
            && let Some((text, summary)) = self.cache.get(key)
        {
            say!("packer mcp: pack_directory answered as before: the tree has not changed");
            return Ok(Answer { text, summary });
        }
        let collection = prepared.collect(|_| {})?;
        let paths = key
            .as_ref()
            .and_then(|_| cache::paths_of(&dir, &collection, job.tokenizer.as_deref()));
        let packed = prepared.pack_collection(collection)?;
        let answer = answer(packed, window)?;
        if let (Some(key), Some(paths)) = (key, paths)
            && let Some(stamp) = cache::Stamp::new(paths, started)
        {
            self.cache.keep(key, stamp, &answer.text, &answer.summary);
        }
        Ok(answer)
    }

    fn pack_documents(
        &self,
        arguments: &RawArguments,
        cancel: &packer::Cancel,
    ) -> Result<Answer, ToolError> {
        let args = Arguments::new(arguments, tools::PACK_DOCUMENTS_ARGUMENTS)?;
        let (documents, offset) = args
            .raw("documents")
            .ok_or_else(|| ToolError::Usage("the argument 'documents' is missing".into()))?;
        self.check_size(documents)?;
        let names = args.request_names(tools::DOCUMENTS_ENVELOPE)?;
        let job = self.job(
            &args,
            names,
            packer_collect::CollectOptions::default(),
            cancel,
        )?;
        let prepared = packer_job::prepare(&job, None)?;
        // The documents, as the client wrote them, go through the same
        // reader and validation as a fixture file, so every refusal has the
        // command line's code.
        const HEAD: &str = r#"{"documents":"#;
        let fixture_json = format!("{HEAD}{documents}}}");
        let limits = Limits {
            max_input_bytes: u64::MAX,
            ..self.limits
        };
        let fixture = Fixture::from_bytes(fixture_json.as_bytes(), &limits)
            .map_err(|error| tools::moved(error, offset.saturating_sub(HEAD.len())))?;
        let window = args.window()?;
        answer(prepared.pack_fixture(fixture), window)
    }

    fn count_tokens(
        &self,
        arguments: &RawArguments,
        cancel: &packer::Cancel,
    ) -> Result<Answer, ToolError> {
        let args = Arguments::new(arguments, tools::COUNT_TOKENS_ARGUMENTS)?;
        if let Some((text, _)) = args.raw("text") {
            self.check_size(text)?;
        }
        let text = args
            .string("text")?
            .ok_or_else(|| ToolError::Usage("the argument 'text' is missing".into()))?;
        let encoding = args.counter_names()?.encoding()?;
        let counter = match tokenizer(&args, &self.roots)? {
            Some(tokenizer) => Counter::with_tokenizer(tokenizer),
            None => Counter::new(encoding.unwrap_or(Encoding::Cl100kBase)),
        };
        // A count of a long text can take seconds: a cancel stops it.
        let tokens = cancel
            .watch(|| counter.count(text))
            .map_err(|_| ToolError::Cancelled)?;
        let mut summary = json!({"encoding": counter.label(), "tokens": tokens});
        if let Some(tokenizer) = counter.tokenizer() {
            summary["tokenizerSha256"] = json!(tokenizer.sha256());
        }
        Ok(Answer {
            text: tokens.to_string(),
            summary,
        })
    }

    /// The job a pack tool's arguments make: their settings by name,
    /// the tokenizer file and the chat request (its template and the files
    /// beside the tokenizer read inside the roots), the server's worker
    /// for the template.
    fn job(
        &self,
        args: &Arguments<'_>,
        names: RequestNames,
        collect: packer_collect::CollectOptions,
        cancel: &packer::Cancel,
    ) -> Result<packer_job::Job, ToolError> {
        let tokenizer = match args.string("tokenizer")? {
            Some(path) => Some(self.roots.resolve_tokenizer(path)?),
            None => None,
        };
        let template = args.string("chatTemplate")?;
        let chat_format = match args.string("chatFormat")? {
            None => packer::chat::ChatFormat::default(),
            Some(name) => name.parse().map_err(|()| {
                ToolError::Usage(format!(
                    "the argument 'chatFormat' must be one of {}",
                    packer::chat::ChatFormat::names().join(", ")
                ))
            })?,
        };
        let chat = match args.chat_request()? {
            None if template.is_some() => {
                return Err(ToolError::Usage(
                    "the argument 'chatTemplate' needs the argument 'request'".into(),
                ));
            }
            None => packer_job::ChatSource::None,
            Some(text) => {
                self.check_size(text)?;
                packer_job::ChatSource::Inline {
                    request: text.as_bytes().to_vec(),
                    template: match template {
                        Some(path) => Some(self.roots.resolve_chat_template(path)?),
                        None => None,
                    },
                }
            }
        };
        Ok(packer_job::Job {
            names,
            collect,
            tokenizer,
            chat,
            chat_format,
            config: packer_job::ConfigChoice::Find,
            roots: Some(self.roots.paths().to_vec()),
            renderers: Some(self.renderers.clone()),
            cancel: cancel.clone(),
            progress: packer::Progress::default(),
        })
    }

    /// Documents or a text, as JSON text, of at most `--max-input-bytes`.
    fn check_size(&self, json: &str) -> Result<(), ToolError> {
        let size = json.len() as u64;
        if size > self.limits.max_input_bytes {
            return Err(packer::Error::InputTooLarge {
                limit: self.limits.max_input_bytes,
                size: Some(size),
            }
            .into());
        }
        Ok(())
    }

    /// Waits for a place, unless [`MOST_WAITING`] calls wait already
    /// (`busy`) or the client cancels the call.
    async fn wait_for_place(
        &self,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<tokio::sync::OwnedSemaphorePermit, ToolError> {
        use std::sync::atomic::Ordering;
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= MOST_WAITING {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ToolError::Busy {
                running: self.max_calls,
                waiting: MOST_WAITING,
            });
        }
        let place = tokio::select! {
            place = self.places.clone().acquire_owned() => place.map_err(|_| ToolError::Internal),
            () = cancelled => Err(ToolError::Cancelled),
        };
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        place
    }

    fn result(&self, answer: Result<Answer, ToolError>) -> CallToolResult {
        match answer {
            Ok(Answer { text, summary }) => {
                let mut content = vec![ContentBlock::text(text)];
                match self.summary {
                    SummaryPlace::Structured => {
                        let mut result = CallToolResult::success(content);
                        result.structured_content = Some(summary);
                        return result;
                    }
                    SummaryPlace::Text => content.push(ContentBlock::text(summary.to_string())),
                    SummaryPlace::None => {}
                }
                CallToolResult::success(content)
            }
            Err(error) => {
                // Text only: structured content would have to follow the
                // tool's output schema (a pack's summary), and clients that
                // check it would lose the error.
                let text = error.list().lines().join("\n");
                CallToolResult::error(vec![ContentBlock::text(text)])
            }
        }
    }
}

/// A pack's answer: the payload (or the rendered request) and the summary;
/// with windows, window `window`'s payload and the summary of it (with what
/// the walk of a directory left out).
fn answer(packed: packer_job::Packed, window: Option<usize>) -> Result<Answer, ToolError> {
    let packer_job::Packed {
        fixture,
        collection,
        result,
        ..
    } = packed;
    match result.map_err(packer::Failure::into_error)? {
        packer_job::Packing::One(outcome) => {
            let mut summary = PackSummary::new(&fixture, &outcome);
            if let Some(collection) = &collection {
                summary = summary.with_files(collection);
            }
            Ok(Answer {
                summary: serde_json::to_value(&summary).unwrap_or(Value::Null),
                text: match outcome.plan.request {
                    Some(request) => request.text,
                    None => outcome.plan.payload_text,
                },
            })
        }
        packer_job::Packing::Windows(outcome) => {
            let window = window.unwrap_or(1);
            let count = outcome.windows.count();
            if window > count {
                return Err(ToolError::Usage(format!(
                    "the argument 'window' must be from 1 to {count}: the documents fit in \
                     {count} window{}",
                    if count == 1 { "" } else { "s" }
                )));
            }
            let mut summary = PackSummary::of_window(&fixture, &outcome, window);
            if let Some(collection) = &collection {
                summary = summary.with_files(collection);
            }
            Ok(Answer {
                summary: serde_json::to_value(&summary).unwrap_or(Value::Null),
                text: outcome.windows.windows[window - 1].payload_text.clone(),
            })
        }
    }
}

/// `windows` with `request`, as the library refuses it.
fn windows_with_request() -> ToolError {
    packer::Error::InvalidRequest {
        problem: packer::error::RequestProblem::WindowsWithRequest,
    }
    .into()
}

/// The request a pack tool's arguments make alone (no file read).
#[cfg(test)]
fn build(
    args: &Arguments<'_>,
    default_envelope: packer::Envelope,
) -> Result<packer::Request, ToolError> {
    Ok(args.request_names(default_envelope)?.build()?)
}

/// The `tokenizer` argument: a file inside a root, loaded (once per distinct
/// file for the life of the server). That it comes without an encoding or
/// a model was checked when the request was built.
fn tokenizer(args: &Arguments<'_>, roots: &Roots) -> Result<Option<Tokenizer>, ToolError> {
    let Some(path) = args.string("tokenizer")? else {
        return Ok(None);
    };
    let path = roots.resolve_tokenizer(path)?;
    Ok(Some(packer_files::load_tokenizer_confined(
        &path,
        roots.paths(),
    )?))
}

const INSTRUCTIONS: &str = "\
packer packs whole documents into an exact token budget. Use pack_directory to read many \
files of a directory at once within `budget` tokens, pack_documents for documents you already \
have, count_tokens to measure text. Keep `budget` under your client's limit on tool results.";

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("packer", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(
            self.roots.paths(),
            self.summary == SummaryPlace::Structured,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let server = self.clone();
        let name = request.name.to_string();
        // The arguments as the client wrote them (the transport keeps them
        // out of rmcp's hands); without any, an empty object.
        let arguments = match context.extensions.get::<RawArguments>() {
            Some(arguments) => arguments.clone(),
            None => RawArguments::new(
                serde_json::to_string(&request.arguments.unwrap_or_default()).map_err(|_| {
                    ErrorData::internal_error("the arguments do not serialize", None)
                })?,
            ),
        };
        // A place among the calls that pack at once, waiting for one if
        // few enough wait already.
        let place = match self.places.clone().try_acquire_owned() {
            Ok(place) => Ok(place),
            Err(_) => self.wait_for_place(context.ct.cancelled()).await,
        };
        // Packing is CPU work: run it off the protocol's thread, and turn a
        // panic into one coded error. A cancelled call stops at the pack's
        // next check; it keeps its place until then.
        let answer = match place {
            Ok(place) => {
                let cancel = packer::Cancel::new();
                let cancel_job = cancel.clone();
                let job = tokio::task::spawn_blocking(move || {
                    let _place = place;
                    server.call(&name, &arguments, &cancel_job)
                });
                tokio::select! {
                    joined = job => joined.unwrap_or(Err(ToolError::Internal)),
                    () = context.ct.cancelled() => {
                        cancel.cancel();
                        Err(ToolError::Cancelled)
                    }
                }
            }
            Err(error) => Err(error),
        };
        if let Err(error) = &answer {
            say!(
                "packer mcp: {} failed: error[{}]",
                log_safe(&request.name),
                error.code()
            );
        }
        Ok(self.result(answer).into())
    }
}

/// The most characters of a client's string that the log shows.
const LOG_CHARS: usize = 64;

/// A client's string as the log shows it: at most [`LOG_CHARS`] characters
/// (then `...`), terminal-safe, so that no call can forge, repaint or flood
/// a line of the log.
fn log_safe(text: &str) -> String {
    let shown: String = text.chars().take(LOG_CHARS).collect();
    let mut safe = packer::output::terminal_safe(&shown);
    if shown.len() < text.len() {
        safe.push_str("...");
    }
    safe
}

/// Serves until the client closes standard input; returns the exit status.
/// A root that is not a readable directory is a usage error, said on
/// standard error.
pub fn run(args: Settings) -> Result<i32, packer::Error> {
    let roots = match Roots::new(&args.roots) {
        Ok(roots) => roots,
        Err(index) => {
            let root = args.roots.get(index).map_or_else(
                || ".".to_owned(),
                |root| packer::output::terminal_safe(&root.to_string_lossy()),
            );
            say!("error[usage]: --root {root} is not a directory that can be read");
            return Ok(EXIT_USAGE);
        }
    };
    let renderers = packer_files::render::WorkerRenderers::current_exe(
        &[args.worker_argument],
        args.template_limits,
    )
    .map_err(|error| packer::Error::Output { kind: error.kind() })?;
    let max_calls = args.max_calls.max(1);
    let server = Server {
        places: Arc::new(tokio::sync::Semaphore::new(max_calls)),
        waiting: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        max_calls,
        roots: Arc::new(roots),
        summary: args.summary,
        limits: Limits {
            max_input_bytes: args.max_input_bytes,
            max_documents: args.max_documents,
        },
        renderers: Arc::new(renderers),
        cache: Arc::new(cache::Cache::default()),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| packer::Error::Output { kind: error.kind() })?;
    let status = runtime.block_on(async move {
        say!(
            "packer mcp {}: serving on standard input and output",
            env!("CARGO_PKG_VERSION")
        );
        let (stdin, stdout) = rmcp::transport::stdio_pipes();
        let transport = Lines::new(stdin, stdout, args.max_input_bytes);
        let service = match server.serve(transport).await {
            Ok(service) => service,
            Err(error) => {
                say!("error[mcp-session]: the session did not start: {error}");
                return Ok(EXIT_FAILURE);
            }
        };
        match service.waiting().await {
            Ok(_) => Ok(EXIT_OK),
            Err(_) => {
                say!("error[internal]: the server stopped unexpectedly");
                Ok(EXIT_FAILURE)
            }
        }
    });
    // The client is gone: a call still packing (a cancelled one finishing
    // a count) is not waited for, and ends with the process.
    runtime.shutdown_background();
    status
}
