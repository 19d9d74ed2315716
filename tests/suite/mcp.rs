//! `packer mcp` as a client sees it: the binary started as a child process
//! and spoken to over standard input and output with rmcp's client, and
//! with raw lines as any client (or an attacker) may write them.
//! Payload counts are checked with tiktoken-rs, not with packer.

use crate::common;

use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

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
    let command = tokio::process::Command::from(common::packer()).configure(|c| {
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
            {"path": "keys.txt", "reason": "contains-secret", "rule": "aws-access-token"},
            // Links are not followed, and are said.
            {"path": "out-dir", "reason": "not-a-file"},
            {"path": "out-file", "reason": "not-a-file"}
        ])
    );
    // Hidden files, .git/, ignored files and links are never read.
    for never in ["hidden", "[core]", "ignored\\n", "outside the root", "AKIA"] {
        assert!(!payload.contains(never), "{never}");
    }
    // A directory packs as Markdown by default, each file named by its path.
    assert!(
        payload.ends_with("# Omitted documents (whole document does not fit)\n- src/long.rs\n"),
        "{payload}"
    );
    assert_eq!(summary["envelope"], "markdown");
    assert_eq!(summary["files"]["placedLast"], json!([]));
    client.cancel().await.unwrap();
}

/// `packer pack --dir DIR --format payload ARGS`, run in `cwd`.
fn cli_payload(cwd: &Path, args: &[&str]) -> String {
    let output = common::packer()
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
async fn a_query_packs_over_mcp_as_on_the_command_line() {
    let tree = Tree::new("query");
    let body = "    let x = 1;\n    let y = x + 1;\n".repeat(30);
    for (name, text) in [
        (
            "src/parser.rs",
            format!("/// Parses tokens.\npub fn parse_tokens() -> u32 {{\n{body}    3\n}}\n"),
        ),
        (
            "src/render.rs",
            format!("/// Renders pages.\npub fn render_page() -> u32 {{\n{body}    4\n}}\n"),
        ),
    ] {
        fs::write(tree.project().join(name), text).unwrap();
    }
    let client = connect(&tree.0, &["--root", "project"]).await;
    let query = "render_page draws the page twice";
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 400, "query": query}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let payload = texts(&result)[0].to_owned();
    assert_eq!(
        payload,
        cli_payload(
            &tree.0,
            &["--dir", "project", "--budget", "400", "--query", query]
        )
    );
    assert!(payload.contains("src/render.rs"), "{payload}");
    let summary = result.structured_content.as_ref().unwrap();
    assert_eq!(summary["selectedIds"][0], "src/render.rs", "{summary}");
    // An empty query is a tool error naming the argument.
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 400, "query": "  "}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].starts_with("error[usage]: the argument 'query' has no word"),
        "{:?}",
        texts(&result)
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_directory_pack_equals_the_command_lines_pack_dir() {
    let tree = Tree::new("same");
    fs::write(tree.project().join("list.txt"), "src/lib.rs\nREADME.md\n").unwrap();
    let body = "    let x = 1;\n    let y = x + 1;\n    let z = y * 2;\n".repeat(8);
    let big: String = (0..6)
        .map(|f| format!("/// Step {f}.\npub fn step_{f}() -> u32 {{\n{body}    3\n}}\n\n"))
        .collect();
    fs::write(tree.project().join("src/big.rs"), big).unwrap();
    let client = connect(&tree.0, &["--root", "project"]).await;
    let cases: [(Value, &[&str]); 5] = [
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
            ],
        ),
        (
            json!({"path": ".", "budget": 300, "tree": true}),
            &["--dir", "project", "--budget", "300", "--tree"],
        ),
        (
            json!({"path": "src", "budget": 200, "outline": true, "outlineShare": 10}),
            &[
                "--dir",
                "project/src",
                "--budget",
                "200",
                "--outline",
                "--outline-share",
                "10",
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
        if arguments["outline"] == true {
            assert!(texts(&result)[0].contains("## big.rs (outline: lines "));
        }
    }
    client.cancel().await.unwrap();
}

/// A directory's packer.toml is honoured over MCP as on the command line:
/// it fills what no argument gives, an argument wins over it, and a file
/// with an unknown key is refused with its line and column.
#[tokio::test]
async fn a_packer_toml_fills_what_no_argument_gives_as_on_the_command_line() {
    let tree = Tree::new("config");
    fs::write(
        tree.project().join("packer.toml"),
        "envelope = \"xml\"\npriorities = [\"src/**=3\"]\npolicy = \"priority\"\n\
         note-omissions = true\nnote-omissions-max = 1\nencoding = \"o200k_base\"\n",
    )
    .unwrap();
    let client = connect(&tree.0, &["--root", "project"]).await;
    let cases: [(Value, &[&str]); 2] = [
        (
            json!({"path": ".", "budget": 300}),
            &["--dir", "project", "--budget", "300"],
        ),
        (
            json!({"path": ".", "budget": 300, "envelope": "json", "priorities": ["README.md=9"]}),
            &[
                "--dir",
                "project",
                "--budget",
                "300",
                "--envelope",
                "json",
                "--priority",
                "README.md=9",
            ],
        ),
    ];
    for (arguments, cli_args) in cases {
        let result = call(&client, "pack_directory", arguments.clone()).await;
        assert_eq!(result.is_error, Some(false), "{arguments}: {result:?}");
        let payload = texts(&result)[0].to_owned();
        assert_eq!(payload, cli_payload(&tree.0, cli_args), "{arguments}");
        assert_eq!(
            oracle_count(Encoding::O200kBase, &payload),
            result.structured_content.as_ref().unwrap()["usedTokens"]
                .as_u64()
                .unwrap() as usize
        );
        if arguments.get("envelope").is_none() {
            assert!(payload.starts_with("<documents>\n<document index=\"1\" id=\"src/"));
            assert!(payload.contains("<omitted_documents>"), "{payload}");
        } else {
            assert!(payload.starts_with(r#"{"documents":[{"id":"README.md""#));
        }
    }
    fs::write(tree.project().join("packer.toml"), "budgett = 5\n").unwrap();
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 300}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let text = texts(&result).join("\n");
    assert!(
        text.contains("packer.toml") && text.contains("line 1"),
        "{text}"
    );
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
    let cli = common::packer()
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

/// `windows`: each call returns one window's payload, equal byte for byte
/// to the command line's, counted exactly, with the summary of every window.
#[tokio::test]
async fn packs_documents_into_windows_one_window_per_call() {
    let client = connect(&repo(), &[]).await;
    let cli = common::packer()
        .args([
            "pack",
            "fixtures/guide.json",
            "--windows",
            "--budget",
            "120",
        ])
        .current_dir(repo())
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&cli.stdout).unwrap();
    let count = cli["windowCount"].as_u64().unwrap() as usize;
    assert_eq!(count, 3);
    for window in 1..=count {
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": guide_documents(), "budget": 120, "windows": true, "window": window}),
        )
        .await;
        let text = texts(&result)[0];
        assert_eq!(
            text,
            cli["windows"][window - 1]["payloadText"].as_str().unwrap()
        );
        let summary = result.structured_content.as_ref().unwrap();
        assert_eq!(summary["window"], window);
        assert_eq!(summary["windowCount"], count);
        assert_eq!(summary["optimal"], true);
        assert_eq!(summary["windows"].as_array().unwrap().len(), count);
        assert_eq!(
            oracle_count(Encoding::Cl100kBase, text),
            summary["usedTokens"].as_u64().unwrap() as usize
        );
        assert_eq!(
            summary["selectedIds"],
            cli["windows"][window - 1]["selectedIds"]
        );
    }
    // A window past the last, or `window` without `windows`, is refused.
    for arguments in [
        json!({"documents": guide_documents(), "budget": 120, "windows": true, "window": 4}),
        json!({"documents": guide_documents(), "budget": 120, "window": 1}),
    ] {
        let result = call(&client, "pack_documents", arguments).await;
        assert_eq!(result.is_error, Some(true));
        assert!(
            texts(&result)[0].starts_with("error[usage]: the argument 'window'"),
            "{:?}",
            texts(&result)
        );
    }
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
    let output = common::packer()
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
        let cli = common::packer()
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
    client.cancel().await.unwrap();
    // A component packer cannot count exactly is refused, naming it.
    let tree = Tree::new("nmt");
    fs::write(
        tree.project().join("nmt-tokenizer.json"),
        r#"{"normalizer":{"type":"Nmt"},"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["▁a",-1.0]]}}"#,
    )
    .unwrap();
    let client = connect(&tree.project(), &[]).await;
    let result = call(
        &client,
        "count_tokens",
        json!({"text": "x", "tokenizer": "nmt-tokenizer.json"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        texts(&result)[0].starts_with("error[unsupported-tokenizer]")
            && texts(&result)[0].contains("the Nmt normalizer"),
        "{:?}",
        texts(&result)
    );
    client.cancel().await.unwrap();
}

/// `packer mcp ARGS` spoken to in raw lines, whatever they hold.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    answers: mpsc::Receiver<String>,
    next_id: i64,
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

impl Raw {
    /// Starts the server without a word said.
    fn silent(args: &[&str]) -> Raw {
        let mut child = common::packer()
            .arg("mcp")
            .args(args)
            .current_dir(repo())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Raw {
            stdin: child.stdin.take(),
            child,
            answers,
            next_id: 1000,
        }
    }

    /// Starts the server and initializes a session.
    fn start(args: &[&str]) -> Raw {
        let mut raw = Raw::silent(args);
        raw.send(INITIALIZE.as_bytes());
        assert_eq!(raw.answer()["id"], 0);
        raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        raw
    }

    /// Writes `line` and a newline.
    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of standard output, as JSON.
    fn answer(&self) -> Value {
        let line = self
            .answers
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers");
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"))
    }

    /// Writes `line`, then a ping, and returns what came back before the
    /// ping's answer: the answer to `line`, if it got one. The ping's
    /// answer shows that the server still serves.
    fn exchange(&mut self, line: &[u8]) -> Option<Value> {
        self.next_id += 1;
        let ping = self.next_id;
        self.send(line);
        self.send(format!(r#"{{"jsonrpc":"2.0","id":{ping},"method":"ping"}}"#).as_bytes());
        let mut answers = Vec::new();
        loop {
            let answer = self.answer();
            if answer["id"] == ping {
                assert_eq!(answer["result"], json!({}), "{answer}");
                break;
            }
            answers.push(answer);
        }
        // A tool's answer may come after the ping's.
        if answers.is_empty() && line.windows(10).any(|w| w == b"tools/call") {
            answers.push(self.answer());
        }
        assert!(answers.len() <= 1, "{answers:?}");
        answers.pop()
    }

    /// Closes standard input and returns standard error.
    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        assert!(self.child.wait().unwrap().success());
        stderr
    }
}

#[test]
fn three_hundred_calls_at_once_are_each_answered_and_the_server_lives() {
    let tree = Tree::new("many-calls");
    for i in 0..200 {
        fs::write(
            tree.project().join(format!("src/file{i}.rs")),
            format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(40),
        )
        .unwrap();
    }
    let root = tree.project().display().to_string();
    let mut raw = Raw::start(&["--root", &root, "--max-calls", "2"]);
    let calls = 300;
    for id in 1..=calls {
        raw.send(tool_call(id, "pack_directory", r#"{"path": ".", "budget": 3000}"#).as_bytes());
    }
    let mut answered = std::collections::BTreeSet::new();
    let (mut packed, mut busy) = (0, 0);
    for _ in 0..calls {
        let answer = raw.answer();
        assert!(answered.insert(answer["id"].as_i64().unwrap()), "{answer}");
        if answer["result"]["isError"] == true {
            let text = tool_error(&answer);
            assert!(
                text.starts_with(
                    "error[busy]: the server is already packing 2 calls with 64 more waiting"
                ),
                "{text}"
            );
            busy += 1;
        } else {
            assert!(
                answer["result"]["content"][0]["text"].is_string(),
                "{answer}"
            );
            packed += 1;
        }
    }
    assert_eq!(answered.len(), calls as usize);
    assert!(packed >= 2, "{packed} packed, {busy} busy");
    // Still serving.
    assert!(
        raw.exchange(br#"{"jsonrpc":"2.0","id":5000,"method":"ping"}"#)
            .is_some()
    );
    let stderr = raw.finish();
    assert_eq!(stderr.matches("error[busy]").count(), busy, "{stderr}");
}

#[test]
fn a_cancelled_call_stops_and_the_next_one_is_served() {
    let tree = Tree::new("cancelled");
    let root = tree.project().display().to_string();
    let mut raw = Raw::start(&["--root", &root, "--max-calls", "1"]);
    raw.send(tool_call(1, "pack_directory", r#"{"path": ".", "budget": 3000}"#).as_bytes());
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    raw.send(tool_call(2, "pack_directory", r#"{"path": ".", "budget": 3000}"#).as_bytes());
    // The second call is answered; the first is answered before it was
    // cancelled, or not at all.
    let mut ids = Vec::new();
    loop {
        let answer = raw.answer();
        ids.push(answer["id"].as_i64().unwrap());
        if answer["id"] == 2 {
            assert_eq!(answer["result"]["isError"], false, "{answer}");
            break;
        }
    }
    assert!(ids.iter().all(|&id| id == 1 || id == 2), "{ids:?}");
    raw.finish();
}

#[test]
fn a_cancelled_call_ends_its_template_worker_at_once() {
    let tree = Tree::new("cancelled-template");
    let project = tree.project();
    // A template that renders for minutes (its worker's time limit is 600 s).
    fs::write(
        project.join("slow.jinja"),
        "{% set ns = namespace(x=[0]) %}{% for i in range(100000) %}{% for j in range(100000) %}\
         {% set ns.x = ns.x + ns.x[:100] %}{% endfor %}{% endfor %}{{ ns.x|length }}",
    )
    .unwrap();
    let root = project.display().to_string();
    let mut raw = Raw::start(&[
        "--root",
        &root,
        "--max-calls",
        "1",
        "--template-seconds",
        "600",
    ]);
    let arguments = json!({"path": ".", "budget": 3000, "encoding": "o200k_harmony",
                           "request": chat_request(), "chatTemplate": "slow.jinja"});
    raw.send(tool_call(1, "pack_directory", &arguments.to_string()).as_bytes());
    let waited = cancel_then_call(
        &mut raw,
        "pack_directory",
        r#"{"path": ".", "budget": 3000}"#,
    );
    // The one place was freed when the worker was ended, not when its
    // 600 s ran out (a generous bound for a loaded machine).
    assert!(waited < std::time::Duration::from_secs(120), "{waited:?}");
    raw.finish();
}

#[test]
fn a_cancelled_count_stops_and_the_next_call_is_served() {
    let tree = Tree::new("cancelled-count");
    let project = tree.project();
    // A Unigram file whose every piece of "a" up to 256 bytes is a token:
    // each position of a text of "a" tries 256 tokens, so counting 2 MB
    // takes seconds, and minutes in a debug build.
    let mut vocab = vec![json!(["<unk>", 0.0])];
    vocab.extend((1..=256).map(|n| json!(["a".repeat(n), -(n as f64)])));
    let file = json!({"version": "1.0", "added_tokens": [], "normalizer": null,
                      "pre_tokenizer": null, "model": {"type": "Unigram", "unk_id": 0,
                      "vocab": vocab, "byte_fallback": false}});
    fs::write(project.join("slow.json"), file.to_string()).unwrap();
    let root = project.display().to_string();
    let mut raw = Raw::start(&["--root", &root, "--max-calls", "1"]);
    let arguments = json!({"text": "a".repeat(2_000_000), "tokenizer": "slow.json"});
    raw.send(tool_call(1, "count_tokens", &arguments.to_string()).as_bytes());
    let waited = cancel_then_call(&mut raw, "count_tokens", r#"{"text": "hello"}"#);
    // The count stopped at its next checkpoint and freed the one place (a
    // generous bound for a loaded machine; the count alone takes minutes
    // in this build).
    assert!(waited < std::time::Duration::from_secs(60), "{waited:?}");
    raw.finish();
}

/// Half a second after call 1 began, cancels it and calls `tool` with
/// `arguments` as call 2; returns how long call 2 took to be answered
/// (without an error).
fn cancel_then_call(raw: &mut Raw, tool: &str, arguments: &str) -> std::time::Duration {
    std::thread::sleep(std::time::Duration::from_millis(500));
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    let started = std::time::Instant::now();
    raw.send(tool_call(2, tool, arguments).as_bytes());
    loop {
        let answer = raw.answer();
        if answer["id"] == 2 {
            assert_eq!(answer["result"]["isError"], false, "{answer}");
            return started.elapsed();
        }
    }
}

/// A tools/call request line.
fn tool_call(id: i64, name: &str, arguments: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{arguments}}}}}"#
    )
}

/// The error code and id of an error answer.
fn error_of(answer: &Value) -> (i64, Value) {
    (
        answer["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{answer}")),
        answer["id"].clone(),
    )
}

/// The text of a tool error.
fn tool_error(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

#[test]
fn every_malformed_request_gets_its_error_and_the_server_keeps_serving() {
    let mut raw = Raw::start(&[]);
    let deep = "[".repeat(100_000);
    let closed = format!("{deep}{}", "]".repeat(100_000));
    for (line, code, id) in [
        ("not json".to_owned(), -32700, json!(null)),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"#.to_owned(),
            -32700,
            json!(null),
        ),
        (deep.clone(), -32700, json!(null)),
        (
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{"a":{closed}}}}}"#),
            -32600,
            json!(2),
        ),
        (
            r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#.to_owned(),
            -32600,
            json!(null),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"p\ud800"}"#.to_owned(),
            -32600,
            json!("s"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":4.5,"method":"ping"}"#.to_owned(),
            -32600,
            json!(null),
        ),
        (
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#.to_owned(),
            -32600,
            json!(null),
        ),
        (
            r#"{"jsonrpc":"1.0","id":5,"method":"ping"}"#.to_owned(),
            -32600,
            json!(5),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":"x"}"#.to_owned(),
            -32600,
            json!(6),
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}"#.to_owned(),
            -32600,
            json!(null),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}"#.to_owned(),
            -32602,
            json!(9),
        ),
        (
            tool_call(10, "count_tokens", r#""text""#),
            -32602,
            json!(10),
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{}}"#.to_owned(),
            -32602,
            json!(11),
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call"}"#.to_owned(),
            -32602,
            json!(12),
        ),
        (
            r#"{"jsonrpc":"2.0","id":13,"method":"no/such/method"}"#.to_owned(),
            -32601,
            json!(13),
        ),
        (r#"{"jsonrpc":"2.0","id":14}"#.to_owned(), -32600, json!(14)),
    ] {
        let answer = raw
            .exchange(line.as_bytes())
            .unwrap_or_else(|| panic!("{line:.80}"));
        assert_eq!(error_of(&answer), (code, id), "{line:.80}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0");
    }
    assert_eq!(
        raw.exchange(b"\xFF\xFE{}"),
        Some(json!({
            "jsonrpc": "2.0", "id": null,
            "error": {"code": -32700, "message": "Parse error: the message is not valid UTF-8 at byte 0"}
        }))
    );
    // Messages name what is wrong, never what the line held.
    let answer = raw
        .exchange(br#"{"jsonrpc":"1.0","id":"hunter2","method":"ping"}"#)
        .unwrap();
    assert_eq!(
        answer["error"]["message"],
        r#"Invalid Request: "jsonrpc" must be "2.0""#
    );
    let stderr = raw.finish();
    assert!(!stderr.contains("hunter2"), "{stderr}");
}

#[test]
fn malformed_notifications_get_no_answer() {
    let mut raw = Raw::start(&[]);
    for line in [
        r#"{"jsonrpc":"1.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1,"a":2}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\udc00"}}"#,
        "",
    ] {
        assert_eq!(raw.exchange(line.as_bytes()), None, "{line}");
    }
    raw.finish();
}

#[test]
fn a_notification_before_initialize_does_not_end_the_session() {
    let mut raw = Raw::silent(&[]);
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    raw.send(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    raw.send(INITIALIZE.as_bytes());
    assert_eq!(raw.answer()["id"], 0);
    raw.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(
        raw.exchange(tool_call(2, "count_tokens", r#"{"text":"hi"}"#).as_bytes())
            .unwrap()["result"]["content"][0]["text"],
        "1"
    );
    raw.finish();
}

#[test]
fn a_message_just_under_the_limit_is_served_and_one_just_over_is_refused_and_skipped() {
    // --max-input-bytes 1000: a message may be 1000 + 65536 bytes.
    let limit = 1000 + 65536;
    let mut raw = Raw::start(&["--max-input-bytes", "1000"]);
    let text = "a".repeat(998); // 1000 bytes of JSON with its quotes
    let padded = |length: usize, id: i64| {
        // The id last, as some clients write it.
        let head = format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"count_tokens","arguments":{{"text":"{text}"}}}}"#
        );
        let tail = format!(r#","id":{id}}}"#);
        format!(
            "{head}{}{tail}",
            " ".repeat(length - head.len() - tail.len())
        )
    };
    let under = padded(limit, 1);
    assert_eq!(under.len(), limit);
    let answer = raw.exchange(under.as_bytes()).unwrap();
    assert_eq!(answer["id"], 1);
    let expected = oracle_count(Encoding::Cl100kBase, &text).to_string();
    assert_eq!(
        answer["result"]["content"][0]["text"],
        expected.as_str(),
        "{answer}"
    );

    let over = padded(limit + 1, 2);
    let answer = raw.exchange(over.as_bytes()).unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32600, "message": format!(
            "Invalid Request: the message is longer than this server's limit of {limit} bytes \
             (--max-input-bytes 1000 plus 65536 for the rest of the message); start the server \
             with `packer mcp --max-input-bytes N` to accept larger documents"
        )}})
    );
    // Far over, without a newline for a while: read through, not kept.
    let far = padded(8 * limit, 3);
    assert_eq!(
        error_of(&raw.exchange(far.as_bytes()).unwrap()),
        (-32600, json!(3))
    );

    // The text itself over the limit, in a short message: the tool says so.
    let answer = raw
        .exchange(tool_call(4, "count_tokens", &format!(r#"{{"text":"{text}ab"}}"#)).as_bytes())
        .unwrap();
    assert_eq!(
        tool_error(&answer),
        "error[input-too-large]: the input is 1002 bytes, more than the limit of 1000; raise \
         --max-input-bytes to accept it"
    );
    raw.finish();
}

#[test]
fn arguments_are_read_as_strictly_as_a_fixture_file() {
    let mut raw = Raw::start(&[]);
    let document = r#"{"id":"a","url":"https://example.com/","format":"text","content":"x","truncated":false}"#;
    let twice = r#"{"id":"a","id":"b","url":"https://example.com/","format":"text","content":"x","truncated":false}"#;

    // The command line refuses a key twice in a fixture...
    let dir = tempfile::tempdir().unwrap();
    let fixture = dir.path().join("twice.json");
    fs::write(&fixture, format!(r#"{{"documents":[{twice}]}}"#)).unwrap();
    let cli = common::packer()
        .args(["pack", "--budget", "100"])
        .arg(&fixture)
        .output()
        .unwrap();
    assert_eq!(cli.status.code(), Some(3));
    assert_eq!(
        String::from_utf8(cli.stderr).unwrap(),
        "error[invalid-schema]: the fixture at line 1 column 28 has the same key twice\n"
    );
    // ...and so does the server, with the column in the request line.
    let line = tool_call(
        1,
        "pack_documents",
        &format!(r#"{{"budget":100,"documents":[{twice}]}}"#),
    );
    let column = line.find(r#""id":"b""#).unwrap() + 4;
    let answer = raw.exchange(line.as_bytes()).unwrap();
    assert_eq!(
        tool_error(&answer),
        format!(
            "error[invalid-schema]: the request at line 1 column {column} has the same key twice"
        )
    );
    // Anywhere in the arguments.
    let line = tool_call(
        2,
        "pack_documents",
        &format!(r#"{{"budget":100,"documents":[{document}],"budget":1}}"#),
    );
    let column = line.rfind(r#""budget""#).unwrap() + 8;
    assert_eq!(
        tool_error(&raw.exchange(line.as_bytes()).unwrap()),
        format!(
            "error[invalid-schema]: the request at line 1 column {column} has the same key twice"
        )
    );
    let line = tool_call(3, "count_tokens", r#"{"text":"a\ud800b"}"#);
    let column = line.find(r"\ud800").unwrap() + 1;
    assert_eq!(
        tool_error(&raw.exchange(line.as_bytes()).unwrap()),
        format!(
            "error[unpaired-surrogate]: a string has an unpaired surrogate escape at line 1 column {column}"
        )
    );
    let line = tool_call(
        4,
        "count_tokens",
        &format!(
            r#"{{"text":"x","model":{}{}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        ),
    );
    assert!(
        tool_error(&raw.exchange(line.as_bytes()).unwrap())
            .starts_with("error[invalid-json]: the input nests arrays or objects deeper than 128 levels at line 1 column "),
    );
    // Written as the client wrote them: the same pack as the command line's.
    let line = tool_call(
        5,
        "pack_documents",
        &format!(r#"{{"budget":100,"documents":[{document}]}}"#),
    );
    let answer = raw.exchange(line.as_bytes()).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(
        answer["result"]["content"][0]["text"],
        r#"{"documents":[{"id":"a","url":"https://example.com/","format":"text","content":"x"}]}"#
    );
    raw.finish();
}

#[test]
fn the_log_shows_a_clients_tool_name_escaped_and_cut_short() {
    let mut raw = Raw::start(&[]);
    let name = format!(
        r"evil\n\u001b[31mpacker mcp: forged\u0000{}",
        "x".repeat(10_000)
    );
    let answer = raw.exchange(tool_call(1, &name, "{}").as_bytes()).unwrap();
    assert!(tool_error(&answer).starts_with("error[usage]: no such tool"));
    let stderr = raw.finish();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[1].starts_with(r"packer mcp: evil\u{000A}\u{001B}[31mpacker mcp: forged\u{0000}xxx"),
        "{stderr}"
    );
    assert!(lines[1].ends_with("... failed: error[usage]"), "{stderr}");
    assert!(lines[1].len() < 200, "{stderr}");
}

// Whole chat requests (`request`, `chatTemplate`; SPEC §2.4).

/// tiktoken-rs's count of a rendered gpt-oss request: every special token
/// allowed (no message in these tests writes one).
fn harmony_count(text: &str) -> usize {
    let oracle = common::oracle(Encoding::O200kHarmony);
    oracle
        .encode(text, &oracle.special_tokens())
        .unwrap()
        .0
        .len()
}

fn chat_request() -> Value {
    json!({"messages": [
        {"role": "system", "content": "Answer from the documents only."},
        {"role": "user", "content": "Documents:\n{{packer:documents}}\n\nWhich one says what?"}
    ]})
}

fn chat_documents() -> Value {
    (0..8)
        .map(|i| {
            json!({"id": format!("d{i}"), "url": format!("https://example.com/{i}"),
                   "format": "text", "truncated": false,
                   "content": format!("Document {i} says {}.", "worth reading ".repeat(i * 4 + 1))})
        })
        .collect()
}

#[tokio::test]
async fn a_chat_request_is_counted_whole_and_returned_rendered() {
    let tree = Tree::new("chat");
    let client = connect(&tree.project(), &[]).await;
    for budget in [250u64, 400, 700] {
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": chat_documents(), "budget": budget,
                   "encoding": "o200k_harmony", "request": chat_request()}),
        )
        .await;
        assert_eq!(result.is_error, Some(false), "{result:?}");
        let text = texts(&result)[0];
        let summary = result.structured_content.as_ref().unwrap();
        let tokens = summary["requestTokens"].as_u64().unwrap();
        assert_eq!(tokens as usize, harmony_count(text), "{budget}");
        assert!(tokens <= budget, "{budget}");
        assert_eq!(summary["availableTokens"], budget);
        // The payload is in the request, where the placeholder was, and
        // usedTokens is its own count.
        let payload = text
            .split_once("Documents:\n")
            .and_then(|(_, rest)| rest.split_once("\n\nWhich one says what?"))
            .unwrap()
            .0;
        assert!(payload.starts_with(r#"{"documents":["#), "{payload}");
        assert_eq!(
            summary["usedTokens"],
            oracle_count(Encoding::O200kHarmony, payload)
        );
        // Everything else: the request with the empty envelope in its place.
        let empty = text.replace(payload, r#"{"documents":[]}"#);
        assert_eq!(summary["otherInputTokens"], harmony_count(&empty));
        if budget < 700 {
            assert!(
                !summary["skipped"].as_array().unwrap().is_empty(),
                "{budget}"
            );
        }
    }
    // A directory packs into a request the same way.
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 300, "encoding": "o200k_harmony",
               "request": chat_request()}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = texts(&result)[0];
    let summary = result.structured_content.as_ref().unwrap();
    assert_eq!(summary["requestTokens"], harmony_count(text));
    assert!(text.contains("# README.md"), "{text}");
    assert_eq!(summary["skipped"][0]["id"], "src/long.rs");
    // Without a request the summary has neither count.
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": chat_documents(), "budget": 300}),
    )
    .await;
    let summary = result.structured_content.as_ref().unwrap();
    assert!(summary.get("requestTokens").is_none());
    assert!(summary.get("otherInputTokens").is_none());
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_chat_template_inside_the_root_renders_the_request() {
    let tree = Tree::new("chat-template");
    fs::write(
        tree.project().join("chat.jinja"),
        "{% for m in messages %}<|start|>{{ m.role }}<|message|>{{ m.content }}<|end|>\
         {% endfor %}{% if add_generation_prompt %}<|start|>assistant{% endif %}",
    )
    .unwrap();
    let client = connect(&tree.project(), &[]).await;
    let documents = json!([{"id": "a", "url": "https://example.com/a", "format": "text",
                            "truncated": false, "content": "Alpha."}]);
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": documents, "budget": 200, "encoding": "o200k_harmony",
               "chatTemplate": "chat.jinja",
               "request": {"messages": [{"role": "user", "content": "Docs: {{packer:documents}}"}]}}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let expected = "<|start|>user<|message|>Docs: \
                    {\"documents\":[{\"id\":\"a\",\"url\":\"https://example.com/a\",\"format\":\"text\",\"content\":\"Alpha.\"}]}\
                    <|end|><|start|>assistant";
    assert_eq!(texts(&result), [expected]);
    let summary = result.structured_content.as_ref().unwrap();
    assert_eq!(summary["requestTokens"], harmony_count(expected));
    assert_eq!(
        summary["otherInputTokens"],
        harmony_count("<|start|>user<|message|>Docs: {\"documents\":[]}<|end|><|start|>assistant")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_hostile_chat_template_is_a_tool_error_and_the_server_serves_on() {
    let tree = Tree::new("chat-hostile");
    fs::write(
        tree.project().join("deep.jinja"),
        "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}\
         {% endfor %}{{ ns.x }}",
    )
    .unwrap();
    fs::write(
        tree.project().join("huge.jinja"),
        "{{ messages|tojson(indent=1000000000000) }}",
    )
    .unwrap();
    fs::write(
        tree.project().join("chat.jinja"),
        "<|start|>user<|message|>{{ messages[0].content }}<|end|>",
    )
    .unwrap();
    let client = connect(&tree.project(), &["--template-memory", "256"]).await;
    let documents = json!([{"id": "a", "url": "https://example.com/a", "format": "text",
                            "truncated": false, "content": "Alpha."}]);
    let pack = |template: &str| {
        call(
            &client,
            "pack_documents",
            json!({"documents": documents, "budget": 200, "encoding": "o200k_harmony",
                   "chatTemplate": template,
                   "request": {"messages": [{"role": "user", "content": "Docs: {{packer:documents}}"}]}}),
        )
    };
    for (template, said) in [
        (
            "deep.jinja",
            "nested a value deeper than its renderer's stack",
        ),
        (
            "huge.jinja",
            "asked for more than 256 MiB while it rendered, its limit; it was stopped (raise the \
             limit with `packer mcp --template-memory`",
        ),
    ] {
        let result = pack(template).await;
        assert_eq!(result.is_error, Some(true), "{result:?}");
        let text = texts(&result)[0];
        assert!(
            text.starts_with("error[chat-template-limit]: "),
            "{template}: {text}"
        );
        assert!(text.contains(said), "{template}: {text}");
    }
    // The server is alive, and an honest template renders.
    let result = pack("chat.jinja").await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn chat_requests_are_refused_with_codes_that_echo_nothing() {
    let tree = Tree::new("chat-refused");
    let client = connect(&tree.project(), &[]).await;
    let documents = chat_documents();
    let refused = |result: &CallToolResult| {
        assert_eq!(result.is_error, Some(true), "{result:?}");
        texts(result)[0].to_owned()
    };
    // OpenAI's API encodings: the framing is not published.
    let result = call(
        &client,
        "pack_documents",
        json!({"documents": documents, "budget": 500, "encoding": "cl100k_base",
               "request": chat_request()}),
    )
    .await;
    let text = refused(&result);
    assert!(
        text.starts_with(
            "error[request-framing-unknown]: the argument 'request' needs a chat template"
        ),
        "{text}"
    );
    assert!(
        text.contains("drop the argument 'request' and keep a lower argument 'budget'"),
        "{text}"
    );
    assert!(!text.contains("--"), "{text}");
    // A chat template outside the roots: a path, an escape, a link leading out.
    let outside = tree.0.join("outside/secret.txt").display().to_string();
    for template in [outside.as_str(), "../outside/secret.txt", "out-file"] {
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": documents, "budget": 500, "encoding": "o200k_harmony",
                   "request": chat_request(), "chatTemplate": template}),
        )
        .await;
        let text = refused(&result);
        assert!(
            text.starts_with("error[path-outside-root]: "),
            "{template}: {text}"
        );
        assert!(!text.contains("outside the root\n"), "{text}");
    }
    // A template beside a tokenizer file inside the root that is a link
    // leading out is not read either.
    #[cfg(unix)]
    {
        let model = tree.project().join("model");
        fs::create_dir_all(&model).unwrap();
        fs::copy(
            repo().join("tests/data/tokenizers/added-tokens-tokenizer.json"),
            model.join("tokenizer.json"),
        )
        .unwrap();
        fs::write(
            tree.0.join("outside/chat_template.jinja"),
            "OUTSIDE-MARKER {{ messages[0].content }}",
        )
        .unwrap();
        std::os::unix::fs::symlink(
            tree.0.join("outside/chat_template.jinja"),
            model.join("chat_template.jinja"),
        )
        .unwrap();
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": documents, "budget": 500, "tokenizer": "model/tokenizer.json",
                   "request": chat_request()}),
        )
        .await;
        let text = refused(&result);
        assert!(
            text.starts_with("error[invalid-chat-template]: the chat template file cannot be read"),
            "{text}"
        );
        assert!(!text.contains("OUTSIDE-MARKER"), "{text}");
        // The same links when the directory's packer.toml names the
        // request: the template beside the tokenizer, then its
        // tokenizer_config.json, each a link leading out.
        fs::create_dir_all(tree.project().join("chat")).unwrap();
        fs::write(
            tree.project().join("chat/request.json"),
            chat_request().to_string(),
        )
        .unwrap();
        fs::write(
            tree.project().join("packer.toml"),
            "request = \"chat/request.json\"\n",
        )
        .unwrap();
        let pack = || {
            call(
                &client,
                "pack_directory",
                json!({"path": ".", "budget": 4000, "tokenizer": "model/tokenizer.json"}),
            )
        };
        let text = refused(&pack().await);
        assert!(
            text.starts_with("error[invalid-chat-template]: the chat template file cannot be read"),
            "{text}"
        );
        assert!(!text.contains("OUTSIDE-MARKER"), "{text}");
        fs::remove_file(model.join("chat_template.jinja")).unwrap();
        fs::write(
            tree.0.join("outside/tokenizer_config.json"),
            r#"{"chat_template": "OUTSIDE-MARKER {{ messages[0].content }}"}"#,
        )
        .unwrap();
        std::os::unix::fs::symlink(
            tree.0.join("outside/tokenizer_config.json"),
            model.join("tokenizer_config.json"),
        )
        .unwrap();
        let text = refused(&pack().await);
        assert!(
            text.starts_with(
                "error[invalid-chat-template]: the chat template source tokenizer_config.json \
                 cannot be read"
            ),
            "{text}"
        );
        assert!(!text.contains("OUTSIDE-MARKER"), "{text}");
        fs::remove_file(tree.project().join("packer.toml")).unwrap();
    }
    // Malformed requests: coded, and nothing of them in the message.
    for request in [
        json!({"messages": [{"role": "user", "content": "SECRET text, no placeholder"}]}),
        json!({"messages": [{"role": "user", "content": "{{packer:documents}}"}],
               "SECRET-key": 1}),
        json!({"messages": [{"content": "{{packer:documents}} SECRET"}]}),
        json!({"messages": [{"role": "user",
                             "content": "{{packer:documents}} {{packer:documents}} SECRET"}]}),
        json!({"messages": []}),
    ] {
        let result = call(
            &client,
            "pack_documents",
            json!({"documents": documents, "budget": 500, "encoding": "o200k_harmony",
                   "request": request}),
        )
        .await;
        let text = refused(&result);
        assert!(
            text.starts_with("error[invalid-chat-request]: the argument 'request' "),
            "{request}: {text}"
        );
        assert!(!text.contains("SECRET"), "{text}");
    }
    // A path where the object goes, windows, a template without a request.
    for (arguments, says) in [
        (
            json!({"documents": documents, "budget": 500, "request": "SECRET/request.json"}),
            "error[usage]: the argument 'request' must be an object",
        ),
        (
            json!({"documents": documents, "budget": 500, "encoding": "o200k_harmony",
                   "request": chat_request(), "windows": true}),
            "error[usage]: the argument 'windows' does not take the argument 'request'",
        ),
        (
            json!({"documents": documents, "budget": 500, "chatTemplate": "chat.jinja"}),
            "error[usage]: the argument 'chatTemplate' needs the argument 'request'",
        ),
    ] {
        let text = refused(&call(&client, "pack_documents", arguments).await);
        assert!(text.starts_with(says), "{text}");
        assert!(!text.contains("SECRET"), "{text}");
    }
    let result = call(
        &client,
        "pack_directory",
        json!({"path": ".", "budget": 500, "encoding": "o200k_harmony",
               "request": chat_request(), "windows": true}),
    )
    .await;
    assert!(refused(&result).starts_with("error[usage]: the argument 'windows' does not take"));
    client.cancel().await.unwrap();
}

/// The same `pack_directory` call on an unchanged tree gets the answer it
/// got, said on standard error; a changed, added or unignored file packs
/// again, and a tree changed within the last two seconds is never kept.
#[test]
fn an_unchanged_tree_is_answered_as_before_and_any_change_packs_again() {
    let tree = Tree::new("kept");
    let project = tree.project();
    let root = project.display().to_string();
    let mut raw = Raw::start(&["--root", &root]);
    let call = r#"{"path": ".", "budget": 3000, "envelope": "json"}"#;
    let mut next = 0;
    let mut pack = |raw: &mut Raw| {
        next += 1;
        raw.send(tool_call(next, "pack_directory", call).as_bytes());
        let answer = raw.answer();
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // Just written: not kept.
    let first = pack(&mut raw);
    assert_eq!(pack(&mut raw), first);
    // Settled (every change over two seconds old): kept, and given again.
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!(pack(&mut raw), first);
    assert_eq!(pack(&mut raw), first);
    // The same size, other text.
    fs::write(
        project.join("src/lib.rs"),
        "pub fn answer() -> u32 {\n    43\n}\n",
    )
    .unwrap();
    let changed = pack(&mut raw);
    assert!(
        changed.contains("43") && !changed.contains("42"),
        "{changed}"
    );
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!(pack(&mut raw), changed);
    assert_eq!(pack(&mut raw), changed);
    // A new file, and a file the .gitignore no longer leaves out (the
    // file rewritten in place: its directory's times stay).
    fs::write(project.join("src/new.rs"), "pub fn new() {}\n").unwrap();
    let added = pack(&mut raw);
    assert!(added.contains("src/new.rs"), "{added}");
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!(pack(&mut raw), added);
    assert_eq!(pack(&mut raw), added);
    fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(project.join(".gitignore"))
        .unwrap();
    let unignored = pack(&mut raw);
    assert!(unignored.contains("ignored.txt"), "{unignored}");
    let stderr = raw.finish();
    // The second call after each settling (calls 4, 7 and 10) was
    // answered as before; no other.
    assert_eq!(
        stderr
            .matches("pack_directory answered as before: the tree has not changed")
            .count(),
        3,
        "{stderr}"
    );
}
