//! Packing for a query (SPEC §3.3): documents tried in their relevance to
//! a task, every guarantee kept, every decision with its rank and why.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common;

/// A small project: a core module that defines what the issue names, one
/// that uses it, unrelated modules, a test and a README.
fn project(dir: &Path) {
    let files: &[(&str, String)] = &[
        (
            "README.md",
            "# Shapes\nDraws shapes on a canvas.\n".to_owned(),
        ),
        (
            "src/lib.rs",
            "//! Shapes.\npub mod canvas;\npub mod circle;\npub mod color;\n".to_owned(),
        ),
        (
            "src/circle.rs",
            format!(
                "//! Circles.\n\n/// A circle.\npub struct Circle {{ pub radius: f64 }}\n\n\
                 impl Circle {{\n    /// The area of the circle.\n    pub fn area(&self) -> f64 {{\n        \
                 self.radius * self.radius * 3.0\n    }}\n}}\n{}",
                "// circle geometry notes\n".repeat(40)
            ),
        ),
        (
            "src/canvas.rs",
            "//! The canvas.\nuse crate::circle::Circle;\n\npub fn draw(c: &Circle) -> f64 { c.area() }\n"
                .to_owned(),
        ),
        (
            "src/color.rs",
            format!(
                "//! Colors.\npub fn rgb(r: u8, g: u8, b: u8) -> u32 {{ 0 }}\n{}",
                "// palette\n".repeat(200)
            ),
        ),
        (
            "tests/circle.rs",
            "#[test]\nfn circle_area_is_pi_r_squared() { let c = shapes::circle::Circle { radius: 1.0 }; assert!(c.area() > 3.1); }\n"
                .to_owned(),
        ),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    fs::write(
        dir.join("issue.txt"),
        "Circle::area is wrong\n\nThe `area` of a `Circle` uses 3.0 instead of pi, so circles \
         drawn on the canvas come out too small.\n",
    )
    .unwrap();
}

fn pack(dir: &Path, args: &[&str]) -> common::Run {
    let output = common::packer()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    common::Run {
        status: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

#[test]
fn a_query_tries_the_relevant_files_first_and_explains_each_decision() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let run = pack(
        dir.path(),
        &[
            "pack",
            "--dir",
            ".",
            "--budget",
            "400",
            "--glob",
            "!issue.txt",
            "--query-file",
            "issue.txt",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    // Exact and within the budget.
    let payload = json["payloadText"].as_str().unwrap();
    let oracle = common::oracle(packer::Encoding::Cl100kBase);
    assert_eq!(
        json["usedTokens"].as_u64().unwrap() as usize,
        oracle.encode_ordinary(payload).len()
    );
    assert!(json["usedTokens"].as_u64() <= json["availableTokens"].as_u64());
    // The file that defines what the issue names is first, and says why.
    let decisions = json["decisions"].as_array().unwrap();
    let by_id = |id: &str| decisions.iter().find(|d| d["id"] == id).unwrap();
    let circle = by_id("src/circle.rs");
    assert_eq!(circle["rank"], 1, "{decisions:#?}");
    assert_eq!(circle["selected"], true);
    let relevance = &circle["relevance"];
    assert!(relevance["score"].as_f64().unwrap() > 0.0);
    let symbols: Vec<&str> = relevance["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(symbols.contains(&"Circle"), "{relevance}");
    assert!(!relevance["terms"].as_array().unwrap().is_empty());
    assert_eq!(json["selectedIds"][0], "src/circle.rs");
    // Every document has a rank, 1 to n, each once.
    let mut ranks: Vec<u64> = decisions
        .iter()
        .map(|d| d["rank"].as_u64().unwrap())
        .collect();
    ranks.sort_unstable();
    assert_eq!(ranks, (1..=decisions.len() as u64).collect::<Vec<_>>());
    // The test, which names the circle too, ranks below the source.
    assert!(by_id("tests/circle.rs")["rank"].as_u64() > by_id("src/canvas.rs")["rank"].as_u64());
    // The same query on the command line gives the same bytes.
    let text = fs::read_to_string(dir.path().join("issue.txt")).unwrap();
    let again = pack(
        dir.path(),
        &[
            "pack",
            "--dir",
            ".",
            "--budget",
            "400",
            "--glob",
            "!issue.txt",
            "--query",
            &text,
            "--format",
            "json",
        ],
    );
    assert_eq!(again.stdout, run.stdout);
    // The report says the rank and the evidence.
    let report = pack(
        dir.path(),
        &[
            "pack",
            "--dir",
            ".",
            "--budget",
            "400",
            "--glob",
            "!issue.txt",
            "--query-file",
            "issue.txt",
            "--format",
            "report",
        ],
    );
    assert!(report.stdout.contains("rank 1"), "{}", report.stdout);
    assert!(report.stdout.contains("names "), "{}", report.stdout);
}

#[test]
fn without_a_query_nothing_changes_and_decisions_have_no_rank() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let run = pack(
        dir.path(),
        &["pack", "--dir", ".", "--budget", "400", "--format", "json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("\"rank\""));
    assert!(!run.stdout.contains("\"relevance\""));
}

#[test]
fn a_capture_is_ranked_by_its_text() {
    let dir = tempfile::tempdir().unwrap();
    let capture = serde_json::json!({
    "budget": {"contextTokens": 120, "reservedOtherInputTokens": 0,
               "reservedOutputTokens": 0, "safetyTokens": 0},
    "documents": [
        {"id": "weather", "url": "https://example.com/weather", "format": "text",
         "content": "Rain is expected tomorrow across the north.", "truncated": false},
        {"id": "tides", "url": "https://example.com/tides", "format": "text",
         "content": "High tide at the harbour is at noon; low tide at six.", "truncated": false},
        {"id": "recipes", "url": "https://example.com/recipes", "format": "text",
         "content": "Bake the bread for forty minutes.", "truncated": false},
    ]});
    fs::write(dir.path().join("capture.json"), capture.to_string()).unwrap();
    let run = pack(
        dir.path(),
        &[
            "pack",
            "capture.json",
            "--query",
            "when is high tide at the harbour",
            "--format",
            "json",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let json: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(json["selectedIds"][0], "tides");
    assert_eq!(json["decisions"][1]["rank"], 1);
}

#[test]
fn a_bad_query_is_a_usage_error_that_echoes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    for (args, said) in [
        (
            vec![
                "pack",
                "--dir",
                ".",
                "--budget",
                "400",
                "--query",
                "  the of a  ",
            ],
            "error[usage]: --query (or --query-file) has no word to rank the documents by",
        ),
        (
            vec![
                "pack",
                "--dir",
                ".",
                "--budget",
                "400",
                "--query",
                "circle area",
                "--policy",
                "max-fill",
            ],
            "error[usage]: --query (or --query-file) orders the documents by relevance",
        ),
        (
            vec!["pack", "-", "--query-file", "-"],
            "error[usage]: --query (or --query-file) reads standard input, and so does the fixture",
        ),
    ] {
        let run = pack(dir.path(), &args);
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("circle area"));
    }
}
