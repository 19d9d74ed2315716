"""Regenerates tests/data/requests/: the chat templates that may be committed
(Qwen3, DeepSeek V3, gpt-oss) with their special-token fields, and the
reference renderings and counts of SPEC §2.4's `--request` for each family
(`<family>-vectors.json`). With --held-out, also writes the vectors of the
held-out families (Llama 3.1, Llama 3, Gemma 3) into $SCRATCH/requests/.

Reference (chat_requests.py): transformers' `apply_chat_template` with the
family's tokenizer.json and tokenizer_config.json, the date frozen at TODAY.
Each case's `text` is `apply_chat_template(..., tokenize=False)` of the
request's messages with the placeholder replaced by `payload`; `tokens` is
the length of `apply_chat_template(..., tokenize=True, return_dict=False)`.
The equality cases hold no special-token text in any message, so
transformers' count is SPEC §2.4's count; it is checked against Hugging Face
`tokenizers` (`encode(text, add_special_tokens=False)`) and, for gpt-oss,
against tiktoken's o200k_harmony (`encode(text, allowed_special="all")`).
`specialInContent` cases hold special-token text in messages; their `tokens`
is SPEC §2.4's rule computed by `chat_requests.spec_count` (how is written
in the file), and `transformersTokens` is what plain transformers counts.

Usage (from the repository root):
    scripts/hf-reference/fetch-templates.sh
    /path/to/venv/bin/python scripts/hf-reference/make-request-vectors.py [--held-out]
(the venv: transformers==5.24.0 jinja2==3.1.6 tokenizers==0.23.3 tiktoken==0.14.0
openai-harmony==0.0.8)
"""

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import chat_requests as cr  # noqa: E402

CONFIG_FIELDS = (
    "add_bos_token", "add_eos_token", "bos_token", "eos_token", "pad_token", "unk_token",
    "additional_special_tokens", "extra_special_tokens", "chat_template",
)

SPEC_RULE = (
    "SPEC §2.4: special tokens written by the template count as one token each; special-token text "
    "inside messages (payload included) is ordinary text. Computed independently of transformers: "
    "each special-token occurrence in message strings is replaced by a private-use sentinel before "
    "rendering with transformers (tokenize=False); the rendered text is cut at the special tokens "
    "left (those the template wrote), the sentinels are put back as their text, and each stretch "
    "between template special tokens is encoded as ordinary text (tokenizers: encode(stretch, "
    "add_special_tokens=False) with encode_special_tokens=True, so non-special added tokens still "
    "match; tiktoken: encode_ordinary); tokens = sum of the stretches + the template's special tokens. "
    "transformersTokens is plain transformers' count (special-token text matched as tokens); "
    "transformersSanitizedTokens is transformers' sanitize_control_tokens=True count, which also "
    "treats non-special added tokens that appear in the template's literals (Qwen3's <think>) as text."
)


def versions(family):
    import jinja2
    import tokenizers
    import transformers

    out = {"transformers": transformers.__version__, "jinja2": jinja2.__version__, "tokenizers": tokenizers.__version__}
    if family == "gpt-oss":
        from importlib.metadata import version

        out["tiktoken"] = version("tiktoken")
        out["openai-harmony"] = version("openai-harmony")
    return out


def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def write_templates(family):
    """Copies the template (byte for byte) and a trimmed tokenizer_config.json
    (the special-token fields and chat_template, values verbatim)."""
    src = cr.scratch_dir(family)
    template = (src / "chat-template.jinja").read_bytes()
    (cr.DATA / f"{family}-chat-template.jinja").write_bytes(template)
    config = json.loads((src / "tokenizer_config.json").read_text("utf-8"))
    trimmed = {k: config[k] for k in CONFIG_FIELDS if k in config}
    assert trimmed["chat_template"].encode("utf-8") == template
    with open(cr.DATA / f"{family}-tokenizer_config.json", "w", encoding="utf-8") as f:
        json.dump(trimmed, f, ensure_ascii=False, indent=2)
        f.write("\n")


def special_tokens_of(family, tokenizer_json):
    if family == "gpt-oss":
        return sorted(cr.harmony_encoding().special_tokens_set)
    data = json.loads(Path(tokenizer_json).read_text("utf-8"))
    return sorted(t["content"] for t in data["added_tokens"] if t["special"])


def build(family, out_dir):
    from tokenizers import Tokenizer

    tokenizer = cr.load_tokenizer(family)
    template_file = cr.template_path(family)
    template = template_file.read_text("utf-8")
    tokenizer_json = cr.scratch_dir(family) / "tokenizer.json"
    hf = Tokenizer.from_file(str(tokenizer_json))
    hf_ordinary = Tokenizer.from_file(str(tokenizer_json))
    hf_ordinary.encode_special_tokens = True
    harmony = cr.harmony_encoding() if family == "gpt-oss" else None

    special = {k: v for k, v in tokenizer.special_tokens_map.items() if isinstance(v, str)}
    rel_template = template_file.relative_to(cr.ROOT) if template_file.is_relative_to(cr.ROOT) else template_file
    doc = {
        "family": family,
        "tokenizer": cr.FAMILIES[family]["tokenizer"],
        "tokenizerJsonSha256": sha256(tokenizer_json),
        "template": str(rel_template),
        "templateSha256": sha256(template_file),
        "specialTokens": special,
        "today": cr.TODAY,
        "reference": versions(family),
        "how": (
            "text = transformers apply_chat_template(messages, tools=request.tools, "
            "add_generation_prompt=request.addGenerationPrompt (default true), chat_template=<template>, "
            "tokenize=False), messages = request.messages with {{packer:documents}} replaced by payload; "
            "tokens = len(apply_chat_template(..., tokenize=True, return_dict=False)); strftime_now frozen at today"
        ),
        "cases": [],
        "specialInContentRule": SPEC_RULE,
        "specialInContent": [],
    }
    if family == "gpt-oss":
        doc["how"] += "; tokens also equal tiktoken o200k_harmony encode(text, allowed_special='all') on every case"
        doc["harmonyHow"] = (
            "Each case's `harmony` is the same conversation in OpenAI's harmony format as the openai-harmony "
            "library renders it (it differs from the Hugging Face template: see the README). " + cr.HARMONY_HOW
        )
    if family == "qwen3":
        assert sha256(tokenizer_json) == __import__("hashlib").sha256(
            __import__("gzip").decompress((cr.ROOT / doc["tokenizer"]).read_bytes())
        ).hexdigest(), "committed Qwen3 tokenizer differs from the fetched one"

    for name, request, payload in cr.cases(family):
        text, tokens = cr.render(tokenizer, template, request, payload)
        check = len(hf.encode(text, add_special_tokens=False).ids)
        assert check == tokens, (family, name, check, tokens)
        if harmony is not None:
            tk = len(harmony.encode(text, allowed_special="all"))
            assert tk == tokens, (family, name, tk, tokens)
        empty_text, empty_tokens = cr.render(tokenizer, template, request, cr.EMPTY_JSON)
        entry = {
            "name": name,
            "request": request,
            "payload": payload,
            "text": text,
            "tokens": tokens,
            "emptyJsonEnvelopeTokens": empty_tokens,
        }
        if harmony is not None:
            h_text, h_tokens = cr.harmony_render(request, payload)
            assert len(harmony.encode(h_text, allowed_special="all")) == h_tokens, (family, name)
            entry["harmony"] = {"text": h_text, "tokens": h_tokens, "emptyJsonEnvelopeTokens": cr.harmony_render(request, cr.EMPTY_JSON)[1]}
        doc["cases"].append(entry)

    specials = special_tokens_of(family, tokenizer_json)
    if harmony is not None:
        encode_ordinary = lambda s: len(harmony.encode_ordinary(s))  # noqa: E731
    else:
        encode_ordinary = lambda s: len(hf_ordinary.encode(s, add_special_tokens=False).ids)  # noqa: E731

    def render_text(request, payload):
        return cr.render(tokenizer, template, request, payload)[0]

    for name, request, payload in cr.special_cases(family):
        text, plain_tokens = cr.render(tokenizer, template, request, payload)
        restored, tokens, template_specials = cr.spec_count(render_text, specials, encode_ordinary, request, payload)
        assert restored == text, (family, name)
        entry = {
            "name": name,
            "request": request,
            "payload": payload,
            "text": text,
            "tokens": tokens,
            "templateSpecialTokens": template_specials,
            "transformersTokens": plain_tokens,
            "transformersSanitizedTokens": cr.sanitized_count(tokenizer, template, request, payload),
        }
        doc["specialInContent"].append(entry)

    path = out_dir / f"{family}-vectors.json"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"{path}: {len(doc['cases'])} cases, {len(doc['specialInContent'])} specialInContent")


def main():
    held_out = "--held-out" in sys.argv[1:]
    cr.DATA.mkdir(parents=True, exist_ok=True)
    for family, info in cr.FAMILIES.items():
        if info["committed"]:
            write_templates(family)
            build(family, cr.DATA)
        elif held_out:
            build(family, cr.scratch_dir(family))


if __name__ == "__main__":
    main()
