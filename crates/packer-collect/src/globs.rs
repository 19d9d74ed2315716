//! The `--glob` and `--priority` patterns that selected nothing, for front
//! ends to name (a pattern that selects nothing is most often a mistake).

use std::path::Path;

use ignore::overrides::OverrideBuilder;

use crate::{CollectOptions, Collection, TREE_ID};

/// The patterns of `options` that match none of `collection`'s documents:
/// each `--glob` that is not a `!` exclusion, then each `--priority`
/// rule's glob, as given (a pattern that selects nothing is most often a
/// mistake worth saying).
pub fn unmatched_patterns(
    dir: &Path,
    options: &CollectOptions,
    collection: &Collection,
) -> Vec<(Pattern, String)> {
    let ids: Vec<&Path> = collection
        .documents
        .iter()
        .filter(|d| d.id != TREE_ID)
        .map(|d| Path::new(d.id.as_str()))
        .collect();
    let matches_one = |glob: &str| -> bool {
        let mut builder = OverrideBuilder::new(dir);
        if builder.add(glob).is_err() {
            return true;
        }
        let Ok(matcher) = builder.build() else {
            return true;
        };
        ids.iter()
            .any(|id| matcher.matched(id, false).is_whitelist())
    };
    let globs = options
        .globs
        .iter()
        .filter(|glob| !glob.starts_with('!'))
        .filter(|glob| !matches_one(glob))
        .map(|glob| (Pattern::Glob, glob.clone()));
    let rules = options
        .priorities
        .iter()
        .filter(|rule| !matches_one(&rule.glob))
        .map(|rule| {
            (
                Pattern::Priority,
                format!("{}={}", rule.glob, rule.priority),
            )
        });
    globs.chain(rules).collect()
}

/// Which kind of pattern [`unmatched_patterns`] names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// A `--glob`.
    Glob,
    /// A `--priority` rule.
    Priority,
}
