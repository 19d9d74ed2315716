//! Tokenizer files committed for packer's tests, one or more of every
//! family (byte-level BPE: Qwen3's tokenizer.json and the legacy Claude
//! file with NFKC; Mistral's tekken.json; SentencePiece-style BPE in
//! Llama 2's and Gemma's shapes; WordPiece: MiniLM's and a cased file;
//! Unigram with byte fallback and with a normalizer sequence), compiled
//! into the fuzz targets and loaded once.

use std::io::Read as _;
use std::sync::LazyLock;

use packer::Tokenizer;

/// How many files [`file`] chooses from.
pub const COUNT: usize = 9;

static FILES: LazyLock<[Tokenizer; COUNT]> = LazyLock::new(|| {
    [
        (
            "qwen3-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/qwen3-tokenizer.json.gz")[..],
        ),
        (
            "tekken_240718.json",
            &include_bytes!("../../tests/data/tokenizers/tekken_240718.json.gz")[..],
        ),
        (
            "claude-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/claude-tokenizer.json.gz")[..],
        ),
        (
            "all-MiniLM-L6-v2-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/all-MiniLM-L6-v2-tokenizer.json.gz")[..],
        ),
        (
            "sp-legacy-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/sp-legacy-tokenizer.json")[..],
        ),
        (
            "sp-gemma-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/sp-gemma-tokenizer.json")[..],
        ),
        (
            "wordpiece-cased-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/wordpiece-cased-tokenizer.json")[..],
        ),
        (
            "unigram-bytes-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/unigram-bytes-tokenizer.json")[..],
        ),
        (
            "unigram-sequence-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/unigram-sequence-tokenizer.json")[..],
        ),
    ]
    .map(|(name, raw)| {
        let mut bytes = Vec::new();
        if raw.starts_with(&[0x1f, 0x8b]) {
            flate2::read::GzDecoder::new(raw)
                .read_to_end(&mut bytes)
                .unwrap();
        } else {
            bytes = raw.to_vec();
        }
        Tokenizer::from_bytes(name, &bytes).unwrap()
    })
});

/// Tokenizer file `index` (modulo [`COUNT`]).
pub fn file(index: usize) -> Tokenizer {
    FILES[index % COUNT]
}
