//! Loading a `tokenizer.json` holds at most twice the file's size in
//! memory: the file's bytes and, beside them, less than as much again for
//! the tables built from them. Measured with a counting allocator around
//! `load_tokenizer`. A global allocator is unsafe to implement; this test
//! file is this crate's only unsafe code, and it only forwards to the
//! system allocator.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// Qwen3's `tokenizer.json` (11.4 MB: 151k tokens, 151k merges) loads with
/// a peak of heap memory below twice its size, the file's own bytes
/// included (a map of every token and a list of every merge as strings,
/// beside the file, took three times its size more).
#[test]
fn a_tokenizer_file_loads_within_twice_its_size() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/tokenizers");
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
