//! `packer encodings`: the encodings and models that map to them.

use packer::error::EXIT_OK;
use packer::{Encoding, Error};

use super::write_stdout;

pub fn run() -> Result<i32, Error> {
    let mut text = String::new();
    for encoding in Encoding::ALL {
        text.push_str(&format!(
            "{:<14} {}\n",
            encoding.name(),
            encoding.example_models().join(", ")
        ));
    }
    write_stdout(text.as_bytes())?;
    Ok(EXIT_OK)
}
