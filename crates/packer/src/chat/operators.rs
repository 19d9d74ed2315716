//! `~` and `+` in a chat template, joined as Jinja2 joins them.
//!
//! Jinja2's `a ~ b` is `str(a) + str(b)`: Python's `str()` of each side
//! (`1e+16`, `None`, `True`, `['a', 1]`). minijinja joins its own way
//! (`10000000000000000.0`, `none`, `true`, `["a", 1]`) and has no hook for
//! it. And Jinja2's `+` with a string marked safe (`Markup`, from `|safe`
//! or `|escape`) HTML-escapes the other string, where minijinja joins the
//! two as they are.
//!
//! So before compiling, each `a ~ b` of the template is written again as
//! `JOIN(a, b)`, and in a template that marks strings safe each `a + b`
//! as `ADD(a, b)`: functions that do what Jinja2 does. The operands are
//! found in minijinja's own syntax tree, by their place in the source, so
//! what minijinja reads as an operand is what the function is given.

use minijinja::machinery::ast::{self, Stmt};
use minijinja::machinery::{Token, WhitespaceConfig, parse, tokenize};
use minijinja::syntax::SyntaxConfig;
use serde_json::Value as Json;

/// The function `a ~ b` becomes.
pub(super) const JOIN: &str = "__packer_join";

/// The function `a + b` becomes where the template marks strings safe.
pub(super) const ADD: &str = "__packer_add";

/// Why a template cannot be written again, for the message.
pub(super) type Refusal = &'static str;

/// `source` with `~` (and, when `add` is set, `+`) written as calls of
/// [`JOIN`] and [`ADD`]. A template that does not parse is returned as it
/// is: compiling it then says where it fails.
pub(super) fn rewrite(source: &str, add: bool) -> Result<String, Refusal> {
    if !(source.contains('~') || add && source.contains('+')) {
        return Ok(source.to_owned());
    }
    // Reading the tree recurses as deep as it is: on a stack of known size.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("template operators".into())
            .stack_size(STACK)
            .spawn_scoped(scope, || rewrite_here(source, add))
            .map_err(|_| NO_THREAD)?
            .join()
            .map_err(|_| UNREADABLE)?
    })
}

/// The stack [`rewrite`] reads the tree on: room for a tag of
/// [`MAX_TAG_TOKENS`] nested one deeper at each token, in a debug build.
const STACK: usize = 32 << 20;

fn rewrite_here(source: &str, add: bool) -> Result<String, Refusal> {
    let whitespace = WhitespaceConfig {
        keep_trailing_newline: false,
        lstrip_blocks: true,
        trim_blocks: true,
    };
    // The tree is as deep as a tag is long (`a ~ b ~ …` nests to the
    // left), and reading it recurses: a tag is bounded first.
    let mut in_tag = 0usize;
    for token in tokenize(source, false, SyntaxConfig, whitespace) {
        let Ok((token, _)) = token else {
            return Ok(source.to_owned());
        };
        in_tag = match token {
            Token::VariableStart | Token::BlockStart => 1,
            Token::VariableEnd | Token::BlockEnd => 0,
            _ if in_tag > 0 => in_tag + 1,
            _ => 0,
        };
        if in_tag > MAX_TAG_TOKENS {
            return Err(LONG_TAG);
        }
    }
    let Ok(tree) = parse(source, "chat_template", SyntaxConfig, whitespace) else {
        return Ok(source.to_owned());
    };
    let mut edits = Vec::new();
    statement(&tree, &mut |tree| {
        walk(&tree, source, add, 0, &mut edits).map(|_| ())
    })?;
    if edits.is_empty() {
        return Ok(source.to_owned());
    }
    // At one place: what closes before what opens; the inner node closes
    // first and the outer node opens first.
    edits.sort_by_key(|edit| match edit.kind {
        Kind::Close => (edit.at, 0, usize::MAX - edit.depth),
        Kind::Operator => (edit.at, 1, 0),
        Kind::Open(_) => (edit.at, 2, edit.depth),
    });
    let mut out = String::with_capacity(source.len() + edits.len() * 16);
    let mut copied = 0;
    for edit in &edits {
        out.push_str(&source[copied..edit.at]);
        copied = edit.at;
        match edit.kind {
            Kind::Open(name) => {
                out.push_str(name);
                out.push('(');
            }
            Kind::Operator => {
                out.push(',');
                copied += 1;
            }
            Kind::Close => out.push(')'),
        }
    }
    out.push_str(&source[copied..]);
    Ok(out)
}

const UNREADABLE: Refusal = "an operator packer cannot find the operands of";

/// The most tokens one tag may hold: the longest tag of 129 published
/// chat templates holds 57.
const MAX_TAG_TOKENS: usize = 2_000;

const LONG_TAG: Refusal = "a tag of more than 2,000 tokens";

const NO_THREAD: Refusal = "operators to read, and no thread could be started to read them";

/// One change to the source: text put in at a byte offset, or the
/// operator there replaced.
struct Edit {
    at: usize,
    depth: usize,
    kind: Kind,
}

enum Kind {
    Open(&'static str),
    Operator,
    Close,
}

/// Each expression of a statement and of the statements in it, in turn:
/// one expression's tree at a time is serialized (a tag is bounded, a
/// template's tree is not).
fn statement<'a>(node: &Stmt<'a>, each: &mut Each<'_>) -> Result<(), Refusal> {
    let body = |body: &[Stmt<'a>], each: &mut Each<'_>| {
        body.iter().try_for_each(|child| statement(child, each))
    };
    match node {
        Stmt::Template(t) => body(&t.children, each),
        Stmt::EmitExpr(e) => each(json(&e.expr)?),
        Stmt::EmitRaw(_) | Stmt::Continue(_) | Stmt::Break(_) => Ok(()),
        Stmt::ForLoop(f) => {
            each(json(&f.target)?)?;
            each(json(&f.iter)?)?;
            if let Some(filter) = &f.filter_expr {
                each(json(filter)?)?;
            }
            body(&f.body, each)?;
            body(&f.else_body, each)
        }
        Stmt::IfCond(i) => {
            each(json(&i.expr)?)?;
            body(&i.true_body, each)?;
            body(&i.false_body, each)
        }
        Stmt::WithBlock(w) => {
            for (target, value) in &w.assignments {
                each(json(target)?)?;
                each(json(value)?)?;
            }
            body(&w.body, each)
        }
        Stmt::Set(set) => {
            each(json(&set.target)?)?;
            each(json(&set.expr)?)
        }
        Stmt::SetBlock(set) => {
            each(json(&set.target)?)?;
            if let Some(filter) = &set.filter {
                each(json(filter)?)?;
            }
            body(&set.body, each)
        }
        Stmt::AutoEscape(a) => {
            each(json(&a.enabled)?)?;
            body(&a.body, each)
        }
        Stmt::FilterBlock(f) => {
            each(json(&f.filter)?)?;
            body(&f.body, each)
        }
        Stmt::Block(b) => body(&b.body, each),
        Stmt::Import(i) => {
            each(json(&i.expr)?)?;
            each(json(&i.name)?)
        }
        Stmt::FromImport(i) => {
            each(json(&i.expr)?)?;
            for (name, alias) in &i.names {
                each(json(name)?)?;
                if let Some(alias) = alias {
                    each(json(alias)?)?;
                }
            }
            Ok(())
        }
        Stmt::Extends(e) => each(json(&e.name)?),
        Stmt::Include(i) => each(json(&i.name)?),
        Stmt::Macro(m) => macro_statement(m, each),
        Stmt::CallBlock(c) => {
            each(json(&c.call)?)?;
            macro_statement(&c.macro_decl, each)
        }
        Stmt::Do(d) => each(json(&d.call)?),
    }
}

fn macro_statement(m: &ast::Macro<'_>, each: &mut Each<'_>) -> Result<(), Refusal> {
    m.args.iter().try_for_each(|arg| each(json(arg)?))?;
    m.defaults
        .iter()
        .try_for_each(|default| each(json(default)?))?;
    m.body.iter().try_for_each(|child| statement(child, each))
}

/// What is done with each expression's serialized tree.
type Each<'e> = dyn FnMut(Json) -> Result<(), Refusal> + 'e;

/// A piece of the tree, serialized.
fn json(node: &impl serde::Serialize) -> Result<Json, Refusal> {
    serde_json::to_value(node).map_err(|_| UNREADABLE)
}

/// The edits for every `~` (and `+`) in `node`, a piece of the serialized
/// syntax tree (a spanned node is `{"inner": [node, span]}`, an expression
/// is tagged `"expr"`), and the byte range from its first to its last
/// span: an operand's own span can be less than the operand (a filter's
/// is its name), the spans of all its parts are not.
fn walk(
    node: &Json,
    source: &str,
    add: bool,
    depth: usize,
    edits: &mut Vec<Edit>,
) -> Result<Option<(usize, usize)>, Refusal> {
    let merge = |range: Option<(usize, usize)>, other: Option<(usize, usize)>| match (range, other)
    {
        (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
        (range, None) => range,
        (None, other) => other,
    };
    let mut range = None;
    match node {
        Json::Array(items) => {
            for item in items {
                range = merge(range, walk(item, source, add, depth + 1, edits)?);
            }
        }
        Json::Object(fields) => {
            let spanned = spanned(node);
            range = spanned.map(|(_, span)| span);
            let joined = match spanned {
                Some((operation, _)) if fields.get("expr") == Some(&Json::from("BinOp")) => {
                    match operation.get("op").and_then(Json::as_str) {
                        Some("Concat") => Some((operation, JOIN, '~')),
                        Some("Add") if add => Some((operation, ADD, '+')),
                        _ => None,
                    }
                }
                _ => None,
            };
            if let (Some((operation, name, symbol)), Some((_, span))) = (joined, spanned) {
                let mut operand = |side: &str| {
                    let node = operation.get(side).ok_or(UNREADABLE)?;
                    walk(node, source, add, depth + 1, edits)?.ok_or(UNREADABLE)
                };
                let left = operand("left")?;
                let right = operand("right")?;
                let at = operator(source, left.1, right.0, symbol)?;
                edits.push(Edit {
                    at: span.0,
                    depth,
                    kind: Kind::Open(name),
                });
                edits.push(Edit {
                    at,
                    depth,
                    kind: Kind::Operator,
                });
                edits.push(Edit {
                    at: span.1,
                    depth,
                    kind: Kind::Close,
                });
                range = merge(range, merge(Some(left), Some(right)));
            } else {
                for value in fields.values() {
                    range = merge(range, walk(value, source, add, depth + 1, edits)?);
                }
            }
        }
        _ => {}
    }
    Ok(range)
}

/// A spanned node's content and its byte range in the source.
fn spanned(node: &Json) -> Option<(&Json, (usize, usize))> {
    let inner = node.get("inner")?.as_array()?;
    let [content, span] = inner.as_slice() else {
        return None;
    };
    let offset = |name: &str| span.get(name)?.as_u64().map(|n| n as usize);
    Some((content, (offset("start_offset")?, offset("end_offset")?)))
}

/// Where the operator between two operands is. Between the last span of
/// one and the first of the other there is no string literal (each is a
/// span of its own), so the one operator sign there is the operator; the
/// rest is punctuation, names and white space no span covers.
fn operator(
    source: &str,
    left_end: usize,
    right_start: usize,
    symbol: char,
) -> Result<usize, Refusal> {
    let gap = source.get(left_end..right_start).ok_or(UNREADABLE)?;
    if gap.contains(['\'', '"']) || gap.matches(symbol).count() != 1 {
        return Err(UNREADABLE);
    }
    Ok(left_end + gap.find(symbol).ok_or(UNREADABLE)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_join_becomes_a_call_with_the_operands_minijinja_reads() {
        assert_eq!(
            rewrite("{{ a ~ b ~ (c + d)|e }}", false).unwrap(),
            "{{ __packer_join(__packer_join(a , b) , (c + d)|e) }}"
        );
        assert_eq!(
            rewrite("{% set x = ('[' ~ y) %}{{ x ~ '~' }}", false).unwrap(),
            "{% set x = (__packer_join('[' , y)) %}{{ __packer_join(x , '~') }}"
        );
    }

    #[test]
    fn additions_become_calls_only_where_asked() {
        let source = "{{ 'a'|safe + b + c ~ d }}";
        assert_eq!(
            rewrite(source, false).unwrap(),
            "{{ 'a'|safe + b + __packer_join(c , d) }}"
        );
        assert_eq!(
            rewrite(source, true).unwrap(),
            "{{ __packer_add(__packer_add('a'|safe , b) , __packer_join(c , d)) }}"
        );
    }

    #[test]
    fn text_outside_tags_and_a_template_that_does_not_parse_stay() {
        assert_eq!(rewrite("a ~ b {# ~ #}", false).unwrap(), "a ~ b {# ~ #}");
        assert_eq!(rewrite("{{ a ~ }}", false).unwrap(), "{{ a ~ }}");
    }

    #[test]
    fn a_tag_nested_at_every_token_is_read_up_to_its_bound_then_refused() {
        let filters = |n: usize| format!("{{{{ (a ~ b){} }}}}", "|lower".repeat(n));
        let chain = |n: usize| {
            let operands: String = (0..n).map(|i| format!("a{i} ~ ")).collect();
            format!("{{{{ {operands} b }}}}")
        };
        assert!(rewrite(&filters(995), false).is_ok());
        assert!(rewrite(&chain(998), false).is_ok());
        assert!(rewrite(&chain(998), true).is_ok());
        assert_eq!(rewrite(&filters(1_000), false), Err(LONG_TAG));
        assert_eq!(rewrite(&chain(1_000), false), Err(LONG_TAG));
    }
}
