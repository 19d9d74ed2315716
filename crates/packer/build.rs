//! Builds the built-in encodings' vocabularies into tables that the library
//! includes as bytes and reads in place, so that no vocabulary is parsed or
//! decoded when packer starts (only its hash table is built, see
//! `src/tokens/tiktoken/vocabulary.rs`).
//!
//! The ranks come from tiktoken-rs (OpenAI's published `.tiktoken` files).
//! Each table is little-endian `u32` words, then bytes:
//!
//! - a header: a magic number, the number of rank slots `n` and the length
//!   of the longest token;
//! - `n + 1` offsets: rank `r`'s bytes are `bytes[offsets[r]..offsets[r + 1]]`
//!   (empty for a rank that is a special token);
//! - the token bytes, in rank order.

use std::path::PathBuf;

/// "PKV2", read as a little-endian word.
const MAGIC: u32 = u32::from_le_bytes(*b"PKV2");

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let encodings: [(&str, Load); 4] = [
        ("r50k_base", || {
            tiktoken_rs::r50k_base().map_err(|e| e.to_string())
        }),
        ("p50k_base", || {
            tiktoken_rs::p50k_base().map_err(|e| e.to_string())
        }),
        ("cl100k_base", || {
            tiktoken_rs::cl100k_base().map_err(|e| e.to_string())
        }),
        ("o200k_base", || {
            tiktoken_rs::o200k_base().map_err(|e| e.to_string())
        }),
    ];
    for (name, load) in encodings {
        let core = load().unwrap_or_else(|e| panic!("tiktoken-rs loads {name}: {e}"));
        let table = build(&ranks(&core));
        std::fs::write(out.join(format!("{name}.vocab")), table).expect("OUT_DIR is writable");
    }
}

/// Loads one of tiktoken-rs's encodings.
type Load = fn() -> Result<tiktoken_rs::CoreBPE, String>;

/// Every ordinary token's bytes, indexed by rank; a special token's rank
/// holds no bytes. The ranks run from 0 to the last ordinary token.
fn ranks(core: &tiktoken_rs::CoreBPE) -> Vec<Vec<u8>> {
    let special: Vec<u32> = core
        .special_tokens()
        .iter()
        .flat_map(|token| core.encode_with_special_tokens(token))
        .collect();
    let mut tokens = Vec::new();
    for rank in 0u32.. {
        if special.contains(&rank) {
            tokens.push(Vec::new());
            continue;
        }
        match core.decode_bytes(&[rank]) {
            Ok(bytes) => tokens.push(bytes),
            Err(_) => break,
        }
    }
    while tokens.last().is_some_and(Vec::is_empty) {
        tokens.pop();
    }
    tokens
}

fn build(tokens: &[Vec<u8>]) -> Vec<u8> {
    let mut seen = std::collections::HashSet::new();
    for token in tokens.iter().filter(|token| !token.is_empty()) {
        assert!(seen.insert(token), "a token is listed twice");
    }
    let longest = tokens.iter().map(Vec::len).max().unwrap_or(0);
    let mut words = vec![MAGIC, tokens.len() as u32, longest as u32];
    let mut offset = 0u32;
    words.push(0);
    for token in tokens {
        offset += token.len() as u32;
        words.push(offset);
    }
    let mut blob: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    for token in tokens {
        blob.extend(token);
    }
    blob
}
