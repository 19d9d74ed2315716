//! A fixture from a directory's text files: one document per file, walked
//! with the `ignore` crate (so `.gitignore`, `.ignore` and hidden files are
//! respected), and every file that cannot become a document reported.
//!
//! Globs only ever narrow the walk: they are matched as a filter after the
//! walker's own rules, so no glob brings in an ignored or hidden file. Those
//! come in only with [`CollectOptions::no_ignore`] and
//! [`CollectOptions::hidden`], and a `.git` entry never does. Files that
//! contain a secret ([`secrets`]), whose path carries one, or whose
//! name marks a credential file (`.env`, `.netrc`, …, even with
//! [`CollectOptions::hidden`]) are skipped unless
//! [`CollectOptions::allow_secrets`]; a path that carries a secret is
//! reported with that part replaced by `[secret]`. Every file (and every
//! rule file) is read beneath the directory without following links; see
//! `docs/security.md`. `--files-from` lists
//! ([`CollectOptions::files_from`]) go through the same rules, and never
//! reach outside the directory.
//!
//! Every front end (`packer collect`, `packer pack --dir`, the MCP server)
//! builds a [`CollectOptions`] and calls [`collect()`]; [`fixture()`] turns
//! the result into a [`Fixture`](packer::fixture::Fixture) for
//! [`packer::pack()`].

mod collection;
pub mod config;
mod files_from;
pub mod git;
mod globs;
mod ignores;
mod imports;
mod options;
mod order;
mod pack;
pub mod priority;
mod read;
pub mod secrets;
mod tree;
pub mod value;
mod walk;

use std::path::Path;

use packer::error::Error;
use packer_files as files;

use files_from::listed;
use order::order;
use read::{Read, Skip, document, redacted};
use walk::{glob_filter, walk};

pub use collection::{CollectedDocument, Collection, SkipReason, TREE_ID};
pub use globs::{Pattern, unmatched_patterns};
pub use options::{
    BadOption, CollectOptions, DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_FILES, DEFAULT_MAX_TOTAL_BYTES,
    TreeOption, base_url, split_file_list,
};
pub use pack::{fixture, fixture_json, pack};
pub use priority::{PriorityRule, RuleProblem, priority_rules};

/// Walks `dir` (or takes the `files_from` list) and builds the documents;
/// `progress` is called with the number of files seen so far.
pub fn collect(
    dir: &Path,
    options: &CollectOptions,
    mut progress: impl FnMut(usize),
) -> Result<Collection, Error> {
    let root =
        files::Root::open(dir).map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    if !options.confine.is_empty() {
        let real = root
            .real_path()
            .map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
        if !options
            .confine
            .iter()
            .any(|allowed| real.starts_with(allowed))
        {
            return Err(Error::PathOutsideRoot);
        }
    }
    let globs = glob_filter(dir, &options.globs)?;
    let priorities = priority::Matcher::new(dir, &options.priorities)?;
    // Git is asked only when the urls come from it.
    let checkout = options
        .base_url
        .is_none()
        .then(|| git::checkout(dir))
        .flatten();
    let base = match &options.base_url {
        Some(url) => Some(url.clone()),
        None => checkout.as_ref().and_then(|c| {
            let remote = c.remote.as_deref()?;
            git::web_base(remote, &c.commit, &c.prefix)
        }),
    };
    let mut collection = Collection {
        checkout,
        ..Collection::default()
    };
    let rules = (!options.no_ignore)
        .then(|| root.try_clone().map(|root| ignores::Rules::new(root, dir)))
        .transpose()
        .map_err(|error| Error::UnreadableInput { kind: error.kind() })?;
    let visible = walk(
        dir,
        options,
        globs.clone(),
        rules.clone(),
        &mut progress,
        &mut collection.skipped,
        &mut collection.directories,
    )?;
    if let Some(rules) = &rules {
        collection.opened.extend(rules.opened());
    }
    let files = match &options.files_from {
        None => visible,
        Some(list) => {
            let (files, skipped) = listed(dir, list, &visible, options, globs.as_ref());
            collection.skipped.extend(skipped);
            files
        }
    };
    if files.len() + collection.skipped.len() > options.max_files {
        return Err(Error::TooManyFiles {
            limit: options.max_files,
            files: files.len() + collection.skipped.len(),
            counted_all: true,
        });
    }
    let too_much_text = || {
        let bytes = files
            .iter()
            .filter_map(|(_, path)| std::fs::symlink_metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum();
        Error::TooMuchText {
            limit: options.max_total_bytes,
            bytes,
        }
    };
    options.cancel.check()?;
    let mut total = 0u64;
    for (id, path) in &files {
        options.cancel.check()?;
        let relative = path.strip_prefix(dir).unwrap_or(path);
        let remaining = options.max_total_bytes - total;
        let read = Read {
            root: &root,
            relative,
            remaining,
        };
        match document(id, &read, base.as_ref(), options, &mut collection.opened) {
            Ok(mut document) => {
                total += document.content.len() as u64;
                document.priority = priorities.priority(path);
                collection.documents.push(document);
            }
            Err(Skip::Reason(reason)) => collection.skipped.push((id.clone(), reason)),
            Err(Skip::Changed) => collection.changed += 1,
            Err(Skip::SecretName(rule)) => collection
                .skipped
                .push((redacted(id), SkipReason::ContainsSecret(rule))),
            Err(Skip::TooMuchText) => return Err(too_much_text()),
        }
    }
    collection.skipped.sort_by(|a, b| a.0.cmp(&b.0));
    order(dir, &mut collection.documents, options);
    if options.tree != TreeOption::None {
        let mut ids: Vec<&str> = collection.documents.iter().map(|d| d.id.as_str()).collect();
        ids.sort_unstable();
        let tree = CollectedDocument {
            id: TREE_ID.to_owned(),
            url: base.as_ref().map(url::Url::to_string),
            path: base.is_none().then(|| ".".to_owned()),
            format: "text",
            content: tree::render(&ids),
            truncated: false,
            priority: 0,
            required: options.tree == TreeOption::Required,
        };
        collection.documents.insert(0, tree);
    }
    Ok(collection)
}
