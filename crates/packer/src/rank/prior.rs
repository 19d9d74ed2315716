//! The value prior: what a file is before what it says. The default order
//! (README and manifests, core source, then the rest, low-value files
//! last) as a small score, and kinds of file a task rarely needs to read
//! first (tests, documentation, data and configuration) weighed down.

/// How much the default order adds at most (the first document gets it
/// all, the last none).
pub(super) const ORDER_WEIGHT: f64 = 0.05;

/// The factor for a test, an example or a benchmark.
const TEST: f64 = 0.3;
/// For documentation (not the top-level README).
const DOCUMENTATION: f64 = 0.5;
/// For what is neither source nor documentation (data, configuration).
const OTHER: f64 = 0.7;

/// Extensions of source files.
const SOURCE: &[&str] = &[
    ".c", ".cc", ".cjs", ".cpp", ".cs", ".cxx", ".go", ".h", ".hh", ".hpp", ".java", ".js", ".jsx",
    ".kt", ".mjs", ".php", ".py", ".rb", ".rs", ".scala", ".swift", ".ts", ".tsx",
];

/// Whether `path` is a source file (by its extension).
pub(super) fn is_source(path: &str) -> bool {
    SOURCE.iter().any(|extension| path.ends_with(extension))
}

/// Whether `path` is a test, an example or a benchmark.
pub(crate) fn is_test(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let (directories, name) = parts.split_at(parts.len().saturating_sub(1));
    let name = name.first().copied().unwrap_or_default();
    directories.iter().any(|dir| {
        matches!(
            *dir,
            "test"
                | "tests"
                | "testing"
                | "__tests__"
                | "spec"
                | "specs"
                | "testdata"
                | "fixture"
                | "fixtures"
                | "bench"
                | "benches"
                | "example"
                | "examples"
        )
    }) || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.starts_with("test_")
        || name == "test.rs"
        || name == "tests.rs"
}

/// Whether `path` is documentation.
fn is_documentation(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".rst", ".txt", ".adoc"]
        .iter()
        .any(|extension| lower.ends_with(extension))
        || ["docs/", "doc/", "site/", "documentation/"]
            .iter()
            .any(|dir| lower.starts_with(dir))
}

/// The factor a document's relevance is weighed with for its kind.
pub(super) fn kind_factor(path: &str) -> f64 {
    if is_test(path) {
        TEST
    } else if is_documentation(path) {
        if path.to_ascii_lowercase().starts_with("readme") {
            1.0
        } else {
            DOCUMENTATION
        }
    } else if is_source(path) {
        1.0
    } else {
        OTHER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_file_are_weighed_by_their_path() {
        assert_eq!(kind_factor("src/walk.rs"), 1.0);
        assert_eq!(kind_factor("tests/walk.rs"), TEST);
        assert_eq!(kind_factor("pkg/walk_test.go"), TEST);
        assert_eq!(kind_factor("src/app.spec.ts"), TEST);
        assert_eq!(kind_factor("README.md"), 1.0);
        assert_eq!(kind_factor("docs/guide.md"), DOCUMENTATION);
        assert_eq!(kind_factor("package.json"), OTHER);
    }
}
