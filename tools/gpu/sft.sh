#!/usr/bin/env bash
# GPU-machine job for issue 8 part B (sft helper): Hugging Face reference outputs for the built-in
# demo's tokenizer and for a `verlpp model export` folder (tests/fixtures/demo). Python only, no
# build; writes $OUT/hf_reference.json (committed as tests/fixtures/demo/hf_reference.json).
set -uo pipefail
OUT=${OUT:?}
python3 -c 'import tokenizers, transformers, torch; print("tokenizers", tokenizers.__version__, "transformers", transformers.__version__, "torch", torch.__version__)' 2>&1 | tee "$OUT/versions.txt"
timeout 120 python3 tools/check_demo_hf.py tests/fixtures/demo > "$OUT/hf_reference.json" 2> "$OUT/hf_reference.err"
echo "check_demo_hf rc=$?"
tail -20 "$OUT/hf_reference.err"
head -c 3000 "$OUT/hf_reference.json"
