//! Python: the module docstring, imports, assignments at module and class
//! level (their first lines), `def` and `class` heads with decorators and
//! the first paragraph of their docstrings; `if`, `try` and `with` blocks
//! at module and class level are walked inside.

use tree_sitter::Node;

use crate::keep::{Keep, end_row};
use crate::nodes::{child_of_kind, named_children};

pub(crate) fn walk(keep: &mut Keep<'_>, root: Node<'_>) {
    docstring(keep, root);
    statements(keep, root);
}

/// Whether a name is public: no leading underscore, or a dunder name
/// (`__init__`, `__all__`).
fn is_public_name(name: &str) -> bool {
    !name.starts_with('_') || (name.starts_with("__") && name.ends_with("__") && name.len() > 4)
}

/// The first paragraph of the docstring that opens a module or block, at
/// full detail.
fn docstring(keep: &mut Keep<'_>, block: Node<'_>) {
    if !keep.docs() {
        return;
    }
    let Some(first) = block.named_child(0) else {
        return;
    };
    if first.kind() != "expression_statement" {
        return;
    }
    if let Some(string) = first.named_child(0)
        && matches!(string.kind(), "string" | "concatenated_string")
    {
        keep.paragraph(string.start_position().row, end_row(string));
    }
}

/// Marks the kept statements of a module, class body or compound block;
/// says whether any was.
fn statements(keep: &mut Keep<'_>, block: Node<'_>) -> bool {
    let mut any = false;
    for statement in named_children(block) {
        any |= self::statement(keep, statement);
    }
    any
}

fn statement(keep: &mut Keep<'_>, statement: Node<'_>) -> bool {
    match statement.kind() {
        "import_statement" | "import_from_statement" | "future_import_statement"
            if keep.imports() =>
        {
            keep.node(statement);
            true
        }
        "expression_statement" | "type_alias_statement" => assignment(keep, statement),
        "function_definition" | "class_definition" | "decorated_definition" => {
            definition(keep, statement, statement)
        }
        "if_statement" | "try_statement" | "with_statement" => compound(keep, statement),
        _ => false,
    }
}

/// `NAME = value` or `NAME: type = value`: its lines up to where the value
/// starts; `__all__` whole.
fn assignment(keep: &mut Keep<'_>, statement: Node<'_>) -> bool {
    let Some(inner) = statement.named_child(0) else {
        return false;
    };
    let (target, value) = match inner.kind() {
        "assignment" => (
            inner.child_by_field_name("left"),
            inner.child_by_field_name("right"),
        ),
        "type_alias_statement" => (inner.named_child(0), None),
        _ if statement.kind() == "type_alias_statement" => (statement.named_child(0), None),
        _ => return false,
    };
    let name = target.map_or("", |target| keep.text(target));
    if keep.public_only() && !is_public_name(name) {
        return false;
    }
    if name == "__all__" {
        keep.node(statement);
    } else {
        keep.head(statement, value);
    }
    true
}

/// A `def` or `class` (`outer` with its decorators): its head up to the
/// colon, its docstring's first paragraph, and a class's members.
fn definition(keep: &mut Keep<'_>, outer: Node<'_>, node: Node<'_>) -> bool {
    if node.kind() == "decorated_definition" {
        return match node.child_by_field_name("definition") {
            Some(definition) => self::definition(keep, outer, definition),
            None => false,
        };
    }
    // Every `def` and `class` at module and class level is kept at every
    // level, `_`-prefixed ones too: they are a Python outline's index.
    let body = node.child_by_field_name("body");
    header(keep, outer, node, body);
    if let Some(body) = body {
        docstring(keep, body);
        if node.kind() == "class_definition" && keep.may_descend() {
            keep.depth += 1;
            statements(keep, body);
            keep.depth -= 1;
        }
    }
    true
}

/// Keeps from `outer`'s first line to the line of `node`'s colon (the one
/// before `body`).
fn header(keep: &mut Keep<'_>, outer: Node<'_>, node: Node<'_>, body: Option<Node<'_>>) {
    let end = match (child_of_kind(node, &[":"]), body) {
        (Some(colon), _) => colon.start_position().row,
        (None, Some(body)) => body.start_position().row,
        (None, None) => end_row(node),
    };
    // One line per item at the heads level: the `def` or `class`, not a
    // decorator above it.
    let first = if keep.heads() { node } else { outer };
    keep.rows(first.start_position().row, end);
}

/// `if`, `try` or `with` at module or class level: its blocks' kept
/// statements, and when there are any, the heads of all its clauses.
fn compound(keep: &mut Keep<'_>, node: Node<'_>) -> bool {
    if !keep.may_descend() {
        return false;
    }
    let mut clauses = vec![(
        node,
        node.child_by_field_name("body")
            .or(node.child_by_field_name("consequence")),
    )];
    for child in named_children(node) {
        match child.kind() {
            "elif_clause" => clauses.push((child, child.child_by_field_name("consequence"))),
            "else_clause" => clauses.push((child, child.child_by_field_name("body"))),
            "except_clause" | "finally_clause" | "except_group_clause" => {
                clauses.push((child, child_of_kind(child, &["block"])))
            }
            _ => {}
        }
    }
    let mut any = false;
    keep.depth += 1;
    for (_, block) in &clauses {
        if let Some(block) = block {
            any |= statements(keep, *block);
        }
    }
    keep.depth -= 1;
    if any {
        for (clause, block) in clauses {
            header(keep, clause, clause, block);
        }
    }
    any
}
