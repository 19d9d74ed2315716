//! `--outline` (SPEC §2.3): the source files that do not fit whole go in as
//! outlines (whole kept lines, from a tree-sitter parse) rather than not at
//! all.
//!
//! With `in-order` and `priority`, the documents that are not required are
//! taken in the policy's order in four passes, every trial the exact count
//! of the complete payload:
//!
//! 1. **Whole, up to the share.** Each document goes in whole when the
//!    payload with it stays within `--outline-share` percent of the budget;
//!    the others wait.
//! 2. **Every file in view.** Each waiting document in a language with a
//!    grammar goes in as its briefest outline (the last level of detail
//!    that keeps anything: `first`, `heads`, `public`, `signatures` or
//!    `full`; see `packer_outline::Detail`) when the payload with it fits
//!    the budget, the highest priority first (`--priority`, a capture's
//!    `priority`), then every file before tests, examples and benchmarks
//!    (by path, as the query's value prior tells them), then the smallest
//!    outlines first when those files hold at most [`EAGER_BYTES`] (all
//!    parsed at once, on every core), else the smallest files first,
//!    parsed [`BATCH`] at a time (ties in the policy's order); either way
//!    only until [`MISSES`] outlines in a row have not fitted, so the rest
//!    of a tree far larger than the budget is not parsed at all. With a
//!    query, the briefest outlines go in the policy's (the relevance) order
//!    instead, [`ORDERED_BATCH`] parsed at a time, until [`ORDERED_MISSES`]
//!    in a row have not fitted, and only for the [`ORDERED_MOST`] most
//!    relevant: the files that matter are the ones in view.
//! 3. **Fuller outlines.** Each outlined document, in order, is sent as its
//!    fullest outline that still fits instead.
//! 4. **Whole, while room remains.** Each waiting document, in order, goes
//!    in whole when the payload still fits: an outline is replaced by its
//!    document at the same place, and a document with no outline is added.
//!
//! The payload holds the required documents first, then the others in the
//! policy's order (whole or outlined alike). A document that ends with
//! nothing is skipped with the numbers of its last whole trial; a document
//! that changed form shows what it adds in all (`neededTokens`, so that the
//! selected documents' numbers add up to the payload) against the room
//! when it first went in (`freeTokens`), and an outline's `contentTokens`
//! are the outline's. `max-fill`
//! chooses its whole documents as without `--outline`, then tries each
//! document left out as an outline at its input-order place.
//!
//! A document gets an outline when its `id` ends in an extension of a
//! language with a grammar (`packer_outline::Language::from_path`) and its
//! text parses cleanly; one that does not parse, or is too large to parse,
//! is listed in [`super::Plan::unoutlined`] with the reason, never sent as
//! a wrong outline.

use std::cmp::Reverse;
use std::collections::HashMap;

use rayon::prelude::*;

use packer_outline::{Detail, Language, Outline};

use super::{OutlineOptions, Reason, Selector};
use crate::envelope::{Entry, Label, OutlineLabel};
use crate::fixture::Document;
use crate::progress::Stage;
use crate::rank::prior::is_test;

/// The state of `--outline` in one selection run.
pub(super) struct Outlining<'a> {
    options: OutlineOptions,
    documents: &'a [Document],
    /// Each document's place in the policy's order (payload order).
    rank: Vec<usize>,
    /// Documents that needed an outline and could not get one, with why.
    pub(super) unoutlined: Vec<(usize, String)>,
    /// Told of each file outlined.
    progress: crate::Progress,
}

/// A document's outlines, fullest first, with the entry of one of them
/// (see [`Pick`]).
struct Made {
    levels: Vec<(Detail, Outline)>,
    entry: Option<Entry>,
}

/// Which level's entry [`Selector::make_outlines`] writes and counts.
#[derive(Clone, Copy)]
enum Pick {
    Fullest,
    Briefest,
}

/// How many documents are outlined at once (on every core) in pass 2.
const BATCH: usize = 64;

/// When the waiting files in a language with a grammar hold at most this
/// many bytes, pass 2 parses them all first and tries their briefest
/// outlines smallest first (by exact tokens); a larger tree is parsed
/// [`BATCH`] files at a time, the smallest files first, and only as far as
/// pass 2 goes.
const EAGER_BYTES: usize = 8 << 20;

/// Pass 2 stops after this many outlines in a row that do not fit.
pub(super) const MISSES: usize = 64;

/// In order (with a query), outlines are made this many at a time (the
/// most relevant first, so the first batches are the ones that matter)...
const ORDERED_BATCH: usize = 16;

/// ...and pass 2 stops after this many in a row that do not fit.
const ORDERED_MISSES: usize = 16;

/// In order, only this many of the waiting files (the most relevant) are
/// outlined at all: the tree listing names every file, and past this rank
/// an outline rarely holds what the query is about (on the development
/// tasks of `scripts/relevance`, 99% of a fix's files rank within it).
const ORDERED_MOST: usize = 64;

impl<'a> Outlining<'a> {
    pub(super) fn new(
        options: OutlineOptions,
        documents: &'a [Document],
        progress: crate::Progress,
    ) -> Outlining<'a> {
        Outlining {
            options,
            documents,
            rank: vec![usize::MAX; documents.len()],
            unoutlined: Vec::new(),
            progress,
        }
    }
}

/// The outline label of `outline`.
fn label(outline: &Outline) -> Label {
    Label::Outline(OutlineLabel {
        lines: outline.lines_label(),
        of_lines: outline.of_lines,
    })
}

impl Selector<'_> {
    /// The passes of the module documentation over `order`.
    pub(super) fn outline_in_order(&mut self, order: &[usize]) {
        let Some(outlining) = &mut self.outlines else {
            return;
        };
        for (rank, &index) in order.iter().enumerate() {
            outlining.rank[index] = rank;
        }
        let share = u64::from(outlining.options.share_percent.min(100));
        let limit = self.available.saturating_mul(share) / 100;
        let mut waiting = Vec::new();
        for &index in order {
            let before = self.total();
            let position = self.ranked_place(index);
            let after = self.total_with_at_position(index, None, position);
            if after as u64 <= limit {
                self.insert_at(index, position, None, Reason::Fits, before, after);
            } else {
                waiting.push(index);
            }
        }
        // The briefest outline of each, source before tests, the smallest
        // files first (the most files in view), ties in the policy's
        // order; files are parsed a batch at a time, and only until MISSES
        // outlines in a row have not fitted.
        let mut candidates: Vec<usize> = waiting
            .iter()
            .copied()
            .filter(|&index| self.outlinable(index))
            .collect();
        let in_order = self
            .outlines
            .as_ref()
            .is_some_and(|outlining| outlining.options.in_order);
        if let Some(outlining) = &self.outlines
            && !in_order
        {
            candidates.sort_by_key(|&index| {
                let document = &outlining.documents[index];
                (
                    Reverse(document.priority),
                    is_test(&document.id),
                    document.content.len(),
                    outlining.rank[index],
                )
            });
        }
        if let Some(outlining) = &self.outlines {
            let parsed = if in_order {
                candidates.len().min(ORDERED_MOST)
            } else {
                candidates.len()
            };
            outlining.progress.begin(Stage::Outlining, parsed);
        }
        let mut made: HashMap<usize, Made> = HashMap::new();
        let mut misses = 0;
        let bytes: usize = match &self.outlines {
            Some(outlining) => candidates
                .iter()
                .map(|&index| outlining.documents[index].content.len())
                .sum(),
            None => 0,
        };
        if in_order {
            // In order (relevance, with a query): each candidate's briefest
            // outline, the most relevant first, a batch parsed at a time;
            // pass 3 then makes them fuller in the same order.
            candidates.truncate(ORDERED_MOST);
            'ordered: for batch in candidates.chunks(ORDERED_BATCH) {
                for (&index, outcome) in batch.iter().zip(self.make_outlines(batch, Pick::Briefest))
                {
                    if misses >= ORDERED_MISSES {
                        break 'ordered;
                    }
                    self.try_briefest(index, outcome, &mut misses, &mut made);
                }
            }
        } else if bytes <= EAGER_BYTES {
            // Every candidate parsed at once, the briefest outlines'
            // entries smallest first (by their exact tokens).
            let outcomes = self.make_outlines(&candidates, Pick::Briefest);
            let mut all: Vec<(usize, usize, Result<Made, String>)> = candidates
                .iter()
                .copied()
                .enumerate()
                .zip(outcomes)
                .map(|((place, index), outcome)| (place, index, outcome))
                .collect();
            // `place` is the place in `candidates`, priority first.
            all.sort_by_key(|(place, index, outcome)| {
                let tokens = match outcome {
                    Ok(Made {
                        entry: Some(entry), ..
                    }) => entry.counts().next,
                    _ => usize::MAX,
                };
                let (priority, test) = self.outlines.as_ref().map_or((0, false), |outlining| {
                    let document = &outlining.documents[*index];
                    (document.priority, is_test(&document.id))
                });
                (Reverse(priority), test, tokens, *place)
            });
            for (_, index, outcome) in all {
                if misses >= MISSES {
                    break;
                }
                self.try_briefest(index, outcome, &mut misses, &mut made);
            }
        } else {
            'batches: for batch in candidates.chunks(BATCH) {
                for (&index, outcome) in batch.iter().zip(self.make_outlines(batch, Pick::Briefest))
                {
                    if misses >= MISSES {
                        break 'batches;
                    }
                    self.try_briefest(index, outcome, &mut misses, &mut made);
                }
            }
        }
        // Fuller outlines, in order (their entries written on every core).
        let outlined: Vec<usize> = waiting
            .iter()
            .copied()
            .filter(|index| self.derived.contains_key(index) && made.contains_key(index))
            .collect();
        let fuller: Vec<Vec<(Entry, &Outline)>> = outlined
            .par_iter()
            .map(|index| {
                let levels = &made[index].levels;
                let richer = levels.len().saturating_sub(1);
                levels
                    .iter()
                    .take(richer)
                    .map(|(_, outline)| (self.outline_entry(*index, outline), outline))
                    .collect()
            })
            .collect();
        for (index, levels) in outlined.into_iter().zip(fuller) {
            for (entry, outline) in levels {
                if self.crosses(&entry) {
                    continue;
                }
                let before = self.total();
                let after = self.total_replacing(index, Some(&entry));
                if after as u64 <= self.available {
                    let tokens = self.layout.counter().count(&outline.content);
                    self.replace(index, Some(entry), Reason::OutlineFits, before, after);
                    self.set_content_tokens(index, tokens);
                    break;
                }
            }
        }
        // Whole, while room remains.
        for &index in &waiting {
            let before = self.total();
            if self.derived.contains_key(&index) {
                let after = self.total_replacing(index, None);
                if after as u64 <= self.available {
                    self.replace(index, None, Reason::Fits, before, after);
                    self.set_content_tokens(index, self.content_tokens[index]);
                }
            } else {
                let position = self.ranked_place(index);
                let after = self.total_with_at_position(index, None, position);
                if after as u64 <= self.available {
                    self.insert_at(index, position, None, Reason::Fits, before, after);
                } else {
                    self.skipped.push(index);
                    self.decide(index, Reason::WholeDocumentDoesNotFit, before, after);
                }
            }
        }
    }

    /// Pass 2's trial of document `index` as its briefest outline (made
    /// in `outcome`), counting `misses` in a row; what was made is kept in
    /// `made` for pass 3.
    fn try_briefest(
        &mut self,
        index: usize,
        outcome: Result<Made, String>,
        misses: &mut usize,
        made: &mut HashMap<usize, Made>,
    ) {
        let Some(mut outcome) = self.outlined(index, outcome) else {
            return;
        };
        if let (Some(entry), Some((_, outline))) = (outcome.entry.take(), outcome.levels.last()) {
            let position = self.ranked_place(index);
            if self.try_entry_at(index, entry, position, outline) {
                *misses = 0;
            } else {
                *misses += 1;
            }
        }
        made.insert(index, outcome);
    }

    /// With `--outline` under `max-fill`: tries each of `left_out` (input
    /// order) as an outline at its input-order place; returns those that
    /// got none.
    pub(super) fn outline_left_out(&mut self, left_out: &[usize]) -> Vec<usize> {
        if self.outlines.is_none() {
            return left_out.to_vec();
        }
        let mut still_out = Vec::new();
        if let Some(outlining) = &self.outlines {
            outlining.progress.begin(Stage::Outlining, left_out.len());
        }
        let outcomes = self.make_outlines(left_out, Pick::Fullest);
        for (&index, outcome) in left_out.iter().zip(outcomes) {
            let position = self.place(index, false);
            let fits = self
                .outlined(index, outcome)
                .is_some_and(|made| self.try_outline_levels(index, made, Some(position)));
            if !fits {
                still_out.push(index);
            }
        }
        still_out
    }

    /// Whether document `index` is in a language with a grammar.
    fn outlinable(&self, index: usize) -> bool {
        self.outlines.as_ref().is_some_and(|outlining| {
            Language::from_path(&outlining.documents[index].id).is_some_and(Language::has_grammar)
        })
    }

    /// The outlines of `indices`, made on every core, each with the entry
    /// of the level `pick` says.
    fn make_outlines(&self, indices: &[usize], pick: Pick) -> Vec<Result<Made, String>> {
        let Some(outlining) = &self.outlines else {
            return Vec::new();
        };
        let documents = outlining.documents;
        let progress = &outlining.progress;
        let maker = self.layout.entries();
        indices
            .par_iter()
            .map(|&index| {
                progress.advance(1);
                let document = &documents[index];
                let Some(language) = Language::from_path(&document.id) else {
                    return Ok(Made {
                        levels: Vec::new(),
                        entry: None,
                    });
                };
                let levels = packer_outline::outlines(language, &document.content)
                    .map_err(|error| format!("{} outline: {error}", language.name()))?;
                let chosen = match pick {
                    Pick::Fullest => levels.first(),
                    Pick::Briefest => levels.last(),
                };
                let entry = chosen.map(|(_, outline)| {
                    maker.document(document, &outline.content, Some(&label(outline)))
                });
                Ok(Made { levels, entry })
            })
            .collect()
    }

    /// The outlines made for document `index`, or `None` (with the reason
    /// recorded) when it could not be outlined.
    fn outlined(&mut self, index: usize, outcome: Result<Made, String>) -> Option<Made> {
        match outcome {
            Ok(made) => Some(made),
            Err(why) => {
                if let Some(outlining) = &mut self.outlines {
                    let at = outlining.unoutlined.partition_point(|(i, _)| *i < index);
                    outlining.unoutlined.insert(at, (index, why));
                }
                None
            }
        }
    }

    /// Adds document `index` as the fullest of its outlines that fits, at
    /// `position` (or its place in the policy's order); returns whether one
    /// did.
    fn try_outline_levels(&mut self, index: usize, made: Made, position: Option<usize>) -> bool {
        let position = position.unwrap_or_else(|| self.ranked_place(index));
        let mut first = made.entry;
        for (_, outline) in &made.levels {
            let entry = first
                .take()
                .unwrap_or_else(|| self.outline_entry(index, outline));
            if self.try_entry_at(index, entry, position, outline) {
                return true;
            }
        }
        false
    }

    /// The entry of document `index` sent as `outline`.
    fn outline_entry(&self, index: usize, outline: &Outline) -> Entry {
        let document = &self.outlines.as_ref().expect("outlining").documents[index];
        self.layout
            .entries()
            .document(document, &outline.content, Some(&label(outline)))
    }

    /// Adds document `index` as `entry` (its `outline`) at `position` when
    /// the payload still fits; returns whether it did.
    fn try_entry_at(
        &mut self,
        index: usize,
        entry: Entry,
        position: usize,
        outline: &Outline,
    ) -> bool {
        if self.crosses(&entry) {
            return false;
        }
        let before = self.total();
        let after = self.total_with_at_position(index, Some(&entry), position);
        if after as u64 > self.available {
            return false;
        }
        let tokens = self.layout.counter().count(&outline.content);
        self.insert_at(
            index,
            position,
            Some(entry),
            Reason::OutlineFits,
            before,
            after,
        );
        self.set_content_tokens(index, tokens);
        true
    }

    /// Sets the `contentTokens` of the decision on document `index`.
    fn set_content_tokens(&mut self, index: usize, tokens: usize) {
        if let Some(decision) = &mut self.decisions[index] {
            decision.content_tokens = tokens;
        }
    }

    /// Where document `index` goes in the payload: after the required
    /// documents and those before it in the policy's order.
    fn ranked_place(&self, index: usize) -> usize {
        let rank = self.outlines.as_ref().map_or(&[][..], |o| &o.rank[..]);
        let of = |i: usize| rank.get(i).copied().unwrap_or(usize::MAX);
        self.order.partition_point(|&i| {
            self.decisions[i].is_some_and(|d| d.reason == Reason::Required) || of(i) < of(index)
        })
    }

    /// Puts document `index` at `position`, whole or as `derived`, and
    /// records the decision.
    fn insert_at(
        &mut self,
        index: usize,
        position: usize,
        derived: Option<Entry>,
        reason: Reason,
        before: usize,
        after: usize,
    ) {
        let at_end = position == self.order.len();
        let counts = derived
            .as_ref()
            .map_or_else(|| self.layout.counts(index), Entry::counts);
        self.tally.push_counts(index, counts, at_end);
        self.order.insert(position, index);
        self.counted = after;
        if let Some(entry) = derived {
            self.derived.insert(index, entry);
        }
        self.decide(index, reason, before, after);
    }

    /// Sends document `index`, now an outline, as `with` instead (another
    /// outline, or whole when `None`) at the same place, and records the
    /// decision with the numbers of that change.
    fn replace(
        &mut self,
        index: usize,
        with: Option<Entry>,
        reason: Reason,
        before: usize,
        after: usize,
    ) {
        let Some(old) = self.derived.remove(&index) else {
            return;
        };
        let is_last = self.order.last() == Some(&index);
        let new = with
            .as_ref()
            .map_or_else(|| self.layout.counts(index), Entry::counts);
        self.tally.replace(old.counts(), new, is_last);
        if let Some(entry) = with {
            self.derived.insert(index, entry);
        }
        self.counted = after;
        let first = self.decisions[index];
        self.decide(index, reason, before, after);
        // What the document adds in all, against the room when it first
        // went in: the selected documents' numbers still add up.
        if let (Some(first), Some(decision)) = (first, &mut self.decisions[index]) {
            decision.needed_tokens += first.needed_tokens;
            decision.free_tokens = first.free_tokens;
        }
    }
}
