//! Collecting a repository over temporary trees: what globs, ignore files,
//! hidden files and `.git/` let in (library and binary).

use std::fs;
use std::path::Path;
use std::process::Command;

use packer::collect::{self, CollectOptions, Collection};

/// Writes `files` (path, content) under `root`, creating directories.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
}

/// Runs git in `dir` with a fixed identity and no user configuration.
fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn options(globs: &[&str]) -> CollectOptions {
    CollectOptions {
        base_url: collect::base_url("https://example.com/r/").unwrap(),
        globs: globs.iter().map(|g| g.to_string()).collect(),
        max_file_bytes: collect::DEFAULT_MAX_FILE_BYTES,
        hidden: false,
        no_ignore: false,
    }
}

fn ids(collection: &Collection) -> Vec<&str> {
    collection
        .documents
        .iter()
        .map(|d| d.id.as_str())
        .chain(collection.skipped.iter().map(|(id, _)| id.as_str()))
        .collect()
}

/// A tree with ignored, hidden and Git-internal files beside ordinary ones.
fn leaky_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_tree(
        root,
        &[
            (".gitignore", "secret.txt\nbuild/\n.env\n*.lock\n"),
            (".env", "API_KEY=not-for-the-model\n"),
            ("secret.txt", "not for the model\n"),
            ("build/out.txt", "generated\n"),
            ("Cargo.lock", "lock\n"),
            (".github/workflows/ci.yml", "on: push\n"),
            (".config/tool.toml", "x = 1\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("src/.hidden.rs", "// hidden\n"),
            ("README.md", "# Readme\n"),
        ],
    );
    git(root, &["init", "-q"]);
    git(root, &["config", "core.hooksPath", ".git/hooks"]);
    dir
}

const VISIBLE: [&str; 2] = ["README.md", "src/main.rs"];

#[test]
fn no_glob_lets_in_an_ignored_or_hidden_file_or_git_internals() {
    let dir = leaky_tree();
    for globs in [
        &[][..],
        &["*"],
        &["**"],
        &["**/*"],
        &[".*"],
        &[".env"],
        &["secret.txt"],
        &["build/**"],
        &[".git/**"],
        &["*.lock", "*.yml", "*.toml"],
        &["!README.md", "*"],
        &["**/.git/**", "**/.*"],
    ] {
        let collection = collect::collect(dir.path(), &options(globs), |_| {}).unwrap();
        for id in ids(&collection) {
            assert!(VISIBLE.contains(&id), "--glob {globs:?} collected {id}");
        }
    }
}

#[test]
fn globs_narrow_the_visible_files() {
    let dir = leaky_tree();
    let all = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(ids(&all), VISIBLE);
    let star = collect::collect(dir.path(), &options(&["*"]), |_| {}).unwrap();
    assert_eq!(ids(&star), VISIBLE);
    let rs = collect::collect(dir.path(), &options(&["*.rs"]), |_| {}).unwrap();
    assert_eq!(ids(&rs), ["src/main.rs"]);
    let not_md = collect::collect(dir.path(), &options(&["!*.md"]), |_| {}).unwrap();
    assert_eq!(ids(&not_md), ["src/main.rs"]);
    // An excluded directory is not walked.
    let not_src = collect::collect(dir.path(), &options(&["!src/"]), |_| {}).unwrap();
    assert_eq!(ids(&not_src), ["README.md"]);
}

#[test]
fn hidden_and_ignored_files_need_their_own_flags_and_git_never_comes_in() {
    let dir = leaky_tree();
    let hidden = CollectOptions {
        hidden: true,
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &hidden, |_| {}).unwrap();
    assert_eq!(
        ids(&collection),
        [
            ".config/tool.toml",
            ".github/workflows/ci.yml",
            ".gitignore",
            "README.md",
            "src/.hidden.rs",
            "src/main.rs"
        ]
    );
    let no_ignore = CollectOptions {
        no_ignore: true,
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &no_ignore, |_| {}).unwrap();
    assert_eq!(
        ids(&collection),
        [
            "Cargo.lock",
            "README.md",
            "build/out.txt",
            "secret.txt",
            "src/main.rs"
        ]
    );
    for globs in [
        &["*"][..],
        &[".git/**"],
        &["**/.git/**"],
        &["HEAD", "config"],
    ] {
        let both = CollectOptions {
            hidden: true,
            no_ignore: true,
            ..options(globs)
        };
        let collection = collect::collect(dir.path(), &both, |_| {}).unwrap();
        for id in ids(&collection) {
            assert!(
                !id.starts_with(".git/") && !id.contains("/.git/"),
                "{globs:?}: {id}"
            );
        }
        if globs == ["*"] {
            assert!(ids(&collection).contains(&".env"));
            assert!(ids(&collection).contains(&"secret.txt"));
        }
    }
}

#[test]
fn a_nested_repository_or_linked_git_file_stays_out() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("a.txt", "a\n"),
            ("vendor/lib/.git", "gitdir: ../../.git/modules/lib\n"),
            ("vendor/lib/b.txt", "b\n"),
            ("nested/.git/config", "[core]\n"),
            ("nested/c.txt", "c\n"),
        ],
    );
    let both = CollectOptions {
        hidden: true,
        no_ignore: true,
        ..options(&["*"])
    };
    let collection = collect::collect(dir.path(), &both, |_| {}).unwrap();
    assert_eq!(
        ids(&collection),
        ["a.txt", "nested/c.txt", "vendor/lib/b.txt"]
    );
}

#[test]
fn the_binary_keeps_ignored_and_hidden_files_out_under_any_glob() {
    let dir = leaky_tree();
    let root = dir.path().to_str().unwrap();
    let run = |extra: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_packer"))
            .args(["collect", root, "--base-url", "https://example.com/"])
            .args(extra)
            .env_clear()
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    for glob in ["*", ".env", ".git/*", "**"] {
        let out = run(&["--glob", glob]);
        assert!(!out.contains("not-for-the-model"), "{glob}");
        assert!(!out.contains("\".git/"), "{glob}");
        assert!(!out.contains("\"secret.txt\""), "{glob}");
    }
    let out = run(&["--glob", "*", "--hidden", "--no-ignore"]);
    assert!(out.contains("\".env\""));
    assert!(!out.contains("\".git/"));
}
