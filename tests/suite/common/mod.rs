//! Helpers shared by the integration tests.

use std::path::PathBuf;
use std::process::Command;

use packer::Encoding;

/// The repository's root, where every black-box test runs unless it needs
/// a directory of its own.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `packer` binary cargo built for these tests, run from the
/// repository's root with a clean environment: only `PATH` is kept (so a
/// `git` is found) and Git reads no system or user configuration. A test
/// that needs another directory or variable sets it on the command.
pub fn packer() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_packer"));
    command
        .current_dir(root())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    command
}

/// tiktoken-rs's encoder for `encoding`: the independent oracle the tests
/// count with (`o200k_harmony` and `p50k_edit` share their ordinary text
/// with `o200k_base` and `p50k_base`).
pub fn oracle(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::O200kHarmony => tiktoken_rs::o200k_harmony_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        Encoding::P50kEdit => tiktoken_rs::p50k_edit_singleton(),
        _ => tiktoken_rs::r50k_base_singleton(),
    }
}

/// What a run of `packer` printed, and its exit status.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs [`packer`] with `args`, `stdin` on its standard input.
pub fn run(args: &[&str], stdin: &[u8]) -> Run {
    let output = assert_cmd::Command::from_std(packer())
        .args(args)
        .write_stdin(stdin.to_vec())
        .output()
        .unwrap();
    Run {
        status: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// Runs git in `dir` with a fixed identity and no user configuration;
/// its standard output is dropped.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// tiktoken-rs's count of a rendered gpt-oss request, every special token
/// allowed (no message in these tests writes one).
pub fn harmony_count(text: &str) -> usize {
    let oracle = oracle(Encoding::O200kHarmony);
    oracle
        .encode(text, &oracle.special_tokens())
        .unwrap()
        .0
        .len()
}
