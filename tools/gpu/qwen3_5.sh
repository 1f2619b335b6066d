#!/usr/bin/env bash
# The Qwen3.5 GPU-machine call (from the repository root with $OUT set; carry .gpu-deps): builds the
# benchmark and test targets (Release), runs the Qwen3.5 CUDA tests (bf16 logits against the
# fixtures' float64 reference within transformers' own bf16 gap, fp32 CUDA against the CPU, the
# rollout's log-probs with and without CUDA graphs), the model tests' CUDA cases (delta rule and
# chunk terms, conv, l2 norm, log-prob kernels, contiguous and paged decode attention) and every
# rollout test (the checkpoint tests are left out: their
# std::filesystem temp folders crash on that machine's LibTorch, README "Not done yet"), then tools/gpu/qwen3_5_bench.sh (verlpp
# against transformers in the same call). TARGETS names the build targets, TESTS=0 skips the tests,
# PART=train / PART=rollout runs only the training pairs / the rollout pair (default: all four);
# PROFILE=1 adds kernel profiles of the Qwen3.5-2B log-prob pass and update
# (verlpp_train_step_profile; $OUT/profile_logprob.txt, profile_update.txt); PREFIX=1 times the
# rollout of 64 prompts x n 8 (512 -> 256 tokens) with and without rollout.enable_prefix_caching
# on the Qwen3-0.6B and Qwen3.5-2B shapes (verlpp_rollout_bench --n 8); ENGINE=1 times issue 22's
# GRPO-shaped rollout (64 GSM8K prompts x n 8, responses stopping at eos, up to 1,024 tokens:
# --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500) on both shapes (or
# ENGINE_PRESETS) three ways: static batches (--static-batches) without prefix sharing (the rollout before issue
# 22), static batches with it, and the engine (the default: continuous batching, paged KV, CUDA
# graphs over block tables); then on the Qwen3-0.6B shape with rollout.max_num_seqs 128 (static
# chunks against continuous batching), and 256 x 512 -> 1,024 static and engine (ENGINE_256=0:
# not); PROFILE_ROLLOUT=1 the kernel profile of one 256 x 512 -> 256 Qwen3-0.6B generate call,
# static and engine ($OUT/profile_rollout_*.txt; verlpp_rollout_profile); BENCH=0 skips the
# benchmarks.
# The benchmarks get what is left of a 570 s call, at most 530 s (their BUDGET). Every result line
# also goes to $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 320 cmake --build build -j 16 --target ${TARGETS:-verlpp_train_step_bench \
    verlpp_rollout_bench verlpp_model_tests verlpp_rollout_tests}; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s" | tee "$OUT/results.txt"
{
  [ "${TESTS:-1}" = 1 ] && timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='*Qwen3_5*:*DeltaRule*:*CausalConv*:*L2Normalize*:*LogProb*:*DecodeAttention*:*PagedDecode*:*Gpu*:-*Checkpoint*' > "$OUT/model_tests.log" 2>&1
  grep -E "FAILED|PASSED|bf16|fp32 CUDA|float64" "$OUT/model_tests.log"; tail -3 "$OUT/model_tests.log"
  [ "${TESTS:-1}" = 1 ] && timeout 150 build/tests/unit/rollout/verlpp_rollout_tests \
    --gtest_filter='-*Checkpoint*' 2>&1 | grep -E "FAILED|PASSED|Qwen3.5"
  if [ "${PROFILE:-0}" = 1 ]; then
    for mode in logprob update; do
      timeout 90 build/bench/verlpp_train_step_profile --preset qwen3.5-2b --steps 1 --warmup 2 \
        --logprob-only "$([ $mode = logprob ] && echo 1 || echo 0)" > "$OUT/profile_$mode.txt" 2>&1
      head -30 "$OUT/profile_$mode.txt"
    done
  fi
  if [ "${PREFIX:-0}" = 1 ]; then
    for preset in qwen3-0.6b qwen3.5-2b; do
      for flag in "" --no-prefix-caching; do
        timeout 60 build/bench/verlpp_rollout_bench --preset $preset --prompts 64 --n 8 \
          --prompt-length 512 --response-length 256 $flag 2>&1 | tail -2
      done
    done
  fi
  if [ "${ENGINE:-0}" = 1 ]; then
    for preset in ${ENGINE_PRESETS:-qwen3-0.6b qwen3.5-2b}; do
      for flag in "--no-prefix-caching --static-batches" --static-batches ""; do
        timeout 75 build/bench/verlpp_rollout_bench --preset $preset --prompts 64 --n 8 \
          --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500 \
          --response-length 1024 $flag 2>&1 | tail -1
      done
    done
    for flag in "--max-num-seqs 128 --static-batches" "--max-num-seqs 128"; do
      timeout 75 build/bench/verlpp_rollout_bench --preset qwen3-0.6b --prompts 64 --n 8 \
        --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500 \
        --response-length 1024 $flag 2>&1 | tail -1
    done
    for flag in $([ "${ENGINE_256:-1}" = 1 ] && echo --static-batches engine); do
      timeout 75 build/bench/verlpp_rollout_bench --preset qwen3-0.6b ${flag%engine} 2>&1 | tail -1
    done
  fi
  if [ "${PROFILE_ROLLOUT:-0}" = 1 ]; then
    for flag in --static-batches ""; do
      name=$([ -n "$flag" ] && echo static || echo engine)
      timeout 90 build/bench/verlpp_rollout_profile --preset qwen3-0.6b --response-length 256 \
        $flag > "$OUT/profile_rollout_$name.txt" 2>&1
      head -16 "$OUT/profile_rollout_$name.txt"; grep "wall ms" "$OUT/profile_rollout_$name.txt"
    done
  fi
  left=$((570 - (SECONDS - start)))
  [ "${BENCH:-1}" = 1 ] && BENCH_TEE=0 BUDGET=$((left < 530 ? left : 530)) bash tools/gpu/qwen3_5_bench.sh
} 2>&1 | tee -a "$OUT/results.txt"
