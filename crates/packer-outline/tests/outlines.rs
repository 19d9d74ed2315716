//! Outlines of one realistic file per language at every detail (insta
//! snapshots), the invariants every outline keeps, and hostile input.

use std::path::Path;

use packer_outline::{
    Detail, Language, MAX_SOURCE_BYTES, Outline, OutlineError, outline, outlines,
};
use proptest::prelude::*;

/// Every sample under `tests/samples/`, with its language.
fn samples() -> Vec<(String, Language, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    let mut samples: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/samples")
        .map(|entry| entry.expect("an entry").path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let language = Language::from_path(&name).expect("a sample's language");
            let source = std::fs::read_to_string(&path).expect("a UTF-8 sample");
            (name, language, source)
        })
        .collect();
    samples.sort_by(|a, b| a.0.cmp(&b.0));
    samples
}

/// Every way an outline can be wrong, against its source and the outline
/// of the level above (when that level has one).
fn problems(source: &str, outline: &Outline, above: Option<&Outline>) -> Vec<String> {
    let mut problems = Vec::new();
    let lines = source.split_inclusive('\n').count();
    if outline.of_lines != lines {
        problems.push(format!("of_lines {} for {lines} lines", outline.of_lines));
    }
    if outline.content != Outline::rebuild(source, &outline.kept) {
        problems.push("the content is not rebuilt from the ranges".into());
    }
    if outline.content.len() >= source.len() {
        problems.push("not shorter than the file".into());
    }
    if outline.kept.is_empty() || outline.kept.iter().any(|r| r.is_empty() || r.end > lines) {
        problems.push(format!("bad ranges {:?}", outline.kept));
    }
    if outline
        .kept
        .windows(2)
        .any(|pair| pair[0].end >= pair[1].start)
    {
        problems.push(format!("ranges touch or overlap: {:?}", outline.kept));
    }
    if let Some(above) = above {
        let kept_above = |line: usize| above.kept.iter().any(|range| range.contains(&line));
        if let Some(line) = outline
            .kept
            .iter()
            .flat_map(|r| r.clone())
            .find(|&l| !kept_above(l))
        {
            problems.push(format!(
                "keeps line {} that the level above elides",
                line + 1
            ));
        }
    }
    problems
}

#[test]
fn every_sample_has_an_outline_at_every_detail() {
    for (name, language, source) in samples() {
        for detail in Detail::ALL {
            let outline = outline(language, &source, detail)
                .unwrap_or_else(|error| panic!("{name}: {error}"))
                .unwrap_or_else(|| panic!("{name} has no {} outline", detail.name()));
            insta::assert_snapshot!(format!("{name}.{}", detail.name()), outline.content);
        }
    }
}

#[test]
fn sample_outlines_rebuild_from_their_ranges_and_each_level_keeps_less() {
    for (name, language, source) in samples() {
        let mut above: Option<Outline> = None;
        for detail in Detail::ALL {
            let outline = outline(language, &source, detail).unwrap().unwrap();
            let problems = problems(&source, &outline, above.as_ref());
            assert!(
                problems.is_empty(),
                "{name} {}: {problems:?}",
                detail.name()
            );
            above = Some(outline);
        }
    }
}

#[test]
fn every_level_from_one_parse_is_the_outline_at_that_level_each_shorter() {
    for (name, language, source) in samples() {
        let levels = outlines(language, &source).unwrap();
        assert_eq!(
            levels.first().map(|(d, _)| *d),
            Some(Detail::Full),
            "{name}"
        );
        for (detail, made) in &levels {
            let alone = outline(language, &source, *detail).unwrap().unwrap();
            assert_eq!(made, &alone, "{name} {}", detail.name());
        }
        for pair in levels.windows(2) {
            assert!(pair[1].1.content.len() < pair[0].1.content.len(), "{name}");
        }
    }
    assert!(matches!(
        outlines(Language::Rust, "fn main( {\n"),
        Err(OutlineError::Syntax { .. })
    ));
}

#[test]
fn python_defs_and_classes_at_module_and_class_level_are_kept() {
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples/client.py"),
    )
    .unwrap();
    let outline = outline(Language::Python, &source, Detail::Full)
        .unwrap()
        .unwrap();
    let mut class_member_indent = None;
    let mut in_class = false;
    for (row, line) in source.lines().enumerate() {
        let stripped = line.trim_start();
        let indent = line.len() - stripped.len();
        if stripped.is_empty() {
            continue;
        }
        if indent == 0 {
            in_class = stripped.starts_with("class ");
            class_member_indent = None;
        } else if in_class && class_member_indent.is_none() {
            class_member_indent = Some(indent);
        }
        let top = indent == 0 || (in_class && class_member_indent == Some(indent));
        let def = ["def ", "async def ", "class "]
            .iter()
            .any(|k| stripped.starts_with(k));
        if top && def {
            assert!(
                outline.kept.iter().any(|range| range.contains(&row)),
                "line {} is elided: {line}",
                row + 1
            );
        }
    }
}

#[test]
fn a_file_that_does_not_parse_gets_an_error_not_an_outline() {
    let broken = "pub fn ok() {}\n\nfn broken( {\n    1\n}\n";
    assert!(matches!(
        outline(Language::Rust, broken, Detail::Full),
        Err(OutlineError::Syntax { line: 3, .. })
    ));
    assert!(matches!(
        outline(Language::Python, "def f(:\n    pass\n", Detail::Full),
        Err(OutlineError::Syntax { .. })
    ));
}

#[test]
fn a_source_over_the_size_limit_is_refused() {
    let big = "// x\n".repeat(MAX_SOURCE_BYTES / 5 + 1);
    assert_eq!(
        outline(Language::Rust, &big, Detail::Full),
        Err(OutlineError::TooLarge { bytes: big.len() })
    );
}

#[test]
fn a_file_with_nothing_to_elide_or_nothing_to_keep_has_no_outline() {
    assert_eq!(
        outline(Language::Rust, "use std::fmt;\n", Detail::Full),
        Ok(None)
    );
    assert_eq!(outline(Language::Rust, "", Detail::Full), Ok(None));
    assert_eq!(
        outline(Language::Rust, "fn main() {}\n", Detail::Public),
        Ok(None)
    );
}

#[test]
fn a_single_kept_line_is_labelled_by_its_number() {
    let source = "pub fn f() {\n    one();\n    two();\n    three();\n}\n";
    let outline = outline(Language::Rust, source, Detail::Full)
        .unwrap()
        .unwrap();
    assert_eq!(outline.lines_label(), "1");
    assert_eq!(outline.content, "pub fn f() {\n⋮ 4\n");
    assert_eq!(outline.of_lines, 5);
}

#[test]
fn deeply_nested_containers_do_not_exhaust_the_stack() {
    let depth = 5_000;
    let source = format!(
        "{}fn f() {{ 1 }}\n{}",
        "mod m {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    let result = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            outline(Language::Rust, &source, Detail::Full).map(|o| o.map(|o| o.kept.len()))
        })
        .unwrap()
        .join();
    assert!(result.is_ok(), "the walk overflowed a small stack");
}

#[test]
fn a_grammar_is_compiled_in_for_every_language_by_default() {
    for language in Language::ALL {
        assert!(language.has_grammar(), "{}", language.name());
    }
}

/// A sample with random bytes replaced, inserted and deleted.
fn mutated() -> impl Strategy<Value = String> {
    let sources: Vec<String> = samples().into_iter().map(|(_, _, source)| source).collect();
    let edit = (
        any::<prop::sample::Index>(),
        0usize..8,
        "[ -~\n\t{}()\\[\\]\"'#/*:;.,<>]{0,6}",
    );
    (
        prop::sample::select(sources),
        prop::collection::vec(edit, 0..6),
    )
        .prop_map(|(source, edits)| {
            let mut text: Vec<char> = source.chars().collect();
            for (at, remove, insert) in edits {
                let start = at.index(text.len() + 1);
                let end = (start + remove).min(text.len());
                text.splice(start..end, insert.chars());
            }
            text.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn broken_or_random_text_never_panics_and_every_outline_is_sound(
        text in prop_oneof![mutated(), "\\PC{0,400}", "[ \n\t{}()a-z:;=<>/*#\"']{0,400}"],
    ) {
        for language in Language::ALL {
            let mut above: Option<Outline> = None;
            for detail in Detail::ALL {
                match outline(language, &text, detail) {
                    Ok(Some(outline)) => {
                        let problems = problems(&text, &outline, above.as_ref());
                        prop_assert!(problems.is_empty(), "{} {}: {:?}", language.name(), detail.name(), problems);
                        above = Some(outline);
                    }
                    Ok(None) | Err(_) => above = None,
                }
            }
        }
    }
}

#[test]
fn heads_keep_one_line_per_item_and_fall_back_to_every_item() {
    // No public item: every item's line, without imports or attributes.
    let tests = "#![cfg(feature = \"full\")]\n\nuse std::io;\n\n#[test]\nfn reads() {\n    io::stdin();\n}\n\n#[tokio::test]\nasync fn writes() {\n    one();\n}\n";
    let heads = outline(Language::Rust, tests, Detail::Heads)
        .unwrap()
        .unwrap();
    assert_eq!(heads.lines_label(), "6,11");
    assert_eq!(
        heads.content,
        "⋮ 5\nfn reads() {\n⋮ 4\nasync fn writes() {\n⋮ 2\n"
    );
    // Public items only when there are some; a `pub use` is one of them.
    let library = "use std::fmt;\npub use inner::Thing;\n\n/// Docs.\n#[derive(Debug)]\npub struct Pair {\n    pub a: u8,\n    pub b: u8,\n}\n\nfn private() {\n    one();\n}\n";
    let heads = outline(Language::Rust, library, Detail::Heads)
        .unwrap()
        .unwrap();
    assert_eq!(heads.lines_label(), "2,6");
    // A decorator is not the item's line.
    let python = "import os\n\n@property\ndef name(self):\n    return os.name\n";
    let heads = outline(Language::Python, python, Detail::Heads)
        .unwrap()
        .unwrap();
    assert_eq!(heads.content, "⋮ 3\ndef name(self):\n⋮ 1\n");
}

#[test]
fn first_keeps_the_first_line_heads_keeps() {
    let library = "use std::fmt;\n\n/// Docs.\n#[derive(Debug)]\npub struct Pair {\n    pub a: u8,\n}\n\npub fn make() -> Pair {\n    Pair { a: 1 }\n}\n";
    let heads = outline(Language::Rust, library, Detail::Heads)
        .unwrap()
        .unwrap();
    assert_eq!(heads.lines_label(), "5,9");
    let first = outline(Language::Rust, library, Detail::First)
        .unwrap()
        .unwrap();
    assert_eq!(first.lines_label(), "5");
    assert_eq!(first.content, "⋮ 4\npub struct Pair {\n⋮ 6\n");
    // Without a public item, the first of every item's lines.
    let tests =
        "use std::io;\n\n#[test]\nfn reads() {\n    io::stdin();\n}\n\n#[test]\nfn writes() {}\n";
    let first = outline(Language::Rust, tests, Detail::First)
        .unwrap()
        .unwrap();
    assert_eq!(first.content, "⋮ 3\nfn reads() {\n⋮ 5\n");
}

#[test]
fn a_local_item_named_by_an_export_clause_or_a_default_export_is_public() {
    let declared = "class Store {\n  get(key) {\n    return key\n  }\n}\n\nfunction hidden() {\n  return 1\n}\n\n";
    for (language, exporting) in [
        (Language::TypeScript, "export { Store as Base }\n"),
        (Language::TypeScript, "export { Store }\n"),
        (Language::TypeScript, "export { type Store }\n"),
        (Language::TypeScript, "export default Store\n"),
        (Language::TypeScript, "export = Store\n"),
        (Language::Tsx, "export { Store as Base }\n"),
        (Language::JavaScript, "export { Store as Base, other }\n"),
        (Language::JavaScript, "export default Store;\n"),
    ] {
        let source = format!("{declared}{exporting}");
        for detail in [Detail::Public, Detail::Heads] {
            let outline = outline(language, &source, detail).unwrap().unwrap();
            assert!(
                outline.content.starts_with("class Store {\n  get(key) {\n"),
                "{} {exporting}: {}",
                language.name(),
                outline.content
            );
            assert!(!outline.content.contains("hidden"), "{exporting}");
        }
        let first = outline(language, &source, Detail::First).unwrap().unwrap();
        assert_eq!(first.lines_label(), "1", "{exporting}");
    }
    // A clause with `from` names another module's items, not this one's.
    let source = format!("{declared}export {{ Store }} from './store'\n");
    let public = outline(Language::TypeScript, &source, Detail::Public)
        .unwrap()
        .unwrap();
    assert_eq!(public.lines_label(), "11");
}

#[test]
fn generic_call_signatures_one_per_line_outline_and_a_real_error_still_refuses() {
    let source = "export interface Pick {\n  <T>(a: T): T\n  /** Two. */\n  <T, U>(a: T, b: U): U\n}\n\nexport type Read = {\n  <T>(key: string): T\n  <T, D>(key: string, fallback: D): T | D\n}\n\nexport function pick(a: number): number {\n  return a\n}\n";
    for language in [Language::TypeScript, Language::Tsx] {
        let full = outline(language, source, Detail::Full).unwrap().unwrap();
        // The file's own lines: the parse's rewrite (a `;` for the space
        // before each `<`) does not show.
        assert_eq!(full.lines_label(), "1-12", "{}", language.name());
        assert_eq!(
            full.content,
            source.replace("  return a\n}\n", "⋮ 2\n"),
            "{}",
            language.name()
        );
        // A real error elsewhere still refuses the file, named at its line.
        let broken = format!("{source}function f( {{\n}}\n");
        assert!(matches!(
            outline(language, &broken, Detail::Full),
            Err(OutlineError::Syntax { line: 15, .. })
        ));
    }
}

#[test]
fn newer_typescript_the_grammar_does_not_know_outlines_as_written() {
    // Variance annotations (TypeScript 4.7) and `export type *` (5.0).
    let source = "export interface Source<\n  /** Why. */\n  out T,\n  in out U = T,\n> {\n  read(): T\n}\n\nexport type * from './types'\n\nexport function make(): number {\n  return 1\n}\n";
    let public = outline(Language::TypeScript, source, Detail::Public)
        .unwrap()
        .unwrap();
    assert_eq!(public.lines_label(), "1,3-11");
    assert!(public.content.contains("  in out U = T,\n"));
    assert!(public.content.contains("export type * from './types'\n"));
}

#[test]
fn a_comment_or_attribute_with_code_after_it_belongs_to_that_code() {
    // The derive is the private struct's, not the public one's below it.
    let rust =
        "#[derive(Debug)] struct Private;\npub struct Public;\n\nfn private() {\n    one();\n}\n";
    let public = outline(Language::Rust, rust, Detail::Public)
        .unwrap()
        .unwrap();
    assert_eq!(public.lines_label(), "2");
    // The comment before `a` is not `b`'s doc; the one alone above `c` is.
    let c = "/* About a. */ static int a;\nint b;\n/* About c. */\nint c;\nstatic int d(void) {\n  return 1;\n}\n";
    let public = outline(Language::C, c, Detail::Public).unwrap().unwrap();
    assert_eq!(public.lines_label(), "2,4");
    let full = outline(Language::C, c, Detail::Full).unwrap().unwrap();
    assert_eq!(full.lines_label(), "1-5");
    // Comments and attributes that share their line still stack.
    let stacked = "/// Docs. /* more */\n#[derive(Debug)] // why\npub struct Public;\n\nfn private() {\n    one();\n}\n";
    let public = outline(Language::Rust, stacked, Detail::Public)
        .unwrap()
        .unwrap();
    assert_eq!(public.lines_label(), "2-3");
}
