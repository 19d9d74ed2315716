//! The exact `max-fill` search for XML when position numbers cost more than
//! one token each (tokenizers that split digits one by one, such as Qwen3's
//! and Mistral's tekken, from position 10 on).
//!
//! The count of an XML envelope is still a sum of per-entry counts plus what
//! its position numbers cost beyond `1` each, and that depends only on how
//! many documents it holds ([`Envelopes::position_tokens`]). So the subset-sum
//! of [`Selector::fullest`] is kept apart by the number of documents chosen:
//! `reach[j][c]` holds every value of `Σ next - next(l) + last(l)` over the
//! subsets of `rest[j..]` with exactly `c` documents (last element `l`),
//! up to the room left:
//! `reach[j][c] = reach[j+1][c] ∪ (reach[j+1][c-1] + next(j))`, and
//! `reach[j][1] = reach[j+1][1] ∪ {last(j)}`. A choice of `c` documents
//! after `r` required ones counts `base + value + position_tokens(r + c)`.
//! Every set is kept, so it runs only while `n²/2` sets fit the search's
//! limits; beyond them the caller falls back as for any search too large.

use crate::envelope::Envelopes;

use super::super::Selector;
use super::{Search, Setup, limits};

impl Selector<'_> {
    /// The exact optimum without omission notes when the layout is not
    /// additive (XML with position numbers of several tokens), or
    /// [`Search::TooLarge`] beyond the limits.
    pub(super) fn fullest_positioned(&self, required: &[usize], rest: &[usize]) -> Search {
        let layout: &Envelopes = self.layout;
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
        let most = next.iter().sum::<usize>() as u64
            + last
                .iter()
                .zip(&next)
                .map(|(l, x)| l.saturating_sub(*x) as u64)
                .max()
                .unwrap_or(0);
        let bits = room.min(most) + 1;
        let words = bits.div_ceil(64) as usize;
        let sets = (n as u64 * (n as u64 + 1) / 2).max(1);
        let (work_limit, memory_limit) = limits();
        if 2 * sets * words as u64 > work_limit || sets * words as u64 * 8 > memory_limit {
            return Search::TooLarge;
        }

        // reach[j]: the sets for c = 1..=n-j, `words` words each.
        let mut reach: Vec<Vec<u64>> = vec![Vec::new(); n + 1];
        for j in (0..n).rev() {
            let mut here = vec![0u64; (n - j) * words];
            let later = &reach[j + 1];
            here[..later.len()].copy_from_slice(later);
            if (last[j] as u64) < bits {
                here[last[j] / 64] |= 1 << (last[j] % 64);
            }
            for c in 2..=n - j {
                let source = &later[(c - 2) * words..(c - 1) * words];
                or_shifted(&mut here[(c - 1) * words..c * words], source, next[j], bits);
            }
            reach[j] = here;
        }
        let set = |j: usize, c: usize| -> &[u64] {
            if c == 0 || c > n - j {
                &[]
            } else {
                &reach[j][(c - 1) * words..c * words]
            }
        };

        // The fullest count over every number of documents.
        let positions = |c: usize| layout.position_tokens(required.len() + c);
        let mut best: Option<usize> = None;
        for c in 1..=n {
            let Some(limit) = room.checked_sub(positions(c) as u64) else {
                continue;
            };
            if let Some(value) = highest_at_most(set(0, c), limit as usize) {
                let total = base + value + positions(c);
                best = best.max(Some(total));
            }
        }
        let Some(best) = best.filter(|&total| total >= empty_choice) else {
            return Search::Proven(Vec::new(), empty_choice);
        };

        // The walk: every (documents left, value left) that reaches `best`;
        // each document is taken whenever one of them still can be reached
        // with it, and a choice that goes on beats one that ends here.
        let mut targets: Vec<(usize, usize)> = (1..=n)
            .filter_map(|c| {
                let value = best.checked_sub(base + positions(c))?;
                contains(set(0, c), value).then_some((c, value))
            })
            .collect();
        let mut chosen = Vec::new();
        for j in 0..n {
            let going_on: Vec<(usize, usize)> = targets
                .iter()
                .filter(|&&(c, value)| c >= 2 && value >= next[j])
                .map(|&(c, value)| (c - 1, value - next[j]))
                .filter(|&(c, value)| contains(set(j + 1, c), value))
                .collect();
            if !going_on.is_empty() {
                chosen.push(rest[j]);
                targets = going_on;
            } else if targets.contains(&(1, last[j])) {
                chosen.push(rest[j]);
                return Search::Proven(chosen, best);
            } else {
                targets.retain(|&(c, value)| contains(set(j + 1, c), value));
            }
        }
        // Unreachable when the sets are right; the run built from this
        // choice is counted in full, so nothing wrong can be claimed.
        Search::Proven(chosen, best)
    }
}

/// `target |= source + shift`, dropping values at or above `limit`.
fn or_shifted(target: &mut [u64], source: &[u64], shift: usize, limit: u64) {
    let (word_shift, bit_shift) = (shift / 64, (shift % 64) as u32);
    for (from, slot) in target
        .iter_mut()
        .enumerate()
        .skip(word_shift)
        .map(|(at, slot)| (at - word_shift, slot))
    {
        let mut word = source[from] << bit_shift;
        if bit_shift > 0 && from > 0 {
            word |= source[from - 1] >> (64 - bit_shift);
        }
        *slot |= word;
    }
    if let Some(word) = target.get_mut((limit / 64) as usize) {
        *word &= (1u64 << (limit % 64)) - 1;
    }
}

/// Whether `value` is in `set`.
fn contains(set: &[u64], value: usize) -> bool {
    set.get(value / 64)
        .is_some_and(|word| word & (1 << (value % 64)) != 0)
}

/// The largest value in `set` that is at most `limit`.
fn highest_at_most(set: &[u64], limit: usize) -> Option<usize> {
    let top = (limit / 64).min(set.len().checked_sub(1)?);
    (0..=top).rev().find_map(|at| {
        let mut word = set[at];
        if at == limit / 64 && limit % 64 < 63 {
            word &= (1u64 << (limit % 64 + 1)) - 1;
        }
        (word != 0).then(|| at * 64 + 63 - word.leading_zeros() as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shifted_or_crosses_words_and_drops_values_past_the_limit() {
        let mut source = vec![0u64; 3];
        source[0] = 1 << 1 | 1 << 63;
        source[1] = 1 << 6; // 70
        let mut target = vec![0u64; 3];
        target[0] = 1 << 4;
        // {4} ∪ ({1, 63, 70} + 60), below 130.
        or_shifted(&mut target, &source, 60, 130);
        for value in [4, 61, 123] {
            assert!(contains(&target, value), "{value}");
        }
        assert!(!contains(&target, 130) && !contains(&target, 1));
        // By whole words; nothing lands past the limit.
        let mut target = vec![0u64; 3];
        or_shifted(&mut target, &source, 128, 160);
        assert!(contains(&target, 129));
        assert!(!contains(&target, 191) && !contains(&target, 198));
    }

    #[test]
    fn the_highest_value_at_most_a_limit() {
        let mut set = vec![0u64; 2];
        set[0] = 1 << 3 | 1 << 63;
        set[1] = 1 << 5; // 69
        assert_eq!(highest_at_most(&set, 200), Some(69));
        assert_eq!(highest_at_most(&set, 69), Some(69));
        assert_eq!(highest_at_most(&set, 68), Some(63));
        assert_eq!(highest_at_most(&set, 63), Some(63));
        assert_eq!(highest_at_most(&set, 62), Some(3));
        assert_eq!(highest_at_most(&set, 2), None);
        assert_eq!(highest_at_most(&[], 10), None);
    }
}
