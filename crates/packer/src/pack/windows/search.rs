//! The exhaustive search for a packing with fewer windows than found, over
//! the documents' exact counts, bounded in steps.

use super::packing::Packing;
use super::{Bin, Context, Costs, MOST_SEARCH_STEPS, sort_bins};

/// What the exhaustive search found.
pub(super) enum Search {
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
/// (its [`Tally`](crate::envelope::Tally); see [`fits_counted`]).
pub(super) fn search_fewer(context: &Context<'_>, items: &[usize], found: usize) -> Search {
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
/// counted exactly with its note (its [`Tally`](crate::envelope::Tally)). A window's note only
/// grows its count beyond the arithmetic without it, so the arithmetic's
/// room still rules out a branch of the search that cannot hold what is
/// left.
pub(super) fn fits_counted(
    costs: &Costs<'_>,
    limit: usize,
    members: &[usize],
    index: usize,
) -> bool {
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
pub(super) fn place(
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
