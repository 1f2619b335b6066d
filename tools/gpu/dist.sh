#!/usr/bin/env bash
# GPU-machine job for issue 20 (data parallel over c10d): builds verlpp with the rollout and dist
# tests, runs a GRPO step as one launched rank (`verlpp launch --nproc-per-node 1`: a NCCL process
# group of one, every collective of the trainer on the GPU), then the rollout GPU tests (row-keyed
# sampling on CUDA) and the dist tests. Run from the repository root with .gpu-deps carried.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
LAUNCH="launch --nproc-per-node 1" EXTRA_TARGETS="verlpp_rollout_tests verlpp_dist_tests" \
  STEPS=${STEPS:-3} bash tools/gpu/ppo.sh
grep -E "verlpp \[rank|nccl|error" "$OUT/ppo.log" | head -20
build/tests/unit/rollout/verlpp_rollout_tests --gtest_filter='*Gpu*:Sampling*:Rollout.Chunks*' \
  > "$OUT/rollout_tests.log" 2>&1
echo "rollout tests rc=$?"; grep -E "^\[  (PASSED|FAILED)|mean \|" "$OUT/rollout_tests.log" | head -30
build/tests/unit/dist/verlpp_dist_tests > "$OUT/dist_tests.log" 2>&1
echo "dist tests rc=$?"; tail -5 "$OUT/dist_tests.log"
