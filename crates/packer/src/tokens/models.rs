//! Which encoding a model name uses: tiktoken's table, as tiktoken-rs
//! 0.12 keeps it (its `src/tokenizer.rs`, in step with OpenAI's
//! `tiktoken/model.py`), copied entry by entry and in order so that the
//! library needs tiktoken-rs only to build its vocabularies (build.rs) and
//! to test against. A unit test reads tiktoken-rs's own table and fails on
//! any difference; after an upgrade of tiktoken-rs, copy the new entries.
//!
//! tiktoken's `gpt2` encoding is `r50k_base` under another name.

use super::Encoding;
use super::Encoding::{Cl100kBase, O200kBase, O200kHarmony, P50kBase, P50kEdit, R50kBase};

/// Model names, matched whole (tiktoken's `MODEL_TO_ENCODING`).
const MODELS: &[(&str, Encoding)] = &[
    ("o1", O200kBase),
    ("o3", O200kBase),
    ("o4-mini", O200kBase),
    ("gpt-5", O200kBase),
    ("gpt-4.1", O200kBase),
    ("gpt-4o", O200kBase),
    ("gpt-4", Cl100kBase),
    ("gpt-3.5-turbo", Cl100kBase),
    ("gpt-3.5", Cl100kBase),
    ("gpt-35-turbo", Cl100kBase),
    ("davinci-002", Cl100kBase),
    ("babbage-002", Cl100kBase),
    ("text-embedding-ada-002", Cl100kBase),
    ("text-embedding-3-small", Cl100kBase),
    ("text-embedding-3-large", Cl100kBase),
    ("text-davinci-003", P50kBase),
    ("text-davinci-002", P50kBase),
    ("text-davinci-001", R50kBase),
    ("text-curie-001", R50kBase),
    ("text-babbage-001", R50kBase),
    ("text-ada-001", R50kBase),
    ("davinci", R50kBase),
    ("curie", R50kBase),
    ("babbage", R50kBase),
    ("ada", R50kBase),
    ("code-davinci-002", P50kBase),
    ("code-davinci-001", P50kBase),
    ("code-cushman-002", P50kBase),
    ("code-cushman-001", P50kBase),
    ("davinci-codex", P50kBase),
    ("cushman-codex", P50kBase),
    ("text-davinci-edit-001", P50kEdit),
    ("code-davinci-edit-001", P50kEdit),
    ("text-similarity-davinci-001", R50kBase),
    ("text-similarity-curie-001", R50kBase),
    ("text-similarity-babbage-001", R50kBase),
    ("text-similarity-ada-001", R50kBase),
    ("text-search-davinci-doc-001", R50kBase),
    ("text-search-curie-doc-001", R50kBase),
    ("text-search-babbage-doc-001", R50kBase),
    ("text-search-ada-doc-001", R50kBase),
    ("code-search-babbage-code-001", R50kBase),
    ("code-search-ada-code-001", R50kBase),
    ("gpt2", R50kBase),
    ("gpt-2", R50kBase),
];

/// Beginnings of model names, tried in order when no name matches whole
/// (tiktoken's `MODEL_PREFIX_TO_ENCODING`).
const PREFIXES: &[(&str, Encoding)] = &[
    ("o1-", O200kBase),
    ("o3-", O200kBase),
    ("o4-mini-", O200kBase),
    ("gpt-5", O200kBase),
    ("gpt-4.5-", O200kBase),
    ("gpt-4.1-", O200kBase),
    ("chatgpt-4o-", O200kBase),
    ("gpt-4o-", O200kBase),
    ("gpt-4-", Cl100kBase),
    ("gpt-3.5-turbo-", Cl100kBase),
    ("gpt-35-turbo-", Cl100kBase),
    ("gpt-oss-", O200kHarmony),
];

/// Beginnings tiktoken-rs tries after tiktoken's own.
const EXTRA_PREFIXES: &[(&str, Encoding)] = &[("codex-mini", O200kBase)];

/// The encoding `model` uses, as tiktoken-rs's `get_tokenizer` finds it: a
/// fine-tuned `ft:BASE:...` name is its base's; then a whole name; then the
/// first prefix.
pub(super) fn for_model(model: &str) -> Option<Encoding> {
    // The base has no `:`, so it is never itself an `ft:` name.
    let model = match model.strip_prefix("ft:") {
        Some(rest) => rest.split(':').next().unwrap_or(rest),
        None => model,
    };
    let whole = MODELS.iter().find(|(name, _)| *name == model);
    let prefix = || {
        PREFIXES
            .iter()
            .chain(EXTRA_PREFIXES)
            .find(|(prefix, _)| model.starts_with(prefix))
    };
    whole.or_else(prefix).map(|&(_, encoding)| encoding)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

    /// tiktoken-rs's `src/tokenizer.rs`, found where cargo keeps the
    /// locked version's sources.
    fn tiktoken_rs_tables() -> String {
        let output = std::process::Command::new(env!("CARGO"))
            .args(["metadata", "--format-version", "1", "--locked", "--offline"])
            .arg("--manifest-path")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo metadata: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("cargo metadata writes JSON");
        let manifest = metadata["packages"]
            .as_array()
            .expect("a list of packages")
            .iter()
            .find(|package| package["name"] == "tiktoken-rs")
            .expect("tiktoken-rs is a dependency")["manifest_path"]
            .as_str()
            .expect("a manifest path");
        let source = Path::new(manifest).with_file_name("src/tokenizer.rs");
        std::fs::read_to_string(&source)
            .unwrap_or_else(|error| panic!("{}: {error}", source.display()))
    }

    /// The encoding a tiktoken-rs tokenizer is.
    fn encoding(tokenizer: &str) -> Encoding {
        match tokenizer {
            "O200kHarmony" => O200kHarmony,
            "O200kBase" => O200kBase,
            "Cl100kBase" => Cl100kBase,
            "P50kBase" => P50kBase,
            "P50kEdit" => P50kEdit,
            "R50kBase" | "Gpt2" => R50kBase,
            other => panic!("tiktoken-rs has a tokenizer packer lacks: {other}"),
        }
    }

    /// The entries of the table `name` in tiktoken-rs's source.
    fn entries(source: &str, name: &str) -> Vec<(String, Encoding)> {
        let start = source
            .find(&format!("const {name}: &[(&str, Tokenizer)] ="))
            .unwrap_or_else(|| panic!("tiktoken-rs has no table {name}"));
        let table = &source[start..];
        let table = &table[..table.find("];").expect("the table ends")];
        table
            .match_indices("(\"")
            .map(|(at, _)| {
                let entry = &table[at + 2..];
                let (model, rest) = entry.split_once('"').expect("a quoted name");
                let (_, variant) = rest.split_once("Tokenizer::").expect("a tokenizer");
                let variant: String = variant
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect();
                (model.to_owned(), encoding(&variant))
            })
            .collect()
    }

    fn owned(table: &[(&str, Encoding)]) -> Vec<(String, Encoding)> {
        table
            .iter()
            .map(|&(name, encoding)| (name.to_owned(), encoding))
            .collect()
    }

    #[test]
    fn the_tables_are_tiktoken_rs_tables_entry_by_entry_and_in_order() {
        let source = tiktoken_rs_tables();
        for (ours, theirs) in [
            (MODELS, "MODEL_TO_TOKENIZER"),
            (PREFIXES, "MODEL_PREFIX_TO_TOKENIZER"),
            (EXTRA_PREFIXES, "EXTRA_MODEL_PREFIX_TO_TOKENIZER"),
        ] {
            assert_eq!(owned(ours), entries(&source, theirs), "{theirs}");
        }
    }

    #[test]
    fn every_name_and_prefix_maps_as_tiktoken_rs_maps_it() {
        let mut names: Vec<String> = ["", "ft:", "ft::", "gpt-6", "GPT-4", " gpt-4", "o", "gpt"]
            .map(String::from)
            .into();
        for (name, _) in MODELS.iter().chain(PREFIXES).chain(EXTRA_PREFIXES) {
            for model in [
                name.to_string(),
                format!("{name}-2024-05-13"),
                format!("{name}x"),
                name[..name.len() - 1].to_owned(),
            ] {
                names.push(format!("ft:{model}:acme::abc123"));
                names.push(format!("ft:{model}"));
                names.push(format!("ft:ft:{model}"));
                names.push(model);
            }
        }
        let tiktoken = |name: &str| {
            get_tokenizer(name).map(|tokenizer| {
                encoding(match tokenizer {
                    Tokenizer::O200kHarmony => "O200kHarmony",
                    Tokenizer::O200kBase => "O200kBase",
                    Tokenizer::Cl100kBase => "Cl100kBase",
                    Tokenizer::P50kBase => "P50kBase",
                    Tokenizer::P50kEdit => "P50kEdit",
                    Tokenizer::R50kBase => "R50kBase",
                    Tokenizer::Gpt2 => "Gpt2",
                })
            })
        };
        for name in &names {
            assert_eq!(for_model(name), tiktoken(name), "{name:?}");
        }
    }
}
