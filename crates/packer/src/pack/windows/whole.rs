//! Windows when the split is not tiktoken's: the arithmetic only orders
//! the documents, and every window a document goes into is counted whole,
//! label included.

use rayon::prelude::*;

use super::labels::labelled;
use super::packing::Packing;
use super::{
    Bin, Context, Windows, check_required, decide_required_and_skipped, decision, render, sort_bins,
};
use crate::error::Error;
use crate::pack::{Decision, Failure, Reason};

/// Packing counting every window whole (see [`Splitting::Whole`](crate::tokens::Splitting::Whole)): the
/// arithmetic orders the documents and skips windows plainly too full;
/// every document goes into the first window (in the order they were
/// opened) whose payload with it, counted whole with the label
/// `window g of g`, fits `available − slack`, where `g` is the number of
/// windows expected. The windows are then counted with their real labels;
/// when `g` was not the number found, or a real label made a window too
/// big, packing starts again with the new `g` and enough slack. A
/// decision's numbers are those of the payload it was tried against.
pub(super) fn whole_windows(context: &Context<'_>) -> Result<Windows, Failure> {
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
