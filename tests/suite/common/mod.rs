//! Helpers shared by the integration tests.

use std::path::PathBuf;
use std::process::Command;

use packer::Encoding;

/// The repository's root, where every black-box test runs unless it needs
/// a directory of its own.
#[allow(dead_code)]
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `packer` binary cargo built for these tests, run from the
/// repository's root with a clean environment: only `PATH` is kept (so a
/// `git` is found) and Git reads no system or user configuration. A test
/// that needs another directory or variable sets it on the command.
#[allow(dead_code)]
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
#[allow(dead_code)]
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
