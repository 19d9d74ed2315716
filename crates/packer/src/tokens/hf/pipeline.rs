//! A `tokenizer.json`'s normalizer and pre-tokenizer, read into the
//! stages the engine runs (see the `pretokenize` module for how they run).

use serde_json::Value;

use super::component;
use crate::error::Error;
use crate::tokens::file::{invalid, unsupported};
use crate::tokens::pretokenize::{Behavior, GPT2_PATTERN, SplitRegex, Stage};

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

/// Whether the normalizer is NFC (true) or absent (false); refuses others.
pub(super) fn parse_normalizer(value: Option<&Value>) -> Result<bool, Error> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Ok(false);
    };
    match type_of(value) {
        Some("NFC") => Ok(true),
        Some("Sequence") => {
            let list = value
                .get("normalizers")
                .and_then(Value::as_array)
                .ok_or_else(|| invalid("a Sequence normalizer has no `normalizers` list"))?;
            let mut nfc = false;
            for item in list {
                nfc |= parse_normalizer(Some(item))?;
            }
            Ok(nfc)
        }
        other => Err(unsupported(component(
            &KNOWN_NORMALIZERS,
            other,
            "normalizer",
        ))),
    }
}

/// The stages and whether a `ByteLevel` pre-tokenizer ends them.
pub(super) fn parse_pre_tokenizer(value: Option<&Value>) -> Result<(Vec<Stage>, bool), Error> {
    let mut flat = Vec::new();
    if let Some(value) = value.filter(|v| !v.is_null()) {
        flatten(value, &mut flat)?;
    }
    let mut stages = Vec::new();
    let mut byte_level = false;
    for (index, item) in flat.iter().enumerate() {
        if byte_level {
            return Err(unsupported(
                "a pre-tokenizer after ByteLevel (it would see byte-level characters)",
            ));
        }
        match type_of(item) {
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
    Ok((stages, byte_level))
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
