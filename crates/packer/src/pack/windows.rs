//! `--windows` (SPEC §3.2): every document in exactly one of as few windows
//! as possible, each window a complete envelope whose exact count is at
//! most `availableTokens`, required documents in every window.
//!
//! # What a window costs
//!
//! A window is the envelope of §2/§2.1 holding the required documents
//! (input order) and then its own documents (payload order: input order,
//! or the `priority` policy's order), with its place named in it (see
//! [`label_insert`]). With a tiktoken-family split ([`Splitting::Tiktoken`](crate::tokens::Splitting::Tiktoken))
//! its count is the per-entry arithmetic of [`crate::envelope`]:
//!
//! ```text
//! open + Σ next(d) − next(last) + lastTokens(last) + positionTokens(n) + label(i, K)
//! ```
//!
//! over its `n` documents, where `last` is the last document in payload
//! order. So a document's cost in any window is its `next` count, and
//! which document ends the window moves the count by `lastTokens − next`
//! of that one document. The label is a prefix whose pieces are its own in
//! every layout (see [`label_insert`]), so it adds `label(i, K)` tokens
//! whatever the window holds; that number depends on the digits of `i`
//! and `K`. Every window's payload is recounted in full before it is
//! returned, and a difference from the arithmetic is an internal error,
//! never a wrong number.
//!
//! With any other split ([`Splitting::Whole`](crate::tokens::Splitting::Whole)) the arithmetic is only an
//! estimate: it orders the documents and skips windows that are plainly
//! full, and every window a document goes into is counted whole, label
//! included (see [`whole_windows`](whole::whole_windows)).
//!
//! # How windows are packed
//!
//! `K` is known only after packing, and the labels' digits depend on it.
//! Packing reserves room in every window for the widest label
//! `window i of K` (`i ≤ K`) of the `K` it expects, starting from `K = 1`,
//! and packs again with the `K` it found until that reserve no longer
//! changes (with the built-in encodings it changes only when `K` gains a
//! digit in a way that adds a token). Documents that do not fit even
//! alone in an empty window (required documents and label included) are
//! skipped with `whole-document-does-not-fit`.
//!
//! Three packings are made and the one with the fewest windows kept; on a
//! tie, the one that keeps more neighbours (documents next to each other in
//! the input) in the same window:
//!
//! 1. next fit in input order: consecutive runs, one window after the
//!    other (the most coherent windows, and the fewest possible windows
//!    among packings that keep input order);
//! 2. first fit in input order, then the local search below;
//! 3. first fit decreasing (documents by their exact cost alone, largest
//!    first, ties in input order), then the local search below.
//!
//! The local search tries to empty the window holding the fewest tokens
//! into the others: each of its documents, largest first, goes into the
//! first window where it fits, or takes the place of a smaller document
//! that then has to find a place in turn; if every document finds one, the
//! window is gone and the search starts again. A bounded amount of work is
//! spent on it. Then documents move to a window that holds their input
//! neighbours when they fit there (never adding a window).
//!
//! # When `optimal` is claimed
//!
//! A lower bound on the number of windows comes from relaxing each window
//! to a plain capacity: every window costs at least `open + Σ next(required)
//! + min(lastTokens − next) + positionTokens(required + 1) + label(i, K)`
//! besides the `next` counts of its documents. Martello and Toth's `L2`
//! bound over those sizes (which includes `⌈Σ sizes / capacity⌉`) is
//! computed for each `K' < K` from the label-free bound up, with the
//! cheapest label of `K'` windows; `K` is proven the fewest when every
//! such `K'` is ruled out. Otherwise, when at most
//! [`MOST_SEARCHED`] documents are placed, an exhaustive search over their
//! exact counts either finds a packing with fewer windows (which is then
//! used, its real labels checked) or proves there is none. `optimal` is
//! `true` only then.
//!
//! Counting whole, only a single window is claimed optimal.
//!
//! # With notes (`--note-omissions`)
//!
//! Each window's note lists the documents not in it (input order, at most
//! `N`, then a count): `in-another-window`, or `whole-document-does-not-fit`
//! for a skipped one. The skipped documents are found first, with the
//! note (see [`settle_the_skipped`](plan::settle_the_skipped)). A window's note depends on which
//! documents are elsewhere, so its count is no longer a sum over its own
//! documents: the arithmetic above packs with room kept for the note (the
//! note of a window holding nothing, then the largest note of the windows
//! found while one of them does not fit, after a few rounds the bound of
//! [`Envelopes::note_bound`]), and a first fit decreasing counts each
//! window exactly with a running [`Tally`](crate::envelope::Tally) (see
//! [`exact_first_fit_decreasing`](packing::exact_first_fit_decreasing)). Every window is counted with its note
//! by the [`Tally`](crate::envelope::Tally) of its documents and recounted in full. The lower
//! bound takes each window's cheapest ending before a note and the
//! cheapest note of as many entries as must be elsewhere (no window holds
//! more than the most of the smallest documents that fit one; see
//! [`Envelopes::least_note`]); the exhaustive search counts every window it tries with its
//! note (see [`fits_counted`](search::fits_counted)), when there are at most
//! [`MOST_NOTED_SEARCHED`] documents in all.

use rayon::prelude::*;

use super::{Decision, DoesNotFit, Failure, Reason, not_tried};
use crate::envelope::{Entry, Envelopes};
use crate::error::Error;

mod bound;
mod labels;
mod packing;
mod plan;
mod search;
mod whole;

use labels::Labels;
pub use labels::{label_insert, labelled};
pub use plan::plan_windows;

/// At most this many documents to place are searched exhaustively for a
/// packing into fewer windows (or a proof that there is none).
pub const MOST_SEARCHED: usize = 16;

/// With notes, the exhaustive search counts every window it tries whole
/// (its [`Tally`](crate::envelope::Tally)), so it runs only when there are at most this many
/// documents in all.
const MOST_NOTED_SEARCHED: usize = 64;

/// The exhaustive search gives up (and claims nothing) after this many
/// steps.
const MOST_SEARCH_STEPS: u64 = 2_000_000;

/// The local search's work, in fit checks, per packing.
const LOCAL_SEARCH_WORK: u64 = 40_000_000;

/// Lower bounds are tried for at most this many window counts below the
/// one found.
const MOST_BOUNDS_TRIED: usize = 16;

/// Packings made with a reserve for the labels before the reserve only
/// grows (see [`tiktoken_windows`](plan::tiktoken_windows)).
const SETTLING_ROUNDS: usize = 6;

/// At most this many rounds find the skipped documents with notes (see
/// [`settle_the_skipped`](plan::settle_the_skipped)); the set stops changing after one or two.
const SKIPPED_ROUNDS: usize = 32;

/// The result of packing into windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Windows {
    /// The budget every window had to fit.
    pub available_tokens: u64,
    /// The windows, in order: window 1 holds the document that comes first
    /// in payload order.
    pub windows: Vec<Window>,
    /// Whether no packing has fewer windows (proven; see the module
    /// documentation).
    pub optimal: bool,
    /// The largest number of windows proven necessary.
    pub lower_bound: usize,
    /// Indices of the documents that do not fit even alone, in input order.
    pub skipped: Vec<usize>,
    /// One decision per document, in input order. A placed document's
    /// numbers are those of its window: `neededTokens` is what it adds to
    /// the window, `freeTokens` is `availableTokens` minus the window
    /// without it. A skipped document's are those of an empty window with
    /// room for the widest label; a required document's are those of
    /// adding it to such a window.
    pub decisions: Vec<Decision>,
    /// For each document, the 1-based window it is in; `None` for required
    /// documents (in every window) and skipped ones.
    pub placement: Vec<Option<usize>>,
}

/// One window: a complete envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Its 1-based place.
    pub index: usize,
    /// The exact count of `payload_text`.
    pub used_tokens: usize,
    /// The documents in it, in payload order (required documents first).
    pub order: Vec<usize>,
    /// The exact payload, its label included.
    pub payload_text: String,
}

impl Windows {
    /// How many windows there are.
    pub fn count(&self) -> usize {
        self.windows.len()
    }
}

/// What every step reads.
struct Context<'a> {
    layout: &'a Envelopes,
    costs: &'a Costs<'a>,
    labels: &'a Labels,
    available: u64,
    content_tokens: &'a [usize],
    /// With notes: the documents that do not fit even alone, decided
    /// once (see [`settle_the_skipped`](plan::settle_the_skipped)).
    skipped: Option<&'a [usize]>,
}

/// The per-entry arithmetic of a window's count (see the module
/// documentation).
struct Costs<'a> {
    layout: &'a Envelopes,
    /// Required documents, in input order.
    required: Vec<usize>,
    open: usize,
    required_next: usize,
    /// The count of the envelope holding the required documents alone.
    required_alone: usize,
    /// Each document's place in payload order.
    rank: Vec<usize>,
}

impl<'a> Costs<'a> {
    fn new(layout: &'a Envelopes, required: Vec<usize>, rank: Vec<usize>) -> Costs<'a> {
        Costs {
            open: layout.open_tokens(),
            required_next: required.iter().map(|&r| layout.next_tokens(r)).sum(),
            required_alone: layout.total_without_notes(&required),
            layout,
            required,
            rank,
        }
    }

    /// A document's cost in any window.
    fn next(&self, index: usize) -> usize {
        self.layout.next_tokens(index)
    }

    /// What ending the window changes (`lastTokens − next`).
    fn tail(&self, index: usize) -> i64 {
        self.layout.last_tokens(index) as i64 - self.layout.next_tokens(index) as i64
    }

    /// The count without a label of a window whose own documents have
    /// `next` counts summing to `sum`, `count` of them, `last` last.
    fn body(&self, sum: usize, count: usize, last: Option<usize>) -> usize {
        match last {
            None => self.required_alone,
            Some(last) => {
                let positions = self.layout.position_tokens(self.required.len() + count);
                ((self.open + self.required_next + sum + positions) as i64 + self.tail(last))
                    as usize
            }
        }
    }

    /// The least that ending the window can change: `tail` without
    /// notes, and with them the cheapest ending before a note.
    fn least_tail(&self, index: usize) -> i64 {
        self.layout.least_last_tokens(index) as i64 - self.layout.next_tokens(index) as i64
    }

    /// The count without a label of the window holding `index` alone.
    fn alone(&self, index: usize) -> usize {
        self.body(self.next(index), 1, Some(index))
    }

    /// Whichever of `a` and `b` comes later in payload order.
    fn later(&self, a: Option<usize>, b: usize) -> usize {
        match a {
            Some(a) if self.rank[a] > self.rank[b] => a,
            _ => b,
        }
    }
}

/// One window being filled: its own documents (not the required ones).
#[derive(Debug, Clone, Default)]
struct Bin {
    members: Vec<usize>,
    sum: usize,
    last: Option<usize>,
}

/// Orders windows by the first of their documents in payload order, and
/// each window's documents in payload order.
fn sort_bins(costs: &Costs<'_>, bins: &mut [Bin]) {
    for bin in bins.iter_mut() {
        bin.members.sort_by_key(|&m| costs.rank[m]);
    }
    bins.sort_by_key(|bin| bin.members.first().map(|&m| costs.rank[m]));
}

/// The decision for `index` with the counts before and after it.
fn decision(
    context: &Context<'_>,
    index: usize,
    reason: Reason,
    before: usize,
    after: usize,
) -> Decision {
    Decision {
        index,
        selected: matches!(reason, Reason::Fits | Reason::Required),
        reason,
        content_tokens: context.content_tokens[index],
        needed_tokens: after as i64 - before as i64,
        free_tokens: context.available.saturating_sub(before as u64),
    }
}

/// Fails when the empty window, or the required documents, do not fit
/// with `reserve` tokens of label; `count` counts an envelope of the
/// given documents without a label.
fn check_required(
    context: &Context<'_>,
    reserve: usize,
    count: impl Fn(&[usize]) -> usize,
) -> Result<(), Failure> {
    let Context {
        costs,
        available,
        content_tokens,
        ..
    } = *context;
    let documents = costs.rank.len();
    let empty = count(&[]) + reserve;
    if empty as u64 > available {
        return Err(Failure::DoesNotFit(DoesNotFit {
            error: Error::EmptyEnvelopeDoesNotFit {
                needed: empty,
                available,
                without_notes: None,
            },
            decisions: not_tried(content_tokens, &vec![None; documents]),
        }));
    }
    let mut decided = vec![None; documents];
    let mut taken: Vec<usize> = Vec::new();
    let mut missing = Vec::new();
    let mut before = empty;
    for &index in &costs.required {
        taken.push(index);
        let after = count(&taken) + reserve;
        if after as u64 <= available {
            decided[index] = Some(decision(context, index, Reason::Required, before, after));
            before = after;
        } else {
            taken.pop();
            missing.push(index);
            decided[index] = Some(decision(
                context,
                index,
                Reason::RequiredDoesNotFit,
                before,
                after,
            ));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(Failure::DoesNotFit(DoesNotFit {
        error: Error::RequiredDoesNotFit {
            indices: missing,
            needed: count(&costs.required) + reserve,
            available,
        },
        decisions: not_tried(content_tokens, &decided),
    }))
}

/// The decisions of the required documents (added one by one to an empty
/// window with `reserve` tokens of label) and of the `skipped` ones (each
/// alone in such a window).
fn decide_required_and_skipped(
    context: &Context<'_>,
    reserve: usize,
    decisions: &mut [Option<Decision>],
    skipped: &[usize],
    count: impl Fn(&[usize]) -> usize + Sync,
) {
    let costs = context.costs;
    let mut taken: Vec<usize> = Vec::new();
    let mut before = count(&[]) + reserve;
    for &index in &costs.required {
        taken.push(index);
        let after = count(&taken) + reserve;
        decisions[index] = Some(decision(context, index, Reason::Required, before, after));
        before = after;
    }
    let numbers: Vec<(usize, usize)> = skipped
        .par_iter()
        .map(|&index| {
            let mut order = costs.required.clone();
            order.push(index);
            (index, count(&order) + reserve)
        })
        .collect();
    for (index, after) in numbers {
        decisions[index] = Some(decision(
            context,
            index,
            Reason::WholeDocumentDoesNotFit,
            before,
            after,
        ));
    }
}

/// Renders every window with its label (window `b + 1` of `bins.len()`),
/// recounts each payload in full, and lets `check(index, computed)` judge
/// the count (`computed` is the arithmetic's count without the label).
fn render<C>(
    context: &Context<'_>,
    bins: &[Bin],
    check: impl Fn(usize, usize) -> C + Sync,
) -> Result<Vec<Window>, Failure>
where
    C: FnOnce(usize) -> Result<usize, Error>,
{
    let Context { layout, costs, .. } = *context;
    let count = bins.len().max(1);
    let empty = [Bin::default()];
    let bins = if bins.is_empty() { &empty[..] } else { bins };
    bins.par_iter()
        .enumerate()
        .map(|(b, bin)| {
            let mut order = costs.required.clone();
            order.extend_from_slice(&bin.members);
            let (text, parts) = layout.render_parts(&order, |_| None);
            let (at, insert) = label_insert(layout.envelope(), b + 1, count);
            let text = labelled(layout.envelope(), &text, b + 1, count);
            let parts: Vec<(usize, &Entry)> = parts
                .into_iter()
                .map(|(start, entry)| {
                    (
                        if start >= at {
                            start + insert.len()
                        } else {
                            start
                        },
                        entry,
                    )
                })
                .collect();
            let counted = layout.recount(&text, &parts);
            let used_tokens = check(b + 1, layout.total(&order))(counted)?;
            if used_tokens as u64 > context.available {
                return Err(Error::CountMismatch {
                    counted,
                    computed: context.available as usize,
                });
            }
            Ok(Window {
                index: b + 1,
                used_tokens,
                order,
                payload_text: text,
            })
        })
        .collect::<Result<Vec<Window>, Error>>()
        .map_err(Failure::from)
}

#[cfg(test)]
mod tests;
