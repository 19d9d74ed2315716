//! Planning windows: the entries of every document (outlines and excerpts
//! for the ones too big whole, the skipped ones found first with notes),
//! the order within a window, and the packing with the per-entry
//! arithmetic of a tiktoken-family split (see the parent module).

use rayon::prelude::*;

use super::bound::lower_bound;
use super::labels::{Labels, labelled};
use super::packing::{Packing, best_packing};
use super::search::{Search, search_fewer};
use super::whole::whole_windows;
use super::{
    Context, Costs, MOST_NOTED_SEARCHED, MOST_SEARCHED, SETTLING_ROUNDS, SKIPPED_ROUNDS, Windows,
    check_required, decide_required_and_skipped, decision, render, sort_bins,
};
use crate::envelope::{Entries, Entry, Envelopes, Omission, Tally};
use crate::error::Error;
use crate::fixture::Document;
use crate::pack::{Decision, Failure, Options, Reason};
use crate::tokens::{Counter, Splitting};

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
pub(super) type Candidate = (Entry, usize, Reason);

/// With `--outline` or `--excerpt-query`: each document that is not
/// required and does not fit an empty window whole, whatever its label (the
/// widest label of as many windows as there are documents), goes in as the
/// fullest of its outlines that does (a source file), else as the largest
/// of its focused excerpts that does (as a single pack tries outlines
/// before excerpts); one with neither stays whole (and is skipped). The
/// layout with those entries, and the documents that got one with their
/// reason (their `content_tokens` become the outline's or excerpt's).
pub(super) fn derive_the_too_big(
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
pub(super) fn settle_the_skipped(
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
pub(super) fn outline_entries(maker: &Entries, document: &Document) -> Vec<Candidate> {
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
pub(super) fn excerpt_entries(
    maker: &Entries,
    document: &Document,
    options: &crate::pack::ExcerptOptions,
) -> Vec<Candidate> {
    crate::pack::excerpt_entries(maker, document, options)
        .map(|(entry, text)| (entry, maker.counter().count(&text), Reason::ExcerptFits))
        .collect()
}

/// Packing with the per-entry arithmetic (see the module documentation).
pub(super) fn tiktoken_windows(context: &Context<'_>) -> Result<Windows, Failure> {
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
