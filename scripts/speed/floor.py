#!/usr/bin/env python3
"""What a plain pack cannot skip, beside yek, in one interleaved run.

    python3 scripts/speed/floor.py TREE... [--rounds 5] [--budget 32000]
        [--packer target/release/packer] [--yek PATH]

A plain `packer pack --dir TREE --budget B` reports every document's exact
`contentTokens` (SPEC §4), so it counts all the text it collects; yek counts
only until its budget is full. For each tree this times, each round in
turn (the order rotating), with output to /dev/null:

- yek: `yek --tokens B TREE`;
- pack: `packer pack --dir TREE --budget B`;
- collect: `packer collect TREE` (walk, ignore rules, reading, the secret
  scan and the value order; no count);
- count: `packer count TEXT`, where TEXT is every collected file's content
  joined (written once, before the rounds): one count of the text the pack
  must count, on one core, start-up and tokenizer load included.

CPU time is the child's user + system time, measured as race.py measures
it (its `run`, imported from beside this file); the table gives
medians and each ÷ yek. `collect + count` is a floor of the plain pack as
built (the pack also writes and counts each document's entry); `count`
alone is a floor of any exact pack with this counter.

Only the Python standard library is used; nothing is downloaded.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from race import load, run


def cpu(command):
    """CPU seconds of one run of `command` (race.py's measure), which must
    succeed."""
    seconds, _, _, code = run(command)
    if code != 0:
        sys.exit(f"failed ({code}): {' '.join(command)}")
    return seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=32000)
    parser.add_argument("--packer", default="target/release/packer")
    parser.add_argument("--yek", default="yek")
    args = parser.parse_args()
    budget = str(args.budget)
    print(f"load average before: {load()}; {os.cpu_count()} CPUs")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for tree in args.trees:
            name = os.path.basename(tree.rstrip("/"))
            fixture = subprocess.run(
                [args.packer, "collect", tree],
                check=True,
                capture_output=True,
            ).stdout
            documents = json.loads(fixture)["documents"]
            text = os.path.join(scratch, f"{name}.txt")
            with open(text, "w", encoding="utf-8") as out:
                for document in documents:
                    out.write(document["content"])
            tasks = {
                "yek": [args.yek, "--tokens", budget, tree],
                "pack": [args.packer, "pack", "--dir", tree, "--budget", budget],
                "collect": [args.packer, "collect", tree],
                "count": [args.packer, "count", text],
            }
            times = {task: [] for task in tasks}
            names = list(tasks)
            for round_ in range(args.rounds):
                shift = round_ % len(names)
                for task in names[shift:] + names[:shift]:
                    times[task].append(cpu(tasks[task]))
            median = {task: statistics.median(times[task]) for task in tasks}
            rows.append((name, len(documents), os.path.getsize(text), median))
            print(f"  {name}: " + ", ".join(f"{t} {median[t]:.3f} s" for t in names))
    print(f"load average after: {load()}")
    print(
        "| tree (documents, text MB) | yek CPU s | pack | collect | count "
        "| pack ÷ yek | collect ÷ yek | count ÷ yek | (collect + count) ÷ yek |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, documents, size, m in rows:
        yek = m["yek"]
        print(
            f"| {name} ({documents:,}, {size / 1e6:.1f}) | {yek:.3f} | {m['pack']:.3f} "
            f"| {m['collect']:.3f} | {m['count']:.3f} | {m['pack'] / yek:.2f} "
            f"| {m['collect'] / yek:.2f} | {m['count'] / yek:.2f} "
            f"| {(m['collect'] + m['count']) / yek:.2f} |"
        )


if __name__ == "__main__":
    main()
