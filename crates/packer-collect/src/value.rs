//! The value order of a collected tree: what a reader of a repository
//! needs first, and what it rarely needs at all.
//!
//! Every file gets a [`Place`] from its path alone (deterministic, no
//! content read): the top-level README, then the top-level manifest, then
//! entry points, library source, documentation, tests, examples and
//! benches, other files; and last, whatever low-value rule it
//! matches (licences, changelogs and release notes, `*.orig`, lock files,
//! minified files, build output, generated and vendored files).
//! [`super::collect`] sorts by priority (`--priority` rules) first, then
//! puts the low-value files after the others, then orders by place (or,
//! with `--git-order`, by the last change), then by path.

/// Where a file goes in the value order; earlier variants go first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Place {
    /// `README`, `README.md`, ... at the top of the tree.
    Readme,
    /// The top-level build or package manifest (`Cargo.toml`,
    /// `package.json`, `pyproject.toml`, `go.mod`, ...).
    Manifest,
    /// A program's or library's entry point (`src/lib.rs`, `src/main.rs`,
    /// `main.go`, `index.ts`, a package's `__init__.py`, ...).
    EntryPoint,
    /// Other source code.
    Source,
    /// Documentation: Markdown, reStructuredText, AsciiDoc and text files,
    /// and anything under `docs/` or `doc/`.
    Docs,
    /// Tests, test data and fixtures.
    Tests,
    /// Examples and benchmarks.
    Examples,
    /// Everything else: configuration, CI, scripts' data.
    Other,
    /// A low-value file, by the rule named.
    Last(&'static str),
}

impl Place {
    /// How the place is named in messages.
    pub fn name(self) -> &'static str {
        match self {
            Place::Readme => "top-level README",
            Place::Manifest => "top-level manifest",
            Place::EntryPoint => "entry point",
            Place::Source => "source",
            Place::Docs => "documentation",
            Place::Tests => "tests",
            Place::Examples => "examples and benches",
            Place::Other => "other",
            Place::Last(rule) => rule,
        }
    }

    /// Whether the file is an entry point or other source (ordered by
    /// package).
    pub fn is_code(self) -> bool {
        matches!(self, Place::EntryPoint | Place::Source)
    }

    /// Whether the file goes after every other file of its priority.
    pub fn is_low_value(self) -> bool {
        matches!(self, Place::Last(_))
    }
}

/// A low-value rule: its name and whether a path matches it.
type Rule = (&'static str, fn(&Path) -> bool);

/// The low-value rules, in the order they are tried.
const LOW_VALUE: [Rule; 12] = [
    ("vendored", |p| {
        p.dirs.iter().any(|d| VENDOR_DIRS.contains(&d.as_str()))
    }),
    ("licence", |p| {
        !p.source && starts_with_any(&p.stem_upper, &LICENCE_NAMES)
    }),
    ("code of conduct", |p| {
        !p.source && starts_with_any(&p.stem_upper, &["CODE_OF_CONDUCT", "CONDUCT"])
    }),
    ("authors", |p| {
        !p.source
            && starts_with_any(
                &p.stem_upper,
                &["AUTHORS", "CONTRIBUTORS", "MAINTAINERS", "CODEOWNERS"],
            )
    }),
    ("image", |p| p.lower.ends_with(".svg")),
    ("certificate", |p| {
        [
            ".pem", ".crt", ".cer", ".csr", ".srl", ".der", ".p12", ".pfx",
        ]
        .iter()
        .any(|end| p.lower.ends_with(end))
    }),
    ("changelog", |p| {
        !p.source && CHANGELOG_NAMES.contains(&p.stem_upper.as_str())
    }),
    ("lock file", |p| LOCK_FILES.contains(&p.name)),
    ("*.orig", |p| {
        p.name.ends_with(".orig") || p.name.ends_with(".rej")
    }),
    ("minified", |p| {
        [".min.js", ".min.css", ".min.mjs", ".min.cjs", "-min.js"]
            .iter()
            .any(|end| p.lower.ends_with(end))
    }),
    ("build output", |p| {
        p.dirs.iter().any(|d| d == "dist")
            || [".js.map", ".mjs.map", ".cjs.map", ".css.map", ".ts.map"]
                .iter()
                .any(|end| p.lower.ends_with(end))
            || [".bundle.", ".umd.", ".cjs.development.", ".cjs.production."]
                .iter()
                .any(|part| p.lower.contains(part))
    }),
    ("generated", |p| {
        [
            ".pb.go",
            "_pb2.py",
            "_pb2_grpc.py",
            ".g.dart",
            ".designer.cs",
            ".pb.h",
            ".pb.cc",
        ]
        .iter()
        .any(|end| p.lower.ends_with(end))
            || p.lower.contains(".generated.")
            || p.dirs
                .iter()
                .any(|d| *d == "generated" || *d == "__generated__")
    }),
];

/// Directories whose files are someone else's code.
const VENDOR_DIRS: [&str; 6] = [
    "vendor",
    "third_party",
    "third-party",
    "thirdparty",
    "node_modules",
    "bower_components",
];

/// File names (upper case, before any extension) of licences and notices.
const LICENCE_NAMES: [&str; 7] = [
    "LICENSE",
    "LICENCE",
    "COPYING",
    "COPYRIGHT",
    "NOTICE",
    "PATENTS",
    "UNLICENSE",
];

/// File names (upper case, before any extension) of change histories,
/// matched whole.
const CHANGELOG_NAMES: [&str; 6] = [
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "RELEASES",
    "RELEASE-NOTES",
    "NEWS",
];

/// Package managers' lock files: generated, long, and seldom what a
/// question is about.
const LOCK_FILES: [&str; 20] = [
    "Cargo.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lock",
    "deno.lock",
    "poetry.lock",
    "Pipfile.lock",
    "uv.lock",
    "pdm.lock",
    "Gemfile.lock",
    "composer.lock",
    "go.sum",
    "flake.lock",
    "mix.lock",
    "pubspec.lock",
    "Podfile.lock",
    "packages.lock.json",
    "Package.resolved",
];

/// Top-level manifests: what the project is, its dependencies and how it
/// is built.
const MANIFESTS: [&str; 22] = [
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "CMakeLists.txt",
    "meson.build",
    "Makefile",
    "Gemfile",
    "composer.json",
    "mix.exs",
    "Package.swift",
    "pubspec.yaml",
    "deno.json",
    "build.zig",
    "Project.toml",
    "stack.yaml",
];

/// Source file extensions (lower case).
const SOURCE_EXTENSIONS: [&str; 48] = [
    "rs", "py", "pyi", "js", "mjs", "cjs", "jsx", "ts", "mts", "cts", "tsx", "go", "java", "kt",
    "kts", "scala", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cs", "fs", "rb", "php",
    "swift", "m", "mm", "ex", "exs", "erl", "hs", "ml", "mli", "clj", "lua", "dart", "zig", "nim",
    "jl", "r", "pl", "sh", "vue", "svelte",
];

/// Stems of entry-point files.
const ENTRY_STEMS: [&str; 7] = ["main", "lib", "index", "app", "mod", "__init__", "__main__"];

/// Directories of tests and of examples and benches (lower case).
const TEST_DIRS: [&str; 9] = [
    "tests",
    "test",
    "testing",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "fixtures",
    "e2e",
];
const EXAMPLE_DIRS: [&str; 6] = [
    "examples",
    "example",
    "benches",
    "bench",
    "benchmarks",
    "demo",
];
const DOC_DIRS: [&str; 4] = ["docs", "doc", "documentation", "book"];
const DOC_EXTENSIONS: [&str; 6] = ["md", "markdown", "rst", "adoc", "txt", "mdx"];

/// A relative path taken apart once.
struct Path<'a> {
    /// The directories (lower case for matching).
    dirs: Vec<String>,
    /// The file name as it is.
    name: &'a str,
    /// The file name in lower case.
    lower: String,
    /// The file name up to its first `.`, in upper case.
    stem_upper: String,
    /// Whether the extension is a source file's.
    source: bool,
}

fn starts_with_any(stem: &str, names: &[&str]) -> bool {
    names.iter().any(|name| {
        stem.strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_']))
    })
}

/// The place of the file at `id` whose text is `content`: [`place`],
/// except that a top-level manifest whose first lines say it is generated
/// (a registry's normalized `Cargo.toml`, "@generated", "DO NOT EDIT") is
/// `generated`: its role, not its size, places a manifest.
pub fn place_in(id: &str, content: &str) -> Place {
    match place(id) {
        Place::Manifest if says_generated(content) => Place::Last("generated"),
        place => place,
    }
}

/// Whether the first 300 bytes of `content` say it was generated.
fn says_generated(content: &str) -> bool {
    let head = &content.as_bytes()[..content.len().min(300)];
    let head = String::from_utf8_lossy(head).to_ascii_uppercase();
    ["AUTOMATICALLY GENERATED", "@GENERATED", "DO NOT EDIT"]
        .iter()
        .any(|mark| head.contains(mark))
}

/// The package a file belongs to, for ordering source: its first
/// directory, or its first two under a directory of packages
/// (`crates/`, `packages/`, `libs/`, `modules/`, `apps/`, `plugins/`);
/// the empty string for a file at the top.
pub fn package(id: &str) -> &str {
    let mut parts = id.match_indices('/');
    let Some((first, _)) = parts.next() else {
        return "";
    };
    if PACKAGE_DIRS.contains(&&id[..first])
        && let Some((second, _)) = parts.next()
    {
        return &id[..second];
    }
    &id[..first]
}

/// Directories whose subdirectories are packages of a monorepo.
const PACKAGE_DIRS: [&str; 6] = ["crates", "packages", "libs", "modules", "apps", "plugins"];

/// The place of the file at `id` (a relative path with `/` separators).
pub fn place(id: &str) -> Place {
    let (dirs, name) = match id.rsplit_once('/') {
        Some((dirs, name)) => (dirs.split('/').map(str::to_lowercase).collect(), name),
        None => (Vec::new(), id),
    };
    let lower = name.to_lowercase();
    let stem_upper = name.split('.').next().unwrap_or(name).to_uppercase();
    let source = lower
        .rsplit_once('.')
        .is_some_and(|(_, extension)| SOURCE_EXTENSIONS.contains(&extension));
    let path = Path {
        dirs,
        name,
        lower,
        stem_upper,
        source,
    };
    if let Some((rule, _)) = LOW_VALUE.iter().find(|(_, matches)| matches(&path)) {
        return Place::Last(rule);
    }
    let top = path.dirs.is_empty();
    if top && path.stem_upper == "README" {
        // `README.md` is the README; `README.de.md`, `README.zh-CN.md` are
        // its translations, documentation like any other.
        let extensions = path.lower.matches('.').count();
        return if extensions <= 1 {
            Place::Readme
        } else {
            Place::Docs
        };
    }
    if top && (path.lower.starts_with("readme_") || path.lower.starts_with("readme-")) {
        // `README_zh.md`, `README-ja.md`: translations too.
        return Place::Docs;
    }
    if top && (MANIFESTS.contains(&name) || path.lower.ends_with(".gemspec")) {
        return Place::Manifest;
    }
    let in_dirs = |names: &[&str]| path.dirs.iter().any(|d| names.contains(&d.as_str()));
    let (stem, extension) = match path.lower.rsplit_once('.') {
        Some((stem, extension)) => (stem, extension),
        None => (path.lower.as_str(), ""),
    };
    let test_name = stem == "tests"
        || stem == "test"
        || stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with(".test")
        || stem.ends_with(".spec")
        || stem.ends_with("_spec")
        || (stem.ends_with("test") && name.ends_with(&format!("Test.{extension}")))
        || (stem.ends_with("tests") && name.ends_with(&format!("Tests.{extension}")));
    let test_dir = path.dirs.iter().any(|d| {
        TEST_DIRS.contains(&d.as_str())
            || d.starts_with("tests-")
            || d.starts_with("test-")
            || d.ends_with("-tests")
            || d == "fuzz"
    });
    if test_dir || (test_name && SOURCE_EXTENSIONS.contains(&extension)) {
        return Place::Tests;
    }
    if in_dirs(&EXAMPLE_DIRS) {
        return Place::Examples;
    }
    if in_dirs(&DOC_DIRS) || DOC_EXTENSIONS.contains(&extension) {
        return Place::Docs;
    }
    if SOURCE_EXTENSIONS.contains(&extension) {
        let depth = path.dirs.len();
        let shallow = depth <= 1
            || (depth <= 3 && path.dirs[depth - 1] == "src")
            || (depth == 2 && path.dirs[0] == "cmd");
        if shallow && ENTRY_STEMS.contains(&stem) {
            return Place::EntryPoint;
        }
        return Place::Source;
    }
    Place::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_file_gets_its_place() {
        for (id, expected) in [
            ("README.md", Place::Readme),
            ("readme", Place::Readme),
            ("README.rst", Place::Readme),
            ("README.cn.md", Place::Docs),
            ("README.de-ch.md", Place::Docs),
            ("README_zh.md", Place::Docs),
            ("README-ja.md", Place::Docs),
            ("Cargo.toml", Place::Manifest),
            ("package.json", Place::Manifest),
            ("foo.gemspec", Place::Manifest),
            ("src/lib.rs", Place::EntryPoint),
            ("src/main.rs", Place::EntryPoint),
            ("main.go", Place::EntryPoint),
            ("cmd/tool/main.go", Place::EntryPoint),
            ("requests/__init__.py", Place::EntryPoint),
            ("src/index.ts", Place::EntryPoint),
            ("src/runtime/task/mod.rs", Place::Source),
            ("tokio/src/lib.rs", Place::EntryPoint),
            ("src/iter/map.rs", Place::Source),
            ("lib/express.js", Place::Source),
            ("docs/guide.md", Place::Docs),
            ("src/README.md", Place::Docs),
            ("CONTRIBUTING.md", Place::Docs),
            ("doc/conf.py", Place::Docs),
            ("tests/basic.rs", Place::Tests),
            ("src/fs/file/tests.rs", Place::Tests),
            ("src/foo_test.go", Place::Tests),
            ("test_api.py", Place::Tests),
            ("src/app.spec.ts", Place::Tests),
            ("src/test/java/FooTest.java", Place::Tests),
            ("examples/hello.rs", Place::Examples),
            ("benches/speed.rs", Place::Examples),
            (".github/workflows/ci.yml", Place::Other),
            ("rustfmt.toml", Place::Other),
            ("sub/Cargo.toml", Place::Other),
            ("LICENSE", Place::Last("licence")),
            ("LICENSE-MIT", Place::Last("licence")),
            ("LICENCE.txt", Place::Last("licence")),
            ("COPYING", Place::Last("licence")),
            ("CODE_OF_CONDUCT.md", Place::Last("code of conduct")),
            ("CONDUCT.md", Place::Last("code of conduct")),
            ("AUTHORS.rst", Place::Last("authors")),
            ("MAINTAINERS", Place::Last("authors")),
            ("ext/requests-logo.svg", Place::Last("image")),
            ("tests/certs/server.pem", Place::Last("certificate")),
            ("tests-build/src/lib.rs", Place::Tests),
            ("tokio-stream/fuzz/fuzz_targets/x.rs", Place::Tests),
            ("CHANGELOG.md", Place::Last("changelog")),
            ("tokio-util/CHANGELOG.md", Place::Last("changelog")),
            ("RELEASES.md", Place::Last("changelog")),
            ("HISTORY.rst", Place::Last("changelog")),
            ("NEWS", Place::Last("changelog")),
            ("Cargo.lock", Place::Last("lock file")),
            ("web/package-lock.json", Place::Last("lock file")),
            ("go.sum", Place::Last("lock file")),
            ("Cargo.toml.orig", Place::Last("*.orig")),
            ("dist/app.min.js", Place::Last("minified")),
            ("assets/app.min.cjs", Place::Last("minified")),
            (
                "dist/cjs/immer.cjs.development.js",
                Place::Last("build output"),
            ),
            ("dist/immer.d.ts", Place::Last("build output")),
            ("packages/ui/dist/index.js", Place::Last("build output")),
            ("public/app.bundle.js", Place::Last("build output")),
            ("lib/vue.umd.js", Place::Last("build output")),
            ("static/app.js.map", Place::Last("build output")),
            ("dist/types.d.ts.map", Place::Last("build output")),
            ("build/build.ts", Place::Source),
            ("api/service.pb.go", Place::Last("generated")),
            ("src/generated/types.ts", Place::Last("generated")),
            ("vendor/github.com/x/y.go", Place::Last("vendored")),
            ("third_party/zlib/inflate.c", Place::Last("vendored")),
        ] {
            assert_eq!(place(id), expected, "{id}");
        }
    }

    #[test]
    fn names_that_only_begin_like_a_rule_are_not_low_value() {
        for id in [
            "NEWSLETTER.md",
            "src/licenses.rs",
            "changes_test.go",
            "history.py",
            "src/license.rs",
        ] {
            assert!(!place(id).is_low_value(), "{id}");
        }
    }

    #[test]
    fn packages_are_first_directories_or_two_under_a_directory_of_packages() {
        assert_eq!(package("src/lib.rs"), "src");
        assert_eq!(package("tokio/src/lib.rs"), "tokio");
        assert_eq!(package("packages/zod/src/index.ts"), "packages/zod");
        assert_eq!(package("crates/core/lib.rs"), "crates/core");
        assert_eq!(package("lib.rs"), "");
        let big = format!("<project>{}</project>", "<x/>".repeat(10_000));
        assert_eq!(place_in("pom.xml", &big), Place::Manifest);
        assert_eq!(place_in("Cargo.toml", "[package]\n"), Place::Manifest);
        let normalized = "# THIS FILE IS AUTOMATICALLY GENERATED BY CARGO\n#\n[package]\n";
        assert_eq!(place_in("Cargo.toml", normalized), Place::Last("generated"));
        assert_eq!(place_in("src/x.rs", normalized), Place::Source);
    }

    #[test]
    fn the_order_of_places_is_the_value_order() {
        let mut places = [
            Place::Last("licence"),
            Place::Other,
            Place::Examples,
            Place::Tests,
            Place::Docs,
            Place::Source,
            Place::EntryPoint,
            Place::Manifest,
            Place::Readme,
        ];
        places.sort();
        assert_eq!(places[0], Place::Readme);
        assert_eq!(places[8], Place::Last("licence"));
    }
}
