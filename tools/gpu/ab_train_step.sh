#!/usr/bin/env bash
# Same-call A/B of the training-step benchmark (from the repository root with $OUT set; carry
# .gpu-deps and the trees BASE names, for example .ab/main made by `git archive REV CMakeLists.txt
# cmake config src apps bench | tar x -C .ab/main`): builds verlpp_train_step_bench (Release) of
# each tree in BASE and of this one ("this"), then runs `verlpp_train_step_bench $ARGS` on each
# in turn, ROUNDS times (default 2), so that a difference between trees can be told from the
# drift within the call. ARGS defaults to the Qwen3-30B-A3B log-prob pass of tools/gpu/moe_bench.sh.
# One JSON line a run on stdout, after the tree's name and the round.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
read -r -a trees <<< "${BASE:-} ."
for tree in "${trees[@]}"; do
  { cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
      -DVERLPP_BUILD_TESTS=OFF -DCMAKE_PREFIX_PATH="$prefix" &&
    timeout 300 cmake --build "$tree/build" -j 16 --target verlpp_train_step_bench; } \
    >> "$OUT/ab_build.log" 2>&1 ||
    { echo "build of $tree failed"; grep -E "error" -A3 "$OUT/ab_build.log" | head -30; exit 1; }
  echo "built $tree at $((SECONDS - start)) s"
done
read -r -a args <<< "${ARGS:---preset qwen3-30b-a3b --logprob-only 1 --steps 5 --warmup 2}"
for round in $(seq "${ROUNDS:-2}"); do
  for tree in "${trees[@]}"; do
    name=$([ "$tree" = . ] && echo this || basename "$tree")
    echo "$name round $round: $(timeout 150 "$tree/build/bench/verlpp_train_step_bench" "${args[@]}" 2>&1 | tail -1)"
  done
done
echo "done at $((SECONDS - start)) s"
