"""Sweeps every code point through the committed file with a `Precompiled`
normalizer (SentencePiece's `nmt_nfkc` rules, as T5, ALBERT and XLM-R
carry them): Hugging Face `tokenizers`' count of each character in a few
shapes, written to a file that packer's ignored test
`every_code_point_counts_like_the_reference` (tests/suite/tokenizers.rs)
compares with packer's count of the same texts. Run by hand (not in CI): it
proves packer's reading of the charsmap (every key of the trie) and its
grapheme clusters equal to the reference's on every code point.

Shapes: the character alone; between `a` and `b`; after an unknown
character (U+2603) and before U+0301 (a mark that joins its cluster, so
the cluster is tried whole and then, without a key, character by
character); and after a Devanagari consonant and virama (a cluster that
grows across consonants, Unicode 15.1's conjunct rule).

Usage (from the repository root, after `pip install tokenizers==0.23.3`):
    python3 scripts/hf-reference/sweep-precompiled.py [OUT.json.gz]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep  # noqa: E402

FILES = ["unigram-precompiled"]
SHAPES = [("", ""), ("a", "b"), ("\u2603", "\u0301"), ("\u0915\u094d", "")]

if __name__ == "__main__":
    sweep.run(FILES, SHAPES, "/tmp/packer-precompiled-sweep.json.gz")
