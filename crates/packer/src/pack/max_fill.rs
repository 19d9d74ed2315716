//! `max-fill` (SPEC §3): the subset of the non-required documents that makes
//! the fullest envelope, whether that choice is proven optimal, and a
//! decision for every document whose numbers explain it.
//!
//! # The choice
//!
//! Every candidate choice is built by the same steps a reader can follow in
//! the decisions: whole documents are tried one at a time against the
//! envelope as it stands, each added at its input-order place if the
//! complete envelope with it still fits. The candidates are:
//!
//! - the in-order fill (what `in-order` would choose), so the result is never
//!   less full than `in-order`;
//! - without omission notes, where every envelope's count is a sum of
//!   per-entry counts ([`crate::envelope::Envelopes::additive`]), the exact
//!   optimum found by subset-sum over reachable counts
//!   ([`Selector::fullest`]), when its work and memory stay within
//!   [`WORK_LIMIT`] and [`MEMORY_LIMIT`] (for XML whose position numbers
//!   cost more than one token, the same search kept apart by the number of
//!   documents, in `positioned`, within the same limits); otherwise, a
//!   largest-first fill and an in-order fill improved by exchanging one
//!   document for another;
//! - with omission notes, the in-order fill followed by passes that add every
//!   document that fits once others are in.
//!
//! The fullest candidate wins (ties: the one that includes the earlier
//! documents). It is called optimal only with a proof: the exact search's
//! optimum was reached, or the payload uses the whole budget, or (without
//! notes, where every document added grows the count) every document is in.
//!
//! # Why every skip is explained
//!
//! A document left out is shown against the final envelope when that
//! envelope with it would not fit. Otherwise (with omission notes, where
//! taking a document can shrink the count, so a document that did not fit
//! earlier might fit later) it shows the numbers of the last time it was
//! tried whole, against the envelope of that moment, which did not fit. So
//! every skip has `neededTokens > freeTokens` for an envelope it was really
//! tried against.

use std::cmp::Ordering;

use crate::envelope::{Envelopes, Tally};

use super::{Reason, Selector};

/// The most 64-bit word operations the exact search may spend: about a
/// second on one core. 10,000 documents under a 1,000,000-token budget take
/// at most 2 × 10,000 × 15,625 ≈ 3.1 × 10^8.
const WORK_LIMIT: u64 = 6 << 27;

/// The most memory the exact search's sets of reachable counts may take.
const MEMORY_LIMIT: u64 = 128 << 20;

/// How many times the documents left out are all tried again, while the
/// previous pass added one.
const RETRY_PASSES: usize = 8;

/// How many one-for-one exchanges the improvement beyond the exact search's
/// limits may make.
const EXCHANGES: usize = 256;

#[cfg(test)]
thread_local! {
    /// Limits that replace [`WORK_LIMIT`] and [`MEMORY_LIMIT`] on this thread,
    /// so tests reach the fallback with small inputs.
    static TEST_LIMITS: std::cell::Cell<Option<(u64, u64)>> = const { std::cell::Cell::new(None) };
}

/// The exact search's work and memory limits.
fn limits() -> (u64, u64) {
    #[cfg(test)]
    if let Some(limits) = TEST_LIMITS.with(std::cell::Cell::get) {
        return limits;
    }
    (WORK_LIMIT, MEMORY_LIMIT)
}

/// Runs `f` with the exact search's limits lowered to `work` word operations
/// and `memory` bytes on this thread.
#[cfg(test)]
pub(crate) fn with_limits<T>(work: u64, memory: u64, f: impl FnOnce() -> T) -> T {
    let previous = TEST_LIMITS.with(|limits| limits.replace(Some((work, memory))));
    let result = f();
    TEST_LIMITS.with(|limits| limits.set(previous));
    result
}

/// One attempt to add a whole document: the counts before and after.
#[derive(Debug, Clone, Copy)]
struct Trial {
    fits: bool,
    before: usize,
    after: usize,
}

/// A whole-document choice being built, with the last trial of each document.
#[derive(Debug, Clone)]
struct Run<'a> {
    layout: &'a Envelopes,
    available: u64,
    tally: Tally<'a>,
    /// The documents added, in input order.
    chosen: Vec<usize>,
    trials: Vec<Option<Trial>>,
}

impl<'a> Run<'a> {
    fn new(layout: &'a Envelopes, tally: Tally<'a>, available: u64) -> Run<'a> {
        Run {
            layout,
            available,
            tally,
            chosen: Vec::new(),
            trials: vec![None; layout.len()],
        }
    }

    fn total(&self) -> usize {
        self.tally.total()
    }

    fn has(&self, index: usize) -> bool {
        self.trials[index].is_some_and(|trial| trial.fits)
    }

    /// Tries whole document `index` at its input-order place and adds it if
    /// the envelope with it fits.
    fn try_whole(&mut self, index: usize) -> bool {
        if self.has(index) {
            return true;
        }
        let at = self.chosen.partition_point(|&i| i < index);
        let at_end = at == self.chosen.len();
        let before = self.tally.total();
        let after = self.tally.total_with_at(index, at_end);
        let fits = after as u64 <= self.available;
        if fits {
            self.tally
                .push_counts(index, self.layout.counts(index), at_end);
            self.chosen.insert(at, index);
        }
        self.trials[index] = Some(Trial {
            fits,
            before,
            after,
        });
        fits
    }

    /// Tries every document of `rest` not yet in, in input order, again
    /// while a pass adds one.
    fn retry(&mut self, rest: &[usize]) {
        for _ in 0..RETRY_PASSES {
            let mut added = false;
            for &index in rest {
                if !self.has(index) {
                    added |= self.try_whole(index);
                }
            }
            if !added {
                return;
            }
        }
    }

    /// Whether this run's choice is better than `other`'s: fuller, or as
    /// full and including the earlier documents.
    fn beats(&self, other: &Run<'_>) -> bool {
        match self.total().cmp(&other.total()) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => earlier_first(&self.chosen, &other.chosen) == Ordering::Greater,
        }
    }
}

/// Orders two choices (each in input order) by the documents they include,
/// earliest first: the greater includes the first document the two differ on.
pub(super) fn earlier_first(a: &[usize], b: &[usize]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            // The choice with the smaller index includes it; the other does not.
            return y.cmp(x);
        }
    }
    a.len().cmp(&b.len())
}

/// What an exact search starts from.
struct Setup {
    /// [`Selector::base`] for the required documents.
    base: usize,
    /// The exact count of the envelope as it stands (the empty choice).
    empty_choice: usize,
    /// What the chosen documents may add above `base`.
    room: u64,
    /// Each candidate's `next` count, in the order of `rest`.
    next: Vec<usize>,
    /// Each candidate's `last` count, in the order of `rest`.
    last: Vec<usize>,
}

/// The exact search's answer.
enum Search {
    /// The fullest choice (input order) and its count.
    Proven(Vec<usize>, usize),
    /// The search would exceed its limits, or its arithmetic does not hold
    /// for the layout.
    TooLarge,
}

/// The subset that fills the budget most.
pub(super) struct MaxFill;

impl super::Select for MaxFill {
    fn name(&self) -> &'static str {
        "max-fill"
    }

    fn description(&self) -> &'static str {
        "The subset that fills the budget most (reports whether proven optimal)"
    }

    fn searches(&self) -> bool {
        true
    }

    fn select(
        &self,
        selector: &mut Selector<'_>,
        required: &[usize],
        rest: &[&crate::fixture::Document],
    ) -> Option<bool> {
        let rest: Vec<usize> = rest.iter().map(|d| d.index).collect();
        Some(if selector.whole {
            selector.fill_counting_whole(&rest)
        } else {
            selector.max_fill(required, &rest)
        })
    }
}

impl<'a> Selector<'a> {
    /// The per-entry count of the envelope opening with the required
    /// documents and no other.
    fn base(&self, required: &[usize]) -> usize {
        let layout = self.layout;
        layout.open_tokens()
            + required
                .iter()
                .map(|&i| layout.next_tokens(i))
                .sum::<usize>()
    }

    /// What a search over `rest` starts from, or the proven empty choice
    /// when not even the required documents leave room.
    fn setup(&self, required: &[usize], rest: &[usize]) -> Result<Setup, Search> {
        let layout = self.layout;
        let base = self.base(required);
        let empty_choice = self.tally.total();
        let Some(room) = self.available.checked_sub(base as u64) else {
            return Err(Search::Proven(Vec::new(), empty_choice));
        };
        Ok(Setup {
            base,
            empty_choice,
            room,
            next: rest.iter().map(|&i| layout.next_tokens(i)).collect(),
            last: rest.iter().map(|&i| layout.last_tokens(i)).collect(),
        })
    }

    /// Chooses among `rest` (input order) the subset that makes the fullest
    /// envelope after the required documents, which are already in, and
    /// records every decision. Returns whether the choice is proven optimal.
    pub(super) fn max_fill(&mut self, required: &[usize], rest: &[usize]) -> bool {
        let layout = self.layout;
        let notes = layout.notes_omissions();
        let start = Run::new(layout, self.tally.clone(), self.available);
        let mut in_order = start.clone();
        for &index in rest {
            in_order.try_whole(index);
        }
        let mut candidates = Vec::new();
        let mut proof = None;
        if notes {
            let mut retried = in_order.clone();
            retried.retry(rest);
            candidates.push(retried);
        } else {
            // The search's arithmetic holds only where every envelope's
            // count is a sum of per-entry counts; XML whose position numbers
            // cost more than one token each is searched by the number of
            // documents too.
            let search = if layout.additive() {
                self.fullest(required, rest)
            } else {
                self.fullest_positioned(required, rest)
            };
            match search {
                Search::Proven(chosen, total) => {
                    let mut run = start.clone();
                    for &index in &chosen {
                        run.try_whole(index);
                    }
                    run.retry(rest);
                    proof = Some(total);
                    candidates.push(run);
                }
                Search::TooLarge => {
                    let mut by_size = rest.to_vec();
                    by_size.sort_by_key(|&i| std::cmp::Reverse(layout.next_tokens(i)));
                    let mut largest_first = start.clone();
                    for index in by_size {
                        largest_first.try_whole(index);
                    }
                    let better = if largest_first.beats(&in_order) {
                        &largest_first
                    } else {
                        &in_order
                    };
                    if let Some(exchanged) = self.exchange(&start, better, required, rest) {
                        candidates.push(exchanged);
                    }
                    candidates.push(largest_first);
                }
            }
        }
        let mut best = in_order;
        for candidate in candidates {
            if candidate.beats(&best) {
                best = candidate;
            }
        }
        let total = best.total();
        let optimal = proof == Some(total)
            || total as u64 == self.available
            || (!notes && best.chosen.len() == rest.len());
        self.record(best, rest);
        optimal
    }

    /// Takes `run`'s choice and records every decision: the chosen documents
    /// as they were added; then, with `--outline`, outlines of the documents
    /// left out, in input order; then, with `--excerpt-query`, focused excerpts of
    /// the documents left out, in input order; then every document still
    /// out as a skip against the final envelope, or, when it would fit that
    /// envelope (with omissions noted, taking a document can shrink the
    /// count), with the numbers of its last whole trial, which did not fit.
    fn record(&mut self, run: Run<'a>, rest: &[usize]) {
        let Run {
            tally,
            chosen,
            trials,
            ..
        } = run;
        self.tally = tally;
        for &index in &chosen {
            self.order.push(index);
            if let Some(trial) = trials[index] {
                self.decide(index, Reason::Fits, trial.before, trial.after);
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
                self.try_excerpt(index, self.goes_last(index));
            }
        }
        for &index in rest {
            if self.decisions[index].is_some() {
                continue;
            }
            let (before, after) = (self.tally.total(), self.total_with_inserted(index));
            if after as u64 > self.available {
                self.skipped.push(index);
                self.decide(index, Reason::WholeDocumentDoesNotFit, before, after);
            } else if let Some(trial) = trials[index].filter(|trial| !trial.fits) {
                self.skipped.push(index);
                self.decide(
                    index,
                    Reason::WholeDocumentDoesNotFit,
                    trial.before,
                    trial.after,
                );
            } else {
                // Never tried, and it fits: take it.
                let at_end = self.goes_last(index);
                self.tally
                    .push_counts(index, self.layout.counts(index), at_end);
                let at = self.order.partition_point(|&i| {
                    i < index || self.decisions[i].is_some_and(|d| d.reason == Reason::Required)
                });
                self.order.insert(at, index);
                self.decide(index, Reason::Fits, before, after);
            }
        }
    }

    /// The count of the current envelope with `index` inserted at its
    /// input-order place among the non-required documents.
    fn total_with_inserted(&self, index: usize) -> usize {
        self.tally.total_with_at(index, self.goes_last(index))
    }

    /// Whether `index`, placed in input order after the required documents,
    /// would be the last document of the payload.
    fn goes_last(&self, index: usize) -> bool {
        self.order.last().is_none_or(|&last| {
            last < index || self.decisions[last].is_some_and(|d| d.reason == Reason::Required)
        })
    }

    /// Beyond the exact search's limits (without notes): improves `from` by
    /// exchanging one chosen document for a larger one left out while the
    /// envelope still fits, then retries every document left out. The
    /// arithmetic of [`Selector::fullest`] proposes each exchange; the
    /// result is built and counted like every other candidate.
    fn exchange(
        &self,
        start: &Run<'a>,
        from: &Run<'a>,
        required: &[usize],
        rest: &[usize],
    ) -> Option<Run<'a>> {
        let layout = self.layout;
        let base = self.base(required);
        let available = self.available as i64;
        let value = |chosen: &[usize], sum: usize, out: usize, inn: usize| -> i64 {
            // The last document once `out` leaves and `inn` joins.
            let mut kept = chosen.iter().rev().filter(|&&i| i != out);
            let last = kept.next().map_or(inn, |&i| i.max(inn));
            (base + sum) as i64 - layout.next_tokens(last) as i64 + layout.last_tokens(last) as i64
        };
        let mut chosen = from.chosen.clone();
        let mut sum: usize = chosen.iter().map(|&i| layout.next_tokens(i)).sum();
        let mut current = from.total() as i64;
        let mut inside = vec![false; layout.len()];
        for &i in &chosen {
            inside[i] = true;
        }
        // Documents left out, by their weight.
        let mut outside: Vec<(usize, usize)> = rest
            .iter()
            .filter(|&&i| !inside[i])
            .map(|&i| (layout.next_tokens(i), i))
            .collect();
        outside.sort_unstable();
        let mut exchanged = false;
        for _ in 0..EXCHANGES {
            let gap = available - current;
            if gap <= 0 {
                break;
            }
            let mut best: Option<(i64, usize, usize)> = None;
            for &out in &chosen {
                let weight = layout.next_tokens(out);
                // The heaviest documents left out that could replace `out`
                // (the last document's correction is a few tokens either way).
                let limit = weight + gap as usize + 4;
                let upto = outside.partition_point(|&(w, _)| w <= limit);
                for &(w, inn) in outside[..upto].iter().rev().take(4) {
                    if w <= weight {
                        break;
                    }
                    let candidate = value(&chosen, sum + w - weight, out, inn);
                    if candidate <= available
                        && candidate > current
                        && best.is_none_or(|(b, _, _)| candidate > b)
                    {
                        best = Some((candidate, out, inn));
                    }
                }
            }
            let Some((candidate, out, inn)) = best else {
                break;
            };
            let (w_out, w_in) = (layout.next_tokens(out), layout.next_tokens(inn));
            chosen.retain(|&i| i != out);
            let at = chosen.partition_point(|&i| i < inn);
            chosen.insert(at, inn);
            if let Ok(at) = outside.binary_search(&(w_in, inn)) {
                outside.remove(at);
            }
            let at = outside.partition_point(|&pair| pair < (w_out, out));
            outside.insert(at, (w_out, out));
            sum = sum + w_in - w_out;
            current = candidate;
            exchanged = true;
        }
        if !exchanged {
            return None;
        }
        let mut run = start.clone();
        for &index in &chosen {
            run.try_whole(index);
        }
        run.retry(rest);
        Some(run)
    }

    /// The exact optimum without omission notes, by subset-sum over exact
    /// per-document counts, or [`Search::TooLarge`] beyond the limits.
    ///
    /// With the required documents in, a non-empty choice `S` of the rest
    /// (in input order, last element `l`) counts
    /// `base + Σ_{i∈S} next(i) - next(l) + last(l)` where `base` is the count
    /// of `{"documents":[{"` plus the required documents' `next` counts
    /// (see [`crate::envelope`]). `reach[j]`, a set of bits, holds every value
    /// of `Σ next - next(l) + last(l)` over the non-empty subsets of
    /// `rest[j..]` up to the room left:
    /// `reach[j] = reach[j+1] ∪ (reach[j+1] + next(j)) ∪ {last(j)}`, one
    /// shift and one OR per 64 values. The best value is the highest bit of
    /// `reach[0]`; walking `j` upward rebuilds the subset that includes the
    /// earliest documents possible.
    ///
    /// Only every `k`-th set is kept (`k ≈ √n`); the walk rebuilds each
    /// block of `k` sets from the kept one above it, up to the value it still
    /// looks for. So memory is about `2√n` sets and time two passes of `n`
    /// shifts, each over at most `min(room, Σ next of the rest) / 64` words.
    fn fullest(&self, required: &[usize], rest: &[usize]) -> Search {
        let Setup {
            base,
            empty_choice,
            room,
            next,
            last,
        } = match self.setup(required, rest) {
            Ok(setup) => setup,
            Err(search) => return search,
        };
        let n = rest.len();
        // bits[j]: values in reach[j] are below it (bounded by the room and
        // by what the documents from j on can add up to).
        let mut bits = vec![1u64; n + 1];
        let (mut suffix, mut extra) = (0u64, 0u64);
        for j in (0..n).rev() {
            suffix += next[j] as u64;
            extra = extra.max(last[j].saturating_sub(next[j]) as u64);
            bits[j] = room.min(suffix + extra) + 1;
        }
        let words: Vec<usize> = bits.iter().map(|&b| b.div_ceil(64) as usize).collect();
        let work = 2 * words.iter().map(|&w| w as u64).sum::<u64>();
        let k = ((n as f64).sqrt().ceil() as usize).max(1);
        let blocks = n.div_ceil(k);
        let memory = (blocks + k + 1) as u64 * words[0] as u64 * 8;
        let (work_limit, memory_limit) = limits();
        if work > work_limit || memory > memory_limit {
            return Search::TooLarge;
        }

        // Forward: reach[n] (empty) down to reach[0], keeping reach[b·k].
        let mut set = vec![0u64; words[0]];
        let mut kept: Vec<Vec<u64>> = vec![Vec::new(); blocks];
        for j in (0..n).rev() {
            step(&mut set[..words[j]], next[j], last[j], bits[j]);
            if j % k == 0 {
                kept[j / k] = set[..words[j]].to_vec();
            }
        }
        let Some(best) = highest(&set) else {
            return Search::Proven(Vec::new(), empty_choice);
        };
        if base + best < empty_choice {
            return Search::Proven(Vec::new(), empty_choice);
        }
        drop(set);

        // The walk, block by block.
        let mut chosen = Vec::new();
        let mut target = best;
        for block in 0..blocks {
            let (from, to) = (block * k, ((block + 1) * k).min(n));
            // sets[m - from - 1] = reach[m] for m in from+1..=to, cut to the
            // words that can hold `target` or less.
            let need = target / 64 + 1;
            let mut sets: Vec<Vec<u64>> = Vec::with_capacity(to - from);
            let mut above = if to < n {
                let top = &kept[to / k];
                top[..need.min(top.len())].to_vec()
            } else {
                Vec::new()
            };
            for m in (from + 1..to).rev() {
                let len = need.min(words[m]);
                let mut current = vec![0u64; len];
                let copy = above.len().min(len);
                current[..copy].copy_from_slice(&above[..copy]);
                let limit = if len == words[m] {
                    bits[m]
                } else {
                    len as u64 * 64
                };
                step(&mut current, next[m], last[m], limit);
                sets.push(std::mem::replace(&mut above, current));
            }
            sets.push(above);
            sets.reverse();
            for j in from..to {
                let later = &sets[j - from];
                if target > next[j] && contains(later, target - next[j]) {
                    chosen.push(rest[j]);
                    target -= next[j];
                } else if target == last[j] {
                    chosen.push(rest[j]);
                    return Search::Proven(chosen, base + best);
                }
            }
        }
        // Unreachable when the sets are right; the run built from this
        // choice is counted in full, so nothing wrong can be claimed.
        Search::Proven(chosen, base + best)
    }
}

/// `set = set ∪ (set + shift) ∪ {single}`, dropping values at or above
/// `limit` (the set's words hold values below `64 × set.len()`, at least
/// `limit`). Words are rewritten from the top down, so every word read is
/// still the old one.
fn step(set: &mut [u64], shift: usize, single: usize, limit: u64) {
    let (word_shift, bit_shift) = (shift / 64, (shift % 64) as u32);
    let len = set.len();
    if word_shift < len {
        if bit_shift == 0 {
            for target in (word_shift..len).rev() {
                set[target] |= set[target - word_shift];
            }
        } else {
            for target in (word_shift + 1..len).rev() {
                let source = target - word_shift;
                set[target] |= (set[source] << bit_shift) | (set[source - 1] >> (64 - bit_shift));
            }
            set[word_shift] |= set[0] << bit_shift;
        }
    }
    if (single as u64) < limit {
        set[single / 64] |= 1 << (single % 64);
    }
    if let Some(word) = set.get_mut((limit / 64) as usize) {
        *word &= (1u64 << (limit % 64)) - 1;
    }
    for word in set.iter_mut().skip((limit / 64) as usize + 1) {
        *word = 0;
    }
}

/// Whether `value` is in `set`.
fn contains(set: &[u64], value: usize) -> bool {
    set.get(value / 64)
        .is_some_and(|word| word & (1 << (value % 64)) != 0)
}

/// The largest value in `set`.
fn highest(set: &[u64]) -> Option<usize> {
    set.iter()
        .enumerate()
        .rev()
        .find(|(_, word)| **word != 0)
        .map(|(i, word)| i * 64 + 63 - word.leading_zeros() as usize)
}

mod positioned;

#[cfg(test)]
mod tests;
