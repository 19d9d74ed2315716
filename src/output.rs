//! Rendering an [`Outcome`]: the JSON object of SPEC §4 (with or without
//! the payload), the exact payload, and the human report.
//!
//! The wire types here are the output format; they are kept apart from the
//! domain types so that the format changes only on purpose.

use std::fmt::Write as _;
use std::io::{self, Write};

use serde::Serialize;

use crate::budget::Budget;
use crate::error::Error;
use crate::fixture::Fixture;
use crate::pack::{Decision, Policy, Reason};
use crate::{Outcome, Settings};

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
}

/// The JSON object of `--format json` and `--format summary`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary<'a> {
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
    /// The budget after overrides.
    pub budget: Budget,
    /// The budget left for the payload.
    pub available_tokens: u64,
    /// The exact count of the payload.
    pub used_tokens: usize,
    /// Selected ids in payload order.
    pub selected_ids: Vec<&'a str>,
    /// Ids selected as focused excerpts (only with `--excerpt-query`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt_ids: Option<Vec<&'a str>>,
    /// Skipped documents in the order they were tried.
    pub skipped: Vec<Skipped<'a>>,
    /// One decision per document, in input order.
    pub decisions: Vec<DecisionRecord<'a>>,
    /// The exact payload (absent in the summary).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_text: Option<&'a str>,
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
        }
    }
}

/// The object printed when packing fails because something does not fit
/// (exit 4): the settings, a decision for every document, and the error.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal<'a> {
    /// The encoding counted with.
    pub encoding: &'static str,
    /// The policy's name.
    pub policy: &'static str,
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
    /// The refusal object for `error`, if it is one of the two exit-4
    /// errors (something does not fit).
    pub fn new(
        fixture: &'a Fixture,
        settings: &Settings,
        policy: Policy,
        error: &Error,
    ) -> Option<Refusal<'a>> {
        let (shortfall, decisions) = error.shortfall()?;
        Some(Refusal {
            encoding: settings.encoding.name(),
            policy: policy.name(),
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
                shortfall_tokens: shortfall,
            },
        })
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
        let (problems, more) = error.problems();
        ErrorList {
            errors: problems
                .iter()
                .map(|problem| {
                    let at = problem.at.or_else(|| problem.error.position());
                    ErrorRecord {
                        code: problem.error.code(),
                        message: problem.message(),
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
        let excerpts: Vec<&str> = plan
            .order
            .iter()
            .filter(|&&i| plan.decisions[i].reason == Reason::ExcerptFits)
            .map(|&i| id(i))
            .collect();
        Summary {
            encoding: outcome.counter().label(),
            tokenizer_sha256: outcome.tokenizer.map(|t| t.sha256()),
            policy: outcome.policy.name(),
            envelope: outcome.envelope.name(),
            optimal: plan.optimal,
            budget: outcome.budget,
            available_tokens: plan.available_tokens,
            used_tokens: plan.used_tokens,
            selected_ids: plan.order.iter().map(|&i| id(i)).collect(),
            excerpt_ids: plan.excerpts.then_some(excerpts),
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
                .map(|d| DecisionRecord::new(fixture, d))
                .collect(),
            payload_text: with_payload.then_some(plan.payload_text.as_str()),
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
        Format::Report => out.write_all(report(fixture, outcome).as_bytes()),
    }
}

/// The human table: one line per document, then totals.
fn report(fixture: &Fixture, outcome: &Outcome) -> String {
    let plan = &outcome.plan;
    let budget = &outcome.budget;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "policy {}, encoding {}, envelope {}: {} of {} tokens used, {} free",
        outcome.policy.name(),
        outcome.counter().label(),
        outcome.envelope.name(),
        plan.used_tokens,
        plan.available_tokens,
        plan.available_tokens - plan.used_tokens as u64,
    );
    let _ = writeln!(
        out,
        "budget: context {} - other input {} - output {} - safety {} = {} available",
        budget.context_tokens,
        budget.reserved_other_input_tokens,
        budget.reserved_output_tokens,
        budget.safety_tokens,
        plan.available_tokens,
    );
    if outcome.policy == Policy::MaxFill {
        let _ = writeln!(
            out,
            "max-fill: {}",
            if plan.optimal == Some(true) {
                "proven optimal (no other choice of documents fills the budget more)"
            } else {
                "not proven optimal: the fullest choice found is shown"
            }
        );
    }
    let _ = writeln!(out);
    rows(fixture, &plan.decisions, &mut out);
    let selected = plan.order.len();
    let total = plan.decisions.len();
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{selected} of {total} documents selected, {} skipped; payload {} tokens of {} available",
        total - selected,
        plan.used_tokens,
        plan.available_tokens,
    );
    out
}

/// The table of decisions: one line per document.
fn rows(fixture: &Fixture, decisions: &[Decision], out: &mut String) {
    let ids: Vec<String> = fixture
        .documents
        .iter()
        .map(|d| terminal_safe(&d.id))
        .collect();
    let id_width = ids
        .iter()
        .map(|id| id.chars().count())
        .max()
        .unwrap_or(0)
        .max(2);
    let token_width = decisions
        .iter()
        .map(|d| d.content_tokens.to_string().len())
        .max()
        .unwrap_or(0)
        .max(6);
    let _ = writeln!(
        out,
        "     {:<id_width$}  {:>token_width$}  reason",
        "id", "tokens"
    );
    for decision in decisions {
        let mark = if decision.selected { "IN " } else { "out" };
        let id = &ids[decision.index];
        let pad = id_width - id.chars().count();
        let reason = match decision.reason {
            Reason::ExcerptFits => "excerpt-fits: a focused excerpt, not the whole document",
            other => other.name(),
        };
        let numbers = if decision.reason == Reason::NotTried {
            String::new()
        } else {
            format!(
                " (needed {}, free {})",
                decision.needed_tokens, decision.free_tokens
            )
        };
        let _ = writeln!(
            out,
            "{mark}  {id}{:pad$}  {:>token_width$}  {reason}{numbers}",
            "", decision.content_tokens,
        );
    }
}

/// Writes what `pack` prints when `error` (exit 4: something does not fit)
/// stops it: the object with `"error"` and a decision for every document, or
/// the report; nothing for the payload format. Does nothing for other errors.
pub fn write_refusal(
    fixture: &Fixture,
    settings: &Settings,
    policy: Policy,
    error: &Error,
    format: Format,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    let Some((shortfall, decisions)) = error.shortfall() else {
        return Ok(());
    };
    match format {
        Format::Json | Format::Summary => {
            if let Some(refusal) = Refusal::new(fixture, settings, policy, error) {
                serde_json::to_writer_pretty(&mut *out, &refusal)?;
                out.write_all(b"\n")?;
            }
            Ok(())
        }
        Format::Payload => Ok(()),
        Format::Report => {
            let budget = &settings.budget;
            let mut text = String::new();
            let _ = writeln!(
                text,
                "policy {}, encoding {}: nothing packed, {} short of {} available",
                policy.name(),
                settings.encoding.name(),
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
            rows(fixture, decisions, &mut text);
            let _ = writeln!(text);
            let _ = writeln!(text, "error[{}]: {error}", error.code());
            out.write_all(text.as_bytes())
        }
    }
}

/// `text` with every character that could repaint or reorder a terminal
/// (controls, bidirectional overrides and isolates, zero-width and other
/// invisible format characters) written as `\u{XXXX}`, and backslashes
/// doubled so that the escaped form is unambiguous.
pub fn terminal_safe(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if is_unsafe_in_terminal(c) {
            let _ = write!(out, "\\u{{{:04X}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

fn is_unsafe_in_terminal(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{061C}'                  // arabic letter mark
            | '\u{115F}' | '\u{1160}'   // hangul fillers
            | '\u{180E}'                // mongolian vowel separator
            | '\u{200B}'..='\u{200F}'   // zero-width space/joiners, LRM, RLM
            | '\u{2028}' | '\u{2029}'   // line and paragraph separators
            | '\u{202A}'..='\u{202E}'   // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}'   // word joiner, invisible operators, isolates
            | '\u{3164}'                // hangul filler
            | '\u{FE00}'..='\u{FE0F}'   // variation selectors
            | '\u{FEFF}'                // zero-width no-break space
            | '\u{FFA0}'                // halfwidth hangul filler
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotations
            | '\u{E0000}'..='\u{E007F}' // tags
            | '\u{E0100}'..='\u{E01EF}' // variation selectors supplement
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_safe_escapes_controls_bidi_and_invisible_characters() {
        assert_eq!(terminal_safe("plain-id_1 日本 🙂"), "plain-id_1 日本 🙂");
        assert_eq!(terminal_safe("a\u{1b}[2Jb"), "a\\u{001B}[2Jb");
        assert_eq!(terminal_safe("evil\u{202E}txt.exe"), "evil\\u{202E}txt.exe");
        assert_eq!(
            terminal_safe("zero\u{200B}width\u{2066}"),
            "zero\\u{200B}width\\u{2066}"
        );
        assert_eq!(terminal_safe("back\\slash\r"), "back\\\\slash\\u{000D}");
        assert_eq!(
            terminal_safe("\u{85}\u{7f}\u{FEFF}"),
            "\\u{0085}\\u{007F}\\u{FEFF}"
        );
    }
}
