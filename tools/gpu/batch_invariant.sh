#!/usr/bin/env bash
# Batch-invariant mode on CUDA (issue 22's bit-identical rollout/trainer log-probs; from the
# repository root with $OUT set; carry .gpu-deps): builds the model and rollout tests and the
# rollout benchmark (Release), runs the mode's CUDA tests (InvariantOpsGpu: chunked cuBLAS rows and
# the decode kernel's fixed key split; RolloutBatchInvariantGpu: the rollout's log-probs equal the
# trainer's padded and packed passes bit for bit on small bf16 Qwen3, Qwen2 and Qwen3-MoE models,
# four engine set-ups) and the other rollout and decode tests, then the rollout benchmark
# (256 x 512 -> 1,024, Qwen3-0.6B shape, and the GRPO-shaped 64 x n 8 GSM8K work) with and without
# VLLM_BATCH_INVARIANT=1 (the mode's cost), and with STEP=1 a GRPO step (tools/gpu/ppo.sh, 64
# prompts x n 8, 512 response tokens) with the mode: training/rollout_probs_diff_max and the first
# update's actor/ppo_kl must be 0. Results also in $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 320 cmake --build build -j 16 --target verlpp_model_tests verlpp_rollout_tests \
    verlpp_rollout_bench; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s" | tee "$OUT/results.txt"
{
  timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='Invariant*:*Gpu*:*RopeCache*:*DecodeAttention*:*PagedDecode*:*ContextAttention*:-*Checkpoint*' \
    > "$OUT/model_tests.log" 2>&1
  echo "model tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |Failure|Which is" "$OUT/model_tests.log" | head -20
  timeout 200 build/tests/unit/rollout/verlpp_rollout_tests --gtest_filter='-*Checkpoint*' \
    > "$OUT/rollout_tests.log" 2>&1
  echo "rollout tests rc=$?"; grep -E "^\[  (FAILED|PASSED) |Failure|Which is" "$OUT/rollout_tests.log" | head -30
  for mode in $([ "${BENCH:-1}" = 1 ] && echo 0 1); do
    VLLM_BATCH_INVARIANT=$mode timeout 120 build/bench/verlpp_rollout_bench 2>&1 | tail -1
    VLLM_BATCH_INVARIANT=$mode timeout 90 build/bench/verlpp_rollout_bench --prompts 64 --n 8 \
      --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500 --response-length 1024 \
      2>&1 | tail -1
  done
  echo "call took $((SECONDS - start)) s"
} 2>&1 | tee -a "$OUT/results.txt"
if [ "${STEP:-0}" = 1 ]; then
  mkdir -p "$OUT/step"
  VLLM_BATCH_INVARIANT=1 OUT="$OUT/step" GSM8K_DIR=${GSM8K_DIR:-.gpu-deps/gsm8k} STEPS=1 \
    TRAIN_BATCH=64 N=8 RESPONSE_LENGTH=512 MINI_BATCH=64 RUN_TIMEOUT=200 \
    CMAKE_BUILD_TYPE=Release bash tools/gpu/ppo.sh 2>&1 | tail -5
  python3 - "$OUT/step/ppo_metrics.jsonl" <<'PY' 2>&1 | tee -a "$OUT/results.txt"
import json, sys
m = {}
for l in map(json.loads, open(sys.argv[1])):
    m.update(l["data"])
for k in ("training/rollout_probs_diff_max", "actor/ppo_kl", "timing_s/gen", "timing_s/old_log_prob",
          "timing_s/update_actor", "timing_s/step"):
    print(k, m.get(k))
PY
fi
