//! Rust: the crate or module's leading `//!` docs, `use`, items with their
//! attributes and `///` docs; bodies of functions, consts and statics
//! elided; `mod`, `trait`, `impl` and `extern` blocks walked inside.

use tree_sitter::Node;

use crate::keep::{Keep, end_row, is_comment};
use crate::nodes::{child_of_kind, named_children};

/// Where an item sits, which decides what "public" means for it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// A module's items (and an `extern` block's, and an inherent
    /// `impl`'s): public when marked `pub`.
    Module,
    /// A trait's items or a trait `impl`'s: as public as the trait.
    Trait,
}

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    leading_docs(keep, root);
    items(keep, root, Place::Module);
}

/// The `//!` or `/*! */` comments and `#![...]` attributes that open the
/// file: the docs' first paragraph at full detail, the attributes but at
/// the public level.
fn leading_docs(keep: &mut Keep<'_>, root: Node<'_>) {
    let mut doc: Option<(usize, usize)> = None;
    for child in named_children(root) {
        if is_comment(child) {
            let text = keep.text(child);
            if text.starts_with("//!") || text.starts_with("/*!") {
                let (first, last) = (child.start_position().row, end_row(child));
                doc = Some((doc.map_or(first, |(first, _)| first), last));
            }
        } else if child.kind() == "inner_attribute_item" {
            if keep.imports() {
                keep.node(child);
            }
        } else {
            break;
        }
    }
    if let Some((first, last)) = doc
        && keep.docs()
    {
        keep.paragraph(first, last);
    }
}

fn is_doc(text: &str) -> bool {
    (text.starts_with("///") && !text.starts_with("////"))
        || (text.starts_with("/**") && !text.starts_with("/***") && text != "/**/")
}

/// Whether an item is `pub` (not `pub(crate)` or narrower).
fn is_pub(keep: &Keep<'_>, item: Node<'_>) -> bool {
    child_of_kind(item, &["visibility_modifier"]).is_some_and(|vis| keep.text(vis) == "pub")
}

/// Marks the kept items among a container's children; says whether any was.
fn items(keep: &mut Keep<'_>, container: Node<'_>, place: Place) -> bool {
    let mut any = false;
    for item in named_children(container) {
        any |= self::item(keep, item, place);
    }
    any
}

fn item(keep: &mut Keep<'_>, item: Node<'_>, place: Place) -> bool {
    let visible = !keep.public_only() || place == Place::Trait || is_pub(keep, item);
    let body = item.child_by_field_name("body");
    match item.kind() {
        // At the heads level a `pub use` is the public item it names; other
        // imports go.
        "use_declaration" | "extern_crate_declaration"
            if keep.heads() && (keep.every_item || !is_pub(keep, item)) =>
        {
            return false;
        }
        "use_declaration"
        | "extern_crate_declaration"
        | "struct_item"
        | "enum_item"
        | "union_item"
        | "type_item"
        | "function_signature_item"
        | "associated_type"
            if visible =>
        {
            keep.node(item);
        }
        "function_item" if visible => keep.head(item, body),
        "const_item" | "static_item" if visible => {
            keep.head(item, item.child_by_field_name("value"))
        }
        "mod_item" if visible => {
            keep.head(item, body);
            if let Some(body) = body {
                if !keep.has_attribute(item, "cfg(test)") && keep.may_descend() {
                    keep.depth += 1;
                    items(keep, body, Place::Module);
                    keep.depth -= 1;
                }
                keep.last_line(item);
            }
        }
        "trait_item" if visible => block(keep, item, body, Place::Trait),
        "impl_item" => {
            let place = if item.child_by_field_name("trait").is_some() {
                Place::Trait
            } else {
                Place::Module
            };
            if keep.public_only() && place == Place::Module {
                // An inherent impl shows when one of its items is public.
                let Some(body) = body else { return false };
                if !keep.may_descend() {
                    return false;
                }
                keep.depth += 1;
                let any = items(keep, body, place);
                keep.depth -= 1;
                if !any {
                    return false;
                }
                keep.head(item, Some(body));
                keep.last_line(item);
            } else {
                block(keep, item, body, place);
            }
        }
        "foreign_mod_item" => {
            let Some(body) = body else {
                keep.node(item);
                return true;
            };
            if !keep.may_descend() {
                return false;
            }
            keep.depth += 1;
            let any = items(keep, body, Place::Module);
            keep.depth -= 1;
            if !any && keep.public_only() {
                return false;
            }
            keep.head(item, Some(body));
            keep.last_line(item);
        }
        "macro_definition" if !keep.public_only() || keep.has_attribute(item, "macro_export") => {
            let row = item.start_position().row;
            keep.rows(row, row);
        }
        "macro_invocation" => return macro_block(keep, item, place),
        _ => return false,
    }
    keep.leading(item, is_doc);
    true
}

/// A trait or trait impl: its head, its items, its closing line.
fn block(keep: &mut Keep<'_>, item: Node<'_>, body: Option<Node<'_>>, place: Place) {
    keep.head(item, body);
    if let Some(body) = body {
        if keep.may_descend() {
            keep.depth += 1;
            items(keep, body, place);
            keep.depth -= 1;
        }
        keep.last_line(item);
    }
}

/// A macro called where items go: when its braces hold items that parse
/// (tokio's `cfg_rt! { pub mod runtime; }`), its head, those items and its
/// closing line; otherwise its head alone, but at the public level.
fn macro_block(keep: &mut Keep<'_>, item: Node<'_>, place: Place) -> bool {
    let body = child_of_kind(item, &["token_tree"]);
    let inside = body
        .filter(|body| keep.text(*body).starts_with('{') && keep.may_descend())
        .and_then(|body| keep.parse_inside(body));
    let any = match &inside {
        Some(tree) => {
            keep.depth += 1;
            let any = items(keep, tree.root_node(), place);
            keep.depth -= 1;
            any
        }
        None => false,
    };
    if keep.public_only() && !any {
        return false;
    }
    keep.head(item, body);
    if any {
        keep.last_line(item);
    }
    keep.leading(item, is_doc);
    true
}
