//! Counting speed on one core: packer's counter beside the `tiktoken-rs`
//! crate (a dev-dependency, the reference the tests check counts against),
//! on the same text in the same run.
//!
//! ```sh
//! cargo run --release --locked --example count_speed -- [FILE]
//! ```
//!
//! FILE defaults to the bench's 10,000-document fixture
//! (`target/release/bench/docs-10000.json`, written by `cargo run
//! --release --locked --example bench -- against OTHER`). Each count runs
//! on a thread of its own, so that packer's per-thread piece cache starts
//! cold as in one `packer count` process; the encoder tables are loaded
//! before the clock starts. The medians of five runs taking turns, in MB/s
//! (10^6 bytes per second); both counts must agree.

use std::time::Instant;

use packer::{Counter, Encoding};

const RUNS: usize = 5;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/release/bench/docs-10000.json".to_owned());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("read {path}: {error} (run the bench's `against` first, or name a file)")
    });
    let mb = text.len() as f64 / 1e6;
    println!("{path}: {mb:.1} MB, one thread per count, medians of {RUNS} runs");
    println!("| encoding | packer MB/s | tiktoken-rs MB/s | packer ÷ tiktoken-rs time |");
    println!("|---|---:|---:|---:|");
    for encoding in [Encoding::Cl100kBase, Encoding::O200kBase] {
        let counter = Counter::new(encoding);
        let reference = match encoding {
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
            _ => tiktoken_rs::o200k_base(),
        }
        .expect("tiktoken-rs loads its tables");
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let (seconds, count) = on_a_thread(|| counter.count(&text));
            ours.push((seconds, count));
            let (seconds, count) = on_a_thread(|| reference.encode_ordinary(&text).len());
            theirs.push((seconds, count));
        }
        assert!(
            ours.iter().chain(&theirs).all(|run| run.1 == ours[0].1),
            "{encoding}: the counts differ"
        );
        let (ours, theirs) = (median(&ours), median(&theirs));
        println!(
            "| {encoding} | {:.1} | {:.1} | {:.2} |",
            mb / ours,
            mb / theirs,
            ours / theirs
        );
    }
}

/// Seconds and result of `count` run on a new thread.
fn on_a_thread(count: impl FnOnce() -> usize + Send) -> (f64, usize) {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let start = Instant::now();
                let tokens = count();
                (start.elapsed().as_secs_f64(), tokens)
            })
            .join()
            .expect("the count finishes")
    })
}

fn median(runs: &[(f64, usize)]) -> f64 {
    let mut seconds: Vec<f64> = runs.iter().map(|run| run.0).collect();
    seconds.sort_by(f64::total_cmp);
    seconds[seconds.len() / 2]
}
