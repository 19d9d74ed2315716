//! The one error type, its stable machine codes and its exit statuses.
//!
//! Variants carry positions (document index, JSON line and column, schema
//! field names) and numbers, never bytes of the capture: a message can be
//! printed, logged or shown to a model without leaking what was packed.

mod messages;
mod names;
mod problem;

use messages::{
    budget_message, config_message, empty_envelope_message, field_message, id_message,
    path_message, problems_message, read_failed_message, request_message, required_message,
    schema_subject, too_large_message, unknown_model_message, url_message,
};
pub use names::{CommandLine, Names, Setting};
pub use problem::{
    BudgetProblem, ChatTemplatePlace, IdProblem, MAX_PROBLEMS, PathProblem, Position, Problem,
    Provider, RequestProblem, SchemaPlace, SchemaProblem, Shape, Syntax, TemplateLimit, UrlProblem,
};

/// Every way packer can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input could not be read.
    #[error("cannot read the input ({kind}); check the path and its permissions")]
    UnreadableInput {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
    /// The file named on the command line could not be read.
    #[error("{}", read_failed_message(path, *kind))]
    ReadFailed {
        /// The path as the user typed it (terminal-safe).
        path: String,
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
    /// The input is larger than `--max-input-bytes`.
    #[error("{}", too_large_message(*limit, *size))]
    InputTooLarge {
        /// The limit in bytes.
        limit: u64,
        /// The input's size, when known (a file; not a pipe).
        size: Option<u64>,
    },
    /// The input is not UTF-8.
    #[error("the input is not valid UTF-8 at byte {offset}; packer reads UTF-8 only")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The input is UTF-16 text.
    #[error(
        "the input is UTF-16 ({}) text, not UTF-8; convert it first, e.g. iconv -f UTF-16 -t UTF-8",
        if *big_endian { "big-endian" } else { "little-endian" }
    )]
    Utf16 {
        /// Big-endian rather than little-endian.
        big_endian: bool,
    },
    /// The input is not JSON.
    #[error("the input is not valid JSON at {at}: {}", syntax.describe())]
    InvalidJson {
        /// Where parsing stopped.
        at: Position,
        /// What was expected there.
        syntax: Syntax,
    },
    /// The input nests arrays and objects deeper than the parser allows.
    #[error("the input nests arrays or objects deeper than 128 levels at {at}")]
    TooDeep {
        /// Where parsing stopped.
        at: Position,
    },
    /// A `\uD800`–`\uDFFF` escape that is not half of a valid pair.
    #[error("a string has an unpaired surrogate escape at {at}")]
    UnpairedSurrogate {
        /// Where the escape starts.
        at: Position,
    },
    /// The fixture does not have the schema's shape.
    #[error("{}", self.message(&CommandLine))]
    InvalidSchema {
        /// Where.
        place: SchemaPlace,
        /// What.
        problem: SchemaProblem,
    },
    /// The `encoding` is not one packer knows.
    #[error(
        "the fixture's encoding is not one packer knows; use one of: {}",
        known.join(", ")
    )]
    UnknownEncoding {
        /// The names of the encodings packer knows.
        known: &'static [&'static str],
    },
    /// `--model` names a model with no known encoding.
    #[error("{}", self.message(&CommandLine))]
    UnknownModel {
        /// The known model names nearest to the one given.
        nearest: Vec<&'static str>,
    },
    /// `--model` names a model whose tokenizer is not public (Claude,
    /// Gemini): no exact offline count exists, and none is made up with
    /// another model's encoding (SPEC §2.2.1). Its code is `unknown-model`.
    #[error("{}", self.message(&CommandLine))]
    ModelWithoutPublicTokenizer {
        /// Whose models.
        provider: Provider,
    },
    /// The `--tokenizer` file cannot be read.
    #[error("{}", self.message(&CommandLine))]
    UnreadableTokenizer {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
    /// The `--tokenizer` path names a directory, a FIFO or a device.
    #[error("{}", self.message(&CommandLine))]
    TokenizerNotAFile,
    /// The `--tokenizer` file is not a well-formed tokenizer.json or tekken.json.
    #[error("{}", self.message(&CommandLine))]
    InvalidTokenizer {
        /// What is wrong, with a position or a count (never the file's text).
        problem: String,
    },
    /// The `--request` file is not a chat request packer can render
    /// (SPEC §2.4).
    #[error("{}", self.message(&CommandLine))]
    InvalidChatRequest {
        /// What is wrong, with a position or an index (never the file's
        /// text).
        problem: String,
    },
    /// The chat template is missing, does not parse, or fails while
    /// rendering the request.
    #[error("the chat template {problem}")]
    InvalidChatTemplate {
        /// What is wrong, naming the template's line (never a message's
        /// text).
        problem: String,
    },
    /// The work was cancelled (an MCP client's `notifications/cancelled`)
    /// before it ended.
    #[error("the work was cancelled before it ended")]
    Cancelled,
    /// The chat template went past a bound on its work while it rendered:
    /// time, memory or stack.
    #[error("{}", self.message(&CommandLine))]
    ChatTemplateLimit {
        /// Which bound.
        limit: TemplateLimit,
    },
    /// There is no chat template to render the request with: none given,
    /// and none beside the tokenizer file (or none in the config given).
    #[error("{}", self.message(&CommandLine))]
    ChatTemplateMissing {
        /// Where it was looked for, for the message (`the tokenizer_config.json
        /// beside` the tokenizer file, say); never a file's text.
        looked_in: ChatTemplatePlace,
    },
    /// `--request` with a counter whose framing of messages is not
    /// published exactly (OpenAI's API encodings) or not read (a Mistral
    /// `tekken.json`): refused, never estimated.
    #[error("{}", self.message(&CommandLine))]
    RequestFramingUnknown {
        /// What packer counts with (`cl100k_base`, or a file's
        /// `tokenizer:{name}`).
        counted_with: &'static str,
    },
    /// The `--tokenizer` file uses something packer cannot count exactly.
    #[error("{}", self.message(&CommandLine))]
    UnsupportedTokenizer {
        /// The component, by its type name (never the file's text).
        component: String,
    },
    /// The `--tokenizer` file asks for more work on a text than packer
    /// gives a tokenizer file: too many steps, a normalizer that grows a
    /// text without bound, too many added tokens.
    #[error("{}", self.message(&CommandLine))]
    TokenizerLimit {
        /// What is over the limit and the limit (numbers, never the file's
        /// text).
        problem: String,
    },
    /// A budget value is missing or invalid.
    #[error("{}", budget_message(field, *problem))]
    InvalidBudget {
        /// The schema name of the value (`contextTokens`, ...), or `budget`.
        field: &'static str,
        /// What is wrong with it.
        problem: BudgetProblem,
    },
    /// The reservations add up to more than the context.
    #[error(
        "the reservations add up to {reserved} tokens, more than contextTokens {context} (by {}): no tokens would be available; lower a reservation or raise --context-tokens",
        reserved - context
    )]
    ReservationsExceedContext {
        /// `contextTokens`.
        context: u64,
        /// The sum of the three reservations.
        reserved: u64,
    },
    /// More documents than `--max-documents`.
    #[error(
        "the fixture has {count} documents, more than the limit of {limit}; raise --max-documents to accept it"
    )]
    TooManyDocuments {
        /// The limit.
        limit: usize,
        /// How many the fixture has.
        count: usize,
    },
    /// An `id` that is not a non-empty string without control characters.
    #[error("{}", id_message(*index, *problem))]
    InvalidId {
        /// The document's index.
        index: usize,
        /// What is wrong.
        problem: IdProblem,
    },
    /// Two documents with the same `id`.
    #[error("documents[{index}] has the same id as documents[{first}]")]
    DuplicateId {
        /// The later document.
        index: usize,
        /// The first document with that id.
        first: usize,
    },
    /// A `url` that is not an absolute http(s) URL with a host.
    #[error("{}", url_message(*index, *problem))]
    InvalidUrl {
        /// The document's index.
        index: usize,
        /// What is wrong.
        problem: UrlProblem,
    },
    /// A `path` that is not a plain relative path (SPEC §1.1).
    #[error("{}", path_message(*index, *problem))]
    InvalidPath {
        /// The document's index.
        index: usize,
        /// What is wrong.
        problem: PathProblem,
    },
    /// A `url` with a user name or password.
    #[error("documents[{index}].url carries a user name or password; remove the credentials")]
    UrlCredentials {
        /// The document's index.
        index: usize,
    },
    /// A `format` other than `markdown` or `text`.
    #[error("{}", field_message(*index, "format", *shape, "must be \"markdown\" or \"text\"", "must be \"markdown\" or \"text\""))]
    UnsupportedFormat {
        /// The document's index.
        index: usize,
        /// How it fails.
        shape: Shape,
    },
    /// Empty or whitespace-only `content`.
    #[error("{}", field_message(*index, "content", *shape, "must be a string", "is empty or only whitespace"))]
    BlankContent {
        /// The document's index.
        index: usize,
        /// How it fails.
        shape: Shape,
    },
    /// `truncated` absent or not `false`.
    #[error("{}", field_message(*index, "truncated", *shape, "must be the boolean false", "is true: the capture of this document is incomplete and cannot be packed whole"))]
    TruncatedDocument {
        /// The document's index.
        index: usize,
        /// How it fails.
        shape: Shape,
    },
    /// Several problems of one fixture (at most [`MAX_PROBLEMS`], then a
    /// count). Its code and status are the first problem's.
    #[error("{}", self.message(&CommandLine))]
    Problems {
        /// The problems, in the order of the fixture.
        problems: Vec<Problem>,
        /// How many more were found but not listed.
        more: usize,
    },
    /// Even the envelope with no documents exceeds the budget.
    #[error("{}", self.message(&CommandLine))]
    EmptyEnvelopeDoesNotFit {
        /// Tokens of the empty envelope (with its omission notes, if any).
        needed: usize,
        /// `availableTokens`.
        available: u64,
        /// With omission notes: the tokens of the bare empty envelope.
        without_notes: Option<usize>,
    },
    /// The per-entry count of the payload differs from a full count: a bug,
    /// reported instead of a wrong number.
    #[error(
        "internal error: the payload counts {counted} tokens but packing computed {computed}; please report it with the command line (not the capture)"
    )]
    CountMismatch {
        /// A full count of the payload.
        counted: usize,
        /// What the per-entry arithmetic gave.
        computed: usize,
    },
    /// Some required documents do not fit.
    #[error("{}", required_message(indices, *needed, *available))]
    RequiredDoesNotFit {
        /// Indices of the required documents that did not fit.
        indices: Vec<usize>,
        /// Tokens of the envelope holding every required document.
        needed: usize,
        /// `availableTokens`.
        available: u64,
    },
    /// With a chat request: the request does not fit even with an empty
    /// payload (code `empty-envelope-does-not-fit`), or with every required
    /// document in it (`required-does-not-fit`, naming them).
    #[error("{}", request_message(required.as_deref(), *needed, *available))]
    RequestDoesNotFit {
        /// The indices of the required documents that did not fit; `None`
        /// when the request does not fit with an empty payload.
        required: Option<Vec<usize>>,
        /// Tokens of the whole rendered request.
        needed: usize,
        /// `availableTokens`.
        available: u64,
    },
    /// Request settings that do not go together, or a name not in the
    /// library's list (a usage error).
    #[error("{}", self.message(&CommandLine))]
    InvalidRequest {
        /// What is wrong.
        problem: RequestProblem,
    },
    /// An excerpt query without a term of two or more characters.
    #[error(
        "the excerpt query has no term of two or more characters (terms are split on spaces and commas); give words to look for"
    )]
    EmptyQuery,
    /// `--base-url` is not an absolute http(s) URL without credentials.
    #[error("{}", self.message(&CommandLine))]
    InvalidBaseUrl,
    /// A `--glob` pattern does not parse.
    #[error("{}", self.message(&CommandLine))]
    InvalidGlob,
    /// A `packer.toml` that does not parse or names a value packer does not
    /// know (`line` and `column` are 0 when the problem has no position).
    #[error("{}", config_message(file, *line, *column, problem))]
    InvalidConfig {
        /// The file's name, terminal-safe.
        file: String,
        /// 1-based line, or 0.
        line: usize,
        /// 1-based column in bytes, or 0.
        column: usize,
        /// What is wrong, terminal-safe.
        problem: String,
    },
    /// The `--files-from` list is longer than `--max-total-bytes`.
    #[error(
        "the --files-from list is larger than {limit} bytes (the --max-total-bytes limit); shorten it or raise --max-total-bytes"
    )]
    FileListTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The directory to collect lies outside every directory it may be
    /// read from (its real path, read after it was opened).
    #[error(
        "the directory lies outside every root this server may read; give a path inside a root"
    )]
    PathOutsideRoot,
    /// The directory holds more files than `--max-files`.
    #[error("{}", self.message(&CommandLine))]
    TooManyFiles {
        /// The limit.
        limit: usize,
        /// The files found (counting stops at ten times the limit).
        files: usize,
        /// Whether `files` is the whole count.
        counted_all: bool,
    },
    /// The collected files hold more text than `--max-total-bytes`.
    #[error("{}", self.message(&CommandLine))]
    TooMuchText {
        /// The limit in bytes.
        limit: u64,
        /// The size of every file to collect, from the file system (binary
        /// and oversized files included).
        bytes: u64,
    },
    /// `--payload-out` names a file the run reads (compared by device and
    /// inode: the fixture, the tokenizer file, the `--files-from` list or a
    /// collected file).
    #[error(
        "--payload-out names a file this run reads (the input fixture, the --tokenizer file, the --files-from list or a collected file); choose another file so that nothing read is changed"
    )]
    PayloadOutIsInput,
    /// `--payload-out` goes through a symbolic link inside a collected
    /// directory (the file named or a directory on the way).
    #[error(
        "--payload-out goes through a symbolic link inside the collected directory; a tree's links are not followed, so write the payload to a path that is not a link in the tree"
    )]
    PayloadOutIsLink,
    /// `--payload-out -`: standard output already gets `--format`'s output.
    #[error(
        "--payload-out - would mix the payload into standard output; use --format payload to print the payload, or give --payload-out a file"
    )]
    PayloadOutIsStdout,
    /// Writing output failed.
    #[error("cannot write the output ({kind})")]
    Output {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
    /// `--payload-out` could not be written.
    #[error("cannot write --payload-out ({kind}); check the path and its permissions")]
    PayloadOut {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
    /// `--out-dir` names something packer will not write window files
    /// into: a directory that is not empty, a symbolic link, or a file.
    #[error(
        "--out-dir {problem}; give a new directory or an empty one, so that no file is replaced"
    )]
    OutDirRefused {
        /// What is wrong with it (`is not empty`, `is a symbolic link`, ...).
        problem: &'static str,
    },
    /// A window file could not be written into `--out-dir`.
    #[error(
        "cannot write a window file into --out-dir ({kind}); check the path and its permissions"
    )]
    OutDir {
        /// The operating system's kind of failure.
        kind: std::io::ErrorKind,
    },
}

/// Exit status: packed (an empty selection included).
pub const EXIT_OK: i32 = 0;

/// Exit status: unexpected failure (output I/O, internal error).
pub const EXIT_FAILURE: i32 = 1;

/// Exit status: usage error (bad flags).
pub const EXIT_USAGE: i32 = 2;

/// Exit status: invalid input.
pub const EXIT_INVALID_INPUT: i32 = 3;

/// Exit status: the empty envelope or the required documents do not fit.
pub const EXIT_DOES_NOT_FIT: i32 = 4;

impl Error {
    /// The stable machine code printed as `error[CODE]`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::UnreadableInput { .. } | Error::ReadFailed { .. } => "unreadable-input",
            Error::InputTooLarge { .. } | Error::FileListTooLarge { .. } => "input-too-large",
            Error::InvalidUtf8 { .. } | Error::Utf16 { .. } => "invalid-utf8",
            Error::InvalidJson { .. } | Error::TooDeep { .. } => "invalid-json",
            Error::UnpairedSurrogate { .. } => "unpaired-surrogate",
            Error::InvalidSchema { .. } => "invalid-schema",
            Error::UnknownEncoding { .. } => "unknown-encoding",
            Error::UnknownModel { .. } | Error::ModelWithoutPublicTokenizer { .. } => {
                "unknown-model"
            }
            Error::UnreadableTokenizer { .. } | Error::TokenizerNotAFile => "unreadable-tokenizer",
            Error::InvalidTokenizer { .. } => "invalid-tokenizer",
            Error::UnsupportedTokenizer { .. } => "unsupported-tokenizer",
            Error::TokenizerLimit { .. } => "tokenizer-limit",
            Error::InvalidChatRequest { .. } => "invalid-chat-request",
            Error::ChatTemplateLimit { .. } => "chat-template-limit",
            Error::Cancelled => "cancelled",
            Error::InvalidChatTemplate { .. } | Error::ChatTemplateMissing { .. } => {
                "invalid-chat-template"
            }
            Error::RequestFramingUnknown { .. } => "request-framing-unknown",
            Error::InvalidBudget { .. } | Error::ReservationsExceedContext { .. } => {
                "invalid-budget"
            }
            Error::TooManyDocuments { .. } => "too-many-documents",
            Error::InvalidId { .. } => "invalid-id",
            Error::DuplicateId { .. } => "duplicate-id",
            Error::InvalidUrl { .. } => "invalid-url",
            Error::InvalidPath { .. } => "invalid-path",
            Error::UrlCredentials { .. } => "url-credentials",
            Error::UnsupportedFormat { .. } => "unsupported-format",
            Error::BlankContent { .. } => "blank-content",
            Error::TruncatedDocument { .. } => "truncated-document",
            Error::Problems { problems, .. } => problems
                .first()
                .map_or("invalid-schema", |p| p.error.code()),
            Error::EmptyEnvelopeDoesNotFit { .. } => "empty-envelope-does-not-fit",
            Error::CountMismatch { .. } => "internal",
            Error::RequiredDoesNotFit { .. } => "required-does-not-fit",
            Error::RequestDoesNotFit { required: None, .. } => "empty-envelope-does-not-fit",
            Error::RequestDoesNotFit { .. } => "required-does-not-fit",
            Error::PayloadOutIsInput => "payload-out-is-input",
            Error::PayloadOutIsLink => "payload-out-is-link",
            Error::PayloadOutIsStdout => "payload-out-is-stdout",
            Error::EmptyQuery => "empty-query",
            Error::InvalidRequest { .. } => "usage",
            Error::InvalidBaseUrl => "invalid-base-url",
            Error::InvalidGlob => "invalid-glob",
            Error::InvalidConfig { .. } => "invalid-config",
            Error::PathOutsideRoot => "path-outside-root",
            Error::TooManyFiles { .. } => "too-many-files",
            Error::TooMuchText { .. } => "input-too-large",
            Error::Output { .. } => "output-failed",
            Error::PayloadOut { .. } => "payload-out-failed",
            Error::OutDirRefused { .. } => "out-dir-refused",
            Error::OutDir { .. } => "out-dir-failed",
        }
    }

    /// The process exit status for this error (SPEC §6).
    pub fn exit_status(&self) -> i32 {
        match self {
            Error::UnknownModel { .. }
            | Error::ModelWithoutPublicTokenizer { .. }
            | Error::PayloadOutIsStdout
            | Error::EmptyQuery
            | Error::InvalidRequest { .. }
            | Error::PayloadOutIsInput
            | Error::PayloadOutIsLink
            | Error::InvalidBaseUrl
            | Error::InvalidGlob
            | Error::InvalidConfig { .. }
            | Error::PathOutsideRoot
            | Error::OutDirRefused { .. }
            | Error::RequestFramingUnknown { .. } => EXIT_USAGE,
            Error::TooManyFiles { .. } | Error::TooMuchText { .. } => EXIT_INVALID_INPUT,
            Error::UnreadableInput { .. }
            | Error::ReadFailed { .. }
            | Error::InputTooLarge { .. }
            | Error::FileListTooLarge { .. }
            | Error::InvalidUtf8 { .. }
            | Error::Utf16 { .. }
            | Error::InvalidJson { .. }
            | Error::TooDeep { .. }
            | Error::UnpairedSurrogate { .. }
            | Error::InvalidSchema { .. }
            | Error::UnknownEncoding { .. }
            | Error::UnreadableTokenizer { .. }
            | Error::TokenizerNotAFile
            | Error::InvalidTokenizer { .. }
            | Error::UnsupportedTokenizer { .. }
            | Error::TokenizerLimit { .. }
            | Error::InvalidChatRequest { .. }
            | Error::InvalidChatTemplate { .. }
            | Error::ChatTemplateLimit { .. }
            | Error::ChatTemplateMissing { .. }
            | Error::InvalidBudget { .. }
            | Error::ReservationsExceedContext { .. }
            | Error::TooManyDocuments { .. }
            | Error::InvalidId { .. }
            | Error::DuplicateId { .. }
            | Error::InvalidUrl { .. }
            | Error::InvalidPath { .. }
            | Error::UrlCredentials { .. }
            | Error::UnsupportedFormat { .. }
            | Error::BlankContent { .. }
            | Error::TruncatedDocument { .. }
            | Error::Problems { .. } => EXIT_INVALID_INPUT,
            Error::EmptyEnvelopeDoesNotFit { .. }
            | Error::RequiredDoesNotFit { .. }
            | Error::RequestDoesNotFit { .. } => EXIT_DOES_NOT_FIT,
            Error::Output { .. }
            | Error::PayloadOut { .. }
            | Error::CountMismatch { .. }
            | Error::OutDir { .. }
            | Error::Cancelled => EXIT_FAILURE,
        }
    }

    /// Every problem this error stands for, each with what is known of its
    /// place, and how many more were found but not listed. A single error
    /// is one problem (its position, if any, is in [`Error::position`]).
    pub fn problems(&self) -> (Vec<Problem>, usize) {
        if let Error::Problems { problems, more } = self {
            return (problems.clone(), *more);
        }
        let problem = Problem {
            error: self.clone(),
            document: None,
            field: None,
            at: None,
        };
        (vec![problem], 0)
    }

    /// The line and column a JSON-level error names in its own message.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::InvalidJson { at, .. }
            | Error::TooDeep { at }
            | Error::UnpairedSurrogate { at }
            | Error::InvalidSchema {
                place: SchemaPlace::At(at),
                ..
            } => Some(*at),
            _ => None,
        }
    }

    /// The message, with the settings it names spelled by `names` (the
    /// `Display` text is `message(&CommandLine)`). Every front end renders
    /// an error through this one function.
    pub fn message(&self, names: &dyn Names) -> String {
        let name = |setting| names.name(setting);
        match self {
            Error::UnreadableTokenizer { kind } => format!(
                "cannot read {} ({kind}); check the path and its permissions",
                name(Setting::TokenizerFile)
            ),
            Error::TokenizerNotAFile => format!(
                "{} is not a regular file (a directory, FIFO or device); give the path of a \
                 tokenizer.json or tekken.json",
                name(Setting::TokenizerFile)
            ),
            Error::InvalidTokenizer { problem } => format!(
                "{} is not a well-formed tokenizer.json or tekken.json: {problem}",
                name(Setting::TokenizerFile)
            ),
            Error::UnsupportedTokenizer { component } => format!(
                "{} uses {component}, which packer cannot count exactly; it refuses rather than \
                 count approximately",
                name(Setting::TokenizerFile)
            ),
            Error::TokenizerLimit { problem } => format!(
                "{} has {problem}: more work on every text than packer gives a tokenizer file \
                 (no published tokenizer comes near these limits)",
                name(Setting::TokenizerFile)
            ),
            // (A tokenizer file's label starts `tokenizer:`; the only file
            // without a known framing is a Mistral tekken.json.)
            Error::RequestFramingUnknown { counted_with }
                if counted_with.starts_with("tokenizer:") =>
            {
                format!(
                    "{} cannot be counted with {counted_with}: packer does not read a tekken.json's \
                 control tokens, and Mistral's requests are built by mistral-common, not by a \
                 chat template packer can render; give the model's Hugging Face tokenizer.json \
                 as {} (with its tokenizer_config.json beside it, or {}); or drop {} and keep {} \
                 for everything outside the payload",
                    name(Setting::RequestFile),
                    name(Setting::TokenizerFile),
                    name(Setting::ChatTemplate),
                    name(Setting::RequestFile),
                    name(Setting::ReservedOtherInput)
                )
            }
            Error::RequestFramingUnknown { counted_with } => format!(
                "{} needs a chat template to render the request, and {counted_with} has none \
                 packer can count exactly (the framing of OpenAI's API messages and tools is \
                 not published); give the model's tokenizer.json as {} (with its \
                 tokenizer_config.json beside it, or {}), or {} o200k_harmony for gpt-oss; or \
                 drop {} and keep {} for everything outside the payload",
                name(Setting::RequestFile),
                name(Setting::TokenizerFile),
                name(Setting::ChatTemplate),
                name(Setting::Encoding),
                name(Setting::RequestFile),
                name(Setting::ReservedOtherInput)
            ),
            Error::InvalidChatRequest { problem } => {
                format!("{} {problem}", name(Setting::RequestFileSubject))
            }
            Error::ChatTemplateLimit { limit } => match limit {
                TemplateLimit::Time { seconds } => format!(
                    "the chat template rendered for more than {seconds} s in this pack, its \
                     limit; it was stopped (a template that loops over large values; raise the \
                     limit with {} if the template is trusted)",
                    name(Setting::TemplateSeconds)
                ),
                TemplateLimit::Memory { mib } => format!(
                    "the chat template asked for more than {mib} MiB while it rendered, its \
                     limit; it was stopped (raise the limit with {} if the template is trusted)",
                    name(Setting::TemplateMemory)
                ),
                TemplateLimit::Stack => "the chat template nested a value deeper than its \
                     renderer's stack (a value built in a loop); it was stopped"
                    .into(),
                TemplateLimit::Ended => "the chat template's renderer ended before it answered \
                     (a template that exhausts what its process may use); it was stopped"
                    .into(),
            },
            Error::ChatTemplateMissing { looked_in } => {
                let place = match looked_in {
                    ChatTemplatePlace::GivenConfig => {
                        "the tokenizer_config.json given has no chat_template".to_owned()
                    }
                    ChatTemplatePlace::ConfigBesideTokenizer => format!(
                        "the tokenizer_config.json beside {} has no chat_template",
                        name(Setting::TokenizerFile)
                    ),
                    ChatTemplatePlace::NothingBesideTokenizer => format!(
                        "there is no chat_template.jinja or tokenizer_config.json beside {}",
                        name(Setting::TokenizerFile)
                    ),
                };
                format!(
                    "the chat template is missing: {place}; give it with {}",
                    name(Setting::ChatTemplate)
                )
            }
            Error::InvalidBaseUrl => format!(
                "{} must be an absolute http or https URL with a host and no credentials",
                name(Setting::BaseUrl)
            ),
            Error::InvalidGlob => format!("{} is not a valid glob", name(Setting::GlobPattern)),
            Error::InvalidRequest { problem } => problem.message(names),
            Error::TooManyFiles {
                limit,
                files,
                counted_all,
            } => format!(
                "the directory holds {}{files} files, more than the limit of {limit}; narrow it \
                 with {} or raise --max-files",
                if *counted_all { "" } else { "at least " },
                name(Setting::Glob)
            ),
            Error::TooMuchText { limit, bytes } => format!(
                "the files to collect hold {bytes} bytes, more than the limit of {limit} bytes of \
                 text; narrow them with {} or raise --max-total-bytes",
                name(Setting::Glob)
            ),
            Error::InvalidSchema { place, problem } => {
                format!("{} {}", schema_subject(place, names), problem.describe())
            }
            Error::UnknownModel { nearest } => unknown_model_message(nearest, names),
            Error::ModelWithoutPublicTokenizer { provider } => provider.message(names),
            Error::Problems { problems, more } => problems_message(problems, *more, names),
            Error::EmptyEnvelopeDoesNotFit {
                needed,
                available,
                without_notes,
            } => empty_envelope_message(*needed, *available, *without_notes, names),
            other => other.to_string(),
        }
    }

    /// For `empty-envelope-does-not-fit` and `required-does-not-fit`: how
    /// many tokens are missing.
    pub fn shortfall_tokens(&self) -> Option<u64> {
        match self {
            Error::EmptyEnvelopeDoesNotFit {
                needed, available, ..
            }
            | Error::RequiredDoesNotFit {
                needed, available, ..
            }
            | Error::RequestDoesNotFit {
                needed, available, ..
            } => Some((*needed as u64).saturating_sub(*available)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_does_not_fit_names_every_index_and_the_shortfall() {
        let error = Error::RequiredDoesNotFit {
            indices: vec![1, 4],
            needed: 25,
            available: 10,
        };
        assert_eq!(
            error.to_string(),
            "required documents do not fit: documents[1], documents[4]; with every required \
             document the payload needs 25 tokens but only 10 are available (short by 15); \
             raise the budget or drop `required`"
        );
        assert_eq!(error.exit_status(), EXIT_DOES_NOT_FIT);
        assert_eq!(error.shortfall_tokens(), Some(15));
    }

    #[test]
    fn the_empty_envelope_message_says_when_the_notes_are_what_does_not_fit() {
        let error = |without_notes| Error::EmptyEnvelopeDoesNotFit {
            needed: 40,
            available: 30,
            without_notes,
        };
        assert_eq!(
            error(None).to_string(),
            "the empty envelope needs 40 tokens but only 30 are available (short by 10); raise the budget"
        );
        assert!(
            error(Some(4))
                .to_string()
                .starts_with("the omission note does not fit:")
        );
        assert!(
            error(Some(4))
                .to_string()
                .ends_with(
                    "without --note-omissions it needs 4; lower --note-omissions-max to list fewer documents"
                )
        );
    }

    /// A front end's own spelling of every setting a message names.
    struct Marked;

    impl Names for Marked {
        fn name(&self, setting: Setting) -> &'static str {
            match setting {
                Setting::TokenizerFile => "<tokenizer file>",
                Setting::FixtureAt => "<fixture> at",
                Setting::NoteOmissions => "<notes>",
                Setting::NoteOmissionsMax => "<notes max>",
                Setting::BaseUrl => "<base url>",
                Setting::Glob => "<globs>",
                Setting::GlobPattern => "<a glob>",
                Setting::Encoding => "<encoding>",
                Setting::EncodingName => "<encoding name>",
                Setting::PolicyName => "<policy name>",
                Setting::EnvelopeName => "<envelope name>",
                Setting::EncodingOrModel => "<encoding or model>",
                Setting::OneCounter => "<one counter>",
                Setting::BudgetOrBudgetValues => "<budget or values>",
                Setting::NoteOmissionsMaxAlone => "<notes max alone>",
                Setting::NoteOmissionsOn => "<notes on>",
                Setting::ExcerptSizes => "<excerpt sizes>",
                Setting::ExcerptQuery => "<excerpt query>",
                Setting::Windows => "<windows>",
                Setting::SafetyTokens => "<safety>",
                Setting::OutlineShare => "<outline share>",
                Setting::OutlineOn => "<outline on>",
                Setting::RequestFile => "<request>",
                Setting::RequestFileSubject => "<request file>",
                Setting::ChatTemplate => "<chat template>",
                Setting::ReservedOtherInput => "<reserved other input>",
                Setting::PriorityGlob => "<a priority glob>",
                Setting::TemplateSeconds => "<template seconds>",
                Setting::TemplateMemory => "<template memory>",
                Setting::Query => "<query>",
            }
        }
    }

    #[test]
    fn messages_spell_the_settings_as_the_front_end_does() {
        let errors = [
            Error::UnreadableTokenizer {
                kind: std::io::ErrorKind::NotFound,
            },
            Error::TokenizerNotAFile,
            Error::InvalidTokenizer {
                problem: "no model".into(),
            },
            Error::UnsupportedTokenizer {
                component: "a normalizer".into(),
            },
            Error::TokenizerLimit {
                problem: "a normalizer of 65 steps".into(),
            },
            Error::InvalidBaseUrl,
            Error::InvalidGlob,
            Error::TooManyFiles {
                limit: 3,
                files: 7,
                counted_all: false,
            },
            Error::TooMuchText { limit: 5, bytes: 9 },
            Error::InvalidSchema {
                place: SchemaPlace::At(Position { line: 1, column: 2 }),
                problem: SchemaProblem::DuplicateKey,
            },
            Error::UnknownModel {
                nearest: vec!["gpt-4o"],
            },
            Error::ModelWithoutPublicTokenizer {
                provider: Provider::Anthropic,
            },
            Error::EmptyEnvelopeDoesNotFit {
                needed: 9,
                available: 8,
                without_notes: Some(4),
            },
        ];
        for error in &errors {
            let flags = error.message(&CommandLine);
            assert_eq!(flags, error.to_string());
            assert!(
                flags.contains("--") || flags.contains("the fixture at"),
                "{flags}"
            );
            let marked = error.message(&Marked);
            assert!(marked.contains('<'), "{marked}");
            assert!(
                !marked.contains("--tokenizer") && !marked.contains("--glob"),
                "{marked}"
            );
            assert!(
                !marked.contains("--base-url") && !marked.contains("--note"),
                "{marked}"
            );
            assert!(!marked.contains("--encoding"), "{marked}");
        }
        assert_eq!(
            Error::TooManyFiles {
                limit: 3,
                files: 7,
                counted_all: false
            }
            .to_string(),
            "the directory holds at least 7 files, more than the limit of 3; narrow it with --glob \
             or raise --max-files"
        );
        assert_eq!(
            Error::InvalidGlob.message(&Marked),
            "<a glob> is not a valid glob"
        );
        // A problem's message carries the spelling too.
        let problems = Error::Problems {
            problems: vec![Problem {
                error: errors
                    .iter()
                    .find(|error| matches!(error, Error::InvalidSchema { .. }))
                    .expect("a schema error")
                    .clone(),
                document: None,
                field: None,
                at: None,
            }],
            more: 0,
        };
        assert_eq!(
            problems.message(&Marked),
            "<fixture> at line 1 column 2 has the same key twice"
        );
    }

    #[test]
    fn schema_errors_name_the_place_the_problem_and_the_rule() {
        let error = Error::InvalidSchema {
            place: SchemaPlace::Path("documents[2].priority".into()),
            problem: SchemaProblem::NotInRange {
                min: -1000,
                max: 1000,
            },
        };
        assert_eq!(
            error.to_string(),
            "documents[2].priority must be a whole number from -1000 to 1000"
        );
        let error = Error::InvalidSchema {
            place: SchemaPlace::At(Position { line: 3, column: 9 }),
            problem: SchemaProblem::DuplicateKey,
        };
        assert_eq!(
            error.to_string(),
            "the fixture at line 3 column 9 has the same key twice"
        );
    }

    #[test]
    fn a_problem_puts_its_position_before_the_hint() {
        let problem = Problem {
            error: Error::InvalidSchema {
                place: SchemaPlace::Path("documents[27]".into()),
                problem: SchemaProblem::UnknownField {
                    allowed: &["id", "url"],
                },
            },
            document: Some(27),
            field: None,
            at: Some(Position {
                line: 912,
                column: 7,
            }),
        };
        assert_eq!(
            problem.message(),
            "documents[27] has a field the schema does not allow at line 912 column 7; allowed: id, url"
        );
    }
}
