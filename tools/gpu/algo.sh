#!/usr/bin/env bash
# GPU-machine job for the algorithms layer: regenerates the reference fixture
# tests/fixtures/algo/algo_fixture.json with PyTorch (run from the repository root; writes $OUT/algo/).
set -euo pipefail
python3 -c 'import torch; print("torch", torch.__version__)'
python3 tools/make_algo_fixture.py --out "$OUT/algo"
