#!/usr/bin/env bash
# GPU-machine run for the tokenizer layer (issue 3). Run from the root of a copy of the worktree;
# needs gpu_inputs/gsm8k/{test,train}.jsonl (copies of the shared GSM8K files, not committed).
#  1. parity fixtures from tokenizers/transformers -> $OUT/fixtures
#  2. HF tokenizers encode baseline (all cores and 1 rayon thread) -> $OUT/hf_*.json
#  3. if the C++ tokenizer is present: build it, run its unit tests against the fresh fixtures and
#     the encode benchmark against the baseline -> $OUT/bench.txt, $OUT/tests.txt
set -uo pipefail
OUT=${OUT:?}
mkdir -p "$OUT/fixtures"
nproc; python3 -c 'import tokenizers, transformers; print(tokenizers.__version__, transformers.__version__)'
python3 tools/make_tokenizer_fixture.py --gsm8k gpu_inputs/gsm8k/test.jsonl --out "$OUT/fixtures" \
  2>&1 | tail -20
ls -la "$OUT/fixtures"
python3 bench/baselines/tokenizer_encode_hf.py --tokenizer tests/fixtures/tokenizers/qwen3 \
  --data gpu_inputs/gsm8k/train.jsonl --out "$OUT/hf_baseline.json"
RAYON_NUM_THREADS=1 python3 bench/baselines/tokenizer_encode_hf.py \
  --tokenizer tests/fixtures/tokenizers/qwen3 --data gpu_inputs/gsm8k/train.jsonl \
  --out "$OUT/hf_baseline_1thread.json"

if [ -f src/verlpp/tokenizer/CMakeLists.txt ] && [ -f bench/tokenizer_encode_bench.cpp ]; then
  cp "$OUT"/fixtures/qwen3_*.jsonl tests/fixtures/tokenizers/ 2>/dev/null
  scripts/setup
  prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
    timeout 150 cmake --build build -j 16 --target verlpp_tokenizer_tests verlpp_tokenizer_bench verlpp 2>&1 | tail -30
  timeout 30 build/tests/unit/tokenizer/verlpp_tokenizer_tests 2>&1 | tail -40 | tee "$OUT/tests.txt"
  timeout 60 build/bench/verlpp_tokenizer_bench --tokenizer tests/fixtures/tokenizers/qwen3 \
    --data gpu_inputs/gsm8k/train.jsonl --baseline "$OUT/hf_baseline.json" \
    --baseline-1thread "$OUT/hf_baseline_1thread.json" 2>&1 | tee "$OUT/bench.txt"
fi
