//! Hostile nesting: sources nested 10,000 and 50,000 deep in every
//! language, in the shapes an attacker (or a generator) writes — calls,
//! blocks, arrays, parentheses, `if` chains, closures, classes inside
//! functions, modules and namespaces — get their outline, or a clean
//! refusal, on a 256 KiB stack (so no walk recurses as deep as the input),
//! and the walks look at no more than a constant times the tree's nodes
//! (so no walk is quadratic in the depth). The bound is a count, the same
//! on every machine; only whether a clean source 50,000 deep parses within
//! the processor-time limit depends on the machine, and a refusal for time
//! is a clean refusal there.

use crate::nodes::VISITS;
use crate::{Detail, Language, Outline, OutlineError, outlines};

/// A nested source: `prefix`, `open` × depth, `middle`, `close` × depth,
/// `suffix`.
struct Shape {
    language: Language,
    name: &'static str,
    prefix: String,
    open: &'static str,
    middle: &'static str,
    close: &'static str,
    suffix: &'static str,
    /// Whether an outline must come back (otherwise a clean `Ok` with no
    /// outline, or a refusal, will do).
    outlined: bool,
}

impl Shape {
    fn source(&self, depth: usize) -> String {
        let mut text = String::with_capacity(
            self.prefix.len()
                + depth * (self.open.len() + self.close.len())
                + self.middle.len()
                + self.suffix.len(),
        );
        text.push_str(&self.prefix);
        for _ in 0..depth {
            text.push_str(self.open);
        }
        text.push_str(self.middle);
        for _ in 0..depth {
            text.push_str(self.close);
        }
        text.push_str(self.suffix);
        text
    }
}

/// One shape that must be outlined.
fn shape(
    language: Language,
    name: &'static str,
    [prefix, open, middle, close, suffix]: [&'static str; 5],
) -> Shape {
    Shape {
        language,
        name,
        prefix: prefix.to_owned(),
        open,
        middle,
        close,
        suffix,
        outlined: true,
    }
}

/// One shape that may get no outline (its nesting is the whole file, or
/// the grammar cannot represent it), as long as it comes back cleanly.
fn maybe(language: Language, name: &'static str, parts: [&'static str; 5]) -> Shape {
    Shape {
        outlined: false,
        ..shape(language, name, parts)
    }
}

use Language::{C, Cpp, Go, Java, JavaScript, Python, Rust, Tsx, TypeScript};

const RUST_FN: &str = "/// Docs.\npub fn f() -> u8 {\n    let x = 1;\n";
const SCRIPT_CONST: &str = "/** Docs. */\nexport const x =\n";
const SCRIPT_FN: &str = "/** Docs. */\nexport function f(a: number) {\n  let x = 1;\n";
const JS_FN: &str = "/** Docs. */\nexport function f(a) {\n  let x = 1;\n";
const GO_FN: &str = "package p\n\n// F does.\nfunc F() int {\n\tx := 1\n";
const JAVA_FN: &str = "public class A {\n  public int f() {\n    int x = 1;\n";
const C_FN: &str = "/* Docs. */\nint f(int a) {\n  int x = 1;\n";

/// `shape` after a statement's start written once (`return `), before the
/// nesting.
fn after(language: Language, name: &'static str, lead: &str, parts: [&'static str; 5]) -> Shape {
    let mut made = shape(language, name, parts);
    made.prefix.push_str(lead);
    made
}

fn shapes() -> Vec<Shape> {
    vec![
        shape(Rust, "calls", [RUST_FN, "a(\n", "0", ")", "\n}\n"]),
        shape(Rust, "blocks", [RUST_FN, "{\n", "0", "}", "\n}\n"]),
        shape(Rust, "arrays", [RUST_FN, "[\n", "0", "]", "\n}\n"]),
        shape(Rust, "parentheses", [RUST_FN, "(\n", "0", ")", "\n}\n"]),
        shape(Rust, "ifs", [RUST_FN, "if a {\n", "0", "}", "\n}\n"]),
        shape(
            Rust,
            "else ifs",
            [RUST_FN, "if a { 0 } else\n", "{ 0 }", "", "\n}\n"],
        ),
        shape(Rust, "closures", [RUST_FN, "|| {\n", "0", "}", "\n}\n"]),
        shape(
            Rust,
            "fns in fns",
            [RUST_FN, "fn g() {\n", "", "}\n", "0\n}\n"],
        ),
        shape(
            Rust,
            "modules",
            [
                "pub fn f() {\n    a();\n}\n",
                "pub mod m {\n",
                "",
                "}\n",
                "",
            ],
        ),
        shape(
            Rust,
            "macros",
            ["pub fn f() {\n    a();\n}\n", "m! {\n", "", "}\n", ""],
        ),
        shape(
            Python,
            "calls",
            ["def f():\n    pass\n\n\nX = ", "a(\n", "0", ")", "\n"],
        ),
        shape(
            Python,
            "lists",
            ["def f():\n    pass\n\n\nX = ", "[\n", "0", "]", "\n"],
        ),
        shape(
            Python,
            "parentheses",
            ["def f():\n    pass\n\n\nX = ", "(\n", "0", ")", "\n"],
        ),
        shape(
            Python,
            "dicts",
            ["def f():\n    pass\n\n\nX = ", "{1:\n", "0", "}", "\n"],
        ),
        shape(
            Python,
            "lambdas",
            ["def f():\n    pass\n\n\nX = (", "lambda:\n", "0", "", ")\n"],
        ),
        shape(
            Python,
            "calls in a def",
            ["def f():\n    return (\n", "a(\n", "0", ")", ")\n"],
        ),
        shape(JavaScript, "calls", [SCRIPT_CONST, "a(\n", "0", ")", ";\n"]),
        shape(JavaScript, "arrays", [SCRIPT_CONST, "[\n", "0", "]", ";\n"]),
        shape(
            JavaScript,
            "parentheses",
            [SCRIPT_CONST, "(\n", "0", ")", ";\n"],
        ),
        shape(
            JavaScript,
            "arrows",
            [SCRIPT_CONST, "() =>\n", "0", "", ";\n"],
        ),
        shape(
            JavaScript,
            "objects",
            [SCRIPT_CONST, "{a:\n", "0", "}", ";\n"],
        ),
        shape(
            JavaScript,
            "jsx",
            [SCRIPT_CONST, "<a>\n", "", "</a>", ";\n"],
        ),
        shape(JavaScript, "blocks", [JS_FN, "{\n", "", "}\n", "}\n"]),
        shape(JavaScript, "ifs", [JS_FN, "if (a) {\n", "", "}\n", "}\n"]),
        shape(
            JavaScript,
            "classes in functions",
            [JS_FN, "class C {\nm() {\n", "", "}}\n", "}\n"],
        ),
        shape(
            JavaScript,
            "functions",
            [JS_FN, "function g() {\n", "", "}\n", "}\n"],
        ),
        shape(TypeScript, "calls", [SCRIPT_CONST, "a(\n", "0", ")", ";\n"]),
        shape(TypeScript, "arrays", [SCRIPT_CONST, "[\n", "0", "]", ";\n"]),
        shape(
            TypeScript,
            "parentheses",
            [SCRIPT_CONST, "(\n", "0", ")", ";\n"],
        ),
        shape(
            TypeScript,
            "arrows",
            [SCRIPT_CONST, "(a: number) =>\n", "0", "", ";\n"],
        ),
        shape(
            TypeScript,
            "objects",
            [SCRIPT_CONST, "{a:\n", "0", "}", ";\n"],
        ),
        shape(TypeScript, "blocks", [SCRIPT_FN, "{\n", "", "}\n", "}\n"]),
        shape(
            TypeScript,
            "ifs",
            [SCRIPT_FN, "if (a) {\n", "", "}\n", "}\n"],
        ),
        shape(
            TypeScript,
            "classes in functions",
            [SCRIPT_FN, "class C {\nm(): void {\n", "", "}}\n", "}\n"],
        ),
        shape(
            TypeScript,
            "namespaces",
            [SCRIPT_FN, "namespace n {\n", "", "}\n", "}\n"],
        ),
        shape(
            TypeScript,
            "exported namespaces",
            [
                "export function f() {\n  a();\n}\n",
                "export namespace n {\n",
                "",
                "}\n",
                "",
            ],
        ),
        shape(
            TypeScript,
            "declare chains",
            [
                // On one line: a newline after `declare` ends a statement.
                "export function f() {\n  a();\n  b();\n  c();\n}\n",
                "declare ",
                "const x: number;\n",
                "",
                "",
            ],
        ),
        maybe(
            TypeScript,
            "generic types",
            ["export type T =\n", "Array<\n", "number", ">", ";\n"],
        ),
        shape(Tsx, "calls", [SCRIPT_CONST, "a(\n", "0", ")", ";\n"]),
        shape(Tsx, "jsx", [SCRIPT_CONST, "<a>\n", "", "</a>", ";\n"]),
        shape(
            Tsx,
            "arrows",
            [SCRIPT_CONST, "(a: number) =>\n", "0", "", ";\n"],
        ),
        shape(Tsx, "blocks", [SCRIPT_FN, "{\n", "", "}\n", "}\n"]),
        after(Go, "calls", "return ", [GO_FN, "a(\n", "0", ")", "\n}\n"]),
        after(
            Go,
            "composite literals",
            "_ = ",
            [GO_FN, "[]any{\n", "0", "}", "\nreturn x\n}\n"],
        ),
        after(
            Go,
            "parentheses",
            "return ",
            [GO_FN, "(\n", "0", ")", "\n}\n"],
        ),
        shape(Go, "blocks", [GO_FN, "{\n", "", "}\n", "return x\n}\n"]),
        shape(
            Go,
            "ifs",
            [GO_FN, "if x > 0 {\n", "", "}\n", "return x\n}\n"],
        ),
        shape(
            Go,
            "closures",
            [GO_FN, "func() {\n", "", "}()\n", "return x\n}\n"],
        ),
        after(
            Java,
            "calls",
            "return ",
            [JAVA_FN, "a(\n", "0", ")", ";\n  }\n}\n"],
        ),
        after(
            Java,
            "parentheses",
            "return ",
            [JAVA_FN, "(\n", "0", ")", ";\n  }\n}\n"],
        ),
        after(
            Java,
            "arrays",
            "int[] y = ",
            [JAVA_FN, "{\n", "0", "}", ";\n  }\n}\n"],
        ),
        shape(
            Java,
            "blocks",
            [JAVA_FN, "{\n", "", "}\n", "return x;\n  }\n}\n"],
        ),
        shape(
            Java,
            "ifs",
            [JAVA_FN, "if (x > 0) {\n", "", "}\n", "return x;\n  }\n}\n"],
        ),
        shape(
            Java,
            "lambdas",
            [
                JAVA_FN,
                "Runnable r = () -> {\n",
                "",
                "};\n",
                "return x;\n  }\n}\n",
            ],
        ),
        shape(
            Java,
            "classes in methods",
            [
                JAVA_FN,
                "class C {\nvoid m() {\n",
                "",
                "}}\n",
                "return x;\n  }\n}\n",
            ],
        ),
        shape(
            Java,
            "nested classes",
            [
                "public class A {\n  public int f() {\n    return 1;\n  }\n",
                "public static class B {\n",
                "",
                "}\n",
                "}\n",
            ],
        ),
        after(C, "calls", "return ", [C_FN, "a(\n", "0", ")", ";\n}\n"]),
        after(
            C,
            "parentheses",
            "return ",
            [C_FN, "(\n", "0", ")", ";\n}\n"],
        ),
        after(
            C,
            "initializers",
            "int y[] = ",
            [C_FN, "{\n", "0", "}", ";\n  return x;\n}\n"],
        ),
        shape(C, "blocks", [C_FN, "{\n", "", "}\n", "return x;\n}\n"]),
        shape(C, "ifs", [C_FN, "if (a) {\n", "", "}\n", "return x;\n}\n"]),
        shape(
            C,
            "structs",
            ["int f(void);\n", "struct s {\n", "int a;\n", "} a;\n", ""],
        ),
        shape(
            C,
            "conditionals",
            ["int f(void);\n", "#if A\n", "int a;\n", "#endif\n", ""],
        ),
        after(Cpp, "calls", "return ", [C_FN, "a(\n", "0", ")", ";\n}\n"]),
        shape(Cpp, "blocks", [C_FN, "{\n", "", "}\n", "return x;\n}\n"]),
        shape(
            Cpp,
            "ifs",
            [C_FN, "if (a) {\n", "", "}\n", "return x;\n}\n"],
        ),
        shape(
            Cpp,
            "lambdas",
            [C_FN, "auto g = []() {\n", "", "};\n", "return x;\n}\n"],
        ),
        shape(
            Cpp,
            "classes in functions",
            [
                C_FN,
                "struct C {\nvoid m() {\n",
                "",
                "}};\n",
                "return x;\n}\n",
            ],
        ),
        shape(
            Cpp,
            "namespaces",
            ["int f();\n", "namespace n {\n", "int a;\n", "}\n", ""],
        ),
        shape(
            Cpp,
            "classes",
            ["int f();\n", "class C {\npublic:\n", "int a;\n", "};\n", ""],
        ),
        maybe(
            Cpp,
            "templates",
            ["int f();\n", "template <class T>\n", "void g();\n", "", ""],
        ),
    ]
}

/// Python blocks nest only by indentation, so the file grows with the
/// square of the depth: 2,000 deep at one space a level is 2 MB.
fn python_indented(depth: usize, open: &str, middle: &str) -> String {
    let mut text = String::from("def top():\n    pass\n\n\n");
    for level in 0..depth {
        text.push_str(&" ".repeat(level));
        text.push_str(if level % 2 == 0 { open } else { middle });
        text.push('\n');
    }
    text.push_str(&" ".repeat(depth));
    text.push_str("pass\n");
    text
}

/// What one source gave: its outlines at every level (or the refusal), and
/// the nodes the walks looked at against the nodes of the tree.
struct Seen {
    made: Result<Vec<(Detail, Outline)>, OutlineError>,
    visits: usize,
    nodes: usize,
}

/// Outlines `source` at every level on a thread with a 256 KiB stack (the
/// main thread's is 8 MiB, which hides deep recursion), counting visits.
fn on_a_small_stack(language: Language, source: String) -> Seen {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            VISITS.with(|visits| visits.set(0));
            let made = outlines(language, &source);
            let visits = VISITS.with(|visits| visits.get());
            // The tree's nodes, also when the guarded parse refused it.
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&crate::lang::grammar(language).expect("a grammar"))
                .expect("the grammar loads");
            let nodes = parser
                .parse(&source, None)
                .map_or(0, |tree| tree.root_node().descendant_count());
            Seen {
                made,
                visits,
                nodes,
            }
        })
        .expect("a thread")
        .join()
        .unwrap_or_else(|_| panic!("{}: the walk overflowed a 256 KiB stack", language.name()))
}

/// The walks together look at each node at most this many times: the
/// comment index once, each level's rule walk (the heads level twice, in a
/// file with no public item), the comment-line pass of four levels, the
/// largest item's span, and the children lists the rules read.
const VISITS_PER_NODE: usize = 16;

/// Checks what came back for `source`: its outlines rebuild from the kept
/// lines, there is one when `outlined` says there must be (a refusal for
/// processor time also will do when `slow_ok`: a clean source nested
/// 50,000 deep costs about the parse time limit, so whether it passes
/// depends on the machine, as `OutlineError::TooSlow` says), and the walks
/// looked at each node a bounded number of times.
fn check(label: &str, source: &str, seen: &Seen, outlined: bool, slow_ok: bool) {
    match &seen.made {
        Ok(levels) => {
            assert!(!outlined || !levels.is_empty(), "{label}: no outline");
            for (detail, outline) in levels {
                assert_eq!(
                    outline.content,
                    Outline::rebuild(source, &outline.kept),
                    "{label} {}",
                    detail.name()
                );
                assert!(outline.content.len() < source.len(), "{label}");
            }
        }
        Err(OutlineError::TooSlow { .. }) if slow_ok => {}
        Err(error) => assert!(!outlined, "{label}: {error}"),
    }
    assert!(
        seen.visits <= VISITS_PER_NODE * seen.nodes.max(1) + 1_000,
        "{label}: {} visits for {} nodes",
        seen.visits,
        seen.nodes
    );
}

#[test]
fn every_language_outlines_sources_nested_ten_and_fifty_thousand_deep() {
    // Every shape 10,000 deep; the first of each language and the
    // `declare` chain (which recursed once per `declare`) 50,000 deep too
    // (every shape at 50,000 takes a minute in a debug build).
    let mut deeper = std::collections::HashSet::new();
    for shape in shapes() {
        let deepest = deeper.insert(shape.language) || shape.name == "declare chains";
        for depth in [10_000].into_iter().chain(deepest.then_some(50_000)) {
            let source = shape.source(depth);
            let label = format!("{} {} {depth} deep", shape.language.name(), shape.name);
            let seen = on_a_small_stack(shape.language, source.clone());
            check(&label, &source, &seen, shape.outlined, depth > 10_000);
        }
    }
}

#[test]
fn the_kept_head_of_a_deep_source_is_its_item() {
    let source = shapes()
        .into_iter()
        .find(|shape| shape.language == TypeScript && shape.name == "calls")
        .expect("the shape")
        .source(10_000);
    let seen = on_a_small_stack(TypeScript, source);
    let levels = seen.made.expect("an outline");
    let full = &levels[0].1;
    assert_eq!(levels[0].0, Detail::Full);
    assert!(
        full.content
            .starts_with("/** Docs. */\nexport const x =\na(\n⋮ "),
        "{}",
        full.content
    );
    let first = &levels.last().expect("a level").1;
    assert_eq!(first.lines_label(), "2");
}

#[test]
fn python_blocks_nested_by_indentation_come_back_cleanly() {
    // Past about 510 levels the grammar's scanner cannot carry its stack of
    // indentations between tokens, the parse fails, and the file gets no
    // outline: a clean refusal, not a wrong outline.
    for (depth, outlined) in [(500, true), (2_000, false)] {
        for (open, middle) in [
            ("def f():", "class C:"),
            ("if a:", "while a:"),
            ("class C:", "def m(self):"),
        ] {
            let source = python_indented(depth, open, middle);
            let label = format!("python {open} {middle} {depth} deep");
            let seen = on_a_small_stack(Python, source.clone());
            check(&label, &source, &seen, outlined, false);
        }
    }
}

#[test]
fn many_items_on_a_line_under_a_long_stack_of_comments_cost_linear_work() {
    // Every item asks for the comments and attributes above its line;
    // items that share a line, or lines that each start with a comment,
    // once made that walk quadratic.
    let items = |item: &str| {
        (0..10_000)
            .map(|at| item.replace('#', &at.to_string()))
            .collect::<String>()
    };
    let cases = [
        (
            TypeScript,
            format!(
                "{}{}\nexport function f() {{\n  a();\n}}\n",
                "// c\n".repeat(10_000),
                items("export const a# = 1; ")
            ),
        ),
        (
            C,
            format!(
                "{}{}\nint f(void) {{\n  return 1;\n}}\n",
                "// c\n".repeat(10_000),
                items("int a#; ")
            ),
        ),
        (
            C,
            format!(
                "{}int f(void) {{\n  return 1;\n}}\n",
                items("/* c */ int a#;\n")
            ),
        ),
        (
            Rust,
            format!(
                "{}{}\npub fn f() {{\n    one();\n}}\n",
                "#[a]\n".repeat(10_000),
                items("mod m# {} ")
            ),
        ),
        (
            Java,
            format!(
                "public class A {{\n{}{}\n}}\n",
                "  /** c */\n".repeat(10_000),
                items("public int a#; ")
            ),
        ),
    ];
    for (language, source) in cases {
        let label = format!("{} stack", language.name());
        let seen = on_a_small_stack(language, source.clone());
        check(&label, &source, &seen, true, false);
    }
}
