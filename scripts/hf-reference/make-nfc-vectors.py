"""Regenerates tests/data/tokenizers/nfc-vectors.json.gz: Hugging Face
`tokenizers`' counts, under Qwen3's tokenizer.json (whose normalizer is NFC),
of texts where the Unicode version of the NFC tables decides the count.

`tokenizers` normalizes with the tables of the `unicode-normalization-
alignments` crate (Unicode 9.0.0), not the newest Unicode's. Normalization
data of a character never changes once it is assigned (Unicode's stability
policy), so the texts whose NFC differs between Unicode 9 and the newest
Unicode are those with characters assigned since 9.0. This script lists
every such character (assigned in the newest Unicode, per `unicodedata2`,
and not present in Unicode 9.0, per Perl's `\\p{Present_In: 9.0}`) and
counts, for each, one text that puts it where composition and canonical
reordering act:

    a C U+0334        C before a mark of combining class 1
    a U+0345 C        C after a mark of class 240
    C C               C twice (a new pair may be C with itself)
    D                 C's canonical decomposition (composed again only by
                      tables that know C), when C has one
    C U+0301          C before a mark of class 230

and, separately, every composition pair whose composite is assigned since
9.0 (the pairs `tokenizers` leaves apart), alone and between letters.

Usage (from the repository root, with `pip install tokenizers==0.23.3
unicodedata2` and Perl):
    python3 scripts/hf-reference/make-nfc-vectors.py
"""

import bisect
import gzip
import importlib.metadata as md
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import texts  # noqa: E402
from counters import hf_counter  # noqa: E402

DATA = texts.ROOT / "tests" / "data" / "tokenizers"

PERL_UNICODE_9 = r"""
my $s = -1;
for my $c (0 .. 0x110000) {
    my $in = $c <= 0x10FFFF && !($c >= 0xD800 && $c < 0xE000)
        && chr($c) =~ /\p{Present_In: 9.0}/;
    if ($in && $s < 0) { $s = $c }
    elsif (!$in && $s >= 0) { printf "%X %X\n", $s, $c - 1; $s = -1 }
}
"""


def unicode_9_ranges():
    out = subprocess.run(["perl", "-e", PERL_UNICODE_9], check=True, capture_output=True, text=True).stdout
    return [tuple(int(x, 16) for x in line.split()) for line in out.splitlines()]


def main():
    import unicodedata2 as ucd

    ranges = unicode_9_ranges()
    starts = [a for a, _ in ranges]

    def in_unicode_9(c):
        i = bisect.bisect_right(starts, c) - 1
        return i >= 0 and ranges[i][0] <= c <= ranges[i][1]

    new = [
        c
        for c in range(0x110000)
        if not 0xD800 <= c < 0xE000 and ucd.category(chr(c)) != "Cn" and not in_unicode_9(c)
    ]
    count = hf_counter(DATA / "qwen3-tokenizer.json.gz")
    sweep = []
    pairs = []
    for c in new:
        ch = chr(c)
        parts = ["a" + ch + "\u0334", "a\u0345" + ch, ch + ch]
        nfd = ucd.normalize("NFD", ch)
        if nfd != ch:
            parts.append(nfd)
        parts.append(ch + "\u0301")
        text = " ".join(parts)
        sweep.append({"cp": c, "text": text, "count": count(text)})
        decomposition = ucd.decomposition(ch)
        if decomposition and not decomposition.startswith("<"):
            pair = "".join(chr(int(x, 16)) for x in decomposition.split())
            if len(pair) == 2 and ucd.normalize("NFC", pair) == ch:
                for text in (pair, "x" + pair + "y"):
                    pairs.append({"composite": c, "text": text, "count": count(text)})
    out = {
        "reference": f"tokenizers {md.version('tokenizers')}",
        "tokenizer": "qwen3",
        "newest_unicode": ucd.unidata_version,
        "assigned_since_9": len(new),
        "pairs": pairs,
        "sweep": sweep,
    }
    data = json.dumps(out, ensure_ascii=False, indent=0) + "\n"
    (DATA / "nfc-vectors.json.gz").write_bytes(gzip.compress(data.encode("utf-8"), 9, mtime=0))
    print(f"{len(new)} characters assigned since Unicode 9.0 (newest {ucd.unidata_version}), {len(pairs)} pair texts")


if __name__ == "__main__":
    main()
