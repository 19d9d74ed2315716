#!/usr/bin/env python3
"""Writes N small fixtures as JSON Lines, made of real text, for the batch
benchmark and the Spark example.

Usage: make_fixtures.py N OUT.jsonl [TEXT_DIR ...]

The text comes from the Markdown and text files under TEXT_DIR (default: the
crate sources cargo keeps under ~/.cargo/registry/src, whose READMEs are real
prose and code). Each fixture has 2 to 6 documents of 200 to 3,000
characters and a budget of 300 to 3,000 tokens; about one line in 97 is bad
on purpose (broken JSON, a duplicate id, a truncated document, a URL with
credentials, a required document that cannot fit), so a run shows error lines
in place. Deterministic: the same inputs give the same file.
"""

import glob
import json
import os
import random
import sys


def texts(dirs):
    paths = set()
    for d in dirs:
        for pattern in ("*/README.md", "*/README", "*/CHANGELOG.md", "*/*.md"):
            paths.update((d, p) for p in glob.glob(os.path.join(d, pattern)))
    chunks = []
    for d, path in sorted(paths):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        for start in range(0, len(text), 2500):
            chunk = text[start : start + 2500]
            if len(chunk.strip()) >= 200:
                chunks.append((os.path.relpath(path, d), chunk))
    if not chunks:
        sys.exit("no text found under " + ", ".join(dirs))
    return chunks


def fixture(rng, chunks, i):
    documents = []
    for j in range(rng.randint(2, 6)):
        name, chunk = chunks[rng.randrange(len(chunks))]
        size = rng.randint(200, 3000)
        start = rng.randrange(max(1, len(chunk) - size + 1))
        content = chunk[start : start + size]
        if not content.strip():
            content = chunk
        documents.append(
            {
                "id": f"f{i}-d{j}",
                "url": f"https://docs.example.com/{i}/{name.replace(os.sep, '/')}#{j}",
                "format": "markdown",
                "content": content,
                "truncated": False,
                "priority": rng.randint(-3, 3),
            }
        )
    return {
        "encoding": rng.choice(["cl100k_base", "o200k_base"]),
        "budget": {
            "contextTokens": rng.randint(300, 3000),
            "reservedOtherInputTokens": 0,
            "reservedOutputTokens": 0,
            "safetyTokens": 0,
        },
        "documents": documents,
    }


def spoil(rng, value, i):
    kind = i % 5
    if kind == 0:
        return json.dumps(value)[: -rng.randint(2, 20)]
    doc = value["documents"][0]
    if kind == 1:
        value["documents"][1]["id"] = doc["id"]
    elif kind == 2:
        doc["truncated"] = True
    elif kind == 3:
        doc["url"] = "https://user:secret@docs.example.com/x"
    else:
        doc["required"] = True
        doc["content"] = doc["content"] * 20
        value["budget"]["contextTokens"] = 300
    return json.dumps(value)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, out = int(sys.argv[1]), sys.argv[2]
    dirs = sys.argv[3:] or glob.glob(os.path.expanduser("~/.cargo/registry/src/*"))
    chunks = texts(dirs)
    rng = random.Random(15)
    with open(out, "w", encoding="utf-8") as f:
        for i in range(n):
            value = fixture(rng, chunks, i)
            line = spoil(rng, value, i) if i % 97 == 42 else json.dumps(value)
            f.write(line + "\n")


if __name__ == "__main__":
    main()
