//! Text that makes reference tokenizers crash or stall: long runs of one
//! kind of character. packer must pack it exactly, without a panic.

use crate::common;

use common::oracle;

use packer::{
    Document, Encoding, Fixture, Format, Limits, Options, PartialBudget, Policy, Request,
};

/// Long runs of one character class, the shapes that overflow tiktoken's
/// regex stack or make its merge loop quadratic.
fn runs(length: usize) -> Vec<(&'static str, String)> {
    vec![
        ("spaces then a letter", format!("{}x", " ".repeat(length))),
        ("a letter then spaces", format!("x{}", " ".repeat(length))),
        ("tabs then a letter", format!("{}x", "\t".repeat(length))),
        (
            "newlines then a letter",
            format!("{}x", "\n".repeat(length)),
        ),
        ("letters", "a".repeat(length)),
        ("digits", "7".repeat(length)),
        ("punctuation", "!".repeat(length)),
        (
            "no-break spaces then a letter",
            format!("{}x", "\u{a0}".repeat(length)),
        ),
        ("ideographs", "漢".repeat(length)),
        ("spaces and newlines", " \n".repeat(length / 2)),
    ]
}

fn fixture(content: String, encoding: Encoding) -> Fixture {
    let document = |index: usize, content: String| Document {
        index,
        id: format!("d{index}"),
        source: packer::Source::Url(format!("https://example.com/{index}")),
        format: Format::Text,
        content,
        priority: 0,
        required: false,
    };
    Fixture {
        encoding: Some(encoding),
        has_budget: true,
        budget: PartialBudget {
            context_tokens: Some(10_000_000),
            reserved_other_input_tokens: Some(0),
            reserved_output_tokens: Some(0),
            safety_tokens: Some(0),
        },
        documents: vec![
            document(0, "before".into()),
            document(1, content),
            document(2, "after".into()),
        ],
    }
}

/// At a length tiktoken-rs still handles, the counts match it exactly.
#[test]
fn runs_count_like_tiktoken_at_moderate_length() {
    for encoding in Encoding::ALL {
        for (name, content) in runs(6_000) {
            let outcome =
                packer::pack(&fixture(content.clone(), encoding), &Request::default()).unwrap();
            let plan = &outcome.plan;
            let core = oracle(encoding);
            assert_eq!(plan.order, vec![0, 1, 2], "{encoding} {name}");
            assert_eq!(
                plan.used_tokens,
                core.encode_ordinary(&plan.payload_text).len(),
                "{encoding} {name}"
            );
            assert_eq!(
                plan.decisions[1].content_tokens,
                core.encode_ordinary(&content).len(),
                "{encoding} {name}"
            );
        }
    }
}

/// About 900,000 characters in one document: no panic, no stall, and the
/// per-document count agrees with a full count of the payload (which debug
/// builds also assert inside `pack`).
#[test]
fn runs_of_900_000_characters_pack_in_every_encoding() {
    let counters: Vec<packer::Counter> = Encoding::ALL
        .into_iter()
        .map(packer::Counter::new)
        .collect();
    for (name, content) in runs(900_000) {
        for counter in &counters {
            let encoding = counter.encoding().expect("a built-in encoding");
            let fixture = fixture(content.clone(), encoding);
            let outcome = packer::pack(&fixture, &Request::default()).unwrap();
            let plan = &outcome.plan;
            assert_eq!(plan.order, vec![0, 1, 2], "{encoding} {name}");
            assert_eq!(
                plan.used_tokens,
                counter.count(&plan.payload_text),
                "{encoding} {name}"
            );
        }
    }
}

/// Every policy, with omissions noted, on one such document.
#[test]
fn every_policy_packs_a_long_run() {
    let content = format!("{}x", " ".repeat(900_000));
    let fixture = fixture(content, Encoding::O200kBase);
    for policy in Policy::ALL {
        let request = Request {
            options: Options {
                policy,
                note_omissions: true,
                ..Options::default()
            },
            ..Request::default()
        };
        let outcome = packer::pack(&fixture, &request).unwrap();
        assert_eq!(outcome.plan.order.len(), 3, "{policy:?}");
    }
}

/// The same through the whole input path: a fixture file of several MB is
/// read, validated and packed.
#[test]
fn a_hostile_fixture_file_is_read_and_packed() {
    let content = format!("{}x", " ".repeat(900_000));
    let text = serde_json::json!({
        "encoding": "o200k_base",
        "budget": {"contextTokens": 2_000_000, "reservedOtherInputTokens": 0, "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": [{"id": "a", "url": "https://example.com/a", "format": "text", "content": content, "truncated": false}],
    })
    .to_string();
    let limits = Limits {
        max_input_bytes: 2_000_000,
        ..Limits::default()
    };
    let fixture = Fixture::from_bytes(text.as_bytes(), &limits).unwrap();
    let outcome = packer::pack(&fixture, &Request::default()).unwrap();
    assert_eq!(outcome.plan.order, vec![0]);
}
