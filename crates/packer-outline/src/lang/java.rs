//! Java: the package and imports, type declarations (class, interface,
//! enum, record, annotation) with their heads, fields, enum constants,
//! method and constructor signatures, and the Javadoc's first paragraph;
//! public means declared `public`, or a member of an interface.

use tree_sitter::Node;

use crate::keep::Keep;
use crate::nodes::{child_of_kind, children, named_children};

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    for item in named_children(root) {
        match item.kind() {
            "package_declaration" => keep.node(item),
            "import_declaration" if keep.imports() => keep.node(item),
            "module_declaration" => keep.node(item),
            _ => {
                member(keep, item, false);
                continue;
            }
        }
        keep.leading(item, is_javadoc);
    }
}

fn is_javadoc(text: &str) -> bool {
    text.starts_with("/**") && text != "/**/"
}

/// Whether a declaration's modifiers say `public` (or it sits in an
/// interface or annotation type, where members are public).
fn is_public(keep: &Keep<'_>, item: Node<'_>, in_interface: bool) -> bool {
    if in_interface {
        return true;
    }
    child_of_kind(item, &["modifiers"]).is_some_and(|modifiers| {
        children(modifiers)
            .into_iter()
            .any(|modifier| keep.text(modifier) == "public")
    })
}

/// Marks one member of a program or type body; says whether it was kept.
fn member(keep: &mut Keep<'_>, item: Node<'_>, in_interface: bool) -> bool {
    let kind = item.kind();
    let is_type = matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    );
    let is_member = matches!(
        kind,
        "method_declaration"
            | "constructor_declaration"
            | "compact_constructor_declaration"
            | "field_declaration"
            | "constant_declaration"
            | "annotation_type_element_declaration"
            | "enum_constant"
    );
    if !is_type && !is_member {
        return false;
    }
    let public = kind == "enum_constant" || is_public(keep, item, in_interface);
    if keep.public_only() && !public {
        return false;
    }
    let body = item.child_by_field_name("body");
    if is_type {
        keep.head(item, body);
        if let Some(body) = body {
            if keep.may_descend() {
                let interface = matches!(
                    kind,
                    "interface_declaration" | "annotation_type_declaration"
                );
                keep.depth += 1;
                for child in named_children(body) {
                    if child.kind() == "enum_body_declarations" {
                        for inner in named_children(child) {
                            member(keep, inner, interface);
                        }
                    } else {
                        member(keep, child, interface);
                    }
                }
                keep.depth -= 1;
            }
            keep.last_line(item);
        }
    } else if matches!(kind, "field_declaration" | "constant_declaration") {
        let value = child_of_kind(item, &["variable_declarator"])
            .and_then(|declarator| declarator.child_by_field_name("value"));
        keep.head(item, value);
    } else if kind == "enum_constant" {
        keep.head(item, item.child_by_field_name("body"));
    } else {
        keep.head(item, body);
    }
    keep.leading(item, is_javadoc);
    true
}
