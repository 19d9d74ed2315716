// Regenerates the reference data packer's tests compare against:
//
//   tests/data/count-vectors.json   (encoding, text, count) from npm tiktoken
//   tests/data/conformance/*.json   seeded random fixtures with tricky text
//                                   (100.json and up: many small documents
//                                   and a tight budget, so that more than 50
//                                   are omitted and the note is cut)
//   tests/data/expected/*.json      the naive reference packer's output for
//                                   every fixture under every policy
//
// Run from the repository root:
//   (cd scripts/reference && npm ci) && node scripts/reference/make-expected.mjs
// Names of expected files as arguments (fixture-demo.json ...) regenerate
// only those (the whole run takes several minutes).
//
// With --tokenizers, it regenerates instead the data of `--tokenizer FILE`
// packing, counted by the Hugging Face reference (scripts/hf-reference/
// counters.py: `tokenizers` 0.23.3 for Qwen3's tokenizer.json,
// mistral-common 1.13.1 for tekken.json):
//
//   tests/data/tokenizers/conformance/*.json  seeded random fixtures with
//                                   hostile text at the joins for these
//                                   tokenizers (NFC-changing text, marks,
//                                   CJK, emoji, their special-token text)
//   tests/data/tokenizers/expected/TOKENIZER-*.json  the naive reference
//                                   packer's output for the bundled
//                                   fixtures, tests/data/conformance and
//                                   those, with qwen3 and tekken
//
//   python3 -m venv /tmp/hfref
//   /tmp/hfref/bin/pip install tokenizers==0.23.3 mistral-common==1.13.1
//   PACKER_REFERENCE_PYTHON=/tmp/hfref/bin/python \
//     node scripts/reference/make-expected.mjs --tokenizers
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { get_encoding } from "tiktoken";
import { pack, tokenizerCounter } from "./pack.mjs";
import { VARIANTS } from "./variants.mjs";

const ROOT = new URL("../../", import.meta.url).pathname;
const DATA = join(ROOT, "tests/data");
const ENCODINGS = ["cl100k_base", "o200k_base", "o200k_harmony", "p50k_base", "p50k_edit", "r50k_base"];
const TIKTOKEN_NAME = { o200k_harmony: "o200k_base" };

// A small deterministic PRNG (mulberry32), so the data is reproducible.
function rng(seed) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fragments chosen for what they do at a join: whitespace runs, digits that
// regroup in threes, contractions, escapes, CJK, emoji, special-token text.
const FRAGMENTS = [
  "word", "Words", " ", "  ", "   ", "\n", "\n\n", "\t", " \t ", "\r\n", "123", "4567", "8",
  "don't", "'s", "'", "I'LL", "\"", "\\", "\\\\", "/", "//", "!!", "?", ".", ",", "-",
  "日本語", "中文", "한국어", "🙂", "👩‍👩‍👧", "é", "e\u0301", "\u00a0", "\u2028", "\u3000",
  "<|endoftext|>", "<|fim_prefix|>", "{\"a\":1}", "},{", "]}", "\u0001", "\u007f", "x", "Z",
  "https://example.com/a?b=c", "`code`", "# Title", "- item", "| a | b |",
];

function randomText(next, pieces) {
  let text = "";
  for (let i = 0; i < pieces; i++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
  if (text.trim() === "") text += "x";
  return text;
}

function countVectors() {
  const samples = [
    ["prose", "The quick brown fox jumps over the lazy dog. It's 2026; they're here, we've seen it."],
    ["code", "fn main() {\n    let x: Vec<u32> = (0..10).collect();\n    println!(\"{x:?}\");\n}\n"],
    ["json envelope", '{"documents":[{"id":"a","url":"https://example.com/a","format":"text","content":"line\\none \\"q\\" \\\\"}]}'],
    ["empty envelope", '{"documents":[]}'],
    ["omitted envelope", '{"documents":[],"omitted":[{"id":"a","url":"https://example.com/a","reason":"whole-document-does-not-fit"}]}'],
    ["cjk", "日本語のテキスト、中文文本，以及한국어 텍스트。"],
    ["emoji", "👩‍👩‍👧‍👦 🇫🇷 🙂🙂🙂 ✨"],
    ["special tokens", "<|endoftext|><|fim_prefix|>x<|fim_middle|>y<|fim_suffix|><|endofprompt|>"],
    ["contractions", "I'M HERE don'T they'Re we'VE he'd she'll it's"],
    ["digits", "1 12 123 1234 12345 123456 1234567 3.14159 1,000,000"],
    ["mixed whitespace", "a  b\t\tc\n\n\nd \n e\r\n\r\nf   \u00a0 \u3000 g"],
    ["trailing whitespace", "end with spaces     "],
    ["leading whitespace", "     start with spaces"],
    ["spaces run", " ".repeat(5000) + "x"],
    ["trailing spaces run", "a" + " ".repeat(5000)],
    ["tabs run", "\t".repeat(5000) + "x"],
    ["newlines run", "\n".repeat(5000) + "x"],
    ["letters run", "a".repeat(20000)],
    ["digits run", "7".repeat(20000)],
    ["punctuation run", "!".repeat(20000)],
    ["nbsp run", "\u00a0".repeat(5000) + "x"],
    ["cjk run", "漢".repeat(5000)],
    ["escaped json", JSON.stringify("a\nb\t\"c\" \\ \u0001 \u2028")],
  ];
  const next = rng(7);
  for (let i = 0; i < 40; i++) samples.push([`random ${i}`, randomText(next, 5 + Math.floor(next() * 40))]);
  const vectors = [];
  for (const encoding of ENCODINGS) {
    const enc = get_encoding(TIKTOKEN_NAME[encoding] ?? encoding);
    for (const [name, text] of samples) {
      vectors.push({ encoding, name, text, count: enc.encode_ordinary(text).length });
    }
    enc.free();
  }
  writeFileSync(join(DATA, "count-vectors.json"), JSON.stringify(vectors, null, 1) + "\n");
}

function conformanceFixtures() {
  const dir = join(DATA, "conformance");
  mkdirSync(dir, { recursive: true });
  const next = rng(2026);
  for (let n = 0; n < 60; n++) {
    const encoding = ENCODINGS[n % ENCODINGS.length];
    const count = 1 + Math.floor(next() * 12);
    const documents = [];
    for (let i = 0; i < count; i++) {
      const doc = {
        id: next() < 0.2 ? `doc ${i} ✓` : `d${i}`,
        url: `https://example.com/${n}/${i}${next() < 0.2 ? "?q=a%20b&x=\u00e9" : ""}`,
        format: next() < 0.5 ? "markdown" : "text",
        content: randomText(next, 1 + Math.floor(next() * (next() < 0.2 ? 120 : 25))),
        truncated: false,
      };
      if (next() < 0.4) doc.priority = Math.floor(next() * 7) - 3;
      if (next() < 0.08) doc.required = true;
      documents.push(doc);
    }
    const fixture = {
      encoding,
      budget: {
        contextTokens: 40 + Math.floor(next() * 500),
        reservedOtherInputTokens: Math.floor(next() * 20),
        reservedOutputTokens: Math.floor(next() * 20),
        safetyTokens: Math.floor(next() * 5),
      },
      documents,
    };
    writeFileSync(join(dir, `${String(n).padStart(3, "0")}.json`), JSON.stringify(fixture, null, 2) + "\n");
  }
}

// Many small documents under a budget that leaves most of them out.
function notesAtScaleFixtures() {
  const dir = join(DATA, "conformance");
  const next = rng(3101);
  for (let n = 0; n < 4; n++) {
    const encoding = ["cl100k_base", "o200k_base", "r50k_base", "cl100k_base"][n];
    const count = 70 + Math.floor(next() * 90);
    const documents = [];
    for (let i = 0; i < count; i++) {
      documents.push({
        id: next() < 0.2 ? `file ${i} <&"✓">` : `src/mod${i}.rs`,
        url: `https://example.com/tree/${n}/${i}${next() < 0.2 ? "?q=a&b=<c>" : ""}`,
        format: next() < 0.5 ? "markdown" : "text",
        content: randomText(next, 1 + Math.floor(next() * (next() < 0.1 ? 150 : 30))),
        truncated: false,
        priority: Math.floor(next() * 5) - 2,
      });
    }
    const fixture = {
      encoding,
      budget: {
        contextTokens: 1800 + Math.floor(next() * 1200),
        reservedOtherInputTokens: 0,
        reservedOutputTokens: 0,
        safetyTokens: 0,
      },
      documents,
    };
    writeFileSync(join(dir, `${100 + n}.json`), JSON.stringify(fixture, null, 2) + "\n");
  }
}

const TOKENIZERS = process.argv.includes("--tokenizers");
const ONLY = process.argv.slice(2).filter((a) => a !== "--tokenizers");

function expected() {
  const dir = join(DATA, "expected");
  mkdirSync(dir, { recursive: true });
  const sources = [
    ...readdirSync(join(ROOT, "fixtures"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => ["fixtures", f]),
    ...readdirSync(join(DATA, "conformance")).map((f) => ["tests/data/conformance", f]),
  ];
  for (const [folder, file] of sources) {
    const stem = folder === "fixtures" ? `fixture-${file}` : `conformance-${file}`;
    if (ONLY.length > 0 && !ONLY.includes(stem)) continue;
    const fixture = JSON.parse(readFileSync(join(ROOT, folder, file), "utf8").replace(/^\uFEFF/, ""));
    const out = {};
    for (const [name, options] of VARIANTS) {
      const nonRequired = fixture.documents.filter((d) => d.required !== true).length;
      if (options.policy === "max-fill" && nonRequired > 14) continue;
      out[name] = pack(fixture, options);
    }
    writeFileSync(join(dir, stem), JSON.stringify(out, null, 1) + "\n");
  }
}

// Text that is hard for Qwen3's and tekken's pre-tokenizers where an entry
// meets the envelope: marks with nothing to combine with, text NFC changes
// (Qwen3 normalizes), single-digit splitting, runs, their special tokens.
const HOSTILE = [
  "\u0301", "\u0308\u0301", "e\u0301", "\u212b", "A\u030a", "\u1100\u1161\u11a8", "\uac00",
  " ".repeat(40), " ".repeat(301), "\n".repeat(9), "\r\n\r\n", "\t\t", "\u3000\u3000", "\u00a0",
  "0", "42", "1".repeat(80), "3.14159", "\u0661\u0662", "\uff11\uff12",
  "\u6211\u4eec", "\u65e5\u672c\u8a9e", "\ud55c\uad6d\uc5b4", "\u0645\u0631\u062d\u0628\u0627",
  "\u{1F469}\u200d\u{1F469}\u200d\u{1F467}", "\u{1F44D}\u{1F3FD}", "\u2764\ufe0f", "\u{1F600}",
  "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>", "<tool_call>",
  "[INST]", "[/INST]", "<s>", "</s>", "<unk>", "[TOOL_CALLS]", "<|fim_prefix|>",
  "'s", "'LL", "don't", "\"", "\\", "`", "```", "````", "</document_content", "&lt;", "<&>",
  "word", "Words", "x", "-", "!!", "?", "}", "{", "]", "# Title", "- item", "\u0001", "\u007f", "\u2028",
];

function hostileText(next, pieces) {
  let text = "";
  for (let i = 0; i < pieces; i++) {
    text += next() < 0.6
      ? HOSTILE[Math.floor(next() * HOSTILE.length)]
      : FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
  }
  if (text.trim() === "") text += "x";
  return text;
}

function tokenizerFixtures() {
  const dir = join(DATA, "tokenizers/conformance");
  mkdirSync(dir, { recursive: true });
  const next = rng(1010);
  const pick = (list) => list[Math.floor(next() * list.length)];
  for (let n = 0; n < 24; n++) {
    // Mostly few documents (max-fill is checked exhaustively); the last
    // four have many, so that notes are cut at their cap.
    const count = n < 20 ? 1 + Math.floor(next() * 10) : 70 + Math.floor(next() * 20);
    const documents = [];
    for (let i = 0; i < count; i++) {
      const id = next() < 0.3 ? `${pick(HOSTILE)}${i}${pick(HOSTILE)}`.replace(/[\u0000-\u001f\u007f]/g, "") : `d${i}`;
      const doc = {
        id: id === "" ? `d${i}` : id,
        url: `https://example.com/${n}/${i}${next() < 0.3 ? "?q=\u00e9&x=<a>#\u6211" : ""}`,
        format: next() < 0.5 ? "markdown" : "text",
        // Hostile at both ends: the joins are where entries meet.
        content: pick(HOSTILE) + hostileText(next, count > 20 ? 2 + Math.floor(next() * 6) : 1 + Math.floor(next() * 30)) + pick(HOSTILE),
        truncated: false,
      };
      if (doc.content.trim() === "") doc.content += "x";
      if (next() < 0.4) doc.priority = Math.floor(next() * 7) - 3;
      if (count <= 20 && next() < 0.08) doc.required = true;
      documents.push(doc);
    }
    // A budget that leaves some documents out (about one token for every
    // one to three characters of this text).
    const chars = documents.reduce((sum, d) => sum + d.content.length, 0);
    const fixture = {
      budget: {
        contextTokens: count > 20 ? 1500 + Math.floor(next() * 1000) : 60 + Math.floor(next() * chars * 0.5),
        reservedOtherInputTokens: Math.floor(next() * 20),
        reservedOutputTokens: Math.floor(next() * 20),
        safetyTokens: Math.floor(next() * 5),
      },
      documents,
    };
    writeFileSync(join(dir, `${String(n).padStart(3, "0")}.json`), JSON.stringify(fixture, null, 2) + "\n");
  }
}

// Each bundled or generated fixture under every variant, with each
// committed tokenizer file; max-fill only where the exhaustive search is
// small (at most 10 documents that are not required).
function tokenizerExpected() {
  const dir = join(DATA, "tokenizers/expected");
  mkdirSync(dir, { recursive: true });
  const sources = [
    ...readdirSync(join(ROOT, "fixtures"))
      .filter((f) => f.endsWith(".json"))
      .map((f) => ["fixtures", f, `fixture-${f}`]),
    ...readdirSync(join(DATA, "conformance"))
      .filter((f) => f < "100")
      .map((f) => ["tests/data/conformance", f, `conformance-${f}`]),
    ...readdirSync(join(DATA, "tokenizers/conformance"))
      .map((f) => ["tests/data/tokenizers/conformance", f, `hostile-${f}`]),
  ];
  const files = {
    qwen3: join(DATA, "tokenizers/qwen3-tokenizer.json.gz"),
    tekken: join(DATA, "tokenizers/tekken_240718.json.gz"),
  };
  for (const [key, file] of Object.entries(files)) {
    const tokenizer = tokenizerCounter(file);
    for (const [folder, name, stem] of sources) {
      const target = `${key}-${stem}`;
      if (ONLY.length > 0 && !ONLY.includes(target)) continue;
      const fixture = JSON.parse(readFileSync(join(ROOT, folder, name), "utf8").replace(/^\uFEFF/, ""));
      const out = {};
      for (const [variant, options] of VARIANTS) {
        const nonRequired = fixture.documents.filter((d) => d.required !== true).length;
        if (options.policy === "max-fill" && nonRequired > 10) continue;
        out[variant] = pack(fixture, { ...options, tokenizer });
      }
      writeFileSync(join(dir, target), JSON.stringify(out, null, 1) + "\n");
      console.error(`${target}: ${Object.keys(out).length} variants`);
    }
    tokenizer.free();
  }
}

if (TOKENIZERS) {
  tokenizerFixtures();
  tokenizerExpected();
} else {
  countVectors();
  conformanceFixtures();
  notesAtScaleFixtures();
  expected();
}
