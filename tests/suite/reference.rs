//! packer against an independent reference: npm tiktoken's `encode_ordinary`
//! and a naive packer that serializes and fully counts every candidate
//! envelope (`scripts/reference/`, which generated `tests/data/`). With a
//! tokenizer file, the same naive packer counts through Hugging Face
//! `tokenizers` and mistral-common (`tests/data/tokenizers/expected/`).

use crate::common;

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX;
use packer::output::{Format, render};
use packer::{Counter, Encoding, Envelope, Fixture, Limits, Options, Policy, Request, Tokenizer};
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

/// The options of a variant named `[ENVELOPE:]POLICY[+note-omissions[=MAX]]`.
fn options_for(variant: &str) -> Options {
    let (envelope, rest) = variant.split_once(':').unwrap_or(("json", variant));
    let (policy, notes) = match rest.split_once('+') {
        Some((policy, notes)) => (policy, Some(notes)),
        None => (rest, None),
    };
    let note_omissions_max = match notes {
        Some("note-omissions") | None => DEFAULT_NOTE_OMISSIONS_MAX,
        Some(notes) => notes
            .strip_prefix("note-omissions=")
            .unwrap()
            .parse()
            .unwrap(),
    };
    let policy = Policy::ALL
        .into_iter()
        .find(|p| p.name() == policy)
        .unwrap();
    Options {
        policy,
        envelope: envelope.parse::<Envelope>().unwrap(),
        note_omissions: notes.is_some(),
        note_omissions_max,
        ..Options::default()
    }
}

fn run(fixture: &Fixture, options: Options) -> Value {
    run_with(fixture, options, None)
}

fn run_with(fixture: &Fixture, options: Options, tokenizer: Option<Tokenizer>) -> Value {
    let request = Request {
        options,
        tokenizer,
        ..Request::default()
    };
    match packer::pack(fixture, &request).map_err(packer::Failure::into_error) {
        Ok(outcome) => serde_json::from_str(&render(fixture, &outcome, Format::Json)).unwrap(),
        Err(error) => serde_json::json!({ "error": error.code() }),
    }
}

fn source_of(expected: &Path) -> PathBuf {
    let name = expected.file_name().unwrap().to_str().unwrap();
    if let Some(file) = name.strip_prefix("fixture-") {
        root().join("fixtures").join(file)
    } else if let Some(file) = name.strip_prefix("hostile-") {
        root().join("tests/data/tokenizers/conformance").join(file)
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
    let mut cut_notes = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for path in paths {
        let expected: serde_json::Map<String, Value> =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let bytes = fs::read(source_of(&path)).unwrap();
        // The notes-at-scale fixtures hold more documents than the default.
        let limits = Limits {
            max_documents: 1_000,
            ..Limits::default()
        };
        let fixture = Fixture::from_bytes(&bytes, &limits).unwrap();
        for (variant, want) in &expected {
            let got = run(&fixture, options_for(variant));
            compared += 1;
            seen.insert(variant.clone());
            // A note cut at the default cap: more than 50 documents omitted.
            cut_notes += usize::from(cuts_the_note_at_its_default_cap(variant, want));
            if &got != want {
                failures.push(format!("{} {variant}", path.display()));
            }
        }
    }
    assert!(compared >= 1_500, "only {compared} cases compared");
    for envelope in ["xml:", "markdown:"] {
        assert!(
            seen.iter()
                .any(|v| v.starts_with(envelope) && v.contains("max-fill")),
            "no {envelope} max-fill case"
        );
    }
    assert!(
        cut_notes >= 20,
        "only {cut_notes} cases with a note cut at its default cap"
    );
    assert!(
        failures.is_empty(),
        "{} mismatches: {failures:#?}",
        failures.len()
    );
}

/// A committed tokenizer file (gzip-compressed), loaded under its own name.
fn committed_tokenizer(file: &str) -> Tokenizer {
    let gz = fs::read(root().join("tests/data/tokenizers").join(file)).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut bytes)
        .unwrap();
    Tokenizer::from_bytes(file.trim_end_matches(".gz"), &bytes).unwrap()
}

/// Whether an expected output shows a note cut at its default cap.
fn cuts_the_note_at_its_default_cap(variant: &str, want: &Value) -> bool {
    variant.ends_with("+note-omissions")
        && want["payloadText"].as_str().is_some_and(|p| {
            p.contains("omittedMore") || p.contains("omitted_more") || p.contains("- and ")
        })
        && want["decisions"]
            .as_array()
            .is_some_and(|d| d.iter().filter(|d| d["selected"] == false).count() > 50)
}

/// `--tokenizer` packing: every bundled fixture, every conformance fixture
/// and seeded fixtures with hostile text at the joins, under every policy,
/// envelope and note, with Qwen3's tokenizer.json and Mistral's tekken.json,
/// equal byte for byte to the naive reference packer counting every
/// candidate envelope in full with Hugging Face `tokenizers` 0.23.3 and
/// mistral-common 1.13.1.
#[test]
fn every_fixture_packs_with_a_tokenizer_file_exactly_like_the_reference() {
    let files = [
        ("qwen3", committed_tokenizer("qwen3-tokenizer.json.gz")),
        ("tekken", committed_tokenizer("tekken_240718.json.gz")),
    ];
    let mut paths: Vec<PathBuf> = fs::read_dir(root().join("tests/data/tokenizers/expected"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    paths.sort();
    let mut compared = std::collections::BTreeMap::new();
    let mut packed = 0;
    let mut cut_notes = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for path in paths {
        let name = path.file_name().unwrap().to_str().unwrap();
        let (key, stem) = name.split_once('-').unwrap();
        let (key, tokenizer) = *files.iter().find(|(k, _)| *k == key).unwrap();
        let expected: serde_json::Map<String, Value> =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let bytes = fs::read(source_of(&path.with_file_name(stem))).unwrap();
        let limits = Limits {
            max_documents: 1_000,
            ..Limits::default()
        };
        let fixture = Fixture::from_bytes(&bytes, &limits).unwrap();
        for (variant, want) in &expected {
            let got = run_with(&fixture, options_for(variant), Some(tokenizer));
            *compared.entry(key).or_insert(0) += 1;
            packed += usize::from(want.get("usedTokens").is_some());
            seen.insert(variant.clone());
            cut_notes += usize::from(cuts_the_note_at_its_default_cap(variant, want));
            if &got != want {
                failures.push(format!("{name} {variant}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches: {failures:#?}",
        failures.len()
    );
    for (key, _) in &files {
        let n = compared.get(key).copied().unwrap_or(0);
        assert!(n >= 1_500, "only {n} {key} cases compared");
    }
    assert!(packed >= 2_000, "only {packed} cases packed");
    assert_eq!(seen.len(), 21, "not every variant is covered: {seen:?}");
    assert!(
        cut_notes >= 10,
        "only {cut_notes} cases with a note cut at its default cap"
    );
}

/// On every bundled fixture, under every policy, in every envelope and with
/// omissions noted (the note cut at 3) or not, `usedTokens` is a fresh tiktoken-rs count of `payloadText` and never
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
        for (policy, envelope) in Policy::ALL
            .into_iter()
            .flat_map(|p| Envelope::ALL.map(|e| (p, e)))
        {
            for note_omissions in [false, true] {
                let request = Request {
                    options: Options {
                        policy,
                        envelope,
                        note_omissions,
                        note_omissions_max: 3,
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
