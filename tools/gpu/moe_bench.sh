#!/usr/bin/env bash
# GPU-machine job 2 of the Qwen3-MoE issue (after tools/gpu/moe_build_test.sh, reusing build/):
# transformers + PyTorch baselines (bench/baselines/train_step_hf.py) and verlpp's
# bench/train_step_bench.cpp on the same shapes in this one call, each printing its ratio:
#   - the log-prob pass of the full Qwen3-30B-A3B shape (48 layers, bf16 weights, 8,192 tokens)
#   - the actor update of Qwen3-30B-A3B cut to 6 layers (bf16 compute, fp32 AdamW state)
#   - the dense Qwen3-1.7B actor update (no-regression check)
# then a kernel profile of one 6-layer MoE update and of one 8-layer MoE log-prob pass.
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
bench=build/bench
start=$SECONDS
run() {  # run NAME HF_ARGS... -- VERLPP_ARGS...
  local name=$1; shift
  local hf=() v=()
  while [ "$1" != "--" ]; do hf+=("$1"); shift; done; shift
  v=("$@")
  timeout 240 python3 bench/baselines/train_step_hf.py "${hf[@]}" > "$OUT/$name.hf.json" 2> "$OUT/$name.hf.err"
  echo "$name hf rc=$? at $((SECONDS - start)) s: $(tail -c 400 "$OUT/$name.hf.json")"
  timeout 200 $bench/verlpp_train_step_bench "${v[@]}" --baseline "$OUT/$name.hf.json" > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "$name verlpp rc=$? at $((SECONDS - start)) s: $(cat "$OUT/$name.json") $(tail -3 "$OUT/$name.err")"
}
moe_lp=(--preset qwen3-30b-a3b --logprob-only 1 --steps 5 --warmup 2)
run logprob_30b_a3b "${moe_lp[@]}" --param-dtype bfloat16 -- "${moe_lp[@]}"
moe_train=(--preset qwen3-30b-a3b --layers 6 --steps 5 --warmup 2)
run train_30b_a3b_6l "${moe_train[@]}" -- "${moe_train[@]}"
run train_1.7b --preset qwen3-1.7b -- --preset qwen3-1.7b
if [ -x build/bench/verlpp_train_step_profile ] && [ "${PROFILE:-1}" = 1 ]; then
  timeout 90 build/bench/verlpp_train_step_profile --preset qwen3-30b-a3b --layers 6 --steps 1 --warmup 2 > "$OUT/profile_train_6l.txt" 2>&1
  timeout 90 build/bench/verlpp_train_step_profile --preset qwen3-30b-a3b --layers 8 --logprob-only 1 --steps 1 --warmup 2 > "$OUT/profile_logprob_8l.txt" 2>&1
  head -25 "$OUT/profile_train_6l.txt"; head -20 "$OUT/profile_logprob_8l.txt"
fi
echo "all done at $((SECONDS - start)) s"
