//! Differential: packer's per-entry envelope count and its full count
//! against tiktoken-rs `encode_ordinary` on envelopes built from arbitrary
//! text cut into documents.
#![no_main]

use libfuzzer_sys::fuzz_target;
use packer::envelope::Layout;
use packer::{Counter, Document, Encoding, Format};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let encoding = Encoding::ALL[selector as usize % Encoding::ALL.len()];
    let core = match encoding {
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200kBase | Encoding::O200kHarmony => tiktoken_rs::o200k_base_singleton(),
        Encoding::P50kBase | Encoding::P50kEdit => tiktoken_rs::p50k_base_singleton(),
        _ => tiktoken_rs::r50k_base_singleton(),
    };
    let counter = Counter::new(encoding);
    assert_eq!(counter.count(&text), core.encode_ordinary(&text).len());

    // Documents: the text cut at every U+0001 (any content is allowed here;
    // validation is not under test).
    let documents: Vec<Document> = text
        .split('\u{1}')
        .enumerate()
        .map(|(index, content)| Document {
            index,
            id: format!("{index}{}", content.chars().take(3).collect::<String>()),
            url: format!("https://example.com/{index}"),
            format: if index % 2 == 0 { Format::Markdown } else { Format::Text },
            content: content.to_owned(),
            priority: 0,
            required: false,
        })
        .collect();
    let notes = selector & 0x80 != 0;
    let layout = Layout::of_documents(counter, &documents, notes);
    let all: Vec<usize> = (0..documents.len()).rev().collect();
    for order in [&all[..], &all[all.len() / 2..], &[]] {
        let payload = layout.render(order);
        assert_eq!(layout.total(order), core.encode_ordinary(&payload).len());
    }
});
