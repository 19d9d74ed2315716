"""Sweeps every code point through the committed Unigram files and the
files with NFKC or NFKD (the legacy Claude tokenizer.json among them): Hugging Face `tokenizers`' count of each
character in a few shapes, written to a file that packer's ignored test
`every_code_point_counts_like_the_reference` (tests/suite/tokenizers.rs)
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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep  # noqa: E402

FILES = ["unigram-bytes", "unigram-nfkc", "unigram-sequence", "unigram-small", "bpe-nfkc", "wordpiece-nfkd", "claude"]
SHAPES = [("", ""), ("a", "b"), ("\u2603", "\u0301")]

if __name__ == "__main__":
    sweep.run(FILES, SHAPES, "/tmp/packer-unigram-sweep.json.gz")
