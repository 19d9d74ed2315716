//! Python's `repr()` of a string, as Jinja2 prints each string inside a
//! list or a dict (`{{ ['a', 'b'] }}`, `{{ tool|string }}`): quoted, with
//! `\\`, the quote, `\n`, `\r`, `\t` escaped and every character that is
//! not printable written as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
//!
//! Which characters are printable depends on the Unicode version of the
//! Python that runs `transformers` (13.0 in Python 3.10 to 16.0 in 3.14):
//! the `printable` module lists the characters no such Python prints
//! ([`printable::ESCAPED`]) and those printed by some and escaped by others
//! ([`printable::DEPENDS`]). A string with one of the latter has no one
//! rendering: it is refused, naming the character.

use std::fmt::Write as _;

use super::printable;

/// Whether `c` lies in one of `ranges` (sorted, disjoint).
fn within(ranges: &[(u32, u32)], c: char) -> bool {
    let c = c as u32;
    ranges
        .binary_search_by(|&(start, end)| {
            if end < c {
                std::cmp::Ordering::Less
            } else if start > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python's `repr()` of `text`, or the first character whose printing
/// depends on the Python version.
pub(super) fn repr_string(text: &str) -> Result<String, char> {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c if within(&printable::ESCAPED, c) => {
                let code = c as u32;
                let _ = if code < 0x100 {
                    write!(out, "\\x{code:02x}")
                } else if code < 0x10000 {
                    write!(out, "\\u{code:04x}")
                } else {
                    write!(out, "\\U{code:08x}")
                };
            }
            c if within(&printable::DEPENDS, c) => return Err(c),
            c => out.push(c),
        }
    }
    out.push(quote);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_python_repr_escapes_them() {
        let cases = [
            ("plain", "'plain'"),
            ("it's", "\"it's\""),
            ("both ' and \"", "'both \\' and \"'"),
            ("a\\b\n\r\t", "'a\\\\b\\n\\r\\t'"),
            ("\u{0}\u{7f}\u{85}\u{a0}", "'\\x00\\x7f\\x85\\xa0'"),
            ("zero\u{200b}width", "'zero\\u200bwidth'"),
            ("soft\u{ad}hyphen", "'soft\\xadhyphen'"),
            (
                "\u{e000}\u{e0001}\u{10ffff}",
                "'\\ue000\\U000e0001\\U0010ffff'",
            ),
            ("line\u{2028}sep", "'line\\u2028sep'"),
            ("é日本😀", "'é日本😀'"),
        ];
        for (text, python) in cases {
            assert_eq!(repr_string(text).unwrap(), python, "{text:?}");
        }
        // Unassigned in Unicode 18: escaped by every Python.
        assert_eq!(repr_string("\u{378}").unwrap(), "'\\u0378'");
        // An emoji of Unicode 14 (U+1FAE0): printable from Python 3.11 on,
        // escaped by 3.10.
        assert_eq!(repr_string("\u{1fae0}"), Err('\u{1fae0}'));
    }
}
