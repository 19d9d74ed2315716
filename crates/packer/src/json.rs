//! A strict JSON reader: duplicate keys are an error, key order is kept,
//! integers stay integers, and unpaired surrogate escapes are told apart from
//! other malformed JSON.
//!
//! serde_json does the parsing (and bounds nesting at 128 levels); this
//! module only builds a tree that keeps what schema validation needs.
//!
//! It is the one reader of every front end: fixtures (command line, batch,
//! Python) are read with it, and the MCP server reads each message and each
//! call's arguments with [`check`], so that text one front end refuses is
//! refused by all of them with the same code and message.

use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

use crate::error::{Error, Position, SchemaPlace, SchemaProblem, Syntax};

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// An integer literal that fits in i64 or u64.
    Integer(i128),
    /// Any other number (a fraction, an exponent, or a huge integer).
    Float(f64),
    String(String),
    Array(Vec<Json>),
    /// Keys in input order; never two equal keys.
    Object(Vec<(String, Json)>),
}

const DUPLICATE_KEY: &str = "duplicate key";

impl Json {
    /// The number as an integer, if it is one: an integer literal, or a
    /// number written with a fraction or exponent whose value is whole
    /// (`256.0`, `1e3`), as JavaScript's `Number.isInteger` sees it.
    pub(crate) fn as_integer(&self) -> Option<i128> {
        match *self {
            Json::Integer(n) => Some(n),
            Json::Float(f) if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30 => {
                Some(f as i128)
            }
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Json, E> {
        Ok(Json::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Json, E> {
        Ok(Json::Integer(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Json, E> {
        Ok(Json::Integer(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Json, E> {
        Ok(Json::Float(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Json, E> {
        Ok(Json::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Json, E> {
        Ok(Json::String(value))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut entries: Vec<(String, Json)> = Vec::new();
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(DUPLICATE_KEY));
            }
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Json::Object(entries))
    }
}

/// Anything [`Json`] accepts, read and dropped: only the checks are kept.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Checked, D::Error> {
        deserializer.deserialize_any(CheckVisitor)
    }
}

struct CheckVisitor;

impl<'de> Visitor<'de> for CheckVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key) {
                return Err(de::Error::custom(DUPLICATE_KEY));
            }
            map.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// Parses `text` as strict JSON.
pub(crate) fn parse(text: &str) -> Result<Json, Error> {
    read(text)
}

/// Checks that `text` is one JSON value that a fixture's reader accepts,
/// without keeping it: the same refusals, codes and positions as reading a
/// fixture (`invalid-json`, nesting deeper than 128 levels,
/// `unpaired-surrogate`, and a key twice in one object as `invalid-schema`).
///
/// ```
/// use packer::json::check;
///
/// assert!(check(r#"{"a":[1,2.5,"x"]}"#).is_ok());
/// assert_eq!(check(r#"{"a":1,"a":2}"#).unwrap_err().code(), "invalid-schema");
/// assert_eq!(check(r#"{"a":"\ud800"}"#).unwrap_err().code(), "unpaired-surrogate");
/// assert_eq!(check("[".repeat(200).as_str()).unwrap_err().code(), "invalid-json");
/// ```
pub fn check(text: &str) -> Result<(), Error> {
    read::<Checked>(text).map(|_| ())
}

/// Reads `text` as one strict JSON value of type `T`, with packer's errors.
fn read<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, Error> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = T::deserialize(&mut deserializer).and_then(|value| {
        deserializer.end()?;
        Ok(value)
    });
    parsed.map_err(|error| {
        let at = one_based(
            text,
            Position {
                line: error.line(),
                column: error.column(),
            },
        );
        if let Some(surrogate) = find_unpaired_surrogate(text)
            && (surrogate.line, surrogate.column) <= (at.line, at.column)
        {
            return Error::UnpairedSurrogate { at: surrogate };
        }
        // serde_json's own message for its nesting bound; the text is fixed
        // by serde_json, never taken from the input.
        if error.to_string().starts_with("recursion limit exceeded") {
            return Error::TooDeep { at };
        }
        match error.classify() {
            serde_json::error::Category::Data => Error::InvalidSchema {
                place: SchemaPlace::At(at),
                problem: SchemaProblem::DuplicateKey,
            },
            _ => Error::InvalidJson {
                at,
                syntax: syntax_of(&error, text, at),
            },
        }
    })
}

/// serde_json says column 0 when it stopped at the start of a line (after
/// reading a newline, or on empty input); point at the newline instead.
fn one_based(text: &str, at: Position) -> Position {
    if at.column > 0 {
        return at;
    }
    if at.line <= 1 {
        return Position { line: 1, column: 1 };
    }
    let previous = text.split('\n').nth(at.line - 2).unwrap_or("");
    Position {
        line: at.line - 1,
        column: previous.len() + 1,
    }
}

/// What serde_json expected, in packer's words, with a hint taken from the
/// character where it stopped (only to tell a comment or a single quote;
/// nothing of the input is repeated).
fn syntax_of(error: &serde_json::Error, text: &str, at: Position) -> Syntax {
    // serde_json's messages are fixed text plus the position.
    let message = error.to_string();
    let here = offset_of(text, at).and_then(|offset| text.as_bytes().get(offset).copied());
    let by_char = match here {
        Some(b'/') => Some(Syntax::Comment),
        Some(b'\'') => Some(Syntax::SingleQuotes),
        _ => None,
    };
    let starts = |prefix: &str| message.starts_with(prefix);
    if starts("EOF while parsing") {
        Syntax::UnexpectedEnd
    } else if starts("trailing comma") {
        Syntax::TrailingComma
    } else if starts("trailing characters") {
        by_char.unwrap_or(Syntax::TrailingCharacters)
    } else if starts("key must be a string") {
        by_char.unwrap_or(Syntax::KeyNotAString)
    } else if starts("expected value") {
        by_char.unwrap_or(Syntax::ExpectedValue)
    } else if starts("expected `:`") {
        Syntax::ExpectedColon
    } else if starts("expected `,` or `]`") {
        by_char.unwrap_or(Syntax::ExpectedCommaOrBracket)
    } else if starts("expected `,` or `}`") {
        by_char.unwrap_or(Syntax::ExpectedCommaOrBrace)
    } else if starts("expected ident") {
        Syntax::ExpectedLiteral
    } else if starts("control character") {
        Syntax::ControlCharacterInString
    } else if starts("invalid escape")
        || starts("invalid unicode")
        || starts("unexpected end of hex")
    {
        Syntax::InvalidEscape
    } else if starts("invalid number") || starts("number out of range") {
        Syntax::InvalidNumber
    } else {
        Syntax::Other
    }
}

/// The byte offset of the character at a serde_json position (whose column
/// counts the bytes up to and including that character).
fn offset_of(text: &str, at: Position) -> Option<usize> {
    let line_start = if at.line <= 1 {
        0
    } else {
        text.match_indices('\n').nth(at.line - 2)?.0 + 1
    };
    (line_start + at.column).checked_sub(1)
}

/// Where each value and key of a JSON text starts: a tree parallel to
/// [`Json`], built only when a problem needs a line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Span {
    /// Byte offset where the value starts.
    pub(crate) start: usize,
    /// For arrays and objects: each element or member (with its key's
    /// offset for objects), in order.
    pub(crate) members: Vec<(usize, Span)>,
}

impl Span {
    /// The spans of `text`, which must be JSON that [`parse`] accepted.
    pub(crate) fn of(text: &str) -> Span {
        let mut scanner = Scanner {
            bytes: text.as_bytes(),
            at: 0,
        };
        scanner.value()
    }
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn skip_whitespace(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Span {
        self.skip_whitespace();
        let start = self.at;
        let mut members = Vec::new();
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                loop {
                    self.skip_whitespace();
                    match self.bytes.get(self.at) {
                        Some(b'"') => {
                            let key = self.at;
                            self.string();
                            self.skip_whitespace();
                            self.at += 1; // ':'
                            members.push((key, self.value()));
                        }
                        Some(b',') => self.at += 1,
                        _ => {
                            self.at += 1; // '}'
                            break;
                        }
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                loop {
                    self.skip_whitespace();
                    match self.bytes.get(self.at) {
                        Some(b']') | None => {
                            self.at += 1;
                            break;
                        }
                        Some(b',') => self.at += 1,
                        _ => {
                            let value = self.value();
                            members.push((value.start, value));
                        }
                    }
                }
            }
            Some(b'"') => self.string(),
            _ => {
                while self.bytes.get(self.at).is_some_and(|b| {
                    !matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.at += 1;
                }
            }
        }
        Span { start, members }
    }

    fn string(&mut self) {
        self.at += 1;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += if b == b'\\' { 2 } else { 1 };
            if b == b'"' {
                return;
            }
        }
    }
}

/// The position of the first `\uXXXX` escape inside a string literal that
/// is a surrogate without its other half, if any.
fn find_unpaired_surrogate(text: &str) -> Option<Position> {
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = bytes.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match (in_string, bytes[i]) {
            (false, b'"') => in_string = true,
            (true, b'"') => in_string = false,
            (true, b'\\') => {
                if bytes.get(i + 1) == Some(&b'u')
                    && let Some(unit) = hex(i + 2)
                {
                    if (0xD800..0xDC00).contains(&unit) {
                        let low = (bytes.get(i + 6..i + 8) == Some(b"\\u"))
                            .then(|| hex(i + 8))
                            .flatten();
                        match low {
                            Some(low) if (0xDC00..0xE000).contains(&low) => i += 6,
                            _ => return Some(position_of(text, i)),
                        }
                    } else if (0xDC00..0xE000).contains(&unit) {
                        return Some(position_of(text, i));
                    }
                }
                // Skip the escaped character (a quote must not end the string).
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The 1-based line and column of a byte offset.
pub(crate) fn position_of(text: &str, offset: usize) -> Position {
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Position {
        line,
        column: offset - line_start + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_key_order_and_integer_literals() {
        let parsed = parse(r#"{"b":1,"a":[true,null,-2,1.0,"x"]}"#).unwrap();
        assert_eq!(
            parsed,
            Json::Object(vec![
                ("b".into(), Json::Integer(1)),
                (
                    "a".into(),
                    Json::Array(vec![
                        Json::Bool(true),
                        Json::Null,
                        Json::Integer(-2),
                        Json::Float(1.0),
                        Json::String("x".into())
                    ])
                ),
            ])
        );
    }

    #[test]
    fn refuses_a_duplicate_key_as_a_schema_error() {
        let error = parse("{\"a\":1,\n\"a\":2}").unwrap_err();
        assert!(matches!(
            error,
            Error::InvalidSchema {
                problem: SchemaProblem::DuplicateKey,
                place: SchemaPlace::At(Position { line: 2, .. })
            }
        ));
    }

    #[test]
    fn refuses_trailing_text_and_bad_syntax_as_invalid_json() {
        assert!(matches!(parse("{} x"), Err(Error::InvalidJson { .. })));
        assert!(matches!(parse("{\"a\":}"), Err(Error::InvalidJson { .. })));
        assert!(matches!(parse(""), Err(Error::InvalidJson { .. })));
    }

    #[test]
    fn refuses_deep_nesting_as_invalid_json() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(matches!(parse(&deep), Err(Error::TooDeep { .. })));
        let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse(&fine).is_ok());
    }

    #[test]
    fn tells_unpaired_surrogates_apart() {
        for text in [
            r#"{"a":"\uD800"}"#,
            r#"{"a":"\uDC00"}"#,
            r#"{"a":"\ud83d x"}"#,
            r#"{"a":"\uD83D\u0041"}"#,
            r#"{"\uDFFF":1}"#,
        ] {
            assert!(
                matches!(parse(text), Err(Error::UnpairedSurrogate { .. })),
                "{text}"
            );
        }
        assert_eq!(
            parse(r#"{"a":"\uD83D\uDE00 \\uD800"}"#).unwrap(),
            Json::Object(vec![("a".into(), Json::String("😀 \\uD800".into()))])
        );
    }

    #[test]
    fn check_refuses_exactly_what_parse_refuses_with_the_same_error() {
        let deep = "[".repeat(100_000);
        let closed = format!("{deep}{}", "]".repeat(100_000));
        for text in [
            r#"{"a":1,"b":[true,null,"x",{"c":-2.5e3}]}"#,
            r#"{"a":1,"b":{"a":2}}"#,
            "{\"a\":1,\n\"a\":2}",
            r#"[{"k":1},{"k":2,"k":3}]"#,
            r#"{"a":"\uD800"}"#,
            r#"{"\uDC00":1}"#,
            r#"{"a":1e400}"#,
            r#"{"a":}"#,
            r#"{"a":1} x"#,
            "",
            &deep,
            &closed,
        ] {
            assert_eq!(
                check(text).err(),
                parse(text).err(),
                "{}",
                &text[..text.len().min(40)]
            );
        }
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(position_of("ab\ncd", 4), Position { line: 2, column: 2 });
        assert_eq!(position_of("ab", 0), Position { line: 1, column: 1 });
    }
}
