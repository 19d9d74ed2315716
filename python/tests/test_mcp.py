"""`packer mcp` through the official Python MCP SDK, an independent client.

The server is started as a child process over stdio, exactly as an agent
launcher starts it. Every payload is counted again by independent
tokenizers: OpenAI's `tiktoken` (fed the vocabulary files that ship inside
the tiktoken-rs crate, so nothing is downloaded) and Hugging Face
`tokenizers` for a tokenizer file.
"""

import gzip
import json
import os
import pathlib
import subprocess

import anyio
import jsonschema
import pytest
from packer_bin import packer_bin
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKER = packer_bin()
QWEN3 = ROOT / "tests" / "data" / "tokenizers" / "qwen3-tokenizer.json.gz"
SECRET = "AKIA" + "QYLPMN5HFIQR7XYZ"  # a synthetic AWS access key id


def tiktoken_count(get_encoding, name, text):
    return len(get_encoding(name).encode_ordinary(text))


@pytest.fixture()
def tree(tmp_path):
    """A small project: code, prose, a hidden .env, an ignored build output,
    a file carrying a key, and a symbolic link leading out of the root."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.rs").write_text('fn main() {\n    println!("{}", 1 + 2);\n}\n')
    (tmp_path / "src" / "lib.rs").write_text("//! Library.\n\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n")
    (tmp_path / "README.md").write_text("# Demo\n\nA demo project with <xml> & \"quotes\".\n" * 40)
    (tmp_path / ".env").write_text(f"AWS_ACCESS_KEY_ID={SECRET}\n")
    (tmp_path / ".gitignore").write_text("target/\n")
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "out.txt").write_text("build output\n")
    (tmp_path / "config.py").write_text(f'KEY = "{SECRET}"\n')
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (outside / "secret.txt").write_text("outside the root\n")
    (tmp_path / "escape").symlink_to(outside)
    return tmp_path


class Checked:
    """A client session whose every tool result is checked as the strictest
    clients check it (the MCP TypeScript SDK's): structured content, when
    there is any, must follow the tool's declared output schema, errors
    included."""

    def __init__(self, client, schemas):
        self.client = client
        self.schemas = schemas

    async def list_tools(self):
        return await self.client.list_tools()

    async def call_tool(self, name, arguments):
        result = await self.client.call_tool(name, arguments)
        schema = self.schemas.get(name)
        if result.structured_content is not None:
            assert schema is not None, f"{name} returned structured content without a schema"
            jsonschema.validate(result.structured_content, schema)
        elif schema is not None:
            assert result.is_error, f"{name} declares an output schema but returned none"
        return result


def session(roots, body, options=()):
    """Starts `packer mcp --root ... OPTIONS`, initializes a session and runs `body`."""
    args = ["mcp", *options]
    for root in roots:
        args += ["--root", str(root)]

    async def main():
        params = StdioServerParameters(command=PACKER, args=args)
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as client:
                    await client.initialize()
                    tools = (await client.list_tools()).tools
                    schemas = {tool.name: tool.output_schema for tool in tools if tool.output_schema}
                    return await body(Checked(client, schemas))

    return anyio.run(main)


def text_of(result):
    assert len(result.content) >= 1
    assert result.content[0].type == "text"
    return result.content[0].text


def test_lists_three_tools_with_schemas(tree):
    async def body(client):
        return await client.list_tools()

    tools = {tool.name: tool for tool in session([tree], body).tools}
    assert sorted(tools) == ["count_tokens", "pack_directory", "pack_documents"]
    for tool in tools.values():
        assert len(tool.description) > 40
        assert tool.input_schema["type"] == "object"
        assert tool.annotations.read_only_hint is True
    assert set(tools["pack_directory"].input_schema["required"]) == {"path", "budget"}
    assert set(tools["pack_documents"].input_schema["required"]) == {"documents", "budget"}
    assert set(tools["count_tokens"].input_schema["required"]) == {"text"}


@pytest.mark.parametrize("envelope", ["json", "xml", "markdown"])
def test_packs_a_directory_within_the_budget_counted_exactly(tree, tiktoken_encoding, envelope):
    async def body(client):
        return await client.call_tool("pack_directory", {"path": str(tree), "budget": 300, "envelope": envelope})

    result = session([tree], body)
    assert not result.is_error, text_of(result)
    payload = text_of(result)
    summary = result.structured_content
    assert summary["envelope"] == envelope
    assert summary["usedTokens"] == tiktoken_count(tiktoken_encoding, "cl100k_base", payload)
    assert summary["usedTokens"] <= summary["availableTokens"] == 300
    # README.md (40 repeated paragraphs) does not fit; both sources do.
    assert summary["selectedIds"] == ["src/lib.rs", "src/main.rs"]
    assert [(s["id"], s["reason"]) for s in summary["skipped"]] == [("README.md", "whole-document-does-not-fit")]
    assert all(s["neededTokens"] > s["freeTokens"] for s in summary["skipped"])
    # Hidden, ignored and secret-bearing files never reach the payload.
    assert SECRET not in payload and "build output" not in payload and "outside the root" not in payload
    reasons = {f["path"]: f["reason"] for f in summary["files"]["notDocuments"]}
    assert reasons == {"config.py": "contains-secret", "escape": "not-a-file"}


def test_packs_a_directory_into_windows_one_window_per_call(tree, tiktoken_encoding):
    arguments = {"path": str(tree / "src"), "budget": 45, "windows": True}

    async def body(client):
        first = await client.call_tool("pack_directory", arguments)
        results = [first]
        for window in range(2, first.structured_content["windowCount"] + 1):
            results.append(await client.call_tool("pack_directory", {**arguments, "window": window}))
        return results

    results = session([tree], body)
    assert len(results) == 2
    ids = []
    for window, result in enumerate(results, 1):
        assert not result.is_error, text_of(result)
        summary = result.structured_content
        assert (summary["window"], summary["windowCount"], summary["optimal"]) == (window, 2, True)
        payload = text_of(result)
        assert payload.startswith(f"# Documents (window {window} of 2)\n")
        assert summary["usedTokens"] == tiktoken_count(tiktoken_encoding, "cl100k_base", payload) <= 45
        ids += summary["selectedIds"]
    assert sorted(ids) == ["lib.rs", "main.rs"]


def test_a_directory_pack_equals_the_command_line(tree):
    async def body(client):
        return await client.call_tool(
            "pack_directory",
            {"path": str(tree / "src"), "budget": 60, "model": "gpt-4o", "policy": "max-fill", "noteOmissions": True},
        )

    result = session([tree], body)
    assert not result.is_error, text_of(result)
    cli = subprocess.run(
        [PACKER, "pack", "--dir", str(tree / "src"), "--budget", "60", "--model", "gpt-4o",
         "--policy", "max-fill", "--note-omissions", "--format", "json"],
        capture_output=True,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr.decode()
    expected = json.loads(cli.stdout)
    assert text_of(result) == expected["payloadText"]
    summary = result.structured_content
    for key in ["encoding", "availableTokens", "usedTokens", "selectedIds", "optimal"]:
        assert summary[key] == expected[key], key


def test_packs_documents_with_a_tokenizer_file_counted_by_hugging_face(tree):
    from tokenizers import Tokenizer

    data = json.loads(gzip.decompress(QWEN3.read_bytes()))
    (tree / "qwen3-tokenizer.json").write_text(json.dumps(data))
    # SPEC §2.2: special-token text (`<|im_start|>`) is plain text, added
    # tokens not marked special (`<think>`) are tokens.
    reference = Tokenizer.from_str(json.dumps(data))
    reference.encode_special_tokens = True
    documents = [
        {"id": f"d{i}", "url": f"https://example.com/{i}", "format": "text", "content": content, "truncated": False}
        for i, content in enumerate(
            ["Hello, world!\n", "数字 12345678 and emoji 🙂 <|im_start|> <think>ok</think>", "   spaces   \n\n\n", "x" * 400]
        )
    ]

    async def body(client):
        return await client.call_tool(
            "pack_documents",
            {"documents": documents, "budget": 140, "tokenizer": str(tree / "qwen3-tokenizer.json"), "envelope": "xml"},
        )

    result = session([tree], body)
    assert not result.is_error, text_of(result)
    payload = text_of(result)
    summary = result.structured_content
    assert summary["encoding"] == "tokenizer:qwen3-tokenizer.json"
    assert summary["usedTokens"] == len(reference.encode(payload, add_special_tokens=False).ids)
    assert summary["usedTokens"] <= 140
    assert summary["selectedIds"] == ["d0", "d1", "d2"]
    assert [s["id"] for s in summary["skipped"]] == ["d3"]


def test_counts_tokens_like_tiktoken(tree, tiktoken_encoding):
    text = "def f(x):\n    return x ** 2  # <|endoftext|>\n\n\n   \t end"

    async def body(client):
        return [
            await client.call_tool("count_tokens", {"text": text}),
            await client.call_tool("count_tokens", {"text": text, "model": "gpt-4o"}),
        ]

    cl100k, o200k = session([tree], body)
    assert cl100k.structured_content == {
        "encoding": "cl100k_base",
        "tokens": tiktoken_count(tiktoken_encoding, "cl100k_base", text),
    }
    assert o200k.structured_content == {
        "encoding": "o200k_base",
        "tokens": tiktoken_count(tiktoken_encoding, "o200k_base", text),
    }


@pytest.mark.parametrize("path", ["/etc", "{tree}/..", "{tree}/escape", "{tree}/src/../../"])
def test_a_path_outside_the_root_is_a_coded_error(tree, path):
    async def body(client):
        return await client.call_tool("pack_directory", {"path": path.format(tree=tree), "budget": 1000})

    result = session([tree / "src"] if "{tree}/src" in path else [tree], body)
    assert result.is_error
    assert text_of(result).startswith("error[path-outside-root]: ")
    assert "outside the root" not in text_of(result)


def test_a_bad_document_is_a_coded_error_that_echoes_nothing(tree):
    marker = "MARKER-7f3a"
    documents = [
        {"id": "a", "url": f"https://example.com/{marker} space", "format": "text", "content": marker, "truncated": False},
        {"id": "b", "url": "https://example.com/b", "format": "text", "content": marker},
    ]

    async def body(client):
        return await client.call_tool("pack_documents", {"documents": documents, "budget": 1000})

    result = session([tree], body)
    assert result.is_error
    text = text_of(result)
    assert marker not in text and marker not in json.dumps(result.structured_content or {})
    codes = [line.split("]")[0] for line in text.splitlines() if line.startswith("error[")]
    assert codes == ["error[invalid-url", "error[truncated-document"], text


def test_a_budget_too_small_for_the_empty_envelope_says_by_how_much(tree):
    async def body(client):
        return await client.call_tool("pack_directory", {"path": str(tree), "budget": 3})

    result = session([tree], body)
    assert result.is_error
    assert text_of(result).startswith("error[empty-envelope-does-not-fit]: ")
    assert any(char.isdigit() for char in text_of(result))


def test_an_unknown_argument_is_a_usage_error(tree):
    async def body(client):
        return await client.call_tool("pack_directory", {"path": str(tree), "budget": 100, "bugdet": 5})

    result = session([tree], body)
    assert result.is_error
    assert text_of(result).startswith("error[usage]: ")


def test_a_message_over_the_limit_is_answered_and_the_session_goes_on(tree):
    """The answer carries the request's id (read from a line the server
    does not keep), so the call fails at once instead of waiting for an
    answer that never comes."""
    from mcp.shared.exceptions import MCPError

    async def body(client):
        with anyio.fail_after(60):
            try:
                await client.call_tool("count_tokens", {"text": "x" * 70_000})
            except MCPError as error:
                refused = error
            else:
                raise AssertionError("a message over the limit was served")
            return refused, await client.call_tool("count_tokens", {"text": "hello"})

    refused, after = session([tree], body, ["--max-input-bytes", "1000"])
    assert refused.code == -32600
    assert "limit of 66536 bytes" in refused.message, refused.message
    assert "packer mcp --max-input-bytes N" in refused.message, refused.message
    assert after.structured_content == {"encoding": "cl100k_base", "tokens": 1}


def test_a_missing_tokenizer_file_is_named_as_the_command_line_names_it(tree):
    async def body(client):
        return await client.call_tool("count_tokens", {"text": "x", "tokenizer": "no-such-tokenizer.json"})

    result = session([tree], body)
    assert result.is_error
    assert text_of(result).startswith("error[unreadable-tokenizer]: "), text_of(result)
    cli = subprocess.run(
        [PACKER, "count", "--tokenizer", str(tree / "no-such-tokenizer.json"), "-"],
        input=b"x",
        capture_output=True,
        check=False,
    )
    assert cli.stderr.decode().startswith("error[unreadable-tokenizer]: ")
