//! A running exact count of an envelope as entries are added one by one,
//! its note included.

use super::Ending;
use super::counted::{Envelopes, NoteView, Omitted};
use super::entry::EntryCounts;

// The whole counts of `Envelopes` are a tally of their documents: they
// are written here, so that the envelope's entries need not know the
// tally that counts them.
impl Envelopes {
    /// The exact count of the envelope whose documents are `order` (in that
    /// order) and, with omissions noted, whose note lists the other
    /// documents in input order.
    pub fn total(&self, order: &[usize]) -> usize {
        Tally::holding(self, order).total()
    }

    /// [`Envelopes::total`] as if omissions were not noted (a window's
    /// count before its note, `--windows`).
    pub fn total_without_notes(&self, order: &[usize]) -> usize {
        let mut tally = Tally::without_notes(self);
        for &index in order {
            tally.push(index);
        }
        tally.total()
    }
}

/// The running count of an envelope being filled: documents are added to
/// the `documents` list (and leave the omission note).
#[derive(Debug, Clone)]
pub struct Tally<'a> {
    pub(super) layout: &'a Envelopes,
    /// The last document's counts.
    pub(super) last: Option<EntryCounts>,
    /// Sum of `next` over the documents in the envelope.
    pub(super) next_sum: usize,
    /// How many documents the envelope holds.
    pub(super) documents: usize,
    /// Documents still omitted (only with omissions noted).
    pub(super) omitted: Option<Omitted>,
}

impl<'a> Tally<'a> {
    /// The envelope with no documents (every document omitted, when
    /// omissions are noted).
    pub fn new(layout: &'a Envelopes) -> Tally<'a> {
        Tally {
            layout,
            last: None,
            next_sum: 0,
            documents: 0,
            omitted: layout.omitted.as_deref().map(Omitted::all),
        }
    }

    /// The envelope holding `order`, in that order (the others omitted,
    /// when omissions are noted).
    pub fn holding(layout: &'a Envelopes, order: &[usize]) -> Tally<'a> {
        let mut tally = Tally::new(layout);
        for &index in order {
            tally.push(index);
        }
        tally
    }

    /// The envelope with no documents, counted as if omissions were not
    /// noted.
    pub fn without_notes(layout: &'a Envelopes) -> Tally<'a> {
        Tally {
            layout,
            last: None,
            next_sum: 0,
            documents: 0,
            omitted: None,
        }
    }

    /// The exact count of the current envelope.
    pub fn total(&self) -> usize {
        self.total_of(self.last, self.next_sum, self.documents, None)
    }

    /// The exact count of the envelope with `index` added at the end.
    pub fn total_with(&self, index: usize) -> usize {
        self.total_with_at(index, true)
    }

    /// The exact count of the envelope with `index` added: at the end when
    /// `at_end`, else anywhere before the current last document (the count
    /// does not depend on where).
    pub fn total_with_at(&self, index: usize, at_end: bool) -> usize {
        self.total_with_counts(index, self.layout.counts(index), at_end)
    }

    /// [`Tally::total_with_at`] for document `index` given as another entry
    /// with `counts` (a focused excerpt of it).
    pub fn total_with_counts(&self, index: usize, counts: EntryCounts, at_end: bool) -> usize {
        let last = if at_end {
            Some(counts)
        } else {
            self.last.or(Some(counts))
        };
        self.total_of(
            last,
            self.next_sum + counts.next,
            self.documents + 1,
            Some(index),
        )
    }

    /// The exact count of the envelope with a document it holds as an
    /// entry with counts `old` held as one with `new` instead (an outline
    /// sent whole), `is_last` when it is the last document.
    pub fn total_replacing(&self, old: EntryCounts, new: EntryCounts, is_last: bool) -> usize {
        let last = if is_last { Some(new) } else { self.last };
        self.total_of(
            last,
            self.next_sum - old.next + new.next,
            self.documents,
            None,
        )
    }

    /// Holds a document as an entry with counts `new` instead of `old` (see
    /// [`Tally::total_replacing`]).
    pub fn replace(&mut self, old: EntryCounts, new: EntryCounts, is_last: bool) {
        self.next_sum = self.next_sum - old.next + new.next;
        if is_last {
            self.last = Some(new);
        }
    }

    /// Adds `index` at the end of the documents.
    pub fn push(&mut self, index: usize) {
        self.push_counts(index, self.layout.counts(index), true);
    }

    /// Adds document `index`, given as an entry with `counts`: at the end
    /// when `at_end`, else before the current last document.
    pub fn push_counts(&mut self, index: usize, counts: EntryCounts, at_end: bool) {
        if let (Some(omitted), Some(entries)) = (&mut self.omitted, &self.layout.omitted) {
            omitted.remove(index, entries[index].counts.next);
        }
        self.next_sum += counts.next;
        self.documents += 1;
        if at_end || self.last.is_none() {
            self.last = Some(counts);
        }
    }

    /// The note once `without` (if omitted) leaves it.
    pub(super) fn note(&self, without: Option<usize>) -> Option<NoteView> {
        let omitted = self.omitted.as_ref()?;
        let entries = self.layout.omitted.as_ref()?;
        let without = without.filter(|&index| omitted.flags[index]);
        let total = omitted.total - usize::from(without.is_some());
        let shown = total.min(self.layout.entries.note_max.unwrap_or(0));
        let more = total - shown;
        if shown == 0 {
            return Some(NoteView {
                shown,
                sum: 0,
                last: 0,
                more,
            });
        }
        let mut last = omitted.kth(shown);
        let mut sum = omitted.sum_through(last);
        if let Some(gone) = without
            && gone <= last
        {
            last = omitted.kth(shown + 1);
            sum = omitted.sum_through(last) - entries[gone].counts.next;
        }
        Some(NoteView {
            shown,
            sum,
            last,
            more,
        })
    }

    pub(super) fn total_of(
        &self,
        last: Option<EntryCounts>,
        next_sum: usize,
        documents: usize,
        without: Option<usize>,
    ) -> usize {
        let layout = self.layout;
        let note = self.note(without);
        let ending = match &note {
            None => Ending::Plain,
            Some(note) => layout.ending(note.shown, note.more),
        } as usize;
        let documents_part = match last {
            None => layout.empties[ending],
            Some(last) => {
                layout.open + next_sum - last.next
                    + last.ends[ending]
                    + layout.position_tokens(documents)
            }
        };
        let note_part = match (&note, &layout.omitted) {
            (Some(note), Some(entries)) if note.shown > 0 => {
                let last = entries[note.last].counts;
                note.sum - last.next
                    + if note.more > 0 {
                        last.ends[1] + layout.more_tokens(note.more)
                    } else {
                        last.ends[0]
                    }
            }
            (Some(note), _) if note.more > 0 => layout.more_tokens(note.more),
            _ => 0,
        };
        documents_part + note_part
    }
}
