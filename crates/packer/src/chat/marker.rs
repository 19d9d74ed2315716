//! The marker that tells a message's special-token text from the
//! template's (see the `chat` module's "Counting"): a character, or a
//! pair of characters, that none of the texts of a rendering holds.

use std::collections::{HashMap, HashSet};

use minijinja::Value;
use minijinja::value::ValueKind;

use super::ChatRequest;
use crate::error::Error;

/// A marker that appears nowhere in the template, the request or the
/// payload: a noncharacter (U+FDD0 to U+FDEF, then the last two of
/// each plane), else a character of the supplementary private use
/// areas; where the texts hold every one of those 131,134 characters,
/// two different ones that never follow each other there (the texts
/// would need 17 billion characters to leave no such pair).
pub(super) fn free(payload: &str, source: &str, request: &ChatRequest) -> Result<String, Error> {
    let mut texts = Vec::new();
    collect_strings(&request.messages, &mut texts);
    collect_strings(&request.tools, &mut texts);
    for (_, value) in &request.arguments {
        collect_strings(value, &mut texts);
    }
    let all_texts = || {
        [payload, source]
            .into_iter()
            .chain(texts.iter().map(String::as_str))
    };
    let used: HashSet<char> = all_texts()
        .flat_map(str::chars)
        .filter(is_marker_candidate)
        .collect();
    if let Some(single) = marker_candidates().find(|c| !used.contains(c)) {
        return Ok(single.to_string());
    }
    // Every candidate occurs: the pairs of candidates that do.
    let mut followers: HashMap<char, HashSet<char>> = HashMap::new();
    for text in all_texts() {
        let chars: Vec<char> = text.chars().collect();
        for pair in chars.windows(2) {
            if is_marker_candidate(&pair[0]) && is_marker_candidate(&pair[1]) {
                followers.entry(pair[0]).or_default().insert(pair[1]);
            }
        }
    }
    marker_candidates()
        .find_map(|first| {
            let taken = followers.get(&first);
            marker_candidates()
                .find(|second| {
                    *second != first && taken.is_none_or(|taken| !taken.contains(second))
                })
                .map(|second| [first, second].iter().collect())
        })
        .ok_or_else(|| Error::InvalidChatRequest {
            problem: "and the documents hold between them every pair of characters packer \
                      could mark special-token text with (the 66 noncharacters and the \
                      supplementary private use areas)"
                .into(),
        })
}

/// Whether `c` may mark special-token text: a noncharacter or a character
/// of the supplementary private use areas.
fn is_marker_candidate(c: &char) -> bool {
    matches!(*c, '\u{FDD0}'..='\u{FDEF}' | '\u{F0000}'..) || (*c as u32) & 0xFFFE == 0xFFFE
}

/// The characters that may mark special-token text, in the order tried.
fn marker_candidates() -> impl Iterator<Item = char> {
    let noncharacters = ('\u{FDD0}'..='\u{FDEF}').chain((0..=16u32).flat_map(|plane| {
        [0xFFFE, 0xFFFF]
            .into_iter()
            .filter_map(move |low| char::from_u32(plane << 16 | low))
    }));
    let private_use = ('\u{F0000}'..='\u{FFFFD}').chain('\u{100000}'..='\u{10FFFD}');
    noncharacters.chain(private_use)
}

/// Every string value in `value` (keys too).
fn collect_strings(value: &Value, texts: &mut Vec<String>) {
    match value.kind() {
        ValueKind::String => texts.push(value.as_str().unwrap_or_default().to_owned()),
        ValueKind::Seq => {
            for item in value.try_iter().into_iter().flatten() {
                collect_strings(&item, texts);
            }
        }
        ValueKind::Map => {
            for key in value.try_iter().into_iter().flatten() {
                collect_strings(&key, texts);
                collect_strings(&value.get_item(&key).unwrap_or_default(), texts);
            }
        }
        _ => {}
    }
}
