#!/usr/bin/env python3
"""Measure packer against other repository packers on one directory.

    python3 scripts/peers/compare.py DIR [--budgets 32000,128000] [--packer PATH]

For each tool found on PATH (repomix, yek, code2prompt, files-to-prompt,
gitingest) and for packer itself, at each budget B, it prints one Markdown
table row:

- tokens: the exact cl100k_base count of what the tool printed (counted with
  `packer count`, which the test suite checks against tiktoken-rs and npm
  tiktoken); for packer, `usedTokens` (the same count of its payload).
- fits: whether that count is <= B. Only packer and yek take a budget; the
  others print the whole tree, so the same output is measured at every B.
- source bytes that fit: bytes of the files packer would collect (its
  `packer collect` view of DIR: ignore rules, no hidden files, text only)
  whose whole content appears, verbatim, within the longest prefix of the
  output that has <= B tokens (the prefix is found by bisection with
  `packer count`). For packer, the bytes of the selected files.
- seconds: wall time of the tool's run, best of --runs runs.

Only the Python standard library is used. Tools that are not installed are
listed as such. Nothing is downloaded.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, check=True, **kwargs)


def timed(command, runs, **kwargs):
    """(best wall seconds, stdout bytes) of `runs` runs of `command`."""
    best, out = None, b""
    for _ in range(runs):
        start = time.perf_counter()
        out = run(command, **kwargs).stdout
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, out


class Counter:
    def __init__(self, packer):
        self.packer = packer

    def count(self, text):
        out = run(
            [self.packer, "count", "--max-input-bytes", str(1 << 31), "-"],
            input=text.encode("utf-8"),
        ).stdout
        return int(out.decode().strip())

    def longest_prefix(self, text, budget):
        """The longest prefix (by bisection on characters) with <= budget tokens."""
        if self.count(text) <= budget:
            return text
        low, high = 0, len(text)
        while high - low > 1:
            middle = (low + high) // 2
            if self.count(text[:middle]) <= budget:
                low = middle
            else:
                high = middle
        return text[:low]


def universe(packer, tree):
    """{id: content} of the files packer collects from `tree`."""
    out = run(
        [packer, "collect", tree, "--allow-secrets"],
    ).stdout
    return {d["id"]: d["content"] for d in json.loads(out)["documents"]}


def source_bytes_in(text, files):
    return sum(
        len(content.encode("utf-8")) for content in files.values() if content in text
    )


def peer_commands(tree, budget, scratch):
    """name -> (command, output file or None for stdout, takes a budget)."""
    out = os.path.join(scratch, "out.txt")
    return {
        "repomix": (["repomix", tree, "-o", out, "--quiet"], out, False),
        "yek": (["yek", "--tokens", str(budget), tree], None, True),
        "code2prompt": (
            ["code2prompt", tree, "-O", out, "--quiet"],
            out,
            False,
        ),
        "files-to-prompt": (["files-to-prompt", tree], None, False),
        "gitingest": (["gitingest", tree, "-o", out], out, False),
    }


def produce(command, out_file, runs, cwd):
    """(best wall seconds, output text) of a tool."""
    seconds, stdout = timed(command, runs, cwd=cwd)
    if out_file is not None:
        with open(out_file, "rb") as handle:
            stdout = handle.read()
        os.remove(out_file)
    return seconds, stdout.decode("utf-8", errors="replace")


def evaluate(text, counter, files, budget):
    tokens = counter.count(text)
    prefix = counter.longest_prefix(text, budget)
    return tokens, tokens <= budget, source_bytes_in(prefix, files)


def envelopes(packer):
    """The payload layouts this packer offers (`--envelope`), its default
    for a directory (None) first."""
    help_text = run([packer, "pack", "--help"]).stdout.decode()
    if "--envelope" not in help_text:
        return [None]
    return [None, "json", "xml"]


def measure_packer(packer, tree, budget, files, runs, policy, envelope):
    # No --base-url: a directory without a forge remote packs as it is.
    command = [
        packer, "pack", "--dir", tree,
        "--budget", str(budget), "--format", "summary", "--policy", policy,
    ]
    if envelope is not None:
        command += ["--envelope", envelope]
    seconds, out = timed(command, runs)
    summary = json.loads(out)
    selected = summary["selectedIds"]
    used = sum(len(files[i].encode("utf-8")) for i in selected if i in files)
    tokens = summary["usedTokens"]
    return tokens, tokens <= budget, used, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree")
    parser.add_argument("--budgets", default="32000,128000")
    parser.add_argument("--packer", default=shutil.which("packer") or "packer")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    tree = os.path.abspath(args.tree)
    budgets = [int(b) for b in args.budgets.split(",")]
    counter = Counter(args.packer)
    files = universe(args.packer, tree)
    total = sum(len(c.encode("utf-8")) for c in files.values())
    print(f"Tree: {len(files)} text files, {total:,} bytes (packer's view of {os.path.basename(tree)})\n")
    print("| tool | budget | tokens (cl100k) | fits | source bytes that fit | seconds |")
    print("|---|---:|---:|---|---:|---:|")
    missing = []
    outputs = {}
    layouts = envelopes(args.packer)
    with tempfile.TemporaryDirectory() as scratch:
        for budget in budgets:
            for envelope in layouts:
                for policy in ["in-order", "max-fill"]:
                    tokens, fits, used, seconds = measure_packer(
                        args.packer, tree, budget, files, args.runs, policy, envelope
                    )
                    label = f"{policy}, default" if envelope is None else f"{policy}, {envelope}"
                    print(f"| packer ({label}) | {budget:,} | {tokens:,} | {'yes' if fits else 'no'} | {used:,} | {seconds:.2f} |")
            for name, (command, out_file, budgeted) in peer_commands(tree, budget, scratch).items():
                if shutil.which(command[0]) is None:
                    if name not in missing:
                        missing.append(name)
                    continue
                # A whole-tree tool prints the same at every budget: run it once.
                key = (name, budget) if budgeted else name
                try:
                    if key not in outputs:
                        outputs[key] = produce(command, out_file, args.runs, scratch)
                except subprocess.CalledProcessError as error:
                    print(f"| {name} | {budget:,} | failed (exit {error.returncode}) | | | |")
                    continue
                seconds, text = outputs[key]
                tokens, fits, used = evaluate(text, counter, files, budget)
                print(f"| {name} | {budget:,} | {tokens:,} | {'yes' if fits else 'no'} | {used:,} | {seconds:.2f} |")
    if missing:
        print(f"\nNot installed: {', '.join(missing)}")


if __name__ == "__main__":
    sys.exit(main())
