#!/usr/bin/env bash
# GPU-machine job for the rollout engine (run from the root of a copy of the worktree; writes $OUT):
# 1. tools/make_rollout_fixture.py -> tests/fixtures/rollout/greedy.json (transformers greedy, CPU;
#    only with REGEN_FIXTURES=1 or when missing: the committed fixture is used as it is)
# 2. transformers generate baseline (bench/baselines/rollout_generate_hf.py) alone on the machine
# 3. build verlpp (PyTorch's LibTorch, Release) with the rollout tests and bench (again without CUDA
#    graphs if that build fails); run the rollout tests (CUDA ones included), then the verlpp
#    benchmark with and without CUDA graphs, and a small-batch run of each
# 4. `verlpp generate` on CUDA with a tiny random checkpoint and the Qwen3 tokenizer
set -uo pipefail
OUT=${OUT:?}
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "")' 2>&1 | tee "$OUT/versions.txt"

if [ "${REGEN_FIXTURES:-0}" = 1 ] || [ ! -f tests/fixtures/rollout/greedy.json ]; then
  timeout 100 python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout > "$OUT/fixture.log" 2>&1
  echo "fixture rc=$?"; tail -6 "$OUT/fixture.log"
  mkdir -p "$OUT/fixtures" && cp -r tests/fixtures/rollout "$OUT/fixtures/"
fi

timeout 200 python3 bench/baselines/rollout_generate_hf.py --output "$OUT/hf.json" > "$OUT/hf.log" 2>&1
echo "hf baseline rc=$?"; tail -2 "$OUT/hf.log"

scripts/setup > "$OUT/build.log" 2>&1
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
targets=(--target verlpp verlpp_rollout_tests verlpp_rollout_bench)
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DVERLPP_BUILD_BENCH=ON -DVERLPP_CUDA_GRAPHS=ON &&
       timeout 200 cmake --build build -j 16 "${targets[@]}"; } >> "$OUT/build.log" 2>&1; then
  echo "build failed; again without CUDA graphs"; grep -E "error" -A4 "$OUT/build.log" | head -30
  { cmake -B build -DVERLPP_CUDA_GRAPHS=OFF && timeout 100 cmake --build build -j 16 "${targets[@]}"; } >> "$OUT/build.log" 2>&1
fi
echo "build done"

if [ -x build/tests/unit/rollout/verlpp_rollout_tests ]; then
  timeout 120 build/tests/unit/rollout/verlpp_rollout_tests > "$OUT/rollout_tests.log" 2>&1
  echo "rollout_tests rc=$?"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|bf16|fp32 mean|decode attention|CUDA graph" "$OUT/rollout_tests.log" | head -60
fi
if [ -x build/bench/verlpp_rollout_bench ]; then
  timeout 100 build/bench/verlpp_rollout_bench --baseline "$OUT/hf.json" > "$OUT/bench.json" 2> "$OUT/bench.err"
  echo "bench rc=$?"; cat "$OUT/bench.json"; tail -5 "$OUT/bench.err"
  timeout 100 build/bench/verlpp_rollout_bench --no-cuda-graph --baseline "$OUT/hf.json" > "$OUT/bench_nograph.json" 2>&1
  echo "bench without CUDA graphs rc=$?"; cat "$OUT/bench_nograph.json"
  # A small batch shows the per-step cost that does not scale with the batch.
  for mode in graph nograph; do
    flag=(); [ "$mode" = nograph ] && flag=(--no-cuda-graph)
    timeout 60 build/bench/verlpp_rollout_bench --prompts 16 --response-length 512 "${flag[@]}" > "$OUT/bench_small_$mode.json" 2>&1
    echo "bench (16 prompts, 512 tokens, $mode) rc=$?"; cat "$OUT/bench_small_$mode.json"
  done
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
