#!/usr/bin/env python3
"""Write tasks-dev.json and tasks-heldout.json from the mined candidates and
the issue-text decisions.

Usage: make-task-lists.py CANDIDATES_DIR DECISIONS.jsonl OUT_DIR

CANDIDATES_DIR holds <owner>+<repo>.jsonl files from mine-candidates.py;
DECISIONS.jsonl has one {"id", "status": "accept"|"reject", "note"} per
candidate that was looked at (note = issueTextSource for accepted ones).
Which repositories are dev and which held-out is fixed below. Only metadata
is written: ids, commits, paths, urls. Standard library only.
"""
import collections
import glob
import json
import os
import sys

DEV = {"pallets/click", "encode/httpx", "google/gson", "gin-gonic/gin", "spf13/cobra",
       "honojs/hono", "immerjs/immer", "sharkdp/bat", "jqlang/jq"}
KEYS = ["id", "repo", "language", "fixCommit", "parentCommit", "issueUrl",
        "changedFiles", "newFiles", "issueTextSource"]


def main():
    cand_dir, decisions_path, out_dir = sys.argv[1:4]
    decisions = {}
    for line in open(decisions_path):
        d = json.loads(line)
        decisions[d["id"]] = d  # the last decision for an id wins
    candidates = {}
    for path in sorted(glob.glob(os.path.join(cand_dir, "*.jsonl"))):
        for line in open(path):
            c = json.loads(line)
            candidates[c["id"]] = c
    lists = {"dev": [], "heldout": []}
    stats = collections.defaultdict(collections.Counter)
    for tid, d in decisions.items():
        c = candidates.get(tid)
        if c is None:
            continue
        stats[c["repo"]][d["status"] + ":" + d["note"]] += 1
        if d["status"] != "accept":
            continue
        task = dict(c, issueTextSource=d["note"])
        task = {k: task[k] for k in KEYS}
        lists["dev" if c["repo"] in DEV else "heldout"].append(task)
    for name, tasks in lists.items():
        tasks.sort(key=lambda t: (t["repo"], -int(t["id"].split("#")[1])))
        with open(os.path.join(out_dir, f"tasks-{name}.json"), "w") as out:
            out.write("[\n" + ",\n".join(json.dumps(t) for t in tasks) + "\n]\n")
        langs = collections.Counter(t["language"] for t in tasks)
        repos = collections.Counter(t["repo"] for t in tasks)
        print(f"{name}: {len(tasks)} tasks; languages {dict(langs)}; repos {dict(repos)}")
    for repo in sorted(stats):
        print(repo, dict(stats[repo]))


if __name__ == "__main__":
    main()
