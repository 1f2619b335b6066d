#!/usr/bin/env bash
# CUDA-graph decode of the MoE models (run from the repository root with $OUT set; carry
# .gpu-deps): builds the model and rollout test suites and verlpp_rollout_bench (Release), runs
# the GPU tests of the MoE rollouts (Qwen3-MoE and Qwen3.5-MoE, static batches and the engine,
# eager against graphed decode), then the rollout benchmark on the Qwen3-30B-A3B shape (48 layers,
# 128 experts, top 8; random bf16 weights) with and without CUDA graphs, after transformers'
# `generate` on the same shape (bench/baselines/rollout_generate_hf.py). SHAPE (default
# "64 256 256": prompts, prompt length, response length) sets the work; PRESET another MoE shape
# (qwen3.5-35b-a3b); SMALL (default 16) adds
# a graphed / eager pair at that many prompts, where the decode step reads fewer experts; TESTS=0
# builds and runs the benchmark only; BENCH=0 the tests only (with the MoE kernels' and the RMSNorm
# and silu·mul tests); HF_JSON=file takes transformers' result from an earlier call. Output on stdout (keep the call's files few).
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1
cat "$OUT/gpu.txt"
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
start=$SECONDS
targets=(verlpp_rollout_bench)
[ "${TESTS:-1}" = 1 ] && targets+=(verlpp_model_tests verlpp_rollout_tests)
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 360 cmake --build build -j 16 --target "${targets[@]}"; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "build took $((SECONDS - start)) s"

if [ "${TESTS:-1}" = 1 ]; then
  timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='MoeDecode*:MoeKernels*:MoeGpu*:RmsNormGpu*' 2>&1 |
    grep -E "^\[  (FAILED|PASSED) |Failure|Which is|differ|worst|bf16 |fp32 " | head -60
  timeout 200 build/tests/unit/rollout/verlpp_rollout_tests \
    --gtest_filter='RolloutGpu.Moe*:RolloutGpu.Qwen3_5Rollout*:RolloutGpu.*CudaGraph*:RolloutGpu.Engine*' 2>&1 |
    grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|MoE|graphs" | head -30
  echo "rollout GPU tests done at $((SECONDS - start)) s"
fi
[ "${BENCH:-1}" = 1 ] || exit 0

read -r prompts plen rlen <<< "${SHAPE:-64 256 256}"
work=(--preset "${PRESET:-qwen3-30b-a3b}" --prompt-length "$plen" --response-length "$rlen")
if [ -n "${HF_JSON:-}" ]; then  # transformers' result of an earlier call on the same work
  cp "$HF_JSON" "$OUT/hf.json"
else
  timeout 240 python3 bench/baselines/rollout_generate_hf.py "${work[@]}" --prompts "$prompts" \
    --output "$OUT/hf.json" > /dev/null 2> "$OUT/hf.err"
  echo "transformers rc=$? at $((SECONDS - start)) s: $(cat "$OUT/hf.json" 2> /dev/null)"
  tail -2 "$OUT/hf.err"
fi
bench() {  # bench ARGS...
  echo "verlpp_rollout_bench $*"
  timeout 150 build/bench/verlpp_rollout_bench "${work[@]}" --draw-on-gpu --gpu-memory-utilization 0.9 "$@" 2>&1 | tail -3
  echo "rc=${PIPESTATUS[0]} at $((SECONDS - start)) s"
}
baseline=()
[ -s "$OUT/hf.json" ] && baseline=(--baseline "$OUT/hf.json")
bench --prompts "$prompts" "${baseline[@]}"
bench --prompts "$prompts" --no-cuda-graph "${baseline[@]}"
small=${SMALL:-16}
if [ "$small" -gt 0 ]; then
  bench --prompts "$small"
  bench --prompts "$small" --no-cuda-graph
fi
echo "done at $((SECONDS - start)) s"
