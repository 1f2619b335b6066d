#!/usr/bin/env bash
# Same-call A/B of the rollout benchmark (from the repository root with $OUT set; carry .gpu-deps
# and the trees): builds verlpp_rollout_bench (Release) of this tree and of each tree in BASE
# (space-separated source trees, for example `mkdir -p .ab/main && git archive main CMakeLists.txt
# cmake config src apps bench | tar x -C .ab/main`, carried as .ab), then runs each benchmark shape
# on every base and this tree in turn, twice, so that a difference between the trees can be told
# from the drift within the call. Shapes: 256 x 512 -> 1,024 (Qwen3-0.6B) with static batches and
# with the engine, and the GRPO-shaped 64 GSM8K prompts x n 8 with the engine. Results in
# $OUT/ab.txt, one JSON line per run after the tree's name ("this" or the base's path), and a
# summary on stdout.
set -uo pipefail
OUT=${OUT:?}
read -r -a bases <<< "${BASE:?one or more base source trees}"
source tools/gpu/gpu_env.sh
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
for tree in . "${bases[@]}"; do
  { cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
      -DCMAKE_PREFIX_PATH="$prefix" $([ "$tree" = . ] || echo -DVERLPP_BUILD_TESTS=OFF) &&
    timeout 300 cmake --build "$tree/build" -j 16 --target verlpp_rollout_bench; } \
    >> "$OUT/ab_build.log" 2>&1 || { echo "build of $tree failed"; tail -20 "$OUT/ab_build.log"; exit 1; }
done
grpo="--prompts 64 --n 8 --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500"
grpo="$grpo --response-length 1024"
for shape in "--static-batches" "" "$grpo"; do
  read -r -a flags <<< "$shape"
  for round in 1 2; do
    for tree in "${bases[@]}" .; do
      name=$tree
      [ "$tree" = . ] && name=this
      echo "$name round $round: $(timeout 90 "$tree/build/bench/verlpp_rollout_bench" "${flags[@]}" 2>&1 | tail -1)"
    done
  done
done > "$OUT/ab.txt"
python3 - "$OUT/ab.txt" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    name, _, rest = line.partition(": ")
    try:
        r = json.loads(rest)
    except ValueError:
        print(name, "no result:", rest.strip()[:200])
        continue
    shape = "grpo" if r["eos_tokens"] else "static" if not r["engine"] else "engine"
    print(f"{name:24s} {shape:6s} {r['tokens_per_s']:9.0f} tok/s  {r['decode_ms_per_step']:.3f} ms/step"
          f"  prefill {r['prefill_seconds']:.3f} s")
PY
