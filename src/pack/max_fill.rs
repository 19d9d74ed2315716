//! `max-fill`: the subset of the non-required documents that makes the
//! fullest envelope (SPEC §3), and whether that choice is proven optimal.

use std::cmp::Reverse;

use super::{Decision, Reason, Selector};

/// The largest table (in bits) `max-fill` builds to prove optimality: 64 MiB.
const MAX_FILL_TABLE_BITS: u128 = 1 << 29;

impl Selector<'_> {
    /// Chooses among `rest` (input order) the subset that makes the fullest
    /// envelope after the required documents, which are already in. Returns
    /// whether the choice is proven optimal.
    pub(super) fn max_fill(&mut self, required: &[usize], rest: &[usize]) -> bool {
        let proven = if self.layout.notes_omissions() || !self.layout.additive() {
            None
        } else {
            self.max_fill_exact(required, rest)
        };
        let (chosen, optimal) = match proven {
            Some(chosen) => (chosen, true),
            None => {
                // Too large to prove, or omissions noted: the better of the
                // in-order fill and (without omissions, where every addition
                // grows the count and so every prefix of a fitting choice
                // fits) a largest-first fill.
                let in_order = self.greedy(rest.iter().copied());
                let mut candidates = vec![in_order];
                if !self.layout.notes_omissions() {
                    let mut by_size = rest.to_vec();
                    by_size.sort_by_key(|&i| Reverse(self.layout.next_tokens(i)));
                    let mut largest_first = self.greedy(by_size.into_iter());
                    largest_first.sort_unstable();
                    candidates.push(largest_first);
                }
                let mut best = candidates
                    .into_iter()
                    .max_by_key(|chosen| (self.total_after(chosen), Reverse(chosen.clone())))
                    .unwrap_or_default();
                if self.layout.notes_omissions() {
                    self.settle(&mut best, rest);
                }
                // Nothing can beat a payload that uses the whole budget; and
                // without omissions, where every addition grows the count,
                // nothing can beat taking every document.
                let full = self.total_after(&best) as u64 == self.available
                    || (best.len() == rest.len() && !self.layout.notes_omissions());
                (best, full)
            }
        };
        // Record decisions in payload order: the chosen documents first,
        // then what every other document would have needed.
        for &index in &chosen {
            self.try_add(index);
        }
        // With --excerpt-query, the room left goes to excerpts of the
        // documents left out, in input order.
        for &index in rest {
            if self.decisions[index].is_none() {
                self.try_excerpt(index, self.goes_last(index));
            }
        }
        let total = self.tally.total();
        for &index in rest {
            if self.decisions[index].is_some() {
                continue;
            }
            let with = self.total_with_inserted(index);
            self.skipped.push(index);
            self.decisions[index] = Some(Decision {
                index,
                selected: false,
                reason: Reason::WholeDocumentDoesNotFit,
                content_tokens: self.content_tokens[index],
                needed_tokens: with as i64 - total as i64,
                free_tokens: self.available - total as u64,
            });
        }
        optimal
    }

    /// With omissions noted, taking a document can shrink the count (its
    /// omitted entry was larger than its place in `documents` adds), so a
    /// document skipped by a first pass may fit once others are in. Adds
    /// such documents while the whole choice, taken in input order, fits at
    /// every step.
    fn settle(&self, chosen: &mut Vec<usize>, rest: &[usize]) {
        'grow: loop {
            // Only a document that fits the final envelope can qualify; that
            // check is arithmetic, the step-by-step one is linear.
            let mut tally = self.tally.clone();
            let mut taken = vec![false; self.layout.len()];
            for &index in chosen.iter() {
                tally.push(index);
                taken[index] = true;
            }
            for &index in rest {
                if taken[index] {
                    continue;
                }
                let at_end = chosen.last().is_none_or(|&last| last < index);
                if tally.total_with_at(index, at_end) as u64 > self.available {
                    continue;
                }
                let mut trial = chosen.clone();
                let at = trial.partition_point(|&i| i < index);
                trial.insert(at, index);
                if self.fits_at_every_step(&trial) {
                    *chosen = trial;
                    continue 'grow;
                }
            }
            return;
        }
    }

    /// Whether adding `chosen` in order keeps every intermediate envelope
    /// within the budget.
    fn fits_at_every_step(&self, chosen: &[usize]) -> bool {
        let mut tally = self.tally.clone();
        chosen.iter().all(|&index| {
            let fits = tally.total_with(index) as u64 <= self.available;
            tally.push(index);
            fits
        })
    }

    /// The documents a greedy pass over `order` would add (without adding them).
    fn greedy(&self, order: impl Iterator<Item = usize>) -> Vec<usize> {
        let mut tally = self.tally.clone();
        let mut chosen = Vec::new();
        for index in order {
            if tally.total_with(index) as u64 <= self.available {
                tally.push(index);
                chosen.push(index);
            }
        }
        chosen
    }

    /// The count once `chosen` (in input order) follow what is in.
    fn total_after(&self, chosen: &[usize]) -> usize {
        let mut tally = self.tally.clone();
        for &index in chosen {
            tally.push(index);
        }
        tally.total()
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

    /// The exact optimum without omissions, by dynamic programming over
    /// exact per-document counts; `None` when the table would be too large.
    ///
    /// With the required documents in, a non-empty choice `S` of the rest
    /// (in input order, last element `l`) counts
    /// `base + Σ_{i∈S} next(i) - next(l) + last(l)` where `base` is the count
    /// of `{"documents":[{"` plus the required documents' `next` counts
    /// (see [`crate::envelope`]). `reach[j]` holds every value of
    /// `Σ next - next(l) + last(l)` over the non-empty subsets of
    /// `rest[j..]`, up to the room left; the best value is the highest bit of
    /// `reach[0]`, and walking `j` upward rebuilds the subset that includes
    /// the earliest documents possible.
    fn max_fill_exact(&self, required: &[usize], rest: &[usize]) -> Option<Vec<usize>> {
        let layout = self.layout;
        let base = layout.open_tokens()
            + required
                .iter()
                .map(|&i| layout.next_tokens(i))
                .sum::<usize>();
        let empty_choice = self.tally.total() as u64;
        let Some(room) = self.available.checked_sub(base as u64) else {
            return Some(Vec::new());
        };
        let width = room as usize + 1;
        if (rest.len() as u128 + 1) * width as u128 > MAX_FILL_TABLE_BITS {
            return None;
        }
        let mut reach = vec![Bits::new(width); rest.len() + 1];
        for j in (0..rest.len()).rev() {
            let (head, tail) = reach.split_at_mut(j + 1);
            let (current, later) = (&mut head[j], &tail[0]);
            current.or_shifted(later, layout.next_tokens(rest[j]));
            current.or_assign(later);
            current.set(layout.last_tokens(rest[j]));
        }
        let Some(best) = reach[0].highest() else {
            return Some(Vec::new());
        };
        if ((base + best) as u64) < empty_choice {
            return Some(Vec::new());
        }
        let mut chosen = Vec::new();
        let mut target = best;
        for (j, &index) in rest.iter().enumerate() {
            let next = layout.next_tokens(index);
            if target > next && reach[j + 1].get(target - next) {
                chosen.push(index);
                target -= next;
            } else if target == layout.last_tokens(index) {
                chosen.push(index);
                break;
            }
        }
        Some(chosen)
    }
}

/// A fixed-width set of small integers.
#[derive(Debug, Clone)]
struct Bits {
    words: Vec<u64>,
    width: usize,
}

impl Bits {
    fn new(width: usize) -> Bits {
        Bits {
            words: vec![0; width.div_ceil(64)],
            width,
        }
    }

    fn set(&mut self, value: usize) {
        if value < self.width {
            self.words[value / 64] |= 1 << (value % 64);
        }
    }

    fn get(&self, value: usize) -> bool {
        value < self.width && self.words[value / 64] & (1 << (value % 64)) != 0
    }

    fn or_assign(&mut self, other: &Bits) {
        for (word, other) in self.words.iter_mut().zip(&other.words) {
            *word |= other;
        }
    }

    /// `self |= other << shift`, dropping values at or above the width.
    fn or_shifted(&mut self, other: &Bits, shift: usize) {
        let (word_shift, bit_shift) = (shift / 64, shift % 64);
        for target in (word_shift..self.words.len()).rev() {
            let source = target - word_shift;
            let mut word = other.words[source] << bit_shift;
            if bit_shift > 0 && source > 0 {
                word |= other.words[source - 1] >> (64 - bit_shift);
            }
            self.words[target] |= word;
        }
        if let Some(last) = self.words.last_mut()
            && !self.width.is_multiple_of(64)
        {
            *last &= (1 << (self.width % 64)) - 1;
        }
    }

    fn highest(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, word)| **word != 0)
            .map(|(i, word)| i * 64 + 63 - word.leading_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_shift_across_words_and_drop_past_the_width() {
        let mut source = Bits::new(130);
        source.set(1);
        source.set(70);
        let mut target = Bits::new(130);
        target.or_shifted(&source, 60);
        // 1 + 60 = 61 stays; 70 + 60 = 130 is past the width.
        assert!(target.get(61));
        assert!(!target.get(70) && !target.get(130));
        assert_eq!(target.highest(), Some(61));
        let mut target = Bits::new(130);
        target.or_shifted(&source, 5);
        assert_eq!(target.highest(), Some(75));
    }
}
