//! packer against an independent reference: npm tiktoken's `encode_ordinary`
//! and a naive packer that serializes and fully counts every candidate
//! envelope (`scripts/reference/`, which generated `tests/data/`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use packer::output::{Format, render};
use packer::{Counter, Encoding, Fixture, Limits, Options, Policy, Request};
use serde::Deserialize;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Deserialize)]
struct Vector {
    encoding: String,
    name: String,
    text: String,
    count: usize,
}

#[test]
fn counts_match_npm_tiktoken_on_every_vector() {
    let text = fs::read_to_string(root().join("tests/data/count-vectors.json")).unwrap();
    let vectors: Vec<Vector> = serde_json::from_str(&text).unwrap();
    assert!(vectors.len() >= 6 * 60, "the vector table is incomplete");
    let mut failures = Vec::new();
    for vector in &vectors {
        let encoding: Encoding = vector.encoding.parse().unwrap();
        let count = Counter::new(encoding).count(&vector.text);
        if count != vector.count {
            failures.push(format!(
                "{} {}: {} != {}",
                vector.encoding, vector.name, count, vector.count
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

fn options_for(variant: &str) -> Options {
    let (policy, note_omissions) = match variant.split_once('+') {
        Some((policy, "note-omissions")) => (policy, true),
        _ => (variant, false),
    };
    let policy = Policy::ALL
        .into_iter()
        .find(|p| p.name() == policy)
        .unwrap();
    Options {
        policy,
        note_omissions,
        ..Options::default()
    }
}

fn run(fixture: &Fixture, options: Options) -> Value {
    let request = Request {
        options,
        ..Request::default()
    };
    match packer::pack(fixture, &request) {
        Ok(outcome) => serde_json::from_str(&render(fixture, &outcome, Format::Json)).unwrap(),
        Err(error) => serde_json::json!({ "error": error.code() }),
    }
}

fn source_of(expected: &Path) -> PathBuf {
    let name = expected.file_name().unwrap().to_str().unwrap();
    if let Some(file) = name.strip_prefix("fixture-") {
        root().join("fixtures").join(file)
    } else {
        let file = name.strip_prefix("conformance-").unwrap();
        root().join("tests/data/conformance").join(file)
    }
}

#[test]
fn every_fixture_packs_exactly_like_the_reference() {
    let mut paths: Vec<PathBuf> = fs::read_dir(root().join("tests/data/expected"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    assert!(paths.len() >= 60, "the expected outputs are incomplete");
    let mut compared = 0;
    let mut failures = Vec::new();
    for path in paths {
        let expected: serde_json::Map<String, Value> =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let bytes = fs::read(source_of(&path)).unwrap();
        let fixture = Fixture::from_bytes(&bytes, &Limits::default()).unwrap();
        for (variant, want) in &expected {
            let got = run(&fixture, options_for(variant));
            compared += 1;
            if &got != want {
                failures.push(format!("{} {variant}", path.display()));
            }
        }
    }
    assert!(compared >= 300, "only {compared} cases compared");
    assert!(
        failures.is_empty(),
        "{} mismatches: {failures:#?}",
        failures.len()
    );
}

/// On every bundled fixture, under every policy and with omissions noted or
/// not, `usedTokens` is a fresh tiktoken-rs count of `payloadText` and never
/// exceeds `availableTokens`.
#[test]
fn used_tokens_is_a_fresh_full_count_on_every_fixture() {
    let mut checked = 0;
    for entry in fs::read_dir(root().join("fixtures")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let fixture = Fixture::from_bytes(&fs::read(&path).unwrap(), &Limits::default()).unwrap();
        for policy in Policy::ALL {
            for note_omissions in [false, true] {
                let request = Request {
                    options: Options {
                        policy,
                        note_omissions,
                        ..Options::default()
                    },
                    ..Request::default()
                };
                let Ok(outcome) = packer::pack(&fixture, &request) else {
                    continue;
                };
                let core = common::oracle(outcome.encoding);
                let plan = &outcome.plan;
                assert_eq!(
                    plan.used_tokens,
                    core.encode_ordinary(&plan.payload_text).len(),
                    "{path:?}"
                );
                assert!(plan.used_tokens as u64 <= plan.available_tokens, "{path:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "only {checked} packs checked");
}
