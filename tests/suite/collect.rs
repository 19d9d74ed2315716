//! Collecting a repository over temporary trees: what globs, ignore files,
//! hidden files and `.git/` let in (library and binary).

use crate::common::{self, git};

use std::fs;
use std::path::Path;
use std::process::Command;

use packer_collect::{self as collect, CollectOptions, Collection};

/// Writes `files` (path, content) under `root`, creating directories.
fn write_tree(root: &Path, files: &[(&str, &str)]) {
    for (path, content) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }
}

/// Git's answer to `args` in `dir`, trimmed.
fn git_output(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// Commits everything with a fixed, increasing date (`day` of Jan 2024).
fn commit(dir: &Path, day: u32) {
    git(dir, &["add", "-A"]);
    let date = format!("2024-01-{day:02}T12:00:00Z");
    let status = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_AUTHOR_DATE", &date)
        .env("GIT_COMMITTER_DATE", &date)
        .args(["commit", "-q", "-m", &format!("day {day}")])
        .status()
        .unwrap();
    assert!(status.success());
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

/// The binary in `cwd` with only PATH kept (git is found, no user
/// configuration is read).
fn packer(cwd: &Path, args: &[&str], stdin: &[u8]) -> Run {
    use std::io::Write;
    let mut child = common::packer()
        .current_dir(cwd)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A process that stops before reading (a usage error) closes the pipe.
    if let Err(error) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);
    }
    let output = child.wait_with_output().unwrap();
    Run {
        status: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

fn options(globs: &[&str]) -> CollectOptions {
    CollectOptions {
        base_url: Some(collect::base_url("https://example.com/r/").unwrap()),
        globs: globs.iter().map(|g| g.to_string()).collect(),
        ..CollectOptions::default()
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
        // In the value order: README, entry point, source, the rest.
        [
            "README.md",
            "src/main.rs",
            "src/.hidden.rs",
            ".config/tool.toml",
            ".github/workflows/ci.yml",
            ".gitignore"
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
            "README.md",
            "src/main.rs",
            "build/out.txt",
            "secret.txt",
            "Cargo.lock"
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
        let output = common::packer()
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
    // A credential file by name needs --allow-secrets as well.
    let out = run(&["--glob", "*", "--hidden", "--no-ignore"]);
    assert!(!out.contains("\".env\""));
    let out = run(&["--glob", "*", "--hidden", "--no-ignore", "--allow-secrets"]);
    assert!(out.contains("\".env\""));
    assert!(!out.contains("\".git/"));
}

/// A deterministic string of `length` characters drawn from `alphabet`
/// (varied enough to pass every rule's entropy threshold), so that no
/// real-looking key sits in the repository.
fn synthetic(alphabet: &str, length: usize, seed: u64) -> String {
    let alphabet: Vec<char> = alphabet.chars().collect();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..length)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            alphabet[((state >> 33) % alphabet.len() as u64) as usize]
        })
        .collect()
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const HEX: &str = "0123456789abcdef";

fn alnum() -> String {
    format!("{UPPER}{LOWER}{DIGITS}")
}

/// One synthetic secret for each rule id.
fn synthetic_secret(rule: &str) -> String {
    let an = alnum();
    let s = |alphabet: &str, n: usize| synthetic(alphabet, n, rule.len() as u64 * 7919 + n as u64);
    match rule {
        "private-key" => format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----",
            s(&format!("{an}+/"), 64),
            s(&format!("{an}+/"), 40)
        ),
        "aws-access-token" => format!("AKIA{}", s(&format!("{UPPER}234567"), 16)),
        "github-pat" => format!("ghp_{}", s(&an, 36)),
        "github-fine-grained-pat" => format!("github_pat_{}", s(&format!("{an}_"), 82)),
        "github-oauth" => format!("gho_{}", s(&an, 36)),
        "github-app-token" => format!("ghs_{}", s(&an, 36)),
        "github-refresh-token" => format!("ghr_{}", s(&an, 36)),
        "gitlab-pat" => format!("glpat-{}", s(&an, 20)),
        "gitlab-ptt" => format!("glptt-{}", s(HEX, 40)),
        "gitlab-rrt" => format!("GR1348941{}", s(&an, 20)),
        "gitlab-deploy-token" => format!("gldt-{}", s(&an, 20)),
        "gitlab-runner-authentication-token" => format!("glrt-{}", s(&an, 20)),
        "slack-bot-token" => format!("xoxb-{}-{}-{}", s(DIGITS, 12), s(DIGITS, 13), s(&an, 24)),
        "slack-user-token" => format!(
            "xoxp-{}-{}-{}-{}",
            s(DIGITS, 11),
            s(DIGITS, 12),
            s(DIGITS, 13),
            s(&an, 32)
        ),
        "slack-app-token" => format!(
            "xapp-1-A{}-{}-{}",
            s(&format!("{UPPER}{DIGITS}"), 10),
            s(DIGITS, 13),
            s(HEX, 64)
        ),
        "slack-legacy-token" => format!(
            "xoxs-{}-{}-{}-{}",
            s(DIGITS, 10),
            s(DIGITS, 11),
            s(DIGITS, 12),
            s(HEX, 64)
        ),
        "slack-webhook-url" => format!("https://hooks.slack.com/services/{}", s(&an, 44)),
        "openai-api-key" => format!(
            "sk-proj-{}T3BlbkFJ{}",
            s(&format!("{an}_-"), 74),
            s(&an, 74)
        ),
        "anthropic-api-key" => format!("sk-ant-api03-{}AA", s(&format!("{an}_-"), 93)),
        "anthropic-admin-api-key" => format!("sk-ant-admin01-{}AA", s(&format!("{an}_-"), 93)),
        "stripe-access-token" => format!("sk_live_{}", s(&an, 24)),
        "gcp-api-key" => format!("AIza{}", s(&format!("{an}_-"), 35)),
        "npm-access-token" => format!("npm_{}", s(&format!("{LOWER}{DIGITS}"), 36)),
        "pypi-upload-token" => format!("pypi-AgEIcHlwaS5vcmc{}", s(&format!("{an}_-"), 64)),
        "huggingface-access-token" => format!("hf_{}", s(&format!("{UPPER}{LOWER}"), 34)),
        "sendgrid-api-token" => format!(
            "SG.{}.{}",
            s(&format!("{an}_-"), 22),
            s(&format!("{an}_-"), 43)
        ),
        "digitalocean-pat" => format!("dop_v1_{}", s(HEX, 64)),
        "shopify-access-token" => format!("shpat_{}", s(HEX, 32)),
        "databricks-api-token" => format!("dapi{}", s(HEX, 32)),
        "postman-api-token" => format!("PMAK-{}-{}", s(HEX, 24), s(HEX, 34)),
        "grafana-service-account-token" => format!("glsa_{}_{}", s(&an, 32), s(HEX, 8)),
        "doppler-api-token" => format!("dp.pt.{}", s(&an, 43)),
        "linear-api-key" => format!("lin_api_{}", s(&an, 40)),
        "pulumi-api-token" => format!("pul-{}", s(HEX, 40)),
        "planetscale-api-token" => format!("pscale_tkn_{}", s(&an, 43)),
        "hashicorp-tf-api-token" => format!(
            "{}.atlasv1.{}",
            s(&format!("{LOWER}{DIGITS}"), 14),
            s(&format!("{LOWER}{DIGITS}"), 64)
        ),
        "age-secret-key" => format!(
            "AGE-SECRET-KEY-1{}",
            s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)
        ),
        // Every other rule has its fake secrets in src/collect/secrets.rs.
        _ => String::new(),
    }
}

#[test]
fn every_rule_finds_its_synthetic_secret_in_context() {
    for rule in collect::secrets::RULES {
        let secret = synthetic_secret(rule.id);
        if secret.is_empty() {
            continue;
        }
        for text in [
            format!("{secret}\n"),
            format!("const KEY = \"{secret}\";\n"),
            format!("# config\nkey: {secret}\nother: 1\n"),
        ] {
            let found = collect::secrets::find(&text).map(|r| r.id);
            assert_eq!(found, Some(rule.id), "{text}");
        }
        // Its first 12 characters (the prefix a rule keys on) are not a secret.
        let short = &secret[..12];
        assert_ne!(
            collect::secrets::find(short).map(|r| r.id),
            Some(rule.id),
            "{short}"
        );
    }
}

#[test]
fn files_with_secrets_are_skipped_naming_the_rule_never_the_secret() {
    let dir = tempfile::tempdir().unwrap();
    let aws = synthetic_secret("aws-access-token");
    let github = synthetic_secret("github-pat");
    let key = synthetic_secret("private-key");
    write_tree(
        dir.path(),
        &[
            ("config.py", &format!("AWS_ACCESS_KEY_ID = \"{aws}\"\n")),
            ("deploy/id_rsa.pem", &key),
            ("notes.md", &format!("token: {github}\n")),
            ("src/lib.rs", "pub fn ok() {}\n"),
            ("docs/aws.md", "Use a key like AKIAIOSFODNN7EXAMPLE.\n"),
        ],
    );
    let collection = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    let kept: Vec<_> = collection.documents.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(kept, ["src/lib.rs", "docs/aws.md"]);
    let skipped: Vec<_> = collection
        .skipped
        .iter()
        .map(|(id, reason)| (id.as_str(), reason.code(), reason.describe()))
        .collect();
    let describe = |rule: &str| {
        format!("contains-secret (rule {rule}); pass --allow-secrets to collect it anyway")
    };
    assert_eq!(
        skipped,
        [
            ("config.py", "contains-secret", describe("aws-access-token")),
            (
                "deploy/id_rsa.pem",
                "contains-secret",
                describe("private-key")
            ),
            ("notes.md", "contains-secret", describe("github-pat")),
        ]
    );
    let allowed = CollectOptions {
        allow_secrets: true,
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &allowed, |_| {}).unwrap();
    assert_eq!(collection.documents.len(), 5);
    assert!(collection.skipped.is_empty());

    // The binary: the rule and the path on stderr, the secret nowhere.
    let output = common::packer()
        .args([
            "collect",
            dir.path().to_str().unwrap(),
            "--base-url",
            "https://example.com/",
        ])
        .env_clear()
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "skipped config.py: {}\nskipped deploy/id_rsa.pem: {}\nskipped notes.md: {}\n",
            describe("aws-access-token"),
            describe("private-key"),
            describe("github-pat")
        )
    );
    for secret in [&aws, &github, &key] {
        assert!(!stdout.contains(secret.as_str()));
    }
}

#[test]
fn the_readme_points_to_the_secret_rules() {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // tests/secrets.rs checks that docs/secrets.md lists every rule.
    assert!(readme.contains("[docs/secrets.md](docs/secrets.md)"));
}

/// A repository with three commits: `old.rs` first, then `mid.rs`, then
/// `new.rs` and a change to `docs/guide.md`; `scratch.rs` never committed.
fn history() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q", "-b", "main"]);
    write_tree(
        root,
        &[("old.rs", "// old\n"), ("docs/guide.md", "# Guide\n")],
    );
    commit(root, 1);
    write_tree(root, &[("mid.rs", "// mid\n")]);
    commit(root, 2);
    write_tree(
        root,
        &[
            ("new.rs", "// new\n"),
            ("docs/guide.md", "# Guide\nMore.\n"),
        ],
    );
    commit(root, 3);
    write_tree(root, &[("scratch.rs", "// scratch\n")]);
    dir
}

fn doc_ids(collection: &Collection) -> Vec<&str> {
    collection.documents.iter().map(|d| d.id.as_str()).collect()
}

#[test]
fn git_order_puts_recent_changes_first_within_equal_priority() {
    let dir = history();
    let by_git = CollectOptions {
        git_order: true,
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &by_git, |_| {}).unwrap();
    assert_eq!(
        doc_ids(&collection),
        ["docs/guide.md", "new.rs", "mid.rs", "old.rs", "scratch.rs"]
    );
    // Deterministic: the same again.
    let again = collect::collect(dir.path(), &by_git, |_| {}).unwrap();
    assert_eq!(doc_ids(&again), doc_ids(&collection));
    // Priorities come first; git order only breaks their ties.
    let prioritised = CollectOptions {
        git_order: true,
        priorities: vec!["old.rs=5".parse().unwrap(), "mid.rs=5".parse().unwrap()],
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &prioritised, |_| {}).unwrap();
    assert_eq!(
        doc_ids(&collection),
        ["mid.rs", "old.rs", "docs/guide.md", "new.rs", "scratch.rs"]
    );
    // Without --git-order, the value order: source, then documentation.
    let plain = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(
        doc_ids(&plain),
        ["mid.rs", "new.rs", "old.rs", "scratch.rs", "docs/guide.md"]
    );
    // In a subdirectory, ranks are relative to it.
    let sub = collect::collect(&dir.path().join("docs"), &by_git, |_| {}).unwrap();
    assert_eq!(doc_ids(&sub), ["guide.md"]);
}

#[test]
fn lock_files_come_after_every_other_file_of_their_priority() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("Cargo.lock", "# generated\n"),
            ("README.md", "# R\n"),
            ("web/package-lock.json", "{}\n"),
            ("web/index.js", "// js\n"),
            ("src/lib.rs", "// lib\n"),
        ],
    );
    let collection = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(
        ids(&collection),
        [
            "README.md",
            "src/lib.rs",
            "web/index.js",
            "Cargo.lock",
            "web/package-lock.json"
        ]
    );
    // A priority rule still puts one first.
    let wanted = CollectOptions {
        priorities: vec!["Cargo.lock=1".parse().unwrap()],
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &wanted, |_| {}).unwrap();
    assert_eq!(ids(&collection)[0], "Cargo.lock");
}

/// A repository's files in the value order: README and manifest, entry
/// points, source, documentation, tests, examples, the rest, and the
/// low-value files last, each named on standard error with its rule.
#[test]
fn a_tree_is_collected_in_the_value_order_and_low_value_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let tree = [
        (
            "Cargo.lock",
            "# generated
",
        ),
        (
            "Cargo.toml",
            "[package]
",
        ),
        (
            "Cargo.toml.orig",
            "[package]
",
        ),
        (
            "CHANGELOG.md",
            "# Changes
",
        ),
        (
            "LICENSE-MIT",
            "MIT
",
        ),
        (
            "README.md",
            "# R
",
        ),
        (
            "benches/speed.rs",
            "// bench
",
        ),
        (
            "docs/guide.md",
            "# Guide
",
        ),
        (
            "examples/hello.rs",
            "// example
",
        ),
        ("rustfmt.toml", "edition = \"2024\"\n"),
        (
            "src/iter/map.rs",
            "// map
",
        ),
        (
            "src/lib.rs",
            "// lib
",
        ),
        (
            "src/main.rs",
            "// main
",
        ),
        (
            "tests/basic.rs",
            "// test
",
        ),
        (
            "vendor/zlib/inflate.c",
            "/* zlib */
",
        ),
        (
            "web/app.min.js",
            "x()
",
        ),
    ];
    write_tree(dir.path(), &tree);
    let expected = [
        "README.md",
        "Cargo.toml",
        "src/lib.rs",
        "src/main.rs",
        "src/iter/map.rs",
        "docs/guide.md",
        "tests/basic.rs",
        "benches/speed.rs",
        "examples/hello.rs",
        "rustfmt.toml",
        "Cargo.toml.orig",
        "CHANGELOG.md",
        "LICENSE-MIT",
        "Cargo.lock",
        "web/app.min.js",
        "vendor/zlib/inflate.c",
    ];
    let collection = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(ids(&collection), expected);
    // The command line packs in that order and names each low-value file.
    let root = dir.path().to_str().unwrap();
    let run = packer(
        dir.path(),
        &[
            "pack", "--dir", root, "--budget", "10000", "--format", "summary",
        ],
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        json(&run.stdout)["selectedIds"],
        serde_json::json!(expected)
    );
    assert_eq!(json(&run.stdout)["envelope"], "markdown");
    assert_eq!(
        run.stderr,
        "placed last: Cargo.toml.orig (*.orig)\n\
         placed last: CHANGELOG.md (changelog)\n\
         placed last: LICENSE-MIT (licence)\n\
         placed last: Cargo.lock (lock file)\n\
         placed last: web/app.min.js (minified)\n\
         placed last: vendor/zlib/inflate.c (vendored)\n"
    );
    // A priority rule overrides the value order, and the file raised is
    // no longer named.
    let run = packer(
        dir.path(),
        &[
            "pack",
            "--dir",
            root,
            "--budget",
            "10000",
            "--format",
            "summary",
            "--priority",
            "CHANGELOG.md=1",
        ],
        b"",
    );
    assert_eq!(json(&run.stdout)["selectedIds"][0], "CHANGELOG.md");
    assert!(!run.stderr.contains("CHANGELOG"), "{}", run.stderr);
}

#[test]
fn priority_rules_set_priorities_and_the_last_match_wins() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("README.md", "# R\n"),
            ("src/lib.rs", "// lib\n"),
            ("src/gen/big.rs", "// gen\n"),
            ("tests/t.rs", "// t\n"),
            ("notes.txt", "n\n"),
        ],
    );
    let rules = ["*.rs=10", "src/gen/=-5", "README.md=20", "tests/**=1"];
    let prioritised = CollectOptions {
        priorities: rules.iter().map(|r| r.parse().unwrap()).collect(),
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &prioritised, |_| {}).unwrap();
    let got: Vec<(&str, i64)> = collection
        .documents
        .iter()
        .map(|d| (d.id.as_str(), d.priority))
        .collect();
    assert_eq!(
        got,
        [
            ("README.md", 20),
            ("src/lib.rs", 10),
            ("tests/t.rs", 1),
            ("notes.txt", 0),
            ("src/gen/big.rs", -5)
        ]
    );
    // The fixture carries them, so `--policy priority` sees them too.
    let json = collect::fixture_json(&collection, &Default::default());
    assert!(json.contains("\"priority\": 20"));
    assert!(json.contains("\"priority\": -5"));
    let run = packer(
        dir.path(),
        &[
            "collect",
            ".",
            "--base-url",
            "https://example.com/",
            "--priority",
            "*.rs=1001",
        ],
        b"",
    );
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("-1000 to 1000"), "{}", run.stderr);
}

#[test]
fn urls_pin_the_commit_of_https_and_ssh_remotes() {
    let dir = history();
    let root = dir.path();
    let head = git_output(root, &["rev-parse", "HEAD"]);
    // No remote: documents carry their relative paths, no url.
    let bare = CollectOptions {
        base_url: None,
        ..options(&[])
    };
    let plain = collect::collect(root, &bare, |_| {}).unwrap();
    let guide = plain.documents.last().unwrap();
    assert_eq!(guide.id, "docs/guide.md");
    assert_eq!(guide.url, None);
    assert_eq!(guide.path.as_deref(), Some("docs/guide.md"));
    for (remote, base) in [
        (
            "https://github.com/owner/repo.git",
            format!("https://github.com/owner/repo/blob/{head}/"),
        ),
        (
            "git@github.com:owner/repo.git",
            format!("https://github.com/owner/repo/blob/{head}/"),
        ),
        (
            "ssh://git@gitlab.com/group/sub/repo.git",
            format!("https://gitlab.com/group/sub/repo/-/blob/{head}/"),
        ),
        (
            "https://oauth2:tok@gitlab.example.org/team/repo",
            format!("https://gitlab.example.org/team/repo/-/blob/{head}/"),
        ),
    ] {
        // Fails harmlessly the first time, when there is no remote yet.
        git_output(root, &["remote", "remove", "origin"]);
        git(root, &["remote", "add", "origin", remote]);
        let collection = collect::collect(root, &bare, |_| {}).unwrap();
        let guide = collection.documents.last().unwrap();
        assert_eq!(guide.id, "docs/guide.md");
        assert_eq!(
            guide.url.as_deref(),
            Some(format!("{base}docs/guide.md").as_str()),
            "{remote}"
        );
        assert_eq!(guide.path, None);
        // Git is read only from the directory's own `.git`, never a
        // parent's: a subdirectory gets paths (relative to it), or urls with
        // --base-url or the top and a glob.
        let sub = collect::collect(&root.join("docs"), &bare, |_| {}).unwrap();
        assert_eq!(sub.documents[0].url, None);
        assert_eq!(sub.documents[0].path.as_deref(), Some("guide.md"));
        let docs = CollectOptions {
            base_url: None,
            ..options(&["docs/**"])
        };
        let sub = collect::collect(root, &docs, |_| {}).unwrap();
        assert_eq!(
            sub.documents[0].url.as_deref(),
            Some(format!("{base}docs/guide.md").as_str())
        );
        assert!(collection.checkout.as_ref().unwrap().dirty);
    }
    // An unknown forge: paths again.
    git(
        root,
        &["remote", "set-url", "origin", "https://example.com/x/y.git"],
    );
    let unknown = collect::collect(root, &bare, |_| {}).unwrap();
    assert!(unknown.documents.iter().all(|d| d.url.is_none()));
    // The binary says where urls point when the tree has uncommitted files.
    git(
        root,
        &["remote", "set-url", "origin", "git@github.com:o/r.git"],
    );
    let run = packer(root, &["collect", "."], b"");
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        format!("note: the directory has uncommitted changes; urls point at commit {head}\n")
    );
    assert!(
        run.stdout
            .contains(&format!("https://github.com/o/r/blob/{head}/new.rs"))
    );
}

#[test]
fn files_from_collects_exactly_the_listed_paths_and_reports_every_skip() {
    let dir = leaky_tree();
    let root = dir.path();
    write_tree(
        root,
        &[
            ("docs/a b.md", "# A B\n"),
            ("keys.txt", &synthetic_secret("github-pat")),
            ("src/skip.rs", "// excluded by glob\n"),
        ],
    );
    let outside = tempfile::tempdir().unwrap();
    write_tree(outside.path(), &[("elsewhere.txt", "x\n")]);
    let outside_file = outside.path().join("elsewhere.txt");
    std::os::unix::fs::symlink(outside.path(), root.join("link")).unwrap();
    let list = [
        "README.md",
        "./docs/a b.md",
        "src/main.rs",
        "README.md",
        "keys.txt",
        ".env",
        "secret.txt",
        ".git/config",
        "../outside.txt",
        outside_file.to_str().unwrap(),
        "src",
        "gone.rs",
        "src/skip.rs",
        "link/elsewhere.txt",
        "link",
    ];
    let expected_skips = [
        ("../outside.txt", "outside-directory"),
        (".env", "hidden"),
        (".git/config", "git-internal"),
        ("gone.rs", "missing"),
        ("keys.txt", "contains-secret"),
        ("link", "outside-directory"),
        ("link/elsewhere.txt", "outside-directory"),
        ("secret.txt", "ignored"),
        ("src", "not-a-file"),
        ("src/skip.rs", "excluded-by-glob"),
        (outside_file.to_str().unwrap(), "outside-directory"),
    ];
    for separator in ["\n", "\0", "\r\n"] {
        let listed = CollectOptions {
            files_from: Some(collect::split_file_list(&list.join(separator))),
            ..options(&["!src/skip.rs"])
        };
        let collection = collect::collect(root, &listed, |_| {}).unwrap();
        assert_eq!(
            doc_ids(&collection),
            ["README.md", "src/main.rs", "docs/a b.md"]
        );
        let mut skipped: Vec<(&str, &str)> = collection
            .skipped
            .iter()
            .map(|(id, reason)| (id.as_str(), reason.code()))
            .collect();
        skipped.sort();
        let mut expected = expected_skips.to_vec();
        expected.sort();
        assert_eq!(skipped, expected, "separator {separator:?}");
    }
    // The binary reads the list from standard input, NUL-separated as
    // `git ls-files -z` writes it, and names each skip on stderr.
    let run = packer(
        root,
        &[
            "collect",
            ".",
            "--base-url",
            "https://example.com/",
            "--files-from",
            "-",
        ],
        b"src/main.rs\0.env\0gone.rs\0",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "skipped .env: hidden (pass --hidden to collect it)\nskipped gone.rs: does not exist\n"
    );
    assert!(run.stdout.contains("\"id\": \"src/main.rs\""));
    assert!(!run.stdout.contains("not-for-the-model"));
}

#[test]
fn files_from_takes_git_ls_files_output() {
    let dir = history();
    let root = dir.path();
    let output = Command::new("git")
        .current_dir(root)
        .args(["ls-files", "-z"])
        .output()
        .unwrap();
    let listed = CollectOptions {
        files_from: Some(collect::split_file_list(
            std::str::from_utf8(&output.stdout).unwrap(),
        )),
        ..options(&[])
    };
    let collection = collect::collect(root, &listed, |_| {}).unwrap();
    // Everything committed, not the untracked scratch file.
    assert_eq!(
        doc_ids(&collection),
        ["mid.rs", "new.rs", "old.rs", "docs/guide.md"]
    );
    assert!(collection.skipped.is_empty());
}

/// The JSON output of `pack` as a value.
fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn the_tree_is_one_required_document_counted_like_any_other() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("README.md", "# Readme\n"),
            ("src/lib.rs", "pub fn f() {}\n"),
            ("src/bin/main.rs", "fn main() {}\n"),
            ("blank.txt", "\n"),
        ],
    );
    let with_tree = CollectOptions {
        tree: collect::TreeOption::Required,
        priorities: vec!["README.md=9".parse().unwrap()],
        ..options(&[])
    };
    let collection = collect::collect(dir.path(), &with_tree, |_| {}).unwrap();
    let tree = &collection.documents[0];
    assert_eq!(tree.id, collect::TREE_ID);
    assert!(tree.required);
    assert_eq!(tree.url.as_deref(), Some("https://example.com/r/"));
    // Every collected file, in path order; the blank (skipped) file is not one.
    assert_eq!(
        tree.content,
        "./\n  README.md\n  src/\n    bin/\n      main.rs\n    lib.rs\n"
    );
    let root = dir.path().to_str().unwrap();
    let base = [
        "pack",
        "--dir",
        root,
        "--base-url",
        "https://example.com/",
        "--tree",
    ];
    let run = packer(
        dir.path(),
        &[&base[..], &["--budget", "1000"]].concat(),
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "skipped blank.txt: empty or only whitespace\n");
    let out = json(&run.stdout);
    assert_eq!(out["selectedIds"][0], "tree:/");
    assert_eq!(out["decisions"][0]["reason"], "required");
    let payload = out["payloadText"].as_str().unwrap();
    let oracle = tiktoken_rs::cl100k_base_singleton();
    assert_eq!(
        out["usedTokens"].as_u64().unwrap() as usize,
        oracle.encode_ordinary(payload).len()
    );
    assert!(payload.contains("./\n  README.md\n  src/\n"), "{payload}");
    // Too small for the tree: a required document that does not fit.
    let run = packer(dir.path(), &[&base[..], &["--budget", "20"]].concat(), b"");
    assert_eq!(run.status, 4, "{}", run.stderr);
    assert!(run.stderr.contains("error[required-does-not-fit]"));
    // --tree-optional: left out instead.
    let run = packer(
        dir.path(),
        &[
            "pack",
            "--dir",
            root,
            "--base-url",
            "https://example.com/",
            "--tree-optional",
            "--budget",
            "25",
        ],
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(
        !json(&run.stdout)["selectedIds"]
            .as_array()
            .unwrap()
            .contains(&"tree:/".into())
    );
}

#[test]
fn budget_is_the_context_with_no_reservations() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), &[("a.md", "# A\n"), ("b.md", "# B\n")]);
    let root = dir.path().to_str().unwrap();
    let args = ["pack", "--dir", root, "--base-url", "https://example.com/"];
    let short = packer(
        dir.path(),
        &[&args[..], &["--budget", "500", "--format", "summary"]].concat(),
        b"",
    );
    let long = packer(
        dir.path(),
        &[
            &args[..],
            &[
                "--context-tokens",
                "500",
                "--reserved-other-input-tokens",
                "0",
                "--reserved-output-tokens",
                "0",
                "--safety-tokens",
                "0",
                "--format",
                "summary",
            ],
        ]
        .concat(),
        b"",
    );
    assert_eq!(short.status, 0, "{}", short.stderr);
    assert_eq!(short.stdout, long.stdout);
    assert_eq!(json(&short.stdout)["availableTokens"], 500);
    // Only --context-tokens: a directory has no fixture budget, so the
    // reservations not given are 0.
    let run = packer(
        dir.path(),
        &[
            &args[..],
            &["--context-tokens", "500", "--format", "summary"],
        ]
        .concat(),
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(run.stdout, short.stdout);
    // No budget flag at all: the message names --budget.
    let run = packer(dir.path(), &args, b"");
    assert_eq!(run.status, 3);
    assert!(run.stderr.contains("--budget N"), "{}", run.stderr);
    // --budget with a reservation flag is a usage error.
    let run = packer(
        dir.path(),
        &[&args[..], &["--budget", "500", "--safety-tokens", "10"]].concat(),
        b"",
    );
    assert_eq!(run.status, 2);
    // The pipe form keeps working, with --budget on either side.
    let fixture = packer(
        dir.path(),
        &[
            "collect",
            root,
            "--base-url",
            "https://example.com/",
            "--budget",
            "500",
        ],
        b"",
    );
    assert_eq!(fixture.status, 0);
    // A fixture's payload is JSON unless --envelope says otherwise.
    let piped = packer(
        dir.path(),
        &["pack", "-", "--format", "summary", "--envelope", "markdown"],
        fixture.stdout.as_bytes(),
    );
    assert_eq!(piped.stdout, short.stdout);
    // Collect flags need --dir.
    let run = packer(
        dir.path(),
        &["pack", "-", "--tree"],
        fixture.stdout.as_bytes(),
    );
    assert_eq!(run.status, 2);
}

#[test]
fn five_thousand_files_pack_in_one_command_without_raising_limits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..5_000 {
        let path = root.join(format!("d{:02}/f{i:04}.rs", i % 50));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            path,
            format!("// file {i}\npub fn f{i}() -> u32 {{ {i} }}\n"),
        )
        .unwrap();
    }
    git(root, &["init", "-q"]);
    commit(root, 1);
    git(root, &["remote", "add", "origin", "git@github.com:o/r.git"]);
    let head = git_output(root, &["rev-parse", "HEAD"]);
    for budget in ["32000", "128000"] {
        let run = packer(
            root,
            &[
                "pack",
                "--dir",
                ".",
                "--budget",
                budget,
                "--priority",
                "d07/**=5",
                "--format",
                "summary",
            ],
            b"",
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        assert_eq!(run.stderr, "");
        let out = json(&run.stdout);
        let selected = out["selectedIds"].as_array().unwrap();
        assert!(selected.len() > 100, "{budget}: {}", selected.len());
        // The priority-5 files come first.
        assert!(
            selected[..100]
                .iter()
                .all(|id| id.as_str().unwrap().starts_with("d07/"))
        );
        assert!(out["usedTokens"].as_u64().unwrap() <= budget.parse().unwrap());
        assert_eq!(out["decisions"].as_array().unwrap().len(), 5_000);
    }
    let run = packer(root, &["collect", "."], b"");
    assert!(
        run.stdout
            .contains(&format!("https://github.com/o/r/blob/{head}/d00/f0000.rs")),
        "status {}, stderr {:?}, stdout begins {:?}",
        run.status,
        run.stderr,
        run.stdout.chars().take(300).collect::<String>()
    );
}

#[test]
fn a_tree_over_a_limit_is_refused_with_its_size_and_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..25 {
        write_tree(dir.path(), &[(&format!("f{i:02}.txt"), "x\n")]);
    }
    let limited = CollectOptions {
        max_files: 10,
        ..options(&[])
    };
    let error = collect::collect(dir.path(), &limited, |_| {}).unwrap_err();
    assert_eq!(error.code(), "too-many-files");
    assert_eq!(
        error.to_string(),
        "the directory holds 25 files, more than the limit of 10; narrow it with --glob or raise --max-files"
    );
    // Counting stops at ten times the limit rather than walking a whole disk.
    let tiny = CollectOptions {
        max_files: 2,
        ..options(&[])
    };
    let error = collect::collect(dir.path(), &tiny, |_| {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the directory holds at least 20 files, more than the limit of 2; narrow it with --glob or raise --max-files"
    );
    let small = CollectOptions {
        max_total_bytes: 30,
        ..options(&[])
    };
    let error = collect::collect(dir.path(), &small, |_| {}).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the files to collect hold 50 bytes, more than the limit of 30 bytes of text; narrow them with --glob or raise --max-total-bytes"
    );
}

/// A symbolic link (even to a file inside the tree) is not followed, and
/// is said on standard error; a workspace's biggest package comes first.
#[test]
fn links_are_named_and_the_biggest_package_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("packages/core/README.md", "# Core\n"),
            ("tool-util/src/lib.rs", "pub fn util() {}\n"),
            ("tool/src/lib.rs", "pub fn main_crate() {}\n"),
            ("tool/src/big.rs", &"pub fn f() {}\n".repeat(50)),
        ],
    );
    std::os::unix::fs::symlink("packages/core/README.md", dir.path().join("README.md")).unwrap();
    let collection = collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(
        doc_ids(&collection),
        [
            "tool/src/lib.rs",
            "tool-util/src/lib.rs",
            "tool/src/big.rs",
            "packages/core/README.md"
        ]
    );
    assert_eq!(
        collection.skipped,
        [("README.md".to_owned(), collect::SkipReason::NotAFile)]
    );
    let root = dir.path().to_str().unwrap();
    let run = packer(dir.path(), &["collect", root], b"");
    assert_eq!(run.status, 0);
    assert_eq!(
        run.stderr,
        "skipped README.md: not a regular file (symbolic links, FIFOs and devices are not read)\n"
    );
}

/// A tree's packer.toml is honoured without flags; flags win over it; it
/// cannot be a link, name a key packer does not know, or be written over.
#[test]
fn a_packer_toml_in_the_tree_is_honoured_and_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[
            ("README.md", "# R\n"),
            ("src/lib.rs", "pub fn f() {}\n"),
            ("src/main.rs", "fn main() {}\n"),
            (
                "packer.toml",
                "budget = 500\nenvelope = \"xml\"\npriorities = [\"src/main.rs=5\"]\nglobs = [\"!README.md\"]\n",
            ),
        ],
    );
    let root = dir.path().to_str().unwrap();
    let summary = |args: &[&str]| {
        let run = packer(
            dir.path(),
            &[&["pack", "--dir", root, "--format", "summary"][..], args].concat(),
            b"",
        );
        assert_eq!(run.status, 0, "{}", run.stderr);
        json(&run.stdout)
    };
    let plain = summary(&[]);
    assert_eq!(plain["availableTokens"], 500);
    assert_eq!(plain["envelope"], "xml");
    assert_eq!(
        plain["selectedIds"],
        serde_json::json!(["src/main.rs", "src/lib.rs", "packer.toml"])
    );
    // Flags win; --priority rules come after the file's.
    let flagged = summary(&[
        "--budget",
        "400",
        "--envelope",
        "json",
        "--priority",
        "src/lib.rs=9",
    ]);
    assert_eq!(flagged["availableTokens"], 400);
    assert_eq!(flagged["envelope"], "json");
    assert_eq!(flagged["selectedIds"][0], "src/lib.rs");
    // --no-config ignores it (and then a budget is needed).
    let ignored = summary(&["--no-config", "--budget", "500"]);
    assert_eq!(ignored["envelope"], "markdown");
    assert_eq!(ignored["selectedIds"][0], "README.md");
    // collect takes its budget and collecting settings too.
    let run = packer(dir.path(), &["collect", root], b"");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let fixture = json(&run.stdout);
    assert_eq!(fixture["budget"]["contextTokens"], 500);
    assert_eq!(fixture["documents"][0]["id"], "src/main.rs");
    // --payload-out never writes over the file it read.
    let run = packer(
        dir.path(),
        &["pack", "--dir", root, "--payload-out", "packer.toml"],
        b"",
    );
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("payload-out-is-input"),
        "{}",
        run.stderr
    );
    assert!(
        fs::read_to_string(dir.path().join("packer.toml"))
            .unwrap()
            .starts_with("budget = 500")
    );
    // An unknown key is an error with its position, before anything is packed.
    fs::write(
        dir.path().join("packer.toml"),
        "budget = 500\nallow-secrets = true\n",
    )
    .unwrap();
    let run = packer(dir.path(), &["pack", "--dir", root], b"");
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.starts_with(
            "error[invalid-config]: packer.toml at line 2 column 1: unknown field `allow-secrets`"
        ),
        "{}",
        run.stderr
    );
    // A link named packer.toml is not read, even to a valid file.
    fs::remove_file(dir.path().join("packer.toml")).unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("real.toml"), "budget = 500\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("real.toml"),
        dir.path().join("packer.toml"),
    )
    .unwrap();
    let run = packer(dir.path(), &["pack", "--dir", root, "--budget", "500"], b"");
    assert_eq!(run.status, 2);
    assert!(
        run.stderr
            .contains("is not a regular file in the directory"),
        "{}",
        run.stderr
    );
    // packer init writes a starter file that packs as it is, and never
    // writes over one.
    fs::remove_file(dir.path().join("packer.toml")).unwrap();
    let run = packer(dir.path(), &["init", root], b"");
    assert_eq!(run.status, 0, "{}", run.stderr);
    let starter = fs::read_to_string(dir.path().join("packer.toml")).unwrap();
    assert!(starter.contains("budget = 32000"));
    assert_eq!(summary(&[])["availableTokens"], 32000);
    let run = packer(dir.path(), &["init", root], b"");
    assert_eq!(run.status, 2);
    assert_eq!(
        fs::read_to_string(dir.path().join("packer.toml")).unwrap(),
        starter
    );
}

/// The outline a label describes, rebuilt from the source by SPEC §2.3's
/// line rule alone (not by the code under test).
fn rebuild_outline(source: &str, lines_label: &str) -> String {
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let mut keep = vec![false; lines.len()];
    for part in lines_label.split(',') {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        for line in first.parse::<usize>().unwrap()..=last.parse::<usize>().unwrap() {
            keep[line - 1] = true;
        }
    }
    let mut out = String::new();
    let mut at = 0;
    while at < lines.len() {
        if keep[at] {
            out.push_str(lines[at]);
            at += 1;
            continue;
        }
        let start = at;
        while at < lines.len() && !keep[at] {
            at += 1;
        }
        out.push_str(&format!("⋮ {}", at - start));
        if at < lines.len() || source.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// A Rust file of `functions` documented functions with long bodies.
fn rust_source(functions: usize) -> String {
    let mut text = String::from("//! A module.\n\nuse std::fmt;\n\n");
    for f in 0..functions {
        text.push_str(&format!(
            "/// Computes {f}.\npub fn compute_{f}(x: u64) -> u64 {{\n"
        ));
        for line in 0..12 {
            text.push_str(&format!(
                "    let v{line} = x.wrapping_mul({line}) + {f};\n"
            ));
        }
        text.push_str("    x\n}\n\n");
    }
    text
}

#[test]
fn outlines_files_that_do_not_fit_whole_exactly_and_labelled_in_every_envelope() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = (0..8)
        .map(|i| (format!("src/m{i}.rs"), rust_source(3 + i)))
        .collect();
    files.push((
        "tool.py".into(),
        "\"\"\"A tool.\"\"\"\n\nimport os\n\n\nclass Tool:\n    \"\"\"Does it.\"\"\"\n\n    def run(self, x):\n        y = x + 1\n        z = y * 2\n        return os.path.join(str(y), str(z))\n".to_owned()
            + &"\n\ndef helper_N(a, b):\n    c = a + b\n    d = c * 2\n    e = d - 1\n    return e\n".repeat(20),
    ));
    files.push((
        "broken.rs".into(),
        format!("{}fn broken( {{\n", rust_source(6)),
    ));
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    write_tree(dir.path(), &borrowed);
    let root = dir.path().to_str().unwrap();
    let oracle = tiktoken_rs::cl100k_base_singleton();
    for envelope in ["markdown", "json", "xml"] {
        let run = packer(
            dir.path(),
            &[
                "pack",
                "--dir",
                root,
                "--budget",
                "1500",
                "--outline",
                "--envelope",
                envelope,
            ],
            b"",
        );
        assert_eq!(run.status, 0, "{envelope}: {}", run.stderr);
        let out = json(&run.stdout);
        let payload = out["payloadText"].as_str().unwrap();
        let used = out["usedTokens"].as_u64().unwrap();
        assert_eq!(used as usize, oracle.encode_ordinary(payload).len());
        assert!(used <= out["availableTokens"].as_u64().unwrap());
        let outlined: Vec<&str> = out["outlineIds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|id| id.as_str().unwrap())
            .collect();
        assert!(outlined.len() >= 3, "{envelope}: {outlined:?}");
        assert!(!outlined.contains(&"broken.rs"));
        assert_eq!(out["unoutlined"][0]["id"], "broken.rs", "{envelope}");
        for id in &outlined {
            let source = &files.iter().find(|(p, _)| p == id).unwrap().1;
            let of_lines = source.split_inclusive('\n').count();
            let (label, content) = match envelope {
                "markdown" => {
                    let head = format!("## {id} (outline: lines ");
                    let at = payload.find(&head).unwrap() + head.len();
                    let rest = &payload[at..];
                    let label = &rest[..rest.find(" of ").unwrap()];
                    assert!(rest.starts_with(&format!("{label} of {of_lines})\n")));
                    (label.to_owned(), rebuild_outline(source, label))
                }
                "json" => {
                    let decision = out["decisions"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|d| d["id"] == *id)
                        .unwrap();
                    assert_eq!(decision["reason"], "outline-fits");
                    let tail = r#""outline":{"lines":""#;
                    let entry = &payload[payload.find(&format!(r#""id":"{id}""#)).unwrap()..];
                    let at = entry.find(tail).unwrap() + tail.len();
                    let label = &entry[at..at + entry[at..].find('"').unwrap()];
                    assert!(
                        entry[at..].starts_with(&format!(r#"{label}","ofLines":{of_lines}}}}}"#))
                    );
                    let rebuilt = rebuild_outline(source, label);
                    assert_eq!(
                        decision["contentTokens"].as_u64().unwrap() as usize,
                        oracle.encode_ordinary(&rebuilt).len()
                    );
                    let escaped = serde_json::to_string(&rebuilt).unwrap();
                    (label.to_owned(), escaped)
                }
                _ => {
                    let head = format!(" id=\"{id}\" outline_lines=\"");
                    let at = payload.find(&head).unwrap() + head.len();
                    let label = &payload[at..at + payload[at..].find('"').unwrap()];
                    assert!(
                        payload[at..]
                            .starts_with(&format!("{label}\" outline_of_lines=\"{of_lines}\">"))
                    );
                    (label.to_owned(), rebuild_outline(source, label))
                }
            };
            assert!(
                payload.contains(&content),
                "{envelope} {id}: the payload does not hold the outline of lines {label}"
            );
            assert!(content.contains("⋮ "), "{envelope} {id}");
        }
    }
    // --tree marks what this same pack made of each file.
    let run = packer(
        dir.path(),
        &[
            "pack",
            "--dir",
            root,
            "--budget",
            "1500",
            "--outline",
            "--tree",
        ],
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let out = json(&run.stdout);
    let payload = out["payloadText"].as_str().unwrap();
    let used = out["usedTokens"].as_u64().unwrap();
    assert_eq!(used as usize, oracle.encode_ordinary(payload).len());
    let mut marked = 0;
    for decision in out["decisions"].as_array().unwrap() {
        let id = decision["id"].as_str().unwrap();
        if id == "tree:/" {
            assert_eq!(decision["reason"], "required");
            continue;
        }
        let name = id.rsplit('/').next().unwrap();
        let mark = match decision["reason"].as_str().unwrap() {
            "outline-fits" => " [outline]",
            "fits" => "",
            _ => " [omitted]",
        };
        marked += usize::from(!mark.is_empty());
        let line = format!("  {name}{mark}\n");
        assert!(payload.contains(&line), "the tree has no line {line:?}");
    }
    assert!(marked > 0);
}

#[test]
fn a_cancelled_collection_ends_with_cancelled() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), &[("a.txt", "alpha\n"), ("b.txt", "beta\n")]);
    let cancelled = CollectOptions {
        cancel: packer::Cancel::new(),
        ..options(&[])
    };
    cancelled.cancel.cancel();
    let error = packer_collect::collect(dir.path(), &cancelled, |_| {}).unwrap_err();
    assert_eq!(error.code(), "cancelled");
    let collection = packer_collect::collect(dir.path(), &options(&[]), |_| {}).unwrap();
    assert_eq!(ids(&collection), ["a.txt", "b.txt"]);
}

#[test]
fn a_flag_given_at_its_default_still_wins_over_packer_toml() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<(String, String)> = (0..5)
        .map(|i| (format!("f{i}.txt"), format!("{}\n", "word ".repeat(300))))
        .collect();
    files.push((
        "packer.toml".into(),
        "note-omissions = true\nnote-omissions-max = 1\n".into(),
    ));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_tree(dir.path(), &files);
    let omitted = |args: &[&str]| {
        let mut all = vec![
            "pack",
            "--dir",
            ".",
            "--budget",
            "400",
            "--envelope",
            "json",
        ];
        all.extend_from_slice(args);
        let run = packer(dir.path(), &all, b"");
        assert_eq!(run.status, 0, "{}", run.stderr);
        let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let payload: serde_json::Value =
            serde_json::from_str(json["payloadText"].as_str().unwrap()).unwrap();
        payload["omitted"].as_array().unwrap().len()
    };
    // The file's cap of 1, then the flag at its default of 50.
    assert_eq!(omitted(&[]), 1);
    assert!(omitted(&["--note-omissions", "--note-omissions-max", "50"]) > 1);
}

#[test]
fn a_glob_or_priority_that_matches_no_file_is_named_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    write_tree(
        dir.path(),
        &[("README.md", "# Tree\n"), ("src/lib.rs", "pub fn f() {}\n")],
    );
    let run = packer(
        dir.path(),
        &[
            "pack",
            "--dir",
            ".",
            "--budget",
            "500",
            "--glob",
            "*.md",
            "--glob",
            "src/**",
            "--glob",
            "lib/**",
            "--glob",
            "!vendor/**",
            "--priority",
            "src/**=5",
            "--priority",
            "docs/**=3",
            "--format",
            "summary",
        ],
        b"",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning: --glob 'lib/**' matches no collected file",
            "warning: --priority 'docs/**=3' matches no collected file",
        ]
    );
}
