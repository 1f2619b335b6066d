#!/usr/bin/env bash
# GPU-machine job for the model layer (run from the root of a copy of the worktree; writes to $OUT):
# 1. tools/make_model_fixtures.py -> tests/fixtures/model (only when REGEN_FIXTURES=1 or missing)
# 2. build verlpp, run the model unit tests (CPU parity + the CUDA bf16 test) on the fresh fixtures
# 3. tools/check_model_init.py: `verlpp model init` checkpoints load in transformers, same log-probs
set -uo pipefail
OUT=${OUT:?}
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, "cuda", torch.cuda.is_available())' 2>&1 | tee "$OUT/versions.txt"
# Committed fixtures are used as they are unless REGEN_FIXTURES=1 (or they are missing).
if [ "${REGEN_FIXTURES:-0}" = 1 ] || [ ! -f tests/fixtures/model/reference.json ]; then
  find tests/fixtures/model -mindepth 1 ! -name README.md -exec rm -rf {} +
  timeout 120 python3 tools/make_model_fixtures.py tests/fixtures/model > "$OUT/fixtures.log" 2>&1
  echo "fixtures rc=$?" | tee -a "$OUT/fixtures.log"
  mkdir -p "$OUT/fixtures" && cp -r tests/fixtures/model "$OUT/fixtures/"
  tail -5 "$OUT/fixtures.log"
fi

scripts/setup > "$OUT/build.log" 2>&1
# Configure as scripts/build does, but build only the targets this job runs.
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_PREFIX_PATH="$prefix" &&
       timeout 170 cmake --build build -j 16 --target verlpp verlpp_model_tests; } >> "$OUT/build.log" 2>&1; then
  echo "build failed"; tail -40 "$OUT/build.log"; exit 0
fi
echo "build ok"
if [ -x build/tests/unit/model/verlpp_model_tests ]; then
  timeout 60 build/tests/unit/model/verlpp_model_tests > "$OUT/model_tests.log" 2>&1
  echo "model_tests rc=$?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |OK \]|FAILED|bf16" "$OUT/model_tests.log" | tail -40
fi
timeout 60 python3 tools/check_model_init.py build/verlpp /tmp/verlpp_init > "$OUT/init_check.json" 2> "$OUT/init_check.err"
echo "init_check rc=$?"; cat "$OUT/init_check.json"; tail -20 "$OUT/init_check.err"
