#!/usr/bin/env python3
"""Extract each task's parent tree (the code the fix was written against).

Usage: build-trees.py [--mirrors DIR] [--trees DIR] TASKS.json [TASKS.json ...]

MIRRORS (default $MIRRORS or DATA/mirrors, DATA being $RELEVANCE_DIR or
target/relevance in the repository) holds one bare Git directory per
repository, either as MIRRORS/<owner>+<repo>/repo or MIRRORS/<owner>+<repo> or MIRRORS/<owner>/<repo>.git
(a plain `git clone --mirror https://github.com/OWNER/REPO MIRRORS/OWNER/REPO.git`
works too; the parent commits must be in the mirror's history).

Each task's tree goes to TREES/<id with '/' and '#' replaced by '__'>/ (default
TREES: $TREES or DATA/trees) via `git archive PARENT | tar -x`, so
there is no .git inside and packer sees a plain directory. Files that
`export-ignore` kept out of the archive are written back from the commit, so
the tree is exactly the commit's tree. Tasks that share (repo, parentCommit)
share one extraction: the later task's directory is a symbolic link to the
first one (score.py resolves it before packing). Existing trees are kept.
Standard library, git and tar only.
"""
import json
import os
import subprocess
import sys


def sanitise(task_id):
    return task_id.replace("/", "__").replace("#", "__")


def find_mirror(mirrors, repo):
    owner, name = repo.split("/")
    for cand in (os.path.join(mirrors, f"{owner}+{name}", "repo"),
                 os.path.join(mirrors, f"{owner}+{name}"),
                 os.path.join(mirrors, owner, name + ".git"),
                 os.path.join(mirrors, owner, name)):
        if os.path.isfile(os.path.join(cand, "HEAD")):
            return cand
    return None


def extract(git_dir, commit, dest):
    tmp = dest + ".tmp"
    subprocess.run(["rm", "-rf", tmp], check=True)
    os.makedirs(tmp)
    archive = subprocess.Popen(["git", "--git-dir", git_dir, "archive", "--format=tar", commit],
                               stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", tmp], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {commit} failed")
    # Put back anything export-ignore left out (regular files only).
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout.decode()
    for entry in filter(None, listing.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, kind, sha = meta.split()
        target = os.path.join(tmp, path)
        if kind == "blob" and mode in ("100644", "100755") and not os.path.lexists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as out:
                out.write(subprocess.run(["git", "--git-dir", git_dir, "cat-file", "blob", sha],
                                         capture_output=True, check=True).stdout)
    os.rename(tmp, dest)


def main():
    args = sys.argv[1:]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    data = os.environ.get("RELEVANCE_DIR") or os.path.join(root, "target", "relevance")
    mirrors = os.environ.get("MIRRORS") or os.path.join(data, "mirrors")
    trees = os.environ.get("TREES") or os.path.join(data, "trees")
    files = []
    i = 0
    while i < len(args):
        if args[i] == "--mirrors":
            mirrors = args[i + 1]; i += 2
        elif args[i] == "--trees":
            trees = args[i + 1]; i += 2
        else:
            files.append(args[i]); i += 1
    os.makedirs(trees, exist_ok=True)
    first = {}
    failed = 0
    for path in files:
        for task in json.load(open(path)):
            dest = os.path.join(trees, sanitise(task["id"]))
            key = (task["repo"], task["parentCommit"])
            if os.path.lexists(dest):
                first.setdefault(key, dest)
                continue
            if key in first:
                os.symlink(os.path.basename(first[key]), dest)
                print(f"{task['id']}: shares {first[key]}")
                continue
            git_dir = find_mirror(mirrors, task["repo"])
            if not git_dir:
                print(f"{task['id']}: no mirror of {task['repo']} under {mirrors}", file=sys.stderr)
                failed += 1
                continue
            try:
                extract(git_dir, task["parentCommit"], dest)
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"{task['id']}: {exc}", file=sys.stderr)
                failed += 1
                continue
            first[key] = dest
            print(f"{task['id']}: {dest}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
