//! Selection: which whole documents go into the envelope, in which order,
//! and the decision with its numbers for every document (SPEC §3).
//!
//! Pure: no I/O, no terminal, no command line. Every number compared with
//! the budget is the exact count of a complete envelope, taken from
//! [`crate::envelope::Envelopes`].

use rayon::prelude::*;

use std::collections::HashMap;

use crate::chat::{Framing, Rendered};
use crate::envelope::{
    DEFAULT_NOTE_OMISSIONS_MAX, Entries, Entry, Envelope, Envelopes, ExcerptLabel, Label, Tally,
    Written,
};
use crate::error::Error;
use crate::fixture::Document;
use crate::focus::{Focus, Reader};
use crate::tokens::{Counter, Splitting};

mod in_order;
mod max_fill;
mod outlines;
mod priority;
mod whole;
mod windows;

pub use priority::priority_order;
pub use windows::{MOST_SEARCHED, Window, Windows, label_insert, labelled, plan_windows};

/// Why no plan was made: an input or a setting packer refuses, or a budget
/// too small for what must go in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// Refused before anything was selected.
    #[error(transparent)]
    Refused(#[from] Error),
    /// Something does not fit (exit 4): the error that says what and by
    /// how much, and a decision for every document.
    #[error("{}", .0.error)]
    DoesNotFit(DoesNotFit),
}

impl Failure {
    /// The error, whichever kind of failure this is.
    pub fn error(&self) -> &Error {
        match self {
            Failure::Refused(error) => error,
            Failure::DoesNotFit(does_not_fit) => &does_not_fit.error,
        }
    }

    /// The error, whichever kind of failure this is, without the decisions.
    pub fn into_error(self) -> Error {
        match self {
            Failure::Refused(error) => error,
            Failure::DoesNotFit(does_not_fit) => does_not_fit.error,
        }
    }

    /// What does not fit, with a decision for every document.
    pub fn does_not_fit(&self) -> Option<&DoesNotFit> {
        match self {
            Failure::Refused(_) => None,
            Failure::DoesNotFit(does_not_fit) => Some(does_not_fit),
        }
    }
}

impl From<Failure> for Error {
    fn from(failure: Failure) -> Error {
        failure.into_error()
    }
}

/// An outcome without a payload: what must go in does not fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoesNotFit {
    /// `empty-envelope-does-not-fit` or `required-does-not-fit`, with the
    /// numbers.
    pub error: Error,
    /// A decision per document: the required ones with their numbers, the
    /// others `not-tried`.
    pub decisions: Vec<Decision>,
}

impl DoesNotFit {
    /// How many tokens are missing.
    pub fn shortfall_tokens(&self) -> u64 {
        self.error.shortfall_tokens().unwrap_or(0)
    }
}

/// One selection policy (SPEC §3): which documents that are not required
/// are tried, in which order, or which subset is searched for. Each is one
/// file of this folder; [`POLICIES`] lists them.
pub(crate) trait Select: Sync {
    /// The name used on the command line, over MCP, in Python and in the
    /// output.
    fn name(&self) -> &'static str;
    /// One line for `--help`, the MCP schema and Python's documentation.
    fn description(&self) -> &'static str;
    /// The order it tries `rest` (the documents that are not required), as
    /// windows place them and the report lists them: input order unless it
    /// says otherwise.
    fn try_order(&self, _rest: &[&Document], _content_tokens: &[usize]) -> Option<Vec<usize>> {
        None
    }
    /// Whether it searches for the fullest choice and says whether its
    /// choice is proven so (`optimal`).
    fn searches(&self) -> bool {
        false
    }
    /// Selects among `rest`, the documents that are not required (in input
    /// order), once the `required` ones are in; for a policy that
    /// searches, whether its choice is proven the fullest.
    fn select(
        &self,
        selector: &mut Selector<'_>,
        required: &[usize],
        rest: &[&Document],
    ) -> Option<bool>;
}

/// Every policy, in the order `--help` lists them; the first is the
/// default. A new policy is a file in this folder and a line here.
const POLICIES: &[&dyn Select] = &[&in_order::InOrder, &priority::Priority, &max_fill::MaxFill];

/// The order in which documents are tried: one of [`Policy::ALL`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Policy(u8);

#[allow(non_upper_case_globals)]
impl Policy {
    /// Input order is priority order (the default).
    pub const InOrder: Policy = Policy(0);
    /// `priority` descending, then `contentTokens` ascending, then `id`.
    pub const Priority: Policy = Policy(1);
    /// The subset that fills the budget most.
    pub const MaxFill: Policy = Policy(2);

    /// Every policy.
    pub const ALL: [Policy; POLICIES.len()] = {
        let mut all = [Policy(0); POLICIES.len()];
        let mut i = 0;
        while i < all.len() {
            all[i] = Policy(i as u8);
            i += 1;
        }
        all
    };

    /// The names of [`Policy::ALL`], in the same order.
    pub fn names() -> [&'static str; POLICIES.len()] {
        Policy::ALL.map(Policy::name)
    }

    /// The name used on the command line and in the output.
    pub fn name(self) -> &'static str {
        self.select().name()
    }

    /// One line that says how the policy chooses.
    pub fn description(self) -> &'static str {
        self.select().description()
    }

    /// The order it tries `rest` (the documents that are not required, in
    /// input order), given each document's content tokens by index.
    pub fn try_order(self, rest: &[&Document], content_tokens: &[usize]) -> Vec<usize> {
        self.select()
            .try_order(rest, content_tokens)
            .unwrap_or_else(|| rest.iter().map(|d| d.index).collect())
    }

    /// Whether it tries documents in an order of its own (the report then
    /// lists them in that order, with their priority).
    pub fn has_try_order(self) -> bool {
        self.select().try_order(&[], &[]).is_some()
    }

    /// Whether it searches for the fullest choice and says whether it is
    /// proven (`optimal`).
    pub fn searches(self) -> bool {
        self.select().searches()
    }

    fn select(self) -> &'static dyn Select {
        POLICIES[usize::from(self.0)]
    }
}

impl std::fmt::Debug for Policy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Policy {
    type Err = UnknownPolicy;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Policy::ALL
            .into_iter()
            .find(|policy| policy.name() == name)
            .ok_or(UnknownPolicy)
    }
}

/// The name is not one of [`Policy::ALL`]'s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownPolicy;

impl std::fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("unknown policy")
    }
}

impl std::error::Error for UnknownPolicy {}

/// Why a document is in or out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Selected: it fit when tried.
    Fits,
    /// Selected first because it is required.
    Required,
    /// Skipped: the envelope with it would exceed the budget.
    WholeDocumentDoesNotFit,
    /// Selected as a focused excerpt because the whole document did not fit.
    ExcerptFits,
    /// Selected as an outline because the whole document did not fit (or
    /// not within the share of the budget for whole documents).
    OutlineFits,
    /// Packing failed: this required document does not fit.
    RequiredDoesNotFit,
    /// Packing failed before this document was tried.
    NotTried,
}

impl Reason {
    /// The name used in the output.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Fits => "fits",
            Reason::Required => "required",
            Reason::WholeDocumentDoesNotFit => "whole-document-does-not-fit",
            Reason::ExcerptFits => "excerpt-fits",
            Reason::OutlineFits => "outline-fits",
            Reason::RequiredDoesNotFit => "required-does-not-fit",
            Reason::NotTried => "not-tried",
        }
    }
}

/// The decision for one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The document's index in the input.
    pub index: usize,
    /// Whether it is in the payload.
    pub selected: bool,
    /// Why.
    pub reason: Reason,
    /// Tokens of the raw `content` on its own (for an outline, of the
    /// outline's content).
    pub content_tokens: usize,
    /// How much the candidate envelope grew the count (negative when moving
    /// a document out of the `omitted` list shrinks it).
    pub needed_tokens: i64,
    /// `availableTokens` minus the count before the decision.
    pub free_tokens: u64,
}

/// What to pack and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The selection policy.
    pub policy: Policy,
    /// The payload's layout (`--envelope`).
    pub envelope: Envelope,
    /// List the documents left out inside the payload.
    pub note_omissions: bool,
    /// With `note_omissions`: list at most this many documents, then count
    /// the rest (`--note-omissions-max`, SPEC §3.1).
    pub note_omissions_max: usize,
    /// Try a focused excerpt of a document whose whole text does not fit.
    pub excerpt: Option<ExcerptOptions>,
    /// Put every document into as few windows as possible
    /// ([`plan_windows`], `packer::pack_windows`; SPEC §3.2).
    pub windows: bool,
    /// Send outlines of the source files that do not fit whole (SPEC §2.3).
    pub outline: Option<OutlineOptions>,
    /// What the pack is for (SPEC §3.3): the documents not required are
    /// tried in their relevance to it.
    pub query: Option<QueryOptions>,
    /// Set by another thread to stop the pack early (`cancelled`).
    pub cancel: crate::Cancel,
    /// Where the pack says how far it has got (documents counted, files
    /// outlined); nowhere by default.
    pub progress: crate::Progress,
}

/// A query (`--query`, `--query-file`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryOptions {
    /// The query's text (an issue, a question).
    pub text: String,
}

/// With a query, the share of the budget the most relevant documents fill
/// whole before the next ones go in as outlines (`--outline-share`
/// changes it).
pub const QUERY_OUTLINE_SHARE_PERCENT: u8 = 70;

impl Default for Options {
    fn default() -> Options {
        Options {
            policy: Policy::default(),
            envelope: Envelope::default(),
            note_omissions: false,
            note_omissions_max: DEFAULT_NOTE_OMISSIONS_MAX,
            excerpt: None,
            windows: false,
            outline: None,
            query: None,
            cancel: crate::Cancel::default(),
            progress: crate::Progress::default(),
        }
    }
}

/// How outlines are chosen (`--outline` and `--outline-share`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutlineOptions {
    /// The share of the budget, in percent, that whole documents may fill
    /// before the rest are sent as outlines (see `pack/outlines.rs`).
    pub share_percent: u8,
    /// Outlines are tried in the policy's order (the relevance order, with
    /// a query) rather than the smallest first.
    pub in_order: bool,
}

/// The share of the budget whole documents fill first with `--outline`.
pub const DEFAULT_OUTLINE_SHARE_PERCENT: u8 = 40;

impl Default for OutlineOptions {
    fn default() -> OutlineOptions {
        OutlineOptions {
            share_percent: DEFAULT_OUTLINE_SHARE_PERCENT,
            in_order: false,
        }
    }
}

/// How focused excerpts are made (`--excerpt-query` and its companions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptOptions {
    /// The query; its terms select the lines kept.
    pub query: String,
    /// Lines kept on each side of a matching line.
    pub context: usize,
    /// The cap on an excerpt, in characters.
    pub max_chars: usize,
}

/// The result of packing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The budget the payload had to fit.
    pub available_tokens: u64,
    /// The exact count of `payload_text`.
    pub used_tokens: usize,
    /// Indices of the selected documents, in payload order.
    pub order: Vec<usize>,
    /// Indices of the skipped documents, in the order they were tried.
    pub skipped: Vec<usize>,
    /// Whether focused excerpts were allowed (`--excerpt-query`).
    pub excerpts: bool,
    /// Whether outlines were allowed (`--outline`).
    pub outlines: bool,
    /// Documents that needed an outline and could not get one, with why
    /// (a syntax error and its position, say), in input order.
    pub unoutlined: Vec<(usize, String)>,
    /// One decision per document, in input order.
    pub decisions: Vec<Decision>,
    /// For `max-fill`: whether the selection is proven to be the fullest.
    pub optimal: Option<bool>,
    /// The exact payload.
    pub payload_text: String,
    /// With a chat request (SPEC §2.4): the whole request holding the
    /// payload, rendered, and its exact count (`requestTokens`).
    pub request: Option<Rendered>,
    /// With a chat request: the exact count of the request holding the
    /// empty envelope (`otherInputTokens`).
    pub other_input_tokens: Option<usize>,
    /// With a query (SPEC §3.3): each document's relevance, by index.
    pub relevance: Option<Vec<crate::rank::Relevance>>,
}

impl Plan {
    /// The selected documents decided with `reason` (the excerpts, say),
    /// in payload order.
    pub fn selected_as(&self, reason: Reason) -> impl Iterator<Item = usize> + '_ {
        self.order
            .iter()
            .copied()
            .filter(move |&index| self.decisions[index].reason == reason)
    }
}

/// Selects documents under `available` tokens.
pub fn plan(
    documents: &[Document],
    counter: Counter,
    available: u64,
    options: &Options,
) -> Result<Plan, Failure> {
    // Every layout is counted entry by entry, which is exact only for a
    // tiktoken-family pre-tokenizer (see crate::envelope); with another one
    // (a tokenizer file with several split stages, say) every candidate
    // payload is counted whole instead (see whole.rs).
    // So is one where an added token of the tokenizer file could run
    // across the edge of an entry or of a fixed text (`plan_counting` finds
    // out once the entries are written, and counts whole then).
    let whole = counter.splitting() != Splitting::Tiktoken;
    plan_counting(documents, counter, available, options, whole, None)
}

/// [`plan`] where every candidate is the whole request of `frame` holding
/// the payload (SPEC §2.4): each is rendered and counted whole, and the
/// plan says the request's count and text.
pub fn plan_framed(
    documents: &[Document],
    frame: &Framing,
    available: u64,
    options: &Options,
) -> Result<Plan, Failure> {
    frame.check_payload_written()?;
    let planned = plan_counting(
        documents,
        frame.counter(),
        available,
        options,
        true,
        Some(frame),
    );
    if let Some(error) = frame.failure() {
        return Err(error.into());
    }
    // What does not fit is the whole request, not the envelope alone.
    let planned = planned.map_err(|failure| match failure {
        Failure::DoesNotFit(DoesNotFit { error, decisions }) => {
            let error = match error {
                Error::EmptyEnvelopeDoesNotFit {
                    needed, available, ..
                } => Error::RequestDoesNotFit {
                    required: None,
                    needed,
                    available,
                },
                Error::RequiredDoesNotFit {
                    indices,
                    needed,
                    available,
                } => Error::RequestDoesNotFit {
                    required: Some(indices),
                    needed,
                    available,
                },
                error => error,
            };
            Failure::DoesNotFit(DoesNotFit { error, decisions })
        }
        refused => refused,
    });
    let mut plan = planned?;
    // Everything but the payload: the request holding the empty envelope.
    let empty = Envelopes::new(
        Entries::new(options.envelope, frame.counter(), None),
        Vec::new(),
        None,
    )
    .render(&[]);
    plan.other_input_tokens = Some(frame.render(&empty)?.tokens);
    Ok(plan)
}

/// [`plan`], counting every candidate payload whole when `whole`.
fn plan_counting(
    documents: &[Document],
    counter: Counter,
    available: u64,
    options: &Options,
    whole: bool,
    frame: Option<&Framing>,
) -> Result<Plan, Failure> {
    if let Some(excerpt) = &options.excerpt
        && crate::focus::terms(&excerpt.query).is_empty()
    {
        return Err(Error::EmptyQuery.into());
    }
    // With a query, the documents in their relevance to it; a document
    // that does not fit whole may go in as an excerpt around the terms
    // that weigh most (unless an excerpt query was given).
    let ranking = options
        .query
        .as_ref()
        .map(|query| crate::rank::rank(documents, &query.text));
    let focused;
    let options = match &ranking {
        Some(ranking) if options.excerpt.is_none() && !ranking.focus.is_empty() => {
            focused = Options {
                excerpt: Some(ExcerptOptions {
                    query: ranking.focus.join(" "),
                    context: crate::focus::DEFAULT_CONTEXT,
                    max_chars: crate::focus::DEFAULT_MAX_CHARS,
                }),
                ..options.clone()
            };
            &focused
        }
        _ => options,
    };
    // One parallel pass: each document's content alone, its envelope entry
    // and, with omissions noted, its omitted entry.
    let notes = options.note_omissions;
    let maker = Entries::new(
        options.envelope,
        counter,
        notes.then_some(options.note_omissions_max),
    );
    options
        .progress
        .begin(crate::progress::Stage::Counting, documents.len());
    let counted: Vec<(usize, Entry, Option<Entry>)> = documents
        .par_iter()
        .map(|document| {
            let (entry, content) = maker.document_and_count(document);
            let omitted = notes.then(|| maker.omitted(document));
            options.progress.advance(1);
            (content, entry, omitted)
        })
        .collect();
    let mut content_tokens = Vec::with_capacity(counted.len());
    let mut entries = Vec::with_capacity(counted.len());
    let mut omitted = Vec::with_capacity(if notes { counted.len() } else { 0 });
    for (content, entry, omitted_entry) in counted {
        content_tokens.push(content);
        entries.push(entry);
        omitted.extend(omitted_entry);
    }
    let layout = Envelopes::new(maker, entries, notes.then_some(omitted));
    if !whole && !layout.added_tokens_stay_inside() {
        return plan_counting(documents, counter, available, options, true, frame);
    }
    options.cancel.check()?;
    let mut selector = Selector::new(&layout, available, content_tokens, whole, frame)?;
    selector.cancel = options.cancel.clone();
    selector.excerpts = options.excerpt.as_ref().map(|excerpt| Excerpts {
        options: excerpt,
        documents,
    });
    selector.outlines = options
        .outline
        .map(|outline| outlines::Outlining::new(outline, documents, options.progress.clone()));
    let required: Vec<usize> = documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    selector.take_required(&required)?;
    let rest: Vec<&Document> = documents.iter().filter(|d| !d.required).collect();
    let optimal = match &ranking {
        // Relevance order; under `priority`, priority first, relevance
        // within one.
        Some(ranking) => {
            let mut order: Vec<&Document> = ranking
                .order
                .iter()
                .map(|&index| &documents[index])
                .filter(|d| !d.required)
                .collect();
            if options.policy.has_try_order() {
                order.sort_by_key(|d| std::cmp::Reverse(d.priority));
            }
            selector.try_in_order(order.into_iter().map(|d| d.index));
            None
        }
        None => options
            .policy
            .select()
            .select(&mut selector, &required, &rest),
    };
    // A cancelled selection has skipped every trial since.
    options.cancel.check()?;
    if selector.derived_crossed {
        // An excerpt's or outline's entry had an edge an added token could
        // cross.
        return plan_counting(documents, counter, available, options, true, frame);
    }
    let mut plan = selector.finish(optimal)?;
    plan.relevance = ranking.map(|ranking| ranking.relevance);
    Ok(plan)
}

/// A document's focused excerpts (SPEC: all its windows of matching lines
/// first, then one fewer at a time), each as its labelled entry and its
/// text, made one at a time as they are asked for.
pub(crate) fn excerpt_entries<'a>(
    maker: &'a Entries,
    document: &'a Document,
    options: &'a ExcerptOptions,
) -> impl Iterator<Item = (Entry, String)> + 'a {
    excerpts_written(maker, document, options)
        .map(move |(written, text)| (maker.entry(written), text))
}

/// [`excerpt_entries`] before each entry is counted.
fn excerpts_written<'a>(
    maker: &'a Entries,
    document: &'a Document,
    options: &'a ExcerptOptions,
) -> impl Iterator<Item = (Written, String)> + 'a {
    let focus = Focus::new(&document.content, Some(&options.query), options.context);
    (1..=focus.windows())
        .rev()
        .map(move |windows| {
            (
                focus.excerpt_for(Reader::Model, windows, options.max_chars),
                focus.chars(),
            )
        })
        .take_while(|(excerpt, _)| excerpt.shows_lines)
        .map(move |(excerpt, of_chars)| {
            let label = Label::Excerpt(ExcerptLabel {
                query: options.query.clone(),
                lines: excerpt.lines,
                of_chars,
            });
            (
                maker.written(document, &excerpt.text, Some(&label)),
                excerpt.text,
            )
        })
}

/// The decisions of a failed run: each one made so far, sent nowhere
/// (nothing is selected when packing fails), and `not-tried` for the rest.
fn not_tried(content_tokens: &[usize], decided: &[Option<Decision>]) -> Vec<Decision> {
    decided
        .iter()
        .enumerate()
        .map(|(index, decision)| match decision {
            Some(decision) => Decision {
                selected: false,
                ..*decision
            },
            None => Decision {
                index,
                selected: false,
                reason: Reason::NotTried,
                content_tokens: content_tokens[index],
                needed_tokens: 0,
                free_tokens: 0,
            },
        })
        .collect()
}

/// Focused excerpts: how to make them.
struct Excerpts<'a> {
    options: &'a ExcerptOptions,
    documents: &'a [Document],
}

/// The state of one selection run.
pub(crate) struct Selector<'a> {
    layout: &'a Envelopes,
    /// Count every candidate payload whole instead of by the tally's
    /// per-entry arithmetic.
    whole: bool,
    /// Counting whole, of the whole request holding the payload.
    frame: Option<&'a Framing>,
    /// When counting whole: the exact count of the payload as it stands.
    counted: usize,
    excerpts: Option<Excerpts<'a>>,
    /// Counting per entry, an excerpt's or outline's entry was made that an
    /// added token of the tokenizer file could cross the edge of: the run
    /// is redone counting whole (see [`Envelopes::added_tokens_stay_inside`]).
    derived_crossed: bool,
    outlines: Option<outlines::Outlining<'a>>,
    /// The entries that stand for documents sent as excerpts or outlines.
    derived: HashMap<usize, Entry>,
    available: u64,
    content_tokens: Vec<usize>,
    tally: Tally<'a>,
    order: Vec<usize>,
    skipped: Vec<usize>,
    decisions: Vec<Option<Decision>>,
    /// Once set, every trial counted whole is taken as not fitting, so
    /// the selection ends quickly (and the pack is `cancelled`).
    cancel: crate::Cancel,
}

impl<'a> Selector<'a> {
    fn new(
        layout: &'a Envelopes,
        available: u64,
        content_tokens: Vec<usize>,
        whole: bool,
        frame: Option<&'a Framing>,
    ) -> Result<Self, Failure> {
        let tally = Tally::new(layout);
        let empty = if whole {
            whole::count(layout, frame, &[], |_| None)
        } else {
            tally.total()
        };
        if empty as u64 > available {
            let without_notes = layout.notes_omissions().then(|| {
                let entries = layout.entries();
                let bare = Envelopes::new(
                    Entries::new(entries.envelope(), entries.counter(), None),
                    Vec::new(),
                    None,
                );
                if whole {
                    whole::count(&bare, frame, &[], |_| None)
                } else {
                    Tally::new(&bare).total()
                }
            });
            return Err(Failure::DoesNotFit(DoesNotFit {
                error: Error::EmptyEnvelopeDoesNotFit {
                    needed: empty,
                    available,
                    without_notes,
                },
                decisions: not_tried(&content_tokens, &vec![None; layout.len()]),
            }));
        }
        Ok(Selector {
            layout,
            whole,
            frame,
            counted: empty,
            excerpts: None,
            derived_crossed: false,
            outlines: None,
            derived: HashMap::new(),
            available,
            content_tokens,
            tally,
            order: Vec::new(),
            skipped: Vec::new(),
            decisions: vec![None; layout.len()],
            cancel: crate::Cancel::default(),
        })
    }

    /// Takes every required document in input order, or names those that
    /// do not fit.
    fn take_required(&mut self, required: &[usize]) -> Result<(), Failure> {
        let missing: Vec<usize> = required
            .iter()
            .copied()
            .filter(|&index| !self.try_add_as(index, Reason::Required))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        // The shortfall: the envelope with every required document in.
        let needed = if self.whole {
            whole::count(self.layout, self.frame, required, |_| None)
        } else {
            self.layout.total(required)
        };
        Err(Failure::DoesNotFit(DoesNotFit {
            error: Error::RequiredDoesNotFit {
                indices: missing,
                needed,
                available: self.available,
            },
            decisions: not_tried(&self.content_tokens, &self.decisions),
        }))
    }

    /// Tries each of `order` in turn, keeping each that fits, then the
    /// excerpts of those that did not (when excerpts are allowed).
    fn try_in_order(&mut self, order: impl IntoIterator<Item = usize>) {
        if self.outlines.is_some() {
            let order: Vec<usize> = order.into_iter().collect();
            self.outline_in_order(&order);
        } else {
            for index in order {
                self.try_add(index);
            }
        }
        self.add_excerpts();
    }

    /// Adds `index` at the end if the envelope still fits; records the decision.
    fn try_add(&mut self, index: usize) -> bool {
        self.try_add_as(index, Reason::Fits)
    }

    fn try_add_as(&mut self, index: usize, reason: Reason) -> bool {
        let before = self.total();
        let after = self.total_with(index, None, true);
        let fits = after as u64 <= self.available;
        if fits {
            self.tally.push(index);
            self.order.push(index);
            self.counted = after;
            self.decide(index, reason, before, after);
        } else {
            self.skipped.push(index);
            let skip = if reason == Reason::Required {
                Reason::RequiredDoesNotFit
            } else {
                Reason::WholeDocumentDoesNotFit
            };
            self.decide(index, skip, before, after);
        }
        fits || self.decisions[index].is_some_and(|d| d.selected)
    }

    /// Records a decision with the counts before and after it.
    fn decide(&mut self, index: usize, reason: Reason, before: usize, after: usize) {
        self.decisions[index] = Some(Decision {
            index,
            selected: matches!(
                reason,
                Reason::Fits | Reason::Required | Reason::ExcerptFits | Reason::OutlineFits
            ),
            reason,
            content_tokens: self.content_tokens[index],
            needed_tokens: after as i64 - before as i64,
            free_tokens: self.available - before as u64,
        });
    }

    /// With `--excerpt-query`, after the whole documents: tries each
    /// skipped document, in the order it was tried, as a focused excerpt in
    /// the room that remains (at the end of the payload). The whole-document
    /// selection is the same as without the flag.
    fn add_excerpts(&mut self) {
        if self.excerpts.is_none() {
            return;
        }
        let skipped = std::mem::take(&mut self.skipped);
        for index in skipped {
            if !self.try_excerpt(index, true) {
                self.skipped.push(index);
            }
        }
    }

    /// With `--excerpt-query`: tries document `index` as a focused excerpt,
    /// all its windows first, then dropping the last window one at a time,
    /// and adds the first that fits (at the end of the payload when
    /// `at_end`, else at its input-order place). Returns whether one did.
    fn try_excerpt(&mut self, index: usize, at_end: bool) -> bool {
        let Some(excerpts) = &self.excerpts else {
            return false;
        };
        let document = &excerpts.documents[index];
        let maker = self.layout.entries();
        // When not even the opening every entry of the document begins
        // with fits, no excerpt is made (no entry could cross an edge
        // either, so none needs to be seen).
        if maker.counter().settles()
            && self.surely_over(index, at_end, |room| maker.opening_passes(document, room))
        {
            return false;
        }
        let before = self.total();
        for (mut written, _) in excerpts_written(&maker, document, excerpts.options) {
            if self.crosses_text(written.text()) {
                return false;
            }
            if self.surely_over(index, at_end, |room| maker.passes(&mut written, room)) {
                continue;
            }
            let entry = maker.entry(written);
            let after = self.total_with(index, Some(&entry), at_end);
            if after as u64 <= self.available {
                self.tally.push_counts(index, entry.counts(), at_end);
                let at = self.place(index, at_end);
                self.order.insert(at, index);
                self.counted = after;
                self.decide(index, Reason::ExcerptFits, before, after);
                self.derived.insert(index, entry);
                return true;
            }
        }
        false
    }

    /// Whether `entry` (an excerpt's or an outline's, made during the
    /// selection) has an edge an added token could cross while counting per
    /// entry: then it is not tried, and the run is redone counting whole.
    fn crosses(&mut self, entry: &Entry) -> bool {
        self.crosses_text(entry.text())
    }

    /// Whether an entry of document `index` (at the end of the payload
    /// when `at_end`) whose first pieces `passes` the room left over the
    /// least any entry adds ([`Entries::floor`]) surely does not fit,
    /// found without counting it whole: counting per entry, the payload's
    /// count never falls as an entry's counts grow. `false` when that does
    /// not show it (count it then).
    fn surely_over(&self, index: usize, at_end: bool, passes: impl FnOnce(usize) -> bool) -> bool {
        if self.whole {
            return false;
        }
        let maker = self.layout.entries();
        let total = |tokens| {
            self.tally
                .total_with_counts(index, maker.floor(tokens), at_end)
        };
        let Some(room) = (self.available as usize).checked_sub(total(0)) else {
            return true;
        };
        passes(room) && total(room + 1) as u64 > self.available
    }

    /// [`Selector::crosses`] for an entry's text.
    fn crosses_text(&mut self, text: &str) -> bool {
        if !self.whole && self.layout.counter().added_token_may_cross(text) {
            self.derived_crossed = true;
            return true;
        }
        false
    }

    /// The plan, once the payload's per-entry count is confirmed by one full
    /// count of the payload (a difference is a bug, reported as an internal
    /// error rather than a wrong number).
    fn finish(self, optimal: Option<bool>) -> Result<Plan, Failure> {
        let (payload_text, parts) = self
            .layout
            .render_parts(&self.order, |i| self.derived.get(&i));
        let counted = self.layout.recount(&payload_text, &parts);
        drop(parts);
        let request = match self.frame {
            Some(frame) => {
                let rendered = frame.render(&payload_text)?;
                if rendered.tokens != self.counted {
                    return Err(Error::CountMismatch {
                        counted: rendered.tokens,
                        computed: self.counted,
                    }
                    .into());
                }
                Some(rendered)
            }
            None => None,
        };
        let used_tokens = if self.whole {
            counted
        } else {
            self.tally.total()
        };
        if counted != used_tokens {
            return Err(Error::CountMismatch {
                counted,
                computed: used_tokens,
            }
            .into());
        }
        Ok(Plan {
            available_tokens: self.available,
            used_tokens,
            order: self.order,
            skipped: self.skipped,
            excerpts: self.excerpts.is_some(),
            outlines: self.outlines.is_some(),
            unoutlined: self
                .outlines
                .map(|outlines| outlines.unoutlined)
                .unwrap_or_default(),
            decisions: self
                .decisions
                .into_iter()
                .map(|d| d.expect("every document is decided"))
                .collect(),
            optimal,
            payload_text,
            request,
            other_input_tokens: None,
            relevance: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::Format;
    use crate::tokens::Encoding;

    fn document(index: usize, content: &str) -> Document {
        Document {
            index,
            id: format!("d{index}"),
            source: crate::fixture::Source::Url(format!("https://example.com/{index}")),
            format: Format::Text,
            content: content.into(),
            priority: 0,
            required: false,
        }
    }

    fn run(documents: &[Document], available: u64, options: Options) -> Result<Plan, Failure> {
        plan(
            documents,
            Counter::new(Encoding::Cl100kBase),
            available,
            &options,
        )
    }

    fn with_policy(policy: Policy) -> Options {
        Options {
            policy,
            ..Options::default()
        }
    }

    #[test]
    fn a_cancelled_pack_ends_with_cancelled_under_every_policy() {
        let documents: Vec<Document> = (0..20).map(|i| document(i, "some words")).collect();
        for policy in Policy::ALL {
            let cancel = crate::Cancel::new();
            cancel.cancel();
            let options = Options {
                cancel,
                ..with_policy(policy)
            };
            let failure = run(&documents, 10_000, options).unwrap_err();
            assert_eq!(failure.error().code(), "cancelled", "{policy:?}");
            assert!(run(&documents, 10_000, with_policy(policy)).is_ok());
        }
    }

    /// The count of the envelope holding just `documents[i]`, for sizing budgets.
    fn alone(documents: &[Document], i: usize) -> u64 {
        let only = Document {
            index: 0,
            ..documents[i].clone()
        };
        run(&[only], 1_000_000, Options::default())
            .unwrap()
            .used_tokens as u64
    }

    #[test]
    fn skips_a_document_that_does_not_fit_and_keeps_going() {
        let documents = [
            document(0, "short"),
            document(1, &"long text ".repeat(50)),
            document(2, "short too"),
        ];
        let both = [
            documents[0].clone(),
            Document {
                index: 1,
                ..documents[2].clone()
            },
        ];
        let budget = run(&both, 1_000_000, Options::default())
            .unwrap()
            .used_tokens as u64;
        let plan = run(&documents, budget, Options::default()).unwrap();
        assert_eq!(plan.order, vec![0, 2]);
        assert_eq!(plan.skipped, vec![1]);
        let skip = plan.decisions[1];
        assert_eq!(skip.reason, Reason::WholeDocumentDoesNotFit);
        assert!(skip.needed_tokens > skip.free_tokens as i64);
    }

    #[test]
    fn priority_tries_high_priority_then_small_then_by_id() {
        let mut documents = vec![
            document(0, "low priority"),
            document(1, "high priority but rather longer than the other one"),
            document(2, "high priority"),
            document(3, "tie"),
            document(4, "tie"),
        ];
        documents[0].priority = -1;
        documents[1].priority = 5;
        documents[2].priority = 5;
        documents[3].id = "b".into();
        documents[4].id = "a".into();
        let plan = run(&documents, 10_000, with_policy(Policy::Priority)).unwrap();
        assert_eq!(plan.order, vec![2, 1, 4, 3, 0]);
    }

    #[test]
    fn required_documents_come_first_in_input_order() {
        let mut documents = vec![document(0, "a"), document(1, "b"), document(2, "c")];
        documents[1].required = true;
        documents[2].required = true;
        for policy in Policy::ALL {
            let plan = run(&documents, 10_000, with_policy(policy)).unwrap();
            assert_eq!(plan.order, vec![1, 2, 0], "{policy:?}");
            assert_eq!(plan.decisions[1].reason, Reason::Required);
        }
    }

    #[test]
    fn a_required_document_that_cannot_fit_is_an_error_naming_it() {
        let mut documents = vec![document(0, "a"), document(1, &"x y ".repeat(400))];
        documents[0].required = true;
        documents[1].required = true;
        for policy in Policy::ALL {
            let failure = run(&documents, 100, with_policy(policy)).unwrap_err();
            let Failure::DoesNotFit(DoesNotFit {
                error:
                    Error::RequiredDoesNotFit {
                        indices,
                        needed,
                        available,
                    },
                decisions,
            }) = failure
            else {
                panic!("{failure:?}");
            };
            assert_eq!((indices, available), (vec![1], 100));
            // The shortfall is measured on the envelope with both in.
            let both = run(&documents, 1_000_000, with_policy(policy)).unwrap();
            assert_eq!(needed, both.used_tokens);
            let reasons: Vec<Reason> = decisions.iter().map(|d| d.reason).collect();
            assert_eq!(reasons, [Reason::Required, Reason::RequiredDoesNotFit]);
            assert!(decisions.iter().all(|d| !d.selected));
            assert!(decisions[1].needed_tokens > decisions[1].free_tokens as i64);
        }
        // Documents after the required ones are never tried.
        documents.push(document(2, "c"));
        let failure = run(&documents, 100, Options::default()).unwrap_err();
        let does_not_fit = failure.does_not_fit().unwrap();
        assert!(does_not_fit.shortfall_tokens() > 0);
        assert_eq!(does_not_fit.decisions[2].reason, Reason::NotTried);
    }

    #[test]
    fn an_envelope_that_cannot_even_be_empty_is_an_error() {
        let documents = [document(0, "a")];
        let error = run(&documents, 3, Options::default()).unwrap_err();
        assert_eq!(
            error,
            Failure::DoesNotFit(DoesNotFit {
                error: Error::EmptyEnvelopeDoesNotFit {
                    needed: 4,
                    available: 3,
                    without_notes: None,
                },
                decisions: vec![Decision {
                    index: 0,
                    selected: false,
                    reason: Reason::NotTried,
                    content_tokens: 1,
                    needed_tokens: 0,
                    free_tokens: 0,
                }],
            })
        );
        let plan = run(&documents, 4, Options::default()).unwrap();
        assert_eq!(plan.payload_text, r#"{"documents":[]}"#);
        // With omission notes, the error says what the bare envelope needs.
        let notes = Options {
            note_omissions: true,
            ..Options::default()
        };
        let error = run(&documents, 5, notes).unwrap_err();
        assert!(matches!(
            error.error(),
            Error::EmptyEnvelopeDoesNotFit {
                without_notes: Some(4),
                ..
            }
        ));
    }

    #[test]
    fn max_fill_finds_a_fuller_choice_than_in_order_and_proves_it() {
        let documents = [
            document(0, "a first document of middling length"),
            document(1, &"a big document that fills the budget best ".repeat(3)),
            document(2, "tiny"),
        ];
        let budget = alone(&documents, 1) + 1;
        let in_order = run(&documents, budget, Options::default()).unwrap();
        let max_fill = run(&documents, budget, with_policy(Policy::MaxFill)).unwrap();
        assert!(max_fill.used_tokens > in_order.used_tokens);
        assert_eq!(max_fill.order, vec![1]);
        assert_eq!(max_fill.optimal, Some(true));
        assert_eq!(in_order.optimal, None);
    }

    #[test]
    fn a_document_too_long_whole_goes_in_as_a_labelled_excerpt() {
        let mut lines: Vec<String> = (1..=200).map(|i| format!("filler line {i}")).collect();
        lines[99] = "the needle is here".into();
        let documents = [document(0, "intro"), document(1, &lines.join("\n"))];
        let options = Options {
            excerpt: Some(ExcerptOptions {
                query: "needle".into(),
                context: 2,
                max_chars: 12_000,
            }),
            ..Options::default()
        };
        let plan = run(&documents, 200, options).unwrap();
        assert_eq!(plan.order, vec![0, 1]);
        assert_eq!(plan.decisions[1].reason, Reason::ExcerptFits);
        assert!(plan.payload_text.contains(
            r#""content":"[...]\nfiller line 98\nfiller line 99\nthe needle is here\nfiller line 101\nfiller line 102\n[...]","excerpt":{"query":"needle","lines":"98-102","ofChars":"#
        ));
        // Without the flag the same document is skipped whole.
        let plan = run(&documents, 200, Options::default()).unwrap();
        assert_eq!(plan.order, vec![0]);
    }

    fn excerpting(query: &str) -> Option<ExcerptOptions> {
        Some(ExcerptOptions {
            query: query.into(),
            context: 1,
            max_chars: 12_000,
        })
    }

    /// The documents selected whole.
    fn whole(plan: &Plan) -> Vec<usize> {
        let mut whole: Vec<usize> = plan
            .decisions
            .iter()
            .filter(|d| matches!(d.reason, Reason::Fits | Reason::Required))
            .map(|d| d.index)
            .collect();
        whole.sort_unstable();
        whole
    }

    #[test]
    fn an_excerpt_never_pushes_out_a_whole_document_that_fits_without_it() {
        // The long page comes first; taking its excerpt first would leave no
        // room for the short page that fits whole without the flag.
        let page: Vec<String> = (1..=60)
            .map(|i| format!("line {i} of the manual, about the needle and the haystack"))
            .collect();
        let documents = [
            document(0, &page.join("\n")),
            document(1, &"a shorter page that fits whole ".repeat(8)),
        ];
        let budget = alone(&documents, 1) + 2;
        for policy in Policy::ALL {
            let without = run(&documents, budget, with_policy(policy)).unwrap();
            let options = Options {
                policy,
                excerpt: excerpting("needle"),
                ..Options::default()
            };
            let with = run(&documents, budget, options).unwrap();
            assert_eq!(whole(&with), whole(&without), "{policy:?}");
            assert_eq!(whole(&with), vec![1], "{policy:?}");
            assert!(with.used_tokens as u64 <= budget);
        }
    }

    #[test]
    fn an_excerpt_cut_by_the_budget_says_so_without_naming_a_flag() {
        let mut lines: Vec<String> = (1..=300).map(|i| format!("filler line {i}")).collect();
        for at in [20, 150, 280] {
            lines[at] = "the needle is here".into();
        }
        let documents = [document(0, &lines.join("\n"))];
        let options = Options {
            excerpt: excerpting("needle"),
            ..Options::default()
        };
        let plan = run(&documents, 110, options).unwrap();
        assert_eq!(plan.decisions[0].reason, Reason::ExcerptFits);
        assert!(
            plan.payload_text
                .contains("[excerpt cut to fit the token budget: showing "),
            "{}",
            plan.payload_text
        );
        assert!(!plan.payload_text.contains("--"), "{}", plan.payload_text);
    }

    #[test]
    fn an_empty_query_is_refused() {
        let documents = [document(0, "text")];
        for query in ["", " , ", "a b c"] {
            let options = Options {
                excerpt: excerpting(query),
                ..Options::default()
            };
            assert_eq!(run(&documents, 100, options), Err(Error::EmptyQuery.into()));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(32))]

        /// Counting every candidate whole gives what the per-entry
        /// arithmetic gives, wherever that arithmetic holds: the same plan
        /// under in-order and priority, and under max-fill a plan never
        /// below in-order, never above the arithmetic's proven optimum, and
        /// exact with justified skips.
        #[test]
        fn counting_whole_agrees_with_the_per_entry_arithmetic(
            texts in proptest::collection::vec("[a-z0-9 ,.{}\"\n日本🙂-]{1,40}", 1..7),
            budget in 10u64..160,
            envelope in 0usize..3,
            notes in proptest::bool::ANY,
            excerpt in proptest::bool::ANY,
            first_required in proptest::bool::ANY,
        ) {
            let mut documents: Vec<Document> = texts
                .iter()
                .enumerate()
                .map(|(i, text)| document(i, &format!("x{text}")))
                .collect();
            documents[0].required = first_required;
            documents.last_mut().unwrap().priority = 3;
            let counter = Counter::new(Encoding::Cl100kBase);
            for policy in Policy::ALL {
                let options = Options {
                    policy,
                    envelope: Envelope::ALL[envelope],
                    note_omissions: notes,
                    note_omissions_max: 2,
                    excerpt: excerpt.then(|| ExcerptOptions {
                        query: "x".into(),
                        context: 0,
                        max_chars: 30,
                    }),
                    windows: false,
                    outline: None,
                    query: None,
                    cancel: crate::Cancel::default(),
                    progress: crate::Progress::default(),
                };
                let by_entry = plan_counting(&documents, counter, budget, &options, false, None);
                let whole = plan_counting(&documents, counter, budget, &options, true, None);
                let (by_entry, whole) = match (by_entry, whole) {
                    (Ok(a), Ok(b)) => (a, b),
                    (a, b) => {
                        proptest::prop_assert_eq!(a.err(), b.err());
                        continue;
                    }
                };
                proptest::prop_assert_eq!(whole.used_tokens, counter.count(&whole.payload_text));
                proptest::prop_assert!(whole.used_tokens as u64 <= budget);
                for decision in whole.decisions.iter().filter(|d| !d.selected) {
                    proptest::prop_assert!(decision.needed_tokens > decision.free_tokens as i64);
                }
                if policy == Policy::MaxFill && !excerpt {
                    let in_order = Options { policy: Policy::InOrder, ..options.clone() };
                    let floor = plan_counting(&documents, counter, budget, &in_order, true, None).unwrap();
                    proptest::prop_assert!(whole.used_tokens >= floor.used_tokens);
                    if by_entry.optimal == Some(true) {
                        proptest::prop_assert!(whole.used_tokens <= by_entry.used_tokens);
                    }
                    if !notes {
                        // Few documents: every subset is counted whole.
                        proptest::prop_assert_eq!(whole.optimal, Some(true));
                    }
                    if whole.optimal == Some(true) && by_entry.optimal == Some(true) {
                        proptest::prop_assert_eq!(whole.used_tokens, by_entry.used_tokens);
                        if !notes {
                            proptest::prop_assert_eq!(&whole.order, &by_entry.order);
                        }
                    }
                } else {
                    proptest::prop_assert_eq!(whole, by_entry);
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(48))]

        /// `--excerpt-query` only adds: whatever the policy, the documents
        /// selected whole are the same with and without it.
        #[test]
        fn excerpts_never_change_the_whole_document_selection(
            sizes in proptest::collection::vec((1usize..40, proptest::bool::ANY), 1..7),
            budget in 20u64..400,
            policy in 0usize..3,
        ) {
            let documents: Vec<Document> = sizes
                .iter()
                .enumerate()
                .map(|(i, &(lines, hit))| {
                    let text: Vec<String> = (0..lines)
                        .map(|l| {
                            if hit && l == lines / 2 {
                                "a needle".to_owned()
                            } else {
                                format!("words {l} here")
                            }
                        })
                        .collect();
                    document(i, &text.join("\n"))
                })
                .collect();
            let policy = Policy::ALL[policy];
            let without = run(&documents, budget, with_policy(policy)).unwrap();
            let options = Options { policy, excerpt: excerpting("needle"), ..Options::default() };
            let with = run(&documents, budget, options).unwrap();
            proptest::prop_assert_eq!(whole(&with), whole(&without));
            proptest::prop_assert!(with.used_tokens >= without.used_tokens);
            proptest::prop_assert!(with.used_tokens as u64 <= budget);
        }
    }

    /// A Rust file of `functions` documented functions with bodies of
    /// `body` lines each.
    fn rust_file(index: usize, functions: usize, body: usize) -> Document {
        let mut text = String::from("//! A module.\n\nuse std::fmt;\n\n");
        for f in 0..functions {
            text.push_str(&format!(
                "/// Does thing {f}.\n///\n/// At length.\npub fn thing_{f}(x: u32) -> u32 {{\n"
            ));
            for line in 0..body {
                text.push_str(&format!("    let y{line} = x + {line};\n"));
            }
            text.push_str(
                "    x\n}\n\nfn helper_{f}() {}\n\n"
                    .replace("{f}", &f.to_string())
                    .as_str(),
            );
        }
        Document {
            id: format!("src/m{index}.rs"),
            ..document(index, &text)
        }
    }

    fn outlining(policy: Policy) -> Options {
        Options {
            policy,
            outline: Some(OutlineOptions::default()),
            ..Options::default()
        }
    }

    #[test]
    fn a_file_too_long_whole_goes_in_as_a_labelled_outline() {
        let documents = [rust_file(0, 2, 2), rust_file(1, 6, 30)];
        let budget = alone(&documents, 0) * 2 + 40;
        assert!(alone(&documents, 1) > budget);
        let plan = run(&documents, budget, outlining(Policy::InOrder)).unwrap();
        assert_eq!(plan.order, vec![0, 1]);
        assert_eq!(plan.decisions[0].reason, Reason::Fits);
        let outlined = plan.decisions[1];
        assert_eq!(outlined.reason, Reason::OutlineFits);
        let source = &documents[1].content;
        let made = packer_outline::outlines(packer_outline::Language::Rust, source).unwrap();
        let (_, sent) = made
            .iter()
            .find(|(_, outline)| {
                let entry = serde_json::to_string(&outline.content).unwrap();
                plan.payload_text.contains(&format!(
                    r#""content":{entry},"outline":{{"lines":"{}","ofLines":{}}}}}"#,
                    outline.lines_label(),
                    outline.of_lines
                ))
            })
            .expect("the payload holds one of the file's outlines, labelled");
        assert_eq!(
            outlined.content_tokens,
            Counter::new(Encoding::Cl100kBase).count(&sent.content)
        );
        assert!(outlined.needed_tokens <= outlined.free_tokens as i64);
        assert!(plan.outlines);
        // Without the flag the file is only skipped.
        let without = run(&documents, budget, Options::default()).unwrap();
        assert_eq!(without.order, vec![0]);
    }

    #[test]
    fn outlines_change_nothing_when_every_document_fits_whole() {
        let documents: Vec<Document> = (0..4).map(|i| rust_file(i, i + 1, 3)).collect();
        for policy in Policy::ALL {
            let with = run(&documents, 100_000, outlining(policy)).unwrap();
            let without = run(&documents, 100_000, with_policy(policy)).unwrap();
            assert_eq!(with.payload_text, without.payload_text, "{policy:?}");
            assert_eq!(with.decisions, without.decisions, "{policy:?}");
        }
    }

    #[test]
    fn source_is_outlined_before_a_smaller_test_file() {
        // The test file first in input order, its outline the smaller.
        let test = Document {
            id: "tests/m0.rs".to_owned(),
            ..rust_file(0, 1, 30)
        };
        let source = rust_file(1, 3, 30);
        // The least budget the source's outline alone fits.
        let only = [rust_file(0, 3, 30)];
        let alone_outlined = |budget: u64| {
            run(&only, budget, outlining(Policy::InOrder)).is_ok_and(|plan| plan.order == [0])
        };
        let (mut low, mut high) = (1, alone(&only, 0));
        while low < high {
            let middle = (low + high) / 2;
            if alone_outlined(middle) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        let documents = [test, source];
        let plan = run(&documents, low, outlining(Policy::InOrder)).unwrap();
        assert_eq!(plan.order, vec![1]);
        assert_eq!(plan.decisions[1].reason, Reason::OutlineFits);
        // The test file's outline alone fits the same budget.
        let test_only = run(&documents[..1], low, outlining(Policy::InOrder)).unwrap();
        assert_eq!(test_only.decisions[0].reason, Reason::OutlineFits);
    }

    #[test]
    fn a_file_that_does_not_parse_gets_no_outline_and_is_listed() {
        let mut broken = rust_file(1, 6, 30);
        broken.content.push_str("fn broken( {\n");
        let documents = [rust_file(0, 1, 1), broken];
        let plan = run(&documents, 200, outlining(Policy::InOrder)).unwrap();
        assert_eq!(plan.decisions[1].reason, Reason::WholeDocumentDoesNotFit);
        assert_eq!(plan.unoutlined.len(), 1);
        assert_eq!(plan.unoutlined[0].0, 1);
        assert!(plan.unoutlined[0].1.contains("syntax error at line"));
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(24))]

        /// With `--outline` every guarantee holds: the payload's count is
        /// exact and within the budget, each document left out needed more
        /// than was free, and the per-entry arithmetic agrees with counting
        /// every candidate whole.
        #[test]
        fn outlines_keep_every_guarantee(
            files in proptest::collection::vec((1usize..6, 0usize..12), 1..6),
            budget in 40u64..1500,
            envelope in 0usize..3,
            notes in proptest::bool::ANY,
            share in 0u8..=100,
            policy in 0usize..3,
        ) {
            let documents: Vec<Document> = files
                .iter()
                .enumerate()
                .map(|(i, &(functions, body))| rust_file(i, functions, body))
                .collect();
            let counter = Counter::new(Encoding::Cl100kBase);
            let policy = Policy::ALL[policy];
            let options = Options {
                policy,
                envelope: Envelope::ALL[envelope],
                note_omissions: notes,
                note_omissions_max: 2,
                outline: Some(OutlineOptions {
                    share_percent: share,
                    in_order: false,
                }),
                ..Options::default()
            };
            let by_entry = plan_counting(&documents, counter, budget, &options, false, None);
            let whole = plan_counting(&documents, counter, budget, &options, true, None);
            let (by_entry, whole) = match (by_entry, whole) {
                (Ok(a), Ok(b)) => (a, b),
                (a, b) => {
                    proptest::prop_assert_eq!(a.err(), b.err());
                    return Ok(());
                }
            };
            for plan in [&by_entry, &whole] {
                proptest::prop_assert_eq!(plan.used_tokens, counter.count(&plan.payload_text));
                proptest::prop_assert!(plan.used_tokens as u64 <= budget);
                for decision in plan.decisions.iter().filter(|d| !d.selected) {
                    proptest::prop_assert!(decision.needed_tokens > decision.free_tokens as i64);
                }
            }
            if !notes {
                // The selected documents' numbers add up to the payload.
                let empty = plan_counting(&[], counter, budget, &options, false, None).unwrap();
                let added: i64 = by_entry
                    .decisions
                    .iter()
                    .filter(|d| d.selected)
                    .map(|d| d.needed_tokens)
                    .sum();
                proptest::prop_assert_eq!(by_entry.used_tokens as i64 - added, empty.used_tokens as i64);
            }
            if policy != Policy::MaxFill {
                proptest::prop_assert_eq!(whole, by_entry);
            }
        }
    }
}
