//! Go: the package comment and clause, imports, type declarations whole,
//! `const` and `var` specs (their first lines), function and method
//! signatures with their doc comments; exported means capitalised.

use tree_sitter::Node;

use crate::keep::{Keep, end_row, is_comment};
use crate::nodes::named_children;

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    for item in named_children(root) {
        match item.kind() {
            "package_clause" => keep.node(item),
            "import_declaration" if keep.imports() => keep.node(item),
            "type_declaration" => specs(keep, item, "type_spec", true),
            "const_declaration" => specs(keep, item, "const_spec", false),
            "var_declaration" => specs(keep, item, "var_spec", false),
            "function_declaration" | "method_declaration" => {
                let exported = item
                    .child_by_field_name("name")
                    .is_some_and(|name| is_exported(keep.text(name)));
                if keep.public_only() && !exported {
                    continue;
                }
                keep.head(item, item.child_by_field_name("body"));
            }
            _ => continue,
        }
        keep.leading(item, |_| true);
    }
}

fn is_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// A `type`, `const` or `var` declaration: each spec (types whole, values
/// up to where they start), with the parentheses' lines around a group;
/// at the public level only exported specs, and a group with one.
fn specs(keep: &mut Keep<'_>, declaration: Node<'_>, spec_kind: &str, whole: bool) {
    let mut specs = Vec::new();
    for child in named_children(declaration) {
        if child.kind() == spec_kind {
            specs.push(child);
        } else if child.kind() == "type_alias" || child.kind() == "var_spec_list" {
            specs.extend(
                named_children(child)
                    .into_iter()
                    .filter(|spec| spec.kind() == spec_kind || spec.kind() == "type_alias"),
            );
        } else if child.kind() == "type_alias" {
            specs.push(child);
        }
    }
    let mut any = false;
    for spec in specs {
        let exported = spec
            .child_by_field_name("name")
            .is_some_and(|name| is_exported(keep.text(name)));
        if keep.public_only() && !exported {
            continue;
        }
        any = true;
        if whole {
            keep.node(spec);
        } else {
            keep.head(spec, spec.child_by_field_name("value"));
        }
        if spec.start_position().row != declaration.start_position().row {
            keep.leading(spec, |_| true);
        }
    }
    if any {
        let row = declaration.start_position().row;
        keep.rows(row, row);
        keep.last_line(declaration);
    }
    // Comments inside a group that document no spec are not kept.
    let _ = (is_comment, end_row);
}
