//! Reading and validating a capture: bounded input, strict JSON, the schema
//! of SPEC §1 and every validation rule, each with its own error code.

use std::collections::HashMap;
use std::io::Read;

use crate::budget::{FIELDS as BUDGET_FIELDS, MAX_BUDGET_VALUE, PartialBudget};
use crate::error::{
    BudgetProblem, Error, IdProblem, MAX_PROBLEMS, PathProblem, Problem, SchemaPlace,
    SchemaProblem, Shape, UrlProblem,
};
use crate::json::{self, Json, Span};
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

/// Where a document comes from (SPEC §1, §1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `url`: an absolute http(s) URL without credentials, exactly as given
    /// (a web page, or a file of a checkout with a forge remote).
    Url(String),
    /// `path`: a relative path with `/` between its parts, exactly as given
    /// (a file collected from a directory without a forge remote).
    Path(String),
}

impl Source {
    /// The url or path.
    pub fn as_str(&self) -> &str {
        match self {
            Source::Url(text) | Source::Path(text) => text,
        }
    }

    /// The fixture field it came from: `url` or `path`.
    pub fn field(&self) -> &'static str {
        match self {
            Source::Url(_) => "url",
            Source::Path(_) => "path",
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
    /// Its url or its path.
    pub source: Source,
    /// `markdown` or `text`.
    pub format: Format,
    /// Not empty, not only whitespace.
    pub content: String,
    /// -1000..=1000, default 0.
    pub priority: i32,
    /// Taken first; packing fails if it does not fit.
    pub required: bool,
}

impl Document {
    /// The source as the payload shows it: `None` for a path equal to the
    /// id (the id already says it, SPEC §1.1), else the url or path.
    pub fn shown_source(&self) -> Option<&Source> {
        match &self.source {
            Source::Path(path) if *path == self.id => None,
            source => Some(source),
        }
    }
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
        return Err(Error::InputTooLarge { limit, size: None });
    }
    Ok(bytes)
}

/// Decodes raw input as UTF-8, dropping one leading byte-order mark.
/// UTF-16 text (which can look like valid UTF-8 when it is ASCII with NUL
/// bytes between) is named as such.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, Error> {
    if let Some(big_endian) = utf16(bytes) {
        return Err(Error::Utf16 { big_endian });
    }
    utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// Decodes raw input as UTF-8 exactly as given, or `invalid-utf8` with the
/// offset of the first bad byte.
pub fn utf8(bytes: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(bytes).map_err(|error| match utf16(bytes) {
        Some(big_endian) => Error::Utf16 { big_endian },
        None => Error::InvalidUtf8 {
            offset: error.valid_up_to(),
        },
    })
}

/// Whether `bytes` look like UTF-16 text: a UTF-16 byte-order mark, or
/// ASCII text with a NUL byte beside every character (as `{` and `"` are
/// at the start of a JSON object). `Some(true)` for big-endian.
fn utf16(bytes: &[u8]) -> Option<bool> {
    match bytes {
        [0xFF, 0xFE, ..] => return Some(false),
        [0xFE, 0xFF, ..] => return Some(true),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(64) & !1];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.chunks_exact(2);
    if pairs.clone().all(|pair| pair[1] == 0 && pair[0] != 0) {
        Some(false)
    } else if pairs.clone().all(|pair| pair[0] == 0 && pair[1] != 0) {
        Some(true)
    } else {
        None
    }
}

impl Fixture {
    /// Parses and validates a fixture from its raw bytes (already bounded by
    /// [`read_bounded`]). Every independent problem is reported (up to
    /// [`MAX_PROBLEMS`], then a count) as one [`Error::Problems`], each with
    /// its document index, schema field, line and column.
    pub fn from_bytes(bytes: &[u8], limits: &Limits) -> Result<Fixture, Error> {
        if bytes.len() as u64 > limits.max_input_bytes {
            return Err(Error::InputTooLarge {
                limit: limits.max_input_bytes,
                size: Some(bytes.len() as u64),
            });
        }
        let text = decode_utf8(bytes)?;
        let mut check = Check::default();
        let fixture = check.fixture(json::parse(text)?, limits);
        check.finish(text)?;
        Ok(fixture)
    }
}

impl Fixture {
    /// The fixture (no encoding, no budget) of `documents`, when each
    /// passes every check [`Fixture::from_bytes`] makes of a document (its
    /// index its position; a unique id with no control character; a valid
    /// path or url; content that is not only whitespace; a priority in
    /// range): the same fixture the documents' JSON reads as, without
    /// writing and parsing it. `None` when one does not: the JSON says
    /// which and where.
    pub fn from_documents(documents: Vec<Document>) -> Option<Fixture> {
        let mut ids: HashMap<&str, ()> = HashMap::with_capacity(documents.len());
        for (index, document) in documents.iter().enumerate() {
            let source = match &document.source {
                Source::Path(path) => check_path(path.clone()).is_ok(),
                Source::Url(url) => check_url(index, url.clone()).is_ok(),
            };
            let valid = document.index == index
                && !document.id.is_empty()
                && !document.id.chars().any(char::is_control)
                && ids.insert(&document.id, ()).is_none()
                && source
                && !document.content.chars().all(char::is_whitespace)
                && (-1000..=1000).contains(&document.priority);
            if !valid {
                return None;
            }
        }
        drop(ids);
        Some(Fixture {
            encoding: None,
            has_budget: false,
            budget: PartialBudget::default(),
            documents,
        })
    }
}

/// A problem found, and the way to it in the JSON tree: member and element
/// indices from the root, then whether the problem is the key (an unknown
/// field) or the value.
struct Found {
    error: Error,
    document: Option<usize>,
    field: Option<&'static str>,
    path: Vec<usize>,
    key: bool,
}

/// The problems of one fixture, gathered while it is read.
#[derive(Default)]
struct Check {
    found: Vec<Found>,
    more: usize,
}

impl Check {
    fn add(&mut self, found: Found) {
        if self.found.len() < MAX_PROBLEMS {
            self.found.push(found);
        } else {
            self.more += 1;
        }
    }

    fn at(
        &mut self,
        error: Error,
        document: Option<usize>,
        field: Option<&'static str>,
        path: &[usize],
    ) {
        self.add(Found {
            error,
            document,
            field,
            path: path.to_vec(),
            key: false,
        });
    }

    /// Every problem, with positions resolved in `text`, or nothing.
    fn finish(self, text: &str) -> Result<(), Error> {
        if self.found.is_empty() {
            return Ok(());
        }
        let root = Span::of(text);
        let problems = self
            .found
            .into_iter()
            .map(|found| {
                let offset = locate(&root, &found.path, found.key);
                Problem {
                    error: found.error,
                    document: found.document,
                    field: found.field,
                    at: offset.map(|offset| json::position_of(text, offset)),
                }
            })
            .collect();
        Err(Error::Problems {
            problems,
            more: self.more,
        })
    }

    /// Reads the fixture, recording every problem; what it returns is only
    /// meaningful when none was found.
    fn fixture(&mut self, root: Json, limits: &Limits) -> Fixture {
        let mut fixture = Fixture {
            encoding: None,
            has_budget: false,
            budget: PartialBudget::default(),
            documents: Vec::new(),
        };
        let Json::Object(fields) = root else {
            self.at(
                schema("the fixture", SchemaProblem::NotAnObject),
                None,
                None,
                &[],
            );
            return fixture;
        };
        let mut documents = None;
        for (member, (key, value)) in fields.into_iter().enumerate() {
            match key.as_str() {
                "encoding" => match value {
                    Json::String(name) => match name.parse() {
                        Ok(encoding) => fixture.encoding = Some(encoding),
                        Err(_) => self.at(UNKNOWN_ENCODING, None, Some("encoding"), &[member]),
                    },
                    _ => self.at(UNKNOWN_ENCODING, None, Some("encoding"), &[member]),
                },
                "budget" => {
                    fixture.has_budget = true;
                    fixture.budget = self.budget(value, member);
                }
                "documents" => documents = Some((member, value)),
                _ => self.add(Found {
                    error: schema(
                        "the fixture",
                        SchemaProblem::UnknownField {
                            allowed: &FIXTURE_FIELDS,
                        },
                    ),
                    document: None,
                    field: None,
                    path: vec![member],
                    key: true,
                }),
            }
        }
        let (member, items) = match documents {
            None => {
                let problem = SchemaProblem::MissingField { field: "documents" };
                self.at(schema("the fixture", problem), None, Some("documents"), &[]);
                return fixture;
            }
            Some((member, Json::Array(items))) => (member, items),
            Some((member, _)) => {
                let problem = SchemaProblem::WrongType {
                    expected: "an array of document objects",
                };
                self.at(
                    schema("documents", problem),
                    None,
                    Some("documents"),
                    &[member],
                );
                return fixture;
            }
        };
        if items.len() > limits.max_documents {
            let error = Error::TooManyDocuments {
                limit: limits.max_documents,
                count: items.len(),
            };
            self.at(error, None, Some("documents"), &[member]);
        }
        let mut first_with_id: HashMap<String, usize> = HashMap::new();
        fixture.documents = items
            .into_iter()
            .enumerate()
            .filter_map(|(index, value)| {
                self.document(index, value, &[member, index], &mut first_with_id)
            })
            .collect();
        fixture
    }

    fn budget(&mut self, value: Json, member: usize) -> PartialBudget {
        let mut budget = PartialBudget::default();
        let Json::Object(fields) = value else {
            let error = Error::InvalidBudget {
                field: "budget",
                problem: BudgetProblem::NotAnObject,
            };
            self.at(error, None, Some("budget"), &[member]);
            return budget;
        };
        for (inner, (key, value)) in fields.into_iter().enumerate() {
            let Some(field) = BUDGET_FIELDS.iter().position(|name| *name == key) else {
                self.add(Found {
                    error: schema(
                        "budget",
                        SchemaProblem::UnknownField {
                            allowed: &BUDGET_FIELDS,
                        },
                    ),
                    document: None,
                    field: Some("budget"),
                    path: vec![member, inner],
                    key: true,
                });
                continue;
            };
            match value.as_integer() {
                Some(n) if (0..=i128::from(MAX_BUDGET_VALUE)).contains(&n) => {
                    budget.set(field, n as u64);
                }
                _ => {
                    let error = Error::InvalidBudget {
                        field: BUDGET_FIELDS[field],
                        problem: BudgetProblem::NotAnInteger,
                    };
                    self.at(error, None, Some(BUDGET_PATHS[field]), &[member, inner]);
                }
            }
        }
        budget
    }

    fn document(
        &mut self,
        index: usize,
        value: Json,
        path: &[usize],
        first_with_id: &mut HashMap<String, usize>,
    ) -> Option<Document> {
        let Json::Object(entries) = value else {
            let error = schema(&format!("documents[{index}]"), SchemaProblem::NotAnObject);
            self.at(error, Some(index), None, path);
            return None;
        };
        let before = self.found.len() + self.more;
        let mut fields: [Option<(usize, Json)>; 8] = Default::default();
        for (member, (key, value)) in entries.into_iter().enumerate() {
            match DOCUMENT_FIELDS.iter().position(|name| *name == key) {
                Some(slot) => fields[slot] = Some((member, value)),
                None => self.add(Found {
                    error: schema(
                        &format!("documents[{index}]"),
                        SchemaProblem::UnknownField {
                            allowed: &DOCUMENT_FIELDS,
                        },
                    ),
                    document: Some(index),
                    field: None,
                    path: [path, &[member]].concat(),
                    key: true,
                }),
            }
        }
        let [
            id,
            url,
            path_field,
            format,
            content,
            truncated,
            priority,
            required,
        ] = fields;
        let here = |member: Option<usize>| -> Vec<usize> {
            match member {
                Some(member) => [path, &[member]].concat(),
                None => path.to_vec(),
            }
        };
        let problem = |check: &mut Check, error: Error, field: &'static str, member| {
            check.at(error, Some(index), Some(field), &here(member));
        };

        let id = match id {
            Some((m, Json::String(id))) => {
                let bad = if id.is_empty() {
                    Some(IdProblem::Empty)
                } else if id.chars().any(char::is_control) {
                    Some(IdProblem::ControlCharacter)
                } else {
                    None
                };
                if let Some(bad) = bad {
                    problem(
                        self,
                        Error::InvalidId {
                            index,
                            problem: bad,
                        },
                        "id",
                        Some(m),
                    );
                    None
                } else if let Some(&first) = first_with_id.get(&id) {
                    problem(self, Error::DuplicateId { index, first }, "id", Some(m));
                    None
                } else {
                    first_with_id.insert(id.clone(), index);
                    Some(id)
                }
            }
            Some((m, _)) => {
                let error = Error::InvalidId {
                    index,
                    problem: IdProblem::NotAString,
                };
                problem(self, error, "id", Some(m));
                None
            }
            None => {
                let error = Error::InvalidId {
                    index,
                    problem: IdProblem::Missing,
                };
                problem(self, error, "id", None);
                None
            }
        };
        let source = match (url, path_field) {
            (Some(_), Some((m, _))) => {
                let error = Error::InvalidPath {
                    index,
                    problem: PathProblem::WithUrl,
                };
                problem(self, error, "path", Some(m));
                None
            }
            (Some((m, Json::String(url))), None) => match check_url(index, url) {
                Ok(url) => Some(Source::Url(url)),
                Err(error) => {
                    problem(self, error, "url", Some(m));
                    None
                }
            },
            (Some((m, _)), None) => {
                let error = Error::InvalidUrl {
                    index,
                    problem: UrlProblem::NotAString,
                };
                problem(self, error, "url", Some(m));
                None
            }
            (None, Some((m, value))) => {
                let checked = match value {
                    Json::String(path) => check_path(path),
                    _ => Err(PathProblem::NotAString),
                };
                match checked {
                    Ok(path) => Some(Source::Path(path)),
                    Err(bad) => {
                        let error = Error::InvalidPath {
                            index,
                            problem: bad,
                        };
                        problem(self, error, "path", Some(m));
                        None
                    }
                }
            }
            (None, None) => {
                let error = Error::InvalidUrl {
                    index,
                    problem: UrlProblem::Missing,
                };
                problem(self, error, "url", None);
                None
            }
        };
        let format = match format {
            Some((_, Json::String(name))) if name == "markdown" => Some(Format::Markdown),
            Some((_, Json::String(name))) if name == "text" => Some(Format::Text),
            other => {
                let (shape, member) = match other {
                    None => (Shape::Missing, None),
                    Some((m, Json::String(_))) => (Shape::Invalid, Some(m)),
                    Some((m, _)) => (Shape::WrongType, Some(m)),
                };
                let error = Error::UnsupportedFormat { index, shape };
                problem(self, error, "format", member);
                None
            }
        };
        let content = match content {
            Some((_, Json::String(content))) if !content.chars().all(char::is_whitespace) => {
                Some(content)
            }
            other => {
                let (shape, member) = match other {
                    None => (Shape::Missing, None),
                    Some((m, Json::String(_))) => (Shape::Invalid, Some(m)),
                    Some((m, _)) => (Shape::WrongType, Some(m)),
                };
                problem(
                    self,
                    Error::BlankContent { index, shape },
                    "content",
                    member,
                );
                None
            }
        };
        match truncated {
            Some((_, Json::Bool(false))) => {}
            other => {
                let (shape, member) = match other {
                    None => (Shape::Missing, None),
                    Some((m, Json::Bool(true))) => (Shape::Invalid, Some(m)),
                    Some((m, _)) => (Shape::WrongType, Some(m)),
                };
                let error = Error::TruncatedDocument { index, shape };
                problem(self, error, "truncated", member);
            }
        }
        let priority = match priority {
            None => 0,
            Some((m, value)) => match value.as_integer() {
                Some(n) if (-1000..=1000).contains(&n) => n as i32,
                _ => {
                    let error = schema(
                        &format!("documents[{index}].priority"),
                        SchemaProblem::NotInRange {
                            min: -1000,
                            max: 1000,
                        },
                    );
                    problem(self, error, "priority", Some(m));
                    0
                }
            },
        };
        let required = match required {
            None => false,
            Some((_, Json::Bool(required))) => required,
            Some((m, _)) => {
                let error = schema(
                    &format!("documents[{index}].required"),
                    SchemaProblem::WrongType {
                        expected: "true or false",
                    },
                );
                problem(self, error, "required", Some(m));
                false
            }
        };
        if self.found.len() + self.more > before {
            return None;
        }
        Some(Document {
            index,
            id: id?,
            source: source?,
            format: format?,
            content: content?,
            priority,
            required,
        })
    }
}

/// The offset of the key or value at `path` (member and element indices
/// from the root), or of the deepest value that exists on the way.
fn locate(root: &Span, path: &[usize], key: bool) -> Option<usize> {
    let mut span = root;
    for (depth, &index) in path.iter().enumerate() {
        let Some((key_at, value)) = span.members.get(index) else {
            return Some(span.start);
        };
        if key && depth + 1 == path.len() {
            return Some(*key_at);
        }
        span = value;
    }
    Some(span.start)
}

fn schema(path: &str, problem: SchemaProblem) -> Error {
    Error::InvalidSchema {
        place: SchemaPlace::Path(path.to_owned()),
        problem,
    }
}

/// An `encoding` that is not one packer knows.
const UNKNOWN_ENCODING: Error = Error::UnknownEncoding {
    known: &Encoding::NAMES,
};

const FIXTURE_FIELDS: [&str; 3] = ["encoding", "budget", "documents"];

const BUDGET_PATHS: [&str; 4] = [
    "budget.contextTokens",
    "budget.reservedOtherInputTokens",
    "budget.reservedOutputTokens",
    "budget.safetyTokens",
];

/// The fields a document may have, in the order they are read.
pub const DOCUMENT_FIELDS: [&str; 8] = [
    "id",
    "url",
    "path",
    "format",
    "content",
    "truncated",
    "priority",
    "required",
];

/// A relative path with `/` between its parts (SPEC §1.1), kept exactly as
/// given: not empty, no whitespace at either end (so that a line the path
/// ends stays as the envelopes' counting argument needs), no control
/// character or backslash, not absolute, and no empty, `.` or `..` part
/// (the path `.` alone names the directory itself).
pub fn check_path(path: String) -> Result<String, PathProblem> {
    if path.is_empty()
        || path.starts_with(char::is_whitespace)
        || path.ends_with(char::is_whitespace)
        || path.chars().any(|c| c.is_control() || c == '\\')
    {
        return Err(PathProblem::Characters);
    }
    let drive = path.as_bytes().get(1) == Some(&b':') && path.as_bytes()[0].is_ascii_alphabetic();
    if path.starts_with('/') || drive {
        return Err(PathProblem::Absolute);
    }
    if path != "."
        && path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(PathProblem::NotNormal);
    }
    Ok(path)
}

/// An absolute `http`/`https` URL with a host and no credentials. The
/// string is kept exactly as given; whitespace and control characters,
/// which a URL parser would silently strip, are refused.
fn check_url(index: usize, url: String) -> Result<String, Error> {
    let invalid = |problem| Error::InvalidUrl { index, problem };
    if url.chars().any(char::is_whitespace) {
        return Err(invalid(UrlProblem::Whitespace));
    }
    if url.chars().any(char::is_control) {
        return Err(invalid(UrlProblem::ControlCharacter));
    }
    let parsed = url::Url::parse(&url).map_err(|error| {
        invalid(match error {
            url::ParseError::EmptyHost => UrlProblem::NoHost,
            _ => UrlProblem::NotAbsolute,
        })
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(UrlProblem::Scheme));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid(UrlProblem::NoHost));
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
            Err(Error::InputTooLarge { limit, size: None })
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
        let error = Fixture::from_bytes(text.as_bytes(), &limits).unwrap_err();
        assert_eq!(error.code(), "too-many-documents");
        assert!(
            error.to_string().starts_with(
                "the fixture has 2 documents, more than the limit of 1 at line 1 column 116;"
            ),
            "{error}"
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
        let (problems, _) = load(&text).unwrap_err().problems();
        assert_eq!(problems[0].error, Error::DuplicateId { index: 1, first: 0 });
        assert_eq!(
            (problems[0].document, problems[0].field),
            (Some(1), Some("id"))
        );
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

    /// `GOOD` with a `path` instead of its url.
    fn with_path(value: &str) -> String {
        with_field("url", None).replacen("{\"id\"", &format!("{{\"path\":{value},\"id\""), 1)
    }

    #[test]
    fn accepts_a_relative_path_instead_of_a_url() {
        for path in [
            "a",
            "src/lib.rs",
            "x y/é 🙂.md",
            ".",
            ".github/workflows/ci.yml",
            "a..b/c.",
        ] {
            let text = with_path(&serde_json::to_string(path).unwrap());
            let fixture = load(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(fixture.documents[0].source, Source::Path(path.into()));
        }
        // Shown unless it is the id.
        let fixture = load(&with_path(r#""a""#)).unwrap();
        assert_eq!(fixture.documents[0].shown_source(), None);
        let fixture = load(&with_path(r#""docs/a.md""#)).unwrap();
        assert_eq!(
            fixture.documents[0].shown_source(),
            Some(&Source::Path("docs/a.md".into()))
        );
    }

    #[test]
    fn refuses_paths_that_are_not_plain_relative_paths() {
        for (value, problem) in [
            (r#""""#, PathProblem::Characters),
            (r#"" a""#, PathProblem::Characters),
            (r#""a ""#, PathProblem::Characters),
            (r#""a\tb""#, PathProblem::Characters),
            (r#""a\\b""#, PathProblem::Characters),
            (r#""/etc/passwd""#, PathProblem::Absolute),
            (r#""C:/x""#, PathProblem::Absolute),
            (r#""a//b""#, PathProblem::NotNormal),
            (r#""a/""#, PathProblem::NotNormal),
            (r#""./a""#, PathProblem::NotNormal),
            (r#""a/../../b""#, PathProblem::NotNormal),
            (r#""..""#, PathProblem::NotNormal),
            ("7", PathProblem::NotAString),
        ] {
            let error = load(&with_path(value)).unwrap_err();
            assert_eq!(error.code(), "invalid-path", "{value}");
            assert_eq!(
                error.problems().0[0].error,
                Error::InvalidPath { index: 0, problem },
                "{value}"
            );
            // The message never echoes the path.
            assert!(!error.to_string().contains("passwd"), "{error}");
        }
        // Both a url and a path, or neither.
        let both = with_field("path", Some(r#""a""#));
        assert_eq!(
            load(&both).unwrap_err().problems().0[0].error,
            Error::InvalidPath {
                index: 0,
                problem: PathProblem::WithUrl
            }
        );
        let neither = load(&with_field("url", None)).unwrap_err();
        assert_eq!(neither.code(), "invalid-url");
        assert!(neither.to_string().contains("'path'"), "{neither}");
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
        assert_eq!(fixture.documents[0].source.as_str(), "HTTPS://Example.COM");
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
