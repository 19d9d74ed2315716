"""Regenerates tests/data/tokenizers/vectors.json.gz: the reference counts of
every text in texts.py under the committed tokenizer files.

References (counters.py): Hugging Face `tokenizers` for tokenizer.json
(`encode(text, add_special_tokens=False)` with `encode_special_tokens=True`,
SPEC §2.2), mistral-common's
Tekkenizer for tekken.json (`encode(text, bos=False, eos=False)`).

Usage (from the repository root, after `pip install tokenizers mistral-common`):
    python3 scripts/hf-reference/make-vectors.py [--retrain] [--only KEY ...]

The small files are trained on this repository's documents; a committed
file is kept as it is (its documents have changed since) unless
`--retrain` is given. With `--only`, the counts of the files named are
written again (or added) and every other file's are kept as committed
(only `tokenizers` is needed then, unless `tekken` is named).
"""

import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import texts  # noqa: E402
from counters import hf_counter, tekken_counter  # noqa: E402

DATA = texts.ROOT / "tests" / "data" / "tokenizers"


def non_blank(text):
    """packer refuses blank documents; an envelope test gives them a letter."""
    return text if text.strip() else "x" + text


def envelope(docs):
    """SPEC §2's JSON envelope (json.dumps escapes exactly like serde_json
    with ensure_ascii off)."""
    entries = [
        {"id": f"d{i}", "url": f"https://example.com/{i}", "format": "text", "content": text}
        for i, text in enumerate(docs)
    ]
    return json.dumps({"documents": entries}, ensure_ascii=False, separators=(",", ":"))


def small_files():
    """Small files written by the reference library itself: a Unigram
    (SentencePiece) model of four tokens, and a WordPiece model of
    three tokens with the `Whitespace` pre-tokenizer (every piece it makes
    is a token or the unknown token, so its counts check the split)."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    unigram = Tokenizer(models.Unigram([("<unk>", 0.0), ("\u2581a", -1.0), ("b", -2.0), ("\u2581ab", -0.5)], 0))
    unigram.pre_tokenizer = pre_tokenizers.Metaspace()
    unigram.save(str(DATA / "unigram-tokenizer.json"))
    wordpiece = Tokenizer(models.WordPiece({"[UNK]": 0, "a": 1, "##b": 2}, unk_token="[UNK]"))
    wordpiece.pre_tokenizer = pre_tokenizers.Whitespace()
    wordpiece.save(str(DATA / "wordpiece-tokenizer.json"))


def wordpiece_files():
    """Small WordPiece files (SPEC §2.2.1) trained by the reference library
    on this repository's documents, beside all-MiniLM-L6-v2's (uncased
    BERT's vocabulary and normalizer):

    - `wordpiece-cased`: cased BERT's shape (`BertNormalizer` without
      lowercase, so without stripping accents; `BertPreTokenizer`),
      `max_input_chars_per_word` 12, BERT's special tokens, and added
      tokens that are not special: `<think>`, `</think>` (raw) and a
      normalized `Café`;
    - `wordpiece-sequence`: `Sequence`s: a `BertNormalizer` that only strips
      accents, then `NFD`, `Lowercase`, `StripAccents`; `WhitespaceSplit`
      then `Whitespace`; the subword prefix `@@`.
    """
    from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = [text for _, text in texts.documents()]
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]

    def train(normalizer, pre_tokenizer, name, prefix="##", max_chars=None, extra=None):
        tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]", continuing_subword_prefix=prefix))
        tokenizer.normalizer = normalizer
        tokenizer.pre_tokenizer = pre_tokenizer
        trainer = trainers.WordPieceTrainer(
            vocab_size=900, limit_alphabet=150, special_tokens=specials, continuing_subword_prefix=prefix,
            show_progress=False,
        )
        tokenizer.train_from_iterator(corpus, trainer=trainer)
        if extra is not None:
            extra(tokenizer)
        data = json.loads(tokenizer.to_str())
        if max_chars is not None:
            data["model"]["max_input_chars_per_word"] = max_chars
        (DATA / name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    def cased_added(tokenizer):
        tokenizer.add_tokens(
            [AddedToken("<think>", normalized=False), AddedToken("</think>", normalized=False), AddedToken("Caf\u00e9", normalized=True)]
        )

    train(
        normalizers.BertNormalizer(lowercase=False),
        pre_tokenizers.BertPreTokenizer(),
        "wordpiece-cased-tokenizer.json",
        max_chars=12,
        extra=cased_added,
    )
    train(
        normalizers.Sequence(
            [
                normalizers.BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True, lowercase=False),
                normalizers.NFD(),
                normalizers.Lowercase(),
                normalizers.StripAccents(),
            ]
        ),
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Whitespace()]),
        "wordpiece-sequence-tokenizer.json",
        prefix="@@",
    )


def unigram_files():
    """Small Unigram files (SentencePiece's unigram model, SPEC §2.2.1)
    trained by the reference library on this repository's documents, so
    that most characters outside them are unknown:

    - `unigram-bytes`: XLNet and Llama-style SentencePiece: no normalizer,
      `Metaspace` always with `split`, `byte_fallback` with the `<0xNN>`
      tokens in the vocabulary, except bytes 0xF0-0xFF (so a 4-byte
      character is the unknown token), and a non-special added `<think>`;
    - `unigram-nfkc`: `NFKC`, `Metaspace` first without `split`, no
      `byte_fallback` (an unknown character is `<unk>`, runs fused);
    - `unigram-sequence`: T5's shape without its `Precompiled` map: a
      `Sequence` of `NFKC`, `Lowercase` and `Replace` (two spaces to one),
      `WhitespaceSplit` then `Metaspace` always.
    """
    from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, trainers

    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    corpus = [text for _, text in texts.documents()]

    def train(normalizer, pre_tokenizer, name, byte_fallback=False, extra=None):
        tokenizer = Tokenizer(models.Unigram())
        if normalizer is not None:
            tokenizer.normalizer = normalizer
        tokenizer.pre_tokenizer = pre_tokenizer
        specials = ["<unk>", "<s>", "</s>"] + (byte_tokens if byte_fallback else [])
        trainer = trainers.UnigramTrainer(
            vocab_size=700, special_tokens=specials, unk_token="<unk>", max_piece_length=12, show_progress=False
        )
        tokenizer.train_from_iterator(corpus, trainer=trainer)
        if extra is not None:
            extra(tokenizer)
        data = json.loads(tokenizer.to_str())
        if byte_fallback:
            # As in the published files, the byte tokens are in the model's
            # vocabulary only, not added tokens; 0xF0-0xFF are left out.
            data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in byte_tokens]
            data["model"]["vocab"] = [v for v in data["model"]["vocab"] if v[0] not in byte_tokens[0xF0:]]
            data["model"]["byte_fallback"] = True
        (DATA / name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    def think(tokenizer):
        tokenizer.add_tokens([AddedToken("<think>", normalized=False)])

    train(
        None,
        pre_tokenizers.Metaspace(prepend_scheme="always", split=True),
        "unigram-bytes-tokenizer.json",
        byte_fallback=True,
        extra=think,
    )
    train(
        normalizers.NFKC(),
        pre_tokenizers.Metaspace(prepend_scheme="first", split=False),
        "unigram-nfkc-tokenizer.json",
    )
    train(
        normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase(), normalizers.Replace("  ", " ")]),
        pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(prepend_scheme="always")]),
        "unigram-sequence-tokenizer.json",
    )


def nfkc_files():
    """Small files with the NFKC and NFKD normalizers in the other model
    families: `bpe-nfkc`, byte-level BPE with `NFKC` alone (the legacy
    Claude tokenizer's shape); `wordpiece-nfkd`, WordPiece with a
    `Sequence` of `NFKD` and `Lowercase` and the `Whitespace`
    pre-tokenizer."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = [text for _, text in texts.documents()]
    bpe = Tokenizer(models.BPE())
    bpe.normalizer = normalizers.NFKC()
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.train_from_iterator(
        corpus,
        trainer=trainers.BpeTrainer(vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False),
    )
    bpe.save(str(DATA / "bpe-nfkc-tokenizer.json"))
    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.Sequence([normalizers.NFKD(), normalizers.Lowercase()])
    wordpiece.pre_tokenizer = pre_tokenizers.Whitespace()
    wordpiece.train_from_iterator(
        corpus,
        trainer=trainers.WordPieceTrainer(vocab_size=600, limit_alphabet=150, special_tokens=["[UNK]"], show_progress=False),
    )
    wordpiece.save(str(DATA / "wordpiece-nfkd-tokenizer.json"))


def added_tokens_file():
    """A small byte-level BPE file with an NFC normalizer and added tokens of
    every kind, trained by the reference library itself (SPEC §2.2: special
    tokens are text, the others are matched with their flags)."""
    from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.normalizer = normalizers.NFC()
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
    )
    tokenizer.train_from_iterator([text for _, text in texts.documents()], trainer=trainer)
    tokenizer.add_special_tokens([AddedToken("<|sp|>", special=True, normalized=False), "<|im_start|>"])
    tokenizer.add_tokens(
        [
            AddedToken("<think>", normalized=False),
            AddedToken("</think>", normalized=False),
            AddedToken("[sw]", single_word=True, normalized=False),
            AddedToken("<l>", lstrip=True, normalized=False),
            AddedToken("<r>", rstrip=True, normalized=False),
            AddedToken("<lr>", lstrip=True, rstrip=True, normalized=False),
            AddedToken("cafe\u0301", normalized=True),
            AddedToken("sp|>x", normalized=False),
        ]
    )
    tokenizer.save(str(DATA / "added-tokens-tokenizer.json"))
    # The same with tokens that run across the cuts where packer counts an
    # envelope entry by entry (`"},{"id` spans an entry's end, the join and
    # the next entry's key): packing must notice and count whole.
    tokenizer.add_tokens([AddedToken('"},{"id', normalized=False), AddedToken('":"', normalized=False)])
    tokenizer.save(str(DATA / "added-tokens-across-tokenizer.json"))


def sentencepiece_files():
    """Small SentencePiece-style BPE files (BPE over characters with
    `byte_fallback`, SPEC §2.2.1), trained by the reference library on this
    repository's documents, in the shapes the published conversions have:

    - `sp-legacy`: Llama 2 (legacy): `Prepend("▁")` and `Replace(" ", "▁")`
      normalizers, no pre-tokenizer (a text is one word), `fuse_unk`;
      bytes 0xF0-0xFF have no `<0xNN>` token, so 4-byte characters are the
      unknown token; added tokens `<think>`, `</think>` and a normalized
      `the` (searched as `▁the`);
    - `sp-gemma`: Gemma 3: `Replace(" ", "▁")`, a `Split` on " " (which then
      never matches), and non-special added tokens for newline runs, spaces
      and tags;
    - `sp-metaspace`: Mistral v0.3 (not legacy): `Strip` and a `Metaspace`
      pre-tokenizer with `prepend_scheme` first and `split` false;
      `sp-metaspace-split`: `Metaspace` always, `split` true, `ignore_merges`.
    """
    from tokenizers import AddedToken, Tokenizer, models, normalizers, pre_tokenizers, trainers

    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
    corpus = [text for _, text in texts.documents()]

    def train(normalizer, pre_tokenizer, name, drop_bytes=(), extra=None, **bpe):
        tokenizer = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, **bpe))
        if normalizer is not None:
            tokenizer.normalizer = normalizer
        if pre_tokenizer is not None:
            tokenizer.pre_tokenizer = pre_tokenizer
        trainer = trainers.BpeTrainer(
            vocab_size=900, limit_alphabet=120, special_tokens=["<unk>", "<s>", "</s>"] + byte_tokens,
            show_progress=False,
        )
        tokenizer.train_from_iterator(corpus, trainer=trainer)
        if extra is not None:
            extra(tokenizer)
        data = json.loads(tokenizer.to_str())
        # As in the published files, the byte tokens are in the model's
        # vocabulary only, not added tokens.
        data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in byte_tokens]
        for token in drop_bytes:
            del data["model"]["vocab"][token]
        (DATA / name).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    def legacy_added(tokenizer):
        # Not special: each stretch between them is normalized on its own
        # (Prepend writes `▁` after each); a normalized one is searched as
        # the normalizer writes it (`▁the`).
        tokenizer.add_tokens(
            [AddedToken("<think>", normalized=False), AddedToken("</think>", normalized=False), AddedToken("the", normalized=True)]
        )

    legacy = normalizers.Sequence([normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")])
    train(legacy, None, "sp-legacy-tokenizer.json", drop_bytes=byte_tokens[0xF0:], extra=legacy_added, fuse_unk=True)

    def gemma_added(tokenizer):
        tokenizer.add_tokens(
            [AddedToken(t, normalized=False) for t in ["\n", "\n\n", "\n\n\n", "  ", "   ", "<mask>", "<h1>", "</h1>"]]
        )

    train(
        normalizers.Replace(" ", "\u2581"),
        pre_tokenizers.Split(" ", "merged_with_previous"),
        "sp-gemma-tokenizer.json",
        extra=gemma_added,
        fuse_unk=True,
    )
    train(
        normalizers.Strip(left=False, right=True),
        pre_tokenizers.Metaspace(prepend_scheme="first", split=False),
        "sp-metaspace-tokenizer.json",
    )
    train(
        None,
        pre_tokenizers.Metaspace(prepend_scheme="always", split=True),
        "sp-metaspace-split-tokenizer.json",
        ignore_merges=True,
    )


def wordlevel_files():
    """Small WordLevel files (one token per piece, SPEC §2.2.1) trained by
    the reference library on this repository's documents, so that most
    words outside them are the unknown token:

    - `wordlevel-whitespace`: the shape of the reference's own examples:
      `NFD`, `Lowercase` and `StripAccents`, then `Whitespace` and
      `Digits` (each digit alone);
    - `wordlevel-bytes`: a `ByteLevel` pre-tokenizer (GPT-2's split, over
      bytes), so that packing counts it entry by entry.
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = [text for _, text in texts.documents()]

    def train(normalizer, pre_tokenizer, name):
        tokenizer = Tokenizer(models.WordLevel(unk_token="[UNK]"))
        if normalizer is not None:
            tokenizer.normalizer = normalizer
        tokenizer.pre_tokenizer = pre_tokenizer
        trainer = trainers.WordLevelTrainer(vocab_size=800, special_tokens=["[UNK]"], show_progress=False)
        tokenizer.train_from_iterator(corpus, trainer=trainer)
        tokenizer.save(str(DATA / name))

    train(
        normalizers.Sequence([normalizers.NFD(), normalizers.Lowercase(), normalizers.StripAccents()]),
        pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)]),
        "wordlevel-whitespace-tokenizer.json",
    )
    train(None, pre_tokenizers.ByteLevel(add_prefix_space=False), "wordlevel-bytes-tokenizer.json")


def precompiled_file():
    """A small Unigram file with T5's shape (SPEC §2.2.1): the `Precompiled`
    normalizer with SentencePiece's own `nmt_nfkc` rules (the charsmap
    SentencePiece compiles into every model trained with its default
    normalization, as T5's, ALBERT's and XLM-R's were), `WhitespaceSplit`
    then `Metaspace` always; trained by the reference library on this
    repository's documents. Needs `pip install sentencepiece protobuf`
    besides `tokenizers`."""
    import tempfile

    import sentencepiece  # 0.2.3
    from sentencepiece import sentencepiece_model_pb2
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = [text for _, text in texts.documents()]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "corpus.txt").write_text("\n".join(corpus), encoding="utf-8")
        sentencepiece.SentencePieceTrainer.train(
            input=str(Path(tmp) / "corpus.txt"), model_prefix=str(Path(tmp) / "m"), vocab_size=300,
            model_type="unigram", normalization_rule_name="nmt_nfkc", minloglevel=2,
        )
        proto = sentencepiece_model_pb2.ModelProto()
        proto.ParseFromString((Path(tmp) / "m.model").read_bytes())
    charsmap = proto.normalizer_spec.precompiled_charsmap
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.Precompiled(charsmap)
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Metaspace(prepend_scheme="always")]
    )
    trainer = trainers.UnigramTrainer(
        vocab_size=700, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>", max_piece_length=12,
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus, trainer=trainer)
    tokenizer.save(str(DATA / "unigram-precompiled-tokenizer.json"))


def regex_replace_file():
    """`unigram-sequence`'s model with the normalizer that `transformers`'
    SentencePiece converters now write (SPEC §2.2.1): `NFKC` (where those
    write `Precompiled`), `Strip` on the right, then `Replace` with the
    regex ` {2,}` by `▁`; `Metaspace` always."""
    from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers

    tokenizer = Tokenizer.from_file(str(DATA / "unigram-sequence-tokenizer.json"))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.NFKC(), normalizers.Strip(left=False, right=True), normalizers.Replace(Regex(" {2,}"), "\u2581")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="always")
    tokenizer.save(str(DATA / "unigram-regex-tokenizer.json"))


def bpe_component_files():
    """Small BPE files with the normalizers and pre-tokenizer that BPE files
    published beside Falcon, CLIP and older BPE conversions carry (SPEC
    §2.2.1), trained by the reference library on this repository's
    documents, and a Unigram file whose model has no `type`:

    - `bpe-punctuation`: Falcon's shape before its byte-level stage:
      `Punctuation` (`Contiguous`) then `ByteLevel`, byte-level BPE;
    - `bpe-lowercase`: CLIP's normalizer without its NFC: `Lowercase`
      alone, then `ByteLevel`, byte-level BPE;
    - `bpe-nfd`: BPE over characters with `byte_fallback` after `NFD`, and
      `Whitespace` then `Punctuation` (`Isolated`, its default);
    - `unigram-untyped`: `unigram-sequence` with the model's `type`
      removed, as older `tokenizers` wrote Unigram models (the reference
      infers the model from its fields).
    """
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    corpus = [text for _, text in texts.documents()]
    byte_tokens = [f"<0x{b:02X}>" for b in range(256)]

    def byte_level(normalizer, pre_tokenizer, name):
        tokenizer = Tokenizer(models.BPE())
        if normalizer is not None:
            tokenizer.normalizer = normalizer
        tokenizer.pre_tokenizer = pre_tokenizer
        tokenizer.train_from_iterator(
            corpus,
            trainer=trainers.BpeTrainer(
                vocab_size=600, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False
            ),
        )
        tokenizer.save(str(DATA / name))

    byte_level(
        None,
        pre_tokenizers.Sequence(
            [pre_tokenizers.Punctuation(behavior="contiguous"), pre_tokenizers.ByteLevel(add_prefix_space=False)]
        ),
        "bpe-punctuation-tokenizer.json",
    )
    byte_level(normalizers.Lowercase(), pre_tokenizers.ByteLevel(add_prefix_space=False), "bpe-lowercase-tokenizer.json")

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True))
    tokenizer.normalizer = normalizers.NFD()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation()])
    tokenizer.train_from_iterator(
        corpus,
        trainer=trainers.BpeTrainer(
            vocab_size=900, limit_alphabet=120, special_tokens=["<unk>"] + byte_tokens, show_progress=False
        ),
    )
    data = json.loads(tokenizer.to_str())
    data["added_tokens"] = [t for t in data["added_tokens"] if t["content"] not in byte_tokens]
    (DATA / "bpe-nfd-tokenizer.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")

    data = json.loads((DATA / "unigram-sequence-tokenizer.json").read_text(encoding="utf-8"))
    del data["model"]["type"]
    (DATA / "unigram-untyped-tokenizer.json").write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def train_missing(make, *names):
    """Runs `make` when one of the files it writes is not there yet (or
    with --retrain)."""
    if "--retrain" in sys.argv or not all((DATA / name).exists() for name in names):
        make()


def main():
    import importlib.metadata as md

    small_files()
    train_missing(added_tokens_file, "added-tokens-tokenizer.json", "added-tokens-across-tokenizer.json")
    train_missing(
        sentencepiece_files,
        "sp-legacy-tokenizer.json",
        "sp-gemma-tokenizer.json",
        "sp-metaspace-tokenizer.json",
        "sp-metaspace-split-tokenizer.json",
    )
    train_missing(wordpiece_files, "wordpiece-cased-tokenizer.json", "wordpiece-sequence-tokenizer.json")
    train_missing(
        unigram_files, "unigram-bytes-tokenizer.json", "unigram-nfkc-tokenizer.json", "unigram-sequence-tokenizer.json"
    )
    train_missing(nfkc_files, "bpe-nfkc-tokenizer.json", "wordpiece-nfkd-tokenizer.json")
    train_missing(wordlevel_files, "wordlevel-whitespace-tokenizer.json", "wordlevel-bytes-tokenizer.json")
    train_missing(precompiled_file, "unigram-precompiled-tokenizer.json")
    train_missing(regex_replace_file, "unigram-regex-tokenizer.json")
    train_missing(
        bpe_component_files,
        "bpe-punctuation-tokenizer.json",
        "bpe-lowercase-tokenizer.json",
        "bpe-nfd-tokenizer.json",
        "unigram-untyped-tokenizer.json",
    )

    files = {
        "qwen3": ("qwen3-tokenizer.json.gz", hf_counter, "tokenizers"),
        "tekken": ("tekken_240718.json.gz", tekken_counter, "mistral-common"),
        "added": ("added-tokens-tokenizer.json", hf_counter, "tokenizers"),
        "across": ("added-tokens-across-tokenizer.json", hf_counter, "tokenizers"),
        "sp-legacy": ("sp-legacy-tokenizer.json", hf_counter, "tokenizers"),
        "sp-gemma": ("sp-gemma-tokenizer.json", hf_counter, "tokenizers"),
        "sp-metaspace": ("sp-metaspace-tokenizer.json", hf_counter, "tokenizers"),
        "sp-metaspace-split": ("sp-metaspace-split-tokenizer.json", hf_counter, "tokenizers"),
        "minilm": ("all-MiniLM-L6-v2-tokenizer.json.gz", hf_counter, "tokenizers"),
        "wordpiece-cased": ("wordpiece-cased-tokenizer.json", hf_counter, "tokenizers"),
        "wordpiece-sequence": ("wordpiece-sequence-tokenizer.json", hf_counter, "tokenizers"),
        "wordpiece-whitespace": ("wordpiece-tokenizer.json", hf_counter, "tokenizers"),
        "claude": ("claude-tokenizer.json.gz", hf_counter, "tokenizers"),
        "unigram-small": ("unigram-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-bytes": ("unigram-bytes-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-nfkc": ("unigram-nfkc-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-sequence": ("unigram-sequence-tokenizer.json", hf_counter, "tokenizers"),
        "bpe-nfkc": ("bpe-nfkc-tokenizer.json", hf_counter, "tokenizers"),
        "wordpiece-nfkd": ("wordpiece-nfkd-tokenizer.json", hf_counter, "tokenizers"),
        "wordlevel-whitespace": ("wordlevel-whitespace-tokenizer.json", hf_counter, "tokenizers"),
        "wordlevel-bytes": ("wordlevel-bytes-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-precompiled": ("unigram-precompiled-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-regex": ("unigram-regex-tokenizer.json", hf_counter, "tokenizers"),
        "bpe-punctuation": ("bpe-punctuation-tokenizer.json", hf_counter, "tokenizers"),
        "bpe-lowercase": ("bpe-lowercase-tokenizer.json", hf_counter, "tokenizers"),
        "bpe-nfd": ("bpe-nfd-tokenizer.json", hf_counter, "tokenizers"),
        "unigram-untyped": ("unigram-untyped-tokenizer.json", hf_counter, "tokenizers"),
    }
    cases = texts.all_texts()
    out = {"files": {}, "texts": [], "envelopes": []}
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1 :]
        kept = json.loads(gzip.decompress((DATA / "vectors.json.gz").read_bytes()).decode("utf-8"))
        out["files"] = {key: file for key, file in kept["files"].items() if key not in only}
        out["texts"] = [case for case in kept["texts"] if case["tokenizer"] not in only]
        out["envelopes"] = [case for case in kept["envelopes"] if case["tokenizer"] not in only]
        files = {key: file for key, file in files.items() if key in only}
    for key, (name, make, package) in files.items():
        reference = f"{package} {md.version(package)}"
        count = make(DATA / name)
        out["files"][key] = {"file": name, "reference": reference}
        for case_name, text in cases:
            out["texts"].append({"tokenizer": key, "name": case_name, "text": text, "count": count(text)})
        # Whole payloads: every text as one document, and all adversarial texts together.
        for case_name, text in cases:
            text = non_blank(text)
            out["envelopes"].append({"tokenizer": key, "name": case_name, "documents": [text], "count": count(envelope([text]))})
        together = [non_blank(text) for _, text in texts.adversarial()]
        out["envelopes"].append({"tokenizer": key, "name": "all adversarial texts", "documents": together, "count": count(envelope(together))})
    text = json.dumps(out, ensure_ascii=False, indent=1) + "\n"
    (DATA / "vectors.json.gz").write_bytes(gzip.compress(text.encode("utf-8"), 9, mtime=0))
    print(f"wrote {len(out['texts'])} text counts and {len(out['envelopes'])} envelope counts")


if __name__ == "__main__":
    main()
