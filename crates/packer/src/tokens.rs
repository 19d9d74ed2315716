//! Encodings and exact ordinary-text token counting.
//!
//! Every count packer reports comes from this module. Text is pre-tokenized
//! with the encoding's split pattern (one forward lazy DFA, with tiktoken's
//! one-character look-ahead rewritten as bpe-openai does) and each
//! piece is merged as tiktoken's `encode_ordinary` merges it, over a
//! vocabulary built into the binary at compile time (the `vocabulary`
//! module): nothing is parsed or hashed when packer starts. The merge loop is
//! tiktoken's own for short pieces and its heap version for longer ones;
//! pieces past 64 KiB (hostile runs of one character) go to
//! the linear-time encoder of GitHub's `bpe` crate, built on first need.
//! So the counts are tiktoken's without its failure modes: its backtracking
//! regex overflows its stack on long whitespace runs.
//!
//! Special-token-looking text (`<|endoftext|>`) is ordinary text here: no
//! special tokens are ever produced.
//!
//! [`Counter::count_before_piece_at`] exposes the pre-tokenizer's pieces so
//! that [`crate::envelope`] can count an envelope document by document;
//! [`Counter::splitting`] says whether that is exact for the counter's
//! pre-tokenizer.
//!
//! Besides the built-in [`Encoding`]s, a [`Counter`] can count with a
//! tokenizer file that ships beside an open-weight model's weights
//! ([`Tokenizer`]: Hugging Face `tokenizer.json` or Mistral `tekken.json`,
//! see [`mod@file`] for what is accepted and refused).

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use ::bpe::byte_pair_encoding::BytePairEncoding;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::nfa::thompson;
use regex_automata::{Anchored, Input, MatchKind};

mod bpe;
pub mod file;
mod pretokenize;
mod vocabulary;

use bpe::{Pieces, count_ranked, with_state};
pub use file::{Splitting, Tokenizer};
use vocabulary::Vocabulary;

/// A tiktoken encoding packer can count with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Encoding {
    /// `cl100k_base` (GPT-4, GPT-3.5): the default.
    Cl100kBase,
    /// `o200k_base` (GPT-4o, GPT-4.1, o-series, GPT-5).
    O200kBase,
    /// `o200k_harmony` (gpt-oss); its ordinary text is `o200k_base`'s.
    O200kHarmony,
    /// `p50k_base` (Codex, text-davinci-002/003).
    P50kBase,
    /// `p50k_edit` (edit models); its ordinary text is `p50k_base`'s.
    P50kEdit,
    /// `r50k_base` (GPT-3, GPT-2).
    R50kBase,
}

/// The error for a name that is not one of [`Encoding::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownEncoding;

impl fmt::Display for UnknownEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown encoding")
    }
}

impl std::error::Error for UnknownEncoding {}

impl Encoding {
    /// The names of [`Encoding::ALL`], in the same order.
    pub const NAMES: [&'static str; 6] = [
        "cl100k_base",
        "o200k_base",
        "o200k_harmony",
        "p50k_base",
        "p50k_edit",
        "r50k_base",
    ];

    /// Every encoding, in the order `packer encodings` lists them.
    pub const ALL: [Encoding; 6] = [
        Encoding::Cl100kBase,
        Encoding::O200kBase,
        Encoding::O200kHarmony,
        Encoding::P50kBase,
        Encoding::P50kEdit,
        Encoding::R50kBase,
    ];

    /// The encoding's tiktoken name, e.g. `cl100k_base`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::O200kBase => "o200k_base",
            Encoding::O200kHarmony => "o200k_harmony",
            Encoding::P50kBase => "p50k_base",
            Encoding::P50kEdit => "p50k_edit",
            Encoding::R50kBase => "r50k_base",
        }
    }

    /// The encoding a model name uses, as tiktoken maps it (exact names,
    /// then prefixes such as `gpt-4o-` and fine-tuned `ft:` names).
    pub fn for_model(model: &str) -> Option<Encoding> {
        use tiktoken_rs::tokenizer::{Tokenizer as T, get_tokenizer};
        Some(match get_tokenizer(model)? {
            T::O200kHarmony => Encoding::O200kHarmony,
            T::O200kBase => Encoding::O200kBase,
            T::Cl100kBase => Encoding::Cl100kBase,
            T::P50kBase => Encoding::P50kBase,
            T::P50kEdit => Encoding::P50kEdit,
            T::R50kBase | T::Gpt2 => Encoding::R50kBase,
        })
    }

    /// A few well-known models that map to this encoding (for `packer encodings`).
    pub fn example_models(self) -> &'static [&'static str] {
        match self {
            Encoding::Cl100kBase => &["gpt-4", "gpt-3.5-turbo", "text-embedding-3-small"],
            Encoding::O200kBase => &["gpt-5", "gpt-4.1", "gpt-4o", "o3", "o4-mini"],
            Encoding::O200kHarmony => &["gpt-oss-120b", "gpt-oss-20b"],
            Encoding::P50kBase => &["text-davinci-003", "code-davinci-002"],
            Encoding::P50kEdit => &["text-davinci-edit-001", "code-davinci-edit-001"],
            Encoding::R50kBase => &["davinci", "gpt2"],
        }
    }

    /// The engine for this encoding, loaded on first use and kept.
    fn engine(self) -> &'static Engine {
        match self {
            Encoding::Cl100kBase => &CL100K_BASE,
            Encoding::O200kBase | Encoding::O200kHarmony => &O200K_BASE,
            Encoding::P50kBase | Encoding::P50kEdit => &P50K_BASE,
            Encoding::R50kBase => &R50K_BASE,
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = UnknownEncoding;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Encoding::ALL
            .into_iter()
            .find(|encoding| encoding.name() == name)
            .ok_or(UnknownEncoding)
    }
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

static CL100K_BASE: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/cl100k_base.vocab")),
        || &CL100K_LONG,
        &CL100K_PATTERNS,
    )
});
static O200K_BASE: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/o200k_base.vocab")),
        || &O200K_LONG,
        &O200K_PATTERNS,
    )
});
static P50K_BASE: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
        include_bytes!(concat!(env!("OUT_DIR"), "/p50k_base.vocab")),
        || &P50K_LONG,
        &GPT2_PATTERNS,
    )
});
static R50K_BASE: LazyLock<Engine> = LazyLock::new(|| {
    Engine::new(
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

/// A vocabulary and its split pattern.
struct Engine {
    vocabulary: Vocabulary,
    /// The linear-time encoder for long pieces.
    long: fn() -> &'static BytePairEncoding,
    /// The split patterns as one forward lazy DFA: the pieces are anchored
    /// searches, so a match's end and pattern are all that is needed, and
    /// no reverse automaton or capture engine is built at start-up.
    regex: DFA,
    lookahead: Vec<bool>,
}

impl Engine {
    fn new(
        table: &'static [u8],
        long: fn() -> &'static BytePairEncoding,
        patterns: &[(&str, bool)],
    ) -> Engine {
        let (patterns, lookahead): (Vec<&str>, Vec<bool>) = patterns.iter().copied().unzip();
        let regex = DFA::builder()
            .configure(DFA::config().match_kind(MatchKind::LeftmostFirst))
            .thompson(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
            .build_many(&patterns)
            .expect("the split patterns are valid");
        Engine {
            vocabulary: Vocabulary::new(table),
            long,
            regex,
            lookahead,
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

    /// Runs `f` with this thread's search cache and piece counts.
    fn with_state<R>(&self, f: impl FnOnce(&mut Cache, &mut Pieces) -> R) -> R {
        with_state(self, || self.regex.create_cache(), f)
    }

    /// Calls `each` with every piece of `text`, in order, as tiktoken's
    /// pre-tokenizer splits it; stops early when `each` returns false.
    fn for_each_piece(&self, cache: &mut Cache, text: &str, mut each: impl FnMut(&str) -> bool) {
        let mut start = 0;
        while start < text.len() {
            let input = Input::new(&text[start..]).anchored(Anchored::Yes);
            // A lazy DFA fails a search only when it is configured to
            // give up (a cache budget or quit bytes, set for Unicode
            // word boundaries); this one is not.
            let found = self
                .regex
                .try_search_fwd(cache, &input)
                .expect("the split DFA never gives up");
            let Some(found) = found else {
                // Every character matches `\s+` or one of the other
                // alternatives, so this cannot happen; count the rest as
                // one piece rather than drop it.
                each(&text[start..]);
                return;
            };
            let mut end = start + found.offset();
            if self.lookahead[found.pattern().as_usize()] {
                // Drop the one look-ahead character.
                let last = text[start..end]
                    .chars()
                    .next_back()
                    .map_or(0, char::len_utf8);
                end -= last;
            }
            if !each(&text[start..end]) {
                return;
            }
            start = end;
        }
    }
}

/// Exact ordinary-text counting with one encoding or tokenizer file.
///
/// A counter is two words (`Copy`): the engines it points to are loaded once
/// per process and kept.
#[derive(Clone, Copy)]
pub struct Counter {
    kind: Kind,
}

#[derive(Clone, Copy)]
enum Kind {
    Builtin(Encoding, &'static Engine),
    File(Tokenizer),
}

impl fmt::Debug for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Counter")
            .field("counts_with", &self.label())
            .finish()
    }
}

impl Counter {
    /// A counter for `encoding`; the first counter of an encoding loads it.
    pub fn new(encoding: Encoding) -> Counter {
        Counter {
            kind: Kind::Builtin(encoding, encoding.engine()),
        }
    }

    /// A counter for a loaded tokenizer file.
    pub fn with_tokenizer(tokenizer: Tokenizer) -> Counter {
        Counter {
            kind: Kind::File(tokenizer),
        }
    }

    /// The built-in encoding this counter counts with (`None` for a
    /// tokenizer file).
    pub fn encoding(&self) -> Option<Encoding> {
        match self.kind {
            Kind::Builtin(encoding, _) => Some(encoding),
            Kind::File(_) => None,
        }
    }

    /// The tokenizer file this counter counts with, if any.
    pub fn tokenizer(&self) -> Option<Tokenizer> {
        match self.kind {
            Kind::Builtin(..) => None,
            Kind::File(tokenizer) => Some(tokenizer),
        }
    }

    /// What the output's `encoding` field says: the encoding's name, or
    /// `tokenizer:{file name}`.
    pub fn label(&self) -> &'static str {
        match self.kind {
            Kind::Builtin(encoding, _) => encoding.name(),
            Kind::File(tokenizer) => tokenizer.label(),
        }
    }

    /// How this counter's pre-tokenizer splits text: whether
    /// [`Counter::count_before_piece_at`] may be used to count a text in
    /// parts.
    ///
    /// Every built-in encoding is [`Splitting::Tiktoken`]. A tokenizer file
    /// is `Tiktoken` only when its whole pre-tokenizer is one pass of one of
    /// the known tiktoken-family patterns (Llama 3, Qwen2/2.5/3, tekken,
    /// GPT-2's `ByteLevel`); with several split stages, a prefix space or any
    /// other pattern it is [`Splitting::Whole`], and callers must count
    /// whole texts (the per-entry envelope argument of [`crate::envelope`]
    /// was made for the tiktoken shape only).
    pub fn splitting(&self) -> Splitting {
        match self.kind {
            Kind::Builtin(..) => Splitting::Tiktoken,
            Kind::File(tokenizer) => tokenizer.engine().splitting(),
        }
    }

    /// The exact number of tokens `encode_ordinary(text)` produces (for a
    /// tokenizer file: Hugging Face's `encode(text, add_special_tokens=False)`
    /// with special-token text split as plain text, or tiktoken's for
    /// `tekken.json`).
    ///
    /// ```
    /// use packer::{Counter, Encoding};
    ///
    /// let counter = Counter::new(Encoding::Cl100kBase);
    /// assert_eq!(counter.count("hello world"), 2);
    /// // Special-token text is ordinary text: several tokens, not one.
    /// assert_eq!(counter.count("<|endoftext|>"), 7);
    /// ```
    pub fn count(&self, text: &str) -> usize {
        match self.kind {
            Kind::Builtin(_, engine) => engine.with_state(|cache, pieces| {
                let mut count = 0;
                engine.for_each_piece(cache, text, |piece| {
                    count += pieces.tokens(piece.as_bytes(), |piece| engine.count_piece(piece));
                    true
                });
                count
            }),
            Kind::File(tokenizer) => tokenizer.engine().count(text),
        }
    }

    /// Splits `text` with the pre-tokenizer and counts the pieces that end
    /// before the piece containing byte `offset`; returns that count and
    /// where the containing piece starts. Each piece is counted on its own,
    /// so the result is exact whenever the split at that start does not
    /// depend on what follows (see [`crate::envelope`]).
    ///
    /// Under [`Splitting::Whole`] (and for a text that NFC normalization
    /// would change) it returns `(0, 0)`: no stable prefix is claimed, and
    /// the whole text is left to be counted with what follows it.
    pub fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize) {
        let engine = match self.kind {
            Kind::Builtin(_, engine) => engine,
            Kind::File(tokenizer) => {
                return tokenizer.engine().count_before_piece_at(text, offset);
            }
        };
        engine.with_state(|cache, pieces| {
            let mut count = 0;
            let mut start = 0;
            engine.for_each_piece(cache, text, |piece| {
                let end = start + piece.len();
                if end > offset {
                    return false;
                }
                count += pieces.tokens(piece.as_bytes(), |piece| engine.count_piece(piece));
                start = end;
                true
            });
            (count, start)
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use super::bpe::{Ranked, count_short, merge};

    /// tiktoken-rs's encoder for `encoding`: the independent oracle the
    /// unit tests count with.
    pub(crate) fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
        match encoding {
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
            Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
            Encoding::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
            Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
        }
    }

    #[test]
    fn every_encoding_counts_like_tiktoken_on_mixed_text() {
        let samples = [
            "Hello, world! It's 2026 and the café serves 12345678 crêpes.",
            "fn main() {\n    println!(\"{}\", 1 + 2);\n}\n\n\n   \t  end",
            "日本語のテキストと中文文本，还有한국어 텍스트。",
            "emoji 👩‍👩‍👧‍👦 and flags 🇫🇷🇩🇪 and <|endoftext|> <|fim_prefix|>",
            "{\"documents\":[{\"id\":\"a\",\"url\":\"https://x.test/\",\"format\":\"text\",\"content\":\"x\\n\\\"y\\\" \\\\\"}]}",
            "  leading and trailing spaces   ",
            "I'M HERE, you're there, they'LL see; don't",
        ];
        for encoding in Encoding::ALL {
            let counter = Counter::new(encoding);
            for text in samples {
                let expected = reference(encoding).encode_ordinary(text).len();
                assert_eq!(counter.count(text), expected, "{encoding} on {text:?}");
            }
        }
    }

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
            let vocabulary = &encoding.engine().vocabulary;
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

    /// Varied text from a fixed seed: words, runs of spaces, tabs, newlines,
    /// digits and punctuation of every length up to a few thousand, CJK,
    /// combining marks, emoji and special-token text.
    fn varied_text(seed: u64, length: usize) -> String {
        const PARTS: [&str; 24] = [
            "the",
            " The",
            "packer",
            "'s",
            "'LL",
            " café",
            "naïve",
            "日本語",
            "中文",
            "한국어",
            "e\u{301}",
            "👩\u{200d}💻",
            "🇫🇷",
            "<|endoftext|>",
            "{\"id\":",
            "\\n",
            "\r\n",
            "\u{a0}",
            "Ωμέγα",
            "Привет",
            "x",
            "_",
            "—",
            "\u{3000}",
        ];
        const RUNS: [char; 8] = [' ', '\t', '\n', '7', '!', 'a', '-', '.'];
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut text = String::new();
        while text.len() < length {
            let roll = next();
            if roll % 5 == 0 {
                let run = RUNS[(roll >> 8) as usize % RUNS.len()];
                let long = if (roll >> 16) % 8 == 0 { 3_000 } else { 40 };
                let times = 1 + (roll >> 24) as usize % long;
                text.extend(std::iter::repeat_n(run, times));
            } else {
                text.push_str(PARTS[(roll >> 8) as usize % PARTS.len()]);
                if (roll >> 20) % 3 == 0 {
                    text.push(' ');
                }
            }
        }
        text
    }

    #[test]
    fn every_encoding_counts_varied_text_like_tiktoken() {
        for encoding in Encoding::ALL {
            let counter = Counter::new(encoding);
            for seed in 0..24 {
                let text = varied_text(seed, 8_000);
                let expected = reference(encoding).encode_ordinary(&text).len();
                assert_eq!(counter.count(&text), expected, "{encoding} seed {seed}");
            }
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
            let engine = encoding.engine();
            let vocabulary = &engine.vocabulary;
            let long = (engine.long)();
            for seed in 100..106 {
                let text = varied_text(seed, 20_000);
                engine.with_state(|cache, _| {
                    engine.for_each_piece(cache, &text, |piece| {
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

    #[test]
    fn the_names_are_the_encodings_names_in_order() {
        assert_eq!(Encoding::NAMES, Encoding::ALL.map(Encoding::name));
    }

    #[test]
    fn encodings_parse_from_their_names_and_nothing_else() {
        for encoding in Encoding::ALL {
            assert_eq!(encoding.name().parse(), Ok(encoding));
        }
        assert_eq!("cl100k".parse::<Encoding>(), Err(UnknownEncoding));
        assert_eq!("CL100K_BASE".parse::<Encoding>(), Err(UnknownEncoding));
    }

    #[test]
    fn models_map_to_their_encodings() {
        assert_eq!(Encoding::for_model("gpt-4"), Some(Encoding::Cl100kBase));
        assert_eq!(
            Encoding::for_model("gpt-4o-mini"),
            Some(Encoding::O200kBase)
        );
        assert_eq!(
            Encoding::for_model("gpt-oss-20b"),
            Some(Encoding::O200kHarmony)
        );
        assert_eq!(
            Encoding::for_model("text-davinci-003"),
            Some(Encoding::P50kBase)
        );
        assert_eq!(Encoding::for_model("davinci"), Some(Encoding::R50kBase));
        assert_eq!(Encoding::for_model("no-such-model"), None);
        for encoding in Encoding::ALL {
            for model in encoding.example_models() {
                assert_eq!(Encoding::for_model(model), Some(encoding), "{model}");
            }
        }
    }
}
