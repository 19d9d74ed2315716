//! `packer mcp` as a client sees it: the binary started as a child process
//! and spoken to over standard input and output with rmcp's client.
//! Payload counts are checked with tiktoken-rs, not with packer.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use packer::Encoding;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Starts `packer mcp ARGS` in `dir` and initializes a session.
async fn connect(dir: &Path, args: &[&str]) -> Client {
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_packer")).configure(|c| {
        c.arg("mcp").args(args).current_dir(dir).env_clear();
    });
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    ().serve(transport).await.unwrap()
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap()
}

fn texts(result: &CallToolResult) -> Vec<&str> {
    result
        .content
        .iter()
        .map(|block| block.as_text().expect("a text block").text.as_str())
        .collect()
}

fn oracle_count(encoding: Encoding, text: &str) -> usize {
    common::oracle(encoding).encode_ordinary(text).len()
}

/// A directory with visible, hidden, ignored and linked files, removed on drop.
struct Tree(PathBuf);

impl Tree {
    fn new(name: &str) -> Tree {
        let dir = std::env::temp_dir().join(format!("packer-mcp-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let project = dir.join("project");
        fs::create_dir_all(project.join("src")).unwrap();
        fs::create_dir_all(project.join(".git")).unwrap();
        fs::create_dir_all(dir.join("outside")).unwrap();
        fs::write(project.join("README.md"), "# Demo\nA small project.\n").unwrap();
        fs::write(
            project.join("src/lib.rs"),
            "pub fn answer() -> u32 {\n    42\n}\n",
        )
        .unwrap();
        fs::write(project.join("src/long.rs"), "// filler\n".repeat(400)).unwrap();
        fs::write(project.join(".hidden"), "hidden\n").unwrap();
        fs::write(project.join(".git/config"), "[core]\n").unwrap();
        fs::write(project.join(".gitignore"), "ignored.txt\n").unwrap();
        fs::write(project.join("ignored.txt"), "ignored\n").unwrap();
        fs::write(project.join("binary.bin"), b"\0\x01\x02").unwrap();
        fs::write(project.join("keys.txt"), "aws = AKIAQWERTYUIOPASDFGH\n").unwrap();
        fs::write(dir.join("outside/secret.txt"), "outside the root\n").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("outside"), project.join("out-dir")).unwrap();
            std::os::unix::fs::symlink(dir.join("outside/secret.txt"), project.join("out-file"))
                .unwrap();
        }
        Tree(dir)
    }

    fn project(&self) -> PathBuf {
        self.0.join("project")
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[tokio::test]
async fn initializes_and_lists_three_read_only_tools_with_schemas() {
    let client = connect(&repo(), &[]).await;
    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "packer");
    assert!(info.capabilities.tools.is_some());
    let tools = client.list_all_tools().await.unwrap();
    let root = repo().canonicalize().unwrap().display().to_string();
    let mut listed = serde_json::to_string_pretty(&tools).unwrap();
    listed = listed.replace(&root, "[ROOT]");
    insta::assert_snapshot!(listed);
    for tool in &tools {
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
        assert!(tool.output_schema.is_some());
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn packs_a_directory_within_the_budget_counted_exactly() {
    let tree = Tree::new("pack");
    let client = connect(&tree.project(), &[]).await;
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 200, "encoding": "o200k_base", "noteOmissions": true}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let payload = texts(&result)[0];
    let summary = result.structured_content.as_ref().unwrap();
    let used = summary["usedTokens"].as_u64().unwrap() as usize;
    assert_eq!(oracle_count(Encoding::O200kBase, payload), used);
    assert!(used <= 200);
    assert_eq!(summary["availableTokens"], 200);
    assert_eq!(summary["encoding"], "o200k_base");
    assert_eq!(summary["selectedIds"], json!(["README.md", "src/lib.rs"]));
    assert_eq!(summary["skipped"][0]["id"], "src/long.rs");
    assert_eq!(
        summary["skipped"][0]["reason"],
        "whole-document-does-not-fit"
    );
    assert_eq!(summary["files"]["documents"], 3);
    assert_eq!(
        summary["files"]["notDocuments"],
        json!([
            {"path": "binary.bin", "reason": "binary"},
            {"path": "keys.txt", "reason": "contains-secret", "rule": "aws-access-token"}
        ])
    );
    // Hidden files, .git/, ignored files and links are never read.
    for never in ["hidden", "[core]", "ignored\\n", "outside the root", "AKIA"] {
        assert!(!payload.contains(never), "{never}");
    }
    assert!(payload.contains(r#""omitted":[{"id":"src/long.rs""#));
    client.cancel().await.unwrap();
}

/// `packer pack --dir DIR --format payload ARGS`, run in `cwd`.
fn cli_payload(cwd: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_packer"))
        .args(["pack", "--format", "payload"])
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{args:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[tokio::test]
async fn a_directory_pack_equals_the_command_lines_pack_dir() {
    let tree = Tree::new("same");
    fs::write(tree.project().join("list.txt"), "src/lib.rs\nREADME.md\n").unwrap();
    let client = connect(&tree.0, &["--root", "project"]).await;
    let cases: [(Value, &[&str]); 3] = [
        (
            json!({"path": "src", "budget": 150, "policy": "max-fill", "globs": ["*.rs"],
                   "baseUrl": "https://example.com/repo/"}),
            &[
                "--dir",
                "project/src",
                "--budget",
                "150",
                "--policy",
                "max-fill",
                "--glob",
                "*.rs",
                "--base-url",
                "https://example.com/repo/",
            ],
        ),
        (
            json!({"path": ".", "budget": 400, "policy": "priority",
                   "priorities": ["README.md=5", "src/**=-1"], "tree": "optional",
                   "noteOmissions": true, "encoding": "o200k_base"}),
            &[
                "--dir",
                "project",
                "--budget",
                "400",
                "--policy",
                "priority",
                "--priority",
                "README.md=5",
                "--priority",
                "src/**=-1",
                "--tree-optional",
                "--note-omissions",
                "--encoding",
                "o200k_base",
                "--base-url",
                "https://local.invalid/",
            ],
        ),
        (
            json!({"path": ".", "budget": 300, "files": ["src/lib.rs", "README.md"],
                   "tree": "required"}),
            &[
                "--dir",
                "project",
                "--budget",
                "300",
                "--files-from",
                "project/list.txt",
                "--tree",
                "--base-url",
                "https://local.invalid/",
            ],
        ),
    ];
    for (arguments, cli_args) in cases {
        let result = call(&client, "pack_directory", arguments.clone()).await;
        assert_eq!(result.is_error, Some(false), "{arguments}: {result:?}");
        assert_eq!(
            texts(&result),
            [cli_payload(&tree.0, cli_args)],
            "{arguments}"
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_missing_path_or_a_file_is_named_with_what_is_wrong() {
    let tree = Tree::new("missing");
    let client = connect(&tree.project(), &[]).await;
    for (path, expected) in [
        (
            "no-such-dir",
            "error[unreadable-input]: no such file: no-such-dir",
        ),
        (
            "README.md",
            "error[usage]: README.md is a file, not a directory; give the directory that holds \
             it (and the argument 'files' to pack only some of its files)",
        ),
    ] {
        let result = call(
            &client,
            "pack_directory",
            json!({"path": path, "budget": 1000}),
        )
        .await;
        assert_eq!(result.is_error, Some(true), "{path}");
        assert_eq!(texts(&result), [expected]);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn refuses_paths_that_escape_every_root() {
    let tree = Tree::new("escape");
    let client = connect(&tree.project(), &[]).await;
    let outside = tree.0.join("outside").display().to_string();
    for path in [
        "..",
        "../outside",
        "src/../../outside",
        "out-dir",
        outside.as_str(),
        "/",
    ] {
        let result = call(
            &client,
            "pack_directory",
            json!({"path": path, "budget": 1000}),
        )
        .await;
        assert_eq!(result.is_error, Some(true), "{path}");
        assert_eq!(
            texts(&result),
            [
                "error[path-outside-root]: the path lies outside every root this server may read \
              (its --root directories); give a path inside one of them"
            ],
            "{path}"
        );
        // Text only: an error is not a summary, and clients check
        // structured content against the output schema.
        assert_eq!(result.structured_content, None);
    }
    client.cancel().await.unwrap();
}

fn guide_documents() -> Value {
    let guide: Value =
        serde_json::from_str(&fs::read_to_string(repo().join("fixtures/guide.json")).unwrap())
            .unwrap();
    guide["documents"].clone()
}

#[tokio::test]
async fn packs_documents_given_inline_like_the_command_line() {
    let client = connect(&repo(), &[]).await;
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": guide_documents(), "budget": 112, "model": "gpt-4"}),
    )
    .await;
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_packer"))
        .args(["pack", "fixtures/guide.json", "--format", "payload"])
        .current_dir(repo())
        .output()
        .unwrap();
    // guide.json reserves 144 of its 256 tokens: 112 are left, as here.
    assert_eq!(texts(&result), [String::from_utf8(cli.stdout).unwrap()]);
    let summary = result.structured_content.as_ref().unwrap();
    assert_eq!(
        oracle_count(Encoding::Cl100kBase, texts(&result)[0]),
        summary["usedTokens"].as_u64().unwrap() as usize
    );
    assert_eq!(summary["skipped"][0]["id"], "reference");
    assert!(
        summary["skipped"][0]["neededTokens"].as_i64().unwrap()
            > summary["skipped"][0]["freeTokens"].as_i64().unwrap()
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_bad_document_is_a_coded_error_that_echoes_nothing() {
    let client = connect(&repo(), &[]).await;
    let mut documents = guide_documents();
    documents[2]["id"] = json!("intro");
    documents[1]["url"] = json!("https://user:hunter2@example.com/");
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": documents, "budget": 500}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    // Every problem, one line each, as on the command line's standard error.
    assert_eq!(
        texts(&result),
        [
            "error[url-credentials]: documents[1].url carries a user name or password; remove the credentials\n\
          error[duplicate-id]: documents[2] has the same id as documents[0]"
        ]
    );
    assert_eq!(result.structured_content, None);
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": [{"id": "a", "url": "https://example.com/", "format": "text",
                              "content": "hunter2", "truncated": false, "secret": "hunter2"}],
               "budget": 500}),
    )
    .await;
    let text = texts(&result)[0];
    assert!(text.starts_with("error[invalid-schema]: "), "{text}");
    assert!(
        !text.contains("hunter2") && !text.contains("secret"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_budget_too_small_for_the_empty_envelope_says_so() {
    let client = connect(&repo(), &[]).await;
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": guide_documents(), "budget": 3}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let text = texts(&result)[0];
    assert!(
        text.starts_with("error[empty-envelope-does-not-fit]: "),
        "{text}"
    );
    let empty = oracle_count(Encoding::Cl100kBase, r#"{"documents":[]}"#);
    assert!(
        text.contains(&format!(
            "needs {empty} tokens but only 3 are available (short by {})",
            empty - 3
        )),
        "{text}"
    );
    assert_eq!(result.structured_content, None);
    // The message names the tool's arguments, not the command line's flags.
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": guide_documents(), "budget": 10, "noteOmissions": true}),
    )
    .await;
    let text = texts(&result)[0];
    assert!(
        text.starts_with("error[empty-envelope-does-not-fit]: the omission note does not fit"),
        "{text}"
    );
    assert!(
        text.contains("without the argument noteOmissions it needs")
            && text.contains("lower the argument noteOmissionsMax")
            && !text.contains("--"),
        "{text}"
    );
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": [], "budget": 5}),
    )
    .await;
    assert_eq!(texts(&result), [r#"{"documents":[]}"#]);
    let used = &result.structured_content.as_ref().unwrap()["usedTokens"];
    assert_eq!(
        used,
        oracle_count(Encoding::Cl100kBase, r#"{"documents":[]}"#)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn counts_tokens_exactly_in_every_encoding() {
    let client = connect(&repo(), &[]).await;
    let text = "Special-looking <|endoftext|> text, 日本語, and   spaces\n\n";
    for encoding in Encoding::ALL {
        let result = call(
            &client,
            "count_tokens",
            json!({"text": text, "encoding": encoding.name()}),
        )
        .await;
        let expected = oracle_count(encoding, text);
        assert_eq!(texts(&result), [expected.to_string()], "{encoding}");
        assert_eq!(
            result.structured_content,
            Some(json!({"encoding": encoding.name(), "tokens": expected}))
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn arguments_outside_the_schema_are_usage_errors() {
    let client = connect(&repo(), &[]).await;
    for (tool, arguments, message) in [
        (
            "count_tokens",
            json!({"text": "x", "colour": "red"}),
            "the arguments have a field this tool does not take; allowed: text, encoding, model, tokenizer",
        ),
        ("count_tokens", json!({}), "the argument 'text' is missing"),
        (
            "count_tokens",
            json!({"text": "x", "encoding": "gpt2"}),
            "the argument 'encoding' must be one of cl100k_base, o200k_base, o200k_harmony, p50k_base, p50k_edit, r50k_base",
        ),
        (
            "pack_directory",
            json!({"path": "."}),
            "the argument 'budget' is missing",
        ),
        (
            "pack_directory",
            json!({"path": ".", "budget": 10, "baseUrl": "ftp://x/"}),
            "the argument 'baseUrl' must be an absolute http or https URL with a host and no credentials",
        ),
        (
            "no_such_tool",
            json!({}),
            "no such tool; the tools are pack_directory, pack_documents and count_tokens",
        ),
    ] {
        let result = call(&client, tool, arguments).await;
        assert_eq!(result.is_error, Some(true));
        assert_eq!(texts(&result), [format!("error[usage]: {message}")]);
    }
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "model": "nope"}),
    )
    .await;
    assert!(texts(&result)[0].starts_with("error[unknown-model]: "));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn summary_text_puts_the_summary_after_the_payload_and_declares_no_output_schema() {
    let client = connect(&repo(), &["--summary", "text"]).await;
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().all(|tool| tool.output_schema.is_none()));
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": guide_documents(), "budget": 112}),
    )
    .await;
    assert_eq!(result.structured_content, None);
    let blocks = texts(&result);
    assert_eq!(blocks.len(), 2);
    let summary: Value = serde_json::from_str(blocks[1]).unwrap();
    assert_eq!(
        oracle_count(Encoding::Cl100kBase, blocks[0]),
        summary["usedTokens"].as_u64().unwrap() as usize
    );
    client.cancel().await.unwrap();

    let client = connect(&repo(), &["--summary", "none"]).await;
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": guide_documents(), "budget": 112}),
    )
    .await;
    assert_eq!(texts(&result).len(), 1);
    assert_eq!(result.structured_content, None);
    client.cancel().await.unwrap();
}

#[test]
fn a_root_that_is_not_a_directory_is_a_usage_error() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_packer"))
        .args(["mcp", "--root", "Cargo.toml"])
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error[usage]: --root Cargo.toml is not a directory that can be read\n"
    );
}

#[tokio::test]
async fn packs_in_every_envelope_like_the_command_line_with_a_capped_note() {
    let client = connect(&repo(), &[]).await;
    for envelope in ["json", "xml", "markdown"] {
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": guide_documents(), "budget": 112, "envelope": envelope,
                   "noteOmissions": true, "noteOmissionsMax": 1}),
        )
        .await;
        let cli = std::process::Command::new(env!("CARGO_BIN_EXE_packer"))
            .args(["pack", "fixtures/guide.json", "--format", "payload"])
            .args([
                "--envelope",
                envelope,
                "--note-omissions",
                "--note-omissions-max",
                "1",
            ])
            .current_dir(repo())
            .output()
            .unwrap();
        assert_eq!(texts(&result), [String::from_utf8(cli.stdout).unwrap()]);
        let summary = result.structured_content.as_ref().unwrap();
        assert_eq!(summary["envelope"], envelope);
        assert_eq!(
            oracle_count(Encoding::Cl100kBase, texts(&result)[0]),
            summary["usedTokens"].as_u64().unwrap() as usize
        );
        assert!(summary["usedTokens"].as_u64().unwrap() <= 112);
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tokenizer_file_must_lie_inside_a_root_and_counts_with_its_name() {
    let client = connect(&repo(), &[]).await;
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "tokenizer": "/etc/passwd"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].starts_with("error[path-outside-root]"),
        "{:?}",
        texts(&result)
    );
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "tokenizer": "Cargo.toml", "encoding": "cl100k_base"}),
    )
    .await;
    assert_eq!(
        texts(&result),
        ["error[usage]: give at most one of the arguments 'encoding', 'model' and 'tokenizer'"]
    );
    // A file that is not there is named as `--tokenizer` names it.
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "tokenizer": "no-such-tokenizer.json"}),
    )
    .await;
    assert_eq!(
        texts(&result),
        [
            "error[unreadable-tokenizer]: cannot read the tokenizer file (entity not found); \
             check the path and its permissions"
        ]
    );
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "tokenizer": "tests/data/tokenizers/unigram-tokenizer.json"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].starts_with("error[unsupported-tokenizer]"),
        "{:?}",
        texts(&result)
    );
    client.cancel().await.unwrap();
}
