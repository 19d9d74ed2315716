//! `packer count`: the exact ordinary-text token count of a text.

use std::path::PathBuf;

use clap::Args;
use packer::error::EXIT_OK;
use packer::{Counter, Encoding, Error, RequestNames, fixture};

use super::{encoding_names, read_input, write_stdout};

#[derive(Debug, Args)]
pub struct CountArgs {
    /// The text file, or - for standard input
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub file: PathBuf,

    /// The encoding to count with
    #[arg(long, value_name = "E", value_parser = encoding_names(), default_value = "cl100k_base", conflicts_with = "model")]
    pub encoding: String,

    /// Count with the encoding of this model
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,

    /// Count with this tokenizer file (Hugging Face tokenizer.json or Mistral tekken.json)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["encoding", "model"])]
    pub tokenizer: Option<PathBuf>,

    /// Refuse inputs larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = 1 << 30)]
    pub max_input_bytes: u64,
}

pub fn run(args: CountArgs) -> Result<i32, Error> {
    let counter = match &args.tokenizer {
        Some(path) => Counter::with_tokenizer(packer_files::load_tokenizer(path)?),
        // --encoding has a default: a model replaces it.
        None => Counter::new(
            RequestNames {
                encoding: args.model.is_none().then(|| args.encoding.clone()),
                model: args.model.clone(),
                ..RequestNames::default()
            }
            .encoding()?
            .unwrap_or(Encoding::Cl100kBase),
        ),
    };
    let bytes = read_input(&args.file, args.max_input_bytes)?;
    let text = fixture::utf8(&bytes)?;
    let tokens = counter.count(text);
    write_stdout(format!("{tokens}\n").as_bytes())?;
    Ok(EXIT_OK)
}
