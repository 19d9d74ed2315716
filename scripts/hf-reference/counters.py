"""The reference counts of a tokenizer file, and a counting server for the
naive reference packer (scripts/reference/pack.mjs --tokenizer FILE).

References: Hugging Face `tokenizers` for tokenizer.json (`encode(text,
add_special_tokens=False)` with `encode_special_tokens=True`: special-token
text is plain text, added tokens not marked special are matched, SPEC §2.2;
without the file's truncation and padding), mistral-common's Tekkenizer for
tekken.json (`encode(text, bos=False, eos=False)`). Files may be
gzip-compressed (`.gz`).

Server: `python3 counters.py serve FILE REQUESTS RESPONSES`, where REQUESTS
and RESPONSES are named pipes. Each request is the text's length in UTF-8
bytes in decimal, a newline, then the bytes; each response is the count in
decimal and a newline. The server stops when REQUESTS is closed.
"""

import gzip
import json
import sys
from pathlib import Path


def read_bytes(path):
    path = Path(path)
    raw = path.read_bytes()
    return gzip.decompress(raw) if path.name.endswith(".gz") else raw


def is_tekken(data):
    """A tekken.json has a `config` with a split pattern and base64 ranks."""
    return isinstance(data, dict) and "config" in data and "model" not in data


def hf_counter(path):
    """SPEC §2.2: `encode(text, add_special_tokens=False)` with
    `encode_special_tokens=True`: added tokens marked special are split as
    text, the others are matched as the tokens they are."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(read_bytes(path).decode("utf-8"))
    tokenizer.encode_special_tokens = True
    # A file's truncation and padding (all-MiniLM-L6-v2's cut and pad every
    # encoding to 128 ids) are settings for feeding a model, not part of
    # the count of a text: packer counts the whole text, unpadded.
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text):
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count


def tekken_counter(path):
    import tempfile

    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    with tempfile.NamedTemporaryFile(suffix=".json") as raw:
        raw.write(read_bytes(path))
        raw.flush()
        tekken = Tekkenizer.from_file(raw.name)
    return lambda text: len(tekken.encode(text, bos=False, eos=False))


def counter(path):
    """The reference count function for any committed or held-out file."""
    if is_tekken(json.loads(read_bytes(path))):
        return tekken_counter(path)
    return hf_counter(path)


def serve(path, requests, responses):
    count = counter(path)
    with open(requests, "rb") as inbox, open(responses, "wb", buffering=0) as outbox:
        while True:
            header = inbox.readline()
            if not header:
                return
            size = int(header)
            data = inbox.read(size)
            if len(data) != size:
                raise SystemExit("counters.py: a request was cut short")
            outbox.write(b"%d\n" % count(data.decode("utf-8")))


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "serve":
        raise SystemExit("usage: counters.py serve FILE REQUESTS RESPONSES")
    serve(*sys.argv[2:])
