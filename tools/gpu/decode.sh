#!/usr/bin/env bash
# GPU-machine job for the decode attention kernel (src/verlpp/kernels): builds verlpp with its CUDA
# kernels (Release), runs the CUDA decode tests (kernel against fp64 attention, rollout against the
# trainer's forward, CUDA graphs against eager decode), the rollout benchmark (the Qwen3-0.6B shape,
# 256 prompts x 512 + 1,024 tokens, and 16 prompts), then, when the tests pass, issue 9's GRPO step
# (tools/gpu/ppo.sh: 256 prompts x n = 8 x 1,024 tokens). Run from the repository root with $OUT
# set; GSM8K in gpu_data/gsm8k and the PCRE2/utf8proc debs in .gpu-deps/debs (carried).
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
start=$SECONDS
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
  -DCMAKE_PREFIX_PATH="$prefix" > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
grep -E "verlpp CUDA kernels|CUDA compiler" "$OUT/configure.log"
timeout 300 cmake --build build -j 16 --target verlpp verlpp_model_tests verlpp_rollout_tests \
  verlpp_rollout_bench > "$OUT/build.log" 2>&1 || { grep -E "error" -A5 "$OUT/build.log" | head -60; exit 1; }
echo "build took $((SECONDS - start)) s"

build/tests/unit/model/verlpp_model_tests --gtest_filter='*DecodeAttention*Gpu*:*ModelGpu*' > "$OUT/model_gpu_tests.log" 2>&1
model_rc=$?
build/tests/unit/rollout/verlpp_rollout_tests > "$OUT/rollout_tests.log" 2>&1
rollout_rc=$?
echo "model GPU tests rc=$model_rc, rollout tests rc=$rollout_rc"
grep -hE "^\[  (FAILED|PASSED|SKIPPED) |Failure|Expected|Which is|decode attention|CUDA graph|bf16 CUDA" \
  "$OUT/model_gpu_tests.log" "$OUT/rollout_tests.log" | head -40

bench=build/bench/verlpp_rollout_bench
timeout 100 $bench > "$OUT/rollout_bench.json" 2>&1; echo "rollout bench: $(cat "$OUT/rollout_bench.json")"
timeout 60 $bench --prompts 16 --response-length 512 > "$OUT/rollout_bench_small.json" 2>&1
echo "rollout bench, 16 prompts: $(cat "$OUT/rollout_bench_small.json")"

[ "$model_rc" = 0 ] && [ "$rollout_rc" = 0 ] || { echo "tests failed: no GRPO step"; exit 1; }
mkdir -p "$OUT/ppo"
OUT="$OUT/ppo" CMAKE_BUILD_TYPE=Release STEPS=1 TRAIN_BATCH=256 N=8 RESPONSE_LENGTH=1024 MINI_BATCH=64 \
  MAX_NUM_SEQS=512 RUN_TIMEOUT=300 bash tools/gpu/ppo.sh | tail -c 1500
echo "all done at $((SECONDS - start)) s"
