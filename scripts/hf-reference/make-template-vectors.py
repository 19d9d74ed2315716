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
        ignored test `templates::published_templates_render_as_transformers_does`;

    python scripts/hf-reference/make-template-vectors.py --held-out [OUT.json]
        the same with the 59 templates in vLLM 0.34.0's sdist (downloaded
        from PyPI by its address, checked by its sha256), which packer's
        renderer was not written against.
"""

import hashlib
import importlib.metadata as md
import json
import os
import subprocess
import sys
import tarfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from chat_requests import PLACEHOLDER, ROOT, SCRATCH, freeze_date  # noqa: E402

OUT = ROOT / "tests" / "data" / "templates" / "vectors.json"
SDIST = "llama_cpp_python-0.3.36.tar.gz"
HELD_OUT_SDIST = "vllm-0.34.0.tar.gz"
HELD_OUT_URL = (
    "https://files.pythonhosted.org/packages/92/21/"
    "6e0b077dc4a0b28f5a8ce8bb352a38d7196650d681fd4faa87f8dc622eff/vllm-0.34.0.tar.gz"
)
HELD_OUT_SHA256 = "fcad848b246a9d8652b47e6425af92334dc02492f9802720f54e27b823cf0113"
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
    "joined with tilde": (
        "{{ 'f' ~ 1e16 ~ '|' ~ 0.5 ~ '|' ~ -0.0 ~ '|' ~ true ~ '|' ~ none ~ '|' ~ [1, 'a', none] ~ '|' "
        "~ {'k': false} ~ '|' ~ missing ~ '|' ~ 7 ~ '|' ~ 2 ** 70 }}\n"
        "{% for tool in tools or [] %}{% set n = tool.function.parameters.properties.n %}"
        "{{ 'n: ' ~ n.default ~ ', ' ~ n.multipleOf ~ ', ' ~ n.maximum ~ ', ' ~ n.minimum ~ ', ' ~ n }}\n"
        "{% endfor %}{% set x = messages|length ~ (1 + 2) ~ ('a' ~ 2.5)|upper %}{{ x }}|"
        "{{ (messages[0].content ~ '')|length > 0 }}|{{ messages[0] ~ '' }}"
    ),
    "joined with join": (
        "{{ [1, 2.5, none, true, 'a', [1, 'b'], 1e16]|join(', ') }}|{{ 'abc'|join('-') }}|{{ missing|join(',') }}|"
        "{{ messages|map(attribute='role')|join(' ') }}|{{ [1, 2]|join }}|{{ ['x', 'y']|join(1) }}|"
        "{% for tool in tools or [] %}{{ tool.function.parameters.properties.n.values()|join(';') }}{% endfor %}"
    ),
    "markup added": (
        "{{ '<b>'|safe + '<i> & \"q\" \\'s\\'' }}|{{ 'x<' + '<y>'|safe }}|{{ ('<a>'|safe + '<') + '>' }}|"
        "{{ '<p>'|escape + '<' }}|{{ ('<a>'|safe ~ '<') + '>' }}|{{ 1 + 2 }}|{{ [1] + [2] }}\n"
        "{% for tool in tools or [] %}{{ 'Use '|safe + tool.function.name + ': '|safe + tool|tojson }}\n{% endfor %}"
        "{% for m in messages %}{% set c = m.content|tojson|safe %}{{ m.role + '[' + c }}\n{% endfor %}"
        "{{ '\"q\" \\'s\\' a/b <>&'|e }}|{{ 5|escape }}|{{ none|e }}|{{ missing|e }}|{{ 'x&'|safe|e }}|"
        "{{ messages[0].content|e + '&' }}"
    ),
    "markup plus number": "{{ 'a'|safe + 1 }}",
    "debug": "{{ messages[0].role }}{{ debug() }}",
    "raw blocks": (
        "{% for m in messages %}<|{{ m.role }}|>{% raw %}\n{% endraw %}{{ m.content }}"
        "{% raw -%}\n  [x]\n{% endraw %}\n  {% raw %}\n\n{{ y }}{% endraw %}{% endfor %}"
    ),
    "line breaks": "{% for m in messages %}{{ m.role }}\r\n{% endfor %}a\rb\r\n{% if true %}\r\nc{% endif %}\r\n",
    "lists added": (
        "{% set ns = namespace(xs=[]) %}{% for m in messages %}{% set ns.xs = ns.xs + [m.role] %}{% endfor %}"
        "{{ ns.xs }}|{{ ns.xs|tojson }}|{{ ns.xs|length }}|{{ ns.xs|string }}|{{ ns.xs ~ '' }}|{{ ns.xs|join(',') }}"
        "|{{ ns.xs[0] }}|{{ ([1] + [2.5]) }}|{{ (messages|map(attribute='role')|list) + ['x'] }}"
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


def held_out():
    """The chat templates in vLLM 0.34.0's sdist (its examples, its own
    fallback templates, its Rust renderer's fixtures): templates packer's
    renderer was not written against."""
    sdist = SCRATCH / "wheels" / HELD_OUT_SDIST
    if not sdist.exists():
        sdist.parent.mkdir(parents=True, exist_ok=True)
        urllib.request.urlretrieve(HELD_OUT_URL, sdist)
    if hashlib.sha256(sdist.read_bytes()).hexdigest() != HELD_OUT_SHA256:
        sys.exit(f"{sdist}: not the file this script names (sha256 differs)")
    templates = {}
    with tarfile.open(sdist) as tar:
        for member in tar.getmembers():
            if member.name.endswith(".jinja"):
                name = member.name.split("/", 1)[1]
                templates[name] = tar.extractfile(member).read().decode("utf-8")
    return dict(sorted(templates.items()))


def main():
    if "--published" in sys.argv or "--held-out" in sys.argv:
        flag = "--published" if "--published" in sys.argv else "--held-out"
        rest = sys.argv[sys.argv.index(flag) + 1 :]
        out = Path(rest[0]) if rest else SCRATCH / f"{flag[2:]}-templates.json"
        data = vectors(published() if flag == "--published" else held_out())
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
