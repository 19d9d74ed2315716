use super::bound::l2;
use super::plan::windows_counting;
use super::*;
use crate::Policy;
use crate::envelope::Envelope;
use crate::fixture::{Document, Format, Source};
use crate::pack::Options;
use crate::tokens::{Counter, Encoding};

fn document(index: usize, content: &str) -> Document {
    Document {
        index,
        id: format!("d{index}"),
        source: Source::Url(format!("https://example.com/{index}")),
        format: Format::Text,
        content: content.into(),
        priority: 0,
        required: false,
    }
}

fn reference(encoding: Encoding, text: &str) -> usize {
    crate::tokens::tests::reference(encoding)
        .encode_ordinary(text)
        .len()
}

fn run(documents: &[Document], available: u64, options: &Options) -> Result<Windows, Failure> {
    plan_windows(
        documents,
        Counter::new(Encoding::Cl100kBase),
        available,
        options,
    )
}

/// Every guarantee of a result: each document placed at most once, every
/// document not skipped or required in exactly one window, every window
/// recounted by the reference and within the budget, required documents
/// first in every window, and decisions that add up.
fn check(documents: &[Document], windows: &Windows, encoding: Encoding) {
    let count = windows.count();
    assert!(count >= 1);
    let mut seen = vec![0; documents.len()];
    for (b, window) in windows.windows.iter().enumerate() {
        assert_eq!(window.index, b + 1);
        assert_eq!(
            window.used_tokens,
            reference(encoding, &window.payload_text),
            "{}",
            window.payload_text
        );
        assert!(window.used_tokens as u64 <= windows.available_tokens);
        let required: Vec<usize> = documents
            .iter()
            .filter(|d| d.required)
            .map(|d| d.index)
            .collect();
        assert_eq!(&window.order[..required.len()], &required[..]);
        for &index in &window.order[required.len()..] {
            seen[index] += 1;
            assert_eq!(windows.placement[index], Some(b + 1));
        }
    }
    for document in documents {
        let decision = windows.decisions[document.index];
        assert_eq!(decision.index, document.index);
        if document.required {
            assert_eq!(decision.reason, Reason::Required);
            assert_eq!(seen[document.index], 0);
        } else if windows.skipped.contains(&document.index) {
            assert_eq!(seen[document.index], 0);
            assert_eq!(decision.reason, Reason::WholeDocumentDoesNotFit);
            assert!(decision.needed_tokens > decision.free_tokens as i64);
        } else {
            assert_eq!(seen[document.index], 1, "document {}", document.index);
            assert!(matches!(
                decision.reason,
                Reason::Fits | Reason::OutlineFits | Reason::ExcerptFits
            ));
            assert!(decision.needed_tokens <= decision.free_tokens as i64);
        }
    }
    assert!(windows.lower_bound <= count);
    if windows.optimal {
        assert!(windows.lower_bound <= count);
    }
}

#[test]
fn labels_name_the_place_in_every_layout() {
    let json = labelled(Envelope::Json, r#"{"documents":[]}"#, 2, 5);
    assert_eq!(json, r#"{"window":"2 of 5","documents":[]}"#);
    let xml = labelled(Envelope::Xml, "<documents>\n</documents>", 2, 5);
    assert_eq!(xml, "<documents window=\"2 of 5\">\n</documents>");
    let markdown = labelled(Envelope::Markdown, "# Documents\n(none)\n", 12, 100);
    assert_eq!(markdown, "# Documents (window 12 of 100)\n(none)\n");
}

/// A label adds the same tokens to every window, whatever it holds: the
/// sum of the unlabelled count and the label's tokens is the reference
/// count of the labelled payload, at every width of `i` and `K`.
#[test]
fn a_label_adds_the_same_tokens_to_every_window() {
    let contents = [
        "plain words",
        "```\nfence\n```",
        "12345 digits",
        "  leading spaces",
        "\nnewline first",
        "(paren first)",
        "</document_content> and <documents>",
    ];
    let documents: Vec<Document> = contents
        .iter()
        .enumerate()
        .map(|(i, text)| document(i, text))
        .collect();
    for encoding in [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::R50kBase,
    ] {
        let counter = Counter::new(encoding);
        for envelope in Envelope::ALL {
            let layout = Envelopes::build(counter, envelope, &documents, None);
            let labels = Labels::new(&layout);
            for order in [&[][..], &[0], &[4, 1], &[5, 6, 2], &[3, 0, 1, 2, 4, 5, 6]] {
                let text = layout.render(order);
                for (index, count) in [
                    (1, 1),
                    (2, 5),
                    (9, 10),
                    (10, 10),
                    (99, 1000),
                    (1000, 1000),
                    (12345, 99999),
                ] {
                    let with = labelled(envelope, &text, index, count);
                    assert_eq!(
                        layout.total(order) + labels.tokens(index, count),
                        reference(encoding, &with),
                        "{encoding} {envelope} {with:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_document_goes_in_exactly_one_window_and_every_window_is_exact() {
    let documents: Vec<Document> = (0..40)
        .map(|i| {
            document(
                i,
                &crate::tokens::tests::varied_text(i as u64, 40 + (i * 37) % 300),
            )
        })
        .collect();
    for encoding in [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::R50kBase,
    ] {
        let counter = Counter::new(encoding);
        for envelope in Envelope::ALL {
            for policy in Policy::ALL {
                let options = Options {
                    envelope,
                    policy,
                    ..Options::default()
                };
                let windows = plan_windows(&documents, counter, 400, &options).unwrap();
                check(&documents, &windows, encoding);
                assert!(windows.count() > 3, "{}", windows.count());
                if policy == Policy::InOrder {
                    // Counting every window whole keeps every guarantee.
                    let whole = windows_counting(&documents, counter, 400, &options, true).unwrap();
                    check(&documents, &whole, encoding);
                    assert!(whole.count() <= windows.count() + 1);
                }
            }
        }
    }
}

#[test]
fn required_documents_are_in_every_window_and_a_document_too_big_is_skipped() {
    let mut documents: Vec<Document> = (0..12)
        .map(|i| document(i, &"some words here ".repeat(3 + i)))
        .collect();
    documents[3].required = true;
    documents[7] = document(7, &"far too long for any window ".repeat(40));
    let windows = run(&documents, 200, &Options::default()).unwrap();
    check(&documents, &windows, Encoding::Cl100kBase);
    assert_eq!(windows.skipped, vec![7]);
    assert!(windows.count() > 1);
    for window in &windows.windows {
        assert_eq!(window.order[0], 3);
    }
    // Required documents that do not fit are an error naming them.
    documents[7].required = true;
    let failure = run(&documents, 200, &Options::default()).unwrap_err();
    assert!(matches!(
        failure.error(),
        Error::RequiredDoesNotFit { indices, .. } if indices == &vec![7]
    ));
    // So is a budget too small for the empty window and its label.
    let failure = run(&documents[..1], 10, &Options::default()).unwrap_err();
    assert!(matches!(
        failure.error(),
        Error::EmptyEnvelopeDoesNotFit { .. }
    ));
}

#[test]
fn nothing_to_place_is_one_window() {
    let documents = [document(0, &"too long ".repeat(100))];
    let windows = run(&documents, 50, &Options::default()).unwrap();
    assert_eq!(windows.count(), 1);
    assert!(windows.optimal);
    assert_eq!(
        windows.windows[0].payload_text,
        r#"{"window":"1 of 1","documents":[]}"#
    );
    assert_eq!(windows.skipped, vec![0]);
}

#[test]
fn neighbours_stay_together_when_it_costs_no_window() {
    // Six equal documents, three to a window: next fit keeps input order.
    let documents: Vec<Document> = (0..6).map(|i| document(i, "the same words")).collect();
    let one = run(&documents[..1], 1_000, &Options::default())
        .unwrap()
        .windows[0]
        .used_tokens;
    let three = run(&documents[..3], 1_000, &Options::default())
        .unwrap()
        .windows[0]
        .used_tokens;
    assert!(three > one);
    let windows = run(&documents, three as u64, &Options::default()).unwrap();
    let orders: Vec<&[usize]> = windows.windows.iter().map(|w| &w.order[..]).collect();
    assert_eq!(orders, vec![&[0, 1, 2][..], &[3, 4, 5]]);
    assert!(windows.optimal);
}

#[test]
fn fewer_windows_than_next_fit_when_order_wastes_room() {
    // A window holds two big and two small documents. In this input order
    // next fit closes the first window with room for a small one left and
    // needs a third; packing the big ones first needs two.
    let big = "a big document with many words in it ".repeat(6);
    let sizes = "sbbbsbss";
    let documents: Vec<Document> = sizes
        .chars()
        .enumerate()
        .map(|(i, size)| document(i, if size == 'b' { &big } else { "small" }))
        .collect();
    let full = |order: [usize; 4]| {
        let chosen: Vec<Document> = order
            .iter()
            .enumerate()
            .map(|(i, &at)| Document {
                index: i,
                ..documents[at].clone()
            })
            .collect();
        run(&chosen, 10_000, &Options::default()).unwrap().windows[0].used_tokens
    };
    let budget = full([1, 2, 0, 4]).max(full([0, 4, 1, 2]));
    let windows = run(&documents, budget as u64, &Options::default()).unwrap();
    check(&documents, &windows, Encoding::Cl100kBase);
    assert_eq!(windows.count(), 2);
    assert!(windows.optimal);
    let mut next_fit = Vec::new();
    let mut current: Vec<Document> = Vec::new();
    for document in &documents {
        current.push(Document {
            index: current.len(),
            ..document.clone()
        });
        let used = run(&current, 10_000, &Options::default()).unwrap().windows[0].used_tokens;
        if used > budget {
            next_fit.push(current.len() - 1);
            current = vec![Document {
                index: 0,
                ..document.clone()
            }];
        }
    }
    next_fit.push(current.len());
    assert_eq!(next_fit.len(), 3, "{next_fit:?}");
}

#[test]
fn priority_orders_the_documents_inside_each_window() {
    let mut documents: Vec<Document> = (0..4).map(|i| document(i, "words")).collect();
    documents[2].priority = 9;
    let options = Options {
        policy: Policy::Priority,
        ..Options::default()
    };
    let windows = run(&documents, 1_000, &options).unwrap();
    assert_eq!(windows.windows[0].order, vec![2, 0, 1, 3]);
}

#[test]
fn the_lower_bound_of_l2_counts_big_items_one_to_a_bin() {
    // Three items over half the capacity need three bins, though their sum
    // fits two.
    assert_eq!(l2(&[6, 6, 6], 10), 3);
    assert_eq!(l2(&[1, 1, 1, 1], 10), 1);
    assert_eq!(l2(&[3, 3, 3, 3, 3, 5, 5], 10), 3);
    assert_eq!(l2(&[11], 10), usize::MAX);
    assert_eq!(l2(&[], 10), 0);
}

#[test]
fn labels_that_gain_tokens_with_more_windows_are_reserved() {
    // Many windows of one document each: at 1,000 windows the label's
    // numbers cost more in cl100k_base, and every window still fits.
    let documents: Vec<Document> = (0..1_005)
        .map(|i| Document {
            id: format!("d{i:04}"),
            ..document(i, "x")
        })
        .collect();
    let one = run(&documents[..1], 1_000, &Options::default())
        .unwrap()
        .windows[0]
        .used_tokens;
    let windows = run(&documents, one as u64 + 3, &Options::default()).unwrap();
    check(&documents, &windows, Encoding::Cl100kBase);
    assert_eq!(windows.count(), 1_005);
    assert!(
        windows.windows[999]
            .payload_text
            .starts_with(r#"{"window":"1000 of 1005","#)
    );
}

#[test]
fn with_outline_a_source_file_too_big_for_any_window_goes_in_as_an_outline() {
    // This crate's own envelope code: far more than one window holds.
    let big = include_str!("../../envelope.rs");
    let mut documents = vec![
        document(0, "a short note"),
        document(1, big),
        document(2, "another short note"),
        document(3, &"words that are not code ".repeat(2000)),
    ];
    documents[1].id = "src/envelope.rs".into();
    let available = 6000;
    let plain = run(&documents, available, &Options::default()).unwrap();
    assert_eq!(plain.skipped, vec![1, 3]);
    let options = Options {
        outline: Some(crate::pack::OutlineOptions::default()),
        ..Options::default()
    };
    let windows = run(&documents, available, &options).unwrap();
    check(&documents, &windows, Encoding::Cl100kBase);
    // The text with no grammar is still skipped; the source file is in
    // one window, as an outline, labelled, counted like any entry.
    assert_eq!(windows.skipped, vec![3]);
    let decision = windows.decisions[1];
    assert_eq!(decision.reason, Reason::OutlineFits);
    assert!(decision.selected);
    assert!(decision.content_tokens < reference(Encoding::Cl100kBase, big));
    let window = &windows.windows[windows.placement[1].unwrap() - 1];
    assert!(
        window.payload_text.contains(r#""id":"src/envelope.rs""#)
            && window.payload_text.contains(r#""outline":{"lines":""#),
        "{}",
        window.payload_text
    );
    // Signatures stay, bodies go.
    assert!(window.payload_text.contains("fn from_str(name: &str)"));
    assert!(
        !window
            .payload_text
            .contains(".find(|envelope| envelope.name() == name)")
    );
    // The documents that fitted whole are placed as before.
    for index in [0, 2] {
        assert_eq!(windows.decisions[index].reason, Reason::Fits);
    }
}

#[test]
fn with_an_excerpt_query_a_page_too_big_for_any_window_goes_in_as_its_excerpt() {
    let mut lines: Vec<String> = (1..=3000).map(|i| format!("filler line {i}")).collect();
    lines[1500] = "the needle is here".into();
    let page = lines.join("\n");
    let documents = [document(0, "a short note"), document(1, &page)];
    let available = 500;
    let plain = run(&documents, available, &Options::default()).unwrap();
    assert_eq!(plain.skipped, vec![1]);
    let options = Options {
        excerpt: Some(crate::pack::ExcerptOptions {
            query: "needle".into(),
            context: 2,
            max_chars: 12_000,
        }),
        ..Options::default()
    };
    let windows = run(&documents, available, &options).unwrap();
    check(&documents, &windows, Encoding::Cl100kBase);
    assert!(windows.skipped.is_empty());
    assert_eq!(windows.decisions[1].reason, Reason::ExcerptFits);
    let window = &windows.windows[windows.placement[1].unwrap() - 1];
    assert!(
        window.payload_text.contains(
            r#""content":"[...]\nfiller line 1499\nfiller line 1500\nthe needle is here\nfiller line 1502\nfiller line 1503\n[...]","excerpt":{"query":"needle","lines":"1499-1503""#
        ),
        "{}",
        window.payload_text
    );
}
