#!/usr/bin/env bash
# The batch benchmark: N small fixtures (default 10,000) packed as one
# `packer batch` run, against one `packer pack` process per fixture, and
# against one `packer count` pass over the same bytes.
#
#   scripts/batch-bench/run.sh [N]
#
# Builds the release binary, writes the fixtures with make_fixtures.py into
# target/batch-bench/, and prints one line per measurement (wall-clock
# seconds, lines or MB per second). Every per-fixture result is compared with
# the batch's line for the same fixture.
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:-10000}
cargo build --release --locked --quiet
packer=target/release/packer
dir=target/batch-bench
mkdir -p "$dir"
python3 scripts/batch-bench/make_fixtures.py "$n" "$dir/fixtures.jsonl"
bytes=$(wc -c < "$dir/fixtures.jsonl")
mb=$(python3 -c "print($bytes / 1e6)")
echo "fixtures: $n lines, $mb MB, $(nproc) cores"

now() { python3 -c 'import time; print(time.perf_counter())'; }
rate() { python3 -c "print(f'{$1:.2f} s, {$2 / $1:,.0f} lines/s, {$mb / $1:.1f} MB/s')"; }

start=$(now)
status=0
"$packer" batch --format summary < "$dir/fixtures.jsonl" > "$dir/batch.jsonl" 2> /dev/null || status=$?
end=$(now)
batch=$(python3 -c "print($end - $start)")
echo "packer batch (one process, exit $status): $(rate "$batch" "$n")"

start=$(now)
"$packer" count "$dir/fixtures.jsonl" > /dev/null
end=$(now)
count=$(python3 -c "print($end - $start)")
echo "packer count over the same bytes (one pass): $(rate "$count" "$n")"

start=$(now)
: > "$dir/each.txt"
while IFS= read -r line; do
  # Each result, then a record separator (never found raw in JSON output).
  printf '%s' "$line" | "$packer" pack - --format summary >> "$dir/each.txt" 2> /dev/null || true
  printf '\036' >> "$dir/each.txt"
done < "$dir/fixtures.jsonl"
end=$(now)
each=$(python3 -c "print($end - $start)")
echo "one packer pack process per fixture: $(rate "$each" "$n")"
python3 -c "print(f'batch is {$each / $batch:.1f}x faster than a process per fixture; batch takes {$batch / $count:.2f}x the time of one count pass')"
python3 - "$dir/each.txt" > "$dir/each.jsonl" <<'PY'
import json, sys
records = open(sys.argv[1], encoding="utf-8").read().split("\x1e")[:-1]
for record in records:
    print(json.dumps(json.loads(record), ensure_ascii=False, separators=(",", ":")))
PY
if cmp -s "$dir/each.jsonl" "$dir/batch.jsonl"; then
  echo "per-process results identical to the batch's, line for line"
else
  echo "per-process results DIFFER from the batch's" >&2
  exit 1
fi
