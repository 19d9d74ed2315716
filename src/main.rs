//! The `packer` binary: parse the command line, run, print an error once,
//! and exit with its status.

mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    let status = match cli::run(cli) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("error[{}]: {error}", error.code());
            error.exit_status()
        }
    };
    std::process::exit(status);
}
