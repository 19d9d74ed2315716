//! Modules import each other one way only, at every level of every crate of
//! the workspace: the child modules of any module (each a file with
//! everything beneath it) never import each other in a circle, directly or
//! through others. A module naming its own ancestor or descendant is no
//! circle: a parent gathers its children, and a child uses what its parent
//! shares.
//!
//! The sources are parsed (with syn, so that comments, strings and inline
//! modules are read as Rust reads them) and every path they name from
//! `crate`, `self` or `super`, in code, in `use` trees and in macro
//! arguments, is resolved to the module it leads to.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path from its crate's root (`[]` is the root).
type ModulePath = Vec<String>;

/// What one crate's sources say: its modules and the paths they name.
#[derive(Default)]
struct Tree {
    /// Every module and the names of its child modules.
    children: BTreeMap<ModulePath, BTreeSet<String>>,
    /// (the module that names a path, the path resolved from the root).
    named: Vec<(ModulePath, ModulePath)>,
}

/// Reads a module's items: records its child modules (reading their files)
/// and the paths its code names.
struct Reader<'a> {
    tree: &'a mut Tree,
    /// The module whose items are being read.
    module: ModulePath,
    /// Where the files of this module's `mod NAME;` children are.
    dir: PathBuf,
}

impl Reader<'_> {
    /// Records a path written in `self.module`, if it starts from `crate`,
    /// `self` or `super` (another start names an outside crate, a child
    /// or an item in scope, none of which is a sibling).
    fn name(&mut self, segments: &[String]) {
        let Some((first, rest)) = segments.split_first() else {
            return;
        };
        let mut resolved = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.module.clone(),
            "super" => {
                let mut module = self.module.clone();
                module.pop();
                module
            }
            _ => return,
        };
        let mut rest = rest.iter().peekable();
        if first == "super" {
            while rest.next_if(|segment| *segment == "super").is_some() {
                resolved.pop();
            }
        }
        resolved.extend(rest.cloned());
        self.tree.named.push((self.module.clone(), resolved));
    }

    /// Every path a `use` tree names, each leaf with its prefix.
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) if name.ident == "self" => self.name(&prefix.clone()),
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.name(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.name(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.name(&prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// Paths inside a macro's arguments (`assert_eq!(x, crate::a::B)`),
    /// which syn leaves as tokens: `crate`, `self` or `super` followed by
    /// `::`-separated names (and `$crate` in a macro's definition).
    fn tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < tokens.len() {
            match &tokens[at] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Ident(ident)
                    if ["crate", "self", "super"].contains(&ident.to_string().as_str()) =>
                {
                    let mut segments = vec![ident.to_string()];
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (tokens.get(at + 1), tokens.get(at + 2), tokens.get(at + 3))
                    {
                        if a.as_char() != ':' || b.as_char() != ':' {
                            break;
                        }
                        segments.push(next.to_string());
                        at += 3;
                    }
                    if segments.len() > 1 {
                        self.name(&segments);
                    }
                }
                _ => {}
            }
            at += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        self.tree
            .children
            .entry(self.module.clone())
            .or_default()
            .insert(name.clone());
        let mut module = self.module.clone();
        module.push(name.clone());
        self.tree.children.entry(module.clone()).or_default();
        match &item.content {
            Some((_, items)) => {
                let mut inner = Reader {
                    tree: self.tree,
                    module,
                    dir: self.dir.join(&name),
                };
                for item in items {
                    inner.visit_item(item);
                }
            }
            None => {
                let given = item.attrs.iter().find_map(|attr| match &attr.meta {
                    syn::Meta::NameValue(value) if value.path.is_ident("path") => {
                        match &value.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(path),
                                ..
                            }) => Some(path.value()),
                            _ => None,
                        }
                    }
                    _ => None,
                });
                let (file, dir) = match given {
                    Some(path) => {
                        let file = self.dir.join(path);
                        let dir = file.with_extension("");
                        (file, dir)
                    }
                    None => {
                        let flat = self.dir.join(format!("{name}.rs"));
                        if flat.is_file() {
                            (flat, self.dir.join(&name))
                        } else {
                            (self.dir.join(&name).join("mod.rs"), self.dir.join(&name))
                        }
                    }
                };
                read(self.tree, &file, module, dir);
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_none() {
            self.use_tree(&mut Vec::new(), &item.tree);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() {
            let segments: Vec<String> = path
                .segments
                .iter()
                .map(|segment| segment.ident.to_string())
                .collect();
            self.name(&segments);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        syn::visit::visit_macro(self, mac);
        self.tokens(mac.tokens.clone());
    }

    /// `pub(super)` and `pub(in crate::a)` say who may see an item, not
    /// what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// Reads the module `module` from `file`, its `mod NAME;` children from
/// `dir`.
fn read(tree: &mut Tree, file: &Path, module: ModulePath, dir: PathBuf) {
    let source =
        std::fs::read_to_string(file).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let parsed =
        syn::parse_file(&source).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    tree.children.entry(module.clone()).or_default();
    let mut reader = Reader { tree, module, dir };
    reader.visit_file(&parsed);
}

/// The import graph among the children of every module: for each module
/// (by path), which of its children names which other.
fn levels(tree: &Tree) -> BTreeMap<ModulePath, BTreeMap<String, BTreeSet<String>>> {
    let mut levels: BTreeMap<ModulePath, BTreeMap<String, BTreeSet<String>>> = tree
        .children
        .iter()
        .map(|(module, children)| {
            let graph = children
                .iter()
                .map(|child| (child.clone(), BTreeSet::new()))
                .collect();
            (module.clone(), graph)
        })
        .collect();
    for (from, to) in &tree.named {
        let shared = from.iter().zip(to).take_while(|(a, b)| a == b).count();
        if shared == from.len() || shared == to.len() {
            // An ancestor or a descendant (or the module itself).
            continue;
        }
        let level = &from[..shared];
        let graph = levels.get_mut(level).expect("every named level was read");
        // `to[shared]` may be an item of the level's own module, not a child.
        if graph.contains_key(&to[shared]) {
            graph
                .get_mut(&from[shared])
                .expect("a module is its parent's child")
                .insert(to[shared].clone());
        }
    }
    levels
}

/// A circle through `start`, if there is one.
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![vec![start.to_owned()]];
    let mut seen = BTreeSet::new();
    while let Some(path) = stack.pop() {
        let last = path.last().expect("a path is never empty");
        for next in &graph[last] {
            if next == start {
                let mut circle = path.clone();
                circle.push(next.clone());
                return Some(circle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push(longer);
            }
        }
    }
    None
}

/// Every circle at every level of `tree`, as `level: a -> b -> a`.
fn circles(tree: &Tree) -> Vec<String> {
    let mut found = Vec::new();
    for (level, graph) in levels(tree) {
        for child in graph.keys() {
            if let Some(circle) = circle_through(&graph, child) {
                let level = if level.is_empty() {
                    "crate".to_owned()
                } else {
                    level.join("::")
                };
                found.push(format!("{level}: {}", circle.join(" -> ")));
            }
        }
    }
    found
}

/// The workspace's members, from its `Cargo.toml`.
fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let line = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .expect("the workspace lists its members");
    let members: Vec<PathBuf> = line
        .split('"')
        .skip(1)
        .step_by(2)
        .map(|member| root.join(member))
        .collect();
    assert!(members.len() > 5, "the members are read from Cargo.toml");
    members
}

/// Every crate root of a package: its library, binaries, tests, examples
/// and benchmarks (a root's `mod NAME;` files are beside it).
fn roots(package: &Path) -> Vec<PathBuf> {
    let mut roots = vec![package.join("src/lib.rs"), package.join("src/main.rs")];
    for folder in ["src/bin", "tests", "examples", "benches"] {
        let Ok(entries) = std::fs::read_dir(package.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                roots.push(path.join("main.rs"));
            } else if path.extension().is_some_and(|e| e == "rs") {
                roots.push(path);
            }
        }
    }
    roots.retain(|root| root.is_file());
    roots.sort();
    roots
}

/// Every crate of the workspace, read: (its root file, what it says).
fn crates() -> Vec<(PathBuf, Tree)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let crates: Vec<(PathBuf, Tree)> = members(root)
        .iter()
        .flat_map(|package| roots(package))
        .map(|file| {
            let mut tree = Tree::default();
            let dir = file.parent().expect("a file has a folder").to_owned();
            read(&mut tree, &file, Vec::new(), dir);
            let shown = file.strip_prefix(root).unwrap_or(&file).to_owned();
            (shown, tree)
        })
        .collect();
    assert!(
        crates
            .iter()
            .any(|(file, tree)| file.ends_with("crates/packer/src/lib.rs")
                && tree.children[&Vec::new()].contains("tokens")),
        "the library's modules are read"
    );
    crates
}

#[test]
fn no_two_modules_of_a_crate_import_each_other_even_through_others() {
    let found: Vec<String> = crates()
        .iter()
        .flat_map(|(file, tree)| {
            circles(tree)
                .into_iter()
                .map(move |circle| format!("{} {circle}", file.display()))
        })
        .collect();
    assert!(
        found.is_empty(),
        "modules import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_libraries_error_type_imports_nothing_from_its_crate() {
    let crates = crates();
    let (_, library) = crates
        .iter()
        .find(|(file, _)| file.ends_with("crates/packer/src/lib.rs"))
        .expect("the library");
    assert_eq!(levels(library)[&Vec::new()]["error"], BTreeSet::new());
}

/// The paths one source names, read as the module `a::b` of a crate
/// whose root has the children `a` and `c`.
fn read_source(source: &str) -> Tree {
    let mut tree = Tree::default();
    tree.children
        .insert(Vec::new(), ["a", "c"].map(String::from).into());
    let module: ModulePath = vec!["a".into(), "b".into()];
    tree.children
        .insert(vec!["a".into()], ["b", "d"].map(String::from).into());
    tree.children.insert(module.clone(), BTreeSet::new());
    let mut reader = Reader {
        tree: &mut tree,
        module,
        dir: PathBuf::new(),
    };
    reader.visit_file(&syn::parse_file(source).expect("valid Rust"));
    tree
}

#[test]
fn the_reader_resolves_every_kind_of_path_and_skips_comments_and_strings() {
    let tree = read_source(
        "use super::d::{self, X};\n\
         use crate::{c::Y, a::{d::Z}};\n\
         // crate::c::in_a_comment\n\
         fn f() { let _ = \"crate::c::in_a_string\"; assert!(super::super::c::g()); }\n\
         mod tests { use super::*; use super::super::d::W; }",
    );
    let named: BTreeSet<String> = tree
        .named
        .iter()
        .map(|(from, to)| format!("{} -> {}", from.join("::"), to.join("::")))
        .collect();
    let expected: BTreeSet<String> = [
        "a::b -> a::d",
        "a::b -> a::d::X",
        "a::b -> c::Y",
        "a::b -> a::d::Z",
        "a::b -> c::g",
        "a::b::tests -> a::b",
        "a::b::tests -> a::d::W",
    ]
    .map(String::from)
    .into();
    assert_eq!(named, expected);
    let levels = levels(&tree);
    assert_eq!(
        levels[&vec!["a".to_owned()]]["b"],
        ["d".to_owned()].into(),
        "a sibling, whatever the depth of the module naming it"
    );
    assert_eq!(levels[&Vec::new()]["a"], ["c".to_owned()].into());
}

#[test]
fn a_circle_through_others_is_found() {
    let circle: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_owned(), ["b".to_owned()].into()),
        ("b".to_owned(), ["c".to_owned()].into()),
        ("c".to_owned(), ["a".to_owned()].into()),
    ]
    .into();
    assert_eq!(
        circle_through(&circle, "a"),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}

/// Reads the crate whose files are `files` (each a path from the root's
/// folder and its source; the root is `lib.rs`), written to a temporary
/// folder.
fn read_crate(files: &[(&str, &str)]) -> Tree {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (path, source) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a file has a folder")).expect("a folder");
        std::fs::write(&path, source).expect("a source file");
    }
    let mut tree = Tree::default();
    let root = dir.path().join("lib.rs");
    read(&mut tree, &root, Vec::new(), dir.path().to_owned());
    tree
}

#[test]
fn a_circle_between_two_files_below_the_top_level_fails_the_check() {
    // `file` tries the families and gives them the helpers they import
    // back, one of them from a file of its own below it.
    let circled = [
        ("lib.rs", "pub mod tokens;\nmod error;"),
        ("error.rs", "pub struct Error;"),
        (
            "tokens.rs",
            "mod file;\nmod hf;\nmod tekken;\npub trait Engine {}",
        ),
        (
            "tokens/file.rs",
            "use super::{Engine, hf, tekken};\npub(super) fn invalid() {}",
        ),
        ("tokens/hf.rs", "mod bpe;"),
        (
            "tokens/hf/bpe.rs",
            "fn f() { crate::tokens::file::invalid(); }",
        ),
        ("tokens/tekken.rs", "use crate::error::Error;"),
    ];
    assert_eq!(
        circles(&read_crate(&circled)),
        ["tokens: file -> hf -> file", "tokens: hf -> file -> hf"]
    );
    // The helpers in a leaf of their own: no circle, though `file` names
    // its parent and the parent names what is below it.
    let cut = [
        ("lib.rs", "pub mod tokens;\nmod error;"),
        ("error.rs", "pub struct Error;"),
        (
            "tokens.rs",
            "mod family;\nmod file;\nmod hf;\nmod tekken;\npub trait Engine {}\n\
             pub use self::file::invalid;",
        ),
        ("tokens/family.rs", "pub(super) fn invalid() {}"),
        (
            "tokens/file.rs",
            "use super::{Engine, family, hf, tekken};\npub use family::invalid;",
        ),
        ("tokens/hf.rs", "mod bpe;"),
        (
            "tokens/hf/bpe.rs",
            "fn f() { crate::tokens::family::invalid(); }",
        ),
        ("tokens/tekken.rs", "use crate::error::Error;"),
    ];
    assert_eq!(circles(&read_crate(&cut)), Vec::<String>::new());
}
