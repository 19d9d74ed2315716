"""Sweeps every code point through the committed Unigram files and the
files with NFKC or NFKD (the legacy Claude tokenizer.json among them): Hugging Face `tokenizers`' count of each
character in a few shapes, written to a file that packer's ignored test
`every_code_point_counts_like_the_reference` (tests/tokenizers.rs)
compares with packer's count of the same texts. Run by hand (not in CI):
it proves packer's Unigram search (known, unknown and byte-fallback
characters, unknowns fused) and its NFKC and NFKD tables equal to the
reference's on every code point.

Shapes: the character alone; between `a` and `b` (inside a word, beside
known tokens); and after an unknown character (U+2603, fused with it when
it is unknown too) and before U+0301 (a mark that NFKC may compose with
it or that NFKD's canonical reordering may move past it).

Usage (from the repository root, after `pip install tokenizers==0.23.3`):
    python3 scripts/hf-reference/sweep-unigram.py [OUT.json.gz]
"""

import gzip
import importlib.metadata as md
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import texts  # noqa: E402
from counters import read_bytes  # noqa: E402

DATA = texts.ROOT / "tests" / "data" / "tokenizers"
FILES = ["unigram-bytes", "unigram-nfkc", "unigram-sequence", "unigram-small", "bpe-nfkc", "wordpiece-nfkd", "claude"]
SHAPES = [("", ""), ("a", "b"), ("\u2603", "\u0301")]


def main():
    from tokenizers import Tokenizer

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/packer-unigram-sweep.json.gz")
    names = json.loads((DATA / "vectors.json").read_text(encoding="utf-8"))["files"]
    code_points = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]
    sweeps = []
    for key in FILES:
        tokenizer = Tokenizer.from_str(read_bytes(DATA / names[key]["file"]).decode("utf-8"))
        tokenizer.encode_special_tokens = True
        tokenizer.no_truncation()
        tokenizer.no_padding()
        columns = []
        for before, after in SHAPES:
            batch = [before + chr(cp) + after for cp in code_points]
            encodings = tokenizer.encode_batch(batch, add_special_tokens=False)
            columns.append([len(e.ids) for e in encodings])
        counts = [[cp, *(column[i] for column in columns)] for i, cp in enumerate(code_points)]
        sweeps.append(
            {
                "tokenizer": key,
                "reference": f"tokenizers {md.version('tokenizers')}",
                "shapes": SHAPES,
                "counts": counts,
            }
        )
        print(f"{key}: {len(code_points)} code points counted by the reference", flush=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(sweeps, f, separators=(",", ":"))
    env = dict(os.environ, PACKER_SWEEP=str(out))
    command = [
        "cargo", "test", "--locked", "--test", "tokenizers", "--",
        "--ignored", "--exact", "every_code_point_counts_like_the_reference", "--nocapture",
    ]
    sys.exit(subprocess.run(command, cwd=texts.ROOT, env=env).returncode)


if __name__ == "__main__":
    main()
