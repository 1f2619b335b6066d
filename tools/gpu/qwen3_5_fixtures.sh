#!/usr/bin/env bash
# The Qwen3.5 fixtures GPU-machine call (from the repository root with $OUT set; python only, no
# C++ build, no .gpu-deps): runs tools/make_qwen3_5_fixtures.py (CPU fp32 references, bf16 gaps on
# the GPU) and packs its outputs into $OUT/qwen3_5_fixtures.tgz; the log goes to $OUT/fixtures.log.
# Unpack the tarball in the repository root: it holds tests/fixtures/model/qwen3_5*,
# tests/fixtures/model/reference_qwen3_5.json, tests/fixtures/rollout/greedy_qwen3_5.json and
# tests/fixtures/rollout/qwen3_5*.jsonl.
set -uo pipefail
OUT=${OUT:?}
export PYTHONUNBUFFERED=1
start=$SECONDS
timeout "${FIXTURE_TIMEOUT:-420}" python3 tools/make_qwen3_5_fixtures.py tests/fixtures/model \
  tests/fixtures/rollout > "$OUT/fixtures.log" 2>&1
rc=$?
echo "fixtures rc=$rc after $((SECONDS - start)) s"
shopt -s nullglob
files=(tests/fixtures/model/qwen3_5* tests/fixtures/model/reference_qwen3_5.json
       tests/fixtures/rollout/greedy_qwen3_5.json tests/fixtures/rollout/qwen3_5*.jsonl)
if [ ${#files[@]} -gt 0 ]; then
  tar czf "$OUT/qwen3_5_fixtures.tgz" "${files[@]}"
  tar tzvf "$OUT/qwen3_5_fixtures.tgz"
fi
grep -E "CHECK FAILED|Error|error|rc=|bf16|greedy|via|probe" "$OUT/fixtures.log" | cut -c1-600 | tail -40
exit $rc
