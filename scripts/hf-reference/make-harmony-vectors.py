"""Regenerates tests/data/requests/harmony-vectors.json: gpt-oss requests
rendered as vLLM renders a chat completion for them with OpenAI's
`openai-harmony` library (packer's `--chat-format harmony`).

Reference: the request's messages and tools turned into harmony messages
the way vLLM's chat-completions path does (`vllm_messages` below: a system
message from `SystemContent.new()` with the reasoning effort and the date;
a first system/developer message as developer instructions; function tools
in the developer message; `reasoning` on the analysis channel, dropped
before the last final answer; tool calls to=functions.NAME, content type
json; tool results from functions.NAME to=assistant), then
`render_conversation_for_completion(conversation, Role.ASSISTANT)` (the
library's default config), text = `decode_utf8(tokens)`, tokens = their
number. Requests vLLM releases render differently, or that packer refuses
for another reason, are listed under `refused` (packer must refuse them).

The library needs o200k_base.tiktoken: it is copied from the tiktoken-rs
crate in ~/.cargo (or $O200K_BASE_FILE) and read through
TIKTOKEN_ENCODINGS_BASE; nothing is downloaded.

Usage (from the repository root; a venv with openai-harmony==0.0.8):
    python scripts/hf-reference/make-harmony-vectors.py
"""

import glob
import json
import os
import shutil
import tempfile
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "requests" / "harmony-vectors.json"
TODAY = "2026-12-03"
PLACEHOLDER = "{{packer:documents}}"


def vocabulary():
    local = os.environ.get("O200K_BASE_FILE")
    if not local:
        found = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken")))
        local = found[-1]
    folder = Path(tempfile.mkdtemp(prefix="harmony-vocab-"))
    shutil.copy(local, folder / "o200k_base.tiktoken")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(folder)


def text_of(content):
    """vLLM's flattening of a content: a string, or its text parts joined."""
    if content is None or isinstance(content, str):
        return content
    texts = [part["text"] for part in content if isinstance(part, dict) and part.get("text") is not None]
    return "".join(texts) if texts else None


def vllm_messages(request):
    from openai_harmony import (Author, DeveloperContent, Message, ReasoningEffort, Role, SystemContent,
                                TextContent, ToolDescription)

    messages = list(request["messages"])
    instructions = None
    if messages and messages[0].get("role") in ("system", "developer"):
        instructions = text_of(messages[0].get("content"))
        messages = messages[1:]
    effort = (request.get("templateArguments") or {}).get("reasoning_effort")
    system = SystemContent.new()
    if effort is not None:
        system = system.with_reasoning_effort({"low": ReasoningEffort.LOW, "medium": ReasoningEffort.MEDIUM,
                                               "high": ReasoningEffort.HIGH}[effort])
    system = system.with_conversation_start_date(TODAY)
    out = [Message.from_role_and_content(Role.SYSTEM, system)]
    tools = request.get("tools")
    if instructions or tools:
        developer = DeveloperContent.new()
        if instructions is not None:
            developer = developer.with_instructions(instructions)
        if tools:
            developer = developer.with_function_tools([
                ToolDescription.new(name=t["function"]["name"], description=t["function"].get("description") or "",
                                    parameters=t["function"].get("parameters"))
                for t in tools
            ])
        out.append(Message.from_role_and_content(Role.DEVELOPER, developer))
    names = {}
    for message in messages:
        for call in message.get("tool_calls", []):
            names[call.get("id")] = call.get("function", {}).get("name")
    msgs = []
    for message in messages:
        role = message.get("role")
        calls = message.get("tool_calls", [])
        if role == "assistant" and calls:
            content = text_of(message.get("content"))
            if content:
                msgs.append(Message.from_role_and_content(Role.ASSISTANT, content).with_channel("commentary"))
            if message.get("reasoning"):
                msgs.append(Message.from_role_and_content(Role.ASSISTANT, message["reasoning"]).with_channel("analysis"))
            for call in calls:
                function = call.get("function", {})
                msgs.append(Message.from_role_and_content(Role.ASSISTANT, function.get("arguments", "") or "")
                            .with_channel("commentary").with_recipient(f"functions.{function.get('name', '')}")
                            .with_content_type("json"))
            continue
        if role == "tool":
            name = names.get(message.get("tool_call_id", ""), "")
            content = text_of(message.get("content")) or ""
            msgs.append(Message.from_author_and_content(Author.new(Role.TOOL, f"functions.{name}"), content)
                        .with_channel("commentary").with_recipient("assistant"))
            continue
        if role == "assistant" and message.get("reasoning"):
            msgs.append(Message.from_role_and_content(Role.ASSISTANT, message["reasoning"]).with_channel("analysis"))
        content = message.get("content") or ""
        contents = [TextContent(text=content)] if isinstance(content, str) else [TextContent(text=c.get("text", "")) for c in content]
        if role == "assistant" and contents and contents[0].text:
            msgs.append(Message.from_role_and_contents(Role.ASSISTANT, contents).with_channel("final"))
        elif role != "assistant":
            msgs.append(Message.from_role_and_contents(Role(role), contents))
    last_final = max((i for i, m in enumerate(msgs) if m.author.role == Role.ASSISTANT and m.channel == "final"), default=-1)
    msgs = [m for i, m in enumerate(msgs) if not (i < last_final and m.channel == "analysis")]
    return out + msgs


def render(encoding, request, payload):
    from openai_harmony import Conversation, Role

    filled = json.loads(json.dumps(request).replace(json.dumps(PLACEHOLDER)[1:-1], json.dumps(payload)[1:-1]))
    tokens = encoding.render_conversation_for_completion(Conversation.from_messages(vllm_messages(filled)), Role.ASSISTANT)
    return encoding.decode_utf8(tokens), len(tokens)


def envelope(documents):
    """packer's default JSON envelope of whole text documents."""
    entries = [{"id": d["id"], "url": d["url"], "format": "text", "content": d["content"]} for d in documents]
    return json.dumps({"documents": entries}, ensure_ascii=False, separators=(",", ":"))


def user(text):
    return {"role": "user", "content": text}


WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Gets the weather.\nIn Celsius.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city"},
        "unit": {"type": "string", "enum": ["c", "f"], "default": "c"},
        "days": {"type": "integer", "default": 3}},
        "required": ["city"]}}}
SEARCH = {"type": "function", "function": {
    "name": "search_docs", "description": "Searches the documents.",
    "parameters": {"type": "object", "properties": {
        "query": {"type": "string", "title": "Query", "examples": ["parse", "render"]},
        "filters": {"type": "object", "description": "Filters", "properties": {
            "paths": {"type": "array", "items": {"type": "string"}},
            "since": {"type": ["string", "null"]},
            "kind": {"oneOf": [{"type": "string", "description": "a kind"}, {"type": "integer"}], "description": "The kind"}},
            "required": ["paths"]},
        "limit": {"type": "number", "nullable": True, "default": 10},
        "exact": {"type": "boolean", "default": False},
        "tags": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "any": {"type": "array"},
        "extra": {}}, "required": ["query"]}}}
NO_PARAMS = {"type": "function", "function": {"name": "now", "description": "The time."}}
EMPTY_DESCRIPTION = {"type": "function", "function": {"name": "ping", "parameters": {"type": "object", "properties": {}}}}
ONE_OF_TOP = {"type": "function", "function": {"name": "pick", "description": "Picks.", "parameters": {
    "type": "object", "properties": {"choice": {"oneOf": [{"type": "string", "default": "a", "description": "first"},
                                                          {"type": "object", "properties": {"x": {"type": "integer"}}, "nullable": True}],
                                                "default": {"x": [1, "é"]}}}}}}
DOCS = "Here are the documents:\n\n" + PLACEHOLDER + "\n\nWhat does main print?"


def conversations():
    """(name, request, held out)."""
    cases = [
        ("user-only", {"messages": [user(PLACEHOLDER)]}, False),
        ("system-user", {"messages": [{"role": "system", "content": "Answer from the documents."}, user(DOCS)]}, False),
        ("developer-user", {"messages": [{"role": "developer", "content": "Be brief."}, user(DOCS)]}, False),
        ("system-parts", {"messages": [{"role": "system", "content": [{"type": "text", "text": "Be "}, {"type": "text", "text": "brief."}]}, user(DOCS)]}, False),
        ("empty-system", {"messages": [{"role": "system", "content": ""}, user(DOCS)]}, False),
        ("empty-system-tools", {"messages": [{"role": "system", "content": ""}, user(DOCS)], "tools": [WEATHER]}, False),
        ("effort-high", {"messages": [user(DOCS)], "templateArguments": {"reasoning_effort": "high"}}, False),
        ("effort-low-system", {"messages": [{"role": "system", "content": "S"}, user(DOCS)], "templateArguments": {"reasoning_effort": "low"}}, False),
        ("tools", {"messages": [{"role": "system", "content": "Use tools."}, user(DOCS)], "tools": [WEATHER, SEARCH]}, False),
        ("tools-no-system", {"messages": [user(DOCS)], "tools": [WEATHER]}, False),
        ("tools-empty-list", {"messages": [user(DOCS)], "tools": []}, False),
        ("tool-call-and-result", {"messages": [
            user("Weather in Paris?"),
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": PLACEHOLDER}], "tools": [WEATHER]}, False),
        ("tool-call-reasoning-content", {"messages": [
            user(DOCS),
            {"role": "assistant", "content": "Let me check.", "reasoning": "Need weather.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "-3"}, {"type": "text", "text": " C"}]}], "tools": [WEATHER]}, False),
        ("final-with-reasoning-last", {"messages": [user(DOCS), {"role": "assistant", "content": "It prints hello.", "reasoning": "Read main."}]}, False),
        ("multi-turn-reasoning-dropped", {"messages": [
            user("First?"), {"role": "assistant", "content": "One."},
            user(DOCS), {"role": "assistant", "reasoning": "Think.", "content": None, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "now", "arguments": ""}}]},
            {"role": "tool", "tool_call_id": "x", "content": "12:00"}, {"role": "assistant", "content": "Noon."}], "tools": [NO_PARAMS]}, False),
        ("empty-assistant-skipped", {"messages": [user("a"), {"role": "assistant", "content": ""}, user(DOCS)]}, False),
        ("unicode", {"messages": [{"role": "system", "content": "Réponds en français 🇫🇷."}, user("文書:\n" + PLACEHOLDER + "\n\u200bzero width")]}, False),
        ("special-text-in-content", {"messages": [user("<|end|> " + PLACEHOLDER + " <|start|>assistant")]}, False),
        # Held out: not looked at while packer's renderer was written.
        ("held-out-nested-tools", {"messages": [{"role": "developer", "content": "Tools first."}, user(DOCS)], "tools": [SEARCH, ONE_OF_TOP, NO_PARAMS, EMPTY_DESCRIPTION]}, True),
        ("held-out-parallel-calls", {"messages": [
            {"role": "system", "content": "x"}, user(DOCS),
            {"role": "assistant", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}},
                {"id": "b", "type": "function", "function": {"name": "search_docs", "arguments": "{\"query\":\"main\"}"}}]},
            {"role": "tool", "tool_call_id": "b", "content": "found"},
            {"role": "tool", "tool_call_id": "a", "content": "sunny"},
            {"role": "tool", "tool_call_id": "zz", "content": "orphan"}], "tools": [WEATHER, SEARCH]}, True),
        ("held-out-reasoning-current-turn", {"messages": [
            user("q1"), {"role": "assistant", "content": "a1"}, user(DOCS),
            {"role": "assistant", "reasoning": "r2", "content": "partial"},
            {"role": "assistant", "reasoning": "r3", "tool_calls": [{"id": "t", "type": "function", "function": {"name": "now", "arguments": None}}]}], "tools": [NO_PARAMS]}, True),
        ("held-out-user-part", {"messages": [{"role": "user", "content": [{"type": "text", "text": DOCS}]}]}, True),
        ("held-out-empty-user", {"messages": [user(""), user(PLACEHOLDER)]}, True),
        ("held-out-crlf-tabs", {"messages": [{"role": "system", "content": "line1\r\nline2\t"}, user("\n\n" + PLACEHOLDER + "  \n")], "templateArguments": {"reasoning_effort": "medium"}}, True),
    ]
    refused = [
        ("no-generation-prompt", {"messages": [user(DOCS)], "addGenerationPrompt": False}),
        ("reasoning-content-key", {"messages": [user(DOCS), {"role": "assistant", "content": "x", "reasoning_content": "r"}]}),
        ("thinking-key", {"messages": [user(DOCS), {"role": "assistant", "content": "x", "thinking": "r"}]}),
        ("earlier-turn-reasoning", {"messages": [user("a"), {"role": "assistant", "reasoning": "r", "content": "b"}, user(DOCS), {"role": "assistant", "content": "c"}]}),
        ("later-system", {"messages": [user(DOCS), {"role": "system", "content": "late"}]}),
        ("two-user-parts", {"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": PLACEHOLDER}]}]}),
        ("image-part", {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}, {"type": "text", "text": PLACEHOLDER}]}]}),
        ("unknown-argument", {"messages": [user(DOCS)], "templateArguments": {"model_identity": "x"}}),
        ("effort-none", {"messages": [user(DOCS)], "templateArguments": {"reasoning_effort": "none"}}),
        ("float-default", {"messages": [user(DOCS)], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"t": {"type": "number", "default": 0.5}}}}}]}),
        ("big-integer-default", {"messages": [user(DOCS)], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"t": {"type": "integer", "default": 18446744073709551616}}}}}]}),
        ("object-arguments", {"messages": [user(DOCS), {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}]}),
        ("name-with-space", {"messages": [user(DOCS)], "tools": [{"type": "function", "function": {"name": "get weather"}}]}),
        ("unknown-role", {"messages": [user(DOCS), {"role": "function", "content": "x"}]}),
        ("non-function-tool", {"messages": [user(DOCS)], "tools": [{"type": "code_interpreter"}]}),
    ]
    return cases, refused


PAYLOADS = [
    "",
    envelope([{"id": "a.rs", "url": "https://example.com/src/a.rs", "content": "fn main() {\n    println!(\"héllo, 世界\");\n}\n"}]),
    "plain text with <|call|> and <|constrain|>json inside",
]

PACK_DOCUMENTS = [
    {"id": "src/main.rs", "url": "https://example.com/src/main.rs", "content": "fn main() {\n    println!(\"hello\");\n}\n"},
    {"id": "README.md", "url": "https://example.com/README.md", "content": "# Demo\n\nPrints hello. Ünïcödé ✓\n"},
]


def main():
    vocabulary()
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    encoding = load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)
    cases, refused = conversations()
    out_cases = []
    for name, request, held_out in cases:
        for index, payload in enumerate(PAYLOADS):
            text, tokens = render(encoding, request, payload)
            out_cases.append({"name": f"{name}/{index}", "heldOut": held_out, "request": request,
                              "payload": payload, "text": text, "tokens": tokens})
    pack_payload = envelope(PACK_DOCUMENTS)
    packs = []
    for name, request, held_out in cases:
        text, tokens = render(encoding, request, pack_payload)
        packs.append({"name": name, "request": request, "payload": pack_payload, "tokens": tokens})
    vectors = {
        "reference": {"openai-harmony": version("openai-harmony")},
        "today": TODAY,
        "how": __doc__.split("\n\nUsage")[0],
        "conversations": len(cases),
        "cases": out_cases,
        "packDocuments": PACK_DOCUMENTS,
        "packs": packs,
        "refused": [{"name": name, "request": request} for name, request in refused],
    }
    OUT.write_text(json.dumps(vectors, ensure_ascii=False, indent=1) + "\n", "utf-8")
    print(f"{len(cases)} conversations, {len(out_cases)} cases, {len(refused)} refused -> {OUT}")


if __name__ == "__main__":
    main()
