//! How front ends spell the settings error messages name: a
//! [`Setting`] is named through [`Names`], and [`CommandLine`] spells
//! them as flags.

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

/// The command line's flags: what [`Error`](super::Error)'s `Display` says.
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
