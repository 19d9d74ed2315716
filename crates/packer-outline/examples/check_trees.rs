//! Outlines every source file under the given directories at every detail,
//! checks each outline, and prints per-language figures.
//!
//! `check_trees [--tokens PACKER] [--python-defs] DIR...`
//!
//! Checked for every outline: its content is `Outline::rebuild` of the
//! source and its kept ranges, it is shorter than the file, its ranges are
//! sorted, disjoint, non-adjacent and inside the file, `of_lines` is the
//! file's line count, and each level keeps a subset of the lines the level
//! before it keeps. A failed check is printed and the exit status is 1.
//!
//! Figures per language and detail: files outlined, files with no outline
//! (`Ok(None)`: none shorter, or nothing kept), files refused (`Err`), and
//! over the outlined files the outline's share of the file's bytes as a
//! mean over files and over all their bytes, and with `--tokens PACKER` (a
//! `packer` binary) the same shares in cl100k tokens, counted by
//! `PACKER count`. The time
//! is for outlining every file once at each detail, on one thread.
//!
//! `--python-defs` also reports the share of `def` and `class` lines at
//! module and class level (found from indentation, independently of the
//! grammar) that the full outline keeps.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use packer_outline::{Detail, Language, Outline, outline};

#[derive(Default)]
struct Figures {
    files: usize,
    outlined: usize,
    whole: usize,
    refused: usize,
    share_sum: f64,
    bytes: usize,
    outline_bytes: usize,
    token_share_sum: f64,
    tokens: usize,
    outline_tokens: usize,
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut packer = None;
    let mut python_defs = false;
    let mut dirs = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--tokens" => packer = args.next(),
            "--python-defs" => python_defs = true,
            _ => dirs.push(PathBuf::from(arg)),
        }
    }
    if dirs.is_empty() {
        eprintln!("usage: check_trees [--tokens PACKER] [--python-defs] DIR...");
        std::process::exit(2);
    }
    let mut files = Vec::new();
    for dir in &dirs {
        collect(dir, &mut files);
    }
    files.sort();

    let mut figures: BTreeMap<(Language, Detail), Figures> = BTreeMap::new();
    let mut refusals: BTreeMap<Language, Vec<String>> = BTreeMap::new();
    let mut failures = 0usize;
    let mut elapsed = Duration::ZERO;
    let mut elapsed_by_language: BTreeMap<Language, Duration> = BTreeMap::new();
    let (mut defs, mut defs_kept) = (0usize, 0usize);
    for path in &files {
        let name = path.display().to_string();
        let Some(language) = Language::from_path(&name) else {
            continue;
        };
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        let source_tokens = packer.as_deref().map(|packer| count(packer, &source));
        let mut previous: Option<Outline> = None;
        for detail in Detail::ALL {
            let started = Instant::now();
            let result = outline(language, &source, detail);
            let took = started.elapsed();
            elapsed += took;
            *elapsed_by_language.entry(language).or_default() += took;
            let entry = figures.entry((language, detail)).or_default();
            entry.files += 1;
            match result {
                Err(error) => {
                    entry.refused += 1;
                    if detail == Detail::Full {
                        refusals
                            .entry(language)
                            .or_default()
                            .push(format!("{name}: {error}"));
                    }
                    previous = None;
                }
                Ok(None) => {
                    entry.whole += 1;
                    previous = None;
                }
                Ok(Some(outline)) => {
                    for problem in check(&source, &outline, previous.as_ref()) {
                        eprintln!("FAIL {name} ({}): {problem}", detail.name());
                        failures += 1;
                    }
                    entry.outlined += 1;
                    entry.bytes += source.len();
                    if let Some(tokens) = source_tokens {
                        entry.tokens += tokens;
                    }
                    entry.share_sum += outline.content.len() as f64 / source.len() as f64;
                    entry.outline_bytes += outline.content.len();
                    if let (Some(packer), Some(tokens)) = (packer.as_deref(), source_tokens) {
                        let outline_tokens = count(packer, &outline.content);
                        entry.token_share_sum += outline_tokens as f64 / tokens.max(1) as f64;
                        entry.outline_tokens += outline_tokens;
                    }
                    if python_defs && language == Language::Python && detail == Detail::Full {
                        let (found, kept) = python_def_lines(&source, &outline);
                        defs += found;
                        defs_kept += kept;
                    }
                    previous = Some(outline);
                }
            }
        }
        if python_defs && language == Language::Python {
            // A file with no outline is sent whole: its lines are all kept.
            if !matches!(outline(language, &source, Detail::Full), Ok(Some(_))) {
                let found = python_def_rows(&source).len();
                defs += found;
                defs_kept += found;
            }
        }
    }

    println!(
        "{:<11} {:<10} {:>5} {:>8} {:>5} {:>7} {:>9} {:>9} {:>9} {:>9}",
        "language",
        "detail",
        "files",
        "outlined",
        "whole",
        "refused",
        "bytes/fl",
        "bytes/all",
        "tok/fl",
        "tok/all"
    );
    for ((language, detail), f) in &figures {
        let counted = f.outlined.max(1) as f64;
        let tokens = |share: f64| {
            if packer.is_some() {
                format!("{:>8.1}%", 100.0 * share)
            } else {
                format!("{:>9}", "-")
            }
        };
        println!(
            "{:<11} {:<10} {:>5} {:>8} {:>5} {:>7} {:>8.1}% {:>8.1}% {} {}",
            language.name(),
            detail.name(),
            f.files,
            f.outlined,
            f.whole,
            f.refused,
            100.0 * f.share_sum / counted,
            100.0 * f.outline_bytes as f64 / f.bytes.max(1) as f64,
            tokens(f.token_share_sum / counted),
            tokens(f.outline_tokens as f64 / f.tokens.max(1) as f64),
        );
    }
    for (language, took) in &elapsed_by_language {
        println!("time {:<11} {:>8.3} s", language.name(), took.as_secs_f64());
    }
    println!(
        "time all         {:>8.3} s (every file at every detail, one thread)",
        elapsed.as_secs_f64()
    );
    for (language, list) in &refusals {
        println!("refused {} ({}):", language.name(), list.len());
        for line in list {
            println!("  {line}");
        }
    }
    if python_defs {
        println!(
            "python def/class lines at module and class level kept at full: {defs_kept} of {defs} ({:.1}%)",
            100.0 * defs_kept as f64 / defs.max(1) as f64
        );
    }
    if failures > 0 {
        eprintln!("{failures} failed checks");
        std::process::exit(1);
    }
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if !hidden && entry.file_name() != "node_modules" {
                collect(&path, files);
            }
        } else if kind.is_file() {
            files.push(path);
        }
    }
}

/// Every problem with an outline, against the source and the level above.
fn check(source: &str, outline: &Outline, previous: Option<&Outline>) -> Vec<String> {
    let mut problems = Vec::new();
    let lines = source.split_inclusive('\n').count();
    if outline.of_lines != lines {
        problems.push(format!("of_lines {} but {lines} lines", outline.of_lines));
    }
    if outline.content != Outline::rebuild(source, &outline.kept) {
        problems.push("content is not the rebuild of its ranges".into());
    }
    if outline.content.len() >= source.len() {
        problems.push("not shorter than the file".into());
    }
    if outline.kept.is_empty() {
        problems.push("keeps nothing".into());
    }
    for pair in outline.kept.windows(2) {
        if pair[0].end >= pair[1].start {
            problems.push(format!(
                "ranges {:?} and {:?} touch or overlap",
                pair[0], pair[1]
            ));
        }
    }
    if outline
        .kept
        .iter()
        .any(|range| range.is_empty() || range.end > lines)
    {
        problems.push("an empty range or one past the end".into());
    }
    if let Some(previous) = previous {
        let in_previous = |line: usize| previous.kept.iter().any(|range| range.contains(&line));
        if let Some(line) = outline
            .kept
            .iter()
            .flat_map(|range| range.clone())
            .find(|&line| !in_previous(line))
        {
            problems.push(format!(
                "keeps line {} that the level above does not",
                line + 1
            ));
        }
    }
    problems
}

/// Rows of `def`/`class` lines at module level (no indentation) or right
/// inside a module-level class (its first indentation), by indentation.
fn python_def_rows(source: &str) -> Vec<usize> {
    let mut rows = Vec::new();
    let mut class_indent: Option<Option<usize>> = None;
    for (row, line) in source.lines().enumerate() {
        let stripped = line.trim_start();
        if stripped.is_empty() || stripped.starts_with('#') {
            continue;
        }
        let indent = line.len() - stripped.len();
        let is_def = stripped.starts_with("def ")
            || stripped.starts_with("async def ")
            || stripped.starts_with("class ");
        if indent == 0 {
            class_indent = stripped.starts_with("class ").then_some(None);
            if is_def {
                rows.push(row);
            }
            continue;
        }
        if let Some(member_indent) = class_indent.as_mut() {
            let expected = *member_indent.get_or_insert(indent);
            if indent == expected && is_def {
                rows.push(row);
            }
        }
    }
    rows
}

/// `(def/class lines, of them kept)` for one outline.
fn python_def_lines(source: &str, outline: &Outline) -> (usize, usize) {
    let rows = python_def_rows(source);
    let kept = rows
        .iter()
        .filter(|&&row| outline.kept.iter().any(|range| range.contains(&row)))
        .count();
    (rows.len(), kept)
}

/// The exact cl100k token count of a text, by `packer count`.
fn count(packer: &str, text: &str) -> usize {
    let mut child = Command::new(packer)
        .arg("count")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run packer count");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write to packer count");
    let output = child.wait_with_output().expect("packer count output");
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .expect("a token count")
}
