#!/usr/bin/env bash
# `verlpp model init` and `verlpp model score` from the command line: files written, one JSON line
# per input line with one log-prob per response token, errors naming the file and line.
# (Values are checked against transformers in the unit tests and tools/check_model_init.py.)
# Usage: model_test.sh VERLPP SOURCE_DIR
set -uo pipefail
VERLPP=$1
cd "$2"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/tok"
echo '{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}}' > "$work/tok/tokenizer.json"
out=$("$VERLPP" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 2 \
      --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 50 --tokenizer "$work/tok" \
      --output "$work/ckpt" 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "model init (exit $rc): $out"
for f in config.json model.safetensors tokenizer.json; do
  [ -f "$work/ckpt/$f" ] || fail "model init did not write $f"
done
grep -qF '"Qwen3ForCausalLM"' "$work/ckpt/config.json" || fail "config.json lacks the architecture"

# A second init into the same folder is refused and leaves the model as it was.
before=$(sha256sum "$work/ckpt/model.safetensors")
out=$("$VERLPP" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 \
      --num-attention-heads 2 --vocab-size 50 --output "$work/ckpt" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "already holds a model" <<<"$out"; then
  fail "init over an existing model (exit $rc): $out"
fi
[ "$(sha256sum "$work/ckpt/model.safetensors")" = "$before" ] || fail "init over an existing model changed it"

printf '%s\n' '{"prompt_ids": [1, 2], "response_ids": [3, 4, 5]}' '' \
  '{"prompt_ids": [7], "response_ids": [8]}' > "$work/in.jsonl"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/in.jsonl" --device cpu 2>&1); rc=$?
[ "$rc" -eq 0 ] || fail "model score (exit $rc): $out"
[ "$(wc -l <<<"$out")" -eq 2 ] || fail "model score printed $(wc -l <<<"$out") lines, expected 2: $out"
grep -qE '^\{"logprobs":\[-[0-9.e-]+,-[0-9.e-]+,-[0-9.e-]+\],"sum":-[0-9.e-]+\}$' <<<"$(head -1 <<<"$out")" ||
  fail "first score line malformed: $out"

# --temperature 0: the greedy log-probs verl's trainer takes (the temperature clamped at 1e-8):
# the argmax token's near 0, any other's enormous (it was refused while ppo scored this way).
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/in.jsonl" --device cpu --temperature 0 2>&1); rc=$?
[ "$rc" -eq 0 ] && python3 -c '
import json, sys
for line in sys.argv[1].splitlines():
    for lp in json.loads(line)["logprobs"]:
        assert lp <= 0 and (lp > -1e-3 or lp < -1e3), lp
' "$out" || fail "model score --temperature 0 (exit $rc): $out"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/in.jsonl" --device cpu --temperature -1 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -qF -- "--temperature: expected a number >= 0 (0: greedy), got -1" <<<"$out" ||
  fail "model score --temperature -1 (exit $rc): $out"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/in.jsonl" --device cpu --temperature nan 2>&1); rc=$?
[ "$rc" -ne 0 ] && grep -qF "expected a number >= 0 (0: greedy), got nan" <<<"$out" ||
  fail "model score --temperature nan (exit $rc): $out"
printf '%s\n' '{"prompt_ids": [1], "response_ids": [2]}' '{"prompt_ids": [1], "response_ids": [50]}' > "$work/bad.jsonl"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/bad.jsonl" --device cpu 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "bad.jsonl:2: 'response_ids' holds id 50 outside the vocabulary [0, 50)" <<<"$out"; then
  fail "out-of-vocabulary id (exit $rc): $out"
fi
# A row longer than the model's positions is refused before anything runs (a break-test's row of
# millions of ids was killed for memory).
"$VERLPP" model init --arch qwen3 --hidden-size 32 --intermediate-size 64 --num-hidden-layers 1 \
  --num-attention-heads 4 --num-key-value-heads 2 --vocab-size 50 --max-position-embeddings 8 \
  --output "$work/short" > /dev/null 2>&1 || fail "model init --max-position-embeddings 8"
printf '%s\n' '{"prompt_ids": [1, 2, 3, 4], "response_ids": [5, 6, 7, 8, 9]}' > "$work/long.jsonl"
out=$("$VERLPP" model score --model "$work/short" --input "$work/long.jsonl" --device cpu 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "long.jsonl:1: 9 ids, more than the model's max_position_embeddings 8" <<<"$out"; then
  fail "row longer than max_position_embeddings (exit $rc): $out"
fi
rm "$work/ckpt/model.safetensors"
out=$("$VERLPP" model score --model "$work/ckpt" --input "$work/in.jsonl" --device cpu 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "neither model.safetensors nor model.safetensors.index.json found" <<<"$out"; then
  fail "missing weights (exit $rc): $out"
fi
out=$("$VERLPP" model init --preset qwen9 --output "$work/x" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "unknown preset (known: qwen3-0.6b, qwen3-1.7b, qwen3-30b-a3b, qwen3.5-2b, qwen3.5-35b-a3b)" <<<"$out"; then
  fail "unknown preset (exit $rc): $out"
fi
# A shape option beside a preset is refused, not dropped (report bt10 got the full 0.6B model).
out=$("$VERLPP" model init --preset qwen3-0.6b --hidden-size 16 --output "$work/p" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF -- "--hidden-size cannot be combined with --preset qwen3-0.6b" <<<"$out" &&
  [ ! -e "$work/p/model.safetensors" ] || fail "--preset with --hidden-size (exit $rc): $out"
# Sizes and numbers no model can have: one-line errors naming the option or field, nothing written
# (a break-test got LibTorch backtraces or unusable models).
tiny=(model init --arch qwen3 --num-attention-heads 2 --vocab-size 64 --output "$work/bad")
bad_init() {  # bad_init "expected text" options...
  local want=$1
  shift
  out=$("$VERLPP" "${tiny[@]}" "$@" 2>&1); rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF -- "$want" <<<"$out" || grep -q "frame #" <<<"$out"; then
    fail "model init $* (exit $rc): $out"
  fi
}
small=(--intermediate-size 64 --num-hidden-layers 2)
bad_init "'hidden_size' must be a positive integer, got -16" "${small[@]}" --hidden-size -16
bad_init "'hidden_size' must be a positive integer, got 0" "${small[@]}" --hidden-size 0
bad_init "'rms_norm_eps' must be a finite number > 0, got -1" "${small[@]}" --hidden-size 32 --rms-norm-eps -1
bad_init "'rope_theta' must be a finite number > 0, got 0" "${small[@]}" --hidden-size 32 --rope-theta 0
bad_init "--initializer-range must be a finite number > 0" "${small[@]}" --hidden-size 32 --initializer-range nan
bad_init "more than this machine's" --hidden-size 16384 --intermediate-size 1048576 --num-hidden-layers 4096
# A vocabulary that cannot embed the tokenizer's ids (prompts would fail only when generating).
bad_init "--vocab-size 64 is smaller than the 151669 token ids of --tokenizer tests/fixtures/tokenizers/qwen3 (ids 0..151668); raise it" \
  "${small[@]}" --hidden-size 32 --tokenizer tests/fixtures/tokenizers/qwen3
out=$("$VERLPP" model init --arch qwen3 --num-attention-heads 0 --vocab-size 64 --hidden-size 32 \
      "${small[@]}" --output "$work/bad" 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF -- "--num-attention-heads must be >= 1" <<<"$out" ||
  fail "model init --num-attention-heads 0 (exit $rc; was SIGFPE): $out"
[ -e "$work/bad" ] && fail "a refused model init wrote $work/bad"
# --output naming the --tokenizer folder: refused before any file is written there.
mkdir -p "$work/tok_only" && cp "$work/tok/tokenizer.json" "$work/tok_only/"
out=$("$VERLPP" model init --arch qwen3 --hidden-size 16 --intermediate-size 32 --num-hidden-layers 1 \
      --num-attention-heads 2 --vocab-size 50 --tokenizer "$work/tok_only" --output "$work/tok_only" 2>&1); rc=$?
if [ "$rc" -ne 1 ] || ! grep -qF "$work/tok_only: --output is --tokenizer $work/tok_only" <<<"$out" ||
   [ "$(ls "$work/tok_only")" != "tokenizer.json" ]; then
  fail "init over the tokenizer folder (exit $rc): $out"
fi
exit $((failures > 0))
