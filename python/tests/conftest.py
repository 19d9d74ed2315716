"""Fixtures the tests share: OpenAI's `tiktoken`, an independent counter,
fed the vocabulary files that ship inside the tiktoken-rs crate, so that
nothing is downloaded."""

import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tiktoken_assets():
    """The directory of tiktoken-rs's vocabulary files, as Cargo resolved it."""
    metadata = subprocess.run(
        ["cargo", "metadata", "--locked", "--format-version", "1"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for package in json.loads(metadata.stdout)["packages"]:
        if package["name"] == "tiktoken-rs":
            return pathlib.Path(package["manifest_path"]).parent / "assets"
    raise AssertionError("tiktoken-rs is not in the dependency graph")


@pytest.fixture(scope="module")
def tiktoken_encoding():
    """`tiktoken.get_encoding`, served from a cache filled with the crate's
    vocabulary files (tiktoken checks their SHA-256 against its own;
    `o200k_harmony` reads `o200k_base`'s)."""
    cache = tempfile.mkdtemp()
    assets = tiktoken_assets()
    for name in ["cl100k_base", "o200k_base"]:
        url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
        key = hashlib.sha1(url.encode()).hexdigest()
        shutil.copy(assets / f"{name}.tiktoken", os.path.join(cache, key))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    import tiktoken

    yield tiktoken.get_encoding
    shutil.rmtree(cache)
