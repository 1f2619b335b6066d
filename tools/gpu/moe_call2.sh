#!/usr/bin/env bash
# One GPU-machine call for the Qwen3-MoE issue's measurements (run from the repository root with
# $OUT set): builds the benchmark and model-test targets (Release), regenerates the MoE fixtures
# (tools/make_moe_fixtures.py, tools/make_rollout_fixture.py; packed into $OUT/moe_fixtures.tgz),
# runs the MoE tests on them (CPU parity and CUDA), then tools/gpu/moe_bench.sh.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 300 cmake --build build -j 16 --target verlpp_train_step_bench verlpp_train_step_profile \
    verlpp_model_tests; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
timeout 300 python3 tools/make_moe_fixtures.py tests/fixtures/model > "$OUT/moe_fixtures.log" 2>&1
echo "fixtures rc=$?"
grep -o '"seed": [0-9]*\|"min_topk_logit_gap": [0-9.e-]*\|"bf16_tolerance": [0-9.e-]*' "$OUT/moe_fixtures.log"
timeout 120 python3 tools/make_rollout_fixture.py tests/fixtures/model tests/fixtures/rollout > "$OUT/rollout_fixture.log" 2>&1
echo "rollout fixture rc=$?"
tar czf "$OUT/moe_fixtures.tgz" tests/fixtures/model/qwen3_moe* tests/fixtures/model/reference_moe.json tests/fixtures/rollout/greedy.json
timeout 60 build/tests/unit/model/verlpp_model_tests --gtest_filter='*Moe*' > "$OUT/moe_tests.log" 2>&1
echo "moe tests rc=$? at $((SECONDS - start)) s"
grep -E "FAILED|PASSED|bf16|fp32 CUDA|worst|max \|" "$OUT/moe_tests.log" | head -20
bash tools/gpu/moe_bench.sh
