//! The `Precompiled` normalizer: SentencePiece's own normalization rules
//! (`nmt_nfkc` and the others), compiled into the file as a
//! `precompiled_charsmap` (T5, mT5, ALBERT, XLM-R and mBART conversions).
//!
//! The charsmap is base64 of: the trie's size in bytes (`u32`, little
//! endian), the trie (a darts-clone double array of `u32` units), then the
//! replacement texts, each ended by a NUL. The reference walks the trie over
//! a chunk's bytes and replaces the **whole** chunk with the text of the
//! shortest prefix that is a key (`spm_precompiled`'s `transform`). Its
//! normalizer cuts the text into extended grapheme clusters: a cluster of
//! fewer than 6 bytes is tried whole; otherwise, or when it has no key, each
//! of its characters is tried alone and kept as it is without one.
//!
//! A chunk has at most 5 bytes, so only keys of at most 5 bytes are ever
//! looked up: they are all read when the file is loaded, every unit on the
//! way checked (the reference would index out of its array, or cut a
//! replacement inside a character, on a file that breaks these), and kept
//! in a map. A file whose trie cannot be walked so is `invalid-tokenizer`.

use std::borrow::Cow;

use base64::Engine as _;
use rustc_hash::FxHashMap;
use unicode_segmentation::UnicodeSegmentation;

use crate::error::Error;
use crate::tokens::family::invalid;

/// The longest chunk the reference tries whole: a cluster of fewer than
/// 6 bytes.
const LONGEST_KEY: usize = 5;

/// More trie nodes than this within five bytes of the root is not a
/// charsmap (`nmt_nfkc`'s has about ten thousand).
const MOST_NODES: usize = 1 << 20;

/// A charsmap read into the replacement of every key of at most
/// [`LONGEST_KEY`] bytes.
#[derive(Debug)]
pub(crate) struct Charsmap {
    keys: FxHashMap<Box<[u8]>, Box<str>>,
}

impl Charsmap {
    /// Reads a `precompiled_charsmap` (its base64 text).
    pub(crate) fn parse(base64: &str) -> Result<Charsmap, Error> {
        let bad = || invalid("its Precompiled normalizer's precompiled_charsmap cannot be read");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(base64)
            .map_err(|_| bad())?;
        let size = bytes
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(bad)?;
        // The reference reads `size / 4` units and takes the rest as text.
        let units = size / 4;
        let trie_end = 4 + units * 4;
        let trie: Vec<u32> = bytes
            .get(4..trie_end)
            .ok_or_else(bad)?
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let normalized = std::str::from_utf8(&bytes[trie_end..]).map_err(|_| bad())?;
        let mut keys = FxHashMap::default();
        let mut walk = Walk {
            trie: &trie,
            normalized,
            keys: &mut keys,
            nodes: 0,
            key: Vec::with_capacity(LONGEST_KEY),
        };
        let root = *trie.first().ok_or_else(bad)?;
        walk.node(offset(root)).ok_or_else(bad)?;
        Ok(Charsmap { keys })
    }

    /// How many times longer, at most, a replacement is than what it
    /// replaces (a chunk is at least as long as its key).
    pub(crate) fn growth(&self) -> u64 {
        self.keys
            .iter()
            .map(|(key, with)| with.len().div_ceil(key.len().max(1)) as u64)
            .max()
            .unwrap_or(1)
            .max(1)
    }

    /// The replacement of `chunk`: that of its shortest prefix that is a
    /// key (bytes up to a NUL), if any.
    fn transform(&self, chunk: &str) -> Option<&str> {
        let bytes = chunk.as_bytes();
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        (1..=end.min(LONGEST_KEY)).find_map(|len| self.keys.get(&bytes[..len]).map(|r| &**r))
    }

    /// `text` as the reference's `Precompiled` normalizer writes it.
    pub(crate) fn normalize<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out: Option<String> = None;
        // Everything before `kept` is copied once something changed.
        let mut kept = 0;
        let mut replace = |out: &mut Option<String>, at: usize, len: usize, with: &str| {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[kept..at]);
            out.push_str(with);
            kept = at + len;
        };
        for (at, grapheme) in text.grapheme_indices(true) {
            if grapheme.len() <= LONGEST_KEY
                && let Some(with) = self.transform(grapheme)
            {
                replace(&mut out, at, grapheme.len(), with);
                continue;
            }
            for (offset, c) in grapheme.char_indices() {
                let part = &grapheme[offset..offset + c.len_utf8()];
                if let Some(with) = self.transform(part) {
                    replace(&mut out, at + offset, part.len(), with);
                }
            }
        }
        match out {
            Some(mut out) => {
                out.push_str(&text[kept..]);
                Cow::Owned(out)
            }
            None => Cow::Borrowed(text),
        }
    }
}

/// A unit's fields, as darts-clone packs them.
fn has_leaf(unit: u32) -> bool {
    (unit >> 8) & 1 == 1
}

fn value(unit: u32) -> usize {
    (unit & ((1 << 31) - 1)) as usize
}

fn label(unit: u32) -> u32 {
    unit & ((1 << 31) | 0xFF)
}

fn offset(unit: u32) -> usize {
    ((unit >> 10) << ((unit & (1 << 9)) >> 6)) as usize
}

/// The walk of the trie to depth [`LONGEST_KEY`].
struct Walk<'a> {
    trie: &'a [u32],
    normalized: &'a str,
    keys: &'a mut FxHashMap<Box<[u8]>, Box<str>>,
    nodes: usize,
    key: Vec<u8>,
}

impl Walk<'_> {
    /// Reads every key below the node at `position` (a unit's position
    /// already moved by its offset); `None` if the trie is broken.
    fn node(&mut self, position: usize) -> Option<()> {
        if self.key.len() == LONGEST_KEY {
            return Some(());
        }
        for byte in 1..=255u8 {
            let child_at = position ^ usize::from(byte);
            let unit = *self.trie.get(child_at)?;
            if label(unit) != u32::from(byte) {
                continue;
            }
            self.nodes += 1;
            if self.nodes > MOST_NODES {
                return None;
            }
            let next = child_at ^ offset(unit);
            self.key.push(byte);
            if has_leaf(unit) {
                let start = value(*self.trie.get(next)?);
                let rest = self.normalized.get(start..)?;
                let end = rest.find('\0').unwrap_or(rest.len());
                self.keys
                    .insert(self.key.as_slice().into(), rest[..end].into());
            }
            self.node(next)?;
            self.key.pop();
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The charsmap of the committed file (SentencePiece's `nmt_nfkc`).
    fn nmt_nfkc() -> Charsmap {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/tokenizers/unigram-precompiled-tokenizer.json"
        );
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        Charsmap::parse(file["normalizer"]["precompiled_charsmap"].as_str().unwrap()).unwrap()
    }

    #[test]
    fn nmt_nfkc_maps_as_sentencepiece_does() {
        let charsmap = nmt_nfkc();
        // About ten thousand keys of at most five bytes, well under the cap.
        assert!(
            (5_000..MOST_NODES).contains(&charsmap.keys.len()),
            "{}",
            charsmap.keys.len()
        );
        assert_eq!(charsmap.normalize("plain text"), "plain text");
        assert!(matches!(charsmap.normalize("plain"), Cow::Borrowed(_)));
        // Compatibility forms, full-width letters and the ideographic space.
        assert_eq!(
            charsmap.normalize("\u{FB01}ne \u{FF21}\u{3000}x"),
            "fine A x"
        );
        // A cluster with a key is replaced whole; `e` + U+0301 composes.
        assert_eq!(charsmap.normalize("e\u{301}"), "\u{e9}");
    }

    #[test]
    fn a_broken_charsmap_is_invalid_not_a_panic() {
        let encode = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
        for charsmap in [
            String::new(),
            "not base64!".to_owned(),
            encode(&[8, 0, 0]),
            // A trie of one unit whose offset leads outside it.
            encode(&[4, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F]),
            // A size past the end.
            encode(&[64, 0, 0, 0, 1, 2, 3, 4]),
            // Replacement text that is not UTF-8.
            encode(&[4, 0, 0, 0, 0, 0, 0, 0, 0xFF]),
        ] {
            let error = Charsmap::parse(&charsmap).expect_err(&charsmap);
            assert_eq!(error.code(), "invalid-tokenizer", "{charsmap}");
        }
    }

    /// A trie whose every probe matches (the unit at `c` has label `c` and
    /// leads back to the root) has 255 children under every node: refused
    /// by the cap on nodes instead of walked for 255^5 nodes.
    #[test]
    fn a_trie_that_matches_everything_is_refused_quickly() {
        let mut bytes = vec![0, 4, 0, 0];
        for c in 0..256u32 {
            bytes.extend(((c << 10) | c).to_le_bytes());
        }
        let charsmap = base64::engine::general_purpose::STANDARD.encode(&bytes);
        let start = std::time::Instant::now();
        assert!(Charsmap::parse(&charsmap).is_err());
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
    }
}
