#!/usr/bin/env bash
# `verlpp reward`: one response on stdin, JSON out; verl-compat option; clear errors.
# Usage: reward_test.sh VERLPP
set -uo pipefail
VERLPP=$1
failures=0
expect() {  # expect NAME EXPECTED_RC EXPECTED_TEXT ACTUAL_RC ACTUAL_OUTPUT
  if [ "$4" -ne "$2" ] || ! grep -qF -- "$3" <<<"$5"; then
    echo "FAIL: $1 (exit $4): $5"; failures=$((failures + 1))
  fi
}
out=$(printf 'So the answer is\n#### 72.' | "$VERLPP" reward --data-source openai/gsm8k --ground-truth 72 2>&1)
expect "gsm8k corrected" 0 '{"score":1.0,"extracted":"72"}' $? "$out"
out=$(printf 'So the answer is\n#### 72.' | "$VERLPP" reward --data-source openai/gsm8k --ground-truth 72 --verl-compat 2>&1)
expect "gsm8k verl-compat" 0 '{"score":0.0,"extracted":"72."}' $? "$out"
out=$(printf '<think>right angle</think> so \\boxed{2\\sqrt{3}}' | "$VERLPP" reward --data-source hiyouga/geometry3k --ground-truth '\sqrt{12}' 2>&1)
expect "geo3k" 0 '{"score":1.0,"extracted":"2\\sqrt{3}"}' $? "$out"
out=$(printf '\\boxed{\xff5}' | "$VERLPP" reward --data-source hiyouga/geometry3k --ground-truth 5 2>&1)
expect "geo3k invalid UTF-8 in the box" 0 '"score":0.0' $? "$out"
out=$("$VERLPP" reward --data-source hiyouga/geometry3k --ground-truth 5 < / 2>&1)
expect "unreadable stdin" 1 "cannot read the response from standard input" $? "$out"
out=$(printf 'I do not know' | "$VERLPP" reward --data-source openai/gsm8k --ground-truth 72 2>&1)
expect "no answer" 0 '{"score":0.0,"extracted":null}' $? "$out"
out=$(printf 'so $\\boxed{\\dfrac{1}{2}}$' | "$VERLPP" reward --data-source HuggingFaceH4/MATH-500 --ground-truth 0.5 2>&1)
expect "math" 0 '{"score":1.0,"extracted":"\\dfrac{1}{2}"}' $? "$out"
out=$(printf 'x' | "$VERLPP" reward --data-source my/set --ground-truth 1 2>&1)
expect "unknown data_source" 1 "no reward function for data_source 'my/set'" $? "$out"
out=$(printf 'x' | "$VERLPP" reward --data-source openai/gsm8k --ground-truth 1 --extra-info '[1]' 2>&1)
expect "extra-info not an object" 1 "--extra-info: expected a JSON object" $? "$out"
exit $((failures > 0))
