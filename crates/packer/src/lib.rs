//! packer packs whole documents into an LLM's context under an explicit
//! token budget.
//!
//! It reads a JSON capture of documents (a *fixture*), refuses anything
//! ambiguous, and selects whole documents while the **complete serialized
//! payload**, counted exactly with the model's tiktoken encoding, fits
//! `contextTokens − reservedOtherInputTokens − reservedOutputTokens − safetyTokens`.
//! It returns that exact payload and a decision for every document.
//!
//! # Guarantees
//!
//! - `used_tokens` is the exact ordinary-text token count of `payload_text`
//!   (special-token-looking text counts as plain text), and never exceeds
//!   `available_tokens`.
//! - Every document gets exactly one [`Decision`]: selected, or skipped with
//!   the tokens it needed and the tokens that were free.
//! - Documents are never truncated; `required` documents are never left out
//!   (packing fails instead).
//! - Errors carry positions and numbers, never bytes of the capture.
//! - No model and no network is ever called.
//!
//! # Example
//!
//! ```
//! use packer::{Fixture, Limits, Request};
//!
//! let capture = br##"{
//!   "budget": {"contextTokens": 256, "reservedOtherInputTokens": 64,
//!              "reservedOutputTokens": 64, "safetyTokens": 16},
//!   "documents": [
//!     {"id": "intro", "url": "https://example.com/intro", "format": "markdown",
//!      "content": "# Intro\nShort.", "truncated": false},
//!     {"id": "long", "url": "https://example.com/long", "format": "text",
//!      "content": "word ... word", "truncated": false}
//!   ]
//! }"##;
//! let fixture = Fixture::from_bytes(capture, &Limits::default())?;
//! let outcome = packer::pack(&fixture, &Request::default())?;
//! assert_eq!(outcome.available_tokens(), 112);
//! assert!(outcome.plan.used_tokens as u64 <= outcome.available_tokens());
//! assert_eq!(outcome.plan.decisions.len(), 2);
//! assert!(outcome.plan.payload_text.starts_with(r#"{"documents":[{"id":"intro""#));
//! # Ok::<(), packer::Error>(())
//! ```
//!
//! Bad input is an [`Error`] with a stable [`Error::code`]:
//!
//! ```
//! use packer::{Fixture, Limits};
//!
//! let capture = br#"{"documents":[{"id":"a","url":"https://user:pw@example.com/",
//!   "format":"text","content":"x","truncated":false}]}"#;
//! let error = Fixture::from_bytes(capture, &Limits::default()).unwrap_err();
//! assert_eq!(error.code(), "url-credentials");
//! assert_eq!(
//!     error.to_string(),
//!     "documents[0].url carries a user name or password at line 1 column 31; remove the credentials"
//! );
//! ```

#![forbid(unsafe_code)]

pub mod budget;
pub mod cancel;
pub mod chat;
pub mod envelope;
pub mod error;
pub mod fixture;
pub mod focus;
pub mod json;
pub mod output;
pub mod pack;
pub mod progress;
pub mod rank;
pub mod request;
pub mod terminal;
pub mod tokens;

pub use budget::{Budget, PartialBudget};
pub use cancel::Cancel;
pub use envelope::Envelope;
pub use error::{Error, Provider};
pub use fixture::{Document, Fixture, Format, Limits, Source};
pub use pack::{Decision, DoesNotFit, Failure, Options, Plan, Policy, Reason, Window, Windows};
pub use progress::Progress;
pub use request::RequestNames;
pub use tokens::{Counter, Encoding, Splitting, Tokenizer};

/// What a caller asks of [`pack()`] beyond the fixture: each value given here
/// overrides the fixture's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    /// The encoding to count with, instead of the fixture's.
    pub encoding: Option<Encoding>,
    /// A tokenizer file to count with, instead of any encoding (it wins
    /// over `encoding` and the fixture's encoding).
    pub tokenizer: Option<Tokenizer>,
    /// Budget values that replace the fixture's, one by one.
    pub budget: PartialBudget,
    /// Policy, envelope, omission notes and excerpts.
    pub options: Options,
    /// A chat request whose whole rendering must fit (SPEC §2.4).
    pub chat: Option<Chat>,
}

/// A chat request to count whole (`--request`, SPEC §2.4).
#[derive(Debug, Clone)]
pub struct Chat {
    /// The conversation with its placeholder.
    pub request: chat::ChatRequest,
    /// The chat template; `None` for the one the counter implies
    /// (gpt-oss's for `o200k_harmony`, else `request-framing-unknown`).
    pub template: Option<chat::ChatTemplate>,
    /// How the request is written: with the template (the default), or
    /// in harmony's format as vLLM writes it (no template).
    pub format: chat::ChatFormat,
    /// What `strftime_now` formats: seconds since 1970, UTC.
    pub now: i64,
    /// Where the template runs: `None` in this process, where nothing
    /// bounds a hostile template's stack, memory or time; the front ends
    /// give a worker process with limits (see [`chat::render`]).
    pub isolation: chat::render::Isolation,
    /// Set by whoever no longer waits for the pack: a render under way in
    /// a worker ends at once (the pack itself checks
    /// [`Options::cancel`](pack::Options) between trials).
    pub cancel: Cancel,
}

/// Two chats are equal when they render the same request the same way
/// (wherever they run).
impl PartialEq for Chat {
    fn eq(&self, other: &Chat) -> bool {
        self.request == other.request
            && self.template == other.template
            && self.format == other.format
            && self.now == other.now
    }
}

impl Eq for Chat {}

impl Chat {
    /// The request ready to render and count with `counter`.
    pub fn framing(&self, counter: Counter) -> Result<chat::Framing, Error> {
        if self.format == chat::ChatFormat::Harmony {
            return chat::Framing::harmony_format(self.request.clone(), counter, self.now);
        }
        match &self.template {
            Some(template) => chat::Framing::new(
                self.request.clone(),
                template,
                counter,
                self.now,
                &self.isolation,
                &self.cancel,
            ),
            None => chat::Framing::harmony_or_refused(
                self.request.clone(),
                counter,
                self.now,
                &self.isolation,
                &self.cancel,
            ),
        }
    }
}

/// A packed fixture: the resolved settings and the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The encoding counted with (the fixture's or the default when a
    /// tokenizer file was used instead; see [`Outcome::counter`]).
    pub encoding: Encoding,
    /// The tokenizer file counted with, if any.
    pub tokenizer: Option<Tokenizer>,
    /// The policy used.
    pub policy: Policy,
    /// The payload's layout.
    pub envelope: Envelope,
    /// The budget after overrides.
    pub budget: Budget,
    /// The selection, its decisions and the payload.
    pub plan: Plan,
}

impl Outcome {
    /// A counter for what the plan was counted with.
    pub fn counter(&self) -> Counter {
        match self.tokenizer {
            Some(tokenizer) => Counter::with_tokenizer(tokenizer),
            None => Counter::new(self.encoding),
        }
    }

    /// `availableTokens`.
    pub fn available_tokens(&self) -> u64 {
        self.plan.available_tokens
    }
}

/// The settings a fixture resolves to under a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// The encoding to count with (unless `tokenizer` is set).
    pub encoding: Encoding,
    /// The tokenizer file to count with, if any.
    pub tokenizer: Option<Tokenizer>,
    /// The complete budget.
    pub budget: Budget,
    /// `availableTokens`.
    pub available_tokens: u64,
}

impl Settings {
    /// A counter for what these settings count with.
    pub fn counter(&self) -> Counter {
        match self.tokenizer {
            Some(tokenizer) => Counter::with_tokenizer(tokenizer),
            None => Counter::new(self.encoding),
        }
    }
}

/// The encoding a model uses, by its name in any letter case (`GPT-4o`
/// counts with `o200k_base`); `unknown-model` names the nearest known models.
/// Claude and Gemini models (`claude-*`, `gemini-*`) have no public
/// tokenizer: they are `unknown-model` with what to do instead, and never
/// mapped to another encoding.
pub fn model_encoding(model: &str) -> Result<Encoding, Error> {
    let lower = model.trim().to_lowercase();
    if let Some(provider) = Provider::of_model(&lower) {
        return Err(Error::ModelWithoutPublicTokenizer { provider });
    }
    if let Some(encoding) = Encoding::for_model(&lower) {
        return Ok(encoding);
    }
    let mut known: Vec<(f64, &'static str)> = Encoding::ALL
        .iter()
        .flat_map(|encoding| encoding.example_models().iter().copied())
        .map(|name| (strsim::jaro_winkler(&lower, name), name))
        .filter(|&(score, _)| score >= 0.7)
        .collect();
    known.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    Err(Error::UnknownModel {
        nearest: known.into_iter().take(3).map(|(_, name)| name).collect(),
    })
}

/// Resolves the encoding and the budget of `fixture` under `request`.
pub fn settings(fixture: &Fixture, request: &Request) -> Result<Settings, Error> {
    let encoding = request
        .encoding
        .or(fixture.encoding)
        .unwrap_or(Encoding::Cl100kBase);
    let budget = fixture
        .budget
        .overridden_by(request.budget)
        .complete(fixture.has_budget)?;
    if request.chat.is_some() && budget.reserved_other_input_tokens > 0 {
        return Err(Error::InvalidRequest {
            problem: error::RequestProblem::ReservedOtherInputWithRequest {
                tokens: budget.reserved_other_input_tokens,
            },
        });
    }
    Ok(Settings {
        encoding,
        tokenizer: request.tokenizer,
        budget,
        available_tokens: budget.available_tokens()?,
    })
}

/// Packs a validated fixture.
///
/// ```
/// use packer::{Counter, Encoding, Envelope, Fixture, Limits, Options, Policy, Request};
///
/// let capture = br#"{"budget": {"contextTokens": 60, "reservedOtherInputTokens": 0,
///   "reservedOutputTokens": 0, "safetyTokens": 0},
///   "documents": [
///     {"id": "a", "url": "https://example.com/a", "format": "text",
///      "content": "A document that is a little too long to fit beside the other one.", "truncated": false},
///     {"id": "b", "url": "https://example.com/b", "format": "text",
///      "content": "Short.", "truncated": false}]}"#;
/// let fixture = Fixture::from_bytes(capture, &Limits::default())?;
/// let request = Request {
///     options: Options { policy: Policy::MaxFill, ..Options::default() },
///     ..Request::default()
/// };
/// let plan = packer::pack(&fixture, &request)?.plan;
/// assert_eq!(plan.optimal, Some(true));
/// assert!(plan.used_tokens as u64 <= plan.available_tokens);
/// for decision in &plan.decisions {
///     if !decision.selected {
///         assert!(decision.needed_tokens > decision.free_tokens as i64);
///     }
/// }
///
/// // The same documents as XML (SPEC §2.1), with every guarantee kept.
/// let request = Request {
///     options: Options { envelope: Envelope::Xml, ..Options::default() },
///     ..Request::default()
/// };
/// let plan = packer::pack(&fixture, &request)?.plan;
/// assert!(plan.payload_text.starts_with("<documents>\n<document index=\"1\" id=\"a\">\n"));
/// assert!(plan.payload_text.ends_with("</documents>"));
/// assert_eq!(plan.used_tokens, Counter::new(Encoding::Cl100kBase).count(&plan.payload_text));
/// # Ok::<(), packer::Error>(())
/// ```
///
/// Something that does not fit is [`Failure::DoesNotFit`], with a decision
/// for every document; `?` turns a failure into its [`Error`].
///
/// This makes one payload: `request.options.windows` is read by
/// [`pack_windows`], which the front ends call instead when it is set.
pub fn pack(fixture: &Fixture, request: &Request) -> Result<Outcome, Failure> {
    let settings = settings(fixture, request)?;
    let counter = settings.counter();
    let plan = match &request.chat {
        Some(chat) => {
            let framing = chat.framing(counter)?;
            pack::plan_framed(
                &fixture.documents,
                &framing,
                settings.available_tokens,
                &request.options,
            )?
        }
        None => pack::plan(
            &fixture.documents,
            counter,
            settings.available_tokens,
            &request.options,
        )?,
    };
    Ok(Outcome {
        encoding: settings.encoding,
        tokenizer: settings.tokenizer,
        policy: request.options.policy,
        envelope: request.options.envelope,
        budget: settings.budget,
        plan,
    })
}

/// A fixture packed into windows: the resolved settings and the windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowsOutcome {
    /// The encoding counted with (see [`Outcome::encoding`]).
    pub encoding: Encoding,
    /// The tokenizer file counted with, if any.
    pub tokenizer: Option<Tokenizer>,
    /// The policy (it orders the documents inside each window).
    pub policy: Policy,
    /// The payloads' layout.
    pub envelope: Envelope,
    /// The budget after overrides.
    pub budget: Budget,
    /// The windows, their decisions and payloads.
    pub windows: Windows,
}

impl WindowsOutcome {
    /// A counter for what the windows were counted with.
    pub fn counter(&self) -> Counter {
        match self.tokenizer {
            Some(tokenizer) => Counter::with_tokenizer(tokenizer),
            None => Counter::new(self.encoding),
        }
    }
}

/// Packs every document of a validated fixture into as few windows as
/// possible (SPEC §3.2): each window a complete envelope counted exactly
/// and within `availableTokens`, with its place (`window 2 of 5`) in it;
/// required documents in every window.
///
/// ```
/// use packer::{Counter, Encoding, Fixture, Limits, Options, Request};
///
/// let capture = br#"{"budget": {"contextTokens": 60, "reservedOtherInputTokens": 0,
///   "reservedOutputTokens": 0, "safetyTokens": 0},
///   "documents": [
///     {"id": "a", "url": "https://example.com/a", "format": "text",
///      "content": "A document that is a little too long to fit beside the other one.", "truncated": false},
///     {"id": "b", "url": "https://example.com/b", "format": "text",
///      "content": "Another document, too long to share a window with the first one.", "truncated": false}]}"#;
/// let fixture = Fixture::from_bytes(capture, &Limits::default())?;
/// let request = Request {
///     options: Options { windows: true, ..Options::default() },
///     ..Request::default()
/// };
/// let windows = packer::pack_windows(&fixture, &request)?.windows;
/// assert_eq!(windows.count(), 2);
/// assert!(windows.optimal);
/// let counter = Counter::new(Encoding::Cl100kBase);
/// for window in &windows.windows {
///     assert_eq!(window.used_tokens, counter.count(&window.payload_text));
///     assert!(window.used_tokens <= 60);
/// }
/// assert!(windows.windows[1].payload_text.starts_with(r#"{"window":"2 of 2","documents":[{"id":"b""#));
/// # Ok::<(), packer::Error>(())
/// ```
pub fn pack_windows(fixture: &Fixture, request: &Request) -> Result<WindowsOutcome, Failure> {
    if request.chat.is_some() {
        return Err(Error::InvalidRequest {
            problem: error::RequestProblem::WindowsWithRequest,
        }
        .into());
    }
    let settings = settings(fixture, request)?;
    let counter = settings.counter();
    let windows = pack::plan_windows(
        &fixture.documents,
        counter,
        settings.available_tokens,
        &request.options,
    )?;
    Ok(WindowsOutcome {
        encoding: settings.encoding,
        tokenizer: settings.tokenizer,
        policy: request.options.policy,
        envelope: request.options.envelope,
        budget: settings.budget,
        windows,
    })
}
