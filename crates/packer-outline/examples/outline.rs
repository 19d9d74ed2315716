//! Prints the outline of one file: `outline FILE [full|signatures|public|heads]`.

use packer_outline::{Detail, Language, outline};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: outline FILE [full|signatures|public|heads]");
        std::process::exit(2);
    };
    let detail = match args.next().as_deref() {
        None | Some("full") => Detail::Full,
        Some("signatures") => Detail::Signatures,
        Some("public") => Detail::Public,
        Some("heads") => Detail::Heads,
        Some("first") => Detail::First,
        Some(other) => {
            eprintln!("unknown detail {other}; use full, signatures, public or heads");
            std::process::exit(2);
        }
    };
    let Some(language) = Language::from_path(&path) else {
        eprintln!("{path}: no outline language for this extension");
        std::process::exit(1);
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("{path}: {error}");
            std::process::exit(1);
        }
    };
    match outline(language, &source, detail) {
        Ok(Some(outline)) => {
            print!("{}", outline.content);
            eprintln!(
                "{path}: lines {} of {}; {} of {} bytes",
                outline.lines_label(),
                outline.of_lines,
                outline.content.len(),
                source.len()
            );
        }
        Ok(None) => eprintln!("{path}: no shorter outline"),
        Err(error) => {
            eprintln!("{path}: {error}");
            std::process::exit(1);
        }
    }
}
