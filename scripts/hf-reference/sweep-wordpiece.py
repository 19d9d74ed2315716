"""Sweeps every code point through the committed WordPiece files: Hugging
Face `tokenizers`' count of each character in a few shapes, written to a
file that packer's ignored test `every_code_point_counts_like_the_reference`
(tests/tokenizers.rs) compares with packer's count of the same texts. Run
by hand (not in CI): it proves packer's character tables (punctuation,
control characters, whitespace, CJK blocks, nonspacing and combining marks,
NFD, lowercase, the Whitespace pre-tokenizer's \\w and \\s) equal to the
reference's on every code point.

Shapes: the character alone; between `a` and `b` (so it is seen as a
letter, punctuation, whitespace, a removed control character or a CJK
ideograph, lowercased and with its accents stripped, inside a word); and
after `Á` and before U+0301 (a capital to lowercase and decompose beside
it, and a mark that NFD's canonical reordering may move past it).

Usage (from the repository root, after `pip install tokenizers==0.23.3`):
    python3 scripts/hf-reference/sweep-wordpiece.py [OUT.json.gz]
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
FILES = ["minilm", "wordpiece-cased", "wordpiece-sequence", "wordpiece-whitespace"]
SHAPES = [("", ""), ("a", "b"), ("\u00c1", "\u0301")]


def main():
    from tokenizers import Tokenizer

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/packer-wordpiece-sweep.json.gz")
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
