//! The README's examples run (its report is what the binary prints, and
//! its CI recipe prints the right message for each exit status), and so do
//! those of the reference in docs/.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[test]
fn the_readme_report_example_is_current() {
    let readme = include_str!("../../README.md");
    let command = "$ packer pack fixtures/guide.json --format report\n";
    let start = readme
        .find(command)
        .expect("the README shows the report example")
        + command.len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let output = common::packer()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["pack", "fixtures/guide.json", "--format", "report"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), block);
}

#[test]
fn the_reference_documents_every_error_code() {
    // The exit statuses (with their codes) are in the README, the rest in
    // docs/errors.md.
    let errors = [
        include_str!("../../README.md"),
        include_str!("../../docs/errors.md"),
    ]
    .concat();
    let codes = [
        "unreadable-input",
        "input-too-large",
        "invalid-utf8",
        "invalid-json",
        "unpaired-surrogate",
        "invalid-schema",
        "unknown-encoding",
        "invalid-budget",
        "too-many-documents",
        "invalid-id",
        "duplicate-id",
        "invalid-url",
        "invalid-path",
        "invalid-config",
        "url-credentials",
        "unsupported-format",
        "blank-content",
        "truncated-document",
        "empty-envelope-does-not-fit",
        "required-does-not-fit",
        "unknown-model",
        "payload-out-is-input",
        "payload-out-is-link",
        "payload-out-is-stdout",
        "empty-query",
        "output-failed",
        "payload-out-failed",
        "out-dir-refused",
        "out-dir-failed",
    ];
    for code in codes {
        assert!(
            errors.contains(&format!("`{code}`")),
            "{code} is in neither the README nor docs/errors.md"
        );
    }
}

/// The shell recipe under "In a CI script", run with `sh` on a capture
/// that packs, one that is malformed (exit 3) and one whose required
/// document does not fit (exit 4).
#[test]
fn the_readme_ci_recipe_prints_the_right_message_for_each_exit_status() {
    let readme = include_str!("../../README.md");
    let intro = "In a CI script, fail the job when the evidence does not fit:\n\n```sh\n";
    let start = readme.find(intro).expect("the README has the CI recipe") + intro.len();
    let recipe = &readme[start..start + readme[start..].find("```").unwrap()];
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_packer"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |fixture: &str| {
        std::fs::copy(root.join(fixture), dir.join("capture.json")).unwrap();
        let output = Command::new("sh")
            .args(["-c", recipe])
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (status, stdout, stderr) = run("fixtures/guide.json");
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stdout, "left out: faq\nleft out: reference\n");
    let (status, stdout, stderr) = run("fixtures/invalid/several-problems.json");
    assert_eq!((status, stdout.as_str()), (1, ""));
    // packer's own lines, then the recipe's message and the problems.
    let (own, recipe_says) = stderr.split_once("the capture is malformed:\n").unwrap();
    assert_eq!(own.lines().count(), 7, "{stderr}");
    assert_eq!(recipe_says.lines().count(), 7, "{stderr}");
    assert!(recipe_says.starts_with("the fixture has a field the schema does not allow"));
    let (status, stdout, stderr) = run("fixtures/required-does-not-fit.json");
    assert_eq!((status, stdout.as_str()), (1, ""));
    assert!(
        stderr.starts_with("error[required-does-not-fit]: "),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("\nrequired evidence does not fit: short by 67 tokens\n"),
        "{stderr}"
    );
}

/// Every `$ packer ...` example in docs/envelopes.md prints exactly what
/// follows it (an output without a final newline is shown with one).
#[test]
fn the_envelope_examples_are_current() {
    let docs = include_str!("../../docs/envelopes.md");
    let mut checked = 0;
    for block in docs.split("`````\n$ packer ").skip(1) {
        let (command, rest) = block.split_once('\n').unwrap();
        let shown = &rest[..rest.find("`````").unwrap()];
        let output = common::packer()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(command.split(' '))
            .output()
            .unwrap();
        assert!(output.status.success(), "{command}");
        let mut printed = String::from_utf8(output.stdout).unwrap();
        if !printed.ends_with('\n') {
            printed.push('\n');
        }
        assert_eq!(printed, shown, "{command}");
        checked += 1;
    }
    assert_eq!(checked, 3, "docs/envelopes.md shows three examples");
}

/// Every `packer pack --dir` example of the README, run on this repository
/// (a real tree), packs what a user would send: within the budget, the
/// README first (with `--outline`, when it fits the share of whole files)
/// and the manifest (when it fits) before any source, source before tests,
/// and mostly source. `--format` becomes `json` to read the decisions, and
/// files the example writes go to a temporary directory; examples fed a
/// file list from a pipe (`--files-from -`) and placeholders (`DIR`, `N`)
/// are not run.
#[test]
fn the_readme_directory_examples_pack_what_a_user_would_send() {
    let readme = include_str!("../../README.md");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("readme-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let issue = dir.join("issue.txt");
    std::fs::write(
        &issue,
        "The outline of a TypeScript class exported under an alias shows no members.\n",
    )
    .unwrap();
    let mut commands = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_shell = line == "```sh";
            continue;
        }
        if !in_shell {
            continue;
        }
        let line = line.trim_start_matches("$ ");
        if pending.is_empty() && !line.starts_with("packer pack --dir") {
            continue;
        }
        match line.strip_suffix('\\') {
            Some(start) => pending.push_str(start),
            None => {
                pending.push_str(line);
                commands.push(std::mem::take(&mut pending));
            }
        }
    }
    // Each example a process, all at once.
    let mut runs = Vec::new();
    let mut ran = 0;
    for command in &commands {
        let words: Vec<&str> = command.split_whitespace().collect();
        let budget_given = words
            .windows(2)
            .any(|w| w[0] == "--budget" && w[1].parse::<u64>().is_ok());
        if !budget_given || words.contains(&"--files-from") {
            continue;
        }
        let mut args: Vec<String> = Vec::new();
        let mut words = words[1..].iter();
        while let Some(&word) = words.next() {
            match word {
                "--format" => {
                    words.next();
                    args.extend(["--format".into(), "json".into()]);
                }
                "--payload-out" => {
                    let name = words.next().unwrap();
                    args.extend(["--payload-out".into(), dir.join(name).display().to_string()]);
                }
                "--query-file" => {
                    words.next();
                    args.extend(["--query-file".into(), issue.display().to_string()]);
                }
                "--dir" => {
                    words.next();
                    args.extend(["--dir".into(), ".".into()]);
                }
                "|" | ">" => break,
                word => args.push(word.to_owned()),
            }
        }
        if !args.iter().any(|a| a == "--format") {
            args.extend(["--format".into(), "json".into()]);
        }
        let child = common::packer()
            .current_dir(root)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        runs.push((command, child));
    }
    for (command, output) in runs {
        let output = output.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{command}: {stderr}");
        let pack: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(pack["usedTokens"].as_u64() <= pack["availableTokens"].as_u64());
        let ids: Vec<&str> = pack["selectedIds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap())
            .filter(|id| *id != "tree:/")
            .collect();
        let is_test = |id: &&str| id.starts_with("tests/") || id.contains("/tests/");
        let is_source = |id: &&str| id.ends_with(".rs") && !is_test(id);
        let first_source = ids.iter().position(is_source).expect("some source");
        if !command.contains("--query") {
            // With --outline the README (about 12,000 tokens) may pass the
            // share whole files get at 32k; when it is in, it is first.
            let readme_in = ids.contains(&"README.md");
            if readme_in || !command.contains("--outline") {
                assert_eq!(ids[0], "README.md", "{command}");
            }
            let manifest = ids.iter().position(|id| *id == "Cargo.toml");
            assert!(
                manifest.is_none_or(|at| at < first_source),
                "{command}: {ids:?}"
            );
        }
        assert!(
            ids.iter()
                .position(is_test)
                .is_none_or(|test| test > first_source),
            "{command}: {ids:?}"
        );
        let source = ids.iter().filter(|id| is_source(id)).count();
        assert!(2 * source > ids.len(), "{command}: {ids:?}");
        ran += 1;
    }
    assert!(ran >= 4, "{ran} of {commands:?}");
}
