//! `packer batch`, black box: one result line per input line, in order, each
//! equal to what `packer pack` gives for the same bytes.

use crate::common::{self, Run};

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(args: &[&str], stdin: &[u8]) -> Run {
    common::run(args, stdin)
}

/// Every bundled fixture, valid and invalid, as one line of bytes (newlines
/// are JSON whitespace, so the line means what the file means).
fn fixture_lines() -> Vec<(String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = ["fixtures", "fixtures/invalid"]
        .iter()
        .flat_map(|dir| fs::read_dir(root().join(dir)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let bytes: Vec<u8> = fs::read(&path)
                .unwrap()
                .into_iter()
                .map(|b| if b == b'\n' { b' ' } else { b })
                .collect();
            (path.display().to_string(), bytes)
        })
        .collect()
}

/// What `packer pack --format json` prints for `line` (the output object,
/// the object with `"error"`, or `{"errors":[...]}`), its exit status and its
/// standard error.
fn pack_alone(line: &[u8], args: &[&str]) -> (Value, i32, String) {
    let mut pack_args = vec!["pack", "-"];
    pack_args.extend_from_slice(args);
    let alone = run(&pack_args, line);
    let value = serde_json::from_str(&alone.stdout).unwrap();
    (value, alone.status, alone.stderr)
}

#[test]
fn every_bundled_fixture_gives_the_line_pack_gives_in_input_order() {
    let lines = fixture_lines();
    for args in [
        &[][..],
        &["--policy", "max-fill", "--note-omissions"][..],
        &["--windows", "--envelope", "xml"][..],
        &["--windows", "--note-omissions", "--note-omissions-max", "1"][..],
    ] {
        let mut input = Vec::new();
        for (_, bytes) in &lines {
            input.extend_from_slice(bytes);
            input.push(b'\n');
        }
        let mut batch_args = vec!["batch"];
        batch_args.extend_from_slice(args);
        let batch = run(&batch_args, &input);
        let outputs: Vec<&str> = batch.stdout.split_terminator('\n').collect();
        assert_eq!(outputs.len(), lines.len());
        let mut statuses = Vec::new();
        let mut stderr = String::new();
        for (number, ((name, bytes), output)) in lines.iter().zip(&outputs).enumerate() {
            let (expected, status, alone_stderr) = pack_alone(bytes, args);
            let got: Value = serde_json::from_str(output).unwrap();
            assert_eq!(got, expected, "{name} {args:?}");
            statuses.push(status);
            // A note on the capture (priorities the policy does not use)
            // is for people at a terminal; a batch gives only errors.
            for message in alone_stderr.lines().filter(|l| !l.starts_with("note: ")) {
                let (code, rest) = message.split_once("]: ").unwrap();
                stderr.push_str(&format!("{code}]: input line {}: {rest}\n", number + 1));
            }
        }
        assert!(statuses.contains(&0) && statuses.contains(&3) && statuses.contains(&4));
        assert_eq!(batch.status, 3, "invalid lines outrank does-not-fit lines");
        assert_eq!(batch.stderr, stderr);
    }
}

#[test]
fn each_result_is_the_compact_form_of_packs_output() {
    let guide = fs::read(root().join("fixtures/guide.json")).unwrap();
    let line: Vec<u8> = guide
        .iter()
        .map(|&b| if b == b'\n' { b' ' } else { b })
        .collect();
    for format in ["json", "summary"] {
        let batch = run(&["batch", "--format", format], &line);
        assert_eq!(batch.status, 0);
        let alone = run(&["pack", "-", "--format", format], &line);
        // Same keys in the same order, same values: only the whitespace differs.
        let compact: String = {
            let value: Value = serde_json::from_str(&alone.stdout).unwrap();
            let mut text = serde_json::to_string(&value).unwrap();
            text.push('\n');
            text
        };
        assert_eq!(
            serde_json::from_str::<Value>(&batch.stdout).unwrap(),
            serde_json::from_str::<Value>(&compact).unwrap()
        );
        assert_eq!(batch.stdout.lines().count(), 1);
        let keys = |text: &str| -> Vec<String> {
            text.split('"')
                .skip(1)
                .step_by(2)
                .filter(|k| k.chars().all(|c| c.is_ascii_alphabetic()))
                .map(str::to_string)
                .take(12)
                .collect()
        };
        assert_eq!(keys(&batch.stdout), keys(&alone.stdout), "key order");
    }
}

/// A small fixture whose single document's id and content name `i`.
fn small_fixture(i: usize) -> String {
    format!(
        r#"{{"budget":{{"contextTokens":{},"reservedOtherInputTokens":0,"reservedOutputTokens":0,"safetyTokens":0}},"documents":[{{"id":"doc-{i}","url":"https://example.com/{i}","format":"text","content":"Document number {i} says hello.","truncated":false}},{{"id":"big-{i}","url":"https://example.com/big/{i}","format":"text","content":"{}","truncated":false}}]}}"#,
        40 + i % 7,
        "many words ".repeat(1 + i % 13)
    )
}

#[test]
fn thousands_of_lines_come_back_in_order_with_bad_lines_in_place() {
    let mut input = String::new();
    let n = 3000;
    for i in 0..n {
        if i % 101 == 7 {
            input.push_str("{\"documents\": [oops]}\n");
        } else {
            input.push_str(&small_fixture(i));
            input.push('\n');
        }
    }
    let batch = run(&["batch", "--format", "summary"], input.as_bytes());
    assert_eq!(batch.status, 3);
    let outputs: Vec<Value> = batch
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(outputs.len(), n);
    for (i, output) in outputs.iter().enumerate() {
        if i % 101 == 7 {
            assert_eq!(output["errors"][0]["code"], "invalid-json", "line {i}");
        } else {
            assert_eq!(output["decisions"][0]["id"], format!("doc-{i}"), "line {i}");
            assert_eq!(output["availableTokens"], 40 + i as u64 % 7);
            assert!(output.get("payloadText").is_none());
        }
    }
    let first_error = batch.stderr.lines().next().unwrap();
    assert_eq!(
        first_error,
        "error[invalid-json]: input line 8: the input is not valid JSON at line 1 column 16: \
         expected a value (a string in double quotes, a number, an object, an array, true, false or null)"
    );
}

#[test]
fn a_line_over_the_limit_is_refused_and_the_next_line_is_read_whole() {
    let small = small_fixture(1);
    let big = small_fixture(12);
    assert!(big.len() > small.len());
    let limit = small.len().to_string();
    let input = format!("{big}\n{small}\n{big}");
    let batch = run(&["batch", "--max-input-bytes", &limit], input.as_bytes());
    assert_eq!(batch.status, 3);
    let outputs: Vec<Value> = batch
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let (too_large, status, _) = pack_alone(big.as_bytes(), &["--max-input-bytes", &limit]);
    assert_eq!(status, 3);
    assert_eq!(too_large["errors"][0]["code"], "input-too-large");
    assert_eq!(outputs.len(), 3);
    assert_eq!(outputs[0], too_large);
    assert_eq!(outputs[1]["selectedIds"][0], "doc-1");
    assert_eq!(outputs[2], too_large);
}

#[test]
fn an_empty_input_is_an_empty_successful_batch_and_blank_lines_are_bad_lines() {
    let empty = run(&["batch"], b"");
    assert_eq!((empty.status, empty.stdout.as_str()), (0, ""));
    let blank = run(&["batch"], format!("\n{}\n", small_fixture(2)).as_bytes());
    assert_eq!(blank.status, 3);
    let lines: Vec<&str> = blank.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(r#"{"errors":[{"code":"invalid-json""#));
}

#[test]
fn only_lines_that_do_not_fit_exit_4_and_all_good_lines_exit_0() {
    let fits = small_fixture(3);
    let good = run(&["batch"], format!("{fits}\n{fits}\n").as_bytes());
    assert_eq!((good.status, good.stderr.as_str()), (0, ""));
    let tight = run(
        &["batch", "--context-tokens", "2"],
        format!("{fits}\n").as_bytes(),
    );
    assert_eq!(tight.status, 4);
    let refusal: Value = serde_json::from_str(&tight.stdout).unwrap();
    assert_eq!(refusal["error"]["code"], "empty-envelope-does-not-fit");
    assert_eq!(refusal["decisions"][0]["reason"], "not-tried");
}

#[test]
fn a_bad_flag_is_a_usage_error_before_any_line_is_read() {
    let bad = run(
        &["batch", "--model", "no-such-model"],
        small_fixture(1).as_bytes(),
    );
    assert_eq!(bad.status, 2);
    assert_eq!(bad.stdout, "");
}

#[test]
fn a_line_is_answered_before_the_input_ends() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let mut child = common::packer()
        .env_clear()
        .args(["batch", "--format", "summary"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for i in 0..3 {
        writeln!(stdin, "{}", small_fixture(i)).unwrap();
        stdin.flush().unwrap();
        // The input stays open: the answer must come anyway.
        let mut answer = String::new();
        stdout.read_line(&mut answer).unwrap();
        let value: Value = serde_json::from_str(&answer).unwrap();
        assert_eq!(value["decisions"][0]["id"], format!("doc-{i}"));
    }
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert_eq!(rest, "");
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_missing_input_file_is_named_and_nothing_is_written() {
    let missing = run(&["batch", "no-such-file.jsonl"], b"");
    assert_eq!(missing.status, 3);
    assert_eq!(missing.stdout, "");
    assert!(
        missing
            .stderr
            .starts_with("error[unreadable-input]: no such file: no-such-file.jsonl"),
        "{}",
        missing.stderr
    );
}
