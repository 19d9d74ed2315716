"""The driver both code-point sweeps share (sweep-wordpiece.py,
sweep-unigram.py): Hugging Face `tokenizers`' count of every code point in
each shape, for each committed file named, written to a gzipped JSON file
that packer's ignored test `every_code_point_counts_like_the_reference`
(tests/suite/tokenizers.rs) then compares with packer's counts."""

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
CODE_POINTS = [cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF]


def random_texts(count, seed=44):
    """`count` texts of 1 to 40 characters drawn from every code point
    (half of them from ASCII, so that words, spaces and punctuation meet
    the rarer characters), the same for every run."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(count):
        chars = []
        for _ in range(rng.randint(1, 40)):
            if rng.random() < 0.5:
                chars.append(chr(rng.randint(0x20, 0x7E)))
            else:
                chars.append(chr(rng.choice(CODE_POINTS)))
        out.append("".join(chars))
    return out


def counted(key, shapes, code_points=CODE_POINTS, texts_too=()):
    """The reference's counts of every code point in every shape for the
    committed file `key` (a name in vectors.json.gz's `files`), and of each
    text of `texts_too`."""
    from tokenizers import Tokenizer

    names = json.loads(gzip.decompress((DATA / "vectors.json.gz").read_bytes()).decode("utf-8"))["files"]
    tokenizer = Tokenizer.from_str(read_bytes(DATA / names[key]["file"]).decode("utf-8"))
    tokenizer.encode_special_tokens = True
    tokenizer.no_truncation()
    tokenizer.no_padding()
    columns = []
    for before, after in shapes:
        batch = [before + chr(cp) + after for cp in code_points]
        encodings = tokenizer.encode_batch(batch, add_special_tokens=False)
        columns.append([len(e.ids) for e in encodings])
    extra = tokenizer.encode_batch(list(texts_too), add_special_tokens=False)
    return {
        "tokenizer": key,
        "reference": f"tokenizers {md.version('tokenizers')}",
        "shapes": shapes,
        "counts": [[cp, *(column[i] for column in columns)] for i, cp in enumerate(code_points)],
        "texts": [[text, len(e.ids)] for text, e in zip(texts_too, extra)],
    }


def run(files, shapes, default_out, random_count=0):
    """Sweeps `files` in `shapes` (and `random_count` random texts),
    writes the counts to the path given on the command line (else
    `default_out`) and runs packer's comparison."""
    out = Path(sys.argv[1] if len(sys.argv) > 1 else default_out)
    sweeps = []
    extra = random_texts(random_count)
    for key in files:
        sweeps.append(counted(key, shapes, texts_too=extra))
        print(f"{key}: {len(CODE_POINTS)} code points counted by the reference", flush=True)
    with gzip.open(out, "wt", encoding="utf-8") as f:
        json.dump(sweeps, f, separators=(",", ":"))
    env = dict(os.environ, PACKER_SWEEP=str(out))
    command = [
        "cargo", "test", "--locked", "--test", "suite", "--",
        "--ignored", "--exact", "tokenizers::every_code_point_counts_like_the_reference",
        "--nocapture",
    ]
    sys.exit(subprocess.run(command, cwd=texts.ROOT, env=env).returncode)
