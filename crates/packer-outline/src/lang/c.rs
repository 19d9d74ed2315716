//! TODO
use crate::keep::Keep;
use tree_sitter::Node;
pub(crate) fn walk(_keep: &mut Keep<'_>, _root: Node<'_>) {}
