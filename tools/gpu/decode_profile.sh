#!/usr/bin/env bash
# Qwen3.5 decode on the GPU machine (repository root, $OUT set, .gpu-deps carried): builds
# verlpp_delta_rule_decode_bench and verlpp_rollout_profile (Release), then (1) the fused delta-rule
# decode kernel against the ATen step it replaces, same call (256 and 64 sequences, Qwen3.5-2B's
# 16 heads of 128 x 128, and 32 heads); (2) CUDA kernel time per kernel of one Qwen3.5-2B generate
# call (PROMPTS x 512 -> RESPONSE tokens), eager (--no-cuda-graph) and with CUDA graphs.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 300 cmake --build build -j 16 --target verlpp_delta_rule_decode_bench verlpp_rollout_profile; } \
  > "$OUT/build.log" 2>&1 || { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
for args in "--seqs 256" "--seqs 64" "--seqs 256 --heads 32"; do
  timeout 60 build/bench/verlpp_delta_rule_decode_bench $args
done
shape=(--preset qwen3.5-2b --prompts "${PROMPTS:-256}" --prompt-length 512 --response-length "${RESPONSE:-64}")
timeout 120 build/bench/verlpp_rollout_profile "${shape[@]}" --no-cuda-graph 2>&1 | head -45
timeout 120 build/bench/verlpp_rollout_profile "${shape[@]}" 2>&1 | head -25
