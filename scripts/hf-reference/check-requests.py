"""Checks `packer pack --request` (SPEC §2.4) against transformers on every
family fetched by fetch-templates.sh (Qwen3, DeepSeek V3, gpt-oss, and the
held-out Llama 3.1, Llama 3 and Gemma 3).

For each family and each conversation of chat_requests.cases(), packer packs
a fixture of a few documents into the request:

    packer pack FIXTURE --tokenizer T --chat-template TEMPLATE --request REQUEST
                --budget N --format json [--envelope E]

(gpt-oss: `--encoding o200k_harmony` instead of --tokenizer/--chat-template;
one run per family leaves --chat-template out so that the
tokenizer_config.json beside tokenizer.json is used). The output's
`requestText` must equal transformers' rendering of the request with the
output's `payloadText` in the placeholder, `requestTokens` must equal
transformers' count of it, `otherInputTokens` its count with the empty
envelope, and `requestTokens <= availableTokens`. Runs with a budget too
small for every document check the last two under selection. The fixture
documents hold no special-token text, so transformers' count is SPEC §2.4's.
For gpt-oss a difference also says whether packer's output equals
openai-harmony's rendering instead (chat_requests.harmony_render).

Prints one line per run and a final `N/M equal`; exits 1 unless all agree.

Usage (from the repository root, with the venv of make-request-vectors.py):
    scripts/hf-reference/fetch-templates.sh
    PACKER=target/release/packer python scripts/hf-reference/check-requests.py [FAMILY...]
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import chat_requests as cr  # noqa: E402

PACKER = os.environ.get("PACKER", str(cr.ROOT / "target" / "release" / "packer"))
FIXTURE_DOCS = ["code", "crlf", "padded", "digits", "unicode", "prose"]
EMPTY = {"json": cr.EMPTY_JSON, "xml": cr.EMPTY_XML}


def fixture():
    docs = [
        {"id": i, "url": u, "format": f, "content": c, "truncated": False}
        for i, u, f, c in (cr.DOCS[k] for k in FIXTURE_DOCS)
    ]
    return {"documents": docs}


def run_packer(family, fixture_path, request_path, budget, envelope, use_config):
    args = [PACKER, "pack", str(fixture_path)]
    if family == "gpt-oss":
        args += ["--encoding", "o200k_harmony"]
    else:
        args += ["--tokenizer", str(cr.scratch_dir(family) / "tokenizer.json")]
        if not use_config:
            args += ["--chat-template", str(cr.template_path(family))]
    args += ["--request", str(request_path), "--budget", str(budget), "--format", "json"]
    if envelope:
        args += ["--envelope", envelope]
    proc = subprocess.run(args, capture_output=True)
    if proc.returncode != 0:
        message = " | ".join(line for line in proc.stderr.decode("utf-8", "replace").splitlines() if line.strip())
        return None, f"exit {proc.returncode}: {message[:300]}"
    return json.loads(proc.stdout), None


def check_family(family, tmp):
    tokenizer = cr.load_tokenizer(family)
    template = cr.template_path(family).read_text("utf-8")
    fixture_path = tmp / "fixture.json"
    fixture_path.write_text(json.dumps(fixture(), ensure_ascii=False), "utf-8")
    whole = cr.json_envelope(FIXTURE_DOCS)
    results = []
    for n, (name, request, _payload) in enumerate(cr.cases(family)):
        request_path = tmp / f"{family}-{name}.json"
        request_path.write_text(json.dumps(request, ensure_ascii=False), "utf-8")
        full_tokens = cr.render(tokenizer, template, request, whole)[1]
        empty_tokens = cr.render(tokenizer, template, request, cr.EMPTY_JSON)[1]
        runs = [
            ("json", None, 10 * full_tokens + 1000, n == 0 and family != "gpt-oss"),
            ("xml", "xml", 10 * full_tokens + 1000, False),
            ("markdown", "markdown", 10 * full_tokens + 1000, False),
            ("json-tight", None, (full_tokens + empty_tokens) // 2, False),
        ]
        for label, envelope, budget, use_config in runs:
            out, error = run_packer(family, fixture_path, request_path, budget, envelope, use_config)
            tag = f"{family} {name} [{label}{' config' if use_config else ''}, budget {budget}]"
            if error:
                results.append(False)
                print(f"DIFF  {tag}: packer failed: {error}")
                continue
            problems = []
            text, tokens = cr.render(tokenizer, template, request, out.get("payloadText", ""))
            if out.get("requestText") != text:
                got = out.get("requestText") or ""
                at = next((i for i, (a, b) in enumerate(zip(got, text)) if a != b), min(len(got), len(text)))
                problems.append(f"requestText differs at char {at}: packer {got[at:at + 40]!r} vs transformers {text[at:at + 40]!r}")
            if out.get("requestTokens") != tokens:
                problems.append(f"requestTokens {out.get('requestTokens')} vs transformers {tokens}")
            if not isinstance(out.get("requestTokens"), int) or out["requestTokens"] > out.get("availableTokens", -1):
                problems.append(f"requestTokens {out.get('requestTokens')} > availableTokens {out.get('availableTokens')}")
            empty = EMPTY.get(envelope or "json")
            if empty is not None:
                other = cr.render(tokenizer, template, request, empty)[1]
                if out.get("otherInputTokens") != other:
                    problems.append(f"otherInputTokens {out.get('otherInputTokens')} vs transformers {other}")
            results.append(not problems)
            selected = len(out.get("selectedIds", []))
            if problems and family == "gpt-oss":
                h_text, h_tokens = cr.harmony_render(request, out.get("payloadText", ""))
                if out.get("requestText") == h_text and out.get("requestTokens") == h_tokens:
                    problems.append("requestText and requestTokens equal openai-harmony's rendering")
            if problems:
                print(f"DIFF  {tag}: " + "; ".join(problems))
            else:
                print(f"equal {tag}: {tokens} tokens, {selected}/{len(FIXTURE_DOCS)} documents")
    return results


def main():
    families = sys.argv[1:] or list(cr.FAMILIES)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in families:
            if not (cr.scratch_dir(family) / "tokenizer.json").exists():
                print(f"skip  {family}: not fetched (scripts/hf-reference/fetch-templates.sh)")
                continue
            results += check_family(family, Path(tmp))
    print(f"{sum(results)}/{len(results)} equal")
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
