//! Packing with a tokenizer whose pre-tokenizer the per-entry counting
//! argument was not shown exact for (a tokenizer file with several split
//! stages or a prefix space, [`crate::Splitting::Whole`]): every candidate
//! payload is rendered and counted whole. Exact by construction, and slower:
//! each decision costs a count of the payload as it would be, so packing
//! `n` documents into a payload of `p` bytes tokenizes about `n × p` bytes.
//!
//! Every policy works. `max-fill` without notes over at most ten documents
//! (and 64 MiB of payloads) counts every subset and is proven the fullest;
//! otherwise it fills in input order, then again while a document left out
//! fits at its place, and is proven the fullest only when the payload uses
//! the whole budget or (without notes) every document is in.

use super::{Reason, Selector};

/// `max-fill` counting whole tries every subset of at most this many
/// documents (1,024 payloads)...
const MOST_TRIED_WHOLE: usize = 10;
/// ... when all those payloads hold at most this many bytes in all.
const MOST_BYTES_TRIED: usize = 64 << 20;
use crate::chat::Framing;
use crate::envelope::{Entry, Envelopes};

/// The exact count of `layout`'s payload holding documents `order`, where
/// `replace` may give another entry for a document (an excerpt or outline);
/// with `frame`, of the whole request holding that payload (SPEC §2.4).
pub(super) fn count<'e>(
    layout: &'e Envelopes,
    frame: Option<&Framing>,
    order: &[usize],
    replace: impl Fn(usize) -> Option<&'e Entry>,
) -> usize {
    match frame {
        Some(frame) => {
            let (payload, parts) = layout.render_parts(order, replace);
            frame.count_or_note_with(&payload, &|stretch, at| {
                layout.count_holding(stretch, at, &parts)
            })
        }
        None => layout.counter().count(&layout.render_with(order, replace)),
    }
}

/// The count a trial gets once the pack is cancelled: larger than any
/// budget.
const NEVER_FITS: usize = usize::MAX / 4;

impl Selector<'_> {
    /// The exact count of the payload as it stands.
    pub(super) fn total(&self) -> usize {
        if self.whole {
            self.counted
        } else {
            self.tally.total()
        }
    }

    /// The exact count of the payload with document `index` added, whole or
    /// as the focused excerpt `entry`, at the end when `at_end`, else at its
    /// input-order place.
    pub(super) fn total_with(&self, index: usize, entry: Option<&Entry>, at_end: bool) -> usize {
        if !self.whole {
            return match entry {
                Some(entry) => self.tally.total_with_counts(index, entry.counts(), at_end),
                None => self.tally.total_with_at(index, at_end),
            };
        }
        self.total_with_at_position(index, entry, self.place(index, at_end))
    }

    /// [`Selector::total_with`] at `position` in the payload order.
    pub(super) fn total_with_at_position(
        &self,
        index: usize,
        entry: Option<&Entry>,
        position: usize,
    ) -> usize {
        if !self.whole {
            let at_end = position == self.order.len();
            return match entry {
                Some(entry) => self.tally.total_with_counts(index, entry.counts(), at_end),
                None => self.tally.total_with_at(index, at_end),
            };
        }
        if self.cancel.is_cancelled() {
            return NEVER_FITS;
        }
        let mut order = self.order.clone();
        order.insert(position, index);
        count(self.layout, self.frame, &order, |i| match entry {
            Some(entry) if i == index => Some(entry),
            _ => self.derived.get(&i),
        })
    }

    /// The exact count of the payload with document `index`, now sent as
    /// an excerpt or outline, sent as `with` instead (whole when `None`) at
    /// the same place.
    pub(super) fn total_replacing(&self, index: usize, with: Option<&Entry>) -> usize {
        let Some(derived) = self.derived.get(&index) else {
            return self.total();
        };
        if !self.whole {
            let is_last = self.order.last() == Some(&index);
            let new = with.map_or_else(|| self.layout.counts(index), Entry::counts);
            return self.tally.total_replacing(derived.counts(), new, is_last);
        }
        if self.cancel.is_cancelled() {
            return NEVER_FITS;
        }
        count(self.layout, self.frame, &self.order, |i| {
            if i == index {
                with
            } else {
                self.derived.get(&i)
            }
        })
    }

    /// Where document `index` goes in the payload order: at the end, or
    /// after the required documents and those before it in the input.
    pub(super) fn place(&self, index: usize, at_end: bool) -> usize {
        if at_end {
            return self.order.len();
        }
        self.order.partition_point(|&i| {
            i < index || self.decisions[i].is_some_and(|d| d.reason == Reason::Required)
        })
    }

    /// `max-fill` counting whole: fills in input order (as `in-order`
    /// does), then again while a document left out fits at its place
    /// without shrinking the count (with omissions noted, taking a document
    /// can shrink it; `max-fill` wants the fullest payload); then outlines
    /// and focused
    /// excerpts of those left out; then every document still out is a skip
    /// with the numbers of its last trial that did not fit. Returns whether
    /// the choice is proven the fullest.
    pub(super) fn fill_counting_whole(&mut self, rest: &[usize]) -> bool {
        let mut trials = vec![None; self.decisions.len()];
        let proven = self.fullest_by_trying_all(rest);
        if let Some(chosen) = &proven {
            for &index in chosen {
                let before = self.total();
                let after = self.total_with(index, None, false);
                self.add_whole(index, before, after);
            }
        }
        let mut first = proven.is_none();
        loop {
            let mut added = false;
            for &index in rest {
                if self.decisions[index].is_some() {
                    continue;
                }
                let before = self.total();
                let after = self.total_with(index, None, false);
                if after as u64 > self.available {
                    trials[index] = Some((before, after));
                } else if first || after >= before {
                    self.add_whole(index, before, after);
                    added = true;
                }
            }
            first = false;
            if !added {
                break;
            }
        }
        let left_out: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&index| self.decisions[index].is_none())
            .collect();
        self.outline_left_out(&left_out);
        for &index in rest {
            if self.decisions[index].is_none() {
                self.try_excerpt(index, false);
            }
        }
        for &index in rest {
            if self.decisions[index].is_some() {
                continue;
            }
            let before = self.total();
            let after = self.total_with(index, None, false);
            // A document that fits goes in unless taking it would shrink the
            // count and an earlier trial, which did not fit, explains it.
            if after as u64 <= self.available && (after >= before || trials[index].is_none()) {
                self.add_whole(index, before, after);
                continue;
            }
            let (before, after) = if after as u64 > self.available {
                (before, after)
            } else {
                trials[index].expect("a document left out failed a trial")
            };
            self.skipped.push(index);
            self.decide(index, Reason::WholeDocumentDoesNotFit, before, after);
        }
        let everything = !self.layout.notes_omissions()
            && self
                .decisions
                .iter()
                .all(|d| d.is_some_and(|d| matches!(d.reason, Reason::Fits | Reason::Required)));
        proven.is_some() || self.total() as u64 == self.available || everything
    }

    /// Without notes and for few documents: the fullest choice among `rest`
    /// (input order), found by counting every subset's payload whole; ties
    /// go to the choice with the earlier documents, as the search over
    /// per-entry counts decides them. `None` when there are notes (a
    /// document that fits could not always be explained as a skip) or too
    /// many subsets or bytes to count.
    fn fullest_by_trying_all(&self, rest: &[usize]) -> Option<Vec<usize>> {
        if self.layout.notes_omissions() || rest.len() > MOST_TRIED_WHOLE {
            return None;
        }
        let mut all = self.order.clone();
        all.extend_from_slice(rest);
        let bytes = self.layout.render(&all).len();
        if bytes.saturating_mul(1 << rest.len()) > MOST_BYTES_TRIED {
            return None;
        }
        let mut best: Option<(usize, Vec<usize>)> = None;
        for mask in 0u32..1 << rest.len() {
            let chosen: Vec<usize> = (0..rest.len())
                .filter(|bit| mask >> bit & 1 == 1)
                .map(|bit| rest[bit])
                .collect();
            let mut order = self.order.clone();
            order.extend_from_slice(&chosen);
            let used = count(self.layout, self.frame, &order, |_| None);
            if used as u64 > self.available {
                continue;
            }
            let better = best.as_ref().is_none_or(|(most, kept)| {
                used > *most
                    || (used == *most
                        && super::max_fill::earlier_first(&chosen, kept)
                            == std::cmp::Ordering::Greater)
            });
            if better {
                best = Some((used, chosen));
            }
        }
        best.map(|(_, chosen)| chosen)
    }

    /// Adds document `index` whole at its input-order place.
    fn add_whole(&mut self, index: usize, before: usize, after: usize) {
        let at = self.place(index, false);
        self.order.insert(at, index);
        self.counted = after;
        self.decide(index, Reason::Fits, before, after);
    }
}
