//! An envelope's entries and their exact count in any order and with any
//! omission note, by the per-entry arithmetic (see the parent module),
//! with the note's bound and its cheapest form for the windows.

use super::entry::{Entries, Entry, EntryCounts};
use super::{Ending, Envelope};
use crate::fixture::Document;
use crate::tokens::{Counter, Known};

/// Every entry an envelope can be built from, counted once.
#[derive(Debug, Clone)]
pub struct Envelopes {
    pub(super) entries: Entries,
    pub(super) documents: Vec<Entry>,
    /// The omitted entries, when omissions are noted.
    pub(super) omitted: Option<Vec<Entry>>,
    pub(super) open: usize,
    pub(super) empties: [usize; 4],
    /// XML: `positions[k]` is what the position numbers `1..=k` cost beyond
    /// `1` each; `None` when that is zero for every `k` (then every
    /// envelope's count is a plain sum of per-entry numbers).
    pub(super) positions: Option<Vec<usize>>,
}

impl Envelopes {
    /// How the entries are made, the documents' entries and the omitted
    /// ones, given back.
    pub(crate) fn into_parts(self) -> (Entries, Vec<Entry>, Option<Vec<Entry>>) {
        (self.entries, self.documents, self.omitted)
    }

    /// A layout of document entries and, when omissions are noted, one
    /// omitted entry per document (both in input order, made by `entries`).
    pub fn new(entries: Entries, documents: Vec<Entry>, omitted: Option<Vec<Entry>>) -> Envelopes {
        let counter = entries.counter;
        let shape = entries.shape();
        let positions = entries
            .envelope
            .position()
            .map(|_| {
                let one = counter.count("1");
                let mut sums = Vec::with_capacity(documents.len() + 1);
                sums.push(0);
                let mut sum = 0;
                for position in 1..=documents.len() {
                    sum += counter.count(&position.to_string()) - one;
                    sums.push(sum);
                }
                sums
            })
            .filter(|sums| sums.last().is_some_and(|&last| last > 0));
        Envelopes {
            documents,
            omitted,
            open: counter.count(shape.open),
            empties: shape.empties.map(|text| counter.count(text)),
            positions,
            entries,
        }
    }

    /// The layout of `documents` as whole documents in `envelope` (counted
    /// one after the other; packing counts them in parallel), with omission
    /// notes listing at most `note_max` documents when it is `Some`.
    pub fn build(
        counter: Counter,
        envelope: Envelope,
        documents: &[Document],
        note_max: Option<usize>,
    ) -> Envelopes {
        let entries = Entries::new(envelope, counter, note_max);
        let documents_entries = documents
            .iter()
            .map(|d| entries.document(d, &d.content, None))
            .collect();
        let omitted = note_max.map(|_| documents.iter().map(|d| entries.omitted(d)).collect());
        Envelopes::new(entries, documents_entries, omitted)
    }

    /// The JSON layout of `documents` as whole documents, with every
    /// omitted document listed when `notes_omissions`.
    pub fn of_documents(
        counter: Counter,
        documents: &[Document],
        notes_omissions: bool,
    ) -> Envelopes {
        Envelopes::build(
            counter,
            Envelope::Json,
            documents,
            notes_omissions.then_some(usize::MAX),
        )
    }

    /// Document `index`'s entry counts.
    pub fn counts(&self, index: usize) -> EntryCounts {
        self.documents[index].counts
    }

    /// How this layout's entries are written and counted (for excerpts).
    pub fn entries(&self) -> Entries {
        self.entries
    }

    /// The counter the layout counts with.
    pub fn counter(&self) -> Counter {
        self.entries.counter
    }

    /// The layout's envelope.
    pub fn envelope(&self) -> Envelope {
        self.entries.envelope
    }

    /// How many documents the layout holds.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether the layout holds no documents.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// Whether every envelope of these entries counts as the sum of its
    /// parts with this counter's added tokens: no added token's text can
    /// run across the edge of any text an envelope is made of (its fixed
    /// texts, position numbers, the note's count and every entry), nor
    /// take what is beside it (see
    /// [`Counter::added_token_may_cross`]). An added token inside one
    /// text is counted with it (the counter then counts that text whole).
    /// Always true without added tokens (the built-in encodings).
    pub fn added_tokens_stay_inside(&self) -> bool {
        let counter = self.entries.counter;
        let envelope = self.entries.envelope;
        let shape = self.entries.shape();
        let fixed = [
            shape.open,
            shape.join,
            shape.omitted_join,
            shape.list_end,
            shape.more_join,
            // Any number: a digit at its end stands for all of them.
            "0",
        ]
        .into_iter()
        .chain(shape.endings)
        .chain(shape.empties)
        .chain(envelope.position())
        .all(|text| !counter.added_token_may_cross(text));
        fixed
            && !counter.added_token_may_cross(&envelope.more(0))
            && self
                .documents
                .iter()
                .chain(self.omitted.iter().flatten())
                .all(|entry| !counter.added_token_may_cross(&entry.text))
    }

    /// Whether omitted documents are listed in the envelope.
    pub fn notes_omissions(&self) -> bool {
        self.omitted.is_some()
    }

    /// Whether the count of every envelope without notes is
    /// `open_tokens + Σ next_tokens - next_tokens(last) + last_tokens(last)`
    /// over its documents, whatever their number (false only for XML when
    /// some position numbers cost more tokens than `1`).
    pub fn additive(&self) -> bool {
        self.positions.is_none()
    }

    /// What the position numbers `1..=documents` cost beyond one `1` each
    /// (XML; zero for the other layouts).
    pub fn position_tokens(&self, documents: usize) -> usize {
        self.positions.as_ref().map_or(0, |sums| sums[documents])
    }

    /// The tokens document `index` adds when another document follows it:
    /// the weight of a document in a sum that ends elsewhere.
    pub fn next_tokens(&self, index: usize) -> usize {
        self.documents[index].counts.next
    }

    /// The tokens before the first document (`{"documents":[{"` in JSON).
    pub fn open_tokens(&self) -> usize {
        self.open
    }

    /// The tokens document `index` adds as the last document, without
    /// omission notes (in JSON: followed by `]}`).
    pub fn last_tokens(&self, index: usize) -> usize {
        self.documents[index].counts.ends[Ending::Plain as usize]
    }

    /// The tokens document `index` adds as the last document before the
    /// note that ends the cheapest way (the least of its counts for each
    /// ending of a note); `last_tokens` without notes.
    pub fn least_last_tokens(&self, index: usize) -> usize {
        let ends = self.documents[index].counts.ends;
        match self.omitted {
            None => ends[Ending::Plain as usize],
            Some(_) => [Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly]
                .map(|ending| ends[ending as usize])
                .into_iter()
                .min()
                .expect("three endings"),
        }
    }

    /// The note's part of a window's count at most, whatever the window
    /// holds (`--windows`): what the last document's ending adds over its
    /// plain one, plus the largest `N` listed entries with the costliest
    /// ending and the costliest count of those not listed. Zero without
    /// notes.
    pub fn note_bound(&self) -> usize {
        let Some(omitted) = &self.omitted else {
            return 0;
        };
        let plain = Ending::Plain as usize;
        let endings = [Ending::NoneOmitted, Ending::Listed, Ending::MoreOnly];
        let ending = self
            .documents
            .iter()
            .flat_map(|entry| {
                endings
                    .map(|e| entry.counts.ends[e as usize].saturating_sub(entry.counts.ends[plain]))
            })
            .chain(endings.map(|e| self.empties[e as usize].saturating_sub(self.empties[plain])))
            .max()
            .unwrap_or(0);
        let mut nexts: Vec<usize> = omitted.iter().map(|entry| entry.counts.next).collect();
        nexts.sort_unstable_by(|a, b| b.cmp(a));
        let shown = self.entries.note_max.unwrap_or(0).min(nexts.len());
        let listed: usize = nexts[..shown].iter().sum();
        let last = omitted
            .iter()
            .map(|entry| {
                entry.counts.ends[0]
                    .max(entry.counts.ends[1])
                    .saturating_sub(entry.counts.next)
            })
            .max()
            .unwrap_or(0);
        let more = (0..=omitted.len().saturating_sub(shown))
            .map(|m| self.more_tokens(m))
            .max()
            .unwrap_or(0);
        ending + listed + last + more
    }

    /// The least a note that lists `listed` omitted documents (or as many
    /// as it may list, when fewer) can cost: the `listed − 1` smallest
    /// `next` counts and the cheapest last entry. Zero without notes or
    /// with nothing listed.
    pub fn least_note(&self, listed: usize) -> usize {
        let Some(omitted) = &self.omitted else {
            return 0;
        };
        let listed = listed.min(self.entries.note_max.unwrap_or(0));
        if listed == 0 {
            return 0;
        }
        let mut nexts: Vec<usize> = omitted.iter().map(|entry| entry.counts.next).collect();
        nexts.sort_unstable();
        let last = omitted
            .iter()
            .map(|entry| entry.counts.ends[0].min(entry.counts.ends[1]))
            .min()
            .unwrap_or(0);
        nexts[..listed - 1].iter().sum::<usize>() + last
    }

    /// The envelope's text for documents `order`.
    pub fn render(&self, order: &[usize]) -> String {
        self.render_with(order, |_| None)
    }

    /// The envelope's text for documents `order`, where `replace` may give
    /// another entry for a document (a focused excerpt).
    pub fn render_with<'e>(
        &'e self,
        order: &[usize],
        replace: impl Fn(usize) -> Option<&'e Entry>,
    ) -> String {
        self.render_parts(order, replace).0
    }

    /// The envelope's text, as [`Envelopes::render_with`] writes it, and
    /// where each entry with remembered pieces starts in it.
    pub fn render_parts<'e>(
        &'e self,
        order: &[usize],
        replace: impl Fn(usize) -> Option<&'e Entry>,
    ) -> (String, Vec<(usize, &'e Entry)>) {
        let mut parts = Vec::new();
        let mut part = |out: &String, entry: &'e Entry| {
            if !entry.known.is_empty() {
                parts.push((out.len(), entry));
            }
        };
        let shape = self.entries.shape();
        let listed: Vec<usize> = match &self.omitted {
            Some(_) => {
                let mut chosen = vec![false; self.documents.len()];
                for &index in order {
                    chosen[index] = true;
                }
                (0..self.documents.len()).filter(|&i| !chosen[i]).collect()
            }
            None => Vec::new(),
        };
        let note_max = self.entries.note_max.unwrap_or(0);
        let shown = listed.len().min(note_max);
        let more = listed.len() - shown;
        let ending = self.ending(shown, more);
        let mut out = String::new();
        if order.is_empty() {
            out.push_str(shape.empties[ending as usize]);
        } else {
            out.push_str(shape.open);
            for (position, &index) in order.iter().enumerate() {
                if position > 0 {
                    out.push_str(shape.join);
                }
                if let Some(start) = self.envelope().position() {
                    out.push_str(start);
                    out.push_str(&(position + 1).to_string());
                }
                let entry = replace(index).unwrap_or(&self.documents[index]);
                part(&out, entry);
                out.push_str(&entry.text);
            }
            out.push_str(shape.endings[ending as usize]);
        }
        if let Some(omitted) = &self.omitted {
            for (n, &index) in listed[..shown].iter().enumerate() {
                if n > 0 {
                    out.push_str(shape.omitted_join);
                }
                part(&out, &omitted[index]);
                out.push_str(&omitted[index].text);
            }
            if more > 0 {
                if shown > 0 {
                    out.push_str(shape.more_join);
                }
                out.push_str(&self.envelope().more(more));
            } else if shown > 0 {
                out.push_str(shape.list_end);
            }
        }
        (out, parts)
    }

    /// The exact count of `text`, a payload that [`Envelopes::render_parts`]
    /// wrote with `parts`, counted afresh: the text is split again up to
    /// each entry's first byte and after its settled pieces, and each
    /// entry's remembered pieces stand for the payload's own pieces where
    /// the split arrives at the entry's start and the bytes are the same;
    /// every other piece is counted. When anything fails to line up, the
    /// text is counted whole.
    pub fn recount(&self, text: &str, parts: &[(usize, &Entry)]) -> usize {
        let same_bytes = parts.iter().all(|&(at, entry)| {
            let len = entry.known.len();
            text.as_bytes().get(at..at + len) == Some(&entry.text.as_bytes()[..len])
        });
        let spans: Vec<(usize, &Known)> = parts.iter().map(|&(at, e)| (at, &e.known)).collect();
        let counter = self.entries.counter;
        same_bytes
            .then(|| counter.count_with_known(text, &spans))
            .flatten()
            .unwrap_or_else(|| counter.count(text))
    }

    /// The exact count of `text`, which holds a payload rendered by
    /// [`Envelopes::render_parts`] (with `parts`) from byte `at`: the
    /// entries' remembered pieces stand for theirs, as in
    /// [`Envelopes::recount`]. `None` when that does not apply; count
    /// `text` whole then.
    pub(crate) fn count_holding(
        &self,
        text: &str,
        at: usize,
        parts: &[(usize, &Entry)],
    ) -> Option<usize> {
        let same_bytes = parts.iter().all(|&(start, entry)| {
            let len = entry.known.len();
            text.as_bytes().get(at + start..at + start + len) == Some(&entry.text.as_bytes()[..len])
        });
        if !same_bytes {
            return None;
        }
        // The last entry is split afresh: what follows it in `text` is not
        // what followed it when its pieces were remembered.
        let spans: Vec<(usize, &Known)> = parts[..parts.len().saturating_sub(1)]
            .iter()
            .map(|&(start, entry)| (at + start, &entry.known))
            .collect();
        self.entries.counter.count_with_known(text, &spans)
    }

    pub(super) fn ending(&self, shown: usize, more: usize) -> Ending {
        match (&self.omitted, shown, more) {
            (None, _, _) => Ending::Plain,
            (Some(_), 0, 0) => Ending::NoneOmitted,
            (Some(_), 0, _) => Ending::MoreOnly,
            (Some(_), _, _) => Ending::Listed,
        }
    }

    /// The tokens of the note's count of `more` documents not listed.
    pub(super) fn more_tokens(&self, more: usize) -> usize {
        self.counter().count(&self.envelope().more(more))
    }
}

/// The documents still omitted, in input order, with prefix counts and
/// sums of their `next` counts (a Fenwick tree), so that the first `N` of
/// them and their tokens are found in logarithmic time.
#[derive(Debug, Clone)]
pub(super) struct Omitted {
    pub(super) flags: Vec<bool>,
    /// 1-based Fenwick trees: how many are omitted, and their `next` sum.
    pub(super) counts: Vec<usize>,
    pub(super) sums: Vec<usize>,
    pub(super) total: usize,
}

impl Omitted {
    pub(super) fn all(entries: &[Entry]) -> Omitted {
        let n = entries.len();
        let mut counts = vec![0; n + 1];
        let mut sums = vec![0; n + 1];
        for i in 1..=n {
            counts[i] += 1;
            sums[i] += entries[i - 1].counts.next;
            let parent = i + (i & i.wrapping_neg());
            if parent <= n {
                counts[parent] += counts[i];
                sums[parent] += sums[i];
            }
        }
        Omitted {
            flags: vec![true; n],
            counts,
            sums,
            total: n,
        }
    }

    pub(super) fn remove(&mut self, index: usize, next: usize) {
        if !self.flags[index] {
            return;
        }
        self.flags[index] = false;
        self.total -= 1;
        let mut i = index + 1;
        while i < self.counts.len() {
            self.counts[i] -= 1;
            self.sums[i] -= next;
            i += i & i.wrapping_neg();
        }
    }

    /// The index of the `k`-th omitted document (1-based `k <= total`).
    pub(super) fn kth(&self, k: usize) -> usize {
        let n = self.counts.len() - 1;
        let mut position = 0;
        let mut rest = k;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = position + step;
            if next <= n && self.counts[next] < rest {
                position = next;
                rest -= self.counts[next];
            }
            step /= 2;
        }
        position
    }

    /// The `next` sum of the omitted documents at indices `0..=index`.
    pub(super) fn sum_through(&self, index: usize) -> usize {
        let mut i = index + 1;
        let mut sum = 0;
        while i > 0 {
            sum += self.sums[i];
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

/// The note of an envelope: how many omitted documents it lists, their
/// `next` sum, the last one listed, and how many it only counts.
pub(super) struct NoteView {
    pub(super) shown: usize,
    pub(super) sum: usize,
    pub(super) last: usize,
    pub(super) more: usize,
}
