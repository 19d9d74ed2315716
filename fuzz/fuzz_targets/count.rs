//! Differential: packer's per-entry envelope count and its full count
//! against tiktoken-rs `encode_ordinary` on envelopes built from arbitrary
//! text cut into documents, in every envelope, with and without a cut note.
//! With the committed tokenizer files (every family), which have no oracle
//! here (tests/suite/tokenizers.rs and tests/suite/reference.rs anchor them
//! to Hugging Face `tokenizers` and mistral-common), the per-entry count is
//! checked against the file's full count of the rendered envelope wherever
//! packing relies on it (a tiktoken-style split, added tokens inside the
//! entries); every other file is counted whole when packing.
#![no_main]

#[path = "tokenizers.rs"]
mod tokenizers;

use libfuzzer_sys::fuzz_target;
use packer::envelope::Envelopes;
use packer::{Counter, Document, Encoding, Envelope, Format, Splitting};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    // The selector picks what counts: the encodings, then the files.
    let pick = selector as usize % (Encoding::ALL.len() + tokenizers::COUNT);
    let (counter, core) = match Encoding::ALL.get(pick) {
        Some(&encoding) => {
            let core = match encoding {
                Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
                Encoding::O200kBase | Encoding::O200kHarmony => tiktoken_rs::o200k_base_singleton(),
                Encoding::P50kBase | Encoding::P50kEdit => tiktoken_rs::p50k_base_singleton(),
                _ => tiktoken_rs::r50k_base_singleton(),
            };
            (Counter::new(encoding), Some(core))
        }
        None => (
            Counter::with_tokenizer(tokenizers::file(pick - Encoding::ALL.len())),
            None,
        ),
    };
    let full = |text: &str| match core {
        Some(core) => core.encode_ordinary(text).len(),
        None => counter.count(text),
    };
    assert_eq!(counter.count(&text), full(&text));

    // Documents: the text cut at every U+0001 (any content is allowed here;
    // validation is not under test).
    let documents: Vec<Document> = text
        .split('\u{1}')
        .enumerate()
        .map(|(index, content)| Document {
            index,
            id: format!("{index}{}", content.chars().take(3).collect::<String>()),
            source: packer::Source::Url(format!("https://example.com/{index}")),
            format: if index % 2 == 0 {
                Format::Markdown
            } else {
                Format::Text
            },
            content: content.to_owned(),
            priority: 0,
            required: false,
        })
        .collect();
    // Bits 3-4 pick the envelope, bits 5-7 the note (off, or cut at 0-6).
    let envelope = Envelope::ALL[(selector as usize >> 3) % 4 % 3];
    let notes = (selector >> 5).checked_sub(1).map(usize::from);
    let layout = Envelopes::build(counter, envelope, &documents, notes);
    // The per-entry arithmetic is what packing uses only with a
    // tiktoken-style split whose added tokens stay inside the entries
    // (`packer::pack::plan`); otherwise every candidate is counted whole.
    if counter.splitting() != Splitting::Tiktoken || !layout.added_tokens_stay_inside() {
        return;
    }
    let all: Vec<usize> = (0..documents.len()).rev().collect();
    for order in [&all[..], &all[all.len() / 2..], &[]] {
        let payload = layout.render(order);
        assert_eq!(layout.total(order), full(&payload));
    }
});
