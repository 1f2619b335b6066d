#!/usr/bin/env bash
# The bf16-gap GPU-machine call (from the repository root with $OUT set; carry .gpu-deps): builds
# verlpp_model_tests (Release), runs the Qwen3_5Gpu bf16 case with VERLPP_BF16_DUMP_DIR (verlpp's
# bf16 logits and layer outputs of each fixture to $OUT/dump), then tools/gpu/bf16_gap.py
# (transformers' bf16 runs of the same fixtures and the distribution of both gaps against the
# float64 reference: $OUT/bf16_gap.json, $OUT/bf16_gap.md). Logs: $OUT/build.log, gpu_test.log,
# bf16_gap.log.
# OVERLAY=DIR (optional): before building, the folders src apps tests cmake bench (tests/fixtures
# left alone) and CMakeLists.txt become DIR/tree.tar's (a known commit's sources with this job's
# test file; files listed in none of it are removed): the build then does not depend on someone
# else's unfinished edits in the working tree. Only the copy on the GPU machine changes.
set -uo pipefail
OUT=${OUT:?}
export PYTHONUNBUFFERED=1
start=$SECONDS
if [ -n "${OVERLAY:-}" ]; then
  tar tf "$OVERLAY/tree.tar" | grep -v '/$' | sort > /tmp/bf16_gap_manifest.txt
  find src apps tests cmake bench -type f -not -path 'tests/fixtures/*' | sort |
    comm -23 - /tmp/bf16_gap_manifest.txt > /tmp/bf16_gap_removed.txt
  xargs -r rm -f < /tmp/bf16_gap_removed.txt
  tar xf "$OVERLAY/tree.tar"
  echo "overlay: $(wc -l < /tmp/bf16_gap_manifest.txt) files from $OVERLAY/tree.tar" \
    "($(cat "$OVERLAY/commit" 2>/dev/null)), removed: $(tr '\n' ' ' < /tmp/bf16_gap_removed.txt)"
fi
source tools/gpu/gpu_env.sh
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)');$EXTRA_PREFIX_PATH"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" &&
  timeout "${BUILD_TIMEOUT:-380}" cmake --build build -j 16 --target verlpp_model_tests; } \
  > "$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; }
echo "build took $((SECONDS - start)) s"
mkdir -p "$OUT/dump"
if [ -x build/tests/unit/model/verlpp_model_tests ]; then
  VERLPP_BF16_DUMP_DIR="$OUT/dump" timeout 120 build/tests/unit/model/verlpp_model_tests \
    --gtest_filter='*Qwen3_5Gpu.Bf16*' > "$OUT/gpu_test.log" 2>&1
  echo "gpu test rc=$?"
  grep -E "bf16|OK|FAILED|PASSED" "$OUT/gpu_test.log"
fi
left=$((580 - (SECONDS - start)))
timeout $((left > 60 ? left : 60)) python3 tools/gpu/bf16_gap.py --verlpp-dir "$OUT/dump" \
  --out "$OUT" > "$OUT/bf16_gap.log" 2>&1
rc=$?
echo "bf16_gap.py rc=$rc after $((SECONDS - start)) s"
grep -E "Error|error|Traceback|variant" "$OUT/bf16_gap.log" | head -20
exit $rc
