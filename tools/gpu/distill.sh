#!/usr/bin/env bash
# GPU-machine job for issue 19 (on-policy distillation), from the repository root with $OUT set
# (carry .gpu-deps):
#  1. regenerates the algorithm fixture with PyTorch (tools/make_algo_fixture.py: the distillation
#     losses alone and combined with the PPO loss) into $OUT/algo_fixture.json and the tree;
#  2. builds (Release) the algorithm, model and engine tests and verlpp_distill_step_bench, runs the
#     algorithm tests (CPU and CUDA) on the fresh fixture, the chunked log-prob tests and the engine
#     tests;
#  3. transformers' forward of the Qwen3.5-35B-A3B teacher (bench/baselines/train_step_hf.py, bf16
#     parameters, micro-batches of 6 x 1,280 tokens: the teacher's sequences), then one
#     distillation step at the seed's shapes (bench/distill_step_bench.cpp: Qwen3.5-2B student,
#     Qwen3.5-35B-A3B teacher, colocated, 64 prompts x 256 + 1,024 tokens) against it.
# Every result line also goes to $OUT/results.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
{
python3 tools/make_algo_fixture.py --out "$OUT" && cp "$OUT/algo_fixture.json" tests/fixtures/algo/ ||
  echo "fixture generation failed"
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
    -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout 360 cmake --build build -j 16 --target verlpp_algo_tests verlpp_model_tests \
    verlpp_engine_tests verlpp_distill_step_bench; } > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
timeout 120 build/tests/unit/algo/verlpp_algo_tests > "$OUT/algo_tests.log" 2>&1
echo "algo tests rc=$?: $(tail -1 "$OUT/algo_tests.log")"; grep -E "FAILED|Failure" -A3 "$OUT/algo_tests.log" | head -20
timeout 60 build/tests/unit/model/verlpp_model_tests --gtest_filter='LogProb*' 2>&1 | grep -E "OK|FAILED|PASSED"
timeout 180 build/tests/unit/engine/verlpp_engine_tests > "$OUT/engine_tests.log" 2>&1
echo "engine tests rc=$?: $(tail -1 "$OUT/engine_tests.log")"; grep -E "FAILED" "$OUT/engine_tests.log" | head
timeout 120 python3 bench/baselines/train_step_hf.py --preset qwen3.5-35b-a3b --logprob-only 1 \
  --param-dtype bfloat16 --seq-len 1280 --micro-tokens 7680 --steps 3 --warmup 1 \
  > "$OUT/teacher_hf.json" 2> "$OUT/teacher_hf.err"
echo "teacher hf rc=$? at $((SECONDS - start)) s: $(cat "$OUT/teacher_hf.json") $(tail -2 "$OUT/teacher_hf.err" | cut -c1-200)"
base=()
[ -s "$OUT/teacher_hf.json" ] && base=(--baseline "$OUT/teacher_hf.json")
for mode in ${MODES:-k1 forward_kl_topk}; do
  timeout 200 build/bench/verlpp_distill_step_bench --loss-mode "$mode" "${base[@]}" \
    > "$OUT/distill_$mode.json" 2> "$OUT/distill_$mode.err"
  echo "distill $mode rc=$? at $((SECONDS - start)) s: $(cat "$OUT/distill_$mode.json") $(tail -3 "$OUT/distill_$mode.err")"
done
} 2>&1 | tee "$OUT/results.txt"
