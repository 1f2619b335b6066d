#!/usr/bin/env bash
# Qwen3.5 benchmarks on the GPU machine (after tools/gpu/qwen3_5.sh's build step, reusing build/):
# transformers + PyTorch (bench/baselines/*_hf.py; no fla / causal_conv1d on that machine, so
# transformers runs its torch fallback of the delta rule and the short convolution) and verlpp's
# benchmarks on the same shapes in this one call, each verlpp line printing the ratio.
#   PART=train (default): the Qwen3.5-2B actor update (8 x 1,024 tokens, bf16 compute, fp32 AdamW
#     state), the Qwen3.5-2B log-prob pass, the Qwen3.5-35B-A3B log-prob pass (bf16 weights)
#   PART=rollout (PART=all: both): the Qwen3.5-2B rollout, PROMPTS (256) x 512 -> RESPONSE (1,024) tokens
set -uo pipefail
OUT=${OUT:?}
bench=build/bench
start=$SECONDS
pair() {  # pair NAME HF_ARGS... -- VERLPP_ARGS...
  local name=$1; shift
  local hf=() v=()
  while [ "$1" != "--" ]; do hf+=("$1"); shift; done; shift
  v=("$@")
  timeout 150 python3 bench/baselines/train_step_hf.py "${hf[@]}" > "$OUT/$name.hf.json" 2> "$OUT/$name.hf.err"
  echo "$name hf rc=$? at $((SECONDS - start)) s: $(tail -c 500 "$OUT/$name.hf.json") $(tail -2 "$OUT/$name.hf.err" | cut -c1-300)"
  timeout 150 $bench/verlpp_train_step_bench "${v[@]}" --baseline "$OUT/$name.hf.json" > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "$name verlpp rc=$? at $((SECONDS - start)) s: $(cat "$OUT/$name.json") $(tail -2 "$OUT/$name.err" | cut -c1-300)"
}
if [ "${PART:-train}" != rollout ]; then
  pair train_2b --preset qwen3.5-2b --steps 5 --warmup 2 -- --preset qwen3.5-2b --steps 5 --warmup 2
  lp=(--preset qwen3.5-2b --logprob-only 1 --steps 5 --warmup 2)
  pair logprob_2b "${lp[@]}" --param-dtype bfloat16 -- "${lp[@]}"
  lp=(--preset qwen3.5-35b-a3b --logprob-only 1 --steps 3 --warmup 1)
  pair logprob_35b_a3b "${lp[@]}" --param-dtype bfloat16 -- "${lp[@]}"
fi
if [ "${PART:-train}" != train ]; then
  shape=(--preset qwen3.5-2b --prompts "${PROMPTS:-256}" --prompt-length 512 --response-length "${RESPONSE:-1024}")
  timeout 330 python3 bench/baselines/rollout_generate_hf.py "${shape[@]}" --output "$OUT/rollout.hf.json" \
    > /dev/null 2> "$OUT/rollout.hf.err"
  echo "rollout hf rc=$? at $((SECONDS - start)) s: $(cat "$OUT/rollout.hf.json" 2>/dev/null | tr -d '\n') $(tail -2 "$OUT/rollout.hf.err" | cut -c1-300)"
  timeout 150 $bench/verlpp_rollout_bench "${shape[@]}" --baseline "$OUT/rollout.hf.json" > "$OUT/rollout.json" 2> "$OUT/rollout.err"
  echo "rollout verlpp rc=$? at $((SECONDS - start)) s: $(cat "$OUT/rollout.json") $(tail -2 "$OUT/rollout.err" | cut -c1-300)"
fi
echo "bench done at $((SECONDS - start)) s"
