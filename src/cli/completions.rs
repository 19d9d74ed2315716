//! `packer completions`: a shell completion script.

use clap::ValueEnum;
use packer::Error;
use packer::error::EXIT_OK;

use super::{Cli, write_stdout};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShellArg {
    /// Bash
    Bash,
    /// Zsh
    Zsh,
    /// Fish
    Fish,
    /// PowerShell
    Powershell,
}

pub fn run(shell: ShellArg) -> Result<i32, Error> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let shell = match shell {
        ShellArg::Bash => Shell::Bash,
        ShellArg::Zsh => Shell::Zsh,
        ShellArg::Fish => Shell::Fish,
        ShellArg::Powershell => Shell::PowerShell,
    };
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "packer", &mut script);
    write_stdout(&script)?;
    Ok(EXIT_OK)
}
