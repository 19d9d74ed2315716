//! The lower bound on the number of windows: each window relaxed to a
//! plain capacity, Martello and Toth's `L2` over the documents' sizes.

use super::{Context, MOST_BOUNDS_TRIED};

/// The lower bound on the number of windows for `items`, and whether it
/// reaches `found` (see the module documentation).
pub(super) fn lower_bound(context: &Context<'_>, items: &[usize], found: usize) -> (usize, bool) {
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
pub(super) fn l2(sizes: &[u64], capacity: i64) -> usize {
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
