//! The three tools as wire types: their names, descriptions and JSON
//! Schemas, and the reading of a call's arguments into the library's
//! request types.
//!
//! Each schema property is read by exactly one line below, and every
//! argument not in the schema is refused, so a model that follows the schema
//! is never surprised and one that does not learns which field is wrong.
//! Messages name fields and limits; they never repeat argument values.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use packer::budget::MAX_BUDGET_VALUE;
use packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX;
use packer::{Encoding, Envelope, Policy, RequestNames};
use packer_collect::{self as collect, CollectOptions, TreeOption};

use super::ToolError;
use super::jsonrpc::{RawArguments, in_request};

/// `pack_directory`.
pub const PACK_DIRECTORY: &str = "pack_directory";
/// `pack_documents`.
pub const PACK_DOCUMENTS: &str = "pack_documents";
/// `count_tokens`.
pub const COUNT_TOKENS: &str = "count_tokens";

/// The arguments each tool takes, in schema order.
pub const PACK_DIRECTORY_ARGUMENTS: &[&str] = &[
    "path",
    "budget",
    "encoding",
    "model",
    "tokenizer",
    "policy",
    "envelope",
    "globs",
    "files",
    "priorities",
    "gitOrder",
    "tree",
    "noteOmissions",
    "noteOmissionsMax",
    "excerptQuery",
    "query",
    "outline",
    "outlineShare",
    "baseUrl",
    "windows",
    "window",
    "request",
    "chatTemplate",
    "chatFormat",
];
/// The arguments of `pack_documents`.
pub const PACK_DOCUMENTS_ARGUMENTS: &[&str] = &[
    "documents",
    "budget",
    "encoding",
    "model",
    "tokenizer",
    "policy",
    "envelope",
    "noteOmissions",
    "noteOmissionsMax",
    "excerptQuery",
    "query",
    "windows",
    "window",
    "outline",
    "outlineShare",
    "request",
    "chatTemplate",
    "chatFormat",
];
/// The arguments of `count_tokens`.
pub const COUNT_TOKENS_ARGUMENTS: &[&str] = &["text", "encoding", "model", "tokenizer"];

const PACK_DIRECTORY_DESCRIPTION: &str = "\
Pack the text files under a directory into one payload that fits `budget` tokens, \
counted exactly with the model's tokenizer. Files go in whole or not at all (never cut); \
those that do not fit are skipped, and with noteOmissions=true the payload itself lists them. \
Files in .gitignore/.ignore, hidden files and .git/ are left out, as are files that \
contain a secret (API keys, private keys, tokens), binary files, files over 1 MiB and files \
that are not UTF-8. Document ids are paths relative to `path`. A packer.toml at the top of \
`path` fills the settings the arguments do not give. \
Returns the payload as text, and a summary: usedTokens (always <= availableTokens = budget), \
selectedIds, skipped ids with reasons. With `request`, the whole chat request it goes into must \
fit instead, and the text returned is that request, rendered. On failure returns an error \
`error[CODE]: message`.";

const PACK_DOCUMENTS_DESCRIPTION: &str = "\
Pack documents given inline into one payload that fits `budget` tokens, counted exactly \
with the model's tokenizer. Documents go in whole or not at all (never cut), tried in input \
order unless `policy` says otherwise; those that do not fit are skipped. Every document is \
validated as in a packer fixture; a bad one fails the call with `error[CODE]: message` \
naming its index. Returns the payload as text and a summary: usedTokens (always <= \
availableTokens = budget), selectedIds, skipped ids with reasons. With `request`, the whole \
chat request it goes into must fit instead, and the text returned is that request, rendered.";

const COUNT_TOKENS_DESCRIPTION: &str = "\
Count the tokens of `text` exactly with a tiktoken encoding (default cl100k_base), a \
model's encoding or a tokenizer file, as ordinary text (text that looks like a special token \
such as <|endoftext|> counts as plain text). Returns the number.";

/// The tool list; `roots` are named in `pack_directory`'s `path`.
pub fn list(roots: &[std::path::PathBuf], structured: bool) -> Vec<rmcp::model::Tool> {
    use rmcp::model::{Tool, ToolAnnotations};
    let read_only = || {
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false)
    };
    let with_output = |tool: Tool, schema: Value| {
        if structured {
            tool.with_raw_output_schema(Arc::new(object(schema)))
        } else {
            tool
        }
    };
    vec![
        with_output(
            Tool::new(
                PACK_DIRECTORY,
                PACK_DIRECTORY_DESCRIPTION,
                Arc::new(object(pack_directory_schema(roots))),
            )
            .with_title("Pack a directory under a token budget")
            .with_annotations(read_only()),
            pack_summary_schema(true),
        ),
        with_output(
            Tool::new(
                PACK_DOCUMENTS,
                PACK_DOCUMENTS_DESCRIPTION,
                Arc::new(object(pack_documents_schema())),
            )
            .with_title("Pack documents under a token budget")
            .with_annotations(read_only()),
            pack_summary_schema(false),
        ),
        with_output(
            Tool::new(
                COUNT_TOKENS,
                COUNT_TOKENS_DESCRIPTION,
                Arc::new(object(count_tokens_schema())),
            )
            .with_title("Count tokens exactly")
            .with_annotations(read_only()),
            count_summary_schema(),
        ),
    ]
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

fn encoding_properties() -> (Value, Value) {
    let names: Vec<&str> = Encoding::ALL.iter().map(|e| e.name()).collect();
    (
        json!({
            "type": "string",
            "enum": names,
            "description": "The tiktoken encoding to count with (default cl100k_base). \
                            Give encoding or model, not both."
        }),
        json!({
            "type": "string",
            "description": "Count with the encoding of this model instead, e.g. gpt-4o \
                            (o200k_base) or gpt-4 (cl100k_base). Give encoding or model, not both."
        }),
    )
}

fn tokenizer_property() -> Value {
    json!({
        "type": "string",
        "description": "Count with this tokenizer file instead (a Hugging Face tokenizer.json \
                        with a BPE, WordPiece or Unigram model, or a Mistral tekken.json), e.g. the one \
                        beside a local model's weights; absolute or relative to the first root, \
                        and inside an allowed root. Give at most one of encoding, model, tokenizer."
    })
}

/// The default layout of a payload packed from documents (JSON, as
/// `packer pack` on a fixture) and from a directory (Markdown, as
/// `packer pack --dir`).
pub const DOCUMENTS_ENVELOPE: Envelope = Envelope::Json;
/// See [`DOCUMENTS_ENVELOPE`].
pub const DIRECTORY_ENVELOPE: Envelope = Envelope::Markdown;

fn pack_properties(default_envelope: Envelope) -> Map<String, Value> {
    let (encoding, model) = encoding_properties();
    object(json!({
        "budget": {
            "type": "integer",
            "minimum": 0,
            "maximum": MAX_BUDGET_VALUE,
            "description": "The most tokens the returned payload may use; it is counted exactly \
                            and never exceeded. Keep it under the client's limit on tool results \
                            (Claude Code: 25000 tokens unless MAX_MCP_OUTPUT_TOKENS is raised)."
        },
        "encoding": encoding,
        "model": model,
        "tokenizer": tokenizer_property(),
        "policy": {
            "type": "string",
            "enum": Policy::names(),
            "default": Policy::default().name(),
            "description": "in-order: try documents in order, keep each that fits. priority: \
                            highest `priority` first, then smaller documents. max-fill: the \
                            choice of whole documents that fills the budget most."
        },
        "noteOmissions": {
            "type": "boolean",
            "default": false,
            "description": "List the documents left out (id, url, reason) inside the payload; \
                            the list counts against the budget."
        },
        "noteOmissionsMax": {
            "type": "integer",
            "minimum": 0,
            "default": DEFAULT_NOTE_OMISSIONS_MAX,
            "description": "With noteOmissions: list at most this many left-out documents, then \
                            only how many more were left out."
        },
        "envelope": {
            "type": "string",
            "enum": Envelope::names(),
            "default": default_envelope.name(),
            "description": "The payload's layout. json: {\"documents\":[...]}. xml: \
                            <document index id><source>url</source><document_content>; \
                            markdown: a heading and a fenced block per document. xml and \
                            markdown escape nothing, so they fit more text in the same budget."
        },
        "excerptQuery": {
            "type": "string",
            "description": "When a whole document does not fit, try a labelled excerpt of its \
                            lines around these terms (split on spaces and commas)."
        },
        "query": {
            "type": "string",
            "description": "What the pack is for: the task, an issue to fix or a question, in \
                            words. Documents are then tried in their relevance to it (the most \
                            relevant whole, the next as outlines or excerpts), and each decision \
                            says its rank and why."
        },
        "windows": {
            "type": "boolean",
            "default": false,
            "description": "Put every document into as few windows of `budget` tokens as \
                            possible (for map-reduce over more than one context), each a \
                            complete payload that names its place (window 2 of 5). The call \
                            returns one window's payload (see `window`) and the summary says \
                            windowCount: call again with window=2, 3, ... for the others \
                            (the same arguments always give the same windows)."
        },
        "window": {
            "type": "integer",
            "minimum": 1,
            "default": 1,
            "description": "With windows: which window's payload to return (1-based)."
        },
        "outline": {
            "type": "boolean",
            "default": false,
            "description": "Send source files that do not fit whole as outlines: their imports, \
                            declarations, signatures and doc lines, whole lines from a parse, \
                            each elided run marked with ⋮ and its line count (Rust, Python, \
                            JavaScript, TypeScript, Go, Java, C, C++; by the id's extension)."
        },
        "outlineShare": {
            "type": "integer",
            "minimum": 0,
            "maximum": 100,
            "default": packer::pack::DEFAULT_OUTLINE_SHARE_PERCENT,
            "description": "With outline: the percentage of the budget whole files fill before \
                            the rest go in as outlines (then outlines become whole files while \
                            room remains)."
        },
        "request": request_property(),
        "chatTemplate": {
            "type": "string",
            "description": "With request: the chat template to render it with, a Jinja file or \
                            a tokenizer_config.json (default: the chat_template.jinja or \
                            tokenizer_config.json beside the tokenizer file); absolute or \
                            relative to the first root, and inside an allowed root."
        },
        "chatFormat": {
            "type": "string",
            "enum": packer::chat::ChatFormat::names(),
            "default": "template",
            "description": "With request: how it is written. template: with its chat \
                            template, as transformers renders it; harmony: gpt-oss's harmony \
                            format as vLLM renders it with openai-harmony (encoding \
                            o200k_harmony, no chatTemplate)."
        }
    }))
}

/// `request`: the conversation the payload goes into (SPEC §2.4), an
/// object as a `--request` file holds it.
fn request_property() -> Value {
    json!({
        "type": "object",
        "description": format!(
            "Count the whole chat request instead of the payload alone: the conversation the \
             payload goes into, with {placeholder} in exactly one message's content where the \
             payload goes. It is rendered as the model's server renders it (the chat template \
             of the tokenizer file, or gpt-oss's harmony format with encoding o200k_harmony; \
             other encodings are refused, since their framing is not published) and the whole \
             rendered request, counted exactly, must fit `budget`. The call then returns the \
             rendered request as its text; the summary adds requestTokens and otherInputTokens \
             (the request with an empty payload). Not with windows.",
            placeholder = packer::chat::PLACEHOLDER
        ),
        "properties": {
            "messages": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "role": {"type": "string"},
                        "content": {"description": "The message's text (or whatever the chat template takes)."}
                    },
                    "required": ["role"]
                }
            },
            "tools": {
                "type": "array",
                "description": "Tool definitions (JSON Schema functions) as chat templates take them."
            },
            "addGenerationPrompt": {"type": "boolean", "default": true},
            "templateArguments": {
                "type": "object",
                "description": "More variables for the chat template (e.g. reasoning_effort, enable_thinking)."
            }
        },
        "required": ["messages"],
        "additionalProperties": false
    })
}

fn pack_directory_schema(roots: &[std::path::PathBuf]) -> Value {
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let mut properties = object(json!({
        "path": {
            "type": "string",
            "description": format!(
                "The directory to pack: absolute, or relative to {}. It must lie inside an \
                 allowed root ({}); paths outside, `..` escapes and links leading out are refused.",
                roots[0],
                roots.join(", ")
            )
        }
    }));
    properties.extend(pack_properties(DIRECTORY_ENVELOPE));
    properties.insert(
        "globs".into(),
        json!({
            "type": "array",
            "items": {"type": "string"},
            "description": "Only files matching one of these globs (gitignore syntax, relative \
                            to path, e.g. \"src/**/*.rs\", \"*.md\"); a glob starting with ! \
                            excludes. All files when absent."
        }),
    );
    properties.insert(
        "files".into(),
        json!({
            "type": "array",
            "items": {"type": "string"},
            "description": "Pack exactly these files (paths relative to path) instead of \
                            walking it; ignored, hidden, secret-bearing and binary files stay out all the same."
        }),
    );
    properties.insert(
        "priorities".into(),
        json!({
            "type": "array",
            "items": {"type": "string", "pattern": "^[^!].*=\\s*-?[0-9]+\\s*$"},
            "description": "Rules GLOB=N (N from -1000 to 1000) setting the priority of matching \
                            files, e.g. [\"src/**=10\", \"**/*test*=-5\"]; the last matching \
                            rule wins, other files get 0. Use with policy=priority."
        }),
    );
    properties.insert(
        "gitOrder".into(),
        json!({
            "type": "boolean",
            "default": false,
            "description": "Within equal priority, put files changed most recently in Git first."
        }),
    );
    properties.insert(
        "tree".into(),
        json!({
            "type": ["string", "boolean"],
            "enum": ["required", "optional", true, false],
            "description": "Add a document listing the directory tree of the collected files: \
                            required (taken first; the call fails if it does not fit; true is \
                            the same, as the command line's --tree) or optional; false adds none."
        }),
    );
    properties.insert(
        "baseUrl".into(),
        json!({
            "type": "string",
            "description": "The http(s) URL each file's relative path is joined to for its \
                 document url (default: the Git remote's web address at the current commit; \
                 without one, each document carries its relative path and no url)."
        }),
    );
    input_schema(properties, &["path", "budget"])
}

fn pack_documents_schema() -> Value {
    let mut properties = object(json!({
        "documents": {
            "type": "array",
            "description": "The documents, in input order (at most the server's \
                            --max-documents). Ids must be unique.",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "minLength": 1,
                           "description": "Unique id, no control characters."},
                    "url": {"type": "string",
                            "description": "Where the document came from: an absolute http or \
                                            https URL with a host and no user name or password. \
                                            Give url or path, not both."},
                    "path": {"type": "string",
                             "description": "For a file instead of a web page: its path relative \
                                             to the directory it came from, with / between parts \
                                             (no leading /, no . or .. parts). A path equal to \
                                             the id is not repeated in the payload."},
                    "format": {"type": "string", "enum": ["markdown", "text"]},
                    "content": {"type": "string",
                                "description": "The whole text; not empty or only whitespace."},
                    "truncated": {"type": "boolean", "const": false,
                                  "description": "Must be false: the content is complete."},
                    "priority": {"type": "integer", "minimum": -1000, "maximum": 1000,
                                 "default": 0,
                                 "description": "Used by policy=priority; higher goes first."},
                    "required": {"type": "boolean", "default": false,
                                 "description": "Taken first; the call fails if it does not fit."}
                },
                "required": ["id", "format", "content", "truncated"],
                "additionalProperties": false
            }
        }
    }));
    properties.extend(pack_properties(DOCUMENTS_ENVELOPE));
    input_schema(properties, &["documents", "budget"])
}

fn count_tokens_schema() -> Value {
    let (encoding, model) = encoding_properties();
    let properties = object(json!({
        "text": {"type": "string", "description": "The text to count."},
        "encoding": encoding,
        "model": model,
        "tokenizer": tokenizer_property()
    }));
    input_schema(properties, &["text"])
}

/// A tool's input schema: an object of `properties`, `required` among
/// them, and nothing else.
fn input_schema(properties: Map<String, Value>, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

fn pack_summary_schema(directory: bool) -> Value {
    let mut properties = object(json!({
        "encoding": {"type": "string", "description": "The encoding counted with, or tokenizer:FILE-NAME."},
        "tokenizerSha256": {"type": "string", "description": "With a tokenizer file: its SHA-256."},
        "policy": {"type": "string"},
        "envelope": {"type": "string", "enum": Envelope::names()},
        "optimal": {"type": "boolean", "description": "max-fill: proven the fullest choice. With windows: windowCount proven the fewest."},
        "window": {"type": "integer", "description": "With windows: the window returned; usedTokens and selectedIds are its own."},
        "windowCount": {"type": "integer", "description": "With windows: how many windows hold the documents."},
        "windows": {
            "type": "array",
            "description": "With windows: every window's number, usedTokens and number of documents.",
            "items": {
                "type": "object",
                "properties": {
                    "index": {"type": "integer"},
                    "usedTokens": {"type": "integer"},
                    "documents": {"type": "integer"}
                },
                "required": ["index", "usedTokens", "documents"]
            }
        },
        "availableTokens": {"type": "integer"},
        "usedTokens": {"type": "integer", "description": "The exact count of the payload text."},
        "selectedIds": {"type": "array", "items": {"type": "string"}},
        "excerptIds": {"type": "array", "items": {"type": "string"}},
        "outlineIds": {"type": "array", "items": {"type": "string"}, "description": "With outline: the ids sent as outlines."},
        "skipped": {
            "type": "array",
            "description": "Skipped documents in the order tried (at most 50).",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "reason": {"type": "string"},
                    "neededTokens": {"type": "integer"},
                    "freeTokens": {"type": "integer"}
                },
                "required": ["id", "reason", "neededTokens", "freeTokens"]
            }
        },
        "skippedMore": {"type": "integer", "description": "Skipped documents not listed."},
        "requestTokens": {"type": "integer", "description": "With request: the exact count of the whole rendered request (the text returned), at most availableTokens."},
        "otherInputTokens": {"type": "integer", "description": "With request: the exact count of the request rendered with an empty payload."}
    }));
    let mut required = vec![
        "encoding",
        "policy",
        "envelope",
        "availableTokens",
        "usedTokens",
        "selectedIds",
        "skipped",
    ];
    if directory {
        properties.insert(
            "files".into(),
            json!({
                "type": "object",
                "description": "Files under path that did not become documents, and documents placed last (at most 50 of each listed).",
                "properties": {
                    "documents": {"type": "integer"},
                    "notDocuments": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": {"type": "string"},
                                "reason": {"type": "string", "description": "binary, too-large, not-utf8, blank, contains-secret, ..."},
                                "rule": {"type": "string", "description": "contains-secret: the rule that matched."}
                            },
                            "required": ["path", "reason"]
                        }
                    },
                    "notDocumentsMore": {"type": "integer"},
                    "placedLast": {
                        "type": "array",
                        "description": "Low-value documents put after the others (at most 50 listed).",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": {"type": "string"},
                                "rule": {"type": "string", "description": "licence, changelog, lock file, *.orig, minified, generated or vendored."}
                            },
                            "required": ["path", "rule"]
                        }
                    },
                    "placedLastMore": {"type": "integer"}
                },
                "required": ["documents", "notDocuments"]
            }),
        );
        required.push("files");
    }
    json!({"type": "object", "properties": properties, "required": required})
}

fn count_summary_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"encoding": {"type": "string"}, "tokens": {"type": "integer"}},
        "required": ["encoding", "tokens"]
    })
}

/// A call's arguments, read field by field.
///
/// They are read from the JSON text the client sent, with the strict
/// reader that reads fixtures ([`packer::json::check`]): a key twice in one
/// object, an unpaired surrogate escape or nesting deeper than 128 levels
/// is refused with the command line's code and message, its line and
/// column those of the request line.
pub struct Arguments<'a> {
    /// Every argument but `documents`, parsed.
    map: Map<String, Value>,
    /// Every argument as the client wrote it, and where it starts in the
    /// request line.
    raw: Vec<(String, &'a str, usize)>,
}

impl<'a> Arguments<'a> {
    /// Reads `arguments` and checks that every argument is one the tool
    /// takes.
    pub fn new(arguments: &'a RawArguments, allowed: &[&str]) -> Result<Arguments<'a>, ToolError> {
        let text = arguments.text();
        let offset = arguments.offset();
        packer::json::check(text).map_err(|error| ToolError::Packer(moved(error, offset)))?;
        // No key appears twice (checked above), so a map loses nothing.
        let members = serde_json::from_str::<BTreeMap<String, &RawValue>>(text)
            .map_err(|_| ToolError::Usage("the arguments must be an object".into()))?;
        if members
            .iter()
            .any(|(key, _)| !allowed.contains(&key.as_str()))
        {
            return Err(ToolError::Usage(format!(
                "the arguments have a field this tool does not take; allowed: {}",
                allowed.join(", ")
            )));
        }
        let mut map = Map::new();
        let mut raw = Vec::with_capacity(members.len());
        for (key, value) in members {
            let value = value.get();
            if key != "documents" {
                map.insert(
                    key.clone(),
                    serde_json::from_str(value).map_err(|_| ToolError::Internal)?,
                );
            }
            // The value borrows from `text`: its place is its address's
            // distance from the text's.
            let at = (value.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            raw.push((key, value, offset + at));
        }
        Ok(Arguments { map, raw })
    }

    /// The raw value of `name`, if given (`null` counts as absent).
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    /// A required argument.
    pub fn required(&self, name: &str) -> Result<&Value, ToolError> {
        self.value(name)
            .ok_or_else(|| ToolError::Usage(format!("the argument '{name}' is missing")))
    }

    /// `name`'s JSON text as the client wrote it, and the byte offset where
    /// it starts in the request line, if given (`null` counts as absent).
    pub fn raw(&self, name: &str) -> Option<(&'a str, usize)> {
        self.raw
            .iter()
            .find(|(key, text, _)| key == name && *text != "null")
            .map(|&(_, text, at)| (text, at))
    }

    /// A string argument.
    pub fn string(&self, name: &str) -> Result<Option<&str>, ToolError> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(wrong_type(name, "a string")),
        }
    }

    /// `request`: the object as the client wrote it (JSON text), if given.
    pub fn chat_request(&self) -> Result<Option<&'a str>, ToolError> {
        match self.value("request") {
            None => Ok(None),
            Some(Value::Object(_)) => Ok(self.raw("request").map(|(text, _)| text)),
            Some(_) => Err(wrong_type(
                "request",
                "an object {\"messages\": [...]} (the request itself, not a path)",
            )),
        }
    }

    /// A boolean argument, `false` when absent.
    pub fn flag(&self, name: &str) -> Result<bool, ToolError> {
        match self.value(name) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(wrong_type(name, "true or false")),
        }
    }

    /// A list of strings, empty when absent.
    pub fn strings(&self, name: &str) -> Result<Vec<String>, ToolError> {
        match self.value(name) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    _ => Err(wrong_type(name, "an array of strings")),
                })
                .collect(),
            Some(_) => Err(wrong_type(name, "an array of strings")),
        }
    }

    /// `budget`: a whole number of tokens from 0 to 2^53-1 (`256.0` and
    /// `1e3` are whole numbers too, as in a fixture).
    pub fn budget(&self) -> Result<u64, ToolError> {
        let value = self.required("budget")?;
        let whole = value.as_u64().or_else(|| {
            value
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_BUDGET_VALUE as f64)
                .map(|f| f as u64)
        });
        match whole {
            Some(n) if n <= MAX_BUDGET_VALUE => Ok(n),
            _ => Err(ToolError::Usage(format!(
                "the argument 'budget' must be a whole number from 0 to {MAX_BUDGET_VALUE}"
            ))),
        }
    }

    /// `tokenizer` (whether it is given), `encoding` and `model`, by name:
    /// what `count_tokens` counts with.
    pub fn counter_names(&self) -> Result<RequestNames, ToolError> {
        Ok(RequestNames {
            tokenizer: self.string("tokenizer")?.is_some(),
            encoding: self.string("encoding")?.map(str::to_owned),
            model: self.string("model")?.map(str::to_owned),
            ..RequestNames::default()
        })
    }

    /// A pack tool's settings by name, for the library to build the
    /// request from: the counter, `budget` as the whole budget (all of it
    /// the payload's), `policy`, `envelope` (`default_envelope` when not
    /// given), `noteOmissions`, `noteOmissionsMax` (which counts only with
    /// `noteOmissions`), `excerptQuery`, `outline` and `outlineShare`.
    pub fn request_names(&self, default_envelope: Envelope) -> Result<RequestNames, ToolError> {
        let counter = self.counter_names()?;
        let budget = self.budget()?;
        let policy = self.string("policy")?.map(str::to_owned);
        let note_omissions = self.flag("noteOmissions")?;
        let note_omissions_max = match self.value("noteOmissionsMax") {
            None => None,
            Some(value) => Some(
                value
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| wrong_type("noteOmissionsMax", "a whole number from 0"))?,
            ),
        };
        Ok(RequestNames {
            budget: Some(budget),
            policy,
            envelope: self.string("envelope")?.map(str::to_owned),
            default_envelope,
            note_omissions,
            note_omissions_max: note_omissions_max.filter(|_| note_omissions),
            excerpt_query: self.string("excerptQuery")?.map(str::to_owned),
            query: self.string("query")?.map(str::to_owned),
            windows: self.flag("windows")?,
            outline: self.flag("outline")?,
            outline_share: match self.value("outlineShare") {
                None => None,
                Some(value) => {
                    Some(value.as_u64().ok_or_else(|| {
                        wrong_type("outlineShare", "a whole number from 0 to 100")
                    })?)
                }
            },
            ..counter
        })
    }

    /// `window`: with `windows`, the 1-based window to return (default 1);
    /// refused without `windows`.
    pub fn window(&self) -> Result<Option<usize>, ToolError> {
        let windows = self.flag("windows")?;
        match self.value("window") {
            None => Ok(windows.then_some(1)),
            Some(_) if !windows => Err(ToolError::Usage(
                "the argument 'window' needs the argument 'windows' to be true".into(),
            )),
            Some(value) => value
                .as_u64()
                .filter(|&n| n >= 1)
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| wrong_type("window", "a whole number from 1")),
        }
    }
}

impl Arguments<'_> {
    /// `pack_directory`'s collecting arguments as collect's options. What
    /// the client cannot change are collect's defaults: hidden files,
    /// ignored files and files with secrets stay out, and the size limits
    /// are the command line's.
    pub fn collect_options(&self) -> Result<CollectOptions, ToolError> {
        let base_url = match self.string("baseUrl")? {
            None => None,
            Some(url) => Some(collect::base_url(url).map_err(|_| {
                ToolError::Usage(
                    "the argument 'baseUrl' must be an absolute http or https URL with a host \
                     and no credentials"
                        .into(),
                )
            })?),
        };
        let priorities =
            collect::priority_rules(&self.strings("priorities")?).map_err(|problem| {
                ToolError::Usage(format!(
                    "an entry of the argument 'priorities' is not a rule: {}",
                    problem.message(&crate::ToolArguments)
                ))
            })?;
        let wrong = || {
            ToolError::Usage(format!(
                "the argument 'tree' must be {}, true or false",
                TreeOption::NAMES.join(", ")
            ))
        };
        let tree = match self.value("tree") {
            None | Some(Value::Bool(false)) => TreeOption::None,
            Some(Value::Bool(true)) => TreeOption::Required,
            Some(Value::String(name)) => TreeOption::from_name(name).ok_or_else(wrong)?,
            Some(_) => return Err(wrong()),
        };
        let files = self.strings("files")?;
        Ok(CollectOptions {
            base_url,
            globs: self.strings("globs")?,
            priorities,
            git_order: self.flag("gitOrder")?,
            files_from: self.value("files").is_some().then_some(files),
            tree,
            ..CollectOptions::default()
        })
    }
}

/// `error` with its line and column counted in the request line, for a
/// text that starts `offset` bytes into it (and on its first line, as every
/// text a request line holds does).
pub fn moved(error: packer::Error, offset: usize) -> packer::Error {
    in_request(error, |at| {
        if at.line == 1 {
            packer::error::Position {
                line: 1,
                column: at.column + offset,
            }
        } else {
            at
        }
    })
}

fn wrong_type(name: &str, what: &str) -> ToolError {
    ToolError::Usage(format!("the argument '{name}' must be {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn properties(tool: &rmcp::model::Tool) -> Vec<String> {
        tool.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }

    #[test]
    fn every_schema_property_is_an_argument_the_tool_reads_and_no_other() {
        let tools = list(&[std::path::PathBuf::from("/r")], true);
        for (tool, allowed) in tools.iter().zip([
            PACK_DIRECTORY_ARGUMENTS,
            PACK_DOCUMENTS_ARGUMENTS,
            COUNT_TOKENS_ARGUMENTS,
        ]) {
            let mut expected: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
            expected.sort();
            let mut got = properties(tool);
            got.sort();
            assert_eq!(got, expected, "{}", tool.name);
            assert_eq!(tool.input_schema["additionalProperties"], json!(false));
            for required in tool.input_schema["required"].as_array().unwrap() {
                assert!(allowed.contains(&required.as_str().unwrap()));
            }
        }
    }

    #[test]
    fn the_document_schema_names_the_fixture_fields() {
        let schema = pack_documents_schema();
        let item = &schema["properties"]["documents"]["items"];
        let mut fields: Vec<&String> = item["properties"].as_object().unwrap().keys().collect();
        fields.sort();
        let mut expected = packer::fixture::DOCUMENT_FIELDS.to_vec();
        expected.sort_unstable();
        assert_eq!(fields, expected);
    }

    fn args(value: Value) -> RawArguments {
        RawArguments::new(value.to_string())
    }

    #[test]
    fn arguments_are_read_and_bad_ones_refused_without_echoing_them() {
        let map = args(
            json!({"budget": 1e3, "model": "gpt-4o", "policy": "max-fill",
                              "noteOmissions": true, "excerptQuery": "limits"}),
        );
        let a = Arguments::new(&map, PACK_DOCUMENTS_ARGUMENTS).unwrap();
        assert_eq!(a.budget().unwrap(), 1000);
        let request = super::super::build(&a, DOCUMENTS_ENVELOPE).unwrap();
        assert_eq!(request.encoding, Some(Encoding::O200kBase));
        assert_eq!(request.budget.context_tokens, Some(1000));
        assert_eq!(request.budget.safety_tokens, Some(0));
        let options = request.options;
        assert_eq!(options.policy, Policy::MaxFill);
        assert!(options.note_omissions);
        assert_eq!(options.excerpt.unwrap().query, "limits");

        let map = args(json!({"secret-key": 1}));
        let error = Arguments::new(&map, COUNT_TOKENS_ARGUMENTS).err().unwrap();
        assert!(!error.message().contains("secret"));
        assert_eq!(error.code(), "usage");

        for (bad, field) in [
            (json!({"budget": -1}), "budget"),
            (json!({"budget": 2.5}), "budget"),
            (json!({"budget": "9"}), "budget"),
            (json!({"budget": 9007199254740992u64}), "budget"),
            (json!({"budget": 1, "policy": "sneaky-value"}), "policy"),
            (json!({"budget": 1, "encoding": "sneaky-value"}), "encoding"),
            (
                json!({"budget": 1, "encoding": "gpt2", "model": "gpt-4"}),
                "encoding",
            ),
            (
                json!({"budget": 1, "noteOmissions": "yes"}),
                "noteOmissions",
            ),
        ] {
            let map = args(bad.clone());
            let a = Arguments::new(&map, PACK_DOCUMENTS_ARGUMENTS).unwrap();
            let error = super::super::build(&a, DOCUMENTS_ENVELOPE)
                .err()
                .unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(
                error.message().contains(field),
                "{bad}: {}",
                error.message()
            );
            assert!(!error.message().contains("sneaky"), "{bad}");
        }
        // The library's refusals, in the argument names of the tools.
        for (bad, message) in [
            (
                json!({"budget": 1, "policy": "random"}),
                "the argument 'policy' must be one of in-order, priority, max-fill",
            ),
            (
                json!({"budget": 1, "envelope": "yaml"}),
                "the argument 'envelope' must be one of json, xml, markdown",
            ),
            (
                json!({"budget": 1, "encoding": "gpt2", "model": "gpt-4"}),
                "give the argument 'encoding' or 'model', not both",
            ),
            (
                json!({"budget": 1, "model": "gpt-4", "tokenizer": "t.json"}),
                "give at most one of the arguments 'encoding', 'model' and 'tokenizer'",
            ),
        ] {
            let map = args(bad.clone());
            let a = Arguments::new(&map, PACK_DOCUMENTS_ARGUMENTS).unwrap();
            let error = super::super::build(&a, DOCUMENTS_ENVELOPE).unwrap_err();
            assert_eq!((error.code(), error.message().as_str()), ("usage", message));
        }
        let map = args(json!({"model": "no-such-model"}));
        let error = Arguments::new(&map, COUNT_TOKENS_ARGUMENTS)
            .unwrap()
            .counter_names()
            .unwrap()
            .encoding()
            .unwrap_err();
        assert_eq!(error.code(), "unknown-model");
        // No public tokenizer: refused with guidance in the tools' terms.
        for model in ["claude-sonnet-4", "gemini-2.5-pro"] {
            let map = args(json!({"model": model}));
            let error = Arguments::new(&map, COUNT_TOKENS_ARGUMENTS)
                .unwrap()
                .counter_names()
                .unwrap()
                .encoding()
                .unwrap_err();
            assert_eq!(error.code(), "unknown-model");
            let map = args(json!({"budget": 100, "model": model}));
            let a = Arguments::new(&map, PACK_DOCUMENTS_ARGUMENTS).unwrap();
            let error = super::super::build(&a, DOCUMENTS_ENVELOPE).unwrap_err();
            assert_eq!(error.code(), "unknown-model");
            let message = error.message();
            assert!(
                message.starts_with("no exact offline token count exists"),
                "{message}"
            );
            assert!(
                message.contains("keep a margin with a lower argument 'budget'"),
                "{message}"
            );
            assert!(!message.contains("--"), "{message}");
        }
        let map = args(json!({}));
        let error = Arguments::new(&map, PACK_DOCUMENTS_ARGUMENTS)
            .unwrap()
            .budget()
            .unwrap_err();
        assert_eq!(error.message(), "the argument 'budget' is missing");
    }
}
