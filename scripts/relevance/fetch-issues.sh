#!/bin/sh
# Rebuild the benchmark's issue texts from the GitHub REST API.
#
#   scripts/relevance/fetch-issues.sh [TASKS.json ...]
#
# For every task in the lists (default: tasks-dev.json and tasks-heldout.json
# next to this script) it fetches https://api.github.com/repos/O/R/issues/N
# and writes ISSUES_DIR/<owner>__<repo>__<N>.txt: the title on the first line,
# a blank line, then the issue body as GitHub stores it (Markdown, unedited).
#
# Needs network, curl and python3. Not for CI: the texts are third-party
# content and are never committed. Environment:
#   ISSUES_DIR    where to write (default $RELEVANCE_DIR/issues, RELEVANCE_DIR
#                 being target/relevance in the repository by default)
#   GITHUB_TOKEN  optional; raises the API rate limit from 60 to 5000 an hour
#   FORCE=1       overwrite files that already exist (default: keep them, so a
#                 rerun after a rate-limit stop only fetches what is missing)
#
# The texts the committed figures were measured with are excerpts of the threads
# (tasks say "issueTextSource": "search-excerpt"); the API gives the full body,
# so scores computed on refetched texts can differ slightly.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
data=${RELEVANCE_DIR:-$here/../../target/relevance}
issues_dir=${ISSUES_DIR:-$data/issues}
mkdir -p "$issues_dir"
[ $# -gt 0 ] || set -- "$here/tasks-dev.json" "$here/tasks-heldout.json"

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.list"' EXIT INT TERM

python3 - "$@" <<'EOF' > "$tmp.list"
import json, sys
seen = set()
for path in sys.argv[1:]:
    for t in json.load(open(path)):
        owner, rest = t["id"].split("/", 1)
        repo, num = rest.split("#")
        if (owner, repo, num) not in seen:
            seen.add((owner, repo, num))
            print(owner, repo, num)
EOF

fetched=0 kept=0 failed=0
while read -r owner repo num; do
    out="$issues_dir/${owner}__${repo}__${num}.txt"
    if [ -s "$out" ] && [ "${FORCE:-0}" != 1 ]; then
        kept=$((kept + 1))
        continue
    fi
    url="https://api.github.com/repos/$owner/$repo/issues/$num"
    if [ -n "${GITHUB_TOKEN:-}" ]; then
        status=$(curl -sS --max-time 60 -o "$tmp" -w '%{http_code}' \
            -H 'Accept: application/vnd.github+json' \
            -H "Authorization: Bearer $GITHUB_TOKEN" "$url") || status=000
    else
        status=$(curl -sS --max-time 60 -o "$tmp" -w '%{http_code}' \
            -H 'Accept: application/vnd.github+json' "$url") || status=000
    fi
    if [ "$status" != 200 ]; then
        echo "$owner/$repo#$num: HTTP $status" >&2
        failed=$((failed + 1))
        if [ "$status" = 403 ] || [ "$status" = 429 ]; then
            echo "rate limited; set GITHUB_TOKEN or rerun later (existing files are kept)" >&2
            break
        fi
        continue
    fi
    python3 - "$tmp" "$out" <<'EOF'
import json, sys
issue = json.load(open(sys.argv[1], encoding="utf-8"))
if "pull_request" in issue:
    print(f"warning: {issue.get('html_url')} is a pull request", file=sys.stderr)
title = (issue.get("title") or "").strip()
body = (issue.get("body") or "").replace("\r\n", "\n").strip("\n")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write(title + "\n\n" + body + "\n")
EOF
    fetched=$((fetched + 1))
done < "$tmp.list"
rm -f "$tmp.list"

echo "fetched $fetched, kept $kept existing, failed $failed; texts in $issues_dir" >&2
[ "$failed" = 0 ]
