//! The tokenizer files committed for packer's tests (Qwen3's tokenizer.json,
//! Mistral's tekken.json), compiled into the fuzz targets and loaded once.

use std::io::Read as _;
use std::sync::LazyLock;

use packer::Tokenizer;

static FILES: LazyLock<[Tokenizer; 2]> = LazyLock::new(|| {
    [
        (
            "qwen3-tokenizer.json",
            &include_bytes!("../../tests/data/tokenizers/qwen3-tokenizer.json.gz")[..],
        ),
        (
            "tekken_240718.json",
            &include_bytes!("../../tests/data/tokenizers/tekken_240718.json.gz")[..],
        ),
    ]
    .map(|(name, gz)| {
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut bytes)
            .unwrap();
        Tokenizer::from_bytes(name, &bytes).unwrap()
    })
});

/// Tokenizer file `index` (0: Qwen3, 1: tekken).
pub fn file(index: usize) -> Tokenizer {
    FILES[index % 2]
}
