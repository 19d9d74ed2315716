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
        allow_secrets: false,
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
        other => panic!("no synthetic secret for rule {other}"),
    }
}

#[test]
fn every_rule_finds_its_synthetic_secret_in_context() {
    for rule in collect::secrets::RULES {
        let secret = synthetic_secret(rule.id);
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
    assert_eq!(kept, ["docs/aws.md", "src/lib.rs"]);
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
    let output = Command::new(env!("CARGO_BIN_EXE_packer"))
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
fn the_readme_lists_every_secret_rule() {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for rule in collect::secrets::RULES {
        let row = format!("| `{}` | {} |", rule.id, rule.description);
        assert!(readme.contains(&row), "{row}");
    }
}
