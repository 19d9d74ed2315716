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
pub(crate) fn order(dir: &Path, documents: &mut Vec<CollectedDocument>, options: &CollectOptions) {
    let ranks = if options.git_order {
        git::change_ranks(dir)
    } else {
        HashMap::new()
    };
    let rank = |d: &CollectedDocument| ranks.get(&d.id).copied().unwrap_or(usize::MAX);
    // Each file's place, found once.
    let places: Vec<value::Place> = documents
        .iter()
        .map(|d| value::place_in(&d.id, &d.content))
        .collect();
    // Entry points and source of the package with the most source first
    // (the main crate of a workspace before its satellites); within a
    // package the shallowest files first, the most imported first among
    // them (the core before adapters and helpers), then by path.
    let mut package_bytes: HashMap<String, usize> = HashMap::new();
    for (d, _) in documents
        .iter()
        .zip(&places)
        .filter(|(_, place)| place.is_code())
    {
        *package_bytes
            .entry(value::package(&d.id).to_owned())
            .or_default() += d.content.len();
    }
    let fan_in: Vec<usize> = if options.git_order {
        vec![0; documents.len()]
    } else {
        let files: Vec<(&str, &str)> = documents
            .iter()
            .map(|d| (d.id.as_str(), d.content.as_str()))
            .collect();
        let code: Vec<bool> = places.iter().map(|place| place.is_code()).collect();
        imports::fan_in(&files, &code)
    };
    let key = |d: &CollectedDocument, place: value::Place, imported: usize| {
        let (package, name, depth, imported) = if place.is_code() && !options.git_order {
            let name = value::package(&d.id);
            let depth = d.id[name.len()..].matches('/').count();
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
    };
    // Every key ends with the id, which no two files share: the order is
    // total, as with a sort of the documents by their keys.
    let mut keyed: Vec<_> = std::mem::take(documents)
        .into_iter()
        .zip(places.into_iter().zip(fan_in))
        .map(|(d, (place, imported))| (key(&d, place, imported), d))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    documents.extend(keyed.into_iter().map(|(_, d)| d));
}
