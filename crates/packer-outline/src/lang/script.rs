//! JavaScript, TypeScript and TSX: imports and exports, function heads,
//! classes with their fields and method signatures, interfaces, type
//! aliases and enums whole, `const`/`let`/`var` up to their values (up to a
//! function value's body), CommonJS assignments of functions and to
//! `module.exports`, namespaces walked inside; comments right above a kept
//! item give their first paragraph. Exported means under `export` (or
//! `declare`), or declared here and named by the module's exports:
//! `export { Hono as HonoBase }`, `export default Hono`, `export = Hono`,
//! `module.exports = Router` (with what hangs from those names:
//! `Router.prototype.route = ...`), or assigned to
//! `module.exports`/`exports`; a class member is public unless `private`,
//! `protected` or `#named`.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::keep::Keep;
use crate::nodes::{child_of_kind, named_children};

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    crate::keep::file_comment(keep, root);
    let exports = exported_names(keep, root);
    statements(keep, root, &exports, false);
}

fn is_doc(_text: &str) -> bool {
    true
}

/// Names a module exports by name rather than where they are declared:
/// `export { NAME }`, `export { NAME as alias }`, `export type { NAME }`
/// (a clause without `from`: its names are the module's own),
/// `export default NAME`, TypeScript's `export = NAME`, and CommonJS's
/// `module.exports = NAME`, `module.exports = { NAME, key: NAME }`,
/// `exports.key = NAME`.
fn exported_names<'a>(keep: &Keep<'a>, root: Node<'_>) -> HashSet<&'a str> {
    let mut names = HashSet::new();
    for statement in named_children(root) {
        if statement.kind() == "export_statement" {
            es_exports(keep, statement, &mut names);
            continue;
        }
        let Some((left, right)) = assigned(statement) else {
            continue;
        };
        if !is_exports(keep.text(left)) {
            continue;
        }
        let values = match right.kind() {
            "identifier" => vec![right],
            "object" => named_children(right)
                .into_iter()
                .filter_map(|entry| match entry.kind() {
                    "shorthand_property_identifier" => Some(entry),
                    "pair" => entry.child_by_field_name("value"),
                    _ => None,
                })
                .filter(|value| value.kind() == "identifier")
                .collect(),
            _ => Vec::new(),
        };
        names.extend(values.into_iter().map(|value| keep.text(value)));
    }
    names
}

/// The local names an `export` statement exports without declaring them.
fn es_exports<'a>(keep: &Keep<'a>, statement: Node<'_>, names: &mut HashSet<&'a str>) {
    if statement.child_by_field_name("source").is_some()
        || statement.child_by_field_name("declaration").is_some()
    {
        return;
    }
    for child in named_children(statement) {
        match child.kind() {
            "export_clause" => {
                for specifier in named_children(child) {
                    if specifier.kind() != "export_specifier" {
                        continue;
                    }
                    if let Some(name) = specifier
                        .child_by_field_name("name")
                        .filter(|name| name.kind() == "identifier")
                    {
                        names.insert(keep.text(name));
                    }
                }
            }
            // `export default NAME` (the `value` field) and `export = NAME`.
            "identifier" => {
                names.insert(keep.text(child));
            }
            _ => {}
        }
    }
}

/// The two sides of an assignment statement.
fn assigned(statement: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if statement.kind() != "expression_statement" {
        return None;
    }
    let expression = statement.named_child(0)?;
    if expression.kind() != "assignment_expression" {
        return None;
    }
    Some((
        expression.child_by_field_name("left")?,
        expression.child_by_field_name("right")?,
    ))
}

/// Whether an assignment target is CommonJS's exports.
fn is_exports(target: &str) -> bool {
    target == "module.exports"
        || target.starts_with("module.exports.")
        || target.starts_with("exports.")
}

/// The object an assignment target hangs from: `Router` for
/// `Router.prototype.route`.
fn root_object(target: &str) -> &str {
    target.split(['.', '[']).next().unwrap_or(target)
}

fn statements(
    keep: &mut Keep<'_>,
    block: Node<'_>,
    exports: &HashSet<&str>,
    exported: bool,
) -> bool {
    let mut any = false;
    for node in named_children(block) {
        any |= statement(keep, node, node, exports, exported);
    }
    any
}

/// Whether a declaration declares a name the module exports by name.
fn declares_export(keep: &Keep<'_>, node: Node<'_>, exports: &HashSet<&str>) -> bool {
    if exports.is_empty() {
        return false;
    }
    let declared =
        |name: Option<Node<'_>>| name.is_some_and(|name| exports.contains(keep.text(name)));
    declared(node.child_by_field_name("name"))
        || named_children(node).into_iter().any(|declarator| {
            declarator.kind() == "variable_declarator"
                && declared(declarator.child_by_field_name("name"))
        })
}

/// Marks one statement (`outer` is the `export` around it, or itself);
/// says whether it was kept.
fn statement(
    keep: &mut Keep<'_>,
    outer: Node<'_>,
    node: Node<'_>,
    exports: &HashSet<&str>,
    exported: bool,
) -> bool {
    let visible = exported || !keep.public_only() || declares_export(keep, node, exports);
    let body = node.child_by_field_name("body");
    match node.kind() {
        "import_statement" | "import_alias" if keep.imports() => keep.node(node),
        "export_statement" => {
            if let Some(declaration) = node.child_by_field_name("declaration") {
                return statement(keep, outer, declaration, exports, true);
            }
            if let Some(value) = node.child_by_field_name("value") {
                value_head(keep, outer, value);
            } else {
                keep.node(node);
            }
        }
        "ambient_declaration" => {
            return match named_children(node)
                .into_iter()
                .find(|child| child.kind() != "comment")
            {
                // `declare declare ... const x` parses: the chain costs
                // depth like any container, so it cannot exhaust the stack.
                Some(_) if !keep.may_descend() => {
                    let row = outer.start_position().row;
                    keep.rows(row, row);
                    true
                }
                Some(inner) if inner.kind() != "statement_block" => {
                    keep.depth += 1;
                    let kept = statement(keep, outer, inner, exports, true);
                    keep.depth -= 1;
                    kept
                }
                _ => {
                    keep.node(node);
                    true
                }
            };
        }
        "function_declaration" | "generator_function_declaration" if visible => {
            keep.rows(outer.start_position().row, head_end(node, body));
        }
        "function_signature"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration"
            if visible =>
        {
            keep.rows(outer.start_position().row, crate::keep::end_row(node));
        }
        "class_declaration" | "abstract_class_declaration" | "class" if visible => {
            class(keep, outer, node);
        }
        "lexical_declaration" | "variable_declaration" if visible => {
            keep.rows(outer.start_position().row, outer.start_position().row);
            for declarator in named_children(node) {
                if declarator.kind() != "variable_declarator" {
                    continue;
                }
                match declarator.child_by_field_name("value") {
                    Some(value) => value_head(keep, declarator, value),
                    None => keep.node(declarator),
                }
            }
        }
        "module" | "internal_module" if visible => {
            keep.rows(outer.start_position().row, head_end(node, body));
            if let Some(body) = body
                && keep.may_descend()
            {
                keep.depth += 1;
                statements(keep, body, &HashSet::new(), node.kind() == "module");
                keep.depth -= 1;
                keep.last_line(node);
            }
        }
        "expression_statement" => return assignment(keep, node, exports),
        _ => return false,
    }
    keep.leading(outer, is_doc);
    true
}

/// The last line of a head: the line where the body starts, or the node's
/// last line.
fn head_end(node: Node<'_>, body: Option<Node<'_>>) -> usize {
    body.map_or_else(
        || crate::keep::end_row(node),
        |body| body.start_position().row,
    )
}

/// Keeps from `outer`'s first line to where `value` starts, or to where its
/// body starts when it is a function, or a class's outline.
fn value_head(keep: &mut Keep<'_>, outer: Node<'_>, value: Node<'_>) {
    let start = outer.start_position().row;
    match value.kind() {
        "arrow_function" | "function_expression" | "function" | "generator_function" => {
            let body = value.child_by_field_name("body");
            keep.rows(start, head_end(value, body));
        }
        "class" => {
            keep.rows(start, value.start_position().row);
            class(keep, value, value);
        }
        _ => keep.rows(start, value.start_position().row),
    }
}

/// `a.b = function () {...}` or `module.exports = ...`: kept up to the
/// function's body or the value's start. Exported when assigned to
/// `module.exports` or `exports`, or to a property of what they export.
fn assignment(keep: &mut Keep<'_>, statement: Node<'_>, exports: &HashSet<&str>) -> bool {
    let Some((left, right)) = assigned(statement) else {
        return false;
    };
    let target = keep.text(left);
    let exports = is_exports(target) || exports.contains(root_object(target));
    let function = matches!(
        right.kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function" | "class"
    );
    if !exports && (keep.public_only() || !function) {
        return false;
    }
    value_head(keep, statement, right);
    keep.leading(statement, is_doc);
    true
}

/// A class: its head, fields up to their values, method signatures, and
/// its closing line.
fn class(keep: &mut Keep<'_>, outer: Node<'_>, node: Node<'_>) {
    let body = node.child_by_field_name("body");
    keep.rows(outer.start_position().row, head_end(node, body));
    let Some(body) = body else { return };
    keep.last_line(node);
    if !keep.may_descend() {
        return;
    }
    keep.depth += 1;
    for member in named_children(body) {
        if keep.public_only() && !is_public_member(keep, member) {
            continue;
        }
        match member.kind() {
            "method_definition" => {
                let body = member.child_by_field_name("body");
                keep.rows(member.start_position().row, head_end(member, body));
            }
            "field_definition" | "public_field_definition" => {
                match member.child_by_field_name("value") {
                    Some(value) => value_head(keep, member, value),
                    None => keep.node(member),
                }
            }
            "method_signature" | "abstract_method_signature" | "index_signature" => {
                keep.node(member)
            }
            _ => continue,
        }
        keep.leading(member, is_doc);
    }
    keep.depth -= 1;
}

fn is_public_member(keep: &Keep<'_>, member: Node<'_>) -> bool {
    let private = child_of_kind(member, &["accessibility_modifier"])
        .is_some_and(|modifier| matches!(keep.text(modifier), "private" | "protected"));
    let hash_named = member
        .child_by_field_name("name")
        .or_else(|| member.child_by_field_name("property"))
        .is_some_and(|name| name.kind() == "private_property_identifier");
    !private && !hash_named
}
