//! A `tokenizer.json`'s normalizer and pre-tokenizer, read into the
//! stages the engine runs (see the `pretokenize` module for how they run).

use serde_json::Value;

use super::bert::BertOptions;
use super::component;
use super::precompiled::Charsmap;
use crate::error::Error;
use crate::tokens::family::{invalid, over_limit, unsupported};
use crate::tokens::pretokenize::{Behavior, GPT2_PATTERN, PrependScheme, SplitRegex, Stage};

/// The components the reference knows, for messages.
const KNOWN_NORMALIZERS: [&str; 15] = [
    "BertNormalizer",
    "Strip",
    "StripAccents",
    "NFC",
    "NFD",
    "NFKC",
    "NFKD",
    "Sequence",
    "Lowercase",
    "Nmt",
    "Precompiled",
    "Replace",
    "Prepend",
    "ByteLevel",
    "ByteFallback",
];
const KNOWN_PRE_TOKENIZERS: [&str; 12] = [
    "BertPreTokenizer",
    "ByteLevel",
    "CharDelimiterSplit",
    "Metaspace",
    "Whitespace",
    "Sequence",
    "Split",
    "Punctuation",
    "WhitespaceSplit",
    "Digits",
    "UnicodeScripts",
    "FixedLength",
];

fn type_of(value: &Value) -> Option<&str> {
    value.get("type").and_then(Value::as_str)
}

/// One normalizer step, applied in order.
#[derive(Debug)]
pub(crate) enum Norm {
    /// NFC, with the reference's own tables.
    Nfc,
    /// NFKC, with the reference's own tables.
    Nfkc,
    /// NFKD, with the reference's own tables.
    Nfkd,
    /// `Prepend`: this text before a text that is not empty.
    Prepend(String),
    /// `Replace` with a literal pattern: every occurrence, left to right.
    Replace { pattern: String, content: String },
    /// `Replace` with a regex pattern: every match, left to right, as the
    /// reference's unanchored search finds them.
    ReplaceRegex { regex: SplitRegex, content: String },
    /// `Strip`: whitespace off the left and/or the right.
    Strip { left: bool, right: bool },
    /// `BertNormalizer` (the `bert` module).
    Bert(BertOptions),
    /// `Lowercase`, one character at a time.
    Lowercase,
    /// NFD, with the reference's own tables.
    Nfd,
    /// `StripAccents`: combining marks removed.
    StripAccents,
    /// `Precompiled`: SentencePiece's compiled rules (the `precompiled`
    /// module).
    Precompiled(Charsmap),
}

impl Norm {
    /// The step's type as the file names it.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Norm::Nfc => "NFC",
            Norm::Nfkc => "NFKC",
            Norm::Nfkd => "NFKD",
            Norm::Prepend(_) => "Prepend",
            Norm::Replace { .. } | Norm::ReplaceRegex { .. } => "Replace",
            Norm::Strip { .. } => "Strip",
            Norm::Bert(_) => "BertNormalizer",
            Norm::Lowercase => "Lowercase",
            Norm::Nfd => "NFD",
            Norm::StripAccents => "StripAccents",
            Norm::Precompiled(_) => "Precompiled",
        }
    }
}

/// The most steps a normalizer, and the most stages a pre-tokenizer, may
/// have: files have a handful, and each step is work on every text.
pub(super) const MOST_STEPS: usize = 64;

/// How many times longer, at most, a normalizer may make a text (a
/// converted SentencePiece file's `Precompiled` and `Replace` steps make
/// it at most 22 times longer; chained `Replace`s that double a text would
/// ask for more memory than any machine has).
pub(super) const MOST_GROWTH: u64 = 256;

/// How many bytes, at most, a normalizer may add to a text (`Prepend`s).
pub(super) const MOST_ADDED: u64 = 4096;

impl Norm {
    /// How much this step can grow a text of `n` bytes, at most: to
    /// `n × factor + added` bytes.
    fn growth(&self) -> (u64, u64) {
        let ratio = |to: usize, from: usize| (to.div_ceil(from.max(1)) as u64).max(1);
        match self {
            // Canonical decomposition writes at most 4 characters for one
            // (3 for one that NFC leaves decomposed); compatibility
            // decomposition at most 18 (U+FDFA).
            Norm::Nfc => (3, 0),
            Norm::Nfd => (4, 0),
            Norm::Nfkc | Norm::Nfkd => (18, 0),
            // A lowercase letter is at most half as long again (`İ`).
            Norm::Lowercase => (2, 0),
            Norm::Strip { .. } | Norm::StripAccents => (1, 0),
            // Spaces around Chinese characters, NFD and lowercase.
            Norm::Bert(_) => (16, 0),
            Norm::Prepend(prefix) => (1, prefix.len() as u64),
            Norm::Replace { pattern, content } => (ratio(content.len(), pattern.len()), 0),
            // A match is at least one byte (the empty one is refused).
            Norm::ReplaceRegex { content, .. } => (ratio(content.len(), 1), 0),
            Norm::Precompiled(charsmap) => (charsmap.growth(), 0),
        }
    }
}

/// Refuses a normalizer that can make a text more than [`MOST_GROWTH`]
/// times longer or add more than [`MOST_ADDED`] bytes to it (its work on
/// a text would not be bounded by the text).
pub(super) fn check_growth(normalizer: &[Norm]) -> Result<(), Error> {
    let (mut factor, mut added) = (1u64, 0u64);
    for step in normalizer {
        let (step_factor, step_added) = step.growth();
        factor = factor.saturating_mul(step_factor);
        added = added.saturating_mul(step_factor).saturating_add(step_added);
    }
    if factor > MOST_GROWTH {
        return Err(over_limit(format!(
            "a normalizer that can make a text up to {factor} times longer (the limit is \
             {MOST_GROWTH} times)"
        )));
    }
    if added > MOST_ADDED {
        return Err(over_limit(format!(
            "a normalizer that can add {added} bytes to a text (the limit is {MOST_ADDED})"
        )));
    }
    Ok(())
}

/// The normalizer's steps (none without one); refuses what is not listed.
pub(super) fn parse_normalizer(value: Option<&Value>) -> Result<Vec<Norm>, Error> {
    let mut steps = Vec::new();
    if let Some(value) = value.filter(|v| !v.is_null()) {
        push_normalizer(value, &mut steps)?;
    }
    Ok(steps)
}

fn push_normalizer(value: &Value, steps: &mut Vec<Norm>) -> Result<(), Error> {
    if steps.len() >= MOST_STEPS && type_of(value) != Some("Sequence") {
        return Err(over_limit(format!(
            "a normalizer of more than {MOST_STEPS} steps (the limit is {MOST_STEPS})"
        )));
    }
    let text = |name: &str| -> Result<String, Error> {
        value
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| invalid(format!("a normalizer has no `{name}` text")))
    };
    match type_of(value) {
        Some("NFC") => steps.push(Norm::Nfc),
        Some("NFKC") => steps.push(Norm::Nfkc),
        Some("NFKD") => steps.push(Norm::Nfkd),
        Some("Prepend") => steps.push(Norm::Prepend(text("prepend")?)),
        Some("Replace") => {
            let pattern = value.get("pattern");
            let Some(pattern) = pattern
                .and_then(|p| p.get("String"))
                .and_then(Value::as_str)
            else {
                let Some(regex) = pattern.and_then(|p| p.get("Regex")).and_then(Value::as_str)
                else {
                    return Err(invalid("a Replace normalizer has no pattern"));
                };
                let regex = SplitRegex::new(regex).map_err(|refusal| {
                    unsupported(format!("a Replace normalizer's regex: {refusal}"))
                })?;
                steps.push(Norm::ReplaceRegex {
                    regex,
                    content: text("content")?,
                });
                return Ok(());
            };
            steps.push(Norm::Replace {
                pattern: pattern.to_owned(),
                content: text("content")?,
            });
        }
        Some("Strip") => {
            let flag = |name: &str| value.get(name).and_then(Value::as_bool);
            let (Some(left), Some(right)) = (flag("strip_left"), flag("strip_right")) else {
                return Err(invalid(
                    "a Strip normalizer has no strip_left or strip_right",
                ));
            };
            steps.push(Norm::Strip { left, right });
        }
        Some("BertNormalizer") => {
            let flag = |name: &str| {
                value.get(name).and_then(Value::as_bool).ok_or_else(|| {
                    invalid(format!("a BertNormalizer has no `{name}` true or false"))
                })
            };
            let lowercase = flag("lowercase")?;
            let strip_accents = match value.get("strip_accents") {
                None | Some(Value::Null) => lowercase,
                Some(Value::Bool(strip)) => *strip,
                Some(_) => {
                    return Err(invalid(
                        "a BertNormalizer's strip_accents is not true, false or null",
                    ));
                }
            };
            steps.push(Norm::Bert(BertOptions {
                clean_text: flag("clean_text")?,
                handle_chinese_chars: flag("handle_chinese_chars")?,
                strip_accents,
                lowercase,
            }));
        }
        Some("Lowercase") => steps.push(Norm::Lowercase),
        Some("NFD") => steps.push(Norm::Nfd),
        Some("StripAccents") => steps.push(Norm::StripAccents),
        Some("Precompiled") => {
            let charsmap = Charsmap::parse(&text("precompiled_charsmap")?)?;
            steps.push(Norm::Precompiled(charsmap));
        }
        Some("Sequence") => {
            let list = value
                .get("normalizers")
                .and_then(Value::as_array)
                .ok_or_else(|| invalid("a Sequence normalizer has no `normalizers` list"))?;
            for item in list {
                push_normalizer(item, steps)?;
            }
        }
        other => {
            return Err(unsupported(component(
                &KNOWN_NORMALIZERS,
                other,
                "normalizer",
            )));
        }
    }
    Ok(())
}

/// A pre-tokenizer read into stages.
pub(super) struct PreTokenizer {
    pub(super) stages: Vec<Stage>,
    /// Whether a `ByteLevel` pre-tokenizer ends them.
    pub(super) byte_level: bool,
    /// The pre-tokenizers' types, in order (`Sequence`s flattened).
    pub(super) names: Vec<&'static str>,
}

/// The regex of the `Whitespace` pre-tokenizer: its matches are the
/// pieces, the rest is removed.
const WHITESPACE_PATTERN: &str = r"\w+|[^\w\s]+";

/// The stages of a pre-tokenizer (none without one); refuses what is not
/// listed.
pub(super) fn parse_pre_tokenizer(value: Option<&Value>) -> Result<PreTokenizer, Error> {
    let mut flat = Vec::new();
    if let Some(value) = value.filter(|v| !v.is_null()) {
        flatten(value, &mut flat)?;
    }
    if flat.len() > MOST_STEPS {
        return Err(over_limit(format!(
            "a pre-tokenizer of {} stages (the limit is {MOST_STEPS})",
            flat.len()
        )));
    }
    let mut stages = Vec::new();
    let mut byte_level = false;
    let mut names = Vec::new();
    for (index, item) in flat.iter().enumerate() {
        if byte_level {
            return Err(unsupported(
                "a pre-tokenizer after ByteLevel (it would see byte-level characters)",
            ));
        }
        let kind = type_of(item);
        names.extend(
            KNOWN_PRE_TOKENIZERS
                .iter()
                .find(|known| Some(**known) == kind),
        );
        match kind {
            Some("Metaspace") => stages.push(parse_metaspace(item)?),
            Some("ByteLevel") => {
                byte_level = true;
                let flag = |name: &str, default: bool| {
                    item.get(name).and_then(Value::as_bool).unwrap_or(default)
                };
                if flag("add_prefix_space", true) {
                    stages.push(Stage::PrefixSpace);
                }
                if flag("use_regex", true) {
                    stages.push(Stage::Split {
                        regex: SplitRegex::new(GPT2_PATTERN).map_err(unsupported)?,
                        behavior: Behavior::Isolated,
                        invert: false,
                    });
                }
            }
            Some("Split") => stages.push(parse_split(item, index)?),
            Some("BertPreTokenizer") => {
                stages.push(Stage::Bert);
            }
            Some("WhitespaceSplit") => {
                stages.push(Stage::WhitespaceSplit);
            }
            Some("Whitespace") => {
                stages.push(Stage::Split {
                    regex: SplitRegex::rust(WHITESPACE_PATTERN).map_err(unsupported)?,
                    behavior: Behavior::Removed,
                    invert: true,
                });
            }
            Some("Punctuation") => {
                // The reference's default behaviour is `Isolated`.
                let behavior = match item.get("behavior") {
                    None => Behavior::Isolated,
                    Some(name) => name.as_str().and_then(Behavior::parse).ok_or_else(|| {
                        invalid(format!(
                            "pre-tokenizer {index} (Punctuation) has no known behavior"
                        ))
                    })?,
                };
                stages.push(Stage::Punctuation { behavior });
            }
            Some("Digits") => {
                let individual = item
                    .get("individual_digits")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                // `char::is_numeric` is \p{N}; every numeric character is a
                // match of its own, as a one-character regex gives.
                stages.push(Stage::Split {
                    regex: SplitRegex::new(r"\p{N}").map_err(unsupported)?,
                    behavior: if individual {
                        Behavior::Isolated
                    } else {
                        Behavior::Contiguous
                    },
                    invert: false,
                });
            }
            other => {
                return Err(unsupported(component(
                    &KNOWN_PRE_TOKENIZERS,
                    other,
                    "pre-tokenizer",
                )));
            }
        }
    }
    Ok(PreTokenizer {
        stages,
        byte_level,
        names,
    })
}

/// A `Metaspace` pre-tokenizer, read as the reference reads it (a missing
/// `prepend_scheme` is `always`, a missing `split` true, and
/// `add_prefix_space: false` must say `never`).
fn parse_metaspace(item: &Value) -> Result<Stage, Error> {
    let replacement = item
        .get("replacement")
        .and_then(Value::as_str)
        .and_then(|r| {
            let mut chars = r.chars();
            chars.next().filter(|_| chars.next().is_none())
        })
        .ok_or_else(|| invalid("a Metaspace pre-tokenizer's replacement is not one character"))?;
    let prepend = match item.get("prepend_scheme").and_then(Value::as_str) {
        None | Some("always") => PrependScheme::Always,
        Some("first") => PrependScheme::First,
        Some("never") => PrependScheme::Never,
        Some(_) => {
            return Err(invalid(
                "a Metaspace pre-tokenizer has an unknown prepend_scheme",
            ));
        }
    };
    if item.get("add_prefix_space").and_then(Value::as_bool) == Some(false)
        && prepend != PrependScheme::Never
    {
        return Err(invalid(
            "a Metaspace pre-tokenizer's add_prefix_space does not match its prepend_scheme",
        ));
    }
    let split = if item.get("split").and_then(Value::as_bool).unwrap_or(true) {
        let mut buffer = [0u8; 4];
        Some(SplitRegex::literal(replacement.encode_utf8(&mut buffer)).map_err(unsupported)?)
    } else {
        None
    };
    Ok(Stage::Metaspace {
        replacement,
        prepend,
        split,
    })
}

fn flatten<'v>(value: &'v Value, out: &mut Vec<&'v Value>) -> Result<(), Error> {
    if type_of(value) == Some("Sequence") {
        let list = value
            .get("pretokenizers")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("a Sequence pre-tokenizer has no `pretokenizers` list"))?;
        for item in list {
            flatten(item, out)?;
        }
    } else {
        out.push(value);
    }
    Ok(())
}

fn parse_split(item: &Value, index: usize) -> Result<Stage, Error> {
    let pattern = item
        .get("pattern")
        .ok_or_else(|| invalid(format!("pre-tokenizer {index} (Split) has no pattern")))?;
    let regex = if let Some(regex) = pattern.get("Regex").and_then(Value::as_str) {
        SplitRegex::new(regex).map_err(unsupported)?
    } else if let Some(literal) = pattern.get("String").and_then(Value::as_str) {
        SplitRegex::literal(literal).map_err(unsupported)?
    } else {
        return Err(invalid(format!(
            "pre-tokenizer {index} (Split) has a pattern that is neither Regex nor String"
        )));
    };
    let behavior = item
        .get("behavior")
        .and_then(Value::as_str)
        .and_then(Behavior::parse)
        .ok_or_else(|| {
            invalid(format!(
                "pre-tokenizer {index} (Split) has no known behavior"
            ))
        })?;
    let invert = item.get("invert").and_then(Value::as_bool).unwrap_or(false);
    Ok(Stage::Split {
        regex,
        behavior,
        invert,
    })
}
