//! What an error says is wrong, as data: the kinds of problem a variant
//! carries (a schema problem and its place, a budget, id, url or path
//! problem, a JSON syntax error and its position, a chat request's limit),
//! each rendered in words by its own method.

use std::fmt;

use super::Error;
use super::names::{CommandLine, Names, Setting};

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
    pub(super) fn describe(self) -> String {
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
    pub(super) fn describe(self) -> &'static str {
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
    pub(super) fn message(self, names: &dyn Names) -> String {
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
