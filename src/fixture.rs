//! Reading and validating a capture: bounded input, strict JSON, the schema
//! of SPEC §1 and every validation rule, each with its own error code.

use std::collections::HashMap;
use std::io::Read;

use crate::budget::{FIELDS as BUDGET_FIELDS, MAX_BUDGET_VALUE, PartialBudget};
use crate::error::{BudgetProblem, Error, SchemaPlace, SchemaProblem};
use crate::json::{self, Json};
use crate::tokens::Encoding;

/// The default `--max-input-bytes`: 1 MiB.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1_048_576;
/// The default `--max-documents`.
pub const DEFAULT_MAX_DOCUMENTS: usize = 100;

/// Bounds on what a fixture may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes an input may have.
    pub max_input_bytes: u64,
    /// The most documents a fixture may have.
    pub max_documents: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_input_bytes: DEFAULT_MAX_INPUT_BYTES,
            max_documents: DEFAULT_MAX_DOCUMENTS,
        }
    }
}

/// A document's `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `"markdown"`.
    Markdown,
    /// `"text"`.
    Text,
}

impl Format {
    /// The name as it appears in the fixture and the envelope.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Text => "text",
        }
    }
}

/// A validated document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Position in the fixture's `documents` array.
    pub index: usize,
    /// Non-empty, unique, no control characters.
    pub id: String,
    /// An absolute http(s) URL without credentials, exactly as given.
    pub url: String,
    /// `markdown` or `text`.
    pub format: Format,
    /// Not empty, not only whitespace.
    pub content: String,
    /// -1000..=1000, default 0.
    pub priority: i32,
    /// Taken first; packing fails if it does not fit.
    pub required: bool,
}

/// A validated fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixture {
    /// The fixture's `encoding`, if it names one.
    pub encoding: Option<Encoding>,
    /// Whether the fixture has a `budget` object.
    pub has_budget: bool,
    /// The budget values the fixture gives.
    pub budget: PartialBudget,
    /// The documents, in input order.
    pub documents: Vec<Document>,
}

/// Reads at most `limit` bytes; a longer input is `input-too-large` after
/// reading no more than `limit + 1` bytes.
pub fn read_bounded(reader: impl Read, limit: u64) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    if bytes.len() as u64 > limit {
        return Err(Error::InputTooLarge { limit });
    }
    Ok(bytes)
}

/// Decodes raw input as UTF-8, dropping one leading byte-order mark.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, Error> {
    utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// Decodes raw input as UTF-8 exactly as given, or `invalid-utf8` with the
/// offset of the first bad byte.
pub fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|error| Error::InvalidUtf8 {
        offset: error.valid_up_to(),
    })
}

impl Fixture {
    /// Parses and validates a fixture from its raw bytes (already bounded by
    /// [`read_bounded`]).
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Fixture, Error> {
        if bytes.len() as u64 > limits.max_input_bytes {
            return Err(Error::InputTooLarge {
                limit: limits.max_input_bytes,
            });
        }
        let text = decode_utf8(bytes)?;
        Fixture::from_json(json::parse(text)?, limits)
    }

    fn from_json(root: Json, limits: &Limits) -> Result<Fixture, Error> {
        let Json::Object(fields) = root else {
            return Err(schema("the fixture", SchemaProblem::NotAnObject));
        };
        let mut encoding = None;
        let mut budget = None;
        let mut documents = None;
        for (key, value) in fields {
            match key.as_str() {
                "encoding" => encoding = Some(value),
                "budget" => budget = Some(value),
                "documents" => documents = Some(value),
                _ => return Err(schema("the fixture", SchemaProblem::UnknownField)),
            }
        }
        let documents = match documents {
            None => return Err(schema("documents", SchemaProblem::MissingField)),
            Some(Json::Array(items)) => items,
            Some(_) => return Err(schema("documents", SchemaProblem::WrongType)),
        };
        if documents.len() > limits.max_documents {
            return Err(Error::TooManyDocuments {
                limit: limits.max_documents,
            });
        }
        let encoding = match encoding {
            None => None,
            Some(Json::String(name)) => Some(name.parse().map_err(|_| Error::UnknownEncoding)?),
            Some(_) => return Err(Error::UnknownEncoding),
        };
        let has_budget = budget.is_some();
        let budget = match budget {
            None => PartialBudget::default(),
            Some(value) => parse_budget(value)?,
        };
        let mut first_with_id: HashMap<String, usize> = HashMap::new();
        let documents = documents
            .into_iter()
            .enumerate()
            .map(|(index, value)| parse_document(index, value, &mut first_with_id))
            .collect::<Result<_, _>>()?;
        Ok(Fixture {
            encoding,
            has_budget,
            budget,
            documents,
        })
    }
}

fn schema(path: &str, problem: SchemaProblem) -> Error {
    Error::InvalidSchema {
        place: SchemaPlace::Path(path.to_owned()),
        problem,
    }
}

fn parse_budget(value: Json) -> Result<PartialBudget, Error> {
    let Json::Object(fields) = value else {
        return Err(Error::InvalidBudget {
            field: "budget",
            problem: BudgetProblem::NotAnObject,
        });
    };
    let mut budget = PartialBudget::default();
    for (key, value) in fields {
        let Some(field) = BUDGET_FIELDS.iter().position(|name| *name == key) else {
            return Err(schema("budget", SchemaProblem::UnknownField));
        };
        match value.as_integer() {
            Some(n) if (0..=i128::from(MAX_BUDGET_VALUE)).contains(&n) => {
                budget.set(field, n as u64);
            }
            _ => {
                return Err(Error::InvalidBudget {
                    field: BUDGET_FIELDS[field],
                    problem: BudgetProblem::NotAnInteger,
                });
            }
        }
    }
    Ok(budget)
}

const DOCUMENT_FIELDS: [&str; 7] = [
    "id",
    "url",
    "format",
    "content",
    "truncated",
    "priority",
    "required",
];

fn parse_document(
    index: usize,
    value: Json,
    first_with_id: &mut HashMap<String, usize>,
) -> Result<Document, Error> {
    let Json::Object(entries) = value else {
        return Err(schema(
            &format!("documents[{index}]"),
            SchemaProblem::NotAnObject,
        ));
    };
    let mut fields: [Option<Json>; 7] = Default::default();
    for (key, value) in entries {
        let Some(slot) = DOCUMENT_FIELDS.iter().position(|name| *name == key) else {
            return Err(schema(
                &format!("documents[{index}]"),
                SchemaProblem::UnknownField,
            ));
        };
        fields[slot] = Some(value);
    }
    let [id, url, format, content, truncated, priority, required] = fields;

    let id = match id {
        Some(Json::String(id)) if !id.is_empty() && !id.chars().any(char::is_control) => id,
        _ => return Err(Error::InvalidId { index }),
    };
    if let Some(&first) = first_with_id.get(&id) {
        return Err(Error::DuplicateId { index, first });
    }
    first_with_id.insert(id.clone(), index);

    let url = match url {
        Some(Json::String(url)) => check_url(index, url)?,
        _ => return Err(Error::InvalidUrl { index }),
    };
    let format = match format {
        Some(Json::String(name)) if name == "markdown" => Format::Markdown,
        Some(Json::String(name)) if name == "text" => Format::Text,
        _ => return Err(Error::UnsupportedFormat { index }),
    };
    let content = match content {
        Some(Json::String(content)) if !content.chars().all(char::is_whitespace) => content,
        _ => return Err(Error::BlankContent { index }),
    };
    if truncated != Some(Json::Bool(false)) {
        return Err(Error::TruncatedDocument { index });
    }
    let priority = match priority.map(|p| p.as_integer()) {
        None => 0,
        Some(Some(n)) if (-1000..=1000).contains(&n) => n as i32,
        Some(Some(_)) => {
            return Err(schema(
                &format!("documents[{index}].priority"),
                SchemaProblem::OutOfRange,
            ));
        }
        Some(None) => {
            return Err(schema(
                &format!("documents[{index}].priority"),
                SchemaProblem::WrongType,
            ));
        }
    };
    let required = match required {
        None => false,
        Some(Json::Bool(required)) => required,
        Some(_) => {
            return Err(schema(
                &format!("documents[{index}].required"),
                SchemaProblem::WrongType,
            ));
        }
    };
    Ok(Document {
        index,
        id,
        url,
        format,
        content,
        priority,
        required,
    })
}

/// An absolute `http`/`https` URL with a host and no credentials. The
/// string is kept exactly as given; whitespace and control characters,
/// which a URL parser would silently strip, are refused.
fn check_url(index: usize, url: String) -> Result<String, Error> {
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::InvalidUrl { index });
    }
    let parsed = url::Url::parse(&url).map_err(|_| Error::InvalidUrl { index })?;
    let has_host = parsed.host_str().is_some_and(|host| !host.is_empty());
    if !matches!(parsed.scheme(), "http" | "https") || !has_host {
        return Err(Error::InvalidUrl { index });
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Error::UrlCredentials { index });
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"id":"a","url":"https://example.com/a","format":"text","content":"x","truncated":false}"#;

    fn fixture_with(document: &str) -> String {
        format!(
            r#"{{"budget":{{"contextTokens":100,"reservedOtherInputTokens":0,"reservedOutputTokens":0,"safetyTokens":0}},"documents":[{document}]}}"#
        )
    }

    fn load(text: &str) -> Result<Fixture, Error> {
        Fixture::from_bytes(text.as_bytes(), &Limits::default())
    }

    fn code_of(text: &str) -> &'static str {
        load(text).unwrap_err().code()
    }

    /// `GOOD` with one field replaced (or removed, for `None`).
    fn with_field(field: &str, value: Option<&str>) -> String {
        let mut map: Vec<(String, String)> = vec![
            ("id".into(), r#""a""#.into()),
            ("url".into(), r#""https://example.com/a""#.into()),
            ("format".into(), r#""text""#.into()),
            ("content".into(), r#""x""#.into()),
            ("truncated".into(), "false".into()),
        ];
        map.retain(|(key, _)| key != field);
        if let Some(value) = value {
            map.push((field.into(), value.into()));
        }
        let body: Vec<String> = map.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
        fixture_with(&format!("{{{}}}", body.join(",")))
    }

    #[test]
    fn accepts_a_valid_fixture_with_defaults() {
        let fixture = load(&fixture_with(GOOD)).unwrap();
        assert_eq!(fixture.encoding, None);
        assert_eq!(fixture.documents.len(), 1);
        let document = &fixture.documents[0];
        assert_eq!((document.priority, document.required), (0, false));
        assert_eq!(document.format, Format::Text);
    }

    #[test]
    fn accepts_a_leading_byte_order_mark() {
        let text = format!("\u{FEFF}{}", fixture_with(GOOD));
        assert!(load(&text).is_ok());
    }

    #[test]
    fn refuses_invalid_utf8_with_its_offset() {
        let mut bytes = fixture_with(GOOD).into_bytes();
        bytes[5] = 0xFF;
        assert_eq!(
            Fixture::from_bytes(&bytes, &Limits::default()),
            Err(Error::InvalidUtf8 { offset: 5 })
        );
    }

    #[test]
    fn refuses_an_input_over_the_byte_limit_after_reading_one_byte_more() {
        let limit = 10;
        let mut source = std::io::Cursor::new(vec![b' '; 1000]);
        assert_eq!(
            read_bounded(&mut source, limit),
            Err(Error::InputTooLarge { limit })
        );
        assert_eq!(source.position(), limit + 1);
        let mut exact = std::io::Cursor::new(vec![b' '; 10]);
        assert_eq!(read_bounded(&mut exact, limit).unwrap().len(), 10);
    }

    #[test]
    fn refuses_more_documents_than_the_limit() {
        let text = fixture_with(&[GOOD, GOOD].join(","));
        let limits = Limits {
            max_documents: 1,
            ..Limits::default()
        };
        assert_eq!(
            Fixture::from_bytes(text.as_bytes(), &limits),
            Err(Error::TooManyDocuments { limit: 1 })
        );
    }

    #[test]
    fn refuses_unknown_fields_anywhere() {
        assert_eq!(code_of(r#"{"documents":[],"extra":1}"#), "invalid-schema");
        assert_eq!(
            code_of(r#"{"budget":{"contextTokens":1,"tokens":2},"documents":[]}"#),
            "invalid-schema"
        );
        assert_eq!(code_of(&with_field("note", Some("1"))), "invalid-schema");
    }

    #[test]
    fn refuses_duplicate_keys() {
        let text = fixture_with(GOOD).replacen(r#""id":"a""#, r#""id":"a","id":"b""#, 1);
        assert_eq!(code_of(&text), "invalid-schema");
    }

    #[test]
    fn refuses_a_fixture_that_is_not_an_object_or_lacks_documents() {
        assert_eq!(code_of("[]"), "invalid-schema");
        assert_eq!(code_of("{}"), "invalid-schema");
        assert_eq!(code_of(r#"{"documents":{}}"#), "invalid-schema");
        assert_eq!(code_of(r#"{"documents":[1]}"#), "invalid-schema");
    }

    #[test]
    fn refuses_malformed_json() {
        assert_eq!(code_of(r#"{"documents":[}"#), "invalid-json");
        assert_eq!(code_of(""), "invalid-json");
    }

    #[test]
    fn refuses_unpaired_surrogates_in_any_string() {
        assert_eq!(
            code_of(&with_field("content", Some(r#""a\uD800b""#))),
            "unpaired-surrogate"
        );
        assert_eq!(
            code_of(&with_field("id", Some(r#""\uDC00""#))),
            "unpaired-surrogate"
        );
    }

    #[test]
    fn refuses_an_unknown_encoding() {
        assert_eq!(
            code_of(r#"{"encoding":"gpt2","documents":[]}"#),
            "unknown-encoding"
        );
        assert_eq!(
            code_of(r#"{"encoding":5,"documents":[]}"#),
            "unknown-encoding"
        );
        let fixture = load(r#"{"encoding":"o200k_harmony","documents":[]}"#).unwrap();
        assert_eq!(fixture.encoding, Some(Encoding::O200kHarmony));
    }

    #[test]
    fn refuses_budget_values_that_are_not_safe_whole_numbers() {
        for value in [
            "1.5",
            "-1",
            "-0.5",
            "\"10\"",
            "null",
            "9007199254740992",
            "9007199254740992.0",
            "1e300",
            "true",
        ] {
            let text = format!(r#"{{"budget":{{"contextTokens":{value}}},"documents":[]}}"#);
            assert_eq!(code_of(&text), "invalid-budget", "{value}");
        }
        assert_eq!(code_of(r#"{"budget":[],"documents":[]}"#), "invalid-budget");
        let text = r#"{"budget":{"contextTokens":9007199254740991},"documents":[]}"#;
        assert_eq!(
            load(text).unwrap().budget.context_tokens,
            Some((1 << 53) - 1)
        );
    }

    #[test]
    fn refuses_invalid_ids() {
        for value in [
            None,
            Some(r#""""#),
            Some("1"),
            Some(r#""a\u0007b""#),
            Some(r#""a\nb""#),
            Some(r#""\u0085""#),
        ] {
            assert_eq!(code_of(&with_field("id", value)), "invalid-id", "{value:?}");
        }
        assert!(load(&with_field("id", Some(r#""日本 語 🙂""#))).is_ok());
    }

    #[test]
    fn refuses_a_duplicate_id_naming_both_indices() {
        let text = fixture_with(&[GOOD, GOOD].join(","));
        assert_eq!(load(&text), Err(Error::DuplicateId { index: 1, first: 0 }));
        // Exact comparison: ids differing only in case are distinct.
        let other = GOOD.replace(r#""id":"a""#, r#""id":"A""#);
        assert!(load(&fixture_with(&[GOOD, &other].join(","))).is_ok());
    }

    #[test]
    fn refuses_urls_that_are_not_absolute_http() {
        for value in [
            None,
            Some("5"),
            Some(r#""""#),
            Some(r#""/relative/path""#),
            Some(r#""example.com/a""#),
            Some(r#""ftp://example.com/a""#),
            Some(r#""file:///etc/passwd""#),
            Some(r#""javascript:alert(1)""#),
            Some(r#""https://""#),
            Some(r#"" https://example.com/""#),
            Some(r#""https://exa mple.com/""#),
            Some(r#""https://example.com/\u0000""#),
        ] {
            assert_eq!(
                code_of(&with_field("url", value)),
                "invalid-url",
                "{value:?}"
            );
        }
        for value in [
            r#""http://example.com""#,
            r#""HTTPS://EXAMPLE.COM/a?b=c#d""#,
            r#""https://[::1]:8080/x""#,
            r#""https://例え.jp/パス""#,
        ] {
            assert!(load(&with_field("url", Some(value))).is_ok(), "{value}");
        }
    }

    #[test]
    fn refuses_urls_with_credentials() {
        for value in [
            r#""https://user@example.com/""#,
            r#""https://user:secret@example.com/""#,
            r#""https://:secret@example.com/""#,
        ] {
            assert_eq!(
                code_of(&with_field("url", Some(value))),
                "url-credentials",
                "{value}"
            );
        }
    }

    #[test]
    fn keeps_the_url_exactly_as_given() {
        let fixture = load(&with_field("url", Some(r#""HTTPS://Example.COM""#))).unwrap();
        assert_eq!(fixture.documents[0].url, "HTTPS://Example.COM");
    }

    #[test]
    fn refuses_formats_other_than_markdown_and_text() {
        for value in [None, Some(r#""html""#), Some(r#""Markdown""#), Some("1")] {
            assert_eq!(
                code_of(&with_field("format", value)),
                "unsupported-format",
                "{value:?}"
            );
        }
        assert!(load(&with_field("format", Some(r#""markdown""#))).is_ok());
    }

    #[test]
    fn refuses_blank_content() {
        for value in [
            None,
            Some(r#""""#),
            Some(r#"" \n\t ""#),
            Some(r#""\u00a0\u2003""#),
            Some("1"),
        ] {
            assert_eq!(
                code_of(&with_field("content", value)),
                "blank-content",
                "{value:?}"
            );
        }
        assert!(load(&with_field("content", Some(r#""\u200b""#))).is_ok());
    }

    #[test]
    fn refuses_documents_not_marked_complete() {
        for value in [
            None,
            Some("true"),
            Some(r#""false""#),
            Some("0"),
            Some("null"),
        ] {
            assert_eq!(
                code_of(&with_field("truncated", value)),
                "truncated-document",
                "{value:?}"
            );
        }
    }

    #[test]
    fn refuses_priorities_outside_the_range_and_non_boolean_required() {
        for value in ["1001", "-1001", "1.5", "1e4", "\"1\"", "null"] {
            assert_eq!(
                code_of(&with_field("priority", Some(value))),
                "invalid-schema",
                "{value}"
            );
        }
        let fixture = load(&with_field("priority", Some("-1000"))).unwrap();
        assert_eq!(fixture.documents[0].priority, -1000);
        let fixture = load(&with_field("priority", Some("5.0"))).unwrap();
        assert_eq!(fixture.documents[0].priority, 5);
        for value in ["1", "\"true\"", "null"] {
            assert_eq!(
                code_of(&with_field("required", Some(value))),
                "invalid-schema",
                "{value}"
            );
        }
        assert!(
            load(&with_field("required", Some("true")))
                .unwrap()
                .documents[0]
                .required
        );
    }

    #[test]
    fn messages_never_echo_capture_bytes() {
        let secret = "SECRET-7d1f";
        let cases = [
            with_field("id", Some(&format!(r#""{secret}\u0001""#))),
            with_field(
                "url",
                Some(&format!(r#""https://{secret}:pw@example.com""#)),
            ),
            with_field("url", Some(&format!(r#""ftp://{secret}""#))),
            with_field("format", Some(&format!(r#""{secret}""#))),
            with_field(secret, Some("1")),
            format!(r#"{{"{secret}":1,"documents":[]}}"#),
            format!(r#"{{"documents":[],"encoding":"{secret}"}}"#),
            format!(r#"{{"documents":["{secret}" }}"#),
        ];
        for text in cases {
            let message = load(&text).unwrap_err().to_string();
            assert!(!message.contains(secret), "{message}");
        }
    }
}
