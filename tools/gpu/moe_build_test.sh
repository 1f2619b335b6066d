#!/usr/bin/env bash
# GPU-machine job 1 of the Qwen3-MoE issue (run from the repository root with $OUT set): builds
# verlpp (Release, benchmarks on) into build/, runs the CUDA tests of the model, rollout and engine
# suites (MoE bf16 logits, grouped GEMM vs per-expert loop, MoE rollout with and without CUDA
# graphs) and tools/check_model_init.py (transformers loads `verlpp model init` checkpoints, MoE
# included). tools/gpu/moe_bench.sh is job 2 and reuses this build.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
start=$SECONDS
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout "${BUILD_TIMEOUT:-400}" cmake --build build -j 16; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
for suite in model rollout engine; do
  timeout 120 "build/tests/unit/$suite/verlpp_${suite}_tests" --gtest_filter='*Gpu*:Optimizer.*:*Moe*' \
    > "$OUT/${suite}_gpu_tests.log" 2>&1
  echo "$suite GPU tests rc=$?"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|bf16|fp32 CUDA|MoE" "$OUT/${suite}_gpu_tests.log" | head -20
done
timeout 100 python3 tools/check_model_init.py build/verlpp /tmp/verlpp_init > "$OUT/init_check.json" 2> "$OUT/init_check.err"
echo "init_check rc=$?"; grep -E '"arch"|"ok"|max_abs' "$OUT/init_check.json" | tr -d ' \n'; echo; tail -3 "$OUT/init_check.err"
echo "done at $((SECONDS - start)) s"
