//! `packer_context`: packer for Python.
//!
//! A thin shell over the packer library, as the command line is: it turns
//! Python arguments into a [`packer::Request`] and a fixture's bytes, calls
//! [`packer::pack()`] with the GIL released, and turns the result back into
//! the object `packer pack --format json` prints (or the error into
//! `PackerError` with the command line's code, exit status and message).
//! No packing logic lives here.

use packer::budget::MAX_BUDGET_VALUE;
use packer::envelope::Envelope;
use packer::error::{CommandLine, EXIT_USAGE, Names, Setting};
use packer::fixture::{DEFAULT_MAX_DOCUMENTS, DEFAULT_MAX_INPUT_BYTES};
use packer::output::{ErrorList, Refusal, Summary, WindowsSummary};
use std::path::PathBuf;

use packer::{Counter, Encoding, Error, Fixture, Limits, Policy, Request, RequestNames};
use pyo3::exceptions::{PyException, PyOverflowError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

pyo3::create_exception!(
    packer_context,
    PackerError,
    PyException,
    "Raised when packer refuses an input or cannot pack it.\n\n\
     `code` is the command line's stable code (`duplicate-id`, `required-does-not-fit`, ...; \
     `usage` for a bad argument), `exit_status` the status `packer pack` exits with, and \
     `message` (also `str(error)`) its message, which never quotes the capture; \
     `errors` lists every problem (code, message, document, field, line, column), \
     `more_errors` counts those not listed, and `result` is, when something does not fit, \
     the object `packer pack --format json` prints with \"error\" and every decision."
);

/// A packer failure on its way to Python: what `packer pack --format json`
/// would print about it, as JSON text.
struct Failure {
    code: &'static str,
    exit_status: i32,
    /// `{"errors":[...]}` (one problem for most errors, several for a
    /// fixture with several problems).
    errors: String,
    /// For something that does not fit: the object with `"error"` and a
    /// decision per document.
    refusal: Option<String>,
}

impl Failure {
    fn new(error: &Error, refusal: Option<String>) -> Failure {
        Failure {
            code: error.code(),
            exit_status: error.exit_status(),
            errors: serde_json::to_string(&ErrorList::with_names(error, &Keywords))
                .expect("the error list always serializes"),
            refusal,
        }
    }

    fn usage(message: String) -> Failure {
        let list = serde_json::json!({"errors": [{"code": "usage", "message": message}]});
        Failure {
            code: "usage",
            exit_status: EXIT_USAGE,
            errors: list.to_string(),
            refusal: None,
        }
    }

    fn into_py(self, py: Python<'_>) -> PyErr {
        self.raise(py).unwrap_or_else(|error| error)
    }

    fn raise(self, py: Python<'_>) -> PyResult<PyErr> {
        let json = py.import("json")?;
        let list = json.call_method1("loads", (self.errors,))?;
        let errors = list.get_item("errors")?;
        let message: String = errors.get_item(0)?.get_item("message")?.extract()?;
        let more = list.call_method1("get", ("moreErrors", 0))?;
        let error = PackerError::new_err(message.clone());
        let value = error.value(py);
        value.setattr("code", self.code)?;
        value.setattr("exit_status", self.exit_status)?;
        value.setattr("message", message)?;
        value.setattr("errors", errors)?;
        value.setattr("more_errors", more)?;
        let result = match self.refusal {
            Some(text) => json.call_method1("loads", (text,))?,
            None => py.None().into_bound(py),
        };
        value.setattr("result", result)?;
        Ok(error)
    }
}

fn usage(py: Python<'_>, message: String) -> PyErr {
    Failure::usage(message).into_py(py)
}

fn packer_error(py: Python<'_>, error: Error) -> PyErr {
    Failure::new(&error, None).into_py(py)
}

/// The settings as Python's keywords name them in a refusal of the
/// request. The settings of the library's other messages keep the command
/// line's flags, as they always have.
struct Keywords;

impl Names for Keywords {
    fn name(&self, setting: Setting) -> &'static str {
        match setting {
            Setting::EncodingName => "encoding",
            Setting::PolicyName => "policy",
            Setting::EnvelopeName => "envelope",
            Setting::EncodingOrModel => "encoding or model",
            Setting::OneCounter => "tokenizer or encoding/model, not both",
            Setting::BudgetOrBudgetValues => "budget or the separate budget values",
            Setting::NoteOmissionsMaxAlone => "note_omissions_max",
            Setting::NoteOmissionsOn => "note_omissions=True",
            Setting::ExcerptSizes => "excerpt_context and excerpt_max_chars",
            Setting::ExcerptQuery => "excerpt_query",
            Setting::Windows => "windows=True",
            Setting::SafetyTokens => "safety_tokens",
            Setting::OutlineShare => "outline_share",
            Setting::OutlineOn => "outline=True",
            Setting::RequestFile => "request",
            Setting::RequestFileSubject => "the request",
            Setting::ChatTemplate => "chat_template",
            Setting::ReservedOtherInput => "reserved_other_input_tokens",
            Setting::PriorityGlob => "a priority glob",
            Setting::Query => "query",
            Setting::TemplateSeconds => "template_seconds",
            Setting::TemplateMemory => "template_memory",
            _ => CommandLine.name(setting),
        }
    }
}

/// The budget keywords as names: `budget`, then each of the four values.
fn budget_names(
    py: Python<'_>,
    budget: Option<&Bound<'_, PyAny>>,
    context_tokens: Option<&Bound<'_, PyAny>>,
    reserved_other_input_tokens: Option<&Bound<'_, PyAny>>,
    reserved_output_tokens: Option<&Bound<'_, PyAny>>,
    safety_tokens: Option<&Bound<'_, PyAny>>,
) -> PyResult<RequestNames> {
    Ok(RequestNames {
        context_tokens: budget_value(py, "context_tokens", context_tokens)?,
        reserved_other_input_tokens: budget_value(
            py,
            "reserved_other_input_tokens",
            reserved_other_input_tokens,
        )?,
        reserved_output_tokens: budget_value(py, "reserved_output_tokens", reserved_output_tokens)?,
        safety_tokens: budget_value(py, "safety_tokens", safety_tokens)?,
        budget: budget_value(py, "budget", budget)?,
        ..RequestNames::default()
    })
}

/// A budget value given as a keyword: a whole number from 0 to 2^53-1.
fn budget_value(
    py: Python<'_>,
    name: &str,
    value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<u64>> {
    let Some(value) = value else {
        return Ok(None);
    };
    let out_of_range = || {
        usage(
            py,
            format!("{name} must be a whole number from 0 to {MAX_BUDGET_VALUE}"),
        )
    };
    match value.extract::<u64>() {
        Ok(n) if n <= MAX_BUDGET_VALUE => Ok(Some(n)),
        Ok(_) => Err(out_of_range()),
        Err(error) if error.is_instance_of::<PyOverflowError>(py) => Err(out_of_range()),
        Err(error) => Err(error),
    }
}

/// The fixture's bytes: `bytes` as given, `str` as UTF-8, anything else
/// (a dict) as JSON.
fn fixture_bytes(py: Python<'_>, fixture: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(bytes) = fixture.cast::<PyBytes>() {
        return Ok(bytes.as_bytes().to_vec());
    }
    if let Ok(bytes) = fixture.cast::<PyByteArray>() {
        return Ok(bytes.to_vec());
    }
    if let Ok(text) = fixture.cast::<PyString>() {
        return utf8_of(text);
    }
    let json = py.import("json")?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("separators", (",", ":"))?;
    let text = json.call_method("dumps", (fixture,), Some(&kwargs))?;
    let text = text.cast::<PyString>()?;
    match text.to_cow() {
        Ok(text) => Ok(text.as_bytes().to_vec()),
        // A lone surrogate: let the parser see it as the escape it would
        // be in a file, and refuse it as `unpaired-surrogate`.
        Err(_) => Ok(json
            .call_method1("dumps", (fixture,))?
            .cast::<PyString>()?
            .to_cow()?
            .as_bytes()
            .to_vec()),
    }
}

/// The chat request's bytes: a dict, serialized as compact JSON (keys in
/// the dict's order, non-ASCII kept). Anything else is a `TypeError`: a
/// path or a JSON text is not taken, so that neither is mistaken for the
/// other.
fn chat_request_bytes(py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if !request.is_instance_of::<PyDict>() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "request must be a dict {\"messages\": [...]} (the request itself; load a file \
             with json.load first)",
        ));
    }
    fixture_bytes(py, request)
}

/// A `str` as UTF-8; lone surrogates are kept as the (invalid) bytes they
/// would be, so that they are refused as `invalid-utf8` at their offset.
fn utf8_of(text: &Bound<'_, PyString>) -> PyResult<Vec<u8>> {
    match text.to_cow() {
        Ok(text) => Ok(text.as_bytes().to_vec()),
        Err(_) => Ok(text
            .call_method1("encode", ("utf-8", "surrogatepass"))?
            .cast::<PyBytes>()?
            .as_bytes()
            .to_vec()),
    }
}

/// Pack a fixture; return the object ``packer pack --format json`` prints.
///
/// ``fixture`` is the capture: a dict (serialized as compact JSON), or its
/// JSON text as ``str`` or ``bytes`` (read exactly as ``packer pack`` reads a
/// file). Each keyword is the ``packer pack`` option of the same name and
/// overrides the fixture: ``policy`` (``"in-order"``, ``"priority"``,
/// ``"max-fill"``), ``envelope`` (``"json"``, ``"xml"``, ``"markdown"``),
/// ``encoding`` or ``model`` (e.g. ``"gpt-4o"``) or ``tokenizer`` (the path
/// of a Hugging Face ``tokenizer.json`` or Mistral ``tekken.json``), the four
/// budget values, or ``budget=N`` for ``contextTokens`` N with every
/// reservation 0; ``note_omissions`` (with ``note_omissions_max``, default
/// 50); ``excerpt_query`` (with
/// ``excerpt_context``, ``excerpt_max_chars``); ``outline`` (outlines of the
/// source files that do not fit whole, by the id's extension; with
/// ``outline_share``, the percentage of the budget whole documents fill
/// first, default 40); ``max_input_bytes`` (default
/// 1,048,576, counted on the bytes or the serialized dict) and
/// ``max_documents`` (default 100). With ``payload=False`` the result omits
/// ``payloadText`` (``--format summary``). With ``windows=True`` every
/// document goes into as few windows as possible (``packer pack --windows``):
/// the result has ``windowCount``, ``optimal`` and ``windows`` (each with its
/// ``payloadText`` unless ``payload=False``) instead of one payload.
/// ``request`` (a dict ``{"messages": [...], "tools": [...],
/// "addGenerationPrompt": True, "templateArguments": {...}}``, the object
/// a ``packer pack --request`` file holds, with ``{{packer:documents}}`` in
/// one message) counts the whole chat request instead of the payload
/// alone, rendered with ``chat_template`` (the path of a Jinja file or a
/// ``tokenizer_config.json``; default the one beside ``tokenizer``, or
/// gpt-oss's harmony format with ``encoding="o200k_harmony"``), or with
/// ``chat_format="harmony"`` as openai-harmony writes it for vLLM
/// (``--chat-format``): the result adds ``requestTokens``,
/// ``otherInputTokens`` and ``requestText`` (unless ``payload=False``). The
/// GIL is released while packing.
///
/// Raises ``PackerError`` for every input ``packer pack`` refuses, with the
/// same code, exit status and message; ``TypeError`` for a dict that JSON
/// cannot serialize.
#[pyfunction]
#[pyo3(signature = (
    fixture, *, policy=None, envelope=None, budget=None, encoding=None, model=None, tokenizer=None,
    context_tokens=None, reserved_other_input_tokens=None, reserved_output_tokens=None,
    safety_tokens=None, note_omissions=false, note_omissions_max=None, excerpt_query=None,
    excerpt_context=None,
    excerpt_max_chars=None, outline=false, outline_share=None, max_input_bytes=None,
    max_documents=None, payload=true, windows=false, request=None, chat_template=None,
    chat_format=None, template_seconds=None, template_memory=None, query=None
))]
#[allow(clippy::too_many_arguments)]
fn pack(
    py: Python<'_>,
    fixture: &Bound<'_, PyAny>,
    policy: Option<&str>,
    envelope: Option<&str>,
    budget: Option<&Bound<'_, PyAny>>,
    encoding: Option<&str>,
    model: Option<&str>,
    tokenizer: Option<PathBuf>,
    context_tokens: Option<&Bound<'_, PyAny>>,
    reserved_other_input_tokens: Option<&Bound<'_, PyAny>>,
    reserved_output_tokens: Option<&Bound<'_, PyAny>>,
    safety_tokens: Option<&Bound<'_, PyAny>>,
    note_omissions: bool,
    note_omissions_max: Option<usize>,
    excerpt_query: Option<String>,
    excerpt_context: Option<usize>,
    excerpt_max_chars: Option<usize>,
    outline: bool,
    outline_share: Option<u64>,
    max_input_bytes: Option<u64>,
    max_documents: Option<usize>,
    payload: bool,
    windows: bool,
    request: Option<&Bound<'_, PyAny>>,
    chat_template: Option<PathBuf>,
    chat_format: Option<&str>,
    template_seconds: Option<u64>,
    template_memory: Option<u64>,
    query: Option<String>,
) -> PyResult<Py<PyAny>> {
    let chat_request = request
        .map(|request| chat_request_bytes(py, request))
        .transpose()?;
    if chat_template.is_some() && chat_request.is_none() {
        return Err(usage(py, "chat_template needs request".into()));
    }
    if chat_format.is_some() && chat_request.is_none() {
        return Err(usage(py, "chat_format needs request".into()));
    }
    if chat_format.is_some() && chat_template.is_some() {
        return Err(usage(
            py,
            "chat_format and chat_template do not go together".into(),
        ));
    }
    // The budget values are read first: a value that is not a whole number
    // from 0 to 2^53-1 is refused before the names are checked.
    let names = RequestNames {
        encoding: encoding.map(str::to_owned),
        model: model.map(str::to_owned),
        tokenizer: tokenizer.is_some(),
        policy: policy.map(str::to_owned),
        envelope: envelope.map(str::to_owned),
        default_envelope: Envelope::default(),
        note_omissions,
        note_omissions_max,
        excerpt_query,
        excerpt_context,
        excerpt_max_chars,
        windows,
        outline,
        outline_share,
        query,
        ..budget_names(
            py,
            budget,
            context_tokens,
            reserved_other_input_tokens,
            reserved_output_tokens,
            safety_tokens,
        )?
    };
    // Checked here, before the fixture is read, as the command line does.
    names.build().map_err(|error| packer_error(py, error))?;
    let limits = Limits {
        max_input_bytes: max_input_bytes.unwrap_or(DEFAULT_MAX_INPUT_BYTES),
        max_documents: max_documents.unwrap_or(DEFAULT_MAX_DOCUMENTS),
    };
    let bytes = fixture_bytes(py, fixture)?;
    let job = packer_job::Job {
        names,
        tokenizer,
        chat: match chat_request {
            Some(request) => packer_job::ChatSource::Inline {
                request,
                template: chat_template,
            },
            None => packer_job::ChatSource::None,
        },
        chat_format: match chat_format {
            None => packer::chat::ChatFormat::default(),
            Some(name) => name.parse().map_err(|()| {
                usage(
                    py,
                    format!(
                        "chat_format must be one of {}",
                        packer::chat::ChatFormat::names().join(", ")
                    ),
                )
            })?,
        },
        renderers: Some(template_workers(py, template_seconds, template_memory)?),
        ..packer_job::Job::default()
    };
    let packed = py.detach(move || -> Result<String, Failure> {
        let prepared =
            packer_job::prepare(&job, None).map_err(|error| Failure::new(&error, None))?;
        let fixture =
            Fixture::from_bytes(&bytes, &limits).map_err(|error| Failure::new(&error, None))?;
        packed_json(prepared.pack_fixture(fixture), payload)
    });
    let text = packed.map_err(|failure| failure.into_py(py))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// A pack as `packer pack --format json` prints it (`--format summary`
/// without `payload`), or the failure with, when something does not fit,
/// the object it prints then.
fn packed_json(packed: packer_job::Packed, payload: bool) -> Result<String, Failure> {
    let fixture = &packed.fixture;
    let text = match &packed.result {
        Ok(packer_job::Packing::One(outcome)) => {
            serde_json::to_string(&Summary::new(fixture, outcome, payload))
        }
        Ok(packer_job::Packing::Windows(outcome)) => {
            serde_json::to_string(&WindowsSummary::new(fixture, outcome, payload))
        }
        Err(failure) => return Err(refused(fixture, &packed.request, failure)),
    };
    Ok(text.expect("the output always serializes"))
}

/// A pack's failure with, when something does not fit, the object
/// `packer pack --format json` prints then.
fn refused(fixture: &Fixture, request: &Request, failure: &packer::Failure) -> Failure {
    let refusal = failure.does_not_fit().and_then(|does_not_fit| {
        packer::settings(fixture, request).ok().map(|settings| {
            let refusal = Refusal::new(fixture, &settings, &request.options, does_not_fit);
            serde_json::to_string(&refusal).expect("the refusal always serializes")
        })
    });
    Failure::new(failure.error(), refusal)
}

/// ``tree``: a name, or ``True``/``False`` as the command line's ``--tree``.
#[derive(FromPyObject)]
enum TreeArg {
    Flag(bool),
    Name(String),
}

/// Packs the text files under the directory ``path`` as ``packer pack
/// --dir PATH --format json`` does, and returns the same object.
///
/// Files are collected as on the command line: ignored and hidden files,
/// ``.git``, binary and non-UTF-8 files, files over 1 MiB and files that
/// contain a secret stay out (``hidden``/``no_ignore`` bring the first two
/// in); document ids are paths relative to ``path``, with a url only when
/// the directory is a Git checkout with a forge remote (or ``base_url`` is
/// given). ``globs`` narrow, ``priorities`` are ``"GLOB=N"`` rules (the last
/// matching one wins), ``git_order`` puts recently changed files first
/// within a priority, ``files`` collects exactly those relative paths, and
/// ``tree`` (``"required"`` or ``True``, ``"optional"``) adds the
/// directory tree as a document. The directory's ``packer.toml`` (or ``.packer.toml``), or
/// the file ``config`` names, fills every setting not given here, as on
/// the command line; ``no_config=True`` ignores it. A budget is needed:
/// ``budget`` or the separate budget values (those not given are 0), or
/// the configuration's. The envelope defaults to ``"markdown"``, as for
/// ``--dir``. The other keywords are ``pack``'s, but for ``request``: a
/// chat request comes from the configuration's ``request`` key, read
/// beneath the directory. The GIL is released while
/// collecting and packing.
///
/// Raises ``PackerError`` with the command line's code, exit status and
/// message for everything ``packer pack --dir`` refuses.
#[pyfunction]
#[pyo3(signature = (
    path, *, budget=None, policy=None, envelope=None, encoding=None, model=None, tokenizer=None,
    context_tokens=None, reserved_other_input_tokens=None, reserved_output_tokens=None,
    safety_tokens=None, note_omissions=false, note_omissions_max=None, excerpt_query=None,
    excerpt_context=None, excerpt_max_chars=None, outline=false, outline_share=None,
    windows=false, globs=None, priorities=None, git_order=false, files=None, tree=None,
    base_url=None, hidden=false, no_ignore=false, config=None, no_config=false, payload=true,
    template_seconds=None, template_memory=None, query=None
))]
#[allow(clippy::too_many_arguments)]
fn pack_directory(
    py: Python<'_>,
    path: PathBuf,
    budget: Option<&Bound<'_, PyAny>>,
    policy: Option<&str>,
    envelope: Option<&str>,
    encoding: Option<&str>,
    model: Option<&str>,
    tokenizer: Option<PathBuf>,
    context_tokens: Option<&Bound<'_, PyAny>>,
    reserved_other_input_tokens: Option<&Bound<'_, PyAny>>,
    reserved_output_tokens: Option<&Bound<'_, PyAny>>,
    safety_tokens: Option<&Bound<'_, PyAny>>,
    note_omissions: bool,
    note_omissions_max: Option<usize>,
    excerpt_query: Option<String>,
    excerpt_context: Option<usize>,
    excerpt_max_chars: Option<usize>,
    outline: bool,
    outline_share: Option<u64>,
    windows: bool,
    globs: Option<Vec<String>>,
    priorities: Option<Vec<String>>,
    git_order: bool,
    files: Option<Vec<String>>,
    tree: Option<TreeArg>,
    base_url: Option<String>,
    hidden: bool,
    no_ignore: bool,
    config: Option<PathBuf>,
    no_config: bool,
    payload: bool,
    template_seconds: Option<u64>,
    template_memory: Option<u64>,
    query: Option<String>,
) -> PyResult<Py<PyAny>> {
    if config.is_some() && no_config {
        return Err(usage(
            py,
            "config and no_config=True do not go together".into(),
        ));
    }
    let names = RequestNames {
        encoding: encoding.map(str::to_owned),
        model: model.map(str::to_owned),
        tokenizer: tokenizer.is_some(),
        policy: policy.map(str::to_owned),
        envelope: envelope.map(str::to_owned),
        default_envelope: Envelope::Markdown,
        note_omissions,
        note_omissions_max,
        excerpt_query,
        excerpt_context,
        excerpt_max_chars,
        windows,
        outline,
        outline_share,
        query,
        ..budget_names(
            py,
            budget,
            context_tokens,
            reserved_other_input_tokens,
            reserved_output_tokens,
            safety_tokens,
        )?
    };
    let priorities =
        packer_collect::priority_rules(&priorities.unwrap_or_default()).map_err(|problem| {
            usage(
                py,
                format!(
                    "an entry of priorities is not a rule: {}",
                    problem.message(&Keywords)
                ),
            )
        })?;
    let tree = match tree {
        None | Some(TreeArg::Flag(false)) => packer_collect::TreeOption::None,
        Some(TreeArg::Flag(true)) => packer_collect::TreeOption::Required,
        Some(TreeArg::Name(name)) => {
            packer_collect::TreeOption::from_name(&name).ok_or_else(|| {
                usage(
                    py,
                    format!(
                        "tree must be {}, True or False",
                        packer_collect::TreeOption::NAMES
                            .map(|n| format!("\"{n}\""))
                            .join(", ")
                    ),
                )
            })?
        }
    };
    let base_url = base_url
        .map(|url| packer_collect::base_url(&url))
        .transpose()
        .map_err(|_| packer_error(py, Error::InvalidBaseUrl))?;
    let collect = packer_collect::CollectOptions {
        base_url,
        globs: globs.unwrap_or_default(),
        hidden,
        no_ignore,
        priorities,
        git_order,
        files_from: files,
        tree,
        ..packer_collect::CollectOptions::default()
    };
    let job = packer_job::Job {
        names,
        collect,
        tokenizer,
        config: match config {
            Some(file) => packer_job::ConfigChoice::File(file),
            None if no_config => packer_job::ConfigChoice::Ignore,
            None => packer_job::ConfigChoice::Find,
        },
        renderers: Some(template_workers(py, template_seconds, template_memory)?),
        ..packer_job::Job::default()
    };
    let packed = py.detach(move || -> Result<String, Failure> {
        let prepared = packer_job::prepare(&job, Some(&path)).map_err(|error| match error {
            Error::InvalidBudget {
                problem: packer::error::BudgetProblem::MissingForDirectory,
                ..
            } => Failure::usage(
                "pack_directory needs a budget: give budget=N (the payload may use N tokens), \
                 or context_tokens=N with the reservations you need, or budget = N in the \
                 directory's packer.toml"
                    .into(),
            ),
            error => Failure::new(&error, None),
        })?;
        // As `pack --dir` packs it (a marked tree with outlines).
        let packed = prepared
            .pack_directory(|_| {})
            .map_err(|error| Failure::new(&error, None))?;
        packed_json(packed, payload)
    });
    let text = packed.map_err(|failure| failure.into_py(py))?;
    Ok(py.import("json")?.call_method1("loads", (text,))?.unbind())
}

/// Where a chat request's template renders: a worker process (this
/// interpreter again, importing this package) with these limits, so that a
/// hostile template can take down only the worker.
fn template_workers(
    py: Python<'_>,
    seconds: Option<u64>,
    memory_mib: Option<u64>,
) -> PyResult<std::sync::Arc<dyn packer::chat::render::Renderers>> {
    let executable: Option<PathBuf> = py.import("sys")?.getattr("executable")?.extract()?;
    let Some(executable) = executable.filter(|path| !path.as_os_str().is_empty()) else {
        return Err(usage(
            py,
            "a chat request's template renders in a worker process, and sys.executable does not \
             name this interpreter"
                .into(),
        ));
    };
    let defaults = packer_files::render::TemplateLimits::default();
    let limits = packer_files::render::TemplateLimits {
        seconds: seconds.unwrap_or(defaults.seconds),
        memory_mib: memory_mib.unwrap_or(defaults.memory_mib),
    };
    let command = vec![
        executable.into_os_string(),
        "-c".into(),
        "import packer_context; packer_context._render_worker()".into(),
    ];
    Ok(std::sync::Arc::new(
        packer_files::render::WorkerRenderers::new(command, limits),
    ))
}

/// The worker a chat request's template renders in: serves the process
/// that started it on standard input and output, then ends this process.
#[pyfunction]
fn _render_worker(py: Python<'_>) {
    let status = py
        .detach(|| packer_files::render::serve(std::io::stdin().lock(), std::io::stdout().lock()));
    std::process::exit(status);
}

/// The exact ordinary-text token count of ``text`` (as ``packer count``).
///
/// Text that looks like a special token (``<|endoftext|>``) counts as plain
/// text. The default encoding is ``cl100k_base``; ``tokenizer`` counts with
/// a tokenizer file instead. ``bytes`` that are not
/// UTF-8 raise ``PackerError`` with code ``invalid-utf8``. The GIL is
/// released while counting.
#[pyfunction]
#[pyo3(signature = (text, *, encoding=None, model=None, tokenizer=None))]
fn count(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    encoding: Option<&str>,
    model: Option<&str>,
    tokenizer: Option<PathBuf>,
) -> PyResult<usize> {
    let names = RequestNames {
        encoding: encoding.map(str::to_owned),
        model: model.map(str::to_owned),
        tokenizer: tokenizer.is_some(),
        ..RequestNames::default()
    };
    let encoding = names
        .encoding()
        .map_err(|error| packer_error(py, error))?
        .unwrap_or(Encoding::Cl100kBase);
    let bytes = if let Ok(text) = text.cast::<PyString>() {
        utf8_of(text)?
    } else if let Ok(bytes) = text.cast::<PyBytes>() {
        bytes.as_bytes().to_vec()
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "text must be str or bytes",
        ));
    };
    py.detach(move || -> Result<usize, Error> {
        let counter = match &tokenizer {
            Some(path) => Counter::with_tokenizer(packer_files::load_tokenizer(path)?),
            None => Counter::new(encoding),
        };
        let text = packer::fixture::utf8(&bytes)?;
        Ok(counter.count(text))
    })
    .map_err(|error| packer_error(py, error))
}

/// The encodings packer counts with, by name, each with example models.
#[pyfunction]
fn encodings() -> Vec<(&'static str, Vec<&'static str>)> {
    Encoding::ALL
        .into_iter()
        .map(|encoding| (encoding.name(), encoding.example_models().to_vec()))
        .collect()
}

/// packer for Python: exact, whole-document context packing for LLM agents.
///
/// ``pack`` selects whole documents whose complete serialized payload,
/// counted exactly with the model's tokenizer, fits an explicit token budget,
/// and returns the same object as ``packer pack --format json``. ``count`` is
/// the exact ordinary-text token count of a text. Every refusal raises
/// ``PackerError`` with the command line's ``code``, ``exit_status`` and
/// ``message``.
#[pymodule]
fn packer_context(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pack, m)?)?;
    m.add_function(wrap_pyfunction!(pack_directory, m)?)?;
    m.add_function(wrap_pyfunction!(count, m)?)?;
    m.add_function(wrap_pyfunction!(encodings, m)?)?;
    m.add_function(wrap_pyfunction!(_render_worker, m)?)?;
    m.add("PackerError", m.py().get_type::<PackerError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The names packer knows, from the library's own lists.
    m.add("POLICIES", Policy::names().to_vec())?;
    m.add("ENVELOPES", Envelope::names().to_vec())?;
    m.add("ENCODINGS", Encoding::ALL.map(Encoding::name).to_vec())?;
    Ok(())
}
