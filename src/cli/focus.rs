//! `packer focus`: the lines of a text around what a query looks for.

use std::path::PathBuf;

use clap::Args;
use packer::Error;
use packer::error::EXIT_OK;
use packer::fixture;

use super::{query, read_input, write_stdout};

#[derive(Debug, Args)]
pub struct FocusArgs {
    /// The Markdown or text file, or - for standard input
    #[arg(value_name = "FILE|-", default_value = "-")]
    pub file: PathBuf,

    /// Keep lines near lines containing any of these terms (split on
    /// whitespace and commas; terms shorter than 2 characters are dropped)
    #[arg(long, value_name = "Q", value_parser = query)]
    pub query: Option<String>,

    /// Lines kept on each side of a matching line
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_CONTEXT)]
    pub context: usize,

    /// Cap the result at this many characters, at a line boundary
    #[arg(long, value_name = "N", default_value_t = packer::focus::DEFAULT_MAX_CHARS)]
    pub max_chars: usize,

    /// Refuse inputs larger than this many bytes
    #[arg(long, value_name = "N", default_value_t = 1 << 30)]
    pub max_input_bytes: u64,
}

pub fn run(args: FocusArgs) -> Result<i32, Error> {
    let bytes = read_input(&args.file, args.max_input_bytes)?;
    let text = fixture::utf8(&bytes)?;
    let focus = packer::focus::Focus::new(text, args.query.as_deref(), args.context);
    let mut excerpt = focus.excerpt(usize::MAX, args.max_chars);
    // A marker or note line ends with a line break like every other; the
    // original's own ending is kept as it is.
    if !excerpt.ends_as_original {
        excerpt.text.push_str(focus.line_break());
    }
    write_stdout(excerpt.text.as_bytes())?;
    Ok(EXIT_OK)
}
