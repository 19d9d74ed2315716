#!/usr/bin/env python3
"""List candidate relevance tasks from a repository mirror's history.

Usage: mine-candidates.py GIT_DIR OWNER/REPO LANGUAGE [--max N] [--since YYYY-MM-DD]

Prints one JSON object per line for every first-parent commit of HEAD (newest
first) whose message references an issue with a closing keyword
(fix/fixes/fixed/close/closes/closed/resolve/resolves/resolved #N, or the
full https://github.com/OWNER/REPO/issues/N url) and whose changed files,
after dropping tests, docs, changelogs, lock files and other non-source files
(see is_excluded), number 1 to 5 with at least one source file (by extension, SOURCE_EXT)
present in the parent tree. Per issue only the newest qualifying commit is kept. A squash-merge suffix "(#M)" names the pull request, never the issue,
so M is not taken as the issue unless a closing keyword names it too.

This is the whole selection rule; the only later filter is the issue text
(it must be found, be at least ~100 characters, not be a bot/dependency
update, and not merely restate the fix). Standard library only.
"""
import json
import re
import subprocess
import sys

CLOSING = re.compile(
    r"\b(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\b[:\s]+(?:issue\s+)?"
    r"((?:[\w.-]+/[\w.-]+)?#\d+|https://github\.com/[\w.-]+/[\w.-]+/issues/\d+)",
    re.I,
)

TEST_DIR_PARTS = {
    "test", "tests", "testing", "__tests__", "testdata", "fixtures", "fixture",
    "__snapshots__", "snapshots", "spec", "specs", "e2e", "benches", "bench",
    "benchmark", "benchmarks", "examples", "example", "docs", "doc", "docs_src",
    ".github", ".circleci", "changelog.d", "changes", "test-data", "tests-data",
}
DOC_EXT = {".md", ".rst", ".txt", ".adoc", ".markdown"}
LOCK_NAMES = {
    "cargo.lock", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "go.sum",
    "poetry.lock", "pipfile.lock", "bun.lockb", "uv.lock", "gemfile.lock",
    "composer.lock", "bun.lock",
}
OTHER_NAMES = {
    "changelog", "changes", "news", "history", "authors", "contributors",
    "release-notes", "releasing", ".gitignore", ".gitattributes",
}


def is_excluded(path):
    low = path.lower()
    parts = low.split("/")
    name = parts[-1]
    stem = name.split(".")[0]
    if any(p in TEST_DIR_PARTS for p in parts[:-1]):
        return "test-or-doc-dir"
    if name in LOCK_NAMES:
        return "lock"
    if name in OTHER_NAMES or stem in OTHER_NAMES:
        return "changelog"
    ext = "." + name.rsplit(".", 1)[1] if "." in name else ""
    if ext in DOC_EXT:
        return "doc"
    if (name.startswith("test_") or re.search(r"_tests?\.\w+$", name)
            or re.search(r"\.(test|spec|tests)\.\w+$", name)
            or re.search(r"(^|[^a-z])tests?\.(py|rs|go)$", name)
            or re.search(r"tests?\.(java|kt)$", name)
            or re.search(r"^test.*\.(c|cc|cpp|sh)$", name)):
        return "test"
    if name.endswith((".snap", ".snapshot", ".png", ".jpg", ".svg", ".gif", ".ico",
                      ".bin", ".prebuilt", ".1", ".1.in", ".mdx")):
        return "asset-or-generated"
    if stem in {"copying", "license", "licence", "notice"}:
        return "licence"
    return None


SOURCE_EXT = {
    ".py", ".pyi", ".go", ".rs", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs",
    ".java", ".kt", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".jq",
}


def is_source(path):
    name = path.rsplit("/", 1)[-1].lower()
    return "." in name and "." + name.rsplit(".", 1)[1] in SOURCE_EXT


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True,
                          capture_output=True, text=True).stdout


def main():
    args = sys.argv[1:]
    git_dir, repo, language = args[0], args[1], args[2]
    max_n = int(args[args.index("--max") + 1]) if "--max" in args else 10**9
    since = args[args.index("--since") + 1] if "--since" in args else None
    owner_repo = repo.lower()
    log_args = ["log", "--first-parent", "--format=%H%x00%P%x00%B%x01"]
    if since:
        log_args.append("--since=" + since)
    out = git(git_dir, *log_args, "HEAD")
    n = 0
    seen = set()
    for rec in out.split("\x01"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, parents, body = rec.split("\x00", 2)
        parents = parents.split()
        if not parents:
            continue
        issues = []
        for m in CLOSING.finditer(body):
            ref = m.group(1)
            if ref.startswith("https://"):
                parts = ref.split("/")
                if f"{parts[3]}/{parts[4]}".lower() != owner_repo:
                    continue
                num = int(parts[-1])
            else:
                if "/" in ref.split("#")[0] and ref.split("#")[0].lower() != owner_repo:
                    continue
                num = int(ref.split("#")[1])
            if num not in issues:
                issues.append(num)
        if len(issues) != 1 or issues[0] in seen:
            continue
        parent = parents[0]
        diff = git(git_dir, "diff-tree", "-r", "--no-renames", "--name-status",
                   parent, sha)
        kept, new, dropped = [], [], []
        for line in diff.splitlines():
            status, path = line.split("\t", 1)
            if status.startswith("D"):
                continue
            if is_excluded(path):
                dropped.append(path)
                continue
            kept.append(path)
            if status.startswith("A"):
                new.append(path)
        existing = [p for p in kept if p not in new]
        if not (1 <= len(kept) <= 5) or not any(is_source(p) for p in existing):
            continue
        seen.add(issues[0])
        subject = body.splitlines()[0] if body else ""
        print(json.dumps({
            "id": f"{repo}#{issues[0]}", "repo": repo, "language": language,
            "fixCommit": sha, "parentCommit": parent,
            "issueUrl": f"https://github.com/{repo}/issues/{issues[0]}",
            "changedFiles": kept, "newFiles": new, "subject": subject,
        }))
        n += 1
        if n >= max_n:
            break


if __name__ == "__main__":
    main()
