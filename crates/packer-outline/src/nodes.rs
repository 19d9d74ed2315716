//! Reading a tree's nodes, counted: every walk asks for a node's children
//! here, so that the nesting tests can bound how many nodes the walks look
//! at. A leaf: the walks (`keep`, `lang`) and the parse import it; it
//! imports none of them.

// A build with only some grammars leaves some readers unused.
#![cfg_attr(not(feature = "all"), allow(dead_code))]

use tree_sitter::Node;

#[cfg(test)]
thread_local! {
    /// The nodes the walks have looked at on this thread, in tests: the
    /// bound the nesting tests check.
    pub(crate) static VISITS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts `nodes` nodes looked at by a walk (in tests only; free otherwise).
#[inline]
pub(crate) fn visited(nodes: usize) {
    #[cfg(test)]
    VISITS.with(|visits| visits.set(visits.get() + nodes));
    #[cfg(not(test))]
    let _ = nodes;
}

/// The named children of a node.
pub(crate) fn named_children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
    visited(children.len());
    children
}

/// Every child of a node, named or not.
pub(crate) fn children<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
    visited(children.len());
    children
}

/// The first child of a node of one of `kinds`.
pub(crate) fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .inspect(|_| visited(1))
        .find(|child| kinds.contains(&child.kind()))
}
