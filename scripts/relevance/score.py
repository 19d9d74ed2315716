#!/usr/bin/env python3
"""Relevance benchmark: how much of a real fix's code lands in packer's pack.

For every task (a fix commit of a public repository, the issue it closed, and
the files it changed) and every budget, this packs the fix's parent tree and
reports the share of the fix's changed files (those that exist in the parent)
that the pack contains whole, as an outline, or as an excerpt. See README.md.

Usage:
  score.py [--packer PATH] [--tasks FILE ...] [--trees DIR] [--issues DIR]
           [--budgets 8000,32000,128000] [--jobs 1] [--only-ids ID,ID]
           [--name NAME] [--out-dir DIR]

Variants, run interleaved per task and budget so machine load hits all alike:
  default        packer pack --dir TREE --budget B --format json
  outline        ... --outline
  query          ... --query-file ISSUE   (only if `pack --help` lists it)
  query+outline  ... --query-file ISSUE --outline
  capture+query  (with --captures) the files `packer collect TREE` collects,
                 as a capture (a fixture), packed with --query-file ISSUE
  bm25           BM25 (k1=1.2, b=0.75) of the issue text over path + content of
                 the files `packer collect TREE` collects, files added whole in
                 rank order while the sum of their cl100k counts plus 20 tokens
                 a file fits B (a file that does not fit is skipped)
  oracle         upper bound: the fix's files first, then the collect order
                 (packer's default order), same greedy sum as bm25 (an
                 approximation of packer's exact envelope accounting)

Standard library only; with the `tiktoken` package installed, token counts for
bm25/oracle are exact cl100k_base counts and every packer payload is checked
(usedTokens == tiktoken count of payloadText, encode(..., disallowed_special=())).
Without network tiktoken cannot download cl100k_base; set TIKTOKEN_CL100K_FILE
to a local cl100k_base.tiktoken (the tiktoken-rs crate ships one under
~/.cargo/registry/src/*/tiktoken-rs-*/assets/, which is found automatically).
Without tiktoken, counts fall back to bytes/4 and the payload check is skipped.

Output: a Markdown table per task list on stdout, per-task results as JSON in
OUT_DIR/results-NAME.json. The data directory (trees, issues, results) is
$RELEVANCE_DIR, by default target/relevance in the repository.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WHOLE = {"fits", "required"}
PER_FILE_OVERHEAD = 20


# ---------------------------------------------------------------- tokens
def load_encoding():
    try:
        import tiktoken  # noqa: PLC0415
    except ImportError:
        return None, "tiktoken not installed"
    try:
        return tiktoken.get_encoding("cl100k_base"), "tiktoken"
    except Exception:  # noqa: BLE001 - no network: try a local file
        pass
    local = os.environ.get("TIKTOKEN_CL100K_FILE")
    if not local:
        found = sorted(glob.glob(os.path.expanduser(
            "~/.cargo/registry/src/*/tiktoken-rs-*/assets/cl100k_base.tiktoken")))
        local = found[-1] if found else None
    if not local or not os.path.isfile(local):
        return None, "tiktoken installed but cl100k_base unavailable (no network, no local file)"
    url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
    cache = tempfile.mkdtemp(prefix="tiktoken-cache-")
    shutil.copy(local, os.path.join(cache, hashlib.sha1(url.encode()).hexdigest()))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    try:
        import tiktoken.registry  # noqa: PLC0415
        tiktoken.registry.ENCODINGS.pop("cl100k_base", None)
        return tiktoken.get_encoding("cl100k_base"), f"tiktoken (cl100k_base from {local})"
    except Exception as exc:  # noqa: BLE001
        return None, f"tiktoken could not load {local}: {exc}"


ENC = None


def count(text):
    if ENC is None:
        return (len(text.encode()) + 3) // 4
    return len(ENC.encode(text, disallowed_special=()))


# ---------------------------------------------------------------- bm25
IDENT = re.compile(r"[A-Za-z0-9_]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text):
    out = []
    for ident in IDENT.findall(text):
        whole = ident.lower()
        out.append(whole)
        parts = [p.lower() for piece in ident.split("_") for p in CAMEL.findall(piece)]
        if len(parts) > 1 or (parts and parts[0] != whole):
            out.extend(parts)
    return out


def bm25_rank(query, docs, k1=1.2, b=0.75):
    """docs: list of (id, text). Returns ids by descending score (ties: input order)."""
    tfs, lens = [], []
    df = {}
    for _, text in docs:
        tf = {}
        toks = tokens(text)
        for t in toks:
            tf[t] = tf.get(t, 0) + 1
        for t in tf:
            df[t] = df.get(t, 0) + 1
        tfs.append(tf)
        lens.append(len(toks))
    n = len(docs)
    avg = (sum(lens) / n) if n else 1.0
    terms = set(tokens(query))
    scores = []
    for i, tf in enumerate(tfs):
        s = 0.0
        for t in terms:
            f = tf.get(t)
            if f:
                idf = math.log((n - df[t] + 0.5) / (df[t] + 0.5) + 1.0)
                s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lens[i] / avg))
        scores.append((-s, i))
    scores.sort()
    return [docs[i][0] for _, i in scores]


def greedy(order, sizes, budget):
    used, chosen = 0, []
    for doc_id in order:
        need = sizes[doc_id] + PER_FILE_OVERHEAD
        if used + need <= budget:
            used += need
            chosen.append(doc_id)
    return chosen, used


# ---------------------------------------------------------------- packer
def run_packer(packer, tree, budget, extra):
    if extra and extra[0] == "@capture":
        # The collected files as a capture (a fixture), packed with the query.
        cmd = [packer, "pack", extra[1], "--budget", str(budget), "--format", "json",
               "--max-documents", "1000000", "--max-input-bytes", str(1 << 31)] + extra[2:]
    else:
        cmd = [packer, "pack", "--dir", tree, "--budget", str(budget), "--format", "json"] + extra
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True)
    seconds = time.monotonic() - start
    res = {"exit": proc.returncode, "seconds": round(seconds, 4)}
    if proc.returncode != 0:
        res["error"] = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        res["error"] = res["error"][0][:300]
        return res, None
    try:
        return res, json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        res["exit"] = -1
        res["error"] = f"bad JSON: {exc}"
        return res, None


def classify(out, fix_files):
    by_id = {d["id"]: d for d in out.get("decisions", [])}
    whole, outlined, excerpt = [], [], []
    for f in fix_files:
        d = by_id.get(f)
        if not d or not d.get("selected"):
            continue
        reason = d.get("reason")
        if reason in WHOLE:
            whole.append(f)
        elif reason == "outline-fits":
            outlined.append(f)
        elif reason == "excerpt-fits":
            excerpt.append(f)
    return whole, outlined, excerpt


# ---------------------------------------------------------------- one task
def sanitise(task_id):
    return task_id.replace("/", "__").replace("#", "__")


def score_task(task, args, variants):
    tid = task["id"]
    tree_link = os.path.join(args.trees, sanitise(tid))
    tree = os.path.realpath(tree_link)
    owner, rest = tid.split("/", 1)
    repo, num = rest.split("#")
    issue_path = os.path.join(args.issues, f"{owner}__{repo}__{num}.txt")
    result = {"id": tid, "repo": task["repo"], "language": task["language"],
              "list": task["_list"], "tree": tree, "variants": {}}
    if not os.path.isdir(tree):
        result["error"] = f"no tree at {tree_link} (run build-trees.py)"
        return result
    if not os.path.isfile(issue_path):
        result["error"] = f"no issue text at {issue_path} (run fetch-issues.sh)"
        return result
    issue = open(issue_path, encoding="utf-8").read()
    new = set(task.get("newFiles", []))
    fix_files = [f for f in task["changedFiles"] if f not in new
                 and os.path.isfile(os.path.join(tree, f))]
    result["fixFiles"] = fix_files
    if not fix_files:
        result["error"] = "no changed file exists in the parent tree"
        return result

    # Documents packer collects (for bm25, oracle, and to see what is collectable).
    start = time.monotonic()
    proc = subprocess.run([args.packer, "collect", tree], capture_output=True)
    result["collectSeconds"] = round(time.monotonic() - start, 4)
    docs = []
    if proc.returncode == 0:
        docs = [(d["id"], d.get("content", "")) for d in json.loads(proc.stdout)["documents"]]
    else:
        result["collectError"] = proc.stderr.decode(errors="replace").strip()[-300:]
    sizes = {doc_id: count(content) for doc_id, content in docs}
    result["documents"] = len(docs)
    result["totalTokens"] = sum(sizes.values())
    result["fixFilesCollected"] = [f for f in fix_files if f in sizes]
    result["fixFileTokens"] = {f: sizes.get(f) for f in fix_files}
    ranked = bm25_rank(issue, [(i, i + "\n" + c) for i, c in docs]) if docs else []
    result["bm25Rank"] = {f: (ranked.index(f) + 1 if f in ranked else None) for f in fix_files}
    oracle_order = [f for f in fix_files if f in sizes] + [i for i, _ in docs if i not in fix_files]

    capture = None
    if docs and any(name == "capture+query" for name, _ in variants):
        capture = tempfile.NamedTemporaryFile("wb", suffix=".json", delete=False)
        capture.write(proc.stdout)
        capture.close()
    for budget in args.budgets:
        for name, extra in variants:
            if name == "capture+query":
                if capture is None:
                    continue
                extra = (lambda q, path=capture.name: ["@capture", path, "--query-file", q])
            res, out = run_packer(args.packer, tree, budget, extra(issue_path))
            if out is not None:
                whole, outlined, excerpt = classify(out, fix_files)
                res.update(whole=whole, outlined=outlined, excerpt=excerpt,
                           usedTokens=out.get("usedTokens"),
                           availableTokens=out.get("availableTokens"))
                res["withinBudget"] = (out.get("usedTokens", 0) <= out.get("availableTokens", 0))
                if ENC is not None and "payloadText" in out:
                    n = count(out["payloadText"])
                    res["tiktokenTokens"] = n
                    res["tiktokenMatch"] = (n == out.get("usedTokens"))
            result["variants"].setdefault(name, {})[str(budget)] = res
        for name, order in (("bm25", ranked), ("oracle", oracle_order)):
            chosen, used = greedy(order, sizes, budget)
            chosen_set = set(chosen)
            result["variants"].setdefault(name, {})[str(budget)] = {
                "exit": 0 if docs else 1, "whole": [f for f in fix_files if f in chosen_set],
                "outlined": [], "excerpt": [], "usedTokens": used, "files": len(chosen)}
    if capture is not None:
        os.unlink(capture.name)
    return result


# ---------------------------------------------------------------- report
def share(res, keys, n):
    return sum(len(res.get(k, [])) for k in keys) / n


def report(results, budgets, variant_names, list_name):
    rows = [r for r in results if r["list"] == list_name]
    ok = [r for r in rows if "error" not in r]
    lines = [f"### {list_name}: {len(ok)} tasks scored of {len(rows)}", ""]
    lines.append("| variant | budget | whole | whole+outline | whole+outline+excerpt | exit≠0 | median s/pack |")
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for name in variant_names:
        for b in budgets:
            cells = [r["variants"][name][str(b)] for r in ok]
            n_fix = [len(r["fixFiles"]) for r in ok]
            if not cells:
                continue
            w = statistics.mean(share(c, ["whole"], n) for c, n in zip(cells, n_fix))
            wo = statistics.mean(share(c, ["whole", "outlined"], n) for c, n in zip(cells, n_fix))
            woe = statistics.mean(share(c, ["whole", "outlined", "excerpt"], n)
                                  for c, n in zip(cells, n_fix))
            fails = sum(1 for c in cells if c.get("exit") != 0)
            secs = [c["seconds"] for c in cells if "seconds" in c]
            med = statistics.median(secs) if secs else None
            medians[(name, b)] = med
            lines.append(f"| {name} | {b} | {w:.3f} | {wo:.3f} | {woe:.3f} | {fails} | "
                         + (f"{med:.3f}" if med is not None else "–") + " |")
    lines.append("")
    for q, p in (("query", "default"), ("query+outline", "outline")):
        for b in budgets:
            if medians.get((q, b)) and medians.get((p, b)):
                lines.append(f"- median time {q} ÷ {p} at {b}: {medians[(q, b)] / medians[(p, b)]:.2f}")
    collectable = [len(r["fixFilesCollected"]) / len(r["fixFiles"]) for r in ok]
    if collectable:
        lines.append(f"- share of fix files that `packer collect` collects at all: "
                     f"{statistics.mean(collectable):.3f}")
    checks = [c for r in ok for v in r["variants"].values() for c in v.values() if "tiktokenMatch" in c]
    if checks:
        bad = sum(1 for c in checks if not c["tiktokenMatch"])
        lines.append(f"- usedTokens vs tiktoken count of payloadText: {len(checks) - bad} match, {bad} mismatch")
    over = [c for r in ok for v in r["variants"].values() for c in v.values() if c.get("withinBudget") is False]
    lines.append(f"- packs with usedTokens > availableTokens: {len(over)}")
    for r in rows:
        if "error" in r:
            lines.append(f"- task {r['id']} not scored: {r['error']}")
        for v in r.get("variants", {}).values():
            for b, c in v.items():
                if c.get("exit") not in (0, None) and c.get("error"):
                    lines.append(f"- task {r['id']} budget {b}: exit {c['exit']}: {c['error']}")
    return "\n".join(lines)


def main():
    global ENC
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    data = os.environ.get("RELEVANCE_DIR") or os.path.join(root, "target", "relevance")
    ap.add_argument("--packer", default=os.path.join(root, "target", "release", "packer"))
    ap.add_argument("--tasks", action="append")
    ap.add_argument("--trees", default=os.path.join(data, "trees"))
    ap.add_argument("--issues", default=os.path.join(data, "issues"))
    ap.add_argument("--budgets", default="8000,32000,128000")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only-ids", default="")
    ap.add_argument("--name", default="run")
    ap.add_argument("--variants", default="",
                    help="comma-separated packer variants to run (default, outline, query, "
                         "query+outline, capture+query); all when empty; bm25 and oracle "
                         "are always scored")
    ap.add_argument("--out-dir", default=data)
    ap.add_argument("--captures", action="store_true",
                    help="also pack each tree's collected files as a capture (a fixture) "
                         "with the query: the capture path of --query")
    args = ap.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if not args.tasks:
        args.tasks = [os.path.join(HERE, "tasks-dev.json"), os.path.join(HERE, "tasks-heldout.json")]
    ENC, enc_note = load_encoding()
    print(f"token counts: {enc_note}", file=sys.stderr)

    help_text = subprocess.run([args.packer, "pack", "--help"], capture_output=True,
                               text=True).stdout
    variants = [("default", lambda q: []), ("outline", lambda q: ["--outline"])]
    if "--query-file" in help_text:
        variants += [("query", lambda q: ["--query-file", q]),
                     ("query+outline", lambda q: ["--query-file", q, "--outline"])]
    else:
        print(f"{args.packer}: `pack --help` does not mention --query-file; "
              "query and query+outline are not supported by this binary and are skipped",
              file=sys.stderr)
    if args.captures and "--query-file" in help_text:
        variants.append(("capture+query", None))
    wanted = set(filter(None, args.variants.split(",")))
    if wanted:
        variants = [(n, v) for n, v in variants if n in wanted]
    variant_names = [n for n, _ in variants] + ["bm25", "oracle"]

    only = set(filter(None, args.only_ids.split(",")))
    tasks, list_names = [], []
    for path in args.tasks:
        name = os.path.basename(path).removeprefix("tasks-").removesuffix(".json")
        list_names.append(name)
        for t in json.load(open(path)):
            if not only or t["id"] in only:
                tasks.append(dict(t, _list=name))
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(score_task, t, args, variants) for t in tasks]
        results = []
        for i, fut in enumerate(futures, 1):
            results.append(fut.result())
            print(f"[{i}/{len(tasks)}] {results[-1]['id']}", file=sys.stderr)
    wall = time.monotonic() - start
    os.makedirs(args.out_dir, exist_ok=True)
    out_path = os.path.join(args.out_dir, f"results-{args.name}.json")
    with open(out_path, "w") as out:
        json.dump({"packer": args.packer, "budgets": args.budgets, "tokenCounts": enc_note,
                   "variants": variant_names, "wallSeconds": round(wall, 1),
                   "results": results}, out, indent=1)
    print(f"## Relevance benchmark ({args.packer}, {enc_note})\n")
    for name in list_names:
        print(report(results, args.budgets, variant_names, name) + "\n")
    print(f"Wall time: {wall:.1f} s for {len(tasks)} tasks (--jobs {args.jobs}); per-task results: {out_path}")


if __name__ == "__main__":
    main()
