//! `--chat-format harmony`: gpt-oss requests rendered and counted as vLLM
//! renders them with the `openai-harmony` library, against
//! tests/data/requests/harmony-vectors.json (written by
//! scripts/hf-reference/make-harmony-vectors.py from openai-harmony
//! itself): every case's text and count, the held-out ones too; the whole
//! pack's `requestTokens` with the documents inside; and every request the
//! vectors list as refused, refused.

use std::path::Path;

use packer::chat::{ChatFormat, ChatRequest, Framing};
use packer::{Counter, Encoding};
use serde::Deserialize;

use crate::common;

#[derive(Deserialize)]
struct Vectors {
    today: String,
    conversations: usize,
    cases: Vec<Case>,
    #[serde(rename = "packDocuments")]
    pack_documents: Vec<serde_json::Value>,
    packs: Vec<Pack>,
    refused: Vec<Refused>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    #[serde(rename = "heldOut")]
    held_out: bool,
    request: Box<serde_json::value::RawValue>,
    payload: String,
    text: String,
    tokens: usize,
}

#[derive(Deserialize)]
struct Pack {
    name: String,
    request: Box<serde_json::value::RawValue>,
    payload: String,
    tokens: usize,
}

#[derive(Deserialize)]
struct Refused {
    name: String,
    request: Box<serde_json::value::RawValue>,
}

fn vectors() -> Vectors {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/requests/harmony-vectors.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Midnight UTC of a `YYYY-MM-DD` date.
fn midnight(date: &str) -> i64 {
    let parts: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let (y, m, d) = (parts[0], parts[1], parts[2]);
    let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
    (365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 719_469) * 86_400
}

fn framing(request: &str, now: i64) -> Result<Framing, packer::Error> {
    let request = ChatRequest::from_bytes(request.as_bytes())?;
    Framing::harmony_format(request, Counter::new(Encoding::O200kHarmony), now)
}

#[test]
fn requests_render_and_count_as_openai_harmony_does() {
    let vectors = vectors();
    let now = midnight(&vectors.today) + 43_200;
    let mut failures = vec![];
    for case in &vectors.cases {
        let rendered = framing(case.request.get(), now).and_then(|f| f.render(&case.payload));
        match rendered {
            Ok(rendered) if rendered.text == case.text && rendered.tokens == case.tokens => {}
            Ok(rendered) => failures.push(format!(
                "{} (held out: {}): {} tokens, want {}\n{:?}\nwant\n{:?}",
                case.name, case.held_out, rendered.tokens, case.tokens, rendered.text, case.text
            )),
            Err(error) => failures.push(format!("{}: {error}", case.name)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(vectors.conversations >= 24 && vectors.cases.len() >= 72);
    assert!(vectors.cases.iter().any(|case| case.held_out));
}

#[test]
fn what_vllm_releases_render_differently_is_refused() {
    let vectors = vectors();
    for case in &vectors.refused {
        let error = framing(case.request.get(), 0)
            .and_then(|f| f.render("x"))
            .map(|_| ())
            .expect_err(&case.name);
        assert_eq!(
            error.code(),
            "invalid-chat-request",
            "{}: {error}",
            case.name
        );
    }
    assert!(vectors.refused.len() >= 15);
}

#[test]
fn a_whole_pack_counts_the_request_as_openai_harmony_does() {
    let vectors = vectors();
    let now = midnight(&vectors.today) + 43_200;
    let fixture = serde_json::json!({
        "encoding": "o200k_harmony",
        "budget": {"contextTokens": 100_000, "reservedOtherInputTokens": 0, "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": vectors.pack_documents.iter().map(|d| serde_json::json!({
            "id": d["id"], "url": d["url"], "format": "text", "content": d["content"],
            "truncated": false,
        })).collect::<Vec<_>>(),
    });
    let fixture = packer::Fixture::from_bytes(
        fixture.to_string().as_bytes(),
        &packer::fixture::Limits::default(),
    )
    .unwrap();
    for pack in &vectors.packs {
        let chat = packer::Chat {
            request: ChatRequest::from_bytes(pack.request.get().as_bytes()).unwrap(),
            template: None,
            format: ChatFormat::Harmony,
            now,
            isolation: None,
            cancel: packer::Cancel::default(),
        };
        let request = packer::Request {
            chat: Some(chat),
            ..packer::RequestNames::default().build().unwrap()
        };
        let outcome = packer::pack(&fixture, &request)
            .unwrap_or_else(|f| panic!("{}: {}", pack.name, f.error()));
        let plan = &outcome.plan;
        assert_eq!(plan.payload_text, pack.payload, "{}", pack.name);
        let rendered = plan.request.as_ref().unwrap();
        assert_eq!(rendered.tokens, pack.tokens, "{}", pack.name);
        assert_eq!(plan.decisions.len(), 2);
    }
}

#[test]
fn the_command_line_and_a_trees_packer_toml_choose_harmonys_rendering() {
    let dir = tempfile::tempdir().unwrap();
    let request = serde_json::json!({"messages": [
        {"role": "system", "content": "Answer from the documents only."},
        {"role": "user", "content": "Docs:\n{{packer:documents}}\nWhich one?"}]});
    std::fs::write(dir.path().join("request.json"), request.to_string()).unwrap();
    std::fs::write(dir.path().join("README.md"), "# Tree\nA small tree.\n").unwrap();
    let tree = dir.path().display().to_string();
    let request_path = dir.path().join("request.json").display().to_string();
    let flags = [
        "--encoding",
        "o200k_harmony",
        "--budget",
        "2000",
        "--format",
        "json",
    ];
    let harmonys = |run: &common::Run| -> String {
        assert_eq!(run.status, 0, "{}", run.stderr);
        let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let text = out["requestText"].as_str().unwrap().to_owned();
        // vLLM's conversion: harmony's own system message, then the
        // request's system message as the developer's instructions.
        assert!(
            text.starts_with("<|start|>system<|message|>You are ChatGPT"),
            "{text}"
        );
        assert!(
            text.contains(
                "<|start|>developer<|message|># Instructions\n\nAnswer from the documents only.<|end|>"
            ),
            "{text}"
        );
        assert_eq!(out["requestTokens"], common::harmony_count(&text));
        text
    };
    let mut args = vec!["pack", "--dir", &tree, "--glob", "!request.json"];
    args.extend(flags);
    args.extend(["--request", &request_path, "--chat-format", "harmony"]);
    let flagged = harmonys(&common::run(&args, b""));
    // The same from the tree's packer.toml.
    std::fs::write(
        dir.path().join("packer.toml"),
        "request = \"request.json\"\nchat-format = \"harmony\"\nglobs = [\"!request.json\", \"!packer.toml\"]\n",
    )
    .unwrap();
    let mut args = vec!["pack", "--dir", &tree];
    args.extend(flags);
    let configured = harmonys(&common::run(&args, b""));
    assert_eq!(flagged, configured);
    // Without it, the Hugging Face template renders the same request
    // otherwise; a format with a template of its own is a usage error.
    std::fs::write(
        dir.path().join("packer.toml"),
        "request = \"request.json\"\nglobs = [\"!request.json\", \"!packer.toml\"]\n",
    )
    .unwrap();
    let run = common::run(&args, b"");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_ne!(out["requestText"].as_str().unwrap(), flagged);
    std::fs::write(dir.path().join("t.jinja"), "{{ messages[0].content }}").unwrap();
    let run = common::run(
        &[
            "pack",
            "--dir",
            &tree,
            "--budget",
            "2000",
            "--request",
            &request_path,
            "--chat-format",
            "harmony",
            "--chat-template",
            "t.jinja",
        ],
        b"",
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
}
