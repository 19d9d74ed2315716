//! Rendering an [`Outcome`]: the JSON object of SPEC §4 (with or without
//! the payload) and the exact payload. (The human report is the command
//! line's.)
//!
//! The wire types here are the output format; they are kept apart from the
//! domain types so that the format changes only on purpose.

use std::io::{self, Write};

use serde::Serialize;

use crate::budget::Budget;
use crate::error::{CommandLine, Error, Names};
use crate::fixture::Fixture;
use crate::pack::{Decision, DoesNotFit, Options, Reason};
use crate::rank::Relevance;
pub use crate::terminal::terminal_safe;
use crate::{Outcome, Settings, WindowsOutcome};

/// The formats the library writes an outcome in (`packer pack` also has
/// `report`, a table for people, which the command line renders).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Format {
    /// The whole result as pretty JSON, payload included.
    #[default]
    Json,
    /// The JSON without `payloadText`.
    Summary,
    /// The payload's exact bytes, nothing added.
    Payload,
    /// The whole rendered request (with `--request`, SPEC §2.4).
    Request,
}

/// How a pack counted and chose: the first keys of every summary of one
/// (the command line's, and the front ends').
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    /// The encoding counted with, or `tokenizer:{file name}`.
    pub encoding: &'static str,
    /// The SHA-256 of the tokenizer file counted with (only with one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer_sha256: Option<&'static str>,
    /// The policy's name.
    pub policy: &'static str,
    /// The envelope's name (`json`, `xml`, `markdown`).
    pub envelope: &'static str,
    /// For `max-fill`: whether the selection is proven the fullest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimal: Option<bool>,
}

impl Method {
    /// The method of a pack refused before a plan (nothing to be optimal).
    pub fn refused(settings: &Settings, options: &Options) -> Method {
        Method {
            encoding: settings.counter().label(),
            tokenizer_sha256: settings.tokenizer.map(|t| t.sha256()),
            policy: options.policy.name(),
            envelope: options.envelope.name(),
            optimal: None,
        }
    }

    /// The method of `outcome`.
    pub fn of(outcome: &Outcome) -> Method {
        Method {
            encoding: outcome.counter().label(),
            tokenizer_sha256: outcome.tokenizer.map(|t| t.sha256()),
            policy: outcome.policy.name(),
            envelope: outcome.envelope.name(),
            optimal: outcome.plan.optimal,
        }
    }
}

/// The JSON object of `--format json` and `--format summary`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary<'a> {
    /// The encoding, policy and envelope.
    #[serde(flatten)]
    pub method: Method,
    /// The budget after overrides.
    pub budget: Budget,
    /// The budget left for the payload.
    pub available_tokens: u64,
    /// The exact count of the payload.
    pub used_tokens: usize,
    /// With a chat request: the exact count of the whole rendered request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_tokens: Option<usize>,
    /// With a chat request: the exact count of the request holding the
    /// empty envelope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_input_tokens: Option<usize>,
    /// Selected ids in payload order.
    pub selected_ids: Vec<&'a str>,
    /// Ids selected as focused excerpts (only with `--excerpt-query`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt_ids: Option<Vec<&'a str>>,
    /// Ids selected as outlines (only with `--outline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline_ids: Option<Vec<&'a str>>,
    /// Documents that needed an outline and got none, with why (only with
    /// `--outline`, and only when there are some).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unoutlined: Vec<Unoutlined<'a>>,
    /// Skipped documents in the order they were tried.
    pub skipped: Vec<Skipped<'a>>,
    /// One decision per document, in input order.
    pub decisions: Vec<DecisionRecord<'a>>,
    /// The exact payload (absent in the summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_text: Option<&'a str>,
    /// With a chat request: the rendered request (absent in the summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_text: Option<&'a str>,
}

/// A document that needed an outline and got none.
#[derive(Debug, Serialize)]
pub struct Unoutlined<'a> {
    /// Its id.
    pub id: &'a str,
    /// Why (a syntax error's position, say; never the file's text).
    pub reason: &'a str,
}

/// One skipped document.
#[derive(Debug, Serialize)]
pub struct Skipped<'a> {
    /// Its id.
    pub id: &'a str,
    /// Why it was skipped.
    pub reason: &'static str,
}

/// One decision, as output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRecord<'a> {
    /// Index in the input.
    pub index: usize,
    /// The document's id.
    pub id: &'a str,
    /// Whether it is in the payload.
    pub selected: bool,
    /// Why.
    pub reason: &'static str,
    /// Tokens of the raw content alone.
    pub content_tokens: usize,
    /// How much the candidate envelope grew the count (absent when the
    /// document was never tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub needed_tokens: Option<i64>,
    /// Available tokens minus the count before the decision (absent when
    /// the document was never tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free_tokens: Option<u64>,
    /// With `--windows`: the 1-based window the document is in (absent for
    /// required documents, which are in every window, and skipped ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// With a query: the document's place in relevance order (1 = most
    /// relevant).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
    /// With a query: why it ranks there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<RelevanceRecord<'a>>,
}

/// A document's relevance to the query, as output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RelevanceRecord<'a> {
    /// The score (larger is more relevant), to four decimals.
    pub score: f64,
    /// The query's terms that matched its text most, best first.
    pub terms: &'a [String],
    /// The symbols of the query it defines or its path names.
    pub symbols: &'a [String],
    /// The document that uses it, when the code graph brought it in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub used_by: Option<&'a str>,
}

impl<'a> RelevanceRecord<'a> {
    fn new(fixture: &'a Fixture, relevance: &'a Relevance) -> RelevanceRecord<'a> {
        RelevanceRecord {
            score: relevance.score,
            terms: &relevance.terms,
            symbols: &relevance.symbols,
            used_by: relevance
                .used_by
                .map(|index| fixture.documents[index].id.as_str()),
        }
    }
}

impl<'a> DecisionRecord<'a> {
    fn new(fixture: &'a Fixture, d: &Decision) -> DecisionRecord<'a> {
        let tried = d.reason != Reason::NotTried;
        DecisionRecord {
            index: d.index,
            id: fixture.documents[d.index].id.as_str(),
            selected: d.selected,
            reason: d.reason.name(),
            content_tokens: d.content_tokens,
            needed_tokens: tried.then_some(d.needed_tokens),
            free_tokens: tried.then_some(d.free_tokens),
            window: None,
            rank: None,
            relevance: None,
        }
    }

    /// With the document's relevance to the query.
    fn with_relevance(mut self, fixture: &'a Fixture, relevance: Option<&'a Relevance>) -> Self {
        if let Some(relevance) = relevance {
            self.rank = Some(relevance.rank);
            self.relevance = Some(RelevanceRecord::new(fixture, relevance));
        }
        self
    }
}

/// The object printed when packing fails because something does not fit
/// (exit 4): the settings, a decision for every document, and the error.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal<'a> {
    /// The encoding, policy and envelope.
    #[serde(flatten)]
    pub method: Method,
    /// The budget after overrides.
    pub budget: Budget,
    /// The budget left for the payload.
    pub available_tokens: u64,
    /// Nothing is selected when packing fails.
    pub selected_ids: Vec<&'a str>,
    /// Nothing is skipped either: documents not tried say so.
    pub skipped: Vec<Skipped<'a>>,
    /// One decision per document, in input order.
    pub decisions: Vec<DecisionRecord<'a>>,
    /// What does not fit, and by how much.
    pub error: RefusalError,
}

impl<'a> Refusal<'a> {
    /// The refusal object for what does not fit.
    pub fn new(
        fixture: &'a Fixture,
        settings: &Settings,
        options: &Options,
        does_not_fit: &DoesNotFit,
    ) -> Refusal<'a> {
        let DoesNotFit { error, decisions } = does_not_fit;
        Refusal {
            method: Method::refused(settings, options),
            budget: settings.budget,
            available_tokens: settings.available_tokens,
            selected_ids: Vec::new(),
            skipped: Vec::new(),
            decisions: decisions
                .iter()
                .map(|d| DecisionRecord::new(fixture, d))
                .collect(),
            error: RefusalError {
                code: error.code(),
                message: error.to_string(),
                shortfall_tokens: does_not_fit.shortfall_tokens(),
            },
        }
    }
}

/// The `error` member of a [`Refusal`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusalError {
    /// `empty-envelope-does-not-fit` or `required-does-not-fit`.
    pub code: &'static str,
    /// The message printed on standard error.
    pub message: String,
    /// How many tokens are missing.
    pub shortfall_tokens: u64,
}

/// One problem of an invalid input, as output (`{"errors":[...]}`).
#[derive(Debug, Serialize)]
pub struct ErrorRecord {
    /// The stable code.
    pub code: &'static str,
    /// The message printed on standard error.
    pub message: String,
    /// The document's index, if the problem is in one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// The schema field, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'static str>,
    /// 1-based line in the JSON text, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (in bytes) in the JSON text, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

/// The object printed for invalid input (exit 3).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorList {
    /// Every problem listed (at most 20).
    pub errors: Vec<ErrorRecord>,
    /// How many more were found but not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_errors: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ErrorList {
    /// Every problem `error` stands for.
    pub fn new(error: &Error) -> ErrorList {
        ErrorList::with_names(error, &CommandLine)
    }

    /// Every problem `error` stands for, its messages naming the settings
    /// as `names` spells them.
    pub fn with_names(error: &Error, names: &dyn Names) -> ErrorList {
        let (problems, more) = error.problems();
        ErrorList {
            errors: problems
                .iter()
                .map(|problem| {
                    let at = problem.at.or_else(|| problem.error.position());
                    ErrorRecord {
                        code: problem.error.code(),
                        message: problem.message_with(names),
                        document: problem.document,
                        field: problem.field,
                        line: at.map(|at| at.line),
                        column: at.map(|at| at.column),
                    }
                })
                .collect(),
            more_errors: more,
        }
    }

    /// The lines for standard error: `error[CODE]: MESSAGE` each, then the
    /// count of problems not listed.
    pub fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .errors
            .iter()
            .map(|record| format!("error[{}]: {}", record.code, record.message))
            .collect();
        if self.more_errors > 0 {
            let code = self.errors.first().map_or("invalid-schema", |r| r.code);
            lines.push(format!(
                "error[{code}]: {} more problems found and not listed (the first {} are above)",
                self.more_errors,
                self.errors.len()
            ));
        }
        lines
    }
}

impl<'a> Summary<'a> {
    /// The summary of `outcome`, with the payload when `with_payload`.
    pub fn new(fixture: &'a Fixture, outcome: &'a Outcome, with_payload: bool) -> Summary<'a> {
        let plan = &outcome.plan;
        let id = |index: usize| fixture.documents[index].id.as_str();
        Summary {
            method: Method::of(outcome),
            budget: outcome.budget,
            available_tokens: plan.available_tokens,
            used_tokens: plan.used_tokens,
            request_tokens: plan.request.as_ref().map(|r| r.tokens),
            other_input_tokens: plan.other_input_tokens,
            selected_ids: plan.order.iter().map(|&i| id(i)).collect(),
            excerpt_ids: plan
                .excerpts
                .then(|| plan.selected_as(Reason::ExcerptFits).map(id).collect()),
            outline_ids: plan
                .outlines
                .then(|| plan.selected_as(Reason::OutlineFits).map(id).collect()),
            unoutlined: plan
                .unoutlined
                .iter()
                .map(|(index, reason)| Unoutlined {
                    id: id(*index),
                    reason,
                })
                .collect(),
            skipped: plan
                .skipped
                .iter()
                .map(|&index| Skipped {
                    id: id(index),
                    reason: plan.decisions[index].reason.name(),
                })
                .collect(),
            decisions: plan
                .decisions
                .iter()
                .map(|d| {
                    let relevance = plan.relevance.as_ref().map(|all| &all[d.index]);
                    DecisionRecord::new(fixture, d).with_relevance(fixture, relevance)
                })
                .collect(),
            payload_text: with_payload.then_some(plan.payload_text.as_str()),
            request_text: plan
                .request
                .as_ref()
                .filter(|_| with_payload)
                .map(|r| r.text.as_str()),
        }
    }
}

/// Renders `outcome` in `format`.
pub fn render(fixture: &Fixture, outcome: &Outcome, format: Format) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write(fixture, outcome, format, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes `outcome` in `format` to `out`, without building the whole text
/// first.
pub fn write(
    fixture: &Fixture,
    outcome: &Outcome,
    format: Format,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    match format {
        Format::Json | Format::Summary => {
            let summary = Summary::new(fixture, outcome, format == Format::Json);
            serde_json::to_writer_pretty(&mut *out, &summary)?;
            out.write_all(b"\n")
        }
        Format::Payload => out.write_all(outcome.plan.payload_text.as_bytes()),
        Format::Request => match &outcome.plan.request {
            Some(request) => out.write_all(request.text.as_bytes()),
            None => out.write_all(outcome.plan.payload_text.as_bytes()),
        },
    }
}

/// Writes what `pack` prints when something does not fit (exit 4): the
/// object with `"error"` and a decision for every document; nothing for the
/// payload and request formats.
pub fn write_refusal(
    fixture: &Fixture,
    settings: &Settings,
    options: &Options,
    does_not_fit: &DoesNotFit,
    format: Format,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    match format {
        Format::Json | Format::Summary => {
            let refusal = Refusal::new(fixture, settings, options, does_not_fit);
            serde_json::to_writer_pretty(&mut *out, &refusal)?;
            out.write_all(b"\n")?;
            Ok(())
        }
        Format::Payload | Format::Request => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emoji_sequences_stay_whole_and_invisible_joiners_elsewhere_do_not() {
        assert_eq!(
            terminal_safe("👨\u{200D}👩\u{200D}👧"),
            "👨\u{200D}👩\u{200D}👧"
        );
        assert_eq!(terminal_safe("❤\u{FE0F}"), "❤\u{FE0F}");
        assert_eq!(terminal_safe("a\u{200D}b"), "a\\u{200D}b");
        assert_eq!(terminal_safe("a\u{FE0F}"), "a\\u{FE0F}");
    }
}

/// The JSON object of `--windows` with `--format json` or `summary`
/// (SPEC §3.2).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowsSummary<'a> {
    /// The encoding, policy and envelope.
    #[serde(flatten)]
    pub method: Method,
    /// The budget after overrides.
    pub budget: Budget,
    /// The budget each window had to fit.
    pub available_tokens: u64,
    /// How many windows.
    pub window_count: usize,
    /// Whether no packing has fewer windows (proven).
    pub optimal: bool,
    /// The largest number of windows proven necessary.
    pub lower_bound: usize,
    /// One record per window, in order.
    pub windows: Vec<WindowRecord<'a>>,
    /// Documents that do not fit even alone, in input order.
    pub skipped: Vec<Skipped<'a>>,
    /// One decision per document, in input order, with its window.
    pub decisions: Vec<DecisionRecord<'a>>,
}

/// One window, as output.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowRecord<'a> {
    /// Its 1-based place.
    pub index: usize,
    /// The exact count of its payload.
    pub used_tokens: usize,
    /// Its documents' ids in payload order (required documents first).
    pub selected_ids: Vec<&'a str>,
    /// The exact payload (absent in the summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_text: Option<&'a str>,
}

impl<'a> WindowsSummary<'a> {
    /// The summary of `outcome`, with the payloads when `with_payload`.
    pub fn new(
        fixture: &'a Fixture,
        outcome: &'a WindowsOutcome,
        with_payload: bool,
    ) -> WindowsSummary<'a> {
        let windows = &outcome.windows;
        let id = |index: usize| fixture.documents[index].id.as_str();
        WindowsSummary {
            method: Method {
                encoding: outcome.counter().label(),
                tokenizer_sha256: outcome.tokenizer.map(|t| t.sha256()),
                policy: outcome.policy.name(),
                envelope: outcome.envelope.name(),
                optimal: None,
            },
            budget: outcome.budget,
            available_tokens: windows.available_tokens,
            window_count: windows.count(),
            optimal: windows.optimal,
            lower_bound: windows.lower_bound,
            windows: windows
                .windows
                .iter()
                .map(|window| WindowRecord {
                    index: window.index,
                    used_tokens: window.used_tokens,
                    selected_ids: window.order.iter().map(|&i| id(i)).collect(),
                    payload_text: with_payload.then_some(window.payload_text.as_str()),
                })
                .collect(),
            skipped: windows
                .skipped
                .iter()
                .map(|&index| Skipped {
                    id: id(index),
                    reason: windows.decisions[index].reason.name(),
                })
                .collect(),
            decisions: windows
                .decisions
                .iter()
                .map(|d| DecisionRecord {
                    window: windows.placement[d.index],
                    ..DecisionRecord::new(fixture, d)
                })
                .collect(),
        }
    }
}

/// Writes `outcome` in `format` (`json` or `summary`; `payload` has one
/// payload per window and is written as `summary`: front ends refuse it).
pub fn write_windows(
    fixture: &Fixture,
    outcome: &WindowsOutcome,
    format: Format,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    let summary = WindowsSummary::new(fixture, outcome, format == Format::Json);
    serde_json::to_writer_pretty(&mut *out, &summary)?;
    out.write_all(b"\n")
}
