"""Sweeps every code point through the committed BPE files with the
components SPEC §2.2.1 adds for BPE (`bpe-punctuation`: the `Punctuation`
pre-tokenizer before `ByteLevel`; `bpe-lowercase`: the `Lowercase`
normalizer; `bpe-nfd`: `NFD` with `Whitespace` and `Punctuation`, over
characters with `byte_fallback`) and the Unigram file whose model has no
`type` (`unigram-untyped`): Hugging Face `tokenizers`' count of each
character in a few shapes, and of 20,000 random texts, written to a file
that packer's ignored test `every_code_point_counts_like_the_reference`
(tests/suite/tokenizers.rs) compares with packer's count of the same texts.
Run by hand (not in CI).

Shapes: the character alone; between `A` and `b` (a capital before it, a
letter after: lowercasing and punctuation runs); after `x,` and before
`.y` (punctuation on both sides, `Contiguous` runs); after U+00C5 and
before U+0301 and U+0323 (marks that NFD reorders around it).

Usage (from the repository root, after `pip install tokenizers==0.23.3`):
    python3 scripts/hf-reference/sweep-bpe-components.py [OUT.json.gz]
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep  # noqa: E402

FILES = ["bpe-punctuation", "bpe-lowercase", "bpe-nfd", "unigram-untyped"]
SHAPES = [("", ""), ("A", "b"), ("x,", ".y"), ("\u00c5", "\u0301\u0323")]

if __name__ == "__main__":
    sweep.run(FILES, SHAPES, "/tmp/packer-bpe-components-sweep.json.gz", random_count=20000)
