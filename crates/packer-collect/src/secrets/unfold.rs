//! The other ways a file may hold a secret that its text does not show
//! whole: broken by invisible characters, percent-encoded, or split by a
//! line break. Each is a view of the text with that undone, made only
//! when the text has what it undoes, and searched as the text is when the
//! text itself holds no secret.

use std::ops::Range;

use super::check::percent_decode_marking;

/// Characters that show as nothing (zero-width space, non-joiner, joiner,
/// word joiner, byte-order mark, soft hyphen): a token with one inside is
/// the token to whoever copies it out.
const INVISIBLE: [char; 6] = [
    '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{FEFF}', '\u{00AD}',
];

/// Joined lines: a line must end in at least this many token characters
/// (a token cut where its line wraps is long; a word or a name at the end
/// of a line mostly is not)...
const LEFT_RUN: usize = 16;

/// ...and the next line (after its indentation) start with this many.
const RIGHT_RUN: usize = 4;

/// A view of a text: the text with one thing undone.
pub(super) struct View {
    pub(super) bytes: Vec<u8>,
    /// Where the view differs from the text, in order: each byte it made
    /// (a decoded one), and the two bytes either side of each place where
    /// it took bytes out. A stretch of the view that holds none of these
    /// is a stretch of the text, byte for byte.
    pub(super) touched: Vec<usize>,
    /// The stretches of the text the view took out or replaced, in order.
    pub(super) changed: Vec<Range<usize>>,
}

/// One way to view a text, if the text has what it undoes.
type Unfold = fn(&str) -> Option<View>;

/// The views of `text` to search as well, each made when needed.
pub(super) fn views(text: &str) -> impl Iterator<Item = View> + '_ {
    let unfolds: [Unfold; 3] = [without_invisible, percent_decoded, joined];
    unfolds.into_iter().filter_map(move |unfold| unfold(text))
}

/// Marks the two bytes either side of where bytes were taken out of `out`
/// (at its end), each once, keeping `touched` in order.
fn seam(out: &[u8], touched: &mut Vec<usize>) {
    let at = out.len();
    for byte in at.saturating_sub(1)..=at {
        if touched.last().is_none_or(|&last| last < byte) {
            touched.push(byte);
        }
    }
}

/// `ranges` (in order) with those that meet joined: adjacent removed
/// characters are one change.
fn merged(ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// `text` without its invisible characters, if it has any.
fn without_invisible(text: &str) -> Option<View> {
    if !has_invisible(text) {
        return None;
    }
    let mut bytes = Vec::with_capacity(text.len());
    let (mut touched, mut changed) = (Vec::new(), Vec::new());
    let mut copied = 0;
    for (at, c) in text.match_indices(&INVISIBLE[..]) {
        bytes.extend_from_slice(&text.as_bytes()[copied..at]);
        seam(&bytes, &mut touched);
        copied = at + c.len();
        changed.push(at..copied);
    }
    bytes.extend_from_slice(&text.as_bytes()[copied..]);
    Some(View {
        bytes,
        touched,
        changed: merged(changed),
    })
}

/// Whether `text` holds an invisible character: its runs of ASCII are
/// passed over 64 bytes at a time (every invisible character is outside
/// ASCII), the rest a character at a time.
fn has_invisible(text: &str) -> bool {
    const BLOCK: usize = 64;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if at + BLOCK <= bytes.len() && bytes[at..at + BLOCK].is_ascii() {
            at += BLOCK;
        } else if bytes[at].is_ascii() {
            at += 1;
        } else {
            // `at` is a character's first byte: ASCII bytes and whole
            // characters were passed over.
            let c = text[at..].chars().next().unwrap_or_default();
            if INVISIBLE.contains(&c) {
                return true;
            }
            at += c.len_utf8();
        }
    }
    false
}

/// `text` with its percent escapes decoded, if it has any.
fn percent_decoded(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let escaped = text.match_indices('%').any(|(at, _)| {
        bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
    });
    escaped.then(|| {
        let mut decoded = Vec::new();
        let bytes = percent_decode_marking(bytes, &mut decoded);
        View {
            bytes,
            touched: decoded.iter().map(|&(_, made)| made).collect(),
            changed: decoded.iter().map(|&(at, _)| at..at + 3).collect(),
        }
    })
}

/// Whether `b` may be part of a token (letters, digits and the characters
/// of base64 and of tokens' separators).
fn token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/' | b'=')
}

/// `text` with each line break (and the next line's indentation, and a
/// backslash before the break) taken out where a long run of token
/// characters goes on after it, if there is such a place.
fn joined(text: &str) -> Option<View> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let (mut touched, mut changed) = (Vec::new(), Vec::new());
    let mut copied = 0;
    let mut at = 0;
    while let Some(found) = text[at..].find('\n') {
        let newline = at + found;
        at = newline + 1;
        // The run before the break (a backslash continuation, `\r` left out).
        let mut end = newline;
        if end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        if end > 0 && bytes[end - 1] == b'\\' {
            end -= 1;
        }
        let left = bytes[..end]
            .iter()
            .rev()
            .take_while(|&&b| token_byte(b))
            .count();
        if left < LEFT_RUN {
            continue;
        }
        let indent = bytes[at..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        let right = bytes[at + indent..]
            .iter()
            .take(RIGHT_RUN)
            .take_while(|&&b| token_byte(b))
            .count();
        if right < RIGHT_RUN {
            continue;
        }
        let out = out.get_or_insert_with(|| Vec::with_capacity(bytes.len()));
        out.extend_from_slice(&bytes[copied..end]);
        seam(out, &mut touched);
        copied = at + indent;
        changed.push(end..copied);
    }
    out.map(|mut out| {
        out.extend_from_slice(&bytes[copied..]);
        View {
            bytes: out,
            touched,
            changed,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn invisible_characters_are_found_wherever_they_are(
            head in 0usize..150,
            text in "[a é日\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}\u{00AD}\u{2061}]{0,12}",
            tail in 0usize..150,
        ) {
            let text = format!("{}{text}{}", "x".repeat(head), "y".repeat(tail));
            proptest::prop_assert_eq!(has_invisible(&text), text.contains(&INVISIBLE[..]));
        }
    }

    fn view(unfold: Unfold, text: &str) -> Option<String> {
        unfold(text).map(|view| String::from_utf8(view.bytes).unwrap())
    }

    #[test]
    fn each_view_is_made_only_when_the_text_needs_it() {
        assert_eq!(
            view(without_invisible, "ab\u{200B}cd\u{00AD}e"),
            Some("abcde".into())
        );
        assert_eq!(view(without_invisible, "plain é text"), None);
        assert_eq!(view(percent_decoded, "a%2Fb%2bc"), Some("a/b+c".into()));
        assert_eq!(view(percent_decoded, "100% sure"), None);
        let split = "token = ghp_0123456789abcdef\n    ghij0123456789abcdefghij\n";
        assert_eq!(
            view(joined, split),
            Some("token = ghp_0123456789abcdefghij0123456789abcdefghij\n".into())
        );
        let continued = "K=AKIAIOSFODNN7EXAMPLEXX\\\r\n  ZZZZ rest";
        assert_eq!(
            view(joined, continued),
            Some("K=AKIAIOSFODNN7EXAMPLEXXZZZZ rest".into())
        );
        // Short runs, prose and code lines are left as they are.
        assert_eq!(view(joined, "fn main() {\n    let x = 1;\n}\n"), None);
        assert_eq!(
            view(joined, "a long sentence wraps here\nand goes on\n"),
            None
        );
        assert_eq!(
            view(joined, "abcdefghijklmnopqrstuvwxyz\n  .map(f)\n"),
            None
        );
    }
}
