//! max-fill on small random inputs, with the exact search's limits lowered so
//! that they reach the fallback, against exhaustive search over every subset
//! with full counts by tiktoken-rs (independent of packer's per-entry
//! arithmetic and of the code under test).

use proptest::prelude::*;
use proptest::sample::select;

use super::*;
use crate::fixture::{Document, Format};
use crate::pack::Failure;
use crate::pack::{Options, Plan, Policy, plan};
use crate::tokens::{Counter, Encoding};

#[test]
fn a_step_shifts_across_words_and_drops_values_past_the_limit() {
    let mut set = vec![0u64; 3];
    set[0] = 1 << 1;
    set[1] = 1 << 6; // 70
    // {1, 70} ∪ {61, 130} ∪ {5}, below 130.
    step(&mut set, 60, 5, 130);
    assert!(contains(&set, 1) && contains(&set, 70) && contains(&set, 61));
    assert!(contains(&set, 5));
    assert!(!contains(&set, 130));
    assert_eq!(highest(&set), Some(70));
    // A shift by whole words, and a single value past the limit.
    let mut set = vec![0u64; 3];
    set[0] = 1;
    step(&mut set, 128, 150, 150);
    assert_eq!(highest(&set), Some(128));
    assert!(!contains(&set, 150));
    // A shift past the set leaves it alone.
    let mut set = vec![0b1010u64; 1];
    step(&mut set, 64, 0, 64);
    assert_eq!(set, vec![0b1011]);
}

#[test]
fn earlier_first_prefers_the_choice_with_the_earliest_document() {
    assert_eq!(earlier_first(&[0, 3], &[1, 2]), Ordering::Greater);
    assert_eq!(earlier_first(&[1, 2], &[0, 3]), Ordering::Less);
    assert_eq!(earlier_first(&[0, 1, 5], &[0, 1]), Ordering::Greater);
    assert_eq!(earlier_first(&[2], &[2]), Ordering::Equal);
}

/// Fragments chosen for what they do at the joins of an envelope.
const FRAGMENTS: &[&str] = &[
    "word",
    "Words",
    " ",
    "  ",
    "\n",
    "\n\n",
    "123",
    "4567",
    "don't",
    "'s",
    "\"",
    "\\",
    "!!",
    "日本語",
    "🙂",
    "é",
    "\u{3000}",
    "},{",
    "]}",
    "x",
    "# Title",
];

fn content() -> impl Strategy<Value = String> {
    prop::collection::vec(select(FRAGMENTS), 1..14).prop_map(|parts| {
        let text = parts.concat();
        if text.trim().is_empty() {
            format!("{text}x")
        } else {
            text
        }
    })
}

fn documents(max: usize) -> impl Strategy<Value = Vec<Document>> {
    // Tiny documents too: their omitted entry can be longer than their
    // place in `documents`, so taking one can shrink the count.
    let content =
        prop_oneof![3 => content(), 1 => select(&["x", "1", "é"][..]).prop_map(String::from)];
    prop::collection::vec((content, prop::bool::weighted(0.1)), 0..=max).prop_map(|specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(index, (content, required))| Document {
                index,
                id: format!("d{index}"),
                source: crate::fixture::Source::Url(format!("https://example.com/{index}")),
                format: if index % 3 == 0 {
                    Format::Markdown
                } else {
                    Format::Text
                },
                content,
                priority: 0,
                required,
            })
            .collect()
    })
}

/// The envelope of SPEC §2 for `order`, built independently of packer.
fn envelope(documents: &[Document], order: &[usize], notes: bool) -> String {
    let string = |s: &str| serde_json::to_string(s).unwrap();
    let entries: Vec<String> = order
        .iter()
        .map(|&i| {
            let d = &documents[i];
            let format = match d.format {
                Format::Markdown => "markdown",
                Format::Text => "text",
            };
            format!(
                r#"{{"id":{},"url":{},"format":"{format}","content":{}}}"#,
                string(&d.id),
                string(d.source.as_str()),
                string(&d.content)
            )
        })
        .collect();
    let mut text = format!(r#"{{"documents":[{}]"#, entries.join(","));
    if notes {
        let omitted: Vec<String> = documents
            .iter()
            .filter(|d| !order.contains(&d.index))
            .map(|d| {
                format!(
                    r#"{{"id":{},"url":{},"reason":"whole-document-does-not-fit"}}"#,
                    string(&d.id),
                    string(d.source.as_str())
                )
            })
            .collect();
        text.push_str(&format!(r#","omitted":[{}]"#, omitted.join(",")));
    }
    text.push('}');
    text
}

fn count(encoding: Encoding, text: &str) -> usize {
    crate::tokens::tests::reference(encoding)
        .encode_ordinary(text)
        .len()
}

/// The fullest envelope over every subset of the non-required documents
/// (required first, then the subset, in input order), counted in full, and
/// the subset that reaches it including the earliest documents.
fn exhaustive(
    documents: &[Document],
    encoding: Encoding,
    available: u64,
    notes: bool,
) -> Option<(usize, Vec<usize>)> {
    let required: Vec<usize> = documents
        .iter()
        .filter(|d| d.required)
        .map(|d| d.index)
        .collect();
    let rest: Vec<usize> = documents
        .iter()
        .filter(|d| !d.required)
        .map(|d| d.index)
        .collect();
    let mut best: Option<(usize, Vec<usize>)> = None;
    for mask in 0u32..(1 << rest.len()) {
        let chosen: Vec<usize> = (0..rest.len())
            .filter(|k| mask & (1 << k) != 0)
            .map(|k| rest[k])
            .collect();
        let order: Vec<usize> = required.iter().chain(&chosen).copied().collect();
        let tokens = count(encoding, &envelope(documents, &order, notes));
        if tokens as u64 > available {
            continue;
        }
        let better = best.as_ref().is_none_or(|(best_tokens, best_chosen)| {
            tokens > *best_tokens
                || (tokens == *best_tokens
                    && earlier_first(&chosen, best_chosen) == Ordering::Greater)
        });
        if better {
            best = Some((tokens, chosen));
        }
    }
    best
}

fn pack(
    documents: &[Document],
    encoding: Encoding,
    available: u64,
    policy: Policy,
    notes: bool,
) -> Result<Plan, Failure> {
    let options = Options {
        policy,
        note_omissions: notes,
        ..Options::default()
    };
    plan(documents, Counter::new(encoding), available, &options)
}

/// Every guarantee but optimality: exact count, budget, payload, decisions
/// that explain themselves.
fn check_plan(
    documents: &[Document],
    encoding: Encoding,
    plan: &Plan,
    notes: bool,
) -> Result<(), TestCaseError> {
    prop_assert!(plan.used_tokens as u64 <= plan.available_tokens);
    prop_assert_eq!(plan.used_tokens, count(encoding, &plan.payload_text));
    let mut input_order = plan.order.clone();
    input_order.sort_by_key(|&i| (!documents[i].required, i));
    prop_assert_eq!(
        &input_order,
        &plan.order,
        "payload order is required, then input order"
    );
    prop_assert_eq!(&plan.payload_text, &envelope(documents, &plan.order, notes));
    prop_assert_eq!(plan.order.len() + plan.skipped.len(), documents.len());
    for decision in &plan.decisions {
        prop_assert_eq!(decision.selected, plan.order.contains(&decision.index));
        let fits = decision.needed_tokens <= decision.free_tokens as i64;
        prop_assert_eq!(fits, decision.selected, "{:?}", decision);
    }
    Ok(())
}

fn encoding() -> impl Strategy<Value = Encoding> {
    select(
        &[
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::R50kBase,
        ][..],
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Beyond the exact search's limits (here: always), max-fill keeps every
    /// guarantee, is never less full than in-order, explains every skip, and
    /// says optimal only when no subset is fuller.
    #[test]
    fn the_fallback_is_never_below_in_order_and_claims_optimal_only_when_it_is(
        documents in documents(14),
        encoding in encoding(),
        available in 10u64..400,
        notes in any::<bool>(),
    ) {
        let (in_order, max_fill) = with_limits(0, 0, || {
            (
                pack(&documents, encoding, available, Policy::InOrder, notes),
                pack(&documents, encoding, available, Policy::MaxFill, notes),
            )
        });
        let (Ok(in_order), Ok(max_fill)) = (in_order, max_fill) else {
            return Ok(());
        };
        check_plan(&documents, encoding, &max_fill, notes)?;
        prop_assert!(max_fill.used_tokens >= in_order.used_tokens);
        if max_fill.optimal == Some(true) {
            let (best, _) = exhaustive(&documents, encoding, available, notes).unwrap();
            prop_assert_eq!(max_fill.used_tokens, best);
        }
    }

    /// Within the limits, the exact search (kept sets, rebuilt blocks and
    /// all) reaches the exhaustive optimum with the earliest documents, and
    /// says so.
    #[test]
    fn the_exact_search_reaches_the_exhaustive_optimum(
        documents in documents(14),
        encoding in encoding(),
        available in 10u64..400,
    ) {
        let Ok(max_fill) = pack(&documents, encoding, available, Policy::MaxFill, false) else {
            return Ok(());
        };
        check_plan(&documents, encoding, &max_fill, false)?;
        prop_assert_eq!(max_fill.optimal, Some(true));
        let (best, chosen) = exhaustive(&documents, encoding, available, false).unwrap();
        prop_assert_eq!(max_fill.used_tokens, best);
        let rest: Vec<usize> = max_fill.order.iter().copied().filter(|&i| !documents[i].required).collect();
        prop_assert_eq!(rest, chosen);
    }
}
