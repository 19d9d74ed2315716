//! The tests a candidate secret must pass once a rule's pattern matched:
//! entropy, gitleaks' global allow-list and stop-words, the rule's own
//! allow-list and its further check (a base64 run, or a URL password that
//! looks generated), and the helpers they need.

use super::rules::{Check, Rule, STOP_WORDS};
use super::{Compiled, Detector};

impl Detector {
    pub(super) fn is_secret(&self, secret: &[u8], rule: &Rule, compiled: &Compiled) -> bool {
        let decoded;
        let secret = if let Check::UrlPassword = rule.check {
            decoded = percent_decode(secret);
            &decoded[..]
        } else {
            secret
        };
        if rule.entropy != 0.0 && shannon_entropy(secret) <= rule.entropy {
            return false;
        }
        if self.global_allow.is_match(secret)
            || compiled
                .allow
                .as_ref()
                .is_some_and(|allow| allow.is_match(secret))
        {
            return false;
        }
        let lower = secret.to_ascii_lowercase();
        if STOP_WORDS
            .iter()
            .any(|word| lower.windows(word.len()).any(|w| w == word.as_bytes()))
        {
            return false;
        }
        match rule.check {
            Check::None => true,
            Check::Base64Run(length) => secret
                .split(|&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='))
                .any(|run| run.len() >= length),
            Check::UrlPassword => {
                let has = |class: fn(&u8) -> bool| secret.iter().any(class);
                let symbol = |b: &u8| !(b.is_ascii_alphanumeric() || b"_-.".contains(b));
                let classes = [
                    has(u8::is_ascii_lowercase),
                    has(u8::is_ascii_uppercase),
                    has(u8::is_ascii_digit),
                    has(symbol),
                ];
                classes[2] || classes.iter().filter(|&&c| c).count() >= 3
            }
        }
    }
}

/// `text` with each `%` and two hex digits replaced by the byte they stand
/// for (a URL's user information is percent-encoded).
pub(super) fn percent_decode(text: &[u8]) -> Vec<u8> {
    percent_decode_marking(text, &mut Vec::new())
}

/// [`percent_decode`], adding to `decoded` where each escape it decodes
/// is in `text` and where its byte is in what it gives.
pub(super) fn percent_decode_marking(text: &[u8], decoded: &mut Vec<(usize, usize)>) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (
            text[i],
            text.get(i + 1).copied().and_then(hex),
            text.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(high), Some(low)) => {
                decoded.push((i, out.len()));
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// gitleaks trims the newlines a match may start or end with.
pub(super) fn trim_newlines(mut bytes: &[u8]) -> &[u8] {
    while let [b'\n', rest @ ..] = bytes {
        bytes = rest;
    }
    while let [rest @ .., b'\n'] = bytes {
        bytes = rest;
    }
    bytes
}

/// Shannon entropy in bits per byte, as gitleaks computes it.
fn shannon_entropy(text: &[u8]) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let mut counts = [0usize; 256];
    for &byte in text {
        counts[usize::from(byte)] += 1;
    }
    let length = text.len() as f64;
    counts
        .iter()
        .filter(|&&count| count > 0)
        .map(|&count| {
            let p = count as f64 / length;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_matches_the_textbook_values() {
        assert_eq!(shannon_entropy(b"aaaa"), 0.0);
        assert_eq!(shannon_entropy(b"abab"), 1.0);
        assert_eq!(shannon_entropy(b"abcd"), 2.0);
        assert_eq!(shannon_entropy(b"Xk9#mQ2v"), 3.0);
    }
}
