//! The `packer` binary: parse the command line, run, print an error once,
//! and exit with its status.

/// `eprintln!` that does not panic when standard error is closed
/// (`packer ... 2>&1 | head`): a line nobody can read is dropped, and the
/// run ends as it would have.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;

use packer::error::EXIT_FAILURE;
use packer::output::ErrorList;

fn main() {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|first| first == cli::RENDER_WORKER)
    {
        let status = packer_files::render::serve(std::io::stdin().lock(), std::io::stdout().lock());
        std::process::exit(status);
    }
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(error) => std::process::exit(cli::usage_error(&error)),
    };
    // A bug must end in one clear line, not a panic message that could
    // quote what was being processed.
    std::panic::set_hook(Box::new(|_| {}));
    let status = match std::panic::catch_unwind(|| cli::run(cli)) {
        Ok(Ok(status)) => status,
        Ok(Err(error)) => {
            for line in ErrorList::new(&error).lines() {
                say!("{line}");
            }
            error.exit_status()
        }
        Err(_) => {
            say!(
                "error[internal]: packer failed unexpectedly; please report it with the command line (not the capture)"
            );
            EXIT_FAILURE
        }
    };
    std::process::exit(status);
}
