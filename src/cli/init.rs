//! `packer init DIR`: a commented starter `packer.toml` for a directory,
//! with what its manifests say about the project.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;

use packer::Error;
use packer::error::EXIT_OK;

/// Arguments of `packer init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The directory to write packer.toml in
    #[arg(default_value = ".")]
    pub dir: PathBuf,
}

/// The project kinds recognised by a top-level file, with the priority
/// rules proposed for each (commented out: the value order already puts
/// source first).
const KINDS: [(&str, &str, &str); 6] = [
    ("Cargo.toml", "Rust", "\"src/**=5\", \"tests/**=-1\""),
    (
        "package.json",
        "JavaScript/TypeScript",
        "\"src/**=5\", \"lib/**=5\", \"test/**=-1\"",
    ),
    ("pyproject.toml", "Python", "\"src/**=5\", \"tests/**=-1\""),
    ("setup.py", "Python", "\"src/**=5\", \"tests/**=-1\""),
    ("go.mod", "Go", "\"*.go=5\", \"*_test.go=-1\""),
    ("pom.xml", "Java", "\"src/main/**=5\", \"src/test/**=-1\""),
];

/// Writes `DIR/packer.toml` (never over an existing file or link).
pub fn run(args: &InitArgs) -> Result<i32, Error> {
    let path = args.dir.join("packer.toml");
    let text = starter(&args.dir);
    let shown = packer::output::terminal_safe(&path.to_string_lossy());
    let mut file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(Error::InvalidConfig {
                file: shown,
                line: 0,
                column: 0,
                problem: "exists already; packer init never writes over a file (edit it, or \
                          remove it first)"
                    .into(),
            });
        }
        Err(error) => return Err(Error::Output { kind: error.kind() }),
    };
    file.write_all(text.as_bytes())
        .map_err(|error| Error::Output { kind: error.kind() })?;
    say!("wrote {shown}; packer pack --dir now reads it (flags still win)");
    Ok(EXIT_OK)
}

/// The starter text for `dir`.
fn starter(dir: &Path) -> String {
    let kind = KINDS
        .iter()
        .find(|(manifest, _, _)| dir.join(manifest).is_file());
    let (about, rules) = match kind {
        Some((manifest, language, rules)) => {
            (format!("a {language} project ({manifest} found)"), *rules)
        }
        None => ("a directory".to_owned(), "\"docs/**=-1\""),
    };
    format!(
        "# packer settings for {about}: `packer pack --dir DIR` and `packer collect DIR`\n\
         # read this file; flags win over it. Every key is optional; a key packer does not\n\
         # know is an error. --allow-secrets, --tokenizer, --payload-out and --format are\n\
         # flags only.\n\
         \n\
         # The budget: the payload may use this many tokens...\n\
         budget = 32000\n\
         # ...or the model's window and what else it must hold (not with budget):\n\
         # context-tokens = 128000\n\
         # reserved-other-input-tokens = 8000\n\
         # reserved-output-tokens = 4000\n\
         # safety-tokens = 500\n\
         \n\
         # Count with a model's encoding (or encoding = \"o200k_base\"):\n\
         # model = \"gpt-4o\"\n\
         \n\
         # Count the whole chat request the payload goes into (not with the\n\
         # reservation for other input): files inside this directory.\n\
         # request = \"chat/request.json\"\n\
         # chat-template = \"chat/template.jinja\"\n\
         \n\
         # Layout (markdown fits the most source), selection and notes:\n\
         # envelope = \"markdown\"\n\
         # policy = \"in-order\"\n\
         # note-omissions = true\n\
         \n\
         # Outlines (declarations and signatures) of the source files that do not\n\
         # fit whole, once whole files fill outline-share percent of the budget:\n\
         # outline = true\n\
         # outline-share = 40\n\
         \n\
         # Files come README and manifest first, then source, docs, tests, examples,\n\
         # and licences, changelogs and lock files last. Priorities override that\n\
         # (GLOB=N, the last matching rule wins; --priority flags come after these):\n\
         # priorities = [{rules}]\n\
         # globs = [\"!*.snap\"]\n\
         # git-order = true\n\
         # tree = true\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_file_is_a_valid_configuration_for_every_kind() {
        let dir = tempfile::tempdir().unwrap();
        let text = starter(dir.path());
        assert!(text.starts_with("# packer settings for a directory"));
        packer_collect::config::parse("packer.toml", &text).unwrap();
        for (manifest, language, rules) in KINDS {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(manifest), "").unwrap();
            let text = starter(dir.path());
            assert!(text.contains(language), "{text}");
            let config = packer_collect::config::parse("packer.toml", &text).unwrap();
            assert_eq!(config.budget, Some(32000));
            // The proposed rules parse once uncommented.
            let uncommented = text.replace("# priorities", "priorities");
            let config = packer_collect::config::parse("packer.toml", &uncommented).unwrap();
            assert!(!config.priorities.unwrap().is_empty(), "{rules}");
            let uncommented = text
                .replace("# request =", "request =")
                .replace("# chat-template =", "chat-template =");
            let config = packer_collect::config::parse("packer.toml", &uncommented).unwrap();
            assert!(config.request.is_some() && config.chat_template.is_some());
        }
    }
}
