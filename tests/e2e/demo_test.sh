#!/usr/bin/env bash
# The built-in demo (`verlpp ppo` with no arguments; issue 8): on a CPU it must finish within
# 10 minutes and GRPO must raise the mean validation reward by at least 0.2 over the SFT checkpoint.
# Prints the measured runtime and rewards. With KEEP_DIR, the demo's folder and console output are
# copied there (ctest's fixture for e2e_distill: the SFT model distilled from the GRPO model).
# Usage: demo_test.sh VERLPP [KEEP_DIR]
set -uo pipefail
VERLPP=$1
KEEP_DIR=${2:-}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

start=$(date +%s)
"$VERLPP" ppo > out.txt 2>&1
rc=$?
elapsed=$(($(date +%s) - start))
echo "demo runtime: ${elapsed} s (limit 600 s)"
[ "$rc" -eq 0 ] || { fail "verlpp ppo (exit $rc)"; tail -30 out.txt; }
line=$(grep -F "verlpp demo: validation reward after SFT" out.txt)
echo "${line:-no summary line}"
read -r sft final < <(sed -nE 's/.*after SFT ([0-9.]+), after GRPO ([0-9.]+).*/\1 \2/p' <<<"$line")
if [ -z "${sft:-}" ] || [ -z "${final:-}" ]; then
  fail "no rewards in the summary"; tail -30 out.txt
else
  awk -v s="$sft" -v f="$final" 'BEGIN { printf "demo GRPO gain: %+.3f (at least +0.2)\n", f - s }'
  awk -v s="$sft" -v f="$final" 'BEGIN { exit !(f - s >= 0.2) }' ||
    fail "GRPO raised the validation reward by less than 0.2 ($sft -> $final)"
fi
[ "$elapsed" -lt 600 ] || fail "the demo took ${elapsed} s, more than 10 minutes"
grep -qE "^step:1 - .*critic/score/mean:" out.txt || fail "no GRPO step metrics on the console"
for f in verlpp_demo/data/train.jsonl verlpp_demo/data/val.jsonl verlpp_demo/data/sft_train.jsonl \
         verlpp_demo/tokenizer/tokenizer.json verlpp_demo/model_init/config.json; do
  [ -f "$f" ] || fail "the demo did not write $f"
done
ls verlpp_demo/sft/global_step_*/actor/huggingface/model.safetensors > /dev/null 2>&1 ||
  fail "no SFT checkpoint"
ls verlpp_demo/grpo/global_step_*/actor/huggingface/model.safetensors > /dev/null 2>&1 ||
  fail "no final GRPO checkpoint"
if [ -n "$KEEP_DIR" ]; then
  rm -rf "$KEEP_DIR" && mkdir -p "$KEEP_DIR" && cp -r verlpp_demo out.txt "$KEEP_DIR"/ ||
    fail "cannot keep the demo in $KEEP_DIR"
fi
# A second run replaces its own folder; a foreign folder is refused.
mkdir -p foreign && cd foreign && mkdir verlpp_demo && touch verlpp_demo/mine.txt
out=$("$VERLPP" ppo 2>&1); rc=$?
[ "$rc" -eq 1 ] && grep -qF "is not a verlpp demo folder" <<<"$out" || fail "foreign folder (exit $rc): $out"
[ -f verlpp_demo/mine.txt ] || fail "the demo removed a foreign folder's file"
exit $((failures > 0))
