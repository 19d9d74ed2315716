//! Tokenizer files (`--tokenizer`): counts and packs equal to the reference
//! implementations' counts (Hugging Face `tokenizers` for Qwen3's
//! tokenizer.json, all-MiniLM-L6-v2's (WordPiece), the legacy Claude
//! tokenizer.json (NFKC) and small files with added tokens of every kind,
//! SentencePiece-style BPE, WordPiece and Unigram pipelines, mistral-common
//! for Mistral's tekken.json), stored in
//! tests/data/tokenizers/vectors.json.gz by scripts/hf-reference/make-vectors.py;
//! NFC with the reference's Unicode tables (nfc-vectors.json.gz, by
//! scripts/hf-reference/make-nfc-vectors.py); refusals of what cannot be
//! counted exactly; malformed files.

use crate::common;

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use packer::envelope::Envelopes;
use packer::{Counter, Envelope, Fixture, Limits, Options, Policy, Request, Splitting, Tokenizer};
use serde::Deserialize;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tokenizers");

#[derive(Deserialize)]
struct Vectors {
    files: std::collections::BTreeMap<String, FileInfo>,
    texts: Vec<TextCase>,
    envelopes: Vec<EnvelopeCase>,
}

#[derive(Deserialize)]
struct FileInfo {
    file: String,
}

#[derive(Deserialize)]
struct TextCase {
    tokenizer: String,
    name: String,
    text: String,
    count: usize,
}

#[derive(Deserialize)]
struct EnvelopeCase {
    tokenizer: String,
    name: String,
    documents: Vec<String>,
    count: usize,
}

fn vectors() -> &'static Vectors {
    static VECTORS: OnceLock<Vectors> = OnceLock::new();
    VECTORS.get_or_init(|| {
        let gz = std::fs::read(Path::new(DATA).join("vectors.json.gz")).unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut text)
            .unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// The bytes of a committed tokenizer file (decompressed if it is).
fn file_bytes(key: &str) -> (String, Vec<u8>) {
    let name = &vectors().files[key].file;
    let raw = std::fs::read(Path::new(DATA).join(name)).unwrap();
    if !name.ends_with(".gz") {
        return (name.clone(), raw);
    }
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_end(&mut bytes)
        .unwrap();
    (name.trim_end_matches(".gz").to_owned(), bytes)
}

fn tokenizer(key: &str) -> Tokenizer {
    let (name, bytes) = file_bytes(key);
    Tokenizer::from_bytes(&name, &bytes).unwrap()
}

/// A decompressed copy on disk, for the command line.
fn file_on_disk(key: &str) -> PathBuf {
    let (name, bytes) = file_bytes(key);
    let dir = std::env::temp_dir().join(format!("packer-tokenizers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    if !path.exists() {
        std::fs::write(&path, bytes).unwrap();
    }
    path
}

fn fixture_json(documents: &[String]) -> String {
    let documents: Vec<serde_json::Value> = documents
        .iter()
        .enumerate()
        .map(|(i, content)| {
            serde_json::json!({
                "id": format!("d{i}"),
                "url": format!("https://example.com/{i}"),
                "format": "text",
                "content": content,
                "truncated": false,
            })
        })
        .collect();
    serde_json::json!({
        "budget": {"contextTokens": 1_000_000, "reservedOtherInputTokens": 0,
                   "reservedOutputTokens": 0, "safetyTokens": 0},
        "documents": documents,
    })
    .to_string()
}

#[test]
fn every_text_counts_like_the_reference() {
    let mut failures = Vec::new();
    for key in vectors().files.keys() {
        let counter = Counter::with_tokenizer(tokenizer(key));
        for case in vectors().texts.iter().filter(|c| &c.tokenizer == key) {
            let count = counter.count(&case.text);
            if count != case.count {
                failures.push(format!("{key} {}: {count} != {}", case.name, case.count));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(vectors().texts.len() >= 100);
}

#[test]
fn packs_use_exactly_the_reference_count_of_their_payload() {
    let mut failures = Vec::new();
    for key in vectors().files.keys() {
        let tokenizer = tokenizer(key);
        for case in vectors().envelopes.iter().filter(|c| &c.tokenizer == key) {
            let capture = fixture_json(&case.documents);
            let fixture = Fixture::from_bytes(capture.as_bytes(), &Limits::default()).unwrap();
            let request = Request {
                tokenizer: Some(tokenizer),
                ..Request::default()
            };
            let outcome = packer::pack(&fixture, &request).unwrap();
            assert_eq!(
                outcome.plan.order.len(),
                case.documents.len(),
                "{key} {}",
                case.name
            );
            if outcome.plan.used_tokens != case.count {
                failures.push(format!(
                    "{key} {}: {} != {}",
                    case.name, outcome.plan.used_tokens, case.count
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn packs_under_tight_budgets_stay_exact_with_every_policy() {
    // Every adversarial text as a document; budgets that force choices.
    let documents = &vectors()
        .envelopes
        .iter()
        .find(|c| c.name == "all adversarial texts")
        .unwrap()
        .documents;
    for key in vectors().files.keys() {
        let tokenizer = tokenizer(key);
        let counter = Counter::with_tokenizer(tokenizer);
        let capture = fixture_json(documents);
        let fixture = Fixture::from_bytes(capture.as_bytes(), &Limits::default()).unwrap();
        for budget in [40u64, 300, 2_000] {
            for policy in [
                packer::Policy::InOrder,
                packer::Policy::Priority,
                packer::Policy::MaxFill,
            ] {
                for note_omissions in [false, true] {
                    let request = Request {
                        tokenizer: Some(tokenizer),
                        budget: packer::PartialBudget {
                            context_tokens: Some(budget),
                            ..Default::default()
                        },
                        options: packer::Options {
                            policy,
                            note_omissions,
                            ..Default::default()
                        },
                        ..Request::default()
                    };
                    let plan = match packer::pack(&fixture, &request)
                        .map_err(packer::Failure::into_error)
                    {
                        Ok(outcome) => outcome.plan,
                        Err(error) => {
                            assert_eq!(error.code(), "empty-envelope-does-not-fit");
                            continue;
                        }
                    };
                    assert!(plan.used_tokens as u64 <= plan.available_tokens);
                    assert_eq!(
                        plan.used_tokens,
                        counter.count(&plan.payload_text),
                        "{key} {budget} {policy:?} {note_omissions}"
                    );
                }
            }
        }
    }
}

/// The payload's recount takes each entry's remembered pieces with these
/// files too, and agrees with the reference's count of every vector's
/// payload.
#[test]
fn recounts_match_each_entrys_pieces() {
    let (mut matched, mut fell_back) = (0, Vec::new());
    for key in vectors().files.keys() {
        let counter = Counter::with_tokenizer(tokenizer(key));
        for case in vectors().envelopes.iter().filter(|c| &c.tokenizer == key) {
            let capture = fixture_json(&case.documents);
            let fixture = Fixture::from_bytes(capture.as_bytes(), &Limits::default()).unwrap();
            let layout = Envelopes::build(counter, Envelope::Json, &fixture.documents, None);
            let all: Vec<usize> = (0..fixture.documents.len()).collect();
            let (text, parts) = layout.render_parts(&all, |_| None);
            let spans: Vec<_> = parts.iter().map(|&(at, e)| (at, e.known())).collect();
            match counter.count_with_known(&text, &spans) {
                Some(count) => {
                    assert_eq!(count, case.count, "{key} {}", case.name);
                    matched += 1;
                }
                None => fell_back.push(format!("{key} {}", case.name)),
            }
        }
    }
    // Only where a normalizer would change the payload (NFC, on texts with
    // letters NFC composes) or an added token is in it is it counted whole
    // instead.
    assert!(matched >= 100, "{matched}");
    assert!(
        fell_back.iter().all(|case| !case.starts_with("tekken ")),
        "{fell_back:?}"
    );
}

/// The byte-level files split like tiktoken (packing counts entry by
/// entry), whatever their model (`wordlevel-bytes` is a WordLevel model);
/// the SentencePiece-style, WordPiece, Unigram and other WordLevel ones
/// have no such
/// split (a text is one word, split at `▁`, or split by BERT's rules), nor
/// has a byte-level file with NFKC (Claude's: NFKC changes text before the
/// split),
/// and packing counts every candidate whole.
#[test]
fn byte_level_files_split_like_tiktoken() {
    for key in vectors().files.keys() {
        let want = if key.starts_with("sp-")
            || key.starts_with("wordpiece")
            || key.starts_with("unigram")
            || key == "wordlevel-whitespace"
            || key == "minilm"
            || key.starts_with("bpe-")
            || key == "claude"
        {
            Splitting::Whole
        } else {
            Splitting::Tiktoken
        };
        assert_eq!(
            Counter::with_tokenizer(tokenizer(key)).splitting(),
            want,
            "{key}"
        );
    }
}

#[test]
fn a_file_is_loaded_once_and_labelled_with_its_name_and_hash() {
    let a = tokenizer("tekken");
    let b = tokenizer("tekken");
    assert_eq!(a, b);
    assert_eq!(a.label(), "tokenizer:tekken_240718.json");
    assert_eq!(a.sha256().len(), 64);
    let (_, bytes) = file_bytes("tekken");
    let renamed = Tokenizer::from_bytes("other.json", &bytes).unwrap();
    assert_ne!(renamed, a);
    assert_eq!(renamed.sha256(), a.sha256());
}

#[test]
fn count_and_pack_take_a_tokenizer_file_on_the_command_line() {
    let path = file_on_disk("qwen3");
    let case = vectors()
        .texts
        .iter()
        .find(|c| c.tokenizer == "qwen3" && c.name == "code")
        .unwrap();
    let out = Command::from_std(common::packer())
        .args(["count", "--tokenizer"])
        .arg(&path)
        .write_stdin(case.text.clone())
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(printed, format!("{}\n", case.count));

    let envelope = vectors()
        .envelopes
        .iter()
        .find(|c| c.tokenizer == "qwen3" && c.name == "code")
        .unwrap();
    let out = Command::from_std(common::packer())
        .args(["pack", "--format", "summary", "--tokenizer"])
        .arg(&path)
        .arg("-")
        .write_stdin(fixture_json(&envelope.documents))
        .assert()
        .success();
    let summary: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(summary["encoding"], "tokenizer:qwen3-tokenizer.json");
    assert_eq!(summary["usedTokens"], envelope.count);
    assert_eq!(
        summary["tokenizerSha256"],
        tokenizer("qwen3").sha256(),
        "{summary}"
    );

    let out = Command::from_std(common::packer())
        .args(["validate", "--tokenizer"])
        .arg(&path)
        .arg("-")
        .write_stdin(fixture_json(&envelope.documents))
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        printed.contains("encoding tokenizer:qwen3-tokenizer.json,"),
        "{printed}"
    );
}

fn refused(path: &Path) -> (i32, String) {
    let out = Command::from_std(common::packer())
        .args(["count", "--tokenizer"])
        .arg(path)
        .write_stdin("text")
        .assert()
        .failure();
    let output = out.get_output();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stderr.clone()).unwrap(),
    )
}

/// A normalizer packer does not count (`Nmt`) is refused naming it; a
/// WordLevel file whose unknown token is not in its vocabulary (the
/// reference fails on every word it does not know) and a `Precompiled`
/// charsmap that cannot be read are invalid; a `Precompiled` normalizer
/// with a BPE model (no reference counts were made for one) is refused.
#[test]
fn unknown_normalizers_are_refused_and_broken_models_or_charsmaps_are_invalid() {
    let dir = std::env::temp_dir().join(format!("packer-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let unigram = r#""pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["▁a",-1.0]]}}"#;
    for (name, json, code, says) in [
        (
            "wordlevel",
            r#"{"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1},"unk_token":"<unk>"}}"#.to_owned(),
            "invalid-tokenizer",
            "unk_token is not in the vocab",
        ),
        (
            "nmt",
            format!(r#"{{"normalizer":{{"type":"Nmt"}},{unigram}"#),
            "unsupported-tokenizer",
            "the Nmt normalizer",
        ),
        (
            "charsmap",
            format!(r#"{{"normalizer":{{"type":"Precompiled","precompiled_charsmap":"AAAA"}},{unigram}"#),
            "invalid-tokenizer",
            "precompiled_charsmap cannot be read",
        ),
        (
            "bpe",
            // (A charsmap with no key: a root and its block of 256 units.)
            format!(
                r#"{{"normalizer":{{"type":"Precompiled","precompiled_charsmap":"AAQA{}AAA="}},"pre_tokenizer":null,"model":{{"type":"BPE","vocab":{{"a":0}},"merges":[]}}}}"#,
                "AAAA".repeat(341)
            ),
            "unsupported-tokenizer",
            "the Precompiled normalizer with a BPE model",
        ),
    ] {
        let path = dir.join(format!("{name}-tokenizer.json"));
        std::fs::write(&path, json).unwrap();
        let (status, stderr) = refused(&path);
        assert_eq!(status, 3, "{stderr}");
        assert!(
            stderr.starts_with(&format!("error[{code}]:")) && stderr.contains(says),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("<unk>") && !stderr.contains("AAAA"), "{stderr}");
    }
}

/// SPEC §2.2.1: SentencePiece-style BPE files load (Llama 2's and
/// Gemma's shapes); what no exact count exists for is refused, naming the
/// component.
#[test]
fn what_cannot_be_counted_exactly_is_refused_naming_the_component() {
    let dir = std::env::temp_dir().join(format!("packer-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for json in [
        // Llama 2 / Mistral 7B style: normalizers that write the ▁ marker.
        r#"{"normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"}]},"pre_tokenizer":null,"model":{"type":"BPE","byte_fallback":true,"vocab":{"a":0},"merges":[]}}"#,
        // Gemma style: a split on spaces and byte_fallback, no ByteLevel.
        r#"{"normalizer":null,"pre_tokenizer":{"type":"Split","pattern":{"String":" "},"behavior":"MergedWithPrevious","invert":false},"model":{"type":"BPE","byte_fallback":true,"vocab":{"a":0},"merges":[]}}"#,
    ] {
        let counter =
            Counter::with_tokenizer(Tokenizer::from_bytes("sp.json", json.as_bytes()).unwrap());
        assert_eq!(counter.splitting(), Splitting::Whole);
    }
    let cases = [
        (
            r#"{"normalizer":null,"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","byte_fallback":true,"vocab":{"a":0},"merges":[]}}"#,
            "byte_fallback",
        ),
        (
            r#"{"normalizer":null,"pre_tokenizer":{"type":"Split","pattern":{"Regex":"(?<=a)b"},"behavior":"Isolated","invert":false},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "look-around",
        ),
        (
            r#"{"normalizer":{"type":"Replace","pattern":{"Regex":"(?<=a) +"},"content":"▁"},"pre_tokenizer":null,"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "a Replace normalizer's regex: a split pattern with a look-around or an inline flag",
        ),
        (
            r#"{"normalizer":{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"Prepend","prepend":"▁"}]},"pre_tokenizer":null,"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "NFC normalizer in a Sequence",
        ),
        (
            r#"{"normalizer":null,"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Metaspace","replacement":"▁"},{"type":"ByteLevel"}]},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "Metaspace pre-tokenizer together with ByteLevel",
        ),
        (
            r#"{"normalizer":{"type":"StripAccents"},"pre_tokenizer":null,"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "the StripAccents normalizer with a BPE model",
        ),
        (
            // Falcon's whole pre-tokenizer: Digits and a Split after
            // ByteLevel would see its byte-level characters (`²` is a
            // digit there).
            r#"{"normalizer":null,"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Punctuation","behavior":"Contiguous"},{"type":"ByteLevel","add_prefix_space":false},{"type":"Digits","individual_digits":false}]},"model":{"type":"BPE","vocab":{},"merges":[]}}"#,
            "a pre-tokenizer after ByteLevel",
        ),
    ];
    for (index, (json, component)) in cases.iter().enumerate() {
        let path = dir.join(format!("refused-{index}.json"));
        std::fs::write(&path, json).unwrap();
        let (status, stderr) = refused(&path);
        assert_eq!(status, 3, "{stderr}");
        assert!(
            stderr.starts_with("error[unsupported-tokenizer]:"),
            "{stderr}"
        );
        assert!(stderr.contains(component), "{component}: {stderr}");
    }
}

#[test]
fn malformed_files_are_refused_without_echoing_them() {
    let dir = std::env::temp_dir().join(format!("packer-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_, qwen) = file_bytes("qwen3");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("cut", qwen[..qwen.len() / 2].to_vec(), "invalid-tokenizer"),
        ("not json", b"SECRET-CONTENT not json".to_vec(), "invalid-tokenizer"),
        ("not utf-8", b"{\"model\": \"\xff\xfe\"}".to_vec(), "invalid-tokenizer"),
        ("empty", Vec::new(), "invalid-tokenizer"),
        (
            "merge of unknown tokens",
            br#"{"pre_tokenizer":{"type":"ByteLevel"},"model":{"type":"BPE","vocab":{"SECRET-CONTENT":0},"merges":["SECRET-CONTENT x"]}}"#.to_vec(),
            "invalid-tokenizer",
        ),
        (
            "tekken with bad base64",
            br#"{"config":{"pattern":"\\s+","default_vocab_size":2,"default_num_special_tokens":0},"vocab":[{"rank":0,"token_bytes":"SECRET-CONTENT!"}]}"#.to_vec(),
            "invalid-tokenizer",
        ),
    ];
    for (name, bytes, code) in cases {
        let path = dir.join(format!("{}.json", name.replace(' ', "-")));
        std::fs::write(&path, &bytes).unwrap();
        let (status, stderr) = refused(&path);
        assert_eq!(status, 3, "{name}: {stderr}");
        assert!(
            stderr.starts_with(&format!("error[{code}]:")),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("SECRET"), "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
    }
    let (status, stderr) = refused(&dir.join("no-such-file.json"));
    assert_eq!(status, 3);
    assert!(
        stderr.starts_with("error[unreadable-tokenizer]:"),
        "{stderr}"
    );
}

#[test]
fn tokenizer_conflicts_with_encoding_and_model() {
    for flag in [["--encoding", "o200k_base"], ["--model", "gpt-4o"]] {
        Command::from_std(common::packer())
            .args(["count", "--tokenizer", "x.json"])
            .args(flag)
            .write_stdin("text")
            .assert()
            .code(2);
    }
}

#[test]
fn a_file_whose_pre_tokenizer_has_several_split_stages_packs_by_counting_whole() {
    // Qwen3's file with its Split stage given twice: the same pieces (a
    // split of a piece by the same pattern is the piece), but not the one
    // tiktoken-family pass the per-entry envelope count was shown for, so
    // every candidate payload is counted whole.
    let (name, bytes) = file_bytes("qwen3");
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    let stages = json["pre_tokenizer"]["pretokenizers"]
        .as_array_mut()
        .unwrap();
    let split = stages[0].clone();
    stages.insert(0, split);
    let twice = Tokenizer::from_bytes(&name, &serde_json::to_vec(&json).unwrap()).unwrap();
    let counter = Counter::with_tokenizer(twice);
    assert_eq!(counter.splitting(), Splitting::Whole);
    let once = tokenizer("qwen3");
    let qwen3 = Counter::with_tokenizer(once);
    assert_eq!(qwen3.splitting(), Splitting::Tiktoken);
    let texts: Vec<String> = vectors()
        .texts
        .iter()
        .filter(|c| c.tokenizer == "qwen3")
        .map(|case| {
            assert_eq!(counter.count(&case.text), case.count, "{}", case.name);
            assert_eq!(qwen3.count(&case.text), case.count, "{}", case.name);
            format!("x{}", case.text)
        })
        .collect();
    // Packing counting whole gives what the per-entry count gives with the
    // same pieces (checked against the reference elsewhere): the same plans
    // under in-order and priority, and under max-fill an exact plan never
    // below in-order.
    let fixture =
        Fixture::from_bytes(fixture_json(&texts[..16]).as_bytes(), &Limits::default()).unwrap();
    let all = Request {
        tokenizer: Some(twice),
        ..Request::default()
    };
    let all = packer::pack(&fixture, &all).unwrap().plan.used_tokens as u64;
    // (Counting whole is slow in a debug build: a few budgets suffice.)
    for budget in [all / 3, all * 2 / 3] {
        for envelope in Envelope::ALL {
            for note_omissions in [false, true] {
                for policy in Policy::ALL {
                    let options = Options {
                        policy,
                        envelope,
                        note_omissions,
                        note_omissions_max: 3,
                        ..Options::default()
                    };
                    let request = |tokenizer| Request {
                        tokenizer: Some(tokenizer),
                        budget: packer::PartialBudget {
                            context_tokens: Some(budget),
                            ..packer::PartialBudget::default()
                        },
                        options: options.clone(),
                        ..Request::default()
                    };
                    let whole = packer::pack(&fixture, &request(twice)).unwrap().plan;
                    let by_entry = packer::pack(&fixture, &request(once)).unwrap().plan;
                    let case = format!("{budget} {envelope:?} {note_omissions} {policy:?}");
                    assert_eq!(
                        whole.used_tokens,
                        qwen3.count(&whole.payload_text),
                        "{case}"
                    );
                    assert!(whole.used_tokens as u64 <= budget, "{case}");
                    for skip in whole.decisions.iter().filter(|d| !d.selected) {
                        assert!(skip.needed_tokens > skip.free_tokens as i64, "{case}");
                    }
                    if policy == Policy::MaxFill {
                        assert!(whole.used_tokens <= by_entry.used_tokens, "{case}");
                        let in_order = Request {
                            options: Options {
                                policy: Policy::InOrder,
                                ..options.clone()
                            },
                            ..request(twice)
                        };
                        let floor = packer::pack(&fixture, &in_order).unwrap().plan;
                        assert!(whole.used_tokens >= floor.used_tokens, "{case}");
                    } else {
                        assert_eq!(whole, by_entry, "{case}");
                    }
                }
            }
        }
    }
}

#[derive(Deserialize)]
struct NfcVectors {
    newest_unicode: String,
    assigned_since_9: usize,
    pairs: Vec<NfcCase>,
    sweep: Vec<NfcCase>,
}

#[derive(Deserialize)]
struct NfcCase {
    #[serde(alias = "composite")]
    cp: u32,
    text: String,
    count: usize,
}

/// Qwen3's NFC composes exactly what `tokenizers` composes (its Unicode 9.0
/// tables): the 21 composition pairs whose composite is assigned since 9.0
/// stay apart, and every character assigned since (about 44,600 of them,
/// up to the newest Unicode) counts as the reference counts it beside
/// marks that canonical reordering would move, doubled, and decomposed.
#[test]
fn nfc_uses_the_references_unicode_tables() {
    let gz = std::fs::read(Path::new(DATA).join("nfc-vectors.json.gz")).unwrap();
    let mut json = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut json)
        .unwrap();
    let vectors: NfcVectors = serde_json::from_str(&json).unwrap();
    assert!(vectors.newest_unicode.as_str() >= "18.0.0");
    assert_eq!(vectors.sweep.len(), vectors.assigned_since_9);
    assert!(vectors.assigned_since_9 > 40_000);
    // 21 pairs, each alone and between letters.
    assert_eq!(vectors.pairs.len(), 42);
    let counter = Counter::with_tokenizer(tokenizer("qwen3"));
    let mut failures = Vec::new();
    for case in vectors.pairs.iter().chain(&vectors.sweep) {
        let count = counter.count(&case.text);
        if count != case.count {
            failures.push(format!("U+{:04X}: {count} != {}", case.cp, case.count));
        }
    }
    assert!(
        failures.is_empty(),
        "{} differ: {failures:#?}",
        failures.len()
    );
    // The issue's example: each pair is several tokens, not one composed
    // letter's three.
    assert!(vectors.pairs.iter().all(|case| case.count >= 5));
}

/// SPEC §2.2: added tokens not marked special are matched as tokens (the
/// reference counts `<think>hi</think>` as 3 with Qwen3), special ones are
/// text, and packs keep the reference's count of their payload.
#[test]
fn added_tokens_that_are_not_special_count_as_one_token() {
    let case = |key: &str, name: &str| {
        vectors()
            .texts
            .iter()
            .find(|c| c.tokenizer == key && c.name == name)
            .unwrap()
    };
    let qwen3 = Counter::with_tokenizer(tokenizer("qwen3"));
    assert_eq!(case("qwen3", "think tags").count, 3);
    assert_eq!(qwen3.count("<think>hi</think>"), 3);
    // `<|im_start|>` is special: text, as without the added token.
    assert!(qwen3.count("<|im_start|>") > 1);
    for name in [
        "think tags",
        "adjacent added tokens",
        "special and non-special mixed",
        "single-word added token",
        "stripping added tokens",
        "normalized added token",
        "special added token over a plain one",
    ] {
        for key in ["qwen3", "added"] {
            let case = case(key, name);
            let counter = Counter::with_tokenizer(tokenizer(key));
            assert_eq!(counter.count(&case.text), case.count, "{key} {name}");
        }
    }
}

/// SPEC §2.2.1: a WordPiece file (all-MiniLM-L6-v2's) counts ordinary
/// text: its post-processor's `[CLS]` and `[SEP]` are not added, BERT's
/// special tokens are text, a word over `max_input_chars_per_word` (100) is
/// one unknown token, and the file's truncation and padding (to 128) play
/// no part. The numbers are `tokenizers` 0.23.3's `encode(text,
/// add_special_tokens=False)` with `encode_special_tokens=True`, padding
/// and truncation off; added tokens not marked special are tokens.
#[test]
fn wordpiece_files_count_text_without_the_post_processors_tokens() {
    let minilm = Counter::with_tokenizer(tokenizer("minilm"));
    assert_eq!(minilm.count("hello"), 1);
    assert_eq!(minilm.count("Héllo WÖRLD"), 2);
    assert_eq!(minilm.count("[CLS]"), 4);
    assert_eq!(minilm.count(&"a".repeat(100)), 50);
    assert_eq!(minilm.count(&"a".repeat(101)), 1);
    assert_eq!(minilm.count(&"word ".repeat(300)), 300);
    let case = |key: &str, name: &str| {
        vectors()
            .texts
            .iter()
            .find(|c| c.tokenizer == key && c.name == name)
            .unwrap()
    };
    let cased = Counter::with_tokenizer(tokenizer("wordpiece-cased"));
    assert_eq!(case("wordpiece-cased", "think tags").count, 4);
    for name in [
        "think tags",
        "normalized added token",
        "bert special-token text",
        "long words",
    ] {
        assert_eq!(
            cased.count(&case("wordpiece-cased", name).text),
            case("wordpiece-cased", name).count,
            "{name}"
        );
    }
}

/// Where an added token's text could run across a cut of the per-entry
/// count (`"},{"id` spans an entry's end, the join and the next key), the
/// pack counts whole, and `usedTokens` is still the reference's count of
/// the payload (the reference counts are checked in
/// `packs_use_exactly_the_reference_count_of_their_payload`); where none
/// can (Qwen3's tags, the flags of the other file), it counts per entry.
#[test]
fn added_tokens_across_entry_cuts_make_packing_count_whole() {
    let documents = &vectors()
        .envelopes
        .iter()
        .find(|c| c.name == "all adversarial texts" && c.tokenizer == "across")
        .unwrap()
        .documents;
    let capture = fixture_json(documents);
    let fixture = Fixture::from_bytes(capture.as_bytes(), &Limits::default()).unwrap();
    for (key, stays) in [("qwen3", true), ("added", true), ("across", false)] {
        let counter = Counter::with_tokenizer(tokenizer(key));
        let layout = Envelopes::build(counter, Envelope::Json, &fixture.documents, Some(3));
        assert_eq!(layout.added_tokens_stay_inside(), stays, "{key}");
    }
    let across = tokenizer("across");
    let counter = Counter::with_tokenizer(across);
    let all = packer::pack(
        &fixture,
        &Request {
            tokenizer: Some(across),
            ..Request::default()
        },
    )
    .unwrap()
    .plan;
    assert!(all.payload_text.contains(r#""},{"id"#));
    assert_eq!(all.used_tokens, counter.count(&all.payload_text));
    let total = all.used_tokens as u64;
    for budget in [total / 2, total * 3 / 4] {
        for policy in [Policy::InOrder, Policy::MaxFill] {
            let request = Request {
                tokenizer: Some(across),
                budget: packer::PartialBudget {
                    context_tokens: Some(budget),
                    ..packer::PartialBudget::default()
                },
                options: Options {
                    policy,
                    note_omissions: true,
                    ..Options::default()
                },
                ..Request::default()
            };
            let plan = packer::pack(&fixture, &request).unwrap().plan;
            assert!(plan.used_tokens as u64 <= budget);
            assert_eq!(
                plan.used_tokens,
                counter.count(&plan.payload_text),
                "{budget} {policy:?}"
            );
        }
    }
}

// The whole request (`--request`, SPEC §2.4).

/// A request file in a fresh folder.
fn request_file(name: &str, json: &serde_json::Value) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("packer-requests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, json.to_string()).unwrap();
    path
}

fn conversation() -> serde_json::Value {
    serde_json::json!({"messages": [
        {"role": "system", "content": "Answer from the documents only."},
        {"role": "user", "content": "Documents:\n{{packer:documents}}\n\nWhich document says what?"},
    ]})
}

#[test]
fn a_gpt_oss_request_is_counted_whole_and_fits() {
    let request = request_file("harmony.json", &conversation());
    let documents: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "Document {i} says {}.",
                "something worth reading ".repeat(i * 3 + 1)
            )
        })
        .collect();
    for (budget, policy) in [(600, "in-order"), (900, "priority"), (700, "max-fill")] {
        let out = Command::from_std(common::packer())
            .args(["pack", "-", "--encoding", "o200k_harmony", "--request"])
            .arg(&request)
            .args(["--context-tokens", &budget.to_string()])
            .args(["--reserved-output-tokens", "100", "--safety-tokens", "10"])
            .args(["--policy", policy])
            .write_stdin(fixture_json(&documents))
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let text = json["requestText"].as_str().unwrap();
        let payload = json["payloadText"].as_str().unwrap();
        let available = budget - 110;
        assert_eq!(json["availableTokens"], available);
        assert_eq!(
            json["requestTokens"],
            common::harmony_count(text),
            "{policy}"
        );
        assert!(json["requestTokens"].as_u64().unwrap() <= available as u64);
        assert_eq!(
            json["usedTokens"],
            common::oracle(packer::Encoding::O200kHarmony)
                .encode_ordinary(payload)
                .len()
        );
        assert!(text.contains(&format!("Documents:\n{payload}\n\nWhich document")));
        // Everything else: the request with the empty envelope in its place.
        let empty = text.replace(payload, r#"{"documents":[]}"#);
        assert_eq!(json["otherInputTokens"], common::harmony_count(&empty));
        // Some document was left out, and taking it would not have fit.
        let skipped = json["decisions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["selected"] == false)
            .unwrap_or_else(|| panic!("{policy}: all fit at {budget}"));
        assert!(
            skipped["neededTokens"].as_i64().unwrap() > skipped["freeTokens"].as_i64().unwrap()
        );
        // --format request prints the rendered request, byte for byte.
        let out = Command::from_std(common::packer())
            .args(["pack", "-", "--encoding", "o200k_harmony", "--request"])
            .arg(&request)
            .args(["--context-tokens", &budget.to_string()])
            .args(["--reserved-output-tokens", "100", "--safety-tokens", "10"])
            .args(["--policy", policy, "--format", "request"])
            .write_stdin(fixture_json(&documents))
            .assert()
            .success();
        assert_eq!(out.get_output().stdout, text.as_bytes());
    }
    // The report speaks of the request: its first row is everything but
    // the documents, and the rows add up to requestTokens.
    let out = Command::from_std(common::packer())
        .args(["pack", "-", "--encoding", "o200k_harmony", "--request"])
        .arg(&request)
        .args(["--budget", "700", "--format", "report"])
        .write_stdin(fixture_json(&documents))
        .assert()
        .success();
    let report = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(report.contains("tokens used by the request"), "{report}");
    let total: usize = report
        .lines()
        .find(|line| line.trim_end().ends_with("requestTokens"))
        .and_then(|line| line.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    let rows: i64 = report
        .lines()
        .filter(|line| line.starts_with("IN ") || line.contains("(request)"))
        .map(|line| {
            line.split_whitespace()
                .find(|word| word.parse::<i64>().is_ok())
                .unwrap()
                .parse::<i64>()
                .unwrap()
        })
        .sum();
    assert_eq!(rows, total as i64, "{report}");
    assert!(total <= 700);
}

#[test]
fn requests_are_refused_where_the_framing_is_unknown_or_the_reservation_given() {
    let request = request_file("refused.json", &conversation());
    let documents = vec!["a document".to_owned()];
    let run = |args: &[&str]| {
        let out = Command::from_std(common::packer())
            .args(["pack", "-", "--request"])
            .arg(&request)
            .args(args)
            .write_stdin(fixture_json(&documents))
            .assert()
            .failure();
        let output = out.get_output();
        (
            output.status.code().unwrap(),
            String::from_utf8(output.stderr.clone()).unwrap(),
        )
    };
    let (code, stderr) = run(&["--encoding", "cl100k_base", "--budget", "500"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("error[request-framing-unknown]"),
        "{stderr}"
    );
    assert!(stderr.contains("--reserved-other-input-tokens"), "{stderr}");
    // A Mistral tekken.json: the same refusal, with or without a template
    // (none is beside it), in Mistral's words rather than OpenAI's.
    let tekken = file_on_disk("tekken");
    let template = request.with_file_name("tekken-template.jinja");
    std::fs::write(&template, "{{ messages[0].content }}").unwrap();
    for with_template in [false, true] {
        let mut args = vec!["--budget", "500", "--tokenizer", tekken.to_str().unwrap()];
        if with_template {
            args.extend(["--chat-template", template.to_str().unwrap()]);
        }
        let (code, stderr) = run(&args);
        assert_eq!(code, 2, "{stderr}");
        assert!(
            stderr.starts_with("error[request-framing-unknown]:"),
            "{stderr}"
        );
        assert!(
            stderr.contains("tokenizer:tekken_240718.json") && stderr.contains("mistral-common"),
            "{stderr}"
        );
        assert!(!stderr.contains("OpenAI"), "{stderr}");
    }
    let (code, stderr) = run(&[
        "--encoding",
        "o200k_harmony",
        "--context-tokens",
        "500",
        "--reserved-other-input-tokens",
        "50",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("drop --reserved-other-input-tokens (50 given)"),
        "{stderr}"
    );
    let (code, stderr) = run(&[
        "--encoding",
        "o200k_harmony",
        "--budget",
        "500",
        "--windows",
    ]);
    assert_eq!(code, 2, "{stderr}");
    // Too small for the request with an empty payload: exit 4 with the numbers.
    let (code, stderr) = run(&["--encoding", "o200k_harmony", "--budget", "20"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(
        stderr.contains("error[empty-envelope-does-not-fit]"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the request does not fit even with an empty payload"),
        "{stderr}"
    );
    // --format request needs --request.
    let out = Command::from_std(common::packer())
        .args(["pack", "-", "--budget", "100", "--format", "request"])
        .write_stdin(fixture_json(&documents))
        .assert()
        .failure();
    assert_eq!(out.get_output().status.code(), Some(2));
    // A bad request file: coded, positioned, nothing of it echoed.
    let bad = request_file(
        "bad.json",
        &serde_json::json!({"messages": [{"role": "user", "content": "SECRET words"}]}),
    );
    let out = Command::from_std(common::packer())
        .args([
            "pack",
            "-",
            "--encoding",
            "o200k_harmony",
            "--budget",
            "500",
            "--request",
        ])
        .arg(&bad)
        .write_stdin(fixture_json(&documents))
        .assert()
        .failure();
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert_eq!(out.get_output().status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("error[invalid-chat-request]"), "{stderr}");
    assert!(!stderr.contains("SECRET"), "{stderr}");
}

#[derive(Deserialize)]
struct RequestVectors {
    family: String,
    tokenizer: String,
    today: String,
    cases: Vec<RequestCase>,
    #[serde(rename = "specialInContent")]
    special_in_content: Vec<RequestCase>,
}

#[derive(Deserialize)]
struct RequestCase {
    name: String,
    /// As written: key order matters to `tojson`.
    request: Box<serde_json::value::RawValue>,
    payload: String,
    text: String,
    tokens: usize,
}

/// Midnight UTC of a `YYYY-MM-DD` date, in seconds since 1970.
fn midnight(date: &str) -> i64 {
    let parts: Vec<i64> = date.split('-').map(|p| p.parse().unwrap()).collect();
    let (y, m, d) = (parts[0], parts[1], parts[2]);
    let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 719_469;
    days * 86_400
}

#[test]
fn chat_requests_render_and_count_as_transformers_does() {
    use packer::chat::{ChatRequest, ChatTemplate, Framing};
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/requests");
    let mut checked = 0;
    for family in ["qwen3", "gpt-oss"] {
        let text = std::fs::read_to_string(folder.join(format!("{family}-vectors.json"))).unwrap();
        let vectors: RequestVectors = serde_json::from_str(&text).unwrap();
        assert_eq!(vectors.family, family);
        let counter = if vectors.tokenizer == "o200k_harmony" {
            Counter::new(packer::Encoding::O200kHarmony)
        } else {
            Counter::with_tokenizer(tokenizer("qwen3"))
        };
        let config = std::fs::read(folder.join(format!("{family}-tokenizer_config.json"))).unwrap();
        let template = ChatTemplate::from_bytes(&config).unwrap();
        let now = midnight(&vectors.today);
        for case in vectors.cases.iter().chain(&vectors.special_in_content) {
            let request = ChatRequest::from_bytes(case.request.get().as_bytes())
                .unwrap_or_else(|e| panic!("{family} {}: {e}", case.name));
            let framing = Framing::new(
                request,
                &template,
                counter,
                now,
                &None,
                &packer::Cancel::default(),
            )
            .unwrap();
            let rendered = framing
                .render(&case.payload)
                .unwrap_or_else(|e| panic!("{family} {}: {e}", case.name));
            assert_eq!(rendered.text, case.text, "{family} {}", case.name);
            assert_eq!(rendered.tokens, case.tokens, "{family} {}", case.name);
            checked += 1;
        }
    }
    assert!(checked >= 37, "{checked}");
}

#[derive(Deserialize)]
struct Sweep {
    tokenizer: String,
    reference: String,
    /// Each shape's text around the character: (before, after).
    shapes: Vec<(String, String)>,
    /// Per code point: the code point, then the reference's count of each
    /// shape.
    counts: Vec<Vec<u32>>,
    /// Other texts (random ones) and the reference's count of each.
    #[serde(default)]
    texts: Vec<(String, u32)>,
}

/// Every code point in each shape counted as the reference counted it,
/// (and other texts), from a file that a scripts/hf-reference/sweep-*.py
/// writes (about 1.1 million code points per committed
/// file; not run in CI). Set `PACKER_SWEEP` to the file.
#[test]
#[ignore = "needs PACKER_SWEEP, from scripts/hf-reference/sweep-*.py"]
fn every_code_point_counts_like_the_reference() {
    let path = std::env::var("PACKER_SWEEP").expect("PACKER_SWEEP names a sweep file");
    let gz = std::fs::read(path).unwrap();
    let mut json = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut json)
        .unwrap();
    let sweeps: Vec<Sweep> = serde_json::from_str(&json).unwrap();
    let mut text = String::new();
    for sweep in &sweeps {
        let counter = Counter::with_tokenizer(tokenizer(&sweep.tokenizer));
        let (mut compared, mut failures) = (0usize, Vec::new());
        for row in &sweep.counts {
            let c = char::from_u32(row[0]).expect("a scalar value");
            for ((before, after), &want) in sweep.shapes.iter().zip(&row[1..]) {
                text.clear();
                text.push_str(before);
                text.push(c);
                text.push_str(after);
                let count = counter.count(&text);
                compared += 1;
                if count != want as usize {
                    failures.push(format!(
                        "U+{:04X} {before:?}..{after:?}: {count} != {want}",
                        row[0]
                    ));
                }
            }
        }
        for (text, want) in &sweep.texts {
            let count = counter.count(text);
            compared += 1;
            if count != *want as usize {
                failures.push(format!("{text:?}: {count} != {want}"));
            }
        }
        println!(
            "{} ({}): {} code points, {compared} texts, {} differ",
            sweep.tokenizer,
            sweep.reference,
            sweep.counts.len(),
            failures.len()
        );
        assert!(
            failures.is_empty(),
            "{}: {} differ: {:#?}",
            sweep.tokenizer,
            failures.len(),
            &failures[..failures.len().min(50)]
        );
    }
}
