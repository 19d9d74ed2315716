//! A window's label (`window 2 of 5`): where it goes in each layout, and
//! the tokens it adds, measured once on the empty envelope.

use rayon::prelude::*;

use crate::envelope::{Envelope, Envelopes};
use crate::tokens::Counter;

/// Where a window's label goes in `envelope`'s payload, and its text: the
/// JSON envelope gets a first key (`{"window":"2 of 5","documents":[...]}`),
/// XML an attribute (`<documents window="2 of 5">`), Markdown words in its
/// first heading (`# Documents (window 2 of 5)`).
///
/// Each is inserted where the payload's split always has a boundary on
/// both sides, whatever the window holds: in JSON between `{"` and the
/// letters of `documents` (the inserted text ends in `","`, punctuation
/// that stops before a letter); in XML and Markdown before the `\n` that
/// ends the first line (the line then ends in `">\n` or `)\n`, after which
/// comes `<`, `#` or `(`, as before). So a label adds the same number of
/// tokens to every window, measured once on the empty envelope.
pub fn label_insert(envelope: Envelope, index: usize, count: usize) -> (usize, String) {
    envelope.window_label(index, count)
}

/// `payload` with the label of window `index` of `count` inserted.
pub fn labelled(envelope: Envelope, payload: &str, index: usize, count: usize) -> String {
    let (at, insert) = label_insert(envelope, index, count);
    let mut out = String::with_capacity(payload.len() + insert.len());
    out.push_str(&payload[..at]);
    out.push_str(&insert);
    out.push_str(&payload[at..]);
    out
}

/// The tokens labels add, measured on the empty envelope.
pub(super) struct Labels {
    pub(super) counter: Counter,
    pub(super) envelope: Envelope,
    pub(super) empty: String,
    pub(super) empty_tokens: usize,
}

impl Labels {
    pub(super) fn new(layout: &Envelopes) -> Labels {
        let empty = layout.render(&[]);
        let counter = layout.counter();
        Labels {
            counter,
            envelope: layout.envelope(),
            empty_tokens: counter.count(&empty),
            empty,
        }
    }

    /// What the label of window `index` of `count` adds (never less than
    /// zero: its pieces are added, and in XML and Markdown the line end
    /// it takes over is at most two tokens).
    pub(super) fn tokens(&self, index: usize, count: usize) -> usize {
        let text = labelled(self.envelope, &self.empty, index, count);
        self.counter.count(&text).saturating_sub(self.empty_tokens)
    }

    /// The widest label of `count` windows.
    pub(super) fn widest(&self, count: usize) -> usize {
        (1..=count.max(1))
            .into_par_iter()
            .map(|index| self.tokens(index, count))
            .max()
            .unwrap_or(0)
    }

    /// The cheapest label of `count` windows.
    pub(super) fn cheapest(&self, count: usize) -> usize {
        (1..=count.max(1))
            .into_par_iter()
            .map(|index| self.tokens(index, count))
            .min()
            .unwrap_or(0)
    }
}
