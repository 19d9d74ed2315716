//! The README's examples run (its report is what the binary prints, and
//! its CI recipe prints the right message for each exit status), and so do
//! those of the reference in docs/.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

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
