//! The one error type, its stable machine codes and its exit statuses.
//!
//! Variants carry positions (document index, JSON line and column, schema
//! field names) and numbers, never bytes of the capture: a message can be
//! printed, logged or shown to a model without leaking what was packed.

use std::fmt;

/// A setting that error messages name, which each front end spells its own
/// way: `--tokenizer` on the command line, `the argument tokenizer` over
/// MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Setting {
    /// The tokenizer file, as the subject of a message (`the --tokenizer
    /// file`).
    TokenizerFile,
    /// Where a schema problem is, before its position (`the fixture at`).
    FixtureAt,
    /// Omission notes (`--note-omissions`).
    NoteOmissions,
    /// The cap on listed omissions (`--note-omissions-max`).
    NoteOmissionsMax,
    /// The base url of collected files (`--base-url`).
    BaseUrl,
    /// The globs that choose collected files (`--glob`).
    Glob,
    /// One glob, as the subject of a message (`a --glob pattern`).
    GlobPattern,
    /// The encoding (`--encoding`).
    Encoding,
    /// The encoding's name as a request setting, the subject of `must be
    /// one of` (`--encoding`). Apart from [`Setting::Encoding`] because a
    /// front end may name its request arguments by its own keywords and
    /// still spell the older messages with the command line's flags.
    EncodingName,
    /// The policy's name, the subject of `must be one of` (`--policy`).
    PolicyName,
    /// The layout's name, the subject of `must be one of` (`--envelope`).
    EnvelopeName,
    /// The encoding and the model, as what to give instead of both
    /// (`--encoding or --model`).
    EncodingOrModel,
    /// The tokenizer file, the encoding and the model, as what to give
    /// instead of several (`at most one of --tokenizer, --encoding and
    /// --model`).
    OneCounter,
    /// The whole budget and the separate budget values, as what to give
    /// instead of both (`--budget or the separate budget flags`).
    BudgetOrBudgetValues,
    /// The cap on listed omissions given without the notes, the subject of
    /// `needs` (`--note-omissions-max`).
    NoteOmissionsMaxAlone,
    /// Omission notes, as what the cap needs (`--note-omissions`).
    NoteOmissionsOn,
    /// The excerpt's context and size given without a query, the subject
    /// of `need` (`--excerpt-context and --excerpt-max-chars`).
    ExcerptSizes,
    /// The excerpt query, as what they need (`--excerpt-query`).
    ExcerptQuery,
    /// Packing into windows (`--windows`).
    Windows,
    /// The safety margin (`--safety-tokens`), as what keeps one.
    SafetyTokens,
    /// The share of the budget for whole documents given without outlines,
    /// the subject of `needs` (`--outline-share`).
    OutlineShare,
    /// Outlines, as what the share needs (`--outline`).
    OutlineOn,
    /// The chat request file (`--request`).
    RequestFile,
    /// The chat request file, as the subject of a message (`the --request
    /// file`).
    RequestFileSubject,
    /// The chat template file (`--chat-template`).
    ChatTemplate,
    /// The reservation for everything outside the payload
    /// (`--reserved-other-input-tokens`).
    ReservedOtherInput,
    /// One priority rule's glob, as the subject of a message (`a
    /// --priority glob`).
    PriorityGlob,
    /// The time a chat template may render for in one pack
    /// (`--template-seconds`).
    TemplateSeconds,
    /// The memory a chat template may render with (`--template-memory`).
    TemplateMemory,
    /// The task's query (`--query` or `--query-file`).
    Query,
}

/// How a front end spells the settings that messages name.
pub trait Names {
    /// `setting` as the front end's user gives it.
    fn name(&self, setting: Setting) -> &'static str;
}

/// The command line's flags: what [`Error`]'s `Display` says.
#[derive(Debug, Clone, Copy, Default)]
pub struct CommandLine;

impl Names for CommandLine {
    fn name(&self, setting: Setting) -> &'static str {
        match setting {
            Setting::TokenizerFile => "the --tokenizer file",
            Setting::FixtureAt => "the fixture at",
            Setting::NoteOmissions => "--note-omissions",
            Setting::NoteOmissionsMax => "--note-omissions-max",
            Setting::BaseUrl => "--base-url",
            Setting::Glob => "--glob",
            Setting::GlobPattern => "a --glob pattern",
            Setting::Encoding | Setting::EncodingName => "--encoding",
            Setting::PolicyName => "--policy",
            Setting::EnvelopeName => "--envelope",
            Setting::EncodingOrModel => "--encoding or --model",
            Setting::OneCounter => "at most one of --tokenizer, --encoding and --model",
            Setting::BudgetOrBudgetValues => "--budget or the separate budget flags",
            Setting::NoteOmissionsMaxAlone => "--note-omissions-max",
            Setting::NoteOmissionsOn => "--note-omissions",
            Setting::ExcerptSizes => "--excerpt-context and --excerpt-max-chars",
            Setting::ExcerptQuery => "--excerpt-query",
            Setting::Windows => "--windows",
            Setting::SafetyTokens => "--safety-tokens",
            Setting::OutlineShare => "--outline-share",
            Setting::OutlineOn => "--outline",
            Setting::RequestFile => "--request",
            Setting::RequestFileSubject => "the --request file",
            Setting::ChatTemplate => "--chat-template",
            Setting::ReservedOtherInput => "--reserved-other-input-tokens",
            Setting::PriorityGlob => "a --priority glob",
            Setting::TemplateSeconds => "--template-seconds",
            Setting::TemplateMemory => "--template-memory",
            Setting::Query => "--query (or --query-file)",
        }
    }
}

/// Which bound a chat template went past while it rendered (in its worker
/// process, see `packer::chat::render`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateLimit {
    /// It rendered for longer than this many seconds in one pack.
    Time {
        /// The limit.
        seconds: u64,
    },
    /// It asked for more memory than this many MiB.
    Memory {
        /// The limit.
        mib: u64,
    },
    /// It nested a value deeper than its renderer's stack.
    Stack,
    /// Its renderer ended otherwise (a signal, or no answer).
    Ended,
}

/// Where a chat template was looked for and not found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatTemplatePlace {
    /// A `tokenizer_config.json` given as the template, without
    /// `chat_template`.
    GivenConfig,
    /// Beside the tokenizer file: a `tokenizer_config.json` without
    /// `chat_template`.
    ConfigBesideTokenizer,
    /// Beside the tokenizer file: neither `chat_template.jinja` nor
    /// `tokenizer_config.json`.
    NothingBesideTokenizer,
}

/// Why the settings of a request, given by name, make no request (see
/// `RequestNames::build`): a usage error whose message names the settings
/// as the front end spells them.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RequestProblem {
    /// A name that is not in the library's list for `setting`
    /// ([`Setting::EncodingName`], [`Setting::PolicyName`] or
    /// [`Setting::EnvelopeName`]).
    UnknownName {
        /// Which name.
        setting: Setting,
        /// The names the library knows, in its order.
        known: Vec<&'static str>,
    },
    /// Both an encoding and a model.
    EncodingAndModel,
    /// A tokenizer file with an encoding or a model.
    TokenizerAndEncoding,
    /// The whole-budget shorthand with a separate budget value.
    BudgetAndBudgetValues,
    /// A cap on listed omissions without omission notes.
    NoteOmissionsMaxWithoutNotes,
    /// An excerpt's context or size without an excerpt query.
    ExcerptWithoutQuery,
    /// A share of the budget for whole documents without outlines.
    OutlineShareWithoutOutline,
    /// A share of the budget over 100 percent.
    OutlineShareOver100 {
        /// The share given.
        share: u64,
    },
    /// A reservation for other input given with a chat request, which
    /// measures it instead (SPEC §2.4).
    ReservedOtherInputWithRequest {
        /// The reservation given.
        tokens: u64,
    },
    /// Windows with a chat request (not supported yet).
    WindowsWithRequest,
    /// A query without a word to rank with (empty, only spaces, only
    /// words every text has).
    QueryWithoutTerms,
    /// A query with `max-fill`, which maximizes the tokens used, not the
    /// relevance.
    QueryWithMaxFill,
    /// The query and the fixture both on standard input.
    QueryAndFixtureOnStdin,
}

impl RequestProblem {
    /// The message, with the settings spelled by `names`.
    pub fn message(&self, names: &dyn Names) -> String {
        let name = |setting| names.name(setting);
        match self {
            RequestProblem::UnknownName { setting, known } => {
                format!("{} must be one of {}", name(*setting), known.join(", "))
            }
            RequestProblem::EncodingAndModel => {
                format!("give {}, not both", name(Setting::EncodingOrModel))
            }
            RequestProblem::TokenizerAndEncoding => format!("give {}", name(Setting::OneCounter)),
            RequestProblem::BudgetAndBudgetValues => {
                format!("give {}, not both", name(Setting::BudgetOrBudgetValues))
            }
            RequestProblem::NoteOmissionsMaxWithoutNotes => format!(
                "{} needs {}",
                name(Setting::NoteOmissionsMaxAlone),
                name(Setting::NoteOmissionsOn)
            ),
            RequestProblem::ExcerptWithoutQuery => format!(
                "{} need {}",
                name(Setting::ExcerptSizes),
                name(Setting::ExcerptQuery)
            ),
            RequestProblem::OutlineShareWithoutOutline => format!(
                "{} needs {}",
                name(Setting::OutlineShare),
                name(Setting::OutlineOn)
            ),
            RequestProblem::OutlineShareOver100 { share } => format!(
                "{} is a percentage of the budget from 0 to 100, not {share}",
                name(Setting::OutlineShare)
            ),
            RequestProblem::ReservedOtherInputWithRequest { tokens } => format!(
                "{} measures everything outside the payload; drop {} ({tokens} given) or \
                 drop {}",
                name(Setting::RequestFile),
                name(Setting::ReservedOtherInput),
                name(Setting::RequestFile)
            ),
            RequestProblem::WindowsWithRequest => format!(
                "{} does not take {} yet: give each window's payload to the request yourself",
                name(Setting::Windows),
                name(Setting::RequestFile)
            ),
            RequestProblem::QueryWithoutTerms => format!(
                "{} has no word to rank the documents by (it is empty, or holds only words \
                 every text has); say what the task is about",
                name(Setting::Query)
            ),
            RequestProblem::QueryAndFixtureOnStdin => format!(
                "{} reads standard input, and so does the fixture: give the fixture's file, or \
                 the query's",
                name(Setting::Query)
            ),
            RequestProblem::QueryWithMaxFill => format!(
                "{} orders the documents by relevance, and max-fill fills the budget in any \
                 order: give {} in-order or priority with it",
                name(Setting::Query),
                name(Setting::PolicyName)
            ),
        }
    }
}

/// Where in a fixture a JSON-level problem sits (1-based line and column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in bytes.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} column {}", self.line, self.column)
    }
}

/// What is wrong with the shape of a fixture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaProblem {
    /// The fixture is not a JSON object.
    NotAnObject,
    /// A key that the schema does not have; `allowed` are the keys it has.
    UnknownField {
        /// The field names allowed in this object.
        allowed: &'static [&'static str],
    },
    /// The same key twice in one object.
    DuplicateKey,
    /// A required key is absent.
    MissingField {
        /// The schema name of the absent field.
        field: &'static str,
    },
    /// A value of the wrong JSON type.
    WrongType {
        /// What the schema expects, in words ("an array of documents").
        expected: &'static str,
    },
    /// A number that is not a whole number in `min..=max`.
    NotInRange {
        /// The smallest allowed value.
        min: i64,
        /// The largest allowed value.
        max: i64,
    },
}

impl SchemaProblem {
    fn describe(self) -> String {
        match self {
            SchemaProblem::NotAnObject => "must be a JSON object".into(),
            SchemaProblem::UnknownField { allowed } => format!(
                "has a field the schema does not allow; allowed: {}",
                allowed.join(", ")
            ),
            SchemaProblem::DuplicateKey => "has the same key twice".into(),
            SchemaProblem::MissingField { field } => format!("has no field '{field}'"),
            SchemaProblem::WrongType { expected } => format!("must be {expected}"),
            SchemaProblem::NotInRange { min, max } => {
                format!("must be a whole number from {min} to {max}")
            }
        }
    }
}

/// Where a schema problem is: a JSON position or a schema path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SchemaPlace {
    /// A position in the JSON text (for problems found while parsing).
    At(Position),
    /// A path made of schema names and indices, such as `documents[2].priority`.
    Path(String),
}

/// What is wrong with a budget value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum BudgetProblem {
    /// The `budget` object is absent and not every value was given as a flag.
    Missing,
    /// A directory is packed without a budget flag.
    MissingForDirectory,
    /// `budget` is not an object.
    NotAnObject,
    /// One value is absent.
    MissingValue,
    /// A value is not a non-negative integer of at most 2^53-1.
    NotAnInteger,
}

/// What is wrong with a document's `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum IdProblem {
    /// The document has no `id`.
    Missing,
    /// The `id` is not a string.
    NotAString,
    /// The `id` is the empty string.
    Empty,
    /// The `id` contains a control character.
    ControlCharacter,
}

/// What is wrong with a document's `url`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UrlProblem {
    /// The document has no `url`.
    Missing,
    /// The `url` is not a string.
    NotAString,
    /// The `url` contains a space or other whitespace.
    Whitespace,
    /// The `url` contains a control character.
    ControlCharacter,
    /// The `url` is not an absolute URL (relative, or not a URL at all).
    NotAbsolute,
    /// The scheme is neither `http` nor `https`.
    Scheme,
    /// There is no host.
    NoHost,
}

/// What is wrong with a document's `path` (SPEC §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PathProblem {
    /// The `path` is not a string.
    NotAString,
    /// The document has both a `url` and a `path`.
    WithUrl,
    /// The `path` is empty, starts or ends with whitespace, or contains a
    /// control character or a backslash.
    Characters,
    /// The `path` is absolute (starts with `/` or a drive letter).
    Absolute,
    /// The `path` has an empty, `.` or `..` component.
    NotNormal,
}

/// How a field's value fails its rule, for fields with one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Shape {
    /// The field is absent.
    Missing,
    /// The value has the wrong JSON type.
    WrongType,
    /// The value has the right type but breaks the rule.
    Invalid,
}

/// What the JSON reader expected where a fixture stops being JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Syntax {
    /// The input ends inside a value.
    UnexpectedEnd,
    /// A comma directly before `]` or `}`.
    TrailingComma,
    /// A `//` or `/*` comment.
    Comment,
    /// A string or key in single quotes.
    SingleQuotes,
    /// An object key that is not a double-quoted string.
    KeyNotAString,
    /// A value was expected (none, or something that is not JSON).
    ExpectedValue,
    /// `:` after a key.
    ExpectedColon,
    /// `,` or `]` inside an array.
    ExpectedCommaOrBracket,
    /// `,` or `}` inside an object.
    ExpectedCommaOrBrace,
    /// `true`, `false` or `null` misspelled.
    ExpectedLiteral,
    /// A raw control character (newline, tab) inside a string.
    ControlCharacterInString,
    /// A backslash escape JSON does not have.
    InvalidEscape,
    /// A malformed number.
    InvalidNumber,
    /// Text after the one JSON value.
    TrailingCharacters,
    /// Anything else.
    Other,
}

impl Syntax {
    fn describe(self) -> &'static str {
        match self {
            Syntax::UnexpectedEnd => {
                "the input ends before the JSON is complete (a missing closing bracket, brace or quote?)"
            }
            Syntax::TrailingComma => {
                "a comma before a closing bracket or brace; JSON allows no trailing comma, remove it"
            }
            Syntax::Comment => "JSON has no comments; remove the comment",
            Syntax::SingleQuotes => "JSON strings and keys need double quotes, not single quotes",
            Syntax::KeyNotAString => "expected an object key in double quotes",
            Syntax::ExpectedValue => {
                "expected a value (a string in double quotes, a number, an object, an array, true, false or null)"
            }
            Syntax::ExpectedColon => "expected ':' after an object key",
            Syntax::ExpectedCommaOrBracket => "expected ',' or ']' in an array (a missing comma?)",
            Syntax::ExpectedCommaOrBrace => {
                "expected ',' or '}' after an object member (a missing comma?)"
            }
            Syntax::ExpectedLiteral => "expected true, false or null",
            Syntax::ControlCharacterInString => {
                "a string contains a raw control character; write a newline as \\n and a tab as \\t"
            }
            Syntax::InvalidEscape => {
                "a string has a backslash escape JSON does not have; write a backslash as \\\\"
            }
            Syntax::InvalidNumber => "a number is not written as JSON allows",
            Syntax::TrailingCharacters => {
                "there is text after the end of the JSON object (a fixture is one JSON object)"
            }
            Syntax::Other => "the JSON reader cannot go on",
        }
    }
}

/// One problem found in a fixture, and where it is as far as known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong (never an [`Error::Problems`]).
    pub error: Error,
    /// The index of the document it is in, if any.
    pub document: Option<usize>,
    /// The schema name of the field (`url`, `budget.contextTokens`), if any.
    pub field: Option<&'static str>,
    /// Its line and column in the JSON text, if known.
    pub at: Option<Position>,
}

impl Problem {
    /// The message with its position: `... at line L column C; hint`.
    pub fn message(&self) -> String {
        self.message_with(&CommandLine)
    }

    /// [`Problem::message`], with the settings spelled by `names`.
    pub fn message_with(&self, names: &dyn Names) -> String {
        let message = self.error.message(names);
        let Some(at) = self.at else {
            return message;
        };
        let split = ["; ", ": ", " ("]
            .iter()
            .filter_map(|separator| message.find(separator))
            .min()
            .unwrap_or(message.len());
        format!("{} at {at}{}", &message[..split], &message[split..])
    }
}

/// The most problems of one fixture listed one by one; the rest are counted.
pub const MAX_PROBLEMS: usize = 20;

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
    /// published exactly (OpenAI's API encodings): refused, never
    /// estimated.
    #[error("{}", self.message(&CommandLine))]
    RequestFramingUnknown {
        /// What packer counts with (`cl100k_base`, say).
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

fn schema_subject(place: &SchemaPlace, names: &dyn Names) -> String {
    match place {
        SchemaPlace::At(position) => format!("{} {position}", names.name(Setting::FixtureAt)),
        SchemaPlace::Path(path) => path.clone(),
    }
}

fn budget_message(field: &str, problem: BudgetProblem) -> String {
    match problem {
        BudgetProblem::Missing => "the fixture has no budget; add one, or give --budget N (the payload may use N tokens) \
             or all four budget flags (--context-tokens, --reserved-other-input-tokens, --reserved-output-tokens, --safety-tokens)"
            .into(),
        BudgetProblem::MissingForDirectory => "packing a directory needs a budget: give --budget N \
             (the payload may use N tokens), or --context-tokens N with the reservations you need, \
             or write budget = N in the directory's packer.toml (packer init DIR writes one)"
            .into(),
        BudgetProblem::NotAnObject => "budget must be an object of four token counts".into(),
        BudgetProblem::MissingValue => {
            format!("budget.{field} is missing; add it or give its flag")
        }
        BudgetProblem::NotAnInteger => {
            format!("budget.{field} must be a whole number from 0 to 9007199254740991")
        }
    }
}

fn read_failed_message(path: &str, kind: std::io::ErrorKind) -> String {
    use std::io::ErrorKind;
    match kind {
        ErrorKind::NotFound => format!("no such file: {path}"),
        ErrorKind::PermissionDenied => format!("permission denied: cannot read {path}"),
        ErrorKind::IsADirectory => format!("{path} is a directory, not a file"),
        kind => format!("cannot read {path} ({kind})"),
    }
}

fn too_large_message(limit: u64, size: Option<u64>) -> String {
    match size {
        Some(size) => format!(
            "the input is {size} bytes, more than the limit of {limit}; raise --max-input-bytes to accept it"
        ),
        None => format!(
            "the input is larger than the limit of {limit} bytes; raise --max-input-bytes to accept it"
        ),
    }
}

fn id_message(index: usize, problem: IdProblem) -> String {
    match problem {
        IdProblem::Missing => format!("documents[{index}] has no field 'id'"),
        IdProblem::NotAString => format!("documents[{index}].id must be a string"),
        IdProblem::Empty => format!("documents[{index}].id is empty"),
        IdProblem::ControlCharacter => {
            format!("documents[{index}].id contains a control character (ids may not)")
        }
    }
}

fn url_message(index: usize, problem: UrlProblem) -> String {
    let rule = "it must be an absolute http or https URL with a host";
    match problem {
        UrlProblem::Missing => format!(
            "documents[{index}] has no field 'url' (a web page's address) or 'path' (a file's \
             path relative to the directory it was collected from)"
        ),
        UrlProblem::NotAString => format!("documents[{index}].url must be a string; {rule}"),
        UrlProblem::Whitespace => format!(
            "documents[{index}].url contains whitespace; write a space as %20 (the url is sent exactly as given)"
        ),
        UrlProblem::ControlCharacter => {
            format!("documents[{index}].url contains a control character")
        }
        UrlProblem::NotAbsolute => format!("documents[{index}].url is not absolute; {rule}"),
        UrlProblem::Scheme => {
            format!("documents[{index}].url has a scheme other than http or https; {rule}")
        }
        UrlProblem::NoHost => format!("documents[{index}].url has no host; {rule}"),
    }
}

fn config_message(file: &str, line: usize, column: usize, problem: &str) -> String {
    if line == 0 {
        format!("{file}: {problem}")
    } else {
        format!("{file} at line {line} column {column}: {problem}")
    }
}

fn path_message(index: usize, problem: PathProblem) -> String {
    let rule = "it must be a relative path with / between its parts, such as src/lib.rs";
    match problem {
        PathProblem::NotAString => format!("documents[{index}].path must be a string; {rule}"),
        PathProblem::WithUrl => {
            format!("documents[{index}] has both a url and a path; give one of them")
        }
        PathProblem::Characters => format!(
            "documents[{index}].path is empty, starts or ends with whitespace, or contains a \
             control character or a backslash; {rule}"
        ),
        PathProblem::Absolute => format!("documents[{index}].path is absolute; {rule}"),
        PathProblem::NotNormal => {
            format!("documents[{index}].path has an empty, . or .. part; {rule}")
        }
    }
}

fn field_message(
    index: usize,
    field: &str,
    shape: Shape,
    wrong_type: &str,
    invalid: &str,
) -> String {
    match shape {
        Shape::Missing => format!("documents[{index}] has no field '{field}'"),
        Shape::WrongType => format!("documents[{index}].{field} {wrong_type}"),
        Shape::Invalid => format!("documents[{index}].{field} {invalid}"),
    }
}

fn problems_message(problems: &[Problem], more: usize, names: &dyn Names) -> String {
    let mut message = problems
        .first()
        .map(|problem| problem.message_with(names))
        .unwrap_or_default();
    let rest = problems.len().saturating_sub(1) + more;
    if rest > 0 {
        message.push_str(&format!(
            " (and {rest} more problem{})",
            if rest == 1 { "" } else { "s" }
        ));
    }
    message
}

fn unknown_model_message(nearest: &[&str], names: &dyn Names) -> String {
    let mut message = format!(
        "the model has no known encoding; give {} instead (see `packer encodings`)",
        names.name(Setting::Encoding)
    );
    if !nearest.is_empty() {
        message.push_str(&format!("; nearest known models: {}", nearest.join(", ")));
    }
    message
}

/// A provider whose models' tokenizer is not public, so that no count
/// made offline is exact for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// Anthropic's Claude models (`claude-*`).
    Anthropic,
    /// Google's Gemini models (`gemini-*`).
    Google,
}

impl Provider {
    /// The provider whose models a (lowercase) model name names, if its
    /// tokenizer is not public: `claude-*` and `gemini-*`, also after a
    /// route such as `models/`, `anthropic/` or `anthropic.`.
    pub fn of_model(model: &str) -> Option<Provider> {
        let name = model.rsplit('/').next().unwrap_or(model);
        let name = name.strip_prefix("anthropic.").unwrap_or(name);
        if name.starts_with("claude") {
            Some(Provider::Anthropic)
        } else if name.starts_with("gemini") {
            Some(Provider::Google)
        } else {
            None
        }
    }

    /// The refusal: no exact offline count, where the exact count is, and
    /// how to keep a margin (the setting spelled by `names`).
    fn message(self, names: &dyn Names) -> String {
        let (models, what, endpoint) = match self {
            Provider::Anthropic => (
                "Anthropic's Claude models",
                "Anthropic publishes no tokenizer for them",
                "Anthropic's token-counting endpoint (the Messages API's count_tokens)",
            ),
            Provider::Google => (
                "Google's Gemini models",
                "Google publishes no tokenizer for them (Gemma's tokenizer file is not Gemini's)",
                "the Gemini API's countTokens endpoint",
            ),
        };
        format!(
            "no exact offline token count exists for {models}: {what}; count the payload with \
             {endpoint}, and when packing with another encoding or tokenizer keep a margin with {} \
             (packer never counts one model with another's encoding)",
            names.name(Setting::SafetyTokens)
        )
    }
}

/// The message of `empty-envelope-does-not-fit`, in one place.
fn empty_envelope_message(
    needed: usize,
    available: u64,
    without_notes: Option<usize>,
    names: &dyn Names,
) -> String {
    let short = needed as u64 - available.min(needed as u64);
    match without_notes {
        Some(bare) if bare as u64 <= available => format!(
            "the omission note does not fit: the empty envelope with its note needs {needed} tokens \
             but only {available} are available (short by {short}); without {} it \
             needs {bare}; lower {} to list fewer documents",
            names.name(Setting::NoteOmissions),
            names.name(Setting::NoteOmissionsMax)
        ),
        _ => format!(
            "the empty envelope needs {needed} tokens but only {available} are available \
             (short by {short}); raise the budget"
        ),
    }
}

fn request_message(required: Option<&[usize]>, needed: usize, available: u64) -> String {
    let short = needed as u64 - available.min(needed as u64);
    match required {
        None => format!(
            "the request does not fit even with an empty payload: rendered with the empty \
             envelope it needs {needed} tokens but only {available} are available (short by \
             {short}); raise the context, lower the output reservation, or shorten the messages"
        ),
        Some(indices) => format!(
            "required documents do not fit: documents[{}]; with every required document the \
             request needs {needed} tokens but only {available} are available (short by \
             {short}); raise the budget or drop `required`",
            join_indices(indices)
        ),
    }
}

fn required_message(indices: &[usize], needed: usize, available: u64) -> String {
    let short = needed as u64 - available.min(needed as u64);
    format!(
        "required documents do not fit: documents[{}]; with every required document the payload \
         needs {needed} tokens but only {available} are available (short by {short}); raise the \
         budget or drop `required`",
        join_indices(indices)
    )
}

fn join_indices(indices: &[usize]) -> String {
    indices
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join("], documents[")
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
