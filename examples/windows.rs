//! `--windows` at scale: 10,000 files of a directory into windows of 32k
//! tokens, timed side by side with one `pack --dir` of the same tree at the
//! same budget (the machine may be shared and noisy: the two commands take
//! turns and each time is the median of several runs).
//!
//! ```sh
//! cargo build --release --locked && cargo run --release --locked --example windows
//! ```
//!
//! The tree is real text: the first 10,000 Rust, Markdown, text and TOML
//! files of the local Cargo registry (which every build of packer has), in
//! path order, whole and under their own paths, so that a crate's files sit
//! together as in a repository. `cargo run --release --example windows --
//! BUDGET` packs at another budget.

#[path = "support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 5;

/// Each command's median time over `RUNS` runs, taking turns.
fn race(commands: &[&[&str]]) -> Vec<Duration> {
    support::race(commands, RUNS)
}
const FILES: usize = 10_000;

fn main() {
    let packer = support::packer_binary();
    assert!(
        packer.exists(),
        "build the binary first: cargo build --release --locked (looked for {})",
        packer.display()
    );
    let budget = std::env::args().nth(1).unwrap_or_else(|| "32000".into());
    let out = packer.parent().unwrap().join("bench");
    let tree = out.join("windows-tree");
    let (files, bytes) = write_tree(&tree);
    println!(
        "tree: {files} files, {:.1} MB, from the local Cargo registry",
        bytes as f64 / 1e6
    );
    let packer = packer.to_str().unwrap();
    let tree = tree.to_str().unwrap();
    let single = [
        packer, "pack", "--dir", tree, "--budget", &budget, "--format", "summary",
    ];
    let windows = [
        packer,
        "pack",
        "--dir",
        tree,
        "--budget",
        &budget,
        "--format",
        "summary",
        "--windows",
    ];
    let mut noted = windows.to_vec();
    noted.push("--note-omissions");
    let times = race(&[&single, &windows, &noted]);
    let one = summary(&single);
    let all = summary(&windows);
    let with_notes = summary(&noted);
    let documents = all["decisions"].as_array().unwrap().len();
    let windows_found = all["windowCount"].as_u64().unwrap();
    let skipped = all["skipped"].as_array().unwrap().len();
    let fullest = all["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["usedTokens"].as_u64().unwrap())
        .max()
        .unwrap_or(0);
    let used: u64 = all["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["usedTokens"].as_u64().unwrap())
        .sum();
    // Input neighbours (consecutive placed documents) that share a window.
    let placed: Vec<u64> = all["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["window"].as_u64())
        .collect();
    let together = placed.windows(2).filter(|pair| pair[0] == pair[1]).count();
    println!();
    println!("| `packer pack --dir` at {budget} tokens | time | peak memory | result |");
    println!("|---|---:|---:|---|");
    println!(
        "| one payload | {} | {} | {} of {documents} documents, {} tokens |",
        ms(times[0]),
        support::peak(&single),
        one["selectedIds"].as_array().unwrap().len(),
        one["usedTokens"],
    );
    println!(
        "| `--windows` | {} | {} | {windows_found} windows (at least {}, {}), {} documents placed, {skipped} too big for a window; {used} tokens in all, the fullest window {fullest} |",
        ms(times[1]),
        support::peak(&windows),
        all["lowerBound"],
        if all["optimal"] == true {
            "proven the fewest"
        } else {
            "not proven the fewest"
        },
        documents - skipped,
    );
    println!(
        "| `--windows --note-omissions` | {} | {} | {} windows (at least {}, {}), each listing what is not in it |",
        ms(times[2]),
        support::peak(&noted),
        with_notes["windowCount"],
        with_notes["lowerBound"],
        if with_notes["optimal"] == true {
            "proven the fewest"
        } else {
            "not proven the fewest"
        },
    );
    println!();
    println!(
        "windows / one payload: {:.2}x the time ({:.2}x with notes); {:.0}% of input neighbours share a window",
        secs(times[1]) / secs(times[0]),
        secs(times[2]) / secs(times[0]),
        100.0 * together as f64 / placed.len().saturating_sub(1).max(1) as f64
    );
    // The same with every window written to a new directory.
    let written = out.join("windows-out");
    let _ = fs::remove_dir_all(&written);
    let mut with_files = windows.to_vec();
    let written_arg = written.to_str().unwrap();
    with_files.extend(["--out-dir", written_arg]);
    let start = Instant::now();
    run(&with_files);
    let elapsed = start.elapsed();
    let written_bytes: u64 = fs::read_dir(&written)
        .unwrap()
        .map(|entry| entry.unwrap().metadata().unwrap().len())
        .sum();
    println!(
        "with --out-dir: {} ({windows_found} files, {:.1} MB)",
        ms(elapsed),
        written_bytes as f64 / 1e6
    );
}

/// Copies the first [`FILES`] text files (or all there are) of the local
/// Cargo registry into
/// `tree` (once; kept for later runs); returns their number and bytes.
fn write_tree(tree: &Path) -> (usize, u64) {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let source = home.join("registry/src");
    let mut paths: Vec<PathBuf> = ignore::WalkBuilder::new(&source)
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(|entry| entry.into_path())
        .filter(|path| {
            // Hidden files are not collected: leave them out of the count.
            let hidden = path
                .strip_prefix(&source)
                .unwrap()
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
            path.extension()
                .is_some_and(|e| e == "md" || e == "rs" || e == "txt" || e == "toml")
                && !hidden
        })
        .collect();
    paths.sort();
    let mut files = 0;
    let mut bytes = 0;
    for path in paths {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        if text.trim().is_empty() || text.len() > 1 << 20 {
            continue;
        }
        let relative = path.strip_prefix(&source).unwrap();
        let target = tree.join(relative);
        if !target.exists() {
            fs::create_dir_all(target.parent().unwrap()).unwrap();
            fs::write(&target, &text).unwrap();
        }
        files += 1;
        bytes += text.len() as u64;
        if files == FILES {
            break;
        }
    }
    // A registry with fewer files gives all it has (the tree line says how
    // many).
    assert!(
        files >= FILES / 10,
        "the local registry has too few text files"
    );
    (files, bytes)
}

/// Runs `command` and returns its JSON output.
fn summary(command: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run(command)).unwrap()
}

fn run(command: &[&str]) -> Vec<u8> {
    let output = Command::new(command[0])
        .args(&command[1..])
        .stderr(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success(), "{command:?} failed");
    output.stdout
}

fn secs(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}
