//! The set of kept lines and the moves every language's rules are made
//! of: keep a node whole, keep its head up to where its body starts, keep
//! its closing line, keep the attributes and the first paragraph of the
//! doc comment attached to it.

// A build with only some grammars leaves some moves unused.
#![cfg_attr(not(feature = "all"), allow(dead_code))]

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

use tree_sitter::Node;

use crate::Detail;
use crate::nodes::{children, visited};

/// Containers nested deeper than this keep their head only: hostile input
/// cannot exhaust the stack through the walk.
pub(crate) const MAX_DEPTH: usize = 48;

/// The lines kept so far of one file, and what the walk needs to decide.
pub(crate) struct Keep<'a> {
    /// The file's bytes.
    pub src: &'a [u8],
    /// Byte spans of the file's lines, without their `\n`.
    spans: Vec<Range<usize>>,
    /// Whether each line is kept.
    pub rows: Vec<bool>,
    /// How much to keep.
    pub detail: Detail,
    /// How many containers the walk is inside.
    pub depth: usize,
    /// At [`Detail::Heads`]: every item is a candidate, not only public
    /// ones (the level's second walk, for a file with no public item).
    pub every_item: bool,
    /// The whole source, for parsing a part of it again.
    pub source: &'a str,
    /// The grammar the file was parsed with.
    pub grammar: tree_sitter::Language,
    /// The macro bodies parsed again, shared by every level of the file.
    reparsed: Rc<RefCell<Reparsed>>,
    /// The file's comments and attributes.
    index: Index,
    /// The lines that hold nothing but (part of) a comment, from the
    /// file's own tree, found once by [`Keep::index`] for every level.
    comment_lines: Rc<[usize]>,
    /// The stack of comments and attributes above each line asked for so
    /// far (see [`Keep::leading`]).
    stacks: RefCell<HashMap<usize, Rc<[Above]>>>,
    /// The lines whose items have had their attributes and doc kept.
    led: HashSet<usize>,
    /// [`Keep::has_attribute`]'s answers by line and needle.
    attribute_answers: RefCell<HashMap<(usize, &'static str), bool>>,
}

/// The comments and attributes of a tree, as [`Keep::index`] records them.
#[derive(Clone, Default)]
struct Index {
    /// By the line they end on (the one that starts first, when several
    /// end on a line).
    ends: HashMap<usize, Above>,
    /// The byte each ends at, by the byte it starts at.
    starts: HashMap<usize, usize>,
}

/// Macro bodies parsed again (Rust's `cfg_rt! { ... }`), shared by every
/// level of one file: each body is parsed and indexed once, and together
/// they are at most four times the file's size and use at most the work
/// budget of four times its size, so nested macros cannot multiply the
/// work, however many levels are made.
struct Reparsed {
    /// By the body's first byte: its clean tree and the comments and
    /// attributes in it, or `None` when it did not parse or the budget was
    /// spent.
    bodies: HashMap<usize, Option<Body>>,
    /// Bytes that may still be parsed again.
    bytes_left: usize,
    /// Parser operations those parses may still use.
    work_left: usize,
    /// The file's clock, which those parses share with its first.
    clock: crate::clock::Clock,
}

/// A macro body parsed again.
struct Body {
    /// Its clean tree.
    tree: tree_sitter::Tree,
    /// Its comments and attributes.
    index: Index,
}

/// A comment or attribute, as recorded by [`Keep::index`].
#[derive(Clone)]
struct Above {
    /// Its first line.
    first: usize,
    /// Its last line.
    last: usize,
    /// Its first byte's column on that line.
    column: usize,
    /// An attribute, not a comment.
    attribute: bool,
    /// Its bytes in the file.
    bytes: Range<usize>,
}

impl<'a> Keep<'a> {
    pub(crate) fn new(
        source: &'a str,
        detail: Detail,
        grammar: tree_sitter::Language,
        clock: crate::clock::Clock,
    ) -> Self {
        let spans = crate::lines::line_spans(source);
        let rows = vec![false; spans.len()];
        Keep {
            src: source.as_bytes(),
            spans,
            rows,
            detail,
            depth: 0,
            every_item: false,
            source,
            grammar,
            index: Index::default(),
            comment_lines: Rc::from([]),
            stacks: RefCell::default(),
            led: HashSet::new(),
            attribute_answers: RefCell::default(),
            reparsed: Rc::new(RefCell::new(Reparsed {
                bodies: HashMap::new(),
                bytes_left: source.len().saturating_mul(4),
                work_left: crate::parse::budget_for(source.len().saturating_mul(4)),
                clock,
            })),
        }
    }

    /// A copy at `detail` with nothing kept yet, sharing this one's line
    /// spans, comment index and macro bodies parsed again (so a tree is
    /// indexed once for every level).
    pub(crate) fn fresh(&self, detail: Detail) -> Self {
        Keep {
            src: self.src,
            spans: self.spans.clone(),
            rows: vec![false; self.spans.len()],
            detail,
            depth: 0,
            every_item: false,
            source: self.source,
            grammar: self.grammar.clone(),
            index: self.index.clone(),
            comment_lines: Rc::clone(&self.comment_lines),
            stacks: RefCell::default(),
            led: HashSet::new(),
            attribute_answers: RefCell::default(),
            reparsed: Rc::clone(&self.reparsed),
        }
    }

    /// Doc comments are kept (their first paragraph).
    pub(crate) fn docs(&self) -> bool {
        self.detail == Detail::Full
    }

    /// Only public or exported items are kept.
    pub(crate) fn public_only(&self) -> bool {
        self.detail == Detail::Public || (self.detail == Detail::Heads && !self.every_item)
    }

    /// Imports and a file's own attributes (Rust's `#![...]`) are kept:
    /// above [`Detail::Public`].
    pub(crate) fn imports(&self) -> bool {
        matches!(self.detail, Detail::Full | Detail::Signatures)
    }

    /// Each kept item keeps one line (see [`Keep::rows`]).
    pub(crate) fn heads(&self) -> bool {
        self.detail == Detail::Heads
    }

    /// The clean tree of the inside of `node` (a macro's braces), parsed
    /// on its own, or `None`; its comments and attributes join the index.
    /// Each body is parsed once for every level (see [`Reparsed`]).
    pub(crate) fn parse_inside(&mut self, node: Node<'_>) -> Option<tree_sitter::Tree> {
        let (start, end) = (node.start_position(), node.end_position());
        if node.end_byte() < node.start_byte() + 2 || start.row == end.row {
            return None;
        }
        let shared = Rc::clone(&self.reparsed);
        let mut reparsed = shared.borrow_mut();
        let key = node.start_byte();
        if !reparsed.bodies.contains_key(&key) {
            let parsed = reparsed.parse(&self.grammar, self.source, node);
            reparsed.bodies.insert(key, parsed);
        }
        let body = reparsed.bodies.get(&key)?.as_ref()?;
        self.index.merge(&body.index);
        Some(body.tree.clone())
    }

    /// Whether the walk may go into one more container.
    pub(crate) fn may_descend(&self) -> bool {
        self.depth < MAX_DEPTH
    }

    /// The node's text (empty if it is not UTF-8, which a `&str` source
    /// rules out).
    pub(crate) fn text(&self, node: Node<'_>) -> &'a str {
        std::str::from_utf8(&self.src[node.byte_range()]).unwrap_or("")
    }

    /// The text of a line, without its `\n`.
    pub(crate) fn line(&self, row: usize) -> &'a str {
        self.spans
            .get(row)
            .and_then(|span| self.source.get(span.clone()))
            .unwrap_or("")
    }

    /// Keeps lines `first..=last`; at [`Detail::Heads`] only the first of
    /// them that does not start with `@` (a decorator or annotation line),
    /// or the first when all do.
    pub(crate) fn rows(&mut self, first: usize, last: usize) {
        let end = (last + 1).min(self.rows.len());
        if self.heads() {
            let row = (first..end)
                .find(|&row| !self.line(row).trim_start().starts_with('@'))
                .unwrap_or(first);
            if row < end {
                self.rows[row] = true;
            }
            return;
        }
        for row in first.min(end)..end {
            self.rows[row] = true;
        }
    }

    /// Keeps every line of a node.
    pub(crate) fn node(&mut self, node: Node<'_>) {
        self.rows(node.start_position().row, end_row(node));
    }

    /// Keeps a node's lines up to and including the line where `body`
    /// starts (the line that opens it), or the whole node without a body.
    pub(crate) fn head(&mut self, node: Node<'_>, body: Option<Node<'_>>) {
        match body {
            Some(body) => self.rows(node.start_position().row, body.start_position().row),
            None => self.node(node),
        }
    }

    /// Keeps a node's last line (a container's closing brace), except at
    /// [`Detail::Heads`].
    pub(crate) fn last_line(&mut self, node: Node<'_>) {
        if self.heads() {
            return;
        }
        let row = end_row(node);
        self.rows(row, row);
    }

    /// Keeps the first paragraph of the comment lines `first..=last`: up
    /// to the first line with no text once comment markers are stripped,
    /// after a line with text.
    pub(crate) fn paragraph(&mut self, first: usize, last: usize) {
        let mut text_lines = 0;
        let mut end = first;
        for row in first..=last {
            let blank = comment_text(self.line(row)).is_empty();
            if blank && text_lines > 0 {
                break;
            }
            text_lines += usize::from(!blank);
            end = row;
        }
        self.rows(first, end);
    }

    /// Records the comments and attributes of a tree by the line they end
    /// on, so that finding what sits above an item costs one look-up
    /// (tree-sitter finds a previous sibling by walking the siblings before
    /// it, which a file of many items would make quadratic).
    pub(crate) fn index(&mut self, root: Node<'_>) {
        let mut lines = Vec::new();
        let (index, source, spans) = (&mut self.index, self.source, &self.spans);
        preorder(root, |node, _| {
            let comment = record(index, node);
            if comment {
                comment_only_lines(source, spans, node, &mut lines);
            }
            !comment
        });
        lines.sort_unstable();
        lines.dedup();
        self.comment_lines = lines.into();
    }

    /// The attributes and comments stacked right above line `row`, nearest
    /// first: each alone on its lines but for other comments and
    /// attributes (one with code before or after it on its line belongs to
    /// that code). Found once per line: a line of many items under a long
    /// stack would otherwise walk the stack once per item, and since each
    /// line of a stack holds no code, the stacks above different lines
    /// share no line, so that finding them all is linear in the file.
    fn stacked_above(&self, row: usize) -> Rc<[Above]> {
        if let Some(found) = self.stacks.borrow().get(&row) {
            return Rc::clone(found);
        }
        let mut found = Vec::new();
        let mut top = row;
        while top > 0 {
            let Some(above) = self.index.ends.get(&(top - 1)) else {
                break;
            };
            let before = self.line(above.first).get(..above.column).unwrap_or("x");
            visited(1);
            if !before.trim().is_empty() || !self.ends_its_line(above) {
                break;
            }
            found.push(above.clone());
            top = above.first;
        }
        let found: Rc<[Above]> = found.into();
        self.stacks.borrow_mut().insert(row, Rc::clone(&found));
        found
    }

    /// Whether nothing but whitespace, comments and attributes follows
    /// `above` on its last line.
    fn ends_its_line(&self, above: &Above) -> bool {
        let Some(line) = self.spans.get(above.last) else {
            return true;
        };
        let mut at = above.bytes.end;
        loop {
            while at < line.end && self.src[at].is_ascii_whitespace() {
                at += 1;
            }
            if at >= line.end {
                return true;
            }
            match self.index.starts.get(&at) {
                Some(&end) if end > at => at = end,
                _ => return false,
            }
        }
    }

    /// Whether an attribute stacked right above `item` contains `needle`
    /// (spaces ignored).
    pub(crate) fn has_attribute(&self, item: Node<'_>, needle: &'static str) -> bool {
        let row = item.start_position().row;
        if let Some(&answer) = self.attribute_answers.borrow().get(&(row, needle)) {
            return answer;
        }
        let answer = self.stacked_above(row).iter().any(|above| {
            above.attribute
                && std::str::from_utf8(&self.src[above.bytes.clone()])
                    .is_ok_and(|text| text.replace(' ', "").contains(needle))
        });
        self.attribute_answers
            .borrow_mut()
            .insert((row, needle), answer);
        answer
    }

    /// Keeps the attributes (Rust's `#[...]`, decorators) stacked right
    /// above `item`, and at [`Detail::Full`] the first paragraph of the doc
    /// comment above them; both go with an item that is kept. A comment
    /// with code before or after it on its line belongs to that code, and
    /// a comment that `is_doc` rejects ends the stack. What is kept
    /// depends on the line only (a language passes the same `is_doc` for
    /// all its items), so the items of a line after the first keep nothing
    /// more.
    pub(crate) fn leading(&mut self, item: Node<'_>, is_doc: impl Fn(&str) -> bool) {
        let row = item.start_position().row;
        if !self.led.insert(row) {
            return;
        }
        let mut doc: Option<(usize, usize)> = None;
        for above in self.stacked_above(row).iter() {
            let last = above.last;
            if above.attribute {
                if !self.heads() {
                    self.rows(above.first, last);
                }
                continue;
            }
            let text = std::str::from_utf8(&self.src[above.bytes.clone()]).unwrap_or("");
            if !is_doc(text) {
                break;
            }
            doc = Some(match doc {
                Some((_, doc_last)) => (above.first, doc_last),
                None => (above.first, last),
            });
        }
        if let Some((first, last)) = doc
            && self.docs()
        {
            self.paragraph(first, last);
        }
    }

    /// Keeps each run of elided lines whose bytes are no more than its
    /// marker's (`⋮ K` and a newline): a lone closing brace or blank line
    /// reads better, and costs less, than a marker.
    pub(crate) fn fill_short_gaps(&mut self) {
        if !self.rows.contains(&true) {
            return;
        }
        let mut row = 0;
        while row < self.rows.len() {
            if self.rows[row] {
                row += 1;
                continue;
            }
            let start = row;
            while row < self.rows.len() && !self.rows[row] {
                row += 1;
            }
            let bytes: usize = self.spans[start..row]
                .iter()
                .map(|span| span.len() + 1)
                .sum();
            let marker = crate::lines::MARKER.len_utf8() + 2 + (row - start).to_string().len();
            if bytes <= marker {
                self.rows[start..row].fill(true);
            }
        }
    }

    /// Elides every line that holds nothing but (part of) a comment: below
    /// [`Detail::Full`] the comments inside kept declarations go too.
    pub(crate) fn drop_comment_lines(&mut self) {
        for &row in self.comment_lines.iter() {
            if let Some(kept) = self.rows.get_mut(row) {
                *kept = false;
            }
        }
    }

    /// The kept lines as ranges.
    pub(crate) fn ranges(&self) -> Vec<Range<usize>> {
        crate::lines::ranges(&self.rows)
    }
}

impl Reparsed {
    /// Parses the inside of `node` (a macro's braces) if the bytes and the
    /// work left allow, and indexes its comments and attributes.
    fn parse(
        &mut self,
        grammar: &tree_sitter::Language,
        source: &str,
        node: Node<'_>,
    ) -> Option<Body> {
        let bytes = node.end_byte() - node.start_byte();
        self.bytes_left = self.bytes_left.checked_sub(bytes)?;
        let (start, end) = (node.start_position(), node.end_position());
        let within = tree_sitter::Range {
            start_byte: node.start_byte() + 1,
            end_byte: node.end_byte() - 1,
            start_point: tree_sitter::Point::new(start.row, start.column + 1),
            end_point: tree_sitter::Point::new(end.row, end.column.saturating_sub(1)),
        };
        let budget = self.work_left.min(crate::parse::budget_for(bytes));
        let (tree, used) = crate::parse::parse_range(grammar, source, within, budget, self.clock);
        self.work_left = self.work_left.saturating_sub(used);
        let tree = tree.ok()?;
        let mut index = Index::default();
        index_into(&mut index, tree.root_node());
        Some(Body { tree, index })
    }
}

/// Records the comments and attributes under `root` in `index`.
fn index_into(index: &mut Index, root: Node<'_>) {
    preorder(root, |node, _| !record(index, node));
}

/// Records `node` in `index` when it is a comment or an attribute; returns
/// whether it is a comment (whose inside is not walked).
fn record(index: &mut Index, node: Node<'_>) -> bool {
    // Comments and attributes are named nodes in every grammar: a token
    // (`fn`, `{`) is neither, and its name is not looked up.
    if !node.is_named() {
        return false;
    }
    let kind = node.kind();
    let attribute = ATTRIBUTES.contains(&kind);
    let comment = COMMENTS.contains(&kind);
    if attribute || comment {
        let start = node.start_position();
        let found = Above {
            first: start.row,
            last: end_row(node),
            column: start.column,
            attribute,
            bytes: node.byte_range(),
        };
        index.record(&found);
    }
    comment
}

/// Adds to `lines` each line of comment `node` that holds nothing else
/// (only whitespace before it on its first line and after it on its last).
fn comment_only_lines(
    source: &str,
    spans: &[Range<usize>],
    node: Node<'_>,
    lines: &mut Vec<usize>,
) {
    let (start, end) = (node.start_position(), node.end_position());
    for row in start.row..=end_row(node) {
        let Some(span) = spans.get(row) else {
            break;
        };
        let line = source.get(span.clone()).unwrap_or("");
        let before = if row == start.row {
            line.get(..start.column)
        } else {
            Some("")
        };
        let after = if row == end.row {
            line.get(end.column..)
        } else {
            Some("")
        };
        if before.is_some_and(|text| text.trim().is_empty())
            && after.is_some_and(|text| text.trim().is_empty())
        {
            lines.push(row);
        }
    }
}

impl Index {
    /// Records `found`; by its last line unless a comment or attribute
    /// ending there starts before it.
    fn record(&mut self, found: &Above) {
        self.starts.insert(found.bytes.start, found.bytes.end);
        match self.ends.get(&found.last) {
            Some(other) if (other.first, other.column) <= (found.first, found.column) => {}
            _ => {
                self.ends.insert(found.last, found.clone());
            }
        }
    }

    /// Records everything `other` holds.
    fn merge(&mut self, other: &Index) {
        for (&start, &end) in &other.starts {
            self.starts.insert(start, end);
        }
        for found in other.ends.values() {
            self.record(found);
        }
    }
}

/// The comment block that opens a file, when it documents the file rather
/// than the item right below it: its first paragraph, at full detail.
pub(crate) fn file_comment(keep: &mut Keep<'_>, root: Node<'_>) {
    if !keep.docs() {
        return;
    }
    // Every child, named or not: the node right after the block is its
    // next sibling, found without `Node::next_sibling` (which walks down
    // from the root).
    let children = children(root);
    let mut named = children
        .iter()
        .enumerate()
        .filter(|(_, child)| child.is_named());
    let Some((mut last_at, &first)) = named.next() else {
        return;
    };
    if !is_comment(first) {
        return;
    }
    let mut last = first;
    for (at, &child) in named {
        if !is_comment(child) || child.start_position().row > end_row(last) + 1 {
            break;
        }
        (last_at, last) = (at, child);
    }
    let attached = children
        .get(last_at + 1)
        .is_some_and(|next| next.start_position().row == end_row(last) + 1);
    if !attached {
        keep.paragraph(first.start_position().row, end_row(last));
    }
}

/// Visits `root` and every node under it in document order, without
/// recursion (a [`tree_sitter::TreeCursor`] and a stack of ancestors on the
/// heap, so a tree nested 50,000 deep costs no stack and each node one
/// step). `visit` gets each node and its parent (`None` for `root`) and
/// says whether to go inside it.
pub(crate) fn preorder<'t>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, Option<Node<'t>>) -> bool,
) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        visited(1);
        if visit(node, ancestors.last().copied()) && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if ancestors.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            cursor.goto_parent();
            ancestors.pop();
        }
    }
}

/// A node's last line: a node that ends at the start of a line (having
/// taken in the newline before it) ends on the line before.
pub(crate) fn end_row(node: Node<'_>) -> usize {
    let start = node.start_position();
    let end = node.end_position();
    if end.column == 0 && end.row > start.row {
        end.row - 1
    } else {
        end.row
    }
}

/// The kinds of an attribute that goes with the item below it: Rust's
/// `#[...]`, a JavaScript or TypeScript decorator in a class body.
const ATTRIBUTES: [&str; 2] = ["attribute_item", "decorator"];

/// Whether a node is a comment in any of the grammars.
pub(crate) fn is_comment(node: Node<'_>) -> bool {
    COMMENTS.contains(&node.kind())
}

/// The kinds of [`is_comment`].
const COMMENTS: [&str; 3] = ["comment", "line_comment", "block_comment"];

/// A comment line's text without comment markers, docstring quotes or
/// surrounding space.
pub(crate) fn comment_text(line: &str) -> &str {
    let mut text = line.trim();
    for marker in ["///", "//!", "//", "/**", "/*!", "/*", "*/", "*", "#"] {
        if let Some(rest) = text.strip_prefix(marker) {
            text = rest;
            break;
        }
    }
    text = text.trim_end().trim_end_matches("*/");
    // A docstring's quotes, with an optional prefix (r, u, b, f).
    let unprefixed = text.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    for quotes in ["\"\"\"", "'''"] {
        if let Some(rest) = unprefixed.strip_prefix(quotes)
            && text.len() - unprefixed.len() <= 2
        {
            text = rest;
        }
        text = text.trim_end_matches(quotes);
    }
    text.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_markers_and_docstring_quotes_are_not_text() {
        assert_eq!(comment_text("  /// Reads a file."), "Reads a file.");
        assert_eq!(comment_text("///"), "");
        assert_eq!(comment_text(" * "), "");
        assert_eq!(comment_text("/**"), "");
        assert_eq!(comment_text(" */"), "");
        assert_eq!(comment_text("    \"\"\""), "");
        assert_eq!(comment_text("    r\"\"\"Raw."), "Raw.");
        assert_eq!(comment_text("    \"\"\"return it.\"\"\""), "return it.");
        assert_eq!(comment_text("  # note"), "note");
        assert_eq!(comment_text("rather"), "rather");
    }

    #[cfg(feature = "rust")]
    #[test]
    fn macro_bodies_are_parsed_once_for_every_level_from_one_pool() {
        let small = "m! {\n    pub fn f() {}\n}\n";
        let large = format!(
            "n! {{\n{}}}\n",
            "    pub fn g() { a(b, [c]); }\n".repeat(50)
        );
        let source = format!("{small}{large}");
        let grammar: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
        let tree = crate::parse::parse(&grammar, &source, crate::clock::Clock::start(source.len()))
            .expect("a clean tree");
        let mut bodies = Vec::new();
        preorder(tree.root_node(), |node, _| {
            if node.kind() == "token_tree"
                && node.start_byte() > 0
                && source.as_bytes()[node.start_byte()] == b'{'
            {
                bodies.push(node);
                return false;
            }
            true
        });
        let [first, second] = bodies[..] else {
            panic!("two macro bodies, not {}", bodies.len())
        };
        let mut full = Keep::new(
            &source,
            Detail::Full,
            grammar,
            crate::clock::Clock::start(source.len()),
        );
        assert!(full.parse_inside(first).is_some());
        let bytes_left = full.reparsed.borrow().bytes_left;
        assert!(bytes_left < source.len() * 4);
        // Another level gets the same tree without parsing (or paying) again.
        let mut public = full.fresh(Detail::Public);
        assert!(public.parse_inside(first).is_some());
        assert_eq!(public.reparsed.borrow().bytes_left, bytes_left);
        // With the pool's work spent, a body not parsed yet gets no tree, at
        // every level alike.
        full.reparsed.borrow_mut().work_left = 0;
        assert!(public.parse_inside(second).is_none());
        assert!(full.parse_inside(second).is_none());
    }
}
