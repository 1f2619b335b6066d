#!/usr/bin/env bash
# The image fixtures GPU-machine call (from the repository root with $OUT set; python only, no
# C++ build): runs tools/make_vl_fixtures.py (all on the CPU: Pillow, transformers' processor and
# a float64 Qwen3.5 VL forward) and packs its outputs into $OUT/vl_fixtures.tgz; the log goes to
# $OUT/vl_fixtures.log. Unpack the tarball in the repository root: it holds tests/fixtures/vision/
# and tests/fixtures/model/qwen3_5_vl_images*.
set -uo pipefail
OUT=${OUT:?}
export PYTHONUNBUFFERED=1
start=$SECONDS
python3 -c 'import PIL, transformers, torch; print("pillow", PIL.__version__, "transformers",
  transformers.__version__, "torch", torch.__version__)'
python3 -c 'import torchvision; print("torchvision", torchvision.__version__)' ||
  echo "no torchvision"
timeout "${FIXTURE_TIMEOUT:-300}" python3 tools/make_vl_fixtures.py tests/fixtures/vision \
  tests/fixtures/model > "$OUT/vl_fixtures.log" 2>&1
rc=$?
echo "vl fixtures rc=$rc after $((SECONDS - start)) s"
shopt -s nullglob
files=(tests/fixtures/vision tests/fixtures/model/qwen3_5_vl_images*)
[ ${#files[@]} -gt 0 ] && tar czf "$OUT/vl_fixtures.tgz" "${files[@]}" && tar tzvf "$OUT/vl_fixtures.tgz"
tail -40 "$OUT/vl_fixtures.log" | cut -c1-400
exit $rc
