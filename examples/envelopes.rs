//! What each envelope costs on real text: the README's envelope table.
//!
//! ```sh
//! cargo run --release --locked --example envelopes
//! ```
//!
//! Two corpora from the local Cargo registry: a code tree (every `.rs` file
//! of the newest `regex-automata` sources, in path order) and Markdown pages
//! (the first 300 crate READMEs, by path). For each budget (8k, 32k, 128k
//! tokens of `cl100k_base`, no reservations) and policy it prints, for
//! each envelope, the overhead (used tokens minus the selected contents' own
//! tokens: keys, tags, fences and JSON's escapes), the bytes of source that
//! fit and how many documents.

use std::fs;
use std::path::{Path, PathBuf};

use packer::{
    Counter, Document, Encoding, Envelope, Fixture, Format, Options, PartialBudget, Policy, Request,
};

fn registry() -> PathBuf {
    let home = std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").expect("HOME is set")).join(".cargo")
        });
    let src = home.join("registry/src");
    fs::read_dir(&src)
        .expect("a local Cargo registry")
        .map(|entry| entry.unwrap().path())
        .next()
        .expect("one registry index")
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

fn document(index: usize, id: String, format: Format, content: String) -> Document {
    Document {
        index,
        source: packer::Source::Url(format!("https://example.com/{}", id.replace(' ', "%20"))),
        id,
        format,
        content,
        priority: 0,
        required: false,
    }
}

fn code_tree(registry: &Path) -> (String, Vec<Document>) {
    let mut crates: Vec<PathBuf> = fs::read_dir(registry)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("regex-automata-")
        })
        .collect();
    crates.sort();
    let root = crates.pop().expect("regex-automata in the registry");
    let mut files = Vec::new();
    walk(&root.join("src"), &mut files);
    let documents = files
        .iter()
        .filter_map(|path| {
            let content = fs::read_to_string(path).ok()?;
            (!content.trim().is_empty()).then_some((path, content))
        })
        .enumerate()
        .map(|(index, (path, content))| {
            let id = path.strip_prefix(&root).unwrap().display().to_string();
            document(index, id, Format::Text, content)
        })
        .collect();
    (
        root.file_name().unwrap().to_string_lossy().into(),
        documents,
    )
}

fn readmes(registry: &Path) -> Vec<Document> {
    let mut crates: Vec<PathBuf> = fs::read_dir(registry)
        .unwrap()
        .map(|e| e.unwrap().path().join("README.md"))
        .filter(|p| p.is_file())
        .collect();
    crates.sort();
    crates
        .iter()
        .filter_map(|path| {
            let content = fs::read_to_string(path).ok()?;
            (!content.trim().is_empty()).then_some((path, content))
        })
        .take(300)
        .enumerate()
        .map(|(index, (path, content))| {
            let name = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy();
            document(
                index,
                format!("{name}/README.md"),
                Format::Markdown,
                content,
            )
        })
        .collect()
}

fn main() {
    let registry = registry();
    let (tree, code) = code_tree(&registry);
    let pages = readmes(&registry);
    let counter = Counter::new(Encoding::Cl100kBase);
    for (name, documents) in [
        (format!("code: {tree}/src"), code),
        ("Markdown: crate READMEs".to_string(), pages),
    ] {
        let bytes: usize = documents.iter().map(|d| d.content.len()).sum();
        let tokens: usize = documents.iter().map(|d| counter.count(&d.content)).sum();
        println!(
            "\n{name}: {} files, {} bytes, {} content tokens (cl100k_base)\n",
            documents.len(),
            bytes,
            tokens
        );
        println!(
            "| budget | policy | overhead tokens json / xml / markdown | source bytes that fit json / xml / markdown | documents json / xml / markdown |"
        );
        println!("|---:|---|---:|---:|---:|");
        for budget in [8_000u64, 32_000, 128_000] {
            for policy in [Policy::InOrder, Policy::MaxFill] {
                let mut overhead = Vec::new();
                let mut fits = Vec::new();
                let mut counts = Vec::new();
                for envelope in Envelope::ALL {
                    let fixture = Fixture {
                        encoding: Some(Encoding::Cl100kBase),
                        has_budget: true,
                        budget: PartialBudget {
                            context_tokens: Some(budget),
                            reserved_other_input_tokens: Some(0),
                            reserved_output_tokens: Some(0),
                            safety_tokens: Some(0),
                        },
                        documents: documents.clone(),
                    };
                    let request = Request {
                        options: Options {
                            policy,
                            envelope,
                            ..Options::default()
                        },
                        ..Request::default()
                    };
                    let plan = packer::pack(&fixture, &request).expect("packs").plan;
                    let content: usize = plan
                        .order
                        .iter()
                        .map(|&i| plan.decisions[i].content_tokens)
                        .sum();
                    let fit: usize = plan.order.iter().map(|&i| documents[i].content.len()).sum();
                    assert!(plan.used_tokens as u64 <= budget);
                    overhead.push((plan.used_tokens - content).to_string());
                    fits.push(fit.to_string());
                    counts.push(plan.order.len().to_string());
                }
                println!(
                    "| {}k | {} | {} | {} | {} |",
                    budget / 1000,
                    policy.name(),
                    overhead.join(" / "),
                    fits.join(" / "),
                    counts.join(" / ")
                );
            }
        }
    }
}
