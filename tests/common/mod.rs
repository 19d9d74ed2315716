//! Helpers shared by the integration tests.

use packer::Encoding;

/// tiktoken-rs's encoder for `encoding`: the independent oracle the tests
/// count with (`o200k_harmony` and `p50k_edit` share their ordinary text
/// with `o200k_base` and `p50k_base`).
pub fn oracle(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        Encoding::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
        _ => tiktoken_rs::r50k_base_singleton(),
    }
}
