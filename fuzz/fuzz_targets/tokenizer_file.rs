//! Arbitrary bytes as a tokenizer file: read as `--tokenizer` reads one,
//! then, when accepted, counted with on a few texts. Either a clean
//! `Error` or counts, never a panic, a stack overflow or an allocation
//! that aborts; the seeds are the committed files, so mutations stay close
//! to real pipelines, vocabularies and added tokens.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let texts = [
        "",
        "hello world",
        "  leading spaces and <|endoftext|> and 12345",
        "naïve café 漢字 🙂\n\ttabs",
    ];
    if let Ok(counts) = packer::Tokenizer::count_once(data, &texts) {
        // The empty text is no tokens with every family (nothing is added).
        assert_eq!(counts[0], 0);
    }
});
