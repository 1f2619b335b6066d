#!/usr/bin/env bash
# Builds all of verlpp on the GPU machine (PyTorch's CUDA LibTorch, Parquet through pyarrow's Arrow)
# and runs every test under ctest, the CUDA tests included. Run from the repository root with $OUT
# set; PCRE2/utf8proc must be findable (CMAKE_PREFIX_PATH/CMAKE_INCLUDE_PATH/CMAKE_LIBRARY_PATH,
# EXTRA_PREFIX_PATH), as ../shared/gpu-machine/README.md describes.
set -uo pipefail
OUT=${OUT:?}
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" \
  -DVERLPP_WITH_PARQUET=ON >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
timeout 300 cmake --build build -j 16 >"$OUT/build.log" 2>&1 || { grep -E "error" -A3 "$OUT/build.log" | head -40; exit 1; }
echo "build ok"
ctest --test-dir build -j 8 --output-on-failure --timeout 120 >"$OUT/ctest.log" 2>&1
echo "ctest rc=$?"
grep -E "tests passed|tests failed|\(Failed\)|\(SEGFAULT\)|\(Subprocess aborted\)" "$OUT/ctest.log" | head -40
if command -v gdb >/dev/null; then
  gdb -batch -ex run -ex bt build/tests/unit/data/verlpp_data_tests >"$OUT/data_gdb.log" 2>&1
  grep -E "SIGSEGV|^#[0-9]+" "$OUT/data_gdb.log" | head -25
fi
