// Packs fixtures with any tokenizer file (held-out families: see
// scripts/hf-reference/fetch.sh --held-out) under every variant, with both
// the naive reference packer (every count from Hugging Face `tokenizers` or
// mistral-common, see pack.mjs) and a packer binary, and prints how many
// outputs agree byte for byte (as JSON values). Exits 1 on any difference.
//
// Usage (from the repository root, PACKER_REFERENCE_PYTHON as for
// make-expected.mjs --tokenizers):
//   node scripts/reference/compare-packer.mjs PACKER-BINARY TOKENIZER-FILE FIXTURE...
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { pack, tokenizerCounter } from "./pack.mjs";
import { VARIANTS } from "./variants.mjs";

const [packer, file, ...fixtures] = process.argv.slice(2);
const tokenizer = tokenizerCounter(file);
let agree = 0;
let refused = 0;
const differ = [];
for (const path of fixtures) {
  const fixture = JSON.parse(readFileSync(path, "utf8").replace(/^\uFEFF/, ""));
  const nonRequired = fixture.documents.filter((d) => d.required !== true).length;
  for (const [name, options] of VARIANTS) {
    if (options.policy === "max-fill" && nonRequired > 10) continue;
    const args = ["pack", path, "--tokenizer", file, "--max-documents", "1000",
      "--policy", options.policy, "--envelope", options.envelope];
    if (options.noteOmissions) args.push("--note-omissions");
    if (options.noteOmissionsMax) args.push("--note-omissions-max", String(options.noteOmissionsMax));
    const run = spawnSync(packer, args, { encoding: "utf8", maxBuffer: 1 << 28 });
    if (run.status === 3 && run.stderr.startsWith("error[unsupported-tokenizer]")) {
      refused += 1;
      continue;
    }
    const want = pack(fixture, { ...options, tokenizer });
    let same;
    if (want.error) {
      same = run.status === 4 && JSON.parse(run.stdout).error?.code === want.error;
    } else {
      same = run.status === 0 && isDeepStrictEqual(JSON.parse(run.stdout), want);
    }
    if (same) agree += 1;
    else differ.push(`${path} ${name}: packer exit ${run.status}${run.status === 0 ? ` usedTokens ${JSON.parse(run.stdout).usedTokens}` : ""}, reference ${want.error ?? `usedTokens ${want.usedTokens}`}`);
  }
}
tokenizer.free();
console.log(`${file}: ${agree} agree, ${differ.length} differ, ${refused} refused (unsupported-tokenizer)`);
for (const line of differ) console.log(`  ${line}`);
process.exit(differ.length > 0 ? 1 : 0);
