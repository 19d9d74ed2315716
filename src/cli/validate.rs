//! `packer validate`: check a fixture and its budget as `pack` would,
//! and print a one-line summary.

use clap::{ArgGroup, Args};
use packer::envelope::Envelope;
use packer::error::EXIT_OK;
use packer::{Error, RequestNames};

use super::{InputArgs, SettingsArgs, envelope_names, write_stdout};

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["fixture"])))]
pub struct ValidateArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Check the budget in this payload layout, as `pack --envelope` would
    #[arg(long, default_value = "json", value_parser = envelope_names())]
    pub envelope: Envelope,

    /// Check the budget as `pack --note-omissions` would
    #[arg(long)]
    pub note_omissions: bool,

    /// With --note-omissions: list at most N left-out documents, then count the rest
    #[arg(long, value_name = "N", default_value_t = packer::envelope::DEFAULT_NOTE_OMISSIONS_MAX, requires = "note_omissions")]
    pub note_omissions_max: usize,
}

impl ValidateArgs {
    /// The flags by name, for the library to build the request from.
    fn names(&self) -> RequestNames {
        RequestNames {
            envelope: Some(self.envelope.name().to_owned()),
            note_omissions: self.note_omissions,
            note_omissions_max: self.note_omissions.then_some(self.note_omissions_max),
            ..self.settings.names()
        }
    }
}

pub fn run(args: ValidateArgs) -> Result<i32, Error> {
    let request = args.settings.request(&args.names())?;
    let fixture = args.input.load()?;
    let settings = packer::settings(&fixture, &request)?;
    // What `pack` would refuse before selecting: the empty envelope and the
    // required documents.
    packer::pack(&fixture, &request)?;
    let documents = fixture.documents.len();
    let required = fixture.documents.iter().filter(|d| d.required).count();
    let line = format!(
        "valid: {documents} document{}, {required} required, encoding {}, {} tokens available\n",
        if documents == 1 { "" } else { "s" },
        settings.counter().label(),
        settings.available_tokens,
    );
    write_stdout(line.as_bytes())?;
    Ok(EXIT_OK)
}
