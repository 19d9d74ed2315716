//! Invariants of every policy on random fixtures, checked against full
//! counts by tiktoken-rs (an implementation packer does not count with),
//! and with the committed tokenizer files (`--tokenizer`).

use crate::common;

use std::io::Read as _;
use std::sync::LazyLock;

use common::oracle;

use packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX;
use packer::pack::ExcerptOptions;
use packer::{
    Counter, Document, Encoding, Envelope, Error, Fixture, Format, Options, PartialBudget, Policy,
    Reason, Request, Tokenizer,
};
use proptest::prelude::*;
use proptest::sample::select;

/// Fragments chosen for what they do at the joins of an envelope.
const FRAGMENTS: &[&str] = &[
    "word",
    "Words",
    " ",
    "  ",
    "   ",
    "\n",
    "\n\n",
    "\t",
    "123",
    "4567",
    "8",
    "don't",
    "'s",
    "'",
    "I'LL",
    "\"",
    "\\",
    "\\\\",
    "/",
    "!!",
    "?",
    ".",
    ",",
    "日本語",
    "한국어",
    "🙂",
    "👩‍👩‍👧",
    "é",
    "\u{a0}",
    "\u{2028}",
    "\u{3000}",
    "<|endoftext|>",
    "},{",
    "]}",
    "\u{1}",
    "x",
    "# Title",
    "```",
    "</document_content>",
    "<&>",
    "\n## ",
    "- ",
];

fn content() -> impl Strategy<Value = String> {
    prop::collection::vec(select(FRAGMENTS), 1..30).prop_map(|parts| {
        let text = parts.concat();
        if text.trim().is_empty() {
            format!("{text}x")
        } else {
            text
        }
    })
}

fn documents(max: usize) -> impl Strategy<Value = Vec<Document>> {
    prop::collection::vec(
        (
            content(),
            -3i32..=3,
            prop::bool::weighted(0.1),
            any::<bool>(),
            select(&["a", "é", "x y", "🙂", "<a&\"b>", "src/lib"][..]),
            0u8..3,
        ),
        0..=max,
    )
    .prop_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(
                |(index, (content, priority, required, markdown, id, source))| Document {
                    index,
                    id: format!("{id}{index}"),
                    // A url, a path equal to the id (SPEC §1.1), or another path.
                    source: match source {
                        0 => packer::Source::Url(format!("https://example.com/{index}?q={id}")),
                        1 => packer::Source::Path(format!("{id}{index}")),
                        _ => packer::Source::Path(format!("docs/{id}/{index}.md")),
                    },
                    format: if markdown {
                        Format::Markdown
                    } else {
                        Format::Text
                    },
                    content,
                    priority,
                    required,
                },
            )
            .collect()
    })
}

fn encoding() -> impl Strategy<Value = Encoding> {
    select(&Encoding::ALL[..])
}

fn fixture(documents: Vec<Document>, encoding: Encoding, available: u64) -> Fixture {
    Fixture {
        encoding: Some(encoding),
        has_budget: true,
        budget: PartialBudget {
            context_tokens: Some(available + 30),
            reserved_other_input_tokens: Some(10),
            reserved_output_tokens: Some(15),
            safety_tokens: Some(5),
        },
        documents,
    }
}

/// Omission notes: off, or on with a cap on the documents listed.
type Notes = Option<usize>;

fn notes() -> impl Strategy<Value = Notes> {
    select(&[None, Some(0), Some(1), Some(3), Some(50)][..])
}

fn layout() -> impl Strategy<Value = Envelope> {
    select(&Envelope::ALL[..])
}

fn request(policy: Policy, envelope: Envelope, notes: Notes) -> Request {
    Request {
        options: Options {
            policy,
            envelope,
            note_omissions: notes.is_some(),
            note_omissions_max: notes.unwrap_or(50),
            ..Options::default()
        },
        ..Request::default()
    }
}

fn format_name(d: &Document) -> &'static str {
    match d.format {
        Format::Markdown => "markdown",
        Format::Text => "text",
    }
}

/// The envelope of SPEC §2, §2.1 and §3.1 for `order`, built independently
/// of packer from the contract's text (and README's Markdown bytes).
fn envelope(layout: Envelope, documents: &[Document], order: &[usize], notes: Notes) -> String {
    let omitted: Vec<&Document> = documents
        .iter()
        .filter(|d| !order.contains(&d.index))
        .collect();
    let listed = &omitted[..omitted.len().min(notes.unwrap_or(0))];
    let more = omitted.len() - listed.len();
    match layout {
        Envelope::Xml => xml_envelope(documents, order, notes.map(|_| (listed, more))),
        Envelope::Markdown => markdown_envelope(documents, order, notes.map(|_| (listed, more))),
        _ => json_envelope(documents, order, notes.map(|_| (listed, more))),
    }
}

/// The document's source as the payload shows it (SPEC §1.1): the field
/// name and its value, or nothing for a path equal to the id.
fn shown(d: &Document) -> Option<(&'static str, &str)> {
    match &d.source {
        packer::Source::Path(path) if *path == d.id => None,
        packer::Source::Path(path) => Some(("path", path)),
        packer::Source::Url(url) => Some(("url", url)),
    }
}

fn json_envelope(
    documents: &[Document],
    order: &[usize],
    note: Option<(&[&Document], usize)>,
) -> String {
    let string = |s: &str| serde_json::to_string(s).unwrap();
    let entries: Vec<String> = order
        .iter()
        .map(|&i| {
            let d = &documents[i];
            let source = shown(d).map_or(String::new(), |(field, value)| {
                format!(r#","{field}":{}"#, string(value))
            });
            format!(
                r#"{{"id":{}{source},"format":"{}","content":{}}}"#,
                string(&d.id),
                format_name(d),
                string(&d.content)
            )
        })
        .collect();
    let mut text = format!(r#"{{"documents":[{}]"#, entries.join(","));
    if let Some((listed, more)) = note {
        let omitted: Vec<String> = listed
            .iter()
            .map(|d| {
                let source = shown(d).map_or(String::new(), |(field, value)| {
                    format!(r#","{field}":{}"#, string(value))
                });
                format!(
                    r#"{{"id":{}{source},"reason":"whole-document-does-not-fit"}}"#,
                    string(&d.id),
                )
            })
            .collect();
        text.push_str(&format!(r#","omitted":[{}]"#, omitted.join(",")));
        if more > 0 {
            text.push_str(&format!(r#","omittedMore":{more}"#));
        }
    }
    text.push('}');
    text
}

/// SPEC §2.1's `TEXT(s)`.
fn xml_text(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// SPEC §2.1's `ATTR(s)`.
fn xml_attr(s: &str) -> String {
    xml_text(s).replace('"', "&quot;")
}

fn xml_envelope(
    documents: &[Document],
    order: &[usize],
    note: Option<(&[&Document], usize)>,
) -> String {
    let attr = xml_attr;
    let text = xml_text;
    let mut out = String::from("<documents>\n");
    for (position, &i) in order.iter().enumerate() {
        let d = &documents[i];
        let source = shown(d).map_or(String::new(), |(_, value)| {
            format!("<source>{}</source>\n", text(value))
        });
        out.push_str(&format!(
            "<document index=\"{}\" id=\"{}\">\n{source}<document_content>\n{}\n</document_content>\n</document>\n",
            position + 1,
            attr(&d.id),
            d.content.replace("</document_content", "&lt;/document_content")
        ));
    }
    out.push_str("</documents>");
    if let Some((listed, more)) = note {
        out.push_str("\n<omitted_documents>\n");
        for d in listed {
            out.push_str(&match shown(d) {
                Some((_, value)) => format!(
                    "<omitted id=\"{}\" reason=\"whole-document-does-not-fit\">{}</omitted>\n",
                    attr(&d.id),
                    text(value)
                ),
                None => format!(
                    "<omitted id=\"{}\" reason=\"whole-document-does-not-fit\"/>\n",
                    attr(&d.id)
                ),
            });
        }
        if more > 0 {
            out.push_str(&format!("<omitted_more count=\"{more}\"/>\n"));
        }
        out.push_str("</omitted_documents>");
    }
    out
}

fn markdown_envelope(
    documents: &[Document],
    order: &[usize],
    note: Option<(&[&Document], usize)>,
) -> String {
    let mut out = String::from("# Documents\n");
    if order.is_empty() {
        out.push_str("(none)\n");
    }
    for &i in order {
        let d = &documents[i];
        let longest = d
            .content
            .split(|c| c != '`')
            .map(str::len)
            .max()
            .unwrap_or(0);
        let fence = "`".repeat((longest + 1).max(3));
        let source = shown(d).map_or(String::new(), |(_, value)| format!("Source: {value}\n"));
        out.push_str(&format!(
            "## {}\n{source}{fence}{}\n{}\n{fence}\n",
            d.id,
            format_name(d),
            d.content
        ));
    }
    if let Some((listed, more)) = note {
        out.push_str("# Omitted documents (whole document does not fit)\n");
        for d in listed {
            out.push_str(&match shown(d) {
                Some((_, value)) => format!("- {}: {value}\n", d.id),
                None => format!("- {}\n", d.id),
            });
        }
        if more > 0 {
            out.push_str(&format!("- and {more} more\n"));
        } else if listed.is_empty() {
            out.push_str("(none)\n");
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Budget never exceeded, exact count, one decision per document, skips
    /// that really do not fit, and errors only when they must happen.
    #[test]
    fn every_policy_keeps_every_guarantee(
        documents in documents(10),
        encoding in encoding(),
        available in 0u64..400,
        policy in select(&Policy::ALL[..]),
        layout in layout(),
        notes in notes(),
    ) {
        let n = documents.len();
        let note_omissions = notes.is_some();
        let fixture = fixture(documents.clone(), encoding, available);
        let core = oracle(encoding);
        match packer::pack(&fixture, &request(policy, layout, notes)).map_err(packer::Failure::into_error) {
            Ok(outcome) => {
                let plan = &outcome.plan;
                prop_assert_eq!(plan.available_tokens, available);
                prop_assert!(plan.used_tokens as u64 <= available);
                prop_assert_eq!(plan.used_tokens, core.encode_ordinary(&plan.payload_text).len());
                prop_assert_eq!(&plan.payload_text, &envelope(layout, &documents, &plan.order, notes));
                prop_assert_eq!(plan.decisions.len(), n);
                for (index, decision) in plan.decisions.iter().enumerate() {
                    prop_assert_eq!(decision.index, index);
                    prop_assert_eq!(decision.selected, plan.order.contains(&index));
                    prop_assert_eq!(
                        decision.content_tokens,
                        core.encode_ordinary(&documents[index].content).len()
                    );
                    let unproven_case = policy == Policy::MaxFill && note_omissions;
                    if !decision.selected && !unproven_case {
                        prop_assert!(decision.needed_tokens > decision.free_tokens as i64);
                    }
                    if documents[index].required {
                        prop_assert!(decision.selected);
                    }
                }
                let mut selected = plan.order.clone();
                selected.sort_unstable();
                selected.dedup();
                prop_assert_eq!(selected.len(), plan.order.len());
                prop_assert_eq!(plan.order.len() + plan.skipped.len(), n);
                prop_assert_eq!(plan.optimal.is_some(), policy == Policy::MaxFill);
            }
            Err(Error::EmptyEnvelopeDoesNotFit { needed, .. }) => {
                let empty = envelope(layout, &documents, &[], notes);
                prop_assert_eq!(needed, core.encode_ordinary(&empty).len());
                prop_assert!(needed as u64 > available);
            }
            Err(Error::RequiredDoesNotFit { indices, .. }) => {
                prop_assert!(!indices.is_empty());
                for index in indices {
                    prop_assert!(documents[index].required);
                }
            }
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }

    /// Shuffling the input changes nothing under `priority` but the
    /// decisions' input indices (required documents keep their relative
    /// order, which the contract ties to the input).
    #[test]
    fn priority_does_not_depend_on_input_order(
        documents in documents(10),
        encoding in encoding(),
        available in 0u64..400,
        layout in layout(),
        // A note that lists every document: a cut note lists the first
        // documents in input order, by contract.
        notes in select(&[None, Some(50)][..]),
        seed in any::<u64>(),
    ) {
        let note_omissions = notes.is_some();
        let mut shuffled = documents.clone();
        // A seeded Fisher-Yates over the non-required documents only.
        let free: Vec<usize> = (0..shuffled.len()).filter(|&i| !shuffled[i].required).collect();
        let mut state = seed | 1;
        for k in (1..free.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let j = (state % (k as u64 + 1)) as usize;
            shuffled.swap(free[k], free[j]);
        }
        for (index, document) in shuffled.iter_mut().enumerate() {
            document.index = index;
        }
        let request = request(Policy::Priority, layout, notes);
        let a = packer::pack(&fixture(documents.clone(), encoding, available), &request);
        let b = packer::pack(&fixture(shuffled.clone(), encoding, available), &request);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                if !note_omissions {
                    // (The omitted list is in input order by contract.)
                    prop_assert_eq!(&a.plan.payload_text, &b.plan.payload_text);
                }
                prop_assert_eq!(a.plan.used_tokens, b.plan.used_tokens);
                let ids = |docs: &[Document], order: &[usize]| -> Vec<String> {
                    order.iter().map(|&i| docs[i].id.clone()).collect()
                };
                prop_assert_eq!(ids(&documents, &a.plan.order), ids(&shuffled, &b.plan.order));
                prop_assert_eq!(ids(&documents, &a.plan.skipped), ids(&shuffled, &b.plan.skipped));
                for decision in &a.plan.decisions {
                    let id = &documents[decision.index].id;
                    let other = b.plan.decisions.iter().find(|d| &shuffled[d.index].id == id).unwrap();
                    prop_assert_eq!(
                        (decision.selected, decision.reason, decision.needed_tokens, decision.free_tokens),
                        (other.selected, other.reason, other.needed_tokens, other.free_tokens)
                    );
                }
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.error().code(), b.error().code()),
            (a, b) => prop_assert!(false, "{a:?} vs {b:?}"),
        }
    }

    /// max-fill is never less full than in-order. (Not so against
    /// `priority`: its payload is in selection order, and the same documents
    /// in another order can count a token or two differently.)
    #[test]
    fn max_fill_is_at_least_as_full_as_in_order(
        documents in documents(12),
        encoding in encoding(),
        available in 0u64..500,
        layout in layout(),
        notes in notes(),
    ) {
        let fixture = fixture(documents, encoding, available);
        let used = |policy| {
            packer::pack(&fixture, &request(policy, layout, notes)).map(|o| o.plan.used_tokens).ok()
        };
        if let Some(max_fill) = used(Policy::MaxFill) {
            prop_assert!(max_fill >= used(Policy::InOrder).unwrap());
        }
    }

    /// max-fill reaches the exhaustive optimum (every subset counted in
    /// full by tiktoken-rs), with the earliest documents among ties, and
    /// says it is optimal.
    #[test]
    fn max_fill_equals_an_exhaustive_search(
        documents in documents(12),
        encoding in select(&[Encoding::Cl100kBase, Encoding::O200kBase, Encoding::R50kBase][..]),
        available in 20u64..500,
        layout in layout(),
    ) {
        let fixture = fixture(documents.clone(), encoding, available);
        let Ok(outcome) = packer::pack(&fixture, &request(Policy::MaxFill, layout, None)) else {
            return Ok(());
        };
        let core = oracle(encoding);
        let required: Vec<usize> = documents.iter().filter(|d| d.required).map(|d| d.index).collect();
        let rest: Vec<usize> = documents.iter().filter(|d| !d.required).map(|d| d.index).collect();
        let mut best: Option<(usize, Vec<bool>, Vec<usize>)> = None;
        for mask in 0u32..(1 << rest.len()) {
            let chosen: Vec<usize> = rest.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, &d)| d).collect();
            let order: Vec<usize> = required.iter().copied().chain(chosen.iter().copied()).collect();
            let tokens = core.encode_ordinary(&envelope(layout, &documents, &order, None)).len();
            if tokens as u64 > available {
                continue;
            }
            // Prefer earlier documents: compare inclusion flags in input order, true first.
            let flags: Vec<bool> = rest.iter().enumerate().map(|(i, _)| mask & (1 << i) != 0).collect();
            let better = match &best {
                None => true,
                Some((best_tokens, best_flags, _)) => {
                    tokens > *best_tokens || (tokens == *best_tokens && flags > *best_flags)
                }
            };
            if better {
                best = Some((tokens, flags, order));
            }
        }
        let (tokens, _, order) = best.expect("the required documents fit");
        prop_assert_eq!(outcome.plan.optimal, Some(true));
        prop_assert_eq!(outcome.plan.used_tokens, tokens);
        prop_assert_eq!(&outcome.plan.order, &order);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// With `--excerpt-query`: an excerpt only ever takes free room, the
    /// count stays exact, and every excerpt in the payload is labelled.
    #[test]
    fn excerpts_never_exceed_the_free_budget_and_stay_exact(
        documents in documents(8),
        encoding in encoding(),
        available in 0u64..400,
        policy in select(&Policy::ALL[..]),
        layout in layout(),
        notes in notes(),
        query in select(&["word", "title, 123", "日本語", "x", "absent"][..]),
        context in 0usize..3,
        max_chars in 5usize..400,
    ) {
        let fixture = fixture(documents.clone(), encoding, available);
        let request = Request {
            options: Options {
                excerpt: Some(ExcerptOptions { query: query.to_string(), context, max_chars }),
                ..request(policy, layout, notes).options
            },
            ..Request::default()
        };
        let Ok(outcome) = packer::pack(&fixture, &request) else {
            return Ok(());
        };
        let plan = &outcome.plan;
        prop_assert!(plan.used_tokens as u64 <= available);
        prop_assert_eq!(plan.used_tokens, oracle(encoding).encode_ordinary(&plan.payload_text).len());
        if layout != Envelope::Json {
            // Every whole document is in the payload verbatim (XML writes
            // `</document_content` as `&lt;/document_content`).
            for &index in &plan.order {
                if plan.decisions[index].reason != Reason::ExcerptFits
                    && !documents[index].content.contains("</document_content")
                {
                    prop_assert!(plan.payload_text.contains(&documents[index].content));
                }
            }
            return Ok(());
        }
        let payload: serde_json::Value = serde_json::from_str(&plan.payload_text).unwrap();
        for entry in payload["documents"].as_array().unwrap() {
            let index = documents.iter().position(|d| d.id == entry["id"]).unwrap();
            let decision = plan.decisions[index];
            if decision.reason == Reason::ExcerptFits {
                prop_assert!(decision.needed_tokens <= decision.free_tokens as i64);
                prop_assert_eq!(&entry["excerpt"]["query"], query);
                prop_assert_eq!(
                    entry["excerpt"]["ofChars"].as_u64().unwrap() as usize,
                    documents[index].content.chars().count()
                );
                prop_assert!(entry["content"].as_str().unwrap().chars().count() <= max_chars + 120);
            } else {
                prop_assert!(entry.get("excerpt").is_none());
                prop_assert_eq!(&entry["content"], &documents[index].content);
            }
        }
    }
}

/// SPEC §3.1 at repository scale: 1,200 small documents at a 32k budget
/// pack under every policy and in every envelope with a note of at most 50
/// entries and a count of the rest, an exact count, and a skip that always
/// needed more than was free.
#[test]
fn a_thousand_documents_pack_with_a_bounded_note_under_every_policy() {
    let documents: Vec<Document> = (0..1_200)
        .map(|index| Document {
            index,
            id: format!("src/module_{index}.rs"),
            source: packer::Source::Url(format!("https://example.com/tree/src/module_{index}.rs")),
            format: Format::Text,
            content: format!("pub fn f{index}() -> u32 {{\n    {index}\n}}\n")
                .repeat(1 + index % 40),
            priority: (index % 7) as i32 - 3,
            required: false,
        })
        .collect();
    let fixture = fixture(documents, Encoding::Cl100kBase, 32_000);
    let core = oracle(Encoding::Cl100kBase);
    for policy in Policy::ALL {
        for layout in Envelope::ALL {
            let outcome = packer::pack(&fixture, &request(policy, layout, Some(50))).unwrap();
            let plan = &outcome.plan;
            assert!(plan.used_tokens <= 32_000);
            assert_eq!(
                plan.used_tokens,
                core.encode_ordinary(&plan.payload_text).len()
            );
            let omitted = 1_200 - plan.order.len();
            assert!(omitted > 50, "{policy:?} {layout:?}");
            let listed = plan.payload_text.matches("module_").count() - plan.order.len() * 2;
            assert!(listed <= 50 * 2, "{policy:?} {layout:?}: {listed}");
            let more = format!("{}", omitted - 50);
            assert!(plan.payload_text.contains(&more), "{policy:?} {layout:?}");
            for decision in &plan.decisions {
                if !decision.selected {
                    assert!(
                        decision.needed_tokens > decision.free_tokens as i64,
                        "{policy:?} {layout:?} {decision:?}"
                    );
                }
            }
        }
    }
}

/// Every tokenizer file committed for the tests (`tests/data/tokenizers`:
/// Qwen3's tokenizer.json, Mistral's tekken.json, the legacy Claude file,
/// MiniLM's, and the small files of every family and shape), loaded once
/// for every case; a file added there is in these properties with nothing
/// else to change.
fn tokenizer_files() -> &'static [Tokenizer] {
    static FILES: LazyLock<Vec<Tokenizer>> = LazyLock::new(|| {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tokenizers");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| {
                let name = name.trim_end_matches(".gz");
                name.ends_with("tokenizer.json") || name.starts_with("tekken_")
            })
            .collect();
        names.sort();
        assert!(names.len() >= 19, "tokenizer files missing: {names:?}");
        names
            .iter()
            .map(|file| {
                let raw = std::fs::read(format!("{dir}/{file}")).unwrap();
                let mut bytes = Vec::new();
                if file.ends_with(".gz") {
                    flate2::read::GzDecoder::new(&raw[..])
                        .read_to_end(&mut bytes)
                        .unwrap();
                } else {
                    bytes = raw;
                }
                Tokenizer::from_bytes(file.trim_end_matches(".gz"), &bytes).unwrap()
            })
            .collect()
    });
    &FILES
}

fn tokenizer_file() -> impl Strategy<Value = Tokenizer> {
    select(tokenizer_files())
}

/// More fragments for these tokenizers: marks with nothing to combine with
/// and text that NFC changes (Qwen3 normalizes), single digits and digit
/// runs, long space runs, their special-token text.
const TOKENIZER_FRAGMENTS: &[&str] = &[
    "\u{301}",
    "e\u{301}",
    "\u{212b}",
    "A\u{30a}",
    "\u{1100}\u{1161}\u{11a8}",
    "                                        ",
    "0",
    "1111111111111111111111111",
    "\u{661}\u{662}",
    "\u{6211}\u{4eec}",
    "\u{1F44D}\u{1F3FD}",
    "<|im_start|>",
    "<|im_end|>",
    "<think>",
    "[INST]",
    "[/INST]",
    "<s>",
    "</s>",
    "[TOOL_CALLS]",
    "\r\n\r\n",
    // Added tokens of the files (not special: tokens) and SentencePiece
    // text (the `▁` marker, byte-fallback lookalikes, unknown characters).
    "</think>",
    "<tool_call>",
    "<|fim_prefix|>",
    "[sw]",
    " <l> ",
    "<r>  ",
    "<lr>",
    "caf\u{e9}",
    "<|sp|>x",
    "\"},{\"id",
    "\n\n",
    "<h1>",
    "\u{2581}",
    "<0x41>",
    "\u{1F600}\u{1F600}",
];

fn tokenizer_documents(max: usize) -> impl Strategy<Value = Vec<Document>> {
    let fragment = prop_oneof![select(FRAGMENTS), select(TOKENIZER_FRAGMENTS)];
    (
        documents(max),
        prop::collection::vec(prop::collection::vec(fragment, 0..6), max),
        prop::collection::vec(select(TOKENIZER_FRAGMENTS), max),
    )
        .prop_map(|(mut documents, extra, first)| {
            // Hostile text at both ends of each content: the joins.
            for (document, (extra, first)) in documents.iter_mut().zip(extra.iter().zip(first)) {
                document.content = format!("{first}{}{}", document.content, extra.concat());
            }
            documents
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// With a tokenizer file (`--tokenizer`), under every policy and
    /// envelope, with notes and excerpts: the budget is never exceeded,
    /// `usedTokens` is the file's full count of the payload, skips really do
    /// not fit. (That full count is packer's own tokenizer; its counts are
    /// anchored to Hugging Face `tokenizers` and mistral-common by
    /// tests/tokenizers.rs, and whole packs by tests/reference.rs.)
    #[test]
    fn tokenizer_files_keep_every_guarantee(
        documents in tokenizer_documents(8),
        tokenizer in tokenizer_file(),
        available in 0u64..400,
        policy in select(&Policy::ALL[..]),
        layout in layout(),
        notes in notes(),
        query in select(&[None, Some("word"), Some("title, 123"), Some("\u{6211}\u{4eec}")][..]),
        max_chars in 5usize..300,
    ) {
        let n = documents.len();
        let counter = Counter::with_tokenizer(tokenizer);
        let fixture = fixture(documents.clone(), Encoding::Cl100kBase, available);
        let mut request = request(policy, layout, notes);
        request.tokenizer = Some(tokenizer);
        request.options.excerpt = query.map(|query| ExcerptOptions {
            query: query.to_string(),
            context: 1,
            max_chars,
        });
        match packer::pack(&fixture, &request).map_err(packer::Failure::into_error) {
            Ok(outcome) => {
                let plan = &outcome.plan;
                prop_assert!(plan.used_tokens as u64 <= available);
                prop_assert_eq!(plan.used_tokens, counter.count(&plan.payload_text));
                if query.is_none() {
                    prop_assert_eq!(&plan.payload_text, &envelope(layout, &documents, &plan.order, notes));
                }
                prop_assert_eq!(plan.decisions.len(), n);
                prop_assert_eq!(plan.order.len() + plan.skipped.len(), n);
                for (index, decision) in plan.decisions.iter().enumerate() {
                    prop_assert_eq!(decision.selected, plan.order.contains(&index));
                    prop_assert_eq!(decision.content_tokens, counter.count(&documents[index].content));
                    let unproven_case = policy == Policy::MaxFill && notes.is_some();
                    if !decision.selected && !unproven_case {
                        prop_assert!(decision.needed_tokens > decision.free_tokens as i64);
                    }
                    if decision.reason == Reason::ExcerptFits {
                        prop_assert!(decision.needed_tokens <= decision.free_tokens as i64);
                    }
                }
            }
            Err(Error::EmptyEnvelopeDoesNotFit { needed, .. }) => {
                let empty = envelope(layout, &documents, &[], notes);
                prop_assert_eq!(needed, counter.count(&empty));
                prop_assert!(needed as u64 > available);
            }
            Err(Error::RequiredDoesNotFit { indices, .. }) => {
                prop_assert!(!indices.is_empty());
                for index in indices {
                    prop_assert!(documents[index].required);
                }
            }
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// With a tokenizer file, max-fill is never less full than in-order, and
    /// without notes it reaches the optimum of every subset counted in full,
    /// with the earliest documents among ties, and says it is optimal (in
    /// XML too, where positions 10 and up cost these tokenizers a token more).
    #[test]
    fn tokenizer_files_max_fill_is_the_fullest(
        documents in tokenizer_documents(12),
        tokenizer in tokenizer_file(),
        available in 20u64..1_500,
        layout in layout(),
        notes in notes(),
    ) {
        let counter = Counter::with_tokenizer(tokenizer);
        let fixture = fixture(documents.clone(), Encoding::Cl100kBase, available);
        let plan = |policy, notes| {
            let mut request = request(policy, layout, notes);
            request.tokenizer = Some(tokenizer);
            packer::pack(&fixture, &request).map(|o| o.plan).ok()
        };
        if let Some(max_fill) = plan(Policy::MaxFill, notes) {
            prop_assert!(max_fill.used_tokens >= plan(Policy::InOrder, notes).unwrap().used_tokens);
        }
        let Some(max_fill) = plan(Policy::MaxFill, None) else {
            return Ok(());
        };
        let required: Vec<usize> = documents.iter().filter(|d| d.required).map(|d| d.index).collect();
        let rest: Vec<usize> = documents.iter().filter(|d| !d.required).map(|d| d.index).collect();
        let mut best: Option<(usize, Vec<bool>, Vec<usize>)> = None;
        // A subset with a subset that does not fit does not fit either.
        let mut fits = vec![false; 1 << rest.len()];
        for mask in 0u32..(1 << rest.len()) {
            if mask != 0 && !fits[(mask & (mask - 1)) as usize] {
                continue;
            }
            let flags: Vec<bool> = (0..rest.len()).map(|i| mask & (1 << i) != 0).collect();
            let order: Vec<usize> = required
                .iter()
                .copied()
                .chain(rest.iter().zip(&flags).filter(|(_, in_it)| **in_it).map(|(&d, _)| d))
                .collect();
            let tokens = counter.count(&envelope(layout, &documents, &order, None));
            if tokens as u64 > available {
                continue;
            }
            fits[mask as usize] = true;
            // Ties prefer the earlier documents: flags in input order, true first.
            if best.as_ref().is_none_or(|(t, f, _)| tokens > *t || (tokens == *t && flags > *f)) {
                best = Some((tokens, flags, order));
            }
        }
        let (tokens, _, order) = best.expect("the required documents fit");
        // A file counted whole (SentencePiece-style, or added tokens that
        // could cross an entry's edge) is searched exhaustively over at most
        // ten documents; beyond that max-fill is at most the optimum, and
        // says it is optimal only when it is.
        let whole = counter.splitting() == packer::Splitting::Whole
            || !packer::envelope::Envelopes::build(counter, layout, &documents, None)
                .added_tokens_stay_inside();
        if whole && rest.len() > 10 {
            prop_assert!(max_fill.used_tokens <= tokens);
            if max_fill.optimal == Some(true) {
                prop_assert_eq!(max_fill.used_tokens, tokens);
            }
            return Ok(());
        }
        prop_assert_eq!(max_fill.used_tokens, tokens);
        prop_assert_eq!(&max_fill.order, &order);
        prop_assert_eq!(max_fill.optimal, Some(true));
    }
}

/// A window's note as the README defines it (`--windows
/// --note-omissions`): at most this many listed, and the documents
/// skipped as too big; `None` without notes.
type WindowNote<'a> = Option<(usize, &'a [usize])>;

/// `text` (a window's envelope without a note) followed by its note: the
/// documents not in `order`, in input order, each in another window
/// unless skipped.
fn with_window_note(
    layout: Envelope,
    documents: &[Document],
    order: &[usize],
    text: String,
    note: WindowNote<'_>,
) -> String {
    let Some((max, skipped)) = note else {
        return text;
    };
    let string = |s: &str| serde_json::to_string(s).unwrap();
    let (attr, escaped) = (xml_attr, xml_text);
    let rest: Vec<&Document> = documents
        .iter()
        .filter(|d| !order.contains(&d.index))
        .collect();
    let listed = &rest[..rest.len().min(max)];
    let more = rest.len() - listed.len();
    let reason = |d: &Document| {
        if skipped.contains(&d.index) {
            ("whole-document-does-not-fit", "whole document does not fit")
        } else {
            ("in-another-window", "in another window")
        }
    };
    let mut out = text;
    match layout {
        Envelope::Xml => {
            out.push_str("\n<omitted_documents>\n");
            for d in listed {
                let (code, _) = reason(d);
                out.push_str(&match shown(d) {
                    Some((_, value)) => format!(
                        "<omitted id=\"{}\" reason=\"{code}\">{}</omitted>\n",
                        attr(&d.id),
                        escaped(value)
                    ),
                    None => format!("<omitted id=\"{}\" reason=\"{code}\"/>\n", attr(&d.id)),
                });
            }
            if more > 0 {
                out.push_str(&format!("<omitted_more count=\"{more}\"/>\n"));
            }
            out.push_str("</omitted_documents>");
        }
        Envelope::Markdown => {
            out.push_str("# Not in this window\n");
            for d in listed {
                let (_, words) = reason(d);
                out.push_str(&match shown(d) {
                    Some((_, value)) => format!("- {}: {value} ({words})\n", d.id),
                    None => format!("- {} ({words})\n", d.id),
                });
            }
            if more > 0 {
                out.push_str(&format!("- and {more} more\n"));
            } else if listed.is_empty() {
                out.push_str("(none)\n");
            }
        }
        _ => {
            out.pop();
            let omitted: Vec<String> = listed
                .iter()
                .map(|d| {
                    let source = shown(d).map_or(String::new(), |(field, value)| {
                        format!(r#","{field}":{}"#, string(value))
                    });
                    format!(
                        r#"{{"id":{}{source},"reason":"{}"}}"#,
                        string(&d.id),
                        reason(d).0
                    )
                })
                .collect();
            out.push_str(&format!(r#","omitted":[{}]"#, omitted.join(",")));
            if more > 0 {
                out.push_str(&format!(r#","omittedMore":{more}"#));
            }
            out.push('}');
        }
    }
    out
}

/// The envelope of `order` labelled `window index of count` as the README
/// defines it, with its note when `note` is given, built independently of
/// packer.
fn window_envelope(
    layout: Envelope,
    documents: &[Document],
    order: &[usize],
    index: usize,
    count: usize,
    note: WindowNote<'_>,
) -> String {
    let text = with_window_note(
        layout,
        documents,
        order,
        envelope(layout, documents, order, None),
        note,
    );
    let (at, insert) = match layout {
        Envelope::Xml => (
            "<documents".len(),
            format!(" window=\"{index} of {count}\""),
        ),
        Envelope::Markdown => ("# Documents".len(), format!(" (window {index} of {count})")),
        _ => (1, format!("\"window\":\"{index} of {count}\",")),
    };
    format!("{}{insert}{}", &text[..at], &text[at..])
}

/// Every set partition of `items` into blocks, each block in input order.
fn partitions(items: &[usize]) -> Vec<Vec<Vec<usize>>> {
    let Some((&first, rest)) = items.split_first() else {
        return vec![Vec::new()];
    };
    let mut out = Vec::new();
    for partition in partitions(rest) {
        for b in 0..partition.len() {
            let mut with = partition.clone();
            with[b].insert(0, first);
            out.push(with);
        }
        let mut alone = partition;
        alone.insert(0, vec![first]);
        out.push(alone);
    }
    out
}

/// Checks `--windows` on one input (see the property tests below), with
/// each window's note listing at most `notes` documents when it is given.
fn check_windows(
    documents: Vec<Document>,
    encoding: Encoding,
    available: u64,
    layout: Envelope,
    notes: Option<usize>,
) -> Result<(), TestCaseError> {
    let fixture = fixture(documents.clone(), encoding, available);
    let request = Request {
        options: Options {
            envelope: layout,
            windows: true,
            note_omissions: notes.is_some(),
            note_omissions_max: notes.unwrap_or(DEFAULT_NOTE_OMISSIONS_MAX),
            ..Options::default()
        },
        ..Request::default()
    };
    let core = oracle(encoding);
    let count_noting = |order: &[usize], index: usize, windows: usize, skipped: &[usize]| {
        let note = notes.map(|max| (max, skipped));
        core.encode_ordinary(&window_envelope(
            layout, &documents, order, index, windows, note,
        ))
        .len()
    };
    let required: Vec<usize> = documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    let outcome = match packer::pack_windows(&fixture, &request) {
        Ok(outcome) => outcome,
        Err(failure) => {
            // Only when the required documents do not fit one window (with
            // a note listing the others as too big, or as elsewhere).
            let rest: Vec<usize> = (0..documents.len())
                .filter(|index| !required.contains(index))
                .collect();
            prop_assert!(
                count_noting(&required, 1, 1, &rest) as u64 > available
                    || count_noting(&required, 1, 1, &[]) as u64 > available,
                "{failure:?}"
            );
            return Ok(());
        }
    };
    let windows = &outcome.windows;
    let count = |order: &[usize], index: usize, windows_count: usize| {
        count_noting(order, index, windows_count, &windows.skipped)
    };
    let k = windows.count();
    let with_required = |members: &[usize]| -> Vec<usize> {
        required
            .iter()
            .copied()
            .chain(members.iter().copied())
            .collect()
    };
    // Single-digit labels all cost the same here; the widest stands for
    // every one.
    prop_assume!(k < 10);
    let mut placed = vec![0; documents.len()];
    for (b, window) in windows.windows.iter().enumerate() {
        prop_assert_eq!(window.index, b + 1);
        let note = notes.map(|max| (max, &windows.skipped[..]));
        let expected = window_envelope(layout, &documents, &window.order, b + 1, k, note);
        prop_assert_eq!(&window.payload_text, &expected);
        prop_assert_eq!(window.used_tokens, core.encode_ordinary(&expected).len());
        prop_assert!(window.used_tokens as u64 <= available);
        prop_assert_eq!(&window.order[..required.len()], &required[..]);
        let own = &window.order[required.len()..];
        prop_assert!(own.windows(2).all(|pair| pair[0] < pair[1]));
        for &index in own {
            placed[index] += 1;
        }
    }
    let rest: Vec<usize> = documents
        .iter()
        .filter(|d| !d.required)
        .map(|d| d.index)
        .collect();
    let mut fitting = Vec::new();
    for &index in &rest {
        let alone = count(&with_required(&[index]), k, k);
        let fits = alone as u64 <= available;
        prop_assert_eq!(placed[index], usize::from(fits), "document {}", index);
        prop_assert_eq!(windows.skipped.contains(&index), !fits);
        if fits {
            fitting.push(index);
        }
    }
    // First fit decreasing over exact counts.
    let mut decreasing = fitting.clone();
    decreasing.sort_by_key(|&index| {
        (
            std::cmp::Reverse(count(&with_required(&[index]), 1, 1)),
            index,
        )
    });
    let mut bins: Vec<Vec<usize>> = Vec::new();
    for &index in &decreasing {
        let fits_in = |bin: &Vec<usize>| {
            let mut members = bin.clone();
            members.push(index);
            members.sort_unstable();
            count(&with_required(&members), 1, 1) as u64 <= available
        };
        match bins.iter().position(fits_in) {
            Some(b) => bins[b].push(index),
            None => bins.push(vec![index]),
        }
    }
    prop_assert!(
        k <= bins.len().max(1),
        "{} windows, first fit decreasing {}",
        k,
        bins.len()
    );
    // The fewest windows, every partition counted.
    if fitting.len() <= 8 {
        let fewest = partitions(&fitting)
            .into_iter()
            .filter(|partition| {
                let mut blocks = partition.clone();
                blocks.sort();
                let m = blocks.len();
                blocks
                    .iter()
                    .enumerate()
                    .all(|(b, block)| count(&with_required(block), b + 1, m) as u64 <= available)
            })
            .map(|partition| partition.len())
            .min()
            .unwrap_or(0)
            .max(1);
        prop_assert_eq!(k, fewest);
        prop_assert!(windows.optimal);
    }
    prop_assert!(windows.lower_bound <= k);
    Ok(())
}

/// Documents of a few sizes in words, which first fit decreasing does not
/// always pack into the fewest windows.
fn sized_documents() -> impl Strategy<Value = Vec<Document>> {
    prop::collection::vec((1usize..40, prop::bool::weighted(0.05)), 3..=8).prop_map(|sizes| {
        sizes
            .into_iter()
            .enumerate()
            .map(|(index, (words, required))| Document {
                index,
                id: format!("d{index}"),
                source: packer::Source::Path(format!("d{index}")),
                format: Format::Text,
                content: "word ".repeat(words),
                priority: 0,
                required,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// `--windows` (SPEC §3.2): every document that fits alone in an empty
    /// window is in exactly one window, the others are skipped; every
    /// payload is the contract's envelope with its label, counted exactly
    /// by tiktoken-rs and within the budget; the count is no worse than
    /// first fit decreasing over the same exact counts, and equals the
    /// fewest possible (every partition counted) on small cases, where it
    /// is claimed optimal; the lower bound never exceeds it.
    #[test]
    fn windows_hold_every_document_that_fits_in_as_few_windows_as_possible(
        documents in documents(9),
        encoding in select(&[Encoding::Cl100kBase, Encoding::O200kBase, Encoding::R50kBase][..]),
        available in 30u64..400,
        layout in layout(),
    ) {
        check_windows(documents, encoding, available, layout, None)?;
    }

    /// The same with each window's note of what is not in it
    /// (`--note-omissions`, a few listed): every note is the README's, in
    /// every layout, and counted exactly.
    #[test]
    fn windows_with_notes_list_what_is_elsewhere_and_stay_exact(
        documents in documents(9),
        encoding in select(&[Encoding::Cl100kBase, Encoding::O200kBase, Encoding::R50kBase][..]),
        available in 30u64..500,
        layout in layout(),
        max in 0usize..4,
    ) {
        check_windows(documents, encoding, available, layout, Some(max))?;
    }

    /// The same with documents of a few sizes and budgets near their sums,
    /// where the local search and the exhaustive search matter, with and
    /// without notes.
    #[test]
    fn windows_of_sized_documents_are_the_fewest(
        documents in sized_documents(),
        available in 40u64..200,
        layout in layout(),
        notes in prop::option::of(0usize..3),
    ) {
        check_windows(documents, Encoding::Cl100kBase, available, layout, notes)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `--windows` with a tokenizer file: every window is the file's full
    /// count of its payload and fits, every document is in one window or
    /// does not fit even alone; with notes, every window's note lists what
    /// is not in it.
    #[test]
    fn tokenizer_files_keep_every_window_exact(
        documents in tokenizer_documents(8),
        tokenizer in tokenizer_file(),
        available in 40u64..600,
        layout in layout(),
        notes in prop::option::of(0usize..4),
    ) {
        let fixture = fixture(documents.clone(), Encoding::Cl100kBase, available);
        let request = Request {
            tokenizer: Some(tokenizer),
            options: Options {
                envelope: layout,
                windows: true,
                note_omissions: notes.is_some(),
                note_omissions_max: notes.unwrap_or(DEFAULT_NOTE_OMISSIONS_MAX),
                ..Options::default()
            },
            ..Request::default()
        };
        let Ok(outcome) = packer::pack_windows(&fixture, &request) else {
            return Ok(());
        };
        let counter = Counter::with_tokenizer(tokenizer);
        let windows = &outcome.windows;
        let mut placed = vec![0; documents.len()];
        for window in &windows.windows {
            prop_assert_eq!(window.used_tokens, counter.count(&window.payload_text));
            prop_assert!(window.used_tokens as u64 <= available);
            let note = notes.map(|max| (max, &windows.skipped[..]));
            let expected =
                window_envelope(layout, &documents, &window.order, window.index, windows.count(), note);
            prop_assert_eq!(&window.payload_text, &expected);
            for &index in &window.order {
                placed[index] += 1;
            }
        }
        for document in &documents {
            let expected = if document.required {
                windows.count()
            } else {
                usize::from(!windows.skipped.contains(&document.index))
            };
            prop_assert_eq!(placed[document.index], expected);
        }
        for &index in &windows.skipped {
            let decision = windows.decisions[index];
            prop_assert!(
                decision.needed_tokens > decision.free_tokens as i64,
                "document {} skipped with {:?}; windows {:?}",
                index,
                decision,
                windows.windows.iter().map(|w| (&w.order, w.used_tokens, &w.payload_text)).collect::<Vec<_>>()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    /// With a chat request (SPEC §2.4, gpt-oss's template): the whole
    /// rendered request never exceeds the budget, and its count is
    /// tiktoken's — the template's special tokens as tokens, the payload
    /// (which may hold `<|endoftext|>`) as ordinary text.
    #[test]
    fn chat_requests_never_exceed_the_budget_and_count_exactly(
        documents in documents(8),
        available in 0u64..900,
        policy in select(&Policy::ALL[..]),
        layout in layout(),
        notes in notes(),
    ) {
        use packer::chat::ChatRequest;
        let mut fixture = fixture(documents, Encoding::O200kHarmony, available);
        fixture.budget = PartialBudget {
            context_tokens: Some(available + 20),
            reserved_other_input_tokens: Some(0),
            reserved_output_tokens: Some(15),
            safety_tokens: Some(5),
        };
        let chat = packer::Chat {
            request: ChatRequest::from_bytes(
                br#"{"messages": [{"role": "system", "content": "Be brief."},
                                  {"role": "user", "content": "{{packer:documents}}"}]}"#,
            )
            .unwrap(),
            template: None,
            format: packer::chat::ChatFormat::Template,
            now: 0,
            isolation: None,
            cancel: packer::Cancel::default(),
        };
        let request = Request { chat: Some(chat), ..request(policy, layout, notes) };
        let outcome = match packer::pack(&fixture, &request) {
            Ok(outcome) => outcome,
            Err(failure) => {
                // Only a budget too small: never a count that disagrees.
                prop_assert!(failure.does_not_fit().is_some(), "{}", failure.error());
                return Ok(());
            }
        };
        let plan = &outcome.plan;
        let rendered = plan.request.as_ref().unwrap();
        prop_assert!(rendered.tokens as u64 <= available);
        let text = &rendered.text;
        let start = text.rfind("<|start|>user<|message|>").unwrap() + "<|start|>user<|message|>".len();
        let end = start + plan.payload_text.len();
        prop_assert_eq!(&text[start..end], plan.payload_text.as_str());
        let o = oracle(Encoding::O200kHarmony);
        let all = o.special_tokens();
        let count = o.encode(&text[..start], &all).unwrap().0.len()
            + o.encode_ordinary(&text[start..end]).len()
            + o.encode(&text[end..], &all).unwrap().0.len();
        prop_assert_eq!(rendered.tokens, count);
        prop_assert_eq!(plan.used_tokens, o.encode_ordinary(&plan.payload_text).len());
        for decision in &plan.decisions {
            if decision.reason == Reason::WholeDocumentDoesNotFit {
                prop_assert!(decision.needed_tokens > decision.free_tokens as i64);
            }
        }
    }
}

/// Qwen3's tokenizer file and its chat template (tests/data/requests).
fn qwen3_chat() -> (Tokenizer, packer::chat::ChatTemplate) {
    static LOADED: LazyLock<(Tokenizer, packer::chat::ChatTemplate)> = LazyLock::new(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let raw =
            std::fs::read(root.join("tests/data/tokenizers/qwen3-tokenizer.json.gz")).unwrap();
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut bytes)
            .unwrap();
        let tokenizer = Tokenizer::from_bytes("qwen3-tokenizer.json", &bytes).unwrap();
        let config =
            std::fs::read(root.join("tests/data/requests/qwen3-tokenizer_config.json")).unwrap();
        (
            tokenizer,
            packer::chat::ChatTemplate::from_bytes(&config).unwrap(),
        )
    });
    LOADED.clone()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// With a tokenizer file's chat template (Qwen3): the request the
    /// selection counted piece by piece is the one rendered and counted
    /// whole (a difference would be an `internal` error), within the budget.
    #[test]
    fn chat_requests_with_a_tokenizer_file_count_as_rendered_whole(
        documents in documents(8),
        available in 0u64..900,
        policy in select(&Policy::ALL[..]),
        layout in layout(),
        notes in notes(),
    ) {
        use packer::chat::{ChatRequest, Framing};
        let (tokenizer, template) = qwen3_chat();
        let mut fixture = fixture(documents, Encoding::Cl100kBase, available);
        fixture.budget = PartialBudget {
            context_tokens: Some(available),
            reserved_other_input_tokens: Some(0),
            reserved_output_tokens: Some(0),
            safety_tokens: Some(0),
        };
        let conversation = br#"{"messages": [{"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Docs: {{packer:documents}} - which?"}]}"#;
        let chat = packer::Chat {
            request: ChatRequest::from_bytes(conversation).unwrap(),
            template: Some(template.clone()),
            format: packer::chat::ChatFormat::Template,
            now: 0,
            isolation: None,
            cancel: packer::Cancel::default(),
        };
        let request = Request {
            tokenizer: Some(tokenizer),
            chat: Some(chat),
            ..request(policy, layout, notes)
        };
        let outcome = match packer::pack(&fixture, &request) {
            Ok(outcome) => outcome,
            Err(failure) => {
                prop_assert!(failure.does_not_fit().is_some(), "{}", failure.error());
                return Ok(());
            }
        };
        let plan = &outcome.plan;
        let rendered = plan.request.as_ref().unwrap();
        prop_assert!(rendered.tokens as u64 <= available);
        let framing = Framing::new(
            ChatRequest::from_bytes(conversation).unwrap(),
            &template,
            Counter::with_tokenizer(tokenizer),
            0,
            &None,
            &packer::Cancel::default(),
        )
        .unwrap();
        prop_assert_eq!(&framing.render(&plan.payload_text).unwrap(), rendered);
    }
}
