//! Benchmarks of the `packer` binary, reported as ratios measured side by
//! side in one run (the machine may be shared and noisy).
//!
//! ```sh
//! cargo build --release --locked && cargo run --release --locked --example bench
//! ```
//!
//! The corpus is real text: the Markdown and Rust sources of the crates in
//! the local Cargo registry (which every build of packer has), cut at line
//! boundaries into documents of about 1.5 KB, in path order. Each timing is
//! the median of several runs, with the commands compared taking turns.
//! When `node` and `scripts/reference/node_modules` are present, the naive
//! reference packer is timed too: beside packer on a small fixture in every
//! built-in encoding (`--encoding` given to both), and on 100 documents.
//!
//! `cargo run --release --locked --example bench -- start-up` runs only the
//! small-fixture timings and the load time of the tokenizer files in
//! `tests/data/tokenizers`.
//!
//! `cargo run --release --locked --example bench -- against OTHER` times
//! this build and the `packer` binary `OTHER` (an earlier build, say)
//! taking turns on the 10,000-document fixture: `count`, and `pack` at the
//! fixture's budget, at 128k and with every document fitting, with each
//! binary's pack ÷ count; then `count --tokenizer` with a committed file of
//! each Hugging Face model family on 2,000 of those documents.

#[path = "support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

const RUNS: usize = 7;

/// Each command's median time over `RUNS` runs, taking turns.
fn race(commands: &[&[&str]]) -> Vec<Duration> {
    support::race(commands, RUNS)
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let packer = support::packer_binary();
    assert!(
        packer.exists(),
        "build the binary first: cargo build --release --locked (looked for {})",
        packer.display()
    );
    let out = packer.parent().unwrap().join("bench");
    fs::create_dir_all(&out).unwrap();
    if std::env::args().nth(1).as_deref() == Some("against") {
        let other = std::env::args()
            .nth(2)
            .expect("against needs the other binary's path");
        against(packer.to_str().unwrap(), &other, &out);
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("start-up") {
        // `cargo run --release --example bench -- start-up`: only the
        // small-fixture and tokenizer-file timings.
        let reference = node_reference(&root);
        start_up(&root, packer.to_str().unwrap(), reference.as_deref(), &out);
        return;
    }
    let documents = corpus();
    eprintln!("corpus: {} documents", documents.len());

    let sizes = [100, 1_000, 10_000];
    let mut fixtures = Vec::new();
    for n in sizes {
        let path = out.join(format!("docs-{n}.json"));
        write_fixture(&path, &documents[..n.min(documents.len())], "cl100k_base");
        fixtures.push((n, path));
    }
    let packer = packer.to_str().unwrap();
    let big = [
        "--max-documents",
        "100000",
        "--max-input-bytes",
        "1000000000",
    ];

    println!("| documents | MB | `packer count` | `packer pack` | pack / count |");
    println!("|---:|---:|---:|---:|---:|");
    let mut pack_times = Vec::new();
    for (n, path) in &fixtures {
        let path = path.to_str().unwrap();
        let mb = fs::metadata(path).unwrap().len() as f64 / 1e6;
        let mut pack = vec![packer, "pack", path, "--format", "summary"];
        pack.extend(big);
        let times = race(&[&[packer, "count", path], &pack]);
        println!(
            "| {n} | {mb:.1} | {} | {} | {:.2} |",
            ms(times[0]),
            ms(times[1]),
            secs(times[1]) / secs(times[0])
        );
        pack_times.push(times[1]);
    }
    println!();
    println!(
        "10,000 / 1,000 documents pack time: {:.1}x (linear would be about 10x)",
        secs(pack_times[2]) / secs(pack_times[1])
    );

    let path = fixtures[2].1.to_str().unwrap();
    let mb = fs::metadata(path).unwrap().len() as f64 / 1e6;
    for encoding in ["cl100k_base", "o200k_base", "p50k_base"] {
        let times = race(&[&[packer, "count", "--encoding", encoding, path]]);
        println!(
            "`packer count --encoding {encoding}` on {mb:.1} MB: {} ({:.0} MB/s, one thread, encoder load included)",
            ms(times[0]),
            mb / secs(times[0])
        );
    }

    let mut policies = Vec::new();
    for policy in ["in-order", "priority", "max-fill"] {
        let mut args = vec![
            packer, "pack", path, "--format", "summary", "--policy", policy,
        ];
        args.extend(big);
        policies.push(args);
    }
    let views: Vec<&[&str]> = policies.iter().map(Vec::as_slice).collect();
    let times = race(&views);
    println!(
        "10,000 documents by policy: in-order {}, priority {}, max-fill {}",
        ms(times[0]),
        ms(times[1]),
        ms(times[2])
    );

    let max_fill = out.join("max-fill-100-docs-1m-budget.json");
    write_budgeted(&max_fill, &documents[..100], 1_000_000, 0.6);
    let max_fill = max_fill.to_str().unwrap();
    let times = race(&[&[
        packer, "pack", max_fill, "--policy", "max-fill", "--format", "summary",
    ]]);
    println!(
        "max-fill, 100 documents, 1,000,000-token context: {}",
        ms(times[0])
    );

    // max-fill at scale: 10,000 documents under a 1,000,000-token budget
    // (within the exact search's limits), and omission notes over 5,000.
    let scale = out.join("max-fill-10000-docs-1m-budget.json");
    write_with_budget(&scale, &documents[..10_000], "cl100k_base", 1_000_000);
    let scale = scale.to_str().unwrap();
    let (in_order, max_fill) = (
        pack_args(packer, scale, "in-order", false, &big),
        pack_args(packer, scale, "max-fill", false, &big),
    );
    let times = race(&[&in_order, &max_fill]);
    println!(
        "max-fill, 10,000 documents, 1,000,000-token budget: {} (in-order {}), {}, peak memory {} (in-order {})",
        ms(times[1]),
        ms(times[0]),
        proven(&max_fill),
        support::peak(&max_fill),
        support::peak(&in_order)
    );
    let notes = out.join("notes-5000-docs.json");
    write_fixture(&notes, &documents[..5_000], "cl100k_base");
    let notes = notes.to_str().unwrap();
    let runs: Vec<Vec<&str>> = ["in-order", "priority", "max-fill"]
        .into_iter()
        .map(|policy| pack_args(packer, notes, policy, true, &big))
        .collect();
    let views: Vec<&[&str]> = runs.iter().map(Vec::as_slice).collect();
    let times = race(&views);
    println!(
        "--note-omissions, 5,000 documents: in-order {} ({}), priority {} ({}), max-fill {} ({}, {})",
        ms(times[0]),
        support::peak(&runs[0]),
        ms(times[1]),
        support::peak(&runs[1]),
        ms(times[2]),
        support::peak(&runs[2]),
        proven(&runs[2])
    );

    let reference = node_reference(&root);
    start_up(&root, packer, reference.as_deref(), &out);
    if let Some(reference) = &reference {
        let hundred = fixtures[0].1.to_str().unwrap();
        let mut pack = vec![packer, "pack", hundred, "--format", "summary"];
        pack.extend(big);
        let times = race(&[&pack, &["node", reference, hundred]]);
        println!(
            "100 documents end to end: packer {}, naive reference {}: {:.0}x faster",
            ms(times[0]),
            ms(times[1]),
            secs(times[1]) / secs(times[0])
        );
    }

    let mib = out.join("one-mib.json");
    let count = documents
        .iter()
        .scan(0, |bytes, d| {
            *bytes += d.len() + 120;
            Some(*bytes)
        })
        .take_while(|&bytes| bytes < 1_040_000)
        .count();
    write_fixture(&mib, &documents[..count], "cl100k_base");
    if Path::new("/usr/bin/time").exists() {
        let output = Command::new("/usr/bin/time")
            .args([
                "-f",
                "%M",
                packer,
                "pack",
                mib.to_str().unwrap(),
                "--format",
                "summary",
            ])
            .args(big)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "packing the 1 MiB fixture failed: {stderr}"
        );
        let kb = support::peak_kilobytes(&stderr);
        println!(
            "peak memory packing a {:.2} MB fixture ({count} documents): {:.0} MB",
            fs::metadata(&mib).unwrap().len() as f64 / 1e6,
            kb / 1024.0
        );
    }
}

/// The naive reference packer's script, when `node` and its
/// `node_modules` are present.
fn node_reference(root: &Path) -> Option<String> {
    let ready = root
        .join("scripts/reference/node_modules/tiktoken")
        .exists()
        && Command::new("node").arg("--version").output().is_ok();
    ready.then(|| {
        let script = root.join("scripts/reference/pack.mjs");
        script.to_str().unwrap().to_owned()
    })
}

/// A small fixture end to end in every built-in encoding, beside the naive
/// reference given the same encoding (both take `--encoding`), then the
/// load time of the tokenizer files in tests/data/tokenizers.
fn start_up(root: &Path, packer: &str, reference: Option<&str>, out: &Path) {
    let guide = root.join("fixtures/guide.json");
    let guide = guide.to_str().unwrap();
    println!();
    println!("small fixture (guide.json) end to end, by encoding:");
    println!();
    match reference {
        Some(_) => {
            println!(
                "| encoding | packer | naive reference (node + npm tiktoken) | packer / reference |"
            );
            println!("|---|---:|---:|---:|");
        }
        None => {
            println!("| encoding | packer |");
            println!("|---|---:|");
        }
    }
    for encoding in packer::Encoding::ALL {
        let encoding = encoding.name();
        let ours = [packer, "pack", guide, "--encoding", encoding];
        let Some(reference) = reference else {
            let times = race(&[&ours]);
            println!("| {encoding} | {} |", fine_ms(times[0]));
            continue;
        };
        let theirs = ["node", reference, guide, "--encoding", encoding];
        assert_eq!(
            used_tokens(&ours),
            used_tokens(&theirs),
            "packer and the reference disagree on {encoding}"
        );
        let times = race(&[&ours, &theirs]);
        println!(
            "| {encoding} | {} | {} | {:.3}x |",
            fine_ms(times[0]),
            ms(times[1]),
            secs(times[0]) / secs(times[1])
        );
    }

    let data = root.join("tests/data/tokenizers");
    let files = [
        ("qwen3-tokenizer.json.gz", "tokenizer.json"),
        ("tekken_240718.json.gz", "tekken.json"),
    ];
    let mut runs = vec![vec![packer.to_owned(), "count".into(), guide.to_owned()]];
    let mut names = Vec::new();
    for (gz, name) in files {
        let Ok(compressed) = fs::File::open(data.join(gz)) else {
            continue;
        };
        let mut json = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(compressed), &mut json)
            .unwrap();
        let path = out.join(gz.trim_end_matches(".gz"));
        fs::write(&path, &json).unwrap();
        let path = path.to_str().unwrap().to_owned();
        names.push(format!("{name} ({:.1} MB)", json.len() as f64 / 1e6));
        runs.push(vec![
            packer.to_owned(),
            "count".into(),
            guide.to_owned(),
            "--tokenizer".into(),
            path,
        ]);
    }
    let runs: Vec<Vec<&str>> = runs
        .iter()
        .map(|run| run.iter().map(String::as_str).collect())
        .collect();
    let views: Vec<&[&str]> = runs.iter().map(Vec::as_slice).collect();
    let times = race(&views);
    println!();
    print!("`packer count guide.json`: {}", ms(times[0]));
    for (name, time) in names.iter().zip(&times[1..]) {
        print!("; with --tokenizer {name}: {}", ms(*time));
    }
    println!(" (file load included)");
}

/// The `usedTokens` of one run's output.
fn used_tokens(command: &[&str]) -> u64 {
    let output = Command::new(command[0])
        .args(&command[1..])
        .output()
        .unwrap();
    assert!(output.status.success(), "{command:?} failed");
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    result["usedTokens"]
        .as_u64()
        .unwrap_or_else(|| panic!("{command:?} printed no usedTokens"))
}

/// `packer pack PATH --format summary --policy POLICY`, with raised limits
/// and, when `notes`, `--note-omissions`.
fn pack_args<'a>(
    packer: &'a str,
    path: &'a str,
    policy: &'a str,
    notes: bool,
    limits: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        packer, "pack", path, "--format", "summary", "--policy", policy,
    ];
    args.extend(limits);
    if notes {
        args.push("--note-omissions");
    }
    args
}

/// Whether max-fill's summary says its result is proven optimal.
fn proven(command: &[&str]) -> &'static str {
    let output = Command::new(command[0])
        .args(&command[1..])
        .output()
        .unwrap();
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    match summary["optimal"].as_bool() {
        Some(true) => "proven optimal",
        _ => "not proven",
    }
}

/// This build against `other`, taking turns, on the 10,000-document fixture.
fn against(packer: &str, other: &str, out: &Path) {
    let documents = corpus();
    // The first `n` documents as a fixture, by its path.
    let fixture = |n: usize| {
        let path = out.join(format!("docs-{n}.json"));
        write_fixture(&path, &documents[..n.min(documents.len())], "cl100k_base");
        path.to_str().unwrap().to_owned()
    };
    let path = &fixture(10_000);
    let big = [
        "--max-documents",
        "100000",
        "--max-input-bytes",
        "1000000000",
    ];
    let tasks: [(&str, &[&str]); 4] = [
        ("`count`", &[]),
        ("`pack` (the fixture's budget)", &[]),
        ("`pack --budget 128000`", &["--budget", "128000"]),
        (
            "`pack --budget 9000000` (every document fits)",
            &["--budget", "9000000"],
        ),
    ];
    let arguments: Vec<Vec<&str>> = tasks
        .iter()
        .enumerate()
        .map(|(i, (_, extra))| {
            if i == 0 {
                vec!["count", path]
            } else {
                let mut arguments = vec!["pack", path, "--format", "summary"];
                arguments.extend(big);
                arguments.extend(extra.iter().copied());
                arguments
            }
        })
        .collect();
    let (before, after) = race_binaries(other, packer, &arguments);
    println!("| task | other | this build | other ÷ its count | this ÷ its count |");
    println!("|---|---:|---:|---:|---:|");
    for (i, (name, _)) in tasks.iter().enumerate() {
        println!(
            "| {name} | {} | {} | {:.2} | {:.2} |",
            ms(before[i]),
            ms(after[i]),
            secs(before[i]) / secs(before[0]),
            secs(after[i]) / secs(after[0])
        );
    }
    // Each Hugging Face model family, counting the same fixture with a
    // committed tokenizer file (the first 2,000 documents: the smaller
    // families' files are slower per byte than the built-in tables).
    let small = &fixture(2_000);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokenizers");
    let files: Vec<(&str, String)> = [
        ("byte-level BPE", "added-tokens-tokenizer.json"),
        ("BPE over characters", "sp-legacy-tokenizer.json"),
        ("WordPiece", "wordpiece-cased-tokenizer.json"),
        ("Unigram", "unigram-bytes-tokenizer.json"),
    ]
    .into_iter()
    .map(|(family, file)| (family, data.join(file).to_str().unwrap().to_owned()))
    .collect();
    let arguments: Vec<Vec<&str>> = files
        .iter()
        .map(|(_, file)| vec!["count", small, "--tokenizer", file])
        .collect();
    let (before, after) = race_binaries(other, packer, &arguments);
    println!();
    println!("| `count --tokenizer` (2,000 documents) | other | this build | this ÷ other |");
    println!("|---|---:|---:|---:|");
    for (i, (family, _)) in files.iter().enumerate() {
        println!(
            "| {family} | {} | {} | {:.2} |",
            ms(before[i]),
            ms(after[i]),
            secs(after[i]) / secs(before[i])
        );
    }
}

/// The median times of `other` and of `packer` running each argument
/// list, all taking turns.
fn race_binaries(
    other: &str,
    packer: &str,
    arguments: &[Vec<&str>],
) -> (Vec<Duration>, Vec<Duration>) {
    let commands: Vec<Vec<&str>> = [other, packer]
        .into_iter()
        .flat_map(|binary| {
            arguments.iter().map(move |arguments| {
                let mut command = vec![binary];
                command.extend(arguments.iter().copied());
                command
            })
        })
        .collect();
    let views: Vec<&[&str]> = commands.iter().map(Vec::as_slice).collect();
    let mut before = race(&views);
    let after = before.split_off(arguments.len());
    (before, after)
}

fn secs(duration: Duration) -> f64 {
    duration.as_secs_f64()
}

/// Milliseconds with one decimal, for times of a few milliseconds.
fn fine_ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

fn ms(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}

/// Real text from the local Cargo registry, cut into ~1.5 KB documents.
fn corpus() -> Vec<String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let mut paths: Vec<PathBuf> = ignore::WalkBuilder::new(home.join("registry/src"))
        .standard_filters(false)
        .build()
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e == "md" || e == "rs" || e == "txt")
        })
        .collect();
    paths.sort();
    let mut documents = Vec::new();
    for path in paths {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let mut chunk = String::new();
        for line in text.split_inclusive('\n') {
            chunk.push_str(line);
            if chunk.len() > 1500 {
                documents.push(std::mem::take(&mut chunk));
            }
        }
        if !chunk.trim().is_empty() {
            documents.push(chunk);
        }
        if documents.len() >= 12_000 {
            break;
        }
    }
    documents.retain(|d| !d.trim().is_empty());
    assert!(
        documents.len() >= 10_000,
        "the local registry has too little text"
    );
    documents
}

/// A fixture whose budget is a sixth of its text's bytes (about two thirds
/// of its tokens), so that packing both selects and skips.
fn write_fixture(path: &Path, documents: &[String], encoding: &str) {
    let bytes: usize = documents.iter().map(String::len).sum();
    write_with_budget(path, documents, encoding, (bytes / 6) as u64);
}

fn write_budgeted(path: &Path, documents: &[String], context: u64, share: f64) {
    let bytes: usize = documents.iter().map(String::len).sum();
    let available = ((bytes as f64 / 4.0) * share) as u64;
    let mut fixture = fixture_json(documents, "cl100k_base");
    fixture["budget"] = serde_json::json!({
        "contextTokens": context,
        "reservedOtherInputTokens": context - available,
        "reservedOutputTokens": 0,
        "safetyTokens": 0,
    });
    fs::write(path, fixture.to_string()).unwrap();
}

fn write_with_budget(path: &Path, documents: &[String], encoding: &str, available: u64) {
    let mut fixture = fixture_json(documents, encoding);
    fixture["budget"] = serde_json::json!({
        "contextTokens": available,
        "reservedOtherInputTokens": 0,
        "reservedOutputTokens": 0,
        "safetyTokens": 0,
    });
    fs::write(path, fixture.to_string()).unwrap();
}

fn fixture_json(documents: &[String], encoding: &str) -> serde_json::Value {
    let documents: Vec<serde_json::Value> = documents
        .iter()
        .enumerate()
        .map(|(i, content)| {
            serde_json::json!({
                "id": format!("doc-{i}"),
                "url": format!("https://example.com/corpus/{i}"),
                "format": "text",
                "content": content,
                "truncated": false,
            })
        })
        .collect();
    serde_json::json!({"encoding": encoding, "documents": documents})
}
