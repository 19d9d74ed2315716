//! `--windows` (SPEC §3.2): every document in exactly one of as few windows
//! as possible, each window a complete envelope whose exact count is at
//! most `availableTokens`, required documents in every window.
//!
//! # What a window costs
//!
//! A window is the envelope of §2/§2.1 holding the required documents
//! (input order) and then its own documents (payload order: input order,
//! or the `priority` policy's order), with its place named in it (see
//! [`label_insert`]). With a tiktoken-family split ([`Splitting::Tiktoken`])
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
//! With any other split ([`Splitting::Whole`]) the arithmetic is only an
//! estimate: it orders the documents and skips windows that are plainly
//! full, and every window a document goes into is counted whole, label
//! included (see [`whole_windows`]).
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
//! note (see [`settle_the_skipped`]). A window's note depends on which
//! documents are elsewhere, so its count is no longer a sum over its own
//! documents: the arithmetic above packs with room kept for the note (the
//! note of a window holding nothing, then the largest note of the windows
//! found while one of them does not fit, after a few rounds the bound of
//! [`Envelopes::note_bound`]), and a first fit decreasing counts each
//! window exactly with a running [`Tally`] (see
//! [`exact_first_fit_decreasing`]). Every window is counted with its note
//! by the [`Tally`] of its documents and recounted in full. The lower
//! bound takes each window's cheapest ending before a note and the
//! cheapest note of as many entries as must be elsewhere (no window holds
//! more than the most of the smallest documents that fit one; see
//! [`Envelopes::least_note`]); the exhaustive search counts every window it tries with its
//! note (see [`fits_counted`]), when there are at most
//! [`MOST_NOTED_SEARCHED`] documents in all.

use rayon::prelude::*;

use super::{Decision, DoesNotFit, Failure, Options, Reason, not_tried};
use crate::envelope::{Entries, Entry, Envelope, Envelopes, Omission, Tally};
use crate::error::Error;
use crate::fixture::Document;
use crate::tokens::{Counter, Splitting};

/// At most this many documents to place are searched exhaustively for a
/// packing into fewer windows (or a proof that there is none).
pub const MOST_SEARCHED: usize = 16;
/// With notes, the exhaustive search counts every window it tries whole
/// (its [`Tally`]), so it runs only when there are at most this many
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
/// grows (see [`tiktoken_windows`]).
const SETTLING_ROUNDS: usize = 6;

/// At most this many rounds find the skipped documents with notes (see
/// [`settle_the_skipped`]); the set stops changing after one or two.
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

/// Where a window's label goes in `envelope`'s payload, and its text: the
/// JSON envelope gets a first key (`{"window":"2 of 5","documents":[...]}`),
/// XML an attribute (`<documents window="2 of 5">`), Markdown words in its
/// first heading (`# Documents (window 2 of 5)`).
///
/// Each is inserted where the payload's split always has a boundary on
/// both sides, whatever the window holds: in JSON between `{"` and the
/// letters of `documents` (the inserted text ends in `","`, punctuation
/// that stops before a letter); in XML and Markdown before the `\n` that
/// ends the first line (the line then ends in `">\n` or `)\n`, after which
/// comes `<`, `#` or `(`, as before). So a label adds the same number of
/// tokens to every window, measured once on the empty envelope.
pub fn label_insert(envelope: Envelope, index: usize, count: usize) -> (usize, String) {
    envelope.window_label(index, count)
}

/// `payload` with the label of window `index` of `count` inserted.
pub fn labelled(envelope: Envelope, payload: &str, index: usize, count: usize) -> String {
    let (at, insert) = label_insert(envelope, index, count);
    let mut out = String::with_capacity(payload.len() + insert.len());
    out.push_str(&payload[..at]);
    out.push_str(&insert);
    out.push_str(&payload[at..]);
    out
}

/// The tokens labels add, measured on the empty envelope.
struct Labels {
    counter: Counter,
    envelope: Envelope,
    empty: String,
    empty_tokens: usize,
}

impl Labels {
    fn new(layout: &Envelopes) -> Labels {
        let empty = layout.render(&[]);
        let counter = layout.counter();
        Labels {
            counter,
            envelope: layout.envelope(),
            empty_tokens: counter.count(&empty),
            empty,
        }
    }

    /// What the label of window `index` of `count` adds (never less than
    /// zero: its pieces are added, and in XML and Markdown the line end
    /// it takes over is at most two tokens).
    fn tokens(&self, index: usize, count: usize) -> usize {
        let text = labelled(self.envelope, &self.empty, index, count);
        self.counter.count(&text).saturating_sub(self.empty_tokens)
    }

    /// The widest label of `count` windows.
    fn widest(&self, count: usize) -> usize {
        (1..=count.max(1))
            .into_par_iter()
            .map(|index| self.tokens(index, count))
            .max()
            .unwrap_or(0)
    }

    /// The cheapest label of `count` windows.
    fn cheapest(&self, count: usize) -> usize {
        (1..=count.max(1))
            .into_par_iter()
            .map(|index| self.tokens(index, count))
            .min()
            .unwrap_or(0)
    }
}

/// Packs every document of `documents` into windows of `available` tokens.
pub fn plan_windows(
    documents: &[Document],
    counter: Counter,
    available: u64,
    options: &Options,
) -> Result<Windows, Failure> {
    let whole = counter.splitting() != Splitting::Tiktoken;
    windows_counting(documents, counter, available, options, whole)
}

/// [`plan_windows`], counting every window whole when `whole`.
pub(super) fn windows_counting(
    documents: &[Document],
    counter: Counter,
    available: u64,
    options: &Options,
    whole: bool,
) -> Result<Windows, Failure> {
    let notes = options.note_omissions.then_some(options.note_omissions_max);
    let maker = Entries::for_windows(options.envelope, counter, notes);
    let counted: Vec<(Entry, usize)> = documents
        .par_iter()
        .map(|document| maker.document_and_count(document))
        .collect();
    let mut entries = Vec::with_capacity(counted.len());
    let mut content_tokens = Vec::with_capacity(counted.len());
    for (entry, content) in counted {
        entries.push(entry);
        content_tokens.push(content);
    }
    let required: Vec<usize> = documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    // With notes, every document is first listed as in another window.
    let elsewhere = notes.map(|_| {
        documents
            .par_iter()
            .map(|document| maker.omitted_because(document, Omission::InAnotherWindow))
            .collect()
    });
    let mut layout = Envelopes::new(maker, entries, elsewhere);
    let mut derived = Vec::new();
    if options.outline.is_some() || options.excerpt.is_some() {
        (layout, derived) = derive_the_too_big(
            documents,
            layout,
            &required,
            available,
            options,
            &mut content_tokens,
        );
    }
    let mut skipped = None;
    if notes.is_some() {
        let (noted, placed) = settle_the_skipped(documents, layout, &required, available, whole);
        layout = noted;
        skipped = Some(placed);
    }
    let rest: Vec<&Document> = documents.iter().filter(|d| !d.required).collect();
    // With a query, each window holds its documents in relevance order.
    let payload_order = match &options.query {
        Some(query) => crate::rank::rank(documents, &query.text)
            .order
            .into_iter()
            .filter(|&index| !documents[index].required)
            .collect(),
        None => options.policy.try_order(&rest, &content_tokens),
    };
    let mut rank = vec![0; documents.len()];
    for (place, &index) in required.iter().chain(&payload_order).enumerate() {
        rank[index] = place;
    }
    let costs = Costs::new(&layout, required, rank);
    let labels = Labels::new(&layout);
    let context = Context {
        layout: &layout,
        costs: &costs,
        labels: &labels,
        available,
        content_tokens: &content_tokens,
        skipped: skipped.as_deref(),
    };
    let mut windows = if whole {
        whole_windows(&context)
    } else {
        tiktoken_windows(&context)
    }?;
    for (index, reason) in derived {
        let decision = &mut windows.decisions[index];
        if decision.reason == Reason::Fits {
            decision.reason = reason;
        }
    }
    Ok(windows)
}

/// What a document too big for any window may go in as: the entry, its
/// content's tokens, and the reason it would be decided with.
type Candidate = (Entry, usize, Reason);

/// With `--outline` or `--excerpt-query`: each document that is not
/// required and does not fit an empty window whole, whatever its label (the
/// widest label of as many windows as there are documents), goes in as the
/// fullest of its outlines that does (a source file), else as the largest
/// of its focused excerpts that does (as a single pack tries outlines
/// before excerpts); one with neither stays whole (and is skipped). The
/// layout with those entries, and the documents that got one with their
/// reason (their `content_tokens` become the outline's or excerpt's).
fn derive_the_too_big(
    documents: &[Document],
    layout: Envelopes,
    required: &[usize],
    available: u64,
    options: &Options,
    content_tokens: &mut [usize],
) -> (Envelopes, Vec<(usize, Reason)>) {
    let labels = Labels::new(&layout);
    let room = (available as usize).saturating_sub(labels.widest(documents.len().max(1)));
    // An empty window holding the required documents (and its note).
    let base = Tally::holding(&layout, required);
    let too_big: Vec<usize> = (0..documents.len())
        .filter(|index| !required.contains(index) && base.total_with(*index) > room)
        .collect();
    if too_big.is_empty() {
        return (layout, Vec::new());
    }
    // Every candidate of each one, in the order tried, as entries.
    let maker = layout.entries();
    let levels: Vec<(usize, Vec<Candidate>)> = too_big
        .par_iter()
        .map(|&index| {
            let document = &documents[index];
            let mut candidates = Vec::new();
            if options.outline.is_some() {
                candidates.extend(outline_entries(&maker, document));
            }
            if let Some(excerpt) = &options.excerpt {
                candidates.extend(excerpt_entries(&maker, document, excerpt));
            }
            (index, candidates)
        })
        .collect();
    let mut chosen = Vec::new();
    for (index, levels) in levels {
        for (entry, content, reason) in levels {
            // That empty window with this one added.
            if base.total_with_counts(index, entry.counts(), true) <= room {
                chosen.push((index, entry, content, reason));
                break;
            }
        }
    }
    let (maker, mut entries, omitted) = layout.into_parts();
    let mut derived = Vec::with_capacity(chosen.len());
    for (index, entry, content, reason) in chosen {
        entries[index] = entry;
        content_tokens[index] = content;
        derived.push((index, reason));
    }
    (Envelopes::new(maker, entries, omitted), derived)
}

/// With notes (`--note-omissions`): which documents do not fit even alone
/// in an empty window, with its note and the widest label of as many
/// windows as there are documents; each is listed in every note as not
/// fitting, the others as in another window. Since a document's reason is
/// part of the other windows' notes, the set is found again with the
/// reasons it gives until it no longer changes: a document may fit once
/// another one's reason is `whole-document-does-not-fit` (fewer tokens
/// than `in-another-window` in some tokenizers), so the set can shrink as
/// well as grow. The layout with those notes, and the skipped documents in
/// input order.
fn settle_the_skipped(
    documents: &[Document],
    mut layout: Envelopes,
    required: &[usize],
    available: u64,
    whole: bool,
) -> (Envelopes, Vec<usize>) {
    let count = documents.len().max(1);
    let mut skipped = vec![false; documents.len()];
    let mut rounds = 0;
    loop {
        let labels = Labels::new(&layout);
        let room = (available as usize).saturating_sub(labels.widest(count));
        let fits: Vec<bool> = if whole {
            let counter = layout.counter();
            let envelope = layout.envelope();
            (0..documents.len())
                .into_par_iter()
                .map(|index| {
                    let mut order = required.to_vec();
                    order.push(index);
                    let text = labelled(envelope, &layout.render(&order), count, count);
                    counter.count(&text) <= available as usize
                })
                .collect()
        } else {
            let base = Tally::holding(&layout, required);
            (0..documents.len())
                .map(|index| base.total_with(index) <= room)
                .collect()
        };
        let now: Vec<bool> = (0..documents.len())
            .map(|index| !documents[index].required && !fits[index])
            .collect();
        if now == skipped || rounds == SKIPPED_ROUNDS {
            break;
        }
        rounds += 1;
        let (maker, entries, omitted) = layout.into_parts();
        let mut omitted = omitted.expect("notes");
        for (index, document) in documents.iter().enumerate() {
            if now[index] != skipped[index] {
                let reason = if now[index] {
                    Omission::DoesNotFit
                } else {
                    Omission::InAnotherWindow
                };
                omitted[index] = maker.omitted_because(document, reason);
            }
        }
        skipped = now;
        layout = Envelopes::new(maker, entries, Some(omitted));
    }
    let skipped = (0..documents.len()).filter(|&i| skipped[i]).collect();
    (layout, skipped)
}

/// A source file's outlines, fullest first, as entries with their content
/// tokens.
fn outline_entries(maker: &Entries, document: &Document) -> Vec<Candidate> {
    use crate::envelope::{Label, OutlineLabel};
    let levels = packer_outline::Language::from_path(&document.id)
        .and_then(|language| packer_outline::outlines(language, &document.content).ok())
        .unwrap_or_default();
    levels
        .iter()
        .map(|(_, outline)| {
            let label = Label::Outline(OutlineLabel {
                lines: outline.lines_label(),
                of_lines: outline.of_lines,
            });
            (
                maker.document(document, &outline.content, Some(&label)),
                maker.counter().count(&outline.content),
                Reason::OutlineFits,
            )
        })
        .collect()
}

/// A document's focused excerpts, all its windows of lines first, then
/// one fewer at a time (as a single pack tries them), as entries with
/// their content tokens.
fn excerpt_entries(
    maker: &Entries,
    document: &Document,
    options: &super::ExcerptOptions,
) -> Vec<Candidate> {
    super::excerpt_entries(maker, document, options)
        .map(|(entry, text)| (entry, maker.counter().count(&text), Reason::ExcerptFits))
        .collect()
}

/// What every step reads.
struct Context<'a> {
    layout: &'a Envelopes,
    costs: &'a Costs<'a>,
    labels: &'a Labels,
    available: u64,
    content_tokens: &'a [usize],
    /// With notes: the documents that do not fit even alone, decided
    /// once (see [`settle_the_skipped`]).
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

/// Windows being packed under one limit (`available` less the label
/// reserve).
struct Packing<'a> {
    costs: &'a Costs<'a>,
    limit: usize,
    bins: Vec<Bin>,
}

impl<'a> Packing<'a> {
    fn new(costs: &'a Costs<'a>, limit: usize) -> Packing<'a> {
        Packing {
            costs,
            limit,
            bins: Vec::new(),
        }
    }

    fn cost(&self, bin: &Bin) -> usize {
        self.costs.body(bin.sum, bin.members.len(), bin.last)
    }

    fn cost_with(&self, bin: &Bin, index: usize) -> usize {
        let costs = self.costs;
        costs.body(
            bin.sum + costs.next(index),
            bin.members.len() + 1,
            Some(costs.later(bin.last, index)),
        )
    }

    fn fits_with(&self, bin: &Bin, index: usize) -> bool {
        self.cost_with(bin, index) <= self.limit
    }

    /// The last of `bin`'s members other than `out`.
    fn last_without(&self, bin: &Bin, out: usize) -> Option<usize> {
        if bin.last != Some(out) {
            return bin.last;
        }
        bin.members
            .iter()
            .copied()
            .filter(|&m| m != out)
            .max_by_key(|&m| self.costs.rank[m])
    }

    fn cost_without(&self, bin: &Bin, out: usize) -> usize {
        self.costs.body(
            bin.sum - self.costs.next(out),
            bin.members.len() - 1,
            self.last_without(bin, out),
        )
    }

    /// Whether `bin` with `out` replaced by `into` fits.
    fn fits_swapped(&self, bin: &Bin, out: usize, into: usize) -> bool {
        let costs = self.costs;
        let last = Some(costs.later(self.last_without(bin, out), into));
        let cost = costs.body(
            bin.sum - costs.next(out) + costs.next(into),
            bin.members.len(),
            last,
        );
        cost <= self.limit
    }

    fn add(&mut self, bin: usize, index: usize) {
        let last = self.costs.later(self.bins[bin].last, index);
        let b = &mut self.bins[bin];
        b.members.push(index);
        b.sum += self.costs.next(index);
        b.last = Some(last);
    }

    fn remove(&mut self, bin: usize, index: usize) {
        let last = self.last_without(&self.bins[bin], index);
        let next = self.costs.next(index);
        let b = &mut self.bins[bin];
        b.members.retain(|&m| m != index);
        b.sum -= next;
        b.last = last;
    }

    /// Puts `index` into the first window (other than `except`) where it
    /// fits; returns the window.
    fn first_fit(&mut self, index: usize, except: Option<usize>, work: &mut u64) -> Option<usize> {
        let found = (0..self.bins.len()).find(|&b| {
            *work += 1;
            Some(b) != except && self.fits_with(&self.bins[b], index)
        })?;
        self.add(found, index);
        Some(found)
    }

    /// First fit of `items` in the order given, opening a window when none
    /// has room.
    fn first_fit_all(&mut self, items: &[usize]) {
        let mut work = 0;
        for &index in items {
            if self.first_fit(index, None, &mut work).is_none() {
                self.bins.push(Bin::default());
                let last = self.bins.len() - 1;
                self.add(last, index);
            }
        }
    }

    /// Next fit of `items` in the order given: a window is closed for good
    /// when the next document does not fit in it.
    fn next_fit_all(&mut self, items: &[usize]) {
        for &index in items {
            let fits = self
                .bins
                .last()
                .is_some_and(|bin| self.fits_with(bin, index));
            if !fits {
                self.bins.push(Bin::default());
            }
            let last = self.bins.len() - 1;
            self.add(last, index);
        }
    }

    /// The local search: empties the window with the fewest tokens into the
    /// others while that succeeds for some window, within `work` fit
    /// checks.
    fn empty_smallest(&mut self, mut work: u64) {
        'again: loop {
            let mut by_size: Vec<usize> = (0..self.bins.len()).collect();
            by_size.sort_by_key(|&b| (self.bins[b].sum, self.bins[b].members.len(), b));
            for bin in by_size {
                if work == 0 || self.bins.len() <= 1 {
                    return;
                }
                let mut undo = Vec::new();
                let mut spent = 0;
                let emptied = self.try_empty(bin, &mut spent, &mut undo);
                work = work.saturating_sub(spent);
                if emptied {
                    self.bins.remove(bin);
                    continue 'again;
                }
                for (added, b, index) in undo.into_iter().rev() {
                    if added {
                        self.remove(b, index);
                    } else {
                        self.add(b, index);
                    }
                }
            }
            return;
        }
    }

    /// Moves every document of window `bin` elsewhere, or fails; every
    /// change is noted in `undo` (`(added, window, document)`).
    fn try_empty(
        &mut self,
        bin: usize,
        work: &mut u64,
        undo: &mut Vec<(bool, usize, usize)>,
    ) -> bool {
        let costs = self.costs;
        let size = |index: usize| (costs.next(index), std::cmp::Reverse(index));
        let mut pending = self.bins[bin].members.clone();
        for &index in &pending {
            self.remove(bin, index);
            undo.push((false, bin, index));
        }
        while !pending.is_empty() {
            if *work > LOCAL_SEARCH_WORK {
                return false;
            }
            // The largest pending document first.
            let (at, _) = pending
                .iter()
                .enumerate()
                .max_by_key(|&(_, &index)| size(index))
                .expect("not empty");
            let index = pending.swap_remove(at);
            if let Some(b) = self.first_fit(index, Some(bin), work) {
                undo.push((true, b, index));
                continue;
            }
            // Take the place of the largest smaller document that leaves
            // room for it; that one is placed in turn.
            let mut best: Option<(usize, usize)> = None;
            for (b, candidate) in self.bins.iter().enumerate() {
                if b == bin {
                    continue;
                }
                for &out in &candidate.members {
                    *work += 1;
                    if size(out) < size(index)
                        && best.is_none_or(|(_, kept)| size(out) > size(kept))
                        && self.fits_swapped(candidate, out, index)
                    {
                        best = Some((b, out));
                    }
                }
            }
            let Some((b, out)) = best else {
                return false;
            };
            self.remove(b, out);
            undo.push((false, b, out));
            self.add(b, index);
            undo.push((true, b, index));
            pending.push(out);
        }
        true
    }

    /// Moves documents into a window that holds their input neighbours
    /// (`sequence` is the placed documents in input order) when they fit
    /// there and more of their neighbours are there than where they are.
    fn keep_neighbours_together(&mut self, sequence: &[usize], documents: usize) {
        let mut bin_of = vec![usize::MAX; documents];
        for (b, bin) in self.bins.iter().enumerate() {
            for &m in &bin.members {
                bin_of[m] = b;
            }
        }
        for _ in 0..4 {
            let mut moved = false;
            for (at, &index) in sequence.iter().enumerate() {
                let neighbours = [
                    at.checked_sub(1).map(|p| sequence[p]),
                    sequence.get(at + 1).copied(),
                ];
                let here = bin_of[index];
                let together = |b: usize| {
                    neighbours
                        .iter()
                        .flatten()
                        .filter(|&&n| bin_of[n] == b)
                        .count()
                };
                let now = together(here);
                let target = neighbours
                    .iter()
                    .flatten()
                    .map(|&n| bin_of[n])
                    .find(|&there| {
                        there != here
                            && together(there) > now
                            && self.fits_with(&self.bins[there], index)
                    });
                if let Some(there) = target {
                    self.remove(here, index);
                    self.add(there, index);
                    bin_of[index] = there;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        self.bins.retain(|bin| !bin.members.is_empty());
    }

    /// How many pairs of input neighbours share a window.
    fn neighbours_together(&self, sequence: &[usize], documents: usize) -> usize {
        let mut bin_of = vec![usize::MAX; documents];
        for (b, bin) in self.bins.iter().enumerate() {
            for &m in &bin.members {
                bin_of[m] = b;
            }
        }
        sequence
            .windows(2)
            .filter(|pair| bin_of[pair[0]] == bin_of[pair[1]])
            .count()
    }
}

/// The fewest windows found for `items` (placed documents, input order)
/// under `limit`: the best of next fit, first fit and first fit decreasing
/// (the last two improved by the local search).
fn best_packing<'a>(
    costs: &'a Costs<'a>,
    limit: usize,
    items: &[usize],
    documents: usize,
    exact_room: Option<usize>,
) -> Packing<'a> {
    let mut next_fit = Packing::new(costs, limit);
    next_fit.next_fit_all(items);
    let mut first_fit = Packing::new(costs, limit);
    first_fit.first_fit_all(items);
    first_fit.empty_smallest(LOCAL_SEARCH_WORK);
    first_fit.keep_neighbours_together(items, documents);
    let mut decreasing = items.to_vec();
    decreasing.sort_by_key(|&index| (std::cmp::Reverse(costs.alone(index)), index));
    let mut ffd = Packing::new(costs, limit);
    ffd.first_fit_all(&decreasing);
    ffd.empty_smallest(LOCAL_SEARCH_WORK);
    ffd.keep_neighbours_together(items, documents);
    let exact = exact_room.and_then(|room| exact_first_fit_decreasing(costs, items, room));
    [next_fit, first_fit, ffd]
        .into_iter()
        .chain(exact)
        .min_by_key(|packing| {
            (
                packing.bins.len(),
                std::cmp::Reverse(packing.neighbours_together(items, documents)),
            )
        })
        .expect("three packings")
}

/// With notes: first fit decreasing where each window is counted exactly,
/// its note included, against `room` (`available` less the label
/// reserve); documents by their count alone in a window, largest first.
/// `None` when keeping a running count per window would take too much
/// memory.
fn exact_first_fit_decreasing<'a>(
    costs: &'a Costs<'a>,
    items: &[usize],
    room: usize,
) -> Option<Packing<'a>> {
    /// Windows times documents kept at most (each window's running count
    /// holds a few words per document).
    const MOST_CELLS: usize = 20_000_000;
    let layout = costs.layout;
    let base = Tally::holding(layout, &costs.required);
    let mut decreasing: Vec<(usize, usize)> = items
        .iter()
        .map(|&index| (base.total_with(index), index))
        .collect();
    decreasing.sort_by_key(|&(alone, index)| (std::cmp::Reverse(alone), index));
    let mut packing = Packing::new(costs, room);
    let mut tallies: Vec<Tally<'_>> = Vec::new();
    for (_, index) in decreasing {
        let at_end = |bin: &Bin| {
            bin.last
                .is_none_or(|last| costs.rank[index] > costs.rank[last])
        };
        let found = (0..tallies.len())
            .find(|&b| tallies[b].total_with_at(index, at_end(&packing.bins[b])) <= room);
        let b = match found {
            Some(b) => b,
            None => {
                if (tallies.len() + 1).saturating_mul(costs.rank.len()) > MOST_CELLS {
                    return None;
                }
                tallies.push(base.clone());
                packing.bins.push(Bin::default());
                tallies.len() - 1
            }
        };
        let end = at_end(&packing.bins[b]);
        tallies[b].push_counts(index, layout.counts(index), end);
        packing.add(b, index);
    }
    Some(packing)
}

/// Packing with the per-entry arithmetic (see the module documentation).
fn tiktoken_windows(context: &Context<'_>) -> Result<Windows, Failure> {
    let Context {
        costs,
        labels,
        available,
        ..
    } = *context;
    let documents = costs.rank.len();
    let layout = costs.layout;
    let notes = layout.notes_omissions();
    // Each round: (placed documents, windows, reserve, items, skipped, packing).
    type Round<'a> = (usize, usize, usize, Vec<usize>, Vec<usize>, Packing<'a>);
    let mut best: Option<Round<'_>> = None;
    let mut reserve = labels.widest(1);
    // With notes, room is also kept for the note: at first what the note
    // of a window holding only the required documents costs, then what
    // the notes of the windows found cost, at most the bound that holds
    // for every window.
    let note_of = |order: &[usize]| layout.total(order) - layout.total_without_notes(order);
    let note_bound = layout.note_bound();
    let mut note_reserve = note_of(&costs.required);
    let mut rounds = 0;
    loop {
        if let Err(failure) = check_required(context, reserve, |order| layout.total(order)) {
            if best.is_some() {
                break;
            }
            return Err(failure);
        }
        let limit = (available - reserve as u64).saturating_sub(note_reserve as u64) as usize;
        let (items, skipped): (Vec<usize>, Vec<usize>) = match context.skipped {
            Some(skipped) => (
                (0..documents)
                    .filter(|index| {
                        !costs.required.contains(index) && skipped.binary_search(index).is_err()
                    })
                    .collect(),
                skipped.to_vec(),
            ),
            None => (0..documents)
                .filter(|&index| !costs.required.contains(&index))
                .partition(|&index| costs.alone(index) <= limit),
        };
        let exact_room = notes.then(|| (available as usize).saturating_sub(reserve));
        let packing = best_packing(costs, limit, &items, documents, exact_room);
        let count = packing.bins.len();
        let widest = labels.widest(count);
        rounds += 1;
        // The largest note of the windows found, when some window does not
        // fit with it and its real label (the widest of `count` windows:
        // the reserve may have grown past it).
        let notes_over = notes
            .then(|| {
                let parts: Vec<(usize, usize)> = packing
                    .bins
                    .par_iter()
                    .map(|bin| {
                        let mut order = costs.required.clone();
                        order.extend_from_slice(&bin.members);
                        (layout.total(&order), note_of(&order))
                    })
                    .collect();
                let over = parts
                    .iter()
                    .any(|&(total, _)| (total + widest) as u64 > available);
                over.then(|| parts.iter().map(|&(_, note)| note).max().unwrap_or(0))
            })
            .flatten();
        let settled = widest == reserve && notes_over.is_none();
        if widest <= reserve && notes_over.is_none() {
            // Every window fits its real label: a valid round. The best
            // places the most documents, then uses the fewest windows.
            let better = best.as_ref().is_none_or(|b| {
                (items.len(), std::cmp::Reverse(count)) > (b.0, std::cmp::Reverse(b.1))
            });
            if better {
                best = Some((items.len(), count, reserve, items, skipped, packing));
            }
        }
        if settled || (best.is_some() && rounds >= SETTLING_ROUNDS) {
            break;
        }
        if let Some(largest) = notes_over {
            note_reserve = if rounds >= SETTLING_ROUNDS {
                note_bound
            } else {
                largest.max(note_reserve + 1).min(note_bound)
            };
        }
        // Follow the labels of the windows found; after a few rounds
        // without a valid one, only grow the reserve (which ends: with a
        // reserve wide enough, nothing but a single window is left).
        reserve = if rounds >= SETTLING_ROUNDS {
            widest.max(reserve * 2)
        } else {
            widest
        };
    }
    let (_, _, reserve, items, skipped, packing) = best.expect("a valid round");
    let mut bins = packing.bins;
    sort_bins(costs, &mut bins);
    let (lower_bound, mut optimal) = lower_bound(context, &items, bins.len());
    // With notes, small inputs are searched counting each window whole
    // with its note (see `fits_counted`).
    let searchable =
        items.len() <= MOST_SEARCHED && (!notes || costs.rank.len() <= MOST_NOTED_SEARCHED);
    if !optimal && searchable {
        // Look for fewer windows, one fewer at a time, until a search
        // proves there are none.
        loop {
            match search_fewer(context, &items, bins.len()) {
                Search::Found(fewer) => {
                    bins = fewer;
                    if bins.len() <= lower_bound {
                        optimal = true;
                        break;
                    }
                }
                Search::None => {
                    optimal = true;
                    break;
                }
                Search::GaveUp => break,
            }
        }
    }
    let count = bins.len().max(1);
    let window_labels: Vec<usize> = (1..=count)
        .into_par_iter()
        .map(|index| labels.tokens(index, count))
        .collect();
    let windows = render(context, &bins, |index, computed| {
        let computed = computed + window_labels[index - 1];
        move |counted: usize| {
            if counted != computed {
                return Err(Error::CountMismatch { counted, computed });
            }
            Ok(counted)
        }
    })?;
    // Decisions.
    let mut decisions: Vec<Option<Decision>> = vec![None; documents];
    let mut placement = vec![None; documents];
    let packing = Packing::new(costs, 0);
    let numbers: Vec<Vec<(usize, usize, usize)>> = bins
        .par_iter()
        .enumerate()
        .map(|(b, bin)| {
            let label = window_labels[b];
            if !notes {
                let with = packing.cost(bin) + label;
                return bin
                    .members
                    .iter()
                    .map(|&index| (index, packing.cost_without(bin, index) + label, with))
                    .collect();
            }
            // The note changes with the window's members: count each
            // window without one of them.
            let mut order = costs.required.clone();
            order.extend_from_slice(&bin.members);
            let with = layout.total(&order) + label;
            let base = costs.required.len();
            (0..bin.members.len())
                .map(|m| {
                    let mut tally = Tally::new(layout);
                    for (at, &index) in order.iter().enumerate() {
                        if at != base + m {
                            tally.push(index);
                        }
                    }
                    (bin.members[m], tally.total() + label, with)
                })
                .collect()
        })
        .collect();
    for (b, window) in numbers.into_iter().enumerate() {
        for (index, without, with) in window {
            decisions[index] = Some(decision(context, index, Reason::Fits, without, with));
            placement[index] = Some(b + 1);
        }
    }
    // With notes, a skipped document was found not to fit with room for
    // the widest label of as many windows as there are documents.
    let reserve = if notes {
        reserve.max(labels.widest(documents.max(1)))
    } else {
        reserve
    };
    decide_required_and_skipped(context, reserve, &mut decisions, &skipped, |order| {
        layout.total(order)
    });
    Ok(Windows {
        available_tokens: available,
        windows,
        optimal,
        lower_bound,
        skipped,
        decisions: decisions
            .into_iter()
            .map(|d| d.expect("every document is decided"))
            .collect(),
        placement,
    })
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

/// The lower bound on the number of windows for `items`, and whether it
/// reaches `found` (see the module documentation).
fn lower_bound(context: &Context<'_>, items: &[usize], found: usize) -> (usize, bool) {
    let Context {
        costs,
        labels,
        available,
        ..
    } = *context;
    if items.is_empty() {
        // One window holds the required documents, if any.
        return (1, found <= 1);
    }
    let min_tail = items
        .iter()
        .map(|&i| costs.least_tail(i))
        .min()
        .unwrap_or(0);
    let positions = costs.layout.position_tokens(costs.required.len() + 1);
    let base = (costs.open + costs.required_next + positions) as i64 + min_tail;
    let mut sizes: Vec<u64> = items.iter().map(|&i| costs.next(i) as u64).collect();
    sizes.sort_unstable();
    // Labels add at least nothing: a bound for every count of windows.
    let mut bound = l2(&sizes, available as i64 - base).max(1);
    // With notes and two windows or more, a window cannot hold more than
    // the most of the smallest documents that fit one, so its note lists at
    // least the others, up to the cap: it costs at least the cheapest note
    // of that many entries.
    let note = if bound >= 2 {
        let room = available as i64 - base;
        let mut held = 0;
        let mut sum = 0;
        for &size in &sizes {
            sum += size as i64;
            if sum > room {
                break;
            }
            held += 1;
        }
        let elsewhere =
            (items.len() + context.skipped.map_or(0, <[usize]>::len)).saturating_sub(held);
        costs.layout.least_note(elsewhere)
    } else {
        0
    };
    let capacity = |label: usize| available as i64 - base - note as i64 - label as i64;
    bound = bound.max(l2(&sizes, capacity(0)));
    if bound >= found {
        return (bound, true);
    }
    if found - bound > MOST_BOUNDS_TRIED {
        return (bound, false);
    }
    // Each count below the one found, with its own cheapest label.
    while bound < found {
        let cheapest = labels.cheapest(bound);
        if l2(&sizes, capacity(cheapest)) <= bound {
            return (bound, false);
        }
        bound += 1;
    }
    (bound, true)
}

/// Martello and Toth's `L2` lower bound on the bins of `capacity` that
/// hold items of `sizes` (ascending); `usize::MAX` when one item is larger
/// than a bin.
fn l2(sizes: &[u64], capacity: i64) -> usize {
    if capacity <= 0 {
        return usize::MAX;
    }
    let capacity = capacity as u64;
    if sizes.last().is_some_and(|&s| s > capacity) {
        return usize::MAX;
    }
    let mut prefix = Vec::with_capacity(sizes.len() + 1);
    prefix.push(0u64);
    for &s in sizes {
        prefix.push(prefix.last().unwrap() + s);
    }
    // Items at indices [from, to) of the ascending sizes.
    let sum = |from: usize, to: usize| prefix[to] - prefix[from];
    let above = |limit: u64| sizes.partition_point(|&s| s <= limit);
    let half = sizes.partition_point(|&s| 2 * s <= capacity);
    let mut best = 0usize;
    let mut alphas: Vec<u64> = sizes[..half].to_vec();
    alphas.dedup();
    alphas.insert(0, 0);
    for alpha in alphas {
        // J1: s > capacity − alpha; J2: capacity/2 < s ≤ capacity − alpha;
        // J3: alpha ≤ s ≤ capacity/2.
        let j1_from = above(capacity - alpha);
        let j2 = (half, j1_from.max(half));
        let j3 = (sizes.partition_point(|&s| s < alpha), half);
        let j2_count = j2.1 - j2.0;
        let room = j2_count as u64 * capacity - sum(j2.0, j2.1);
        let rest = sum(j3.0, j3.1).saturating_sub(room);
        let bound = (sizes.len() - j1_from) + j2_count + rest.div_ceil(capacity) as usize;
        best = best.max(bound);
    }
    best
}

/// What the exhaustive search found.
enum Search {
    /// A packing into fewer windows whose real labels fit.
    Found(Vec<Bin>),
    /// Proof that there is none.
    None,
    /// Neither, within the steps allowed (or one found under the cheapest
    /// labels did not fit its real ones).
    GaveUp,
}

/// Searches every packing of `items` into `found − 1` windows, each
/// counted exactly with the cheapest label of that many windows: by the
/// arithmetic, or with notes each window it tries whole with its note
/// (its [`Tally`]; see [`fits_counted`]).
fn search_fewer(context: &Context<'_>, items: &[usize], found: usize) -> Search {
    let Context {
        costs,
        labels,
        available,
        ..
    } = *context;
    if found <= 1 {
        return Search::None;
    }
    let target = found - 1;
    let cheapest = labels.cheapest(target);
    let Some(limit) = (available as usize).checked_sub(cheapest) else {
        return Search::None;
    };
    let mut order = items.to_vec();
    order.sort_by_key(|&index| (std::cmp::Reverse(costs.next(index)), index));
    let min_tail = items
        .iter()
        .map(|&i| costs.least_tail(i))
        .min()
        .unwrap_or(0);
    let positions = costs.layout.position_tokens(costs.required.len() + 1);
    let room = limit as i64 - (costs.open + costs.required_next + positions) as i64 - min_tail;
    let left = items.iter().map(|&i| costs.next(i) as i64).sum();
    let mut packing = Packing::new(costs, limit);
    let mut steps = 0;
    // A window fits by the arithmetic, or with notes counted whole with its
    // note (a window the search opens is then checked too).
    let done = if costs.layout.notes_omissions() {
        let fits = |_: &Packing<'_>, bin: Option<&Bin>, index: usize| {
            fits_counted(costs, limit, bin.map_or(&[][..], |bin| &bin.members), index)
        };
        place(&mut packing, &order, target, room, left, &mut steps, &fits)
    } else {
        let fits = |packing: &Packing<'_>, bin: Option<&Bin>, index: usize| {
            bin.is_none_or(|bin| packing.fits_with(bin, index))
        };
        place(&mut packing, &order, target, room, left, &mut steps, &fits)
    };
    match done {
        Some(true) => {}
        Some(false) => return Search::None,
        None => return Search::GaveUp,
    }
    let mut bins = packing.bins;
    sort_bins(costs, &mut bins);
    let count = bins.len();
    let fits = bins.iter().enumerate().all(|(b, bin)| {
        let mut order = costs.required.clone();
        order.extend_from_slice(&bin.members);
        (costs.layout.total(&order) + labels.tokens(b + 1, count)) as u64 <= available
    });
    if fits {
        Search::Found(bins)
    } else {
        Search::GaveUp
    }
}

/// Whether the window of `members` with `index` added fits `limit`,
/// counted exactly with its note (its [`Tally`]). A window's note only
/// grows its count beyond the arithmetic without it, so the arithmetic's
/// room still rules out a branch of the search that cannot hold what is
/// left.
fn fits_counted(costs: &Costs<'_>, limit: usize, members: &[usize], index: usize) -> bool {
    let mut own = members.to_vec();
    own.push(index);
    own.sort_by_key(|&m| costs.rank[m]);
    let mut order = costs.required.clone();
    order.extend_from_slice(&own);
    costs.layout.total(&order) <= limit
}

/// Places `items` (largest first) into at most `windows` windows of
/// `packing`: `Some(true)` when done, `Some(false)` when impossible, `None`
/// after too many steps. `room` is what a window's own documents can hold
/// at most (their `next` counts), `left` the sum of `items`' `next` counts;
/// `fits(packing, window, index)` says whether `index` may join a window
/// (`None`: a window opened for it).
fn place(
    packing: &mut Packing<'_>,
    items: &[usize],
    windows: usize,
    room: i64,
    left: i64,
    steps: &mut u64,
    fits: &dyn Fn(&Packing<'_>, Option<&Bin>, usize) -> bool,
) -> Option<bool> {
    let Some((&index, rest)) = items.split_first() else {
        return Some(true);
    };
    *steps += 1;
    if *steps > MOST_SEARCH_STEPS {
        return None;
    }
    let open: i64 = packing.bins.iter().map(|bin| room - bin.sum as i64).sum();
    if left > open + (windows - packing.bins.len()) as i64 * room {
        return Some(false);
    }
    let size = packing.costs.next(index) as i64;
    for b in 0..packing.bins.len() {
        if !fits(packing, Some(&packing.bins[b]), index) {
            continue;
        }
        packing.add(b, index);
        let done = place(packing, rest, windows, room, left - size, steps, fits);
        if done != Some(true) {
            packing.remove(b, index);
        }
        match done {
            Some(false) => {}
            other => return other,
        }
    }
    if packing.bins.len() < windows && fits(packing, None, index) {
        packing.bins.push(Bin::default());
        let b = packing.bins.len() - 1;
        packing.add(b, index);
        let done = place(packing, rest, windows, room, left - size, steps, fits);
        match done {
            Some(false) => {
                packing.bins.pop();
            }
            other => return other,
        }
    }
    Some(false)
}

/// Packing counting every window whole (see [`Splitting::Whole`]): the
/// arithmetic orders the documents and skips windows plainly too full;
/// every document goes into the first window (in the order they were
/// opened) whose payload with it, counted whole with the label
/// `window g of g`, fits `available − slack`, where `g` is the number of
/// windows expected. The windows are then counted with their real labels;
/// when `g` was not the number found, or a real label made a window too
/// big, packing starts again with the new `g` and enough slack. A
/// decision's numbers are those of the payload it was tried against.
fn whole_windows(context: &Context<'_>) -> Result<Windows, Failure> {
    let Context {
        layout,
        costs,
        available,
        ..
    } = *context;
    let documents = costs.rank.len();
    let envelope = layout.envelope();
    let counter = layout.counter();
    // Estimate the number of windows with the arithmetic.
    let estimate = {
        let limit = available as usize;
        let items: Vec<usize> = (0..documents)
            .filter(|&index| !costs.required.contains(&index) && costs.alone(index) <= limit)
            .collect();
        let mut decreasing = items.clone();
        decreasing.sort_by_key(|&index| (std::cmp::Reverse(costs.alone(index)), index));
        let mut packing = Packing::new(costs, limit);
        packing.first_fit_all(&decreasing);
        packing.bins.len().max(1)
    };
    let mut guess = estimate;
    let mut slack = 0usize;
    for _ in 0..8 {
        // The whole count of the window of `order` labelled `n of n`.
        let count_as = |order: &[usize], n: usize| -> usize {
            counter.count(&labelled(envelope, &layout.render(order), n, n))
        };
        let count_labelled = |order: &[usize]| count_as(order, guess);
        check_required(context, slack, count_labelled)?;
        let limit = available.saturating_sub(slack as u64) as usize;
        let numbers: Vec<(usize, usize)> = (0..documents)
            .into_par_iter()
            .filter(|index| !costs.required.contains(index))
            .map(|index| {
                let mut order = costs.required.clone();
                order.push(index);
                (index, count_labelled(&order))
            })
            .collect();
        let mut decreasing = Vec::new();
        let mut skipped = Vec::new();
        for (index, alone) in numbers {
            let fits = match context.skipped {
                Some(skipped) => skipped.binary_search(&index).is_err(),
                None => alone <= limit,
            };
            if fits {
                decreasing.push(index);
            } else {
                skipped.push(index);
            }
        }
        decreasing.sort_by_key(|&index| (std::cmp::Reverse(costs.alone(index)), index));
        // The arithmetic's margin of error, generously.
        let tolerance = 16 + limit / 50;
        let mut packing = Packing::new(costs, limit + tolerance);
        let mut counted: Vec<usize> = Vec::new();
        let mut decided: Vec<Option<(usize, usize)>> = vec![None; documents];
        let empty_window = count_labelled(&costs.required);
        for &index in &decreasing {
            let target = (0..packing.bins.len()).find_map(|b| {
                if !packing.fits_with(&packing.bins[b], index) {
                    return None;
                }
                let mut members = packing.bins[b].members.clone();
                members.push(index);
                members.sort_by_key(|&m| costs.rank[m]);
                let mut order = costs.required.clone();
                order.extend_from_slice(&members);
                let after = count_labelled(&order);
                (after <= limit).then_some((b, after))
            });
            match target {
                Some((b, after)) => {
                    decided[index] = Some((counted[b], after));
                    counted[b] = after;
                    packing.add(b, index);
                }
                None => {
                    let mut order = costs.required.clone();
                    order.push(index);
                    let after = count_labelled(&order);
                    decided[index] = Some((empty_window, after));
                    counted.push(after);
                    packing.bins.push(Bin::default());
                    let b = packing.bins.len() - 1;
                    packing.add(b, index);
                }
            }
        }
        let mut bins = packing.bins;
        sort_bins(costs, &mut bins);
        let count = bins.len().max(1);
        if count != guess {
            guess = count;
            continue;
        }
        let windows = match render(context, &bins, |_, _| Ok) {
            Ok(windows) => windows,
            Err(Failure::Refused(Error::CountMismatch { counted, .. })) => {
                // A real label made a window too big: keep that much slack.
                slack += counted.saturating_sub(available as usize).max(1);
                continue;
            }
            Err(failure) => return Err(failure),
        };
        let mut decisions: Vec<Option<Decision>> = vec![None; documents];
        let mut placement = vec![None; documents];
        for (b, bin) in bins.iter().enumerate() {
            for &index in &bin.members {
                let (before, after) = decided[index].expect("placed documents are decided");
                decisions[index] = Some(decision(
                    context,
                    index,
                    Reason::Fits,
                    before + slack,
                    after + slack,
                ));
                placement[index] = Some(b + 1);
            }
        }
        // With notes, a skipped document was found not to fit in a window
        // labelled `n of n`, n the number of documents (see
        // `settle_the_skipped`): its numbers are that window's.
        let label = if context.skipped.is_some() {
            documents.max(1)
        } else {
            guess
        };
        decide_required_and_skipped(context, slack, &mut decisions, &skipped, |order| {
            count_as(order, label)
        });
        return Ok(Windows {
            available_tokens: available,
            optimal: windows.len() <= 1,
            lower_bound: 1,
            windows,
            skipped,
            decisions: decisions
                .into_iter()
                .map(|d| d.expect("every document is decided"))
                .collect(),
            placement,
        });
    }
    Err(Error::CountMismatch {
        counted: guess,
        computed: estimate,
    }
    .into())
}

#[cfg(test)]
mod tests;
