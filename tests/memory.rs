//! Peak heap memory stays proportional to the input: measured with a
//! counting allocator around read -> parse -> validate -> pack, and around
//! loading a tokenizer file. A global
//! allocator is unsafe to implement; this test file is the only unsafe code,
//! and it only forwards to the system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use packer::{Fixture, Limits, Request};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = CURRENT.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(now, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Measurements take turns: the counters are shared by every test thread.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn fixture_text(documents: usize) -> String {
    let documents: Vec<String> = (0..documents)
        .map(|i| {
            let content =
                format!("Paragraph {i}: the quick brown fox jumps over the lazy dog.\n").repeat(20);
            serde_json::json!({
                "id": format!("doc-{i}"),
                "url": format!("https://example.com/{i}"),
                "format": "text",
                "content": content,
                "truncated": false,
            })
            .to_string()
        })
        .collect();
    format!(
        r#"{{"budget":{{"contextTokens":100000,"reservedOtherInputTokens":0,"reservedOutputTokens":0,"safetyTokens":0}},"documents":[{}]}}"#,
        documents.join(",")
    )
}

/// Peak heap bytes above the baseline while packing `text`.
fn peak_while_packing(text: &str) -> usize {
    let limits = Limits {
        max_input_bytes: 100_000_000,
        max_documents: 100_000,
    };
    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let fixture = Fixture::from_bytes(text.as_bytes(), &limits).unwrap();
    let outcome = packer::pack(&fixture, &Request::default()).unwrap();
    assert!(outcome.plan.used_tokens > 0);
    drop((fixture, outcome));
    PEAK.load(Ordering::Relaxed) - baseline
}

#[test]
fn peak_memory_is_proportional_to_the_input() {
    let _turn = MEASURING
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    // Warm up: load the encoder once, outside the measurement.
    peak_while_packing(&fixture_text(2));
    let small = fixture_text(800);
    let large = fixture_text(3200);
    let small_peak = peak_while_packing(&small);
    let large_peak = peak_while_packing(&large);
    let small_ratio = small_peak as f64 / small.len() as f64;
    let large_ratio = large_peak as f64 / large.len() as f64;
    eprintln!(
        "{} bytes: peak {} ({small_ratio:.1}x); {} bytes: peak {} ({large_ratio:.1}x)",
        small.len(),
        small_peak,
        large.len(),
        large_peak
    );
    // A few copies of the input (the parsed text, each document's JSON,
    // the payload), never more, and no growth with size.
    assert!(small_ratio < 8.0, "{small_ratio}");
    assert!(large_ratio < 8.0, "{large_ratio}");
    assert!(
        large_ratio < small_ratio * 1.5,
        "{small_ratio} -> {large_ratio}"
    );
}

/// A file far larger than the text still allowed is refused from its size,
/// without being read: with `--max-file-bytes` raised, a 1 GiB (sparse)
/// file against 1 MiB of `--max-total-bytes` costs no more memory than a
/// small one.
#[test]
fn a_huge_file_is_refused_without_being_read() {
    use packer_collect::{self as collect, CollectOptions};
    let _turn = MEASURING
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "small\n").unwrap();
    let huge = std::fs::File::create(dir.path().join("huge.txt")).unwrap();
    huge.set_len(1 << 30).unwrap();
    let options = CollectOptions {
        base_url: Some(url::Url::parse("https://example.com/").unwrap()),
        max_file_bytes: 4 << 30,
        max_total_bytes: 1 << 20,
        ..CollectOptions::default()
    };
    // The secret rules compile once, on first use: not what is measured.
    collect::secrets::find("warm up");
    collect::secrets::find_in_name("warm/up");
    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let error = collect::collect(dir.path(), &options, |_| {}).unwrap_err();
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    assert_eq!(error.code(), "input-too-large");
    assert!(
        error
            .to_string()
            .contains("more than the limit of 1048576 bytes of text")
    );
    assert!(peak < 4 << 20, "peak {peak} bytes");
}

/// Qwen3's `tokenizer.json` (11.4 MB: 151k tokens, 151k merges) loads with
/// a peak of heap memory below twice its size, the file's own bytes
/// included (a map of every token and a list of every merge as strings,
/// beside the file, took three times its size more).
#[test]
fn a_tokenizer_file_loads_within_twice_its_size() {
    use std::io::Read as _;
    // Taken before the file is read: what this test allocates would
    // otherwise count in another test's measurement.
    let _turn = MEASURING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tokenizers");
    let compressed = std::fs::read(data.join("qwen3-tokenizer.json.gz")).unwrap();
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(&compressed[..])
        .read_to_end(&mut json)
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tokenizer.json");
    std::fs::write(&path, &json).unwrap();
    let size = json.len();
    drop((compressed, json));

    let baseline = CURRENT.load(Ordering::Relaxed);
    PEAK.store(baseline, Ordering::Relaxed);
    let tokenizer = packer_files::load_tokenizer(&path).unwrap();
    let peak = PEAK.load(Ordering::Relaxed) - baseline;
    let kept = CURRENT.load(Ordering::Relaxed) - baseline;
    assert_eq!(
        packer::Counter::with_tokenizer(tokenizer).count("hello world"),
        2
    );
    eprintln!("{size} bytes: peak {peak}, kept {kept}");
    assert!(peak < 2 * size, "peak {peak} bytes for a file of {size}");
    assert!(kept < size, "{kept} bytes kept for a file of {size}");
}
