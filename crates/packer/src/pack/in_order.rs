//! `in-order` (the default): documents are tried in input order, and each
//! that fits is kept.

use super::{Select, Selector};
use crate::fixture::Document;

/// Input order is priority order.
pub(super) struct InOrder;

impl Select for InOrder {
    fn name(&self) -> &'static str {
        "in-order"
    }

    fn description(&self) -> &'static str {
        "Input order is priority order"
    }

    fn select(
        &self,
        selector: &mut Selector<'_>,
        _required: &[usize],
        rest: &[&Document],
    ) -> Option<bool> {
        selector.try_in_order(rest.iter().map(|document| document.index));
        None
    }
}
