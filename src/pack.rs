//! Selection: which whole documents go into the envelope, in which order,
//! and the decision with its numbers for every document (SPEC §3).
//!
//! Pure: no I/O, no terminal, no command line. Every number compared with
//! the budget is the exact count of a complete envelope, taken from
//! [`crate::envelope::Layout`].

use std::cmp::Reverse;

use rayon::prelude::*;

use std::collections::HashMap;

use crate::envelope::{Entry, ExcerptLabel, Layout, Tally, document_json, omitted_json};
use crate::error::Error;
use crate::fixture::Document;
use crate::focus::Focus;
use crate::tokens::Counter;

/// The order in which documents are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Policy {
    /// Input order is priority order (the default).
    #[default]
    InOrder,
    /// `priority` descending, then `contentTokens` ascending, then `id`.
    Priority,
    /// The subset that fills the budget most.
    MaxFill,
}

impl Policy {
    /// Every policy.
    pub const ALL: [Policy; 3] = [Policy::InOrder, Policy::Priority, Policy::MaxFill];

    /// The name used on the command line and in the output.
    pub fn name(self) -> &'static str {
        match self {
            Policy::InOrder => "in-order",
            Policy::Priority => "priority",
            Policy::MaxFill => "max-fill",
        }
    }
}

/// Why a document is in or out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reason {
    /// Selected: it fit when tried.
    Fits,
    /// Selected first because it is required.
    Required,
    /// Skipped: the envelope with it would exceed the budget.
    WholeDocumentDoesNotFit,
    /// Selected as a focused excerpt because the whole document did not fit.
    ExcerptFits,
}

impl Reason {
    /// The name used in the output.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Fits => "fits",
            Reason::Required => "required",
            Reason::WholeDocumentDoesNotFit => "whole-document-does-not-fit",
            Reason::ExcerptFits => "excerpt-fits",
        }
    }
}

/// The decision for one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    /// The document's index in the input.
    pub index: usize,
    /// Whether it is in the payload.
    pub selected: bool,
    /// Why.
    pub reason: Reason,
    /// Tokens of the raw `content` on its own.
    pub content_tokens: usize,
    /// How much the candidate envelope grew the count (negative when moving
    /// a document out of the `omitted` list shrinks it).
    pub needed_tokens: i64,
    /// `availableTokens` minus the count before the decision.
    pub free_tokens: u64,
}

/// What to pack and how.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Options {
    /// The selection policy.
    pub policy: Policy,
    /// List the documents left out inside the payload.
    pub note_omissions: bool,
    /// Try a focused excerpt of a document whose whole text does not fit.
    pub excerpt: Option<ExcerptOptions>,
}

/// How focused excerpts are made (`--excerpt-query` and its companions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptOptions {
    /// The query; its terms select the lines kept.
    pub query: String,
    /// Lines kept on each side of a matching line.
    pub context: usize,
    /// The cap on an excerpt, in characters.
    pub max_chars: usize,
}

/// The result of packing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The budget the payload had to fit.
    pub available_tokens: u64,
    /// The exact count of `payload_text`.
    pub used_tokens: usize,
    /// Indices of the selected documents, in payload order.
    pub order: Vec<usize>,
    /// Indices of the skipped documents, in the order they were tried.
    pub skipped: Vec<usize>,
    /// Whether focused excerpts were allowed (`--excerpt-query`).
    pub excerpts: bool,
    /// One decision per document, in input order.
    pub decisions: Vec<Decision>,
    /// For `max-fill`: whether the selection is proven to be the fullest.
    pub optimal: Option<bool>,
    /// The exact payload.
    pub payload_text: String,
}

/// The largest table (in bits) `max-fill` builds to prove optimality: 64 MiB.
const MAX_FILL_TABLE_BITS: u128 = 1 << 29;

/// Selects documents under `available` tokens.
pub fn plan(
    documents: &[Document],
    counter: Counter,
    available: u64,
    options: &Options,
) -> Result<Plan, Error> {
    // One parallel pass: each document's content alone, its envelope entry
    // and, with omissions noted, its omitted entry.
    let notes = options.note_omissions;
    let counted: Vec<(usize, Entry, Option<Entry>)> = documents
        .par_iter()
        .map(|document| {
            let content = counter.count(&document.content);
            let json = document_json(document, &document.content, None);
            let entry = Entry::document(json, &counter, notes);
            let omitted = notes.then(|| Entry::omitted(omitted_json(document), &counter));
            (content, entry, omitted)
        })
        .collect();
    let mut content_tokens = Vec::with_capacity(counted.len());
    let mut entries = Vec::with_capacity(counted.len());
    let mut omitted = Vec::with_capacity(if notes { counted.len() } else { 0 });
    for (content, entry, omitted_entry) in counted {
        content_tokens.push(content);
        entries.push(entry);
        omitted.extend(omitted_entry);
    }
    let layout = Layout::new(counter, entries, notes.then_some(omitted));
    let mut selector = Selector::new(&layout, available, content_tokens)?;
    selector.excerpts = options.excerpt.as_ref().map(|excerpt| Excerpts {
        options: excerpt,
        documents,
        chosen: HashMap::new(),
    });
    let required: Vec<usize> = documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    selector.take_required(&required)?;
    let rest = documents.iter().filter(|d| !d.required);
    let optimal = match options.policy {
        Policy::InOrder => {
            for document in rest {
                selector.try_add(document.index);
            }
            None
        }
        Policy::Priority => {
            let mut order: Vec<&Document> = rest.collect();
            order.sort_by_key(|d| {
                (
                    Reverse(d.priority),
                    selector.content_tokens[d.index],
                    d.id.as_bytes(),
                )
            });
            for document in order {
                selector.try_add(document.index);
            }
            None
        }
        Policy::MaxFill => {
            let rest: Vec<usize> = rest.map(|d| d.index).collect();
            Some(selector.max_fill(&required, &rest))
        }
    };
    Ok(selector.finish(optimal))
}

/// Focused excerpts: how to make them, and those chosen.
struct Excerpts<'a> {
    options: &'a ExcerptOptions,
    documents: &'a [Document],
    chosen: HashMap<usize, Entry>,
}

/// The state of one selection run.
struct Selector<'a> {
    layout: &'a Layout,
    excerpts: Option<Excerpts<'a>>,
    available: u64,
    content_tokens: Vec<usize>,
    tally: Tally<'a>,
    order: Vec<usize>,
    skipped: Vec<usize>,
    decisions: Vec<Option<Decision>>,
}

impl<'a> Selector<'a> {
    fn new(layout: &'a Layout, available: u64, content_tokens: Vec<usize>) -> Result<Self, Error> {
        let tally = Tally::new(layout);
        let empty = tally.total();
        if empty as u64 > available {
            return Err(Error::EmptyEnvelopeDoesNotFit {
                needed: empty,
                available,
            });
        }
        Ok(Selector {
            layout,
            excerpts: None,
            available,
            content_tokens,
            tally,
            order: Vec::new(),
            skipped: Vec::new(),
            decisions: vec![None; layout.len()],
        })
    }

    /// Takes every required document in input order, or names those that
    /// do not fit.
    fn take_required(&mut self, required: &[usize]) -> Result<(), Error> {
        let missing: Vec<usize> = required
            .iter()
            .copied()
            .filter(|&index| !self.try_add_as(index, Reason::Required))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::RequiredDoesNotFit {
                indices: missing,
                available: self.available,
            })
        }
    }

    /// Adds `index` at the end if the envelope still fits; records the decision.
    fn try_add(&mut self, index: usize) -> bool {
        self.try_add_as(index, Reason::Fits)
    }

    fn try_add_as(&mut self, index: usize, reason: Reason) -> bool {
        let before = self.tally.total();
        let after = self.tally.total_with(index);
        let fits = after as u64 <= self.available;
        if fits {
            self.tally.push(index);
            self.order.push(index);
            self.decide(index, reason, before, after);
        } else if reason == Reason::Fits && self.try_excerpt(index, true) {
            // Decided and added as an excerpt.
        } else {
            self.skipped.push(index);
            self.decide(index, Reason::WholeDocumentDoesNotFit, before, after);
        }
        fits || self.decisions[index].is_some_and(|d| d.selected)
    }

    /// Records a decision with the counts before and after it.
    fn decide(&mut self, index: usize, reason: Reason, before: usize, after: usize) {
        self.decisions[index] = Some(Decision {
            index,
            selected: reason != Reason::WholeDocumentDoesNotFit,
            reason,
            content_tokens: self.content_tokens[index],
            needed_tokens: after as i64 - before as i64,
            free_tokens: self.available - before as u64,
        });
    }

    /// With `--excerpt-query`: tries document `index` as a focused excerpt,
    /// all its windows first, then dropping the last window one at a time,
    /// and adds the first that fits (at the end of the payload when
    /// `at_end`, else at its input-order place). Returns whether one did.
    fn try_excerpt(&mut self, index: usize, at_end: bool) -> bool {
        let Some(excerpts) = &self.excerpts else {
            return false;
        };
        let document = &excerpts.documents[index];
        let options = excerpts.options;
        let focus = Focus::new(&document.content, Some(&options.query), options.context);
        let counter = self.layout.counter();
        let notes = self.layout.notes_omissions();
        let before = self.tally.total();
        for windows in (1..=focus.windows()).rev() {
            let excerpt = focus.excerpt(windows, options.max_chars);
            if !excerpt.shows_lines {
                break;
            }
            let label = ExcerptLabel {
                query: options.query.clone(),
                lines: excerpt.lines,
                of_chars: focus.chars(),
            };
            let json = document_json(document, &excerpt.text, Some(&label));
            let entry = Entry::document(json, &counter, notes);
            let after = self.tally.total_with_counts(index, entry.counts(), at_end);
            if after as u64 <= self.available {
                self.tally.push_counts(index, entry.counts(), at_end);
                if at_end {
                    self.order.push(index);
                } else {
                    let at = self.order.partition_point(|&i| {
                        i < index || self.decisions[i].is_some_and(|d| d.reason == Reason::Required)
                    });
                    self.order.insert(at, index);
                }
                self.decide(index, Reason::ExcerptFits, before, after);
                if let Some(excerpts) = &mut self.excerpts {
                    excerpts.chosen.insert(index, entry);
                }
                return true;
            }
        }
        false
    }

    /// Chooses among `rest` (input order) the subset that makes the fullest
    /// envelope after the required documents, which are already in. Returns
    /// whether the choice is proven optimal.
    fn max_fill(&mut self, required: &[usize], rest: &[usize]) -> bool {
        let proven = if self.layout.notes_omissions() {
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

    fn finish(self, optimal: Option<bool>) -> Plan {
        let used_tokens = self.tally.total();
        let payload_text = match &self.excerpts {
            Some(excerpts) => self
                .layout
                .render_with(&self.order, |i| excerpts.chosen.get(&i).map(Entry::json)),
            None => self.layout.render(&self.order),
        };
        debug_assert_eq!(
            used_tokens,
            self.layout_counter_check(&payload_text),
            "the per-entry count disagrees with a full count"
        );
        Plan {
            available_tokens: self.available,
            used_tokens,
            order: self.order,
            skipped: self.skipped,
            excerpts: self.excerpts.is_some(),
            decisions: self
                .decisions
                .into_iter()
                .map(|d| d.expect("every document is decided"))
                .collect(),
            optimal,
            payload_text,
        }
    }

    #[cfg(debug_assertions)]
    fn layout_counter_check(&self, payload: &str) -> usize {
        self.layout.counter().count(payload)
    }

    #[cfg(not(debug_assertions))]
    fn layout_counter_check(&self, _payload: &str) -> usize {
        self.tally.total()
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
    use crate::fixture::Format;
    use crate::tokens::Encoding;

    fn document(index: usize, content: &str) -> Document {
        Document {
            index,
            id: format!("d{index}"),
            url: format!("https://example.com/{index}"),
            format: Format::Text,
            content: content.into(),
            priority: 0,
            required: false,
        }
    }

    fn run(documents: &[Document], available: u64, options: Options) -> Result<Plan, Error> {
        plan(
            documents,
            Counter::new(Encoding::Cl100kBase),
            available,
            &options,
        )
    }

    fn with_policy(policy: Policy) -> Options {
        Options {
            policy,
            ..Options::default()
        }
    }

    /// The count of the envelope holding just `documents[i]`, for sizing budgets.
    fn alone(documents: &[Document], i: usize) -> u64 {
        let only = Document {
            index: 0,
            ..documents[i].clone()
        };
        run(&[only], 1_000_000, Options::default())
            .unwrap()
            .used_tokens as u64
    }

    #[test]
    fn skips_a_document_that_does_not_fit_and_keeps_going() {
        let documents = [
            document(0, "short"),
            document(1, &"long text ".repeat(50)),
            document(2, "short too"),
        ];
        let both = [
            documents[0].clone(),
            Document {
                index: 1,
                ..documents[2].clone()
            },
        ];
        let budget = run(&both, 1_000_000, Options::default())
            .unwrap()
            .used_tokens as u64;
        let plan = run(&documents, budget, Options::default()).unwrap();
        assert_eq!(plan.order, vec![0, 2]);
        assert_eq!(plan.skipped, vec![1]);
        let skip = plan.decisions[1];
        assert_eq!(skip.reason, Reason::WholeDocumentDoesNotFit);
        assert!(skip.needed_tokens > skip.free_tokens as i64);
    }

    #[test]
    fn priority_tries_high_priority_then_small_then_by_id() {
        let mut documents = vec![
            document(0, "low priority"),
            document(1, "high priority but rather longer than the other one"),
            document(2, "high priority"),
            document(3, "tie"),
            document(4, "tie"),
        ];
        documents[0].priority = -1;
        documents[1].priority = 5;
        documents[2].priority = 5;
        documents[3].id = "b".into();
        documents[4].id = "a".into();
        let plan = run(&documents, 10_000, with_policy(Policy::Priority)).unwrap();
        assert_eq!(plan.order, vec![2, 1, 4, 3, 0]);
    }

    #[test]
    fn required_documents_come_first_in_input_order() {
        let mut documents = vec![document(0, "a"), document(1, "b"), document(2, "c")];
        documents[1].required = true;
        documents[2].required = true;
        for policy in Policy::ALL {
            let plan = run(&documents, 10_000, with_policy(policy)).unwrap();
            assert_eq!(plan.order, vec![1, 2, 0], "{policy:?}");
            assert_eq!(plan.decisions[1].reason, Reason::Required);
        }
    }

    #[test]
    fn a_required_document_that_cannot_fit_is_an_error_naming_it() {
        let mut documents = vec![document(0, "a"), document(1, &"x y ".repeat(400))];
        documents[0].required = true;
        documents[1].required = true;
        for policy in Policy::ALL {
            let error = run(&documents, 100, with_policy(policy)).unwrap_err();
            assert_eq!(
                error,
                Error::RequiredDoesNotFit {
                    indices: vec![1],
                    available: 100
                }
            );
        }
    }

    #[test]
    fn an_envelope_that_cannot_even_be_empty_is_an_error() {
        let documents = [document(0, "a")];
        let error = run(&documents, 3, Options::default()).unwrap_err();
        assert_eq!(
            error,
            Error::EmptyEnvelopeDoesNotFit {
                needed: 4,
                available: 3
            }
        );
        let plan = run(&documents, 4, Options::default()).unwrap();
        assert_eq!(plan.payload_text, r#"{"documents":[]}"#);
    }

    #[test]
    fn max_fill_finds_a_fuller_choice_than_in_order_and_proves_it() {
        let documents = [
            document(0, "a first document of middling length"),
            document(1, &"a big document that fills the budget best ".repeat(3)),
            document(2, "tiny"),
        ];
        let budget = alone(&documents, 1) + 1;
        let in_order = run(&documents, budget, Options::default()).unwrap();
        let max_fill = run(&documents, budget, with_policy(Policy::MaxFill)).unwrap();
        assert!(max_fill.used_tokens > in_order.used_tokens);
        assert_eq!(max_fill.order, vec![1]);
        assert_eq!(max_fill.optimal, Some(true));
        assert_eq!(in_order.optimal, None);
    }

    #[test]
    fn a_document_too_long_whole_goes_in_as_a_labelled_excerpt() {
        let mut lines: Vec<String> = (1..=200).map(|i| format!("filler line {i}")).collect();
        lines[99] = "the needle is here".into();
        let documents = [document(0, "intro"), document(1, &lines.join("\n"))];
        let options = Options {
            excerpt: Some(ExcerptOptions {
                query: "needle".into(),
                context: 2,
                max_chars: 12_000,
            }),
            ..Options::default()
        };
        let plan = run(&documents, 200, options).unwrap();
        assert_eq!(plan.order, vec![0, 1]);
        assert_eq!(plan.decisions[1].reason, Reason::ExcerptFits);
        assert!(plan.payload_text.contains(
            r#""content":"[...]\nfiller line 98\nfiller line 99\nthe needle is here\nfiller line 101\nfiller line 102\n[...]","excerpt":{"query":"needle","lines":"98-102","ofChars":"#
        ));
        // Without the flag the same document is skipped whole.
        let plan = run(&documents, 200, Options::default()).unwrap();
        assert_eq!(plan.order, vec![0]);
    }

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
