"""Chat templates rendered by `transformers` where Jinja2 and minijinja
differ unless packer renders as Jinja2 does (SPEC §2.4): numbers, Python's
`repr()` of strings in printed lists and dicts, the `string` filter, `None`
and undefined values iterated and tested, string-literal escapes, and
`transformers`' own `{% generation %}` tag.

Reference: `transformers.utils.chat_template_utils.render_jinja_template`
(what `apply_chat_template(..., tokenize=False)` calls), with
`bos_token="<s>"`, `eos_token="</s>"`, the request's `tools` (None when it
has none), `add_generation_prompt`, and the date frozen at 2026-12-03 noon
(as chat_requests.py freezes it). A rendering that raises is recorded as
raised: packer must then refuse the request, never render it.

Two uses (a venv with `transformers==5.25.0 jinja2==3.1.6`; no PyTorch):

    python scripts/hf-reference/make-template-vectors.py
        rewrites tests/data/templates/vectors.json: the small templates
        written below, each with every request below (tests/suite/
        templates.rs compares packer's rendering with them in CI);

    python scripts/hf-reference/make-template-vectors.py --published [OUT.json]
        the published templates vendored in the PyPI sdist of
        llama-cpp-python 0.3.36 (vendor/llama.cpp/models/templates/*.jinja,
        downloaded with pip into $SCRATCH/wheels), each with every request
        below, written to OUT (default $SCRATCH/published-templates.json,
        not committed), then compared with packer's rendering by the
        ignored test `templates::published_templates_render_as_transformers_does`.
"""

import importlib.metadata as md
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from chat_requests import PLACEHOLDER, ROOT, SCRATCH, freeze_date  # noqa: E402

OUT = ROOT / "tests" / "data" / "templates" / "vectors.json"
SDIST = "llama_cpp_python-0.3.36.tar.gz"
VENDORED = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/templates/"
PAYLOAD = "<doc>Text with zero\u200bwidth, soft\u00adhyphen, \ue000 and 1e16</doc>"
SPECIALS = {"bos_token": "<s>", "eos_token": "</s>"}

TOOL = (
    '{"type": "function", "function": {"name": "get_weather", '
    '"description": "Weather\\u200b now, soft\\u00adhyphen", '
    '"parameters": {"type": "object", "properties": {'
    '"n": {"type": "integer", "maximum": 18446744073709551616, "minimum": -0, '
    '"default": 1e16, "multipleOf": 0.5, "exclusiveMaximum": -12345678901234567890123}, '
    '"unit": {"type": "string", "enum": ["c", "f\\ue000", "\\udb40\\udc01tag", "a\\u0085b"]}}, '
    '"required": ["n"]}}}'
)

# Requests as the --request file's JSON text (numbers as written).
REQUESTS = {
    "user only": '{"messages": [{"role": "user", "content": "Question: ' + PLACEHOLDER + '"}]}',
    "system and user, no tools": (
        '{"messages": [{"role": "system", "content": "You are terse."}, '
        '{"role": "user", "content": "' + PLACEHOLDER + '"}]}'
    ),
    "system and user with a tool": (
        '{"messages": [{"role": "system", "content": "You are terse."}, '
        '{"role": "user", "content": "' + PLACEHOLDER + '"}], "tools": [' + TOOL + "]}"
    ),
    "a tool call and its result": (
        '{"messages": [{"role": "user", "content": "' + PLACEHOLDER + '"}, '
        '{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "id": "call_1", '
        '"function": {"name": "get_weather", "arguments": {"n": 3, "unit": "c"}}}]}, '
        '{"role": "tool", "tool_call_id": "call_1", "content": "{\\"t\\": 21.5}"}], '
        '"tools": [' + TOOL + '], "addGenerationPrompt": true}'
    ),
    "no generation prompt": (
        '{"messages": [{"role": "user", "content": "' + PLACEHOLDER + '"}, '
        '{"role": "assistant", "content": "Done\\u200b."}], "addGenerationPrompt": false}'
    ),
}

# Small templates, one behaviour each (written for these tests).
TEMPLATES = {
    "numbers": (
        "{{ 1e16 }} {{ 1.0 }} {{ -0.0 }} {{ 0.1 + 0.2 }} {{ 10 / 4 }} {{ 2 ** 70 }}\n"
        "{% for tool in tools or [] %}{{ tool.function.parameters.properties.n }}\n"
        "{{ tool.function.parameters.properties.n.maximum }} {{ tool.function.parameters.properties.n.minimum }}\n"
        "{{ tool|tojson }}\n{% endfor %}"
    ),
    "repr": "{{ messages }}\n{% if tools %}{{ tools[0].function }}{% endif %}",
    "string filter": (
        "{% for m in messages %}{{ m|string }}\n{% endfor %}"
        "{% if tools is not none %}{% for tool in tools %}{{ tool|string }}|{{ tool.function.name|string }}\n"
        "{% endfor %}{% endif %}{{ none|string }} {{ true|string }} {{ 1.5|string }} {{ missing|string }}."
    ),
    "tools iterated": "{% for tool in tools %}{{ tool.function.name }}\n{% endfor %}{{ messages[0].content }}",
    "tools tested": (
        "{% if tools is iterable and tools | length > 0 %}T{{ tools|length }}{% else %}N{% endif %}"
        "|{{ tools is none }}|{{ tools is defined }}|{{ missing is iterable }}|{{ missing|length }}"
        "|{% for x in missing %}{{ x }}{% endfor %}{{ messages|length }}"
    ),
    "escapes": (
        "{{ '\\U0001F600\\a\\v\\/\\x41\\101\\q' }}|{{ \"tab\\there\" }}|"
        "{{ messages[-1].content ~ '\\u00e9\\U000e0001' }}|{{ ['\\U000e0001'] }}"
    ),
    "generation blocks": (
        "{% for m in messages %}<|{{ m.role }}|>\n"
        "{% if m.role == 'assistant' %}{% generation %}\n  {{ m.content }}<|end|>\n{% endgeneration %}"
        "{%- else %}{{ m.content }}<|end|>\n{% endif %}\n"
        "  {%- generation -%}  [g]  {%+ endgeneration %}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    ),
}


def render(source, request_text):
    from transformers.utils.chat_template_utils import render_jinja_template

    request = json.loads(request_text)
    messages = request["messages"]
    for message in messages:
        if isinstance(message.get("content"), str):
            message["content"] = message["content"].replace(PLACEHOLDER, PAYLOAD)
    try:
        rendered, _ = render_jinja_template(
            conversations=[messages],
            tools=request.get("tools"),
            chat_template=source,
            add_generation_prompt=request.get("addGenerationPrompt", True),
            **SPECIALS,
        )
        return {"text": rendered[0]}
    except Exception as error:  # noqa: BLE001 - any failure is a refusal
        return {"raises": f"{type(error).__name__}: {str(error)[:200]}"}


def vectors(templates):
    freeze_date()
    cases = []
    for name, source in templates.items():
        for request_name, request_text in REQUESTS.items():
            case = {"template": name, "request name": request_name, "request": request_text}
            case.update(render(source, request_text))
            cases.append(case)
    return {
        "reference": f"transformers {md.version('transformers')}, jinja2 {md.version('jinja2')}",
        "today": "2026-12-03",
        "payload": PAYLOAD,
        "specials": SPECIALS,
        "templates": templates,
        "cases": cases,
    }


def published():
    sdist = SCRATCH / "wheels" / SDIST
    if not sdist.exists():
        sdist.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", "llama-cpp-python",
             "llama-cpp-python==0.3.36", "-d", str(sdist.parent)],
            check=True,
        )
    templates = {}
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if member.name.startswith(VENDORED) and member.name.endswith(".jinja"):
                templates[member.name[len(VENDORED):]] = tar.extractfile(member).read().decode("utf-8")
    return dict(sorted(templates.items()))


def main():
    if "--published" in sys.argv:
        rest = sys.argv[sys.argv.index("--published") + 1 :]
        out = Path(rest[0]) if rest else SCRATCH / "published-templates.json"
        data = vectors(published())
        out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        print(f"{len(data['templates'])} templates, {len(data['cases'])} renderings", flush=True)
        env = dict(os.environ, PACKER_TEMPLATES=str(out))
        command = [
            "cargo", "test", "--locked", "--test", "suite", "--", "--ignored", "--exact",
            "templates::published_templates_render_as_transformers_does", "--nocapture",
        ]
        sys.exit(subprocess.run(command, cwd=ROOT, env=env).returncode)
    data = vectors(TEMPLATES)
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(data['cases'])} renderings")


if __name__ == "__main__":
    main()
