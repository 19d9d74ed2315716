//! `packer man`: the man page (roff), every command on one page.

use packer::Error;
use packer::error::EXIT_OK;

use super::{Cli, EXIT_CODES, FIXTURE, write_stdout};

const EXAMPLES: &str = "\
Pack a capture and read the decisions as a table:
  packer pack capture.json --format report
Pipe the exact payload into an agent, keeping the plan:
  packer pack capture.json --model gpt-4o --context-tokens 128000 \\
    --reserved-other-input-tokens 6000 --reserved-output-tokens 4000 \\
    --safety-tokens 500 --format summary --payload-out payload.json > plan.json
Fill the budget as fully as possible, listing what was left out in the payload:
  packer pack capture.json --policy max-fill --note-omissions --format payload
Let documents too long to fit go in as excerpts around a query:
  packer pack capture.json --excerpt-query \"exit code, required\"
Check a capture in CI before packing (exit 3 or 4 on failure):
  packer validate capture.json
Count a text's tokens, or print the lines around a query:
  packer count --model gpt-4o README.md
  packer focus --query \"exit code\" README.md";

/// Text as a roff block kept as written (`.nf`), escaped.
fn roff_block(title: &str, text: &str) -> String {
    let body = text
        .replace('\\', "\\e")
        .replace('-', "\\-")
        .lines()
        .map(|line| {
            if line.starts_with('.') || line.starts_with('\'') {
                format!("\\&{line}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    format!(".SH {title}\n.nf\n{body}\n.fi\n")
}

/// One page: the top-level synopsis and commands, each command's synopsis
/// and options, then the fixture format, the exit status and examples.
/// Every command is on this page (no other page is referred to).
pub fn run() -> Result<i32, Error> {
    use clap::CommandFactory;
    let command = Cli::command();
    let mut page = Vec::new();
    let top = clap_mangen::Man::new(command.clone());
    let rendered = top
        .render_title(&mut page)
        .and_then(|()| top.render_name_section(&mut page))
        .and_then(|()| top.render_synopsis_section(&mut page))
        .and_then(|()| top.render_description_section(&mut page))
        .and_then(|()| top.render_options_section(&mut page))
        .and_then(|()| {
            page.extend_from_slice(b".SH COMMANDS\n");
            for sub in command.get_subcommands() {
                let about = sub
                    .get_about()
                    .map(|about| about.to_string())
                    .unwrap_or_default();
                page.extend_from_slice(
                    format!(
                        ".TP\n\\fBpacker {}\\fR\n{}\n",
                        sub.get_name(),
                        about.replace('-', "\\-")
                    )
                    .as_bytes(),
                );
            }
            for sub in command.get_subcommands() {
                page.extend_from_slice(
                    format!(".SH \"PACKER {}\"\n", sub.get_name().to_uppercase()).as_bytes(),
                );
                let bin_name = format!("packer {}", sub.get_name());
                let man = clap_mangen::Man::new(sub.clone().bin_name(bin_name));
                man.render_synopsis_section(&mut page)?;
                man.render_options_section(&mut page)?;
            }
            page.extend_from_slice(roff_block("FIXTURE", FIXTURE).as_bytes());
            page.extend_from_slice(roff_block("\"EXIT STATUS\"", EXIT_CODES).as_bytes());
            page.extend_from_slice(roff_block("EXAMPLES", EXAMPLES).as_bytes());
            top.render_version_section(&mut page)
        });
    rendered.map_err(|error| Error::Output { kind: error.kind() })?;
    write_stdout(&page)?;
    Ok(EXIT_OK)
}
