#!/usr/bin/env bash
# Actor-update and log-prob benchmarks on the GPU machine: verlpp (bench/train_step_bench.cpp) and
# the transformers baseline (bench/baselines/train_step_hf.py) in the same run. Run from the
# repository root with $OUT set and PCRE2/utf8proc findable (see tools/gpu/all.sh).
set -uo pipefail
OUT=${OUT:?}
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DVERLPP_BUILD_BENCH=ON \
  -DCMAKE_PREFIX_PATH="$prefix" >"$OUT/perf_configure.log" 2>&1 || { tail -30 "$OUT/perf_configure.log"; exit 1; }
cmake --build build -j 16 --target verlpp_train_step_bench >"$OUT/perf_build.log" 2>&1 ||
  { grep -E "error" -A3 "$OUT/perf_build.log" | head -40; exit 1; }
run() {  # name, then the shared arguments
  local name=$1; shift
  python3 bench/baselines/train_step_hf.py "$@" >"$OUT/$name.hf.json" 2>"$OUT/$name.hf.err" || tail -5 "$OUT/$name.hf.err"
  build/bench/verlpp_train_step_bench "$@" --baseline "$OUT/$name.hf.json" | tee "$OUT/$name.json"
}
run train_0.6b --preset qwen3-0.6b
run train_1.7b --preset qwen3-1.7b
run logprob_1.7b --preset qwen3-1.7b --logprob-only 1
cmake --build build -j 16 --target verlpp_train_step_profile >>"$OUT/perf_build.log" 2>&1 &&
  build/bench/verlpp_train_step_profile --preset qwen3-1.7b --steps 1 --warmup 2 >"$OUT/profile_1.7b.txt" 2>&1
head -45 "$OUT/profile_1.7b.txt"
nvidia-smi --query-gpu=name,memory.total --format=csv > "$OUT/gpu.csv"
