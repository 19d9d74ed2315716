"""packer for Python: exact, whole-document context packing for LLM agents.

``pack`` selects whole documents whose complete serialized payload, counted
exactly with the model's tokenizer, fits an explicit token budget, and
returns the same object as ``packer pack --format json``: the exact
``payloadText``, ``usedTokens`` (its exact count, never above
``availableTokens``) and a decision with numbers for every document.
``count`` is the exact ordinary-text token count of a text. Both release the
GIL while they work, so threads pack in parallel.

Every refusal raises ``PackerError`` with the command line's stable ``code``,
its ``exit_status`` and its ``message``; messages never quote the capture.
"""

import os
from typing import Any, Literal, Mapping, Optional, Union

__version__: str

#: The names packer knows, from the library's own lists (tests check that the
#: Literal types below say the same).
POLICIES: list[str]
ENVELOPES: list[str]
ENCODINGS: list[str]

Policy = Literal["in-order", "priority", "max-fill"]
Envelope = Literal["json", "xml", "markdown"]
EncodingName = Literal[
    "cl100k_base", "o200k_base", "o200k_harmony", "p50k_base", "p50k_edit", "r50k_base"
]

class PackerError(Exception):
    """packer refused the input or could not pack it.

    ``code`` is the stable code ``packer pack`` prints as ``error[CODE]``
    (``invalid-json``, ``duplicate-id``, ``required-does-not-fit``, ...), or
    ``usage`` for a bad argument (the command line's usage errors);
    ``exit_status`` is the status the command line exits with (2 usage,
    3 invalid input, 4 does not fit); ``message`` (also ``str(error)``) is the
    command line's message (the first problem's). ``errors`` lists every
    problem as ``packer pack --format json`` does in ``{"errors":[...]}``
    (``code``, ``message`` and, where known, ``document``, ``field``,
    ``line``, ``column``), ``more_errors`` counts those not listed, and
    ``result`` is, when something does not fit (exit status 4), the object
    ``packer pack`` prints with ``"error"`` and a decision per document
    (otherwise ``None``).
    """

    code: str
    exit_status: int
    message: str
    errors: list[dict[str, Any]]
    more_errors: int
    result: Optional[dict[str, Any]]

def pack(
    fixture: Union[Mapping[str, Any], str, bytes, bytearray],
    *,
    policy: Optional[Policy] = None,
    envelope: Optional[Envelope] = None,
    budget: Optional[int] = None,
    encoding: Optional[EncodingName] = None,
    model: Optional[str] = None,
    tokenizer: Optional[Union[str, "os.PathLike[str]"]] = None,
    context_tokens: Optional[int] = None,
    reserved_other_input_tokens: Optional[int] = None,
    reserved_output_tokens: Optional[int] = None,
    safety_tokens: Optional[int] = None,
    note_omissions: bool = False,
    note_omissions_max: Optional[int] = None,
    excerpt_query: Optional[str] = None,
    excerpt_context: Optional[int] = None,
    excerpt_max_chars: Optional[int] = None,
    outline: bool = False,
    outline_share: Optional[int] = None,
    max_input_bytes: Optional[int] = None,
    max_documents: Optional[int] = None,
    payload: bool = True,
    windows: bool = False,
    request: Optional[Mapping[str, Any]] = None,
    chat_template: Optional[Union[str, "os.PathLike[str]"]] = None,
    chat_format: Optional[str] = None,
    template_seconds: Optional[int] = None,
    template_memory: Optional[int] = None,
    query: Optional[str] = None,
) -> dict[str, Any]:
    """Pack a fixture; return the object ``packer pack --format json`` prints.

    ``fixture`` is the capture: a dict (serialized as compact JSON), or its
    JSON text as ``str`` or ``bytes`` (read exactly as ``packer pack`` reads a
    file). Each keyword is the ``packer pack`` option of the same name and
    overrides the fixture: ``tokenizer`` (the path of a Hugging Face
    ``tokenizer.json`` or Mistral ``tekken.json`` to count with, instead of
    an encoding), ``policy`` (default ``"in-order"``), ``envelope``
    (``"json"``, ``"xml"``, ``"markdown"``; default ``"json"``), ``encoding`` or
    ``model`` (e.g. ``"gpt-4o"``), the four budget values, or ``budget=N`` for
    ``contextTokens`` N with every reservation 0; ``note_omissions`` (with
    ``note_omissions_max``, default 50);
    ``excerpt_query`` (with ``excerpt_context``, ``excerpt_max_chars``);
    ``outline`` (outlines of the source files that do not fit whole, by the
    id's extension; with ``outline_share``, the percentage of the budget
    whole documents fill first, default 40);
    ``max_input_bytes`` (default 1,048,576, counted on the bytes or the
    serialized dict) and ``max_documents`` (default 100). With
    ``payload=False`` the result omits ``payloadText`` (``--format summary``).
    With ``windows=True`` every document goes into as few windows as
    possible (``packer pack --windows``): the result has ``windowCount``,
    ``optimal`` and ``windows``, each with its ``payloadText`` unless
    ``payload=False``.

    ``request`` counts the whole chat request instead of the payload alone
    (``packer pack --request``). It is a dict, the request object itself
    (not a path, not JSON text: load a file with ``json.load`` first):
    ``{"messages": [...], "tools": [...], "addGenerationPrompt": True,
    "templateArguments": {...}}``, with ``{{packer:documents}}`` once in one
    message, where the payload goes. It is rendered with ``chat_template``
    (the path of a Jinja file or a ``tokenizer_config.json``; default the
    ``chat_template.jinja`` or ``tokenizer_config.json`` beside
    ``tokenizer``, or gpt-oss's harmony format with
    ``encoding="o200k_harmony"``; other encodings raise
    ``request-framing-unknown``), or with ``chat_format="harmony"`` (and
    ``encoding="o200k_harmony"``) as the openai-harmony library writes it
    for vLLM (``packer pack --chat-format harmony``), and the whole rendered request must fit
    ``context_tokens`` less ``reserved_output_tokens`` and ``safety_tokens``
    (a non-zero ``reserved_other_input_tokens`` is refused: it is measured).
    The result then adds ``requestTokens`` (the exact count of the rendered
    request), ``otherInputTokens`` (of the request with an empty payload)
    and ``requestText`` (unless ``payload=False``); without ``request`` the
    result has none of the three, so ``result.get("requestText")`` is
    ``None``. Not with ``windows=True``. The template renders in a worker
    process (this interpreter again), which may render for
    ``template_seconds`` in all (default 60) with ``template_memory`` MiB
    (default 2048); a template that goes past either, or nests a value
    deeper than the worker's stack, raises ``chat-template-limit`` and
    leaves this interpreter as it was.

    ``query`` says what the pack is for (an issue to fix, a question):
    the documents are tried in their relevance to it (``packer pack
    --query``), and each decision adds ``rank`` and ``relevance``.

    Raises ``PackerError`` for every input ``packer pack`` refuses, with the
    same code, exit status and message; ``TypeError`` for a dict that JSON
    cannot serialize, or a ``request`` that is not a dict.
    """

def pack_directory(
    path: Union[str, "os.PathLike[str]"],
    *,
    budget: Optional[int] = None,
    policy: Optional[Policy] = None,
    envelope: Optional[Envelope] = None,
    encoding: Optional[EncodingName] = None,
    model: Optional[str] = None,
    tokenizer: Optional[Union[str, "os.PathLike[str]"]] = None,
    context_tokens: Optional[int] = None,
    reserved_other_input_tokens: Optional[int] = None,
    reserved_output_tokens: Optional[int] = None,
    safety_tokens: Optional[int] = None,
    note_omissions: bool = False,
    note_omissions_max: Optional[int] = None,
    excerpt_query: Optional[str] = None,
    excerpt_context: Optional[int] = None,
    excerpt_max_chars: Optional[int] = None,
    outline: bool = False,
    outline_share: Optional[int] = None,
    windows: bool = False,
    globs: Optional[list[str]] = None,
    priorities: Optional[list[str]] = None,
    git_order: bool = False,
    files: Optional[list[str]] = None,
    tree: Optional[Union[bool, Literal["required", "optional"]]] = None,
    base_url: Optional[str] = None,
    hidden: bool = False,
    no_ignore: bool = False,
    config: Optional[Union[str, "os.PathLike[str]"]] = None,
    no_config: bool = False,
    payload: bool = True,
    template_seconds: Optional[int] = None,
    template_memory: Optional[int] = None,
    query: Optional[str] = None,
) -> dict[str, Any]:
    """Pack the text files under ``path``; return the object ``packer pack
    --dir PATH --format json`` prints.

    Files are collected as on the command line (ignored and hidden files,
    ``.git``, binary, non-UTF-8, over 1 MiB and secret-holding files stay
    out; ``hidden``/``no_ignore`` bring the first two in); ids are paths
    relative to ``path``, with a url only for a Git checkout with a forge
    remote or with ``base_url``. ``globs`` narrow, ``priorities`` are
    ``"GLOB=N"`` rules (the last matching wins), ``git_order`` puts recently
    changed files first within a priority, ``files`` collects exactly those
    relative paths, ``tree`` adds the directory tree as a document. The
    directory's ``packer.toml`` (or ``.packer.toml``), or the file
    ``config`` names, fills every setting not given here; ``no_config=True``
    ignores it. A budget is needed (``budget``, the separate values with the
    reservations not given 0, or the configuration's). The envelope
    defaults to ``"markdown"``. The other keywords are ``pack``'s, but for
    ``request``: a chat request comes from the configuration's ``request``
    key (read beneath the directory, never through a link), and the result
    then has ``requestTokens``, ``otherInputTokens`` and ``requestText``.

    Raises ``PackerError`` for everything ``packer pack --dir`` refuses, with
    the same code, exit status and message (``usage`` for a bad keyword).
    """

def count(
    text: Union[str, bytes],
    *,
    encoding: Optional[EncodingName] = None,
    model: Optional[str] = None,
    tokenizer: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> int:
    """The exact ordinary-text token count of ``text`` (as ``packer count``).

    Text that looks like a special token (``<|endoftext|>``) counts as plain
    text. The default encoding is ``cl100k_base``; ``tokenizer`` counts with
    a tokenizer file instead. ``bytes`` that are not
    UTF-8 raise ``PackerError`` with code ``invalid-utf8``.
    """

def encodings() -> list[tuple[str, list[str]]]:
    """Every encoding packer counts with, with example models that use it."""
