//! Integers in a request as Python's `json.loads` reads them.
//!
//! serde_json reads an integer outside 64 bits as a float and `-0` as the
//! float `-0.0`; Python keeps both integers (`18446744073709551616`, `0`),
//! and a template prints them so. The request's number literals are found
//! in its text, in order, and where one is such an integer the value read
//! is replaced by the integer (up to 128 bits; a longer one is refused).

use minijinja::Value;
use minijinja::value::ValueKind;

/// Why a request's numbers cannot be read as Python reads them.
pub(super) type Refusal = &'static str;

const LOST: Refusal = "has a key given twice beside an integer packer must read itself";

/// The number literals of a JSON text, in order (strings skipped).
fn literals(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                at += 1;
                while at < bytes.len() && bytes[at] != b'"' {
                    at += if bytes[at] == b'\\' { 2 } else { 1 };
                }
                at += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = at;
                while at < bytes.len()
                    && matches!(bytes[at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    at += 1;
                }
                out.push(&text[start..at]);
            }
            _ => at += 1,
        }
    }
    out
}

/// The integer a literal is to Python when serde_json reads it otherwise:
/// `-0`, or an integer literal outside 64 bits.
fn python_integer(literal: &str) -> Result<Option<Value>, Refusal> {
    if literal.contains(['.', 'e', 'E']) {
        return Ok(None);
    }
    if literal == "-0" {
        return Ok(Some(Value::from(0i64)));
    }
    if literal.parse::<i64>().is_ok() || literal.parse::<u64>().is_ok() {
        return Ok(None);
    }
    if let Ok(value) = literal.parse::<i128>() {
        return Ok(Some(Value::from(value)));
    }
    if let Ok(value) = literal.parse::<u128>() {
        return Ok(Some(Value::from(value)));
    }
    Err("has an integer longer than 128 bits, which packer cannot print as Python does")
}

/// `value` (read from `text` by serde_json) with its integers as Python
/// reads them.
pub(super) fn as_python_reads(text: &str, value: Value) -> Result<Value, Refusal> {
    let literals = literals(text);
    let mut replaced = Vec::with_capacity(literals.len());
    let mut any = false;
    for literal in &literals {
        let integer = python_integer(literal)?;
        any |= integer.is_some();
        replaced.push(integer);
    }
    if !any {
        return Ok(value);
    }
    if crate::json::parse(text).is_err() {
        // A key given twice (the reader refuses it): its first value was
        // dropped, so the text's numbers no longer follow the value's.
        return Err(LOST);
    }
    let mut next = replaced.into_iter();
    let fixed = walk(&value, &mut next)?;
    if next.next().is_some() {
        return Err(LOST);
    }
    Ok(fixed)
}

fn walk(value: &Value, next: &mut impl Iterator<Item = Option<Value>>) -> Result<Value, Refusal> {
    let lost = LOST;
    Ok(match value.kind() {
        ValueKind::Number => match next.next().ok_or(lost)? {
            Some(integer) => integer,
            None => value.clone(),
        },
        ValueKind::Seq => {
            let mut items = Vec::new();
            for item in value.try_iter().map_err(|_| lost)? {
                items.push(walk(&item, next)?);
            }
            Value::from(items)
        }
        ValueKind::Map => {
            let mut entries = Vec::new();
            for key in value.try_iter().map_err(|_| lost)? {
                let item = value.get_item(&key).map_err(|_| lost)?;
                entries.push((key, walk(&item, next)?));
            }
            Value::from_iter(entries)
        }
        _ => value.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<String, Refusal> {
        let value: Value = serde_json::from_str(text).unwrap();
        as_python_reads(text, value).map(|v| v.to_string())
    }

    #[test]
    fn integers_are_read_as_python_reads_them() {
        assert_eq!(
            read(r#"{"a": [18446744073709551616, -0, 1.5, "-0 9e99"], "b": -0.0}"#).unwrap(),
            read(r#"{"a": [18446744073709551616, 0, 1.5, "-0 9e99"], "b": -0.0}"#).unwrap()
        );
        let value: Value = serde_json::from_str("[18446744073709551616]").unwrap();
        let fixed = as_python_reads("[18446744073709551616]", value).unwrap();
        assert_eq!(
            fixed.get_item_by_index(0).unwrap().to_string(),
            "18446744073709551616"
        );
        assert!(fixed.get_item_by_index(0).unwrap().is_integer());
        assert!(read(&format!("[{}]", "9".repeat(40))).is_err());
        assert!(read(r#"{"a": 1, "a": -0}"#).is_err());
        assert_eq!(read("[1, 2.5]").unwrap(), "[1, 2.5]");
    }
}
