//! Counting speed on one core: packer's counter beside three other Rust
//! counters of the same encodings, on the same text in the same run:
//! `tiktoken-rs` (the reference packer's tests count against), the
//! `tiktoken` crate and GitHub's `bpe-openai`.
//!
//! ```sh
//! cargo run --release --locked --manifest-path benchmarks/counting/Cargo.toml -- [FILE]
//! ```
//!
//! FILE defaults to the bench's 10,000-document fixture
//! (`target/release/bench/docs-10000.json`, written by `cargo run
//! --release --locked --example bench -- against OTHER`). Each count runs
//! on a thread of its own, so that per-thread caches (packer's piece
//! counts, the `tiktoken` crate's memo) start cold as in one process
//! counting once; every table is loaded before the clock starts. The
//! counters take turns, five rounds; the table gives the medians in MB/s
//! (10^6 bytes per second). Every count must equal packer's, or the run
//! fails: a faster wrong count is no reference.

use std::time::Instant;

use packer::{Counter, Encoding};

const ROUNDS: usize = 5;

type Count = Box<dyn Fn(&str) -> usize + Send + Sync>;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/release/bench/docs-10000.json".to_owned());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("read {path}: {error} (run the bench's `against` first, or name a file)")
    });
    let mb = text.len() as f64 / 1e6;
    println!("{path}: {mb:.1} MB, one thread per count, medians of {ROUNDS} rounds");
    println!("| encoding | packer | tiktoken-rs 0.12 | tiktoken 4.1 | bpe-openai 0.3 |");
    println!("|---|---:|---:|---:|---:|");
    for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
        let counters = counters(encoding);
        let mut seconds = vec![Vec::new(); counters.len()];
        let mut expected = None;
        for round in 0..ROUNDS {
            // Taking turns, starting with a different counter each round.
            for k in 0..counters.len() {
                let which = (round + k) % counters.len();
                let (time, count) = on_a_thread(&counters[which].1, &text);
                let expected = *expected.get_or_insert(count);
                assert_eq!(
                    count, expected,
                    "{encoding}: {} counts otherwise",
                    counters[which].0
                );
                seconds[which].push(time);
            }
        }
        let cells: Vec<String> = seconds
            .iter_mut()
            .map(|times| format!("{:.1} MB/s", mb / median(times)))
            .collect();
        println!("| {encoding} | {} |", cells.join(" | "));
    }
}

/// packer's counter and the references, each loaded (a first count of a
/// short text) before any clock starts.
fn counters(encoding: Encoding) -> Vec<(&'static str, Count)> {
    let packer = Counter::new(encoding);
    let (rs, crate_name, openai) = match encoding {
        Encoding::Cl100kBase => (
            tiktoken_rs::cl100k_base_singleton(),
            "cl100k_base",
            bpe_openai::cl100k_base(),
        ),
        _ => (
            tiktoken_rs::o200k_base_singleton(),
            "o200k_base",
            bpe_openai::o200k_base(),
        ),
    };
    let tiktoken = tiktoken::get_encoding(crate_name).expect("the tiktoken crate has it");
    let counters: Vec<(&'static str, Count)> = vec![
        ("packer", Box::new(move |text| packer.count(text))),
        (
            "tiktoken-rs",
            Box::new(move |text| rs.encode_ordinary(text).len()),
        ),
        ("tiktoken", Box::new(move |text| tiktoken.count(text))),
        ("bpe-openai", Box::new(move |text| openai.count(text))),
    ];
    for (_, count) in &counters {
        count("warm the tables");
    }
    counters
}

/// Seconds one count of `text` takes on a fresh thread, and the count.
fn on_a_thread(count: &Count, text: &str) -> (f64, usize) {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let start = Instant::now();
                let n = count(text);
                (start.elapsed().as_secs_f64(), n)
            })
            .join()
            .expect("a count does not panic")
    })
}

fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}
