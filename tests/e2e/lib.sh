# Sourced by the ppo e2e scripts after `cd "$SRC"`: a failure counter with fail(), a temporary
# work folder removed at exit (after $E2E_CLEANUP, when a script sets it), prepare_gsm8k and init_tiny_qwen3.
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'eval "${E2E_CLEANUP:-}"; rm -rf "$work"' EXIT

# $work/gsm8k from `verlpp data gsm8k` over the shared GSM8K, else the 8-row fixture.
prepare_gsm8k() {
  local raw=/work/shared/data/gsm8k out
  [ -f "$raw/train.jsonl" ] || raw="$SRC/tests/fixtures/data/gsm8k_raw"
  out=$("$VERLPP" data gsm8k --input "$raw" --output "$work/gsm8k" 2>&1) || fail "data gsm8k: $out"
}

# $work/model: a tiny random Qwen3 (hidden 16, 2 layers, the Qwen3 tokenizer's vocabulary), fp32.
init_tiny_qwen3() {
  local out
  out=$("$VERLPP" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 2 \
        --num-attention-heads 2 --num-key-value-heads 1 --vocab-size 151936 --dtype float32 --seed 3 \
        --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/model" 2>&1) || fail "model init: $out"
}
