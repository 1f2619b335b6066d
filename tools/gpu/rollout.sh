#!/usr/bin/env bash
# GPU-machine job for the rollout engine (run from the root of a copy of the worktree; writes $OUT):
# 1. tools/make_rollout_fixture.py -> tests/fixtures/rollout/greedy.json (transformers greedy, CPU;
#    only with REGEN_FIXTURES=1 or when missing: the committed fixture is used as it is)
# 2. transformers generate baseline (bench/baselines/rollout_generate_hf.py), started first on the
#    otherwise idle GPU while verlpp builds at nice 19 (the baseline keeps its CPU core)
# 3. build verlpp (PyTorch's LibTorch, Release) with the rollout tests and bench; run the rollout
#    tests (CUDA ones included), then the verlpp benchmark against the baseline's JSON
set -uo pipefail
OUT=${OUT:?}
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>&1 | tee "$OUT/versions.txt"

if [ "${REGEN_FIXTURES:-0}" = 1 ] || [ ! -f tests/fixtures/rollout/greedy.json ]; then
  timeout 100 python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout > "$OUT/fixture.log" 2>&1
  echo "fixture rc=$?"; tail -6 "$OUT/fixture.log"
  mkdir -p "$OUT/fixtures" && cp -r tests/fixtures/rollout "$OUT/fixtures/"
fi

timeout 200 python3 bench/baselines/rollout_generate_hf.py --output "$OUT/hf.json" > "$OUT/hf.log" 2>&1 &
hf_pid=$!

scripts/setup > "$OUT/build.log" 2>&1
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DVERLPP_BUILD_BENCH=ON &&
       timeout 230 nice -n 19 cmake --build build -j 16 --target verlpp verlpp_rollout_tests verlpp_rollout_bench; } >> "$OUT/build.log" 2>&1; then
  echo "build failed"; grep -E "error|Error" -A4 "$OUT/build.log" | head -60
fi
echo "build done"

wait "$hf_pid"; echo "hf baseline rc=$?"; tail -3 "$OUT/hf.log"

if [ -x build/tests/unit/rollout/verlpp_rollout_tests ]; then
  timeout 120 build/tests/unit/rollout/verlpp_rollout_tests > "$OUT/rollout_tests.log" 2>&1
  echo "rollout_tests rc=$?"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|bf16|fp32 mean|decode attention" "$OUT/rollout_tests.log" | head -60
fi
if [ -x build/bench/verlpp_rollout_bench ]; then
  timeout 150 build/bench/verlpp_rollout_bench --baseline "$OUT/hf.json" > "$OUT/bench.json" 2> "$OUT/bench.err"
  echo "bench rc=$?"; cat "$OUT/bench.json"; tail -5 "$OUT/bench.err"
  # Diagnostic: a small batch shows the per-step cost that does not scale with the batch.
  timeout 60 build/bench/verlpp_rollout_bench --prompts 16 --response-length 512 > "$OUT/bench_small.json" 2>&1
  echo "bench (16 prompts, 512 tokens) rc=$?"; cat "$OUT/bench_small.json"
fi
# The command line on CUDA (bf16): a tiny random Qwen3 with the Qwen3 tokenizer, two prompts.
if [ -x build/verlpp ]; then
  { build/verlpp model init --arch qwen3 --hidden-size 64 --intermediate-size 128 --num-hidden-layers 2 \
      --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 151669 \
      --tokenizer tests/fixtures/tokenizers/qwen3 --output /tmp/verlpp_gen_ckpt &&
    build/verlpp generate --model /tmp/verlpp_gen_ckpt --prompt "Hello" --prompt "What is 2+2?" --n 2 \
      --response-length 16 --device cuda; } > "$OUT/generate_cli.log" 2>&1
  echo "generate cli rc=$?"; tail -3 "$OUT/generate_cli.log"
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
