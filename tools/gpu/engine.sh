#!/usr/bin/env bash
# The rollout engine's GPU-machine call (issue 22; from the repository root with $OUT set; carry
# .gpu-deps): builds the model and rollout tests and the rollout benchmark and profile (Release),
# runs the CUDA kernel and rollout tests, transformers' `generate` alone on the machine
# (bench/baselines/rollout_generate_hf.py, 256 x 512 -> 1,024, Qwen3-0.6B shape), then
# verlpp_rollout_bench on the same work with static batches and with the engine (tokens/s, the
# ratio to transformers, decode_ms_per_step, decode_mbu; the engine also under verl's
# max_num_batched_tokens 8192, chunked prefill), the GRPO-shaped rollout (64 GSM8K prompts x n 8,
# stopping at any of 500 end ids, up to 1,024 tokens) four ways (static without prefix sharing,
# static, engine, engine with 8192 tokens a step) and under max_num_seqs 128 (static chunks,
# engine, engine with 8192), the decode attention kernel alone against the same call's summed read
# of the same bytes (verlpp_decode_attention_bench at mean lengths 512, 1,024 and 2,048), and with
# PROFILE_ROLLOUT=1 the kernel profile of one 256 x 512 -> 256 engine call. HF=0 skips
# transformers, GRPO=0 the GRPO-shaped runs. Results also in $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 320 cmake --build build -j 16 --target verlpp_model_tests verlpp_rollout_tests \
    verlpp_rollout_bench verlpp_rollout_profile \
    verlpp_decode_attention_bench; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s" | tee "$OUT/results.txt"
{
  timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='*RopeCache*:*DecodeAttention*:*PagedDecode*:*ContextAttention*:*Gpu*:-*Checkpoint*' \
    > "$OUT/model_tests.log" 2>&1
  echo "model tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |Failure" "$OUT/model_tests.log" | head -20
  timeout 150 build/tests/unit/rollout/verlpp_rollout_tests --gtest_filter='-*Checkpoint*' \
    > "$OUT/rollout_tests.log" 2>&1
  echo "rollout tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |Failure" "$OUT/rollout_tests.log" | head -20
  for length in 512 1024 2048; do
    timeout 60 build/bench/verlpp_decode_attention_bench --length $length 2>&1 | tail -1
  done
  base=()
  if [ "${HF:-1}" = 1 ]; then
    timeout 200 python3 bench/baselines/rollout_generate_hf.py --output "$OUT/hf.json" > "$OUT/hf.log" 2>&1
    echo "hf baseline rc=$?"; cat "$OUT/hf.json"
    [ -s "$OUT/hf.json" ] && base=(--baseline "$OUT/hf.json")
  fi
  for flag in --static-batches "" "--max-num-batched-tokens 8192"; do
    timeout 75 build/bench/verlpp_rollout_bench $flag "${base[@]}" 2>&1 | tail -2
  done
  if [ "${GRPO:-1}" = 1 ]; then
    for flag in "--no-prefix-caching --static-batches" --static-batches "" \
                "--max-num-batched-tokens 8192" "--max-num-seqs 128 --static-batches" \
                "--max-num-seqs 128" "--max-num-seqs 128 --max-num-batched-tokens 8192"; do
      timeout 75 build/bench/verlpp_rollout_bench --prompts 64 --n 8 \
        --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500 \
        --response-length 1024 $flag 2>&1 | tail -1
    done
  fi
  if [ "${PROFILE_ROLLOUT:-0}" = 1 ]; then
    timeout 90 build/bench/verlpp_rollout_profile --response-length 256 \
      > "$OUT/profile_rollout_engine.txt" 2>&1
    head -30 "$OUT/profile_rollout_engine.txt"; grep "wall ms" "$OUT/profile_rollout_engine.txt"
  fi
  echo "call took $((SECONDS - start)) s"
} 2>&1 | tee -a "$OUT/results.txt"
