#!/usr/bin/env bash
# Run on the GPU machine (it has the tensorboard package): makes the TensorBoard byte fixture.
set -euo pipefail
python3 -c 'import tensorboard; print("tensorboard", tensorboard.__version__)'
python3 tools/make_tensorboard_fixture.py "$OUT/tensorboard_records.json"
