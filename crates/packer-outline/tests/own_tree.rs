//! Every Rust and Python file of this repository (a real tree of about two
//! hundred files) outlines at every level into text that its line ranges
//! rebuild byte for byte, shorter than the file, each level within the one
//! above, and the same from one parse as from three.

use std::path::{Path, PathBuf};

use packer_outline::{Detail, Language, Outline, outline, outlines};

/// The repository's `.rs` and `.py` files, outside `target/` and hidden
/// directories.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            files(&path, out);
        } else if kind.is_file() && (name.ends_with(".rs") || name.ends_with(".py")) {
            out.push(path);
        }
    }
}

#[test]
fn every_file_of_this_repository_outlines_into_what_its_ranges_rebuild() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    paths.sort();
    assert!(paths.len() > 100, "only {} files found", paths.len());
    let (mut outlined, mut refused) = (0, Vec::new());
    for path in &paths {
        let name = path.to_string_lossy();
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        let language = Language::from_path(&name).expect("a .rs or .py file");
        let levels = match outlines(language, &source) {
            Ok(levels) => levels,
            Err(error) => {
                refused.push(format!("{name}: {error}"));
                continue;
            }
        };
        let mut above: Option<&Outline> = None;
        for (detail, made) in &levels {
            assert_eq!(
                made.content,
                Outline::rebuild(&source, &made.kept),
                "{name}"
            );
            assert!(made.content.len() < source.len(), "{name}");
            assert_eq!(
                made.of_lines,
                source.split_inclusive('\n').count(),
                "{name}"
            );
            if let Some(above) = above {
                let kept = |line: usize| above.kept.iter().any(|r| r.contains(&line));
                assert!(
                    made.kept.iter().flat_map(|r| r.clone()).all(kept),
                    "{name} {}",
                    detail.name()
                );
            }
            let alone = outline(language, &source, *detail).unwrap();
            assert_eq!(alone.as_ref(), Some(made), "{name} {}", detail.name());
            above = Some(made);
        }
        outlined += usize::from(levels.first().map(|(d, _)| *d) == Some(Detail::Full));
    }
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(
        outlined * 10 >= paths.len() * 8,
        "{outlined} of {}",
        paths.len()
    );
}
