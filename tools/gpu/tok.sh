#!/usr/bin/env bash
# GPU-machine run for the tokenizer layer (issue 3). Run from the root of a copy of the worktree;
# needs gpu_inputs/gsm8k/{test,train}.jsonl (copies of the shared GSM8K files, not committed).
#  1. parity fixtures from tokenizers/transformers -> $OUT/fixtures (only when MAKE_FIXTURES=1
#     or the committed fixture is missing)
#  2. HF tokenizers encode baseline (all cores and 1 rayon thread) -> $OUT/hf_*.json
#  3. build the C++ tokenizer, run its unit tests and the encode benchmark against the baseline
#     -> $OUT/tests.txt, $OUT/bench.txt
set -uo pipefail
OUT=${OUT:?}
mkdir -p "$OUT/fixtures"
nproc; lscpu | grep -E "Model name|^CPU\(s\)" || true
python3 -c 'import tokenizers, transformers; print(tokenizers.__version__, transformers.__version__)'
if [ "${MAKE_FIXTURES:-0}" = 1 ] || [ ! -f tests/fixtures/tokenizers/qwen3_parity.jsonl ]; then
  python3 tools/make_tokenizer_fixture.py --gsm8k gpu_inputs/gsm8k/test.jsonl --out "$OUT/fixtures" \
    2>&1 | tail -20
  cp "$OUT"/fixtures/qwen3_*.jsonl tests/fixtures/tokenizers/
fi
python3 bench/baselines/tokenizer_encode_hf.py --tokenizer tests/fixtures/tokenizers/qwen3 \
  --data gpu_inputs/gsm8k/train.jsonl --out "$OUT/hf_baseline.json"
RAYON_NUM_THREADS=1 python3 bench/baselines/tokenizer_encode_hf.py \
  --tokenizer tests/fixtures/tokenizers/qwen3 --data gpu_inputs/gsm8k/train.jsonl \
  --out "$OUT/hf_baseline_1thread.json"

scripts/setup
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null &&
  timeout 170 cmake --build build -j 16 --target verlpp_tokenizer_tests verlpp_tokenizer_bench 2>&1 | tail -30
timeout 60 build/tests/unit/tokenizer/verlpp_tokenizer_tests 2>&1 | tail -40 | tee "$OUT/tests.txt"
for threads in 16 8 4; do
  timeout 60 build/bench/verlpp_tokenizer_bench --tokenizer tests/fixtures/tokenizers/qwen3 \
    --data gpu_inputs/gsm8k/train.jsonl --baseline "$OUT/hf_baseline.json" --threads "$threads" \
    --baseline-1thread "$OUT/hf_baseline_1thread.json" 2>&1 | tee -a "$OUT/bench.txt"
done
