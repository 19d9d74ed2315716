//! The load of `tokenizer.json` files, packer beside Hugging Face
//! `tokenizers`, measured side by side in one run: time and peak memory.
//!
//! ```sh
//! cargo build --release --locked
//! cargo run --release --locked --example loads -- FILE...
//! ```
//!
//! For each file, taking turns for `--runs N` rounds (5 by default; the
//! machine may be shared and noisy), with the medians reported:
//!
//! - `packer count --tokenizer FILE` on a two-word text: the whole
//!   process's wall time, CPU time (user + system) and peak resident
//!   memory, from `/usr/bin/time`;
//! - Python's `Tokenizer.from_file(FILE)` with `tokenizers` (the Python
//!   named by `PACKER_REFERENCE_PYTHON`, else `python3`): the call alone
//!   (wall time, measured inside the process), and the whole process as
//!   above (interpreter start and `import tokenizers` included).
//!
//! Without a Python that imports `tokenizers`, packer's columns only (and
//! so for a file `tokenizers` refuses, as a `tekken.json`). No
//! file is fetched: `scripts/hf-reference/fetch.sh --held-out` prints the
//! paths of the families it fetches.

// (The other benchmarks use the rest of it.)
#[allow(dead_code)]
#[path = "support/mod.rs"]
mod support;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

/// The Python side: the call alone in milliseconds, on standard output.
const FROM_FILE: &str = "import sys, time
from tokenizers import Tokenizer
start = time.perf_counter()
tokenizer = Tokenizer.from_file(sys.argv[1])
print((time.perf_counter() - start) * 1000)
";

/// One run of a command: wall time, CPU time, peak memory in kilobytes,
/// and what it printed.
struct Run {
    wall: Duration,
    cpu: Duration,
    peak_kb: f64,
    stdout: String,
}

/// Runs `command` under `/usr/bin/time`, `input` on its standard input;
/// `None` when it fails.
fn run(command: &[&str], input: &[u8]) -> Option<Run> {
    let mut child = Command::new("/usr/bin/time")
        .args(["-f", "%e %U %S %M"])
        .args(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("/usr/bin/time runs");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return None;
    }
    let last = stderr.trim().lines().last().unwrap_or_default().to_owned();
    let fields: Vec<f64> = last
        .split_whitespace()
        .map(|field| field.parse().unwrap_or(0.0))
        .collect();
    let [wall, user, system, peak_kb] = fields[..] else {
        panic!("/usr/bin/time printed {last:?}");
    };
    Some(Run {
        wall: Duration::from_secs_f64(wall),
        cpu: Duration::from_secs_f64(user + system),
        peak_kb,
        stdout: String::from_utf8_lossy(&output.stdout).trim().to_owned(),
    })
}

fn median<T: PartialOrd + Copy>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn ms(time: Duration) -> String {
    format!("{:.0} ms", time.as_secs_f64() * 1000.0)
}

fn mb(kilobytes: f64) -> String {
    format!("{:.1} MB", kilobytes * 1024.0 / 1e6)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5;
    if let Some(at) = args.iter().position(|arg| arg == "--runs") {
        runs = args[at + 1].parse().expect("--runs N");
        args.drain(at..at + 2);
    }
    assert!(
        !args.is_empty(),
        "usage: cargo run --release --example loads -- [--runs N] FILE..."
    );
    let packer = support::packer_binary();
    assert!(
        packer.exists(),
        "build the binary first: cargo build --release --locked (looked for {})",
        packer.display()
    );
    let packer = packer.to_str().unwrap();
    let python = std::env::var("PACKER_REFERENCE_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let reference = Command::new(&python)
        .args(["-c", "import tokenizers"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !reference {
        eprintln!("{python} cannot import tokenizers: packer only");
    }

    println!(
        "| file | MB | packer wall | packer CPU | packer peak | peak ÷ size | `from_file` | Python wall | Python CPU | Python peak |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for path in &args {
        let size = std::fs::metadata(path).expect("a readable file").len() as f64;
        let ours = [packer, "count", "--tokenizer", path];
        let theirs = [python.as_str(), "-c", FROM_FILE, path];
        let mut packer_runs = Vec::new();
        let mut python_runs = Vec::new();
        for _ in 0..runs {
            let Some(ours) = run(&ours, b"hello world") else {
                panic!("packer refused {path}");
            };
            packer_runs.push(ours);
            if reference {
                // (`tokenizers` refuses what is not a tokenizer.json.)
                python_runs.extend(run(&theirs, b""));
            }
        }
        let peak = median(packer_runs.iter().map(|r| r.peak_kb).collect());
        print!(
            "| {path} | {:.1} | {} | {} | {} | {:.2} |",
            size / 1e6,
            ms(median(packer_runs.iter().map(|r| r.wall).collect())),
            ms(median(packer_runs.iter().map(|r| r.cpu).collect())),
            mb(peak),
            peak * 1024.0 / size,
        );
        if !python_runs.is_empty() {
            let call = median(
                python_runs
                    .iter()
                    .map(|r| r.stdout.parse::<f64>().expect("milliseconds"))
                    .collect(),
            );
            println!(
                " {call:.0} ms | {} | {} | {} |",
                ms(median(python_runs.iter().map(|r| r.wall).collect())),
                ms(median(python_runs.iter().map(|r| r.cpu).collect())),
                mb(median(python_runs.iter().map(|r| r.peak_kb).collect())),
            );
        } else {
            println!(" | | | |");
        }
        if reference && python_runs.is_empty() {
            eprintln!("tokenizers refused {path}");
        }
    }
}
