//! The README's example output is what the binary prints.

use std::process::Command;

#[test]
fn the_readme_report_example_is_current() {
    let readme = include_str!("../README.md");
    let command = "$ packer pack fixtures/guide.json --format report\n";
    let start = readme
        .find(command)
        .expect("the README shows the report example")
        + command.len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    let output = Command::new(env!("CARGO_BIN_EXE_packer"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["pack", "fixtures/guide.json", "--format", "report"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), block);
}

#[test]
fn the_readme_documents_every_error_code() {
    let readme = include_str!("../README.md");
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
        "url-credentials",
        "unsupported-format",
        "blank-content",
        "truncated-document",
        "empty-envelope-does-not-fit",
        "required-does-not-fit",
        "unknown-model",
        "payload-out-is-input",
        "output-failed",
        "payload-out-failed",
    ];
    for code in codes {
        assert!(
            readme.contains(&format!("`{code}`")),
            "{code} is not in the README"
        );
    }
}
