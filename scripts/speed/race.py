#!/usr/bin/env python3
"""Race packer against yek (and repomix where it runs) on real trees.

    python3 scripts/speed/race.py TREE... [--rounds 5] [--budget 32000]
        [--packer target/release/packer] [--yek PATH] [--repomix PATH]
        [--outline] [--baseline OLD_PACKER] [--packer-args ARGS] [--json FILE]

For every tree in turn, each round runs every tool once (the tools' order
rotates from round to round, so that a burst of load from elsewhere falls on
each in turn) with its output sent to /dev/null:

- packer: `packer pack --dir TREE --budget B` (no other flag), and with
  `--outline` also `packer pack --dir TREE --budget B --outline`;
- yek: `yek --tokens B TREE` (yek's own default order, cl100k counting);
- repomix, when given or on PATH: `repomix --stdout TREE` (it takes no
  budget; it prints the whole tree);
- with `--baseline OLD`, another packer build the same way (a before and
  after in one run).

`--packer-args` adds flags to every packer run (the kernel tree needs
`--max-files 100000 --max-total-bytes 4000000000`: its 78,000 files and
1.3 GB of text are over the default limits).

Each run's CPU time is the child's user + system time and its peak memory
the child's maximum resident set size, both from `os.wait4`; wall time is
measured around it. The table gives, per tree, the median of the rounds for
each tool and the ratio of packer's median CPU time to yek's, so that ratios
taken in one interleaved run can be compared even on a loaded machine.
`uptime`'s load average is printed before and after.

Only the Python standard library is used; nothing is downloaded (see
scripts/speed/trees.sh for the trees).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(command):
    """(cpu seconds, wall seconds, peak RSS in MB, exit code) of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return cpu, wall, usage.ru_maxrss / 1024, child.returncode


def files_in(tree):
    return sum(len(names) for _, _, names in os.walk(tree))


def load():
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def tools(args, tree):
    """(name, command) for every tool raced on `tree`."""
    budget = str(args.budget)
    extra = args.packer_args.split()
    found = [("packer", [args.packer, "pack", "--dir", tree, "--budget", budget, *extra])]
    if args.baseline:
        found.append(
            ("baseline", [args.baseline, "pack", "--dir", tree, "--budget", budget, *extra])
        )
    if args.outline:
        found.append(
            (
                "packer --outline",
                [args.packer, "pack", "--dir", tree, "--budget", budget, "--outline", *extra],
            )
        )
    if args.yek:
        found.append(("yek", [args.yek, "--tokens", budget, tree]))
    if args.repomix:
        found.append(("repomix", [args.repomix, "--stdout", tree]))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--budget", type=int, default=32000)
    parser.add_argument("--packer", default="target/release/packer")
    parser.add_argument("--yek", default=shutil.which("yek"))
    parser.add_argument("--repomix", default=shutil.which("repomix"))
    parser.add_argument("--outline", action="store_true")
    parser.add_argument("--baseline", help="an earlier packer build, raced the same way")
    parser.add_argument("--packer-args", default="", help="flags added to every packer run")
    parser.add_argument("--json", help="also write every run to this file")
    args = parser.parse_args()

    print(f"load average before: {load()}; {os.cpu_count()} CPUs", file=sys.stderr)
    results = {}
    for tree in args.trees:
        name = os.path.basename(os.path.normpath(tree))
        runs = {tool: [] for tool, _ in tools(args, tree)}
        commands = tools(args, tree)
        for round_ in range(args.rounds):
            shift = round_ % len(commands)
            for tool, command in commands[shift:] + commands[:shift]:
                runs[tool].append(run(command))
        results[name] = {"files": files_in(tree), "runs": runs}
        print(f"  {name}: {summary(runs)}", file=sys.stderr)
    print(f"load average after: {load()}", file=sys.stderr)
    print(table(results, args))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)


def median(runs, field):
    return statistics.median(run[field] for run in runs)


def summary(runs):
    return ", ".join(
        f"{tool} {median(r, 0):.3f} s CPU"
        + ("" if all(run[3] == 0 for run in r) else " (failed)")
        for tool, r in runs.items()
    )


def table(results, args):
    """A Markdown table: medians and packer ÷ yek per tree."""
    head = ["tree (files)", "packer CPU s", "yek CPU s", "packer ÷ yek"]
    head += ["packer wall s", "yek wall s", "packer MB", "yek MB"]
    if args.baseline:
        head += ["baseline CPU s", "baseline ÷ yek"]
    if args.outline:
        head += ["--outline CPU s", "--outline ÷ yek"]
    if args.repomix:
        head += ["repomix CPU s"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for name, result in results.items():
        runs = result["runs"]
        packer = runs["packer"]
        yek = runs.get("yek")
        ratio = lambda r: f"{median(r, 0) / median(yek, 0):.2f}" if yek else "—"
        cells = [f"{name} ({result['files']:,})", f"{median(packer, 0):.3f}"]
        cells += [f"{median(yek, 0):.3f}" if yek else "—", ratio(packer)]
        cells += [f"{median(packer, 1):.3f}", f"{median(yek, 1):.3f}" if yek else "—"]
        cells += [f"{median(packer, 2):.0f}", f"{median(yek, 2):.0f}" if yek else "—"]
        if args.baseline:
            baseline = runs["baseline"]
            cells += [f"{median(baseline, 0):.3f}", ratio(baseline)]
        if args.outline:
            outline = runs["packer --outline"]
            cells += [f"{median(outline, 0):.3f}", ratio(outline)]
        if args.repomix:
            repomix = runs["repomix"]
            failed = any(run[3] != 0 for run in repomix)
            cells += ["failed" if failed else f"{median(repomix, 0):.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
