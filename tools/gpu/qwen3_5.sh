#!/usr/bin/env bash
# The Qwen3.5 GPU-machine call (from the repository root with $OUT set; carry .gpu-deps): builds the
# benchmark and test targets (Release), runs the Qwen3.5 CUDA tests (bf16 logits against the
# fixtures' float64 reference within transformers' own bf16 gap, fp32 CUDA against the CPU, the
# rollout's log-probs with and without CUDA graphs), then tools/gpu/qwen3_5_bench.sh (verlpp
# against transformers in the same call). Every result line also goes to $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 320 cmake --build build -j 16 --target verlpp_train_step_bench \
    verlpp_rollout_generate_bench verlpp_model_tests verlpp_rollout_tests; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s" | tee "$OUT/results.txt"
{
  timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='*Qwen3_5*:*DeltaRule*' 2>&1 | grep -E "FAILED|PASSED|bf16|fp32 CUDA|float64"
  timeout 120 build/tests/unit/rollout/verlpp_rollout_tests \
    --gtest_filter='*Qwen3_5*:*Transformers*' 2>&1 | grep -E "FAILED|PASSED|Qwen3.5"
  [ -f tools/gpu/qwen3_5_bench.sh ] && bash tools/gpu/qwen3_5_bench.sh
} 2>&1 | tee -a "$OUT/results.txt"
