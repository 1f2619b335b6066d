#!/usr/bin/env bash
# Issue 9's measurements in one GPU-machine call (run from the repository root with $OUT set):
# the transformers training baselines (bench/baselines/train_step_hf.py: GPU-bound) run while
# verlpp builds (Release, benchmarks and Parquet on); then the CUDA unit tests (every test under
# ctest with RUN_CTEST=1), the actor-update and log-prob benchmarks against their baselines, the
# rollout benchmark with and without CUDA graphs against transformers generate (run alone: it is
# bound by the host's kernel launches, which a build would slow), and a kernel profile of one
# Qwen3-1.7B update. The GRPO step is tools/gpu/ppo.sh (a second call: it reuses this build).
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.txt" 2>&1

baselines() {
  python3 bench/baselines/train_step_hf.py --preset qwen3-0.6b > "$OUT/train_0.6b.hf.json" 2> "$OUT/train_0.6b.hf.err"
  python3 bench/baselines/train_step_hf.py --preset qwen3-1.7b > "$OUT/train_1.7b.hf.json" 2> "$OUT/train_1.7b.hf.err"
  python3 bench/baselines/train_step_hf.py --preset qwen3-1.7b --logprob-only 1 > "$OUT/logprob_1.7b.hf.json" 2> "$OUT/logprob_1.7b.hf.err"
}
baselines &
baseline_pid=$!

prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
start=$SECONDS
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DVERLPP_WITH_PARQUET=ON -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout "${BUILD_TIMEOUT:-330}" nice cmake --build build -j 15; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
wait "$baseline_pid"
echo "baselines done at $((SECONDS - start)) s"

if [ "${RUN_CTEST:-0}" = 1 ]; then
  ctest --test-dir build -j 4 --timeout 120 --output-on-failure > "$OUT/ctest.log" 2>&1
  echo "ctest rc=$?"
  grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|\(Subprocess aborted\)" "$OUT/ctest.log" | head -30
fi
for suite in model rollout engine; do
  "build/tests/unit/$suite/verlpp_${suite}_tests" --gtest_filter='*Gpu*:Optimizer.*' \
    > "$OUT/${suite}_gpu_tests.log" 2>&1
  echo "$suite GPU tests rc=$?"
  grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|decode attention|CUDA graph" "$OUT/${suite}_gpu_tests.log" | head -12
done

bench=build/bench
$bench/verlpp_train_step_bench --preset qwen3-0.6b --baseline "$OUT/train_0.6b.hf.json" > "$OUT/train_0.6b.json"
$bench/verlpp_train_step_bench --preset qwen3-1.7b --baseline "$OUT/train_1.7b.hf.json" > "$OUT/train_1.7b.json"
$bench/verlpp_train_step_bench --preset qwen3-1.7b --logprob-only 1 --baseline "$OUT/logprob_1.7b.hf.json" > "$OUT/logprob_1.7b.json"
for f in train_0.6b train_1.7b logprob_1.7b; do echo "$f: $(cat "$OUT/$f.json")"; done
timeout 200 python3 bench/baselines/rollout_generate_hf.py --output "$OUT/rollout.hf.json" > "$OUT/rollout.hf.log" 2>&1
timeout 100 $bench/verlpp_rollout_bench --baseline "$OUT/rollout.hf.json" > "$OUT/rollout_graph.json" 2> "$OUT/rollout_graph.err"
timeout 100 $bench/verlpp_rollout_bench --no-cuda-graph --baseline "$OUT/rollout.hf.json" > "$OUT/rollout_nograph.json" 2> "$OUT/rollout_nograph.err"
for f in rollout_graph rollout_nograph; do echo "$f: $(cat "$OUT/$f.json")"; done
timeout 60 $bench/verlpp_train_step_profile --preset qwen3-1.7b --steps 1 --warmup 2 > "$OUT/profile_1.7b.txt" 2>&1
echo "all done at $((SECONDS - start)) s"
