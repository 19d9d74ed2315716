//! `priority`: documents are tried by `priority` descending, then fewer
//! content tokens, then id, and each that fits is kept.

use std::cmp::Reverse;

use super::{Select, Selector};
use crate::fixture::Document;

/// `priority` descending, then fewer content tokens, then id.
pub(super) struct Priority;

impl Select for Priority {
    fn name(&self) -> &'static str {
        "priority"
    }

    fn description(&self) -> &'static str {
        "`priority` descending, then fewer content tokens, then id"
    }

    fn try_order(&self, rest: &[&Document], content_tokens: &[usize]) -> Option<Vec<usize>> {
        Some(priority_order(rest.iter().copied(), content_tokens))
    }

    fn select(
        &self,
        selector: &mut Selector<'_>,
        _required: &[usize],
        rest: &[&Document],
    ) -> Option<bool> {
        let order = priority_order(rest.iter().copied(), &selector.content_tokens);
        selector.try_in_order(order);
        None
    }
}

/// The order `priority` tries `documents` in: `priority` descending, then
/// `contentTokens` ascending, then `id` in byte order.
pub fn priority_order<'d>(
    documents: impl Iterator<Item = &'d Document>,
    content_tokens: &[usize],
) -> Vec<usize> {
    let mut order: Vec<&Document> = documents.collect();
    order.sort_by_key(|d| {
        (
            Reverse(d.priority),
            content_tokens[d.index],
            d.id.as_bytes(),
        )
    });
    order.into_iter().map(|d| d.index).collect()
}
