//! The built-in encodings (`cl100k_base`, `o200k_base`, `p50k_base`,
//! `r50k_base`): a vocabulary built into the binary (the `vocabulary`
//! module), tiktoken's split pattern as one forward lazy DFA, and a
//! linear-time encoder for hostile long pieces.

mod vocabulary;

use std::sync::LazyLock;

use bpe::byte_pair_encoding::BytePairEncoding;
use regex_automata::hybrid::dfa::Cache;

use super::known::{Skip, Visitor};
use super::walker::Walker;
use super::{Encoding, Engine, Splitting};
use crate::tokens::bpe::{Pieces, count_ranked, with_state};
use vocabulary::Vocabulary;

/// The engine for `encoding`, loaded on first use and kept.
pub(super) fn engine(encoding: Encoding) -> &'static Builtin {
    match encoding {
        Encoding::Cl100kBase => &CL100K_BASE,
        Encoding::O200kBase | Encoding::O200kHarmony => &O200K_BASE,
        Encoding::P50kBase | Encoding::P50kEdit => &P50K_BASE,
        Encoding::R50kBase => &R50K_BASE,
    }
}

/// The special tokens of `o200k_harmony`, as tiktoken lists them: the
/// named ones and `<|reserved_N|>` for every other id from 200000 to
/// 201087.
pub(super) fn harmony_specials() -> &'static [&'static str] {
    static SPECIALS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let named: [(u32, &str); 9] = [
            (199_998, "<|startoftext|>"),
            (199_999, "<|endoftext|>"),
            (200_002, "<|return|>"),
            (200_003, "<|constrain|>"),
            (200_005, "<|channel|>"),
            (200_006, "<|start|>"),
            (200_007, "<|end|>"),
            (200_008, "<|message|>"),
            (200_012, "<|call|>"),
        ];
        let mut all: Vec<&'static str> = named.iter().map(|&(_, text)| text).collect();
        for id in 200_000..=201_087u32 {
            if named.iter().all(|&(named_id, _)| named_id != id) {
                all.push(Box::leak(format!("<|reserved_{id}|>").into_boxed_str()));
            }
        }
        all
    });
    &SPECIALS
}

/// [`harmony_specials`] as a set, for tests against tiktoken-rs.
#[cfg(test)]
pub(crate) fn harmony_specials_for_tests() -> std::collections::HashSet<&'static str> {
    harmony_specials().iter().copied().collect()
}

/// [`super::Counter::count_framed`] for `o200k_harmony`: tiktoken's
/// `encode(text, allowed_special="all")`, each special token one token and
/// the text between counted as ordinary text, except a match overlapping
/// `literal`, which stays ordinary text.
pub(super) fn count_harmony(engine: &dyn Engine, text: &str, literal: &[(usize, usize)]) -> usize {
    let mut count = 0;
    let mut from = 0;
    for found in harmony_search().find_iter(text) {
        let (start, end) = (found.start(), found.end());
        if literal.iter().any(|&(a, b)| a < end && start < b) {
            continue;
        }
        count += engine.count(&text[from..start]) + 1;
        from = end;
    }
    count + engine.count(&text[from..])
}

/// [`super::Counter::count_framed_around`] for `o200k_harmony`.
pub(super) fn count_harmony_around(
    engine: &dyn Engine,
    text: &str,
    hole: (usize, usize),
    stretch: super::Stretch<'_>,
) -> Option<usize> {
    let mut count = 0;
    let mut from = 0;
    let mut holder = None;
    let mut ends: Vec<(usize, usize)> = harmony_search()
        .find_iter(text)
        .map(|found| (found.start(), found.end()))
        .collect();
    ends.push((text.len(), text.len()));
    for (start, end) in ends {
        if start < hole.1 && hole.0 < end {
            return None;
        }
        if from <= hole.0 && hole.1 <= start {
            holder = Some((from, start));
        } else {
            count += engine.count(&text[from..start]);
        }
        count += usize::from(end > start);
        from = end;
    }
    let (start, end) = holder?;
    let piece = &text[start..end];
    Some(count + stretch(piece, hole.0 - start).unwrap_or_else(|| engine.count(piece)))
}

/// Every special token of `o200k_harmony`, leftmost-longest.
fn harmony_search() -> &'static aho_corasick::AhoCorasick {
    use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
    static SEARCH: LazyLock<AhoCorasick> = LazyLock::new(|| {
        AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(harmony_specials())
            .expect("a small set of patterns")
    });
    &SEARCH
}

/// tiktoken's split patterns, with the negative look-ahead `\s+(?!\S)`
/// rewritten as bpe-openai does: `\s+$` at the end of text, else `\s+\s`
/// minus its last character (the second pattern is a one-character
/// look-ahead). Patterns are tried in order, like the alternation they
/// replace.
const CL100K_PATTERNS: [(&str, bool); 3] = [
    (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+$",
        false,
    ),
    (r"\s+\s", true),
    (r"\s+", false),
];

/// `o200k_base`'s pattern (see [`CL100K_PATTERNS`]).
const O200K_PATTERNS: [(&str, bool); 3] = [
    (
        concat!(
            r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
            r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+$",
        ),
        false,
    ),
    (r"\s+\s", true),
    (r"\s+", false),
];

/// The GPT-2 pattern of `r50k_base` and `p50k_base` (see [`CL100K_PATTERNS`]).
const GPT2_PATTERNS: [(&str, bool); 3] = [
    (
        r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+$",
        false,
    ),
    (r"\s+\s", true),
    (r"\s+", false),
];

/// A hash factor without collisions on the built-in vocabularies (the one
/// bpe-openai uses for its dictionaries of `cl100k_base` and `o200k_base`).
const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

static CL100K_BASE: LazyLock<Builtin> = LazyLock::new(|| {
    Builtin::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.vocab")),
        || &CL100K_LONG,
        &CL100K_PATTERNS,
    )
});
static O200K_BASE: LazyLock<Builtin> = LazyLock::new(|| {
    Builtin::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.vocab")),
        || &O200K_LONG,
        &O200K_PATTERNS,
    )
});
static P50K_BASE: LazyLock<Builtin> = LazyLock::new(|| {
    Builtin::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/p50k_base.vocab")),
        || &P50K_LONG,
        &GPT2_PATTERNS,
    )
});
static R50K_BASE: LazyLock<Builtin> = LazyLock::new(|| {
    Builtin::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/r50k_base.vocab")),
        || &R50K_LONG,
        &GPT2_PATTERNS,
    )
});
static CL100K_LONG: LazyLock<BytePairEncoding> =
    LazyLock::new(|| long_encoder(&CL100K_BASE.vocabulary));
static O200K_LONG: LazyLock<BytePairEncoding> =
    LazyLock::new(|| long_encoder(&O200K_BASE.vocabulary));
static P50K_LONG: LazyLock<BytePairEncoding> =
    LazyLock::new(|| long_encoder(&P50K_BASE.vocabulary));
static R50K_LONG: LazyLock<BytePairEncoding> =
    LazyLock::new(|| long_encoder(&R50K_BASE.vocabulary));

/// Builds the linear-time byte-pair encoding for long pieces from the same
/// table the merge loop reads (so each vocabulary is carried once): the
/// token byte strings in rank order. Ranks that are special tokens are left
/// out; counting only needs the merge order.
fn long_encoder(vocabulary: &Vocabulary) -> BytePairEncoding {
    let tokens: Vec<Vec<u8>> = vocabulary.tokens().map(<[u8]>::to_vec).collect();
    BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))
}

/// Pieces longer than this many bytes are counted with GitHub's `bpe`
/// crate, built on first need: its encoder is linear in the piece, where
/// the merge loop is `O(n log n)` with a hash lookup per step.
const LONG_PIECE: usize = 1 << 16;

/// A built-in encoding's engine: its vocabulary and split pattern.
pub(super) struct Builtin {
    vocabulary: Vocabulary,
    /// The linear-time encoder for long pieces.
    long: fn() -> &'static BytePairEncoding,
    /// The split patterns as one forward lazy DFA: the pieces are anchored
    /// searches, so a match's end and pattern are all that is needed, and
    /// no reverse automaton or capture engine is built at start-up.
    split: Walker,
}

impl Builtin {
    fn new(
        table: &'static [u8],
        long: fn() -> &'static BytePairEncoding,
        patterns: &[(&str, bool)],
    ) -> Builtin {
        Builtin {
            vocabulary: Vocabulary::new(table),
            long,
            split: Walker::new(patterns).expect("the split patterns are valid"),
        }
    }

    /// The tokens of one piece, uncached.
    fn count_piece(&self, piece: &[u8]) -> usize {
        if piece.len() > LONG_PIECE {
            (self.long)().count(piece)
        } else {
            count_ranked(&self.vocabulary, piece)
        }
    }

    /// The tokens of one piece: one for a single byte (every byte is a
    /// token of these vocabularies), else remembered in `pieces` or
    /// counted.
    #[inline(always)]
    fn tokens(&self, pieces: &mut Pieces, piece: &str) -> usize {
        if piece.len() == 1 {
            return 1;
        }
        pieces.tokens(piece, |piece| self.count_piece(piece))
    }

    /// Runs `f` with this thread's search cache and piece counts.
    fn with_state<R>(&self, f: impl FnOnce(&mut Cache, &mut Pieces) -> R) -> R {
        with_state(self, || self.split.create_cache(), f)
    }
}

impl Engine for Builtin {
    fn count(&self, text: &str) -> usize {
        self.with_state(|cache, pieces| {
            let mut count = 0;
            self.split.for_each_piece(cache, text, |piece, _| {
                count += self.tokens(pieces, piece);
                true
            });
            count
        })
    }

    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        self.with_state(|cache, pieces| {
            let mut count = 0;
            let mut start = 0;
            self.split.for_each_piece(cache, text, |piece, _| {
                let end = start + piece.len();
                if end > offset {
                    return false;
                }
                count += self.tokens(pieces, piece);
                start = end;
                true
            });
            (count, start)
        })
    }

    fn splitting(&self) -> Splitting {
        Splitting::Tiktoken
    }

    fn count_skipping(&self, text: &str, skips: &[Skip]) -> Option<usize> {
        Some(self.with_state(|cache, pieces| {
            let mut total = 0;
            let mut start = 0;
            let mut skips = skips.iter().peekable();
            let mut anchor = None;
            while start < text.len() {
                // Skips the split did not arrive at are passed over.
                while skips.next_if(|skip| skip.at < start).is_some() {}
                if let Some(skip) = skips.next_if(|skip| skip.at == start) {
                    total += skip.tokens;
                    start += skip.len;
                    continue;
                }
                let (end, _) = self.split.next_piece(cache, &mut anchor, text, start);
                total += self.tokens(pieces, &text[start..end]);
                start = end;
            }
            total
        }))
    }

    fn walk(&self, text: &str, from: usize, mut visit: Visitor<'_, '_>) -> bool {
        let Some(rest) = text.get(from..) else {
            return false;
        };
        self.with_state(|cache, pieces| {
            self.split.for_each_piece(cache, rest, |piece, beyond| {
                visit.piece_read(piece, beyond, |piece| self.tokens(pieces, piece))
            });
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::bpe::{Ranked, count_short, merge};
    use crate::tokens::tests::{reference, varied_text};

    /// The tables built into the binary hold exactly tiktoken-rs's ranks:
    /// every ordinary rank's bytes, found again by their hash, and nothing
    /// past the last ordinary rank.
    #[test]
    fn the_built_in_tables_are_tiktoken_rs_ranks() {
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::P50kBase,
            Encoding::R50kBase,
        ] {
            let core = reference(encoding);
            let vocabulary = &engine(encoding).vocabulary;
            let special: Vec<u32> = core
                .special_tokens()
                .iter()
                .flat_map(|token| core.encode_with_special_tokens(token))
                .collect();
            let mut ordinary = 0;
            for rank in 0..vocabulary.slots() as u32 {
                let bytes = vocabulary.token(rank);
                if special.contains(&rank) {
                    assert!(bytes.is_empty(), "{encoding} rank {rank}");
                    continue;
                }
                ordinary += 1;
                assert_eq!(
                    core.decode_bytes(&[rank]).ok().as_deref(),
                    Some(bytes),
                    "{encoding} rank {rank}"
                );
                assert_eq!(vocabulary.rank(bytes), Some(rank), "{encoding} rank {rank}");
            }
            let past = vocabulary.slots() as u32;
            assert!(
                core.decode_bytes(&[past]).is_err() || special.contains(&past),
                "{encoding} has ordinary ranks past the table"
            );
            assert_eq!(vocabulary.tokens().count(), ordinary, "{encoding}");
            assert_eq!(vocabulary.rank(b""), None);
            assert_eq!(vocabulary.rank("<|endoftext|>".as_bytes()), None);
        }
    }

    /// The three ways a piece is merged agree on every piece of varied
    /// text: tiktoken's vector loop (short pieces), its heap version (longer
    /// ones) and the linear-time `bpe` encoder (pieces past
    /// [`LONG_PIECE`]).
    #[test]
    fn the_merge_loops_agree_on_every_piece() {
        for encoding in [
            Encoding::Cl100kBase,
            Encoding::O200kBase,
            Encoding::P50kBase,
            Encoding::R50kBase,
        ] {
            let engine = engine(encoding);
            let vocabulary = &engine.vocabulary;
            let long = (engine.long)();
            for seed in 100..106 {
                let text = varied_text(seed, 20_000);
                engine.with_state(|cache, _| {
                    engine.split.for_each_piece(cache, &text, |piece, _| {
                        let piece = piece.as_bytes();
                        let count = count_ranked(vocabulary, piece);
                        assert_eq!(long.count(piece), count, "{encoding} {piece:?}");
                        if piece.len() >= 2 && vocabulary.rank(piece).is_none() {
                            assert_eq!(
                                merge::count(&Ranked(vocabulary), piece),
                                count,
                                "{encoding}"
                            );
                            if piece.len() <= 256 {
                                assert_eq!(count_short(vocabulary, piece), count, "{encoding}");
                            }
                        }
                        true
                    });
                });
            }
        }
    }
}
