//! The compact summary a pack returns beside its payload: ids, reasons and
//! numbers, never content, and never more than [`LISTED`] entries in a list
//! that grows with the input, so that it stays small next to the payload.

use serde::Serialize;

use packer::output::Method;
use packer::{Fixture, Outcome, WindowsOutcome};
use packer_collect::{Collection, SkipReason};

/// The most skipped documents (and unusable files) listed by name; the rest
/// are counted.
pub const LISTED: usize = 50;

/// The summary of one pack (the tools' structured content).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackSummary<'a> {
    /// The encoding, policy and envelope, as the command line names them.
    #[serde(flatten)]
    pub method: Method,
    /// The budget.
    pub available_tokens: u64,
    /// The exact count of the payload.
    pub used_tokens: usize,
    /// With a chat request: the exact count of the whole rendered request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_tokens: Option<usize>,
    /// With a chat request: the exact count of the request rendered with
    /// the empty envelope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_input_tokens: Option<usize>,
    /// Selected ids, in payload order.
    pub selected_ids: Vec<&'a str>,
    /// Ids selected as focused excerpts (only with `excerptQuery`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt_ids: Option<Vec<&'a str>>,
    /// Ids selected as outlines (only with `outline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline_ids: Option<Vec<&'a str>>,
    /// The first skipped documents, in the order tried.
    pub skipped: Vec<Skipped<'a>>,
    /// How many more were skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_more: Option<usize>,
    /// `pack_directory` only: the files that did not become documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Files<'a>>,
    /// With `windows`: the window returned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<usize>,
    /// With `windows`: how many windows there are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_count: Option<usize>,
    /// With `windows`: every window, briefly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<Vec<WindowBrief>>,
}

/// One window of a pack into windows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WindowBrief {
    /// Its 1-based place.
    pub index: usize,
    /// The exact count of its payload.
    pub used_tokens: usize,
    /// How many documents it holds (required ones included).
    pub documents: usize,
}

/// One skipped document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped<'a> {
    /// Its id.
    pub id: &'a str,
    /// Why.
    pub reason: &'static str,
    /// What the envelope would have grown by.
    pub needed_tokens: i64,
    /// What was free when it was tried.
    pub free_tokens: u64,
}

/// What a directory walk made of the files.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Files<'a> {
    /// Files that became documents.
    pub documents: usize,
    /// The first files that did not, with why.
    pub not_documents: Vec<NotDocument<'a>>,
    /// How many more did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_documents_more: Option<usize>,
    /// The first low-value documents the value order put last, with the
    /// rule that placed each.
    pub placed_last: Vec<PlacedLast<'a>>,
    /// How many more were placed last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placed_last_more: Option<usize>,
}

/// A low-value document placed after the others.
#[derive(Debug, Serialize)]
pub struct PlacedLast<'a> {
    /// Its path relative to the packed directory.
    pub path: &'a str,
    /// The rule: `licence`, `changelog`, `lock file`, `*.orig`,
    /// `minified`, `generated` or `vendored`.
    pub rule: &'static str,
}

/// A file that did not become a document.
#[derive(Debug, Serialize)]
pub struct NotDocument<'a> {
    /// Its path relative to the packed directory.
    pub path: &'a str,
    /// Why: collect's stable code (`binary`, `contains-secret`, ...).
    pub reason: &'static str,
    /// For `contains-secret`: the id of the rule that matched (never the
    /// secret).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'static str>,
}

impl<'a> PackSummary<'a> {
    /// The summary of `outcome` over `fixture`.
    pub fn new(fixture: &'a Fixture, outcome: &'a Outcome) -> PackSummary<'a> {
        let plan = &outcome.plan;
        let id = |index: usize| fixture.documents[index].id.as_str();
        PackSummary {
            method: Method::of(outcome),
            available_tokens: plan.available_tokens,
            used_tokens: plan.used_tokens,
            request_tokens: plan.request.as_ref().map(|request| request.tokens),
            other_input_tokens: plan.other_input_tokens,
            selected_ids: plan.order.iter().map(|&i| id(i)).collect(),
            excerpt_ids: plan.excerpts.then(|| {
                plan.selected_as(packer::Reason::ExcerptFits)
                    .map(id)
                    .collect()
            }),
            outline_ids: plan.outlines.then(|| {
                plan.selected_as(packer::Reason::OutlineFits)
                    .map(id)
                    .collect()
            }),
            skipped: plan
                .skipped
                .iter()
                .take(LISTED)
                .map(|&i| {
                    let decision = &plan.decisions[i];
                    Skipped {
                        id: id(i),
                        reason: decision.reason.name(),
                        needed_tokens: decision.needed_tokens,
                        free_tokens: decision.free_tokens,
                    }
                })
                .collect(),
            skipped_more: more(plan.skipped.len()),
            files: None,
            window: None,
            window_count: None,
            windows: None,
        }
    }

    /// The summary of window `window` (1-based, at most the window count)
    /// of `outcome`: its count and ids, the documents skipped from every
    /// window, and every window briefly.
    pub fn of_window(
        fixture: &'a Fixture,
        outcome: &'a WindowsOutcome,
        window: usize,
    ) -> PackSummary<'a> {
        let windows = &outcome.windows;
        let id = |index: usize| fixture.documents[index].id.as_str();
        let shown = &windows.windows[window - 1];
        PackSummary {
            method: Method {
                encoding: outcome.counter().label(),
                tokenizer_sha256: outcome.tokenizer.map(|t| t.sha256()),
                policy: outcome.policy.name(),
                envelope: outcome.envelope.name(),
                optimal: Some(windows.optimal),
            },
            available_tokens: windows.available_tokens,
            used_tokens: shown.used_tokens,
            request_tokens: None,
            other_input_tokens: None,
            selected_ids: shown.order.iter().map(|&i| id(i)).collect(),
            excerpt_ids: None,
            outline_ids: None,
            skipped: windows
                .skipped
                .iter()
                .take(LISTED)
                .map(|&i| {
                    let decision = &windows.decisions[i];
                    Skipped {
                        id: id(i),
                        reason: decision.reason.name(),
                        needed_tokens: decision.needed_tokens,
                        free_tokens: decision.free_tokens,
                    }
                })
                .collect(),
            skipped_more: more(windows.skipped.len()),
            files: None,
            window: Some(window),
            window_count: Some(windows.count()),
            windows: Some(
                windows
                    .windows
                    .iter()
                    .map(|w| WindowBrief {
                        index: w.index,
                        used_tokens: w.used_tokens,
                        documents: w.order.len(),
                    })
                    .collect(),
            ),
        }
    }

    /// Adds what the walk of a directory left out.
    pub fn with_files(mut self, collection: &'a Collection) -> PackSummary<'a> {
        let last = collection.placed_last();
        self.files = Some(Files {
            documents: collection.documents.len(),
            not_documents: collection
                .skipped
                .iter()
                .take(LISTED)
                .map(|(path, reason)| NotDocument {
                    path,
                    reason: reason.code(),
                    rule: match reason {
                        SkipReason::ContainsSecret(rule) => Some(rule),
                        _ => None,
                    },
                })
                .collect(),
            not_documents_more: more(collection.skipped.len()),
            placed_last: last
                .iter()
                .take(LISTED)
                .map(|&(path, rule)| PlacedLast { path, rule })
                .collect(),
            placed_last_more: more(last.len()),
        });
        self
    }
}

fn more(total: usize) -> Option<usize> {
    (total > LISTED).then(|| total - LISTED)
}
