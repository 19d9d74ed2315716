//! The areas of the library (its top-level modules) depend on each other
//! one way only: this test reads the sources and fails on an import circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file of the area `name`: `src/NAME.rs` and `src/NAME/**`.
fn files_of(src: &Path, name: &str) -> Vec<PathBuf> {
    let mut files = vec![src.join(format!("{name}.rs"))];
    let mut folders = vec![src.join(name)];
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.retain(|file| file.is_file());
    files
}

/// The areas `source` names through `crate::AREA` paths, comments left out
/// (a documentation link is not an import).
fn named_areas(source: &str, areas: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        let heads: Vec<&str> = if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a, b::c, d::{e, f}}`: the first segment of each
            // top-level item.
            let mut depth = 0;
            let mut end = group.len();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        end = i;
                        break;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            let mut items = Vec::new();
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group[..end].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            items.push(&group[start..end]);
            items
        } else {
            vec![rest]
        };
        for head in heads {
            let head = head.trim_start();
            let name: String = head
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if areas.contains(&name) {
                named.insert(name);
            }
        }
    }
    named
}

/// The import graph of the library's areas.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    let areas: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            line.strip_prefix("mod ")?
                .strip_suffix(';')
                .map(str::to_owned)
        })
        .collect();
    assert!(areas.len() > 5, "the areas are read from src/lib.rs");
    areas
        .iter()
        .map(|area| {
            let mut named = BTreeSet::new();
            for file in files_of(&src, area) {
                let source = std::fs::read_to_string(&file).expect("a source file");
                named.extend(named_areas(&source, &areas));
            }
            named.remove(area);
            (area.clone(), named)
        })
        .collect()
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

#[test]
fn no_two_areas_import_each_other_even_through_others() {
    let graph = graph();
    let circles: Vec<String> = graph
        .keys()
        .filter_map(|area| circle_through(&graph, area))
        .map(|circle| circle.join(" -> "))
        .collect();
    assert!(
        circles.is_empty(),
        "areas import each other:\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_error_type_imports_nothing_from_the_crate() {
    assert_eq!(graph()["error"], BTreeSet::new());
}

#[test]
fn the_reader_finds_grouped_and_plain_paths_and_skips_comments() {
    let areas: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let source = "use crate::{a::X, b::{Y, Z}};\n// crate::c::W\nfn f() { crate::d::g(); }";
    assert_eq!(
        named_areas(source, &areas),
        ["a", "b", "d"].map(String::from).into()
    );
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
