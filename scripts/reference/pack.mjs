// A naive, independent packer that follows SPEC §2-§4 literally: every
// candidate envelope is serialized with JSON.stringify and counted in full
// with npm tiktoken's encode_ordinary. It is slow (quadratic) on purpose:
// it shares no code and no method with packer, so packer's tests can compare
// against it.
//
// With --tokenizer FILE (a Hugging Face tokenizer.json or a Mistral
// tekken.json, optionally .gz), every count instead comes from the Hugging
// Face reference: a child process (scripts/hf-reference/counters.py, run by
// $PACKER_REFERENCE_PYTHON or python3) answers one count at a time over a
// pair of named pipes, so the packer above stays one and the same code for
// every tokenizer.
//
// Usage: node pack.mjs FIXTURE [--policy in-order|priority|max-fill]
//                              [--envelope json|xml|markdown]
//                              [--note-omissions [--note-omissions-max N]]
//                              [--encoding E | --tokenizer FILE]
// Prints the JSON object of SPEC §4 (payloadText included), or
// {"error": CODE} for empty-envelope-does-not-fit / required-does-not-fit.
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { get_encoding } from "tiktoken";

// npm tiktoken has no o200k_harmony; its ordinary text is o200k_base's.
const TIKTOKEN_NAME = {
  cl100k_base: "cl100k_base",
  o200k_base: "o200k_base",
  o200k_harmony: "o200k_base",
  p50k_base: "p50k_base",
  p50k_edit: "p50k_edit",
  r50k_base: "r50k_base",
};

const REASON_OMITTED = "whole-document-does-not-fit";

// SPEC §1.1: a document has a url, or a relative path that is not shown
// when it equals the id. [field, value] or null.
function source(d) {
  if (d.url !== undefined) return ["url", d.url];
  return d.path === d.id ? null : ["path", d.path];
}

function sourceJson(d) {
  const s = source(d);
  return s ? `,"${s[0]}":${JSON.stringify(s[1])}` : "";
}

function documentJson(d) {
  return `{"id":${JSON.stringify(d.id)}${sourceJson(d)},"format":${JSON.stringify(d.format)},"content":${JSON.stringify(d.content)}}`;
}

function omittedJson(d) {
  return `{"id":${JSON.stringify(d.id)}${sourceJson(d)},"reason":"${REASON_OMITTED}"}`;
}

// SPEC §2 (and §3.1's cut note): `omitted` is null without notes, else
// { listed, more }.
function jsonEnvelope(docs, omitted) {
  let text = `{"documents":[${docs.map(documentJson).join(",")}]`;
  if (omitted) {
    text += `,"omitted":[${omitted.listed.map(omittedJson).join(",")}]`;
    if (omitted.more > 0) text += `,"omittedMore":${omitted.more}`;
  }
  return text + "}";
}

// SPEC §2.1, XML: ATTR escapes & < > ", TEXT escapes & < >, content only
// has "</document_content" written "&lt;/document_content".
const attr = (s) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
const text = (s) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

function xmlEnvelope(docs, omitted) {
  let out = "<documents>\n";
  docs.forEach((d, i) => {
    const s = source(d);
    out += `<document index="${i + 1}" id="${attr(d.id)}">\n${s ? `<source>${text(s[1])}</source>\n` : ""}`;
    out += `<document_content>\n${d.content.replaceAll("</document_content", "&lt;/document_content")}\n</document_content>\n</document>\n`;
  });
  out += "</documents>";
  if (omitted) {
    out += "\n<omitted_documents>\n";
    for (const d of omitted.listed) {
      const s = source(d);
      out += s
        ? `<omitted id="${attr(d.id)}" reason="${REASON_OMITTED}">${text(s[1])}</omitted>\n`
        : `<omitted id="${attr(d.id)}" reason="${REASON_OMITTED}"/>\n`;
    }
    if (omitted.more > 0) out += `<omitted_more count="${omitted.more}"/>\n`;
    out += "</omitted_documents>";
  }
  return out;
}

// README "The payload", Markdown: a heading per document, its url, the
// content in a fence one backtick longer than its longest backtick run
// (at least three), omission notes as a list.
function markdownEnvelope(docs, omitted) {
  let out = "# Documents\n";
  if (docs.length === 0) out += "(none)\n";
  for (const d of docs) {
    const longest = Math.max(0, ...(d.content.match(/`+/g) ?? []).map((run) => run.length));
    const fence = "`".repeat(Math.max(3, longest + 1));
    const s = source(d);
    out += `## ${d.id}\n${s ? `Source: ${s[1]}\n` : ""}${fence}${d.format}\n${d.content}\n${fence}\n`;
  }
  if (omitted) {
    out += "# Omitted documents (whole document does not fit)\n";
    for (const d of omitted.listed) {
      const s = source(d);
      out += s ? `- ${d.id}: ${s[1]}\n` : `- ${d.id}\n`;
    }
    if (omitted.more > 0) out += `- and ${omitted.more} more\n`;
    else if (omitted.listed.length === 0) out += "(none)\n";
  }
  return out;
}

const ENVELOPES = { json: jsonEnvelope, xml: xmlEnvelope, markdown: markdownEnvelope };

function compareBytes(a, b) {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

// A counter on the Hugging Face reference for a tokenizer file: the file's
// label and hash as packer reports them, `count(text)`, and `free()`, which
// ends the child process.
export function tokenizerCounter(file) {
  const raw = readFileSync(file);
  const bytes = file.endsWith(".gz") ? gunzipSync(raw) : raw;
  const dir = mkdtempSync(join(tmpdir(), "packer-reference-"));
  const requests = join(dir, "requests");
  const responses = join(dir, "responses");
  execFileSync("mkfifo", [requests, responses]);
  const server = new URL("../hf-reference/counters.py", import.meta.url).pathname;
  const python = process.env.PACKER_REFERENCE_PYTHON ?? "python3";
  const child = spawn(python, [server, "serve", file, requests, responses], { stdio: "inherit" });
  child.on("exit", (code) => {
    if (code !== 0) {
      console.error(`counters.py exited with status ${code}`);
      process.exit(1);
    }
  });
  // Opening a pipe blocks until the other end opens it; the child opens
  // `requests` first, then `responses`, once its tokenizer is loaded.
  const out = openSync(requests, "w");
  const inp = openSync(responses, "r");
  const reply = Buffer.alloc(64);
  const count = (text) => {
    const data = Buffer.from(text, "utf8");
    const message = Buffer.concat([Buffer.from(`${data.length}\n`), data]);
    for (let at = 0; at < message.length; ) at += writeSync(out, message, at);
    let got = 0;
    while (got === 0 || reply[got - 1] !== 0x0a) {
      const n = readSync(inp, reply, got, reply.length - got);
      if (n === 0) throw new Error("counters.py closed its pipe");
      got += n;
    }
    return Number(reply.subarray(0, got - 1).toString());
  };
  return {
    label: `tokenizer:${basename(file).replace(/\.gz$/, "")}`,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    count,
    free() {
      closeSync(out);
      closeSync(inp);
      rmSync(dir, { recursive: true });
    },
  };
}

export function pack(
  fixture,
  {
    policy = "in-order", envelope = "json", noteOmissions = false, noteOmissionsMax = 50,
    encoding, tokenizer,
  } = {},
) {
  const render = ENVELOPES[envelope];
  const encodingName = encoding ?? fixture.encoding ?? "cl100k_base";
  // `tokenizer`: a counter from tokenizerCounter (the caller frees it).
  const enc = tokenizer ? null : get_encoding(TIKTOKEN_NAME[encodingName]);
  const count = tokenizer ? tokenizer.count : (text) => enc.encode_ordinary(text).length;
  const docs = fixture.documents.map((d, index) => ({
    ...d,
    index,
    priority: d.priority ?? 0,
    required: d.required === true,
  }));
  const b = fixture.budget;
  const available =
    b.contextTokens - b.reservedOtherInputTokens - b.reservedOutputTokens - b.safetyTokens;
  const contentTokens = docs.map((d) => count(d.content));

  // The envelope for documents `chosen` (payload order); with omissions,
  // the first noteOmissionsMax other documents are listed in input order
  // and the rest counted (SPEC §3.1).
  const measure = (chosen) => {
    const ids = new Set(chosen.map((d) => d.index));
    let omitted = null;
    if (noteOmissions) {
      const all = docs.filter((d) => !ids.has(d.index));
      omitted = { listed: all.slice(0, noteOmissionsMax), more: Math.max(0, all.length - noteOmissionsMax) };
    }
    const text = render(chosen, omitted);
    return { text, tokens: count(text) };
  };

  let order = [];
  const decisions = new Array(docs.length);
  const skipped = [];
  const tryAdd = (d, reason) => {
    const before = measure(order).tokens;
    const after = measure([...order, d]).tokens;
    const fits = after <= available;
    decisions[d.index] = {
      index: d.index,
      id: d.id,
      selected: fits,
      reason: fits ? reason : "whole-document-does-not-fit",
      contentTokens: contentTokens[d.index],
      neededTokens: after - before,
      freeTokens: available - before,
    };
    if (fits) order.push(d);
    else skipped.push(d.index);
    return fits;
  };

  if (measure([]).tokens > available) return { error: "empty-envelope-does-not-fit" };
  const required = docs.filter((d) => d.required);
  const missing = required.filter((d) => !tryAdd(d, "required"));
  if (missing.length > 0) return { error: "required-does-not-fit" };
  const rest = docs.filter((d) => !d.required);

  let optimal;
  if (policy === "in-order") {
    for (const d of rest) tryAdd(d, "fits");
  } else if (policy === "priority") {
    const sorted = [...rest].sort(
      (a, b) =>
        b.priority - a.priority ||
        contentTokens[a.index] - contentTokens[b.index] ||
        compareBytes(a.id, b.id),
    );
    for (const d of sorted) tryAdd(d, "fits");
  } else if (policy === "max-fill") {
    // Exhaustive: every subset of the non-required documents. The fullest
    // subset wins (ties: prefer documents earlier in input order) among
    // those that leave out only documents that do not fit (a skip always
    // needs more than is free). Without omissions every addition grows the
    // count, so the fullest subset always qualifies; with omissions, moving
    // a tiny document out of the omitted list can shrink the count.
    if (rest.length > 16) throw new Error("too many documents for an exhaustive search");
    const base = [...order];
    const payloadOrder = (list) =>
      [...list].sort((x, y) => (y.required - x.required) || x.index - y.index);
    const fitting = [];
    for (let mask = 0; mask < 1 << rest.length; mask++) {
      const chosen = rest.filter((_, i) => mask & (1 << i));
      const tokens = measure([...base, ...chosen]).tokens;
      if (tokens <= available) fitting.push({ mask, tokens, chosen });
    }
    fitting.sort((a, b) =>
      b.tokens - a.tokens || (prefersEarlier(a.mask, b.mask, rest.length) ? -1 : 1),
    );
    const best = fitting.find(({ chosen }) =>
      rest
        .filter((d) => !chosen.includes(d))
        .every((d) => measure(payloadOrder([...base, ...chosen, d])).tokens > available),
    );
    for (const d of best.chosen) tryAdd(d, "fits");
    const total = measure(order).tokens;
    for (const d of rest) {
      if (decisions[d.index]) continue;
      const withIt = payloadOrder([...order, d]);
      decisions[d.index] = {
        index: d.index,
        id: d.id,
        selected: false,
        reason: "whole-document-does-not-fit",
        contentTokens: contentTokens[d.index],
        neededTokens: measure(withIt).tokens - total,
        freeTokens: available - total,
      };
      skipped.push(d.index);
    }
    optimal = true;
  } else {
    throw new Error(`unknown policy ${policy}`);
  }

  const final = measure(order);
  enc?.free();
  const result = tokenizer
    ? { encoding: tokenizer.label, tokenizerSha256: tokenizer.sha256, policy, envelope }
    : { encoding: encodingName, policy, envelope };
  if (optimal !== undefined) result.optimal = optimal;
  Object.assign(result, {
    budget: b,
    availableTokens: available,
    usedTokens: final.tokens,
    selectedIds: order.map((d) => d.id),
    skipped: skipped.map((i) => ({ id: docs[i].id, reason: decisions[i].reason })),
    decisions,
    payloadText: final.text,
  });
  return result;
}

// Whether subset `a` beats `b` under "prefer documents earlier in input
// order": at the first document where they differ, `a` includes it.
function prefersEarlier(a, b, n) {
  for (let i = 0; i < n; i++) {
    const inA = (a >> i) & 1;
    const inB = (b >> i) & 1;
    if (inA !== inB) return inA === 1;
  }
  return false;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const options = {};
  let file;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--policy") options.policy = args[++i];
    else if (args[i] === "--note-omissions") options.noteOmissions = true;
    else if (args[i] === "--note-omissions-max") options.noteOmissionsMax = Number(args[++i]);
    else if (args[i] === "--envelope") options.envelope = args[++i];
    else if (args[i] === "--encoding") options.encoding = args[++i];
    else if (args[i] === "--tokenizer") options.tokenizer = tokenizerCounter(args[++i]);
    else file = args[i];
  }
  const fixture = JSON.parse(readFileSync(file, "utf8").replace(/^\uFEFF/, ""));
  process.stdout.write(JSON.stringify(pack(fixture, options), null, 2) + "\n");
  options.tokenizer?.free();
}
