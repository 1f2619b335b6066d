#!/usr/bin/env bash
# Qwen3.5 benchmarks on the GPU machine (from the repository root with $OUT set; carry .gpu-deps),
# after a build step of the same call has built build/bench/verlpp_train_step_bench and
# verlpp_rollout_bench (tools/gpu/qwen3_5.sh does it first; with TARGETS="verlpp_train_step_bench
# verlpp_rollout_bench" TESTS=0 it builds only those). Four pairs, each transformers + PyTorch first
# (bench/baselines/*_hf.py; no fla / causal_conv1d on that machine, so transformers runs its torch
# fallback of the delta rule and of the short convolution, and says so), then verlpp on the same
# shape with --baseline, then one summary line "== NAME: transformers ... | verlpp ... | ratio"
# with both tokens/s, MFU and peak memory:
#   (a) train_2b: the Qwen3.5-2B actor update, 8 x 1,024 tokens, bf16 compute, fp32 masters (the
#       benches' default recipe: HF fp32 parameters under bf16 autocast + fused AdamW, verlpp bf16
#       parameters + fp32 AdamW masters)
#   (b) logprob_2b: the Qwen3.5-2B log-prob pass (--logprob-only 1; bf16 parameters on both sides,
#       as verl's FSDP actor computes it in bf16)
#   (c) logprob_35b_a3b: the Qwen3.5-35B-A3B log-prob pass, bf16 parameters (HF --param-dtype
#       bfloat16; verlpp's --dtype bfloat16 is its default and holds bf16 parameters), 40 layers
#   (d) rollout_2b: the Qwen3.5-2B rollout, PROMPTS (256) x 512 -> RESPONSE (1,024) tokens, verlpp
#       against transformers' generate. transformers' generate of this size took 95-117 s on the H200
#       (bench/results/qwen3_5_run2, run3: 115-140 s with start-up), under the 4 minutes that would
#       call for fewer prompts, so both sides keep all 256 (PROMPTS / RESPONSE change both).
# PART=train runs (a)-(c), PART=rollout (d), PART=all (the default) all four.
# Time: every command runs under `timeout` with its cap below (about 2-3x what it took in
# qwen3_5_run1/run3 for the training pairs, 1.4-1.5x for the rollout pair, whose transformers side
# is the long one) or what is left of BUDGET seconds (default 530, under 9 minutes), whichever is
# less; a command with under 10 s left is skipped. The caps add up to 530 s, so the script ends
# within BUDGET plus one kill grace (2 s) however the commands behave.
# Every line also goes to $OUT/results.txt (BENCH_TEE=0: the caller tees it already).
set -uo pipefail
OUT=${OUT:?}
source tools/gpu/gpu_env.sh
bench=build/bench
BUDGET=${BUDGET:-530}
start=$SECONDS

# capped CAP OUTFILE ERRFILE CMD...: CMD under timeout min(CAP, what is left of BUDGET), stdout to
# OUTFILE, stderr to ERRFILE; returns CMD's status (124: timed out; 125: skipped, no time left).
capped() {
  local cap=$1 out=$2 err=$3; shift 3
  local left=$((BUDGET - (SECONDS - start)))
  local t=$((cap < left ? cap : left))
  if [ "$t" -lt 10 ]; then
    : > "$out"; echo "skipped: ${left} s of the ${BUDGET} s budget left" > "$err"; return 125
  fi
  timeout -k 2 "$t" "$@" > "$out" 2> "$err"
}

# summary NAME HF_JSON VERLPP_JSON [GB|GiB]: one line with both sides' tokens/s, MFU and peak memory
# and the ratio (the files may hold one JSON object, or JSON lines that are merged).
summary() {
  python3 - "$@" <<'PY'
import json, sys
name, hf_path, v_path = sys.argv[1:4]
unit = sys.argv[4] if len(sys.argv) > 4 else "GB"
def load(path):
    try:
        text = open(path).read()
    except OSError:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        merged = {}
        for line in text.splitlines():
            try:
                merged.update(json.loads(line))
            except ValueError:
                pass
        return merged
hf, v = load(hf_path), load(v_path)
mem = "peak_memory_gb" if unit == "GB" else "peak_memory_gib"
def side(label, r, mfu_key="mfu", mem_key=mem):
    if "tokens_per_s" not in r:
        return f"{label} no result"
    mfu = r.get(mfu_key)
    mfu = f"{100 * mfu:.2f}%" if isinstance(mfu, (int, float)) else "n/a"
    peak = r.get(mem_key)
    peak = f"{peak:.1f} {unit}" if isinstance(peak, (int, float)) else "n/a"
    return f"{label} {r['tokens_per_s']:.0f} tok/s (MFU {mfu}, peak {peak})"
ratio = (f"verlpp/transformers {v['tokens_per_s'] / hf['tokens_per_s']:.3f}"
         if "tokens_per_s" in v and hf.get("tokens_per_s") else "verlpp/transformers n/a")
note = ""
if hf.get("delta_rule_torch_fallback") is True:
    note = " [transformers: torch delta-rule fallback]"
elif hf.get("delta_rule_torch_fallback") is False:
    note = f" [transformers delta rule: {(hf.get('delta_rule') or {}).get('chunk_gated_delta_rule')}]"
print(f"== {name}: {side('transformers', hf)} | {side('verlpp', v)} | {ratio}{note}", flush=True)
PY
}

# pair NAME HF_CAP VERLPP_CAP HF_ARGS... -- VERLPP_ARGS...: a train-step pair.
pair() {
  local name=$1 hf_cap=$2 v_cap=$3; shift 3
  local hf=() v=()
  while [ "$1" != "--" ]; do hf+=("$1"); shift; done; shift
  v=("$@")
  capped "$hf_cap" "$OUT/$name.hf.json" "$OUT/$name.hf.err" \
    python3 bench/baselines/train_step_hf.py "${hf[@]}"
  echo "$name hf rc=$? at $((SECONDS - start)) s: $(tail -c 700 "$OUT/$name.hf.json") $(tail -3 "$OUT/$name.hf.err" | cut -c1-300)"
  # --baseline only with a result to read (the bench reads it before printing its own line)
  [ -s "$OUT/$name.hf.json" ] && v+=(--baseline "$OUT/$name.hf.json")
  capped "$v_cap" "$OUT/$name.json" "$OUT/$name.err" $bench/verlpp_train_step_bench "${v[@]}"
  echo "$name verlpp rc=$? at $((SECONDS - start)) s: $(cat "$OUT/$name.json") $(tail -3 "$OUT/$name.err" | cut -c1-300)"
  summary "$name" "$OUT/$name.hf.json" "$OUT/$name.json" GB
}

main() {
  echo "qwen3_5_bench: PART=${PART:-all} BUDGET=${BUDGET} s, $(nvidia-smi --query-gpu=name,memory.used --format=csv,noheader 2>/dev/null | head -1)"
  for b in verlpp_train_step_bench verlpp_rollout_bench; do
    [ -x "$bench/$b" ] || echo "qwen3_5_bench: $bench/$b missing (build it first); its pairs will fail"
  done
  if [ "${PART:-all}" != rollout ]; then
    # (a) caps 50 + 40 s (took 22 + 9-10 s)
    pair train_2b 50 40 --preset qwen3.5-2b --steps 5 --warmup 2 -- --preset qwen3.5-2b --steps 5 --warmup 2
    # (b) caps 40 + 25 s (took 16-19 + 3 s)
    lp=(--preset qwen3.5-2b --logprob-only 1 --steps 5 --warmup 2)
    pair logprob_2b 40 25 "${lp[@]}" --param-dtype bfloat16 -- "${lp[@]}"
    # (c) caps 50 + 30 s (took 15-16 + 4 s; 35B random weights drawn on the GPU, ~70 GB bf16)
    lp=(--preset qwen3.5-35b-a3b --logprob-only 1 --steps 3 --warmup 1)
    pair logprob_35b_a3b 50 30 "${lp[@]}" --param-dtype bfloat16 -- "${lp[@]}"
  fi
  if [ "${PART:-all}" != train ]; then
    # (d) caps 200 + 95 s (took 115-140 + 49-62 s)
    shape=(--preset qwen3.5-2b --prompts "${PROMPTS:-256}" --prompt-length 512 --response-length "${RESPONSE:-1024}")
    capped 200 "$OUT/rollout_2b.hf.out" "$OUT/rollout_2b.hf.err" \
      python3 bench/baselines/rollout_generate_hf.py "${shape[@]}" --output "$OUT/rollout_2b.hf.json"
    echo "rollout_2b hf rc=$? at $((SECONDS - start)) s: $(cat "$OUT/rollout_2b.hf.out") $(tail -3 "$OUT/rollout_2b.hf.err" | cut -c1-300)"
    base=(); [ -s "$OUT/rollout_2b.hf.json" ] && base=(--baseline "$OUT/rollout_2b.hf.json")
    capped 95 "$OUT/rollout_2b.json" "$OUT/rollout_2b.err" $bench/verlpp_rollout_bench "${shape[@]}" "${base[@]}"
    echo "rollout_2b verlpp rc=$? at $((SECONDS - start)) s: $(tr '\n' ' ' < "$OUT/rollout_2b.json") $(tail -3 "$OUT/rollout_2b.err" | cut -c1-300)"
    summary rollout_2b "$OUT/rollout_2b.hf.json" "$OUT/rollout_2b.json" GiB
  fi
  echo "bench done at $((SECONDS - start)) s"
}

if [ "${BENCH_TEE:-1}" = 1 ]; then
  main 2>&1 | tee -a "$OUT/results.txt"
else
  main 2>&1
fi
