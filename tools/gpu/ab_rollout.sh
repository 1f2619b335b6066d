#!/usr/bin/env bash
# Same-call A/B of the rollout benchmark (from the repository root with $OUT set; carry .gpu-deps
# and whatever BASE and STAGES name). Builds verlpp_rollout_bench (Release) of:
#   - each source tree in BASE (space-separated; for example `mkdir -p .ab/main && git archive main
#     CMakeLists.txt cmake config src apps bench | tar x -C .ab/main`, carried as .ab), each in its
#     own build folder; tools/gpu/before_issue22_tree.sh makes .ab/before, the static batching of
#     the day issue 22 was filed (commit af9638b, its benchmark patched for the GRPO shapes);
#   - this tree, named "this";
#   - with STAGES="name=file.patch ...", each patch applied in turn to this tree and rebuilt in the
#     same build folder (only the changed files compile), each stage's benchmark kept under its
#     name: a branch's commits measured one by one from `git format-patch main..branch`. The tree
#     is left at the last stage, so that a later script in the same call tests the branch's tip.
# Then runs each shape on every build in turn, ROUNDS times (default 2), so that a difference
# between builds can be told from the drift within the call (REUSE="name ..." skips the builds and
# runs the benchmarks an earlier call kept in .ab/bin on the same warm machine; do not carry .ab
# then, or they are replaced; on 2026-12-05 the next call found no .ab at all, so plan to build
# and run in one call); no run starts after DEADLINE seconds
# (default 540). SHAPES (default "static engine grpo"): static = 256 x 512 -> 1,024 (Qwen3-0.6B)
# with static batches; engine = the same with the engine; grpo = 64 GSM8K prompts x n 8 stopping at
# any of 500 end ids, up to 1,024 tokens, engine; grpo128 / grpo256 = grpo under max_num_seqs 128 /
# 256 (af9638b's static batches of all 512 rows ran out of an H100's 80 GB); moe64 / moe16 = 64 /
# 16 prompts of 256 tokens -> 128 on the Qwen3-30B-A3B shape (random weights drawn on the GPU;
# trees from 2026-12-06 on: --preset, --draw-on-gpu). With HF=1,
# transformers' `generate` runs first on the static shape (bench/baselines/rollout_generate_hf.py)
# and the summary gives each 256 x 512 run's ratio to it. Results in $OUT/ab.txt (one JSON line a
# run after the build's name and round), the summary on stdout and in $OUT/ab_summary.txt.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
start=$SECONDS
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
bins=.ab/bin
mkdir -p "$bins"
names=()

# build TREE NAME: configures and builds TREE's benchmark and keeps it as $bins/NAME (this tree
# keeps its tests configured, for a later script in the same call).
build() {
  local tree=$1 name=$2
  { cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
      -DVERLPP_BUILD_TESTS=$([ "$tree" = . ] && echo ON || echo OFF) -DCMAKE_PREFIX_PATH="$prefix" &&
    timeout 300 cmake --build "$tree/build" -j 16 --target verlpp_rollout_bench; } \
    >> "$OUT/ab_build.log" 2>&1 ||
    { echo "build of $name ($tree) failed"; grep -E "error" -A3 "$OUT/ab_build.log" | head -30; exit 1; }
  cp "$tree/build/bench/verlpp_rollout_bench" "$bins/$name"
  names+=("$name")
  echo "built $name at $((SECONDS - start)) s"
}

if [ -n "${REUSE:-}" ]; then  # a later call on the same machine: the benchmarks kept there
  read -r -a names <<< "$REUSE"
  for name in "${names[@]}"; do [ -x "$bins/$name" ] || { echo "no kept benchmark $bins/$name"; exit 1; }; done
else
  read -r -a bases <<< "${BASE:-}"
  for tree in "${bases[@]}"; do build "$tree" "$(basename "$tree")"; done
  build . this
  read -r -a stages <<< "${STAGES:-}"
  for stage in "${stages[@]}"; do
    # git apply in a subdirectory of a repository skips every path outside it without a word:
    # the ceiling keeps git from taking a repository above this tree for this one.
    if command -v git > /dev/null; then apply=(env GIT_CEILING_DIRECTORIES="$(dirname "$PWD")" git apply -p1)
    else apply=(patch -p1 --forward --quiet -i); fi
    "${apply[@]}" "${stage#*=}" || { echo "patch ${stage#*=} does not apply"; exit 1; }
    build . "${stage%%=*}"
  done
fi

hf=""
if [ "${HF:-0}" = 1 ]; then
  timeout 200 python3 bench/baselines/rollout_generate_hf.py --output "$OUT/hf.json" > "$OUT/hf.log" 2>&1
  echo "transformers rc=$?: $(cat "$OUT/hf.json" 2>/dev/null)"
  hf=$OUT/hf.json
fi

grpo="--prompts 64 --n 8 --prompts-file bench/data/gsm8k_qwen3_prompts.txt --eos-tokens 500"
grpo="$grpo --response-length 1024"
moe="--preset qwen3-30b-a3b --draw-on-gpu --gpu-memory-utilization 0.9 --prompt-length 256"
moe="$moe --response-length 128"
declare -A flags=([static]="--static-batches" [engine]="" [grpo]="$grpo"
                  [grpo128]="$grpo --max-num-seqs 128" [grpo256]="$grpo --max-num-seqs 256"
                  [moe64]="$moe --prompts 64" [moe16]="$moe --prompts 16")
: > "$OUT/ab.txt"
for round in $(seq "${ROUNDS:-2}"); do
  for shape in ${SHAPES:-static engine grpo}; do
    read -r -a shape_flags <<< "${flags[$shape]}"
    for name in "${names[@]}"; do
      if [ $((SECONDS - start)) -ge "${DEADLINE:-540}" ]; then break 3; fi
      echo "$name $shape round $round: $(timeout 150 "$bins/$name" "${shape_flags[@]}" 2>&1 | tail -1)" \
        >> "$OUT/ab.txt"
    done
  done
done
echo "runs ended at $((SECONDS - start)) s"
python3 - "$OUT/ab.txt" "$hf" <<'PY' | tee "$OUT/ab_summary.txt"
import json, sys
hf = json.load(open(sys.argv[2]))["tokens_per_s"] if sys.argv[2] else None
for line in open(sys.argv[1]):
    label, _, rest = line.partition(": ")
    try:
        r = json.loads(rest)
    except ValueError:
        print(f"{label:32s} no result: {rest.strip()[:200]}")
        continue
    ratio = f"  {r['tokens_per_s'] / hf:.2f}x transformers" if hf and not r["eos_tokens"] else ""
    print(f"{label:32s} {r['tokens_per_s']:9.0f} tok/s  {r['decode_ms_per_step']:.3f} ms/step"
          f"  prefill {r['prefill_seconds']:.3f} s  mean length {r.get('mean_response_length', 0):.1f}"
          f"{ratio}")
PY
