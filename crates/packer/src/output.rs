//! Rendering an [`Outcome`]: the JSON object of SPEC §4 (with or without
//! the payload), the exact payload, and the human report.
//!
//! The wire types here are the output format; they are kept apart from the
//! domain types so that the format changes only on purpose.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::budget::Budget;
use crate::error::{CommandLine, Error, Names};
use crate::fixture::{Document, Fixture};
use crate::pack::{Decision, DoesNotFit, Options, Policy, Reason};
use crate::rank::Relevance;
pub use crate::terminal::terminal_safe;
use crate::{Outcome, Settings, WindowsOutcome};

/// The output formats of `packer pack`.
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
    /// A table for people.
    Report,
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
        Format::Report => write_report(fixture, outcome, NO_WRAP, out),
    }
}

/// The width the report wraps at on a terminal without `COLUMNS`.
pub const REPORT_WIDTH: usize = 80;

/// No wrapping (for files and pipes).
pub const NO_WRAP: usize = usize::MAX;

/// The longest id the report shows whole, in terminal columns; longer ids
/// are cut with a `…`, before a path's last component where it fits (the
/// JSON output always has them whole).
pub const REPORT_ID_WIDTH: usize = 32;

/// Writes the report of `outcome`, wrapped at `width` terminal columns.
pub fn write_report(
    fixture: &Fixture,
    outcome: &Outcome,
    width: usize,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    out.write_all(report(fixture, outcome, width).as_bytes())
}

/// The human table: one line per document (in the order tried), the
/// envelope's own tokens, then totals. The tokens column is what each
/// selected row adds to the payload, so it adds up to `usedTokens`.
fn report(fixture: &Fixture, outcome: &Outcome, width: usize) -> String {
    let plan = &outcome.plan;
    let budget = &outcome.budget;
    let mut out = String::new();
    let mut line = |text: String| out.push_str(&wrap(&text, width, 2));
    // With a chat request, what fills the budget is the whole request.
    let total = plan.request.as_ref().map_or(plan.used_tokens, |r| r.tokens);
    line(format!(
        "policy {}, encoding {}, envelope {}: {} of {} tokens used{}, {} free",
        outcome.policy.name(),
        outcome.counter().label(),
        outcome.envelope.name(),
        total,
        plan.available_tokens,
        if plan.request.is_some() {
            " by the request"
        } else {
            ""
        },
        plan.available_tokens - total as u64,
    ));
    line(format!(
        "budget: context {} - other input {} - output {} - safety {} = {} available",
        budget.context_tokens,
        budget.reserved_other_input_tokens,
        budget.reserved_output_tokens,
        budget.safety_tokens,
        plan.available_tokens,
    ));
    if let (Some(request), Some(other)) = (&plan.request, plan.other_input_tokens) {
        line(format!(
            "request: {} of {} tokens (the payload {}, everything else {} with an empty payload)",
            request.tokens, plan.available_tokens, plan.used_tokens, other,
        ));
    }
    if outcome.policy.searches() {
        line(format!(
            "max-fill: {}",
            if plan.optimal == Some(true) {
                "proven optimal (no other choice of documents fills the budget more)"
            } else {
                "not proven optimal: the fullest choice found is shown"
            }
        ));
    }
    let selected_sum: i64 = plan
        .decisions
        .iter()
        .filter(|d| d.selected)
        .map(|d| d.needed_tokens)
        .sum();
    // With a chat request the decisions' numbers are the whole request's,
    // and the first row is the request around the documents.
    let envelope = total as i64 - selected_sum;
    out.push('\n');
    let order = match &plan.relevance {
        // With a query, the rows in relevance order, required first.
        Some(relevance) => {
            let mut order: Vec<usize> = (0..plan.decisions.len()).collect();
            order.sort_by_key(|&i| (!fixture.documents[i].required, relevance[i].rank));
            order
        }
        None => try_order(fixture, outcome.policy, &plan.decisions),
    };
    let table = Table {
        fixture,
        decisions: &plan.decisions,
        priority: outcome.policy.has_try_order(),
        width,
        envelope_row: if plan.request.is_some() {
            REQUEST_ROW
        } else {
            ENVELOPE_ROW
        },
        relevance: plan.relevance.as_deref(),
    };
    table.write(&order, Some((envelope, total)), &mut out);
    let selected = plan.order.len();
    let documents = plan.decisions.len();
    out.push('\n');
    out.push_str(&wrap(
        &format!(
            "{selected} of {documents} documents selected, {} skipped; payload {} tokens{} of {} available",
            documents - selected,
            plan.used_tokens,
            plan.request
                .as_ref()
                .map(|r| format!(", request {}", r.tokens))
                .unwrap_or_default(),
            plan.available_tokens,
        ),
        width,
        2,
    ));
    if plan.outlines {
        let outlined = plan
            .decisions
            .iter()
            .filter(|d| d.reason == Reason::OutlineFits)
            .count();
        out.push_str(&wrap(
            &format!(
                "{} whole, {outlined} as outlines; {} could not be outlined",
                selected - outlined,
                plan.unoutlined.len()
            ),
            width,
            2,
        ));
        for (index, why) in plan.unoutlined.iter().take(20) {
            let id = terminal_safe(&fixture.documents[*index].id);
            out.push_str(&wrap(&format!("  no outline: {id}: {why}"), width, 4));
        }
        if plan.unoutlined.len() > 20 {
            out.push_str(&wrap(
                &format!("  and {} more", plan.unoutlined.len() - 20),
                width,
                4,
            ));
        }
    }
    out
}

/// The rows in the order the documents were tried: input order, or under
/// `priority` the required documents then the policy's order.
fn try_order(fixture: &Fixture, policy: Policy, decisions: &[Decision]) -> Vec<usize> {
    if !policy.has_try_order() {
        return (0..decisions.len()).collect();
    }
    let content: Vec<usize> = decisions.iter().map(|d| d.content_tokens).collect();
    let required = fixture.documents.iter().filter(|d| d.required);
    let rest: Vec<&Document> = fixture.documents.iter().filter(|d| !d.required).collect();
    required
        .map(|d| d.index)
        .chain(policy.try_order(&rest, &content))
        .collect()
}

/// The table of decisions.
struct Table<'a> {
    fixture: &'a Fixture,
    decisions: &'a [Decision],
    priority: bool,
    width: usize,
    /// What the `(envelope)` row counts.
    envelope_row: &'static str,
    /// With a query: each document's relevance, said after its reason.
    relevance: Option<&'a [Relevance]>,
}

/// The `(envelope)` row of a single payload.
const ENVELOPE_ROW: &str = "the empty envelope and its omission note, if any";

/// The first row's words with a chat request: the row is the request
/// around the documents, and the total is `requestTokens`.
const REQUEST_ROW: &str = "the request around the documents (messages, template, envelope)";

impl Table<'_> {
    /// One line per document in `order`; with `totals`, the envelope's own
    /// tokens and the payload total under the tokens column.
    fn write(&self, order: &[usize], totals: Option<(i64, usize)>, out: &mut String) {
        let ids: Vec<String> = self
            .fixture
            .documents
            .iter()
            .map(|d| ellipsized(&terminal_safe(&d.id), self.id_limit()))
            .collect();
        let id_width = ids.iter().map(|id| id.width()).max().unwrap_or(0).max(10);
        let token_width = self
            .decisions
            .iter()
            .map(|d| d.needed_tokens.to_string().len())
            .chain(
                totals
                    .map(|(envelope, used)| envelope.to_string().len().max(used.to_string().len())),
            )
            .max()
            .unwrap_or(0)
            .max(6);
        let content_width = self
            .decisions
            .iter()
            .map(|d| d.content_tokens.to_string().len())
            .max()
            .unwrap_or(0)
            .max(7);
        let columns = |mark: &str, id: &str, priority: &str, tokens: &str, content: &str| {
            let priority = if self.priority {
                format!("{priority:>8}  ")
            } else {
                String::new()
            };
            format!(
                "{mark:<3}  {}{priority}{tokens:>token_width$}  {content:>content_width$}  ",
                pad(id, id_width + 2)
            )
        };
        let head = columns("", "id", "priority", "tokens", "content");
        let indent = head.width();
        out.push_str(&head);
        out.push_str("reason\n");
        for &index in order {
            let decision = &self.decisions[index];
            let tokens = if decision.selected {
                decision.needed_tokens.to_string()
            } else {
                "-".into()
            };
            let prefix = columns(
                if decision.selected { "IN" } else { "out" },
                &ids[index],
                &self.fixture.documents[index].priority.to_string(),
                &tokens,
                &decision.content_tokens.to_string(),
            );
            let mut text = reason(decision);
            if let Some(relevance) = self.relevance.map(|all| &all[index]) {
                text.push_str(&evidence(self.fixture, relevance));
            }
            out.push_str(&self.row(&prefix, &text, indent));
        }
        if let Some((envelope, used)) = totals {
            let first = if self.envelope_row == REQUEST_ROW {
                "(request)"
            } else {
                "(envelope)"
            };
            let prefix = columns("", first, "", &envelope.to_string(), "");
            out.push_str(&self.row(&prefix, self.envelope_row, indent));
            let rule = columns("", "", "", &"-".repeat(token_width), "");
            out.push_str(rule.trim_end());
            out.push('\n');
            let prefix = columns("", "", "", &used.to_string(), "");
            let total = if self.envelope_row == REQUEST_ROW {
                "requestTokens"
            } else {
                "usedTokens"
            };
            out.push_str(&self.row(&prefix, total, indent));
        }
    }

    /// The widest id shown whole: [`REPORT_ID_WIDTH`], less on a narrow
    /// terminal.
    fn id_limit(&self) -> usize {
        REPORT_ID_WIDTH.min((self.width / 4).max(10))
    }

    /// `prefix` then `text`, the text wrapped under its own column; on a
    /// terminal too narrow for that, the text goes on lines of its own,
    /// indented under the id.
    fn row(&self, prefix: &str, text: &str, indent: usize) -> String {
        let room = self.width.saturating_sub(indent);
        if room < 30 {
            let mut out = format!("{}\n", prefix.trim_end());
            for line in wrap_words(text, self.width.saturating_sub(5).max(20)) {
                out.push_str(&format!("     {line}\n"));
            }
            return out;
        }
        let lines = wrap_words(text, room);
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                out.push_str(prefix);
            } else {
                out.push_str(&" ".repeat(indent));
            }
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// The reason column: the reason and the numbers.
fn reason(decision: &Decision) -> String {
    match decision.reason {
        Reason::NotTried => "not-tried".into(),
        Reason::ExcerptFits => format!(
            "excerpt-fits: an excerpt, not the whole document (needed {}, free {})",
            decision.needed_tokens, decision.free_tokens
        ),
        Reason::OutlineFits => format!(
            "outline-fits: an outline of {} tokens, not the whole document (needed {}, free {})",
            decision.content_tokens, decision.needed_tokens, decision.free_tokens
        ),
        other => format!(
            "{} (needed {}, free {})",
            other.name(),
            decision.needed_tokens,
            decision.free_tokens
        ),
    }
}

/// A document's relevance to the query, after its reason: its rank, the
/// terms that matched most, the symbols, the file that uses it.
fn evidence(fixture: &Fixture, relevance: &Relevance) -> String {
    let mut said = vec![format!("rank {}", relevance.rank)];
    if !relevance.terms.is_empty() {
        said.push(format!("terms {}", relevance.terms.join(" ")));
    }
    if !relevance.symbols.is_empty() {
        said.push(format!("names {}", relevance.symbols.join(" ")));
    }
    if let Some(user) = relevance.used_by {
        said.push(format!("used by {}", fixture.documents[user].id));
    }
    format!("; {}", terminal_safe(&said.join(", ")))
}

/// `text` padded with spaces to `width` terminal columns.
fn pad(text: &str, width: usize) -> String {
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// `text` cut to at most `width` terminal columns with a `…` where it is
/// cut: before its last `/` when that keeps the last path component and at
/// least a few columns of the start (so that the files of one deep folder
/// stay apart), otherwise at the end.
fn ellipsized(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let (head, tail) = match text.rfind('/') {
        Some(slash) if text[slash..].width() + 1 + 4 <= width => (&text[..slash], &text[slash..]),
        _ => (text, ""),
    };
    let room = width - tail.width() - 1;
    let mut out = String::new();
    let mut used = 0;
    for c in head.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out.push_str(tail);
    out
}

/// Words of `text` in lines of at most `width` terminal columns (a longer
/// word gets a line of its own).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("never empty");
        if last.is_empty() {
            last.push_str(word);
        } else if last.width() + 1 + word.width() <= width {
            last.push(' ');
            last.push_str(word);
        } else {
            lines.push(word.to_owned());
        }
    }
    lines
}

/// `text` as lines of at most `width` columns, continuation lines indented
/// by `indent` spaces; always ends with a newline.
fn wrap(text: &str, width: usize, indent: usize) -> String {
    let mut out = String::new();
    let first = wrap_words(text, width);
    let mut rest = String::new();
    if let [head, tail @ ..] = first.as_slice() {
        out.push_str(head);
        out.push('\n');
        rest = tail.join(" ");
    }
    if !rest.is_empty() {
        for line in wrap_words(&rest, width.saturating_sub(indent).max(1)) {
            out.push_str(&" ".repeat(indent));
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Writes what `pack` prints when something does not fit (exit 4): the
/// object with `"error"` and a decision for every document, or the report;
/// nothing for the payload format.
pub fn write_refusal(
    fixture: &Fixture,
    settings: &Settings,
    options: &Options,
    does_not_fit: &DoesNotFit,
    format: Format,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    let shortfall = does_not_fit.shortfall_tokens();
    let DoesNotFit { error, decisions } = does_not_fit;
    match format {
        Format::Json | Format::Summary => {
            let refusal = Refusal::new(fixture, settings, options, does_not_fit);
            serde_json::to_writer_pretty(&mut *out, &refusal)?;
            out.write_all(b"\n")?;
            Ok(())
        }
        Format::Payload | Format::Request => Ok(()),
        Format::Report => {
            let budget = &settings.budget;
            let mut text = String::new();
            let _ = writeln!(
                text,
                "policy {}, encoding {}, envelope {}: nothing packed, {} short of {} available",
                options.policy.name(),
                settings.counter().label(),
                options.envelope.name(),
                shortfall,
                settings.available_tokens,
            );
            let _ = writeln!(
                text,
                "budget: context {} - other input {} - output {} - safety {} = {} available",
                budget.context_tokens,
                budget.reserved_other_input_tokens,
                budget.reserved_output_tokens,
                budget.safety_tokens,
                settings.available_tokens,
            );
            let _ = writeln!(text);
            let table = Table {
                fixture,
                decisions,
                priority: options.policy.has_try_order(),
                width: NO_WRAP,
                envelope_row: ENVELOPE_ROW,
                relevance: None,
            };
            table.write(&(0..decisions.len()).collect::<Vec<_>>(), None, &mut text);
            let _ = writeln!(text);
            let _ = writeln!(text, "error[{}]: {error}", error.code());
            out.write_all(text.as_bytes())
        }
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

    #[test]
    fn long_ids_end_in_an_ellipsis_within_their_display_width() {
        use unicode_width::UnicodeWidthStr;
        assert_eq!(ellipsized("short", 10), "short");
        assert_eq!(ellipsized("abcdefghijkl", 10), "abcdefghi…");
        // A path keeps its file name, so the files of one folder differ.
        assert_eq!(
            ellipsized("moshi/src/main/java/com/squareup/moshi/JsonAdapter.kt", 32),
            "moshi/src/main/j…/JsonAdapter.kt"
        );
        assert_eq!(ellipsized("a/b/c/d", 5), "a/b/…");
        // A file name too long to keep is cut at the end.
        assert_eq!(
            ellipsized("src/a-very-long-file-name.rs", 12),
            "src/a-very-…"
        );
        let cut = ellipsized("日本語のドキュメント", 10);
        assert_eq!(cut, "日本語の…");
        assert!(cut.width() <= 10);
    }

    #[test]
    fn wrapping_keeps_words_whole_and_indents_what_follows() {
        assert_eq!(
            wrap("one two three four", 9, 2),
            "one two\n  three\n  four\n"
        );
        assert_eq!(wrap_words("a b", 80), vec!["a b"]);
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

/// Writes `outcome` in `format` (`json`, `summary` or `report`; `payload`
/// has one payload per window and is written as `summary`: front ends
/// refuse it).
pub fn write_windows(
    fixture: &Fixture,
    outcome: &WindowsOutcome,
    format: Format,
    width: usize,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    match format {
        Format::Report => out.write_all(windows_report(fixture, outcome, width).as_bytes()),
        _ => {
            let summary = WindowsSummary::new(fixture, outcome, format == Format::Json);
            serde_json::to_writer_pretty(&mut *out, &summary)?;
            out.write_all(b"\n")
        }
    }
}

/// The human report of windows: the totals, then one block per window
/// (its documents, what each adds, the window's count), then the skipped
/// documents.
fn windows_report(fixture: &Fixture, outcome: &WindowsOutcome, width: usize) -> String {
    let windows = &outcome.windows;
    let budget = &outcome.budget;
    let count = windows.count();
    let mut out = String::new();
    let line = |out: &mut String, text: String| out.push_str(&wrap(&text, width, 2));
    line(
        &mut out,
        format!(
            "{count} {} of at most {} tokens ({}), encoding {}, envelope {}, policy {}",
            if count == 1 { "window" } else { "windows" },
            windows.available_tokens,
            if windows.optimal {
                "proven the fewest".to_owned()
            } else {
                format!("not proven the fewest; at least {}", windows.lower_bound)
            },
            outcome.counter().label(),
            outcome.envelope.name(),
            outcome.policy.name(),
        ),
    );
    line(
        &mut out,
        format!(
            "budget: context {} - other input {} - output {} - safety {} = {} available",
            budget.context_tokens,
            budget.reserved_other_input_tokens,
            budget.reserved_output_tokens,
            budget.safety_tokens,
            windows.available_tokens,
        ),
    );
    let table = Table {
        fixture,
        decisions: &windows.decisions,
        priority: false,
        width,
        envelope_row: "the empty envelope, the window's label, required documents",
        relevance: None,
    };
    let required: Vec<usize> = fixture
        .documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    if !required.is_empty() {
        out.push('\n');
        line(&mut out, "required, in every window:".into());
        table.write(&required, None, &mut out);
    }
    for window in &windows.windows {
        out.push('\n');
        let own = &window.order[required.len()..];
        line(
            &mut out,
            format!(
                "window {} of {count}: {} document{}{}, {} of {} tokens used, {} free",
                window.index,
                own.len(),
                if own.len() == 1 { "" } else { "s" },
                if required.is_empty() {
                    String::new()
                } else {
                    format!(" and the {} required", required.len())
                },
                window.used_tokens,
                windows.available_tokens,
                windows.available_tokens - window.used_tokens as u64,
            ),
        );
        let added: i64 = own
            .iter()
            .map(|&i| windows.decisions[i].needed_tokens)
            .sum();
        table.write(
            own,
            Some((window.used_tokens as i64 - added, window.used_tokens)),
            &mut out,
        );
    }
    if !windows.skipped.is_empty() {
        out.push('\n');
        line(&mut out, "skipped (too big for any window):".into());
        table.write(&windows.skipped, None, &mut out);
    }
    out.push('\n');
    let placed = windows.placement.iter().flatten().count();
    line(
        &mut out,
        format!(
            "{placed} documents in {count} {}, {} required in each, {} skipped",
            if count == 1 { "window" } else { "windows" },
            required.len(),
            windows.skipped.len(),
        ),
    );
    out
}
