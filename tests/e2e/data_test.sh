#!/usr/bin/env bash
# `verlpp data gsm8k` on the committed raw sample: output rows equal the verl-schema fixture made by
# tools/make_parquet_fixture.py (verl's gsm8k.py in Python). Usage: data_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
SRC=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
failures=0
out=$("$VERLPP" data gsm8k --input "$SRC/tests/fixtures/data/gsm8k_raw" --output "$OUT" 2>&1); rc=$?
if [ "$rc" -ne 0 ] || ! grep -qF "wrote $OUT/train.jsonl" <<<"$out"; then
  echo "FAIL: data gsm8k (exit $rc): $out"; failures=$((failures + 1))
fi
for split in train test; do
  # Same JSON values per line (the fixture is Python's json.dumps spacing, ours is compact).
  if ! python3 - "$OUT/$split.jsonl" "$SRC/tests/fixtures/data/gsm8k_verl/$split.jsonl" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
b = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8")]
sys.exit(0 if a == b and all(list(x) == list(y) for x, y in zip(a, b)) else 1)
PY
  then
    echo "FAIL: $split.jsonl differs from the fixture"; failures=$((failures + 1))
  fi
done
out=$("$VERLPP" data gsm8k --input "$OUT/missing" --output "$OUT/x" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "$OUT/missing/train.jsonl: data file: no such file" <<<"$out"; then
  echo "FAIL: missing input (exit $rc): $out"; failures=$((failures + 1))
fi
# Output into the input folder would overwrite the raw files it reads: refused, nothing changed.
mkdir -p "$OUT/raw" && cp "$SRC"/tests/fixtures/data/gsm8k_raw/*.jsonl "$OUT/raw/"
before=$(cat "$OUT"/raw/*.jsonl | sha256sum)
out=$("$VERLPP" data gsm8k --input "$OUT/raw" --output "$OUT/raw/." 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "the output folder is the input folder $OUT/raw" <<<"$out" ||
   [ "$(cat "$OUT"/raw/*.jsonl | sha256sum)" != "$before" ]; then
  echo "FAIL: output over the input (exit $rc): $out"; failures=$((failures + 1))
fi
exit $((failures > 0))
