//! The one error type, its stable machine codes and its exit statuses.
//!
//! Variants carry positions (document index, JSON line and column, schema
//! field names) and numbers, never bytes of the capture: a message can be
//! printed, logged or shown to a model without leaking what was packed.

use std::fmt;

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
    /// A key that the schema does not have.
    UnknownField,
    /// The same key twice in one object.
    DuplicateKey,
    /// A required key is absent.
    MissingField,
    /// A value of the wrong JSON type.
    WrongType,
    /// A number outside the allowed range.
    OutOfRange,
}

impl SchemaProblem {
    fn describe(self) -> &'static str {
        match self {
            SchemaProblem::NotAnObject => "must be a JSON object",
            SchemaProblem::UnknownField => "has a field the schema does not allow",
            SchemaProblem::DuplicateKey => "has the same key twice",
            SchemaProblem::MissingField => "is missing",
            SchemaProblem::WrongType => "has the wrong type",
            SchemaProblem::OutOfRange => "is out of range",
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
    /// `budget` is not an object.
    NotAnObject,
    /// One value is absent.
    MissingValue,
    /// A value is not a non-negative integer of at most 2^53-1.
    NotAnInteger,
    /// The reservations add up to more than the context.
    Negative,
}

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
    /// The input is larger than `--max-input-bytes`.
    #[error("the input is larger than {limit} bytes; raise --max-input-bytes to accept it")]
    InputTooLarge {
        /// The limit in bytes.
        limit: u64,
    },
    /// The input is not UTF-8.
    #[error("the input is not valid UTF-8 at byte {offset}")]
    InvalidUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// The input is not JSON.
    #[error("the input is not valid JSON at {at}")]
    InvalidJson {
        /// Where parsing stopped.
        at: Position,
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
    #[error("{} {}", schema_subject(place), problem.describe())]
    InvalidSchema {
        /// Where.
        place: SchemaPlace,
        /// What.
        problem: SchemaProblem,
    },
    /// The `encoding` is not one packer knows.
    #[error("the fixture's encoding is not one of the names `packer encodings` lists")]
    UnknownEncoding,
    /// `--model` names a model with no known encoding.
    #[error("the model has no known encoding; give --encoding instead (see `packer encodings`)")]
    UnknownModel,
    /// A budget value is missing or invalid.
    #[error("{}", budget_message(field, *problem))]
    InvalidBudget {
        /// The schema name of the value (`contextTokens`, ...), or `budget`.
        field: &'static str,
        /// What is wrong with it.
        problem: BudgetProblem,
    },
    /// More documents than `--max-documents`.
    #[error("the fixture has more than {limit} documents; raise --max-documents to accept it")]
    TooManyDocuments {
        /// The limit.
        limit: usize,
    },
    /// An `id` that is not a non-empty string without control characters.
    #[error("documents[{index}].id must be a non-empty string without control characters")]
    InvalidId {
        /// The document's index.
        index: usize,
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
    #[error("documents[{index}].url must be an absolute http or https URL with a host")]
    InvalidUrl {
        /// The document's index.
        index: usize,
    },
    /// A `url` with a user name or password.
    #[error("documents[{index}].url carries a user name or password; remove the credentials")]
    UrlCredentials {
        /// The document's index.
        index: usize,
    },
    /// A `format` other than `markdown` or `text`.
    #[error("documents[{index}].format must be \"markdown\" or \"text\"")]
    UnsupportedFormat {
        /// The document's index.
        index: usize,
    },
    /// Empty or whitespace-only `content`.
    #[error("documents[{index}].content must be a string that is not empty or only whitespace")]
    BlankContent {
        /// The document's index.
        index: usize,
    },
    /// `truncated` absent or not `false`.
    #[error(
        "documents[{index}].truncated must be present and false; a truncated capture cannot be packed whole"
    )]
    TruncatedDocument {
        /// The document's index.
        index: usize,
    },
    /// Even the envelope with no documents exceeds the budget.
    #[error(
        "the empty envelope needs {needed} tokens but only {available} are available; raise the budget"
    )]
    EmptyEnvelopeDoesNotFit {
        /// Tokens of the empty envelope.
        needed: usize,
        /// `availableTokens`.
        available: u64,
    },
    /// Some required documents do not fit.
    #[error(
        "required documents do not fit in {available} tokens: documents[{}]; raise the budget or drop `required`",
        join_indices(indices)
    )]
    RequiredDoesNotFit {
        /// Indices of the required documents that did not fit.
        indices: Vec<usize>,
        /// `availableTokens`.
        available: u64,
    },
    /// `--base-url` is not an absolute http(s) URL without credentials.
    #[error("--base-url must be an absolute http or https URL with a host and no credentials")]
    InvalidBaseUrl,
    /// A `--glob` pattern does not parse.
    #[error("a --glob pattern is not a valid glob")]
    InvalidGlob,
    /// `--payload-out` names the fixture being read.
    #[error(
        "--payload-out names the input fixture; choose another file so the input is never changed"
    )]
    PayloadOutIsInput,
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
}

fn schema_subject(place: &SchemaPlace) -> String {
    match place {
        SchemaPlace::At(position) => format!("the fixture at {position}"),
        SchemaPlace::Path(path) => path.clone(),
    }
}

fn budget_message(field: &str, problem: BudgetProblem) -> String {
    match problem {
        BudgetProblem::Missing => {
            "the fixture has no budget; add one or give all four budget flags".into()
        }
        BudgetProblem::NotAnObject => "budget must be an object of four token counts".into(),
        BudgetProblem::MissingValue => {
            format!("budget.{field} is missing; add it or give its flag")
        }
        BudgetProblem::NotAnInteger => {
            format!("budget.{field} must be a whole number from 0 to 9007199254740991")
        }
        BudgetProblem::Negative => {
            "the reservations add up to more than contextTokens: no tokens would be available"
                .into()
        }
    }
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
            Error::UnreadableInput { .. } => "unreadable-input",
            Error::InputTooLarge { .. } => "input-too-large",
            Error::InvalidUtf8 { .. } => "invalid-utf8",
            Error::InvalidJson { .. } | Error::TooDeep { .. } => "invalid-json",
            Error::UnpairedSurrogate { .. } => "unpaired-surrogate",
            Error::InvalidSchema { .. } => "invalid-schema",
            Error::UnknownEncoding => "unknown-encoding",
            Error::UnknownModel => "unknown-model",
            Error::InvalidBudget { .. } => "invalid-budget",
            Error::TooManyDocuments { .. } => "too-many-documents",
            Error::InvalidId { .. } => "invalid-id",
            Error::DuplicateId { .. } => "duplicate-id",
            Error::InvalidUrl { .. } => "invalid-url",
            Error::UrlCredentials { .. } => "url-credentials",
            Error::UnsupportedFormat { .. } => "unsupported-format",
            Error::BlankContent { .. } => "blank-content",
            Error::TruncatedDocument { .. } => "truncated-document",
            Error::EmptyEnvelopeDoesNotFit { .. } => "empty-envelope-does-not-fit",
            Error::RequiredDoesNotFit { .. } => "required-does-not-fit",
            Error::PayloadOutIsInput => "payload-out-is-input",
            Error::InvalidBaseUrl => "invalid-base-url",
            Error::InvalidGlob => "invalid-glob",
            Error::Output { .. } => "output-failed",
            Error::PayloadOut { .. } => "payload-out-failed",
        }
    }

    /// The process exit status for this error (SPEC §6).
    pub fn exit_status(&self) -> i32 {
        match self {
            Error::UnknownModel
            | Error::PayloadOutIsInput
            | Error::InvalidBaseUrl
            | Error::InvalidGlob => EXIT_USAGE,
            Error::UnreadableInput { .. }
            | Error::InputTooLarge { .. }
            | Error::InvalidUtf8 { .. }
            | Error::InvalidJson { .. }
            | Error::TooDeep { .. }
            | Error::UnpairedSurrogate { .. }
            | Error::InvalidSchema { .. }
            | Error::UnknownEncoding
            | Error::InvalidBudget { .. }
            | Error::TooManyDocuments { .. }
            | Error::InvalidId { .. }
            | Error::DuplicateId { .. }
            | Error::InvalidUrl { .. }
            | Error::UrlCredentials { .. }
            | Error::UnsupportedFormat { .. }
            | Error::BlankContent { .. }
            | Error::TruncatedDocument { .. } => EXIT_INVALID_INPUT,
            Error::EmptyEnvelopeDoesNotFit { .. } | Error::RequiredDoesNotFit { .. } => {
                EXIT_DOES_NOT_FIT
            }
            Error::Output { .. } | Error::PayloadOut { .. } => EXIT_FAILURE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_does_not_fit_names_every_index() {
        let error = Error::RequiredDoesNotFit {
            indices: vec![1, 4],
            available: 10,
        };
        assert_eq!(
            error.to_string(),
            "required documents do not fit in 10 tokens: documents[1], documents[4]; raise the budget or drop `required`"
        );
        assert_eq!(error.exit_status(), EXIT_DOES_NOT_FIT);
    }

    #[test]
    fn schema_errors_name_the_place_and_the_problem() {
        let error = Error::InvalidSchema {
            place: SchemaPlace::Path("documents[2].priority".into()),
            problem: SchemaProblem::OutOfRange,
        };
        assert_eq!(error.to_string(), "documents[2].priority is out of range");
        let error = Error::InvalidSchema {
            place: SchemaPlace::At(Position { line: 3, column: 9 }),
            problem: SchemaProblem::DuplicateKey,
        };
        assert_eq!(
            error.to_string(),
            "the fixture at line 3 column 9 has the same key twice"
        );
    }
}
