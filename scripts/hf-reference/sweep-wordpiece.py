"""Sweeps every code point through the committed WordPiece files: Hugging
Face `tokenizers`' count of each character in a few shapes, written to a
file that packer's ignored test `every_code_point_counts_like_the_reference`
(tests/suite/tokenizers.rs) compares with packer's count of the same texts. Run
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

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep  # noqa: E402

FILES = ["minilm", "wordpiece-cased", "wordpiece-sequence", "wordpiece-whitespace"]
SHAPES = [("", ""), ("a", "b"), ("\u00c1", "\u0301")]

if __name__ == "__main__":
    sweep.run(FILES, SHAPES, "/tmp/packer-wordpiece-sweep.json.gz")
