//! The collecting flags shared by `packer collect DIR` and
//! `packer pack --dir DIR`, and the one call that runs them: flags in,
//! [`CollectOptions`] to the library, skipped files out on stderr.

use std::io;
use std::path::{Path, PathBuf};

use clap::Args;

use packer::Error;
use packer_collect::config::{self, Config};
use packer_collect::{self as collect, CollectOptions, Collection, PriorityRule, TreeOption};

/// What to collect and how (every flag here needs the directory).
#[derive(Debug, Args)]
pub struct CollectFlags {
    /// The URL that relative paths are joined to for each file's url
    /// [default: the Git remote's web address at the current commit; without
    /// a forge remote, files carry their relative paths and no url]
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Only files matching this glob (repeatable; `!` excludes); globs
    /// only narrow: they never bring in ignored or hidden files
    #[arg(long = "glob", value_name = "PATTERN")]
    pub globs: Vec<String>,

    /// Set the priority of matching files (repeatable; the last matching
    /// rule wins; files no rule matches get 0)
    #[arg(long = "priority", value_name = "GLOB=N", value_parser = priority_rule)]
    pub priorities: Vec<PriorityRule>,

    /// Within equal priority, put files changed most recently in Git first
    #[arg(long)]
    pub git_order: bool,

    /// Collect exactly the paths listed in FILE (- for standard input;
    /// one per line, or NUL-separated as from `git ls-files -z`)
    #[arg(long, value_name = "FILE|-")]
    pub files_from: Option<PathBuf>,

    /// Add the directory tree of the collected files as a required
    /// document (id `tree:/`)
    #[arg(long)]
    pub tree: bool,

    /// Add the tree as an optional document instead
    #[arg(long, conflicts_with = "tree")]
    pub tree_optional: bool,

    /// Also collect hidden files (names starting with `.`; `.git` never)
    #[arg(long)]
    pub hidden: bool,

    /// Also collect files that .gitignore, .ignore or Git's excludes leave out
    #[arg(long)]
    pub no_ignore: bool,

    /// Collect files that contain a secret (a private key, a cloud or
    /// service token) instead of skipping them
    #[arg(long)]
    pub allow_secrets: bool,

    /// Skip files larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = collect::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_bytes: u64,

    /// Refuse directories with more files than this
    #[arg(long, value_name = "N", default_value_t = collect::DEFAULT_MAX_FILES)]
    pub max_files: usize,

    /// Refuse collections with more bytes of text than this
    #[arg(long, value_name = "N", default_value_t = collect::DEFAULT_MAX_TOTAL_BYTES)]
    pub max_total_bytes: u64,

    /// Read the settings from this file instead of the directory's
    /// packer.toml (or .packer.toml); flags still win
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Ignore the directory's packer.toml
    #[arg(long)]
    pub no_config: bool,
}

fn priority_rule(text: &str) -> Result<PriorityRule, String> {
    text.parse()
        .map_err(|problem: collect::RuleProblem| problem.to_string())
}

impl CollectFlags {
    /// The first collecting flag given, if any (they need a directory).
    pub fn first_given(&self) -> Option<&'static str> {
        let given = [
            (self.base_url.is_some(), "--base-url"),
            (self.config.is_some(), "--config"),
            (self.no_config, "--no-config"),
            (!self.globs.is_empty(), "--glob"),
            (!self.priorities.is_empty(), "--priority"),
            (self.git_order, "--git-order"),
            (self.files_from.is_some(), "--files-from"),
            (self.tree, "--tree"),
            (self.tree_optional, "--tree-optional"),
            (self.hidden, "--hidden"),
            (self.no_ignore, "--no-ignore"),
            (self.allow_secrets, "--allow-secrets"),
            (
                self.max_file_bytes != collect::DEFAULT_MAX_FILE_BYTES,
                "--max-file-bytes",
            ),
            (self.max_files != collect::DEFAULT_MAX_FILES, "--max-files"),
            (
                self.max_total_bytes != collect::DEFAULT_MAX_TOTAL_BYTES,
                "--max-total-bytes",
            ),
        ];
        given
            .into_iter()
            .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The configuration: `--config FILE`, else the directory's
    /// `packer.toml` or `.packer.toml` (unless `--no-config`).
    pub fn config(&self, dir: &Path) -> Result<Option<config::Found>, Error> {
        match &self.config {
            Some(path) => config::load(path).map(Some),
            None if self.no_config => Ok(None),
            None => config::find(dir),
        }
    }

    /// Which configuration the job reads (`--config FILE`, `--no-config`,
    /// else the directory's own).
    pub fn config_choice(&self) -> packer_job::ConfigChoice {
        match &self.config {
            Some(path) => packer_job::ConfigChoice::File(path.clone()),
            None if self.no_config => packer_job::ConfigChoice::Ignore,
            None => packer_job::ConfigChoice::Find,
        }
    }

    /// The collecting options the flags give (the configuration file
    /// fills the rest, in the job).
    pub fn options(&self) -> Result<CollectOptions, Error> {
        let files_from = self
            .files_from
            .as_deref()
            .map(|path| read_list(path, self.max_total_bytes))
            .transpose()?;
        let base_url = match &self.base_url {
            Some(url) => Some(collect::base_url(url).map_err(|_| Error::InvalidBaseUrl)?),
            None => None,
        };
        Ok(CollectOptions {
            base_url,
            globs: self.globs.clone(),
            max_file_bytes: self.max_file_bytes,
            max_files: self.max_files,
            max_total_bytes: self.max_total_bytes,
            hidden: self.hidden,
            no_ignore: self.no_ignore,
            allow_secrets: self.allow_secrets,
            priorities: self.priorities.clone(),
            git_order: self.git_order,
            files_from,
            tree: if self.tree {
                TreeOption::Required
            } else if self.tree_optional {
                TreeOption::Optional
            } else {
                TreeOption::None
            },
            confine: Vec::new(),
            cancel: packer::Cancel::default(),
        })
    }

    /// Collects `dir` with the flags and `config`, showing progress on a
    /// terminal (unless `quiet`) and listing every skipped file on
    /// standard error.
    pub fn collect(
        &self,
        dir: &Path,
        config: Option<&Config>,
        quiet: bool,
    ) -> Result<Collection, Error> {
        let mut options = self.options()?;
        if let Some(config) = config {
            config.fill_collect(&mut options)?;
        }
        let bar = super::progress::Bar::new(quiet);
        let collection = collect::collect(dir, &options, bar.collecting());
        bar.finish();
        let collection = collection?;
        report(dir, &collection, &options);
        Ok(collection)
    }
}

/// Lists on standard error what the collection left out and why, what it
/// placed last, what changed while it ran, and the patterns that matched
/// nothing (clearing the progress line first on a terminal).
pub fn report(dir: &Path, collection: &Collection, options: &CollectOptions) {
    for (path, reason) in &collection.skipped {
        say!(
            "skipped {}: {}",
            packer::output::terminal_safe(path),
            reason.describe()
        );
    }
    if let Some(list) = &options.files_from {
        let files = collection
            .documents
            .iter()
            .filter(|d| d.id != collect::TREE_ID)
            .count();
        if list.is_empty() {
            say!("warning: the --files-from list names no file; nothing is collected");
        } else if files == 0 {
            say!(
                "warning: no path of the --files-from list ({} listed) became a document; the lines above say why",
                list.len()
            );
        }
    }
    let last = collection.placed_last();
    for (id, rule) in last.iter().take(PLACED_LAST_LISTED) {
        say!(
            "placed last: {} ({rule})",
            packer::output::terminal_safe(id)
        );
    }
    if last.len() > PLACED_LAST_LISTED {
        say!(
            "placed last: {} more low-value files",
            last.len() - PLACED_LAST_LISTED
        );
    }
    if collection.changed > 0 {
        say!(
            "note: {} file(s) became symbolic links, or moved under one, while the directory was collected; they were left out",
            collection.changed
        );
    }
    for (kind, pattern) in collect::unmatched_patterns(dir, options, collection) {
        let flag = match kind {
            collect::Pattern::Glob => "--glob",
            collect::Pattern::Priority => "--priority",
        };
        say!(
            "warning: {flag} '{}' matches no collected file",
            packer::output::terminal_safe(&pattern)
        );
    }
    let urls_from_git =
        options.base_url.is_none() && collection.documents.iter().any(|d| d.url.is_some());
    if urls_from_git && let Some(checkout) = collection.checkout.as_ref().filter(|c| c.dirty) {
        say!(
            "note: the directory has uncommitted changes; urls point at commit {}",
            checkout.commit
        );
    }
}

/// How many low-value files standard error names (then only counts).
const PLACED_LAST_LISTED: usize = 20;

/// Reads a `--files-from` list (a file, or - for standard input), at most
/// `--max-total-bytes` of it.
fn read_list(path: &Path, limit: u64) -> Result<Vec<String>, Error> {
    let read = if path == Path::new("-") {
        packer::fixture::read_bounded(io::stdin().lock(), limit)
    } else {
        let file = std::fs::File::open(path).map_err(|error| Error::ReadFailed {
            path: packer::output::terminal_safe(&path.to_string_lossy()),
            kind: error.kind(),
        })?;
        packer::fixture::read_bounded(file, limit)
    };
    let bytes = match read {
        Err(Error::InputTooLarge { limit, .. }) => return Err(Error::FileListTooLarge { limit }),
        other => other?,
    };
    let text = packer::fixture::utf8(&bytes)?;
    Ok(collect::split_file_list(text))
}
