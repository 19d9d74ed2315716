//! The report of `packer pack --format report`: a table for people, one
//! row per document with what it adds and why, wrapped to the terminal.
//! The JSON and the payload are the library's (`packer::output`); this is
//! the command line's alone, and the only code that measures text in
//! terminal columns.

use std::fmt::Write as _;
use std::io::{self, Write};

use packer::fixture::{Document, Fixture};
use packer::output::terminal_safe;
use packer::pack::{Decision, DoesNotFit, Options, Policy, Reason};
use packer::rank::Relevance;
use packer::{Outcome, Settings, WindowsOutcome};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
        let ids = self.shown_ids();
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

    /// Each document's id as its row shows it: cut to [`Table::id_limit`]
    /// columns, and where two different ids would show alike, those two
    /// whole (rows that look the same would hide which document is which).
    fn shown_ids(&self) -> Vec<String> {
        let safe: Vec<String> = self
            .fixture
            .documents
            .iter()
            .map(|d| terminal_safe(&d.id))
            .collect();
        let mut ids: Vec<String> = safe
            .iter()
            .map(|id| ellipsized(id, self.id_limit()))
            .collect();
        let mut seen: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (index, id) in ids.iter().enumerate() {
            seen.entry(id.as_str()).or_default().push(index);
        }
        let alike: Vec<usize> = seen
            .into_values()
            .filter(|same| same.len() > 1)
            .flatten()
            .filter(|&index| ids[index] != safe[index])
            .collect();
        for index in alike {
            ids[index] = safe[index].clone();
        }
        ids
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

/// Writes the report of a pack in which something does not fit (exit 4):
/// the decisions, then the error.
pub fn write_refusal(
    fixture: &Fixture,
    settings: &Settings,
    options: &Options,
    does_not_fit: &DoesNotFit,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    let shortfall = does_not_fit.shortfall_tokens();
    let DoesNotFit { error, decisions } = does_not_fit;
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

/// Writes the report of `outcome`, wrapped at `width` terminal columns.
pub fn write_windows(
    fixture: &Fixture,
    outcome: &WindowsOutcome,
    width: usize,
    out: &mut (impl Write + ?Sized),
) -> io::Result<()> {
    out.write_all(windows_report(fixture, outcome, width).as_bytes())
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

#[cfg(test)]
mod tests {
    use super::*;

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
