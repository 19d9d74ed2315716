//! The one pipeline every front end calls.
//!
//! The command line, the MCP server and the Python package each read their
//! own arguments (flags, a tool call's JSON, keywords) into a [`Job`]: the
//! request's settings by name ([`RequestNames`]), the collecting options,
//! the files to read (a tokenizer file, a chat request and its template)
//! and how they may be read. [`prepare`] then does what used to be written
//! three times: a directory's `packer.toml` fills what the front end was not
//! given (given values win, the file's limits only lower), the directory's
//! budget rule, the request built and checked, the tokenizer file and the
//! chat request loaded (inside the roots when there are roots), the chat
//! template sent to its worker. [`Prepared::pack_directory`] collects the
//! directory and packs, once or into windows ([`Prepared::pack_fixture`]
//! packs a fixture). A front end turns its inputs into a
//! `Job` and the [`Packed`] result into its own output, nothing more.

use std::path::{Path, PathBuf};

use packer::chat::render::Isolation;
use packer::error::BudgetProblem;
use packer::{Cancel, Error, Failure, Fixture, Outcome, Request, RequestNames, WindowsOutcome};
use packer_collect::config::Found;
use packer_collect::{CollectOptions, Collection};
use packer_files::FileId;

/// What to pack and how, as a front end was given it.
#[derive(Debug, Clone, Default)]
pub struct Job {
    /// The request's settings by name, `None` where not given.
    pub names: RequestNames,
    /// How to collect a directory (its limits the front end's).
    pub collect: CollectOptions,
    /// A tokenizer file to count with.
    pub tokenizer: Option<PathBuf>,
    /// The chat request, if the front end names one.
    pub chat: ChatSource,
    /// How the chat request is written (`--chat-format`): with its chat
    /// template (the default), or in harmony's format as vLLM writes it.
    pub chat_format: packer::chat::ChatFormat,
    /// Which `packer.toml` a directory is read with.
    pub config: ConfigChoice,
    /// When set, every file the job reads (the tokenizer file, a chat
    /// template, the files beside the tokenizer) and the directory must
    /// lie inside these canonical directories (an MCP server's roots).
    pub roots: Option<Vec<PathBuf>>,
    /// Where a chat template renders (`None`: in this process).
    pub renderers: Isolation,
    /// Set by another thread to stop the job early.
    pub cancel: Cancel,
    /// Where the pack says how far it has got (none by default).
    pub progress: packer::Progress,
}

/// Where a chat request comes from.
#[derive(Debug, Clone, Default)]
pub enum ChatSource {
    /// None from the front end (a directory's `packer.toml` may name one).
    #[default]
    None,
    /// A request file (`--request`), with its template file if given.
    File {
        /// The request file.
        request: PathBuf,
        /// The template file (`--chat-template`).
        template: Option<PathBuf>,
    },
    /// A request given as its JSON bytes (an MCP argument, a Python
    /// dict), with its template file if given.
    Inline {
        /// The request's JSON text.
        request: Vec<u8>,
        /// The template file.
        template: Option<PathBuf>,
    },
}

/// Which `packer.toml` a directory is read with.
#[derive(Debug, Clone, Default)]
pub enum ConfigChoice {
    /// The directory's own `packer.toml` (or `.packer.toml`), if any.
    #[default]
    Find,
    /// This file (`--config FILE`).
    File(PathBuf),
    /// None (`--no-config`).
    Ignore,
}

/// A job ready to run: its request built and its files read.
#[derive(Debug)]
pub struct Prepared {
    request: Request,
    collect: CollectOptions,
    config: Option<Found>,
    read: Vec<FileId>,
    directory: Option<PathBuf>,
}

/// What a job packed.
#[derive(Debug)]
pub struct Packed {
    /// The fixture packed (a directory's, as collected).
    pub fixture: Fixture,
    /// The request it was packed with.
    pub request: Request,
    /// The directory's collection, for a directory.
    pub collection: Option<Collection>,
    /// The pack, or why it failed (something that does not fit keeps a
    /// decision for every document).
    pub result: Result<Packing, Failure>,
}

/// One payload or several.
#[derive(Debug)]
pub enum Packing {
    /// One payload.
    One(Outcome),
    /// Every document in as few windows as possible.
    Windows(WindowsOutcome),
}

/// Reads what `job` names, for the directory `directory` (`None` for a
/// fixture, which [`Prepared::pack_fixture`] takes once the front end has
/// read it); the directory itself is not walked yet.
pub fn prepare(job: &Job, directory: Option<&Path>) -> Result<Prepared, Error> {
    let mut names = job.names.clone();
    let mut collect = job.collect.clone();
    collect.cancel = job.cancel.clone();
    if let Some(roots) = &job.roots {
        collect.confine = roots.clone();
    }
    let mut read = Vec::new();
    let config = match directory {
        Some(dir) => match &job.config {
            ConfigChoice::Find => packer_collect::config::find(dir)?,
            ConfigChoice::File(path) => Some(packer_collect::config::load(path)?),
            ConfigChoice::Ignore => None,
        },
        None => None,
    };
    if let Some(found) = &config {
        found.config.fill_names(&mut names);
        found.config.fill_collect(&mut collect)?;
        read.extend(found.id);
    }
    if !names.note_omissions {
        names.note_omissions_max = None;
    }
    if names.excerpt_query.is_none() {
        names.excerpt_context = None;
        names.excerpt_max_chars = None;
    }
    let mut request = names.build()?;
    request.options.cancel = job.cancel.clone();
    request.options.progress = job.progress.clone();
    if let Some(path) = &job.tokenizer {
        request.tokenizer = Some(match &job.roots {
            Some(roots) => packer_files::load_tokenizer_confined(path, roots)?,
            None => packer_files::load_tokenizer(path)?,
        });
    }
    let tokenizer = job.tokenizer.as_deref();
    let roots = job.roots.as_deref();
    let now = packer_files::now();
    let chat = match &job.chat {
        ChatSource::File { request, template } => {
            packer_files::load_chat(request, template.as_deref(), tokenizer, now).map(Some)
        }
        ChatSource::Inline { request, template } => {
            packer_files::chat_of(request, template.as_deref(), tokenizer, roots, now).map(Some)
        }
        // The directory's file's request and template, read beneath it.
        ChatSource::None => match (directory, &config) {
            (Some(dir), Some(found)) => {
                packer_collect::config::chat(dir, &found.config, &found.name, tokenizer, roots, now)
                    .map(|chat| {
                        chat.map(|chat| {
                            read.extend(chat.read);
                            chat.chat
                        })
                    })
            }
            _ => Ok(None),
        },
    };
    // The caller's format, or with the directory's request its file's.
    let format = match (&job.chat, &config) {
        (ChatSource::None, Some(found)) => found
            .config
            .chat_format
            .as_deref()
            .and_then(|name| name.parse().ok())
            .unwrap_or(job.chat_format),
        _ => job.chat_format,
    };
    request.chat = framed(&request, chat)?;
    if let Some(chat) = &mut request.chat {
        chat.format = format;
    }
    if let Some(chat) = &mut request.chat {
        chat.isolation.clone_from(&job.renderers);
        chat.cancel = job.cancel.clone();
    }
    if directory.is_some() {
        directory_budget(&mut request)?;
    }
    Ok(Prepared {
        request,
        collect,
        config,
        read,
        directory: directory.map(Path::to_path_buf),
    })
}

/// The chat request loaded, unless the tokenizer file counts with no
/// published framing (a Mistral `tekken.json`, whose special tokens packer
/// does not read): then the request is refused as such, whether a
/// template was found for it or is missing (the missing template is not
/// what is wrong).
fn framed(
    request: &Request,
    chat: Result<Option<packer::Chat>, Error>,
) -> Result<Option<packer::Chat>, Error> {
    let unframed = request.tokenizer.filter(|tokenizer| {
        packer::Counter::with_tokenizer(*tokenizer)
            .special_texts()
            .is_none()
    });
    match (unframed, chat) {
        (Some(tokenizer), Ok(Some(_)) | Err(Error::ChatTemplateMissing { .. })) => {
            Err(Error::RequestFramingUnknown {
                counted_with: tokenizer.label(),
            })
        }
        (_, chat) => chat,
    }
}

/// A directory has no budget of its own: one must be given, and the
/// reservations not given are 0.
fn directory_budget(request: &mut Request) -> Result<(), Error> {
    let budget = &mut request.budget;
    if budget.context_tokens.is_none() {
        return Err(Error::InvalidBudget {
            field: "contextTokens",
            problem: BudgetProblem::MissingForDirectory,
        });
    }
    for value in [
        &mut budget.reserved_other_input_tokens,
        &mut budget.reserved_output_tokens,
        &mut budget.safety_tokens,
    ] {
        value.get_or_insert(0);
    }
    Ok(())
}

impl Prepared {
    /// The request the job packs with.
    pub fn request(&self) -> &Request {
        &self.request
    }

    /// The collecting options, the configuration file's filled in.
    pub fn collect_options(&self) -> &CollectOptions {
        &self.collect
    }

    /// The configuration file read, if any.
    pub fn config(&self) -> Option<&Found> {
        self.config.as_ref()
    }

    /// The files read so far (the configuration file, the files of its
    /// chat request), so that nothing is written over them.
    pub fn read_files(&self) -> &[FileId] {
        &self.read
    }

    /// The directory to pack, if the job is for one.
    pub fn directory(&self) -> Option<&Path> {
        self.directory.as_deref()
    }

    /// Packs `fixture`, once or into windows as the request says.
    pub fn pack_fixture(self, fixture: Fixture) -> Packed {
        let result = pack(&fixture, &self.request);
        Packed {
            fixture,
            request: self.request,
            collection: None,
            result,
        }
    }

    /// Collects the directory (with `progress` called as files are seen)
    /// and packs it, once or into windows as the request says.
    pub fn pack_directory(self, progress: impl FnMut(usize)) -> Result<Packed, Error> {
        let collection = self.collect(progress)?;
        self.pack_collection(collection)
    }

    /// Collects the directory, with `progress` called as files are seen.
    pub fn collect(&self, progress: impl FnMut(usize)) -> Result<Collection, Error> {
        let dir = self
            .directory
            .as_deref()
            .expect("a job prepared for a directory");
        packer_collect::collect(dir, &self.collect, progress)
    }

    /// Packs a collection of the directory, once or into windows.
    pub fn pack_collection(self, collection: Collection) -> Result<Packed, Error> {
        let request = self.request;
        let (fixture, result) = if request.options.windows {
            let fixture = packer_collect::fixture(&collection)?;
            let result = pack(&fixture, &request);
            (fixture, result)
        } else {
            // A marked tree with outlines (see packer_collect::pack).
            let (fixture, result) = packer_collect::pack(&collection, &request)?;
            (fixture, result.map(Packing::One))
        };
        Ok(Packed {
            fixture,
            request,
            collection: Some(collection),
            result,
        })
    }
}

/// One pack or windows, as the request says.
fn pack(fixture: &Fixture, request: &Request) -> Result<Packing, Failure> {
    if request.options.windows {
        packer::pack_windows(fixture, request).map(Packing::Windows)
    } else {
        packer::pack(fixture, request).map(Packing::One)
    }
}

impl Packed {
    /// The settings the fixture resolved to, for the object a front end
    /// prints when something does not fit.
    pub fn settings(&self) -> Result<packer::Settings, Error> {
        packer::settings(&self.fixture, &self.request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    #[test]
    fn a_directory_needs_a_budget_and_its_reservations_default_to_zero() {
        let dir = tree(&[("a.txt", "alpha\n")]);
        let error = prepare(&Job::default(), Some(dir.path())).unwrap_err();
        assert_eq!(error.code(), "invalid-budget");
        let job = Job {
            names: RequestNames {
                context_tokens: Some(500),
                ..RequestNames::default()
            },
            ..Job::default()
        };
        let prepared = prepare(&job, Some(dir.path())).unwrap();
        let budget = prepared.request().budget;
        assert_eq!(budget.reserved_output_tokens, Some(0));
        assert_eq!(budget.safety_tokens, Some(0));
        // A fixture keeps its own reservations.
        let prepared = prepare(&job, None).unwrap();
        assert_eq!(prepared.request().budget.safety_tokens, None);
    }

    #[test]
    fn packer_toml_fills_what_the_job_does_not_give_and_only_lowers_limits() {
        let dir = tree(&[
            ("a.txt", "alpha\n"),
            (
                "packer.toml",
                "budget = 900\npolicy = \"priority\"\nenvelope = \"xml\"\nmax-file-bytes = 3\n\
                 max-files = 99999999\n",
            ),
        ]);
        let given = Job {
            names: RequestNames {
                envelope: Some("json".into()),
                ..RequestNames::default()
            },
            ..Job::default()
        };
        let prepared = prepare(&given, Some(dir.path())).unwrap();
        let request = prepared.request();
        assert_eq!(request.budget.context_tokens, Some(900));
        assert_eq!(request.options.policy, packer::Policy::Priority);
        assert_eq!(request.options.envelope, packer::Envelope::Json);
        assert_eq!(prepared.collect_options().max_file_bytes, 3);
        assert_eq!(
            prepared.collect_options().max_files,
            packer_collect::DEFAULT_MAX_FILES
        );
        assert_eq!(prepared.read_files().len(), 1);
        let ignored = Job {
            config: ConfigChoice::Ignore,
            ..given
        };
        assert_eq!(
            prepare(&ignored, Some(dir.path())).unwrap_err().code(),
            "invalid-budget"
        );
    }
}
