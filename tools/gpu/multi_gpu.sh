#!/usr/bin/env bash
# GPU-machine job for issue 21 (several GPUs over NCCL): one PART per call (each fits a 600 s
# call; the build is kept between the calls of a warm machine). From the repository root with $OUT
# set; carry .gpu-deps. Every run goes through tools/gpu/ppo.sh (build, GSM8K, random bf16 model,
# `verlpp launch --nproc-per-node N ppo ...`), each in its own $OUT/<run> and work folder.
#   PART=equal  the same GRPO step (Qwen3-0.6B shape, 32 prompts x n 4 x 128 tokens) three times:
#               on 1 GPU, on 1 GPU with half the actor micro-batch (the one-GPU run against itself:
#               the same sums in another grouping, which sets the tolerance), and on 2 GPUs.
#               rollout.ignore_eos ends every row together and rollout.max_num_seqs is one rank's
#               rows, so the 1-GPU engine generates the same two waves of 64 rows the two ranks do
#               (equal batches: equal bf16 samples); fixed micro-batches of 8 rows, no balancing,
#               entropy_coeff 0.01 (random weights score 0: the entropy term gives the gradient),
#               lr 1e-3 (a step that shows in bf16 weights; ppo.sh's 1e-6 does not).
#               compare.txt (tools/gpu/compare_ranks.py): every metric and the updated weights, 2
#               GPUs vs 1 and 1 vs itself.
#   PART=big    a Qwen3-8B-shape model (random bf16 weights; bf16 weights and gradients, fp32 master
#               weights and AdamW moments: about 130 GB of training state, more than one H200 holds
#               beside activations and the rollout) sharded over every GPU: one GRPO step of 8
#               prompts x n 2 x 64 tokens.
#   PART=scale  the issue-9 step (256 prompts x n 8 x 1,024 tokens, Qwen3-0.6B shape) on 1 GPU and on
#               every GPU: step time, tokens/s per GPU, timing_s/* (scaling.txt).
#   PART=moe    a reduced Qwen3-MoE (the seed-002 layout idea without expert parallelism, which
#               verlpp lacks: sharded data parallel) on 2 GPUs, one GRPO step.
set -uo pipefail
ROOT_OUT=${OUT:?}
PART=${PART:-equal}
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
echo "part $PART on $NGPU GPUs" | tee "$ROOT_OUT/part.txt"

# run NAME NPROC [VAR=value ...] -- [override ...]: one ppo.sh run on NPROC ranks.
run() {
  local name=$1 nproc=$2
  shift 2
  local vars=() overrides=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  overrides=("trainer.n_gpus_per_node=$nproc" "$@")
  mkdir -p "$ROOT_OUT/$name"
  env "${vars[@]}" OUT="$ROOT_OUT/$name" WORK="/tmp/verlpp_multi_$name" \
    LAUNCH="launch --nproc-per-node $nproc" EXTRA_OVERRIDES="${overrides[*]}" \
    bash tools/gpu/ppo.sh 2>&1 | grep -E "ppo rc=|build|failed|^step" | tail -3
}

equal_step=(actor_rollout_ref.rollout.ignore_eos=true trainer.balance_batch=false
  actor_rollout_ref.actor.entropy_coeff=0.01 actor_rollout_ref.actor.optim.lr=1e-3
  actor_rollout_ref.actor.use_dynamic_bsz=false actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=false
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=false
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=8)
small=(STEPS=1 TRAIN_BATCH=32 N=4 RESPONSE_LENGTH=128 MINI_BATCH=32 MAX_NUM_SEQS=64)

case "$PART" in
  equal)
    run one 1 "${small[@]}" -- "${equal_step[@]}"
    run one_half_micro 1 "${small[@]}" -- "${equal_step[@]}" \
      actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=4
    run two 2 "${small[@]}" -- "${equal_step[@]}"
    python3 tools/gpu/compare_ranks.py "$ROOT_OUT/one" /tmp/verlpp_multi_one/ckpt \
      "$ROOT_OUT/one_half_micro" /tmp/verlpp_multi_one_half_micro/ckpt \
      "$ROOT_OUT/two" /tmp/verlpp_multi_two/ckpt | tee "$ROOT_OUT/compare.txt"
    ;;
  big)
    run big "$NGPU" STEPS=1 TRAIN_BATCH=8 N=2 RESPONSE_LENGTH=64 MINI_BATCH=8 RUN_TIMEOUT=420 \
      MODEL_INIT="--arch qwen3 --hidden-size 4096 --intermediate-size 12288 --num-hidden-layers 36 \
                  --num-attention-heads 32 --num-key-value-heads 8 --head-dim 128 \
                  --vocab-size 151936 --tie-word-embeddings false" -- \
      actor_rollout_ref.actor.entropy_coeff=0.01 actor_rollout_ref.rollout.gpu_memory_utilization=0.3
    grep -E "training state|peak|error" "$ROOT_OUT/big/ppo.log" | head -10
    ;;
  scale)
    issue9=(STEPS=1 TRAIN_BATCH=256 N=8 RESPONSE_LENGTH=1024 MINI_BATCH=64 MAX_NUM_SEQS=512
      RUN_TIMEOUT=280 CMAKE_BUILD_TYPE=Release)
    run scale_1 1 "${issue9[@]}" --
    run "scale_$NGPU" "$NGPU" "${issue9[@]}" --
    python3 - "$ROOT_OUT/scale_1/ppo_metrics.jsonl" "$ROOT_OUT/scale_$NGPU/ppo_metrics.jsonl" \
      "$NGPU" <<'PY' | tee "$ROOT_OUT/scaling.txt"
import json, sys
one, many = ({json.loads(l)["step"]: json.loads(l)["data"] for l in open(p)} for p in sys.argv[1:3])
n = int(sys.argv[3])
a, b = one[max(one)], many[max(many)]
tokens = a["response_length/mean"] * 256 * 8
for key in sorted(k for k in a if k.startswith("timing_s/")):
    print("%-32s 1 GPU %9.3f   %d GPUs %9.3f" % (key, a[key], n, b.get(key, float("nan"))))
per_gpu = [a["perf/throughput"], b["perf/throughput"]] if "perf/throughput" in a else [None, None]
print("step: 1 GPU %.1f s, %d GPUs %.1f s; speedup %.2f, scaling efficiency %.1f %%"
      % (a["timing_s/step"], n, b["timing_s/step"], a["timing_s/step"] / b["timing_s/step"],
         100 * a["timing_s/step"] / b["timing_s/step"] / n))
print("perf/throughput (tokens/s per GPU): 1 GPU %s, %d GPUs %s" % (per_gpu[0], n, per_gpu[1]))
PY
    ;;
  moe)
    run moe 2 STEPS=1 TRAIN_BATCH=16 N=4 RESPONSE_LENGTH=128 MINI_BATCH=16 \
      MODEL_INIT="--arch qwen3_moe --hidden-size 1024 --intermediate-size 3072 \
                  --num-hidden-layers 8 --num-attention-heads 16 --num-key-value-heads 4 \
                  --head-dim 128 --vocab-size 151936 --num-experts 32 --num-experts-per-tok 4 \
                  --moe-intermediate-size 384" -- actor_rollout_ref.actor.entropy_coeff=0.01
    grep -E "training state|moe|error" "$ROOT_OUT/moe/ppo.log" | head -10
    ;;
  *)
    echo "unknown PART=$PART (equal, big, scale or moe)"
    ;;
esac
