//! Secret detection over real trees: the crate's own sources must produce no
//! finding, and (ignored, by hand) any directory can be scanned and timed.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use packer_collect::secrets;

/// Every regular file under `dir`, sorted, skipping `.git/` and `target/`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                let name = entry.file_name();
                if name != ".git" && name != "target" {
                    stack.push(path);
                }
            } else if kind.is_file() {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// What a scan saw: files and bytes read (text files of at most 1 MiB, as
/// `collect` reads them), time spent in [`secrets::find`] (wall clock and,
/// on Linux, this thread's CPU time), and the findings (path relative to the
/// root and rule id; never the secret).
#[derive(Default)]
struct Scan {
    files: usize,
    bytes: usize,
    time: Duration,
    cpu: Duration,
    findings: Vec<(String, &'static str)>,
}

/// This thread's CPU time so far (Linux), which a busy machine does not
/// inflate as it does the wall clock.
fn thread_cpu_time() -> Option<Duration> {
    let stat = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

fn scan(root: &Path) -> Scan {
    let mut texts = Vec::new();
    for path in files(root) {
        let Ok(bytes) = fs::read(&path) else {
            continue;
        };
        if bytes.len() > 1_048_576 || bytes.contains(&0) {
            continue;
        }
        if let Ok(text) = String::from_utf8(bytes) {
            texts.push((path, text));
        }
    }
    let mut scan = Scan {
        files: texts.len(),
        bytes: texts.iter().map(|(_, text)| text.len()).sum(),
        ..Scan::default()
    };
    let cpu = thread_cpu_time();
    let start = Instant::now();
    let found: Vec<_> = texts.iter().map(|(_, text)| secrets::find(text)).collect();
    scan.time = start.elapsed();
    if let (Some(before), Some(after)) = (cpu, thread_cpu_time()) {
        scan.cpu = after - before;
    }
    for ((path, text), found) in texts.iter().zip(found) {
        let Some(rule) = found else {
            continue;
        };
        let relative = path.strip_prefix(root).unwrap_or(path);
        // The lines that hold a finding on their own, to look at by hand (a
        // multi-line key shows no line).
        let lines: Vec<String> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| secrets::find(line).is_some())
            .map(|(number, _)| (number + 1).to_string())
            .take(5)
            .collect();
        scan.findings.push((
            format!("{} (lines {})", relative.display(), lines.join(", ")),
            rule.id,
        ));
    }
    scan
}

fn report(root: &Path, scan: &Scan) {
    let mb = scan.bytes as f64 / 1e6;
    eprintln!(
        "{}: {} files, {:.1} MB, {:.1} ms, {:.2} ms/MB ({:.2} ms/MB of CPU), {} findings",
        root.display(),
        scan.files,
        mb,
        scan.time.as_secs_f64() * 1e3,
        scan.time.as_secs_f64() * 1e3 / mb,
        scan.cpu.as_secs_f64() * 1e3 / mb,
        scan.findings.len()
    );
    for (path, rule) in &scan.findings {
        eprintln!("  {path}: {rule}");
    }
}

/// Scans the directories in `SECRETS_SCAN` (separated by `:`) and prints the
/// time per MB and every finding: `SECRETS_SCAN=/some/tree cargo test
/// --release --test secrets -- --ignored --nocapture`.
#[test]
#[ignore = "by hand: scans the directories named in SECRETS_SCAN"]
fn scan_directories_named_in_the_environment() {
    let dirs = std::env::var("SECRETS_SCAN").expect("SECRETS_SCAN=dir[:dir…]");
    for dir in dirs.split(':') {
        let root = Path::new(dir);
        // The first pass warms the caches and compiles the rules.
        scan(root);
        let scan = scan(root);
        report(root, &scan);
    }
}

/// The crate's own sources, documentation and lock file hold no secret, no
/// secret-looking file name and no credential file. The one exception is
/// the deliberate fake key `tests/mcp.rs` writes to test that a file with a
/// secret is skipped.
#[test]
fn the_crate_itself_holds_no_secret() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in [
        "src", "tests", "docs", "examples", "scripts", "python", "fuzz",
    ] {
        paths.extend(files(&root.join(dir)));
    }
    for file in ["README.md", "Cargo.lock", "Cargo.toml", "build.rs"] {
        paths.push(root.join(file));
    }
    let mut findings = Vec::new();
    let mut scanned = 0;
    for path in &paths {
        let relative = path.strip_prefix(root).unwrap().to_str().unwrap();
        if let Some(rule) = secrets::find_in_name(relative) {
            findings.push(format!("{relative}: name, {}", rule.id));
        }
        if let Some(rule) = secrets::credential_file(relative) {
            findings.push(format!("{relative}: {rule}"));
        }
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        scanned += 1;
        if let Some(rule) = secrets::find(&text) {
            findings.push(format!("{relative}: {}", rule.id));
        }
    }
    assert!(scanned > 40, "{scanned} files");
    assert_eq!(findings, ["tests/suite/mcp.rs: aws-access-token"]);
}

/// `docs/secrets.md` lists every rule (its id and description, in a table
/// row) and every credential file name and path.
#[test]
fn the_documentation_lists_every_rule_and_credential_file() {
    let docs = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/secrets.md")).unwrap();
    for rule in secrets::RULES {
        let row = format!("| `{}` | {} |", rule.id, rule.description);
        assert!(docs.contains(&row), "{row}");
    }
    for name in secrets::CREDENTIAL_NAMES
        .iter()
        .chain(secrets::CREDENTIAL_PATHS)
        .chain(secrets::CREDENTIAL_DIRECTORIES)
        .chain(secrets::PRIVATE_KEY_NAMES)
        .chain(secrets::ENV_TEMPLATE_SUFFIXES)
    {
        assert!(docs.contains(&format!("`{name}")), "{name}");
    }
}
