"""packer_context against the packer binary: same results, same errors.

Every bundled fixture (valid and invalid) is packed by ``packer pack -`` and
by ``packer_context.pack`` under several option sets; the results, error
codes, exit statuses and messages must be identical. The binary is
``$PACKER_BIN`` (default: the debug binary in cargo's target directory).
"""

import json
import os
import pathlib
import subprocess
import tempfile
import threading
import time

import pytest
from packer_bin import packer_bin

import packer_context as packer

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKER = packer_bin()
FIXTURES = sorted((ROOT / "fixtures").glob("*.json")) + sorted(
    (ROOT / "fixtures" / "invalid").glob("*.json")
)

# (command-line flags, the same as keywords)
OPTION_SETS = [
    ([], {}),
    (["--query", "exit code budget"], {"query": "exit code budget"}),
    (["--policy", "priority"], {"policy": "priority"}),
    (["--policy", "max-fill", "--note-omissions"], {"policy": "max-fill", "note_omissions": True}),
    (["--model", "gpt-4o", "--budget", "300"], {"model": "gpt-4o", "budget": 300}),
    (
        ["--encoding", "p50k_base", "--context-tokens", "400", "--safety-tokens", "7"],
        {"encoding": "p50k_base", "context_tokens": 400, "safety_tokens": 7},
    ),
    (
        ["--excerpt-query", "limit budget", "--excerpt-context", "1"],
        {"excerpt_query": "limit budget", "excerpt_context": 1},
    ),
    (["--max-documents", "2"], {"max_documents": 2}),
    (["--envelope", "xml", "--policy", "priority"], {"envelope": "xml", "policy": "priority"}),
    (
        ["--envelope", "markdown", "--note-omissions", "--note-omissions-max", "1"],
        {"envelope": "markdown", "note_omissions": True, "note_omissions_max": 1},
    ),
    (["--max-input-bytes", "600"], {"max_input_bytes": 600}),
    (["--windows", "--budget", "120"], {"windows": True, "budget": 120}),
    (["--windows", "--envelope", "markdown"], {"windows": True, "envelope": "markdown"}),
    (
        ["--windows", "--budget", "160", "--note-omissions", "--note-omissions-max", "2"],
        {"windows": True, "budget": 160, "note_omissions": True, "note_omissions_max": 2},
    ),
    (["--outline", "--outline-share", "20"], {"outline": True, "outline_share": 20}),
]

SEEN_CODES = set()


def cli(args, stdin):
    run = subprocess.run([PACKER, *args], input=stdin, capture_output=True, check=False)
    return run.returncode, run.stdout.decode(), run.stderr.decode()


def stderr_messages(stderr):
    """The (code, message) pairs of the `error[CODE]: MESSAGE` lines."""
    pairs = []
    for line in stderr.splitlines():
        if line.startswith("error["):
            code, message = line[len("error[") :].split("]: ", 1)
            pairs.append((code, message))
    return pairs


def assert_same_as_cli(data, flags, keywords, fmt="json"):
    # From a file, as Python has the whole input (a too-large input's
    # message then states its size).
    with tempfile.NamedTemporaryFile(suffix=".json") as file:
        file.write(data)
        file.flush()
        status, stdout, stderr = cli(["pack", file.name, "--format", fmt, *flags], b"")
    payload = fmt == "json"
    if status == 0:
        assert packer.pack(data, payload=payload, **keywords) == json.loads(stdout)
        return status
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, payload=payload, **keywords)
    error = raised.value
    SEEN_CODES.add(error.code)
    first_code, first_message = stderr_messages(stderr)[0]
    assert (error.code, error.exit_status, error.message) == (first_code, status, first_message)
    assert str(error) == first_message
    if status == 3:
        listed = json.loads(stdout)
        assert error.errors == listed["errors"]
        assert error.more_errors == listed.get("moreErrors", 0)
        assert error.result is None
    elif status == 4:
        assert error.result == json.loads(stdout)
        assert error.errors[0]["code"] == error.code
    else:
        assert status == 2 and stdout == ""
    return status


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.relative_to(ROOT / "fixtures").as_posix())
def test_every_fixture_packs_as_the_cli_packs_it_under_every_option_set(path):
    data = path.read_bytes()
    for flags, keywords in OPTION_SETS:
        assert_same_as_cli(data, flags, keywords)


@pytest.mark.parametrize("path", sorted((ROOT / "fixtures").glob("*.json")), ids=lambda p: p.name)
def test_a_dict_and_a_str_pack_as_the_file_does(path):
    data = path.read_bytes()
    status, stdout, _ = cli(["pack", "-", "--format", "summary"], data)
    if status != 0:
        return
    expected = json.loads(stdout)
    text = data.decode("utf-8-sig")
    assert packer.pack(text, payload=False) == expected
    assert packer.pack(json.loads(text), payload=False) == expected


def test_the_summary_has_no_payload_and_the_json_has_it():
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    assert_same_as_cli(data, [], {}, fmt="summary")
    full = packer.pack(data)
    summary = packer.pack(data, payload=False)
    assert "payloadText" not in summary
    assert {k: v for k, v in full.items() if k != "payloadText"} == summary
    assert list(full) == list(json.loads(cli(["pack", "-"], data)[1]))


def test_count_is_packer_count():
    texts = [
        "",
        "Hello, world!",
        "<|endoftext|> is plain text <|fim_prefix|>",
        "  leading and trailing whitespace \n\n\t ",
        "日本語のテキストと emoji 🙂🙂🙂",
        (ROOT / "README.md").read_text(),
    ]
    for encoding in ["cl100k_base", "o200k_base", "p50k_base"]:
        for text in texts if encoding == "cl100k_base" else texts[:-1]:
            status, stdout, _ = cli(["count", "--encoding", encoding], text.encode())
            assert status == 0
            assert packer.count(text, encoding=encoding) == int(stdout)
            assert packer.count(text.encode(), encoding=encoding) == int(stdout)
    status, stdout, _ = cli(["count", "--model", "gpt-4o"], b"model text")
    assert packer.count("model text", model="gpt-4o") == int(stdout)
    assert packer.count("default text") == int(cli(["count"], b"default text")[1])


def test_count_refuses_bytes_that_are_not_utf8_as_the_cli_does():
    data = b"ok \xff not ok"
    status, _, stderr = cli(["count"], data)
    with pytest.raises(packer.PackerError) as raised:
        packer.count(data)
    SEEN_CODES.add(raised.value.code)
    assert (raised.value.code, raised.value.exit_status) == ("invalid-utf8", status)
    assert raised.value.message == stderr_messages(stderr)[0][1]
    with pytest.raises(packer.PackerError) as raised:
        packer.count("lone \ud800 surrogate")
    assert raised.value.code == "invalid-utf8"


GUIDE = json.loads((ROOT / "fixtures" / "guide.json").read_text())


def document(i, **fields):
    doc = {
        "id": f"doc-{i}",
        "url": f"https://example.com/{i}",
        "format": "text",
        "content": f"Document {i}.",
        "truncated": False,
    }
    doc.update(fields)
    return doc


def test_every_input_error_code_reaches_python_with_the_cli_message():
    cases = {
        "input-too-large": (json.dumps(GUIDE).encode(), ["--max-input-bytes", "10"], {"max_input_bytes": 10}),
        "invalid-utf8": (b'{"documents": ["\xff"]}', [], {}),
        "invalid-json": (b'{"documents": [}', [], {}),
        "unpaired-surrogate": (b'{"documents": [], "encoding": "\\udc00"}', [], {}),
        "invalid-schema": (b'{"documents": [], "extra": 1}', [], {}),
        "unknown-encoding": (json.dumps({**GUIDE, "encoding": "gpt2"}).encode(), [], {}),
        "invalid-budget": (json.dumps({"documents": []}).encode(), [], {}),
        "too-many-documents": (json.dumps(GUIDE).encode(), ["--max-documents", "1"], {"max_documents": 1}),
        "invalid-id": (json.dumps({**GUIDE, "documents": [document(0, id="")]}).encode(), [], {}),
        "duplicate-id": (json.dumps({**GUIDE, "documents": [document(0), document(0)]}).encode(), [], {}),
        "invalid-url": (json.dumps({**GUIDE, "documents": [document(0, url="/relative")]}).encode(), [], {}),
        "url-credentials": (
            json.dumps({**GUIDE, "documents": [document(0, url="https://u:p@example.com/")]}).encode(),
            [],
            {},
        ),
        "unsupported-format": (json.dumps({**GUIDE, "documents": [document(0, format="html")]}).encode(), [], {}),
        "blank-content": (json.dumps({**GUIDE, "documents": [document(0, content=" \n")]}).encode(), [], {}),
        "truncated-document": (json.dumps({**GUIDE, "documents": [document(0, truncated=True)]}).encode(), [], {}),
        "empty-envelope-does-not-fit": (json.dumps(GUIDE).encode(), ["--budget", "2"], {"budget": 2}),
        "required-does-not-fit": (
            json.dumps({**GUIDE, "documents": [document(0, content="word " * 400, required=True)]}).encode(),
            [],
            {},
        ),
        "unknown-model": (json.dumps(GUIDE).encode(), ["--model", "no-such-model"], {"model": "no-such-model"}),
    }
    for code, (data, flags, keywords) in cases.items():
        status = assert_same_as_cli(data, flags, keywords)
        assert code in SEEN_CODES, code
        assert status != 0


@pytest.mark.parametrize("model, endpoint", [("claude-sonnet-4", "count_tokens"), ("gemini-2.5-pro", "countTokens")])
def test_models_without_a_public_tokenizer_are_refused_with_guidance(model, endpoint):
    # SPEC §2.2.1: no exact offline count; never another model's encoding.
    for call in (lambda: packer.pack(GUIDE, model=model), lambda: packer.count("hello", model=model)):
        with pytest.raises(packer.PackerError) as raised:
            call()
        error = raised.value
        assert (error.code, error.exit_status) == ("unknown-model", 2)
        assert error.message.startswith("no exact offline token count exists")
        assert endpoint in error.message
        assert "keep a margin with safety_tokens" in error.message


def test_an_excerpt_query_without_terms_is_the_librarys_empty_query_usage_error():
    # The command line refuses it while parsing (error[usage]); the library's
    # own code for it is empty-query, with the same exit status.
    status, _, stderr = cli(["pack", "-", "--excerpt-query", " , "], json.dumps(GUIDE).encode())
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(GUIDE, excerpt_query=" , ")
    error = raised.value
    assert (error.code, error.exit_status) == ("empty-query", status)
    assert "the query has no term of two or more characters" in stderr
    assert error.message.startswith("the excerpt query has no term of two or more characters")


def test_a_dict_with_a_lone_surrogate_is_refused_as_unpaired_surrogate():
    fixture = {**GUIDE, "documents": [document(0, content="bad \ud800 text")]}
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(fixture)
    assert (raised.value.code, raised.value.exit_status) == ("unpaired-surrogate", 3)


@pytest.mark.parametrize(
    "keywords, message",
    [
        ({"policy": "random"}, "policy must be one of in-order, priority, max-fill"),
        ({"encoding": "gpt2"}, "encoding must be one of cl100k_base, o200k_base, o200k_harmony, p50k_base, p50k_edit, r50k_base"),
        ({"encoding": "cl100k_base", "model": "gpt-4"}, "give encoding or model, not both"),
        ({"context_tokens": -1}, "context_tokens must be a whole number from 0 to 9007199254740991"),
        ({"budget": 2**53}, "budget must be a whole number from 0 to 9007199254740991"),
        ({"budget": 100, "safety_tokens": 1}, "give budget or the separate budget values, not both"),
        ({"excerpt_context": 2}, "excerpt_context and excerpt_max_chars need excerpt_query"),
        ({"envelope": "yaml"}, "envelope must be one of json, xml, markdown"),
        ({"note_omissions_max": 3}, "note_omissions_max needs note_omissions=True"),
        ({"outline_share": 30}, "outline_share needs outline=True"),
        (
            {"outline": True, "outline_share": 101},
            "outline_share is a percentage of the budget from 0 to 100, not 101",
        ),
    ],
)
def test_bad_arguments_are_usage_errors(keywords, message):
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(GUIDE, **keywords)
    error = raised.value
    assert (error.code, error.exit_status, error.message, str(error)) == ("usage", 2, message, message)
    assert error.errors == [{"code": "usage", "message": message}]


def test_wrong_python_types_are_type_errors():
    with pytest.raises(TypeError):
        packer.pack({"documents": [object()]})
    with pytest.raises(TypeError):
        packer.count(42)
    with pytest.raises(TypeError):
        packer.pack(GUIDE, context_tokens="100")


def test_the_gil_is_released_while_counting():
    text = "Several words of ordinary prose, counted exactly. " * 40000
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    started = time.perf_counter()
    packer.count(text)
    alone = time.perf_counter() - started
    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        time.sleep(0.01)
        before = len(ticks)
        started = time.perf_counter()
        packer.count(text)
        finished = time.perf_counter()
    finally:
        done.set()
        ticker.join()
    during = [t for t in ticks[before:] if started < t < finished]
    # With the GIL held the ticker could not run at all during the call.
    assert alone > 0.02
    assert len(during) >= 5, (alone, len(during))


def test_threads_pack_in_parallel_with_the_same_results():
    from concurrent.futures import ThreadPoolExecutor

    data = [p.read_bytes() for p in sorted((ROOT / "fixtures").glob("*.json"))]
    expected = []
    for d in data:
        try:
            expected.append(packer.pack(d))
        except packer.PackerError as error:
            expected.append(error.code)

    def run(d):
        try:
            return packer.pack(d)
        except packer.PackerError as error:
            return error.code

    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(run, data * 4)) == expected * 4


def test_the_package_has_docstrings_stubs_and_a_version():
    assert packer.pack.__doc__ and "packer pack --format json" in packer.pack.__doc__
    assert packer.count.__doc__ and packer.PackerError.__doc__ and packer.__doc__
    assert packer.pack_directory.__doc__ and "--format json" in packer.pack_directory.__doc__
    assert packer.__version__
    names = [name for name, _ in packer.encodings()]
    assert names == [line.split()[0] for line in cli(["encodings"], b"")[1].splitlines()]
    installed = pathlib.Path(packer.__file__).parent
    assert (installed / "packer_context.pyi").is_file() or (installed / "__init__.pyi").is_file()


def test_the_readme_example_runs():
    readme = (ROOT / "python" / "README.md").read_text()
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    sent = []
    printed = []
    namespace = {
        "send_to_model": sent.append,
        "print": lambda *args: printed.append(" ".join(str(arg) for arg in args)),
    }
    exec(compile(block, "README.md", "exec"), namespace)
    assert sent and sent[0].startswith('{"documents":[')
    # What the README says the first print shows, it shows.
    shown = block.split("print(", 1)[1].split("\n# ", 1)[1].split("\n", 1)[0]
    assert printed[0] == shown


@pytest.fixture(scope="module")
def qwen3_tokenizer(tmp_path_factory):
    import gzip

    path = tmp_path_factory.mktemp("tokenizers") / "tokenizer.json"
    path.write_bytes(gzip.decompress((ROOT / "tests/data/tokenizers/qwen3-tokenizer.json.gz").read_bytes()))
    return str(path)


def test_a_tokenizer_file_counts_and_packs_as_the_cli_does(qwen3_tokenizer):
    for text in ["Hello, world!", "<|im_start|> is plain text 日本語 🙂"]:
        status, stdout, _ = cli(["count", "--tokenizer", qwen3_tokenizer], text.encode())
        assert status == 0
        assert packer.count(text, tokenizer=qwen3_tokenizer) == int(stdout)
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    assert_same_as_cli(data, ["--tokenizer", qwen3_tokenizer], {"tokenizer": qwen3_tokenizer})
    result = packer.pack(data, tokenizer=pathlib.Path(qwen3_tokenizer), envelope="xml")
    assert result["encoding"].startswith("tokenizer:")


def test_tokenizer_files_packer_cannot_count_exactly_are_refused_as_the_cli_refuses_them(tmp_path):
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    nmt = tmp_path / "nmt-tokenizer.json"
    nmt.write_text(
        '{"normalizer":{"type":"Nmt"},'
        '"pre_tokenizer":{"type":"Metaspace","replacement":"\\u2581","prepend_scheme":"always","split":true},'
        '"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0.0],["\\u2581a",-1.0]]}}'
    )
    for path in [nmt, ROOT / "no-such-tokenizer.json"]:
        status = assert_same_as_cli(data, ["--tokenizer", str(path)], {"tokenizer": str(path)})
        assert status != 0
        with pytest.raises(packer.PackerError) as raised:
            packer.count("text", tokenizer=str(path))
        assert raised.value.code in ("unsupported-tokenizer", "unreadable-tokenizer")
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, tokenizer="x.json", encoding="cl100k_base")
    assert (raised.value.code, raised.value.message) == ("usage", "give tokenizer or encoding/model, not both")


def test_the_stub_and_the_documentation_name_what_the_library_knows():
    # The names come from the library; the typing stub and the docstring of
    # pack() are written by hand and must say the same.
    import ast

    stub = ast.parse((ROOT / "python" / "packer_context.pyi").read_text())
    literals = {}
    for node in stub.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            name = node.targets[0].id
            elements = node.value.slice
            literals[name] = [e.value for e in getattr(elements, "elts", [elements])]
    assert literals["Policy"] == packer.POLICIES
    assert literals["Envelope"] == packer.ENVELOPES
    assert literals["EncodingName"] == packer.ENCODINGS
    for name in packer.POLICIES + packer.ENVELOPES:
        assert f'``"{name}"``' in packer.pack.__doc__, name


def rust_module(functions):
    text = "//! A module.\n\nuse std::fmt;\n\n"
    for f in range(functions):
        text += f"/// Computes {f}.\npub fn compute_{f}(x: u64) -> u64 {{\n"
        text += "".join(f"    let v{i} = x.wrapping_mul({i}) + {f};\n" for i in range(12))
        text += "    x\n}\n\n"
    return text


def test_outlines_pack_as_the_cli_packs_them():
    documents = [
        {
            "id": f"src/m{i}.rs",
            "url": f"https://example.com/m{i}.rs",
            "format": "text",
            "content": rust_module(3 + i),
            "truncated": False,
        }
        for i in range(6)
    ]
    data = json.dumps({"documents": documents}).encode()
    flags = ["--budget", "900", "--outline"]
    assert assert_same_as_cli(data, flags, {"budget": 900, "outline": True}) == 0
    result = packer.pack(data, budget=900, outline=True)
    assert result["outlineIds"], result["decisions"]
    assert result["usedTokens"] <= result["availableTokens"] == 900
    for decision in result["decisions"]:
        if decision["reason"] == "outline-fits":
            assert decision["selected"]
    assert '"outline":{"lines":"' in result["payloadText"]


# Whole chat requests (``request``, ``chat_template``; SPEC §2.4).

CHAT = {
    "messages": [
        {"role": "system", "content": "Answer from the documents only."},
        {"role": "user", "content": "Docs:\n{{packer:documents}}\nWhich one says what?"},
    ]
}


def harmony_count(get_encoding, text):
    """tiktoken's count of a rendered gpt-oss request (no message in these
    tests writes a special token's text)."""
    return len(get_encoding("o200k_harmony").encode(text, allowed_special="all"))


def test_a_gpt_oss_request_is_counted_whole_as_tiktoken_counts_it(tiktoken_encoding):
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    for budget, policy in [(200, "in-order"), (260, "priority"), (900, "max-fill")]:
        result = packer.pack(data, encoding="o200k_harmony", budget=budget, policy=policy, request=CHAT)
        text = result["requestText"]
        payload = result["payloadText"]
        assert result["availableTokens"] == budget
        assert result["requestTokens"] == harmony_count(tiktoken_encoding, text) <= budget
        assert f"Docs:\n{payload}\nWhich one says what?" in text
        assert result["usedTokens"] == len(tiktoken_encoding("o200k_harmony").encode_ordinary(payload))
        empty = text.replace(payload, '{"documents":[]}')
        assert result["otherInputTokens"] == harmony_count(tiktoken_encoding, empty)
        if budget < 900:
            assert result["skipped"], budget
    # The summary has the counts and not the text; no request, none of them.
    summary = packer.pack(data, encoding="o200k_harmony", budget=300, request=CHAT, payload=False)
    assert "requestTokens" in summary and "requestText" not in summary
    plain = packer.pack(data, encoding="o200k_harmony", budget=300)
    assert plain.get("requestTokens") is None and plain.get("requestText") is None
    # The same as the command line with the request in a file.
    with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
        json.dump(CHAT, file)
        file.flush()
        for flags, keywords in [
            (["--encoding", "o200k_harmony", "--budget", "250"], {"encoding": "o200k_harmony", "budget": 250}),
            (["--encoding", "o200k_harmony", "--budget", "20"], {"encoding": "o200k_harmony", "budget": 20}),
        ]:
            assert_same_as_cli(data, [*flags, "--request", file.name], {**keywords, "request": CHAT})


def test_harmonys_own_rendering_is_the_command_lines(tiktoken_encoding):
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    result = packer.pack(data, encoding="o200k_harmony", budget=400, request=CHAT, chat_format="harmony")
    text = result["requestText"]
    # vLLM's conversion: the system message becomes the developer's
    # instructions, after harmony's own system message.
    assert text.startswith("<|start|>system<|message|>You are ChatGPT")
    assert "<|start|>developer<|message|># Instructions\n\nAnswer from the documents only.<|end|>" in text
    assert text.endswith("<|start|>assistant")
    assert result["requestTokens"] == harmony_count(tiktoken_encoding, text) <= 400
    with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
        json.dump(CHAT, file)
        file.flush()
        assert_same_as_cli(
            data,
            ["--encoding", "o200k_harmony", "--budget", "400", "--request", file.name, "--chat-format", "harmony"],
            {"encoding": "o200k_harmony", "budget": 400, "request": CHAT, "chat_format": "harmony"},
        )
    for keywords, message in [
        ({"chat_format": "harmony"}, "chat_format needs request"),
        ({"chat_format": "harmony", "request": CHAT, "chat_template": "chat.jinja"},
         "chat_format and chat_template do not go together"),
        ({"chat_format": "vllm", "request": CHAT}, "chat_format must be one of template, harmony"),
    ]:
        with pytest.raises(packer.PackerError) as raised:
            packer.pack(data, encoding="o200k_harmony", budget=400, **keywords)
        assert (raised.value.code, raised.value.message) == ("usage", message)


def test_requests_are_refused_with_codes_that_echo_nothing():
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, encoding="cl100k_base", budget=500, request=CHAT)
    assert (raised.value.code, raised.value.exit_status) == ("request-framing-unknown", 2)
    assert "reserved_other_input_tokens" in raised.value.message
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, encoding="o200k_harmony", context_tokens=500, reserved_other_input_tokens=50, request=CHAT)
    assert raised.value.code == "usage"
    assert "drop reserved_other_input_tokens (50 given)" in raised.value.message
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, encoding="o200k_harmony", budget=500, windows=True, request=CHAT)
    assert raised.value.code == "usage"
    assert raised.value.message.startswith("windows=True does not take request")
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, budget=500, chat_template="chat.jinja")
    assert (raised.value.code, raised.value.message) == ("usage", "chat_template needs request")
    for bad in [
        {"messages": [{"role": "user", "content": "SECRET, no placeholder"}]},
        {"messages": [{"content": "{{packer:documents}} SECRET"}]},
        {"messages": [{"role": "user", "content": "{{packer:documents}}"}], "SECRET": 1},
    ]:
        with pytest.raises(packer.PackerError) as raised:
            packer.pack(data, encoding="o200k_harmony", budget=500, request=bad)
        assert raised.value.code == "invalid-chat-request"
        assert "SECRET" not in str(raised.value.errors)
    for not_a_dict in ["request.json", json.dumps(CHAT), pathlib.Path("request.json")]:
        with pytest.raises(TypeError):
            packer.pack(data, encoding="o200k_harmony", budget=500, request=not_a_dict)
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, encoding="o200k_harmony", budget=500, request=CHAT, chat_template="no-such.jinja")
    assert raised.value.code == "invalid-chat-template"


def test_a_hostile_chat_template_raises_and_the_interpreter_lives_on(tmp_path):
    """A template that nests a value 100,000 deep, or asks for a terabyte,
    renders in a worker process: the worker dies, Python gets a coded
    PackerError, and the next pack works."""
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    deep = tmp_path / "deep.jinja"
    deep.write_text(
        "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}"
        "{% endfor %}{{ ns.x }}"
    )
    huge = tmp_path / "huge.jinja"
    huge.write_text("{{ messages|tojson(indent=1000000000000) }}")
    for template, said in [
        (deep, "nested a value deeper than its renderer's stack"),
        (huge, "asked for more than 256 MiB while it rendered, its limit; it was stopped (raise the limit with template_memory"),
    ]:
        with pytest.raises(packer.PackerError) as raised:
            packer.pack(
                data, encoding="o200k_harmony", budget=500, request=CHAT,
                chat_template=str(template), template_memory=256,
            )
        assert (raised.value.code, raised.value.exit_status) == ("chat-template-limit", 3)
        assert said in raised.value.message
    slow = tmp_path / "slow.jinja"
    slow.write_text(
        "{% set ns = namespace(l=[]) %}{% for i in range(100000) %}{% set ns.l = ns.l + [i] %}"
        "{% set n = ns.l|length %}{% endfor %}"
    )
    with pytest.raises(packer.PackerError) as raised:
        packer.pack(data, encoding="o200k_harmony", budget=500, request=CHAT, chat_template=str(slow), template_seconds=1)
    assert raised.value.code == "chat-template-limit"
    assert "rendered for more than 1 s in this pack" in raised.value.message
    result = packer.pack(data, encoding="o200k_harmony", budget=500, request=CHAT)
    assert result["requestTokens"] <= 500


CHATML = (
    "{%- for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] "
    "+ '<|im_end|>\\n' }}{%- endfor %}{%- if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
    "{%- endif %}"
)


def test_a_qwen3_request_is_counted_as_hugging_face_tokenizers_counts_it(qwen3_tokenizer, tmp_path):
    from tokenizers import Tokenizer

    hf = Tokenizer.from_file(qwen3_tokenizer)
    template = tmp_path / "chat.jinja"
    template.write_text(CHATML)
    # The template given, and the same template beside the tokenizer file.
    beside = tmp_path / "model"
    beside.mkdir()
    (beside / "tokenizer.json").symlink_to(qwen3_tokenizer)
    (beside / "chat_template.jinja").write_text(CHATML)
    data = (ROOT / "fixtures" / "guide.json").read_bytes()
    request = {"messages": [{"role": "user", "content": "Docs:\n{{packer:documents}}"}]}
    for keywords in [
        {"tokenizer": qwen3_tokenizer, "chat_template": str(template)},
        {"tokenizer": str(beside / "tokenizer.json")},
    ]:
        for budget in [150, 400]:
            result = packer.pack(data, budget=budget, request=request, envelope="xml", **keywords)
            payload = result["payloadText"]
            text = result["requestText"]
            assert text == f"<|im_start|>user\nDocs:\n{payload}<|im_end|>\n<|im_start|>assistant\n"
            assert result["requestTokens"] == len(hf.encode(text, add_special_tokens=False).ids) <= budget
            assert result["usedTokens"] == len(hf.encode(payload, add_special_tokens=False).ids)


def test_the_readme_request_example_runs(tiktoken_encoding):
    readme = (ROOT / "python" / "README.md").read_text()
    block = readme.split("```python\n")[2].split("```", 1)[0].replace("\n  ", "\n").strip()
    sent = []
    # A fixture without a budget of its own, as the README's first example's.
    fixture = {"documents": json.loads((ROOT / "fixtures" / "guide.json").read_text())["documents"]}
    namespace = {"packer": packer, "fixture": fixture, "send_raw_prompt": sent.append}
    exec(compile(block, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert sent == [result["requestText"]]
    assert result["requestTokens"] == harmony_count(tiktoken_encoding, sent[0]) <= result["availableTokens"]


# Directories (``pack_directory``, as ``packer pack --dir``).


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# Project\nWhat it does.\n")
    (root / "LICENSE").write_text("MIT License\n" * 20)
    (root / "src" / "lib.rs").write_text(rust_module(4))
    (root / "src" / "main.rs").write_text("fn main() {\n    println!(\"hi\");\n}\n")
    (root / ".hidden.txt").write_text("hidden\n")
    (root / "notes.txt").write_text("café 日本語 \u2028 notes\n" * 3)
    return root


DIRECTORY_SETS = [
    (["--budget", "300"], {"budget": 300}),
    (["--budget", "2000", "--envelope", "json"], {"budget": 2000, "envelope": "json"}),
    (
        ["--budget", "400", "--policy", "priority", "--priority", "src/**=5", "--note-omissions"],
        {"budget": 400, "policy": "priority", "priorities": ["src/**=5"], "note_omissions": True},
    ),
    (
        ["--budget", "500", "--glob", "*.rs", "--tree", "--encoding", "o200k_base"],
        {"budget": 500, "globs": ["*.rs"], "tree": "required", "encoding": "o200k_base"},
    ),
    (
        ["--context-tokens", "900", "--reserved-output-tokens", "200", "--hidden"],
        {"context_tokens": 900, "reserved_output_tokens": 200, "hidden": True},
    ),
    (["--budget", "250", "--outline", "--tree-optional"], {"budget": 250, "outline": True, "tree": "optional"}),
    (["--budget", "500", "--tree"], {"budget": 500, "tree": True}),
    (["--budget", "500"], {"budget": 500, "tree": False}),
    (["--budget", "120", "--windows", "--note-omissions"], {"budget": 120, "windows": True, "note_omissions": True}),
    (
        ["--budget", "300", "--base-url", "https://example.com/p/"],
        {"budget": 300, "base_url": "https://example.com/p/"},
    ),
    (
        ["--budget", "300", "--query", "the answer of the library"],
        {"budget": 300, "query": "the answer of the library"},
    ),
]


@pytest.mark.parametrize("flags,keywords", DIRECTORY_SETS, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_directory_packs_as_pack_dir_packs_it(project, flags, keywords):
    status, stdout, stderr = cli(["pack", "--dir", str(project), "--format", "json", *flags], b"")
    assert status == 0, stderr
    assert packer.pack_directory(project, **keywords) == json.loads(stdout)


def test_a_directory_pack_is_exact_and_carries_no_local_path(project, tiktoken_encoding):
    result = packer.pack_directory(project, budget=600, envelope="json")
    payload = result["payloadText"]
    assert result["usedTokens"] == len(tiktoken_encoding("cl100k_base").encode(payload, disallowed_special=()))
    assert result["usedTokens"] <= result["availableTokens"] == 600
    assert str(project) not in payload
    assert '"id":"README.md"' in payload


def test_the_directorys_packer_toml_fills_what_no_keyword_gives(project):
    (project / "packer.toml").write_text(
        'budget = 350\nenvelope = "xml"\npriorities = ["src/**=4"]\npolicy = "priority"\n'
    )
    status, stdout, stderr = cli(["pack", "--dir", str(project), "--format", "json"], b"")
    assert status == 0, stderr
    from_file = packer.pack_directory(project)
    assert from_file == json.loads(stdout)
    assert from_file["envelope"] == "xml" and from_file["availableTokens"] == 350
    assert from_file["payloadText"].startswith('<documents>\n<document index="1" id="src/')
    # A keyword wins over the file; no_config ignores it.
    assert packer.pack_directory(project, envelope="json")["envelope"] == "json"
    ignored = packer.pack_directory(project, budget=350, no_config=True)
    assert ignored["envelope"] == "markdown"
    # A file with an unknown key is refused as the command line refuses it.
    (project / "packer.toml").write_text("budgett = 5\n")
    status, stdout, stderr = cli(["pack", "--dir", str(project), "--budget", "300"], b"")
    with pytest.raises(packer.PackerError) as raised:
        packer.pack_directory(project, budget=300)
    code, message = stderr_messages(stderr)[0]
    assert (raised.value.code, raised.value.exit_status, raised.value.message) == (code, status, message)


@pytest.mark.parametrize(
    "keywords,message",
    [
        ({}, "pack_directory needs a budget"),
        ({"budget": 100, "tree": "yes"}, 'tree must be "required", "optional", True or False'),
        ({"budget": 100, "priorities": ["src"]}, "an entry of priorities is not a rule"),
        ({"budget": 100, "config": "x.toml", "no_config": True}, "config and no_config=True"),
    ],
)
def test_bad_directory_arguments_are_usage_errors(project, keywords, message):
    with pytest.raises(packer.PackerError) as raised:
        packer.pack_directory(project, **keywords)
    assert raised.value.code == "usage" and raised.value.exit_status == 2
    assert raised.value.message.startswith(message), raised.value.message


def test_a_missing_directory_is_refused_as_the_cli_refuses_it(tmp_path):
    missing = tmp_path / "nowhere"
    status, stdout, stderr = cli(["pack", "--dir", str(missing), "--budget", "100"], b"")
    with pytest.raises(packer.PackerError) as raised:
        packer.pack_directory(missing, budget=100)
    code, message = stderr_messages(stderr)[0]
    assert (raised.value.code, raised.value.exit_status, raised.value.message) == (code, status, message)


def test_the_directorys_packer_toml_request_is_rendered_as_pack_dir_renders_it(project, tmp_path):
    (project / "chat.json").write_text(json.dumps(CHAT))
    (project / "packer.toml").write_text('request = "chat.json"\nencoding = "o200k_harmony"\nbudget = 900\n')
    status, stdout, stderr = cli(["pack", "--dir", str(project), "--format", "json"], b"")
    assert status == 0, stderr
    result = packer.pack_directory(project)
    assert result == json.loads(stdout)
    assert result["requestTokens"] <= result["availableTokens"] == 900
    assert result["requestText"].startswith("<|start|>system<|message|>")
    # A request file that is a link (here, to a file outside) is refused as
    # the command line refuses it, and never read.
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(CHAT))
    (project / "chat.json").unlink()
    (project / "chat.json").symlink_to(outside)
    status, stdout, stderr = cli(["pack", "--dir", str(project), "--format", "json"], b"")
    with pytest.raises(packer.PackerError) as raised:
        packer.pack_directory(project)
    code, message = stderr_messages(stderr)[0]
    assert (raised.value.code, raised.value.exit_status, raised.value.message) == (code, status, message)
    assert code == "invalid-config"
