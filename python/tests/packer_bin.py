"""Where the packer binary is: ``$PACKER_BIN``, else the debug binary in the
target directory cargo reports (which follows ``CARGO_TARGET_DIR`` and
``build.target-dir``)."""

import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def packer_bin() -> str:
    given = os.environ.get("PACKER_BIN")
    if given:
        return given
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    target = pathlib.Path(json.loads(metadata.stdout)["target_directory"])
    return str(target / "debug" / "packer")
