//! The order of the documents: priority, then the value order, then the
//! package and import structure of the code (or Git's change order).

use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::Path;

use crate::{CollectOptions, CollectedDocument, git, imports, value};

/// Sorts by priority (highest first), then in the value order of
/// [`value::place`] (low-value files after the others; with `git_order`,
/// the others by how recently Git changed them, never-committed files
/// last), then by id.
pub(crate) fn order(dir: &Path, documents: &mut [CollectedDocument], options: &CollectOptions) {
    let ranks = if options.git_order {
        git::change_ranks(dir)
    } else {
        HashMap::new()
    };
    let rank = |d: &CollectedDocument| ranks.get(&d.id).copied().unwrap_or(usize::MAX);
    let place = |d: &CollectedDocument| value::place_in(&d.id, &d.content);
    // Entry points and source of the package with the most source first
    // (the main crate of a workspace before its satellites); within a
    // package the shallowest files first, the most imported first among
    // them (the core before adapters and helpers), then by path.
    let mut package_bytes: HashMap<String, usize> = HashMap::new();
    for d in documents.iter().filter(|d| place(d).is_code()) {
        *package_bytes
            .entry(value::package(&d.id).to_owned())
            .or_default() += d.content.len();
    }
    let fan_in: HashMap<String, usize> = if options.git_order {
        HashMap::new()
    } else {
        let files: Vec<(&str, &str)> = documents
            .iter()
            .map(|d| (d.id.as_str(), d.content.as_str()))
            .collect();
        let code: Vec<bool> = documents.iter().map(|d| place(d).is_code()).collect();
        let counts = imports::fan_in(&files, &code);
        documents
            .iter()
            .zip(counts)
            .filter(|(_, count)| *count > 0)
            .map(|(d, count)| (d.id.clone(), count))
            .collect()
    };
    documents.sort_by_cached_key(|d| {
        let place = place(d);
        let (package, name, depth, imported) = if place.is_code() && !options.git_order {
            let name = value::package(&d.id);
            let depth = d.id[name.len()..].matches('/').count();
            let imported = fan_in.get(&d.id).copied().unwrap_or(0);
            (package_bytes[name], name.to_owned(), depth, imported)
        } else {
            (0, String::new(), 0, 0)
        };
        let (place, rank) = if options.git_order {
            (place.is_low_value().then_some(place), rank(d))
        } else {
            (Some(place), 0)
        };
        (
            Reverse(d.priority),
            place,
            rank,
            Reverse(package),
            name,
            depth,
            Reverse(imported),
            d.id.clone(),
        )
    });
}
