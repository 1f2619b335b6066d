#!/usr/bin/env bash
# The Qwen3-MoE GPU-machine call (from the repository root with $OUT set): builds the benchmark and
# test targets (Release); with REGEN_FIXTURES=1 remakes the MoE fixtures (tools/make_moe_fixtures.py,
# tools/make_rollout_fixture.py; packed into $OUT/moe_fixtures.tgz); runs the MoE and CUDA tests,
# then tools/gpu/moe_bench.sh (PROFILE=1 adds kernel profiles); every result line also goes to
# $OUT/results.txt. bench/results/moe_run1..3 came from this script's steps.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 300 cmake --build build -j 16 --target verlpp_train_step_bench verlpp_train_step_profile \
    verlpp_model_tests verlpp_rollout_tests; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
if [ "${REGEN_FIXTURES:-0}" = 1 ]; then
  timeout 300 python3 tools/make_moe_fixtures.py tests/fixtures/model > "$OUT/moe_fixtures.log" 2>&1
  echo "fixtures rc=$?"
  timeout 120 python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout \
    > "$OUT/rollout_fixture.log" 2>&1
  echo "rollout fixture rc=$?"
  tar czf "$OUT/moe_fixtures.tgz" tests/fixtures/model/qwen3_moe* tests/fixtures/model/reference_moe.json \
    tests/fixtures/rollout/greedy.json
fi
{
  timeout 60 build/tests/unit/model/verlpp_model_tests --gtest_filter='*Moe*:*Gpu*' 2>&1 |
    grep -E "FAILED|PASSED|bf16|fp32 CUDA"
  timeout 60 build/tests/unit/rollout/verlpp_rollout_tests --gtest_filter='*Gpu*:*Transformers*' 2>&1 |
    grep -E "FAILED|PASSED|MoE|bf16"
  PROFILE=${PROFILE:-0} bash tools/gpu/moe_bench.sh
} 2>&1 | tee "$OUT/results.txt"
