//! Encodings and exact ordinary-text token counting.
//!
//! Every count packer reports comes from this module. Text is pre-tokenized
//! with the encoding's split pattern (one forward lazy DFA, with tiktoken's
//! one-character look-ahead rewritten as bpe-openai does) and each
//! piece is merged as tiktoken's `encode_ordinary` merges it, over a
//! vocabulary built into the binary at compile time (the `tiktoken`
//! module): nothing is parsed or hashed when packer starts. The merge loop is
//! tiktoken's own for short pieces and its heap version for longer ones;
//! pieces past 64 KiB (hostile runs of one character) go to
//! the linear-time encoder of GitHub's `bpe` crate, built on first need.
//! So the counts are tiktoken's without its failure modes: its backtracking
//! regex overflows its stack on long whitespace runs.
//!
//! Special-token-looking text (`<|endoftext|>`) is ordinary text here: no
//! special tokens are ever produced. (A tokenizer file's added tokens that
//! are not special, such as Qwen3's `<think>`, are matched as tokens, as
//! SPEC §2.2 says; see [`mod@file`].)
//!
//! [`Counter::count_before_piece_at`] exposes the pre-tokenizer's pieces so
//! that [`crate::envelope`] can count an envelope document by document;
//! [`Counter::splitting`] says whether that is exact for the counter's
//! pre-tokenizer.
//!
//! Besides the built-in [`Encoding`]s, a [`Counter`] can count with a
//! tokenizer file that ships beside an open-weight model's weights
//! ([`Tokenizer`]: Hugging Face `tokenizer.json` or Mistral `tekken.json`,
//! see [`mod@file`]).
//!
//! Each way of counting is an engine behind one crate-private trait, so
//! that counting a text is one dynamic call whatever counts it: the
//! built-in tables (the `tiktoken` module), `tokenizer.json` (`hf`) and
//! `tekken.json` (`tekken`). The byte-pair engines share one ranked merge
//! and one per-thread piece cache (`bpe`).

use std::fmt;
use std::str::FromStr;

mod bpe;
mod family;
pub mod file;
mod hf;
mod known;
mod models;
mod pretokenize;
mod tekken;
pub(crate) mod tiktoken;
mod walker;

pub use file::Tokenizer;
pub use known::Known;
use known::Visitor;
pub(crate) use known::{Shared, Skip};

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
        models::for_model(model)
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

/// How an engine's pre-tokenizer splits, for callers that count a text in
/// parts (see [`Counter::splitting`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Splitting {
    /// One left-to-right pass of a tiktoken-family split pattern (the
    /// patterns of cl100k_base, o200k_base, GPT-2, Llama 3, Qwen2/2.5/3 and
    /// tekken, and nothing else) over the text as given: its pieces tile the
    /// text, a run of punctuation `[^\s\p{L}\p{N}]+` ends only before a
    /// letter, a digit or whitespace, no alternative looks behind, and the
    /// only look-ahead is one character of whitespace. So a text always
    /// splits before a letter that follows punctuation such as `{"`, and the
    /// count of a text is the sum of the counts of its two sides there.
    /// [`Counter::count_before_piece_at`] is exact for these.
    Tiktoken,
    /// Anything else (several split stages, a prefix space, other
    /// patterns): count whole texts only. `count_before_piece_at` still
    /// returns a correct answer, `(0, 0)`: no piece is known to be stable.
    Whole,
}

/// A way of counting: the built-in tables or one loaded tokenizer file.
///
/// Counting a text is one call through this trait; the pieces of the text
/// are split, cached and merged inside the engine. Every engine lives for
/// the rest of the process (the per-thread caches are keyed by its
/// address).
pub(crate) trait Engine: Send + Sync {
    /// See [`Counter::count`].
    fn count(&self, text: &str) -> usize;

    /// See [`Counter::count_before_piece_at`].
    fn count_before_piece_at(&self, text: &str, offset: usize) -> (usize, usize);

    /// See [`Counter::splitting`].
    fn splitting(&self) -> Splitting;

    /// Gives `visit` the pieces of `text` from byte `from` (where a piece
    /// starts), in order, each with its count; false when this engine
    /// cannot split `text` piece by piece (another pipeline, or a
    /// normalizer that would change it). One pass of a tiktoken-family
    /// split, as [`Engine::count`] makes it; used by [`Counter::record`]
    /// and [`Counter::count_with_known`].
    fn walk(&self, _text: &str, _from: usize, _visit: Visitor<'_, '_>) -> bool {
        false
    }

    /// [`Counter::count_skipping`] in one pass, for an engine that can
    /// split from any piece start without setting up a walk again; `None`
    /// to have it done through [`Engine::walk`].
    fn count_skipping(&self, _text: &str, _skips: &[Skip]) -> Option<usize> {
        None
    }

    /// See [`Counter::added_token_may_cross`].
    fn may_cross(&self, _text: &str) -> bool {
        false
    }

    /// See [`Counter::special_texts`]; `None` when this engine does not
    /// know its special tokens.
    fn special_texts(&self) -> Option<Vec<&str>> {
        None
    }

    /// See [`Counter::count_framed`]; `None` when this engine does not
    /// know its special tokens.
    fn count_framed(&self, _text: &str, _literal: &[(usize, usize)]) -> Option<usize> {
        None
    }

    /// See [`Counter::count_framed_around`].
    fn count_framed_around(
        &self,
        _text: &str,
        _hole: (usize, usize),
        _stretch: Stretch<'_>,
    ) -> Option<usize> {
        None
    }
}

/// Counts the ordinary stretch of a rendered request that holds the
/// payload: the stretch, and where the payload starts in it; `None` to
/// have it counted whole instead.
pub(crate) type Stretch<'a> = &'a dyn Fn(&str, usize) -> Option<usize>;

/// Exact ordinary-text counting with one encoding or tokenizer file.
///
/// A counter is a few words (`Copy`): the engines it points to are loaded
/// once per process and kept.
#[derive(Clone, Copy)]
pub struct Counter {
    engine: &'static dyn Engine,
    source: Source,
}

/// What a counter counts with, for [`Counter::encoding`],
/// [`Counter::tokenizer`] and [`Counter::label`].
#[derive(Clone, Copy)]
enum Source {
    Builtin(Encoding),
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
            engine: tiktoken::engine(encoding),
            source: Source::Builtin(encoding),
        }
    }

    /// A counter for a loaded tokenizer file.
    pub fn with_tokenizer(tokenizer: Tokenizer) -> Counter {
        Counter {
            engine: tokenizer.engine(),
            source: Source::File(tokenizer),
        }
    }

    /// The built-in encoding this counter counts with (`None` for a
    /// tokenizer file).
    pub fn encoding(&self) -> Option<Encoding> {
        match self.source {
            Source::Builtin(encoding) => Some(encoding),
            Source::File(_) => None,
        }
    }

    /// The tokenizer file this counter counts with, if any.
    pub fn tokenizer(&self) -> Option<Tokenizer> {
        match self.source {
            Source::Builtin(_) => None,
            Source::File(tokenizer) => Some(tokenizer),
        }
    }

    /// What the output's `encoding` field says: the encoding's name, or
    /// `tokenizer:{file name}`.
    pub fn label(&self) -> &'static str {
        match self.source {
            Source::Builtin(encoding) => encoding.name(),
            Source::File(tokenizer) => tokenizer.label(),
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
        self.engine.splitting()
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
        self.engine.count(text)
    }

    /// Whether an added token of the tokenizer file (one matched as a
    /// token, or a special one whose text the search consumes) could run
    /// across an edge of `text` when `text` is put between other texts, or
    /// take what is beside it (see the `hf` module): then texts holding
    /// `text` cannot be counted as sums of their parts. Always false for
    /// the built-in encodings and tekken.
    pub fn added_token_may_cross(&self, text: &str) -> bool {
        self.engine.may_cross(text)
    }

    /// The text of every special token this counter knows (a tokenizer
    /// file's added tokens marked `special`, `o200k_harmony`'s special
    /// tokens); `None` when it knows none it could match (the other
    /// built-in encodings, whose framing of messages is not published, and
    /// tekken).
    pub fn special_texts(&self) -> Option<Vec<&'static str>> {
        match self.source {
            Source::Builtin(Encoding::O200kHarmony) => Some(tiktoken::harmony_specials().to_vec()),
            Source::Builtin(_) => None,
            Source::File(_) => self.engine.special_texts(),
        }
    }

    /// The exact count of a rendered chat request (SPEC §2.4): as
    /// [`Counter::count`], except that the text of a special token counts
    /// as that one token, as Hugging Face `tokenizers` encodes a rendered
    /// chat template (`split_special_tokens=False`) and tiktoken encodes
    /// with every special token allowed, unless the match overlaps one of
    /// the byte ranges `literal` (special-token text inside a message,
    /// which stays ordinary text there). `None` when this counter knows no
    /// special tokens (see [`Counter::special_texts`]).
    pub fn count_framed(&self, text: &str, literal: &[(usize, usize)]) -> Option<usize> {
        match self.source {
            Source::Builtin(Encoding::O200kHarmony) => {
                Some(tiktoken::count_harmony(self.engine, text, literal))
            }
            Source::Builtin(_) => None,
            Source::File(_) => self.engine.count_framed(text, literal),
        }
    }

    /// [`Counter::count_framed`] of `text` with no message text holding a
    /// special token's text, where bytes `hole` (the payload) are counted
    /// by `stretch`: the text is split at its special tokens as
    /// `count_framed` splits it, each piece is counted as there, and the
    /// one ordinary stretch that holds the whole hole goes to `stretch`
    /// (with the hole's offset in it), which may count it faster from what
    /// it knows of the payload. `None` when the hole is not inside one
    /// ordinary stretch, or the tokenizer's special tokens take what is
    /// beside them or are matched after normalization: count whole then.
    pub(crate) fn count_framed_around(
        &self,
        text: &str,
        hole: (usize, usize),
        stretch: Stretch<'_>,
    ) -> Option<usize> {
        match self.source {
            Source::Builtin(Encoding::O200kHarmony) => {
                tiktoken::count_harmony_around(self.engine, text, hole, stretch)
            }
            Source::Builtin(_) => None,
            Source::File(_) => self.engine.count_framed_around(text, hole, stretch),
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
        self.engine.count_before_piece_at(text, offset)
    }

    /// Counts the pieces of `text` that end before the piece containing
    /// byte `stop_at` (every piece when `stop_at` is past the end), like
    /// [`Counter::count_before_piece_at`], and remembers the pieces from
    /// byte `from` on: returns the tokens before `from` and what is known
    /// from there. `None` when `from` is inside a piece, or the counter is
    /// not [`Splitting::Tiktoken`] (or the text is one its normalizer
    /// would change).
    pub fn record(&self, text: &str, from: usize, stop_at: usize) -> Option<(usize, Known)> {
        known::record(self.engine, text, from, stop_at)
    }

    /// [`Counter::record`], also noting the pieces that another text, which
    /// holds the `shared` stretches of `text` (in order, not overlapping),
    /// is sure to have there: for each stretch, from the first piece that
    /// starts in it, the pieces split without reading past it (see
    /// [`Counter::count_skipping`]).
    pub(crate) fn record_shared(
        &self,
        text: &str,
        from: usize,
        stop_at: usize,
        shared: &[Shared],
    ) -> Option<(usize, Known, Vec<Skip>)> {
        known::record_shared(self.engine, text, from, stop_at, shared)
    }

    /// Whether the count of `text`'s pieces that end by byte `stop` (all
    /// of them when `stop` is its length) is more than `limit`: the pieces
    /// are counted in order only until they pass it, so a text far over
    /// the limit costs a few pieces. `false` also when this counter cannot
    /// split `text` piece by piece (count it then).
    pub(crate) fn passes(&self, text: &str, stop: usize, limit: usize) -> bool {
        known::passes(self.engine, text, stop, limit)
    }

    /// Whether this counter splits every text piece by piece, saying how
    /// far past each piece it read, with no added token that could join a
    /// piece to what follows an entry: the built-in encodings.
    pub(crate) fn settles(&self) -> bool {
        matches!(self.source, Source::Builtin(_))
    }

    /// Whether the pieces of `text` that its split decides from `text`
    /// alone (reading no byte past it) count more than `limit`: then so do
    /// the pieces of any text that begins with `text`, since they are among
    /// them. `false` when that does not show it, and always unless the
    /// counter [`settles`](Counter::settles).
    pub(crate) fn settled_passes(&self, text: &str, limit: usize) -> bool {
        self.settles() && known::settled_passes(self.engine, text, limit)
    }

    /// The exact count of `text`, where `skips` are pieces of it noted by
    /// [`Counter::record_shared`]: wherever the split of `text` arrives at
    /// a skip's first byte, the skip's tokens stand for its pieces, which
    /// are not split again (each was split reading only bytes that `text`
    /// has there). A skip the split does not arrive at is split as usual.
    pub(crate) fn count_skipping(&self, text: &str, skips: &[Skip]) -> usize {
        if skips.is_empty() {
            return self.count(text);
        }
        self.engine
            .count_skipping(text, skips)
            .or_else(|| known::count_skipping(self.engine, text, skips))
            .unwrap_or_else(|| self.count(text))
    }

    /// The exact count of `text`, which holds, at each `(start, known)` of
    /// `spans` (in order, not overlapping, none empty), bytes counted before
    /// by [`Counter::record`]: the text is split afresh, and where its
    /// split arrives at a span's start, the remembered tokens stand for the
    /// span's pieces: the settled ones (see [`Known`]) are skipped, and the
    /// rest must have the remembered lengths (the caller makes sure the
    /// bytes are the ones recorded). `None` when the pieces do not line up,
    /// or the counter cannot split a text this way; count it whole then.
    ///
    /// The text is cut at span starts into one range per thread, counted in
    /// parallel; each range's pieces must end exactly where the next range
    /// starts, so the ranges' pieces are the whole text's.
    pub fn count_with_known(&self, text: &str, spans: &[(usize, &Known)]) -> Option<usize> {
        use rayon::prelude::*;
        let threads = rayon::current_num_threads().max(1);
        // Cut where a span starts, near each `k / threads` of the text.
        let mut cuts = vec![0];
        for k in 1..threads {
            let target = text.len() * k / threads;
            let at = spans.partition_point(|&(start, _)| start < target);
            if let Some(&(start, _)) = spans.get(at)
                && start > *cuts.last().expect("starts with 0")
            {
                cuts.push(start);
            }
        }
        cuts.push(text.len());
        let ranges: Vec<(usize, usize)> = cuts.windows(2).map(|w| (w[0], w[1])).collect();
        ranges
            .par_iter()
            .map(|&(from, to)| {
                let first = spans.partition_point(|&(start, _)| start < from);
                let last = spans.partition_point(|&(start, _)| start < to);
                known::count_with_known(self.engine, text, from, to, &spans[first..last])
            })
            .sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

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

    /// Varied text from a fixed seed: words, runs of spaces, tabs, newlines,
    /// digits and punctuation of every length up to a few thousand, CJK,
    /// combining marks, emoji and special-token text.
    pub(crate) fn varied_text(seed: u64, length: usize) -> String {
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
