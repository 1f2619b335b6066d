#!/usr/bin/env bash
# The Qwen3-MoE issue's final GPU-machine call (from the repository root with $OUT set): builds the
# benchmark and test targets (Release), runs the MoE CUDA tests, then tools/gpu/moe_bench.sh
# without profiles; every result line also goes to $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 300 cmake --build build -j 16 --target verlpp_train_step_bench verlpp_model_tests \
    verlpp_rollout_tests; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
{
  timeout 60 build/tests/unit/model/verlpp_model_tests --gtest_filter='*Moe*:*Gpu*' 2>&1 |
    grep -E "FAILED|PASSED|bf16|fp32 CUDA"
  timeout 60 build/tests/unit/rollout/verlpp_rollout_tests --gtest_filter='*Gpu*:*Transformers*' 2>&1 |
    grep -E "FAILED|PASSED|MoE|bf16"
  PROFILE=0 bash tools/gpu/moe_bench.sh
} 2>&1 | tee "$OUT/results.txt"
