//! `packer.toml`: a project's packing settings, kept beside its files.
//!
//! A directory packed with `pack --dir DIR` or collected with `collect DIR`
//! may hold `packer.toml` (or `.packer.toml`); `--config FILE` names one
//! anywhere. Every key is optional and spelled like its flag; a key the
//! file does not know is an error with its line and column. Flags win over
//! the file, and the file over the defaults.
//!
//! A tree's file is read like any collected file: beneath the directory,
//! never through a symbolic link, a regular file of at most
//! [`MAX_CONFIG_BYTES`]. It cannot weaken what protects the user: there
//! is no key for `--allow-secrets`, `--tokenizer` (a file to read),
//! `--payload-out` or `--out-dir` (files to write) or `--format`, so a hostile checkout's
//! file can reorder, narrow or budget its own files and nothing more. The
//! two files it may name, `request` and `chat-template` (SPEC §2.4), are
//! paths relative to the directory, refused when absolute or with `..`,
//! and read beneath it like its other files, never through a link
//! ([`chat`]).

use std::path::{Component, Path};

use serde::Deserialize;

use packer::error::Error;
use packer_files::{self as files, FileId};

use crate::PriorityRule;

/// The names looked for at the top of a packed directory, in order.
pub const CONFIG_NAMES: [&str; 2] = ["packer.toml", ".packer.toml"];

/// A configuration file larger than this is refused.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Every setting of a `packer.toml`, as written (validated by [`parse`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// `--budget`.
    pub budget: Option<u64>,
    /// `--context-tokens`.
    pub context_tokens: Option<u64>,
    /// `--reserved-other-input-tokens`.
    pub reserved_other_input_tokens: Option<u64>,
    /// `--reserved-output-tokens`.
    pub reserved_output_tokens: Option<u64>,
    /// `--safety-tokens`.
    pub safety_tokens: Option<u64>,
    /// `--encoding`.
    pub encoding: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--policy`.
    pub policy: Option<String>,
    /// `--envelope`.
    pub envelope: Option<String>,
    /// `--note-omissions`.
    pub note_omissions: Option<bool>,
    /// `--note-omissions-max`.
    pub note_omissions_max: Option<usize>,
    /// `--excerpt-query`.
    pub excerpt_query: Option<String>,
    /// `--excerpt-context`.
    pub excerpt_context: Option<usize>,
    /// `--excerpt-max-chars`.
    pub excerpt_max_chars: Option<usize>,
    /// `--outline`.
    pub outline: Option<bool>,
    /// `--outline-share` (percent).
    pub outline_share: Option<u64>,
    /// `--glob`, each.
    pub globs: Option<Vec<String>>,
    /// `--priority`, each (`GLOB=N`; the last matching rule wins, and
    /// rules given as flags come after these).
    pub priorities: Option<Vec<String>>,
    /// `--git-order`.
    pub git_order: Option<bool>,
    /// `--tree` (`true`) or `--tree-optional` (`"optional"`).
    pub tree: Option<Tree>,
    /// `--hidden`.
    pub hidden: Option<bool>,
    /// `--no-ignore`.
    pub no_ignore: Option<bool>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--max-file-bytes`, lower than the caller's only.
    pub max_file_bytes: Option<u64>,
    /// `--max-files`, lower than the caller's only.
    pub max_files: Option<usize>,
    /// `--max-total-bytes`, lower than the caller's only.
    pub max_total_bytes: Option<u64>,
    /// `--windows` (`--out-dir`, a directory to write, stays a flag).
    pub windows: Option<bool>,
    /// `--request`: a chat request file, relative to the directory and
    /// inside it.
    pub request: Option<String>,
    /// `--chat-template`: the request's chat template, relative to the
    /// directory and inside it.
    pub chat_template: Option<String>,
    /// `--chat-format`: `template` or `harmony` (openai-harmony's
    /// rendering for gpt-oss).
    pub chat_format: Option<String>,
}

impl Config {
    /// The budget values the file gives: `budget = N` is a context of `N`
    /// with every reservation 0, as `--budget N`.
    pub fn budget(&self) -> packer::PartialBudget {
        match self.budget {
            Some(tokens) => packer::PartialBudget {
                context_tokens: Some(tokens),
                reserved_other_input_tokens: Some(0),
                reserved_output_tokens: Some(0),
                safety_tokens: Some(0),
            },
            None => packer::PartialBudget {
                context_tokens: self.context_tokens,
                reserved_other_input_tokens: self.reserved_other_input_tokens,
                reserved_output_tokens: self.reserved_output_tokens,
                safety_tokens: self.safety_tokens,
            },
        }
    }
}

impl Config {
    /// Fills the packing settings a front end was not given (`None`, or
    /// `false` for a switch) from the file: a switch is on when either
    /// turns it on; the notes' cap only with notes, the excerpt's context
    /// and length only with a query; the file's model (else its encoding)
    /// only when no counter is given; the file's budget values only when
    /// the whole-budget shorthand is not given, each where none is.
    pub fn fill_names(&self, names: &mut packer::RequestNames) {
        fn or<T: Clone>(given: &mut Option<T>, file: &Option<T>) {
            if given.is_none() {
                given.clone_from(file);
            }
        }
        or(&mut names.policy, &self.policy);
        or(&mut names.envelope, &self.envelope);
        names.note_omissions |= self.note_omissions == Some(true);
        if names.note_omissions {
            or(&mut names.note_omissions_max, &self.note_omissions_max);
        }
        or(&mut names.excerpt_query, &self.excerpt_query);
        if names.excerpt_query.is_some() {
            or(&mut names.excerpt_context, &self.excerpt_context);
            or(&mut names.excerpt_max_chars, &self.excerpt_max_chars);
        }
        names.windows |= self.windows == Some(true);
        names.outline |= self.outline == Some(true);
        or(&mut names.outline_share, &self.outline_share);
        if !names.tokenizer && names.encoding.is_none() && names.model.is_none() {
            // The file's model wins over its encoding.
            if self.model.is_some() {
                names.model.clone_from(&self.model);
            } else {
                names.encoding.clone_from(&self.encoding);
            }
        }
        if names.budget.is_none() {
            let file = self.budget();
            for (given, file) in [
                (&mut names.context_tokens, file.context_tokens),
                (
                    &mut names.reserved_other_input_tokens,
                    file.reserved_other_input_tokens,
                ),
                (
                    &mut names.reserved_output_tokens,
                    file.reserved_output_tokens,
                ),
                (&mut names.safety_tokens, file.safety_tokens),
            ] {
                if given.is_none() {
                    *given = file;
                }
            }
        }
    }

    /// Fills the collecting settings a front end was not given from the
    /// file: its globs and priority rules come first (so a given rule,
    /// later, wins), a switch is on when either turns it on, the base URL
    /// and the tree where none is given. The size limits stay the front
    /// end's.
    pub fn fill_collect(&self, options: &mut crate::CollectOptions) -> Result<(), Error> {
        if options.base_url.is_none()
            && let Some(url) = &self.base_url
        {
            options.base_url = Some(crate::base_url(url).map_err(|_| Error::InvalidBaseUrl)?);
        }
        let mut globs = self.globs.clone().unwrap_or_default();
        globs.append(&mut options.globs);
        options.globs = globs;
        // Checked when the file was read.
        let mut priorities: Vec<PriorityRule> = self
            .priorities
            .iter()
            .flatten()
            .filter_map(|rule| rule.parse().ok())
            .collect();
        priorities.append(&mut options.priorities);
        options.priorities = priorities;
        // A tree's file may lower the collecting limits, never raise them
        // above what the caller gave (or the defaults): a hostile tree
        // cannot make packer read a 2 GB file whole.
        if let Some(limit) = self.max_file_bytes {
            options.max_file_bytes = options.max_file_bytes.min(limit);
        }
        if let Some(limit) = self.max_files {
            options.max_files = options.max_files.min(limit);
        }
        if let Some(limit) = self.max_total_bytes {
            options.max_total_bytes = options.max_total_bytes.min(limit);
        }
        options.git_order |= self.git_order == Some(true);
        options.hidden |= self.hidden == Some(true);
        options.no_ignore |= self.no_ignore == Some(true);
        if options.tree == crate::TreeOption::None {
            options.tree = match self.tree {
                Some(Tree::On(true)) => crate::TreeOption::Required,
                Some(Tree::Kind(TreeKind::Optional)) => crate::TreeOption::Optional,
                _ => crate::TreeOption::None,
            };
        }
        Ok(())
    }
}

/// The `tree` key: `true`, `false` or `"optional"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Tree {
    /// `true` (`--tree`) or `false`.
    On(bool),
    /// `"optional"` (`--tree-optional`).
    Kind(TreeKind),
}

/// The one string value of `tree`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TreeKind {
    /// `--tree-optional`.
    Optional,
}

/// A configuration file that was found and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The settings.
    pub config: Config,
    /// Its file name, for messages (`packer.toml`, or the path given).
    pub name: String,
    /// The file read, so that nothing writes over it.
    pub id: Option<FileId>,
}

/// Parses and checks a configuration file's text; `name` labels errors.
pub fn parse(name: &str, text: &str) -> Result<Config, Error> {
    let config: Config = toml::from_str(text).map_err(|error| {
        let (line, column) = error
            .span()
            .map_or((0, 0), |span| line_column(text, span.start));
        invalid(name, line, column, error.message())
    })?;
    check(name, &config)?;
    Ok(config)
}

/// The checks the TOML types do not make: names packer knows, rules that
/// parse, values in range (without a position: the key is named).
fn check(name: &str, config: &Config) -> Result<(), Error> {
    let bad = |problem: String| invalid(name, 0, 0, &problem);
    let max = packer::budget::MAX_BUDGET_VALUE;
    for (key, value) in [
        ("budget", config.budget),
        ("context-tokens", config.context_tokens),
        (
            "reserved-other-input-tokens",
            config.reserved_other_input_tokens,
        ),
        ("reserved-output-tokens", config.reserved_output_tokens),
        ("safety-tokens", config.safety_tokens),
    ] {
        if value.is_some_and(|value| value > max) {
            return Err(bad(format!("{key} must be at most {max}")));
        }
    }
    if config.budget.is_some()
        && [
            config.context_tokens,
            config.reserved_other_input_tokens,
            config.reserved_output_tokens,
            config.safety_tokens,
        ]
        .iter()
        .any(Option::is_some)
    {
        return Err(bad(
            "budget cannot be given with context-tokens or a reservation".into(),
        ));
    }
    if config.outline_share.is_some_and(|share| share > 100) {
        return Err(bad(
            "outline-share is a percentage of the budget from 0 to 100".into(),
        ));
    }
    if config.encoding.is_some() && config.model.is_some() {
        return Err(bad("give encoding or model, not both".into()));
    }
    if let Some(encoding) = &config.encoding
        && encoding.parse::<packer::Encoding>().is_err()
    {
        return Err(bad(format!(
            "encoding must be one of {}",
            packer::Encoding::NAMES.join(", ")
        )));
    }
    if let Some(policy) = &config.policy
        && policy.parse::<packer::Policy>().is_err()
    {
        return Err(bad(format!(
            "policy must be one of {}",
            packer::Policy::names().join(", ")
        )));
    }
    if let Some(envelope) = &config.envelope
        && envelope.parse::<packer::Envelope>().is_err()
    {
        return Err(bad(format!(
            "envelope must be one of {}",
            packer::Envelope::names().join(", ")
        )));
    }
    for rule in config.priorities.iter().flatten() {
        if let Err(problem) = rule.parse::<PriorityRule>() {
            return Err(bad(format!("priorities: {problem}")));
        }
    }
    if let Some(url) = &config.base_url
        && crate::base_url(url).is_err()
    {
        return Err(bad(
            "base-url must be an absolute http or https URL with a host and no credentials".into(),
        ));
    }
    for (key, path) in [
        ("request", &config.request),
        ("chat-template", &config.chat_template),
    ] {
        if path.as_deref().is_some_and(|path| !inside(path)) {
            return Err(bad(format!(
                "{key} must be a path relative to the directory and inside it (no leading /, \
                 no .. parts)"
            )));
        }
    }
    if config.chat_template.is_some() && config.request.is_none() {
        return Err(bad("chat-template needs request".into()));
    }
    if let Some(format) = &config.chat_format {
        if format.parse::<packer::chat::ChatFormat>().is_err() {
            return Err(bad(format!(
                "chat-format must be one of {}",
                packer::chat::ChatFormat::names().join(", ")
            )));
        }
        if config.request.is_none() {
            return Err(bad("chat-format needs request".into()));
        }
        if config.chat_template.is_some() {
            return Err(bad(
                "chat-format and chat-template do not go together".into()
            ));
        }
    }
    Ok(())
}

/// Whether `path` is relative and has only plain parts (and `.`), so that
/// it names something beneath the directory.
fn inside(path: &str) -> bool {
    let path = Path::new(path);
    path.components().next().is_some()
        && path
            .components()
            .all(|part| matches!(part, Component::Normal(_) | Component::CurDir))
}

/// A chat request a configuration file names, read beneath the packed
/// directory.
#[derive(Debug)]
pub struct ConfigChat {
    /// The request with its template.
    pub chat: packer::Chat,
    /// The files read, so that nothing writes over them.
    pub read: Vec<FileId>,
}

/// The chat request `config` (found as `name`) names for `dir`: its
/// `request` and `chat-template` files, each opened beneath `dir` one
/// component at a time without following a link (a link, a directory or a
/// device is refused with `invalid-config` and not read). The template's
/// special tokens, and the template when the file names none, come from
/// beside `tokenizer` (the user's own `--tokenizer`), as for `--request`:
/// with `roots` (an MCP server's canonical roots) only inside them, so a
/// link beside the tokenizer file that leads out is `path-outside-root`
/// whichever file named the request. `None` when the file names no
/// request.
pub fn chat(
    dir: &Path,
    config: &Config,
    name: &str,
    tokenizer: Option<&Path>,
    roots: Option<&[std::path::PathBuf]>,
    now: i64,
) -> Result<Option<ConfigChat>, Error> {
    let Some(request) = &config.request else {
        return Ok(None);
    };
    let root = files::Root::open(dir).map_err(|error| Error::ReadFailed {
        path: packer::output::terminal_safe(&dir.to_string_lossy()),
        kind: error.kind(),
    })?;
    let mut read = Vec::new();
    let mut open = |key: &str, path: &str| -> Result<Vec<u8>, Error> {
        let refused = |problem: String| invalid(name, 0, 0, &format!("{key} {problem}"));
        // Checked when the file was parsed; checked again here, where it
        // matters.
        if !inside(path) {
            return Err(refused("must be a path inside the directory".into()));
        }
        let opened = root
            .open_file(Path::new(path))
            .map_err(|error| match error {
                files::OpenError::Io(error) => refused(format!(
                    "names a file that cannot be read ({})",
                    error.kind()
                )),
                _ => refused(
                    "is not a regular file in the directory (a link, a directory or a device); it \
                 is not read"
                        .into(),
                ),
            })?;
        read.push(opened.id);
        opened
            .read_limited(files::MAX_CHAT_FILE_BYTES)
            .map_err(|error| {
                refused(format!(
                    "names a file that cannot be read ({})",
                    error.kind()
                ))
            })?
            .ok_or_else(|| {
                refused(format!(
                    "names a file larger than {} bytes",
                    files::MAX_CHAT_FILE_BYTES
                ))
            })
    };
    let request = open("request", request)?;
    let template = match &config.chat_template {
        Some(path) => Some(open("chat-template", path)?),
        None => None,
    };
    let chat = files::chat_from_bytes(&request, template.as_deref(), tokenizer, roots, now)?;
    Ok(Some(ConfigChat { chat, read }))
}

fn invalid(name: &str, line: usize, column: usize, problem: &str) -> Error {
    Error::InvalidConfig {
        file: packer::output::terminal_safe(name),
        line,
        column,
        problem: packer::output::terminal_safe(problem.trim()),
    }
}

/// The 1-based line and column (in bytes) of `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text.as_bytes()[..offset.min(text.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.len()
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1)
        + 1;
    (line, column)
}

/// Reads the configuration at the top of `dir` (`packer.toml`, else
/// `.packer.toml`), opened beneath it without following a link; `None`
/// when there is none.
pub fn find(dir: &Path) -> Result<Option<Found>, Error> {
    let Ok(root) = files::Root::open(dir) else {
        // The collection itself says why the directory cannot be read.
        return Ok(None);
    };
    for name in CONFIG_NAMES {
        match root.open_file(Path::new(name)) {
            Ok(opened) => {
                let id = opened.id;
                let text = read(name, opened)?;
                let config = parse(name, &text)?;
                return Ok(Some(Found {
                    config,
                    name: name.to_owned(),
                    id: Some(id),
                }));
            }
            Err(files::OpenError::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => {
                return Err(invalid(
                    name,
                    0,
                    0,
                    "is not a regular file in the directory (a link, a directory or a device); \
                     it is not read",
                ));
            }
        }
    }
    Ok(None)
}

/// Reads the configuration file named on the command line.
pub fn load(path: &Path) -> Result<Found, Error> {
    let name = path.to_string_lossy().into_owned();
    let opened = files::open_regular(path).map_err(|error| Error::ReadFailed {
        path: packer::output::terminal_safe(&name),
        kind: error.kind(),
    })?;
    let id = opened.id;
    let text = read(&name, opened)?;
    let config = parse(&name, &text)?;
    Ok(Found {
        config,
        name,
        id: Some(id),
    })
}

fn read(name: &str, opened: files::Opened) -> Result<String, Error> {
    let bytes = opened
        .read_limited(MAX_CONFIG_BYTES)
        .map_err(|error| Error::ReadFailed {
            path: packer::output::terminal_safe(name),
            kind: error.kind(),
        })?
        .ok_or_else(|| {
            invalid(
                name,
                0,
                0,
                &format!("is larger than {MAX_CONFIG_BYTES} bytes"),
            )
        })?;
    String::from_utf8(bytes).map_err(|error| {
        let (line, column) = line_column(
            &String::from_utf8_lossy(&error.as_bytes()[..error.utf8_error().valid_up_to()]),
            usize::MAX,
        );
        invalid(name, line, column, "is not UTF-8")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_reads_and_unknown_keys_are_refused_with_a_position() {
        let text = "budget = 32000\nenvelope = \"xml\"\npriorities = [\"src/**=5\", \"README.md=9\"]\n\
                    globs = [\"!*.lock\"]\ngit-order = true\ntree = \"optional\"\nnote-omissions = true\n";
        let config = parse("packer.toml", text).unwrap();
        assert_eq!(config.budget, Some(32000));
        assert_eq!(config.envelope.as_deref(), Some("xml"));
        assert_eq!(config.priorities.unwrap().len(), 2);
        assert_eq!(config.tree, Some(Tree::Kind(TreeKind::Optional)));
        let error = parse("packer.toml", "budget = 1\nbudgget = 2\n").unwrap_err();
        assert_eq!(error.code(), "invalid-config");
        assert!(
            error
                .to_string()
                .starts_with("packer.toml at line 2 column 1: unknown field `budgget`"),
            "{error}"
        );
        let error = parse("packer.toml", "budget = \"lots\"\n").unwrap_err();
        assert!(error.to_string().contains("line 1 column 10"), "{error}");
    }

    #[test]
    fn a_request_and_its_template_are_paths_inside_the_directory() {
        let config = parse(
            "packer.toml",
            "request = \"chat/request.json\"\nchat-template = \"./chat/template.jinja\"\n",
        )
        .unwrap();
        assert_eq!(config.request.as_deref(), Some("chat/request.json"));
        assert_eq!(
            config.chat_template.as_deref(),
            Some("./chat/template.jinja")
        );
        assert!(
            chat(
                Path::new("."),
                &Config::default(),
                "packer.toml",
                None,
                None,
                0
            )
            .unwrap()
            .is_none()
        );
    }

    #[test]
    fn values_packer_does_not_know_are_refused_naming_the_key() {
        for (text, says) in [
            (
                "policy = \"random\"",
                "policy must be one of in-order, priority, max-fill",
            ),
            ("envelope = \"yaml\"", "envelope must be one of"),
            ("encoding = \"gpt2\"", "encoding must be one of"),
            ("priorities = [\"src\"]", "priorities: expected GLOB=N"),
            (
                "budget = 10\nsafety-tokens = 1",
                "budget cannot be given with",
            ),
            ("base-url = \"ftp://x\"", "base-url must be"),
            ("budget = 9007199254740992", "budget must be at most"),
            ("allow-secrets = true", "unknown field `allow-secrets`"),
            ("tokenizer = \"/etc/passwd\"", "unknown field `tokenizer`"),
            (
                "request = \"/etc/passwd\"",
                "request must be a path relative",
            ),
            ("request = \"../r.json\"", "request must be a path relative"),
            (
                "request = \"a/../../r.json\"",
                "request must be a path relative",
            ),
            ("request = \"\"", "request must be a path relative"),
            (
                "request = \"r.json\"\nchat-template = \"/t.jinja\"",
                "chat-template must be a path relative",
            ),
            ("chat-template = \"t.jinja\"", "chat-template needs request"),
            (
                "request = \"r.json\"\nchat-format = \"vllm\"",
                "chat-format must be one of template, harmony",
            ),
            ("chat-format = \"harmony\"", "chat-format needs request"),
            (
                "request = \"r.json\"\nchat-template = \"t.jinja\"\nchat-format = \"harmony\"",
                "chat-format and chat-template do not go together",
            ),
        ] {
            let error = parse("packer.toml", text).unwrap_err();
            assert!(error.to_string().contains(says), "{text}: {error}");
        }
    }
}
