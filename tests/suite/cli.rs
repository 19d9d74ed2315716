//! The `packer` binary, black box: exit codes and whole stdout/stderr.

use crate::common::{self, Run};

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the repository root with a clean environment.
fn packer() -> Command {
    common::packer()
}

fn exec(args: &[&str]) -> Run {
    exec_with_stdin(args, b"")
}

fn exec_with_stdin(args: &[&str], stdin: &[u8]) -> Run {
    common::run(args, stdin)
}

fn ok(args: &[&str]) -> String {
    let run = exec(args);
    assert_eq!(run.status, 0, "{args:?}: {}", run.stderr);
    assert_eq!(run.stderr, "");
    run.stdout
}

#[test]
fn packs_the_guide_as_json() {
    insta::assert_snapshot!(ok(&["pack", "fixtures/guide.json"]));
}

#[test]
fn packs_the_guide_as_a_summary() {
    insta::assert_snapshot!(ok(&["pack", "fixtures/guide.json", "--format", "summary"]));
}

#[test]
fn packs_the_guide_as_a_report() {
    insta::assert_snapshot!(ok(&["pack", "fixtures/guide.json", "--format", "report"]));
}

#[test]
fn prints_the_payload_alone_without_a_newline() {
    let payload = ok(&["pack", "fixtures/guide.json", "--format", "payload"]);
    assert!(payload.ends_with("]}"));
    insta::assert_snapshot!(payload);
}

#[test]
fn reports_every_policy() {
    insta::assert_snapshot!(
        "priority",
        ok(&[
            "pack",
            "fixtures/priority.json",
            "--policy",
            "priority",
            "--format",
            "report"
        ])
    );
    insta::assert_snapshot!(
        "max_fill",
        ok(&[
            "pack",
            "fixtures/max-fill-beats-in-order.json",
            "--policy",
            "max-fill",
            "--format",
            "report"
        ])
    );
    insta::assert_snapshot!(
        "required",
        ok(&["pack", "fixtures/required-first.json", "--format", "report"])
    );
}

#[test]
fn the_report_escapes_ids_that_could_repaint_the_terminal() {
    let report = ok(&["pack", "fixtures/hostile-ids.json", "--format", "report"]);
    for c in ['\u{202E}', '\u{200B}', '\u{2066}', '\u{1b}'] {
        assert!(!report.contains(c), "{c:?} reached the terminal");
    }
    insta::assert_snapshot!(report);
    // JSON output stays exact.
    let json = ok(&["pack", "fixtures/hostile-ids.json", "--format", "summary"]);
    assert!(json.contains("invoice\u{202E}gpj.exe"));
}

#[test]
fn max_fill_says_whether_it_is_proven_optimal() {
    let summary = ok(&[
        "pack",
        "fixtures/max-fill-beats-in-order.json",
        "--policy",
        "max-fill",
        "--format",
        "summary",
    ]);
    insta::assert_snapshot!(summary);
}

#[test]
fn notes_omissions_inside_the_payload() {
    insta::assert_snapshot!(ok(&[
        "pack",
        "fixtures/guide.json",
        "--note-omissions",
        "--context-tokens",
        "364",
        "--format",
        "payload"
    ]));
}

#[test]
fn reads_the_fixture_from_standard_input() {
    let bytes = fs::read(root().join("fixtures/guide.json")).unwrap();
    let from_stdin = exec_with_stdin(&["pack", "-"], &bytes);
    assert_eq!(from_stdin.status, 0);
    assert_eq!(from_stdin.stdout, ok(&["pack", "fixtures/guide.json"]));
}

#[test]
fn flags_override_the_budget_and_encoding() {
    let summary = ok(&[
        "pack",
        "fixtures/guide.json",
        "--context-tokens",
        "1000",
        "--model",
        "gpt-4o",
        "--format",
        "summary",
    ]);
    insta::assert_snapshot!(summary);
}

#[test]
fn validates_a_fixture_in_one_line() {
    insta::assert_snapshot!(ok(&["validate", "fixtures/guide.json"]), @"valid: 5 documents, 0 required, encoding cl100k_base, 112 tokens available");
}

#[test]
fn counts_raw_text_exactly() {
    let run = exec_with_stdin(&["count"], "hello <|endoftext|> world".as_bytes());
    assert_eq!((run.status, run.stdout.as_str()), (0, "8\n"));
    let run = exec_with_stdin(
        &["count", "--encoding", "r50k_base", "-"],
        "hello <|endoftext|> world".as_bytes(),
    );
    assert_eq!((run.status, run.stdout.as_str()), (0, "9\n"));
    let run = exec_with_stdin(&["count"], b"\xff");
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[invalid-utf8]: the input is not valid UTF-8 at byte 0; packer reads UTF-8 only\n"
    );
}

#[test]
fn lists_the_encodings() {
    insta::assert_snapshot!(ok(&["encodings"]));
}

#[test]
fn help_lists_the_exit_codes() {
    insta::assert_snapshot!("help", ok(&["--help"]));
    insta::assert_snapshot!("pack_help", ok(&["pack", "--help"]));
}

#[test]
fn packs_a_long_page_as_a_labelled_excerpt() {
    let args = [
        "pack",
        "fixtures/excerpt-long-page.json",
        "--excerpt-query",
        "exit code, required",
    ];
    let report = ok(&[&args[..], &["--format", "report"]].concat());
    insta::assert_snapshot!("excerpt_report", report);
    let json = ok(&args);
    insta::assert_snapshot!("excerpt_json", json);
    // Without the flag the page is skipped whole.
    let summary = ok(&[
        "pack",
        "fixtures/excerpt-long-page.json",
        "--format",
        "summary",
    ]);
    assert!(summary.contains(
        r#""id": "readme",
      "reason": "whole-document-does-not-fit""#
    ));
    assert!(!summary.contains("excerptIds"));
}

#[test]
fn focuses_a_text_on_a_query() {
    let run = exec_with_stdin(
        &["focus", "--query", "needle", "--context", "1"],
        b"one\ntwo\nthe needle\nfour\nfive\nsix\n",
    );
    assert_eq!(run.status, 0);
    assert_eq!(run.stdout, "[...]\ntwo\nthe needle\nfour\n[...]\n");
    // A final newline ends the last line: no gap after it.
    let run = exec_with_stdin(
        &["focus", "--query", "ff", "--context", "0"],
        b"aa\nbb\ncc\ndd\nee\nff\n",
    );
    assert_eq!(run.stdout, "[...]\nff\n");
    // Without a query, the text comes back byte for byte.
    for text in [&b"a\nb"[..], b"a\r\nb\r\n"] {
        assert_eq!(exec_with_stdin(&["focus"], text).stdout.as_bytes(), text);
    }
    // CRLF text gets CRLF gap lines.
    let run = exec_with_stdin(
        &["focus", "--query", "hit", "--context", "0"],
        b"a\r\nhit\r\nb\r\n",
    );
    assert_eq!(run.stdout, "[...]\r\nhit\r\n[...]\r\n");
    // A query without a usable term is a usage error.
    let run = exec_with_stdin(&["focus", "--query", "a b"], b"a b\n");
    assert_eq!((run.status, run.stdout.as_str()), (2, ""));
    assert!(
        run.stderr
            .lines()
            .last()
            .unwrap()
            .starts_with("error[usage]: ")
    );
    let run = exec_with_stdin(&["focus", "--query", "absent"], b"one\ntwo");
    assert_eq!(
        run.stdout,
        "[no line matches the query in 7 characters; try other terms]\n"
    );
    insta::assert_snapshot!(ok(&[
        "focus",
        "fixtures/focus-page.md",
        "--query",
        "exit code",
        "--context",
        "2",
        "--max-chars",
        "600"
    ]));
}

#[test]
fn collects_a_directory_and_reports_every_skipped_file() {
    let dir = tempdir();
    let tree = dir.join("tree");
    for sub in ["docs/deep", "ignored", ".hidden"] {
        fs::create_dir_all(tree.join(sub)).unwrap();
    }
    fs::write(tree.join(".gitignore"), "ignored/\n*.log\n").unwrap();
    fs::write(tree.join("README.md"), "# Project\nHello.\n").unwrap();
    fs::write(tree.join("docs/deep/notes with space.txt"), "Notes.\n").unwrap();
    fs::write(tree.join("docs/guide.markdown"), "Guide.\n").unwrap();
    fs::write(tree.join("ignored/secret.txt"), "ignored\n").unwrap();
    fs::write(tree.join("debug.log"), "ignored\n").unwrap();
    fs::write(tree.join(".hidden/x.txt"), "hidden\n").unwrap();
    fs::write(tree.join("image.bin"), [0u8, 1, 2, 3]).unwrap();
    fs::write(tree.join("latin1.txt"), [b'c', b'a', b'f', 0xE9]).unwrap();
    fs::write(tree.join("blank.txt"), " \n\t\n").unwrap();
    fs::write(tree.join("big.txt"), "x".repeat(2000)).unwrap();
    let tree_arg = tree.to_str().unwrap();
    let run = exec(&[
        "collect",
        tree_arg,
        "--base-url",
        "https://example.com/repo/",
        "--max-file-bytes",
        "1000",
        "--context-tokens",
        "500",
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "skipped big.txt: larger than --max-file-bytes\n\
         skipped blank.txt: empty or only whitespace\n\
         skipped image.bin: binary (contains a NUL byte)\n\
         skipped latin1.txt: not UTF-8\n"
    );
    insta::assert_snapshot!("collected_fixture", run.stdout);
    // It packs end to end.
    let packed = exec_with_stdin(
        &[
            "pack",
            "-",
            "--policy",
            "priority",
            "--format",
            "report",
            "--reserved-other-input-tokens",
            "0",
            "--reserved-output-tokens",
            "0",
            "--safety-tokens",
            "0",
        ],
        run.stdout.as_bytes(),
    );
    assert_eq!(packed.status, 0, "{}", packed.stderr);
    insta::assert_snapshot!("collected_report", packed.stdout);
    let globbed = exec(&[
        "collect",
        tree_arg,
        "--base-url",
        "https://example.com/",
        "--glob",
        "*.md",
    ]);
    assert!(globbed.stdout.contains("README.md"));
    assert!(!globbed.stdout.contains("guide.markdown"));
    let bad = exec(&["collect", tree_arg, "--base-url", "ftp://example.com/"]);
    assert_eq!(bad.status, 2);
    assert!(bad.stderr.starts_with("error[invalid-base-url]"));
}

#[test]
fn prints_completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = ok(&["completions", shell]);
        assert!(script.contains("note-omissions"), "{shell}");
        insta::assert_snapshot!(format!("completions_{shell}"), script);
    }
}

#[test]
fn prints_the_man_page() {
    let page = ok(&["man"]);
    assert!(page.starts_with(".ie"), "{page}");
    insta::assert_snapshot!(page);
}

#[test]
fn an_empty_selection_is_success() {
    let summary = ok(&["pack", "fixtures/no-documents.json", "--format", "payload"]);
    assert_eq!(summary, r#"{"documents":[]}"#);
}

#[test]
fn what_does_not_fit_exits_4_and_says_by_how_much() {
    for (name, fixture) in [
        (
            "required_does_not_fit",
            "fixtures/required-does-not-fit.json",
        ),
        (
            "empty_envelope_does_not_fit",
            "fixtures/empty-envelope-does-not-fit.json",
        ),
    ] {
        let run = exec(&["pack", fixture]);
        assert_eq!(run.status, 4);
        assert_eq!(run.stderr.lines().count(), 1);
        insta::assert_snapshot!(name, run.stderr);
        insta::assert_snapshot!(format!("{name}_json"), run.stdout);
        let summary = exec(&["pack", fixture, "--format", "summary"]);
        assert_eq!(summary.stdout, run.stdout);
        let report = exec(&["pack", fixture, "--format", "report"]);
        assert_eq!(report.status, 4);
        insta::assert_snapshot!(format!("{name}_report"), report.stdout);
        let payload = exec(&["pack", fixture, "--format", "payload"]);
        assert_eq!((payload.status, payload.stdout.as_str()), (4, ""));
        // validate refuses the same way.
        let validate = exec(&["validate", fixture]);
        assert_eq!((validate.status, validate.stdout.as_str()), (4, ""));
        assert_eq!(validate.stderr, run.stderr);
    }
}

#[test]
fn says_when_the_omission_notes_are_what_does_not_fit() {
    let args = [
        "pack",
        "fixtures/guide.json",
        "--note-omissions",
        "--context-tokens",
        "100",
        "--reserved-other-input-tokens",
        "0",
        "--reserved-output-tokens",
        "0",
        "--safety-tokens",
        "0",
        "--format",
        "summary",
    ];
    let run = exec(&args);
    assert_eq!(run.status, 4);
    insta::assert_snapshot!(run.stderr);
}

#[test]
fn validate_refuses_a_budget_with_nothing_available() {
    let run = exec(&["validate", "fixtures/guide.json", "--context-tokens", "144"]);
    assert_eq!(run.status, 4);
    assert!(
        run.stderr
            .starts_with("error[empty-envelope-does-not-fit]: the empty envelope needs 4 tokens but only 0 are available (short by 4)"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_flags_exit_2() {
    for args in [
        &["pack", "fixtures/guide.json", "--policy", "best"][..],
        &["pack", "fixtures/guide.json", "--model", "no-such-model"],
        &["pack", "fixtures/guide.json", "--encoding", "gpt2"],
        &["pack"],
        &["frobnicate"],
    ] {
        let run = exec(args);
        assert_eq!(run.status, 2, "{args:?}");
        assert_eq!(run.stdout, "");
    }
    let run = exec(&["pack", "fixtures/guide.json", "--model", "no-such-model"]);
    assert_eq!(
        run.stderr,
        "error[unknown-model]: the model has no known encoding; give --encoding instead (see `packer encodings`)\n"
    );
}

/// The object printed on standard output for invalid input.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ErrorList {
    errors: Vec<ErrorRecord>,
    #[serde(default)]
    more_errors: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ErrorRecord {
    code: String,
    message: String,
    document: Option<usize>,
    field: Option<String>,
    line: Option<usize>,
    column: Option<usize>,
}

/// Every invalid fixture: exit 3, one `error[CODE]` line per problem on
/// standard error and the same problems as `{"errors":[...]}` on standard
/// output, nothing of the capture echoed, and the file unchanged.
#[test]
fn refuses_every_invalid_fixture_cleanly() {
    let mut paths: Vec<PathBuf> = fs::read_dir(root().join("fixtures/invalid"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 55);
    let mut table = String::new();
    for path in &paths {
        let before = fs::read(path).unwrap();
        let relative = path.strip_prefix(root()).unwrap().to_str().unwrap();
        let run = exec(&["pack", relative]);
        assert_eq!(run.status, 3, "{relative}: {}", run.stderr);
        for output in [&run.stdout, &run.stderr] {
            assert!(
                !output.contains("SECRET"),
                "{relative} echoed the capture: {output}"
            );
            assert!(!output.contains("example.com"), "{relative}: {output}");
        }
        let list: ErrorList = serde_json::from_str(&run.stdout).unwrap();
        let lines: Vec<&str> = run.stderr.lines().collect();
        assert_eq!(
            lines.len(),
            list.errors.len() + usize::from(list.more_errors > 0),
            "{relative}"
        );
        for (line, record) in lines.iter().zip(&list.errors) {
            assert_eq!(*line, format!("error[{}]: {}", record.code, record.message));
            if let (Some(l), Some(c)) = (record.line, record.column) {
                assert!(
                    record.message.contains(&format!("line {l} column {c}")),
                    "{relative}: {}",
                    record.message
                );
            }
            if let Some(document) = record.document {
                assert!(record.message.contains(&format!("documents[{document}]")));
            }
            assert!(record.field.as_ref().is_none_or(|f| !f.is_empty()));
        }
        // Nothing on standard output for the payload format.
        let quiet = exec(&["pack", relative, "--format", "payload"]);
        assert_eq!((quiet.status, quiet.stdout.as_str()), (3, ""), "{relative}");
        assert_eq!(quiet.stderr, run.stderr);
        assert_eq!(fs::read(path).unwrap(), before, "{relative} changed");
        let name = path.file_name().unwrap().to_str().unwrap();
        table.push_str(&format!("{name}:\n{}", run.stderr));
    }
    insta::assert_snapshot!(table);
}

/// A fixture with several independent problems reports each one, with its
/// document, field, line and column.
#[test]
fn reports_every_independent_problem_as_json() {
    let run = exec(&[
        "pack",
        "fixtures/invalid/several-problems.json",
        "--format",
        "summary",
    ]);
    assert_eq!(run.status, 3);
    insta::assert_snapshot!("several_problems_stdout", run.stdout);
    let list: ErrorList = serde_json::from_str(&run.stdout).unwrap();
    let found: Vec<(&str, Option<usize>, Option<&str>)> = list
        .errors
        .iter()
        .map(|e| (e.code.as_str(), e.document, e.field.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            ("invalid-schema", None, None),
            ("invalid-url", Some(0), Some("url")),
            ("blank-content", Some(0), Some("content")),
            ("invalid-schema", Some(1), None),
            ("invalid-schema", Some(1), Some("priority")),
            ("unsupported-format", Some(2), Some("format")),
            ("truncated-document", Some(2), Some("truncated")),
        ]
    );
    assert!(list.errors[4].message.contains("from -1000 to 1000"));
    let run = exec(&[
        "pack",
        "fixtures/invalid/more-than-twenty-problems.json",
        "--format",
        "json",
    ]);
    let list: ErrorList = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((list.errors.len(), list.more_errors), (20, 5));
}

#[test]
fn refuses_an_oversized_input_from_a_file_and_from_stdin() {
    let dir = tempdir();
    let big = dir.join("big.json");
    fs::write(&big, vec![b' '; 1_048_577]).unwrap();
    let run = exec(&["pack", big.to_str().unwrap()]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[input-too-large]: the input is 1048577 bytes, more than the limit of 1048576; raise --max-input-bytes to accept it\n"
    );
    let run = exec_with_stdin(&["pack", "-", "--max-input-bytes", "100"], &[b' '; 5000]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[input-too-large]: the input is larger than the limit of 100 bytes; raise --max-input-bytes to accept it\n"
    );
}

#[test]
fn refuses_a_missing_or_unreadable_input() {
    let run = exec(&["pack", "fixtures/no-such-file.json", "--format", "payload"]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[unreadable-input]: no such file: fixtures/no-such-file.json\n"
    );
    let run = exec(&["validate", "fixtures"]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[unreadable-input]: fixtures is a directory, not a file\n"
    );
}

#[test]
fn usage_errors_end_with_one_coded_line() {
    for args in [
        &["pack", "fixtures/guide.json", "--context-tokens", "-5"][..],
        &["pack", "fixtures/guide.json", "--polcy", "priority"],
        &["pack"],
        &["pack", "fixtures/guide.json", "--format", "xml"],
    ] {
        let run = exec(args);
        assert_eq!((run.status, run.stdout.as_str()), (2, ""), "{args:?}");
        let last = run.stderr.lines().last().unwrap();
        assert!(
            last.starts_with("error[usage]: "),
            "{args:?}: {}",
            run.stderr
        );
        assert_eq!(run.stderr.matches("error[usage]").count(), 1);
        assert!(!run.stderr.contains("-- -5"), "{}", run.stderr);
    }
    let run = exec(&["pack", "fixtures/guide.json", "--context-tokens", "-5"]);
    insta::assert_snapshot!(run.stderr);
}

#[test]
fn writes_the_exact_payload_to_a_file_and_never_over_the_input() {
    let dir = tempdir();
    let out = dir.join("payload.json");
    let stdout = ok(&[
        "pack",
        "fixtures/guide.json",
        "--payload-out",
        out.to_str().unwrap(),
    ]);
    #[derive(Deserialize)]
    struct Output {
        #[serde(rename = "payloadText")]
        payload_text: String,
    }
    let output: Output = serde_json::from_str(&stdout).unwrap();
    assert_eq!(fs::read_to_string(&out).unwrap(), output.payload_text);

    let input = dir.join("fixture.json");
    fs::copy(root().join("fixtures/guide.json"), &input).unwrap();
    let before = fs::read(&input).unwrap();
    let run = exec(&[
        "pack",
        input.to_str().unwrap(),
        "--payload-out",
        input.to_str().unwrap(),
    ]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.starts_with("error[payload-out-is-input]"));
    assert_eq!(fs::read(&input).unwrap(), before);
}

#[test]
fn a_closed_output_pipe_is_success() {
    let dir = tempdir();
    let fixture = dir.join("large.json");
    let content = "word ".repeat(200_000);
    let text = format!(
        r#"{{"budget":{{"contextTokens":1000000,"reservedOtherInputTokens":0,"reservedOutputTokens":0,"safetyTokens":0}},"documents":[{{"id":"a","url":"https://example.com/a","format":"text","content":"{content}","truncated":false}}]}}"#
    );
    fs::write(&fixture, text).unwrap();
    let mut child = packer()
        .args([
            "pack",
            fixture.to_str().unwrap(),
            "--format",
            "payload",
            "--max-input-bytes",
            "2000000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// A fresh directory under the target directory.
fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "cli-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The report aligns columns by display width (CJK, emoji, ZWJ sequences),
/// ends long ids with an ellipsis, wraps at `COLUMNS`, and its tokens
/// column adds up to `usedTokens`.
#[test]
fn the_report_aligns_wide_ids_wraps_and_adds_up() {
    use unicode_width::UnicodeWidthStr;
    let args = ["pack", "fixtures/wide-ids.json", "--format", "report"];
    let wide = ok(&args);
    insta::assert_snapshot!("wide_ids_report", wide);
    // Every row's tokens column ends at the same display column.
    let rows: Vec<&str> = wide
        .lines()
        .filter(|line| line.starts_with("IN ") || line.starts_with("out "))
        .collect();
    assert_eq!(rows.len(), 6);
    let header = wide
        .lines()
        .find(|l| l.contains("tokens  content"))
        .unwrap();
    let end = header[..header.find("tokens").unwrap() + "tokens".len()].width();
    let mut sum = 0i64;
    for row in &rows {
        let (before, _) = split_at_width(row, end);
        let cell = before.split_whitespace().last().unwrap();
        if let Ok(tokens) = cell.parse::<i64>() {
            sum += tokens;
        } else {
            assert_eq!(cell, "-", "{row}");
        }
    }
    assert!(wide.contains("a-very-long-identifier-for-a-do…"));
    let envelope = wide.lines().find(|l| l.contains("(envelope)")).unwrap();
    sum += envelope
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<i64>()
        .unwrap();
    assert!(wide.contains(&format!("payload {sum} tokens of 180 available")));

    let output = assert_cmd::Command::from_std(packer())
        .args(args)
        .env("COLUMNS", "60")
        .output()
        .unwrap();
    let narrow = String::from_utf8(output.stdout).unwrap();
    for line in narrow.lines() {
        assert!(line.width() <= 60, "{line:?} is wider than 60 columns");
    }
    insta::assert_snapshot!("wide_ids_report_60_columns", narrow);
}

/// The shortest prefix of `text` that is `width` display columns wide (as
/// a whole string, so that an emoji ZWJ sequence counts once).
fn split_at_width(text: &str, width: usize) -> (&str, &str) {
    use unicode_width::UnicodeWidthStr;
    text.char_indices()
        .map(|(at, _)| at)
        .find(|&at| text[..at].width() >= width)
        .map_or((text, ""), |at| text.split_at(at))
}

#[test]
fn model_names_are_case_insensitive_and_unknown_ones_get_suggestions() {
    let run = exec_with_stdin(&["count", "--model", "GPT-4o"], b"hello");
    assert_eq!((run.status, run.stdout.as_str()), (0, "1\n"));
    let run = exec_with_stdin(&["count", "--model", "gpt4o"], b"hello");
    assert_eq!(run.status, 2);
    assert_eq!(
        run.stderr,
        "error[unknown-model]: the model has no known encoding; give --encoding instead (see `packer encodings`); nearest known models: gpt-4o, gpt-4, gpt-4.1\n"
    );
}

/// SPEC §2.2.1: Claude and Gemini have no public tokenizer: refused as
/// `unknown-model` with what to do instead, never counted with another
/// model's encoding (by count, pack or validate, in any letter case or
/// behind an API route).
#[test]
fn claude_and_gemini_models_are_refused_with_guidance() {
    for (model, endpoint) in [
        ("claude-sonnet-4", "count_tokens"),
        ("Claude-3-5-Haiku-20241022", "count_tokens"),
        ("anthropic.claude-3-sonnet-20240229-v1:0", "count_tokens"),
        ("gemini-2.5-pro", "countTokens"),
        ("models/gemini-1.5-flash", "countTokens"),
    ] {
        for args in [
            &["count", "--model", model][..],
            &["pack", "fixtures/guide.json", "--model", model],
            &["validate", "fixtures/guide.json", "--model", model],
        ] {
            let run = exec_with_stdin(args, b"hello");
            assert_eq!((run.status, run.stdout.as_str()), (2, ""), "{args:?}");
            assert!(
                run.stderr
                    .starts_with("error[unknown-model]: no exact offline token count exists for "),
                "{}",
                run.stderr
            );
            assert!(run.stderr.contains(endpoint), "{}", run.stderr);
            assert!(
                run.stderr.contains("keep a margin with --safety-tokens"),
                "{}",
                run.stderr
            );
            assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        }
    }
    let run = exec_with_stdin(&["count", "--model", "gemini-2.0-flash"], b"hello");
    assert!(
        run.stderr
            .contains("Gemma's tokenizer file is not Gemini's"),
        "{}",
        run.stderr
    );
}

#[test]
fn payload_out_dash_is_refused() {
    let run = exec(&["pack", "fixtures/guide.json", "--payload-out", "-"]);
    assert_eq!((run.status, run.stdout.as_str()), (2, ""));
    assert!(run.stderr.starts_with("error[payload-out-is-stdout]: "));
    assert!(!root().join("-").exists());
}

/// On a terminal (a pseudo-terminal made by `script`), reading the fixture
/// from standard input says so, and the default output is the report.
#[test]
fn hints_on_a_terminal() {
    let Ok(script) = which("script") else {
        panic!("the tests need util-linux `script` to make a terminal");
    };
    let binary = env!("CARGO_BIN_EXE_packer");
    let run = |command: String| {
        let output = Command::new(&script)
            .args(["-qec", &command, "/dev/null"])
            .env_remove("COLUMNS")
            .current_dir(root())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let report = run(format!("{binary} pack fixtures/guide.json --format report"));
    let text = run(format!("{binary} pack fixtures/guide.json"));
    assert!(
        text.contains("usedTokens") || text.contains("used"),
        "{text}"
    );
    assert!(!text.trim_start().starts_with('{'), "{text}");
    assert_eq!(text, report);
    // Asked for, JSON still goes to the terminal.
    let text = run(format!("{binary} pack fixtures/guide.json --format json"));
    assert!(text.trim_start().starts_with('{'), "{text}");
    assert!(!text.contains("hint:"), "{text}");
    // Standard input is the terminal; `script` closes it at once.
    let text = run(format!("{binary} pack - --format summary"));
    assert!(
        text.starts_with(
            "reading from standard input (a terminal): paste the text, then press Ctrl-D"
        ),
        "{text}"
    );
    // Not on a terminal: no hint at all, and JSON by default.
    let run = exec(&["pack", "-"]);
    assert!(!run.stderr.contains("terminal"), "{}", run.stderr);
    assert!(ok(&["pack", "fixtures/guide.json"]).starts_with("{\n"));
}

/// A capture's priorities under a policy that does not use them are named,
/// with the policy that does.
#[test]
fn priorities_the_policy_ignores_are_named() {
    let run = exec(&["pack", "fixtures/priority.json", "--format", "summary"]);
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stderr,
        "note: 5 of 6 documents carry a priority, which the in-order policy does not use; \
         --policy priority tries them by priority first\n"
    );
    let run = exec(&["pack", "fixtures/priority.json", "--policy", "priority"]);
    assert_eq!((run.status, run.stderr.as_str()), (0, ""));
}

fn which(name: &str) -> Result<PathBuf, ()> {
    ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|dir| Path::new(dir).join(name))
        .find(|path| path.exists())
        .ok_or(())
}

/// A first run that gives `pack` the wrong thing is told what to run
/// instead, on the line before the error (the error stays the last line).
#[test]
fn first_mistakes_are_told_what_to_run_instead() {
    let run = exec(&["pack", "README.md", "--format", "report"]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "hint: README.md is not a fixture (a JSON capture of documents); to pack files, give \
         their directory: packer pack --dir DIR --budget N (--files-from LIST for some of them), \
         or write a fixture with packer collect DIR\n\
         error[invalid-json]: the input is not valid JSON at line 1 column 1: expected a value (a \
         string in double quotes, a number, an object, an array, true, false or null)\n"
    );
    let run = exec(&["pack", "fixtures/plain-directory", "--format", "report"]);
    assert_eq!(run.status, 3);
    assert!(
        run.stderr.starts_with(
            "hint: to pack the files of a directory, run packer pack --dir fixtures/plain-directory --budget N\n"
        ),
        "{}",
        run.stderr
    );
    // A fixture that is JSON but wrong gets no hint.
    let run = exec_with_stdin(&["pack", "-", "--format", "report"], b"{}");
    assert!(!run.stderr.contains("hint:"), "{}", run.stderr);
    // --dir without a budget names the flags and the config key, before
    // walking anything (the directory does not even exist).
    let run = exec(&["pack", "--dir", "no/such/dir", "--format", "report"]);
    assert_eq!(run.status, 3);
    assert_eq!(
        run.stderr,
        "error[invalid-budget]: packing a directory needs a budget: give --budget N (the payload \
         may use N tokens), or --context-tokens N with the reservations you need, or write \
         budget = N in the directory's packer.toml (packer init DIR writes one)\n"
    );
    // An empty --files-from list, or one of which nothing is collected, is
    // a warning; the (empty) pack still succeeds.
    let listed = |list: &[u8]| {
        exec_with_stdin(
            &[
                "pack",
                "--dir",
                "fixtures/plain-directory",
                "--files-from",
                "-",
                "--budget",
                "100",
                "--format",
                "summary",
            ],
            list,
        )
    };
    let run = listed(b"");
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stderr,
        "warning: the --files-from list names no file; nothing is collected\n"
    );
    let run = listed(b"gone.rs\n");
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stderr,
        "skipped gone.rs: does not exist\n\
         warning: no path of the --files-from list (1 listed) became a document; the lines above \
         say why\n"
    );
    // --help leads with the budget and the directory, and shows examples.
    let help = ok(&["pack", "--help"]);
    let options = &help[help.find("Options:").unwrap()..];
    assert!(
        options
            .trim_start_matches("Options:\n")
            .trim_start()
            .starts_with("--budget")
    );
    assert!(
        help.contains("Examples:\n  packer pack --dir . --budget 32000"),
        "{help}"
    );
    // The example with a context and one reservation: with --dir, the
    // reservations not given are 0.
    let run = exec(&[
        "pack",
        "--dir",
        "fixtures/plain-directory",
        "--model",
        "gpt-4o",
        "--context-tokens",
        "128000",
        "--reserved-output-tokens",
        "4000",
        "--format",
        "summary",
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(summary["availableTokens"], 124000);
}

/// The result of `pack --windows --format json` with every window's
/// payload counted again by tiktoken-rs: each count equals `usedTokens`
/// and fits `availableTokens`, every document is in one window or skipped,
/// and each decision names its window.
fn checked_windows(args: &[&str], encoding: packer::Encoding) -> serde_json::Value {
    let result: serde_json::Value = serde_json::from_str(&ok(args)).unwrap();
    let available = result["availableTokens"].as_u64().unwrap();
    let windows = result["windows"].as_array().unwrap();
    assert_eq!(
        result["windowCount"].as_u64().unwrap() as usize,
        windows.len()
    );
    let mut placed: Vec<String> = Vec::new();
    for (b, window) in windows.iter().enumerate() {
        assert_eq!(window["index"].as_u64().unwrap() as usize, b + 1);
        let payload = window["payloadText"].as_str().unwrap();
        let counted = common::oracle(encoding).encode_ordinary(payload).len();
        assert_eq!(window["usedTokens"].as_u64().unwrap() as usize, counted);
        assert!(counted as u64 <= available);
        for id in window["selectedIds"].as_array().unwrap() {
            placed.push(id.as_str().unwrap().to_owned());
        }
    }
    for decision in result["decisions"].as_array().unwrap() {
        let id = decision["id"].as_str().unwrap();
        match decision["reason"].as_str().unwrap() {
            "fits" => {
                let window = decision["window"].as_u64().unwrap() as usize;
                let ids = windows[window - 1]["selectedIds"].as_array().unwrap();
                assert!(ids.iter().any(|i| i == id));
                assert_eq!(placed.iter().filter(|p| *p == id).count(), 1);
            }
            "required" => {
                assert!(decision.get("window").is_none());
                assert_eq!(placed.iter().filter(|p| *p == id).count(), windows.len());
            }
            _ => {
                assert!(decision.get("window").is_none());
                assert!(!placed.iter().any(|p| p == id));
                assert!(
                    decision["neededTokens"].as_i64().unwrap()
                        > decision["freeTokens"].as_i64().unwrap()
                );
            }
        }
    }
    result
}

#[test]
fn windows_hold_every_document_in_as_few_exact_payloads_as_possible() {
    let args = [
        "pack",
        "fixtures/guide.json",
        "--windows",
        "--budget",
        "120",
    ];
    let json = checked_windows(&args, packer::Encoding::Cl100kBase);
    assert_eq!(json["windowCount"], 3);
    assert_eq!(json["optimal"], true);
    assert!(
        json["windows"][1]["payloadText"]
            .as_str()
            .unwrap()
            .starts_with(r#"{"window":"2 of 3","documents":[{"id":"reference""#)
    );
    let mut summary = args.to_vec();
    summary.extend(["--format", "summary"]);
    insta::assert_snapshot!("windows_summary", ok(&summary));
    let mut report = args.to_vec();
    report.extend(["--format", "report"]);
    insta::assert_snapshot!("windows_report", ok(&report));
    // A document too big for any window is skipped, with its numbers;
    // every layout names the window's place.
    for (envelope, start) in [
        (
            "xml",
            "<documents window=\"1 of {K}\">\n<document index=\"1\"",
        ),
        ("markdown", "# Documents (window 1 of {K})\n## "),
    ] {
        let json = checked_windows(
            &[
                "pack",
                "fixtures/guide.json",
                "--windows",
                "--budget",
                "90",
                "--envelope",
                envelope,
                "--encoding",
                "o200k_base",
            ],
            packer::Encoding::O200kBase,
        );
        assert_eq!(json["skipped"][0]["id"], "reference");
        let first = json["windows"][0]["payloadText"].as_str().unwrap();
        let start = start.replace("{K}", &json["windowCount"].to_string());
        assert!(first.starts_with(&start), "{first}");
    }
    // A directory, counted with another encoding.
    let json = checked_windows(
        &[
            "pack",
            "--dir",
            "fixtures/plain-directory",
            "--windows",
            "--budget",
            "60",
            "--encoding",
            "r50k_base",
        ],
        packer::Encoding::R50kBase,
    );
    assert!(json["windowCount"].as_u64().unwrap() >= 2);
}

/// `--windows --note-omissions`: each window's note lists what is not in
/// it, in input order and bounded, as in another window or as too big,
/// counted like the rest of the window.
#[test]
fn each_window_notes_what_the_other_windows_hold() {
    let mut payloads = String::new();
    for envelope in ["json", "xml", "markdown"] {
        let json = checked_windows(
            &[
                "pack",
                "fixtures/guide.json",
                "--windows",
                "--budget",
                "160",
                "--note-omissions",
                "--note-omissions-max",
                "2",
                "--envelope",
                envelope,
            ],
            packer::Encoding::Cl100kBase,
        );
        for window in json["windows"].as_array().unwrap() {
            payloads.push_str(&format!(
                "--- {envelope}, window {} ---\n{}\n",
                window["index"],
                window["payloadText"].as_str().unwrap()
            ));
        }
    }
    insta::assert_snapshot!("windows_with_notes", payloads);
}

#[test]
fn out_dir_gets_each_window_byte_for_byte_and_never_replaces_a_file() {
    let dir = tempdir().join("windows");
    let args = [
        "pack",
        "fixtures/guide.json",
        "--windows",
        "--budget",
        "120",
        "--envelope",
        "xml",
        "--out-dir",
        dir.to_str().unwrap(),
    ];
    let json: serde_json::Value = serde_json::from_str(&ok(&args)).unwrap();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["window-001.xml", "window-002.xml", "window-003.xml"]
    );
    for (name, window) in names.iter().zip(json["windows"].as_array().unwrap()) {
        let written = fs::read(dir.join(name)).unwrap();
        assert_eq!(written, window["payloadText"].as_str().unwrap().as_bytes());
    }
    // The same directory again: not empty, refused before anything is
    // written, and the files stay as they were.
    let before = fs::read(dir.join("window-001.xml")).unwrap();
    let run = exec(&args);
    assert_eq!(run.status, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error[out-dir-refused]: --out-dir is not empty; give a new directory or an empty one, \
         so that no file is replaced\n"
    );
    assert_eq!(fs::read(dir.join("window-001.xml")).unwrap(), before);
    // A symbolic link to an empty directory is refused too.
    #[cfg(unix)]
    {
        let empty = tempdir().join("empty");
        fs::create_dir(&empty).unwrap();
        let link = tempdir().join("link");
        std::os::unix::fs::symlink(&empty, &link).unwrap();
        let mut linked = args.to_vec();
        let last = linked.len() - 1;
        linked[last] = link.to_str().unwrap();
        let run = exec(&linked);
        assert_eq!(run.status, 2);
        assert!(run.stderr.contains("is a symbolic link"), "{}", run.stderr);
        assert_eq!(fs::read_dir(&empty).unwrap().count(), 0);
    }
    // A directory collected: Markdown by default, `.md` files.
    let dir = tempdir().join("markdown");
    ok(&[
        "pack",
        "--dir",
        "fixtures/plain-directory",
        "--windows",
        "--budget",
        "60",
        "--format",
        "summary",
        "--out-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(dir.join("window-001.md").is_file());
}

#[test]
fn windows_refuse_what_has_no_meaning_for_them() {
    let base = [
        "pack",
        "fixtures/guide.json",
        "--windows",
        "--budget",
        "120",
    ];
    let refused = |extra: &[&str], line: &str| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let run = exec(&args);
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "");
        assert!(
            run.stderr.ends_with(&format!("{line}\n")),
            "{args:?}: {}",
            run.stderr
        );
    };
    refused(
        &["--format", "payload"],
        "error[usage]: --format payload prints one payload; with --windows, give --out-dir DIR \
         for each window's payload (and --format json, summary or report)",
    );
    let run = exec(&[&base[..], &["--payload-out", "x.txt"]].concat());
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("--payload-out"), "{}", run.stderr);
    let run = exec(&["pack", "fixtures/guide.json", "--out-dir", "somewhere"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.ends_with(
            "error[usage]: --out-dir writes the payloads of --windows: give --windows\n"
        ),
        "{}",
        run.stderr
    );
    // Required documents that do not fit a window: exit 4, with numbers.
    let run = exec(&[
        "pack",
        "fixtures/required-does-not-fit.json",
        "--windows",
        "--format",
        "summary",
    ]);
    assert_eq!(run.status, 4, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("error[required-does-not-fit]"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_packer_toml_can_ask_for_windows() {
    let dir = tempdir().join("project");
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(dir.join("packer.toml"), "windows = true\nbudget = 80\n").unwrap();
    for i in 0..4 {
        fs::write(
            dir.join(format!("src/part{i}.rs")),
            format!("pub fn part{i}() -> u32 {{\n    {i}\n}}\n").repeat(3),
        )
        .unwrap();
    }
    let run = exec(&[
        "pack",
        "--dir",
        dir.to_str().unwrap(),
        "--format",
        "summary",
    ]);
    assert_eq!(run.status, 0, "{}", run.stderr);
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(summary["windowCount"].as_u64().unwrap() >= 2, "{summary}");
    // --format payload has no meaning for windows, from the file or a flag.
    let run = exec(&[
        "pack",
        "--dir",
        dir.to_str().unwrap(),
        "--format",
        "payload",
    ]);
    assert_eq!(run.status, 2);
}

#[test]
fn closed_output_pipes_end_the_run_as_success() {
    use std::process::Stdio;
    let dir = tempdir().join("closed-pipes");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("README.md"), "# Tree\n").unwrap();
    // Every binary file is a line on standard error.
    for i in 0..400 {
        fs::write(dir.join(format!("blob{i}.bin")), b"\0binary\0").unwrap();
    }
    for _ in 0..5 {
        let mut child = common::packer()
            .args(["pack", "--dir"])
            .arg(&dir)
            .args(["--budget", "2000", "--format", "report"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Both read ends closed at once: every write of packer's fails.
        drop(child.stdout.take());
        drop(child.stderr.take());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{status:?}");
    }
}

/// The report cuts long ids, but two ids that would be cut alike are shown
/// whole, so that no two rows look the same.
#[test]
fn ids_cut_alike_in_the_report_are_shown_whole() {
    let document = |id: &str| {
        serde_json::json!({"id": id, "url": "https://example.com/x", "format": "text",
                           "content": "Some text.", "truncated": false})
    };
    let fixture = serde_json::json!({
        "budget": {"contextTokens": 1000, "reservedOtherInputTokens": 0,
                   "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": [
            document("crates/packer-collect/src/secrets/alpha/index.ts"),
            document("crates/packer-collect/src/secrets/bravo/index.ts"),
            document("crates/packer-collect/src/secrets/charlie/other-file.ts"),
        ]
    });
    let run = exec_with_stdin(
        &["pack", "-", "--format", "report"],
        fixture.to_string().as_bytes(),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("crates/packer-collect/src/secrets/alpha/index.ts")
    );
    assert!(
        run.stdout
            .contains("crates/packer-collect/src/secrets/bravo/index.ts")
    );
    // An id no other is cut like stays cut.
    assert!(!run.stdout.contains("charlie"), "{}", run.stdout);
    assert!(run.stdout.contains("…/other-file.ts"), "{}", run.stdout);
}
