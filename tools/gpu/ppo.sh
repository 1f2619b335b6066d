#!/usr/bin/env bash
# GPU-machine job for issue 8 (ppo helper): builds `verlpp` (PyTorch's CUDA LibTorch), prepares GSM8K
# with `verlpp data gsm8k`, makes a Qwen3-0.6B-shape model with random weights
# (`verlpp model init --preset qwen3-0.6b`, the real Qwen3 tokenizer) and runs a few GRPO steps in
# bf16 on one GPU. Writes under $OUT: ppo_metrics.jsonl (verl's file logger), ppo.log (console),
# build.log, nvidia-smi.txt. GSM8K comes from $GSM8K_DIR, else the first of gpu_data/gsm8k,
# shared/data/gsm8k, /work/shared/data/gsm8k that exists, else tests/fixtures/data/gsm8k_raw (8 rows).
# MODEL_INIT replaces the model's shape (`verlpp model init` options); WORK the work folder
# (/tmp/verlpp_ppo_gpu: the data, the model and the checkpoints).
set -uo pipefail
OUT=${OUT:?}
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
scripts/setup > "$OUT/build.log" 2>&1
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')${EXTRA_PREFIX_PATH:+;$EXTRA_PREFIX_PATH}"
if ! { cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}" \
         -DCMAKE_PREFIX_PATH="$prefix" &&
       timeout 330 cmake --build build -j 16 --target verlpp ${EXTRA_TARGETS:-}; } >> "$OUT/build.log" 2>&1; then
  echo "build failed"; grep -E "error" -A3 "$OUT/build.log" | head -40; exit 0
fi
echo "build ok"

raw=${GSM8K_DIR:-}
for d in gpu_data/gsm8k shared/data/gsm8k /work/shared/data/gsm8k tests/fixtures/data/gsm8k_raw; do
  [ -z "$raw" ] && [ -f "$d/train.jsonl" ] && raw=$d
done
echo "gsm8k from $raw ($(wc -l < "$raw/train.jsonl") train rows)" | tee "$OUT/data.txt"
work=${WORK:-/tmp/verlpp_ppo_gpu}
rm -rf "$work" && mkdir -p "$work"
build/verlpp data gsm8k --input "$raw" --output "$work/gsm8k" >> "$OUT/data.txt" 2>&1 || { echo "data failed"; cat "$OUT/data.txt"; exit 0; }
# MODEL_INIT: the shape of the random model (`verlpp model init` options), Qwen3-0.6B's by default.
read -r -a model_init <<< "${MODEL_INIT:---preset qwen3-0.6b}"
build/verlpp model init "${model_init[@]}" --dtype bfloat16 --seed 1 \
  --tokenizer tests/fixtures/tokenizers/qwen3 --output "$work/model" >> "$OUT/data.txt" 2>&1 ||
  { echo "model init failed"; cat "$OUT/data.txt"; exit 0; }

STEPS=${STEPS:-3}
# The issue-9 step: TRAIN_BATCH=256 N=8 RESPONSE_LENGTH=1024 MINI_BATCH=64 (see docs/performance.md).
TRAIN_BATCH=${TRAIN_BATCH:-16} N=${N:-5} RESPONSE_LENGTH=${RESPONSE_LENGTH:-256}
MINI_BATCH=${MINI_BATCH:-8} MAX_NUM_SEQS=${MAX_NUM_SEQS:-256}
# LAUNCH="launch --nproc-per-node 1" runs the step as a launched rank (the c10d NCCL path).
read -r -a launch <<< "${LAUNCH:-}"
cmd=(build/verlpp "${launch[@]}" ppo
  data.train_files="$work/gsm8k/train.jsonl" data.val_files="$work/gsm8k/test.jsonl"
  data.train_batch_size="$TRAIN_BATCH" data.val_max_samples=32 data.max_prompt_length=256
  data.max_response_length="$RESPONSE_LENGTH" data.filter_overlong_prompts=true
  actor_rollout_ref.model.path="$work/model"
  actor_rollout_ref.actor.optim.lr=1e-6 actor_rollout_ref.actor.ppo_mini_batch_size="$MINI_BATCH"
  actor_rollout_ref.actor.use_dynamic_bsz=true actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384
  actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=true
  actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=32768
  actor_rollout_ref.ref.log_prob_use_dynamic_bsz=true
  actor_rollout_ref.ref.log_prob_max_token_len_per_gpu=32768
  actor_rollout_ref.rollout.max_num_seqs="$MAX_NUM_SEQS" actor_rollout_ref.actor.use_kl_loss=true
  actor_rollout_ref.actor.kl_loss_coef=0.001 actor_rollout_ref.actor.kl_loss_type=low_var_kl
  actor_rollout_ref.rollout.name=vllm actor_rollout_ref.rollout.n="$N"
  actor_rollout_ref.rollout.tensor_model_parallel_size=1
  algorithm.adv_estimator=grpo trainer.device=cuda trainer.n_gpus_per_node=1
  'trainer.logger=[console,file]' trainer.project_name=verlpp_gpu trainer.experiment_name=grpo_0.6b
  trainer.total_training_steps="$STEPS" trainer.val_before_train=false trainer.test_freq="$STEPS"
  trainer.save_freq="$STEPS" trainer.default_local_dir="$work/ckpt")
# EXTRA_OVERRIDES: more key=value overrides, appended (e.g. the FSDP keys of tools/gpu/fsdp.sh).
read -r -a extra <<< "${EXTRA_OVERRIDES:-}"
cmd+=("${extra[@]}")
printf '%q ' "${cmd[@]}" > "$OUT/command.txt"
VERL_FILE_LOGGER_PATH="$OUT/ppo_metrics.jsonl" timeout "${RUN_TIMEOUT:-240}" "${cmd[@]}" > "$OUT/ppo.log" 2>&1
echo "ppo rc=$?"
tail -c 4000 "$OUT/ppo.log"
python3 - "$OUT/ppo_metrics.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    rec = json.loads(line)
    d = rec["data"]
    keys = sorted(k for k in d if k.startswith(("timing_s/", "perf/", "val-core/", "prompt_length/", "response_length/")) or k in (
        "critic/score/mean", "response_length/mean", "actor/ppo_kl", "actor/pg_clipfrac",
        "actor/kl_loss", "actor/grad_norm", "actor/entropy"))
    print("step", rec["step"], {k: round(d[k], 4) for k in keys})
PY
ls -la "$work/ckpt" 2>&1 | head
