//! Hostile inputs: tokenizer files, chat templates, captures and trees
//! built to crash packer, run it for minutes or make it take all memory.
//! Each attack must end in a coded error (or an exact result) with the
//! process alive to say so, inside a fixed memory cap.
//!
//! Every run here is bounded: `packer` runs under an address-space limit
//! ([`MEMORY_CAP_KIB`]), so an allocation beyond it fails the run instead
//! of the machine, and under a deadline far above what any of these takes
//! on a loaded machine ([`HANG`]), which only says that it hung. No
//! assertion is about time.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;

/// The address space every attacked run may use: ample for every honest
/// run here, far below what the attacks ask for.
const MEMORY_CAP_KIB: u64 = 2 << 20;

/// Longer than any run here can take unless it hangs.
const HANG: Duration = Duration::from_secs(300);

/// What a bounded run printed, and how it ended.
pub struct Ended {
    /// The exit status; `None` when a signal ended it (a crash).
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `packer` with `args` in `dir`, `stdin` on its standard input,
/// under [`MEMORY_CAP_KIB`] of address space; fails the test if it is
/// still running after [`HANG`].
pub fn bounded(dir: &Path, args: &[&str], stdin: &[u8]) -> Ended {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_CAP_KIB} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_packer"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        use std::io::Write as _;
        let _ = input.write_all(&stdin);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let error_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("packer {args:?} still ran after {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    Ended {
        status: status.code(),
        stdout: String::from_utf8_lossy(&reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&error_reader.join().unwrap()).into_owned(),
    }
}

/// Asserts that `ended` is a coded refusal with exit status `exit` whose
/// last line starts with `error[code]`.
#[track_caller]
pub fn refused(ended: &Ended, exit: i32, code: &str) {
    assert_eq!(
        ended.status,
        Some(exit),
        "stdout: {}\nstderr: {}",
        ended.stdout,
        ended.stderr
    );
    let last = ended.stderr.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!("error[{code}]: ")),
        "{}",
        ended.stderr
    );
}

/// [`refused`], with `said` in what standard error says.
#[track_caller]
pub fn refused_saying(ended: &Ended, exit: i32, code: &str, said: &str) {
    refused(ended, exit, code);
    assert!(ended.stderr.contains(said), "{}", ended.stderr);
}

// Tokenizer files.

/// The committed WordLevel file (NFD, Lowercase, StripAccents; Whitespace
/// and Digits), the base of the pipeline attacks.
fn word_level() -> Value {
    let path = common::root().join("tests/data/tokenizers/wordlevel-whitespace-tokenizer.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn write_json(dir: &Path, name: &str, value: &Value) {
    std::fs::write(dir.join(name), serde_json::to_vec(value).unwrap()).unwrap();
}

fn count_with(dir: &Path, tokenizer: &str, text: &str) -> Ended {
    bounded(
        dir,
        &["count", "--tokenizer", tokenizer, "-"],
        text.as_bytes(),
    )
}

#[test]
fn tokenizer_pipelines_that_recurse_or_explode_are_refused_with_their_limit() {
    let dir = tempfile::tempdir().unwrap();
    let split = json!({"type": "Split", "pattern": {"String": "a"}, "behavior": "Isolated",
                       "invert": false});
    let cases = [
        (
            "splits.json",
            "pre_tokenizer",
            json!({"type": "Sequence", "pretokenizers": vec![split.clone(); 100_000]}),
            "a pre-tokenizer of 100000 stages (the limit is 64)",
        ),
        (
            "doubling.json",
            "normalizer",
            json!({"type": "Sequence", "normalizers":
                vec![json!({"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}); 40]}),
            "a normalizer that can make a text up to 1099511627776 times longer (the limit is \
             256 times)",
        ),
        (
            "prepends.json",
            "normalizer",
            json!({"type": "Sequence", "normalizers":
                vec![json!({"type": "Prepend", "prepend": "x"}); 100_000]}),
            "a normalizer of more than 64 steps (the limit is 64)",
        ),
        (
            "long-prepend.json",
            "normalizer",
            json!({"type": "Prepend", "prepend": "x".repeat(5000)}),
            "a normalizer that can add 5000 bytes to a text (the limit is 4096)",
        ),
    ];
    for (name, key, component, problem) in cases {
        let mut file = word_level();
        file[key] = component;
        write_json(dir.path(), name, &file);
        let ended = count_with(dir.path(), name, "hello a world");
        refused(&ended, 3, "tokenizer-limit");
        assert!(ended.stderr.contains(problem), "{name}: {}", ended.stderr);
    }
    // Many added tokens: each is a pattern of a search built at load.
    let mut file = word_level();
    file["added_tokens"] = (0..100_001)
        .map(|i| {
            json!({"id": 1_000 + i, "content": format!("tok{i}"), "single_word": false,
                   "lstrip": false, "rstrip": false, "normalized": true, "special": false})
        })
        .collect();
    write_json(dir.path(), "added.json", &file);
    let ended = count_with(dir.path(), "added.json", "hello tok1 world");
    refused_saying(
        &ended,
        3,
        "tokenizer-limit",
        "100001 added tokens (the limit is 100000)",
    );
}

#[test]
fn a_tokenizer_with_one_very_long_token_counts_exactly_in_bounded_steps() {
    let dir = tempfile::tempdir().unwrap();
    // Unigram tries every token that starts at each position, so its
    // tokens are at most 256 bytes: the best path over 100,000 `a`s is 400
    // of a 250-byte token (score -5 each) rather than `a`s (-1 each); one
    // more `a` is one more token. A 20,000-byte token is refused at load.
    let unigram = |long: &str| {
        json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
            "model": {"type": "Unigram", "unk_id": 0, "byte_fallback": false,
                      "vocab": [["<unk>", 0.0], ["a", -1.0], [long, -5.0]]}})
    };
    write_json(dir.path(), "unigram.json", &unigram(&"a".repeat(250)));
    for (text, tokens) in [("a".repeat(100_000), "400"), ("a".repeat(100_001), "401")] {
        let ended = count_with(dir.path(), "unigram.json", &text);
        assert_eq!(ended.status, Some(0), "{}", ended.stderr);
        assert_eq!(ended.stdout.trim(), tokens);
    }
    write_json(
        dir.path(),
        "unigram-long.json",
        &unigram(&"a".repeat(20_000)),
    );
    let ended = count_with(dir.path(), "unigram-long.json", "a");
    assert_eq!(ended.status, Some(3), "{}", ended.stderr);
    assert!(
        ended.stderr.starts_with(
            "error[tokenizer-limit]: the --tokenizer file has a Unigram token of 20000 bytes"
        ),
        "{}",
        ended.stderr
    );
    // WordPiece, whose file allows words of any length: the word is the
    // long token, then `##b` for each of the 80,000 `b`s after it.
    let wordpiece = json!({
        "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
        "normalizer": null, "pre_tokenizer": {"type": "WhitespaceSplit"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordPiece", "unk_token": "[UNK]",
                  "continuing_subword_prefix": "##", "max_input_chars_per_word": 1_000_000_000u64,
                  "vocab": {"[UNK]": 0, "b": 1, "##b": 2, ("b".repeat(20_000)): 3}}});
    write_json(dir.path(), "wordpiece.json", &wordpiece);
    let ended = count_with(dir.path(), "wordpiece.json", &"b".repeat(100_000));
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    assert_eq!(ended.stdout.trim(), "80001");
}

// Chat templates: each renders in a worker process with limits.

/// A capture of one document and a request with the placeholder, in `dir`.
fn chat_files(dir: &Path) {
    std::fs::write(
        dir.join("capture.json"),
        r#"{"budget": {"contextTokens": 4000, "reservedOtherInputTokens": 0,
            "reservedOutputTokens": 0, "safetyTokens": 0},
            "documents": [{"id": "a", "url": "https://example.com/a", "format": "text",
            "content": "SECRET-CONTENT 123 abc", "truncated": false}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("request.json"),
        r#"{"messages": [{"role": "user", "content": "Docs: {{packer:documents}}"}]}"#,
    )
    .unwrap();
}

/// Packs the capture into the request rendered with `template`.
fn pack_with_template(dir: &Path, template: &str, flags: &[&str]) -> Ended {
    std::fs::write(dir.join("template.jinja"), template).unwrap();
    let mut args = vec![
        "pack",
        "capture.json",
        "--encoding",
        "o200k_harmony",
        "--request",
        "request.json",
        "--chat-template",
        "template.jinja",
        "--format",
        "summary",
    ];
    args.extend_from_slice(flags);
    bounded(dir, &args, b"")
}

/// A loop that nests a list in itself 100,000 times.
const DEEP: &str = "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}\
                    {% set ns.x = [ns.x] %}{% endfor %}";

#[test]
fn hostile_templates_end_in_a_coded_error_and_packer_survives() {
    let dir = tempfile::tempdir().unwrap();
    chat_files(dir.path());
    let stack = "nested a value deeper than its renderer's stack";
    let memory = "asked for more than 256 MiB while it rendered, its limit; it was stopped \
                  (raise the limit with --template-memory";
    let time = "rendered for more than 2 s in this pack, its limit; it was stopped";
    let small = ["--template-memory", "256", "--template-seconds", "2"];
    let cases: Vec<(String, &str)> = vec![
        // Printed, compared, or only dropped: each recurses per level.
        (format!("{DEEP}{{{{ ns.x }}}}"), stack),
        (format!("{DEEP}{{{{ ns.x == ns.x }}}}"), stack),
        (format!("{DEEP}ok"), stack),
        // Allocations sized by the template.
        ("{{ messages|tojson(indent=1000000000000) }}".into(), memory),
        ("{{ '{:>100000000000}'.format('x') }}".into(), memory),
        ("{{ messages|batch(1000000000000)|list }}".into(), memory),
        ("{{ 'a\nb'|indent(1000000000000) }}".into(), memory),
        // Doubling a string forty times.
        (
            "{% set ns = namespace(s='ab') %}{% for i in range(40) %}\
             {% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"
                .into(),
            memory,
        ),
        // Work without memory: a copy of a growing list at every step.
        (
            "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}\
             {% set ns.l = ns.l + [i] %}{% set n = ns.l|length %}{% endfor %}"
                .into(),
            time,
        ),
    ];
    for (template, said) in &cases {
        let ended = pack_with_template(dir.path(), template, &small);
        refused(&ended, 3, "chat-template-limit");
        assert!(ended.stderr.contains(said), "{template}: {}", ended.stderr);
        assert!(!ended.stderr.contains("SECRET-CONTENT"), "{}", ended.stderr);
    }
    // A tag nested at every token (`a ~ a ~ …` nests to the left, with no
    // bound in the parser): refused before its tree is read.
    let chain = format!("{{{{ {}'b' }}}}", "messages ~ ".repeat(100_000));
    let ended = pack_with_template(dir.path(), &chain, &small);
    refused_saying(
        &ended,
        3,
        "invalid-chat-template",
        "a tag of more than 2,000 tokens",
    );
    // The same worker renders an honest template exactly as before.
    let ended = pack_with_template(
        dir.path(),
        "<|start|>user<|message|>{{ messages[0].content }}<|end|>",
        &small,
    );
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    let summary: Value = serde_json::from_str(&ended.stdout).unwrap();
    assert_eq!(summary["selectedIds"], json!(["a"]));
    // A template that leaves the message with the payload out would count
    // a request without the documents, and let the payload pass any
    // budget: refused.
    let ended = pack_with_template(dir.path(), "<|start|>user<|message|>hi<|end|>", &small);
    refused_saying(
        &ended,
        3,
        "invalid-chat-template",
        "does not write the message that holds",
    );
}

#[test]
fn template_errors_show_no_request_text_and_nothing_that_moves_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    chat_files(dir.path());
    // A value in minijinja's detail (an include named by a message).
    let ended = pack_with_template(dir.path(), "{% include messages[0].content %}", &[]);
    refused(&ended, 3, "invalid-chat-template");
    assert!(!ended.stderr.contains("SECRET-CONTENT"), "{}", ended.stderr);
    assert!(
        ended
            .stderr
            .contains("its details quote a value and are not shown")
    );
    // The template's own words, with an escape sequence and a forged line.
    let ended = pack_with_template(
        dir.path(),
        "{{ raise_exception('bad\u{1b}[2J\nerror[forged]: x') }}",
        &[],
    );
    refused(&ended, 3, "invalid-chat-template");
    assert_eq!(ended.stderr.lines().count(), 1, "{}", ended.stderr);
    assert!(
        ended
            .stderr
            .contains("raises an exception at line 1: bad\\u{001B}[2J\\u{000A}error[forged]: x"),
        "{}",
        ended.stderr
    );
}

#[test]
fn a_document_that_holds_the_noncharacters_still_packs_into_a_request() {
    let dir = tempfile::tempdir().unwrap();
    chat_files(dir.path());
    // Special-token text in the document makes packer mark it; the
    // document holds every noncharacter of U+FDD0..U+FDEF.
    let marks: String = ('\u{FDD0}'..='\u{FDEF}').collect();
    let capture = json!({
        "budget": {"contextTokens": 4000, "reservedOtherInputTokens": 0,
                   "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": [{"id": "a", "url": "https://example.com/a", "format": "text",
                       "content": format!("{marks} <|end|> text"), "truncated": false}]});
    write_json(dir.path(), "capture.json", &capture);
    let ended = pack_with_template(
        dir.path(),
        "<|start|>user<|message|>{{ messages[0].content }}<|end|>",
        &[],
    );
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    let summary: Value = serde_json::from_str(&ended.stdout).unwrap();
    assert_eq!(summary["selectedIds"], json!(["a"]));
}

#[test]
fn a_document_that_holds_every_marker_character_still_packs_into_a_request() {
    let dir = tempfile::tempdir().unwrap();
    chat_files(dir.path());
    // Every noncharacter and every character of the supplementary private
    // use areas, with special-token text: packer marks it with a pair.
    let noncharacters = ('\u{FDD0}'..='\u{FDEF}').chain((0..=16u32).flat_map(|plane| {
        [plane << 16 | 0xFFFE, plane << 16 | 0xFFFF].map(|c| char::from_u32(c).unwrap())
    }));
    let every: String = noncharacters
        .chain('\u{F0000}'..='\u{FFFFD}')
        .chain('\u{100000}'..='\u{10FFFD}')
        .collect();
    let capture = json!({
        "budget": {"contextTokens": 900000, "reservedOtherInputTokens": 0,
                   "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": [
            {"id": "a", "url": "https://example.com/a", "format": "text",
             "content": format!("<|start|>{every} <|end|> text"), "truncated": false},
            {"id": "b", "url": "https://example.com/b", "format": "text",
             "content": "plain", "truncated": false}]});
    write_json(dir.path(), "capture.json", &capture);
    let ended = pack_with_template(
        dir.path(),
        "<|start|>user<|message|>{{ messages[0].content }}<|end|>",
        &[],
    );
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    let summary: Value = serde_json::from_str(&ended.stdout).unwrap();
    assert_eq!(summary["selectedIds"], json!(["a", "b"]));
}

// Trees.

#[test]
fn a_trees_packer_toml_lowers_the_collecting_limits_and_never_raises_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Tree\nA small tree.\n").unwrap();
    std::fs::write(dir.path().join("small.txt"), "x".repeat(5_000)).unwrap();
    // A sparse file of 2 GiB, and a file that asks for it to be read.
    let big = std::fs::File::create(dir.path().join("big.txt")).unwrap();
    big.set_len(2 << 30).unwrap();
    std::fs::write(
        dir.path().join("packer.toml"),
        "max-file-bytes = 4000000000\nmax-total-bytes = 8000000000\n",
    )
    .unwrap();
    let ended = bounded(dir.path(), &["pack", "--dir", ".", "--budget", "4000"], b"");
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    assert!(
        ended
            .stderr
            .contains("skipped big.txt: larger than --max-file-bytes"),
        "{}",
        ended.stderr
    );
    // Lower than the default, it is honoured.
    std::fs::write(dir.path().join("packer.toml"), "max-file-bytes = 1000\n").unwrap();
    let ended = bounded(dir.path(), &["pack", "--dir", ".", "--budget", "4000"], b"");
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    assert!(
        ended
            .stderr
            .contains("skipped small.txt: larger than --max-file-bytes"),
        "{}",
        ended.stderr
    );
    // A flag above the default is the user's own, and the file's lower
    // value still wins over it.
    let ended = bounded(
        dir.path(),
        &[
            "pack",
            "--dir",
            ".",
            "--budget",
            "4000",
            "--max-file-bytes",
            "10000",
        ],
        b"",
    );
    assert!(
        ended.stderr.contains("skipped small.txt"),
        "{}",
        ended.stderr
    );
}

#[test]
fn a_nuget_config_password_is_not_collected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("README.md"), "# Tree\n").unwrap();
    std::fs::write(
        dir.path().join("NuGet.Config"),
        "<configuration>\n  <packageSourceCredentials>\n    <feed>\n      \
         <add key=\"Username\" value=\"builder\" />\n      \
         <add key=\"ClearTextPassword\" value=\"Qm7vT2xK9pL4wZ8r\" />\n    </feed>\n  \
         </packageSourceCredentials>\n</configuration>\n",
    )
    .unwrap();
    let ended = bounded(
        dir.path(),
        &[
            "pack", "--dir", ".", "--budget", "4000", "--format", "payload",
        ],
        b"",
    );
    assert_eq!(ended.status, Some(0), "{}", ended.stderr);
    assert!(!ended.stdout.contains("Qm7vT2xK9pL4wZ8r"));
    assert!(
        ended
            .stderr
            .contains("skipped NuGet.Config: contains-secret (rule nuget-config-password)"),
        "{}",
        ended.stderr
    );
}

/// One added token of 200,000 bytes: its prefixes are one hash each and
/// its search an NFA, so it loads in its length (its prefixes' texts were
/// 20 GB, the search's DFA minutes of work), and counts as the reference
/// does (`tokenizers` 0.23: 3, 2 and 3 tokens).
#[test]
fn a_long_added_token_loads_in_its_length_and_counts_like_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let long = "a".repeat(200_000);
    let file = json!({
        "version": "1.0", "truncation": null, "padding": null, "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2},
                  "unk_token": "[UNK]"},
        "added_tokens": [{"id": 3, "content": long, "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": false, "special": false}]});
    write_json(dir.path(), "added.json", &file);
    for (text, tokens) in [
        (format!("hello {long} world"), "3"),
        (format!("hello {}", &long[1..]), "2"),
        ("a".repeat(400_001), "3"),
    ] {
        let ended = count_with(dir.path(), "added.json", &text);
        assert_eq!(ended.status, Some(0), "{}", ended.stderr);
        assert_eq!(ended.stdout.trim(), tokens);
    }
}
