#!/usr/bin/env bash
# GPU-machine job for the algorithms layer (run from the repository root; writes $OUT/algo/):
#  1. regenerates the reference fixture with PyTorch (tools/make_algo_fixture.py);
#  2. builds verlpp_algo_tests against PyTorch's LibTorch (CUDA) and runs them on that fresh
#     fixture, on the CPU and on CUDA.
set -euo pipefail
source tools/gpu/gpu_env.sh
python3 -c 'import torch; print("torch", torch.__version__)'
python3 tools/make_algo_fixture.py --out "$OUT/algo"
cp "$OUT/algo/algo_fixture.json" tests/fixtures/algo/algo_fixture.json
scripts/setup
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}" \
  >"$OUT/algo/cmake.log" 2>&1 || { tail -40 "$OUT/algo/cmake.log"; exit 1; }
cmake --build build-gpu --target verlpp_algo_tests -j 16 >"$OUT/algo/build.log" 2>&1 ||
  { grep -E "error|Error" -A5 "$OUT/algo/build.log" | head -80; exit 1; }
build-gpu/tests/unit/algo/verlpp_algo_tests 2>&1 | tee "$OUT/algo/test.log" | tail -40
