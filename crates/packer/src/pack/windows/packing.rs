//! Bin packing with the per-entry arithmetic: next fit, first fit and
//! first fit decreasing, the local search that empties a window into the
//! others, and the exact first fit decreasing that counts each window with
//! its note.

use super::{Bin, Costs, LOCAL_SEARCH_WORK};
use crate::envelope::Tally;

/// Windows being packed under one limit (`available` less the label
/// reserve).
pub(super) struct Packing<'a> {
    pub(super) costs: &'a Costs<'a>,
    pub(super) limit: usize,
    pub(super) bins: Vec<Bin>,
}

impl<'a> Packing<'a> {
    pub(super) fn new(costs: &'a Costs<'a>, limit: usize) -> Packing<'a> {
        Packing {
            costs,
            limit,
            bins: Vec::new(),
        }
    }

    pub(super) fn cost(&self, bin: &Bin) -> usize {
        self.costs.body(bin.sum, bin.members.len(), bin.last)
    }

    pub(super) fn cost_with(&self, bin: &Bin, index: usize) -> usize {
        let costs = self.costs;
        costs.body(
            bin.sum + costs.next(index),
            bin.members.len() + 1,
            Some(costs.later(bin.last, index)),
        )
    }

    pub(super) fn fits_with(&self, bin: &Bin, index: usize) -> bool {
        self.cost_with(bin, index) <= self.limit
    }

    /// The last of `bin`'s members other than `out`.
    pub(super) fn last_without(&self, bin: &Bin, out: usize) -> Option<usize> {
        if bin.last != Some(out) {
            return bin.last;
        }
        bin.members
            .iter()
            .copied()
            .filter(|&m| m != out)
            .max_by_key(|&m| self.costs.rank[m])
    }

    pub(super) fn cost_without(&self, bin: &Bin, out: usize) -> usize {
        self.costs.body(
            bin.sum - self.costs.next(out),
            bin.members.len() - 1,
            self.last_without(bin, out),
        )
    }

    /// Whether `bin` with `out` replaced by `into` fits.
    pub(super) fn fits_swapped(&self, bin: &Bin, out: usize, into: usize) -> bool {
        let costs = self.costs;
        let last = Some(costs.later(self.last_without(bin, out), into));
        let cost = costs.body(
            bin.sum - costs.next(out) + costs.next(into),
            bin.members.len(),
            last,
        );
        cost <= self.limit
    }

    pub(super) fn add(&mut self, bin: usize, index: usize) {
        let last = self.costs.later(self.bins[bin].last, index);
        let b = &mut self.bins[bin];
        b.members.push(index);
        b.sum += self.costs.next(index);
        b.last = Some(last);
    }

    pub(super) fn remove(&mut self, bin: usize, index: usize) {
        let last = self.last_without(&self.bins[bin], index);
        let next = self.costs.next(index);
        let b = &mut self.bins[bin];
        b.members.retain(|&m| m != index);
        b.sum -= next;
        b.last = last;
    }

    /// Puts `index` into the first window (other than `except`) where it
    /// fits; returns the window.
    pub(super) fn first_fit(
        &mut self,
        index: usize,
        except: Option<usize>,
        work: &mut u64,
    ) -> Option<usize> {
        let found = (0..self.bins.len()).find(|&b| {
            *work += 1;
            Some(b) != except && self.fits_with(&self.bins[b], index)
        })?;
        self.add(found, index);
        Some(found)
    }

    /// First fit of `items` in the order given, opening a window when none
    /// has room.
    pub(super) fn first_fit_all(&mut self, items: &[usize]) {
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
    pub(super) fn next_fit_all(&mut self, items: &[usize]) {
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
    pub(super) fn empty_smallest(&mut self, mut work: u64) {
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
    pub(super) fn try_empty(
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
    pub(super) fn keep_neighbours_together(&mut self, sequence: &[usize], documents: usize) {
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
    pub(super) fn neighbours_together(&self, sequence: &[usize], documents: usize) -> usize {
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
pub(super) fn best_packing<'a>(
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
pub(super) fn exact_first_fit_decreasing<'a>(
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
