//! How full each policy packs a real corpus, against the exhaustive optimum.
//!
//! ```sh
//! cargo run --release --locked --example fill_table
//! ```
//!
//! The corpus is the first 20 README files (by path) of the crates in the
//! local Cargo registry, as Markdown documents. For each budget it prints the
//! tokens used by `in-order`, `priority` and `max-fill`, and the optimum
//! found by trying all 2^20 subsets, each counted exactly.

use std::fs;
use std::path::PathBuf;

use packer::envelope::Envelopes;
use packer::{
    Counter, Document, Encoding, Fixture, Format, Options, PartialBudget, Policy, Request,
};

const DOCUMENTS: usize = 20;

fn main() {
    let documents = corpus();
    let counter = Counter::new(Encoding::Cl100kBase);
    let layout = Envelopes::of_documents(counter, &documents, false);
    let total: usize = layout.total(&(0..documents.len()).collect::<Vec<_>>());
    println!(
        "{} README files, {} tokens in all (cl100k_base)\n",
        documents.len(),
        total
    );
    println!(
        "| budget | in-order | priority | max-fill | exhaustive optimum | in-order gives up | max-fill proven |"
    );
    println!("|---:|---:|---:|---:|---:|---:|:---:|");
    for budget in [2_000u64, 4_000, 8_000, 16_000, 32_000] {
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
        let used = |policy| {
            let request = Request {
                options: Options {
                    policy,
                    note_omissions: false,
                    ..Options::default()
                },
                ..Request::default()
            };
            packer::pack(&fixture, &request).unwrap().plan
        };
        let in_order = used(Policy::InOrder).used_tokens;
        let priority = used(Policy::Priority).used_tokens;
        let max_fill = used(Policy::MaxFill);
        let optimum = exhaustive(&layout, budget as usize);
        println!(
            "| {budget} | {in_order} | {priority} | {} | {optimum} | {:.1}% | {} |",
            max_fill.used_tokens,
            100.0 * (optimum - in_order) as f64 / budget as f64,
            if max_fill.optimal == Some(true) {
                "yes"
            } else {
                "no"
            },
        );
        assert_eq!(max_fill.used_tokens, optimum, "max-fill missed the optimum");
    }
}

/// The fullest envelope over all subsets (in input order) within `budget`.
fn exhaustive(layout: &Envelopes, budget: usize) -> usize {
    let n = layout.len();
    let mut best = 0;
    let mut order = Vec::with_capacity(n);
    for mask in 0u32..(1 << n) {
        order.clear();
        order.extend((0..n).filter(|i| mask & (1 << i) != 0));
        let tokens = layout.total(&order);
        if tokens <= budget {
            best = best.max(tokens);
        }
    }
    best
}

fn corpus() -> Vec<Document> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let mut crates: Vec<PathBuf> = fs::read_dir(home.join("registry/src"))
        .unwrap()
        .filter_map(Result::ok)
        .flat_map(|index| fs::read_dir(index.path()).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("README.md"))
        .filter(|path| path.exists())
        .collect();
    crates.sort();
    crates
        .into_iter()
        .filter_map(|path| fs::read_to_string(&path).ok().map(|text| (path, text)))
        .filter(|(_, text)| !text.trim().is_empty() && text.len() < 12_000)
        .take(DOCUMENTS)
        .enumerate()
        .map(|(index, (path, content))| {
            let name = path
                .parent()
                .unwrap()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            Document {
                index,
                source: packer::Source::Url(format!("https://example.com/crates/{name}")),
                id: name,
                format: Format::Markdown,
                content,
                priority: (index % 3) as i32,
                required: false,
            }
        })
        .collect()
}
