//! C and C++: includes, the first line of each macro, declarations and
//! prototypes (up to an initializer), typedefs, struct/union/enum
//! definitions, function heads; C++ classes, namespaces, templates and
//! `extern "C"` blocks walked inside; `#if`/`#ifdef` blocks walked inside
//! with their directive lines. Comments right above a kept item give their
//! first paragraph, and so does the comment that opens the file. Public
//! means not `static` at file level nor in an anonymous namespace, and a class
//! member in a `public:` section (or a `struct`'s before any label).

use tree_sitter::Node;

use crate::keep::{Keep, end_row};
use crate::nodes::{child_of_kind, children, named_children};

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    crate::keep::file_comment(keep, root);
    items(keep, root);
}

fn is_doc(_text: &str) -> bool {
    true
}

fn is_static(keep: &Keep<'_>, node: Node<'_>) -> bool {
    children(node)
        .into_iter()
        .any(|child| child.kind() == "storage_class_specifier" && keep.text(child) == "static")
}

/// Marks the kept items among a container's children; says whether any was.
fn items(keep: &mut Keep<'_>, container: Node<'_>) -> bool {
    let mut any = false;
    for node in named_children(container) {
        any |= item(keep, node, node);
    }
    any
}

/// Marks one item (`outer` is the `template <...>` around it, or itself);
/// says whether it was kept.
fn item(keep: &mut Keep<'_>, outer: Node<'_>, node: Node<'_>) -> bool {
    let start = outer.start_position().row;
    let public = !is_static(keep, node);
    let visible = public || !keep.public_only();
    let body = node.child_by_field_name("body");
    match node.kind() {
        "preproc_include" if keep.imports() => keep.node(node),
        "preproc_def" | "preproc_function_def" => keep.rows(start, start),
        "preproc_if" | "preproc_ifdef" | "preproc_else" | "preproc_elif" | "preproc_elifdef" => {
            return conditional(keep, node);
        }
        "function_definition" if visible => keep.rows(start, head_end(node, body)),
        "declaration" | "field_declaration" if visible => {
            let value = child_of_kind(node, &["init_declarator"])
                .and_then(|declarator| declarator.child_by_field_name("value"));
            match value {
                Some(value) => keep.rows(start, value.start_position().row),
                None => keep.rows(start, end_row(node)),
            }
        }
        "type_definition"
        | "alias_declaration"
        | "using_declaration"
        | "enum_specifier"
        | "concept_definition"
        | "static_assert_declaration"
            if visible =>
        {
            keep.rows(start, end_row(node))
        }
        "struct_specifier" | "union_specifier" | "class_specifier" => {
            class(keep, outer, node);
        }
        "namespace_definition"
            if keep.public_only() && node.child_by_field_name("name").is_none() =>
        {
            return false;
        }
        "namespace_definition" | "linkage_specification" => {
            let Some(body) = body.filter(|body| body.kind() == "declaration_list") else {
                return match body {
                    Some(inner) if keep.may_descend() => {
                        keep.depth += 1;
                        let kept = item(keep, outer, inner);
                        keep.depth -= 1;
                        kept
                    }
                    _ => false,
                };
            };
            if !keep.may_descend() {
                return false;
            }
            keep.depth += 1;
            let any = items(keep, body);
            keep.depth -= 1;
            if keep.public_only() && !any {
                return false;
            }
            keep.rows(start, body.start_position().row);
            keep.last_line(node);
        }
        "template_declaration" => {
            let inner = named_children(node).into_iter().find(|child| {
                child.kind() != "template_parameter_list" && child.kind() != "comment"
            });
            return match inner {
                Some(inner) if keep.may_descend() => {
                    keep.depth += 1;
                    let kept = item(keep, outer, inner);
                    keep.depth -= 1;
                    kept
                }
                _ => false,
            };
        }
        _ => return false,
    }
    keep.leading(outer, is_doc);
    true
}

/// The line where the body starts, or the node's last line.
fn head_end(node: Node<'_>, body: Option<Node<'_>>) -> usize {
    body.map_or_else(|| end_row(node), |body| body.start_position().row)
}

/// `#if`, `#ifdef`, `#else`, `#elif`: the kept items inside, with the
/// directive's line (and `#endif`'s) when any is kept.
fn conditional(keep: &mut Keep<'_>, node: Node<'_>) -> bool {
    if !keep.may_descend() {
        return false;
    }
    keep.depth += 1;
    let mut any = false;
    for child in named_children(node) {
        any |= item(keep, child, child);
    }
    keep.depth -= 1;
    if any {
        let row = node.start_position().row;
        keep.rows(row, row);
        if matches!(node.kind(), "preproc_if" | "preproc_ifdef") {
            keep.last_line(node);
        }
    }
    any
}

/// A struct, union or class: with a body, its head, members and closing
/// line; without one (`struct foo;`), its line.
fn class(keep: &mut Keep<'_>, outer: Node<'_>, node: Node<'_>) {
    let start = outer.start_position().row;
    let Some(body) = node.child_by_field_name("body") else {
        keep.rows(start, end_row(node));
        return;
    };
    keep.rows(start, body.start_position().row);
    keep.last_line(node);
    if !keep.may_descend() {
        return;
    }
    keep.depth += 1;
    let mut public = node.kind() != "class_specifier";
    for member in named_children(body) {
        if member.kind() == "access_specifier" {
            public = keep.text(member).trim_end_matches(':').trim() == "public";
            if !keep.public_only() {
                keep.node(member);
            }
            continue;
        }
        if keep.public_only() && !public {
            continue;
        }
        match member.kind() {
            "field_declaration"
            | "declaration"
            | "function_definition"
            | "template_declaration"
            | "type_definition"
            | "alias_declaration"
            | "using_declaration"
            | "enum_specifier"
            | "struct_specifier"
            | "union_specifier"
            | "class_specifier"
            | "friend_declaration"
            | "preproc_if"
            | "preproc_ifdef" => {
                item_in_class(keep, member);
            }
            _ => {}
        }
    }
    keep.depth -= 1;
}

/// A class member: like an item, but a field whose type is a struct keeps
/// that struct's outline, and `friend` declarations are kept whole.
fn item_in_class(keep: &mut Keep<'_>, member: Node<'_>) {
    if member.kind() == "friend_declaration" {
        keep.node(member);
        keep.leading(member, is_doc);
        return;
    }
    item(keep, member, member);
}
